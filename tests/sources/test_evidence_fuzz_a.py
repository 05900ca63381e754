"""Hypothesis fuzzing for the py-spy, traceback and faulthandler parsers.

Properties: any line sequence parses without an exception (bad input never raises), claimed lines give only
contract kinds, and values written into real-format lines are read back exactly.
"""
from __future__ import annotations

import string

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nccl_forensics.model import Line, Source, SourceKind
from nccl_forensics.sources import parse_source
from nccl_forensics.sources.exceptions import recognise
from nccl_forensics.sources.faulthandler import FaulthandlerParser
from nccl_forensics.sources.faulthandler import classify as classify_faulthandler
from nccl_forensics.sources.pyspy import PyspyParser
from nccl_forensics.sources.pyspy import classify as classify_pyspy
from nccl_forensics.sources.traceback import TracebackParser
from nccl_forensics.sources.traceback import classify as classify_traceback

FUZZ = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
KINDS = {"pyspy_process", "pyspy_thread", "pyspy_error", "traceback", "oom", "gloo_error", "dist_backend_error",
         "cuda_error", "nccl_error",
         "faulthandler", "unparsed"}
# fragments of real lines of all three formats, recombined and mutated by hypothesis
FRAGMENTS = [
    "Process 15228: /usr/bin/python3.10 hang.py", "Python v3.10.13 (/usr/bin/python3.10)",
    "Parent Process 15536: python", "-" * 80, 'Thread 15228 (idle): "MainThread"', "Thread 0x7FDD07609B80 (active)",
    "    wait (threading.py:320)", "    select (libc.so.6)", "        Arguments:", "        Locals:",
    "            rank: 0", "Error: Failed to suspend process", "Caused by:",
    "    0: No such file or directory (os error 2)",
    "Permission Denied", "Reason: EPERM", "Traceback (most recent call last):", '  File "x.py", line 3, in f',
    "    work.wait()", "RuntimeError: [pair.cc:553] Connection closed by peer [127.0.0.1]:45252",
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. "
    "GPU 3 has a total capacity of 79.10 GiB of which 1.19 GiB is free.",
    "The above exception was the direct cause of the following exception:", "Last error:",
    "Cuda failure 2 'out of memory'", "terminate called after throwing an instance of 'gloo::EnforceNotMet'",
    "  what():  op.preamble.length <= op.nbytes. 1024 vs 512.", "Fatal Python error: Aborted",
    "Current thread 0x00007f818443fb80 (most recent call first):", '  File "x.py", line 5 in <module>',
    "Extension modules: torch._C (total: 1)", "Timeout (0:05:00)!", "[rank3]: ", "[default1]:", "\x1b[1;33m",
    "step 10 loss 2.31",
]
line_text = st.one_of(
    st.sampled_from(FRAGMENTS),
    st.builds(lambda a, b: a + b, st.sampled_from(FRAGMENTS), st.sampled_from(FRAGMENTS)),
    st.builds(lambda a, n: a[:n], st.sampled_from(FRAGMENTS), st.integers(0, 60)),
    st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\n\r"), max_size=80),
)


@settings(FUZZ, max_examples=50)
@given(st.lists(line_text, max_size=40), st.sampled_from([SourceKind.CONSOLE, SourceKind.PYSPY]))
def test_any_line_sequence_parses_without_error(tmp_path, lines, kind):
    path = tmp_path / "fuzz.log"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = parse_source(Source(str(path), kind))
    assert result.error is None
    mine = [e for e in result.events if e.source in ("pyspy", "traceback")]
    assert all(e.kind in KINDS and 1 <= e.line <= len(lines) + 1 for e in mine)


@FUZZ
@given(st.lists(line_text, max_size=30))
def test_feed_always_returns_a_bool_and_finish_empties_blocks(lines):
    src = Source("fuzz.log", SourceKind.CONSOLE)
    for parser in (PyspyParser(src), TracebackParser(src), FaulthandlerParser(src)):
        for no, text in enumerate(lines, 1):
            assert parser.feed(Line(no, text)) in (True, False)
        parser.finish()
        assert not parser.busy


thread_ids = st.one_of(st.integers(1, 2**22).map(str),
                       st.integers(1, 2**48).map(lambda n: f"{n:#X}".replace("0X", "0x")))
names = st.text(alphabet=string.ascii_letters + string.digits + "_-. ", min_size=1, max_size=20)
statuses = st.sampled_from(["idle", "active", "active+gil"])


@FUZZ
@given(thread_ids, statuses, names)
def test_pyspy_thread_header_round_trip(tid, status, name):
    kind, data = classify_pyspy(f'Thread {tid} ({status}): "{name}"')
    assert kind == "thread" and data["thread_id_raw"] == tid and data["thread_id"] == int(tid, 0)
    assert (data["state"], data["gil"], data["thread_name"]) == (status.split("+")[0], status.endswith("gil"), name)


identifiers = st.from_regex(r"[A-Za-z_<][A-Za-z0-9_.<>]{0,30}", fullmatch=True)
files = st.from_regex(r"[A-Za-z0-9_/.<> -]{0,40}[A-Za-z0-9_>]", fullmatch=True)


@FUZZ
@given(identifiers, files, st.one_of(st.none(), st.integers(1, 10**6)))
def test_pyspy_frame_round_trip(function, file, line):
    text = f"    {function} ({file}:{line})" if line else f"    {function} ({file})"
    kind, data = classify_pyspy(text)
    assert kind == "frame" and (data["function"], data["file"], data["line"]) == (function, file, line)


@FUZZ
@given(files, st.integers(1, 10**6), identifiers)
def test_traceback_and_faulthandler_frame_round_trip(file, line, function):
    kind, data = classify_traceback(f'  File "{file}", line {line}, in {function}')
    assert kind == "frame" and (data["file"], data["line"], data["function"]) == (file, line, function)
    kind, data = classify_faulthandler(f'  File "{file}", line {line} in {function}')
    assert kind == "frame" and (data["file"], data["line"], data["function"]) == (file, line, function)


@FUZZ
@given(st.integers(1, 10**9), st.integers(1, 10**9), st.sampled_from(["recv", "send"]), st.integers(1, 65535))
def test_gloo_numbers_round_trip(a, b, op, port):
    (kind, data), = recognise("RuntimeError", f"[pair.cc:456] op.preamble.length <= op.nbytes. {a} vs {b}.")
    assert (kind, data["received_bytes"], data["expected_bytes"]) == ("gloo_error", a, b)
    timeout = f"[unbound_buffer.cc:81] Timed out waiting {a}ms for {op} operation to complete"
    (_, data), = recognise("RuntimeError", timeout)
    assert (data["timeout_ms"], data["op"]) == (a, op)
    (_, data), = recognise("RuntimeError", f"[pair.cc:553] Connection closed by peer [127.0.0.1]:{port}")
    assert data["peer"] == f"127.0.0.1:{port}"


@FUZZ
@given(st.integers(0, 1023), st.integers(0, 99), st.sampled_from(["KiB", "MiB", "GiB"]), st.integers(0, 15))
def test_oom_sizes_round_trip(whole, cents, unit, gpu):
    size = f"{whole}.{cents:02d} {unit}"
    scale = {"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}[unit]
    message = (f"CUDA out of memory. Tried to allocate {size}. "
               f"GPU {gpu} has a total capacity of {size} of which 0 bytes is free.")
    (kind, data), = recognise("torch.OutOfMemoryError", message)
    assert kind == "oom" and data["gpu"] == gpu and data["free_bytes"] == 0
    assert data["requested_bytes"] == data["total_bytes"] == round((whole + cents / 100) * scale)
