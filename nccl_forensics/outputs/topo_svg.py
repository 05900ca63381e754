"""`--format svg`: a self-contained SVG drawn in pure Python (no Graphviz, no fonts, no scripts).

Per communicator: one box per host (up to 4 per row), named along its left side (where no hop runs), its
ranks inside laid out around the box (top row left to right, bottom row right to left, so an intra-node ring
reads as a loop); the ring hops of the shown channels as curved arrows, one curve offset per channel,
coloured by transport; a hop between nodes is a double line (a "bus") routed in lanes around the boxes; a
channel whose ring a check found broken (G001–G003) is shown even when only the first channel is, its hops
dashed over a red halo and named in the heading; `highlight` draws the stuck edge and rank in red. Every
element has a <title> tooltip.
"""
from __future__ import annotations

import math

from ..hygiene import html_text as escape
from ..topo.model import Communicator, TopoWarning
from .topo_view import (
    HIGHLIGHT,
    PXN_STYLE,
    TRANSPORT_STYLE,
    broken_channels,
    comm_title,
    drawn_channels,
    drawn_hops,
    highlighted_hops,
    hop_class,
    hop_style,
    node_name,
    rank_span,
)

R = 22                 # rank circle radius
GPU_BASELINE = 14      # the GPU label's baseline below the centre: inside the circle (9 px text)
STEP = 104             # distance between rank centres
PAD = 34               # host box padding
HOSTS_PER_ROW = 4
GAP = 80               # between host boxes
MARGIN = 24
LANES = 56             # room for the inter-node lanes left of and above the hosts
LABEL_X = 17           # the host label's baseline, from the box's left edge (left of every rank circle)
LABEL_CLEAR = 12       # no hop comes nearer the label's baseline than this (its glyphs and the stroke's width)
FONT = "font-family:DejaVu Sans,Helvetica,Arial,sans-serif"


def render_svg(comms: list[Communicator], warnings: list[TopoWarning], *, channel: int | None = None,
               all_channels: bool = False, highlight=None, **_options) -> str:
    body, colours, y, width = [], set(), MARGIN, 420
    for comm in comms:
        chans = drawn_channels(comm, channel, all_channels, warnings)
        part, part_w, part_h, used = _comm_svg(comm, chans, highlight, y, warnings)
        body += part
        colours |= used
        y += part_h + GAP
        width = max(width, part_w + 2 * MARGIN, int(9.5 * len(comm_title(comm))) + 2 * MARGIN)
    legend, legend_h, legend_w = _legend(y, colours)
    width = max(width, legend_w + MARGIN)
    height = y + legend_h + MARGIN
    head = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" style="{FONT}">',
            "<title>ncclf topology</title>", _markers(colours | {HIGHLIGHT}),
            f'<rect x="0" y="0" width="{width}" height="{height}" fill="#ffffff"/>']
    return "\n".join(head + body + legend + ["</svg>"]) + "\n"


