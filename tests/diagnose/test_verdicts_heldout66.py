"""Held-out set 66: pastes from accelerate, LLaMA-Factory, ms-swift, Lightning, NeMo, YOLO, horovod and vLLM under WSL,
single-node desktops and jobs that only looked alarming. One verdict test per case, then what the set showed:

- NVML's own library that NCCL cannot load (`Failed to open libnvidia-ml.so.1`, misc/nvmlwrap.cc 2.3.5 - 2.29; 2.30's
  src/os/linux.cc adds dlerror's text) is the host's setup under ncclSystemError, as `nvmlInit_v2() failed` is, not the
  network: catalogue nccl.nvml_library_missing. torch quotes it on the line after `Last error:`.
- torch 1.8 - 1.9 print a watchdog timeout without SeqNum or group (`WorkNCCL(OpType=ALLREDUCE, Timeout(ms)=...)`).
  Where every rank printed one such record, those records stand at one point of one group
  (rows.seqless_timeouts_meet), so rank 0 in ALLREDUCE while five others wait in BROADCAST is an op mismatch, not an
  unexplained timeout. A rank with two different records (several groups pending) keeps every record out.
"""
from __future__ import annotations

import pytest

from nccl_forensics.diagnosis.rows import seqless_timeouts_meet
from nccl_forensics.model import Confidence, Event
from nccl_forensics.sources.catalogue import match

from .consoles import PROGRESS, console_verdict

_OLD = ("[E ProcessGroupNCCL.cpp:566] [Rank {rank}] Watchdog caught collective operation timeout: WorkNCCL(OpType={op}, "
        "Timeout(ms)=1800000) ran for {ran} milliseconds before timing out.\n")


def _old_timeouts(*records: tuple[int, str, int]) -> str:
    return "".join(_OLD.format(rank=rank, op=op, ran=ran) for rank, op, ran in records)


CASES = [
    ("hiyouga/LlamaFactory#6161", ("unclassified_failure", "version_mismatch"),
     "[rank1]:     work = group.barrier(opts=opts)\n"
     "[rank1]: torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:317, un\n"
     "handled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.21.5\n"
     "[rank1]: ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error.\n"
     "[rank1]: Last error:\n"
     "[rank1]: Failed to open libnvidia-ml.so.1\n"),
    ("huggingface/accelerate#157", ("op_mismatch",),
     _old_timeouts((0, "ALLREDUCE", 1801060), (1, "BROADCAST", 1801140), (3, "BROADCAST", 1801177),
                   (7, "BROADCAST", 1801209), (2, "BROADCAST", 1801215), (4, "BROADCAST", 1801218))
     + "Traceback (most recent call last):\n  File \"train.py\", line 110, in <module>\n"),
    ("NVIDIA/nccl#1409", ("op_mismatch", "collective_skipped"),
     "[rank7]:[E816 01:45:40.183009389 ProcessGroupNCCL.cpp:607] [Rank 7] Watchdog caught collective operation "
     "timeout: WorkNCCL(SeqNum=80078, OpType=BROADCAST, NumelIn=5056, NumelOut=5056, Timeout(ms)=600000) ran for "
     "600026 milliseconds before timing out.\n"
     "[rank3]:[E816 01:45:40.212150935 ProcessGroupNCCL.cpp:607] [Rank 3] Watchdog caught collective operation "
     "timeout: WorkNCCL(SeqNum=80078, OpType=ALLREDUCE, NumelIn=2106881, NumelOut=2106881, Timeout(ms)=600000) ran "
     "for 600013 milliseconds before timing out.\n"),
    ("WongKinYiu/yolov9#539", ("timeout_unknown", "stuck_rank"),
     "RuntimeError: NCCL communicator was aborted on rank 5.  Original reason for failure was: [Rank 5] Watchdog "
     "caught collective operation timeout: WorkNCCL(OpType=ALLREDUCE, Timeout(ms)=1800000) ran for 1800849 "
     "milliseconds before timing out.\n"
     "terminate called after throwing an instance of 'std::runtime_error'\n"
     "  what():  [Rank 7] Watchdog caught collective operation timeout: WorkNCCL(OpType=ALLREDUCE, "
     "Timeout(ms)=1800000) ran for 1800895 milliseconds before timing out.\n"),
    ("modelscope/ms-swift#3611", ("dropped_rank",),
     "failed (exitcode: -11) local_rank: 1 (pid: 367727) of binary: /data/alg/projects/ms-swift/swift_env/bin/"
     "python3.11\n"),
]


