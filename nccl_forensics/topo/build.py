"""events → communicators: which communicator each NCCL line belongs to, and what it says.

NCCL lines name no communicator (except `comm_init`), so lines are tied to one by their *stream*: the
lines of one process and device `(file, host, pid, device)`, in file order.
- 2.18.3+ prints `Init START` before a communicator's topology lines and, with runtime connect (2.22+),
  transport lines may follow `Init COMPLETE`: a line belongs to the last communicator that STARTed (or
  COMPLETEd) on its stream.
- Older versions print only `Init COMPLETE`, after the topology lines: a line belongs to the next
  communicator that completes on its stream.
Lines with no communicator to go to (an init that hung before COMPLETE, a grep'd excerpt) are gathered in
one communicator whose `comm_id` is None. Communicators are merged across files by their commId; before
2.16 (no commId) by `nranks<N>#<k>`, the k-th communicator of N ranks that each process created.
"""
from __future__ import annotations

from typing import Iterable

from ..model import Event
from .model import (
    COLLNET,
    Communicator,
    Edge,
    GraphHop,
    Process,
    RankInfo,
    Ring,
    TreeEntry,
    evidence_of,
    transport_class,
)

COMM_KINDS = {"ring", "tree", "graph_ring", "graph_tree", "transport", "connected", "channels_summary"}
PROCESS_KINDS = {"nccl_version", "net_plugin", "net_ib", "net_socket", "net_using", "bootstrap", "env", "nccl_info"}
TOPO_KINDS = COMM_KINDS | PROCESS_KINDS | {"comm_init"}
UNIDENTIFIED = None


def is_topology_event(ev: Event) -> bool:
    if ev.source != "nccl" or ev.kind not in TOPO_KINDS:
        return False
    return ev.kind != "nccl_info" or "GPU Direct RDMA" in str(ev.data.get("message") or ev.text)


def build_topology(events: Iterable[Event]) -> list[Communicator]:
    """Group NCCL events into communicators (sorted by comm_id, the unidentified one last)."""
    streams: dict[tuple, list[Event]] = {}
    for ev in events:
        if is_topology_event(ev):
            streams.setdefault((ev.file, ev.host, ev.pid, ev.device), []).append(ev)
    comms: dict[str | None, Communicator] = {}
    procs: dict[tuple, Process] = {}
    file_comms: dict[str, set] = {}
    for key in sorted(streams, key=_stream_order):
        stream = streams[key]
        proc = procs.setdefault(key[:3], Process(file=key[0], host=key[1], pid=key[2]))
        orphan = key[1] is None and key[2] is None
        for comm_key, ev in assign_communicators(stream):
            if orphan and comm_key is UNIDENTIFIED and len(file_comms.get(key[0], ())) == 1:
                comm_key = next(iter(file_comms[key[0]]))   # a torn line's orphan half: the file's only comm
            elif not orphan and ev.kind != "comm_init" and comm_key is not UNIDENTIFIED:
                file_comms.setdefault(key[0], set()).add(comm_key)
            if ev.kind in PROCESS_KINDS:
                _apply_process(proc, ev)
                continue
            comm = comms.setdefault(comm_key, Communicator(comm_key))
            if proc not in comm.processes:
                comm.processes.append(proc)
            _apply_comm(comm, proc, ev)
    if not comms and procs:                      # facts about processes but no communicator line
        comms[UNIDENTIFIED] = Communicator(UNIDENTIFIED, processes=list(procs.values()))
    _inherit_bare_version(procs)
    for comm in comms.values():
        _finish(comm)
    return sorted(comms.values(), key=lambda c: (c.comm_id is None, c.comm_id or ""))


def _stream_order(key: tuple) -> tuple:
    """Streams with a host:pid prefix first (orphan halves of torn lines need their file's communicators)."""
    return (key[1] is None and key[2] is None,) + tuple("" if v is None else str(v) for v in key)


def assign_communicators(stream: list[Event]) -> list[tuple[str | None, Event]]:
    """Pair each event of one stream with its communicator key (None = unidentified)."""
    has_start = any(ev.kind == "comm_init" and ev.data.get("phase") == "start" for ev in stream)
    keys = _CommKeys()
    out: list[tuple[str | None, Event]] = []
    pending: list[Event] = []
    current: str | None = None
    for ev in stream:
        if ev.kind != "comm_init":
            if ev.kind in PROCESS_KINDS or (has_start and current is not None):
                out.append((current, ev))
            else:
                pending.append(ev)
            continue
        key = keys.key_of(ev)
        out.append((key, ev))
        if has_start or ev.data.get("phase") == "complete":
            out.extend((key, p) for p in pending)
            pending.clear()
        current = key if has_start else None
    out.extend((UNIDENTIFIED, p) for p in pending)
    return out


