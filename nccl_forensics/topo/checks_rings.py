"""Ring and channel checks (G001–G004, G010); see checks.py for the table."""
from __future__ import annotations

from ..limits import listed_world
from ..model import Evidence
from .checks_base import _channels, _label, _ranks, _warn
from .model import Communicator, TopoWarning


def check_ring_not_closed(comms: list[Communicator]) -> list[TopoWarning]:
    """G001 ring-not-closed: a ring NCCL built does not close.

    What it finds: a GRAPH `next` chain does not come back to where it started, a rank's `next` disagrees with
    its peer's `prev`, or a rank repeats in a ring.
    Why it matters: every rank of a ring waits on its neighbour; a ring that does not close means the ranks did
    not agree on the topology (mixed NCCL_ALGO/NCCL_GRAPH settings, a rank that joined with other settings), and
    a collective over it hangs.
    Evidence: `NCCL_DEBUG=INFO` with `NCCL_DEBUG_SUBSYS=INIT,GRAPH` from every rank.
    Fix: the same NCCL environment and version on every rank; check the ranks it names.
    """
    out = []
    for comm in comms:
        chans, evidence, ranks = [], [], []
        for channel, hops in sorted(comm.graph_hops.items()):
            bad = _broken_hops(hops)
            if bad:
                chans.append(channel)
                ranks += [r for r, _ in bad]
                evidence += [e for _, e in bad]
        for channel, ring in sorted(comm.rings.items()):
            dupes = sorted({r for r in ring.order if ring.order.count(r) > 1})
            if dupes:
                chans.append(channel)
                ranks += dupes
                evidence += ring.evidence
        if chans:
            out.append(_warn("G001 ring-not-closed",
                             f"{_label(comm)}: the ring of {_channels(sorted(set(chans)))} does not close "
                             f"(neighbours disagree or a rank repeats) around ranks {_ranks(ranks)}",
                             evidence, [comm], ranks, channels=chans))
    return out


def _broken_hops(hops) -> list[tuple[int, Evidence]]:
    """Ranks whose `next` peer says another `prev`, or a `next` chain that loops back mid-ring."""
    bad = []
    for rank, hop in sorted(hops.items()):
        peer = hops.get(hop.next)
        if peer is not None and peer.prev != rank:
            bad += [(rank, hop.evidence), (peer.rank, peer.evidence)]
    if bad:
        return bad
    start = min(hops)
    seen, rank = [start], hops[start].next
    while rank in hops and rank not in seen:
        seen.append(rank)
        rank = hops[rank].next
    if rank in seen and rank != start:
        bad.append((rank, hops[rank].evidence))
    return bad


def check_ring_differs(comms: list[Communicator]) -> list[TopoWarning]:
    """G002 ring-differs-across-ranks: ranks disagree on a ring's order.

    What it finds: rank 0's `Channel NN/MM :` order disagrees with a rank's own `Ring NN : prev -> r -> next`
    line, or two order lines of one channel differ.
    Why it matters: ranks that send around different rings wait for data that never comes: a hang at the first
    collective.
    Evidence: the INIT/GRAPH lines of the ranks (`NCCL_DEBUG=INFO`).
    Fix: the same NCCL version, environment (NCCL_ALGO, NCCL_TOPO_FILE, NCCL_GRAPH_FILE) and topology on every
    rank.
    """
    out = []
    for comm in comms:
        chans, evidence, ranks = [], [], []
        for other in comm.ring_conflicts:
            chans.append(other.channel)
            evidence += comm.rings[other.channel].evidence + other.evidence
        for channel, ring in sorted(comm.rings.items()):
            for hop in sorted(comm.graph_hops.get(channel, {}).values(), key=lambda h: h.rank):
                expected = _neighbours(ring, hop.rank, comm.nranks)
                if expected is not None and expected != (hop.prev, hop.next):
                    chans.append(channel)
                    ranks.append(hop.rank)
                    evidence += ring.evidence + [hop.evidence]
        if chans:
            out.append(_warn("G002 ring-differs-across-ranks",
                             f"{_label(comm)}: the ring order of {_channels(sorted(set(chans)))} printed by "
                             f"rank 0 differs from what ranks {_ranks(ranks) or '?'} report",
                             evidence, [comm], ranks, channels=chans))
    return out


def _neighbours(ring, rank: int, nranks: int | None) -> tuple[int | None, int | None] | None:
    """(prev, next) of `rank` in a printed order; None when the printed list cannot tell."""
    order = ring.order
    if rank not in order:
        return None
    i = order.index(rank)
    closed = not ring.truncated and (nranks is None or len(order) == nranks)
    if not closed and (i == 0 or i == len(order) - 1):
        return None
    return order[i - 1], order[(i + 1) % len(order)]


