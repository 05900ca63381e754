"""The multi-node reduce: `ncclf diagnose` of many node summaries (`ncclf summarize` output), next to its floor,
one process that only opens every summary and reads every member's bytes (zipfile).

Each node's summary holds the digests of its ranks' flight-recorder dumps (fr_synth.py, 2,000 entries, the
default 256-entry window), one rank of the job with a different dtype in its last collective. Digests are made
once for a node of healthy ranks and once for the diverging rank's node, then written per node with that node's
ranks and file names (what `summarize` would write there, without digesting 100,000 dumps here).

    python benchmarks/bench_summaries.py                               # both shapes of issue 31
    python benchmarks/bench_summaries.py --shape 12500x8               # 100,000 ranks (~120 MB of summaries)
    python benchmarks/bench_summaries.py --shape 2048x8 --repeat 3 --keep

Summaries are written under --data (default: a folder in the system temp dir) and deleted afterwards unless
--keep. Wall, CPU (user+sys of the process tree: the figure to read on a shared machine), MB/s of summary
bytes and peak RSS are printed for ncclf and for the floor.

Acceptance (issue 31): 12,500 x 8 < 90 s and < 3 GB; 128 x 64 < 4 s and < 250 MB.
"""
from __future__ import annotations

import argparse
import copy
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))
import fr_synth  # noqa: E402
from bench_diagnose import best_run, measure, ncclf_cmd, report, verdict_of  # noqa: E402

from nccl_forensics.model import Source, SourceKind  # noqa: E402
from nccl_forensics.pipeline.map import (  # noqa: E402
    WINDOW_MB,
    digest_source,  # noqa: E402
    fr_tail_entries,
)
from nccl_forensics.pipeline.summary import write_summary  # noqa: E402
from nccl_forensics.sources.columns import narrow  # noqa: E402

FLOOR = ("import sys, pathlib, zipfile\n"
         "for p in sorted(pathlib.Path(sys.argv[1]).iterdir()):\n"
         "    with zipfile.ZipFile(p) as z:\n"
         "        [z.read(n) for n in z.namelist()]\n")


def node_digests(tmp: Path, world: int, ranks: list[int], diverge: int) -> list:
    paths = fr_synth.make_dumps(tmp, world, 2000, diverge, mode="dtype", only=ranks)
    out = []
    for path in paths:
        src = Source(str(path), SourceKind.FLIGHT_RECORDER, size=path.stat().st_size)
        src.tail_entries = fr_tail_entries(WINDOW_MB)
        out.append(digest_source(src))
        path.unlink()
    return out


def as_rank(d, rank: int, path: str):
    """A digest of one rank's dump as if rank `rank`'s dump at `path` had been digested."""
    d = copy.copy(d)
    d.result = copy.copy(d.result)
    d.result.source = copy.copy(d.result.source)
    d.result.source.path, d.result.source.rank = path, rank
    d.result.events = [copy.copy(ev) for ev in d.result.events]
    for ev in d.result.events:
        ev.file, ev.rank = path, rank
        ev.data = {**ev.data, "rank": rank} if "rank" in ev.data else ev.data
    n = len(d.rows["line"][1])
    d.rows = {**d.rows, "file": ("cat", [path], np.zeros(n, np.int8)), "rank": ("num", narrow(np.full(n, rank)))}
    return d


def write_nodes(out: Path, nodes: int, per_node: int, diverge: int) -> None:
    world = nodes * per_node
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="ncclf-sum-", dir=out.parent) as tmp:
        healthy = node_digests(Path(tmp) / "a", world, list(range(per_node)), diverge)
        bad_node = diverge // per_node
        diverging = node_digests(Path(tmp) / "b", world, list(range(bad_node * per_node, (bad_node + 1) * per_node)),
                                 diverge)
    for node in range(nodes):
        template = diverging if node == bad_node else healthy
        digests, sources = [], []
        for i, d in enumerate(template):
            rank = node * per_node + i
            path = f"/data/job/node{node:05d}/{fr_synth.PREFIX}{rank}"
            digests.append(as_rank(d, rank, path))
            sources.append(digests[-1].result.source)
        write_summary(str(out / f"node{node:05d}.ncclf"), sources, digests, [f"/data/job/node{node:05d}"])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shape", action="append", help="NODESxRANKS_PER_NODE (repeatable; default 128x64 and 12500x8)")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("-j", "--jobs", type=int, default=0)
    ap.add_argument("--data", default=str(Path(tempfile.gettempdir()) / "ncclf-bench-summaries"))
    ap.add_argument("--keep", action="store_true", help="keep the summaries (reused next time)")
    ap.add_argument("--timeout", type=int, default=1800)
    args = ap.parse_args()
    for shape in args.shape or ["128x64", "12500x8"]:
        nodes, per_node = map(int, shape.lower().split("x"))
        bench_shape(args, nodes, per_node)


def bench_shape(args, nodes: int, per_node: int) -> None:
    world = nodes * per_node
    diverge = world * 2 // 3
    out = Path(args.data) / f"summaries_{nodes}x{per_node}"
    try:
        if not (out.is_dir() and len(list(out.iterdir())) == nodes):
            shutil.rmtree(out, ignore_errors=True)
            t = time.monotonic()
            write_nodes(out, nodes, per_node, diverge)
            print(f"wrote {nodes} summaries to {out} in {time.monotonic() - t:.1f} s (diverging rank {diverge})")
        size = sum(p.stat().st_size for p in out.iterdir()) / 1e6
        runs: dict[str, list[dict]] = {}
        for _ in range(args.repeat):
            ours = measure(ncclf_cmd([out], args.jobs), args.timeout)
            runs.setdefault(f"ncclf diagnose ({nodes} summaries)", []).append({**ours, "what": verdict_of(ours)})
            floor = measure([sys.executable, "-c", FLOOR, str(out)], args.timeout)
            runs.setdefault("read every member, 1 process", []).append({**floor, "what": "the floor"})
        rows = [(name, best_run(results)) for name, results in runs.items()]
        report(rows, world, 2000)
        for name, r in rows:
            cpu = r.get("cpu_s") or 0.0
            print(f"  {name}: {size / r['wall_s']:.1f} MB/s wall, {size / cpu if cpu else 0:.1f} MB/s of CPU")
        ours = rows[0][1]
        print(f"{nodes} summaries x {per_node} ranks ({size:.0f} MB): {ours['wall_s']:.1f} s wall, "
              f"{ours['cpu_s'] or 0:.1f} s CPU, {ours['peak_rss_mb'] or 0:.0f} MB peak "
              f"({(ours['peak_rss_mb'] or 0) * 1024 / world:.1f} KB per rank)")
    finally:
        if not args.keep:
            shutil.rmtree(out, ignore_errors=True)


if __name__ == "__main__":
    main()
