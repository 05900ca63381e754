"""Benchmark ncclf on the text-log shapes real jobs write (issue 31, items 3, 4, 6), each next to its floor/peer.

    python benchmarks/bench_log_shapes.py full      # diagnose --full on 2 ranks x 1 GB of COLL logs (hang)
    python benchmarks/bench_log_shapes.py console   # `ncclf parse --format jsonl` of a 200 MB torchrun console
    python benchmarks/bench_log_shapes.py small     # diagnose of 4,096 per-rank logs of 48 KB
    python benchmarks/bench_log_shapes.py all --size-mb 100 --keep /tmp/shapes   # smaller; data kept

Data goes to a temporary folder (or --keep DIR) and is deleted afterwards unless --keep is given. Every
command runs in a fresh measuring child: wall seconds, CPU seconds (user + sys of the command and its workers)
and peak RSS (ru_maxrss, the largest process). CPU seconds are the fair figure on a shared machine.

- full: 2 rank logs (NCCL 2.21 shapes: an init block, then COLL lines; rank 1 stops 3 collectives early).
  Floor: one compiled regex over every line of both files in one Python process (groups taken).
  Goal: < 1 GB RSS.
- console: a `torchrun --tee 3` console: 4 ranks' NCCL lines behind `[defaultN]:` prefixes, interleaved.
  Peer: the one-regex Python pass over the same file (the prefix in the regex). Goal: >= 0.5x its rate.
- small: 4,096 ranks (512 nodes x 8 GPUs), each a 48 KB log: init with rings and trees (NET/IB and P2P
  transports, 16 channels), then COLL lines; rank 4095 stops early. Goal: < 4 s, < 400 MB.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_diagnose import measure  # noqa: E402

COLL_RE = (r"^(?:\[default\d+\]:)?(\S+):(\d+):(\d+) \[(\d+)\] NCCL INFO (\w+): opCount (\w+) sendbuff (\S+) "
           r"recvbuff (\S+) count (\d+) datatype (\d+) op (\d+) root (\d+) comm (\S+) \[nranks=(\d+)\] stream (\S+)$")
# The floor/peer: one compiled regex over every line (groups taken), a file at a time in 64 MB pieces.
REGEX_PASS = ("import re, sys\npattern = re.compile(%r, re.M)\nn = 0\n"
              "for path in sys.argv[1:]:\n    with open(path) as fh:\n"
              "        while piece := fh.read(1 << 26):\n"
              "            piece += fh.readline()\n"
              "            for m in pattern.finditer(piece):\n                m.groups()\n                n += 1\n"
              "print(n)\n") % COLL_RE
OPS = [("AllReduce", 7, 0), ("AllGather", 9, 0), ("ReduceScatter", 9, 0), ("Broadcast", 7, 0), ("AllReduce", 9, 0)]


def ncclf(*args: str) -> list[str]:
    return [sys.executable, "-m", "nccl_forensics", *args]


def row(label: str, mb: float, r: dict, note: str = "") -> None:
    rate = f"{mb / r['cpu_s']:7.1f} MB/CPU-s" if r.get("cpu_s") else ""
    print(f"{label:<44} wall {r['wall_s']:7.2f} s  cpu {r['cpu_s']:7.2f} s  {rate}  peak {r['peak_rss_mb']:7.0f} MB"
          f"  rc {r['rc']}  {note}")


def verdict(r: dict) -> str:
    try:
        v = json.loads(r["stdout"])["verdict"]
        return f"verdict {v['class']} {v['culprit_ranks']}"
    except (ValueError, KeyError, TypeError):
        return f"(no verdict: {r['stderr'][-200:]!r})"


# ---- NCCL 2.21 line shapes (formats/nccl.md; sample_logs/nccl/ib-16rank-2node-2.21) ----

def init_block(rank: int, nranks: int, gpus: int = 8, channels: int = 16) -> list[str]:
    host, dev, pid = f"node{rank // gpus:04d}", rank % gpus, 30000 + rank
    p = f"{host}:{pid}:{pid} [{dev}] NCCL INFO "
    comm, nnodes = f"0x55{rank:06x}d2e0", max(1, nranks // gpus)
    ip = f"10.42.{rank // gpus // 250}.{rank // gpus % 250 + 1}"          # one address per host
    nxt, prv = (rank + 1) % nranks, (rank - 1) % nranks
    lines = [f"{p}Bootstrap : Using bond0:{ip}<0>",
             f"{p}NET/Plugin: Using internal network plugin.", f"{p}cudaDriverVersion 12040"]
    if rank == 0:
        lines.append(f"{p}NCCL version 2.21.5+cuda12.4")
    lines += [f"{p}NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB [2]mlx5_2:1/IB [3]mlx5_3:1/IB [RO]; "
              f"OOB bond0:{ip}<0>", f"{p}Using network IB",
              f"{p}ncclCommInitRank comm {comm} rank {rank} nranks {nranks} cudaDev {dev} nvmlDev {dev} "
              f"busId {dev + 1:x}000 commId 0x6ce38d733ed6ff1a - Init START",
              f"{p}Setting affinity for GPU {dev} to ffffffff,00000000,ffffffff",
              f"{p}comm {comm} rank {rank} nRanks {nranks} nNodes {nnodes} localRanks {gpus} localRank {dev} MNNVL 0"]
    if rank == 0:
        lines += [f"{p}Channel {c:02d}/{channels:02d} :    " + "   ".join(map(str, range(min(nranks, 64))))
                  for c in range(channels)]
    up = -1 if dev else (rank - gpus if rank >= gpus else -1)
    kids = f"{nxt if dev < gpus - 1 else -1}/{rank + gpus if dev == 0 and rank + gpus < nranks else -1}/-1"
    parent = up if dev == 0 else rank - 1
    lines.append(f"{p}Trees " + " ".join(f"[{c}] {kids}->{rank}->{parent}" for c in range(channels)))
    lines.append(f"{p}P2P Chunksize set to 131072")
    for c in range(channels):
        net = f"NET/IB/{c % 4}/GDRDMA"
        if dev == 0:
            lines.append(f"{p}Channel {c:02d}/0 : {prv}[{prv % gpus}] -> {rank}[{dev}] [receive] via {net}")
        if dev == gpus - 1:
            lines.append(f"{p}Channel {c:02d}/0 : {rank}[{dev}] -> {nxt}[{nxt % gpus}] [send] via {net}")
        else:
            lines.append(f"{p}Channel {c:02d}/0 : {rank}[{dev}] -> {nxt}[{nxt % gpus}] via P2P/CUMEM/read")
    lines.append(f"{p}Connected all rings")
    for c in range(channels if dev == 0 else 0):
        peer = (rank + gpus) % nranks
        lines += [f"{p}Channel {c:02d}/0 : {peer}[0] -> {rank}[0] [receive] via NET/IB/{c % 4}/GDRDMA",
                  f"{p}Channel {c:02d}/0 : {rank}[0] -> {peer}[0] [send] via NET/IB/{c % 4}/GDRDMA"]
    lines += [f"{p}Connected all trees", f"{p}threadThresholds 8/8/64 | 128/8/64 | 512 | 512",
              f"{p}{channels} coll channels, 0 collnet channels, 0 nvls channels, {channels} p2p channels, "
              "2 p2p channels per peer",
              f"{host}:{pid}:{pid + 187} [{dev}] NCCL INFO [Proxy Service] Device {dev} CPU core {dev * 4}",
              f"{p}ncclCommInitRank comm {comm} rank {rank} nranks {nranks} cudaDev {dev} nvmlDev {dev} "
              f"busId {dev + 1:x}000 commId 0x6ce38d733ed6ff1a - Init COMPLETE"]
    return lines


def coll_line(rank: int, nranks: int, op_count: int, rng: random.Random, prefix: str = "", gpus: int = 8) -> str:
    host, dev, pid = f"node{rank // gpus:04d}", rank % gpus, 30000 + rank
    name, dtype, redop = OPS[op_count % len(OPS)]
    buf = f"0x7f{rng.randrange(1 << 24):06x}0000"
    return (f"{prefix}{host}:{pid}:{pid} [{dev}] NCCL INFO {name}: opCount {op_count:x} sendbuff {buf} recvbuff {buf} "
            f"count {1 + (op_count * 7919) % (1 << 24)} datatype {dtype} op {redop} root 0 comm 0x55{rank:06x}d2e0 "
            f"[nranks={nranks}] stream 0x56{rank:06x}d260")


def coll_count(size: int, nranks: int, gpus: int = 8) -> int:
    """How many COLL lines make a log of `size` bytes after a (non-zero) rank's init block: every rank writes
    as many (rank 0's longer init block must not make it look behind)."""
    head = sum(len(line) + 1 for line in init_block(1, nranks, gpus))
    return max(0, (size - head) // (len(coll_line(1, nranks, 123456, random.Random(1), gpus=gpus)) + 1))


def write_rank_log(path: Path, rank: int, nranks: int, size: int, stop_early: int, gpus: int = 8) -> None:
    rng, colls = random.Random(rank), coll_count(size, nranks, gpus)
    with open(path, "w") as out:
        head = "\n".join(init_block(rank, nranks, gpus)) + "\n"
        out.write(head)
        op_count, chunk = 0, []
        while op_count < colls:
            line = coll_line(rank, nranks, op_count, rng, gpus=gpus)
            chunk.append(line)
            op_count += 1
            if len(chunk) >= 20000:
                out.write("\n".join(chunk) + "\n")
                chunk.clear()
        if stop_early:
            chunk = chunk[:-stop_early] if len(chunk) > stop_early else chunk
        out.write("\n".join(chunk) + "\n" if chunk else "")


def make_full(root: Path, size_mb: float) -> list[Path]:
    """2 ranks x size_mb MB; rank 1 stops 3 collectives before rank 0 (a hang)."""
    folder = root / "full"
    folder.mkdir(parents=True, exist_ok=True)
    paths = [folder / f"nccl.rank{r}.log" for r in range(2)]
    for r, path in enumerate(paths):
        write_rank_log(path, r, 2, int(size_mb * 1e6), 3 if r == 1 else 0, gpus=2)
    return paths


def make_console(root: Path, size_mb: float, nranks: int = 4) -> Path:
    """A torchrun console: every rank's init block, then their COLL lines interleaved, behind `[defaultN]:`."""
    path = root / "console.log"
    rng = random.Random(1)
    with open(path, "w") as out:
        for r in range(nranks):
            out.write("".join(f"[default{r}]:{line}\n" for line in init_block(r, nranks, gpus=nranks, channels=4)))
        written, op_count, target = 0, 0, int(size_mb * 1e6)
        while written < target:
            chunk = "".join(coll_line(r, nranks, op_count + i, rng, f"[default{r}]:", gpus=nranks) + "\n"
                            for i in range(2000) for r in range(nranks))
            out.write(chunk)
            written += len(chunk)
            op_count += 2000
    return path


def make_small(root: Path, ranks: int, size_kb: float) -> Path:
    folder = root / "small"
    folder.mkdir(parents=True, exist_ok=True)
    for r in range(ranks):
        write_rank_log(folder / f"nccl.rank{r}.log", r, ranks, int(size_kb * 1000), 3 if r == ranks - 1 else 0)
    return folder


def bench_full(root: Path, size_mb: float, jobs: int) -> None:
    paths = make_full(root, size_mb)
    mb = sum(p.stat().st_size for p in paths) / 1e6
    print(f"\n--full: 2 ranks x {size_mb:.0f} MB of COLL logs ({mb:.0f} MB), -j{jobs}  (goal: < 1 GB RSS)")
    row("one-regex Python pass (floor)", mb, measure([sys.executable, "-c", REGEX_PASS, *map(str, paths)]))
    r = measure(ncclf("diagnose", "--full", "--format", "json", "-j", str(jobs), *map(str, paths)))
    row("ncclf diagnose --full", mb, r, verdict(r))


def bench_console(root: Path, size_mb: float) -> None:
    path = make_console(root, size_mb)
    mb = path.stat().st_size / 1e6
    print(f"\nprefixed console ([defaultN]: torchrun --tee 3), {mb:.0f} MB  (goal: >= 0.5x the regex pass's rate)")
    peer = measure([sys.executable, "-c", REGEX_PASS, str(path)])
    row("one-regex Python pass (peer)", mb, peer)
    r = measure(ncclf("parse", "--format", "jsonl", "-q", "-j", "1", str(path)))
    row("ncclf parse --format jsonl", mb, r, f"{peer['cpu_s'] / r['cpu_s']:.2f}x the peer's rate (CPU)")


def bench_small(root: Path, ranks: int, size_kb: float, jobs: int) -> None:
    folder = make_small(root, ranks, size_kb)
    files = sorted(folder.iterdir())
    mb = sum(p.stat().st_size for p in files) / 1e6
    print(f"\n{ranks} rank logs x {size_kb:.0f} KB ({mb:.0f} MB), -j{jobs}  (goal: < 4 s, < 400 MB)")
    row("one-regex Python pass (floor)", mb, measure([sys.executable, "-c", REGEX_PASS, *map(str, files)]))
    r = measure(ncclf("diagnose", "--format", "json", "-j", str(jobs), str(folder)))
    row("ncclf diagnose", mb, r, verdict(r))


def warm_grammars() -> None:
    """Build (or load) the cached Lark parsers once before any timing: a cold cache costs seconds per process."""
    subprocess.run([sys.executable, "-c", "from nccl_forensics.sources import grammars\n"
                    "for name in ('nccl', 'wrappers', 'torch', 'traceback'): grammars.lalr(name)"], check=False)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("shape", choices=("full", "console", "small", "all"))
    ap.add_argument("--size-mb", type=float, default=None,
                    help="full: MB per rank (default 1000); console: MB (default 200)")
    ap.add_argument("--ranks", type=int, default=4096, help="small: rank logs (default 4096)")
    ap.add_argument("--size-kb", type=float, default=48.0, help="small: KB per rank log (default 48)")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--keep", type=Path, default=None, help="write the data here and keep it")
    args = ap.parse_args(argv)
    root = args.keep or Path(tempfile.mkdtemp(prefix="ncclf-shapes-"))
    root.mkdir(parents=True, exist_ok=True)
    print(f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}; data in {root}")
    warm_grammars()
    try:
        if args.shape in ("full", "all"):
            bench_full(root, args.size_mb or 1000.0, args.jobs)
        if args.shape in ("console", "all"):
            bench_console(root, args.size_mb or 200.0)
        if args.shape in ("small", "all"):
            bench_small(root, args.ranks, args.size_kb, args.jobs)
    finally:
        if args.keep is None:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
