"""N401 network-error: a connection between ranks closed, reset or timed out, or the IB transport failed.

What it detects:
    Two GPUs that cannot reach each other peer to peer (CUDA's ``peer access is not supported between these two
    devices``, NCCL's ``failed to peer with device``): the link between them is what failed. And
    gloo ``Connection closed by peer`` / ``Connection reset by peer``, NCCL socket and IB WARN lines
    (``socketProgress: Connection closed by remote peer``, ``NET/IB : Got completion from peer … with
    status=12``), ``ncclRemoteError`` / ``ncclSystemError`` backend errors. It names the first rank to
    report one (by time, else by rank) and the peer address it names.

Why it hangs or dies:
    A lost connection fails every collective that uses it; NCCL ranks hang or abort, gloo ranks raise.

Evidence it needs:
    NCCL WARN lines (``NCCL_DEBUG=WARN`` or higher) or the ranks' tracebacks.

Example:
    ``ncclf diagnose logs/`` →
    ``network_error: rank 5 first reported NET/IB : Got completion from peer 10.0.0.2<52104> with status=12``.

Known limits:
    When a rank died, aborted or timed out first, its peers' "closed by peer" messages are consequences:
    they are reported with ``cause: false`` and the first failure's detector wins. NCCL's INFO lines of a refused
    connect it retries (``Call to connect returned Connection refused, retrying``) are read alike (a peer gone or
    unreachable), unless the process got past them (a completed init or a collective after them in its log). Without
    timestamps, "first" is the lowest rank that reported one.

Suggested fix:
    Check the link and host of the named peer (``ibstat``, ``dmesg`` for link flaps, switch logs); for
    socket errors check firewalls and ``NCCL_SOCKET_IFNAME``; raise ``NCCL_IB_TIMEOUT`` for flaky fabrics.
"""
from __future__ import annotations

import re

from ..diagnosis.rank_state import setup_failures
from ..model import Confidence, Event, ranks_phrase, ranks_text
from ..sources.catalogue.cuda import refused_nccl_call
from .base import BaseDetector, Context

_PEER_CLOSED = ("connection_closed", "connection_reset")
# NCCL's own socket and IB warnings that the message catalogue has no entry for still point at the transport
_TRANSPORT_WARN = ("socket", "ib")
# NCCL's error-return trace from its socket layer (src/misc/socket.cc from 2.12, include/socket.h before) with
# ncclSystemError (2): a connect/send/recv call failed (2.19+ append strerror). ncclRemoteError (6) there is a peer
# that closed its end, left to the detectors of what made it close.
_SYSTEM_ERROR = 2
_SOCKET_FILES = ("misc/socket.cc", "include/socket.h")
# ... and from its IB verbs transport (src/transport/net_ib.cc 2.3 - 2.26, split under src/transport/net_ib/ later)
# and the verbs wrappers (src/misc/ibvwrap.cc): a verbs call failed or no port/GID could be used (its WARN, where
# NCCL printed one, says which; the catalogue's `Call to ibv_* failed` is a network error too)
_IB_FILES = ("transport/net_ib.cc", "misc/ibvwrap.cc")
# NCCL result codes that are the calling rank's own misuse (a bad argument, a duplicate GPU, a rank out of range):
# never the link's; the rank raises and exits, and its peers' sockets then close
_CALLER_ERRORS = ("ncclInvalidArgument", "ncclInvalidUsage")
_PEER = re.compile(r"(?:peer|from|to)\s+\[?([\w.-]+)[\]<:]\[?(\d+)")


def _network(ev) -> bool:
    """Does the parser's classification (the message catalogue's `implies`) say this line is a network error?"""
    d = ev.data
    if d.get("meaning") == "benign":
        return False
    if d.get("implies") == "network_error":
        return True
    if "message_id" in d:
        return False
    if ev.kind == "error_trace":            # NCCL's `misc/socket.cc:N -> 2`: a socket (or verbs) call failed
        src = str(d.get("src_file") or "")
        return d.get("code") == _SYSTEM_ERROR and (src.endswith(_SOCKET_FILES + _IB_FILES)
                                                   or "transport/net_ib/" in src)
    if ev.kind == "gloo_error":                          # gloo's parser classified it: a peer closed on us
        return d.get("category") in _PEER_CLOSED
    return ev.kind == "warn" and d.get("category") in _TRANSPORT_WARN


