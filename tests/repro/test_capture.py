"""The reproducers' kernel-log capture is `ncclf capture`'s (tests/capture/test_node.py has the filter itself)."""
from __future__ import annotations

from nccl_forensics.capture import node
from nccl_forensics.reproducers import capture

# dmesg lines as a cgroup-v1 OOM kill printed them on this machine (the kernel's mm/memcontrol.c wording)
REPORT = [
    "[22163.588201] python3.11 invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0, oom_score_adj=0",
    ("[22163.588445] oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,mems_allowed=0,"
     "oom_memcg=/ncclf-1-2,task_memcg=/ncclf-1-2,task=python3.11,pid=4242,uid=0"),
    ("[22163.588510] Memory cgroup out of memory: Killed process 4242 (python3.11) total-vm:1072044kB, "
     "anon-rss:320800kB, file-rss:101832kB, shmem-rss:0kB, UID:0 pgtables:1208kB oom_score_adj:0"),
]


def test_the_harness_keeps_the_oom_report_of_its_job_or_its_cgroup(monkeypatch):
    monkeypatch.setattr(node, "kernel_log", lambda: (["[22000.000000] eth0: link up"] + REPORT, "dmesg"))
    mark = capture.kernel_log_mark()
    assert mark == 22163.58851
    assert capture.oom_kill_lines(22000.0, {4242}, None) == REPORT
    assert capture.oom_kill_lines(22000.0, set(), "ncclf-1-2") == REPORT
    assert capture.oom_kill_lines(22000.0, {17}, "ncclf-other") == []
    assert capture.oom_kill_lines(mark, {4242}, None) == []
