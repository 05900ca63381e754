"""grammars/kernel.lark and sources/kernel.py: the kernel's mm/oom_kill.c, mm/memcontrol.c and kernel/hung_task.c (OOM killer, memcg OOM, hung tasks)."""
from __future__ import annotations

from pathlib import Path

import pytest

from nccl_forensics.model import Line, Source, SourceKind
from nccl_forensics.sources import parse_source
from nccl_forensics.sources.kernel import (
    KernelParser,
    looks_like_kernel,
    parse_kernel_line,
)

KERNEL = Path(__file__).resolve().parents[2] / "sample_logs" / "evidence" / "kernel"

LINES = [
    ("[2059991.490912] python3 invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, "
     "oom_score_adj=0", "oom_invoked", {"task": "python3", "gfp_mask": "0x140cca", "order": 0}, {"uptime_s": 2059991.490912}),
    ("Apr 25 06:31:56 gpu-node-3 kernel: [594646.252242] python invoked oom-killer: gfp_mask=0x14200ca"
     "(GFP_HIGHUSER_MOVABLE), nodemask=(null), order=0, oom_score_adj=0", "oom_invoked",
     {"task": "python", "oom_score_adj": 0}, {"host": "gpu-node-3"}),
    ("[  812.100021] python invoked oom-killer: gfp_mask=0x24000c0(GFP_KERNEL), nodemask=0-1, order=2, "
     "oom_score_adj=-998", "oom_invoked", {"order": 2, "oom_score_adj": -998}, {}),
    ("[Sat Nov 21 13:20:41 2026] oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,mems_allowed=0,"
     "oom_memcg=/ncclf_oom_rank1,task_memcg=/ncclf_oom_rank1,task=python3,pid=14023,uid=0", "summary",
     {"constraint": "CONSTRAINT_MEMCG", "oom_memcg": "/ncclf_oom_rank1", "pid": "14023"}, {"time": 1795267241.0}),
    ("[9.0] oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0-1,3,global_oom,"
     "task_memcg=/,task=x,pid=1,uid=0", "summary", {"mems_allowed": "0-1,3", "global_oom": True}, {}),
    ("2024-04-29T14:55:41,679712+02:00 Out of memory: Killed process 1440763 (perl) total-vm:16624040kB, "
     "anon-rss:15998724kB, file-rss:1792kB, shmem-rss:0kB, UID:21417 pgtables:31452kB oom_score_adj:0", "killed",
     {"victim_pid": 1440763, "task": "perl", "anon_rss_kb": 15998724, "reason": "Out of memory"},
     {"time": 1714395341.679712}),
    ("Memory cgroup out of memory: Killed process 14023 (python3) total-vm:221444kB, anon-rss:204160kB, "
     "file-rss:6316kB, shmem-rss:0kB, UID:0 pgtables:464kB oom_score_adj:0", "killed",
     {"reason": "Memory cgroup out of memory", "shmem_rss_kb": 0}, {}),
    ("[1.0] Out of memory (oom_kill_allocating_task): Killed process 9 (a b) total-vm:1kB, anon-rss:1kB, file-rss:0kB",
     "killed", {"task": "a b", "reason": "Out of memory"}, {}),
    ("[1.0] Killed process 178 (python) total-vm:60123456kB, anon-rss:50123456kB, file-rss:10240kB, shmem-rss:0kB",
     "killed", {"reason": None, "victim_pid": 178}, {}),
    ("[1.0] Out of memory: Kill process 178 (python) score 912 or sacrifice child", "selected", {"score": 912}, {}),
    ("[1.0] Task in /slurm/uid_1000/job_4242/step_0 killed as a result of limit of /slurm/uid_1000/job_4242", "memcg",
     {"memcg": "/slurm/uid_1000/job_4242"}, {}),
    ("[Sat Mar  4 04:10:52 2023] INFO: task python:280058 blocked for more than 120 seconds.", "hung_task",
     {"task": "python", "pid": 280058, "seconds": 120}, {"time": 1677903052.0}),
    ("[1.0] INFO: task kworker/u8:2:1234 blocked for more than 241 seconds.", "hung_task",
     {"task": "kworker/u8:2", "pid": 1234}, {}),
]