def _hard(ev) -> bool:
    """A failure of the link itself (not a peer that closed its end after failing elsewhere)."""
    return ev.data.get("implies") == "network_error" and ev.data.get("meaning") == "failure"


def _said_best(hard: list) -> Event:
    """The first link failure, or the line a few lines below it in the same file that says what failed: NCCL's result
    code (`ncclSystemError: System call ... failed`) stands above its `Last error:`, which names the call and the peer
    (`socketStartConnect: Connect to 10.0.0.2<52822> failed : No route to host`)."""
    first = hard[0]
    if first.data.get("category") or _peer(first):
        return first
    return next((ev for ev in hard[1:] if ev.file == first.file and 0 < ev.line - first.line <= _LAST_ERROR_LINES
                 and ev.rank == first.rank and (ev.data.get("category") or _peer(ev))), first)


_LAST_ERROR_LINES = 8


class NetworkError(BaseDetector):
    code, name, cls = "N401", "network-error", "network_error"
    needs = ("errors", "process_end", "failures")   # failures: an NCCL INFO line of a refused connect

    def check(self, ctx: Context):
        # an NCCL result code whose `Last error:` names the machine or the job's settings is that failure, not the
        # network's (ncclSystemError reads as a network error only when nothing says otherwise); a store socket the
        # heartbeat monitor found closed is the store host's end
        explained = setup_failures(ctx.of("nccl_error")) | ctx.store_teardown | ctx.recovered_traces \
            | _clients_of_unstarted_store(ctx)
        hits = [ev for ev in ctx.of("gloo_error", "warn", "dist_backend_error", "nccl_error", "worker_failed",
                                    "error_trace", "cuda_error", "slurm_exit", "nccl_info")
                if _network(ev) and id(ev) not in explained]
        # (worker_failed: a launcher that lost its daemons (Open MPI); slurm_exit: srun that could not reach a node's
        # slurmd to launch the tasks; nccl_info: a connect NCCL retries because no one answers)
        if not hits:
            return
        # untimed lines of one console (a catalogue line carries no time of its own): their order in it is the order
        # they were printed, which the rank numbers are not (mpirun's `[1,30]<stdout>:` before `[1,7]<stdout>:`)
        one_file = len({e.file for e in hits}) == 1
        hits.sort(key=lambda e: (e.time if e.time is not None else float("inf"),
                                 e.line if one_file and e.time is None else 0,
                                 e.rank if e.rank is not None else 1 << 30, e.file, e.line))
        first = hits[0]
        hard = [ev for ev in hits if _hard(ev)]
        lead = _said_best(hard) if hard else first
        died = [st.rank for st in ctx.ranks.values() if st.cause]
        # a failure of another kind that closes connections after it: a timeout, a DETAIL mismatch, a gloo error of
        # its own, a CUDA call NCCL made that the runtime refused (its connect/proxy operations then fail)
        first_failure = [ev for ev in ctx.of("gloo_error", "watchdog_timeout", "fingerprint_mismatch", "warn",
                                             "nccl_error")
                         if ev.kind == "gloo_error" and ev.data.get("category") not in _PEER_CLOSED
                         or ev.kind in ("watchdog_timeout", "fingerprint_mismatch")
                         or ev.kind == "warn" and refused_nccl_call(ev.data)
                         or ev.kind == "nccl_error" and ev.data.get("code") in _CALLER_ERRORS]
        aborted = [st.rank for st in ctx.ranks.values() if st.end == "aborted"]
        cause = not died and (bool(hard) or not (first_failure or aborted))
        at = f" (peer {_peer(lead)})" if _peer(lead) else ""
        reporters = sorted({ev.rank for ev in hits if ev.rank is not None})
        who = f"rank {lead.rank}" if lead.rank is not None else (
            f"the process {lead.pid} on {lead.host}" if lead.pid is not None and lead.host else "a rank")
        p2p = lead.data.get("category") == "p2p"
        what = "that two GPUs cannot reach each other peer to peer (P2P)" if p2p else "a network error"
        msg = f"{who} first reported {what}{at}: {lead.data.get('message') or lead.text.strip()}"
        if len(reporters) > 1:
            msg += f"; {len(reporters) - 1} other rank(s) followed"
        if died:
            msg += f" — a consequence of rank {ranks_text(died)} dying"
        elif not cause:
            msg += " — a consequence: another rank failed or timed out first, closing its connections"
        conf = Confidence.MEDIUM if hard else Confidence.LOW
        short = _short_ranks(ctx, lead)
        if short:
            msg = msg.rstrip(".") + f"; NCCL names {ranks_phrase(short)} as seeing fewer NICs"
        yield self.finding(short or ([lead.rank] if lead.rank is not None else []), msg, conf, [lead] + hits[1:3],
                           _FIX_P2P if p2p else _fix(_peer(lead), lead), cause=cause)


