"""Kernel-log capture for the OOM reproducers: the start mark survives a full (wrapping) ring buffer."""
from __future__ import annotations

from nccl_forensics.reproducers import capture

# dmesg lines as a cgroup-v1 OOM kill printed them on this machine (FACTS.md, formats/evidence.md §OOM)
REPORT = [
    "[22163.588201] python3.11 invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0, oom_score_adj=0",
    ("[22163.588445] oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,mems_allowed=0,"
     "oom_memcg=/ncclf-1-2,task_memcg=/ncclf-1-2,task=python3.11,pid=4242,uid=0"),
    ("[22163.588510] Memory cgroup out of memory: Killed process 4242 (python3.11) total-vm:1072044kB, "
     "anon-rss:320800kB, file-rss:101832kB, shmem-rss:0kB, UID:0 pgtables:1208kB oom_score_adj:0"),
]


def test_an_oom_report_is_found_after_the_ring_buffer_wrapped(monkeypatch):
    before = [f"[{22000 + i}.000000] eth0: link up" for i in range(50)]
    monkeypatch.setattr(capture, "_dmesg", lambda: before)
    mark = capture.kernel_log_mark()
    assert mark == 22049.0
    full = before[len(REPORT):] + REPORT          # the buffer is full: as many old lines went as new ones came
    monkeypatch.setattr(capture, "_dmesg", lambda: full)
    assert capture.oom_kill_lines(mark, {4242}, None) == REPORT
    assert capture.oom_kill_lines(mark, set(), "ncclf-1-2") == REPORT
    assert capture.oom_kill_lines(mark, {17}, "ncclf-other") == []


def test_reports_from_before_the_mark_are_left_out(monkeypatch):
    monkeypatch.setattr(capture, "_dmesg", lambda: REPORT + ["[22200.000000] eth0: link up"])
    assert capture.oom_kill_lines(capture.kernel_log_mark(), {4242}, None) == []
    assert capture.oom_kill_lines(-1.0, {4242}, None) == REPORT
