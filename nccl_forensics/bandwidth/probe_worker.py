"""The measuring side of `ncclf probe`: runs inside each rank of a torchrun job (imports torch).

For each collective and each size (doubling from min to max bytes) it runs warm-up iterations, then timed
iterations between barriers, then checks the result against the expected values on every rank (the
nccl-tests validation): rank r contributes the value r+1, so an allreduce must give n(n+1)/2 everywhere.
Rank 0 writes the rows as JSON to the path given by --out.

    torchrun --nproc_per_node 2 -m nccl_forensics.bandwidth.probe_worker --out rows.json
"""
from __future__ import annotations

import argparse
import json
import os
import time

import torch
import torch.distributed as dist

OPS = ("allreduce", "allgather", "reducescatter", "broadcast")


def _sizes(min_bytes: int, max_bytes: int, elem: int) -> list[int]:
    sizes, size = [], max(min_bytes, elem)
    while size <= max_bytes:
        sizes.append(size)
        size *= 2
    return sizes


def _buffers(op: str, count: int, world: int, rank: int, device):
    """Input/output tensors for an nccl-tests-style `count` (the total element count of the op)."""
    per_rank = max(count // world, 1) if op in ("allgather", "reducescatter") else count
    if op == "allgather":
        return torch.full((per_rank,), rank + 1.0, device=device), torch.empty(per_rank * world, device=device)
    if op == "reducescatter":
        return torch.full((per_rank * world,), rank + 1.0, device=device), torch.empty(per_rank, device=device)
    return torch.full((count,), rank + 1.0, device=device), None


def _run_once(op: str, inp, out):
    if op == "allreduce":
        dist.all_reduce(inp)
    elif op == "allgather":
        dist.all_gather_into_tensor(out, inp)
    elif op == "reducescatter":
        dist.reduce_scatter_tensor(out, inp)
    elif op == "broadcast":
        dist.broadcast(inp, src=0)


def _count_wrong(op: str, inp, out, world: int, rank: int) -> int:
    total = world * (world + 1) / 2
    if op == "allreduce":
        return int((inp != total).sum())
    if op == "allgather":
        expected = torch.arange(1, world + 1, dtype=out.dtype, device=out.device).repeat_interleave(inp.numel())
        return int((out != expected).sum())
    if op == "reducescatter":
        return int((out != total).sum())
    return int((inp != 1.0).sum())  # broadcast from rank 0 (value 1)


SMALL_BYTES = 1 << 20       # below this a sample costs about a millisecond
SMALL_MORE = 4              # how many times --iters those sizes are timed


def measure(op: str, size: int, warmup: int, iters: int, device) -> dict:
    world, rank = dist.get_world_size(), dist.get_rank()
    count = max(size // 4, 1)
    inp, out = _buffers(op, count, world, rank, device)
    for _ in range(warmup):
        _run_once(op, inp, out)
    dist.barrier()
    times = []
    for _ in range(iters):                     # each iteration timed: the median shrugs off a busy host's spikes
        start = time.perf_counter()
        _run_once(op, inp, out)
        if device.type == "cuda":
            torch.cuda.synchronize()
        times.append(time.perf_counter() - start)
    elapsed = sorted(times)[len(times) // 2]
    inp, out = _buffers(op, count, world, rank, device)   # validate on fresh buffers
    _run_once(op, inp, out)
    wrong = torch.tensor([_count_wrong(op, inp, out, world, rank)], dtype=torch.int64, device=device)
    dist.all_reduce(wrong)
    return {"op": op, "size": count * 4, "count": count, "dtype": "float32",
            "redop": "sum" if op in ("allreduce", "reducescatter") else "none",
            "root": 0 if op == "broadcast" else -1, "time_us": elapsed * 1e6, "wrong": int(wrong.item())}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--backend", default="gloo")
    ap.add_argument("--min-bytes", type=int, default=8)
    ap.add_argument("--max-bytes", type=int, default=256 << 20)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--iters", type=int, default=5)
    ap.add_argument("--ops", default=",".join(OPS))
    args = ap.parse_args(argv)
    device = torch.device("cuda", int(os.environ.get("LOCAL_RANK", 0))) if args.backend == "nccl" else torch.device("cpu")
    if device.type == "cuda":
        torch.cuda.set_device(device)
    dist.init_process_group(args.backend)
    rows = []
    try:
        for op in args.ops.split(","):
            for size in _sizes(args.min_bytes, args.max_bytes, 4):
                # small sizes are cheap and noisy (a busy host's scheduling): more samples for their median
                iters = (args.iters * SMALL_MORE if size < SMALL_BYTES else args.iters if size < (16 << 20)
                         else max(1, args.iters // 2))
                try:
                    rows.append(measure(op, size, args.warmup, iters, device))
                except RuntimeError as exc:   # e.g. a collective this backend lacks
                    rows.append({"op": op, "size": size, "error": str(exc).splitlines()[0][:200]})
                    break
        if dist.get_rank() == 0:
            with open(args.out, "w") as fh:
                json.dump({"world_size": dist.get_world_size(), "backend": args.backend, "rows": rows}, fh)
    finally:
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
