"""No escape sequence from evidence reaches a terminal, a Markdown report, a mermaid chart or a CSV file, and no
Markdown/HTML/formula from evidence is acted on. The evidence: a WARN line and a thread name carrying OSC 52
(clipboard write), OSC 8 (a link), a DCS string, 8-bit CSI/OSC and a title change; a file named with one."""
from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import pytest

from nccl_forensics.hygiene import csv_cell, markdown_text, mermaid_label, strip_escapes

from .conftest import run_ncclf

OSC52 = "\x1b]52;c;cm0gLXJmIH4K\x07"
OSC8 = "\x1b]8;;http://evil.example/\x1b\\click\x1b]8;;\x1b\\"
DCS = "\x1bP1$qm\x1b\\"
C1 = "\x9b2J\x9d0;pwned\x9c"
TITLE = "\x1b]0;owned\x07"
HOSTILE = OSC52 + OSC8 + DCS + C1 + TITLE + "\x1b[2K\x1b[1A\x08\x07"
BAD = ("\x1b", "\x9b", "\x9d", "\x9c", "\x07", "\x08", "\x90")


def _clean(text: str) -> None:
    for char in BAD:
        assert char not in text, f"{char!r} reached the output: {text[:2000]!r}"


@pytest.fixture
def hostile_logs(tmp_path) -> Path:
    logs = tmp_path / f"logs{TITLE}"
    logs.mkdir()
    for rank in range(2):
        head = f"node0:{3000 + rank}:{3000 + rank} [{rank}] NCCL INFO "
        lines = [f"{head}NCCL version 2.21.5+cuda12.4",
                 f"{head}ncclCommInitRank comm 0x55d0c000000{rank} rank {rank} nranks 2 cudaDev {rank} nvmlDev "
                 f"{rank} busId {rank + 1}8000 commId 0x7a11c0ffee5eed01 - Init COMPLETE",
                 (f"node0:{3000 + rank}:{3000 + rank} [{rank}] misc/socket.cc:50 NCCL WARN {HOSTILE}"
                  f"<img src=x onerror=alert(1)> [x](javascript:alert(1)) =cmd|' /C calc'!A0")]
        (logs / f"nccl.rank{rank}.{OSC52}{C1}.log").write_text("\n".join(lines) + "\n")
    (logs / "rank1.py-spy-node0-3001.txt").write_text(
        f"Process 3001: python train.py\nPython v3.11.7 (/usr/bin/python3.11)\n\n"
        f"Thread 3001 (idle): \"Main{HOSTILE}Thread\"\n    wait (threading.py:320)\n"
        f"    all_reduce (torch/distributed/distributed_c10d.py:2050)\n    main (train.py:10)\n")
    return logs


@pytest.mark.parametrize("args", [["diagnose"], ["diagnose", "--format", "markdown"], ["parse"],
                                  ["parse", "--inventory"], ["parse", "--format", "csv"], ["topo"],
                                  ["topo", "--format", "mermaid"]], ids=" ".join)
def test_no_escape_sequence_reaches_stdout_or_stderr(hostile_logs, args):
    done = run_ncclf(*args, str(hostile_logs), timeout=300)
    assert done.returncode in (0, 1, 4), done.stderr
    _clean(done.stdout)
    _clean(done.stderr)


def test_the_report_and_the_csv_neutralise_markup_and_formulas(hostile_logs, tmp_path):
    report = tmp_path / "report.md"
    done = run_ncclf("diagnose", str(hostile_logs), "--report", str(report), timeout=300)
    assert done.returncode in (0, 1, 4), done.stderr
    _clean(report.read_text())
    for line in report.read_text().splitlines():       # raw only inside indented code blocks (shown literally)
        if re.search(r"(?<!\\)<img|(?<!\\)\]\(javascript", line):
            assert line.startswith("    "), line
    done = run_ncclf("parse", "--format", "csv", str(hostile_logs), timeout=300)
    for row in csv.reader(io.StringIO(done.stdout)):
        assert not any(cell.startswith(("=", "+", "@")) for cell in row), row


def test_the_one_sanitizer():
    assert strip_escapes(f"a{HOSTILE}b") == "aclickb"
    assert strip_escapes("tab\tand\nnewline stay, ünïcode too") == "tab\tand\nnewline stay, ünïcode too"
    assert strip_escapes("cut \x1b]52;c;unterminated") == "cut "
    assert markdown_text("<script>x</script> [a](b) | `c`") == "\\<script\\>x\\</script\\> \\[a\\](b) \\| \\`c\\`"
    assert mermaid_label('a"]; click A href "x') == '"a#quot;#93;; click A href #quot;x"'
    assert [csv_cell(v) for v in ("=1+1", "+1", "-1", "@SUM(A1)", "ok", 7, None)] == \
        ["'=1+1", "'+1", "'-1", "'@SUM(A1)", "ok", 7, None]
