"""Renderers: the JSON contract, terminal text, DOT, Mermaid and SVG (every rank shown, highlight marked)."""
from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET

import pytest

from nccl_forensics.outputs.topo_render import render
from nccl_forensics.topo import build_topology, check_topology

from .factories import all_events, job_logs, reprint_ring

SVG_NS = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def topo():
    comms = build_topology(all_events(job_logs(no_gdr_ranks=(3,))))
    return comms, check_topology(comms)


def test_json_contract(topo):
    doc = json.loads(render("json", *topo))
    assert doc["schema_version"] == 1
    [comm] = doc["communicators"]
    assert {"comm_id", "nranks", "nnodes", "ranks", "rings", "trees", "edges", "warnings"} <= set(comm)
    assert (comm["nranks"], comm["nnodes"]) == (8, 2)
    assert comm["ranks"][4] == {**comm["ranks"][4], "rank": 4, "host": "nodeB", "pid": 1004, "device": 0,
                                "bus_id": "1a000"}
    assert comm["rings"][0] == {**comm["rings"][0], "channel": 0, "order": list(range(8))}
    assert {"channel": 0, "rank": 3, "parent": 2, "children": [4]} in comm["trees"]
    edge = next(e for e in comm["edges"] if (e["channel"], e["from"], e["to"]) == (0, 7, 0))
    assert (edge["transport"], edge["detail"], edge["inter_node"]) == ("NET/IB", "GDRDMA", True)
    [warning] = comm["warnings"]
    assert warning["id"] == "G009" and warning["message"]
    assert all(set(e) >= {"file", "line"} for e in warning["evidence"])
    assert doc["warnings"] == comm["warnings"]


def test_json_is_deterministic(topo):
    assert render("json", *topo) == render("json", *topo)


def test_terminal_compact_all_and_channel(topo):
    compact = render("rich", *topo)
    assert "ch  0: 0 ─P2P→ 1 ─P2P→ 2 ─P2P→ 3 ═NET/IB⇒ 4" in compact
    assert "ch  1:" not in compact and "+1 more" in compact
    assert "ch  1:" in render("rich", *topo, all_channels=True)
    only1 = render("rich", *topo, channel=1)
    assert "ch  1:" in only1 and "ch  0:" not in only1
    assert "G009 gdr-disabled" in compact and "nodeA" in compact and "nodeB" in compact


def test_terminal_draws_the_same_ring_and_tree_once_for_all_their_channels():
    """Ten channels that lack rank 7 alike (G003 shows each broken one): one ring line `ch 0-9` and one tree
    `tree ch 0-9` in the compact view, each channel its own with --all; the warning names them as a run."""
    logs = job_logs(nchannels=10)
    for channel in range(10):
        reprint_ring(logs, channel, list(range(7)))
    comms = build_topology(all_events(logs))
    warnings = check_topology(comms)
    compact = render("rich", comms, warnings)
    assert compact.count("ch 0-9: BROKEN (G003) 0 ─") == 1 and "ch  1:" not in compact, compact
    assert "tree ch 0-9" in compact and "tree ch 1" not in compact
    assert "the ring of channels 0-9 lacks rank" in " ".join(w.message for w in warnings)
    every = render("rich", comms, warnings, all_channels=True)
    assert all(f"ch  {c}: BROKEN" in every for c in range(10)) and "tree ch 9" in every


def test_terminal_highlight_marks_rank_and_hops(topo):
    text = render("rich", *topo, highlight=4)
    assert "═NET/IB⇒✗ [4] ─P2P→✗ 5" in text


def test_terminal_tree_folds_chains(topo):
    text = render("rich", *topo)
    assert "0 (GPU0) → 1 (GPU1) → 2 (GPU2)" in text


def test_dot_has_every_rank_and_host_cluster(topo):
    dot = render("dot", *topo, all_channels=True)
    assert dot.startswith("digraph") and dot.rstrip().endswith("}")
    assert set(re.findall(r"c0_r(\d+) \[label", dot)) == {str(r) for r in range(8)}
    assert 'label="nodeA"' in dot and dot.count(" -> ") == 16
    assert dot.count("{") == dot.count("}")


def test_mermaid_links_and_styles(topo):
    text = render("mermaid", *topo, highlight=3)
    assert text.startswith("flowchart LR")
    assert "c0r3 ==>|\"ch0 NET/IB\"| c0r4" in text
    assert text.count("linkStyle") == 8 and "stroke:#ff0000" in text


def test_svg_is_well_formed_and_shows_every_rank(topo):
    svg = render("svg", *topo, highlight=3, all_channels=True)
    root = ET.fromstring(svg)
    ranks = {g.get("data-rank") for g in root.iter(f"{SVG_NS}g") if g.get("class") == "rank"}
    assert ranks == {str(r) for r in range(8)}
    texts = {t.text for t in root.iter(f"{SVG_NS}text")}
    labels = {t.text.split(" · ")[0] for t in root.iter(f"{SVG_NS}text") if t.get("class") == "host-label"}
    assert {str(r) for r in range(8)} <= texts and {"nodeA", "nodeB"} <= labels
    paths = [p for p in root.iter(f"{SVG_NS}path") if (p.get("class") or "").split(" ")[0] == "edge"]
    assert len(paths) == 16
    assert sum(1 for p in paths if "stuck" in p.get("class")) == 4       # 2 channels × (2→3, 3→4)
    assert "<script" not in svg and "href=\"http" not in svg


