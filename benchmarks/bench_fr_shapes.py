"""`ncclf diagnose` on flight-recorder dump sets of the shapes real jobs write, next to the floor: one process doing
nothing but `pickle.load` of every dump (bench_diagnose.py's FLOOR).

  megatron      256 ranks, TP 8 x PP 4 x DP 8 (129 groups), pipeline send/recv and P2P batches, 2,000 entries
                (fr_synth_pp.py), one stage that never posts its recv
  short         16,384 ranks x 500 entries (fr_synth.py), one rank with a different dtype
  long          1,024 ranks x 2,000 entries (fr_synth.py), one rank with a different dtype
  megatron1024  1,024 ranks, TP 8 x PP 4 x DP 32 (417 interleaved groups), 2,000 entries, no frames
                (fr_synth.make_megatron_dumps), rank 682 stuck

    python benchmarks/bench_fr_shapes.py megatron --repeat 3           # dumps under benchmarks/_data, kept
    python benchmarks/bench_fr_shapes.py short long --repeat 3 --clean # ... removed afterwards
    python benchmarks/bench_fr_shapes.py megatron1024 long --lines     # and the text verdict's line count

Runs alternate (ncclf, floor, ncclf, ...), each pair printed as it finishes; each row reports its best; the ratios
are ncclf's over the floor's, of wall time and of CPU time (user + sys of the process and its workers: on a shared
machine the fairer one), of the best runs and the range over the pairs. ncclf runs one worker per core (-j 0), so its
wall time has the cores' parallelism in it, and its CPU time what running in parallel costs (its workers took 20-30%
more CPU for the same dumps than one process, on the 2-core test machine); `-j 1` compares one core with one core.
The floor runs with Python's defaults: the cyclic GC on, 15-40% of its time on these dumps (measured); ncclf pauses
the GC over its bulk work.
Acceptance (issue 31): megatron <= 1.0x, short <= 1.0x, long <= 0.5x; issue 26: megatron1024's text verdict
<= 40 lines, its time within 2x of long's (one group, the same ranks and entries).
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import fr_synth  # noqa: E402
import fr_synth_pp  # noqa: E402
from bench_diagnose import FLOOR, best_run, measure, ncclf_cmd, report, verdict_of  # noqa: E402

SHAPES = {   # name -> (ranks, entries, writer)
    "megatron": (256, 2000, lambda d: fr_synth_pp.make_dumps(d, entries=2000)),
    "short": (16384, 500, lambda d: fr_synth.make_dumps(d, 16384, 500, 10922, mode="dtype")),
    "long": (1024, 2000, lambda d: fr_synth.make_dumps(d, 1024, 2000, 682, mode="dtype")),
    "megatron1024": (1024, 2000, lambda d: fr_synth.make_megatron_dumps(d, 8, 4, 32, 2000, stuck_rank=682)),
}


def text_lines(out: Path, jobs: int, timeout: int) -> int:
    """Lines of the text verdict (what a terminal shows, at 160 columns)."""
    cmd = ncclf_cmd([out], jobs)
    cmd[cmd.index("json")] = "text"
    env = {**os.environ, "COLUMNS": "160"}
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    return len(done.stdout.splitlines())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("shapes", nargs="+", choices=sorted(SHAPES))
    ap.add_argument("--data", default=str(HERE / "_data"), help="where the dump sets are written (and reused)")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("-j", "--jobs", type=int, default=0)
    ap.add_argument("--timeout", type=int, default=1800)
    ap.add_argument("--clean", action="store_true", help="remove the dump sets afterwards")
    ap.add_argument("--lines", action="store_true", help="also count the lines of the text verdict (one more run)")
    args = ap.parse_args()
    sys.stdout.reconfigure(line_buffering=True)    # each shape's lines as they come, also into a file or a pipe
    for shape in args.shapes:
        ranks, entries, write = SHAPES[shape]
        out = Path(args.data) / f"fr_{shape}"
        try:
            if not (out.is_dir() and len(list(out.iterdir())) == ranks):
                t = time.monotonic()
                shutil.rmtree(out, ignore_errors=True)
                write(out)
                print(f"generated {out} in {time.monotonic() - t:.1f} s")
            size = sum(p.stat().st_size for p in out.iterdir()) / 1e6
            runs: dict[str, list[dict]] = {}
            pairs: list[tuple[float, float]] = []          # (wall ratio, CPU ratio) of each ncclf-floor pair
            for i in range(args.repeat):
                ours = measure(ncclf_cmd([out], args.jobs), args.timeout)
                runs.setdefault(f"ncclf diagnose ({shape})", []).append({**ours, "what": verdict_of(ours)})
                floor = measure([sys.executable, "-c", FLOOR, str(out)], args.timeout)
                runs.setdefault("pickle.load of every dump, 1 process", []).append({**floor, "what": "the floor"})
                if ours["cpu_s"] is not None and floor["cpu_s"] is not None:
                    pairs.append((ours["wall_s"] / floor["wall_s"], ours["cpu_s"] / floor["cpu_s"]))
                    print(f"{shape} run {i + 1}: ncclf {ours['wall_s']:.2f} s wall, {ours['cpu_s']:.2f} s CPU "
                          f"({verdict_of(ours)}); floor {floor['wall_s']:.2f} s wall, {floor['cpu_s']:.2f} s CPU: "
                          f"{pairs[-1][0]:.2f}x wall, {pairs[-1][1]:.2f}x CPU")
            rows = [(name, best_run(results)) for name, results in runs.items()]
            report(rows, ranks, entries)
            ours, floor = rows[0][1], rows[1][1]
            cpu = min(r["cpu_s"] for r in runs[rows[0][0]]) / min(r["cpu_s"] for r in runs[rows[1][0]])
            spread = (f"; per run {min(w for w, _ in pairs):.2f}-{max(w for w, _ in pairs):.2f}x wall, "
                      f"{min(c for _, c in pairs):.2f}-{max(c for _, c in pairs):.2f}x CPU" if len(pairs) > 1 else "")
            print(f"{shape}: {size:.0f} MB, ncclf {ours['wall_s']:.2f} s wall ({size / ours['wall_s']:.0f} MB/s), "
                  f"floor {floor['wall_s']:.2f} s: {ours['wall_s'] / floor['wall_s']:.2f}x the floor's wall, "
                  f"{cpu:.2f}x its CPU (best CPU of each){spread}, peak {ours['peak_rss_mb']:.0f} MB")
            if args.lines:
                print(f"{shape}: text verdict {text_lines(out, args.jobs, args.timeout)} lines")
        finally:
            if args.clean:
                shutil.rmtree(out, ignore_errors=True)


if __name__ == "__main__":
    main()
