"""gloo (the CPU backend torch ships, and what torch's Gloo process groups raise).

Read in pytorch/gloo: gloo/transport/tcp/pair.cc (Pair::read/write/waitUntilConnected, handleReadWrite),
gloo/transport/tcp/unbound_buffer.cc (waitRecv/waitSend), gloo/common/linux.cc; torch's ProcessGroupGloo.cpp.
Versions: `git log -S` in pytorch/gloo (the tcp transport's read/write/connect timeouts, `writev`, `Read error` and
`Socket closed` date from 2017-04; `Connection closed by peer` and the unbound buffers' `Timed out waiting` from
2018-11, so every torch from 1.0 prints them).
"""
from __future__ import annotations

from . import Message as M

_PEER = r"(?: \[(?P<host>[^\]]*)\]:(?P<port>\d+))?"
# strerror texts of a socket read/write that say the link itself failed (ETIMEDOUT: the kernel gave up retransmitting
# or its keepalive went unanswered; EHOSTUNREACH, ENETUNREACH, ENETDOWN): the path to the peer's host is gone, not a
# peer that closed its end after failing (ECONNRESET, EPIPE: the consequence the entries keep by default)
_LINK_FAILED = ("connection timed out", "no route to host", "network is unreachable", "network is down")


def _link_failed(fields: dict) -> dict:
    """A gloo pair's read or write failed with the strerror of a broken link: the network's failure, not a peer's."""
    reason = str(fields.get("reason") or "").strip().lower()
    return {"meaning": "failure"} if reason.startswith(_LINK_FAILED) else {}


