"""Families missed on held-out set 17 (failure output quoted on forum and Q&A pages, vendor and HPC-centre docs),
each in the forms it arrives in:

- Slurm's task/cgroup OOM report as it prints it, `Detected N oom-kill event(s) in StepId=J.S` or (older releases)
  `... in step J.S cgroup`: the `(s)` was not read, so the line said nothing.
- gloo's TCP device finding no local address (tcp/device.cc): `Unable to find address for: <iface>` (the interface
  GLOO_SOCKET_IFNAME names has none), `Unable to find address for <host>; bind(2) for <addr> failed with: <error>`
  and `Unable to find interface for: [<addr>]` (the hostname's address is on no local interface): the interface
  choice is wrong (nic_misselection), as NCCL's `no device found matching ...`.
- NCCL's `unlink shared memory <path> failed, error: ...` (2.16 - 2.30; WARN and ncclSystemError on close/unlink,
  systemd's RemoveIPC removing /dev/shm files): a failure of no class of its own. The same words at INFO (2.22+, the
  last peer's unlink at open) are not an error.
- NCCL's `Error : ring N does not loop back to start (A != B)` (2.3.5 - 2.30, ncclInternalError at init): a failure.
- torchrun's `...elastic.multiprocessing.api:failed (exitcode: N)` quoted without the rest of its line: a worker
  that failed (exit code -9: killed by SIGKILL).
"""
from __future__ import annotations

import pytest

from .consoles import console_verdict


@pytest.mark.parametrize("line", [
    "slurmstepd: error: Detected 1 oom-kill event(s) in StepId=14604003.0 cgroup. Some of your processes may have "
    "been killed by the cgroup out-of-memory handler.",
    "slurmstepd: error: Detected 1 oom-kill event(s) in step 370626.batch cgroup",
    "slurmstepd: error: Detected 1587 oom-kill event(s) in StepId=1108728.batch. Some of your processes may have "
    "been killed by the cgroup out-of-memory handler.",
])
def test_slurm_oom_kill_events_are_an_oom(line, tmp_path):
    verdict = console_verdict(tmp_path, line)
    assert verdict.cls == "oom", verdict.summary


@pytest.mark.parametrize("line", [
    "RuntimeError: [enforce fail at ../third_party/gloo/gloo/transport/tcp/device.cc:83] ifa != nullptr. Unable to "
    "find address for: vx00",
    "RuntimeError: [enforce fail at gloo/transport/tcp/device.cc:212] ifa != nullptr. Unable to find interface for: "
    "[141.61.29.117]",
    "Unable to find interface for: [0.0.12.18]",
    "RuntimeError: [enforce fail at ../third_party/gloo/gloo/transport/tcp/device.cc:127] bind_rv == 0. Unable to "
    "find address for node-3; bind(2) for [10.1.2.3]:0 failed with: Cannot assign requested address",
])
def test_gloo_finding_no_local_address_is_a_nic_misselection(line, tmp_path):
    verdict = console_verdict(tmp_path, line)
    assert verdict.cls == "nic_misselection", verdict.summary
    assert "gloo" in verdict.summary


@pytest.mark.parametrize("line", [
    "node-1:2210:2210 [0] misc/shmutils.cc:140 NCCL WARN unlink shared memory /dev/shm/nccl-d5rTd0 failed, error: "
    "No such file or directory",
    "NCCL WARN unlink shared memory /dev/shm/nccl-d5rTd0 failed, error: No such file or directory (2)",
    "NCCL WARN Error : ring 0 does not loop back to start (12 != 0)",
])
def test_nccl_init_failures_of_no_class_are_failures(line, tmp_path):
    verdict = console_verdict(tmp_path, line)
    assert verdict.cls == "unclassified_failure", verdict.summary


def test_the_unlink_words_at_info_are_not_a_failure(tmp_path):
    line = ("node-1:2210:2210 [0] NCCL INFO unlink shared memory /dev/shm/nccl-d5rTd0 failed, error: No such file "
            "or directory (2)")
    verdict = console_verdict(tmp_path, line)
    assert verdict.cls != "unclassified_failure", verdict.summary


@pytest.mark.parametrize("line", [
    "torch.distributed.elastic.multiprocessing.api:failed (exitcode: -9)",
    "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -9)",
])
def test_torchruns_report_cut_after_its_exit_code_is_a_killed_worker(line, tmp_path):
    verdict = console_verdict(tmp_path, line)
    assert verdict.cls == "dropped_rank", verdict.summary
    assert "SIGKILL" in verdict.summary


def test_the_full_report_is_read_once():
    from nccl_forensics.sources import catalogue
    hits = catalogue.match("ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -9) local_rank: 0 "
                           "(pid: 1932) of binary: /usr/bin/python3")
    assert [h.message.id for h in hits if h.message.kind == "worker_failed"] == ["torchrun.worker_failed"]