class _CommKeys:
    """comm pointer → communicator key, within one stream."""

    def __init__(self) -> None:
        self.by_ptr: dict[str, str] = {}
        self.completed: set[str] = set()
        self.count: dict[int | None, int] = {}

    def key_of(self, ev: Event) -> str:
        data = ev.data
        ptr = str(data.get("comm_ptr"))
        phase = data.get("phase")
        if data.get("comm_id") is not None:
            key = _norm_comm_id(data["comm_id"])
        elif ptr in self.by_ptr and not (phase == "complete" and ptr in self.completed):
            key = self.by_ptr[ptr]
        else:
            nranks = data.get("nranks")
            k = self.count.get(nranks, 0)
            self.count[nranks] = k + 1
            key = f"nranks{nranks}#{k}"
        self.by_ptr[ptr] = key
        if phase == "complete":
            self.completed.add(ptr)
        return key


def _norm_comm_id(value) -> str:
    if isinstance(value, int):
        return f"0x{value:x}"
    text = str(value).strip().lower()
    return text if text.startswith("0x") else f"0x{text}"


def _apply_comm(comm: Communicator, proc: Process, ev: Event) -> None:
    handler = _COMM_HANDLERS.get(ev.kind)
    if handler is not None:
        handler(comm, proc, ev)


def _on_comm_init(comm: Communicator, proc: Process, ev: Event) -> None:
    d = ev.data
    if d.get("nranks") is not None:
        comm.nranks = int(d["nranks"])
    if d.get("phase") == "info":
        comm.nnodes_reported = d.get("nnodes", comm.nnodes_reported)
        comm.local_ranks = d.get("local_ranks", comm.local_ranks)
    if d.get("rank") is None:
        return
    rank = int(d["rank"])
    info = comm.ranks.setdefault(rank, RankInfo(rank, process=proc, evidence=evidence_of(ev)))
    info.host = info.host or ev.host
    info.pid = info.pid if info.pid is not None else ev.pid
    device = d.get("cuda_dev") if d.get("cuda_dev") is not None else ev.device
    info.device = info.device if info.device is not None else device
    info.bus_id = info.bus_id or (None if d.get("bus_id") is None else str(d["bus_id"]))
    if len(comm.init_ev) < 64:
        comm.init_ev.append(evidence_of(ev))


def _on_ring(comm: Communicator, proc: Process, ev: Event) -> None:
    d = ev.data
    truncated = bool(d.get("truncated")) or ev.text.rstrip().endswith("...")
    ring = Ring(int(d["channel"]), [int(r) for r in d.get("order") or []], d.get("nchannels"), truncated,
                "rank0", [evidence_of(ev)])
    old = comm.rings.get(ring.channel)
    if old is None:
        comm.rings[ring.channel] = ring
    elif old.order != ring.order:
        comm.ring_conflicts.append(ring)
    if comm.nchannels is None and ring.nchannels:
        comm.nchannels, comm.nchannels_ev = int(ring.nchannels), evidence_of(ev)


def _on_tree(comm: Communicator, proc: Process, ev: Event) -> None:
    for t in ev.data.get("trees") or []:
        _add_tree(comm, ev, t.get("channel"), t.get("rank"), t.get("parent"), t.get("children"))


def _on_graph_tree(comm: Communicator, proc: Process, ev: Event) -> None:
    d = ev.data
    _add_tree(comm, ev, d.get("channel"), d.get("rank"), d.get("parent"), d.get("children"))


def _add_tree(comm: Communicator, ev: Event, channel, rank, parent, children) -> None:
    if channel is None or rank is None:
        return
    kids = [int(c) for c in children or [] if c is not None and int(c) >= 0]
    up = -1 if parent is None else int(parent)
    comm.trees.setdefault((int(channel), int(rank)), TreeEntry(int(channel), int(rank), up, kids,
                                                               evidence_of(ev)))


def _on_graph_ring(comm: Communicator, proc: Process, ev: Event) -> None:
    d = ev.data
    if None in (d.get("channel"), d.get("rank"), d.get("prev"), d.get("next")):
        return
    hop = GraphHop(int(d["channel"]), int(d["rank"]), int(d["prev"]), int(d["next"]), evidence_of(ev))
    comm.graph_hops.setdefault(hop.channel, {}).setdefault(hop.rank, hop)


