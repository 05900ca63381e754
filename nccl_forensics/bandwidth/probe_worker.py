"""The measuring side of `ncclf probe`: runs inside each rank of a torchrun job (imports torch).

Before any timing, every op runs a few times (connection and first-call set-up). Then size by size (doubling
from min to max bytes), each op runs its warm-up runs, then the ops take turns run by run (a burst of load slows
them alike), spread over three sweeps of the sizes (each run timed alone, as its slowest rank; the fastest is
kept: load only adds time), then checks the result against the expected values on every rank (the nccl-tests
validation): rank r contributes the value r+1, so an allreduce must give n(n+1)/2 everywhere. `--ops` may also
name LOCAL_OPS: a memcpy into a buffer already written, and a new buffer written once, timed the same way (the
host's memory, as gloo's own copies and buffers use it), and LINK_OPS: a send from rank 0 to rank 1 (the link
one way, as gloo's broadcast uses it).
Rank 0 writes the rows as JSON to the path given by --out.

    torchrun --nproc_per_node 2 -m nccl_forensics.bandwidth.probe_worker --out rows.json
"""
from __future__ import annotations

import argparse
import json
import os
import signal
import time

import torch
import torch.distributed as dist

from ..libc import die_with_parent

OPS = ("allreduce", "allgather", "reducescatter", "broadcast")
# Not collectives: this host's memory, timed on every rank at once as the collectives run (they price the
# copies and the new buffers that gloo's allgather and reduce-scatter make; see bandwidth/algorithms.py)
LOCAL_OPS = ("memcpy", "newbuf")
# Not a collective either: one message of the whole buffer from rank 0 to rank 1, the others idle (the link one
# way; a ring's every rank sends and receives at once, and on one host's CPUs that costs more per byte)
LINK_OPS = ("send",)


def _sizes(min_bytes: int, max_bytes: int, elem: int) -> list[int]:
    sizes, size = [], max(min_bytes, elem)
    while size <= max_bytes:
        sizes.append(size)
        size *= 2
    return sizes


_POOL: dict[str, torch.Tensor] = {}


def _pooled(role: str, count: int, value: float, device) -> torch.Tensor:
    """The first `count` elements of this rank's `role` buffer, set to `value`: one buffer per role, grown to
    the largest size asked, so the sizes share their pages (faulted in once per run, not once per size and
    sweep: on a host that was most of the probe's system time)."""
    pool = _POOL.get(role)
    if pool is None or pool.numel() < count or pool.device != device:
        _POOL[role] = pool = torch.empty(count, device=device)
    return pool[:count].fill_(value)


