"""grammars/traceback.lark rule tables, TracebackParser blocks, and the exception-message recognisers.

Samples: sample_logs/evidence/tracebacks/ (written from PyTorch's CUDACachingAllocator.cpp and c10d's ProcessGroupGloo/ProcessGroupNCCL messages) and
tracebacks/real/ (stderr of real 2-rank gloo jobs on this machine, torch 2.13.0).
"""
from __future__ import annotations

from pathlib import Path

import pytest
from grammar_table import assert_invalid, assert_valid

from nccl_forensics.model import Line, Source, SourceKind
from nccl_forensics.sources import parse_source
from nccl_forensics.sources.exceptions import recognise, size_bytes
from nccl_forensics.sources.traceback import TracebackParser, classify

SAMPLES = Path(__file__).resolve().parents[2] / "sample_logs" / "evidence" / "tracebacks"

VALID = [
    ("Traceback (most recent call last):", "header", {}),
    ('  File "/x/train.py", line 3, in <module>', "frame", {"file": "/x/train.py", "line": 3, "function": "<module>"}),
    ('  File "a, line 1.py", line 12, in f', "frame", {"file": "a, line 1.py", "line": 12}),
    ('  File "x.py", line 3', "frame", {"file": "x.py", "line": 3, "function": None}),
    ("    work.wait()", "source", {}),
    ("           ^^^^^^^^^^^^^^^^^^^^^", "source", {}),
    ("  [Previous line repeated 996 more times]", "source", {}),
    ("  + Exception Group Traceback (most recent call last):", "source", {}),
    ("The above exception was the direct cause of the following exception:", "chain", {"how": "cause"}),
    ("During handling of the above exception, another exception occurred:", "chain", {"how": "context"}),
    ("Last error:", "continuation", {}),
    ("Cuda failure 2 'out of memory'", "continuation", {}),
    ("For debugging consider passing CUDA_LAUNCH_BLOCKING=1.", "continuation", {}),
    # torch_npu's line under an NPU error (NPUException.cpp formatErrorCode), with and without the later dot
    ("[ERROR] 2025-04-08-18:07:20 (PID:1292363, Device:1, RankID:1) ERR01100 OPS call acl api failed.", "continuation",
     {}),
    ("[ERROR] 2025-07-01-00:40:04.135.732 (PID:176930, Device:0, RankID:-1). ERR02200 DIST call hccl api failed",
     "continuation", {}),
    # CANN's error-manager message below it
    ("EI0006: [PID: 1292363] 2025-04-08-18:07:20.444.436 Getting socket times out. Reason: Remote Rank did not send "
     "the data in time.", "continuation", {}),
    ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.", "exception",
     {"exc_type": "torch.OutOfMemoryError", "message": "CUDA out of memory. Tried to allocate 2.00 GiB."}),
    ("KeyboardInterrupt", "exception", {"exc_type": "KeyboardInterrupt", "message": ""}),
    ("torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ", "exception",
     {"exc_type": "torch.distributed.elastic.multiprocessing.errors.ChildFailedError", "message": ""}),
    ("terminate called after throwing an instance of 'gloo::EnforceNotMet'", "terminate",
     {"exc_type": "gloo::EnforceNotMet"}),
    ("  what():  [enforce fail at pair.cc:456] op.preamble.length <= op.nbytes. 1024 vs 512.", "what",
     {"message": "[enforce fail at pair.cc:456] op.preamble.length <= op.nbytes. 1024 vs 512."}),
    ("Exception raised from checkTimeout at /pytorch/ProcessGroupNCCL.cpp:632 (most recent call first):",
     "cpp_stack", {}),
    ("frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x96 (0x7f3a in libc10.so)", "cpp_stack", {}),
]
INVALID = ["Loading checkpoint shards: 100%", "step 10 loss 2.31", "  time      : 2024-04-01_05:16:50", "",
           "[E1218 20:27:21.426415540 ProcessGroupNCCL.cpp:629] [Rank 0] Watchdog caught"]






@pytest.mark.parametrize("text, kind, fields", VALID)
def test_valid_lines(text, kind, fields):
    assert_valid(classify, text, kind, fields)


@pytest.mark.parametrize("text", INVALID)
def test_invalid_lines(text):
    assert_invalid(classify, text)


def events(path, kind=SourceKind.CONSOLE):
    result = parse_source(Source(str(path), kind))
    assert result.error is None
    return [e for e in result.events if e.source == "traceback"]


def cause(path, kind):
    found = [e for e in events(path) if e.kind == kind]
    assert len(found) == 1, [e.kind for e in events(path)]
    return found[0]


MiB, GiB = 1 << 20, 1 << 30


