"""nccl-tests output read by `diagnose`: a completed run is health evidence for each of its ranks, a table that
stops is a hang at the next size."""
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


def test_a_table_that_stops_is_a_hang_at_that_size(tmp_path):
    lines = SAMPLE.read_text().splitlines(keepends=True)
    cut = next(i for i, line in enumerate(lines) if line.split()[:1] == ["1048576"])
    path = tmp_path / "all_reduce_perf.log"
    path.write_text("".join(lines[:cut + 1]))
    [ev] = [ev for ev in _events(path) if ev.kind == "nccltests_incomplete"]
    assert ev.data["last_size"] == 1048576 and shows_failure(ev)
    assert diagnose([str(tmp_path)], jobs=1).verdict.cls == "timeout_unknown"


def test_wrong_values_are_a_failure(tmp_path):
    text = SAMPLE.read_text().replace("# Out of bounds values : 0 OK", "# Out of bounds values : 3 FAILED")
    path = tmp_path / "all_reduce_perf.log"
    path.write_text(text)
    events = _events(path)
    assert any(shows_failure(ev) for ev in events if ev.kind == "nccltests_result")
    assert not any(shows_health(ev) for ev in events if ev.kind == "nccltests_done")
