"""The trainers themselves: FSDP2 learns on CPU/gloo, and Ctrl-C on the harness leaves nothing behind."""
from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time

import pytest

from nccl_forensics import repro
from nccl_forensics.capture.procs import cmdline, descendants, is_alive
from nccl_forensics.reproducers import harness

from .conftest import cgroups_of, needs_torch

pytestmark = [pytest.mark.repro, needs_torch]


def test_fsdp2_loss_goes_down_over_20_steps(tmp_path):
    out = tmp_path / "fsdp"
    (out / "fr").mkdir(parents=True)
    spec = harness.JobSpec(script=repro._reproducer_path("train_llama_fsdp2.py"), nproc=2, out=out, steps=20,
                           args=["--steps", "20"], env={**os.environ, "OMP_NUM_THREADS": "1"})
    outcome = harness.run_job(spec)
    assert (outcome.how, outcome.torchrun_rc, outcome.leftovers) == ("exited", 0, [])
    console = (out / "console.log").read_text()
    losses = [float(x) for x in re.findall(r"^\[default0\]:step \d+ \| loss ([\d.]+) \|", console, re.M)]
    assert len(losses) == 20
    assert losses[-1] < 0.5 * losses[0]
    assert re.search(r"tokens/s \d+ \| allreduce [\d.]+ ms", console)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_interrupting_the_harness_leaves_nothing_behind(tmp_path, sig):
    code = ("from nccl_forensics.repro import run_scenario; "
            f"run_scenario('stuck-rank', nproc=2, out={str(tmp_path / 'b')!r}, diagnose=False)")
    harness_proc = subprocess.Popen([sys.executable, "-c", code])
    seen = {}
    console = tmp_path / "b" / "console.log"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and b"step 1 |" not in (console.read_bytes() if console.exists() else b""):
        seen.update((p.pid, p) for p in descendants(harness_proc.pid))
        time.sleep(0.1)
    seen.update((p.pid, p) for p in descendants(harness_proc.pid))
    assert len(seen) >= 3, "torchrun and its workers should be running"
    harness_proc.send_signal(sig)
    harness_proc.wait(timeout=60)
    deadline = time.monotonic() + 30            # poll with a generous bound: a loaded host is slow to reap
    while any(is_alive(p) for p in seen.values()) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert [p.pid for p in seen.values() if is_alive(p)] == []
    assert cgroups_of(harness_proc.pid) == []


def test_ranks_end_when_the_harness_and_torchrun_are_killed_by_sigkill(tmp_path):
    """SIGKILL reaches no handler: the ranks, blocked in a collective, end by their parent-death signal."""
    code = ("from nccl_forensics.repro import run_scenario; "
            f"run_scenario('stuck-rank', nproc=2, out={str(tmp_path / 'b')!r}, diagnose=False)")
    harness_proc = subprocess.Popen([sys.executable, "-c", code])
    console = tmp_path / "b" / "console.log"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and b"step 1 |" not in (console.read_bytes() if console.exists() else b""):
        time.sleep(0.1)
    seen = {p.pid: p for p in descendants(harness_proc.pid)}
    ranks = [p for p in seen.values() if p.ppid in seen and "train_gpt_ddp" in " ".join(cmdline(p.pid))
             and "train_gpt_ddp" in " ".join(cmdline(p.ppid))]          # the agent's children that run it
    assert len(ranks) == 2, "both ranks should be running"
    try:
        for p in [harness_proc.pid, *(p.pid for p in seen.values() if p not in ranks)]:
            os.kill(p, signal.SIGKILL)
        harness_proc.wait(timeout=60)
        deadline = time.monotonic() + 30
        while any(is_alive(p) for p in ranks) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert [p.pid for p in ranks if is_alive(p)] == []
    finally:
        for p in seen.values():
            if is_alive(p):
                os.kill(p.pid, signal.SIGKILL)


def test_cli_runs_one_scenario_and_prints_what_it_captured(tmp_path):
    from click.testing import CliRunner

    from nccl_forensics.cli import cli

    out = tmp_path / "healthy"
    result = CliRunner().invoke(cli, ["repro", "healthy", "--out", str(out), "--no-diagnose"],
                                standalone_mode=False)
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == "injected : healthy at step 3 on (rank 1, culprit not judged), 2 ranks, gloo, train_gpt_ddp.py"
    assert lines[1].startswith("job      : exited by itself; torchrun exit code 0; last step printed 6")
    assert "2 flight-recorder dump(s) (ranks 0,1)" in lines[2]
    assert (tmp_path / "healthy.repro.json").exists() and not (out / "healthy.repro.json").exists()