# the store clients' connect that ran out (socket.cpp's `has timed out ... while trying to connect`, `failed to connect
# to any network address`, TCPStore.cpp's `TCP client failed to connect/validate ... - timed out`, 1.x's `connect()
# timed out.`)
_STORE_CONNECT = frozenset({"pytorch.store_connect_timeout", "pytorch.client_connect_failed",
                            "pytorch.tcpstore_connect_timed_out", "pytorch.store_connect_timeout_1x"})


def _short_ranks(ctx: Context, lead) -> list[int]:
    """The ranks NCCL's NIC count check names as seeing fewer NICs than the others (nccl.net_count_short), where that
    check (nccl.net_count_mixed) is the failure: their hosts, not rank 0 that compared the counts, lack a NIC."""
    if lead.data.get("message_id") != "nccl.net_count_mixed":
        return []
    return sorted({ev.data["short_rank"] for ev in ctx.of("nccl_info")
                   if ev.data.get("message_id") == "nccl.net_count_short" and ev.file == lead.file
                   and ev.data.get("net") == lead.data.get("net") and isinstance(ev.data.get("short_rank"), int)})


def _clients_of_unstarted_store(ctx: Context) -> set[int]:
    """The store clients' connect failures where the store's own server could not take its port (catalogue category
    `store_listen`: an address in use, a bind refused): nothing listened for them, the network is not at fault."""
    events = ctx.of("dist_backend_error")
    if not any(ev.data.get("category") == "store_listen" and ev.data.get("meaning") == "failure" for ev in events):
        return set()
    return {id(ev) for ev in events if ev.data.get("message_id") in _STORE_CONNECT}


def _peer(ev) -> str | None:
    peer = ev.data.get("peer")
    if peer is None and ev.data.get("host") and ev.data.get("port"):
        peer = f"{ev.data['host']}:{ev.data['port']}"
    if peer is None:                     # a transport WARN no catalogue entry reads: its `peer/from/to ADDR<PORT>`
        m = _PEER.search(ev.data.get("message") or ev.text)
        peer = f"{m.group(1)}:{m.group(2)}" if m else None
    return str(peer).replace("<", ":").rstrip(">") if peer else None


# cudaErrorPeerAccessUnsupported and NCCL's `failed to peer with device`: the PCIe path between the two GPUs gives no
# peer access (ACS on a PCIe switch, an IOMMU not in passthrough, GPUs under different root complexes, a consumer
# card or driver without P2P)
_FIX_P2P = ("the GPUs have no peer-to-peer path: run with NCCL_P2P_DISABLE=1 (NCCL then goes through shared memory), "
            "and turn off the custom all-reduce of vLLM/SGLang/TensorRT-LLM (`--disable-custom-all-reduce`) where "
            "they use CUDA IPC; to get P2P back, disable PCIe ACS on the switches (BIOS or `setpci`) and set the "
            "IOMMU to passthrough (`iommu=pt`), then check `nvidia-smi topo -p2p r`.")
_FIX = ("check the link and host of {where} (ibstat, dmesg for link flaps, switch logs); for socket errors check "
        "firewalls and NCCL_SOCKET_IFNAME; raise NCCL_IB_TIMEOUT on a flaky fabric.")


def _fix(peer: str | None, lead) -> str:
    """The network fix, naming what the line names: its peer, else the host (and device) that reported it."""
    if peer:
        where = f"the peer {peer} and of the host that reported it"
    else:
        device = lead.data.get("device") if isinstance(lead.data.get("device"), str) else None
        host = lead.host or "the host that reported it"
        where = f"{host}{f' ({device})' if device else ''}"
    return _FIX.format(where=where)
