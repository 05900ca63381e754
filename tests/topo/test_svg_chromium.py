"""Render the topology SVG in headless Chromium (Debian's `chromium`), screenshot it, check it is not blank."""
from __future__ import annotations

import shutil
import struct
import subprocess
import zlib
from pathlib import Path

import pytest

from nccl_forensics.outputs.topo_render import render
from nccl_forensics.topo import build_topology, check_topology

from .factories import all_events, job_logs, reprint_ring

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install chromium)")


def read_png(path: Path) -> tuple[int, int, list[tuple[int, int, int]]]:
    """(width, height, RGB pixels) of an 8-bit RGB/RGBA PNG, decoded with zlib + struct."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, header = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunk = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", chunk)
        elif kind == b"IDAT":
            idat += chunk
        pos += 12 + length
    width, height, depth, colour = header[:4]
    assert depth == 8 and colour in (2, 6), f"unsupported PNG (depth {depth}, colour type {colour})"
    bpp = 3 if colour == 2 else 4
    raw, stride, prev, pixels = zlib.decompress(idat), width * bpp, bytearray(width * bpp), []
    for y in range(height):
        start = y * (stride + 1)
        row = _unfilter(raw[start], bytearray(raw[start + 1:start + 1 + stride]), prev, bpp)
        pixels += [tuple(row[x:x + 3]) for x in range(0, stride, bpp)]
        prev = row
    return width, height, pixels


def _unfilter(kind: int, row: bytearray, prev: bytearray, bpp: int) -> bytearray:
    for i in range(len(row)):
        left = row[i - bpp] if i >= bpp else 0
        up, corner = prev[i], prev[i - bpp] if i >= bpp else 0
        if kind == 1:
            row[i] = (row[i] + left) & 0xFF
        elif kind == 2:
            row[i] = (row[i] + up) & 0xFF
        elif kind == 3:
            row[i] = (row[i] + (left + up) // 2) & 0xFF
        elif kind == 4:
            p = left + up - corner
            pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
            row[i] = (row[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else corner)) & 0xFF
    return row


def screenshot(svg_path: Path, png_path: Path, profile: Path) -> None:
    cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync",
           f"--user-data-dir={profile}", f"--screenshot={png_path}", "--window-size=1200,900",
           svg_path.as_uri()]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    try:
        _, err = proc.communicate(timeout=90)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        pytest.fail("chromium did not finish in 90 s")
    assert png_path.is_file(), err.decode(errors="replace")[-2000:]


def test_svg_screenshot_is_not_blank(tmp_path):
    comms = build_topology(all_events(job_logs(no_gdr_ranks=(3,))))
    svg = tmp_path / "topo.svg"
    svg.write_text(render("svg", comms, check_topology(comms), highlight=3, all_channels=True), encoding="utf-8")
    png = tmp_path / "topo.png"
    screenshot(svg, png, tmp_path / "profile")
    width, height, pixels = read_png(png)
    assert (width, height) == (1200, 900)
    ink = [p for p in pixels if p != (255, 255, 255)]
    assert len(ink) > 0.02 * len(pixels), "screenshot is (almost) blank"
    reds = sum(1 for r, g, b in ink if r > 200 and g < 60 and b < 60)
    greens = sum(1 for r, g, b in ink if g > r + 40 and g > b + 20)        # P2P hops
    assert reds > 200 and greens > 200, (reds, greens)


def test_svg_screenshot_of_a_broken_ring_shows_the_channel_marked(tmp_path):
    """The PNG stays in the test's own tmp_path (pytest keeps the last runs), never in the repository."""
    healthy = job_logs()
    broken = job_logs()
    reprint_ring(broken, 1, [0, 1, 2, 3, 4, 5, 3, 7])
    halo = {}
    for name, logs in (("healthy", healthy), ("broken", broken)):
        comms = build_topology(all_events(logs))
        svg = tmp_path / f"{name}.svg"
        svg.write_text(render("svg", comms, check_topology(comms)), encoding="utf-8")
        png = tmp_path / f"{name}.png"
        screenshot(svg, png, tmp_path / f"profile-{name}")
        _, _, pixels = read_png(png)
        halo[name] = sum(1 for r, g, b in pixels if r > 230 and 120 < g < 210 and 120 < b < 210)   # red at 35%
        halo[name + " text"] = sum(1 for r, g, b in pixels if r > 200 and g < 60 and b < 60)
    assert halo["broken"] > 2000 and halo["healthy"] < 200, halo
    assert halo["broken text"] > halo["healthy text"] + 100, halo       # "channel 1 BROKEN (…)" in red


def test_svg_labels_are_never_under_a_hop_on_the_16_rank_sample(tmp_path):
    """Screenshot the 16-rank, 2-node sample with its hops and without them: the pixels of every label (rank,
    GPU and host) are the same in both, so no arrow, arc or bus is drawn over one."""
    import re
    import xml.etree.ElementTree as ET

    from nccl_forensics.outputs.topo_svg import LABEL_X
    from nccl_forensics.topo import topology_from_paths
    root_dir = Path(__file__).resolve().parents[2]
    comms = topology_from_paths([str(root_dir / "sample_logs" / "nccl" / "ib-16rank-2node-2.21")])
    svg = render("svg", comms, check_topology(comms), all_channels=True)
    bare = svg.replace("</defs>", "</defs><style>path { display: none }</style>", 1)
    doc = ET.fromstring(svg)
    width, height = int(doc.get("width")), int(doc.get("height"))
    shots = []
    for name, text in (("hops", svg), ("bare", bare)):
        path = tmp_path / f"{name}.svg"
        path.write_text(text, encoding="utf-8")
        png = tmp_path / f"{name}.png"
        _screenshot_sized(path, png, tmp_path / f"profile-{name}", width, height)
        shots.append(read_png(png))
    (w, _, with_hops), (_, _, without) = shots
    ns = "{http://www.w3.org/2000/svg}"
    boxes = []
    for c in doc.iter(f"{ns}circle"):
        x, y = float(c.get("cx")), float(c.get("cy"))
        boxes.append((x - 14, y - 12, x + 14, y + 15))
    for rect in (g.find(f"{ns}rect") for g in doc.iter(f"{ns}g") if g.get("class") == "host"):
        x, y, h = float(rect.get("x")), float(rect.get("y")), float(rect.get("height"))
        boxes.append((x + LABEL_X - 9, y + 10, x + LABEL_X + 4, y + h - 10))
    assert len(boxes) == 16 + 2
    differ = [(x0, y0) for x0, y0, x1, y1 in boxes for yy in range(int(y0), int(y1)) for xx in range(int(x0), int(x1))
              if with_hops[yy * w + xx] != without[yy * w + xx]]
    assert not differ, f"{len(differ)} label pixels change when the hops are drawn, e.g. {differ[:3]}"
    assert re.search(r"GPU\d", svg)


def _screenshot_sized(svg_path: Path, png_path: Path, profile: Path, width: int, height: int) -> None:
    cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync",
           "--hide-scrollbars", "--force-device-scale-factor=1", f"--user-data-dir={profile}",
           f"--screenshot={png_path}", f"--window-size={width},{height}", svg_path.as_uri()]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    try:
        _, err = proc.communicate(timeout=90)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        pytest.fail("chromium did not finish in 90 s")
    assert png_path.is_file(), err.decode(errors="replace")[-2000:]
