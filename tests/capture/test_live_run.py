"""`ncclf run -- torchrun …` on real hanging jobs: the hang is caught, captured and diagnosed; the job is left
running by default, ended with --kill-on-hang, and Ctrl-C / SIGTERM leave no process behind."""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time

import pytest

from nccl_forensics import repro
from nccl_forensics.capture.node import host_label
from nccl_forensics.capture.procs import cmdline, descendants, is_alive, signal_proc

from .conftest import needs_torch
from .jobs import HANG_JOB, free_port, ncclf

pytestmark = [pytest.mark.repro, pytest.mark.slow, needs_torch]


def torchrun(script, *args: str) -> list[str]:
    return ["torchrun", "--nproc-per-node", "4", "--master-addr", "127.0.0.1", "--master-port", str(free_port()),
            "--monitor-interval", "1", str(script), *args]


def test_a_hang_is_captured_diagnosed_and_ended_with_kill_on_hang(tmp_path):
    env = {"OMP_NUM_THREADS": "1", "NCCLF_REPRO_FAULT": "stuck-rank@3:2"}
    script = repro._reproducer_path("train_gpt_ddp.py")
    done = ncclf("run", "--out", str(tmp_path / "run"), "--hang-after", "20", "--kill-on-hang", "--",
                 *torchrun(script, "--steps", "40", "--backend", "gloo"), env=env, timeout=400)
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-3000:]
    assert "ncclf diagnose: stuck_rank" in done.stdout and re.search(r"culprit rank\(s\): 2\s", done.stdout)
    assert "no progress for" in done.stderr and "--kill-on-hang: ending the job" in done.stderr
    bundle = tmp_path / "run" / host_label()
    doc = json.loads((bundle / "manifest.json").read_text())
    assert [r["rank"] for r in doc["ranks"]] == [0, 1, 2, 3]
    assert len(list((bundle / "pyspy").glob("rank*.txt"))) == 4
    assert list((bundle / "torchrun_logs").rglob("stdout.log")), "torchrun got --log-dir"
    assert not any(is_alive_pid(r["pid"]) for r in doc["ranks"])


# `ncclf run` starts the torchrun beside its interpreter when there is one, else `python -m torch.distributed.run`.
_LAUNCHER = re.compile(r"torchrun|torch\.distributed\.run")


def job_processes(run_pid: int, seen: dict) -> list:
    """torchrun (the launcher `ncclf run` started under its keeper) and its ranks; not py-spy or the other
    helpers capture ran."""
    keeper = next(p for p in seen.values() if p.ppid == run_pid and "capture.keeper" in " ".join(cmdline(p.pid)))
    launcher = next(p for p in seen.values() if p.ppid == keeper.pid and _LAUNCHER.search(" ".join(cmdline(p.pid))))
    return [launcher] + [p for p in seen.values() if p.ppid == launcher.pid]


def is_alive_pid(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as fh:
        return fh.read().rsplit(")", 1)[1].split()[0] != "Z"


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_the_job_is_left_running_after_the_capture_and_an_interrupt_ends_all_of_it(tmp_path, sig):
    env = {**os.environ, "OMP_NUM_THREADS": "1", "HANG_MODE": "sleep", "HANG_RANK": "1", "HANG_STEP": "3",
           "NO_COLOR": "1"}
    err, out = tmp_path / "stderr.txt", tmp_path / "stdout.txt"
    with open(err, "w") as fh, open(out, "w") as fo:
        run = subprocess.Popen([sys.executable, "-m", "nccl_forensics", "run", "--out", str(tmp_path / "run"),
                                "--hang-after", "20", "--", *torchrun(HANG_JOB)], env=env, stdout=fo, stderr=fh)
    seen = {}
    try:
        deadline = time.monotonic() + 240
        while "the job is left running" not in err.read_text() and time.monotonic() < deadline:
            assert run.poll() is None, err.read_text()
            seen.update((p.pid, p) for p in descendants(run.pid))
            time.sleep(0.2)
        seen.update((p.pid, p) for p in descendants(run.pid))
        assert "the job is left running" in err.read_text()
        time.sleep(1.0)
        job = job_processes(run.pid, seen)
        assert len(job) == 5 and all(is_alive(p) for p in job), "torchrun and its 4 ranks still run"
        run.send_signal(sig)
        assert run.wait(timeout=60) == 130
    finally:
        if run.poll() is None:
            run.send_signal(signal.SIGINT)
            run.wait(timeout=60)
        for p in seen.values():
            signal_proc(p, signal.SIGKILL)
    assert [p.pid for p in seen.values() if is_alive(p)] == []
    text = err.read_text()
    assert text.rstrip().endswith(("Interrupted.", "Aborted.")) and "Traceback (most recent call last)" not in text.split("ncclf run:")[-1]
    shown = out.read_text()
    assert "ncclf diagnose: stuck_rank" in shown and re.search(r"culprit rank\(s\): 1\s", shown), shown[-3000:]
