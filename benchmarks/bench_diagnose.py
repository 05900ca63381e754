"""Benchmark `ncclf diagnose` against `torchfrtrace` on a synthetic N-rank hang (default 1,024 ranks).

The bundle: flight-recorder dumps with 2,000 entries per rank (benchmarks/fr_synth.py) plus one NCCL debug
log per rank with the init lines and 2,000 COLL lines (formats/nccl.md §3.8 and §5), one rank diverging
(a different dtype in its last collective, in both sources). Each tool runs in its own subprocess; wall time
comes from a monotonic clock and peak memory from the child's rusage (ru_maxrss, which covers the worker
processes it waited for).

    python benchmarks/bench_diagnose.py                    # 1,024 ranks (several GB of temp files)
    python benchmarks/bench_diagnose.py --ranks 64 --keep out/
    python benchmarks/bench_diagnose.py --ranks 256 --no-torchfrtrace
    python benchmarks/bench_diagnose.py --keep out/ --repeat 3     # each tool 3 times, interleaved; best counts
    python benchmarks/bench_diagnose.py --megatron 8x4x32          # 1,024 ranks, TP 8 x PP 4 x DP 32 groups

Targets: ncclf ≥ 5× faster than torchfrtrace on the same FR dumps; the whole bundle in < 60 s. CPU seconds are
printed next to wall seconds: on a shared machine they are the fairer comparison.
"""
from __future__ import annotations

import argparse
import compileall
import functools
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fr_synth import make_dumps, make_megatron_dumps  # noqa: E402

GPUS_PER_NODE = 8
COMM_ID = "0x5e1f0c0ffee1ab1e"
NCCL_DTYPE = {"float32": 7, "bfloat16": 9, "float16": 6}
OPS = ("AllReduce", "AllGather", "ReduceScatter", "Broadcast")


