"""Terminal rendering (rich): per communicator its nodes, rings coloured by transport, trees, warnings.

Compact by default (the first channel); `channel=N` shows channel N, `all_channels=True` every channel.
An intra-node hop is drawn `─P2P→`, an inter-node hop `═NET/IB⇒`; `highlight` (a rank, or a (from, to)
pair) marks the hops of the stuck edge in reverse red.
"""
from __future__ import annotations

import io
from collections import Counter

from rich.console import Console, Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text
from rich.tree import Tree

from ..hygiene import SafeConsoleMixin
from ..topo.model import Communicator, TopoWarning
from .topo_view import (
    broken_channels,
    comm_title,
    highlighted_hops,
    hop_class,
    hop_style,
    rank_label,
    rank_span,
    shown_channels,
)


class _SafeConsole(SafeConsoleMixin, Console):
    """A rich console that strips escape sequences from the text it is given (hygiene.py)."""


def render_terminal(comms: list[Communicator], warnings: list[TopoWarning], *, channel: int | None = None,
                    all_channels: bool = False, highlight=None, width: int = 110, color: bool = False) -> str:
    """Plain text (or ANSI with color=True) of `terminal_renderables`."""
    buf = io.StringIO()
    console = _SafeConsole(file=buf, width=width, force_terminal=color, color_system="truecolor" if color else None,
                      highlight=False, emoji=False)
    for item in terminal_renderables(comms, warnings, channel=channel, all_channels=all_channels,
                                     highlight=highlight):
        console.print(item)
    return buf.getvalue()


def terminal_renderables(comms, warnings, *, channel=None, all_channels=False, highlight=None):
    for comm in comms:
        chans = shown_channels(comm, channel, all_channels, warnings)
        mine = [w for w in warnings if comm.comm_id in w.comm_ids]
        yield Panel(Group(*_comm_body(comm, chans, highlight, mine, channel is None and not all_channels)),
                    title=Text(comm_title(comm), style="bold"), title_align="left", expand=True)


def _comm_body(comm: Communicator, chans: list[int], highlight, warnings, compact: bool) -> list[RenderableType]:
    body: list[RenderableType] = [_nodes_table(comm), _features(comm)]
    marked = highlighted_hops(comm, chans, highlight)
    if channel_missing(comm, chans, compact):
        body.append(Text(f"No ring or tree printed for that channel (channels: {rank_span(comm.channels())})",
                         style="yellow"))
    if chans:
        more = len(comm.channels()) - len(chans)
        hint = f"  (+{more} more: --channel N or --all)" if compact and more > 0 else ""
        body.append(Text(f"Rings{hint}", style="bold"))
        broken = broken_channels(comm, warnings)
        lines = [_ring_line(comm, c, marked, highlight, broken.get(c)) for c in chans]
        body += _same_rings_once(chans, lines) if compact else lines
    with_trees = [c for c in chans if any(k[0] == c for k in comm.trees)]
    trees = [_tree(comm, same) for same in (_same_trees(comm, with_trees) if compact else [[c] for c in with_trees])]
    if trees:
        body.append(Text("Trees", style="bold"))
        body += trees
    if comm.edges:
        body.append(_transport_summary(comm))
    body += _warning_lines(warnings)
    return body


def channel_missing(comm: Communicator, chans: list[int], compact: bool) -> bool:
    return not chans and not compact and bool(comm.channels())


def _nodes_table(comm: Communicator) -> Table:
    table = Table(box=None, show_header=True, header_style="bold", pad_edge=False)
    for col in ("node", "ranks", "GPUs", "network", "bootstrap"):
        table.add_column(col)
    nodes = comm.nodes()
    known = [(h, r) for h, r in nodes if h is not None]
    unseen = next((r for h, r in nodes if h is None), [])
    if unseen and len(known) == 1 and comm.nnodes == 1:       # NCCL says one node: the unseen ranks are on it
        nodes = [(known[0][0], sorted(known[0][1] + unseen))]
    for host, ranks in nodes:
        infos = [comm.ranks[r] for r in ranks if r in comm.ranks]
        procs = [i.process for i in infos if i.process is not None]
        gpus = ",".join(str(i.device) for i in infos if i.device is not None) or "?"
        without = [r for r in ranks if r not in comm.ranks or comm.ranks[r].process is None]
        if without and host is not None:
            gpus += f" (ranks {rank_span(without)}: no log read)"
        nets = sorted({_network(p) for p in procs}) or ["?"]
        boots = sorted({f"{n}:{a.split('<')[0]}" for p in procs for n, a in p.bootstrap_ifs}) or ["?"]
        table.add_row(host or "(no log read: host unknown)", rank_span(ranks), gpus, "; ".join(nets), ", ".join(boots))
    return table


def _network(proc) -> str:
    net = proc.network or "?"
    if proc.ib_devices and net.upper().startswith("IB"):
        hcas = [d.split(":")[0] for d in proc.ib_devices]
        net += f" ({', '.join(hcas)})" if len(hcas) <= 3 else f" ({len(hcas)} HCAs: {hcas[0]}…{hcas[-1]})"
    elif proc.socket_ifs and net.lower().startswith("socket"):
        net += " (" + ", ".join(n for n, _ in proc.socket_ifs) + ")"
    return net


def _features(comm: Communicator) -> Text:
    yes_no = {True: "yes", False: "no"}
    text = Text(f"NVLS {yes_no[comm.nvls]} · CollNet {yes_no[comm.collnet]}")
    pxn = sum(1 for e in comm.edges.values() if e.pxn)
    if pxn:
        text.append(f" · PXN on {pxn} connections")
    return text