def _on_transport(comm: Communicator, proc: Process, ev: Event) -> None:
    d = ev.data
    if transport_class(d.get("transport")) == COLLNET:
        comm.collnet = True
    if None in (d.get("channel"), d.get("from_rank"), d.get("to_rank")):
        return
    key = (int(d["channel"]), int(d["from_rank"]), int(d["to_rank"]))
    edge = comm.edges.get(key)
    if edge is None:
        edge = comm.edges[key] = Edge(*key, transport=str(d.get("transport") or "?"))
    elif d.get("direction") != "send":
        edge.evidence.append(evidence_of(ev))
        edge.pxn = edge.pxn or bool(d.get("pxn"))
        return
    edge.transport = str(d.get("transport") or edge.transport)
    edge.detail = d.get("detail") if d.get("detail") is not None else edge.detail
    device = d.get("device", d.get("net_device"))
    if isinstance(device, str) and device.isdigit():
        device = int(device)                     # NET device index
    edge.device = device if device is not None else edge.device
    edge.pxn = edge.pxn or bool(d.get("pxn"))
    edge.proxy_rank = d.get("proxy_rank", edge.proxy_rank)
    edge.evidence.insert(0, evidence_of(ev))


def _on_connected(comm: Communicator, proc: Process, ev: Event) -> None:
    what = str(ev.data.get("what") or "").lower()
    comm.nvls = comm.nvls or "nvls" in what
    comm.collnet = comm.collnet or "collnet" in what


def _on_channels_summary(comm: Communicator, proc: Process, ev: Event) -> None:
    d = ev.data
    if d.get("coll_channels") is not None and comm.nchannels is None:
        comm.nchannels, comm.nchannels_ev = int(d["coll_channels"]), evidence_of(ev)
    comm.nvls = comm.nvls or bool(d.get("nvls_channels"))
    comm.collnet = comm.collnet or bool(d.get("collnet_channels"))


_COMM_HANDLERS = {
    "comm_init": _on_comm_init, "ring": _on_ring, "tree": _on_tree, "graph_tree": _on_graph_tree,
    "graph_ring": _on_graph_ring, "transport": _on_transport, "connected": _on_connected,
    "channels_summary": _on_channels_summary,
}


def _apply_process(proc: Process, ev: Event) -> None:
    d, where = ev.data, evidence_of(ev)
    if ev.kind == "nccl_version" and proc.version is None:
        proc.version, proc.version_ev = version_label(d), where
    elif ev.kind == "net_using" and d.get("network"):
        proc.network, proc.network_ev = str(d["network"]), where
    elif ev.kind == "net_plugin" and d.get("plugin") and proc.plugin is None:
        proc.plugin, proc.plugin_ev = str(d["plugin"]), where
    elif ev.kind == "net_ib":
        proc.ib_devices = [f"{x.get('name')}:{x.get('port')}/{x.get('link_layer')}" for x in d.get("devices") or []]
        proc.ib_ev = where
    elif ev.kind == "net_socket":
        proc.socket_ifs = [(str(x.get("name")), str(x.get("addr") or "")) for x in d.get("devices") or []]
        proc.socket_ev = where
    elif ev.kind == "bootstrap":
        proc.bootstrap_ifs = [(str(x.get("name")), str(x.get("addr") or "")) for x in d.get("interfaces") or []]
        proc.bootstrap_ev = where
    elif ev.kind == "nccl_info":                 # "NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0' (no module)"
        if "Disabled" in str(d.get("message") or ev.text) and proc.gdr_off_ev is None:
            proc.gdr_off_ev = where
    elif ev.kind == "env" and d.get("name"):
        proc.env[str(d["name"])] = (str(d.get("value")), where)


def version_label(d: dict) -> str:
    """"2.18.3+cuda12.1", "RCCL 2.22.3" — what two processes must agree on."""
    label = f"{d.get('version')}{d.get('suffix') or ''}"
    if d.get("rccl"):
        return f"RCCL {label}"
    return f"{label}+cuda{d['cuda']}" if d.get("cuda") else label


def _inherit_bare_version(procs: dict[tuple, Process]) -> None:
    """≤2.21 prints `NCCL version …` with bare printf (no host:pid prefix): give it to the file's only process."""
    for (file, host, pid), bare in procs.items():
        if host is None and pid is None and bare.version:
            real = [p for (f, h, i), p in procs.items() if f == file and (h, i) != (None, None)]
            if len(real) == 1 and real[0].version is None:
                real[0].version, real[0].version_ev = bare.version, bare.version_ev


def _finish(comm: Communicator) -> None:
    """Mark rank-0 lines cut at 20 ranks (≤2.22 prints at most 20) as truncated."""
    for ring in comm.rings.values():
        if comm.nranks and len(ring.order) == 20 < comm.nranks:
            ring.truncated = True
