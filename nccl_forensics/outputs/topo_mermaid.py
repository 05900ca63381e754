"""`--format mermaid`: a flowchart with one subgraph per communicator and per host; ring hops of the
shown channels as links (`==>` between nodes), coloured by transport with `linkStyle`."""
from __future__ import annotations

from ..hygiene import mermaid_label
from ..topo.model import Communicator, TopoWarning
from .topo_view import (
    HIGHLIGHT,
    comm_title,
    drawn_channels,
    drawn_hops,
    highlighted_hops,
    hop_class,
    hop_style,
    node_name,
)


def _label(text: str) -> str:
    return mermaid_label(text)


def render_mermaid(comms: list[Communicator], warnings: list[TopoWarning], *, channel: int | None = None,
                   all_channels: bool = False, highlight=None, **_options) -> str:
    lines, styles, link = ["flowchart LR"], [], 0
    for ci, comm in enumerate(comms):
        chans = drawn_channels(comm, channel, all_channels, warnings)
        lines.append(f"  subgraph c{ci}[{_label(comm_title(comm))}]")
        for hi, (host, ranks) in enumerate(comm.nodes()):
            lines.append(f"    subgraph c{ci}h{hi}[{_label(node_name(host))}]")
            for rank in ranks:
                info = comm.ranks.get(rank)
                gpu = f"<br/>GPU{info.device}" if info and info.device is not None else ""
                lines.append(f"      c{ci}r{rank}([{_label(f'rank {rank}{gpu}')}])")
            lines.append("    end")
        lines.append("  end")
        marked = highlighted_hops(comm, chans, highlight)
        for ch, src, dst in drawn_hops(comm, chans):
            label, colour = hop_style(hop_class(comm, ch, src, dst))
            arrow = "==>" if comm.is_inter_node(ch, src, dst) else "-->"
            lines.append(f"  c{ci}r{src} {arrow}|{_label(f'ch{ch} {label}')}| c{ci}r{dst}")
            stuck = (ch, src, dst) in marked
            styles.append(f"  linkStyle {link} stroke:{HIGHLIGHT if stuck else colour},"
                          f"stroke-width:{4 if stuck else 2}px")
            link += 1
        if highlight is not None and not isinstance(highlight, tuple) and highlight in comm.all_ranks:
            styles.append(f"  style c{ci}r{highlight} stroke:{HIGHLIGHT},stroke-width:4px")
    return "\n".join(lines + styles) + "\n"
