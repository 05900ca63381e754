"""grammars/torchrun.lark, sources/torchrun.py and error.json: torch.distributed.elastic (torchrun) and its error.json."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from nccl_forensics.errors import BadInput
from nccl_forensics.model import Line, Source, SourceKind
from nccl_forensics.sources import parse_source
from nccl_forensics.sources.torchrun import (
    TorchrunParser,
    parse_torchrun_line,
    read_error_json,
)

SAMPLES = Path(__file__).resolve().parents[2] / "sample_logs" / "evidence"
REAL = SAMPLES / "real" / "torchrun"

AGENT = [
    ("WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 3436 closing signal SIGTERM",
     "sigterm_sent", {"pid": 3436, "signal": "SIGTERM", "level": "WARNING"}),
    ("[2024-02-09 09:09:15,381] torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: 1) "
     "local_rank: 1 (pid: 620208) of binary: /opt/conda/bin/python",
     "worker_failed", {"exitcode": 1, "local_rank": 1, "pid": 620208, "level": "ERROR", "signal": None}),
    ("E1112 23:35:00.551000 2366719 site-packages/torch/distributed/elastic/multiprocessing/api.py:869] failed "
     "(exitcode: -6) local_rank: 0 (pid: 2366800) of fn: main (start_method: spawn)",
     "worker_failed", {"exitcode": -6, "signal": "SIGABRT", "pid": 2366800}),
    ("W1112 23:34:59.130000 2366719 site-packages/torch/distributed/elastic/multiprocessing/api.py:912] Unable to "
     "shutdown process 2366801 via Signals.SIGTERM, forcefully exiting via Signals.SIGKILL",
     "sigterm_sent", {"pid": 2366801, "signal": "SIGKILL"}),
    ("I1112 23:35:01.000000 2366719 site-packages/torch/distributed/elastic/agent/server/api.py:680] Received 15 "
     "death signal, shutting down workers", "agent_log",
     {"message": "Received 15 death signal, shutting down workers", "level": "INFO"}),
    ("Sending process 5494 closing signal SIGTERM", "sigterm_sent", {"pid": 5494, "level": None}),
]




@pytest.mark.parametrize(("text", "kind", "fields"), AGENT, ids=[a[1] + str(i) for i, a in enumerate(AGENT)])
def test_agent_lines(text, kind, fields):
    parser = TorchrunParser(Source("c.log", SourceKind.CONSOLE))
    assert parser.feed(Line(7, text)) is True
    (ev,) = parser.out
    assert ev.kind == kind and ev.source == "torchrun" and ev.pid == fields.get("pid", ev.pid)
    for key, value in fields.items():
        assert ev.data[key] == value, key


@pytest.mark.parametrize(("text", "kind", "fields"), [
    ("exitcode  : -9 (pid: 3437)  (SIGKILL)", "field", {"exitcode": -9, "pid": 3437, "signal": "SIGKILL"}),
    ("exitcode  : 1 (pid: 5495) ", "field", {"exitcode": 1, "pid": 5495, "signal": None}),
    ("exitcode  : -6 (pid: 12)", "field", {"signal": "SIGABRT"}),
    ("rank      : 5 (local_rank: 1)", "field", {"rank": 5, "local_rank": 1}),
    ("error_file: <N/A>", "field", {"error_file": None}),
    ("traceback : Signal 9 (SIGKILL) received by PID 3437", "traceback", {"signal": "SIGKILL", "pid": 3437}),
    ("Root Cause (first observed failure):", "section", {"root_cause": True}),
    ("/tmp/ncclf_real_mkrihizo/worker.py FAILED", "header", {"entrypoint": "/tmp/ncclf_real_mkrihizo/worker.py"}),
])
def test_summary_lines(text, kind, fields):
    got_kind, data = parse_torchrun_line(text.strip(), "summary_line")
    assert got_kind == kind
    for key, value in fields.items():
        assert data[key] == value


def _parse(path: Path, kind=SourceKind.CONSOLE, **hints):
    result = parse_source(Source(str(path), kind, **hints))
    return result


def test_real_childfailed_summary_gives_one_event_per_entry():
    result = _parse(REAL / "raise" / "console.log")
    assert result.error is None
    failed = [e for e in result.events if e.kind == "child_failed"]
    assert [(e.rank, e.data["local_rank"], e.data["exitcode"], e.data["signal"], e.data["root_cause"]) for e in failed] == [
        (0, 0, -15, "SIGTERM", False), (1, 1, 1, None, True)]
    root = failed[1]
    assert root.host == "localhost" and root.pid == root.data["pid"]
    assert root.data["error_file"].endswith("attempt_0/1/error.json")
    assert root.data["traceback"].splitlines()[-1] == "ValueError: rank 1 failed on purpose (ncclf sample)"
    assert root.time == 1795268287.0           # `2026-11-21_13:38:07`, same second as error.json's timestamp
    assert not [e for e in result.events if e.source == "torchrun" and e.kind == "unparsed"]
    kinds = [e.kind for e in result.events if e.source == "torchrun"]
    assert kinds[:3] == ["sigterm_sent", "worker_failed", "agent_log"]


def test_real_fingerprint_run_yields_torch_events_from_the_summary_traceback():
    result = _parse(REAL / "fingerprint" / "console.log")
    fps = [e for e in result.events if e.kind == "fingerprint_mismatch"]
    from_summary = [e for e in fps if e.line > 40]
    assert {(e.rank, tuple(e.data["dtypes"])) for e in from_summary} == {(0, ("float32",)), (1, ("float64",))}


def test_hand_written_summary_with_signals():
    result = _parse(SAMPLES / "torchrun" / "childfailed_sigkill_torch2.13.log")
    failed = [e for e in result.events if e.kind == "child_failed"]
    root = next(e for e in failed if e.data["root_cause"])
    assert (root.rank, root.data["signal"], root.pid, root.data["error_file"]) == (5, "SIGKILL", 3437, None)
    assert next(e for e in failed if not e.data["root_cause"]).data["signal"] == "SIGTERM"


def test_no_other_failures_block():
    result = _parse(SAMPLES / "torchrun" / "childfailed_no_other_torch2.7.log")
    failed = [e for e in result.events if e.kind == "child_failed"]
    assert len(failed) == 1 and failed[0].data["root_cause"] and failed[0].data["exitcode"] == 1
    assert failed[0].data["traceback"].startswith("To enable traceback")


def test_truncated_summary_is_flushed_at_end_of_file(tmp_path):
    path = tmp_path / "cut.log"
    path.write_text("=" * 60 + "\ntrain.py FAILED\n" + "-" * 60 + "\nFailures:\n[1]:\n  time      : 2024-04-01_05:16:50\n"
                    "  host      : n1\n  rank      : 3 (local_rank: 3)\n  exitcode  : -9 (pid: 77)\n")
    failed = [e for e in _parse(path).events if e.kind == "child_failed"]
    assert [(e.rank, e.pid, e.data["signal"]) for e in failed] == [(3, 77, "SIGKILL")]


def test_real_error_json_files():
    files = sorted(REAL.glob("*/logs/*/attempt_0/*/error.json"))
    assert len(files) == 4
    for path in files:
        result = _parse(path, SourceKind.ERROR_JSON, local_rank=int(path.parent.name))
        ev = result.events[0]
        assert result.error is None and ev.kind == "error_json" and ev.source == "torchrun"
        assert ev.data["exc_type"] in ("RuntimeError", "ValueError") and ev.time == ev.data["timestamp"]
        assert ev.data["local_rank"] == int(path.parent.name) and "Traceback" in ev.data["traceback"]


def test_error_json_for_a_signal_death():
    path = SAMPLES / "torchrun" / "logdir_signal" / "none_8kh569f4" / "attempt_0" / "1" / "error.json"
    (ev,) = _parse(path, SourceKind.ERROR_JSON).events
    assert (ev.data["signal"], ev.data["exitcode"], ev.pid, ev.data["exc_type"]) == ("SIGKILL", -9, 3437, None)


@pytest.mark.parametrize("content", ["{not json", "[1, 2]", '{"other": 1}', "\x00\x01"])
def test_malformed_error_json_is_a_one_line_error(tmp_path, content):
    path = tmp_path / "error.json"
    path.write_text(content)
    result = _parse(path, SourceKind.ERROR_JSON)
    assert result.error and "\n" not in result.error and str(path) in result.error
    with pytest.raises(BadInput):
        list(read_error_json(Source(str(path), SourceKind.ERROR_JSON)))


def test_error_json_with_string_message(tmp_path):
    path = tmp_path / "error.json"
    path.write_text(json.dumps({"message": "RuntimeError: boom", "timestamp": 17}))
    (ev,) = _parse(path, SourceKind.ERROR_JSON).events
    assert (ev.data["exc_type"], ev.time) == ("RuntimeError", 17.0)


def test_worker_output_is_not_claimed():
    parser = TorchrunParser(Source("c.log", SourceKind.CONSOLE))
    for text in ["step 3 loss 1.0", "Traceback (most recent call last):", "[Rank 0] Watchdog caught", "=" * 60]:
        assert parser.feed(Line(1, text)) is False
    assert parser.out == []


def test_a_stray_failures_line_does_not_swallow_the_rest_of_the_file():
    parser = TorchrunParser(Source("c.log", SourceKind.CONSOLE))
    assert parser.feed(Line(1, "Failures:")) is True and parser.busy
    assert parser.feed(Line(2, "epoch 3: 0 failures so far")) is False
    assert not parser.busy and parser.feed(Line(3, "step 4 loss 1.0")) is False
    assert parser.out == []