def _ring_line(comm: Communicator, channel: int, marked: set, highlight, broken: list[str] | None = None) -> Text:
    ring = comm.ring_order(channel)
    text = Text(f"  ch {channel:>2}: ", style="bold")
    if broken:
        text.append(f"BROKEN ({', '.join(sorted(set(broken)))}) ", style="bold white on red")
    if ring is None:
        return text.append("(no ring order printed)", style="dim")
    hops = comm.ring_hops(channel)
    for src, dst in hops:
        text.append_text(_rank(src, highlight))
        text.append_text(_hop(comm, channel, src, dst, (channel, src, dst) in marked))
    closed = len(hops) == len(ring.order) and len(hops) > 1
    text.append_text(_rank(ring.order[0] if closed else ring.order[-1], highlight, "dim" if closed else "bold"))
    if ring.truncated:
        text.append(" …", style="dim")
    if ring.source == "graph":
        text.append("  (from GRAPH lines)", style="dim")
    return text


def _same_rings_once(chans: list[int], lines: list[Text]) -> list[Text]:
    """Channels whose ring lines read the same after `ch N: ` share one line, labelled with their channels as runs
    (`ch 0-15: …`): a 16-channel ring printed once, not 16 times."""
    prefix = len("  ch NN: ")
    same: dict[str, list[int]] = {}
    first: dict[str, Text] = {}
    for c, line in zip(chans, lines, strict=True):
        key = line.plain[prefix:]
        same.setdefault(key, []).append(c)
        first.setdefault(key, line)
    if len(same) == len(lines):
        return lines
    out = []
    for key, members in same.items():
        label = Text(f"  ch {rank_span(members)}: ", style="bold")
        out.append(label + first[key][prefix:] if len(members) > 1 else first[key])
    return out


def _rank(rank: int, highlight, style: str = "bold") -> Text:
    if rank == highlight:
        return Text(f"[{rank}]", style="bold white on red")
    return Text(str(rank), style=style)


def _hop(comm: Communicator, channel: int, src: int, dst: int, marked: bool) -> Text:
    """` ─P2P→ ` inside a node, ` ═NET/IB⇒ ` between nodes, ` ─P2P→✗ ` on the highlighted (stuck) edge."""
    cls = hop_class(comm, channel, src, dst)
    label, colour = hop_style(cls)
    label = label if cls != "unknown" else ""
    inter = comm.is_inter_node(channel, src, dst)
    arrow = (f" ═{label}⇒" if inter else f" ─{label}→") + ("✗ " if marked else " ")
    return Text(arrow, style="bold white on red" if marked else (f"bold {colour}" if inter else colour))


def _same_trees(comm: Communicator, chans: list[int]) -> list[list[int]]:
    """The channels grouped by their tree's shape (each rank's parent and children): one tree drawn per shape."""
    same: dict[tuple, list[int]] = {}
    for channel in chans:
        shape = tuple(sorted((rank, t.parent, tuple(t.children)) for (c, rank), t in comm.trees.items()
                             if c == channel))
        same.setdefault(shape, []).append(channel)
    return list(same.values())


def _tree(comm: Communicator, channels: list[int]) -> Tree:
    """The tree of `channels` (the same shape on each: folded by _same_trees)."""
    channel = channels[0]
    entries = {rank: t for (c, rank), t in comm.trees.items() if c == channel}
    root = Tree(Text(f"tree ch {rank_span(channels)}", style="bold"))
    roots = sorted(r for r, t in entries.items() if t.parent < 0 or t.parent not in entries)
    seen: set[int] = set()
    for r in roots:
        _add_subtree(comm, root, entries, r, seen)
    return root


def _add_subtree(comm, node: Tree, entries, rank: int, seen: set[int]) -> None:
    seen.add(rank)
    entry = entries.get(rank)
    label = rank_label(comm, rank)
    if entry is not None and entry.parent >= 0 and entry.parent not in entries:
        label = f"(↑{entry.parent}) {label}"
    while entry is not None and len(entry.children) == 1 and entry.children[0] not in seen:
        rank = entry.children[0]            # fold a chain (NCCL's intra-node trees) onto one line
        seen.add(rank)
        label += f" → {rank_label(comm, rank)}"
        entry = entries.get(rank)
    branch = node.add(label)
    for child in (entry.children if entry else []):
        if child not in seen:
            _add_subtree(comm, branch, entries, child, seen)


def _transport_summary(comm: Communicator) -> Text:
    counts = Counter(e.transport + (f"/{e.detail}" if e.detail else "") for e in comm.edges.values())
    text = Text("Transports: ", style="bold")
    for i, (name, n) in enumerate(sorted(counts.items())):
        edge = next(e for e in comm.edges.values() if name.startswith(e.transport))
        text.append(("" if i == 0 else ", ") + f"{name} ×{n}", style=hop_style(edge.cls)[1])
    return text


def _warning_lines(warnings: list[TopoWarning]) -> list[RenderableType]:
    if not warnings:
        return [Text("No topology warnings.", style="green")]
    grid = Table.grid(padding=(0, 1))
    grid.add_column(width=2)
    grid.add_column(ratio=1)
    for w in warnings:
        lines: list[RenderableType] = [Text.assemble((f"{w.id} {w.name}", "bold yellow"), f": {w.message}")]
        for ev in w.evidence:
            lines.append(Text(f"{ev.file}:{ev.line}", style="cyan", overflow="fold"))
            lines.append(Text(f"  {ev.text.strip()}", style="dim", overflow="ellipsis", no_wrap=True))
        grid.add_row(Text("⚠", style="yellow"), Group(*lines))
    return [Text("Warnings", style="bold yellow"), grid]
