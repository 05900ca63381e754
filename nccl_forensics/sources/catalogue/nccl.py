"""NCCL and RCCL: the WARN lines (`host:pid:tid [dev] file.cc:N NCCL WARN <msg>` from 2.3.5, the first public release;
`file.cc:N WARN <msg>` in 2.0 - 2.2) and the messages torch quotes after `Last error:`.

Read in NVIDIA/nccl (src/transport/net_ib.cc, net_socket.cc, src/misc/socket.cc, src/bootstrap.cc, src/init.cc,
src/enqueue.cc, src/include/alloc.h, src/include/checks.h, src/misc/shmutils.cc, src/proxy.cc; 2.3 - 2.30 through
its history: each entry's versions are the releases `git log -S` finds the wording in) and ROCm/rccl (same files,
plus its own wording of the IB completion error).
"""
from __future__ import annotations

from . import Message as M

_PEER = r"(?P<peer>[\w.:%-]+<\d+>|[\w.:%-]+:\d+|\[[\w.:%-]+\]:\d+)"

# ncclGetErrorString's texts (src/init.cc 2.3 - 2.30; RCCL the same), the result code each names: a program that
# prints the text alone (torch's watchdog `NCCL error: <text>`, vLLM/SGLang pynccl, an application's NCCLCHECK) still
# says which code it got. (`remote process exited ...` from 2.13, with ncclRemoteError.)
RESULT_TEXTS = {"unhandled cuda error": "ncclUnhandledCudaError", "unhandled system error": "ncclSystemError",
                "internal error": "ncclInternalError", "invalid argument": "ncclInvalidArgument",
                "invalid usage": "ncclInvalidUsage",
                "remote process exited or there was a network error": "ncclRemoteError"}


def result_code(text: str | None) -> str | None:
    """The ncclResult_t name a printed ncclGetErrorString text stands for (`unhandled cuda error (run with ...)`)."""
    words = (text or "").strip().lower()
    return next((code for said, code in RESULT_TEXTS.items() if words.startswith(said)), None)


def _network_code(fields: dict) -> dict:
    """A result code that is the network's (or a peer's) failure, as ncclSystemError and ncclRemoteError are read
    where torch or NCCL print them by name."""
    return {"implies": "network_error"} if fields.get("code") in ("ncclSystemError", "ncclRemoteError") else {}


# ncclResult_t's numbers (src/nccl.h.in, NCCL 2.x and RCCL alike), for the programs that print the number alone
RESULT_NUMBERS = {"1": "ncclUnhandledCudaError", "2": "ncclSystemError", "3": "ncclInternalError",
                  "4": "ncclInvalidArgument", "5": "ncclInvalidUsage", "6": "ncclRemoteError"}


def _numbered_code(fields: dict) -> dict:
    """The code a printed ncclResult_t number stands for, read as the named code is (_network_code)."""
    code = RESULT_NUMBERS.get(fields.get("result", ""))
    return {"code": code, **_network_code({"code": code})} if code else {}


def _older_unique_id(fields: dict) -> dict:
    """Family 0 as NCCL 2.16+ prints it (`ncclSocketInit: `): the unique id came from a build before 2.16. From 2.16
    the id is a bootstrap handle, an 8-byte random magic then the root's address (bootstrap.cc:bootstrapGetUniqueId);
    before, the address itself. A 2.16+ rank reads the address 8 bytes in, where an older root's IPv4 sockaddr_in
    holds its zero padding (sin_zero): family 0, an empty address. The ranks run NCCL builds on both sides of 2.16.
    (An older rank reading a newer id prints the magic's bytes as the family, `Net : ` form: no telling.)"""
    if fields.get("family") == "0" and fields.get("form", "").startswith("ncclSocketInit"):
        return {"implies": "version_mismatch", "category": "nccl_build"}
    return {}


def _driver_too_old(fields: dict) -> dict:
    """cudaGetDriverEntryPoint's answer that names an old driver: runtime error 35 (cudaErrorInsufficientDriver) or
    entry status 2 (cudaDriverEntryPointVersionNotSufficent)."""
    if fields.get("code") == 35 or str(fields.get("status")) == "2":
        return {"implies": "version_mismatch", "category": "cuda_driver"}
    return {}


def _window_bytes(fields: dict) -> dict:
    """ncclSpaceAlloc prints the window's size in hex: the bytes it asked for."""
    size = fields.get("size_hex")
    return {"requested_bytes": int(size, 16)} if size else {}


# strerror texts of a socket call that say the peer's end is gone (EPIPE: a write to a socket the peer closed;
# ECONNRESET: the peer's host reset it, as when its process exits): like a closed connection, what the peer did
# after it failed or exited, not the link's own failure
_PEER_GONE = ("broken pipe", "connection reset")


def _peer_gone(fields: dict) -> dict:
    """A socket call NCCL reports failed (socketProgressOpt, SYSCHECKVAL before 2.4) with the strerror of a peer that
    closed its end: a consequence of that peer, read as the network's only when nothing else failed first."""
    reason = str(fields.get("reason") or "").lower()
    return {"meaning": "consequence"} if reason.startswith(_PEER_GONE) else {}


# ibv_event_type_str's names (libibverbs) of the async events that report a fault: `CQ error`, `port error`, `path
# migration request error`, `local catastrophic error`, `SRQ catastrophic error`, `WQ fatal`, ...; the others report
# a change of state (`port active`, `LID change`, `SM change`, `client reregistration`, `GID table change`)
_IB_EVENT_FAULT = ("error", "catastroph", "fatal")


def _ib_event_fault(fields: dict) -> dict:
    """An IB async event names its type: a fault (`port error`: the port went down) fails the network, whatever the
    release called the event; a change of state (`port active`: it came back) is only information."""
    reason = str(fields.get("reason") or "").lower()
    if any(word in reason for word in _IB_EVENT_FAULT):
        return {"meaning": "failure", "implies": "network_error"}
    return {"meaning": "benign"}


# The entries NCCL prints at INFO level. The NCCL parser reads their lines (an `nccl_info` event, which the
# catalogue's pass over every line leaves to it) and gives the event the entry's meaning itself.
INFO_LEVEL = frozenset({"nccl.socket_connect_retry", "nccl.nic_pci_path_missing", "nccl.ras_peer_dead",
                        "nccl.net_count_short"})