def _comm_svg(comm: Communicator, chans: list[int], highlight, top: int, warnings):
    out = [f'<g class="communicator" data-comm="{escape(str(comm.comm_id))}">',
           f'<text x="{MARGIN}" y="{top + 16}" font-size="16" font-weight="bold">{escape(comm_title(comm))}</text>']
    shown = ", ".join(str(c) for c in chans) or "none"
    mine = [w for w in warnings if comm.comm_id in w.comm_ids]
    broken = {ch: ids for ch, ids in broken_channels(comm, warnings).items() if ch in chans}
    note = f"ring channel{'s' if len(chans) != 1 else ''} {shown}" + (f" · {len(mine)} warning(s): "
                                                                     + ", ".join(w.id for w in mine) if mine else "")
    out.append(f'<text x="{MARGIN}" y="{top + 34}" font-size="12" fill="#555">{escape(note)}</text>')
    if broken:
        says = "; ".join(f"channel {ch} BROKEN ({', '.join(sorted(set(ids)))})" for ch, ids in sorted(broken.items()))
        out.append(f'<text class="broken-note" x="{MARGIN + 8 + 6.6 * len(note)}" y="{top + 34}" font-size="12" '
                   f'font-weight="bold" fill="{HIGHLIGHT}">{escape(says)}</text>')
    pos, boxes, w, h = _layout(comm, chans, top + 48 + LANES)
    for box in boxes.values():
        out.append(_host_box(*box))
    marked = highlighted_hops(comm, chans, highlight)
    used: set[str] = set()
    lane = 0
    for ch, src, dst in drawn_hops(comm, chans):
        if src not in pos or dst not in pos:
            continue
        stuck = (ch, src, dst) in marked
        if pos[src][2] != pos[dst][2]:
            route = _route(pos[src], pos[dst], boxes, lane)
            lane += 1
        else:
            route = _arc(pos[src], pos[dst], chans.index(ch), boxes[pos[src][2]][0] + LABEL_X + LABEL_CLEAR)
        svg, colour = _edge(comm, ch, src, dst, route, stuck, ch in broken)
        out.append(svg)
        used.add(colour)
    out += [_rank_node(comm, rank, xy[:2], rank == highlight) for rank, xy in sorted(pos.items())]
    out.append("</g>")
    return out, w, h + 48 + LANES, used


def _host_box(x, y, bw, bh, host, ranks) -> str:
    """The host's box, its name and ranks written up its left side: hops leave ranks up or down and run in
    lanes outside the box, so none crosses the label."""
    lx, ly = x + LABEL_X, y + bh / 2
    label = f"{node_name(host)} · ranks {rank_span(ranks)}"
    return (f'<g class="host"><title>{escape(node_name(host))}: ranks {rank_span(ranks)}</title>'
            f'<rect x="{x}" y="{y}" width="{bw}" height="{bh}" rx="14" fill="#f4f6f8" stroke="#8a949e" '
            f'stroke-dasharray="6 4"/><text class="host-label" x="{lx}" y="{ly}" font-size="12" font-weight="bold" '
            f'fill="#37414b" text-anchor="middle" transform="rotate(-90 {lx} {ly})">{escape(label)}</text></g>')


