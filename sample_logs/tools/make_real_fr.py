"""Make REAL flight-recorder dumps with torch (2.9+) on gloo, on 127.0.0.1, and save them as torch names them.

Usage:  python sample_logs/tools/make_real_fr.py [OUT_DIR] [--ranks 4] [--diverge-rank 2]

Writes four dump sets under OUT_DIR (default sample_logs/flight_recorder/):
  gloo_healthy/comm_lib_trace_rank_<r>        every rank ran the same collectives, then dumped
  gloo_healthy_json/comm_lib_trace_rank_<r>.json   the same run's `_dump_fr_trace_json()` output
  gloo_diverged/comm_lib_trace_rank_<r>       rank D skipped the last all_reduce; the others hang in it
  gloo_diverged_json/comm_lib_trace_rank_<r>.json
`comm_lib_trace_rank_` is torch 2.11+'s default dump prefix (formats/pytorch.md 1.4). The pickles are the exact
bytes of `torch._C._distributed_c10d._dump_fr_trace()`; TORCH_FR_BUFFER_SIZE=2000 is set for every worker.
In the diverged run each rank dumps from a timer thread while the hang is in progress (gloo has no automatic
dump path); once every dump is on disk the launcher kills the worker processes it started, by pid.
"""
from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from datetime import timedelta
from pathlib import Path

PREFIX = "comm_lib_trace_rank_"
STEPS = 3
DUMP_AFTER_S = 3.0      # diverged run: how long the hang lasts before every rank dumps
RUN_LIMIT_S = 90.0      # launcher: give up (and kill the workers) after this long


def _dump(out_dir: Path, rank: int) -> None:
    from torch._C._distributed_c10d import _dump_fr_trace, _dump_fr_trace_json
    pickle_bytes = _dump_fr_trace()
    json_bytes = _dump_fr_trace_json()
    _write_atomic(out_dir / f"{PREFIX}{rank}", pickle_bytes)
    json_dir = out_dir.with_name(out_dir.name + "_json")
    json_dir.mkdir(parents=True, exist_ok=True)
    _write_atomic(json_dir / f"{PREFIX}{rank}.json", json_bytes)


def _write_atomic(path: Path, data: bytes) -> None:
    tmp = path.with_name("." + path.name + ".tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def worker(rank: int, world: int, port: int, out_dir: Path, diverge_rank: int | None) -> None:
    import torch
    import torch.distributed as dist
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=world,
                            timeout=timedelta(seconds=60))
    pair = dist.new_group([0, 1], group_desc="PAIR_GROUP")
    for step in range(STEPS):
        grad = torch.full((4, 3), float(rank))
        dist.all_reduce(grad)
        gathered = [torch.zeros(2) for _ in range(world)]
        dist.all_gather(gathered, torch.full((2,), float(rank)))
        dist.broadcast(torch.arange(5, dtype=torch.float64), src=0)
        if rank in (0, 1):
            dist.all_reduce(torch.ones(8, dtype=torch.int64), group=pair)
    dist.barrier()
    if diverge_rank is None:
        _dump(out_dir, rank)
        dist.barrier()
        dist.destroy_process_group()
        return
    threading.Timer(DUMP_AFTER_S, _dump, args=(out_dir, rank)).start()
    if rank == diverge_rank:
        time.sleep(RUN_LIMIT_S)          # "stuck elsewhere": skips the all_reduce below
    else:
        dist.all_reduce(torch.ones(1024))  # hangs: rank D never joins


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(out_dir: Path, world: int, diverge_rank: int | None) -> None:
    """Launch `world` workers, wait for every dump, then stop exactly those workers (by their pids)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, TORCH_FR_BUFFER_SIZE="2000", PYTHONUNBUFFERED="1")
    port = _free_port()
    procs, logs = [], []
    try:
        for rank in range(world):
            cmd = [sys.executable, __file__, str(out_dir), "--worker", str(rank), "--world", str(world),
                   "--port", str(port), "--diverge-rank", str(-1 if diverge_rank is None else diverge_rank)]
            logs.append(tempfile.TemporaryFile())
            procs.append(subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=logs[-1]))
        _wait_for_dumps(out_dir, world, procs, logs)
        if diverge_rank is None:      # healthy workers finish by themselves
            for proc in procs:
                proc.wait(timeout=30)
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
            proc.wait()
        for log in logs:
            log.close()


def _wait_for_dumps(out_dir: Path, world: int, procs: list[subprocess.Popen], logs: list) -> None:
    json_dir = out_dir.with_name(out_dir.name + "_json")
    wanted = [out_dir / f"{PREFIX}{r}" for r in range(world)] + [json_dir / f"{PREFIX}{r}.json" for r in range(world)]
    deadline = time.monotonic() + RUN_LIMIT_S
    while time.monotonic() < deadline:
        if all(p.exists() for p in wanted):
            return
        for proc, log in zip(procs, logs):
            if proc.poll() not in (None, 0):
                log.seek(0)
                raise SystemExit(f"worker pid {proc.pid} failed: {log.read().decode(errors='replace')[-2000:]}")
        time.sleep(0.2)
    raise SystemExit(f"timed out after {RUN_LIMIT_S:.0f}s waiting for dumps in {out_dir}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", nargs="?", default=str(Path(__file__).resolve().parents[1] / "flight_recorder"))
    ap.add_argument("--ranks", type=int, default=4)
    ap.add_argument("--diverge-rank", type=int, default=2, help="the rank that skips a collective")
    ap.add_argument("--worker", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--world", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--port", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker is not None:
        diverge = None if args.diverge_rank < 0 else args.diverge_rank
        worker(args.worker, args.world, args.port, Path(args.out), diverge)
        return
    out = Path(args.out)
    run(out / "gloo_healthy", args.ranks, None)
    run(out / "gloo_diverged", args.ranks, args.diverge_rank)
    print(f"wrote {out}/gloo_healthy[_json] and {out}/gloo_diverged[_json] ({args.ranks} ranks)")


if __name__ == "__main__":
    main()
