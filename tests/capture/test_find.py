"""Finding the ranks from /proc: grouped by job, helpers folded into their rank, launchers left out."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from nccl_forensics.capture.find import find_jobs
from nccl_forensics.capture.procs import descendants

# A pretend launcher: it spawns one process per rank with torch's variables; rank 1 has a helper child (a
# DataLoader worker inherits the environment). With LAUNCHER_RANK set, the launcher itself carries RANK (a pod
# whose spec sets RANK for the node), which must not make it a rank.
LAUNCHER = r"""
import os, subprocess, sys, time
port = os.environ["FAKE_PORT"]
helper = "import subprocess, sys, time; subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)']); time.sleep(60)"
sleeper = "import time; time.sleep(60)"
for rank in range(int(os.environ["FAKE_WORLD"])):
    env = dict(os.environ, RANK=str(rank), LOCAL_RANK=str(rank), WORLD_SIZE=os.environ["FAKE_WORLD"],
               MASTER_ADDR="127.0.0.1", MASTER_PORT=port, TORCHELASTIC_RUN_ID="none")
    subprocess.Popen([sys.executable, "-c", helper if rank == 1 else sleeper], env=env)
time.sleep(60)
"""


def start_launcher(world: int, port: str, **extra: str) -> subprocess.Popen:
    env = dict(os.environ, FAKE_WORLD=str(world), FAKE_PORT=port, **extra)
    proc = subprocess.Popen([sys.executable, "-c", LAUNCHER], env=env, start_new_session=True)
    deadline = time.monotonic() + 30
    while len(descendants(proc.pid)) < world + 1 and time.monotonic() < deadline:
        time.sleep(0.05)
    return proc


def stop(proc: subprocess.Popen) -> None:
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()


@pytest.fixture
def two_jobs():
    a = start_launcher(2, "40001")
    b = start_launcher(3, "40002", RANK="0", WORLD_SIZE="2", MASTER_ADDR="10.0.0.9", MASTER_PORT="1")
    try:
        yield a, b
    finally:
        stop(a)
        stop(b)


def test_ranks_are_grouped_by_job_with_helpers_under_their_rank(two_jobs):
    a, b = two_jobs
    token = ("NCCLF_TEST_TOKEN", os.environ["NCCLF_TEST_TOKEN"])
    found = find_jobs(match=token)
    by_label = {j.label: j for j in found.jobs}
    assert sorted(by_label) == ["job-127.0.0.1-40001", "job-127.0.0.1-40002"]
    job_a = by_label["job-127.0.0.1-40001"]
    assert [r.rank for r in job_a.ranks] == [0, 1] and job_a.world_size == 2
    assert job_a.agent.pid == a.pid and job_a.master == "127.0.0.1:40001"
    assert len(job_a.ranks[1].helpers) == 1 and job_a.ranks[0].helpers == []
    job_b = by_label["job-127.0.0.1-40002"]
    assert [r.rank for r in job_b.ranks] == [0, 1, 2], "the launcher carrying RANK=0 is not a rank"
    assert b.pid not in {r.pid for r in job_b.ranks}


def test_pids_limit_the_search_to_their_trees(two_jobs):
    a, _ = two_jobs
    found = find_jobs([a.pid])
    assert [j.label for j in found.jobs] == ["job-127.0.0.1-40001"]
    rank1 = found.jobs[0].ranks[1]
    assert [j.label for j in find_jobs([rank1.pid]).jobs] == ["job-127.0.0.1-40001"]


def test_a_pid_that_is_no_training_process_or_no_process_is_said_so():
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        found = find_jobs([sleeper.pid, 999_999_999])
    finally:
        sleeper.kill()
        sleeper.wait()
    assert found.jobs == []
    assert found.notes[0] == "pid 999999999: no such process"
    assert found.notes[1].startswith(f"pid {sleeper.pid} (") and \
        found.notes[1].endswith("is not a training process: no process in its tree has RANK/WORLD_SIZE")
