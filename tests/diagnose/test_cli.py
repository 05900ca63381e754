"""`ncclf diagnose` / `ncclf explain` wiring: exit codes, formats, output files."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from nccl_forensics.cli import cli, main

BUNDLES = Path(__file__).resolve().parents[2] / "sample_logs" / "bundles"
needs_bundles = pytest.mark.skipif(not (BUNDLES / "healthy-nccl").exists(), reason="no sample bundles yet")


def _run(args):
    return CliRunner().invoke(cli, args, standalone_mode=False, catch_exceptions=False)


@needs_bundles
def test_healthy_exits_0():
    res = _run(["diagnose", str(BUNDLES / "healthy-nccl"), "-j", "1"])
    assert res.return_value == 0
    assert "ncclf diagnose: none" in res.output


@needs_bundles
def test_the_imports_pause_the_collector_and_the_command_leaves_it_on(monkeypatch):
    import gc
    from contextlib import contextmanager

    from nccl_forensics.cli import diagnose as command
    paused = []
    real = command._importing

    @contextmanager
    def watched():
        with real():
            paused.append(not gc.isenabled())
            yield
    with command._importing():
        assert not gc.isenabled()
    assert gc.isenabled()
    monkeypatch.setattr(command, "_importing", watched)
    assert _run(["diagnose", str(BUNDLES / "healthy-nccl"), "-j", "2"]).return_value == 0
    assert paused == [True, True] and gc.isenabled()        # the body's imports, then reduce's beside the workers


@needs_bundles
def test_diagnosed_exits_1_and_json_follows_the_contract():
    res = _run(["diagnose", str(BUNDLES / "dtype-mismatch-nccl"), "--format", "json", "-j", "1"])
    assert res.return_value == 1
    doc = json.loads(res.output)
    assert doc["schema_version"] == 1 and doc["verdict"]["class"] == "dtype_mismatch"


@needs_bundles
def test_report_and_trace_files(tmp_path):
    report, trace = tmp_path / "pm.md", tmp_path / "t.json"
    res = _run(["diagnose", str(BUNDLES / "shape-mismatch-nccl"), "--report", str(report), "--trace", str(trace),
                "--format", "json", "-j", "1"])
    assert res.return_value == 1
    assert report.read_text().startswith("# Postmortem: shape mismatch")
    assert json.loads(trace.read_text())["traceEvents"]


@needs_bundles
def test_a_detector_subset_is_never_an_all_clear(tmp_path):
    """--select that leaves out the detectors able to see the failure says so: inconclusive, exit 4, not none."""
    shutil.copytree(BUNDLES / "dtype-mismatch-nccl", tmp_path / "b")
    res = _run(["diagnose", str(tmp_path / "b"), "--select", "V501", "--format", "json", "-j", "1"])
    verdict = json.loads(res.output)["verdict"]
    assert res.return_value == 4 and verdict["class"] == "inconclusive"
    assert "did not run (--select/--ignore)" in verdict["summary"] and "C102" in verdict["summary"]


@needs_bundles
@pytest.mark.parametrize("flag,key", [("--select", "Q9"), ("--ignore", "C9"), ("--select", "no-such-rule")])
def test_an_unknown_detector_code_is_bad_input(tmp_path, flag, key):
    proc = subprocess.run([sys.executable, "-m", "nccl_forensics", "diagnose", str(BUNDLES / "dtype-mismatch-nccl"),
                           flag, key, "-j", "1"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.strip() == f"Error: unknown detector code or name '{key}' (see `ncclf explain --list`)"


@needs_bundles
def test_select_c1_on_a_stuck_rank_says_what_did_not_run():
    res = _run(["diagnose", str(BUNDLES / "real-stuck-rank"), "--select", "C1", "--format", "json", "-j", "1"])
    verdict = json.loads(res.output)["verdict"]
    assert res.return_value == 4 and "R202" in verdict["summary"]


@needs_bundles
def test_a_cut_gzip_still_gives_its_lines_and_one_error(tmp_path):
    """Rank 1's log gzipped and cut in its last bytes: its collectives still place it in the timeline, and the
    read error is reported once, naming the file once."""
    import gzip
    shutil.copytree(BUNDLES / "dtype-mismatch-nccl", tmp_path / "b")
    log = tmp_path / "b" / "nccl.rank1.gpu-c-03.3825.log"
    data = gzip.compress(log.read_bytes())
    cut = log.with_name(log.name + ".gz")
    cut.write_bytes(data[:-30])
    log.unlink()
    doc = json.loads(_run(["diagnose", str(tmp_path / "b"), "--format", "json", "-j", "1"]).output)
    assert doc["verdict"]["class"] == "dtype_mismatch"
    rank1 = next(r for r in doc["ranks"] if r["rank"] == 1)
    assert rank1["positions"] and rank1["pids"] == [3825]
    assert len(doc["errors"]) == 1 and doc["errors"][0].count(str(cut)) == 1 and "truncated" in doc["errors"][0]


def _exit_code(argv, capsys):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    return exc.value.code, capsys.readouterr()


def test_missing_path_exits_2_with_one_line(capsys, tmp_path):
    code, out = _exit_code(["diagnose", str(tmp_path / "nope")], capsys)
    assert code == 2
    assert out.err.strip().count("\n") == 0 and out.err.startswith("Error: ")


def test_no_evidence_exits_2(capsys, tmp_path):
    (tmp_path / "notes.md").write_text("nothing here\n")
    code, out = _exit_code(["diagnose", str(tmp_path)], capsys)
    assert code == 2 and "Error:" in out.err


def test_explain_prints_the_docstring():
    res = _run(["explain", "C102"])
    assert res.return_value == 0
    for heading in ("What it detects:", "Why it hangs or dies:", "Evidence it needs:", "Example:", "Known limits:",
                    "Suggested fix:"):
        assert heading in res.output


def test_explain_examples_wrap_like_the_docstring_around_them():
    """A real run's finding is one long sentence: printed wrapped at the docstring's width, continued indented."""
    from nccl_forensics.cli.explain_examples import EXAMPLES, example
    for code in EXAMPLES:
        lines = example(code).splitlines()
        assert all(len(line) <= 110 for line in lines), (code, lines)
        assert all(line.startswith("      ") for line in lines[4:]), (code, lines)


def test_explain_list_and_unknown(capsys):
    res = _run(["explain", "--list"])
    assert "C101  shape-mismatch" in res.output and "T601" in res.output
    assert "G001  ring-not-closed" in res.output
    code, out = _exit_code(["explain", "Z999"], capsys)
    assert code == 2 and "unknown code" in out.err


def test_explain_a_topology_check():
    res = _run(["explain", "G001"])
    assert res.return_value == 0
    assert res.output.startswith("G001 ring-not-closed (stable)") and "Fix:" in res.output
    assert "V501" in _run(["explain", "nccl-version-mismatch"]).output     # one version rule, named


def test_help_has_an_example():
    res = CliRunner().invoke(cli, ["diagnose", "--help"])
    assert "Example:" in res.output and "ncclf diagnose" in res.output


def _ncclf(*args: str, stdin: str | None = None):
    import subprocess
    import sys
    return subprocess.run([sys.executable, "-m", "nccl_forensics", *args], input=stdin, capture_output=True,
                          text=True, timeout=120)


@needs_bundles
def test_written_files_are_announced_and_an_unwritable_one_is_exit_2(tmp_path):
    report, trace = tmp_path / "pm.md", tmp_path / "t.json"
    done = _ncclf("diagnose", str(BUNDLES / "dtype-mismatch-nccl"), "-j", "1", "--report", str(report),
                  "--trace", str(trace), "--format", "json")
    assert done.returncode == 1
    assert f"wrote the postmortem to {report}" in done.stderr and f"wrote the Perfetto trace to {trace}" in done.stderr
    assert json.loads(done.stdout)["schema_version"] == 1          # stdout keeps only the JSON
    bad = _ncclf("diagnose", str(BUNDLES / "dtype-mismatch-nccl"), "-j", "1", "--report", "/missing/dir/x.md")
    assert bad.returncode == 2 and bad.stderr.strip().count("\n") == 0 and "cannot write the postmortem" in bad.stderr
    quiet = _ncclf("diagnose", str(BUNDLES / "dtype-mismatch-nccl"), "-j", "1", "-q", "--report", str(report))
    assert quiet.returncode == 1 and "wrote" not in quiet.stderr


@needs_bundles
def test_stdin_dash_is_diagnosed_like_the_file():
    text = "".join(p.read_text() for p in sorted((BUNDLES / "dtype-mismatch-nccl").glob("*.log")))
    done = _ncclf("diagnose", "-", "-j", "1", "--format", "json", stdin=text)
    assert done.returncode == 1, done.stderr
    assert json.loads(done.stdout)["verdict"]["class"] == "dtype_mismatch"


@needs_bundles
def test_markdown_format_and_old_format_names_still_work():
    md = _ncclf("diagnose", str(BUNDLES / "dtype-mismatch-nccl"), "-j", "1", "--format", "markdown")
    assert md.returncode == 1 and md.stdout.startswith("# Postmortem: dtype mismatch")
    old = _ncclf("diagnose", str(BUNDLES / "dtype-mismatch-nccl"), "-j", "1", "--format", "rich")
    assert old.returncode == 1 and "ncclf diagnose: dtype_mismatch" in old.stdout


@needs_bundles
def test_verbose_says_which_detectors_were_skipped():
    done = _ncclf("diagnose", str(BUNDLES / "dtype-mismatch-nccl"), "-j", "1", "-v")
    assert done.returncode == 1 and "skipped: not enough evidence" in done.stderr


@needs_bundles
def test_at_80_columns_every_cited_file_line_stays_on_one_line():
    import os
    import subprocess
    import sys
    bundle = BUNDLES / "real-slow-rank-timeout"
    done = subprocess.run([sys.executable, "-m", "nccl_forensics", "diagnose", str(bundle), "-j", "1"],
                          capture_output=True, text=True, timeout=120, env={**os.environ, "COLUMNS": "80"})
    lines = done.stdout.splitlines()
    cites = [line.strip() for line in lines if line.startswith(f"  {bundle}")]
    assert cites and all(c.startswith(str(bundle)) for c in cites), cites
    assert any(len(c) > 80 for c in cites)           # longer than the terminal, and still one line
    raw = [line for line in lines if line.startswith("    ")]
    assert raw and all(len(line) <= 80 for line in raw)     # quoted log lines are cut to the width


@needs_bundles
@pytest.mark.parametrize("args", [["diagnose", "--format", "json"], ["parse", "--format", "jsonl"]])
def test_the_program_ends_without_teardown_yet_writes_all_and_keeps_its_exit_code(args, tmp_path):
    """diagnose and parse end the process without the interpreter's teardown: what they print is all there, as
    printed in process, and the exit code is theirs."""
    bundle = str(BUNDLES / "dtype-mismatch-nccl")
    proc = subprocess.run([sys.executable, "-m", "nccl_forensics", *args, "-j", "1", bundle], capture_output=True,
                          text=True, timeout=120, cwd=tmp_path)
    inside = _run([*args, "-j", "1", bundle])
    assert proc.returncode == inside.return_value == (1 if args[0] == "diagnose" else 0)
    assert proc.stdout == inside.output and proc.stdout.endswith("\n")