@pytest.mark.parametrize(("text", "kind", "fields", "stamps"), LINES, ids=[l[1] + str(i) for i, l in enumerate(LINES)])
def test_lines(text, kind, fields, stamps):
    got_stamps, (got_kind, data) = parse_kernel_line(text)
    assert got_kind == kind
    for key, value in fields.items():
        assert data[key] == value, key
    for key, value in stamps.items():
        assert got_stamps[key] == value, key


def _events(name, kind=SourceKind.KERNEL):
    result = parse_source(Source(str(KERNEL / name), kind))
    assert result.error is None and result.unparsed == 0
    return [e for e in result.events if e.source == "kernel"]


@pytest.mark.parametrize(("name", "kills"), [
    ("dmesg_global_oom_v6.log", [(25315, "python3", False, "CONSTRAINT_NONE", "/user.slice")]),
    ("dmesg_T_memcg_oom_cgroupv1.log", [(14023, "python3", True, "CONSTRAINT_MEMCG", "/ncclf_oom_rank1")]),
    ("dmesg_iso_global_oom.log", [(1440763, "perl", False, "CONSTRAINT_NONE", "/user.slice/user-21417.slice/user@21417.service")]),
    ("dmesg_prcont_split_summary.log", [(5096, "firewalld", False, "CONSTRAINT_NONE", "/")]),
    ("journalctl_k_sacrifice_child_4.x.log", [(178, "python", False, None, None)]),
    ("memcg_task_in_4.x.log", [(31337, "python", True, None, "/slurm/uid_1000/job_4242")]),
    ("oom_old_2.6.log", [(2217, "python", False, None, None)]),
])
def test_one_oom_kill_event_per_kill(name, kills):
    events = [e for e in _events(name) if e.kind == "oom_kill"]
    assert [(e.pid, e.data["task"], e.data["cgroup_oom"], e.data["constraint"], e.data["memcg"]) for e in events] == kills
    assert all(e.data["victim_pid"] == e.pid for e in events)


def test_oom_group_kills_every_task_of_the_container():
    events = [e for e in _events("memcg_oom_group_k8s.log") if e.kind == "oom_kill"]
    assert [e.pid for e in events] == [71002, 71001, 71003]
    assert all(e.data["cgroup_oom"] and e.data["memcg"].endswith("cri-containerd-5f1e2d3c4b5a.scope") for e in events)


def test_hung_task_and_its_detail_lines():
    events = _events("hung_task_dmesg_T.log")
    assert [(e.kind, e.pid, e.data["seconds"]) for e in events] == [("hung_task", 280058, 120)]


def test_summary_without_killed_line_still_names_the_victim():
    parser = KernelParser(Source("d.log", SourceKind.KERNEL))
    parser.feed(Line(1, "[1.5] oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0,"
                        "global_oom,task_memcg=/,task=python,pid=42,uid=0"))
    parser.finish()
    assert [(e.kind, e.pid, e.line) for e in parser.out] == [("oom_kill", 42, 1)]


def test_oom_looking_line_that_fits_no_rule_is_unparsed_and_noise_is_ignored():
    parser = KernelParser(Source("d.log", SourceKind.KERNEL))
    assert parser.feed(Line(1, "[1.0] oom-kill:")) is True
    assert parser.feed(Line(2, "[1.0] e1000e: eth0 NIC Link is Up 1000 Mbps Full Duplex")) is True
    assert [e.kind for e in parser.out] == ["unparsed"]


@pytest.mark.parametrize("text", ["step 1 loss 2.0", "Traceback (most recent call last):", "[rank0]: hello",
                                  "node1:1:1 [0] NCCL INFO x", "slurmstepd: error: *** JOB 1 ON n CANCELLED AT 2021-05-27T21:42:11 ***"])
def test_other_lines_are_not_claimed(text):
    assert not looks_like_kernel(text)
    assert KernelParser(Source("c.log", SourceKind.CONSOLE)).feed(Line(1, text)) is False


def test_kernel_lines_inside_a_console_file(tmp_path):
    path = tmp_path / "console.log"
    path.write_text("step 1\n" + (KERNEL / "dmesg_T_memcg_oom_cgroupv1.log").read_text())
    events = [e for e in parse_source(Source(str(path), SourceKind.CONSOLE)).events if e.kind == "oom_kill"]
    assert [(e.pid, e.line) for e in events] == [(14023, 8)]