MESSAGES = [
    M("gloo.connection_closed",
      r"(?:\[[^\]]*gloo[^\]]*\] )?Connection closed by peer" + _PEER,
      "gloo_error", "consequence", "network_error", "gloo (torch 1.0 - 2.13)", "gloo:gloo/transport/tcp/pair.cc:Pair::read",
      "RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:534] Connection closed by peer [10.0.0.2]:36241",
      "Connection closed by peer", data={"category": "connection_closed"}, anchor="Connection closed by peer"),
    M("gloo.read_reset",
      r"Read error" + _PEER + r":? (?:.*?)Connection reset by peer",
      "gloo_error", "consequence", "network_error", "gloo (torch 1.0 - 2.13)", "gloo:gloo/transport/tcp/pair.cc:Pair::read",
      "RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:589] Read error [10.0.0.2]:5312: Connection reset by "
      "peer", "Read error [10.0.0.2]:5312: Connection reset by peer", data={"category": "connection_reset"},
      anchor="Read error"),
    M("gloo.timeout",
      (r"Timed out waiting (?P<timeout_ms>\d+)ms for (?P<op>recv|send) operation", r" to complete"),
      "gloo_error", "failure", "timeout_unknown", "gloo (torch 1.0 - 2.13)",
      "gloo:gloo/transport/tcp/unbound_buffer.cc:UnboundBuffer::waitRecv",
      "RuntimeError: [../third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:81] Timed out waiting 1800000ms for recv "
      "operation to complete", "Timed out waiting 1800000ms for recv operation", data={"category": "timeout"},
      anchor="Timed out waiting"),
    M("gloo.size_mismatch",
      (r"op\.preamble\.length <= op\.nbytes\. (?P<received_bytes>\d+) vs (?P<expected_bytes>\d+)",
       r"\.? Received data size doesn't match expected size"),
      "gloo_error", "failure", "shape_mismatch", "gloo (torch 1.0 - 2.13)", "gloo:gloo/transport/tcp/pair.cc:Pair::prepareRead",
      "RuntimeError: [enforce fail at ../third_party/gloo/gloo/transport/tcp/pair.cc:446] op.preamble.length <= "
      "op.nbytes. 8 vs 4", "op.preamble.length <= op.nbytes. 8 vs 4", data={"category": "size_mismatch"},
      anchor="op.preamble.length"),
    M("gloo.size_mismatch_text",
      r"Received data size doesn't match expected size",
      "gloo_error", "failure", "shape_mismatch", "gloo (torch 1.0 - 2.13)", "gloo:gloo/transport/tcp/pair.cc:Pair::prepareRead",
      "RuntimeError: Received data size doesn't match expected size", "Received data size doesn't match expected size",
      data={"category": "size_mismatch"}),
    M("gloo.connect_full_mesh",
      (r"Gloo connectFullMesh failed with", r" (?P<reason>.+)"),
      "gloo_error", "failure", "network_error", "torch 1.9 - 2.13", "pytorch:torch/csrc/distributed/c10d/ProcessGroupGloo.cpp",
      "RuntimeError: Gloo connectFullMesh failed with [../third_party/gloo/gloo/transport/tcp/pair.cc:144] no error",
      "Gloo connectFullMesh failed with", data={"category": "connect"}),
    M("gloo.read_error",
      r"Read error \[(?P<host>[^\]]*)\]:(?P<port>\d+): (?!Connection reset by peer)(?P<reason>[A-Z][\w ]+)",
      "gloo_error", "consequence", "network_error", "gloo (torch 1.0 - 2.13)", "gloo:gloo/transport/tcp/pair.cc:Pair::read",
      "RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:598] Read error [10.0.0.2]:5312: No route to host",
      "Read error [10.0.0.2]:5312: No", data={"category": "read_error"}, anchor="Read error [", refine=_link_failed),
    M("gloo.write_error",
      r"writev \[(?P<host>[^\]]*)\]:(?P<port>\d+): (?P<reason>[A-Z][\w ]*)",
      "gloo_error", "consequence", "network_error", "gloo (torch 1.0 - 2.13)", "gloo:gloo/transport/tcp/pair.cc:Pair::write",
      "RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:337] writev [10.0.0.2]:5312: Broken pipe",
      "writev [10.0.0.2]:5312: B", data={"category": "write_error"}, anchor="writev [", refine=_link_failed),
    M("gloo.io_timeout",
      r"(?P<op>Read|Write|Connect) timeout \[(?P<host>[^\]]*)\]:(?P<port>\d+)",
      "gloo_error", "failure", "timeout_unknown", "gloo (torch 1.0 - 2.13)",
      "gloo:gloo/transport/tcp/pair.cc:Pair::read/write; pair.h (connect)",
      "RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:523] Read timeout [10.0.0.2]:5312",
      "Read timeout [10.0.0.2]:5312", data={"category": "timeout"}, anchor="Read timeout [|Write timeout [|Connect timeout ["),
    M("gloo.socket_closed",
      # "Socket closed" (Pair::waitUntilConnected) and "Socket unexpectedly closed" (Pair::handleReadWrite: the peer
      # hung up before the pair connected), both since 2017-04
      r"Socket (?:unexpectedly )?closed \[(?P<host>[^\]]*)\]:(?P<port>\d+)",
      "gloo_error", "consequence", "network_error", "gloo (torch 1.0 - 2.13)", "gloo:gloo/transport/tcp/pair.cc:Pair::waitUntilConnected",
      "RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:812] Socket closed [10.0.0.2]:5312",
      "Socket closed [10.0.0.2]:5312", data={"category": "connection_closed"},
      anchor="Socket closed [|Socket unexpectedly closed ["),
    # connect() to the peer failed: `[.../tcp/pair.cc:N] connect: <strerror>` (Pair::connect, 2017-02 - 2023-05) and
    # `[enforce fail at .../tcp/socket.cc:N] rv != -1. -1 vs -1. connect: <strerror>` (Socket::connect, 2023-05+)
    M("gloo.connect_error",
      r"(?:gloo/transport/tcp/\w+\.cc:\d+\] |rv != -1\. -1 vs -1\. )connect: (?P<reason>[A-Z][\w ]*)",
      "gloo_error", "failure", "network_error", "gloo (torch 1.0 - 2.13)",
      "gloo:gloo/transport/tcp/pair.cc:Pair::connect; gloo/transport/tcp/socket.cc:Socket::connect",
      "RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:206] connect: Connection refused",
      "gloo/transport/tcp/pair.cc:206] connect: C", data={"category": "connect"}, anchor="] connect: |. connect: "),
    # the asynchronous connect to a peer failed (Pair::handleConnecting, 2017-04-26 until pytorch/gloo#361 of
    # 2023-05-15 moved connecting into the device's single listener): `[.../tcp/pair.cc:N] connect [<addr>]:<port>:
    # <strerror>`, raised by init_process_group / new_group while the full mesh connects (torch 1.0 - 2.0); the
    # peer's address is in the message
    M("gloo.connect_peer_error",
      r"\] connect \[(?P<host>[^\]]*)\]:(?P<port>\d+): (?P<reason>[A-Z][\w ]*)",
      "gloo_error", "failure", "network_error", "gloo 2017-04 - 2023-05 (torch 1.0 - 2.0)",
      "gloo:gloo/transport/tcp/pair.cc:Pair::handleConnecting",
      "RuntimeError: [/opt/conda/conda-bld/pytorch_1682343967769/work/third_party/gloo/gloo/transport/tcp/pair.cc:799] "
      "connect [172.31.71.170]:13195: Connection refused", "pair.cc:799] connect [172.31.71.170]:13195: C",
      data={"category": "connect"}, anchor="] connect ["),
    # the libuv transport (gloo/transport/uv, 2019-08+: torch's gloo on Windows, and on Linux/macOS where the uv
    # transport is chosen): connecting to a peer failed, `Error connecting to <addr>: <uv_strerror>` (libuv's words are
    # lowercase: `connection refused`, `connection timed out`), raised while the full mesh connects
    M("gloo.uv_connect_error",
      r"Error connecting to \[(?P<host>[^\]]*)\]:(?P<port>\d+): (?P<reason>[a-z][\w ]*)",
      "gloo_error", "failure", "network_error", "gloo 2019-08+ (uv transport; torch 1.7+ on Windows)",
      "gloo:gloo/transport/uv/pair.cc:Pair::connect",
      "RuntimeError: [C:\\cb\\pytorch_1000000000000\\work\\third_party\\gloo\\gloo\\transport\\uv\\pair.cc:102] Error "
      "connecting to [192.168.1.20]:54923: connection refused", "Error connecting to [192.168.1.20]:54923: c",
      data={"category": "connect"}, anchor="Error connecting to ["),
    # the ibverbs transport: a work completion with an error status (`ibv_wc_status_str`), per slot (2017-05+)
    M("gloo.ibverbs_completion_error",
      (r"wc->status == IBV_WC_SUCCESS\. (?P<status>\d+) vs 0\.",
       r" (?P<op>Recv|Send|Memory region recv|Memory region send) for slot (?P<slot>\d+): (?P<reason>[\w ()-]+)"),
      "gloo_error", "failure", "network_error", "gloo (torch 1.0 - 2.13, ibverbs transport)",
      "gloo:gloo/transport/ibverbs/pair.cc:Pair::handleCompletion",
      "terminate called after throwing an instance of 'gloo::EnforceNotMet' what(): [enforce fail at "
      "gloo/transport/ibverbs/pair.cc:592] wc->status == IBV_WC_SUCCESS. 12 vs 0. Memory region send for slot 0: "
      "transport retry counter exceeded", "wc->status == IBV_WC_SUCCESS. 12 vs 0.", data={"category": "ib_completion"},
      anchor="wc->status == IBV_WC_SUCCESS"),
    # two ranks' addresses of different families (2 = AF_INET, 10 = AF_INET6): one side bound/advertised IPv4, the
    # other IPv6, so the pair cannot pick its listener (tcp Device::connect/isInitiator since pytorch/gloo#361,
    # 2023-05; the uv transport's Device::connect since 2019-08)
    M("gloo.address_family_mismatch",
      r"ss1\.ss_family == ss2\.ss_family\. (?P<family>\d+) vs (?P<peer_family>\d+)",
      "gloo_error", "failure", "network_error", "gloo 2023-05+ (tcp; torch 2.1 - 2.13), 2019-08+ (uv transport)",
      "gloo:gloo/transport/tcp/device.cc:Device::connect / Device::isInitiator; gloo/transport/uv/device.cc",
      "RuntimeError: [enforce fail at ../third_party/gloo/gloo/transport/tcp/device.cc:276] ss1.ss_family == "
      "ss2.ss_family. 2 vs 10", "ss1.ss_family == ss2.ss_family. 2 vs 10", data={"category": "address_family"},
      anchor="ss1.ss_family == ss2.ss_family"),
    # an unbound buffer's recv/send of THIS process timed out (its `Timed out waiting Nms` goes to the waiting
    # caller); the context then closes every pair of the process with this text, so whatever else the process was
    # doing on the group raises it: the process timed out waiting for a peer (gloo 2018-11+)
    M("gloo.pair_closed_by_timeout",
      r"Application timeout caused pair closure",
      "gloo_error", "failure", "timeout_unknown", "gloo 2018-11+ (torch 1.1 - 2.13)",
      "gloo:gloo/transport/tcp/unbound_buffer.cc:UnboundBuffer::waitRecv / waitSend (Context::signalException)",
      "RuntimeError: Application timeout caused pair closure", "Application timeout caused pair closure",
      data={"category": "timeout"}),
    # the pair's socket lost its peer between connect and the address lookup (gloo Address::fromPeer, GLOO_ENFORCE_NE
    # since 2017-02): `[enforce fail at .../tcp/address.cc:N] rv != -1. -1 vs -1. getpeername: <strerror>`, raised
    # while the mesh connects (init_process_group, new_group)
    M("gloo.peer_address_error",
      r"getpeername: (?P<reason>[A-Z][\w ]+)",
      "gloo_error", "failure", "network_error", "gloo 2017-02+ (torch 1.0 - 2.13)",
      "gloo:gloo/transport/tcp/address.cc:Address::fromPeer",
      "RuntimeError: [enforce fail at ../third_party/gloo/gloo/transport/tcp/address.cc:88] rv != -1. -1 vs -1. "
      "getpeername: Transport endpoint is not connected", "getpeername: Transport endpoint",
      data={"category": "connect"}, anchor="getpeername: "),
    # the TCP device finds no local address to use (tcp/device.cc; the uv transport words it the same): the
    # interface GLOO_SOCKET_IFNAME names has no address (`Unable to find address for: eth9`, lookupAddrForIface,
    # 2017-08+), the hostname resolves to an address this host cannot bind (`Unable to find address for <host>;
    # bind(2) for <addr> failed with: <error>`, lookupAddrForHostname, 2019-07+; `Unable to find address for:
    # <host>` before), or the address it bound is on no local interface (`Unable to find interface for: [a.b.c.d]`,
    # sockaddrToInterfaceName, 2017-04+: a stale /etc/hosts entry): the interface gloo picks is not one it can use
    M("gloo.no_local_address",
      (r"Unable to find (?:address|interface) for:? (?P<target>\[[^\]\s]*\](?::\d+)?|[^\s;]+)",
       r"; bind\(2\) for (?P<addr>\S+) failed with: (?P<reason>[A-Z][\w ]+)"),
      "gloo_error", "failure", "nic_misselection",
      "gloo 2017-04+ (`for: <iface>` 2017-08+, `; bind(2) for` 2019-07+; torch 1.0 - 2.13)",
      "gloo:gloo/transport/tcp/device.cc:lookupAddrForIface / lookupAddrForHostname / sockaddrToInterfaceName",
      "RuntimeError: [enforce fail at ../third_party/gloo/gloo/transport/tcp/device.cc:83] ifa != nullptr. Unable to "
      "find address for: vx00", "Unable to find address for: vx00", data={"category": "interface"},
      anchor="Unable to find address for|Unable to find interface for"),
    # the TCP transport's listener (tcp/listener.cc, 2023-05+) fails to accept a peer's connection for another reason
    # than EAGAIN (EMFILE: the process ran out of file descriptors): GLOO_ENFORCE in gloo's event-loop thread, which
    # nothing catches there, so the process that listens terminates (std::terminate, SIGABRT); its peers then see
    # their connections closed
    M("gloo.listener_accept_failed",
      r"tcp/listener\.cc:\d+\] false\. accept: (?P<reason>[A-Z][\w ]+)",
      "gloo_error", "failure", None, "gloo 2023-05+ (torch 2.1 - 2.13)",
      "gloo:gloo/transport/tcp/listener.cc:Listener::handleEvents",
      "  what():  [enforce fail at /pytorch/third_party/gloo/gloo/transport/tcp/listener.cc:63] false. accept: Too "
      "many open files", "tcp/listener.cc:63] false. accept: Too", data={"category": "connect", "terminates": True},
      anchor="false. accept: "),
    # torch's default Gloo device: the hostname resolves to no local address, so the device binds loopback and
    # advertises it to the peers (ProcessGroupGloo::createDefaultDevice, TORCH_WARN_ONCE; GlooDeviceFactory's
    # makeGlooDevice in recent releases). Harmless on one host; ranks on other hosts cannot reach it (N402 reads it
    # with the mesh's failed connects).
    M("gloo.loopback_fallback",
      r"Unable to resolve hostname to a \(local\) address\.\W+Using the loopback address as fallback",
      "gloo_device", "benign", None, "torch 1.9 - 2.13 (ProcessGroupGloo.cpp; GlooDeviceFactory.cpp later)",
      "pytorch:torch/csrc/distributed/c10d/ProcessGroupGloo.cpp:createDefaultDevice",
      "[rank1]:[W ProcessGroupGloo.cpp:721] Warning: Unable to resolve hostname to a (local) address. Using the "
      "loopback address as fallback. Manually set the network interface to bind to with GLOO_SOCKET_IFNAME. "
      "(function operator())", "Unable to resolve hostname to a (local) address. Using the loopback address as fallback",
      data={"category": "loopback_fallback"}, anchor="Unable to resolve hostname to a (local) address"),
    # Pair::verifyConnected (tcp/pair.cc, since 2017-02): an operation on a pair whose TCP connection to the peer never
    # reached CONNECTED (GLOO_ENFORCE_GE: `state_ >= CONNECTED. <state> vs <CONNECTED>. Pair is not connected (self
    # <--> peer)`): the link to that peer was never made; which end failed is not said
    M("gloo.pair_not_connected",
      (r"Pair is not connected", r" \((?P<local>\[[^\]]*\]:\d+) <--> \[(?P<host>[^\]]*)\]:(?P<port>\d+)\)"),
      "gloo_error", "failure", "network_error", "gloo (torch 1.0 - 2.13)", "gloo:gloo/transport/tcp/pair.cc:"
      "Pair::verifyConnected",
      "RuntimeError: [enforce fail at ../third_party/gloo/gloo/transport/tcp/pair.cc:787] state_ >= CONNECTED. 1 vs 2. "
      "Pair is not connected ([10.0.3.12]:40217 <--> [10.0.3.14]:35561)", "Pair is not connected",
      data={"category": "connect"}),
    # the libuv transport (transport/uv/pair.cc, 2019-08+: torch's Gloo on Windows and macOS) holds a pending send or
    # recv by a weak pointer to its UnboundBuffer; a peer's message for a buffer the program already released (its
    # wait timed out or was aborted) fails GLOO_ENFORCE in the loop thread and terminates the process: what that
    # earlier give-up left, not a failure of its own
    M("gloo.unbound_buffer_gone",
      r"Cannot lock pointer to unbound buffer",
      "gloo_error", "consequence", None, "gloo uv transport 2019-08+ (first torch release not checked)", "gloo:gloo/transport/uv/pair.cc:"
      "Pair::onNotifyRecvReady / onNotifySendReady",
      "what():  [enforce fail at ../third_party/gloo/gloo/transport/uv/pair.cc:338] buf. Cannot lock pointer to "
      "unbound buffer", "Cannot lock pointer to unbound buffer", data={"category": "unbound_buffer"}),
]

