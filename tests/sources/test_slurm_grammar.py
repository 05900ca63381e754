"""grammars/slurm.lark and sources/slurm.py: Slurm's slurmstepd/srun sources and Kubernetes pod status."""
from __future__ import annotations

from pathlib import Path

import pytest

from nccl_forensics.model import Line, Source, SourceKind
from nccl_forensics.sources import parse_source
from nccl_forensics.sources.slurm import SlurmParser

EVIDENCE = Path(__file__).resolve().parents[2] / "sample_logs" / "evidence"

LINES = [
    ("slurmstepd: error: *** STEP 1999616.0 ON r6i4n5 CANCELLED AT 2021-05-27T21:42:11 DUE TO TIME LIMIT ***",
     "slurm_cancelled", {"job_id": "1999616", "step": "0", "reason": "TIME LIMIT", "time": "2021-05-27T21:42:11"},
     "r6i4n5"),
    ("slurmstepd: error: *** JOB 1999616 ON r6i4n5 CANCELLED AT 2021-05-27T21:42:11 DUE TO TIME LIMIT ***",
     "slurm_cancelled", {"step": None}, "r6i4n5"),
    ("slurmstepd: error: *** STEP 1943824.0 ON jean-zay-iam17 CANCELLED AT 2023-03-06T03:17:51 DUE TO NODE FAILURE, "
     "SEE SLURMCTLD LOG FOR DETAILS ***", "slurm_cancelled",
     {"reason": "NODE FAILURE, SEE SLURMCTLD LOG FOR DETAILS"}, "jean-zay-iam17"),
    ("slurmstepd: error: *** STEP 1809579.0 ON r8i3n1 CANCELLED AT 2021-05-23T08:45:57 ***", "slurm_cancelled",
     {"reason": "CANCELLED"}, "r8i3n1"),
    ("slurmstepd: error: *** JOB 4242 ON gpu07 CANCELLED AT 2025-06-01T10:00:00 DUE to SIGNAL Terminated ***",
     "slurm_cancelled", {"reason": "SIGNAL Terminated"}, "gpu07"),
    ("slurmstepd: error: *** STEP 4244.0 ON gpu09 FAILED (non-zero exit code or other failure mode) ***",
     "slurm_cancelled", {"reason": "FAILED", "time": None}, "gpu09"),
    ("slurmstepd: error: Detected 1 oom-kill event(s) in StepId=191.batch cgroup. Some of your processes may have "
     "been killed by the cgroup out-of-memory handler.", "slurm_oom", {"job_id": "191", "step": "batch", "count": 1}, None),
    ("slurmstepd: error: Detected 2 oom_kill events in StepId=JOBID.13. Some of the step tasks have been OOM Killed.",
     "slurm_oom", {"job_id": "JOBID", "step": "13", "count": 2}, None),
    ("slurmstepd: error: Detected 1 oom-kill event(s) in step 123.0 cgroup.", "slurm_oom", {"count": 1}, None),
    ("slurmstepd: error: StepId=555.0 exceeded memory limit (1073741824 > 536870912), being killed", "slurm_oom",
     {"used_bytes": 1073741824, "limit_bytes": 536870912}, None),
    ("srun: error: node107: task 0: Out Of Memory", "slurm_oom", {"task": "0"}, "node107"),
    ("srun: error: jean-zay-iam33: task 3: Exited with exit code 123", "slurm_exit",
     {"task": "3", "exitcode": 123, "signal": None}, "jean-zay-iam33"),
    ("srun: error: node12: tasks 0-7: Terminated", "slurm_exit", {"task": "0-7", "signal": "SIGTERM"}, "node12"),
    ("srun: error: node12: task 5: Segmentation fault (core dumped)", "slurm_exit", {"signal": "SIGSEGV"}, "node12"),
    ("srun: error: Node failure on jean-zay-iam37", "slurm_exit", {"task": None}, "jean-zay-iam37"),
    ("salloc: error: Node failure on worker-1", "slurm_exit", {"task": None}, "worker-1"),
]




@pytest.mark.parametrize(("text", "kind", "fields", "host"), LINES, ids=[l[1] + str(i) for i, l in enumerate(LINES)])
def test_slurm_lines(text, kind, fields, host):
    parser = SlurmParser(Source("job.out", SourceKind.SLURM))
    assert parser.feed(Line(1, text)) is True
    (ev,) = parser.out
    assert ev.kind == kind and ev.source == "slurm" and ev.host == host
    for key, value in fields.items():
        assert ev.data[key] == value, key


def test_cancellation_time_is_epoch():
    parser = SlurmParser(Source("job.out", SourceKind.SLURM))
    parser.feed(Line(1, LINES[0][0]))
    assert parser.out[0].time == 1622151731.0


def test_unknown_slurm_error_is_unparsed_and_reason_line_is_quiet():
    parser = SlurmParser(Source("job.out", SourceKind.SLURM))
    assert parser.feed(Line(1, "srun: error: something new")) is True
    assert parser.feed(Line(2, "slurmstepd: error: *** REASON: admin ***")) is True
    assert [e.kind for e in parser.out] == ["unparsed"]


@pytest.mark.parametrize(("name", "expected"), [
    ("slurm/job_timelimit.out", ["slurm_cancelled", "slurm_cancelled", "slurm_exit", "slurm_exit", "slurm_exit"]),
    ("slurm/job_oom_23.02.out", ["slurm_oom"] * 3),
    ("slurm/job_oom_21.08.out", ["slurm_oom"]),
    ("slurm/job_node_failure.out", ["slurm_cancelled", "slurm_exit", "slurm_exit"]),
    ("slurm/job_scancel_and_signal.out", ["slurm_cancelled"] * 4 + ["slurm_exit"] * 2),
    ("slurm/job_memory_limit_enforced.out", ["slurm_oom"] * 2),
])
def test_samples(name, expected):
    result = parse_source(Source(str(EVIDENCE / name), SourceKind.SLURM))
    assert result.error is None and result.unparsed == 0
    assert [e.kind for e in result.events if e.source == "slurm"] == expected


@pytest.mark.parametrize(("name", "container"), [("k8s/describe_pod_oomkilled.txt", "pytorch"),
                                                 ("k8s/pod_status_oomkilled.yaml", None)])
def test_kubernetes_oomkilled(name, container):
    result = parse_source(Source(str(EVIDENCE / name), SourceKind.SLURM))
    (ev,) = [e for e in result.events if e.kind == "k8s_oomkilled"]
    assert (ev.data["container"], ev.data["exitcode"]) == (container, 137)
    assert result.unparsed == 0


def test_reason_without_exit_code_is_reported_at_end():
    parser = SlurmParser(Source("pod.txt", SourceKind.SLURM))
    parser.feed(Line(1, "      Reason:       OOMKilled"))
    parser.finish()
    assert [(e.kind, e.data["exitcode"]) for e in parser.out] == [("k8s_oomkilled", None)]


def test_containerd_task_oom():
    parser = SlurmParser(Source("containerd.log", SourceKind.SLURM))
    parser.feed(Line(1, 'time="2024-01-01T00:00:00Z" level=info msg="TaskOOM event container_id:\\"3f2a9c1b4d5e6f70\\""'))
    assert parser.out[0].data["container"] == "3f2a9c1b4d5e6f70"


@pytest.mark.parametrize("text", ["step 1", "Traceback (most recent call last):", "  pytorch:", "[rank0]: x"])
def test_other_lines_are_not_claimed_in_a_console(text):
    assert SlurmParser(Source("c.log", SourceKind.CONSOLE)).feed(Line(1, text)) is False