def test_svg_single_rank0_log_still_shows_every_rank():
    comms = build_topology(job_logs()["nccl.nodeA.1000.log"].events)
    root = ET.fromstring(render("svg", comms, []))
    ranks = {g.get("data-rank") for g in root.iter(f"{SVG_NS}g") if g.get("class") == "rank"}
    assert ranks == {str(r) for r in range(8)}
    assert any(t.text.startswith("unknown host") for t in root.iter(f"{SVG_NS}text"))


def broken_ring_topology():
    """Two nodes × 4 GPUs, 2 channels; rank 0 prints a channel-1 ring that repeats rank 3 (G001)."""
    logs = job_logs()
    reprint_ring(logs, 1, [0, 1, 2, 3, 4, 5, 3, 7])
    comms = build_topology(all_events(logs))
    return comms, check_topology(comms)


def test_a_broken_channel_is_drawn_and_marked_even_when_only_the_first_is_shown():
    comms, warnings = broken_ring_topology()
    assert any(w.id == "G001" and w.channels == [1] for w in warnings)
    root = ET.fromstring(render("svg", comms, warnings))
    edges = [p for p in root.iter(f"{SVG_NS}path") if (p.get("class") or "").split(" ")[0] == "edge"]
    assert {p.get("data-channel") for p in edges} == {"0", "1"}
    assert all("broken" in p.get("class") for p in edges if p.get("data-channel") == "1")
    assert not any("broken" in p.get("class") for p in edges if p.get("data-channel") == "0")
    note = next(t.text for t in root.iter(f"{SVG_NS}text") if t.get("class") == "broken-note")
    assert note == "channel 1 BROKEN (G001, G003)"      # rank 3 repeats, so rank 6 is missing too
    assert "BROKEN (G001, G003)" in render("rich", comms, warnings)
    dot = render("dot", comms, warnings)
    assert "layout=circo;" in dot and "BROKEN (G001, G003)" in dot and 'style="dashed"' in dot


def test_inter_node_hops_are_double_lines_and_none_crosses_a_host_label(topo):
    root = ET.fromstring(render("svg", *topo, all_channels=True))
    edges = [p for p in root.iter(f"{SVG_NS}path") if (p.get("class") or "").split(" ")[0] == "edge"]
    inter = [p for p in edges if "inter-node" in p.get("class")]
    assert inter and all(float(p.get("stroke-width")) >= 2 * min(float(q.get("stroke-width")) for q in edges)
                         for p in inter)
    assert len([p for p in root.iter(f"{SVG_NS}path") if p.get("class") == "bus-core"]) == len(inter)
    labels = [t for t in root.iter(f"{SVG_NS}text") if t.get("class") == "host-label"]
    for label in labels:                      # rotated -90°: a vertical band left of its baseline
        x, y, half = float(label.get("x")), float(label.get("y")), 3.8 * len(label.text)
        band = (x - 11, x + 3, y - half, y + half)
        for p in edges:
            assert not _crosses(_points(p.get("d")), band), f"{p.get('data-channel')} crosses {label.text}"


def _points(d: str) -> list[tuple[float, float]]:
    nums = [float(n) for n in re.findall(r"-?\d+(?:\.\d+)?", d)]
    return list(zip(nums[::2], nums[1::2], strict=False))


def _crosses(points, band) -> bool:
    x0, x1, y0, y1 = band
    for (ax, ay), (bx, by) in zip(points, points[1:], strict=False):
        for t in (i / 20 for i in range(21)):
            x, y = ax + (bx - ax) * t, ay + (by - ay) * t
            if x0 <= x <= x1 and y0 <= y <= y1:
                return True
    return False


def test_a_rank0_log_header_agrees_with_its_table():
    """One rank's log of an 8-rank job NCCL calls one node: the table shows that node with ranks 0-7, and says
    which ranks' logs were not read, not a second row of question marks."""
    from pathlib import Path

    from nccl_forensics.topo import topology_from_paths
    root = Path(__file__).resolve().parents[2]
    log = min((root / "sample_logs" / "nccl" / "nvlink-8rank-2.18").iterdir())
    comms = topology_from_paths([str(log)])
    text = render("rich", comms, check_topology(comms))
    assert "8 ranks · 1 node" in text
    assert "unknown host" not in text and "dgx-h100-017  0-7" in text and "ranks 1-7: no log read" in text


def test_gpu_labels_sit_inside_their_rank_circle_where_no_hop_is_drawn():
    from pathlib import Path

    from nccl_forensics.outputs.topo_svg import R
    from nccl_forensics.topo import topology_from_paths
    root = Path(__file__).resolve().parents[2]
    comms = topology_from_paths([str(root / "sample_logs" / "nccl" / "ib-16rank-2node-2.21")])
    svg = ET.fromstring(render("svg", comms, check_topology(comms), all_channels=True))
    ranks = [g for g in svg.iter(f"{SVG_NS}g") if g.get("class") == "rank"]
    assert len(ranks) == 16
    for g in ranks:
        circle = g.find(f"{SVG_NS}circle")
        cx, cy = float(circle.get("cx")), float(circle.get("cy"))
        for text in g.iter(f"{SVG_NS}text"):
            size = float(text.get("font-size"))
            half = 0.3 * size * len(text.text)            # about half the text's width
            top, bottom = float(text.get("y")) - 0.75 * size, float(text.get("y"))
            for y in (top, bottom):
                assert (half ** 2 + (y - cy) ** 2) ** 0.5 <= R, (g.get("data-rank"), text.text)
            assert abs(float(text.get("x")) - cx) < 1e-6
