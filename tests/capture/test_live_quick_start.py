"""The README's Quick-start lines that need torch (repro, run, capture, probe), run as written from a folder laid out
as a clone; tests/test_docs.py runs the others. `capture` is given a hanging job of this test's own to find, and
is kept to it through NCCLF_CAPTURE_ENV (the environment form of its --env option); paths under /tmp/ go to the
test's own folder."""
from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from test_docs import _quick_start

from .conftest import needs_torch
from .jobs import MATCH_VAR, HangingJob, ncclf

pytestmark = [pytest.mark.repro, pytest.mark.slow, needs_torch]

ROOT = Path(__file__).resolve().parents[2]
NEED_TORCH = ("repro", "run", "capture", "probe")
LINES = [line for line in _quick_start() if line.split()[1] in NEED_TORCH]


def test_every_command_that_needs_torch_has_its_line():
    assert sorted(line.split()[1] for line in LINES) == sorted(NEED_TORCH)


@pytest.fixture
def clone(tmp_path):
    """A working folder with a clone's sample_logs and reproducers, and a state folder of its own."""
    for name in ("sample_logs", "reproducers"):
        (tmp_path / name).symlink_to(ROOT / name)
    return tmp_path


def _args(line: str, tmp_path: Path) -> list[str]:
    return [str(tmp_path / word[len("/tmp/"):]) if word.startswith("/tmp/") else word
            for word in shlex.split(line)[1:]]


@pytest.mark.parametrize("line", LINES, ids=lambda line: line.split()[1])
def test_the_line_runs_as_written(line, clone, tmp_path_factory):
    command = line.split()[1]
    env = {"XDG_STATE_HOME": str(clone / "state"), "OMP_NUM_THREADS": "1"}
    job = None
    if command == "capture":
        job = HangingJob.start(tmp_path_factory.mktemp("quick-start-job"), mode="sleep", culprit=1, nproc=2)
        env["NCCLF_CAPTURE_ENV"] = f"{MATCH_VAR}={job.marker}"
    try:
        done = ncclf(*_args(line, clone), env=env, cwd=clone, timeout=560)
    finally:
        if job is not None:
            assert job.stop() == []
    out = done.stdout + done.stderr
    assert "Traceback" not in out, out[-3000:]
    if command == "repro":
        assert done.returncode == 0 and re.search(r"verdict\s*: shape_mismatch .* match$", done.stdout, re.M), out[-3000:]
    elif command == "run":
        assert done.returncode == 0, out[-3000:]
    elif command == "capture":
        assert done.returncode == 0 and "next: ncclf diagnose" in done.stdout, out[-3000:]
        assert (clone / "ncclf-capture").is_dir()
    else:
        assert done.returncode == 0 and "# wrong results: 0" in done.stdout and "meas/fit" in done.stdout, out[-3000:]
