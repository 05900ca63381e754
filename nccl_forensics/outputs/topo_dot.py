"""`--format dot`: Graphviz source, laid out as a ring (`layout=circo`). One cluster per communicator, one
sub-cluster per host; ring hops of the shown channels as edges coloured by transport (bold between nodes, red
for the highlighted edge, dashed and labelled BROKEN for a channel whose ring a check found broken)."""
from __future__ import annotations

from ..topo.model import Communicator, TopoWarning
from .topo_view import (
    HIGHLIGHT,
    broken_channels,
    comm_title,
    drawn_channels,
    drawn_hops,
    highlighted_hops,
    hop_class,
    hop_style,
    node_name,
)


def _q(text: str) -> str:
    return '"' + str(text).replace("\\", "\\\\").replace('"', '\\"') + '"'


def render_dot(comms: list[Communicator], warnings: list[TopoWarning], *, channel: int | None = None,
               all_channels: bool = False, highlight=None, **_options) -> str:
    lines = ["digraph ncclf_topology {", "  layout=circo;", "  compound=true;",
             '  node [shape=box, style="rounded,filled", fillcolor="#f7f7f7", fontname="Helvetica"];',
             '  edge [fontname="Helvetica", fontsize=10];']
    for ci, comm in enumerate(comms):
        chans = drawn_channels(comm, channel, all_channels, warnings)
        lines.append(f"  subgraph cluster_c{ci} {{")
        lines.append(f"    label={_q(comm_title(comm))}; style=rounded; color=\"#555555\";")
        for hi, (host, ranks) in enumerate(comm.nodes()):
            lines.append(f"    subgraph cluster_c{ci}_h{hi} {{")
            lines.append(f"      label={_q(node_name(host))}; style=\"rounded,dashed\"; color=\"#999999\";")
            for rank in ranks:
                info = comm.ranks.get(rank)
                label = f"rank {rank}" + (f"\\nGPU{info.device}" if info and info.device is not None else "")
                extra = f', color="{HIGHLIGHT}", penwidth=3' if rank == highlight else ""
                lines.append(f"      c{ci}_r{rank} [label=\"{label}\"{extra}];")
            lines.append("    }")
        lines.append("  }")
        marked = highlighted_hops(comm, chans, highlight)
        broken = broken_channels(comm, warnings)
        for ch, src, dst in drawn_hops(comm, chans):
            label, colour = hop_style(hop_class(comm, ch, src, dst))
            inter = comm.is_inter_node(ch, src, dst)
            attrs = [f"label={_q(f'ch{ch} {label}')}", f'color="{colour}"', f'fontcolor="{colour}"',
                     f"penwidth={2.5 if inter else 1.2}"]
            if ch in broken:
                checks = ", ".join(sorted(set(broken[ch])))
                attrs[0] = f"label={_q(f'ch{ch} {label} BROKEN ({checks})')}"
                attrs += ['style="dashed"']
            if (ch, src, dst) in marked:
                attrs = [f"label={_q(f'ch{ch} {label} (stuck?)')}", f'color="{HIGHLIGHT}"',
                         f'fontcolor="{HIGHLIGHT}"', "penwidth=4"]
            lines.append(f"  c{ci}_r{src} -> c{ci}_r{dst} [{', '.join(attrs)}];")
    lines.append("}")
    return "\n".join(lines) + "\n"
