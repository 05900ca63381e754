"""nccl-tests output read by `diagnose`: a completed run is health evidence for each of its ranks, a table that
stops while the console goes on is a hang at the next size, one that stops where the log ends shows no failure."""
from __future__ import annotations

from pathlib import Path

from nccl_forensics.model import Source, SourceKind, shows_failure, shows_health
from nccl_forensics.pipeline.reduce import diagnose
from nccl_forensics.sources import parse_source

SAMPLE = Path(__file__).resolve().parents[2] / "sample_logs" / "nccl-tests" / "all_reduce_perf.8xH100.log"


def _events(path):
    return parse_source(Source(str(path), SourceKind.CONSOLE)).events


def test_a_completed_run_is_health_evidence_for_every_rank():
    events = _events(SAMPLE)
    done = [ev for ev in events if ev.kind == "nccltests_done"]
    assert sorted(ev.rank for ev in done) == list(range(8))
    assert all(shows_health(ev) and ev.data["avg_busbw"] > 0 for ev in done)
    assert not any(shows_failure(ev) for ev in events)


def _cut_at_one_mebibyte(tmp_path, after: str = "") -> Path:
    lines = SAMPLE.read_text().splitlines(keepends=True)
    cut = next(i for i, line in enumerate(lines) if line.split()[:1] == ["1048576"])
    path = tmp_path / "all_reduce_perf.log"
    path.write_text("".join(lines[:cut + 1]) + after)
    return path


def test_a_table_that_stops_while_the_console_goes_on_is_a_hang_at_that_size(tmp_path):
    path = _cut_at_one_mebibyte(tmp_path, after="^C\n")
    [ev] = [ev for ev in _events(path) if ev.kind == "nccltests_incomplete"]
    assert ev.data["last_size"] == 1048576 and shows_failure(ev)
    assert diagnose([str(tmp_path)], jobs=1).verdict.cls == "timeout_unknown"


def test_a_table_that_stops_where_the_log_ends_shows_no_failure(tmp_path):
    """A paste cut mid-table reads the same as a run still going: no hang claimed, and no health either."""
    path = _cut_at_one_mebibyte(tmp_path, after="\n\n")
    [ev] = [ev for ev in _events(path) if ev.kind == "nccltests_incomplete"]
    assert ev.data["last_size"] == 1048576 and not shows_failure(ev) and not shows_health(ev)
    assert diagnose([str(tmp_path)], jobs=1).verdict.cls == "inconclusive"


def test_a_paste_cut_mid_row_is_still_a_table_that_ends_with_the_log(tmp_path):
    path = _cut_at_one_mebibyte(tmp_path, after="     2097152        524288     float     sum      -1    40.66\n")
    [ev] = [ev for ev in _events(path) if ev.kind == "nccltests_incomplete"]
    assert ev.data["last_size"] == 1048576 and not shows_failure(ev)


def test_wrong_values_are_a_failure(tmp_path):
    text = SAMPLE.read_text().replace("# Out of bounds values : 0 OK", "# Out of bounds values : 3 FAILED")
    path = tmp_path / "all_reduce_perf.log"
    path.write_text(text)
    events = _events(path)
    assert any(shows_failure(ev) for ev in events if ev.kind == "nccltests_result")
    assert not any(shows_health(ev) for ev in events if ev.kind == "nccltests_done")


def _table_only(tmp_path, wrong: str) -> Path:
    """The sample's table from its column names on (a paste without the config and rank lines), one row's
    in-place #wrong set to `wrong`, cut after that row."""
    lines = SAMPLE.read_text().splitlines(keepends=True)
    start = next(i for i, line in enumerate(lines) if line.split()[1:3] == ["size", "count"])
    cut = next(i for i, line in enumerate(lines) if line.split()[:1] == ["1048576"])
    row = lines[cut].rstrip("\n").rsplit(None, 1)[0] + f"  {wrong}\n"
    path = tmp_path / "all_reduce_perf.log"
    path.write_text("".join(lines[start:cut]) + row)
    return path


def test_a_paste_that_starts_at_the_table_still_reads_its_rows(tmp_path):
    events = _events(_table_only(tmp_path, wrong="237858"))
    [row] = [ev for ev in events if ev.kind == "nccltests_row" and ev.data["wrong"]]
    assert row.data["size"] == 1048576 and shows_failure(row)
    assert diagnose([str(tmp_path)], jobs=1).verdict.cls != "inconclusive"


def test_a_healthy_table_without_its_header_shows_no_failure(tmp_path):
    events = _events(_table_only(tmp_path, wrong="0"))
    assert any(ev.kind == "nccltests_row" for ev in events)
    assert not any(shows_failure(ev) for ev in events)
