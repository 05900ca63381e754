"""Verdicts on lines ncclf did not read, or read wrong, before catalogue round srcmined17; each message read in its
source and put in a console written around it (torch 2.2-2.9, SGLang, vLLM).

- ProcessGroupNCCL's watchdog in each wording: `Exception (either an error or timeout) detected by watchdog` (2.2 -
  2.5), the late-2024 main pair `Work timeout is detected by watchdog at work: N` / `NCCL error is detected by
  watchdog at work: N` (the 2.6.0.dev nightlies; no release prints them), `failure detected by watchdog at work
  sequence id` (2.6+) with `Stack trace of the failed collective` and `First PG on this rank to signal dumping`.
  The NCCL-error line is a failure but no timeout (X901 reads it, T601 does not).
- getNCCLComm's refusals, which say `NCCL Communicator` and are raised as DistBackendError yet ran no communication
  (no device named; a tensor off the device init_process_group bound), and GroupRegistry's unknown or destroyed group
  names: usage errors, the rank's end an exception, not a communication error; a rank that alone raised one while its
  peers timed out waiting for it is their cause (rank_state._usage_left_peers).
- Functional collectives (`_functional_collectives.wait_tensor`) and compiled autograd (reducer.cpp, engine.cpp).
- SGLang's scheduler watchdog and ProcessWatchdog on every TP rank: the whole forward stalled, no one stuck rank.
"""
from __future__ import annotations

import pytest

from .consoles import NO_TRACEBACK, PROGRESS, check_case, console_verdict, failure_table, per_rank

HEALTHY = ("none", "inconclusive")
_PG = "[PG ID 0 PG GUID 0(default_pg) Rank {r}]"
_TERM = "W1127 03:14:51.861000 4411 torch/distributed/elastic/multiprocessing/api.py:897] Sending process {} closing " \
        "signal SIGTERM\n"
_TRAIN = ('Traceback (most recent call last):\n  File "/workspace/train.py", line 161, in main\n'
          "    train_step(model, batch, optimizer)\n")
_WAIT_TENSOR = ('  File "/opt/conda/lib/python3.11/site-packages/torch/distributed/_functional_collectives.py", line '
                "144, in wait_tensor\n    return torch.ops._c10d_functional.wait_tensor(tensor)\n")
_BACKWARD = ('  File "/opt/conda/lib/python3.11/site-packages/torch/autograd/graph.py", line 829, in '
             "_engine_run_backward\n    return Variable._execution_engine.run_backward(\n")


def _raised(ranks, exception: str, frames: str = "") -> str:
    return per_rank(_TRAIN + frames + exception + "\n", list(ranks))


def _ended(rank: int, others=(), exitcode: int = 1) -> str:
    return ("".join(_TERM.format(5000 + r) for r in others)
            + failure_table("train.py", "2026-11-27_03:14:51", "gpu-node-07", rank, rank, exitcode, 5000 + rank,
                            NO_TRACEBACK if exitcode > 0 else None, end="\n"))


def _record(r: int, seq: int, op: str = "ALLREDUCE", numel: int = 1048576) -> str:
    return (f"[rank{r}]:[E1127 03:24:51.101224 ProcessGroupNCCL.cpp:632] [Rank {r}] Watchdog caught collective "
            f"operation timeout: WorkNCCL(SeqNum={seq}, OpType={op}, NumelIn={numel}, NumelOut={numel}, "
            "Timeout(ms)=600000) ran for 600037 milliseconds before timing out.\n")


def _nightly(r: int, words: str, seq: int, enqueued: int, pg: str = _PG) -> str:
    return (f"[rank{r}]:[E1127 03:24:51.111224 ProcessGroupNCCL.cpp:1763] {pg.format(r=r)} {words} is detected by "
            f"watchdog at work: {seq}, last enqueued NCCL work: {enqueued}, last completed NCCL work: {seq - 1}.\n")


def _v26(r: int, seq: int) -> str:
    return (f"[rank{r}]:[E1127 03:24:51.201224 ProcessGroupNCCL.cpp:2168] {_PG.format(r=r)}  failure detected by "
            f"watchdog at work sequence id: {seq} PG status: last enqueued work: {seq}, last completed work: {seq - 1}\n")


