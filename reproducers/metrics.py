"""Per-step metrics, averaged across ranks with an explicit collective (timed as "allreduce").

The collective-semantics bugs live here, as they do in real code: an extra metric on one rank (shape),
a float64 tensor on one rank (dtype), all_gather where the others all_reduce (op), a rank that skips
the sync or syncs twice, and a rank that arrives after the process-group timeout.
"""
from __future__ import annotations

import time

import torch
import torch.distributed as dist

from .plan import FaultPlan


def sync_metrics(stats: torch.Tensor, plan: FaultPlan, rank: int, step: int,
                 late_s: float) -> tuple[torch.Tensor, float]:
    """All-reduce `stats`; returns the summed tensor and the collective's time in milliseconds."""
    fault = plan.at(rank, step)
    if fault == "timeout":
        _save_checkpoint(late_s)
    if fault == "shape-mismatch":
        stats = torch.cat([stats, stats.new_zeros(1)])          # this rank logs one metric more
    elif fault == "dtype-mismatch":
        stats = stats.double()
    start = time.perf_counter()
    if fault == "op-mismatch":
        gathered = [torch.empty_like(stats) for _ in range(dist.get_world_size())]
        dist.all_gather(gathered, stats)
        stats = torch.stack(gathered).sum(0)
    elif fault != "skipped-collective":
        dist.all_reduce(stats)
    if fault == "extra-collective":
        dist.all_reduce(stats.clone())
    return stats.float()[:4], (time.perf_counter() - start) * 1000


def _save_checkpoint(seconds: float) -> None:
    """A slow checkpoint write on one rank that outlasts the process-group timeout."""
    time.sleep(seconds)
