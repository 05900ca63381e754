"""Renderers against golden files. Regenerate with NCCLF_UPDATE_GOLDEN=1 pytest tests/diagnose/test_render.py."""
from __future__ import annotations

import enum
import io
import json
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console

from nccl_forensics.outputs import (
    diagnosis_json,
    diagnosis_terminal,
    markdown_report,
    perfetto,
)
from nccl_forensics.pipeline.reduce import diagnose_events

from . import factories as F

GOLDEN = Path(__file__).parent / "golden"
UPDATE = os.environ.get("NCCLF_UPDATE_GOLDEN") == "1"

CASES = {
    "dtype": lambda: F.fr_job(nranks=4, entries=8, diverge_rank=2, field="dtype", value="float64", at=6),
    "dropped": lambda: ([F.child_failed(2, -9, "SIGKILL")] + [F.child_failed(r, 1, root_cause=r == 0) for r in (0, 1, 3)]
                        + [F.gloo_error(r, "connection_closed", peer="127.0.0.1:29500") for r in (0, 1, 3)]
                        + F.fr_job(nranks=4, entries=6, diverge_rank=2, stop_at=5)),
}


def _check(name: str, text: str) -> bool:
    """Compare with the golden file; write it (and report True) only when updating. A missing golden file
    fails: a test that writes what it then compares against would pass on anything."""
    path = GOLDEN / name
    if UPDATE:
        path.write_text(text, encoding="utf-8")
        return True
    assert path.exists(), f"golden file {path} is missing (NCCLF_UPDATE_GOLDEN=1 writes it; review and commit it)"
    assert text == path.read_text(encoding="utf-8"), f"{name} differs (NCCLF_UPDATE_GOLDEN=1 to accept)"
    return False


def _terminal(d) -> str:
    buf = io.StringIO()
    diagnosis_terminal.render(d, Console(file=buf, width=120, color_system=None, force_terminal=False))
    return buf.getvalue()


@pytest.mark.parametrize("case", sorted(CASES))
def test_golden_outputs(case):
    d = diagnose_events(CASES[case]())
    written = [_check(f"{case}.json", diagnosis_json.render(d)), _check(f"{case}.md", markdown_report.render(d)),
               _check(f"{case}.txt", _terminal(d))]
    if any(written):
        pytest.skip(f"golden files for {case} written (NCCLF_UPDATE_GOLDEN=1): review them")


def test_json_contract():
    doc = json.loads(diagnosis_json.render(diagnose_events(CASES["dtype"]())))
    assert doc["schema_version"] == 1
    assert set(doc["verdict"]) >= {"class", "culprit_ranks", "confidence", "summary"}
    assert doc["verdict"]["culprit_ranks"] == [2]
    group = doc["groups"][0]
    assert set(group) >= {"name", "ranks", "last_common_seq", "positions"}
    assert isinstance(group["last_common_seq"], int)
    finding = doc["findings"][0]
    assert set(finding) >= {"id", "class", "ranks", "evidence"}
    assert set(finding["evidence"][0]) == {"file", "line", "text"}
    assert [r["rank"] for r in doc["ranks"]] == [0, 1, 2, 3]


class Code(enum.IntEnum):
    ONE = 1


def test_json_text_is_the_standard_indented_form():
    """The report's JSON is written through the C encoder (fast on 16,384 ranks), the same text as the stdlib's
    indenting encoder: nesting, empty containers, tuples, keys that are numbers, NaN, escapes, unknown objects."""
    value = {"a": [1, 2.5, None, True, "é\n\"", (3, [4, {}]), []], "b": {"x": {"y": [{"z": float("nan")}]}},
             "c": {1: "int key", None: "none key"}, "d": {3, 4}, "e": {}, "f": [[]], "g": 10 ** 30, "h": 1e-300,
             "i": [{"rank": 3, "positions": {"0": "at"}, "pids": [7], "first_divergence": None}],
             # records of scalars and containers of scalars (written a member at a time), and ones that are not
             "j": [{"a": [float("inf"), -float("inf"), 0.1, False], "b": {"k": True, "l": None}, "c": [], "d": {},
                    "e": "\u2028\x1b"},
                   {"a": [1, (2, 3)], "b": 1}, {"a": {2: "int key"}, "b": 1}, {"a": [Code.ONE], "b": {"k": Code.ONE}},
                   {"a": {"k": [1]}, "b": 1}, {"a": [{1, 2}], "b": 1}, {"a": Code.ONE, "b": [1]}]}
    assert diagnosis_json.pretty(value) == json.dumps(value, indent=2, default=str)
    for d in (diagnose_events(CASES[case]()) for case in sorted(CASES)):
        assert diagnosis_json.render(d) == json.dumps(diagnosis_json.to_dict(d), indent=2, default=str) + "\n"


