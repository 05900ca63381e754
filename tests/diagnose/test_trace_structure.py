"""The Perfetto trace of every sample bundle is valid Trace Event Format: slices on one track nest or follow each
other (never overlap), durations come only from measured times, flows pair up; the straggler's waits are drawn."""
from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pytest

from nccl_forensics.outputs import perfetto
from nccl_forensics.pipeline.reduce import diagnose

ROOT = Path(__file__).resolve().parents[2]
EPS = 1e-6                  # µs: float rounding of ts + dur, far below the trace's ns resolution
SETS = sorted(p for sub in ("bundles", "flight_recorder") for p in (ROOT / "sample_logs" / sub).glob("*") if p.is_dir())


def check_structure(doc: dict) -> list[dict]:
    events = doc["traceEvents"]
    assert all({"ph", "pid", "tid", "name"} <= set(e) for e in events)
    slices = defaultdict(list)
    for e in events:
        assert e["ph"] in ("M", "X", "i", "s", "f")
        if e["ph"] != "M":
            assert isinstance(e["ts"], (int, float)) and e["ts"] >= 0
        if e["ph"] == "X":
            assert e["dur"] > 0 and "measured" in e["args"]
            slices[e["tid"]].append((e["ts"], e["ts"] + e["dur"]))
        if e["ph"] == "i":
            assert e["s"] in ("t", "g")
    for tid, spans in slices.items():
        spans.sort()
        stack = []
        for start, end in spans:
            while stack and stack[-1] <= start + EPS:
                stack.pop()
            assert not stack or end <= stack[-1] + EPS, f"track {tid}: a slice overlaps another without nesting"
            stack.append(end)
    starts = {e["id"] for e in events if e["ph"] == "s"}
    assert starts == {e["id"] for e in events if e["ph"] == "f"}
    return events


@pytest.mark.parametrize("folder", SETS, ids=lambda p: p.name)
def test_every_sample_trace_is_well_formed(folder):
    check_structure(json.loads(perfetto.render(diagnose([str(folder)], jobs=1))))


def test_the_straggler_trace_draws_the_waits_it_caused():
    d = diagnose([str(ROOT / "sample_logs/bundles/real-slow-rank")], jobs=1)
    events = check_structure(json.loads(perfetto.render(d)))
    waits = [e for e in events if e["ph"] == "X" and e["name"] == "waiting for rank 1"]
    assert len(waits) >= 4 and max(e["dur"] for e in waits) > 250_000       # µs: rank 0 waited ~0.3 s
    assert [e for e in events if e["ph"] == "s" and e["tid"] == 2]          # flows leave rank 1's track


def test_untimed_collectives_have_no_invented_durations():
    d = diagnose([str(ROOT / "sample_logs/bundles/dtype-mismatch-nccl")], jobs=1)
    events = check_structure(json.loads(perfetto.render(d)))
    assert not [e for e in events if e["ph"] == "X"]
    assert {e["args"]["time"] for e in events if e["ph"] == "i" and e["s"] == "t" and e.get("cat") != "rank"} == \
        {"order only (no timestamp)"}

