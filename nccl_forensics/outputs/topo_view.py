"""What every renderer shares: which channels to show, colours by transport, the highlighted edges."""
from __future__ import annotations

from ..model import rank_span  # noqa: F401 - the topology renderers import it from here
from ..topo.model import COLLNET, NET_IB, NET_OTHER, NET_SOCKET, P2P, SHM, UNKNOWN, Communicator

# Transport class → (label, colour). Colours read on white (SVG/DOT) and on dark terminals.
TRANSPORT_STYLE = {
    P2P: ("P2P", "#2e8b57"),
    SHM: ("SHM", "#1f77b4"),
    NET_IB: ("NET/IB", "#8e44ad"),
    NET_SOCKET: ("NET/Socket", "#d62728"),
    NET_OTHER: ("NET", "#b8860b"),
    COLLNET: ("CollNet", "#ff7f0e"),
    UNKNOWN: ("unknown", "#7f7f7f"),
}
PXN_STYLE = ("PXN", "#e377c2")
HIGHLIGHT = "#ff0000"


BROKEN_RING = {"G001", "G002", "G003"}     # checks that say a channel's ring is broken or differs


def broken_channels(comm: Communicator, warnings) -> dict[int, list[str]]:
    """Channel → the ring checks that warned about it, for this communicator."""
    out: dict[int, list[str]] = {}
    for w in warnings or ():
        if w.id in BROKEN_RING and comm.comm_id in w.comm_ids:
            for ch in w.channels:
                out.setdefault(ch, []).append(w.id)
    return out


def shown_channels(comm: Communicator, channel: int | None = None, all_channels: bool = False,
                   warnings=None) -> list[int]:
    """`--channel N` → [N]; `--all` → every channel; default → the first channel and every broken one."""
    chans = comm.channels()
    if channel is not None:
        return [channel] if channel in chans else []
    return chans if all_channels else sorted(set(chans[:1]) | (set(broken_channels(comm, warnings)) & set(chans)))


def hop_class(comm: Communicator, channel: int, src: int, dst: int) -> str:
    """The transport class of a ring hop; `pxn` for a NET hop sent through a peer's NIC."""
    edge = comm.edge(channel, src, dst)
    if edge is None:
        return UNKNOWN
    return "pxn" if edge.pxn else edge.cls


def hop_style(cls: str) -> tuple[str, str]:
    return PXN_STYLE if cls == "pxn" else TRANSPORT_STYLE.get(cls, TRANSPORT_STYLE[UNKNOWN])


def highlighted_hops(comm: Communicator, channels: list[int], highlight) -> set[tuple[int, int, int]]:
    """(channel, src, dst) hops to mark: a rank's ring hops in and out, or one (src, dst) pair."""
    if highlight is None:
        return set()
    out = set()
    for channel in channels:
        for src, dst in comm.ring_hops(channel):
            if isinstance(highlight, tuple):
                if (src, dst) == tuple(highlight):
                    out.add((channel, src, dst))
            elif highlight in (src, dst):
                out.add((channel, src, dst))
    return out


def comm_title(comm: Communicator) -> str:
    parts = [f"communicator {comm.comm_id}" if comm.comm_id else "communicator (unidentified)"]
    if comm.nranks is not None:
        parts.append(f"{comm.nranks} ranks")
    if comm.nnodes is not None:
        parts.append(f"{comm.nnodes} node{'s' if comm.nnodes != 1 else ''}")
    if comm.nchannels is not None:
        parts.append(f"{comm.nchannels} channel{'s' if comm.nchannels != 1 else ''}")
    return " · ".join(parts)


def rank_label(comm: Communicator, rank: int) -> str:
    info = comm.ranks.get(rank)
    if info is None or info.device is None:
        return str(rank)
    return f"{rank} (GPU{info.device})"




def drawn_hops(comm: Communicator, channels: list[int]) -> list[tuple[int, int, int]]:
    """(channel, from, to) to draw: each channel's ring hops, or its transport edges when no ring is known."""
    out = []
    for channel in channels:
        hops = comm.ring_hops(channel)
        if not hops:
            hops = [(src, dst) for (c, src, dst) in sorted(comm.edges) if c == channel]
        out += [(channel, src, dst) for src, dst in hops]
    return out


def drawn_channels(comm: Communicator, channel: int | None, all_channels: bool, warnings=None) -> list[int]:
    """Like shown_channels, but also channels known only from transport lines."""
    chans = sorted(set(comm.channels()) | {c for (c, _, _) in comm.edges})
    if channel is not None:
        return [channel] if channel in chans else []
    return chans if all_channels else sorted(set(chans[:1]) | (set(broken_channels(comm, warnings)) & set(chans)))


def node_name(host: str | None) -> str:
    return host or "unknown host"
