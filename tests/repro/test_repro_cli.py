"""`ncclf repro` wiring that needs no job: the list, usage errors (exit 2, one line)."""
from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from nccl_forensics.cli import cli
from nccl_forensics.scenarios import SCENARIOS


def invoke(*args):
    return CliRunner().invoke(cli, ["repro", *args], standalone_mode=False)


def test_list_shows_every_scenario_on_one_line():
    result = invoke("--list")
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert [line.split()[0] for line in lines] == list(SCENARIOS)
    assert "GPU only" in next(line for line in lines if line.startswith("cuda-oom"))


def test_scenario_or_all_is_required():
    result = CliRunner().invoke(cli, ["repro"])
    assert result.exit_code == 2
    assert "give one SCENARIO, or --all" in result.output


def test_rank_outside_the_job_is_a_one_line_error():
    from nccl_forensics.errors import ReproError
    from nccl_forensics.repro import run_scenario

    try:
        run_scenario("shape-mismatch", nproc=2, rank=2)
    except ReproError as exc:
        assert str(exc) == "--rank 2 is not a rank of a 2-rank job"
    else:
        raise AssertionError("expected ReproError")


def test_unknown_scenario_is_rejected():
    from nccl_forensics.errors import ReproError
    from nccl_forensics.repro import run_scenario

    try:
        run_scenario("no-such-thing")
    except ReproError as exc:
        assert "unknown scenario 'no-such-thing'" in str(exc)
    else:
        raise AssertionError("expected ReproError")


@pytest.mark.repro
@pytest.mark.slow
def test_repro_runs_from_an_unactivated_venv_with_a_minimal_path(tmp_path):
    """`env -i PATH=/usr/bin:/bin /path/venv/bin/ncclf repro shape-mismatch`: py-spy and torchrun are found
    beside the interpreter that runs (in a --system-site-packages venv, py-spy lives in the base one's bin/)."""
    pytest.importorskip("torch")
    from nccl_forensics.capture.tools import find_tool

    ncclf = Path(sys.executable).parent / "ncclf"
    if not ncclf.exists():
        pytest.skip(f"no ncclf script beside {sys.executable}")
    if find_tool("py-spy") is None:
        pytest.skip("py-spy is not installed for this interpreter")
    env = {"PATH": "/usr/bin:/bin", "NCCLF_TEST_TOKEN": os.environ["NCCLF_TEST_TOKEN"]}
    done = subprocess.run([str(ncclf), "repro", "shape-mismatch", "--out", str(tmp_path / "b")], env=env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "match" in done.stdout.splitlines()[-1] and "MISMATCH" not in done.stdout


def test_a_missing_py_spy_is_never_skipped_silently(monkeypatch):
    pytest.importorskip("torch")
    from nccl_forensics.capture import tools
    from nccl_forensics.errors import MissingTool
    from nccl_forensics.repro import run_scenario

    monkeypatch.setattr(tools, "find_tool", lambda name: None)
    with pytest.raises(MissingTool) as err:
        run_scenario("stuck-rank", nproc=2)
    assert str(err.value).startswith("py-spy is needed to dump the stacks of a hung job's ranks")
    assert f"{sys.executable} -m pip install py-spy" in str(err.value)


@pytest.mark.repro
@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="torch is not installed")
def test_repro_stuck_rank_matches_from_a_bare_shell(tmp_path):
    """`env -i PATH=/usr/bin:/bin ncclf repro stuck-rank`: no PYTHONUNBUFFERED from the caller, and still the
    harness sees each step as it is printed, captures the hang and matches."""
    from .conftest import TOKEN_ENV

    ncclf = Path(sys.executable).with_name("ncclf")
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), TOKEN_ENV: os.environ[TOKEN_ENV]}
    proc = subprocess.run([str(ncclf), "repro", "stuck-rank", "--check", "--out", str(tmp_path / "out")],
                          env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "MISMATCH" not in proc.stdout