MESSAGES = [
    # ---- the IB verbs transport: a work completion with an error (the link or the peer failed)
    M("nccl.ib_completion_error",
      # the IB transports of the net plugins name themselves after NET/IB (`NET/IBext`, a vendor's `NET/IBP:`)
      r"NET/IB\w*(?:/GIN)? ?: ?Got completion (?:from peer " + _PEER + r" )?with (?:error (?P<status>\d+)|status=(?P<status2>\d+)"
      r"|status=(?P<status_name>IBV_WC_\w+|[A-Z][\w ]*)\((?P<status3>\d+)\))"
      r"(?:,? opcode[ =](?P<opcode>\d+|\w+\(\d+\)))?(?:,? (?:len[ =]|reqSize=)(?P<len>\d+))?(?:,? vendor[ _]err[ =]?(?P<vendor_err>\d+))?",
      "warn", "failure", "network_error", "2.3 - 2.30 (`from peer` 2.10+, `status=NAME(n)` 2.20+, `reqSize=` 2.27+), RCCL, nccl-rdma-sharp-"
      "plugins (IBext)", "nccl:src/transport/net_ib.cc:ncclIbTest",
      "NCCL WARN NET/IB : Got completion from peer 10.0.35.1<49189> with error 4, opcode 5327, len 5327, vendor err 81 "
      "(Send)", "NET/IB : Got completion from peer 10.0.35.1<49189> with error 4",
      data={"category": "ib"}, anchor="Got completion"),
    # ncclIbAsyncThreadMain's WARN of every async event before 2.23 (`<dev>:<port> ` from 2.20), and of the non-fatal
    # ones 2.23 - 2.28.3 (`Got async error event:`; the fatal ones are nccl.ib_async_fatal): the event's name decides
    M("nccl.ib_async_event",
      r"NET/IB ?: (?:(?P<device>[\w.-]+):(?P<ib_port>\d+) )?(?:Got async (?:error )?event|IB event) ?: (?P<reason>.+)",
      "warn", "failure", "network_error", "2.3 - 2.28.3 (`<dev>:<port>` 2.20+, `Got async error event:` 2.23 - 2.28.3; "
      "2.28.7+: nccl.ib_nonfatal_event)", "nccl:src/transport/net_ib.cc:ncclIbAsyncThreadMain",
      "NCCL WARN NET/IB : Got async event : port error", "NET/IB : Got async event : port error",
      data={"category": "ib"}, anchor="NET/IB", refine=_ib_event_fault),
    M("nccl.ib_verbs_call_failed",
      # the inline wrapper of ibv_poll_cq (include/ibvwrap.h, NCCL 2.3 - 2.30 and RCCL) prints `Call to ibv_poll_cq()
      # returned %d` (a negative count: polling the completion queue failed)
      # (ibv_open_device is left to nccl.ib_open_device_failed: only device discovery calls it, and skips the device)
      r"Call to (?P<call>ibv_(?!open_device\b)\w+)(?: failed(?: with error (?P<reason>[^,\n]+))?|\(\) returned (?P<code>-\d+))",
      "warn", "failure", "network_error", "2.3 - 2.30 (RCCL too)", "nccl:src/misc/ibvwrap.cc; src/include/ibvwrap.h:wrap_ibv_poll_cq",
      "NCCL WARN Call to ibv_modify_qp failed with error Connection timed out", "Call to ibv_modify_qp failed",
      data={"category": "ib"}, anchor="Call to ibv_"),
    # device discovery (ncclIbInit) is the only caller of wrap_ibv_open_device: on a failure it warns `NET/IB : Unable
    # to open device` and goes on to the next device; the NICs it did open follow (`NET/IB : Using [0]...`), or none
    # and NCCL uses its socket transport. The job is not failed by it (a slower network is told by the lines after)
    M("nccl.ib_open_device_failed",
      r"Call to ibv_open_device failed",
      "warn", "benign", None, "2.3 - 2.30 (RCCL too)", "nccl:src/misc/ibvwrap.cc:wrap_ibv_open_device (IBV_PTR_CHECK)",
      "misc/ibvwrap.cc:212 NCCL WARN Call to ibv_open_device failed", "Call to ibv_open_device failed",
      data={"category": "ib"}, anchor="Call to ibv_open_device"),
    # ---- sockets (bootstrap, NET/Socket, the proxy): a peer closed, reset or refused
    M("nccl.socket_closed",
      r"(?:socketProgress(?:Opt)?: |Net : |NET/Socket : )?Connection closed by (?:remote )?peer(?: " + _PEER + ")?",
      "warn", "consequence", "network_error", "2.3 - 2.30 (`Net : ` before 2.16, `socketProgress: ` from 2.16)", "nccl:src/misc/socket.cc:socketProgressOpt",
      "NCCL WARN socketProgress: Connection closed by remote peer node-2<52104>",
      "socketProgress: Connection closed by remote peer", data={"category": "socket"}, anchor="Connection closed by"),
    M("nccl.socket_call_failed",
      r"(?:socketProgressOpt: )?Call to (?P<call>recv|send|connect|accept) (?:from|to) " + _PEER +
      r" failed ?: (?P<reason>Connection reset by peer|Connection refused|Broken pipe|Connection timed out|No route to host"
      r"|[A-Z][\w ]+)",
      "warn", "failure", "network_error", "2.10 - 2.30 (`Net : ` 2.10 - 2.15; `socketProgressOpt:` 2.16 - 2.28, "
      "`ncclOsSocketProgressOpt:` from 2.24)", "nccl:src/misc/socket.cc:socketProgressOpt (include/socket.h 2.10 - 2.11)",
      "NCCL WARN socketProgressOpt: Call to recv from 10.0.0.2<33759> failed : Connection reset by peer",
      "socketProgressOpt: Call to recv from 10.0.0.2<33759> failed : Connection reset",
      data={"category": "socket"}, anchor="Call to recv|Call to send|Call to connect|Call to accept",
      refine=_peer_gone),
    M("nccl.socket_io_failed_pre210",
      # before the peer was printed: 2.3's SYSCHECKVAL around the socket's recv()/write() (include/core.h: `Call to `
      # name ` failed : ` strerror), 2.4 - 2.9's socketProgressOpt (`Call to recv failed : `, for sends too); 2.3's
      # connectAddress retries refusals (SYSCHECKNTIMES: then `Call to connect timeout`) and fails any other errno
      # of connect() at once (SYSCHECKVALEXP: `Call to connect failed : Connection timed out`, an address a peer
      # published that this host cannot reach); 2.4+ say `Connect to <addr> failed`. Only the calls on a peer's
      # socket: the same macros name bind/listen/setsockopt, which are no peer's failure
      r"Call to (?P<call>recv|write|send|connect) failed ?: (?P<reason>Connection reset by peer|Broken pipe"
      r"|Connection timed out|No route to host|[A-Z][\w ]+)",
      "warn", "failure", "network_error", "2.3 - 2.9 (`connect` 2.3 only)", "nccl:src/include/core.h:SYSCHECKVAL, "
      "SYSCHECKVALEXP (2.3; include/socket.h:connectAddress); src/include/socket.h:socketProgressOpt (2.4 - 2.9)",
      "NCCL WARN Call to write failed : Connection reset by peer", "Call to write failed : Connection reset",
      data={"category": "socket"},
      anchor="Call to recv failed|Call to write failed|Call to send failed|Call to connect failed",
      refine=_peer_gone),
    M("nccl.socket_connect_failed",
      # the peer as printed (`addr<port>`), or as a poster redacted it (`xxx`)
      # (`Call to connect returned %s, retrying` is NCCL's INFO before a retry: nccl.socket_connect_retry)
      r"(?:[Cc]onnect to (?P<peer>\S+) failed ?: (?P<reason>[\w ]+)|Call to connect timeout ?:? ?(?P<reason2>[\w ]+))",
      "warn", "failure", "network_error", "2.4 - 2.30 (`Connect to`; `%s: connect to` 2.27+)", "nccl:src/misc/socket.cc:socketConnect",
      "NCCL WARN Call to connect timeout : Connection refused", "Call to connect timeout : Connection refused",
      data={"category": "socket"}, anchor="Connect to |connect to |Call to connect"),
    # A connect that no one answers, before NCCL tries it again (INFO; the WARNs of the exhausted retries are
    # nccl.socket_connect_failed and nccl.socket_retries_exhausted). NCCL connects only to an address a peer
    # published after it began listening (the bootstrap root's unique id, the ring and proxy addresses), so a refused
    # or unreachable one is a peer that is gone (exited, restarted with new ports) or an address this host cannot
    # reach: another rank's failure, or the network's, reaching this one. 2.4 - 2.23 print `Call to connect
    # returned %s, retrying` (refusals only: every one in 2.4 - 2.6, every 1000th of 1 ms retries from 2.7);
    # 2.24 - 2.26 `<function>: connect returned %s, retrying (n/N) after sleep for M msec`; 2.27+ name the address
    # (`connect to <addr> returned`), for refused, timed-out and unreachable connects. EINTR/EAGAIN retries
    # (`Interrupted system call`, `Resource temporarily unavailable`) are the kernel's, not a peer's: not matched.
    M("nccl.socket_connect_retry",
      r"(?:(?P<func>\w+): )?(?:Call to connect|connect(?: to " + _PEER + r")?) returned (?P<reason>Connection refused"
      r"|Connection timed out|No route to host|Network is unreachable), retrying",
      "nccl_info", "consequence", "network_error", "2.4 - 2.30 (`Call to connect returned` to 2.23, `<function>: connect "
      "returned` 2.24 - 2.26, `connect to <addr> returned` 2.27+)", "nccl:src/misc/socket.cc:socketConnectCheck "
      "(include/socket.h:connectAddress to 2.11, misc/socket.cc:ncclSocketConnect 2.12 - 2.23, src/os/linux.cc 2.29+)",
      "node-1:5971:6015 [4] NCCL INFO socketPollConnect: connect to 10.0.0.2<52333> returned Connection refused, "
      "retrying (18/34) after sleep for 1800 msec", "socketPollConnect: connect to 10.0.0.2<52333> returned Connection refused, retrying",
      data={"category": "socket"}, anchor="returned Connection refused, retrying|returned Connection timed out, "
      "retrying|returned No route to host, retrying|returned Network is unreachable, retrying"),
    M("nccl.socket_family",
      # the address to connect to is one a peer sent (the unique id's root address, a bootstrap exchange): its family
      # is garbage when those bytes are not an address (ranks on different NCCL builds, a unique id that is not this
      # communicator's). NCCL's own interfaces are never such (findInterfaces keeps AF_INET/AF_INET6 only), so it is
      # no NIC choice: the connection cannot be made (ncclInternalError, then the bootstrap's error trace).
      # 2.8 - 2.9 `Error : ... address with family` (no address), 2.10 - 2.15 `Net : ` (include/socket.h, misc/socket.cc
      # from 2.12), 2.16+ `ncclSocketInit: `
      r"(?P<form>ncclSocketInit: |Net : |Error : )connecting to address (?P<peer>\S*) ?with family (?P<family>\d+) "
      r"is neither AF_INET",
      "warn", "failure", "network_error", "2.8 - 2.30", "nccl:src/misc/socket.cc:ncclSocketInit (include/socket.h:"
      "connectAddress 2.8 - 2.11, misc/socket.cc:ncclSocketConnect 2.12 - 2.15)",
      "NCCL WARN ncclSocketInit: connecting to address  with family 59936 is neither AF_INET(2) nor AF_INET6(10)",
      "ncclSocketInit: connecting to address  with family 59936 is neither AF_INET", data={"category": "socket"},
      anchor="connecting to address", refine=_older_unique_id),
    # ---- no interface NCCL may use (NCCL_SOCKET_IFNAME names none that is up)
    M("nccl.no_socket_interface",
      r"(?:Bootstrap|NET/Socket) ?: (?:no socket interface found|[Nn]o interface found|No usable listening interface found)"
      r"|No interface found in the same subnet",
      "warn", "failure", "nic_misselection", "2.3 - 2.30 (`No interface found in the same subnet` to 2.26)", "nccl:src/bootstrap.cc:bootstrapNetInit",
      "bootstrap.cc:37 NCCL WARN Bootstrap : no socket interface found", "Bootstrap : no socket interface found",
      data={"category": "init"}, anchor="interface found|Interface found|No usable listening interface"),
    # ---- NCCL's own collective check (2.4.2 - 2.7.6; gone in 2.7.8): the kernels compare their op counts with the
    # peers'. ncclCommGetAsyncError reads the device's verdict: an asserted mismatch (the comm's fatal error becomes
    # ncclInvalidUsage) or a suspected one (the peer's count stayed behind for long: a warning, the kernel keeps
    # waiting). Both print the rank that saw it (comm->rank).
    M("nccl.mismatched_collective",
      (r"Mismatched collective detected", r", please check your collective calls at and around rank (?P<rank>\d+)"),
      "warn", "failure", "collective_mismatch", "2.4 - 2.7.6", "nccl:src/init.cc:ncclCommGetAsyncError",
      "init.cc:1247 NCCL WARN Mismatched collective detected, please check your collective calls at and around rank "
      "39. You can use NCCL_DEBUG=INFO and NCCL_DEBUG_SUBSYS=COLL to see the collective logs",
      "Mismatched collective detected", data={"category": "other"}),
    M("nccl.suspected_mismatch",
      (r"Your program may be hanging, this may be caused by a collective mismatch",
       r" around rank (?P<rank>\d+)"),
      "warn", "failure", "collective_mismatch", "2.4 - 2.7.6", "nccl:src/init.cc:ncclCommGetAsyncError",
      "init.cc:1256 NCCL WARN Your program may be hanging, this may be caused by a collective mismatch around rank 1. "
      "Please check your collective calls at and around this rank. You can use NCCL_DEBUG=INFO and "
      "NCCL_DEBUG_SUBSYS=COLL to see the collective logs",
      "Your program may be hanging, this may be caused by a collective mismatch", data={"category": "other"},
      anchor="Your program may be hanging"),
    # the bootstrap's own exchanges (bootstrap.cc socketRecv / socketSendRecv, 2.4+; 2.3's ncclSocketIrecv, which
    # the bootstrap used too): each side sends a size NCCL's build fixes (peer info, ring and proxy addresses), so a
    # larger one is no tensor of the program's but the two ends disagreeing on NCCL's own messages: ranks on
    # different NCCL builds (V501 reads their versions), another process on the port, or an NCCL bug (2.19 - 2.20
    # on some clusters). 2.29+ print the two sizes of a double exchange (`received 8,4 bytes instead of 4,4`)
    M("nccl.message_truncated",
      (r"Message truncated ?: received (?P<received_bytes>\d+)(?:,\d+)? bytes",
       r" instead of (?P<expected_bytes>\d+)(?:,\d+)?"),
      "warn", "failure", None, "2.3 (net_socket.cu ncclSocketIrecv), 2.4 - 2.30 (bootstrap.cc; `%d,%d` form 2.29+)",
      "nccl:src/bootstrap.cc:socketRecv / socketSendRecv / socketDoubleSendRecv (bootstrapNetRecv 2.4 - 2.18)",
      "bootstrap.cc:77 NCCL WARN Message truncated : received 256 bytes instead of 4",
      "Message truncated : received 256 bytes", data={"category": "bootstrap"}, anchor="Message truncated"),
    # ---- device memory
    M("nccl.cuda_oom",
      r"Cuda failure(?: \d+)? '(?:out of memory|hipErrorOutOfMemory)'",   # RCCL with HIP < 5 printed the name
      "warn", "failure", "oom", "1.x - 2.30 (`Cuda failure %d '%s'` from 2.19)", "nccl:src/include/checks.h:CUDACHECK",
      "enqueue.cc:1085 NCCL WARN Cuda failure 'out of memory'", "Cuda failure 'out of memory'",
      data={"category": "cuda", "oom_kind": "nccl_cuda"}, anchor="'out of memory'|'hipErrorOutOfMemory'"),
    M("nccl.calloc_failed",
      r"Failed to CUDA (?:calloc|malloc|host alloc)(?: async)? (?P<requested_bytes>\d+) bytes|cudaMalloc\w* failed",
      "warn", "failure", "oom", "2.14 - 2.30 (`Failed to CUDA calloc`; `calloc async` 2.14+), `cudaMalloc... failed` "
      "before", "nccl:src/include/alloc.h:ncclCudaCalloc / ncclCudaCallocAsync",
      "include/alloc.h:178 NCCL WARN Failed to CUDA calloc 6291456 bytes", "Failed to CUDA calloc 6291456 bytes",
      data={"category": "cuda", "oom_kind": "nccl_cuda"}, anchor="Failed to CUDA|cudaMalloc"),
    M("nccl.shm_failed",
      (r"Error while (?:creating|attaching to) shared memory segment", r" (?P<path>\S+)",
       r" \(size (?P<requested_bytes>\d+)\)", r", error: (?P<reason>[^(]+)"),
      "warn", "failure", "oom", "2.4 - 2.30 (`, error: <strerror> (<errno>)` from 2.22; os/linux.cc 2.30+)",
      "nccl:src/misc/shmutils.cc:ncclShmOpen; src/os/linux.cc:ncclOsShmOpen (2.30+)",
      "NCCL WARN Error while creating shared memory segment /dev/shm/nccl-QkEMTp (size 9637888)",
      "Error while creating shared memory segment", data={"category": "init"}, anchor="shared memory segment"),
    M("nccl.cuda_failure",
      r"Cuda failure(?: \d+)? '(?!out of memory|hipErrorOutOfMemory)(?P<reason>[^']+)'?",
      "warn", "failure", "dropped_rank", "1.x - 2.30 (`Cuda failure %d '%s'` from 2.19)", "nccl:src/include/checks.h:CUDACHECK",
      "NCCL WARN Cuda failure 'an illegal memory access was encountered'", "Cuda failure 'an illegal",
      data={"category": "cuda"}, anchor="Cuda failure"),
    # the P2P transport enabling peer access to another GPU of the node (transport/p2p.cc; NCCL 1.x names the rank,
    # 2.4+ the bus id and the error number): no P2P path between the two GPUs
    M("nccl.p2p_peer_failed",
      (r"(?:rank \d+ )?failed to peer with device (?P<peer_dev>\d+)(?:\(=[0-9a-fA-F]+\))?",
       r": (?:\d+ )?(?P<reason>.+?)\s*$"),
      "warn", "failure", "network_error", "1.x - 2.30", "nccl:src/transport/p2p.cc:p2pMap (p2pSetup before 2.12)",
      "transport/p2p.cc:281 NCCL WARN failed to peer with device 1(=41000): 217 peer access is not supported between "
      "these two devices", "failed to peer with device 1", data={"category": "p2p"}, anchor="failed to peer with device"),
    # the P2P transport's own check of the CUDA IPC calls that map a peer GPU's buffers, before 2.8 moved them under
    # CUDACHECK (`Cuda failure`): cudaIpcGetMemHandle (`rank R failed to get CUDA IPC handle to device D[(=busid)]`)
    # and cudaIpcOpenMemHandle (`failed to open CUDA IPC handle`), then cudaGetErrorString's number and text. The
    # text decides (catalogue/cuda.py reason_class: 217 `peer access is not supported` is no P2P path)
    M("nccl.p2p_ipc_failed",
      (r"(?:rank \d+ )?failed to (?:get|open) CUDA IPC handle(?: to device (?P<peer_dev>\d+)(?:\(=[0-9a-fA-F]+\))?)?",
       r" : (?:\d+ )?(?P<reason>.+?)\s*$"),
      "warn", "failure", None, "2.3.5 - 2.7.8", "nccl:src/transport/p2p.cc:p2pSendSetup/p2pRecvSetup/p2pSendConnect",
      "transport/p2p.cc:238 NCCL WARN failed to open CUDA IPC handle : 217 peer access is not supported between these "
      "two devices", "failed to open CUDA IPC handle", data={"category": "p2p"}, anchor="CUDA IPC handle"),
    # RCCL (ROCm/rccl): CUDACHECK hipified keeps `Cuda failure '%s'` (hipGetErrorString); its driver and HSA checks
    # print `HIP failure '%s' at file:line` / `HSA failure '%s' at file:line` (src/include/rocmwrap.h). RCCL 2.27
    # (ROCm 7, ROCm/rocm-systems projects/rccl src/include/debug.h rcclCudaErrorHandler) routes CUDACHECK through
    # ERROR(`HIP failure: '%s'`), printed at the error level as `[FATAL ERROR]: HIP failure: '%s'` after the usual
    # `host:pid:tid [dev]`; it returns ncclUnhandledCudaError (no abort), the same check as NCCL's `Cuda failure`
    M("nccl.rccl_hip_oom",
      r"(?:HIP|HSA|ROCr) failure:? '(?:out of memory|hipErrorOutOfMemory|HSA_STATUS_ERROR_OUT_OF_RESOURCES)[^']*'",
      "warn", "failure", "oom", "RCCL 2.x (ROCm 5 - 7; `ROCr failure '%s'` with hsa_status_string from ROCm 5.4; "
      "`HIP failure: '%s'` from 2.27)",
      "rccl:src/include/rocmwrap.h:CUCHECK/HSACHECK",
      "alloc.h:123 NCCL WARN HIP failure 'out of memory' at /rccl/src/include/alloc.h:123",
      "HIP failure 'out of memory'", data={"category": "cuda", "oom_kind": "nccl_cuda"},
      anchor="HIP failure '|HSA failure '|ROCr failure '|HIP failure: '"),
    M("nccl.rccl_hip_failure",
      r"(?:HIP|HSA|ROCr) failure:? '(?!out of memory|hipErrorOutOfMemory|HSA_STATUS_ERROR_OUT_OF_RESOURCES)"
      r"(?P<reason>[^']+)'?(?: at (?P<where>\S+))?",
      "warn", "failure", "dropped_rank", "RCCL 2.x (ROCm 5 - 7; `ROCr failure` from ROCm 5.4; `HIP failure: '%s'` "
      "from 2.27)", "rccl:src/include/rocmwrap.h:CUCHECK/HSACHECK; rocm-systems:projects/rccl/src/include/debug.h:"
      "rcclCudaErrorHandler",
      "proxy.cc:1234 NCCL WARN HIP failure 'an illegal memory access was encountered' at /rccl/src/proxy.cc:1234",
      "HIP failure 'an illegal", data={"category": "cuda"},
      anchor="HIP failure '|HSA failure '|ROCr failure '|HIP failure: '"),
    # The format's tail (`rank %d and rank %d both on CUDA device %lx`, the bus id in hex) is NCCL's own words and is
    # read alone too: pastes retold on forums and blogs keep it and drop the `Duplicate GPU detected` prefix.
    M("nccl.duplicate_gpu",
      (r"(?:Duplicate GPU detected ?: ?rank (?P<rank>\d+) and rank (?P<other_rank>\d+)"
       r"|\brank (?P<rank2>\d+) and rank (?P<other_rank2>\d+)(?= both on CUDA device \w))",
       r" both on CUDA device (?P<device>\w+)"),
      "warn", "failure", None, "2.5 - 2.29, RCCL (2.30: `Multiple Ranks are using the same GPU`)",
      "nccl:src/init.cc:initTransportsRank; rccl:src/init.cc:initTransportsRank",
      "NCCL WARN Duplicate GPU detected : rank 1 and rank 0 both on CUDA device 1000",
      "Duplicate GPU detected : rank 1 and rank 0", data={"category": "init"},
      anchor="Duplicate GPU detected|both on CUDA device"),
    # The Unix-domain sockets that pass cuMem file descriptors between processes of one node (abstract names, so one
    # network namespace): NCCL 2.17+ (cuMem / NVLS buffers, user-buffer registration) and TransformerEngine's
    # userbuffers copy of the same file (ipc_warn, `: strerror (errno)` after every line). A failure says the local
    # peer's socket was not there or not reachable (the peer exited, containers without a shared network namespace);
    # no network is involved, so no class of its own.
    M("nccl.uds_failed",
      (r"UDS: (?P<what>Sending data over socket|Receiving data over socket|Binding to socket|Socket creation error"
       r"|Cannot (?:bind|connect to) provided name)", r"[^\n:]*? : (?P<reason>[A-Za-z][^(\n]*?) \((?P<code>\d+)\)"),
      "warn", "failure", None, "NCCL 2.17 - 2.30 (`: <strerror> (<errno>)` from 2.19; src/os/linux_ipcsocket.cc 2.30), "
      "TransformerEngine 1.5+ (userbuffers ipcsocket.cc)",
      "nccl:src/misc/ipcsocket.cc:ncclIpcSocketSendMsg / ncclIpcSocketRecvMsg / ncclIpcSocketInit; "
      "TransformerEngine:transformer_engine/common/comm_gemm_overlap/userbuffers/ipcsocket.cc:ipc_warn",
      "NCCL WARN UDS: Sending data over socket /tmp/nccl-socket-3-deadcafebeef failed : Connection refused (111)",
      "UDS: Sending data over socket", data={"category": "init"}, anchor="UDS: "),
    M("nccl.proxy_call_failed",
      (r"Proxy Call to rank (?P<peer>\d+) failed", r" \((?P<reason>[^)]*)\)"),
      "warn", "consequence", "network_error", "2.12 - 2.17", "nccl:src/proxy.cc:ncclProxyCallBlocking",
      "NCCL WARN Proxy Call to rank 5 failed (Connect)", "Proxy Call to rank 5 failed", data={"category": "proxy"},
      anchor="Proxy Call to rank"),
    # ---- mined from NVIDIA/nccl src/ (every WARN( of the transports, the proxy, bootstrap, init; 2.3 - 2.30)
    M("nccl.ib_async_fatal",
      r"NET/IB ?: (?P<device>[\w.-]+):(?P<ib_port>\d+) async fatal event(?: on (?:CQ|QP|SRQ)\b[^:]*)?:(?: (?P<reason>.+))?",
      "warn", "failure", "network_error", "2.23 - 2.30", "nccl:src/transport/net_ib.cc:ncclIbAsyncThreadMain",
      "NCCL WARN NET/IB : mlx5_0:1 async fatal event: local catastrophic error", "NET/IB : mlx5_0:1 async fatal event:",
      data={"category": "ib"}, anchor="async fatal event"),
    # IBV_EVENT_GID_CHANGE (a RoCE port's address table changed): the async thread warns and goes on, no fatal handler
    # runs and no request fails by it; a connection the change broke fails on its own completion error
    M("nccl.ib_gid_changed",
      r"NET/IB ?: (?P<device>[\w.-]+):(?P<ib_port>\d+) GID table changed",
      "warn", "benign", None, "2.28.3 - 2.30 (src/transport/net_ib/common.cc from 2.29)",
      "nccl:src/transport/net_ib.cc:ncclIbAsyncThreadMain",
      "NCCL WARN NET/IB : mlx5_1:1 GID table changed", "NET/IB : mlx5_1:1 GID table changed",
      data={"category": "ib"}, anchor="GID table changed"),
    # the remote port is on another subnet but advertises FLID 0: NCCL addresses it by its LID and connects (the
    # `Warning: ` is part of the WARN's text)
    M("nccl.ib_flid_zero_fallback",
      r"remote FLID configured as zero even when endpoints are on different subnets, using dlid as fallback",
      "warn", "benign", None, "2.23.4 - 2.30 (src/transport/net_ib/connect.cc from 2.29)",
      "nccl:src/transport/net_ib.cc:ncclIbRtrQp",
      "NCCL WARN Warning: remote FLID configured as zero even when endpoints are on different subnets, using dlid as "
      "fallback", "remote FLID configured as zero even when endpoints are on different subnets",
      data={"category": "ib"}, anchor="remote FLID configured as zero"),
    # the IB transport counts every fatal async event (of a QP, a CQ or the device) and fails its next send, receive or
    # test (ncclIbStatsCheckFatalCount, NCCL_IB_RETURN_ASYNC_EVENTS): the only WARN of these words, so the IB link or
    # device failed even when the async event's own line went to another log
    M("nccl.ib_fatal_count",
      r"communicator encountered a fatal error \(detected in (?P<where>ncclIb\w*)",
      "warn", "failure", "network_error", "2.23 - 2.30", "nccl:src/transport/net_ib.cc:ncclIbStatsCheckFatalCount "
      "(src/transport/net_ib/common.cc from 2.30)",
      "NCCL WARN communicator encountered a fatal error (detected in ncclIbIsend)",
      "communicator encountered a fatal error (detected in ncclIb", data={"category": "ib"},
      anchor="communicator encountered a fatal error"),
    # NCCL's own word for the class (`non-fatal`: it goes on) where a `port error(10)` still took the port down
    M("nccl.ib_nonfatal_event",
      r"NET/IB ?: (?P<device>[\w.-]+):(?P<ib_port>\d+) Got non-fatal async event: (?P<reason>.+)",
      "warn", "benign", None, "2.28.7 - 2.30 (src/transport/net_ib/common.cc from 2.29)",
      "nccl:src/transport/net_ib.cc:ncclIbAsyncThreadMain",
      "NCCL WARN NET/IB : mlx5_0:1 Got non-fatal async event: port active(9)", "Got non-fatal async event",
      data={"category": "ib"}, anchor="Got non-fatal async event", refine=_ib_event_fault),
    M("nccl.ib_cqe_error",
      r"NET/IB: (?:Got CQE with error|The error is fatal|Fatal error\. Detected (?P<count>\d+) failed devices"
      r"|Device (?P<device>\d+) marked as failed)",
      "warn", "failure", "network_error", "2.29 - 2.30 (IB resiliency; `Fatal error. Detected` 2.30)", "nccl:src/transport/net_ib/ (resiliency)",
      "NCCL WARN NET/IB: Fatal error. Detected 1 failed devices out of 1 devices on the send communicator",
      "NET/IB: Fatal error. Detected 1 failed devices",
      data={"category": "ib"}, anchor="Got CQE with error|The error is fatal|failed devices|marked as failed"),
    # IB resiliency (NCCL_IB_RESILIENCY) on a communicator with one NIC has nothing to fail over to: NCCL says so
    # and goes on without it
    M("nccl.ib_resiliency_single_device",
      r"NET/IB: Resiliency is enabled on a (?P<side>send|recv) communicator \(comm=0x[0-9a-fA-F]+\) with a single "
      r"device",
      "warn", "benign", None, "2.29.7 - 2.30", "nccl:src/transport/net_ib/p2p_resiliency.cc",
      "NCCL WARN NET/IB: Resiliency is enabled on a send communicator (comm=0x7f55a8001b20) with a single device. "
      "This does not make sense since there is no other device to fail over to.",
      "NET/IB: Resiliency is enabled on a send communicator (comm=0x7f55a8001b20) with a single device",
      data={"category": "ib"}, anchor="Resiliency is enabled on a"),
    # ---- NCCL's argument check before a collective is enqueued (ncclInvalidArgument, 4): the program passed a
    # root outside the communicator, an unknown type or reduction, a NULL or foreign buffer. The call fails on
    # this rank only; its peers wait for it.
    M("nccl.invalid_argument",
      r"(?P<op>\w+) : (?:invalid root (?P<root>-?\d+)(?: \(root should be in the 0\.\.(?P<last_rank>-?\d+) range\))?"
      r"|invalid type (?P<datatype>-?\d+)|invalid reduction operation (?P<redop>-?\d+)"
      r"|reduction operation (?P<redop2>-?\d+) unknown to this communicator"
      r"|(?P<buffer>\w+) (?:\S+ is not a valid pointer|argument is NULL"
      r"|allocated on device (?P<buffer_device>\d+) mismatchs with NCCL device (?P<nccl_device>\d+)))",
      "warn", "failure", None, "2.3.5 - 2.30 (`unknown to this communicator` 2.11+)",
      "nccl:src/misc/argcheck.cc:ArgsCheck / PtrCheck (src/include/common_coll.h in 2.3)",
      "misc/argcheck.cc:39 NCCL WARN AllReduce : invalid root 0 (root should be in the 0..-1 range)",
      "AllReduce : invalid root 0", data={"category": "other"},
      anchor="invalid root|invalid type|invalid reduction operation|unknown to this communicator|is not a valid "
             "pointer|argument is NULL|mismatchs with NCCL device"),
    # ---- the AWS libfabric net plugin (aws/aws-ofi-nccl): its NCCL_OFI_WARN goes through NCCL's logger with the
    # words `NET/OFI ` first (include/nccl_ofi_log.h; its INFO lines carry the same words, so only these wordings
    # are read). A completion the provider (EFA) failed, or a completion queue it could not read: the link or the
    # peer failed, as NET/IB's `Got completion with error` says for verbs.
    M("nccl.ofi_completion_error",
      (r"NET/OFI (?:Request(?: 0x[0-9a-fA-F]+| \(nil\))?(?: \([^)\n]*\))?(?: seq \d+)? completed with error"
       r"|Remote write completed with error|Fatal: (?:rx|[Bb]ounce) buffer recv completed with error"
       r"|Operation with NULL context completed with error|Unable to (?:retrieve completion queue entries"
       r"|read from fi_cq_readerr))",
       r"[.:,]? ?(?:RC|err): ?(?P<rc>-?\d+)",
       r"[^\n]*?(?:Error|ERROR|strerror): (?P<reason>[^.,\n]+)"),
      "warn", "failure", "network_error",
      "aws-ofi-nccl 0.9 - 1.21 (`Unable to retrieve completion queue entries`, `fi_cq_readerr` 0.9+; `Request %p "
      "completed with error. RC:` 1.3+, `Error: %d (%s)` 1.10+; `Request completed with error` 1.7 - 1.11; `Fatal: "
      "Bounce buffer recv` 1.7 - 1.13, `Fatal: rx buffer recv` 1.14+; `Remote write` 1.15+; `Request %p (%s) completed "
      "with error: err:` 1.21+)",
      "aws-ofi-nccl:src/nccl_ofi_rdma.cpp / src/nccl_ofi_sendrecv.cpp / include/nccl_ofi_platform.h (nccl_ofi_net.c "
      "before 1.7)",
      "nccl_ofi_rdma.cpp:1463 NCCL WARN NET/OFI Request 0x7f2a4c01d2a0 completed with error. RC: 5. Error: 113 (No "
      "route to host). Completed length: 0, Request: {dev: 0, size: 8192}",
      "NET/OFI Request 0x7f2a4c01d2a0 completed with error", data={"category": "ib"},
      anchor="completed with error|Unable to retrieve completion queue entries|Unable to read from fi_cq_readerr"),
    # the plugin could not build the libfabric objects a connection needs (fabric, domain, endpoint, CQ, address
    # vector) or could not register a buffer with the provider: the RDMA network is unusable from this process
    M("nccl.ofi_setup_failed",
      (r"NET/OFI (?:Couldn't (?:open (?:AV|CQ|a fabric (?:provider(?: using ofiutils helper)?|access domain))"
       r"|allocate endpoint|bind EP-(?:CQ|AV)|enable endpoint|create (?:fabric|domain|completion queue)"
       r"|register memory region with regattr)|Creating new endpoint for domain (?:0x[0-9a-fA-F]+|\(nil\)) failed"
       r"|(?:CM: )?Unable to insert (?:remote|local) address into address vector)",
       r"(?: for device \d+)?[.:]? (?:RC: (?P<rc>-?\d+),? ?)?(?:ERROR: )?(?P<reason>[A-Za-z][^\n]*)?"),
      "warn", "failure", "network_error",
      "aws-ofi-nccl 0.9 - 1.21 (`Couldn't open AV/CQ/a fabric ...`, `allocate endpoint`, `bind EP-CQ`, `enable "
      "endpoint`, `Unable to insert ... address vector` 0.9+; `bind EP-AV` 1.7+; `Creating new endpoint for domain` "
      "1.14+; `create fabric/domain/completion queue`, `register memory region with regattr`, `using ofiutils "
      "helper` 1.18+)",
      "aws-ofi-nccl:src/nccl_ofi_net.cpp / src/nccl_ofi_ofiutils.cpp (nccl_ofi_net.c:create_nccl_ofi_component before "
      "1.7)",
      "nccl_ofi_ofiutils.cpp:412 NCCL WARN NET/OFI Couldn't open CQ. RC: -12, ERROR: Cannot allocate memory",
      "NET/OFI Couldn't open CQ", data={"category": "ib"},
      anchor="Couldn't open AV|Couldn't open CQ|Couldn't open a fabric|Couldn't allocate endpoint|Couldn't bind EP-"
             "|Couldn't enable endpoint|Couldn't create fabric|Couldn't create domain|Couldn't create completion queue"
             "|Couldn't register memory region|Creating new endpoint for domain|address into address vector"),
    # a post to libfabric the provider refused outright (not EAGAIN): the endpoint or its peer's address is no longer
    # usable (an EFA path down, a peer gone), as a completion with an error says after the fact
    M("nccl.ofi_post_failed",
      (r"NET/OFI (?:Error posting (?:RDMA (?P<op>\w+)|RDMA ctrl|rx buffer|flush) request|Error posting rx buffer"
       r"|Error in call to fi_send)",
       r"\. RC: (?P<rc>-?\d+)", r", Error: (?P<reason>[^.,\n]+)"),
      "warn", "failure", "network_error",
      "aws-ofi-nccl 1.7 - 1.21 (`RDMA ctrl`/`flush request` 1.7+, `RDMA %s request`/`rx buffer` 1.14+, `fi_send` in "
      "the connection manager 1.16+)",
      "aws-ofi-nccl:src/nccl_ofi_rdma.cpp / src/cm/nccl_ofi_cm_resources.cpp",
      "nccl_ofi_cm_resources.cpp:284 NCCL WARN NET/OFI Error in call to fi_send. RC: -110, Error: Connection timed out",
      "NET/OFI Error in call to fi_send", data={"category": "ib"},
      anchor="NET/OFI Error posting|NET/OFI Error in call to fi_send"),
    # nccl-rdma-sharp-plugins: SHARP (the switches' in-network reduction) would not start for this communicator; NCCL
    # then runs without CollNet (transport.cc `Cannot initialize CollNet, using point-to-point network instead`)
    M("nccl.sharp_init_failed",
      r"NET/IB ?: ?SHARP coll init error: (?P<reason>[^(\n]+)\((?P<rc>-?\d+)\)",
      "warn", "benign", None, "nccl-rdma-sharp-plugins 1.0 - 2.x (`NET/IB :SHARP` in early releases)",
      "nccl-rdma-sharp-plugins:src/sharp_plugin.c:ncclSharpConnect",
      "sharp_plugin.c:365 NCCL WARN NET/IB : SHARP coll init error: Cannot create SHARP job(-11)",
      "NET/IB : SHARP coll init error: Cannot create SHARP job(-11)", anchor="SHARP coll init error"),
    # Google's FastSocket net plugin pairs each data socket with a flow queue by the CPU its packets arrive on; when
    # SO_INCOMING_CPU cannot be read, or no pairing came after MAX_CONNECT_RETRY tries, it takes the first free socket
    # and goes on (`Connected after N retries`). Only `Cannot find empty socket` fails the connect
    M("nccl.fastsocket_pairing_fallback",
      r"Cannot get incoming CPU\.|Maximum retry reached for (?:connect|accept) (?P<count>\d+)\.",
      "warn", "benign", None, "nccl-fastsocket (google/nccl-fastsocket, 2021 - 2023)",
      "nccl-fastsocket:net_fastsocket.cc:ncclSocketAsyncConnectV2 / ncclSocketAcceptV2",
      "net_fastsocket.cc:785 NCCL WARN Maximum retry reached for accept 3.", "Maximum retry reached for accept 3.",
      data={"category": "socket"}, anchor="Cannot get incoming CPU|Maximum retry reached for "),
    M("nccl.collnet_fallback",
      (r"Cannot initialize CollNet", r", using point-to-point network instead"),
      "warn", "benign", None, "2.12 - 2.30 (first release not checked)", "nccl:src/transport.cc:ncclTransportCollNetSetup",
      "transport.cc:384 NCCL WARN Cannot initialize CollNet, using point-to-point network instead",
      "Cannot initialize CollNet", anchor="Cannot initialize CollNet"),
    # ncclIbInit skips a device it cannot open or query (and a port it cannot query): `continue` to the next one; the
    # devices kept are listed next (`NET/IB : Using ...`), and with none NCCL says `NET/IB : No device found` and uses
    # sockets. Nothing fails there
    M("nccl.ib_device_skipped",
      r"NET/IB ?: Unable to (?:(?:open|query) device (?P<device>\S+)|query port(?:_num)? (?P<port>\d+))",
      "warn", "benign", None, "2.3 - 2.30 (`Unable to query port %d` before 2.20, `port_num %d` from 2.20)",
      "nccl:src/transport/net_ib.cc:ncclIbInit (src/transport/net_ib/init.cc from 2.23)",
      "NCCL WARN NET/IB : Unable to open device mlx5_2", "NET/IB : Unable to open device mlx5_2",
      data={"category": "ib"}, anchor="Unable to open device|Unable to query device|Unable to query port"),
    # `No IP interface found` fails ncclIbInit (ncclInternalError); `unable to allocate requests` fails a send or receive
    M("nccl.ib_device_unusable",
      r"NET/IB ?: (?:No IP interface found|unable to allocate requests)",
      "warn", "failure", "network_error", "2.3 - 2.30", "nccl:src/transport/net_ib.cc:ncclIbInit / ncclIbGetRequest",
      "NCCL WARN NET/IB : No IP interface found.", "NET/IB : No IP interface found",
      data={"category": "ib"}, anchor="No IP interface found|unable to allocate requests"),
    M("nccl.ib_incompatible",
      # 2.20 - 2.25 checked the same at connect in other words: the peer's merged NICs mix link layers (IB and RoCE)
      r"NET/IB ?: (?:Attempted to (?:connect|merge) incompatible devices|Remote \S+ device is incompatible with the local"
      r"|Can't merge net devices with different link_layer)",
      "warn", "failure", "nic_misselection", "2.20 - 2.25 (`Can't merge net devices with different link_layer`), "
      "2.26 - 2.30", "nccl:src/transport/net_ib.cc:ncclIbConnect / ncclIbAccept (2.20 - 2.25); src/transport/net_ib/connect.cc",
      "NCCL WARN NET/IB : Attempted to connect incompatible devices: [0]mlx5_0:1/IB and [1]mlx5_1:1/RoCE. Try selecting "
      "NICs of only one link type using NCCL_IB_HCA", "NET/IB : Attempted to connect incompatible devices",
      data={"category": "ib"}, anchor="incompatible devices|device is incompatible|Can't merge net devices"),
    M("nccl.ib_size_mismatch",
      (r"NET/IB ?: req \d+/\d+ tag \w+ peer " + _PEER + r" (?:collective mismatch error|posted incorrect receive info)",
       r", local size (?P<expected_bytes>\d+) remote size (?P<received_bytes>\d+)"),
      "warn", "failure", "shape_mismatch", "2.12 - 2.19 (`collective mismatch error`), 2.20 - 2.30 (`posted incorrect "
      "receive info`)", "nccl:src/transport/net_ib.cc:ncclIbIsend",
      "NCCL WARN NET/IB : req 0/1 tag 7 peer 10.0.0.2<43217> collective mismatch error, local size 4096 remote size 8192",
      "NET/IB : req 0/1 tag 7 peer 10.0.0.2<43217> collective mismatch error",
      data={"category": "other"}, anchor="collective mismatch error|posted incorrect receive info"),
    # the same check before 2.12.10: no request, tag nor peer, and `remote` where later releases say `remote size`
    M("nccl.ib_size_mismatch_pre212",
      (r"NET/IB ?: collective mismatch error local size (?P<expected_bytes>\d+)", r" remote (?P<received_bytes>\d+)"),
      "warn", "failure", "shape_mismatch", "2.3.7 - 2.12.7", "nccl:src/transport/net_ib.cc:ncclIbIsend",
      "NCCL WARN NET/IB : collective mismatch error local size 131072 remote 0 addr 7f083e630000 rkey 83000 seq 2/2",
      "NET/IB : collective mismatch error local size 131072", data={"category": "other"},
      anchor="collective mismatch error"),
    M("nccl.socket_message_truncated",
      (r"NET/Socket ?: (?:peer " + _PEER + r" )?message truncated", r" ?: receiving (?P<received_bytes>\d+) bytes",
       r" instead of (?P<expected_bytes>\d+)"),
      "warn", "failure", "shape_mismatch", "2.4 - 2.30", "nccl:src/transport/net_socket.cc:ncclNetSocketTest",
      "NCCL WARN NET/Socket : peer 10.0.0.2<44817> message truncated : receiving 8192 bytes instead of 4096. If you "
      "believe your socket network is in a healthy state, there may be a mismatch in collective sizes or environment "
      "settings (e.g. NCCL_PROTO, NCCL_ALGO) between ranks", "NET/Socket : peer 10.0.0.2<44817> message truncated",
      data={"category": "socket"}, anchor="message truncated"),
    M("nccl.socket_progress_error",
      r"NET/Socket ?: (?:socket progress error|unable to allocate (?:requests|subtasks))",
      "warn", "failure", "network_error", "2.4 - 2.30", "nccl:src/transport/net_socket.cc",
      "NCCL WARN NET/Socket : socket progress error", "NET/Socket : socket progress error",
      data={"category": "socket"}, anchor="socket progress error|NET/Socket : unable to allocate"),
    M("nccl.socket_retries_exhausted",
      # 2.24 - 2.26 name no address (`<function>: connect returned %s, exceeded error retry count (%d)`), 2.27+ do
      r"(?:(?P<func>\w+): )?(?:connect(?: to " + _PEER + r")? returned (?P<reason>[^,]+), exceeded error retry count"
      r"|(?:\w*)Accept(?: failed)?:? (?:exceeded error retry count|failed: (?P<reason2>.+)))",
      "warn", "failure", "network_error", "2.12 - 2.30 (`Accept failed`), 2.24 - 2.30 (`exceeded error retry count`; no address to 2.26)", "nccl:src/misc/socket.cc:socketPollConnect / socketTryAccept",
      "NCCL WARN socketPollConnect: connect to 10.0.0.2<45123> returned Connection refused, exceeded error retry count "
      "after 35 attempts", "socketPollConnect: connect to 10.0.0.2<45123> returned Connection refused, exceeded error retry count",
      data={"category": "socket"}, anchor="exceeded error retry count|Accept failed"),
    M("nccl.socket_wrong_magic",
      r"socketFinalizeAccept: wrong (?:magic|type)(?: (?P<got>\w+) != (?P<want>\w+))?",
      "warn", "failure", "network_error", "2.16 - 2.26", "nccl:src/misc/socket.cc:socketFinalizeAccept",
      "NCCL WARN socketFinalizeAccept: wrong magic 8f82f5ff9bd52e02 != 3f8b2aa45c6d7b11", "socketFinalizeAccept: wrong magic",
      data={"category": "socket"}, anchor="socketFinalizeAccept: wrong"),
    M("nccl.proxy_service_failed",
      (r"\[Proxy Service (?P<group_rank>\d+)\] Failed to execute operation (?P<op>\w+) from rank (?P<peer>\d+)",
       r", retcode (?P<code>\d+)"),
      "warn", "consequence", None, "2.12 - 2.30", "nccl:src/proxy.cc:proxyServiceInitOp",
      "NCCL WARN [Proxy Service 3] Failed to execute operation Connect from rank 3, retcode 3",
      "[Proxy Service 3] Failed to execute operation Connect from rank 3", data={"category": "proxy"},
      anchor="Failed to execute operation"),
    M("nccl.proxy_thread_error",
      r"\[Service thread\] Error encountered progressing operation=(?P<op>\w+)(?:, res=(?P<code>\d+), closing connection)?"
      r"|\[Proxy Service(?: UDS)?\] Poll failed|Socket recv failed while polling for opId",
      "warn", "consequence", "network_error", "2.8 - 2.30 (`Poll failed`), 2.17 - 2.30 (`Error encountered progressing operation`)", "nccl:src/proxy.cc:proxyProgressAsync / ncclPollProxyResponse",
      "NCCL WARN [Service thread] Error encountered progressing operation=Connect, res=3, closing connection",
      "[Service thread] Error encountered progressing operation=Connect", data={"category": "proxy"},
      anchor="Error encountered progressing operation|Poll failed|Socket recv failed while polling"),
    M("nccl.comm_unusable",
      r"(?P<op>\w+): communicator was revoked|Comm 0x[0-9a-f]+ is in abort state|Attempt to use communicator before the "
      r"previous operation returned ncclSuccess|comm 0x[0-9a-f]+ has already been (?:destroyed|aborted)",
      "warn", "consequence", None, "2.4 - 2.30 (`has already been destroyed`), 2.14+ (`Attempt to use communicator`), 2.17+ (`is in abort state`), 2.28+ (`was revoked`)", "nccl:src/enqueue.cc / src/init.cc",
      "NCCL WARN Comm 0x55d0c1e2a110 is in abort state", "Comm 0x55d0c1e2a110 is in abort state",
      data={"category": "abort"},
      anchor="communicator was revoked|is in abort state|Attempt to use "
             "communicator|has already been destroyed|has already been aborted"),
    M("nccl.shm_extend_failed",
      (r"Error: (?:failed to extend (?P<path>\S+) to (?P<requested_bytes>\d+) bytes|failed to create shared memory file "
       r"(?P<path2>[^\s,]+)|Could not map (?P<path3>\S+) size (?P<requested_bytes2>\d+))", r", error:? (?P<reason>[^(]+)"),
      "warn", "failure", "oom", "2.12 - 2.30 (`failed to create shared memory file` 2.22+)",
      "nccl:src/misc/shmutils.cc:ncclShmOpen; src/os/linux.cc:ncclOsShmOpen (2.30+)",
      "NCCL WARN Error: failed to extend /dev/shm/nccl-4l2mTd to 9637892 bytes, error: No space left on device (28)",
      "Error: failed to extend /dev/shm/nccl-4l2mTd to 9637892 bytes", data={"category": "init"},
      anchor="failed to extend|failed to create shared memory file|Could not map"),
    M("nccl.version_mismatch",
      (r"Mismatched NCCL version detected", r" : rank (?P<rank>\d+) version (?P<version>\d+)",
       r" rank (?P<other_rank>\d+) version (?P<other_version>\d+)"),
      "warn", "failure", "version_mismatch", "2.23 - 2.30", "nccl:src/init.cc:initTransportsRank",
      "NCCL WARN Mismatched NCCL version detected : rank 0 version 22105 rank 4 version 21805",
      "Mismatched NCCL version detected : rank 0 version 22105 rank 4", data={"category": "init"},
      anchor="Mismatched NCCL version detected"),
    # the device API (2.28+): an application compiled against newer NCCL headers than the libnccl it loads, or an
    # older one than this library still serves (ncclInvalidUsage): the build and the runtime library disagree
    M("nccl.devcomm_version_incompatible",
      (r"NCCL library is (?:too old|not backwards compatible)\. This application was compiled with NCCL version",
       r" (?P<version>[\d.]+), but is running with NCCL library version (?P<other_version>[\d.]+)"),
      "warn", "failure", "version_mismatch", "2.30.3 - 2.30", "nccl:src/dev_runtime.cc:getNcclVersionCompat",
      "NCCL WARN NCCL library is too old. This application was compiled with NCCL version 2.30.7, but is running with "
      "NCCL library version 2.30.3.", "NCCL library is too old. This application was compiled with NCCL version",
      data={"category": "nccl_caller_build", "setup": True}, anchor="NCCL library is "),
    # A config attribute of INT_MIN: NCCL_CONFIG_UNDEF_INT, what NCCL_CONFIG_INITIALIZER sets from 2.17 ("let NCCL
    # choose"). A 2.14 - 2.16 library accepts only set values (blocking 0/1 is its first check), and 2.17+ skips
    # UNDEF fields, so only an older library given a newer caller's config prints it (torch built on 2.17+ headers
    # that loads an older libnccl): the caller's build and the library disagree (ncclInvalidArgument on every rank)
    M("nccl.config_undef_rejected",
      r"Invalid config (?P<attribute>\w+) attribute value -2147483648\b",
      "warn", "failure", "version_mismatch", "2.14 - 2.16 (parseCommConfig; 2.17+ skips NCCL_CONFIG_UNDEF_INT)",
      "nccl:src/init.cc:parseCommConfig",
      "NCCL WARN Invalid config blocking attribute value -2147483648",
      "Invalid config blocking attribute value -2147483648",
      data={"category": "nccl_caller_build", "setup": True}, anchor="attribute value -2147483648"),
    # NCCL_COMM_ID that does not parse as `<ipv4>:<port>`, `[<ipv6>]:<port>` or `<hostname>:<port>` (bootstrap.cc:
    # ncclGetUniqueId and bootstrapNetInit; the same words since 2.4): ncclInvalidArgument on every rank that reads
    # it, a setting of the launch, no rank's or network's failure
    M("nccl.comm_id_invalid",
      r"Invalid NCCL_COMM_ID, please use format",
      "warn", "failure", None, "2.4 - 2.30", "nccl:src/bootstrap.cc:bootstrapNetInit / ncclGetUniqueId",
      "NCCL WARN Invalid NCCL_COMM_ID, please use format: <ipv4>:<port> or [<ipv6>]:<port> or <hostname>:<port>",
      "Invalid NCCL_COMM_ID, please use format", data={"category": "init"}),
    M("nccl.rank_config_error",
      r"Invalid rank requested : (?P<rank>\d+)/(?P<nranks>\d+)|Bootstrap Root : (?:rank (?P<rank2>\d+) of (?P<nranks2>\d+) "
      r"ranks has already checked in|mismatch in (?:rank count|info) from procs)|improper usage of ncclCommInitRank"
      r"|Multiple Ranks are using the same GPU",
      "warn", "failure", None, "2.3 - 2.30 (`mismatch in rank count` to 2.22, `mismatch in info` and `improper usage` 2.23+, `Multiple Ranks are using the same GPU` 2.30)", "nccl:src/bootstrap.cc:bootstrapRoot / src/init.cc",
      "NCCL WARN Bootstrap Root : rank 3 of 8 ranks has already checked in",
      "Bootstrap Root : rank 3 of 8 ranks has already checked in", data={"category": "init"},
      anchor="Invalid rank requested|has already checked in|mismatch in rank count|mismatch in info from procs|"
             "improper usage of ncclCommInitRank|Multiple Ranks are using the same GPU"),
    M("nccl.oob_no_interface",
      r"no device found (?:matching|after excluding) (?P<ifname>\S*?),? verify NCCL_(?:OOB_NET|SOCKET)_IFNAME"
      r"|Net : (?:No valid \S+ pair found|error encountered when getting address info)",
      "warn", "failure", "nic_misselection", "2.3 - 2.30 (`Net : No valid`, `getting address info`), 2.23 - 2.30 (`verify NCCL_OOB_NET_IFNAME`)", "nccl:src/misc/socket.cc / src/bootstrap.cc",
      "NCCL WARN no device found matching eth9, verify NCCL_OOB_NET_IFNAME", "no device found matching eth9, verify NCCL_OOB_NET_IFNAME",
      data={"category": "init"}, anchor="verify NCCL_|No valid|getting address info"),
    M("nccl.self_p2p_unmatched",
      r"Trying to (?P<op>send|recv) to self without a matching (?:recv|send)",
      "warn", "failure", "collective_mismatch", "2.12 - 2.30", "nccl:src/enqueue.cc",
      "NCCL WARN Trying to send to self without a matching recv", "Trying to send to self without a matching recv",
      data={"category": "other"}, anchor="to self without a matching"),
    M("nccl.no_transport",
      r"Rank (?P<rank>\d+) has no transport for (?P<kind>\w+) peer (?P<peer>\d+)",
      "warn", "failure", None, "2.9 - 2.30", "nccl:src/transport.cc:selectTransport",
      "NCCL WARN Rank 3 has no transport for recv peer 5 on channel 0/2", "Rank 3 has no transport for recv peer 5",
      data={"category": "init"}, anchor="has no transport for"),
    M("nccl.no_algorithm",
      r"No algorithm/protocol available for function (?P<op>\w+)",
      "warn", "failure", None, "2.30", "nccl:src/enqueue.cc:topoGetAlgoInfo",
      "NCCL WARN No algorithm/protocol available for function AllReduce with datatype ncclFloat32. NCCL_ALGO was set to "
      "NVLS.", "No algorithm/protocol available for function AllReduce", data={"category": "init"},
      anchor="No algorithm/protocol available"),
    M("nccl.no_algorithm_error_prefix",
      # the older wording of the same check (from 2.24 it goes on ` for function F with datatype D.`; 2.30.3 made
      # the algorithm lookup NOWARN)
      (r"Error : no algorithm/protocol available", r" for function (?P<op>\w+)"),
      "warn", "failure", None, "2.5.6 - 2.30.2", "nccl:src/enqueue.cc",
      "NCCL WARN Error : no algorithm/protocol available", "Error : no algorithm/protocol available",
      data={"category": "init"}, anchor="Error : no algorithm/protocol"),
    M("nccl.ring_missing_rank",
      # the ring search produced a ring without every rank (init fails with ncclInternalError)
      (r"Error : ring (?P<ring>\d+) does not contain rank", r" (?P<other_rank>\d+)"),
      "warn", "failure", None, "2.3.5 - 2.30", "nccl:src/graph/rings.cc:ncclBuildRings",
      "NCCL WARN Error : ring 1 does not contain rank 4", "Error : ring 1 does not contain rank",
      data={"category": "init"}, anchor="does not contain rank"),
    M("nccl.ring_no_loopback",
      # following each rank's successor from this rank does not come back to it: the ranks built rings from graphs
      # that disagree (topology, NCCL version or NCCL_* settings that differ between ranks); init fails with
      # ncclInternalError
      (r"(?:Error : )?ring (?P<ring>\d+) does not loop back to start", r" \((?P<reached>\d+) != (?P<start>\d+)\)"),
      "warn", "failure", None, "2.3.5 - 2.30 (src/init.cu to 2.3, src/graph/rings.cc from 2.4)",
      "nccl:src/graph/rings.cc:ncclBuildRings",
      "NCCL WARN Error : ring 1 does not loop back to start (3 != 1)", "Error : ring 1 does not loop back to start",
      data={"category": "init"}, anchor="does not loop back to start"),
    M("nccl.shm_unlink_failed",
      # a shared memory file NCCL created under /dev/shm is gone when it closes or unlinks it (systemd's RemoveIPC
      # cleans /dev/shm of a user it thinks logged out, under mpirun or srun; another job's cleanup): ncclSystemError.
      # The last peer's unlink at open prints the same words at WARN in 2.16 - 2.21 and at INFO from 2.22 (not an
      # error there: NCCL goes on), so an INFO line is not this failure
      (r"(?<!NCCL INFO )unlink shared memory (?P<path>\S+) failed", r", error: (?P<reason>[^(\n]+)"),
      "warn", "failure", None, "2.16 - 2.30 (` (errno)` after the error from 2.22)",
      "nccl:src/misc/shmutils.cc:ncclShmClose / ncclShmUnlink; src/os/linux.cc (2.30+)",
      "NCCL WARN unlink shared memory /dev/shm/nccl-d5rTd0 failed, error: No such file or directory",
      "unlink shared memory /dev/shm/nccl-d5rTd0 failed", data={"category": "init"},
      anchor="unlink shared memory"),
    M("nccl.socket_connect_retries",
      # connect() refused (or failed transiently) more than NCCL_SOCKET_RETRY_CNT times: nobody listens at the peer
      (r"socket(?:Start|Poll)Connect: exceeded retries", r" \((?P<count>\d+)\)"),
      "warn", "failure", None, "2.16 - 2.23 (2.24+: nccl.socket_retries_exhausted's wording)", "nccl:src/misc/socket.cc:socketStartConnect / socketPollConnect",
      "NCCL WARN socketStartConnect: exceeded retries (20000)", "socketStartConnect: exceeded retries",
      data={"category": "socket"}, anchor="Connect: exceeded retries"),
    M("nccl.socket_connect_timeouts",
      # connect() to the peer timed out more than NCCL_SOCKET_RETRY_CNT times: the peer's host is unreachable
      # (firewall, routing, a dead node), not merely not listening yet (that is `exceeded retries`)
      (r"socket(?:Start|Poll)Connect: exceeded timeouts", r" \((?P<count>\d+)\)"),
      "warn", "failure", "network_error", "2.16 - 2.23 (2.24+: nccl.socket_retries_exhausted's wording)",
      "nccl:src/misc/socket.cc:socketStartConnect / socketPollConnect",
      "NCCL WARN socketPollConnect: exceeded timeouts (20)", "socketPollConnect: exceeded timeouts",
      data={"category": "socket"}, anchor="Connect: exceeded timeouts"),
    M("nccl.proxy_service_peer_closed",
      # the proxy service thread lost a local peer's connection (that process exited or closed its socket)
      (r"\[Service thread\] Could not receive type from localRank", r" (?P<peer_local_rank>\d+)", r", res=(?P<code>\d+)",
       r", closed=(?P<closed>\d)"),
      "warn", "consequence", None, "2.12.7 - 2.30", "nccl:src/proxy.cc:ncclProxyService",
      "NCCL WARN [Service thread] Could not receive type from localRank 0, res=3, closed=0",
      "[Service thread] Could not receive type from localRank", data={"category": "proxy"},
      anchor="Could not receive type from localRank"),
    # ---- falls back, does not fail
    M("nccl.no_ibverbs",
      r"Failed to open libibverbs\.so|NET/IB ?: No device found|Could not get speed|NET/Plugin ?: (?:No plugin found|"
      r"Plugin load \(\S+\) returned)",
      "warn", "benign", None, "2.3 - 2.30 (`NET/Plugin : No plugin found` to 2.18)", "nccl:src/misc/ibvwrap.cc / src/net.cc",
      "NCCL INFO NET/IB : No device found.", "NET/IB : No device found", data={"category": "ib"}, anchor="libibverbs|No device found|Could not get speed|NET/Plugin"),
    # a setting NCCL cannot use and replaces by its default (init.cc: the work FIFO must be a power of 2), and a
    # device-side unpack plugin (GPUDirect TCPX/FasTrak) of another version that NCCL leaves unused: the job goes on
    M("nccl.setting_ignored",
      r"NCCL_WORK_FIFO_BYTES=(?P<count>\d+) is being ignored because it is not a power of 2"
      r"|NCCL_DEVICE_UNPACK plugin has incompatible version \d+, this NCCL build is compatible with \d+, not using it",
      "warn", "benign", None, "2.22 - 2.30 (`NCCL_WORK_FIFO_BYTES`), 2.19 - 2.30 (`NCCL_DEVICE_UNPACK`)",
      "nccl:src/init.cc:commAlloc; src/net.cc (2.19 - 2.26), src/plugin/net.cc (2.27+)",
      "NCCL WARN NCCL_WORK_FIFO_BYTES=3000000 is being ignored because it is not a power of 2.",
      "NCCL_WORK_FIFO_BYTES=3000000 is being ignored", data={"category": "other"},
      anchor="is being ignored because it is not a power of 2|NCCL_DEVICE_UNPACK plugin has incompatible version"),
    # the socket transport caps a thread or socket count above its maximum (MAX_THREADS 16, MAX_SOCKETS 64) and goes
    # on with the cap: the connection is made
    M("nccl.socket_setting_capped",
      r"NET/Socket ?: (?:NCCL_SOCKET_NTHREADS|the total number of sockets) is greater than the maximum allowed, "
      r"setting (?:NCCL_NSOCKS_PERTHREAD )?to (?P<count>\d+)",
      "warn", "benign", None, "2.4.8 - 2.30", "nccl:src/transport/net_socket.cc:ncclNetSocketGetNsockNthread",
      "NCCL WARN NET/Socket : NCCL_SOCKET_NTHREADS is greater than the maximum allowed, setting to 16",
      "NET/Socket : NCCL_SOCKET_NTHREADS is greater than the maximum allowed", data={"category": "other"},
      anchor="is greater than the maximum allowed"),
    M("nccl.plugin_symbol_missing",
      # the loaded plugin lacks one API version's symbol; NCCL tries the next older one (INFO NCCL_INIT|NCCL_NET)
      r"NET/Plugin ?: Failed to find (?P<symbol>nccl(?:Coll)?NetPlugin_v\d+)",
      "warn", "benign", None, "2.12.7 - 2.27 (src/net.cc; src/plugin/net/net_v*.cc 2.26 - 2.27)",
      "nccl:src/net.cc / src/plugin/net/net_v*.cc",
      "NCCL INFO NET/Plugin: Failed to find ncclNetPlugin_v7 symbol.", "NET/Plugin: Failed to find ncclNetPlugin_v7",
      data={"category": "other"}, anchor="NetPlugin_v"),
    # ---- error-return traces: `file.cc:N -> R` (R = ncclResult_t), the path an error took back to the API
    M("nccl.error_trace",
      r"(?P<src_file>[\w/.-]+\.(?:cc|h|cu|cpp)):(?P<src_line>\d+) -> (?P<code>\d+)(?: \((?P<errno>[^)]*)\))?",
      "error_trace", "consequence", None, "1.x - 2.30", "nccl:src/include/checks.h:NCCLCHECK",
      "transport/net.cc:562 -> 2", "transport/net.cc:562 -> 2", anchor=" -> "),
    # ---- the result codes' texts (ncclGetErrorString) when a program prints them
    # ---- before 2.5 a WARN had no `host:pid:tid [dev]` prefix: `include/socket.h:390 WARN <msg>`
    M("nccl.warn_pre25",
      r"(?<![\w/.-])(?P<src_file>[\w/.-]+\.(?:cc|h|cu|cpp)):(?P<src_line>\d+) (?:NCCL )?WARN (?P<message>\S.*)",
      "warn", "failure", None, "2.0 - 2.2 (before the public repository; from 2.3.5 every WARN has `host:pid:tid [dev] file:line`)", "nccl:src/include/debug.h:WARN",
      "include/socket.h:390 WARN Socket creation failed : Address family not supported by protocol",
      "include/socket.h:390 WARN S", anchor=" WARN "),
    M("nccl.socket_create_failed",
      r"(?:Socket creation|Could not create socket|socket\(\) call) failed(?: ?: (?P<reason>[\w ]+))?",
      "warn", "failure", "network_error", "2.3 - 2.23", "nccl:src/misc/socket.cc / include/socket.h:createListenSocket",
      "NCCL WARN Socket creation failed : Address family not supported by protocol", "Socket creation failed",
      data={"category": "socket"}, anchor="Socket creation failed|Could not create socket|socket() call failed"),
    M("nccl.remote_error",
      r"(?P<code>ncclRemoteError)(?::[^\n]*?Last error:\s*(?P<last_error>.+))?",
      "nccl_error", "failure", "network_error", "2.13 - 2.30", "nccl:src/misc/utils.cc:ncclGetErrorString",
      "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.",
      "ncclRemoteError", anchor="ncclRemoteError"),
    M("nccl.system_error",
      r"(?P<code>ncclSystemError)(?::[^\n]*?Last error:\s*(?P<last_error>.+))?",
      "nccl_error", "failure", "network_error", "1.x - 2.30", "nccl:src/misc/utils.cc:ncclGetErrorString",
      "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error.",
      "ncclSystemError", anchor="ncclSystemError"),
    M("nccl.result_code",
      r"(?P<code>nccl(?:UnhandledCudaError|InternalError|InvalidArgument|InvalidUsage))"
      r"(?::[^\n]*?Last error:\s*(?P<last_error>.+))?",
      "nccl_error", "failure", None, "2.3 - 2.30", "nccl:src/misc/utils.cc:ncclGetErrorString",
      "ncclInternalError: Internal check failed. Last error: Bootstrap : no socket interface found",
      "ncclInternalError", anchor="ncclUnhandledCudaError|ncclInternalError|ncclInvalidArgument|ncclInvalidUsage"),
    # ---- CuPy's NcclError (cupy/cuda/nccl.pyx, cupy_backends/cuda/libs/nccl.pyx from CuPy 8): the result's enum
    # name, then ncclGetErrorString's text, `'%s: %s'`. Raised by whatever drives NCCL through CuPy (vLLM 0.2 - 0.3,
    # Ray's NCCL channels, Chainer); the text names the code as it does in torch (result_code)
    M("nccl.cupy_error",
      r"NCCL_ERROR_(?P<name>[A-Z_]+): (?P<reason>[a-z][a-z ]*[a-z])",
      "nccl_error", "failure", None, "CuPy 5 - 13 (NCCL 2 names; the NCCL 1 names before NCCL 2)",
      "cupy:cupy/cuda/nccl.pyx:NcclError; cupy_backends/cuda/libs/nccl.pyx:NcclError",
      "cupy_backends.cuda.libs.nccl.NcclError: NCCL_ERROR_INVALID_USAGE: invalid usage (run with NCCL_DEBUG=WARN "
      "for details)", "NCCL_ERROR_INVALID_USAGE: invalid usage", anchor="NCCL_ERROR_", refine=_network_code),
    # ---- the NCCLCHECK macros of nccl-tests (src/common.h: `%s: Test NCCL failure %s:%d '%s'`, from 2.18 `'%s / %s'`
    # with ncclGetLastError; before the NCCL 2.4 resync of 2019-03 `NCCL failure %s:%d '%s'`, no host, no `Test`)
    # and of NCCL's examples (`Failed, NCCL error %s:%d '%s'`): ncclGetErrorString quoted
    M("nccl.check_macro",
      (r"(?:(?:Test )?NCCL failure|Failed[:,] NCCL error) (?P<src_file>[^\s:']+):(?P<src_line>\d+)",
       r" '(?P<reason>[^'/]*?)(?: / (?P<last_error>[^']*))?'?"),
      "nccl_error", "failure", None, "nccl-tests 2017 - 2019-03 (no `Test`), to 2.17 (`/ last error` 2.18+), "
      "NCCL examples 2.x", "nccl-tests:src/common.h:NCCLCHECK; nccl:docs/examples",
      "gpu5: Test NCCL failure common.cu:343 'unhandled cuda error'", "gpu5: Test NCCL failure common.cu:343",
      anchor="NCCL failure|NCCL error"),
    # ---- RCCL's own unit tests (ROCm/rccl test/common/TestBedChild.cpp CHILD_NCCL_CALL, rccl-UnitTests): a child
    # process's NCCL call returned a result other than ncclSuccess, printed as its number
    M("nccl.rccl_testbed_call",
      r"Child process (?P<child>\d+) fails NCCL call (?P<call>\w+) with code (?P<result>\d+)",
      "nccl_error", "failure", None, "RCCL 2.8 - 2.27 (rccl-UnitTests)", "rccl:test/common/TestBedChild.cpp:CHILD_NCCL_CALL",
      "[ ERROR    ] Child process 0 fails NCCL call ncclGroupEnd with code 1",
      "Child process 0 fails NCCL call ncclGroupEnd with code 1", anchor="fails NCCL call", refine=_numbered_code),
    # ---- an application's own NCCLCHECK: the call, then ncclGetErrorString's text (OneFlow `NCCL Check failed:
    # ncclGroupEnd() : unhandled system error`, others with the result number first: `ncclGroupEnd() : 0002 ...`)
    M("nccl.app_check",
      r"(?P<call>nccl[A-Z]\w*)\(\) ?: (?:(?P<result>\d+) )?(?P<reason>unhandled system error|unhandled cuda error|"
      r"internal error|invalid usage|invalid argument|remote process exited or there was a network error)",
      "nccl_error", "failure", None, "NCCL 2.x texts (src/init.cc ncclGetErrorString), any application's check",
      "nccl:src/init.cc:ncclGetErrorString; oneflow:oneflow/core/device/nccl_util.h:OF_NCCL_CHECK",
      "NCCL Check failed: ncclGroupEnd() : unhandled system error", "ncclGroupEnd() : unhandled system error",
      anchor="() :"),
    # ---- an application's check that names the call, then ` failed: ` and ncclGetErrorString's text (Horovod's
    # NCCLContext::ErrorCheck, horovod/common/ops/nccl_operations.cc 0.16+: `ncclAllReduce failed: unhandled cuda
    # error`, raised as HorovodInternalError or a TensorFlow UnknownError; the same form in other C++ extensions)
    M("nccl.app_call_failed",
      r"(?P<call>nccl[A-Z]\w*)(?:\(\))? failed: (?P<reason>unhandled system error|unhandled cuda error|internal error|"
      r"invalid usage|invalid argument|remote process exited or there was a network error)",
      "nccl_error", "failure", None, "NCCL 2.x texts (src/init.cc ncclGetErrorString); Horovod 0.16+",
      "horovod:horovod/common/ops/nccl_operations.cc:NCCLContext::ErrorCheck",
      "horovod.common.exceptions.HorovodInternalError: ncclAllReduce failed: unhandled cuda error",
      "ncclAllReduce failed: unhandled cuda error", anchor=" failed: "),
    # ---- torch quotes ncclGetLastError() after the result code: the cause, as NCCL last WARNed it
    M("nccl.last_error",
      r"Last error:\s*(?P<last_error>\S.*)",
      "nccl_error", "failure", None, "2.13 - 2.30 (ncclGetLastError; torch 2.0 - 2.13 quotes it)", "pytorch:torch/csrc/distributed/c10d/NCCLUtils.cpp:"
      "getNcclErrorDetailStr", "Last error: socketProgress: Connection closed by remote peer node-2<52104>",
      "Last error: s", anchor="Last error:"),
    # (not c10d's std::error_code, printed `(errno: 113 - No route to host)`: its own entries read those lines)
    M("nccl.socket_errno",
      r"(?<!\d - )(?P<reason>No route to host|Network is unreachable)",
      "warn", "failure", "network_error", "2.3 - 2.30 (strerror after a socket call)", "nccl:src/misc/socket.cc",
      "NCCL WARN Net : Connect to 10.0.0.2<43127> failed : No route to host", "No route to host",
      data={"category": "socket"}, anchor="No route to host|Network is unreachable"),
    # ---- RCCL's advisories at init (src/init.cc): the host's settings, printed by healthy jobs as well
    M("nccl.rccl_host_advisory",
      r"(?:Missing \"(?P<setting>[\w=.-]+)\" from (?:kernel command line|environment)|NUMA auto balancing enabled) "
      r"which can lead to",
      "warn", "benign", None, "RCCL 2.7 - 2.22 (ROCm 4 - 6)", "rccl:src/init.cc:ncclCommInitRankFunc",
      "NCCL WARN Missing \"iommu=pt\" from kernel command line which can lead to system instablity or hang!",
      "Missing \"iommu=pt\" from kernel command line which can lead to", data={"category": "init"},
      anchor="which can lead to"),
    # MSCCL++ asked for (RCCL_MSCCLPP_ENABLE=1) on a GPU, a build or an environment it does not support: the
    # feature stays off and the communicator goes on with RCCL's own algorithms
    # RCCL_ENABLE_CLIQUE=1 and the clique kernels' pinned host memory or shared memory could not be set up: RCCL
    # turns clique kernels off and uses its default kernels
    M("nccl.rccl_clique_disabled",
      r"Unable to (?:initialize shared memory|allocated? pinned host memory for clique pointers)\.\s+Disabling "
      r"clique-based kernels",
      "warn", "benign", None, "RCCL 2.8 - 2.20 (ROCm 4.0 - 6.2)", "rccl:src/clique/CliqueManager.cc:CliqueManager::Init",
      "NCCL WARN Unable to initialize shared memory. Disabling clique-based kernels",
      "Unable to initialize shared memory. Disabling clique-based kernels", data={"category": "init"},
      anchor="Disabling clique-based kernels"),
    M("nccl.rccl_mscclpp_unavailable",
      (r"MSCCL\+\+: (?:Cannot enable MSCCL\+\+|Feature not enabled\.)", r" on (?P<arch>\S+) architecture"),
      "warn", "benign", None, "RCCL 2.21+ (ROCm 6.3+)", "rccl:src/init.cc:ncclCommInitRankFunc",
      "NCCL WARN MSCCL++: Cannot enable MSCCL++ on gfx90a:sramecc+:xnack- architecture",
      "MSCCL++: Cannot enable MSCCL++", data={"category": "init"}, anchor="MSCCL++: "),
    # ---- the machine or the job's settings, the same for every rank of the setup (data `setup`: an NCCL result code
    # whose `Last error:` is one of these was not the rank's own crash)
    M("nccl.net_not_found",
      # NCCL_NET names a network no plugin provides (NCCL_NET=IB on a host without IB): ncclInvalidUsage;
      # from 2.27 the plugin loader says `Failed to initialize any NET plugin` instead
      r"Error: network (?P<net>[\w-]*) not found\.|Failed to initialize any NET plugin",
      "warn", "failure", None, "2.10 - 2.26 (`Error: network %s not found.`), 2.27 - 2.30 (`Failed to initialize any "
      "NET plugin`)", "nccl:src/net.cc:ncclNetInit (2.10 - 2.26); src/plugin/net.cc:ncclNetInit (2.27+)",
      "NCCL WARN Error: network IB not found.", "Error: network IB not found.", data={"category": "init", "setup": True},
      anchor="Error: network |Failed to initialize any NET plugin"),
    # a NIC's sysfs device has no real path (a virtual NIC: a container's veth, a VM's interface): NCCL goes on
    # without its PCI position (2.4 - 2.6 net.cc:getNetDistance takes the error of ncclNetPciPath, whose NCCLCHECK
    # prints `include/net.h:19 -> 2`, as the farthest distance; 2.7+ net_ib.cc:ncclIbGetPciPath warns and keeps an
    # empty path; the socket transport stopped printing it in 2.7). The GPU's own path (topo_sysfs_path) fails init
    M("nccl.nic_pci_path_missing",
      r"Could not find real path of (?:(?P<device>[\w.-]+) \()?(?P<path>/sys/class/(?:net|infiniband)/[^/\s]+/device)",
      "warn", "benign", None, "2.4 - 2.30 (INFO for a socket NIC 2.4 - 2.6; `%s (%s)` with the IB device's name 2.12+)",
      "nccl:src/transport/net_socket.cc:ncclSocketPciPath (2.4 - 2.6); src/transport/net_ib.cc:ncclIbGetPciPath "
      "(src/transport/net_ib/init.cc from 2.23)",
      "NCCL WARN Could not find real path of mlx5_0 (/sys/class/infiniband/mlx5_0/device)",
      "Could not find real path of mlx5_0 (/sys/class/infiniband/mlx5_0/device", data={"category": "init"},
      anchor="Could not find real path of"),
    M("nccl.topo_sysfs_path",
      # topology detection cannot resolve a GPU's PCI path under /sys (a VM or container without the host's /sys/bus
      # tree): ncclSystemError at init, on every rank of such a host
      (r"Could not find real path of(?! (?:[\w.-]+ \()?/sys/class/(?:net|infiniband)/)", r" (?P<path>\S+)"),
      "warn", "failure", None, "2.3 - 2.30", "nccl:src/graph/xml.cc:ncclTopoGetPciNode / getPciPath; "
      "src/transport/net_ib.cc:ncclIbGetPciPath",
      "NCCL WARN Could not find real path of /sys/class/pci_bus/0000:00/../../0000:00:05.0",
      "Could not find real path of", data={"category": "init", "setup": True}),
    M("nccl.topo_reverse_path",
      # computing the topology's paths, a link has no link of its type back (a topology XML or a sysfs view that
      # describes the node's links one-sided: an NCCL_TOPO_FILE of another node, RCCL's XGMI graph of a partitioned
      # GPU): ncclInternalError at init, on every rank of such a node
      (r"Failed to find reverse path from remNode", r" (?:id )?(?P<remote_node>\S+)"),
      "warn", "failure", None, "2.5 - 2.30 (`remNode id %d type %d` 2.5; `remNode %d/%lx` 2.6+), RCCL",
      "nccl:src/graph/paths.cc:ncclTopoSetPaths",
      "NCCL WARN Failed to find reverse path from remNode 0/200000 nlinks 3 to node 0/700000",
      "Failed to find reverse path from remNode", data={"category": "init", "setup": True}),
    M("nccl.nvls_bind_failed",
      # NCCL_NVLS_ENABLE=1 forced NVLS and binding multicast memory failed: the Fabric Manager / NVSwitch setup
      # (with NVLS left on auto NCCL logs it at INFO and goes on without NVLS)
      (r"Failed to bind NVLink SHARP \(NVLS\) Multicast memory", r" of size (?P<requested_bytes>\d+)",
       r" : CUDA error (?P<cuda_code>\d+) '(?P<reason>[^']*)'"),
      "warn", "failure", None, "2.27 - 2.30", "nccl:src/transport/nvls.cc:nvlsGroupBindMem",
      "NCCL WARN Failed to bind NVLink SHARP (NVLS) Multicast memory of size 1073741824 : CUDA error 800 "
      "'operation not permitted'.", "Failed to bind NVLink SHARP (NVLS) Multicast memory",
      data={"category": "init", "setup": True}),
    M("nccl.ras_version_mismatch",
      # RAS (2.24+) connecting to a peer process that runs another NCCL build: closes the link, ncclInvalidUsage
      (r"NCCL version mismatch with remote peer", r" (?P<peer>\S+)",
       r" \(local: (?P<version>\d+), remote (?P<other_version>\d+)\)"),
      "warn", "failure", "version_mismatch", "2.24 - 2.30", "nccl:src/ras/ras.cc:rasMsgHandleConnInit",
      "NCCL WARN NCCL version mismatch with remote peer 10.0.0.4<35621> (local: 22703, remote 22605)",
      "NCCL version mismatch with remote peer", data={"category": "init"}),
    M("nccl.ras_peer_dead",
      # RAS (2.24+, logged with NCCL_DEBUG_SUBSYS=RAS or ALL): a peer process unreachable for 60 s (rasnet.cc connect
      # retry timeout) or reported dead by another (ras.cc rasMsgHandleBCDeadPeer). A peer that exited cleanly is
      # declared dead too, 60 s after, by a process that outlives it (RAS stops only at process exit, ras.cc
      # rasTerminate): alone no failure; beside a hang it says a process went away (R201)
      (r"RAS declaring peer (?P<peer>\S+) as DEAD", r"; rasDeadPeersHash 0x[0-9a-f]+"),
      "warn", "benign", "dropped_rank", "2.24 - 2.30", "nccl:src/ras/peers.cc:rasPeerDeclareDead",
      "NCCL INFO RAS declaring peer 10.0.0.4<35621> as DEAD; rasDeadPeersHash 0x3f9e2a11c04b7d65",
      "RAS declaring peer 10.0.0.4<35621> as DEAD", anchor="RAS declaring peer "),
    # ---- host memory NCCL could not get (include/alloc.h ncclCalloc/ncclRealloc 2.3 - 2.30; misc/utils.cc's
    # ncclMemoryStack aborts the process on a NULL malloc 2.13 - 2.30; the SHM transport's /dev/shm file could not be
    # allocated or mapped: SYSCHECK's `Call to %s failed : %s` in include/shm.h 2.3 - 2.11, where docker's 64 MB
    # /dev/shm gives ENOSPC). ncclSystemError, or an abort, on the rank whose host ran out
    M("nccl.host_malloc_failed",
      r"Failed to malloc (?P<requested_bytes>\d+) bytes|Unrecoverable error detected: malloc\(size=(?P<requested_bytes2>\d+)\)"
      r" returned null",
      "warn", "failure", "oom", "2.3 - 2.30 (`Failed to malloc`), 2.13 - 2.30 (`Unrecoverable error detected`)",
      "nccl:src/include/alloc.h:ncclCalloc / ncclRealloc; src/misc/utils.cc:ncclMemoryStack",
      "NCCL WARN Failed to malloc 2147483648 bytes", "Failed to malloc 2147483648 bytes",
      data={"category": "init", "oom_kind": "host"}, anchor="Failed to malloc|Unrecoverable error detected: malloc"),
    M("nccl.shm_syscall_no_space",
      (r"Call to (?P<call>posix_fallocate|fallocate|ftruncate|shm_open|mmap) failed ?: ?"
       r"(?P<reason>No space(?: left on device)?|Cannot allocate(?: memory)?)"),
      "warn", "failure", "oom", "2.3 - 2.11 (include/shm.h shmSetup through SYSCHECK; 2.12+ words it `Error: failed to "
      "extend`, nccl.shm_extend_failed)", "nccl:src/include/shm.h:shmSetup; src/include/checks.h:SYSCHECK",
      "NCCL WARN Call to posix_fallocate failed : No space left on device", "Call to posix_fallocate failed : No space",
      data={"category": "init"}, anchor="Call to posix_fallocate|Call to fallocate|Call to ftruncate|Call to shm_open"
      "|Call to mmap"),
    # the same calls refused for access, not room: /dev/shm not writable by this user (a mode other than 1777, a
    # read-only mount) or a stale segment of another user's job under the name NCCL asked for. SYSCHECKVAL's words,
    # then `Error while creating shared memory segment`; no amount of /dev/shm fixes it (M301 leaves it to X901)
    M("nccl.shm_access_refused",
      (r"Call to (?P<call>shm_open|posix_fallocate|mmap|shm_unlink|open) failed ?: ?"
       r"(?P<reason>Permission(?: denied)?|Operation not permitted|Read-only file system)"),
      "warn", "failure", None, "2.3 - 2.11 (include/shm.h shmSetup: shm_open, posix_fallocate, mmap), 2.12 - 2.15 "
      "(misc/shmutils.cc ncclShmOpen: open)", "nccl:src/include/shm.h:shmSetup; src/misc/shmutils.cc:ncclShmOpen; "
      "src/include/checks.h:SYSCHECKVAL",
      "NCCL WARN Call to shm_open failed : Permission denied", "Call to shm_open failed : Permission",
      data={"category": "init", "setup": True},
      anchor="Call to shm_open|Call to posix_fallocate|Call to mmap|Call to shm_unlink|Call to open"),
    # ---- the merged NICs of the two ends count differently (NCCL_IB_MERGE_NICS, NCCL_IB_HCA that differ between
    # nodes): NCCL goes on (INFO from 2.25), the connection uses the devices both have
    M("nccl.ib_merged_dev_count",
      r"NET/IB ?: Local mergedDev(?:=| )(?P<device>\S+) has a different number of devices=(?P<count>\d+) as remote",
      "warn", "benign", None, "2.20 - 2.24 (INFO from 2.25)", "nccl:src/transport/net_ib.cc:ncclIbConnect / ncclIbAccept",
      "NCCL WARN NET/IB : Local mergedDev=mlx5_0+mlx5_1 has a different number of devices=2 as remoteDev=mlx5_0 nRemDevs=1",
      "NET/IB : Local mergedDev=mlx5_0+mlx5_1 has a different number of devices=2 as remote",
      data={"category": "ib"}, anchor="has a different number of devices"),
    # ---- more of the machine's or the job's setup (data `setup`): NVML (the driver's management library) that cannot
    # start or answer (a kernel driver and user-space library of other versions, a container without the device
    # nodes): ncclSystemError at init, on every rank of that host
    M("nccl.nvml_failed",
      (r"(?P<call>nvml(?:Init(?:_v2)?|Device\w+))\((?:[\d, ]*)\) failed: ", r"(?P<reason>[A-Za-z][^\n]*?)\s*$"),
      "warn", "failure", None, "2.4 - 2.30 (`nvmlInit` 2.9+, `_v2` 2.12+; the device index in the parentheses 2.12+)",
      "nccl:src/misc/nvmlwrap.cc",
      "NCCL WARN nvmlInit_v2() failed: Driver/library version mismatch", "nvmlInit_v2() failed: ",
      data={"category": "init", "setup": True}, anchor="() failed: |) failed: "),
    # NVML's library itself cannot be loaded (dlopen of the driver's libnvidia-ml.so.1 fails: a container without the
    # driver's user-space libraries, a broken or partial driver install): ncclSystemError at init on every rank of
    # the host, which torch quotes under `Last error:`. 2.30 adds dlerror's text after a colon
    M("nccl.nvml_library_missing",
      (r"Failed to open libnvidia-ml\.so\.1", r": (?P<reason>\S[^\n]*?)\s*$"),
      "warn", "failure", None, "2.3.5 - 2.29 (`: <dlerror>` 2.30+)",
      "nccl:src/misc/nvmlwrap.cc (2.3.5 - 2.29); src/os/linux.cc:ncclOsNvmlOpen (2.30)",
      "misc/nvmlwrap.cc:74 NCCL WARN Failed to open libnvidia-ml.so.1", "Failed to open libnvidia-ml.so.1",
      data={"category": "init", "setup": True}, anchor="Failed to open libnvidia-ml.so.1"),
    # NCCL finds the driver's entry points through the CUDA runtime (cudaGetDriverEntryPoint): a runtime error 35
    # (cudaErrorInsufficientDriver) or entry status 2 (the driver's version is not sufficient) is a driver older than
    # the CUDA NCCL was built with; any other code is the driver's own failure. ncclSystemError at init
    M("nccl.cuda_entry_point_failed",
      (r"Retrieve (?P<symbol>cu\w+) failed with (?P<code>\d+)", r" status (?P<status>\d+)"),
      "warn", "failure", None, "2.21 - 2.30 (` status %d` with CUDA 12 builds)", "nccl:src/misc/cudawrap.cc:LOAD_SYM",
      "NCCL WARN Retrieve cuGetErrorString failed with 35 status 1", "Retrieve cuGetErrorString failed with 35",
      data={"category": "init", "setup": True}, anchor="Retrieve cu", refine=_driver_too_old),
    # The runtime's loader of the driver's entry points (cudaPfnFuncLoader) found some missing: a driver older than
    # the CUDA NCCL was built with (its newer entry points are absent). ncclUnhandledCudaError at init, every rank
    M("nccl.cuda_pfn_missing",
      r"CUDA some PFN functions not found(?: in the library)?",
      "warn", "failure", "version_mismatch", "2.13 - 2.30", "nccl:src/misc/cudawrap.cc:ncclCudaLibraryInit",
      "cudawrap.cc:292 NCCL WARN CUDA some PFN functions not found in the library",
      "CUDA some PFN functions not found", data={"category": "cuda_driver", "setup": True},
      anchor="PFN functions not found"),
    # The shared memory NCCL's kernels need on this architecture is more than the device lets a block use: the build
    # does not fit the GPU (ncclSystemError at init on every rank, no socket or peer involved). 2.26 - 2.29.2 print
    # NCCL_MAX_SHARED_MEM's size (`ncclMaxSharedMem %d`; INFO and shrunk to fit before 2.26), 2.29.7+ the kernels'
    M("nccl.kernel_smem_exceeds_device",
      (r"cudaArch (?P<arch>\d+) (?:dynamic smem|ncclMaxSharedMem) (?P<smem>\d+) exceeds device/fn maxSharedMem",
       r" (?P<device_smem>\d+)"),
      "warn", "failure", None, "2.26 - 2.30 (`dynamic smem` 2.29.7+)",
      "nccl:src/enqueue.cc:ncclInitKernelsForDevice",
      "enqueue.cc:81 NCCL WARN cudaArch 900 dynamic smem 236544 exceeds device/fn maxSharedMem 232448",
      "cudaArch 900 dynamic smem 236544 exceeds device/fn maxSharedMem", data={"category": "init", "setup": True},
      anchor="exceeds device/fn maxSharedMem"),
    M("nccl.mnnvl_unavailable",
      # NCCL_MNNVL_ENABLE=1 on a system without multi-node NVLink (2.20 - 2.24), or an MNNVL clique whose IMEX
      # channels are not set up (2.25+)
      r"MNNVL (?:is not supported on this system|\(cliqueSize (?P<count>\d+)\) is available but not (?:supported|working)"
      r" on this system)",
      "warn", "failure", None, "2.20 - 2.24 (`MNNVL is not supported`), 2.25 - 2.26 (`available but not supported`), "
      "2.27 - 2.30 (`available but not working`)", "nccl:src/init.cc (2.20 - 2.26); src/mnnvl.cc:ncclMnnvlCheck",
      "NCCL WARN MNNVL is not supported on this system", "MNNVL is not supported on this system",
      data={"category": "init", "setup": True}, anchor="MNNVL "),
    M("nccl.graph_file_failed",
      # NCCL_GRAPH_FILE names a file that cannot be read: ncclSystemError (the topology file, NCCL_TOPO_FILE, only
      # WARNs and goes on, INFO from 2.26); RCCL's MSCCL algorithm file likewise
      (r"Could not open (?P<what>XML graph|MSCCL XML algorithm) file", r" (?P<path>\S+) : (?P<reason>.+)"),
      "warn", "failure", None, "2.6 - 2.30 (NCCL_GRAPH_FILE), RCCL (MSCCL, ROCm 5.5 - 6.x)",
      "nccl:src/graph/xml.cc:ncclTopoGetXmlGraphFromFile; rccl:src/misc/msccl/msccl_parser.cc",
      "NCCL WARN Could not open XML graph file /opt/graph.xml : No such file or directory",
      "Could not open XML graph file", data={"category": "init", "setup": True}),
    M("nccl.topology_attribute_missing",
      # the topology NCCL builds of the host (from /sys, or the XML of NCCL_TOPO_FILE) lacks an attribute it needs:
      # a device it cannot place in the PCI tree (a NIC without a PCI bus id on a virtual or non-x86 host):
      # ncclInternalError at init, on every rank of such a host. NCCL prints it as a WARN only, so an INFO line of
      # the same words (a patched build's) is not this failure
      r"(?<!INFO )Attribute (?P<attr>\w+) of node (?P<node>\w+) not found",
      "warn", "failure", None, "2.6 - 2.30", "nccl:src/graph/xml.h:xmlGetAttrStr",
      "NCCL WARN Attribute busid of node nic not found", "Attribute busid of node nic not found",
      data={"category": "init", "setup": True}, anchor="of node"),
    # RCCL loads the ROCm runtime (libhsa-runtime64) with dlopen at init: a ROCm install it cannot find
    M("nccl.rccl_rocr_missing",
      (r"Failed to (?:find ROCm runtime library|load ROCr missing symbol)", r" (?:in )?(?P<path>\S+)"),
      "warn", "failure", None, "RCCL 2.13 - 2.2x (ROCm 5.4 - 6.x)", "rccl:src/misc/rocmwrap.cc:rocmLibraryInit",
      "NCCL WARN Failed to find ROCm runtime library in /opt/rocm/lib (RCCL_ROCR_PATH=/opt/rocm/lib)",
      "Failed to find ROCm runtime library", data={"category": "init", "setup": True}),
    # The symmetric-memory runtime (dev_runtime.cc symMemoryObtain, 2.28+) places each registered window in one flat
    # address space per rank, NCCL_WIN_STRIDE bytes or the largest GPU's memory (ncclSpaceAlloc, allocator.cc): more
    # or larger windows than that space holds end the registration (ncclInternalError) on the rank that asked
    M("nccl.window_space_exhausted",
      (r"Allocation failed\. No suitable space found to accommodate", r" size=0x(?P<size_hex>[0-9a-fA-F]+)",
       r" within limit=0x(?P<limit_hex>[0-9a-fA-F]+)"),
      "warn", "failure", "oom", "2.28 - 2.30", "nccl:src/allocator.cc:ncclSpaceAlloc (dev_runtime.cc symMemoryObtain)",
      "allocator.cc:228 NCCL WARN Allocation failed. No suitable space found to accommodate size=0x40000000 within "
      "limit=0x100000000", "Allocation failed. No suitable space found to accommodate",
      data={"category": "alloc", "oom_kind": "nccl_window"}, refine=_window_bytes),
    # ncclCommAbort/ncclCommDestroy's commReclaim (init.cc, 2.14+) tearing down a communicator that already failed: a
    # cleanup error of the abort, after whatever made the caller abort (a watchdog timeout, a peer's failure)
    M("nccl.comm_reclaim_failed",
      (r"commReclaim: cleanup comm 0x[0-9a-fA-F]+ rank (?P<rank>\d+) failed in destroy/abort",
       r", error (?P<code>\d+)"),
      "warn", "consequence", None, "2.14 - 2.30", "nccl:src/init.cc:commReclaim",
      "init.cc:2199 NCCL WARN commReclaim: cleanup comm 0x55ab1c00e700 rank 0 failed in destroy/abort, error 3",
      "commReclaim: cleanup comm 0x55ab1c00e700 rank 0 failed in destroy/abort", data={"category": "abort"},
      anchor="failed in destroy/abort"),
    # ---- rank 0's check of the local NIC counts it allgathered at init (2.30.3+): a host that sees fewer NICs than the
    # others (one down or missing, NCCL_IB_HCA that differ between hosts) fails init with ncclSystemError unless
    # NCCL_IGNORE_(COLL)NET_MISMATCH=1 (then the same words end `Ignoring due to ...`, INFO: not matched). The INFO
    # line before it names each short rank (nccl.net_count_short): N401 blames those, not rank 0 that checked
    M("nccl.net_count_mixed",
      r"Detected mixed local (?P<net>Net|CollNet) device counts across ranks \(min (?P<count>\d+), max "
      r"(?P<other_count>\d+)\)\. Set NCCL_IGNORE_",
      "warn", "failure", "network_error", "2.30.3 - 2.30", "nccl:src/init.cc:initTransportsRank",
      "init.cc:1339 NCCL WARN Detected mixed local Net device counts across ranks (min 3, max 4). Set "
      "NCCL_IGNORE_NET_MISMATCH=1 to continue.",
      "Detected mixed local Net device counts across ranks (min 3, max 4). Set NCCL_IGNORE_",
      data={"category": "init"}, anchor="Detected mixed local"),
    M("nccl.net_count_short",
      r"Rank (?P<short_rank>\d+) has (?P<count>\d+) local (?P<net>Net|CollNet) devices \(max (?P<other_count>\d+)\)",
      "nccl_info", "benign", None, "2.30.3 - 2.30", "nccl:src/init.cc:initTransportsRank",
      "init.cc:1328 NCCL INFO Rank 5 has 3 local Net devices (max 4).", "Rank 5 has 3 local Net devices (max",
      data={"category": "init"}, anchor=" local Net devices (max | local CollNet devices (max "),
]