def _teardown(r: int) -> str:
    return (f"[rank{r}]:[E1127 03:24:51.205521 ProcessGroupNCCL.cpp:630] [Rank {r}] Some NCCL operations have failed or "
            "timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on "
            f"corrupted/incomplete data.\n[rank{r}]:[E1127 03:24:51.205530 ProcessGroupNCCL.cpp:636] [Rank {r}] To "
            "avoid data inconsistency, we are taking the entire process down.\n")


def _oom(gpu: int) -> str:
    return (f"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.50 GiB. GPU {gpu} has a total capacity "
            "of 79.11 GiB of which 812.00 MiB is free. Of the allocated memory 74.02 GiB is allocated by PyTorch, and "
            "2.61 GiB is reserved by PyTorch but unallocated.")


_REMOTE = ("Process group watchdog thread terminated with exception: NCCL error: remote process exited or there was a "
           "network error, NCCL version 2.21.5\nncclRemoteError: A call failed possibly due to a network error or a "
           "remote process exiting prematurely.\nLast error:\nNET/IB : Got completion from peer 10.20.3.12<51932> with "
           "status=IBV_WC_RETRY_EXC_ERR(12) opcode=IBV_WC_SEND(0) reqSize=0 vendor_err=129 req_type=Send\n")
_BOUND = "[rank{r}]:[E1127 03:10:31.430112 ProcessGroupNCCL.cpp:2284] " + _PG + \
    " Tensor found on device cuda:0 but backend constrained to cuda:{r}\n"
_NOT_BOUND = "torch.distributed.DistBackendError: Attempt to perform collective on tensor not on device passed to " \
    "init_process_group"
_STUCK = (" ProcessGroupNCCL's watchdog got stuck for 480 seconds without making progress in monitoring enqueued "
          "collectives. This typically indicates a NCCL/CUDA API (e.g., CudaEventDestroy) hang blocking the watchdog.\n")
_SIGQUIT = "[2026-01-29 13:12:42] Received sigquit from a child process. It usually means the child failed.\n"

