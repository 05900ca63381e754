"""grammars/faulthandler.lark rule tables and FaulthandlerParser dumps (CPython's Python/traceback.c and Modules/faulthandler.c)."""
from __future__ import annotations

from pathlib import Path

import pytest
from grammar_table import assert_invalid, assert_valid

from nccl_forensics.model import Line, Source, SourceKind
from nccl_forensics.sources import parse_source
from nccl_forensics.sources.faulthandler import FaulthandlerParser, classify

SAMPLES = Path(__file__).resolve().parents[2] / "sample_logs" / "evidence" / "faulthandler"

VALID = [
    ("Fatal Python error: Segmentation fault", "reason", {"reason": "Segmentation fault"}),
    ("Fatal Python error: Aborted", "reason", {"reason": "Aborted"}),
    ("Timeout (0:05:00)!", "reason", {"reason": "Timeout (0:05:00)!"}),
    ("Timeout (0:00:00.500000)!", "reason", {"reason": "Timeout (0:00:00.500000)!"}),
    ("Current thread 0x00007f76db47fb80 (most recent call first):", "thread",
     {"thread_id": 0x7F76DB47FB80, "current": True}),
    ("Thread 0x00007f76da71d6c0 (most recent call first):", "thread", {"thread_id": 0x7F76DA71D6C0, "current": False}),
    ("Stack (most recent call first):", "thread", {"thread_id": None, "current": True}),
    ('  File "hang.py", line 3 in worker', "frame", {"file": "hang.py", "line": 3, "function": "worker"}),
    ('  File "<string>", line ??? in <module>', "frame", {"file": "<string>", "line": None}),
    ("  <no Python frame>", "marker", {}),
    ("  Garbage-collecting", "marker", {}),
    ("  ...", "marker", {}),
    ("...", "marker", {}),
    ("Python runtime state: initialized", "marker", {}),
    ("Extension modules: numpy._core._multiarray_umath, numpy.linalg._umath_linalg (total: 2)", "end", {}),
]
INVALID = ['Thread 0x7FDD07609B80 (active): "MainThread"', '  File "x.py", line 3, in f', "Timeout (5 s)!",
           "Thread 0x00007f76da71d6c0:", "Fatal error: x"]






@pytest.mark.parametrize("text, kind, fields", VALID)
def test_valid_lines(text, kind, fields):
    assert_valid(classify, text, kind, fields)


@pytest.mark.parametrize("text", INVALID)
def test_invalid_lines(text):
    assert_invalid(classify, text)


def dumps(path):
    result = parse_source(Source(str(path), SourceKind.CONSOLE))
    assert result.error is None and result.unparsed == 0
    return [e for e in result.events if e.kind == "faulthandler"]


def shape(ev):
    return [(t["current"], [(f["function"], f["line"]) for f in t["frames"]]) for t in ev.data["threads"]]


@pytest.mark.parametrize("name", ["segfault.err", "real/segfault_py311.err"])
def test_segfault(name):
    ev, = dumps(SAMPLES / name)
    assert (ev.source, ev.line, ev.data["reason"]) == ("traceback", 1, "Segmentation fault")
    (cur0, frames0), (cur1, frames1) = shape(ev)
    assert not cur0
    assert frames0[0] == (("wait", 327) if "real" in name else ("worker", 3))
    assert cur1 and frames1[0][0] == "string_at"


@pytest.mark.parametrize("name, reason", [
    ("dump_traceback_later_timeout.err", "Timeout (0:00:00.500000)!"),
    ("real/dump_traceback_later_py311.err", "Timeout (0:00:00.500000)!"),
    ("aborted_extension_modules.err", "Aborted"),
    ("register_sigusr1_no_header.err", None),
])
def test_dump_headers(name, reason):
    ev, = dumps(SAMPLES / name)
    assert ev.data["reason"] == reason and ev.data["threads"]


def test_watchdog_abort_gives_traceback_and_faulthandler():
    result = parse_source(Source(str(SAMPLES / "watchdog_abort_then_faulthandler.err"), SourceKind.CONSOLE))
    mine = [(e.kind, e.line) for e in result.events if e.source == "traceback"]
    assert mine == [("traceback", 3), ("dist_backend_error", 3), ("faulthandler", 4)]
    ev = [e for e in result.events if e.kind == "faulthandler"][0]
    assert shape(ev)[0] == (False, []) and shape(ev)[1][1][0] == ("broadcast", 2616)


def test_thread_ids_join_py_spy_hex_ids():
    parsed = classify("Thread 0x00007fdd07609b80 (most recent call first):")
    assert parsed[1]["thread_id"] == int("0x7FDD07609B80", 16)


def test_dump_ends_at_first_foreign_line():
    parser = FaulthandlerParser(Source("c.log", SourceKind.CONSOLE))
    assert parser.feed(Line(1, "Fatal Python error: Aborted")) and parser.busy
    assert parser.feed(Line(2, "Current thread 0x00007f818443fb80 (most recent call first):"))
    assert parser.feed(Line(3, '  File "<string>", line 5 in <module>'))
    assert parser.feed(Line(4, "line 40:  2093 Aborted   python train.py")) is False
    assert not parser.busy and [e.kind for e in parser.out] == ["faulthandler"]


def test_malformed_frame_inside_a_dump_is_unparsed():
    parser = FaulthandlerParser(Source("c.log", SourceKind.CONSOLE))
    parser.feed(Line(1, "Thread 0x00007f818443fb80 (most recent call first):"))
    assert parser.feed(Line(2, '  File "x.py" line 5')) is True
    assert [e.kind for e in parser.out] == ["unparsed"]


@pytest.mark.parametrize("text", ['Thread 0x7FDD07609B80 (active): "MainThread"',
                                  "Extension modules: a (total: 1)", "step 10"])
def test_ordinary_lines_are_not_claimed(text):
    parser = FaulthandlerParser(Source("c.log", SourceKind.CONSOLE))
    assert parser.feed(Line(1, text)) is False and not parser.out


def test_a_dump_pasted_without_its_header_is_read_from_its_frames():
    """vllm#2731: a stack pasted from `File "…", line N in f` on; one stray frame-shaped line alone is no dump."""
    parser = FaulthandlerParser(Source("c.log", SourceKind.CONSOLE))
    assert parser.feed(Line(1, '  File "x.py", line 3 in f'))
    parser.finish()
    assert parser.out == []
    frames = ['  File "/t/distributed_c10d.py", line 2050 in all_reduce', '  File "/w/linear.py", line 548 in forward']
    for no, text in enumerate(frames, 1):
        assert parser.feed(Line(no, text))
    parser.feed(Line(3, "step 10"))
    (ev,) = parser.out
    assert ev.data["reason"] is None and [f["function"] for f in ev.data["threads"][0]["frames"]] == ["all_reduce",
                                                                                                       "forward"]
