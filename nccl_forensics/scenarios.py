"""The failure scenarios: one row each, shared by the reproducers (`ncclf repro`) and the diagnosis check.

The kebab name of a scenario is also the name of the detector that should fire on it, where one exists.
"""
from __future__ import annotations

from typing import NamedTuple

VERDICT_CLASSES = (
    "shape_mismatch", "dtype_mismatch", "op_mismatch", "collective_skipped", "dropped_rank",
    "stuck_rank", "oom", "network_error", "nic_misselection", "version_mismatch", "timeout_unknown",
    "unclassified_failure", "straggler", "none",
    "inconclusive",   # nothing found, but the evidence does not cover every rank (never a false all-clear)
)


class Scenario(NamedTuple):
    name: str
    summary: str
    expected_class: str       # the verdict class the diagnosis must give
    culprit: bool             # True when the faulty rank must be named as the culprit
    gpu_only: bool = False
    layout: str | None = None # a large-model layout (reproducers/train_megatron.py): "megatron" or "moe"
    nproc: int | None = None  # the ranks the layout needs


LARGE_NPROC = 8


SCENARIOS: dict[str, Scenario] = {s.name: s for s in [
    Scenario("healthy", "every rank trains normally; the job completes", "none", False),
    Scenario("shape-mismatch", "one rank all-reduces a tensor of a different size", "shape_mismatch", True),
    Scenario("dtype-mismatch", "one rank all-reduces a float64 tensor where the others use float32",
             "dtype_mismatch", True),
    Scenario("op-mismatch", "one rank calls a collective of another type (all_gather vs all_reduce)",
             "op_mismatch", True),
    Scenario("skipped-collective", "one rank skips a collective (an asymmetric code path)",
             "collective_skipped", True),
    Scenario("extra-collective", "one rank issues one collective more than the others",
             "collective_skipped", True),
    Scenario("dropped-rank", "one rank is killed with SIGKILL in the middle of a step", "dropped_rank", True),
    Scenario("stuck-rank", "one rank spins in a busy loop outside any collective (data loading)",
             "stuck_rank", True),
    Scenario("slow-rank", "one rank sleeps at every step (a straggler) but the job completes", "straggler", True),
    Scenario("slow-rank-timeout", "one rank's data loading slows down step after step until it outlasts the "
             "process-group timeout", "straggler", True),
    Scenario("cgroup-oom", "one rank runs in a small memory cgroup and is killed by the kernel OOM killer",
             "oom", True),
    Scenario("cuda-oom", "one rank allocates more GPU memory than exists (GPU only)", "oom", True, gpu_only=True),
    # The late rank is the cause only where its dump holds the late entry (sample_logs/bundles/real-timeout: rank 1
    # enqueued 8 s after rank 0's 5 s timeout, so stuck_rank [1]); torchrun usually ends it before it wakes.
    Scenario("timeout", "one rank enters the collective later than the process-group timeout allows",
             "timeout_unknown", False),
    # large-model layouts, 8 processes (reproducers/train_megatron.py): TP 2 x PP 2 x DP 2, and EP 4 x DP 2 (MoE)
    Scenario("megatron-dead", "TP2 x PP2 x DP2: one rank dies mid-step (SIGKILL) between its pipeline stages",
             "dropped_rank", True, layout="megatron", nproc=LARGE_NPROC),
    Scenario("megatron-gil", "TP2 x PP2 x DP2: one rank's main thread blocks in a C call holding the GIL",
             "stuck_rank", True, layout="megatron", nproc=LARGE_NPROC),
    Scenario("megatron-wedged", "TP2 x PP2 x DP2: one rank's main thread blocks in a C call outside Python",
             "stuck_rank", True, layout="megatron", nproc=LARGE_NPROC),
    Scenario("megatron-skip", "TP2 x PP2 x DP2: one rank skips its grad-norm all_reduce in the data-parallel group",
             "collective_skipped", True, layout="megatron", nproc=LARGE_NPROC),
    Scenario("megatron-slow", "TP2 x PP2 x DP2: one rank is 0.4 s late to its data-parallel collectives at every "
             "step; the job completes", "straggler", True, layout="megatron", nproc=LARGE_NPROC),
    Scenario("moe-dead", "EP4 x DP2 MoE (uneven all_to_all): one rank dies mid-step (SIGKILL)", "dropped_rank", True,
             layout="moe", nproc=LARGE_NPROC),
    Scenario("moe-gil", "EP4 x DP2 MoE (uneven all_to_all): one rank blocks in a C call holding the GIL between its "
             "all_to_all calls", "stuck_rank", True, layout="moe", nproc=LARGE_NPROC),
    Scenario("moe-wedged", "EP4 x DP2 MoE (uneven all_to_all): one rank blocks in a C call outside Python",
             "stuck_rank", True, layout="moe", nproc=LARGE_NPROC),
]}