def test_many_records_written_a_column_at_a_time_are_the_standard_indented_form():
    """A long list of records (a large job's ranks and sources) is written a column at a time: the same text as the
    stdlib's, and where one record differs in its keys or holds other values, the general way gives it."""
    def records(n, odd=None):
        out = [{"rank": i, "host": f"n{i // 8}\n\"é", "pids": [i, 7] if i % 3 else [], "t": i / 7 if i % 5 else
                float("nan"), "end": None if i % 2 else "killed", "ok": i % 4 == 0, "positions": {"0": "at", "1": i}
                if i % 3 else {}, "div": None if i % 9 else {"seq": i, "field": "dtype"}, "big": 10 ** 30}
               for i in range(n)]
        if odd is not None:
            out[n // 2] = odd(out[n // 2])
        return out
    cases = [records(70), records(200), records(63),
             records(70, lambda r: {**r, "extra": 1}), records(70, lambda r: dict(reversed(list(r.items())))),
             records(70, lambda r: {**r, "rank": Code.ONE}), records(70, lambda r: {**r, "pids": [1, (2, 3)]}),
             records(70, lambda r: {**r, "positions": {1: "int key"}}), records(70, lambda r: {**r, "div": {"a": [1]}}),
             records(70, lambda r: {**r, "pids": {"x": 1}}), records(70, lambda r: {**r, "positions": [2]}),
             records(70, lambda r: {}), records(70, lambda r: 5), [*records(70), [1, 2]]]
    for value in cases:
        assert diagnosis_json.pretty(value) == json.dumps(value, indent=2, default=str)
        assert diagnosis_json.pretty({"ranks": value}) == json.dumps({"ranks": value}, indent=2, default=str)


def test_the_json_written_a_few_pieces_at_a_time_is_the_rendered_text(monkeypatch):
    """`ncclf diagnose --format json` writes the report in pieces (a large job's is not held whole twice more):
    the same text as `render`, whether it takes one write or many."""
    class Counted(io.StringIO):
        writes = 0

        def write(self, text: str) -> int:
            self.writes += 1
            return super().write(text)

    d = diagnose_events(CASES["dropped"]())
    for pieces in (4096, 3):
        monkeypatch.setattr(diagnosis_json, "_PIECES", pieces)
        out = Counted()
        diagnosis_json.write(d, out)
        assert out.getvalue() == diagnosis_json.render(d) and (out.writes > 1) == (pieces == 3)


def test_markdown_is_in_incident_order_with_its_making_and_no_repeated_sentence():
    context = {"date": "2026-11-25 03:00 UTC", "version": "9.9", "command": "ncclf diagnose logs/", "inputs": ["logs/"]}
    md = markdown_report.render(diagnose_events(CASES["dropped"]()), context)
    headings = [line for line in md.splitlines() if line.startswith("## ")]
    assert headings == ["## Summary", "## Diagnostic walk", "## Root cause", "## Consequences", "## Fix",
                        "## Prevention", "## Missing evidence"]
    assert all(f"{value}" in md for value in ("2026-11-25 03:00 UTC", "9.9", "ncclf diagnose logs/", "`logs/`"))
    assert md.index("R201 dropped-rank") < md.index("## Consequences") < md.index("N401 network-error")
    sentences = [s.strip() for s in md.replace("\n", " ").split(". ") if len(s.strip()) > 40]
    assert len(sentences) == len(set(sentences)), "a sentence is repeated"
    assert "\n\n\n" not in md


def test_perfetto_trace_event_format():
    d = diagnose_events(CASES["dtype"]())
    doc = json.loads(perfetto.render(d))
    events = doc["traceEvents"]
    names = {(e["name"], e["args"]["name"]) for e in events if e["ph"] == "M" and e["name"] == "thread_name"}
    assert names == {("thread_name", f"rank {r}") for r in range(4)}
    assert any(e["ph"] == "M" and e["name"] == "process_name" for e in events)
    arrivals = [e for e in events if e["ph"] == "i" and e["s"] == "t" and "seq" in e["args"]]
    assert len(arrivals) == 4 * 8 and {e["tid"] for e in arrivals} == {1, 2, 3, 4}
    assert all(e["args"]["duration"] == "unknown" for e in arrivals)
    assert all(e["dur"] > 0 and e["args"]["measured"] for e in events if e["ph"] == "X")   # only measured spans
    marks = [e for e in events if e["ph"] == "i" and e["s"] == "g"]
    assert len(marks) == 1 and "seq 8" in marks[0]["name"]
    flagged = [e for e in arrivals if e.get("cname") == "terrible"]
    assert [(e["tid"], e["args"]["seq"]) for e in flagged] == [(3, 6)]

def test_a_wait_slice_ends_at_the_rank_s_timeout():
    """real-timeout: rank 0's gloo timeout fires 5 s after it enqueued seq 11; rank 1 arrived 8 s after it."""
    from nccl_forensics.pipeline.reduce import diagnose
    root = Path(__file__).resolve().parents[2]
    d = diagnose([str(root / "sample_logs" / "bundles" / "real-timeout")], jobs=1)
    waits = [e for e in json.loads(perfetto.render(d))["traceEvents"] if e["ph"] == "X" and e["args"]["seq"] == 11]
    assert [(e["tid"], e["dur"]) for e in waits] == [(1, 5_000_000.0)]
    assert "timed out after 5 s" in waits[0]["name"]


_SCALARS = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8)
_VALUES = st.recursive(_SCALARS, lambda inner: st.lists(inner, max_size=4)
                       | st.dictionaries(st.text(max_size=4) | st.integers(), inner, max_size=4), max_leaves=24)


@given(_VALUES)
@settings(max_examples=300, deadline=None)
def test_any_json_value_is_written_as_the_stdlib_writes_it(value):
    assert diagnosis_json.pretty(value) == json.dumps(value, indent=2, default=str)