@pytest.mark.parametrize("name, oom_kind, requested, gpu, total", [
    ("cuda_oom_torch1.4.err", "cuda", MiB, 0, size_bytes("11.17 GiB")),
    ("cuda_oom_torch1.5-1.9.err", "cuda", 20 * MiB, 0, size_bytes("5.80 GiB")),
    ("cuda_oom_torch1.10-1.12.err", "cuda", 20 * MiB, 0, size_bytes("5.80 GiB")),
    ("cuda_oom_torch1.13-2.0.err", "cuda", size_bytes("10.73 GiB"), 0, 8 * GiB),
    ("cuda_oom_torch2.1.err", "cuda", 128 * MiB, 0, size_bytes("79.15 GiB")),
    ("cuda_oom_torch2.2-2.4.err", "cuda", 22 * MiB, 0, size_bytes("23.65 GiB")),
    ("cuda_oom_torch2.5_rank3.err", "cuda", 2 * GiB, 3, size_bytes("79.10 GiB")),
    ("cuda_oom_torch2.9.err", "cuda", 512 * MiB, 0, size_bytes("39.49 GiB")),
    ("hip_oom.err", "hip", size_bytes("3.31 GiB"), 0, 128 * GiB),
    ("cuda_error_oom.err", "cuda_error", None, None, None),
    ("nccl_cuda_failure_oom.err", "nccl_cuda", None, None, None),
    ("cpu_allocator_oom.err", "cpu_allocator", 68719476736, None, None),
    ("real/cpu_allocator_rank0.err", "cpu_allocator", 1 << 62, None, None),
])
def test_oom_in_every_wording(name, oom_kind, requested, gpu, total):
    oom = cause(SAMPLES / name, "oom")
    assert (oom.data["oom_kind"], oom.data["requested_bytes"], oom.data["gpu"], oom.data["total_bytes"]) == \
        (oom_kind, requested, gpu, total)


def test_oom_detail_fields_old_and_new():
    old = cause(SAMPLES / "cuda_oom_torch1.5-1.9.err", "oom").data
    assert (old["allocated_bytes"], old["free_bytes"], old["reserved_bytes"]) == \
        (size_bytes("4.36 GiB"), size_bytes("6.69 MiB"), size_bytes("4.63 GiB"))
    new = cause(SAMPLES / "cuda_oom_torch2.5_rank3.err", "oom")
    assert new.rank == 3 and new.data["free_bytes"] == size_bytes("1.19 GiB")
    assert new.data["allocated_bytes"] == size_bytes("74.02 GiB")
    assert new.data["reserved_bytes"] == size_bytes("74.02 GiB") + size_bytes("2.33 GiB")


def test_oom_event_sits_on_the_line_that_names_it():
    tb, oom = [e for e in events(SAMPLES / "nccl_cuda_failure_oom.err") if e.kind in ("traceback", "oom")]
    assert oom.text.endswith("Cuda failure 2 'out of memory'") and oom.line == tb.line + 3 and oom.rank == 2


@pytest.mark.parametrize("name, rank, fields", [
    ("gloo_timeout_recv.err", 0, {"category": "timeout", "timeout_ms": 1800000, "op": "recv"}),
    ("gloo_timeout_send.err", 1, {"category": "timeout", "timeout_ms": 1800000, "op": "send"}),
    ("gloo_connection_closed.err", 2, {"category": "connection_closed", "peer": "127.0.0.1:45252"}),
    ("gloo_read_error_reset.err", 3, {"category": "connection_reset", "peer": "127.0.0.1:51115"}),
    ("gloo_enforce_size_mismatch_abort.err", None,
     {"category": "size_mismatch", "expected_bytes": 512, "received_bytes": 1024}),
    ("real/gloo_timeout_rank0.err", 0, {"category": "timeout", "timeout_ms": 5000, "op": "recv"}),
    ("real/gloo_connection_closed_rank0.err", 0, {"category": "connection_closed"}),
    ("real/gloo_read_error_rank0.err", 0, {"category": "connection_reset"}),
    ("real/gloo_enforce_size_mismatch_rank1.err", None,
     {"category": "size_mismatch", "expected_bytes": 128, "received_bytes": 256}),
])
def test_gloo_errors(name, rank, fields):
    err = cause(SAMPLES / name, "gloo_error")
    assert err.rank == rank
    assert {k: err.data[k] for k in fields} == fields
    # what the message catalogue adds (sources/messages.py): its meaning, and the fields of its gloo entries the parser
    # leaves unset (the peer's host and port)
    catalogue = {"meaning", "implies", "message_id", "host", "port"}
    assert set(err.data) - catalogue == {"category", "expected_bytes", "received_bytes", "timeout_ms", "peer", "op"}


def test_real_traceback_frames_and_rank():
    tb = cause(SAMPLES / "real/gloo_timeout_rank0.err", "traceback")
    assert (tb.rank, tb.line, tb.data["start_line"], tb.data["exc_type"]) == (0, 10, 1, "RuntimeError")
    assert [f["function"] for f in tb.data["frames"]] == ["<module>", "wrapper", "all_reduce"]
    assert tb.data["frames"][-1]["line"] == 3252 and tb.text.startswith("[rank0]: RuntimeError: ")