CASES = {
    # ---- the watchdog's wordings
    "nightly_work_timeout_one_rank_silent": (
        "".join(_record(r, 41) + _nightly(r, "Work timeout", 41, 41) for r in (0, 1, 3))
        + "".join(map(_teardown, (0, 1, 3))) + _ended(0, (1, 2, 3), -6), ("stuck_rank", "timeout_unknown"), None),
    "nightly_work_timeout_status_lines_only": (
        "".join(_nightly(r, "Work timeout", 1877, 1879, "[PG ID 2 PG GUID 5(TENSOR_PARALLEL) Rank {r}]")
                for r in range(4)) + "".join(map(_teardown, range(4))) + _ended(2, (), -6),
        ("timeout_unknown", "stuck_rank"), None),
    "nightly_work_timeout_snippet": (
        _nightly(0, "Work timeout", 88, 88, "[PG ID 1 PG GUID 1 Rank {r}]")
        + _nightly(1, "Work timeout", 88, 90, "[PG ID 1 PG GUID 1 Rank {r}]"), ("timeout_unknown", "stuck_rank"), None),
    "nightly_nccl_error_remote_ib": (
        "".join(_nightly(r, "NCCL error", 1203, 1204) + per_rank(f"{_PG.format(r=r)} {_REMOTE}", [r])
                for r in (0, 2, 3)) + _ended(0, (), -6), ("network_error", "dropped_rank"), None),
    "nightly_nccl_error_lines_and_teardown": (
        "".join(_nightly(r, "NCCL error", 12, 12) for r in range(4)) + "".join(map(_teardown, range(4)))
        + _ended(0, (1, 2, 3), -6), ("unclassified_failure", "network_error"), None),
    "nightly_nccl_error_snippet": (_nightly(3, "NCCL error", 5, 5), ("unclassified_failure", "network_error"), None),
    "v26_failure_detected_every_rank": (
        "".join(_record(r, 5, numel=1) + _v26(r, 5) + f"[rank{r}]:[E1127 03:24:51.211224 ProcessGroupNCCL.cpp:667] "
                "Stack trace of the failed collective not found, potentially because FlightRecorder is disabled. You "
                "can enable it by setting TORCH_NCCL_TRACE_BUFFER_SIZE to a non-zero value.\n" for r in range(4))
        + _ended(0, (1, 2, 3), -6), ("timeout_unknown", "stuck_rank"), None),
    "v27_stack_trace_after_peer_oom": (
        _raised([1], _oom(1)) + _record(0, 59958) + _v26(0, 59958)
        + "[rank0]:[E1127 03:24:51.201224 ProcessGroupNCCL.cpp:801] Stack trace of the failed collective: \n"
          "#0 all_reduce from /opt/conda/lib/python3.11/site-packages/torch/distributed/distributed_c10d.py:2806\n"
          "#1 _sync_params from /workspace/train.py:74\n\n" + _teardown(0) + _ended(1), ("oom",), [1]),
    "v26_first_pg_to_signal_after_rank_io_error": (
        _raised([3], "OSError: [Errno 5] Input/output error: '/mnt/lustre/shards/shard-01822.tar'")
        + "".join(_record(r, 902, numel=2) + _v26(r, 902) for r in range(3))
        + f"[rank1]:[E1127 03:24:51.301224 ProcessGroupNCCL.cpp:2106] {_PG.format(r=1)} First PG on this rank to "
          "signal dumping.\n" + _ended(3), ("unclassified_failure", "dropped_rank"), [3]),
    "heartbeat_watchdog_stuck_every_rank": (
        "".join(f"[rank{r}]:[E1127 03:24:51.001224 ProcessGroupNCCL.cpp:1743] {_PG.format(r=r)}{_STUCK}"
                for r in range(4)) + _ended(0, (1, 2, 3), -6), ("timeout_unknown", "stuck_rank"), None),
    # ---- `NCCL Communicator` in a usage error
    "bound_device_three_ranks": (
        "".join(_BOUND.format(r=r) for r in (1, 2, 3)) + _raised((1, 2, 3), _NOT_BOUND) + _ended(1, (0,)),
        ("unclassified_failure",), None),
    "bound_device_one_rank_peers_time_out": (
        _BOUND.format(r=3) + _raised([3], _NOT_BOUND) + "".join(_record(r, 64, "BROADCAST") + _v26(r, 64)
                                                                for r in range(3)) + _ended(3),
        ("unclassified_failure", "dropped_rank"), [3]),
    "communicator_devices_not_known": (
        _raised([0, 1], "torch.distributed.DistBackendError: Not able to create/get the NCCL Communicator since the "
                "GPU devices are not known") + _ended(0, (1,)), ("unclassified_failure",), None),
    "communicator_aborted_without_reason": (
        _raised(range(4), "torch.distributed.DistBackendError: NCCL communicator was aborted on rank 0. ")
        + _ended(0, (1, 2, 3)), ("unclassified_failure",), None),
    "funcol_group_destroyed": (
        _raised(range(4), "RuntimeError: Process group registered under the name 3 has already been destroyed.")
        + _ended(0, (1, 2, 3)), ("unclassified_failure",), None),
    "funcol_group_name_unknown": (
        _raised(range(4), "RuntimeError: Could not resolve the process group registered under the name 16")
        + _ended(0, (1, 2, 3)), ("unclassified_failure",), None),
    # ---- functional collectives and compiled autograd
    "funcol_wait_tensor_blocking_timeout": (
        "".join(_raised([r], f"torch.distributed.DistBackendError: [PG ID 1 PG GUID 1 Rank {r}] Work WorkNCCL("
                        "SeqNum=212, OpType=_ALLGATHER_BASE, NumelIn=4194304, NumelOut=16777216, Timeout(ms)=600000) "
                        "timed out in blocking wait.", _WAIT_TENSOR) for r in (0, 2, 3)) + _ended(0, (1,)),
        ("stuck_rank", "timeout_unknown"), None),
    "compiled_autograd_cpp_ddp_reducer": (
        _raised(range(4), 'RuntimeError: Compiled autograd is not compatible with C++ DDP Reducer, please use '
                'torch._dynamo.config.optimize_ddp="python_reducer".', _BACKWARD) + _ended(0, (1, 2, 3)),
        ("unclassified_failure",), None),
    "compiled_autograd_threads_in_backward": (
        _raised([0, 1], "RuntimeError: compiled_autograd.enable() requires no threads in backwards()")
        + _ended(0, (1,)), ("unclassified_failure",), None),
    "compiled_autograd_backward_oom": (
        _raised([2], _oom(2), _BACKWARD + '  File "/opt/conda/lib/python3.11/site-packages/torch/_dynamo/'
                'compiled_autograd.py", line 891, in runtime_wrapper\n')
        + "".join(_record(r, 3311, "_REDUCE_SCATTER_BASE") + _v26(r, 3311) for r in (0, 1, 3)) + _ended(2),
        ("oom",), [2]),
    # ---- the serving stacks' own watchdogs
    "sglang_process_watchdog_every_tp_rank": (
        "".join(f"[2026-01-29 13:12:37 TP{tp}] Scheduler watchdog timeout (self.watchdog_timeout=300, self.soft=False)\n"
                for tp in range(8)) + _SIGQUIT + "Killed\n", ("timeout_unknown",), None),
    "sglang_scheduler_watchdog_every_tp_rank": (
        "".join(f"[2025-03-09 00:57:15 TP{tp}] self.cur_batch.batch_size()=32, self.cur_batch.reqs=[Req(rid=8d1e)], \n"
                f"[2025-03-09 00:57:15 TP{tp}] Watchdog timeout (self.watchdog_timeout=300)\n" for tp in range(4))
        + _SIGQUIT, ("timeout_unknown",), None),
    "sglang_watchdog_after_one_scheduler_cuda_fault": (
        "[2025-06-02 10:11:05 TP3] Scheduler hit an exception: Traceback (most recent call last):\n"
        '  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 2311, in run_scheduler_process\n'
        "    scheduler.event_loop_overlap()\nRuntimeError: CUDA error: an illegal memory access was encountered\n\n"
        + "".join(f"[2025-06-02 10:16:07 TP{tp}] Watchdog timeout (self.watchdog_timeout=300)\n" for tp in range(3))
        + _SIGQUIT, ("dropped_rank", "unclassified_failure"), None),
    "vllm_worker_oom_others_wait": (
        "(VllmWorker rank=2 pid=8122) ERROR 11-26 16:54:40 [multiproc_executor.py:546] WorkerProc hit an exception.\n"
        f"(VllmWorker rank=2 pid=8122) ERROR 11-26 16:54:40 [multiproc_executor.py:546] {_oom(2)}\n"
        + "".join(f"(VllmWorker rank={w} pid={8120 + w}) INFO 11-26 16:55:45 [shm_broadcast.py:681] No available shared "
                  "memory broadcast block found in 60 seconds. This typically happens when some processes are hanging "
                  "or doing some time-consuming work (e.g. compilation).\n" for w in (0, 1, 3)), ("oom",), None),
    # ---- c10d's exit warning on a job that finished
    "destroy_process_group_not_called_warning": (
        "[rank0]: training complete: 1000 steps, final loss 1.402\n[rank0]:[W1127 04:51:02.995209091 "
        "ProcessGroupNCCL.cpp:1496] Warning: WARNING: destroy_process_group() was not called before program exit, "
        "which can leak resources. For more info, please see https://pytorch.org/docs/stable/distributed.html#shutdown "
        "(function operator())\nI1127 04:51:05.118000 4411 torch/distributed/elastic/agent/server/api.py:946] Done "
        "waiting for other agents. Elapsed: 0.0051 seconds\n", HEALTHY, None),
}


@pytest.mark.parametrize("name", CASES)
def test_verdict(name, tmp_path):
    check_case(tmp_path, CASES[name])


@pytest.mark.parametrize("name", ["bound_device_three_ranks", "communicator_devices_not_known", "funcol_group_destroyed"])
def test_a_usage_error_that_names_the_communicator_ends_its_ranks_in_an_exception(name, tmp_path):
    from nccl_forensics.pipeline.reduce import diagnose
    (tmp_path / "console.log").write_text(PROGRESS + CASES[name][0], encoding="utf-8")
    ranks = diagnose([str(tmp_path)], jobs=1).ranks
    raised = [st for st in ranks.values() if st.end_kind == "traceback"]
    assert raised and all(st.end == "exception" and not st.cause for st in raised)


def test_the_nightly_nccl_error_line_is_no_timeout(tmp_path):
    verdict = console_verdict(tmp_path, CASES["nightly_nccl_error_snippet"][0], "")
    assert verdict.cls == "unclassified_failure" and "timed out" not in verdict.summary, verdict.summary
