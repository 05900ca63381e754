"""`ncclf parse`: wiring, exit codes, and bad input (one-line error or clean empty result, never a traceback)."""
from __future__ import annotations

import gzip
import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from nccl_forensics.cli import cli

NCCL_LINES = [
    "node1:12345:12345 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>",
    "node1:12345:12345 [0] NCCL INFO NET/Plugin : No plugin found (libnccl-net.so), using internal implementation",
]


def run(*args):
    """Run the real console entry point in a subprocess: exit code + stdout + stderr as a user sees them."""
    proc = subprocess.run([sys.executable, "-m", "nccl_forensics", *args], capture_output=True, text=True, timeout=120)
    return proc.returncode, proc.stdout, proc.stderr


def assert_one_line_error(rc, out, err, code=2):
    assert rc == code, (rc, out, err)
    assert "Traceback" not in err and "Traceback" not in out
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("Error: "), err


def test_missing_path_is_a_one_line_error(tmp_path):
    assert_one_line_error(*run("parse", str(tmp_path / "nope")))


def test_empty_directory_is_a_one_line_error(tmp_path):
    assert_one_line_error(*run("parse", str(tmp_path)))


def test_empty_file_gives_a_clean_empty_result(tmp_path):
    f = tmp_path / "rank0.log"
    f.write_text("")
    rc, out, err = run("parse", str(f), "--format", "jsonl")
    assert (rc, out, err) == (0, "", "")


@pytest.mark.parametrize("first", [b"", b"\x80", b"\x1f\x8b"])
def test_binary_file_is_skipped_not_fatal(tmp_path, first):
    """Random bytes, also starting like a pickle's PROTO opcode (with no valid protocol) or like a gzip."""
    f = tmp_path / "core.bin.dat"
    f.write_bytes(first + random.Random(7).randbytes(4096) + b"\x00" * 100)
    rc, out, err = run("parse", "--inventory", "--format", "json", str(f))
    assert rc == 0, err
    doc = json.loads(out)
    assert doc["schema_version"] == 1
    rows = doc["files"]
    assert rows[0]["skipped"] is True and rows[0]["events"] == 0


def test_five_megabyte_single_line_does_not_break(tmp_path):
    f = tmp_path / "rank1.log"
    f.write_text(NCCL_LINES[0] + "\n" + "x" * (5 * 1024 * 1024) + "\n" + NCCL_LINES[1] + "\n")
    rc, out, err = run("parse", str(f), "--format", "jsonl")
    assert rc == 0 and "Traceback" not in err
    records = [json.loads(line) for line in out.splitlines()]
    assert all(len(r["text"]) < 100_000 for r in records)
    assert {r["line"] for r in records if r["kind"] != "unparsed"} >= {1, 3}


def test_truncated_gzip_is_a_warning_not_a_crash(tmp_path):
    payload = gzip.compress(("\n".join(NCCL_LINES * 2000) + "\n").encode())
    f = tmp_path / "rank0.log.gz"
    f.write_bytes(payload[: len(payload) // 2])
    rc, out, err = run("parse", str(f))
    assert rc == 0, err
    assert "Traceback" not in err and "Traceback" not in out
    assert "truncated or corrupt" in out


def test_a_small_truncated_gzip_gives_its_whole_lines(tmp_path):
    """Cut inside the first 16 KiB that sniffing reads: still recognised, and every whole line is an event."""
    lines = [f"node1:12345:12345 [0] NCCL INFO Bootstrap : Using eth{i}:10.0.0.1<0>" for i in range(60)]
    payload = gzip.compress(("\n".join(lines) + "\n").encode())
    f = tmp_path / "rank0.log.gz"
    f.write_bytes(payload[:-40])
    rc, out, err = run("parse", "--format", "jsonl", str(f))
    events = [json.loads(line) for line in out.splitlines()]
    assert rc == 0 and "truncated or corrupt" in err, err
    assert 40 < len(events) < 60 and [e["line"] for e in events] == list(range(1, len(events) + 1))
    assert all(e["kind"] == "bootstrap" for e in events)


def test_gzip_is_read_transparently(tmp_path):
    f = tmp_path / "rank0.log.gz"
    f.write_bytes(gzip.compress(("\n".join(NCCL_LINES) + "\n").encode()))
    rc, out, err = run("parse", str(f), "--format", "jsonl")
    assert rc == 0, err
    assert [json.loads(line)["line"] for line in out.splitlines()] == [1, 2]


def test_inventory_json_lists_skipped_files(tmp_path):
    (tmp_path / "notes.md").write_text("# not evidence\n")
    (tmp_path / "rank2.log").write_text("\n".join(NCCL_LINES) + "\n")
    result = CliRunner().invoke(cli, ["parse", "--inventory", "--format", "json", str(tmp_path)])
    assert result.exit_code == 0, result.output
    rows = {os.path.basename(r["file"]): r for r in json.loads(result.output)["files"]}
    assert rows["notes.md"]["skipped"] is True
    assert rows["rank2.log"]["skipped"] is False and rows["rank2.log"]["ranks"] == [2]


def test_conflicting_options_are_usage_errors(tmp_path):
    (tmp_path / "rank0.log").write_text(NCCL_LINES[0] + "\n")
    rc, out, err = run("parse", "--inventory", "--format", "csv", str(tmp_path))
    assert rc == 2 and "Traceback" not in err


@pytest.mark.parametrize("fmt", ["table", "jsonl", "csv"])
def test_every_format_runs(tmp_path, fmt):
    (tmp_path / "rank0.log").write_text("\n".join(NCCL_LINES) + "\n")
    result = CliRunner().invoke(cli, ["parse", "--format", fmt, str(tmp_path)])
    assert result.exit_code == 0, result.output
    if fmt == "table":
        assert "unparsed lines:" in result.output and "ranks found: 0" in result.output


SAMPLE_NCCL = os.path.join(os.path.dirname(__file__), os.pardir, "sample_logs", "nccl")


@pytest.mark.parametrize("args", [["--format", "jsonl", "-j1"], ["--format", "jsonl", "-j2"], ["--format", "table"]])
def test_a_reader_that_stops_early_gets_a_silent_exit_141(args):
    """`ncclf parse ... | head`: the output is several MB, far more than a pipe holds, so ncclf is still writing
    when the reader goes; it stops quietly with 128 + SIGPIPE, never 1 ("a failure was diagnosed")."""
    proc = subprocess.Popen([sys.executable, "-m", "nccl_forensics", "parse", SAMPLE_NCCL, *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert proc.stdout.readline()
        proc.stdout.close()
        assert proc.wait(timeout=120) == 141
        assert proc.stderr.read() == b""
    finally:
        proc.kill()
        proc.wait()
        proc.stderr.close()


def test_dash_reads_the_evidence_from_stdin(tmp_path):
    text = "\n".join(NCCL_LINES) + "\n"
    done = subprocess.run([sys.executable, "-m", "nccl_forensics", "parse", "-", "--format", "jsonl"], input=text,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    assert events and all(e["file"].endswith("stdin") for e in events)
    assert not list(Path(events[0]["file"]).parent.parent.glob(Path(events[0]["file"]).parent.name)), "temp file removed"