@pytest.mark.parametrize("issue,want,text", CASES, ids=[case[0] for case in CASES])
def test_each_case_of_the_set(issue, want, text, tmp_path):
    assert console_verdict(tmp_path, text, progress="").cls in want


@pytest.mark.parametrize("issue,want,text", CASES, ids=[case[0] for case in CASES])
def test_progress_before_the_failure_changes_nothing(issue, want, text, tmp_path):
    assert console_verdict(tmp_path, text, PROGRESS).cls in want


def test_the_odd_rank_of_seqless_timeouts_is_the_culprit_at_medium_confidence(tmp_path):
    """Their one point rests on the job having one group: the finding says so and claims no more than medium."""
    verdict = console_verdict(tmp_path, CASES[1][2])
    assert (verdict.cls, verdict.culprit_ranks) == ("op_mismatch", [0]), verdict.summary
    assert verdict.confidence == Confidence.MEDIUM
    assert "prints no sequence number" in verdict.summary


@pytest.mark.parametrize("line,reason", [
    ("gpu0301:842624:842643 [0] misc/nvmlwrap.cc:74 NCCL WARN Failed to open libnvidia-ml.so.1", None),
    ("[rank1]: Failed to open libnvidia-ml.so.1", None),
    ("node3:1201:1290 [0] os/linux.cc:615 NCCL WARN Failed to open libnvidia-ml.so.1: libnvidia-ml.so.1: cannot open "
     "shared object file: No such file or directory",
     "libnvidia-ml.so.1: cannot open shared object file: No such file or directory"),
])
def test_nvml_library_missing_as_each_version_prints_it(line, reason):
    [hit] = [h for h in match(line) if h.message.id == "nccl.nvml_library_missing"]
    assert hit.fields.get("reason") == reason
    assert hit.message.data.get("setup") is True


@pytest.mark.parametrize("line", ["NCCL INFO Loaded NVML from libnvidia-ml.so.1",
                                  "Failed to open libibverbs.so[.1]"])
def test_near_misses_of_nvml_library_missing(line):
    assert not [h for h in match(line) if h.message.id == "nccl.nvml_library_missing"]


def _timeout(rank: int, op: str, ran: int, **extra) -> Event:
    return Event(kind="watchdog_timeout", source="torch", file="c.log", line=rank + 1, rank=rank,
                 data={"op": op, "timeout_ms": 1800000, "elapsed_ms": ran, **extra})


@pytest.mark.parametrize("events,meet", [
    ([_timeout(0, "allreduce", 5), _timeout(1, "broadcast", 6)], True),
    # the same record twice (the line, then `what():`) is one record
    ([_timeout(0, "allreduce", 5), _timeout(0, "allreduce", 5), _timeout(1, "broadcast", 6)], True),
    # a rank with two records had several groups pending: nothing says which is whose
    ([_timeout(0, "allreduce", 5), _timeout(0, "broadcast", 9), _timeout(1, "broadcast", 6)], False),
    ([_timeout(0, "allreduce", 5)], False),
    # records that carry their sequence number or group are placed by it
    ([_timeout(0, "allreduce", 5, seq=7), _timeout(1, "broadcast", 6, seq=7)], False),
    ([_timeout(0, "allreduce", 5, pg_id=1), _timeout(1, "broadcast", 6, pg_id=1)], False),
])
def test_seqless_timeouts_meet_only_as_one_record_a_rank(events, meet):
    assert seqless_timeouts_meet(events) is meet


def test_seqless_timeouts_of_a_rank_with_two_records_stay_unexplained(tmp_path):
    text = _old_timeouts((0, "ALLREDUCE", 1801060), (0, "BROADCAST", 1805000), (1, "BROADCAST", 1801140),
                         (2, "BROADCAST", 1801150))
    assert console_verdict(tmp_path, text).cls == "timeout_unknown"


def test_seqless_timeouts_of_one_op_are_no_mismatch(tmp_path):
    text = _old_timeouts((0, "ALLREDUCE", 1801060), (1, "ALLREDUCE", 1801140), (2, "ALLREDUCE", 1801150))
    assert console_verdict(tmp_path, text).cls in ("timeout_unknown", "stuck_rank")