def nccl_log(path: Path, rank: int, ranks: int, entries: int, diverge: bool) -> None:
    """One rank's NCCL_DEBUG=INFO, NCCL_DEBUG_SUBSYS=INIT,COLL log (NCCL 2.21 line shapes)."""
    host, dev = f"node{rank // GPUS_PER_NODE:04d}", rank % GPUS_PER_NODE
    pid = 20000 + rank
    comm = f"0x{0x55d0c0000000 + rank * 0x1000:x}"
    head = f"{host}:{pid}:{pid} [{dev}] NCCL INFO "
    lines = [f"{head}NCCL version 2.21.5+cuda12.4",
             f"{head}ncclCommInitRank comm {comm} rank {rank} nranks {ranks} cudaDev {dev} nvmlDev {dev} "
             f"busId {dev + 1:x}8000 commId {COMM_ID} - Init START",
             f"{head}ncclCommInitRank comm {comm} rank {rank} nranks {ranks} cudaDev {dev} nvmlDev {dev} "
             f"busId {dev + 1:x}8000 commId {COMM_ID} - Init COMPLETE"]
    for op_count in range(entries):
        op = OPS[0] if op_count % 5 else OPS[(op_count // 5) % len(OPS)]
        dtype = "bfloat16" if op_count % 2 else "float32"
        if diverge and op_count == entries - 1:
            dtype = "float16"
        lines.append(f"{head}{op}: opCount {op_count:x} sendbuff 0x7f3a{op_count % 4096:04x}000 recvbuff "
                     f"0x7f3b{op_count % 4096:04x}000 count {4194304 + 1024 * (op_count % 7)} datatype "
                     f"{NCCL_DTYPE[dtype]} op 0 root 0 comm {comm} [nranks={ranks}] stream 0x55d0d1000000")
    path.write_text("\n".join(lines) + "\n")


def make_bundle(root: Path, ranks: int, entries: int, diverge_rank: int) -> tuple[Path, Path]:
    fr_dir, nccl_dir = root / "flight_recorder", root / "nccl"
    nccl_dir.mkdir(parents=True, exist_ok=True)
    make_dumps(fr_dir, ranks=ranks, entries=entries, diverge_rank=diverge_rank, mode="dtype")
    for rank in range(ranks):
        host = f"node{rank // GPUS_PER_NODE:04d}"
        nccl_log(nccl_dir / f"nccl.rank{rank}.{host}.{20000 + rank}.log", rank, ranks, entries, rank == diverge_rank)
    return fr_dir, nccl_dir


MEASURE = r"""
import json, resource, subprocess, sys, time
t = time.monotonic()
p = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
wall = time.monotonic() - t
use = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"rc": p.returncode, "wall_s": wall, "cpu_s": use.ru_utime + use.ru_stime,
                  "peak_rss_mb": use.ru_maxrss / 1024, "stdout": p.stdout.decode(errors="replace")[-50_000_000:],
                  "stdout_head": p.stdout[:1_000_000].decode(errors="replace"),
                  "stderr": p.stderr.decode(errors="replace")[-2000:]}))
"""


# The single-process floor of any tool that unpickles every dump (what torchfrtrace and ncclf both start from).
FLOOR = "import pickle, sys, pathlib\nfor p in sorted(pathlib.Path(sys.argv[1]).iterdir()):\n    pickle.loads(p.read_bytes())\n"


def measure(cmd: list[str], timeout: int = 3600) -> dict:
    """Run `cmd` in a fresh measuring parent so ru_maxrss is this command's alone (its stdout: the last 50 MB)."""
    _bytecode_once()
    try:
        out = subprocess.run([sys.executable, "-c", MEASURE, *cmd], capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"rc": None, "wall_s": float(timeout), "cpu_s": None, "peak_rss_mb": None, "stdout": "",
                "stderr": "timed out"}
    return json.loads(out.stdout)


@functools.lru_cache(maxsize=1)
def _bytecode_once() -> None:
    """Compile ncclf's modules to bytecode before the first measure, as `pip install` does: an editable install run
    with PYTHONDONTWRITEBYTECODE=1 would otherwise compile all of them again in every measured run (0.1-0.4 s)."""
    compileall.compile_dir(str(Path(__file__).resolve().parents[1] / "nccl_forensics"), quiet=1)


def ncclf_cmd(paths: list[Path], jobs: int) -> list[str]:
    return [sys.executable, "-m", "nccl_forensics", "diagnose", *map(str, paths), "--format", "json", "-j", str(jobs)]


def torchfrtrace_cmd(fr_dir: Path) -> list[str]:
    return [sys.executable, "-m", "torch.distributed.flight_recorder.fr_trace", str(fr_dir), "-p", "nccl_trace_rank_"]


def verdict_of(result: dict) -> str:
    """The verdict of a `--format json` run; from the head of its output when the whole is too long to keep (the
    verdict comes second, after schema_version: 100,000 ranks write ~70 MB)."""
    try:
        v = json.loads(result["stdout"])["verdict"]
        return f"{v['class']} {v['culprit_ranks']}"
    except (ValueError, KeyError, TypeError):
        pass
    head = result.get("stdout_head") or ""
    at = head.find('"verdict": ')
    try:
        v = json.JSONDecoder().raw_decode(head, at + len('"verdict": '))[0] if at >= 0 else None
        return f"{v['class']} {v['culprit_ranks']}"
    except (ValueError, KeyError, TypeError):
        return "?"


def best_run(results: list[dict]) -> dict:
    """The fastest run (the one least slowed by other tenants of a shared machine), noting the others."""
    best = min(results, key=lambda r: r["wall_s"])
    if len(results) > 1:
        walls = ", ".join(f"{r['wall_s']:.1f}" for r in results)
        best = {**best, "what": f"{best['what']}  (best of {walls} s)"}
    return best


def report(rows: list[tuple[str, dict]], ranks: int, entries: int) -> None:
    print(f"\n{ranks} ranks x {entries} entries per rank")
    print(f"{'run':<40} {'wall s':>8} {'cpu s':>8} {'peak MB':>9} {'rc':>4}  result")
    for name, r in rows:
        rss = f"{r['peak_rss_mb']:.0f}" if r.get("peak_rss_mb") else "-"
        cpu = f"{r['cpu_s']:.1f}" if r.get("cpu_s") is not None else "-"
        print(f"{name:<40} {r['wall_s']:>8.1f} {cpu:>8} {rss:>9} {str(r['rc']):>4}  {r.get('what', '')}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ranks", type=int, default=1024)
    ap.add_argument("--entries", type=int, default=2000)
    ap.add_argument("--diverge-rank", type=int, default=None, help="default: ranks * 2 // 3")
    ap.add_argument("-j", "--jobs", type=int, default=0, help="ncclf worker processes (0 = one per core)")
    ap.add_argument("--keep", metavar="DIR", help="write the bundle here and keep it (reused if it exists)")
    ap.add_argument("--no-torchfrtrace", action="store_true")
    ap.add_argument("--timeout", type=int, default=1800)
    ap.add_argument("--repeat", type=int, default=1, help="runs of each tool, interleaved; the best counts")
    ap.add_argument("--megatron", metavar="TPxPPxDP", help="flight-recorder dumps of a Megatron layout instead (e.g. "
                    "8x4x32: 1,024 ranks in 417 interleaved groups, one stuck rank; fr_synth.make_megatron_dumps)")
    args = ap.parse_args()
    if args.megatron:
        tp, pp, dp = (int(x) for x in args.megatron.lower().split("x"))
        args.ranks = tp * pp * dp
    diverge = args.diverge_rank if args.diverge_rank is not None else args.ranks * 2 // 3
    root = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="ncclf-bench-"))
    try:
        t = time.monotonic()
        if args.keep and (root / "nccl").is_dir() and len(list((root / "nccl").iterdir())) == args.ranks:
            fr_dir, nccl_dir = root / "flight_recorder", root / "nccl"
            print(f"reusing {root}")
        elif args.megatron:
            fr_dir, nccl_dir = root / "flight_recorder", None
            make_megatron_dumps(fr_dir, tp, pp, dp, args.entries, diverge)
            print(f"generated a {args.megatron} Megatron layout in {root} in {time.monotonic() - t:.1f} s "
                  f"(stuck rank {diverge})")
        else:
            fr_dir, nccl_dir = make_bundle(root, args.ranks, args.entries, diverge)
            print(f"generated {root} in {time.monotonic() - t:.1f} s (diverging rank {diverge})")
        runs: dict[str, list[dict]] = {}
        for _ in range(args.repeat):         # interleaved, so that a slow spell of the machine hits every tool
            fr = measure(ncclf_cmd([fr_dir], args.jobs), args.timeout)
            runs.setdefault("ncclf diagnose (FR dumps)", []).append({**fr, "what": verdict_of(fr)})
            if not args.no_torchfrtrace:
                ft = measure(torchfrtrace_cmd(fr_dir), args.timeout)
                found = "culprit found" if f"Culprit rank {diverge}" in ft["stdout"] + ft["stderr"] else ""
                runs.setdefault("torchfrtrace (same FR dumps)", []).append(
                    {**ft, "what": found or ft["stderr"].strip()[-80:]})
            floor = measure([sys.executable, "-c", FLOOR, str(fr_dir)], args.timeout)
            runs.setdefault("pickle.load of every dump, 1 process", []).append({**floor, "what": "the floor"})
            if nccl_dir is not None:
                whole = measure(ncclf_cmd([fr_dir, nccl_dir], args.jobs), args.timeout)
                runs.setdefault("ncclf diagnose (FR dumps + NCCL logs)", []).append({**whole, "what": verdict_of(whole)})
        rows = [(name, best_run(results)) for name, results in runs.items()]
        whole = rows[-1][1]
        report(rows, args.ranks, args.entries)
        if not args.no_torchfrtrace and rows[1][1]["rc"] == 0:
            ft, ours = rows[1][1], rows[0][1]
            print(f"speed-up on FR dumps: {ft['wall_s'] / ours['wall_s']:.1f}x wall, "
                  f"{ft['cpu_s'] / max(ours['cpu_s'], 1e-9):.1f}x CPU (target >= 5x)")
        if nccl_dir is not None:
            print(f"whole bundle: {whole['wall_s']:.1f} s (target < 60 s)")
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
