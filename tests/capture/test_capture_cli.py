"""`ncclf capture` on bad input: one line, exit 2, a partial bundle with the reason — never a traceback."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

import pytest
from click.testing import CliRunner

from nccl_forensics.capture import bundle as bundle_module
from nccl_forensics.capture.find import find_jobs
from nccl_forensics.capture.node import host_label
from nccl_forensics.capture.tools import find_tool
from nccl_forensics.cli import cli

from .jobs import ncclf

needs_pyspy = pytest.mark.skipif(find_tool("py-spy") is None, reason="py-spy is not installed (pip install py-spy)")

FAKE_RANK = "import time; time.sleep(60)"


def test_a_pid_that_is_no_training_process(tmp_path):
    sleeper = subprocess.Popen([sys.executable, "-c", FAKE_RANK])
    try:
        done = ncclf("capture", "--pid", str(sleeper.pid), "--out", str(tmp_path / "cap"))
    finally:
        sleeper.kill()
        sleeper.wait()
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("Error: no training process found under the given PIDs")
    assert f"pid {sleeper.pid} (" in done.stdout and "is not a training process" in done.stdout
    doc = json.loads((tmp_path / "cap" / host_label() / "manifest.json").read_text())
    assert doc["failed"][0]["reason"] == "no training process found on this node"
    assert any("is not a training process" in note for note in doc["notes"])


def test_an_unwritable_out_and_a_used_one(tmp_path):
    (tmp_path / "file").write_text("")
    done = ncclf("capture", "--out", str(tmp_path / "file" / "cap"))
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == f"Error: --out {tmp_path / 'file' / 'cap'} is not writable: Not a directory\n"
    (tmp_path / "used" / host_label()).mkdir(parents=True)
    (tmp_path / "used" / host_label() / "x").write_text("")
    done = ncclf("capture", "--out", str(tmp_path / "used"), "--pid", str(os.getpid()))
    assert done.returncode == 2 and done.stderr.startswith(f"Error: {tmp_path / 'used' / host_label()} already holds")


@needs_pyspy
def test_a_rank_that_exits_during_the_capture_is_recorded_as_such(tmp_path, monkeypatch):
    """The rank is found, then dies before its stacks are taken: the bundle says so, the other rank is dumped."""
    env = {**os.environ, "WORLD_SIZE": "2", "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": "1"}
    ranks = [subprocess.Popen([sys.executable, "-c", FAKE_RANK], env={**env, "RANK": str(r)}) for r in (0, 1)]

    def find_then_lose_rank_1(pids=None, match=None, users=None):
        found = find_jobs(pids, match, users)
        ranks[1].send_signal(signal.SIGKILL)
        ranks[1].wait()
        return found

    monkeypatch.setattr(bundle_module, "find_jobs", find_then_lose_rank_1)
    try:
        result = CliRunner().invoke(cli, ["capture", "--pid", str(ranks[0].pid), "--pid", str(ranks[1].pid),
                                          "--out", str(tmp_path / "cap"), "--no-debug-server"],
                                    standalone_mode=False)
    finally:
        for proc in ranks:
            proc.kill()
            proc.wait()
    assert result.exception is None, result.output
    assert "failed: py-spy rank 1: the process had exited before the dump" in result.output
    doc = json.loads((tmp_path / "cap" / host_label() / "manifest.json").read_text())
    assert [(r["rank"], r["alive"]) for r in doc["ranks"]] == [(0, True), (1, False)]
    assert [c["rank"] for c in doc["captured"] if c["kind"] == "py-spy"] == [0]


def test_capture_help_names_the_multi_node_recipe():
    result = CliRunner().invoke(cli, ["capture", "--help"])
    assert "srun --overlap --jobid" in result.output


@needs_pyspy
def test_a_part_that_breaks_is_recorded_and_the_others_still_run(tmp_path, monkeypatch):
    env = {**os.environ, "WORLD_SIZE": "1", "RANK": "0", "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": "1"}
    rank = subprocess.Popen([sys.executable, "-c", FAKE_RANK], env=env)

    def broken(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(bundle_module, "node_context", broken)
    try:
        result = bundle_module.capture(pids=[rank.pid], out=tmp_path / "cap",
                                       options=bundle_module.CaptureOptions(debug_server=False))
    finally:
        rank.kill()
        rank.wait()
    doc = result.bundles[0].manifest
    assert {"kind": "node", "reason": "internal error: RuntimeError: boom"} in doc["failed"]
    assert [c["kind"] for c in doc["captured"]] == ["py-spy"]
