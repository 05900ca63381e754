"""Verdicts on lines ncclf did not read before catalogue round srcmined16, each message read in its source and put in a
console written around it: torch.compile in a multi-rank job and the newest process-group calls (torch 2.2-2.9).

- Dynamo's recompile limit (convert_frame.py: `cache_size_limit` to 2.5, `recompile_limit` from 2.6): a warning and
  an eager fallback, benign; FailOnRecompileLimitHit (fullgraph=True on every rank; fail_on_recompile_limit_hit on
  the one rank whose shapes ran out); BackendCompilerFailed / InductorError around an OOM (M301's), a failed C
  compiler or a GPU too old for Triton; Unsupported (the 2.7+ graph-break layout) and TorchRuntimeError around a
  collective: raised word for word by every rank that got there, so no rank is a cause (rank_state.shared_exception);
- DDPOptimizer's bucket notes (backends/distributed.py), benign, and a rank still compiling while its peers time out;
- c10d's settings: the pre-TORCH_ names (Utils.hpp), TORCH_NCCL_AVOID_RECORD_STREAMS (2.7+), the blocking-wait and
  options/environments INFO lines, destroy_process_group's abort INFO lines: benign;
- split_group without a bound device, ProcessGroupNCCL::shrink's refusals (2.9+), symmetric memory's rendezvous of
  ranks on one device (CUDASymmetricMemory.cu): set-up errors alike on every rank.
"""
from __future__ import annotations

import pytest

from .consoles import NO_TRACEBACK, check_case, failure_table

HEALTHY = ["none", "inconclusive"]
_DONE = "[rank0]: training finished, saved checkpoint to /ckpt/final.pt\n"
_TERM = "W1127 03:14:51.861000 4411 torch/distributed/elastic/multiprocessing/api.py:897] Sending process {} closing " \
        "signal SIGTERM\n"
_DYNAMO_FRAME = '  File "/opt/conda/lib/python3.11/site-packages/torch/_dynamo/eval_frame.py", line 655, in _fn\n'


def _raised(ranks: list[int], exception: str) -> str:
    """The same traceback on each of `ranks`, behind torchrun's `[rankN]:` prefix."""
    body = ('Traceback (most recent call last):\n  File "/workspace/train.py", line 161, in main\n'
            f"    loss = model(batch).loss\n{_DYNAMO_FRAME}    return fn(*args, **kwargs)\n{exception}\n")
    return "".join(f"[rank{r}]: {line}\n" for r in ranks for line in body.splitlines())


def _ended(rank: int, others: list[int], exitcode: int = 1) -> str:
    """torchrun's SIGTERM to the others, then its failure table naming `rank`."""
    return ("".join(_TERM.format(5000 + r) for r in others)
            + failure_table("train.py", "2026-11-27_03:14:51", "gpu-node-07", rank, rank, exitcode, 5000 + rank,
                            NO_TRACEBACK if exitcode > 0 else None))


def _failed(ranks: list[int], world: int, exception: str, first: int | None = None) -> str:
    first = ranks[0] if first is None else first
    return _raised(ranks, exception) + _ended(first, [r for r in range(world) if r != first])


def _recompile_warning(rank: int, limit: str = "recompile_limit") -> str:
    return (f"[rank{rank}]:W1127 03:11:40.200000 {5000 + rank} torch/_dynamo/convert_frame.py:964] [0/8] "
            f"torch._dynamo hit config.{limit} (8)\n[rank{rank}]:W1127 03:11:40.200000 {5000 + rank} "
            "torch/_dynamo/convert_frame.py:964] [0/8]    function: 'forward' (/workspace/model.py:212)\n")


def _timeouts(ranks: list[int], seq: int, op: str, prefix: str = "[PG ID 0 PG GUID 0(default_pg) Rank {}]") -> str:
    return "".join(f"[rank{r}]:[E1127 03:21:09.331001224 ProcessGroupNCCL.cpp:632] {prefix.format(r)} Watchdog caught "
                   f"collective operation timeout: WorkNCCL(SeqNum={seq}, OpType={op}, NumelIn=6553600, "
                   "NumelOut=6553600, Timeout(ms)=600000) ran for 600083 milliseconds before timing out.\n"
                   for r in ranks)


def _oom(gpu: int) -> str:
    return (f"CUDA out of memory. Tried to allocate 2.00 GiB. GPU {gpu} has a total capacity of 79.15 GiB of which "
            "1.12 GiB is free. Of the allocated memory 74.51 GiB is allocated by PyTorch, and 2.93 GiB is reserved by "
            "PyTorch but unallocated.")


_DDP_OPT = ("[rank{r}]:I1127 03:11:02.500000 500{r} torch/_dynamo/backends/distributed.py:91] [0/0] DDPOptimizer used "
            "bucket cap 26214400 and created 7 buckets. Enable debug logs for detailed bucket info.\n")