def _buffers(op: str, count: int, world: int, rank: int, device):
    """Input/output tensors for an nccl-tests-style `count` (the total element count of the op)."""
    per_rank = max(count // world, 1) if op in ("allgather", "reducescatter") else count
    # outputs are written (zeros) before any timing: their first-touch page faults are not the collective's
    if op == "allgather":
        return _pooled("in", per_rank, rank + 1.0, device), _pooled("out", per_rank * world, 0.0, device)
    if op == "reducescatter":
        return _pooled("in", per_rank * world, rank + 1.0, device), _pooled("out", per_rank, 0.0, device)
    if op in ("memcpy", "send"):
        return _pooled("in", count, rank + 1.0, device), _pooled("out", count, 0.0, device)
    return _pooled("in", count, rank + 1.0, device), None


# torch >= 2.13 names them *_single (the old names still work, with a FutureWarning on every call)
_ALLGATHER = getattr(dist, "all_gather_single", None) or dist.all_gather_into_tensor
_REDUCE_SCATTER = getattr(dist, "reduce_scatter_single", None) or dist.reduce_scatter_tensor


def _run_once(op: str, inp, out):
    if op == "allreduce":
        dist.all_reduce(inp)
    elif op == "allgather":
        _ALLGATHER(out, inp)
    elif op == "reducescatter":
        _REDUCE_SCATTER(out, inp)
    elif op == "broadcast":
        dist.broadcast(inp, src=0)
    elif op == "memcpy":
        out.copy_(inp)
    elif op == "newbuf":                          # a new buffer each time, written once (as gloo's are)
        torch.empty_like(inp).fill_(0.5)
    elif op == "send":
        if dist.get_rank() == 0:
            dist.send(inp, dst=1)
        elif dist.get_rank() == 1:
            dist.recv(out, src=0)


def _count_wrong(op: str, inp, out, world: int, rank: int) -> int:
    total = world * (world + 1) / 2
    if op == "allreduce":
        return int((inp != total).sum())
    if op == "allgather":
        expected = torch.arange(1, world + 1, dtype=out.dtype, device=out.device).repeat_interleave(inp.numel())
        return int((out != expected).sum())
    if op == "reducescatter":
        return int((out != total).sum())
    if op == "memcpy":
        return int((out != rank + 1.0).sum())
    if op == "newbuf":
        return 0
    if op == "send":
        return int((out != 1.0).sum()) if rank == 1 else 0
    return int((inp != 1.0).sum())  # broadcast from rank 0 (value 1)


def _first_line(exc: Exception) -> str:
    return str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__


SMALL_BYTES = 1 << 20       # below this a sample costs about a millisecond
SMALL_MORE = 6              # how many times --iters those sizes are timed
MID_MORE = 4                # and those up to LARGE_BYTES: milliseconds each, and on a shared host the fastest
                            # of a dozen runs can still be 2-3x another op's fastest under the same load
LARGE_BYTES = 16 << 20      # from this size on a run costs tens of milliseconds or more: one run a sweep


def timed_runs(ops: list[str], size: int, warmup: int, iters: int, device,
               failed: dict[str, tuple[int, str]]) -> dict[str, list[float]]:
    """Seconds of each of `iters` runs of every op on `size` bytes, after `warmup` untimed ones of each: the
    ops take turns run by run (a burst of load slows each op's runs alike, so the fastest of one op and the
    fastest of another were taken under the same load), and each run's time is the slowest rank's (a
    collective is done when its last rank is). An op that raises (one this backend lacks) goes into `failed`."""
    world, rank = dist.get_world_size(), dist.get_rank()
    buffers = {}
    for op in ops:
        if op in failed:
            continue
        try:
            buffers[op] = _buffers(op, max(size // 4, 1), world, rank, device)
            for _ in range(warmup):
                _run_once(op, *buffers[op])
        except RuntimeError as exc:
            buffers.pop(op, None)
            failed[op] = (size, _first_line(exc))
    dist.barrier()
    times: dict[str, list[float]] = {op: [] for op in buffers}
    for _ in range(iters):
        for op, (inp, out) in list(buffers.items()):
            start = time.perf_counter()
            try:
                _run_once(op, inp, out)
            except RuntimeError as exc:      # with no warm-up run, the first timed one meets an op the backend lacks
                del buffers[op], times[op]
                failed[op] = (size, _first_line(exc))
                continue
            if device.type == "cuda":
                torch.cuda.synchronize()
            times[op].append(time.perf_counter() - start)
    if not times:
        return {}
    slowest = torch.tensor(list(times.values()), dtype=torch.float64, device=device)
    dist.all_reduce(slowest, op=dist.ReduceOp.MAX)
    return dict(zip(times, slowest.tolist(), strict=True))


def validated_row(op: str, size: int, times: list[float], device) -> dict:
    """The row of `op` at `size`: the fastest of its runs (a busy host, the other rank descheduled, only ever
    adds time, so the minimum is the collective's own cost and repeats under load where a mean drifts with
    it), and the wrong elements of one more run on fresh buffers, counted on every rank."""
    world, rank = dist.get_world_size(), dist.get_rank()
    count = max(size // 4, 1)
    inp, out = _buffers(op, count, world, rank, device)
    _run_once(op, inp, out)
    wrong = torch.tensor([_count_wrong(op, inp, out, world, rank)], dtype=torch.int64, device=device)
    dist.all_reduce(wrong)
    return {"op": op, "size": count * 4, "count": count, "dtype": "float32",
            "redop": "sum" if op in ("allreduce", "reducescatter") else "none",
            "root": 0 if op == "broadcast" else -1, "time_us": min(times) * 1e6, "wrong": int(wrong.item()),
            "median_us": sorted(times)[len(times) // 2] * 1e6, "runs": len(times),
            "samples_us": [round(t * 1e6, 2) for t in times]}


PASSES = 3      # sweeps over the sizes, each with its share of the runs: a burst of load hits one pass, not all


def _runs(size: int, iters: int) -> int:
    """Timed runs of a size in each sweep: small sizes are cheap and noisy (a busy host's scheduling), so they
    get more for their minimum; from LARGE_BYTES on, one a sweep."""
    if size < SMALL_BYTES:
        return -(-iters * SMALL_MORE // PASSES)
    if size < LARGE_BYTES:
        return -(-iters * MID_MORE // PASSES)
    return max(1, -(-(iters // 2 + 1) // PASSES))


def _warmups(size: int, warmup: int, sweep_no: int) -> int:
    """Untimed runs before a size's timed ones: `warmup` in the first sweep (one from LARGE_BYTES on: a run that
    long is most of its own warm-up, and the buffers are written before timing), then one below LARGE_BYTES."""
    if sweep_no == 0:
        return warmup if size < LARGE_BYTES else min(warmup, 1)
    return min(warmup, 1) if size < LARGE_BYTES else 0


def sweep(ops: list[str], sizes: list[int], warmup: int, iters: int, device) -> list[dict]:
    """Every op at every size, size by size, the ops taking turns run by run (so that a prediction of one from
    another compares them under the same load). Each size's runs are spread over PASSES sweeps: a burst of
    load hits one, not all. The later sweeps warm up with one run below LARGE_BYTES and none from it on (a
    run that long is its own warm-up; the buffers are written before timing). An op the backend lacks gets one
    row with the error."""
    times: dict[tuple[str, int], list[float]] = {}
    failed: dict[str, tuple[int, str]] = {}
    for sweep_no in range(PASSES):
        for size in sizes:
            runs = timed_runs(ops, size, _warmups(size, warmup, sweep_no), _runs(size, iters), device, failed)
            for op, taken in runs.items():
                times.setdefault((op, size), []).extend(taken)
    rows = []
    for op in ops:
        rows += [validated_row(op, size, times[(op, size)], device) for size in sizes
                 if (op, size) in times and (op not in failed or size < failed[op][0])]
        if op in failed:
            rows.append({"op": op, "size": failed[op][0], "error": failed[op][1]})
    return rows


def warm_up(ops: list[str], device, runs: int = 10) -> None:
    """Before any timing: the connections, the backend's first-call set-up and the allocator paid for once,
    on every op (so that no op's first size measures them)."""
    for op in ops:
        if op not in OPS + LOCAL_OPS + LINK_OPS:
            continue
        try:
            inp, out = _buffers(op, 1 << 16, dist.get_world_size(), dist.get_rank(), device)
            for _ in range(runs):
                _run_once(op, inp, out)
        except RuntimeError:
            continue                           # an op this backend lacks: its row says so
    dist.barrier()


def main(argv=None) -> None:
    die_with_parent(signal.SIGTERM)          # a rank ends with its launcher, however that ends
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
    try:
        ops = args.ops.split(",")
        warm_up(ops, device)
        rows = sweep(ops, _sizes(args.min_bytes, args.max_bytes, 4), args.warmup, args.iters, device)
        if dist.get_rank() == 0:
            with open(args.out, "w") as fh:
                json.dump({"world_size": dist.get_world_size(), "backend": args.backend, "rows": rows}, fh)
    finally:
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
