"""Benchmark tail-bounded reading: N ranks of large NCCL COLL logs that end in a shape-mismatch hang.

Each rank's log (NCCL 2.21 line shapes, formats/nccl.md) holds the init lines, then COLL lines up to SIZE MB;
at the last all-reduce one rank passes another count and every rank stops there. `ncclf diagnose` reads each
file's head and last 2 MB (the default `--window`); `--full` reads everything. Both must give the same verdict
and cite the same lines; the figures are wall time and peak memory (ru_maxrss of the diagnosing process
tree, measured in a fresh parent).

    python benchmarks/bench_tail.py                     # 16 ranks x 1 GB (16 GB of temp files)
    python benchmarks/bench_tail.py --ranks 16 --mb 100 --keep /tmp/tail16
    python benchmarks/bench_tail.py --ranks 1 --mb 2000 --repeated-info     # one 2 GB log of INFO lines
    python benchmarks/bench_tail.py --ranks 16 --mb 100 --healthy   # a healthy end: the all-clear scans the middles

Goals (issue 18): 16 x 1 GB in < 1.5 s and < 300 MB; a single 2 GB log in < 5 s and < 500 MB.
"""
from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_diagnose import measure  # noqa: E402

COMM_ID = "0x7a11c0ffee5eed01"


def write_rank(path: Path, rank: int, ranks: int, mb: float, odd_rank: int | None, repeated_info: bool) -> None:
    host, dev, pid = f"node{rank // 8:03d}", rank % 8, 30000 + rank
    head = f"{host}:{pid}:{pid} [{dev}] NCCL INFO "
    comm = f"0x{0x55d0c0000000 + rank * 0x1000:x}"
    init = [f"{head}NCCL version 2.21.5+cuda12.4",
            f"{head}ncclCommInitRank comm {comm} rank {rank} nranks {ranks} cudaDev {dev} nvmlDev {dev} "
            f"busId {dev + 1:x}8000 commId {COMM_ID} - Init COMPLETE"]
    line = (f"{head}AllReduce: opCount {{op:x}} sendbuff 0x7f3a00000000 recvbuff 0x7f3b00000000 count {{count}} "
            f"datatype 7 op 0 root 0 comm {comm} [nranks={ranks}] stream 0x55d0d1000000\n")
    filler = f"{head}Channel 00/0 : {rank} -> {(rank + 1) % ranks} via P2P/IPC\n" if repeated_info else None
    target = int(mb * 1e6)
    with open(path, "w") as fh:
        fh.write("\n".join(init) + "\n")
        op, written, block = 0, 0, 20000
        while written < target:
            if filler:
                text = filler * block
            else:
                text = "".join(line.format(op=op + i, count=4194304) for i in range(block))
                op += block
            fh.write(text)
            written += len(text)
        if not filler:                             # the last collective: one rank's count differs, all stop here
            fh.write(line.format(op=op, count=4194305 if rank == odd_rank else 4194304))
        if odd_rank is None:                       # healthy: every rank destroys its communicator
            fh.write(f"{head}comm {comm} rank {rank} nranks {ranks} cudaDev {dev} busId {dev + 1:x}8000 - "
                     "Destroy COMPLETE\n")


def make(folder: Path, ranks: int, mb: float, repeated_info: bool, healthy: bool = False) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for rank in range(ranks):
        path = folder / f"nccl.rank{rank}.log"
        if not path.exists():
            write_rank(path, rank, ranks, mb, None if healthy else ranks // 3, repeated_info)


def run(folder: Path, *extra: str) -> dict:
    out = measure([sys.executable, "-m", "nccl_forensics", "diagnose", str(folder), "--format", "json", "-q",
                   *extra], timeout=3600)
    doc = json.loads(out["stdout"]) if out["stdout"].strip().startswith("{") else {}
    verdict = doc.get("verdict", {})
    cites = sorted((e["file"], e["line"]) for f in doc.get("findings", []) for e in f["evidence"])
    return {**out, "verdict": (verdict.get("class"), verdict.get("culprit_ranks")), "cites": cites}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ranks", type=int, default=16)
    ap.add_argument("--mb", type=float, default=1000.0, help="size of each rank's log")
    ap.add_argument("--repeated-info", action="store_true", help="INFO lines only (no hang): the 2 GB case")
    ap.add_argument("--healthy", action="store_true", help="no hang, every rank ends well: the all-clear's scan "
                    "of each file's unread middle (pipeline/unread.py) is in the head + tail figure")
    ap.add_argument("--keep", metavar="DIR", help="write the logs here and keep them (reused if present)")
    ap.add_argument("--no-full", action="store_true", help="skip the --full comparison run")
    args = ap.parse_args(argv)
    folder = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="ncclf-tail-"))
    try:
        make(folder, args.ranks, args.mb, args.repeated_info, args.healthy)
        total = sum(p.stat().st_size for p in folder.glob("*.log")) / 1e6
        print(f"{args.ranks} ranks x {args.mb:g} MB ({total:,.0f} MB in all) in {folder}")
        rows = [("ncclf diagnose (head + tail)", run(folder))]
        if not args.no_full:
            rows.append(("ncclf diagnose --full", run(folder, "--full")))
        for label, r in rows:
            print(f"{label:32} wall {r['wall_s']:7.2f} s  {total / r['wall_s']:8.0f} MB/s  peak {r['peak_rss_mb']:6.0f} MB"
                  f"  verdict {r['verdict'][0]} {r['verdict'][1]}")
        if len(rows) == 2:
            same = rows[0][1]["verdict"] == rows[1][1]["verdict"] and rows[0][1]["cites"] == rows[1][1]["cites"]
            print(f"same verdict and the same cited lines as --full: {'yes' if same else 'NO'}")
    finally:
        if not args.keep:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
