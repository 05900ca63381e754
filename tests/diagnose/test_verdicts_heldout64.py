"""Held-out set 64: real pastes of NCCL's own failures under several wrappers: nccl-tests over Open MPI (an IB
completion error), RCCL under torchrun, a SageMaker job's CloudWatch-prefixed console, gloo's address-family enforce,
Horovod/TensorFlow and PyTorch socket truncations (one WARN wrapped by the paste), NCCL builds split across hosts,
/dev/shm, WSL and an old RTX 3090 setup. One verdict test per case, then what the set showed:

- NCCL 2.12 - 2.29's ncclShmOpen (misc/shmutils.cc; os/linux.cc 2.30+) ends every failure with `Error while creating
  shared memory segment`, after the failing step's own WARN: a file it could not extend or map (no room), or CUDA
  refusing to register the mapped segment (`Cuda failure 'invalid argument'`, cudaHostRegister's CUDACHECKGOTO). M301
  read the second as a full /dev/shm; it leaves it to X901 now (detectors/oom.py `_cuda_call_refused`).
- A worker whose exit torchrun reports first (`failed (exitcode: 1) local_rank: 1 (pid: P)`) read as dropped_rank
  although that process had itself printed NCCL's failure (`host:P:tid ... NCCL WARN`): a process prints nothing
  after it exits, so its exit is that failure's end. rank_state now ends it as a communication error
  (`nccl_failures_by_pid`), and the NCCL failure decides.
"""
from __future__ import annotations

import pytest

from nccl_forensics.diagnosis.rank_state import _own_nccl_failure, nccl_failures_by_pid
from nccl_forensics.model import Event

from .consoles import check_case, console_verdict

_FAMILY = ("algo-1:17774:17862 [1] misc/socket.cc:717 NCCL WARN ncclSocketInit: connecting to address with family "
           "33022 is neither AF_INET(2) nor AF_INET6(10)\n"
           "algo-1:17774:17862 [1] NCCL INFO transport/net_socket.cc:331 -> 3\n")
_SIGTERMS = "".join(f"W1128 07:42:14.609000 17676 site-packages/torch/distributed/elastic/multiprocessing/api.py:897] "
                    f"Sending process {pid} closing signal SIGTERM\n" for pid in (17773, 17775, 17776))
_EXIT = ("E1128 07:42:15.588000 17676 site-packages/torch/distributed/elastic/multiprocessing/api.py:869] failed "
         "(exitcode: 1) local_rank: 1 (pid: 17774) of binary: /opt/conda/bin/python3.11\n")

CASES = [
    ("NVIDIA/nccl-tests#24", ("network_error",), None,
     "gpu5:35917:35994 [0] transport/net_ib.cu:788 NCCL WARN NET/IB : Got completion with error 12, opcode 1, len 0, "
     "vendor err 129\ngpu5:35917:35994 [0] NCCL INFO transport.cu:163 -> 2 [Proxy Thread]\n"
     "gpu5:35917:35917 [1] init.cu:194 NCCL WARN Cuda failure 'an illegal memory access was encountered'\n"
     "gpu5: Test NCCL failure common.cu:343 'unhandled cuda error'\n"),
    ("NVIDIA/nccl#1518", ("unclassified_failure",), None,
     "[1] misc/shmutils.cc:103 NCCL WARN Cuda failure 'invalid argument'\n\n"
     "[1] misc/shmutils.cc:114 NCCL WARN Error while creating shared memory segment /dev/shm/nccl-NzwJ7O (size "
     "9637888)\n\n[0] misc/shmutils.cc:103 NCCL WARN Cuda failure 'invalid argument'\n\n"
     "[0] misc/shmutils.cc:114 NCCL WARN Error while creating shared memory segment /dev/shm/nccl-ppufqI (size "
     "9637888)\n"),
    ("aws/aws-ofi-nccl#715", ("version_mismatch", "network_error", "unclassified_failure"), None,
     "".join(f"  | 2024-11-28T07:42:14.532Z | {line}\n" for line in _FAMILY.splitlines())
     + "".join(f"  | 2024-11-28T07:42:16.534Z | {line}\n" for line in (_SIGTERMS + _EXIT).splitlines())),
    ("NVIDIA/nccl#626", ("shape_mismatch", "version_mismatch"), None,
     "transport/net_socket.cc:424 NCCL WARN NET/Socket : peer 192.168.161.30<59210> message truncated :\n"
     "receiving 1048576 bytes instead of 65536\n"),
    ("pytorch/gloo#399", ("nic_misselection", "network_error"), None,
     "RuntimeError: [enforce fail at ../third_party/gloo/gloo/transport/tcp/[device.cc:276](http://device.cc:276/)] "
     "ss1.ss_family == ss2.ss_family. 2 vs 10\n"),
]


@pytest.mark.parametrize("issue,want,culprits,text", CASES, ids=[case[0] for case in CASES])
def test_each_case_of_the_set(issue, want, culprits, text, tmp_path):
    check_case(tmp_path, (text, want, culprits), progress="")


def test_an_exit_after_its_own_nccl_failure_is_that_failure(tmp_path):
    verdict = console_verdict(tmp_path, _FAMILY + _SIGTERMS + _EXIT, progress="")
    assert verdict.cls == "network_error", verdict.summary


def test_an_exit_whose_process_printed_no_nccl_failure_is_a_dropped_rank(tmp_path):
    # the WARN is another process's (pid 17779): the exiting worker's own error is unseen
    other = _FAMILY.replace(":17774:", ":17779:")
    verdict = console_verdict(tmp_path, other + _SIGTERMS + _EXIT, progress="")
    assert (verdict.cls, verdict.culprit_ranks) == ("dropped_rank", [1]), verdict.summary


def test_an_exit_whose_pid_printed_failures_on_two_hosts_is_not_read_as_either():
    # pids repeat across nodes (containers): an exit line that names no host is neither host's process
    warn = {"message": "connect failed", "meaning": "failure"}
    failures = nccl_failures_by_pid([Event("warn", "nccl", "a.log", 1, host=h, pid=7, data=dict(warn))
                                     for h in ("node-a", "node-b")])
    exit_line = Event("worker_failed", "torchrun", "a.log", 9, data={"pid": 7, "exitcode": 1})
    assert _own_nccl_failure(exit_line, failures) == ""
    named = Event("worker_failed", "torchrun", "a.log", 9, host="node-b.cluster", data={"pid": 7, "exitcode": 1})
    assert _own_nccl_failure(named, failures) == "connect failed"
