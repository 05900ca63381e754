"""Families missed on held-out set 19 (failure output quoted on Q&A, vendor, blog and docs pages, as short
fragments), each in the forms it arrives in:

- torch's `NCCL communicator was aborted on rank N. Original reason for failure was: <reason>` (NCCLUtils
  getNcclComm, 1.9 - 2.13) quotes the watchdog's reason. A reason that says it timed out, in words other than the
  watchdog record (which is read on its own), proves a timeout; any other reason stays a consequence.
- The watchdog record with fields elided before OpType (`WorkNCCL(..., OpType=ALLREDUCE, ...)`), as pages and users
  shorten it: still a watchdog timeout.
- The OOM killer's victim line in kernels before 4.19 as the sources print it: 2.6.2x - 2.6.35 `<reason>: kill process
  N (comm) score S or a child` (lowercase), and `Out of memory (oom_kill_allocating_task): Kill process ...`; only
  `Kill process ... or sacrifice child` and `... and children.` were read.
"""
from __future__ import annotations

import pytest

from .consoles import console_verdict


@pytest.mark.parametrize("line", [
    "RuntimeError: NCCL communicator was aborted on rank 2. Original reason for failure was: Timeout at NCCL work: "
    "12, last enqueued NCCL work: 12, last completed NCCL work: 11.",
    "torch.distributed.DistBackendError: NCCL communicator was aborted on rank 0.  Original reason for failure was: "
    "watchdog callback timed out",
    "NCCL communicator was aborted on rank 5. Original reason for failure was: Operation timed out!",
])
def test_abort_whose_reason_timed_out_is_a_timeout(line, tmp_path):
    verdict = console_verdict(tmp_path, line, progress="")
    assert verdict.cls == "timeout_unknown", verdict.summary
    assert not verdict.culprit_ranks            # the rank that reports is not shown to be the one behind


@pytest.mark.parametrize("line", [
    "RuntimeError: NCCL communicator was aborted on rank 3.",
    "RuntimeError: NCCL communicator was aborted on rank 3. Original reason for failure was: NCCL error: unhandled "
    "cuda error, NCCL version 2.10.3",
    "RuntimeError: NCCL communicator was aborted on rank 1. Original reason for failure was: NCCL error: unhandled "
    "system error, NCCL version 2.14.3 Last error: socketPollConnect: Connect to 10.0.0.2<43123> failed : Connection "
    "timed out",
    "RuntimeError: NCCL communicator was aborted on rank 1. Original reason for failure was: CUDA error: the launch "
    "timed out and was terminated",
])
def test_abort_without_a_timeout_reason_is_not_read_as_a_timeout(line, tmp_path):
    assert console_verdict(tmp_path, line, progress="").cls != "timeout_unknown"


def test_abort_quoting_the_watchdog_record_gives_one_timeout_event(tmp_path):
    from nccl_forensics.sources import catalogue
    line = ("RuntimeError: NCCL communicator was aborted on rank 3.  Original reason for failure was: [Rank 3] "
            "Watchdog caught collective operation timeout: WorkNCCL(SeqNum=880, OpType=BROADCAST, NumelIn=1, "
            "NumelOut=1, Timeout(ms)=1800000) ran for 1800875 milliseconds before timing out.")
    kinds = [h.message.kind for h in catalogue.match(line)]
    assert kinds.count("watchdog_timeout") == 1
    assert console_verdict(tmp_path, line, progress="").cls == "timeout_unknown"


@pytest.mark.parametrize("line", [
    "Watchdog caught collective operation timeout: WorkNCCL(..., OpType=ALLREDUCE, Timeout(ms)=600000) ran for ... "
    "ms before timing out.",
    "[Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=7, ..., OpType=ALLGATHER, NumelIn=8, "
    "NumelOut=16, Timeout(ms)=60000) ran for 60042 milliseconds before timing out.",
])
def test_watchdog_record_with_elided_fields_is_a_timeout(line, tmp_path):
    verdict = console_verdict(tmp_path, line, progress="")
    assert verdict.cls == "timeout_unknown", verdict.summary


@pytest.mark.parametrize("line", [
    # mm/oom_kill.c oom_kill_process, 2.6.2x - 2.6.35: the victim chosen in lowercase, `or a child` (once with a `.`)
    "[ 1234.567890] Out of memory: kill process 4021 (python) score 951 or a child",
    "Out of memory: kill process 4021 (python) score 951 or a child.",
    # 2.6.36 - 4.18 with sysctl oom_kill_allocating_task set
    "Out of memory (oom_kill_allocating_task): Kill process 4021 (python) score 0 or sacrifice child",
])
def test_oom_killer_choosing_its_victim_in_older_kernels_is_an_oom(line, tmp_path):
    verdict = console_verdict(tmp_path, line, progress="")
    assert verdict.cls == "oom", verdict.summary
