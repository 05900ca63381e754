"""Progress on long work: the library reports files done through a callback; the CLI draws a bar only on a
terminal (never when piped, never with -q)."""
from __future__ import annotations

from pathlib import Path

from nccl_forensics.outputs.progress import progress_bar
from nccl_forensics.pipeline import collect

BUNDLE = Path(__file__).resolve().parents[1] / "sample_logs" / "bundles" / "dtype-mismatch-nccl"


def test_no_bar_where_no_one_watches():
    with progress_bar("x", enabled=False) as cb:          # -q
        assert cb is None
    with progress_bar("x") as cb:                         # pytest's stderr is no terminal
        assert cb is None


def test_diagnose_reports_every_file_done():
    from nccl_forensics import diagnose
    calls: list[tuple[int, int]] = []
    diagnose([str(BUNDLE)], jobs=1, progress=lambda done, total: calls.append((done, total)))
    total = calls[-1][1]
    assert total >= 2 and calls == [(i, total) for i in range(1, total + 1)]


def test_parse_reports_every_file_done():
    calls: list[tuple[int, int]] = []
    collect.inventory([str(BUNDLE)], jobs=1, progress=lambda done, total: calls.append((done, total)))
    assert calls and calls[-1][0] == calls[-1][1] >= 2


def test_piped_stderr_gets_no_bar():
    from click.testing import CliRunner

    from nccl_forensics.cli import cli
    result = CliRunner().invoke(cli, ["diagnose", "-j", "1", str(BUNDLE)])
    assert "reading evidence" not in result.output and "\x1b" not in result.output