@pytest.mark.parametrize("name", ["dist_backend_error_remote.err", "nccl_cuda_failure_oom.err",
                                  "watchdog_dist_backend_abort.err"])
def test_dist_backend_error_once_per_block(name):
    err = cause(SAMPLES / name, "dist_backend_error")
    assert err.data["message"] and "\n" not in err.data["message"]


def test_chained_tracebacks():
    first, second = [e for e in events(SAMPLES / "chained_direct_cause.err") if e.kind == "traceback"]
    assert (first.data["exc_type"], first.data["chained"]) == ("KeyError", True)
    assert (second.data["exc_type"], second.data["chained"]) == ("RuntimeError", False)
    evs = events(SAMPLES / "chained_during_handling_rank1.err")
    assert [(e.kind, e.rank, e.data.get("chained")) for e in evs] == [
        ("traceback", 1, True), ("oom", 1, None), ("traceback", 1, False)]


def test_interleaved_ranks_are_read_apart():
    evs = events(SAMPLES / "console_two_ranks_interleaved.log")
    assert [(e.kind, e.rank) for e in evs] == [("traceback", 0), ("gloo_error", 0), ("traceback", 1), ("gloo_error", 1)]
    assert [len(e.data["frames"]) for e in evs if e.kind == "traceback"] == [2, 2]
    assert {e.data["category"] for e in evs if e.kind == "gloo_error"} == {"timeout", "connection_closed"}


def test_exception_line_is_left_for_other_parsers():
    parser = TracebackParser(Source("c.log", SourceKind.CONSOLE))
    assert parser.feed(Line(1, "Traceback (most recent call last):")) is True
    assert parser.busy
    assert parser.feed(Line(2, "RuntimeError: boom")) is False     # recorded but not claimed
    assert parser.feed(Line(3, "==========")) is False
    assert [e.kind for e in parser.out] == ["traceback"] and not parser.busy


def test_malformed_line_inside_frames_is_unparsed():
    parser = TracebackParser(Source("c.log", SourceKind.CONSOLE))
    parser.feed(Line(1, "Traceback (most recent call last):"))
    assert parser.feed(Line(2, '  File "x.py" line 3')) is True
    assert [e.kind for e in parser.out] == ["unparsed"]


@pytest.mark.parametrize("text", ["step 10 loss 2.31", "  File \"x.py\", line 3, in f", "RuntimeError: boom",
                                  "Error: config file not found", "Process 7: python x.py"])
def test_ordinary_lines_are_not_claimed(text):
    # (after a first line: a frame at the very head of the evidence is a cut traceback's, see below)
    parser = TracebackParser(Source("c.log", SourceKind.CONSOLE))
    parser.feed(Line(1, "epoch 1"))
    assert parser.feed(Line(2, text)) is False and not parser.out and not parser.busy


def test_bare_exception_line_outside_a_traceback_gives_only_the_cause():
    parser = TracebackParser(Source("c.log", SourceKind.CONSOLE))
    text = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. "
            "GPU 1 has a total capacity of 8.00 GiB of which 0 bytes is free.")
    assert parser.feed(Line(1, text, rank=1)) is False
    assert [(e.kind, e.rank, e.data["gpu"], e.data["free_bytes"]) for e in parser.out] == [("oom", 1, 1, 0)]


@pytest.mark.parametrize("text, expected", [
    ("0 bytes", 0), ("1.50 KiB", 1536), ("20.00 MiB", 20 * MiB), ("2.00 GiB", 2 * GiB), (None, None)])
def test_size_bytes(text, expected):
    assert size_bytes(text) == expected


def test_recognise_nothing_in_unrelated_messages():
    assert recognise("ValueError", "bad value") == []
    assert recognise("RuntimeError", "Connection refused") == []


@pytest.mark.parametrize("head", ["", "[6]<stderr>:", "[rank2]: "])   # torch adds a space after its tag
def test_a_paste_that_begins_inside_a_traceback(head, tmp_path):
    # the header (and here the exception line) was cut off by the paste: the frames at its head are one traceback
    body = [head + "    x = f(", head, head + '  File "/a/b.py", line 136, in f', head + "    y = g()",
            head + '  File "/a/c.py", line 9, in g', head + "    raise", "step 9 loss 0.5"]
    (tmp_path / "c.log").write_text("\n".join(body) + "\n", encoding="utf-8")
    [ev] = [e for e in events(tmp_path / "c.log") if e.kind == "traceback"]
    assert ev.data["header_cut"] and [f["file"] for f in ev.data["frames"]] == ["/a/b.py", "/a/c.py"]


@pytest.mark.parametrize("text", ['step 1\n  File "a.py", line 3, in f\n    f()\n',       # below another line
                                  '  File "a.py", line 3 in f\n  File "b.py", line 9 in g\n'])  # faulthandler's
def test_frames_elsewhere_are_no_cut_traceback(text, tmp_path):
    (tmp_path / "c.log").write_text(text, encoding="utf-8")
    assert not [e for e in events(tmp_path / "c.log") if e.kind == "traceback"]