_EXTENDED = ("[rank{r}]:W1127 03:11:02.500000 500{r} torch/_dynamo/backends/distributed.py:100] [0/0] Some buckets were "
             "extended beyond their requested parameter capacities in order to ensure each subgraph has an output "
             "node, required for fx graph partitioning.\n")
_PG_INFO = "[rank{r}]:I1127 03:40:43.484511 700{r} ProcessGroupNCCL.cpp:{line}] [PG ID 0 PG GUID 0(default_pg) Rank {r}] "
_SHRINK = "RuntimeError: {}\nException raised from shrink at /pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1529"

CASES = {
    "recompile_limit_v26_warning": ("".join(_recompile_warning(r) for r in range(4)) + _DONE, HEALTHY, None),
    "cache_size_limit_v23_warning": (
        "".join(f"[rank{r}]:[2024-05-14 09:21:07,300] [0/8] torch._dynamo.convert_frame: [WARNING] torch._dynamo hit "
                "config.cache_size_limit (8)\n" for r in range(8)) + _DONE, HEALTHY, None),
    "fail_on_recompile_limit_fullgraph_every_rank": (
        _failed([0, 1, 2, 3], 4, "torch._dynamo.exc.FailOnRecompileLimitHit: recompile_limit reached with "
                "fullgraph=True. Excessive recompilations can degrade performance due to the compilation overhead of "
                "each recompilation."), ["unclassified_failure"], None),
    "fail_on_recompile_limit_one_rank": (
        _recompile_warning(3) + _failed([3], 4, "torch._dynamo.exc.FailOnRecompileLimitHit: recompile_limit reached, "
                                        "because fail_on_recompile_limit_hit = True this is a HARD failure"),
        ["unclassified_failure", "dropped_rank"], [3]),
    "backend_compiler_failed_oom_one_rank": (
        _failed([2], 4, f"torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised:\nOutOfMemoryError: "
                f"{_oom(2)}"), ["oom"], [2]),
    "inductor_error_oom_v27": (
        _failed([4], 8, f"torch._inductor.exc.InductorError: OutOfMemoryError: {_oom(4)}"), ["oom"], [4]),
    "backend_compiler_failed_gcc_every_rank": (
        _failed([0, 1], 2, "torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised:\nCalledProcessError: "
                "Command '['/usr/bin/gcc', '/tmp/tmpq1w2e3r4/main.c', '-O3', '-shared', '-fPIC']' returned non-zero "
                "exit status 1."), ["unclassified_failure"], None),
    "gpu_too_old_for_triton_every_rank": (
        _failed([0, 1], 2, "torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised:\nRuntimeError: Found "
                "Tesla P100-PCIE-16GB which is too old to be supported by the triton GPU compiler, which is used as "
                "the backend. Triton only supports devices of CUDA Capability >= 7.0, but your device is of CUDA "
                "capability 6.0"), ["version_mismatch", "unclassified_failure"], None),
    "unsupported_graph_break_every_rank": (
        _failed([0, 1, 2, 3], 4, "torch._dynamo.exc.Unsupported: Data-dependent branching\n  Explanation: Detected "
                "data-dependent branching (e.g. `if my_tensor.sum() > 0:`). Dynamo does not support tracing dynamic "
                "control flow.\n  Developer debug context: attempted to jump with TensorVariable()"),
        ["unclassified_failure"], None),
    "torch_runtime_error_collective_every_rank": (
        _failed([0, 1], 2, "torch._dynamo.exc.TorchRuntimeError: Failed running call_function <function all_reduce at "
                "0x7f0c2e1b5080>(*(FakeTensor(..., size=(1,)),), **{}):\nNo backend type associated with device type "
                "cpu"), ["unclassified_failure"], None),
    "recompile_warnings_then_one_rank_oom": (
        "".join(_recompile_warning(r) for r in range(8)) + _failed([5], 8, f"torch.OutOfMemoryError: {_oom(5)}"),
        ["oom"], [5]),
    "ddp_optimizer_notes": ("".join(_DDP_OPT.format(r=r) + _EXTENDED.format(r=r) for r in range(2)) + _DONE,
                            HEALTHY, None),
    "ddp_optimizer_rank_still_compiling": (
        "".join(_DDP_OPT.format(r=r) for r in range(4)) + _timeouts([0, 1, 2], 2, "ALLREDUCE", "[Rank {}]")
        + _ended(0, [3], -6), ["stuck_rank", "timeout_unknown", "straggler"], None),
    # the limit of rank_state.shared_exception: two ranks of eight raising one error about their own data, the rest
    # stopped by torchrun's SIGTERM, are those two ranks' own failure, not the program's on every rank
    "same_data_error_on_two_of_eight": (
        _failed([2, 5], 8, "ValueError: sample 118203 of shard /data/shard-00017.bin has 0 tokens"),
        ["dropped_rank"], [2, 5]),
    "compiled_fsdp_allgather_one_rank_silent": (
        _recompile_warning(6) + _timeouts([0, 1, 2, 3, 4, 5, 7], 118, "_ALLGATHER_BASE") + _ended(0, [6], -6),
        ["stuck_rank", "timeout_unknown"], None),
    "avoid_record_streams_deprecated": (
        "".join(f"[rank{r}]:[W1127 03:10:09.771034112 ProcessGroupNCCL.cpp:981] Warning: TORCH_NCCL_AVOID_RECORD_STREAMS"
                " is the default now, this environment variable is thus deprecated. (function operator())\n"
                for r in range(4)) + _DONE, HEALTHY, None),
    "async_error_handling_deprecated_then_oom": (
        "[W1127 03:10:09.771034112 Utils.hpp:137] Warning: Environment variable NCCL_ASYNC_ERROR_HANDLING is "
        "deprecated; use TORCH_NCCL_ASYNC_ERROR_HANDLING instead (function operator())\n"
        + _failed([1], 2, f"torch.OutOfMemoryError: {_oom(1)}"), ["oom"], [1]),
    "blocking_wait_deprecated": (
        "[W Utils.hpp:164] Warning: Environment variable NCCL_BLOCKING_WAIT is deprecated; use TORCH_NCCL_BLOCKING_WAIT "
        "instead (function getCvarBool)\nepoch 2: loss=0.590\nTraining complete.\n", HEALTHY, None),
    "blocking_wait_info_then_timeout": (
        "".join(_PG_INFO.format(r=r, line=1000) + "TORCH_NCCL_BLOCKING_WAIT is enabled, NO watchdog thread is created.\n"
                for r in range(2))
        + "[rank1]: torch.distributed.DistBackendError: [PG ID 0 PG GUID 0(default_pg) Rank 1] Work WorkNCCL(SeqNum=913,"
          " OpType=ALLREDUCE, NumelIn=8, NumelOut=8, Timeout(ms)=300000) timed out in blocking wait.\n" + _ended(1, [0]),
        ["timeout_unknown", "stuck_rank"], None),
    "pg_options_info": (
        "".join(_PG_INFO.format(r=r, line=942) + "ProcessGroupNCCL environments: NCCL version: 2.21.5, "
                "TORCH_NCCL_ASYNC_ERROR_HANDLING: 3, TORCH_NCCL_DUMP_ON_TIMEOUT: 0, TORCH_NCCL_BLOCKING_WAIT: 0, "
                "TORCH_NCCL_ENABLE_MONITORING: 1, TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC: 480\n" for r in range(2)) + _DONE,
        HEALTHY, None),
    "destroy_pg_abort_info": (
        _DONE + "".join(_PG_INFO.format(r=r, line=1116) + "future is successfully executed for: ProcessGroup abort\n"
                        + _PG_INFO.format(r=r, line=1237) + "ProcessGroupNCCL aborts successfully.\n" for r in range(4)),
        HEALTHY, None),
    "split_group_no_device": (
        _failed([0, 1, 2], 8, "RuntimeError: No device associated with the default pg, not safe to split any process "
                "groups"), ["unclassified_failure"], None),
    "shrink_requires_nccl_227": (
        _failed([0, 1, 2, 3], 4, _SHRINK.format("nccl2 shrink requires NCCL 2.27 or later")),
        ["unclassified_failure", "version_mismatch"], None),
    "shrink_pending_work": (
        _failed([0, 1], 8, "RuntimeError: NCCL communicator membership cannot change while work is pending"),
        ["unclassified_failure", "dropped_rank"], None),
    "shrink_exclude_all_ranks": (
        _failed([0, 1], 2, "ValueError: Cannot exclude all ranks from an NCCL communicator"), ["unclassified_failure"],
        None),
    "symm_mem_overlapping_devices": (
        _failed([0, 1, 2, 3], 4, "RuntimeError: CUDASymmetricMemoryAllocator::rendezvous: detected allocations from "
                "overlapping devices from different ranks."), ["unclassified_failure"], None),
    # the rule's limits: one rank's own exception, or two ranks' different ones, are still those ranks' deaths
    "same_program_two_different_exceptions": (
        _raised([1], "KeyError: 'input_ids'") + _failed([2], 4, "ValueError: batch 1812 is empty"),
        ["dropped_rank"], [1, 2]),
    "same_exception_two_ranks_peers_hang": (
        _raised([1, 2], "KeyError: 'input_ids'") + _timeouts([0, 3], 41, "ALLREDUCE"), ["dropped_rank"], [1, 2]),
}


@pytest.mark.parametrize("name", CASES)
def test_verdict(name, tmp_path):
    check_case(tmp_path, CASES[name])
