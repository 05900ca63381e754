"""The topology model: per communicator, the ranks, rings, trees and transport edges NCCL built.

`build_topology(events)` (assembled in build.py) turns NCCL events (docs/events.md, source = nccl) into
`Communicator`s. Process-wide facts (NCCL version, network, plugin, IB/socket devices, bootstrap interface,
environment) live on `Process` and each communicator keeps the processes that hold its ranks.

Where a fact comes from:
- ranks, host, pid, device, bus id: `comm_init` (START/COMPLETE lines); nodes: the `nNodes` info line
  (2.20+) or the distinct hosts of the ranks;
- rings: `ring` events (the `Channel NN/MM : 0 1 2 …` order printed by rank 0 only) and `graph_ring`
  events (`Ring 00 : 7 -> 0 -> 1`, every rank, NCCL_DEBUG_SUBSYS=GRAPH);
- trees: `tree` (`Trees [0] 1/-1/-1->0->-1 …`, every rank) and `graph_tree` events;
- edges: `transport` events (`Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read`), one per (channel, from, to).
Nothing is guessed: a rank whose host was never printed has host None.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..limits import LISTED_RANKS, listed_world
from ..model import Confidence, Event, Evidence, Finding

# Transport classes, used for colours and checks.
P2P, SHM, NET_IB, NET_SOCKET, NET_OTHER, COLLNET, UNKNOWN = (
    "p2p", "shm", "net_ib", "net_socket", "net", "collnet", "unknown")


def transport_class(transport: str | None) -> str:
    """`P2P/CUMEM` → p2p, `SHM` → shm, `NET/IB`/`NET/IBext_v8` → net_ib, `NET/Socket` → net_socket, …"""
    text = (transport or "").strip()
    upper = text.upper()
    if upper.startswith("NET/"):
        name = upper[4:].split("/", 1)[0]
        if name.startswith("SOCKET"):
            return NET_SOCKET
        return NET_IB if name.startswith("IB") else NET_OTHER
    if upper.startswith("P2P"):
        return P2P
    if upper.startswith("SHM") or "SHARED MEMORY" in upper:
        return SHM
    if upper.startswith("COLLNET"):
        return COLLNET
    return UNKNOWN


def evidence_of(ev: Event) -> Evidence:
    return Evidence(ev.file, ev.line, ev.text)


@dataclass
class Process:
    """One NCCL process (one debug file or one pid in a console log) and the network it chose."""

    file: str
    host: str | None
    pid: int | None
    version: str | None = None
    version_ev: Evidence | None = None
    network: str | None = None            # "IB", "Socket", "IBext_v8", … (`Using network X`)
    network_ev: Evidence | None = None
    plugin: str | None = None             # the net plugin loaded, when a NET/Plugin line names one
    plugin_ev: Evidence | None = None
    ib_devices: list[str] = field(default_factory=list)       # "mlx5_0:1/IB"
    ib_ev: Evidence | None = None
    socket_ifs: list[tuple[str, str]] = field(default_factory=list)     # (name, addr)
    socket_ev: Evidence | None = None
    bootstrap_ifs: list[tuple[str, str]] = field(default_factory=list)  # (name, addr)
    bootstrap_ev: Evidence | None = None
    env: dict[str, tuple[str, Evidence]] = field(default_factory=dict)
    gdr_off_ev: Evidence | None = None    # "NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0' (no module)"

    @property
    def key(self) -> tuple[str, str | None, int | None]:
        return (self.file, self.host, self.pid)


@dataclass
class RankInfo:
    rank: int
    host: str | None = None
    pid: int | None = None
    device: int | None = None
    bus_id: str | None = None
    process: Process | None = None
    evidence: Evidence | None = None


@dataclass
class Ring:
    """One channel's ring order as rank 0 printed it (or as rebuilt from the GRAPH lines)."""

    channel: int
    order: list[int]
    nchannels: int | None = None
    truncated: bool = False               # the printed list was cut (≤2.22: 20 ranks; 2.23+: "...")
    source: str = "rank0"                 # "rank0" | "graph"
    evidence: list[Evidence] = field(default_factory=list)


@dataclass
class GraphHop:
    channel: int
    rank: int
    prev: int
    next: int
    evidence: Evidence


@dataclass
class TreeEntry:
    channel: int
    rank: int
    parent: int                           # -1 = root
    children: list[int]
    evidence: Evidence


@dataclass
class Edge:
    """One connection (channel, from → to), merged from the sender's and the receiver's lines."""

    channel: int
    src: int
    dst: int
    transport: str                        # as printed: "P2P/CUMEM", "SHM", "NET/IB", "NET/Socket", …
    detail: str | None = None             # "read", "GDRDMA", "direct/direct", …
    device: Any = None                    # NET device index/name
    pxn: bool = False
    proxy_rank: int | None = None         # PXN: the rank whose NIC sends (`NET/IB/3(6)`)
    evidence: list[Evidence] = field(default_factory=list)

    @property
    def cls(self) -> str:
        return transport_class(self.transport)

    @property
    def gdr(self) -> bool:
        return "GDR" in f"{self.transport}/{self.detail or ''}".upper()


