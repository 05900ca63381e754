"""The small things of issue 29, each checked: what a user reads around the main commands."""
from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner
from rich.console import Console

from nccl_forensics.cli import cli

ROOT = Path(__file__).resolve().parents[1]
BUNDLE = ROOT / "sample_logs" / "bundles" / "real-timeout"


def test_summarize_creates_the_folder_of_its_output(tmp_path):
    result = CliRunner().invoke(cli, ["summarize", str(BUNDLE), "-o", str(tmp_path / "new" / "deeper" / "%h.ncclf")])
    assert result.exit_code == 0, result.output
    assert len(list((tmp_path / "new" / "deeper").glob("*.ncclf"))) == 1


def test_stdin_is_reported_as_stdin():
    text = (BUNDLE / "console.log").read_bytes()
    for fmt in ("text", "json", "markdown"):
        proc = subprocess.run([sys.executable, "-m", "nccl_forensics", "diagnose", "-", "--format", fmt],
                              input=text, capture_output=True, cwd=ROOT, timeout=300, check=False)
        out = proc.stdout.decode()
        assert "<stdin>:" in out or '"<stdin>"' in out, out
        assert "ncclf-stdin-" not in out and "ncclf-stdin-" not in proc.stderr.decode()


def test_report_help_names_a_file_not_file_md():
    result = CliRunner().invoke(cli, ["diagnose", "--help"], terminal_width=200)
    assert "FILE.md" not in result.output and "--report FILE" in result.output


def _complete(words: str) -> list[str]:
    env = {**os.environ, "COMP_WORDS": f"ncclf {words}", "COMP_CWORD": str(len(words.split())),
           "_NCCLF_COMPLETE": "bash_complete"}
    proc = subprocess.run([sys.executable, "-c", "from nccl_forensics.cli import main; main()"], env=env,
                          capture_output=True, text=True, timeout=60, check=False)
    return [line.split(",", 1)[1] for line in proc.stdout.splitlines() if "," in line]


def test_completion_offers_scenarios_and_codes():
    assert "shape-mismatch" in _complete("repro sha")
    assert "C102" in _complete("explain C10")
    assert "C101,R202" in _complete("diagnose --select C101,R2")


def test_a_gloo_rank_without_a_dump_pipe_is_a_note_not_a_failure():
    from types import SimpleNamespace

    from nccl_forensics.outputs.capture_render import render_bundle
    missing = os.strerror(2)
    doc = {"captured": [], "notes": [], "elapsed_s": 1.0,
           "failed": [{"kind": "fr_pipe", "rank": r, "reason": f"/tmp/x{r}.pipe: {missing}"} for r in (0, 1)]
           + [{"kind": "py-spy", "rank": 1, "reason": "permission denied"}]}
    buf = io.StringIO()
    render_bundle(SimpleNamespace(path=Path("/tmp/b"), manifest=doc), Console(file=buf, width=200))
    out = buf.getvalue()
    assert "failed: fr_pipe" not in out and "no flight-recorder dump pipe for ranks 0-1" in out
    assert "failed: py-spy rank 1: permission denied" in out


def test_run_on_a_script_that_cannot_start_shows_why(tmp_path):
    missing = tmp_path / "nowhere" / "train.py"
    proc = subprocess.run([sys.executable, "-m", "nccl_forensics", "run", "--out", str(tmp_path / "run"), "--",
                           sys.executable, str(missing)], capture_output=True, text=True, timeout=120, check=False,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 2
    assert "the job ended before any rank reached a collective" in proc.stderr
    assert f"can't open file '{missing}'" in proc.stderr
    assert "unclassified_failure" not in proc.stdout and "enable" not in proc.stdout


def test_default_output_folders_are_not_the_working_directory(monkeypatch, tmp_path):
    from nccl_forensics.cli.options import default_out
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    assert Path(default_out("capture")).parent == tmp_path / "ncclf"
    monkeypatch.delenv("XDG_STATE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert Path(default_out("run")).parent == tmp_path / "home" / ".local" / "state" / "ncclf"
    for command in ("capture", "run", "repro"):
        assert "[default: ncclf-" not in CliRunner().invoke(cli, [command, "--help"]).output


def test_numpy_loads_one_blas_thread_and_leaves_no_variable():
    """diagnose/summarize load numpy with OPENBLAS_NUM_THREADS=1 (no BLAS thread per core), then remove the
    variable again, so that a job ncclf starts does not inherit it; a value the user set stays theirs."""
    code = ("import os\nfrom nccl_forensics.cli.options import one_blas_thread\nwith one_blas_thread():\n"
            "    import numpy\nprint(os.environ.get('OPENBLAS_NUM_THREADS'))\n"
            "print(open('/proc/self/status').read().split('Threads:')[1].split()[0])\n")
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True).stdout
    assert out.split() == ["None", "1"]
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**env, "OPENBLAS_NUM_THREADS": "2"}).stdout
    assert out.split()[0] == "2"
