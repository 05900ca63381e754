"""Peak memory of `ncclf parse` over a large torchrun console log (issue: parsing is streamed).

Generates a console log of about --size-mb MB (default 1024) the way `torchrun --tee 3` writes it: NCCL INFO
lines (init, rings, transports and mostly COLL lines, per nccl.md §1–5) behind `[defaultN]:` prefixes,
c10d `[rankN]:[I…] ProcessGroupNCCL.cpp:…]` lines, and a few `[rankN]:` tracebacks. Then it runs
`ncclf parse --format jsonl > /dev/null` and `ncclf parse --inventory` in child processes and prints wall
time, MB/s and peak RSS (ru_maxrss of the child).

    python benchmarks/bench_memory.py --size-mb 1024
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

DATA = Path(__file__).resolve().parent / "_data"
OPS = [("AllReduce", 7, 0), ("AllGather", 9, 0), ("ReduceScatter", 9, 0), ("Broadcast", 7, 0)]


def _header(rank: int, nranks: int, pid: int) -> list[str]:
    p = f"[default{rank}]:node1:{pid}:{pid} [{rank}] NCCL INFO "
    bus = f"{0x18 + rank * 0x11:x}000"
    return [
        f"[default{rank}]:NCCL version 2.21.5+cuda12.4" if rank == 0 else "",
        p + "Bootstrap : Using eth0:10.0.0.1<0>",
        p + f"comm 0x55d4c8e0{rank:04x} rank {rank} nranks {nranks} cudaDev {rank} nvmlDev {rank} busId {bus} "
            "commId 0x9e1f0b6c5a3d2e11 - Init START",
        p + f"comm 0x55d4c8e0{rank:04x} rank {rank} nranks {nranks} cudaDev {rank} nvmlDev {rank} busId {bus} "
            "commId 0x9e1f0b6c5a3d2e11 - Init COMPLETE",
    ]


def generate(path: Path, size_mb: int, nranks: int = 4) -> None:
    target = size_mb * 1024 * 1024
    pids = [41000 + r for r in range(nranks)]
    with open(path, "w") as out:
        for r in range(nranks):
            out.write("\n".join(line for line in _header(r, nranks, pids[r]) if line) + "\n")
        written, opcount = 0, 0
        while written < target:
            chunk = []
            for _ in range(2000):
                name, dtype, root = OPS[opcount % len(OPS)]
                for r in range(nranks):
                    chunk.append(
                        f"[default{r}]:node1:{pids[r]}:{pids[r]} [{r}] NCCL INFO {name}: opCount {opcount:x} "
                        f"sendbuff 0x7f5a3c000000 recvbuff 0x7f5a3c000000 count {1048576 + opcount % 7} "
                        f"datatype {dtype} op 0 root {root} comm 0x55d4c8e0{r:04x} [nranks={nranks}] "
                        f"stream 0x55d4c9a1{r:04x}")
                opcount += 1
                if opcount % 5000 == 0:
                    chunk.append(f"[default0]:[rank0]:[I1121 13:40:0{opcount % 10}.123456789 "
                                 "ProcessGroupNCCL.cpp:2035] [PG ID 0 PG GUID 0(default_pg) Rank 0] "
                                 "ProcessGroupNCCL created ncclComm_ 0x55d4c8e00000 on CUDA device: 0")
            text = "\n".join(chunk) + "\n"
            out.write(text)
            written += len(text)
        out.write('[default1]:[rank1]: Traceback (most recent call last):\n'
                  '[default1]:[rank1]:   File "/job/train.py", line 88, in <module>\n'
                  '[default1]:[rank1]:     main()\n'
                  '[default1]:[rank1]: RuntimeError: boom\n')


_MEASURE = ("import resource, subprocess, sys, os; "
            "subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, check=True); "
            "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")


def run(cmd: list[str]) -> tuple[float, float]:
    """Wall time and the peak RSS (MB) of the largest process `cmd` started (workers included)."""
    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", _MEASURE, *cmd], capture_output=True, text=True, check=True)
    return time.perf_counter() - start, int(out.stdout.strip()) / 1024


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size-mb", type=int, default=1024)
    ap.add_argument("--jobs", type=int, default=1)
    args = ap.parse_args()
    DATA.mkdir(exist_ok=True)
    path = DATA / f"console_{args.size_mb}mb.log"
    if not path.exists() or path.stat().st_size < args.size_mb * 1024 * 1024:
        t = time.perf_counter()
        generate(path, args.size_mb)
        print(f"generated {path} ({path.stat().st_size / 2**20:.0f} MB) in {time.perf_counter() - t:.1f} s")
    size = path.stat().st_size / 2**20
    ncclf = [sys.executable, "-m", "nccl_forensics", "parse", "-j", str(args.jobs)]
    for label, extra in (("parse --format jsonl", ["--format", "jsonl"]), ("parse --inventory", ["--inventory"])):
        wall, peak = run(ncclf + extra + [str(path)])
        print(f"{label:22s} {size:7.0f} MB  wall {wall:7.1f} s  {size / wall:6.1f} MB/s  peak RSS {peak:6.0f} MB")


if __name__ == "__main__":
    main()