def check_rank_missing(comms: list[Communicator]) -> list[TopoWarning]:
    """G003 rank-missing-from-ring: a complete ring lacks ranks.

    What it finds: a complete ring (not a list NCCL cut at 20 ranks or with `...`) that does not hold every rank
    of its communicator.
    Why it matters: the missing ranks are not connected on that channel; collectives over it cannot finish.
    Evidence: the `Channel NN/MM :` and `Ring NN :` lines (`NCCL_DEBUG=INFO`).
    Fix: look at the named ranks' init: they may have joined another communicator or failed during setup.
    """
    out = []
    for comm in comms:
        if not comm.nranks:
            continue
        chans, evidence, missing = [], [], set()
        for channel in comm.channels():
            ring = comm.ring_order(channel)
            if ring is None or ring.truncated or (ring.source == "graph" and not _closed(comm, channel)):
                continue
            lacking = set(listed_world(comm.nranks)) - set(ring.order)
            if lacking:
                chans.append(channel)
                missing |= lacking
                evidence += ring.evidence[:2]
        if chans:
            out.append(_warn("G003 rank-missing-from-ring",
                             f"{_label(comm)} has {comm.nranks} ranks but the ring of {_channels(chans)} "
                             f"lacks ranks {_ranks(missing)}", evidence + comm.init_ev[:1], [comm], missing,
                             channels=chans))
    return out


def _closed(comm: Communicator, channel: int) -> bool:
    hops = comm.graph_hops.get(channel, {})
    ring = comm.graph_ring(channel)
    return ring is not None and ring.order[-1] in hops and hops[ring.order[-1]].next == ring.order[0]


def check_extra_inter_node_hops(comms: list[Communicator]) -> list[TopoWarning]:
    """G004 extra-inter-node-hops: a ring crosses between nodes more often than it needs.

    What it finds: a ring whose consecutive ranks change node more often than its number of nodes needs.
    Why it matters: every extra crossing puts the slow inter-node link on the ring's path: lower bandwidth,
    not a hang.
    Evidence: the ring lines and the host of each rank.
    Fix: rank placement that keeps a node's ranks consecutive (launcher ordering, CUDA_VISIBLE_DEVICES).
    """
    out = []
    for comm in comms:
        nnodes = comm.nnodes
        if not nnodes:
            continue
        needed = nnodes if nnodes > 1 else 0
        worst, evidence, chans, ranks = 0, [], [], []
        for channel in comm.channels():
            crossings = [h for h in comm.ring_hops(channel) if comm.is_inter_node(channel, *h)]
            if len(crossings) > needed:
                chans.append(channel)
                worst = max(worst, len(crossings))
                ring = comm.ring_order(channel)
                evidence += (ring.evidence[:1] if ring else [])
                evidence += [e for h in crossings if (edge := comm.edge(channel, *h)) for e in edge.evidence[:1]]
                ranks += [r for h in crossings for r in h]
        if chans:
            out.append(_warn("G004 extra-inter-node-hops",
                             f"{_label(comm)}: the ring of {_channels(chans)} crosses between nodes {worst} "
                             f"times where {nnodes} node(s) need only {needed}", evidence, [comm], ranks))
    return out


def check_single_channel(comms: list[Communicator]) -> list[TopoWarning]:
    """G010 single-channel: a communicator with several GPUs on one node runs a single channel.

    What it finds: a communicator with more than one GPU on a node that NCCL set up with one channel.
    Why it matters: one channel uses a fraction of the links: slow collectives, not a hang.
    Evidence: the `Channel NN/MM` lines of the communicator.
    Fix: check NCCL_MIN_NCHANNELS/NCCL_MAX_NCHANNELS and the topology NCCL detected (NCCL_DEBUG_SUBSYS=GRAPH).
    """
    out = []
    for comm in comms:
        per_host = [len(ranks) for host, ranks in comm.nodes() if host]
        multi_gpu = (comm.local_ranks or 0) > 1 or any(n > 1 for n in per_host)
        nchannels = comm.nchannels if comm.nchannels is not None else (len(comm.rings) or None)
        if multi_gpu and nchannels == 1:
            evidence = [comm.nchannels_ev] + [r.evidence[0] for r in comm.rings.values() if r.evidence]
            out.append(_warn("G010 single-channel",
                             f"{_label(comm)} runs a single channel with several GPUs per node: bandwidth is "
                             f"capped (NCCL_MIN_NCHANNELS / NCCL_MAX_NCHANNELS, or a degraded topology?)",
                             evidence, [comm]))
    return out