@dataclass
class Communicator:
    comm_id: str | None
    nranks: int | None = None
    nnodes_reported: int | None = None    # from the `nNodes` info line
    local_ranks: int | None = None
    ranks: dict[int, RankInfo] = field(default_factory=dict)
    rings: dict[int, Ring] = field(default_factory=dict)                     # rank 0's order lines
    ring_conflicts: list[Ring] = field(default_factory=list)                 # a 2nd, different order line
    graph_hops: dict[int, dict[int, GraphHop]] = field(default_factory=dict)  # channel → rank → hop
    trees: dict[tuple[int, int], TreeEntry] = field(default_factory=dict)    # (channel, rank)
    edges: dict[tuple[int, int, int], Edge] = field(default_factory=dict)    # (channel, from, to)
    nchannels: int | None = None
    nchannels_ev: Evidence | None = None
    nvls: bool = False
    collnet: bool = False
    processes: list[Process] = field(default_factory=list)
    init_ev: list[Evidence] = field(default_factory=list)

    # ---- derived views -------------------------------------------------------------------
    @property
    def nnodes(self) -> int | None:
        """The distinct hosts when every rank's host is known (NCCL's nNodes counts host hashes, which
        can be wrong: one per process in containers), else NCCL's nNodes, else the hosts seen."""
        hosts = {r.host for r in self.ranks.values() if r.host}
        if self.nranks and len(self.ranks) >= self.nranks and all(r.host for r in self.ranks.values()):
            return len(hosts)
        if self.nnodes_reported is not None:
            return max(self.nnodes_reported, len(hosts))
        return len(hosts) or None

    @property
    def all_ranks(self) -> list[int]:
        """Every rank of the communicator (0..nranks-1, listed up to limits.LISTED_RANKS; `unlisted_ranks`
        counts the rest), plus any rank seen in a line."""
        seen = set(self.ranks)
        for ring in self.rings.values():
            seen.update(ring.order)
        for (_, src, dst) in self.edges:
            seen.update((src, dst))
        for (_, rank) in self.trees:
            seen.add(rank)
        seen.update(listed_world(self.nranks))
        return sorted(r for r in seen if r >= 0)

    @property
    def unlisted_ranks(self) -> int:
        """Ranks of a stated size too large to list one by one that no line names."""
        if not self.nranks or self.nranks <= LISTED_RANKS:
            return 0
        return self.nranks - sum(1 for r in self.all_ranks if r < self.nranks)

    def host_of(self, rank: int) -> str | None:
        info = self.ranks.get(rank)
        return info.host if info else None

    def channels(self) -> list[int]:
        chans = set(self.rings) | set(self.graph_hops) | {c for (c, _) in self.trees}
        return sorted(chans)

    def ring_order(self, channel: int) -> Ring | None:
        """The best known ring of a channel: rank 0's line when complete, else the GRAPH lines' cycle."""
        printed = self.rings.get(channel)
        if printed and not printed.truncated:
            return printed
        rebuilt = self.graph_ring(channel)
        if rebuilt and (printed is None or len(rebuilt.order) > len(printed.order)):
            return rebuilt
        return printed

    def graph_ring(self, channel: int) -> Ring | None:
        """Follow the GRAPH `next` pointers from the lowest rank; None without GRAPH lines."""
        hops = self.graph_hops.get(channel)
        if not hops:
            return None
        start = 0 if 0 in hops else min(hops)
        order, rank = [start], hops[start].next
        while rank in hops and rank not in order:
            order.append(rank)
            rank = hops[rank].next
        if rank not in order and rank >= 0:
            order.append(rank)            # the last known rank (its own line is missing)
        evidence = [hops[r].evidence for r in order if r in hops]
        return Ring(channel, order, self.nchannels, False, "graph", evidence)

    def edge(self, channel: int, src: int, dst: int) -> Edge | None:
        return self.edges.get((channel, src, dst))

    def is_inter_node(self, channel: int, src: int, dst: int) -> bool | None:
        """True/False from the two hosts, else from the edge's transport; None when unknown."""
        a, b = self.host_of(src), self.host_of(dst)
        if a and b:
            return a != b
        edge = self.edge(channel, src, dst)
        if edge is None or edge.cls == UNKNOWN:
            return None
        return edge.cls in (NET_IB, NET_SOCKET, NET_OTHER, COLLNET)

    def ring_hops(self, channel: int) -> list[tuple[int, int]]:
        ring = self.ring_order(channel)
        if not ring or len(ring.order) < 2:
            return []
        order = ring.order
        hops = list(zip(order, order[1:], strict=False))
        if not ring.truncated and (self.nranks is None or len(order) == self.nranks):
            hops.append((order[-1], order[0]))
        return hops

    def nodes(self) -> list[tuple[str | None, list[int]]]:
        """Ranks grouped by host (hosts in order of their lowest rank; unknown host last)."""
        groups: dict[str | None, list[int]] = {}
        for rank in self.all_ranks:
            groups.setdefault(self.host_of(rank), []).append(rank)
        known = sorted((h for h in groups if h is not None), key=lambda h: groups[h][0])
        out: list[tuple[str | None, list[int]]] = [(h, groups[h]) for h in known]
        if None in groups:
            out.append((None, groups[None]))
        return out


@dataclass
class TopoWarning:
    """One check hit. `id` is stable (G001…); `name` is its kebab name."""

    id: str
    name: str
    message: str
    evidence: list[Evidence] = field(default_factory=list)
    comm_ids: list[str | None] = field(default_factory=list)
    ranks: list[int] = field(default_factory=list)
    verdict_class: str = "none"          # what diagnose would call it (nic_misselection, version_mismatch…)
    channels: list[int] = field(default_factory=list)   # the ring channels it is about (G001–G003: broken)

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "message": self.message,
                "ranks": sorted(set(self.ranks)), "channels": sorted(set(self.channels)),
                "evidence": [{"file": e.file, "line": e.line, "text": e.text} for e in self.evidence]}

    def as_finding(self, confidence: Confidence = Confidence.MEDIUM) -> Finding:
        return Finding(self.id, self.name, self.verdict_class, sorted(set(self.ranks)), self.message,
                       confidence, list(self.evidence), cause=self.verdict_class != "none")