def _layout(comm: Communicator, chans: list[int], top: int):
    """Rank centres (x, y, host index) and host boxes. Hosts go in rows of HOSTS_PER_ROW; inside a host the
    ranks follow the first shown ring and snake (top row left→right, bottom row right→left)."""
    groups = comm.nodes()
    ring = comm.ring_order(chans[0]) if chans else None
    rank_at = {r: i for i, r in enumerate(ring.order)} if ring else {}
    cols = max((min(4, max(1, math.ceil(len(r) / 2))) for _, r in groups), default=1)
    rows = max((math.ceil(len(r) / cols) for _, r in groups), default=1)
    bw, bh = (cols - 1) * STEP + 2 * PAD + 2 * R + 8, (rows - 1) * STEP + 2 * PAD + 2 * R
    pos, boxes = {}, {}
    for i, (host, ranks) in enumerate(groups):
        x = MARGIN + LANES + (i % HOSTS_PER_ROW) * (bw + GAP)
        y = top + (i // HOSTS_PER_ROW) * (bh + GAP)
        boxes[i] = (x, y, bw, bh, host, ranks)
        for j, rank in enumerate(sorted(ranks, key=lambda r: (rank_at.get(r, len(rank_at)), r))):
            row, col = divmod(j, cols)
            if row % 2 == 1:
                col = cols - 1 - col           # snake: the second row runs back
            pos[rank] = (x + PAD + 8 + R + col * STEP, y + PAD + R + row * STEP, i)
    nrows = math.ceil(len(groups) / HOSTS_PER_ROW) or 1
    width = LANES + min(len(groups), HOSTS_PER_ROW) * (bw + GAP) - GAP
    return pos, boxes, width, nrows * (bh + GAP) - GAP


def _arc(a, b, k: int, clear_x: float) -> str:
    """A curve between two ranks of one host, bent to the left of its direction (one offset per channel), or
    to the right where bending left would reach the host's label (left of `clear_x`)."""
    (x1, y1), (x2, y2) = a[:2], b[:2]
    dx, dy = x2 - x1, y2 - y1
    dist = math.hypot(dx, dy) or 1.0
    bend = 14 + 9 * k
    cx, cy = (x1 + x2) / 2 - dy / dist * bend, (y1 + y2) / 2 + dx / dist * bend
    if ((x1 + x2) / 2 + cx) / 2 < clear_x:            # the curve's apex lies halfway to its control point
        cx, cy = (x1 + x2) / 2 + dy / dist * bend, (y1 + y2) / 2 - dx / dist * bend
    sx, sy = _towards(x1, y1, cx, cy, R + 2)
    ex, ey = _towards(x2, y2, cx, cy, R + 6)
    return f"M{sx:.1f},{sy:.1f} Q{cx:.1f},{cy:.1f} {ex:.1f},{ey:.1f}"


def _route(a, b, boxes, lane: int) -> str:
    """An inter-node hop as a bus: out of the source box (up from its top row, down from the others),
    along that lane, along the gap left of the target box, then into the target rank from its side."""
    (x1, y1, i), (x2, y2, j) = a, b
    off = 12 + 8 * (lane % 5)
    out_y, out_lane = _lane(y1, boxes[i], off)
    in_y, in_lane = _lane(y2, boxes[j], off)
    gap_x = boxes[j][0] - GAP / 2 - 6 + 4 * (lane % 5)
    pts = [(x1, out_y), (x1, out_lane), (gap_x, out_lane), (gap_x, in_lane), (x2, in_lane), (x2, in_y)]
    return _rounded(pts)


def _lane(y: float, box, off: float) -> tuple[float, float]:
    """(where a line leaves/enters the rank at y, the lane it runs along): above the box for its top row."""
    top, height = box[1], box[3]
    if y < top + height / 2:
        return y - R - 4, top - off
    return y + R + 4, top + height + off


def _rounded(pts: list[tuple[float, float]], radius: float = 10) -> str:
    path = f"M{pts[0][0]:.1f},{pts[0][1]:.1f}"
    for (px, py), (cx, cy), (nx, ny) in zip(pts, pts[1:], pts[2:], strict=False):
        r = min(radius, math.hypot(cx - px, cy - py) / 2, math.hypot(nx - cx, ny - cy) / 2)
        ax, ay = _towards(cx, cy, px, py, r)
        bx, by = _towards(cx, cy, nx, ny, r)
        path += f" L{ax:.1f},{ay:.1f} Q{cx:.1f},{cy:.1f} {bx:.1f},{by:.1f}"
    return path + f" L{pts[-1][0]:.1f},{pts[-1][1]:.1f}"


def _edge(comm: Communicator, ch: int, src: int, dst: int, route: str, stuck: bool,
          broken: bool = False) -> tuple[str, str]:
    cls = hop_class(comm, ch, src, dst)
    colour = HIGHLIGHT if stuck else hop_style(cls)[1]
    inter = comm.is_inter_node(ch, src, dst)
    width = 4.5 if stuck else (5.0 if inter else 1.8)
    dash = ' stroke-dasharray="7 4"' if cls == "unknown" or broken else ""
    edge = comm.edge(ch, src, dst)
    detail = f"{edge.transport}{'/' + edge.detail if edge.detail else ''}" if edge else "transport not printed"
    tip = (f"channel {ch}: {src} → {dst} via {detail}{' (inter-node)' if inter else ''}"
           f"{' — highlighted' if stuck else ''}")
    if broken:
        tip += f" — channel {ch}'s ring is broken"
    kind = "edge" + (" stuck" if stuck else "") + (" inter-node" if inter else "") + (" broken" if broken else "")
    halo = (f'<path class="broken-halo" data-channel="{ch}" d="{route}" fill="none" stroke="{HIGHLIGHT}" '
            f'stroke-opacity="0.35" stroke-width="{width + 7}" stroke-linejoin="round"/>') if broken else ""
    svg = (f'{halo}<path class="{kind}" data-channel="{ch}" d="{route}" fill="none" '
           f'stroke="{colour}" stroke-width="{width}"{dash} stroke-linejoin="round" '
           f'marker-end="url(#arrow-{colour[1:]})"><title>{escape(tip)}</title></path>')
    if inter and not stuck:                            # a double line: the bus between nodes
        svg += (f'<path class="bus-core" d="{route}" fill="none" stroke="#ffffff" stroke-width="1.6"'
                f'{dash} stroke-linejoin="round"/>')
    return svg, colour


def _towards(x: float, y: float, tx: float, ty: float, d: float) -> tuple[float, float]:
    dist = math.hypot(tx - x, ty - y) or 1.0
    return x + (tx - x) / dist * d, y + (ty - y) / dist * d


def _rank_node(comm: Communicator, rank: int, xy, highlighted: bool) -> str:
    x, y = xy
    info = comm.ranks.get(rank)
    tip = f"rank {rank}"
    if info:
        tip += f" · host {info.host} · pid {info.pid} · GPU {info.device} · busId {info.bus_id}"
    stroke, sw, fill = (HIGHLIGHT, 4, "#ffe5e5") if highlighted else ("#37414b", 1.6, "#ffffff")
    # Both labels sit inside the circle: hops leave and enter a rank on every side (arcs inside the host, buses
    # up and down to the lanes) and stop short of its circle, so nothing is ever drawn over a label.
    gpu = (f'<text class="gpu-label" x="{x}" y="{y + GPU_BASELINE}" font-size="9" fill="#6b7680" '
           f'text-anchor="middle">GPU{info.device}</text>') if info and info.device is not None else ""
    number_y = y + (2 if gpu else 5)
    return (f'<g class="rank" data-rank="{rank}"><title>{escape(tip)}</title>'
            f'<circle cx="{x}" cy="{y}" r="{R}" fill="{fill}" stroke="{stroke}" stroke-width="{sw}"/>'
            f'<text x="{x}" y="{number_y}" font-size="14" font-weight="bold" text-anchor="middle" '
            f'fill="#1d2329">{rank}</text>{gpu}</g>')


def _markers(colours: set[str]) -> str:
    marks = "".join(f'<marker id="arrow-{c[1:]}" viewBox="0 0 10 10" refX="7" refY="5" markerWidth="11" '
                    f'markerHeight="11" markerUnits="userSpaceOnUse" orient="auto-start-reverse">'
                    f'<path d="M0,0 L10,5 L0,10 z" fill="{c}"/>'
                    f'</marker>' for c in sorted(colours))
    return f"<defs>{marks}</defs>"


def _legend(top: int, used: set[str]) -> tuple[list[str], int, int]:
    styles = list(TRANSPORT_STYLE.values()) + [PXN_STYLE]
    items = [(label, colour) for label, colour in styles if colour in used]
    items.append(("highlighted / stuck", HIGHLIGHT))
    out = [f'<g class="legend"><text x="{MARGIN}" y="{top + 4}" font-size="12" font-weight="bold">Transport'
           f'</text>']
    x = MARGIN + 80
    for label, colour in items:
        out.append(f'<line x1="{x}" y1="{top}" x2="{x + 28}" y2="{top}" stroke="{colour}" stroke-width="3"/>'
                   f'<text x="{x + 34}" y="{top + 4}" font-size="12">{escape(label)}</text>')
        x += 48 + 7 * len(label)
    key = "double line = between nodes, dashed = transport not printed, dashed on red = broken ring channel"
    out.append(f'<text x="{x + 10}" y="{top + 4}" font-size="11" fill="#6b7680">{key}</text></g>')
    return out, 20, x + 10 + int(6.2 * len(key))
