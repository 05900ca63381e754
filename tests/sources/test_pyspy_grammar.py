"""grammars/pyspy.lark rule tables, the PyspyParser state machine, and the --json reader.

Lines follow py-spy's src/dump.rs (write_traces); `sample_logs/evidence/pyspy/real/` holds real dumps of a gloo job
whose rank 0 is blocked in all_reduce while rank 1 sleeps (sample_logs/tools/make_real_pyspy.py).
"""
from __future__ import annotations

from pathlib import Path

import pytest
from grammar_table import assert_invalid, assert_valid

from nccl_forensics.errors import BadInput
from nccl_forensics.model import Line, Source, SourceKind
from nccl_forensics.sources import parse_source
from nccl_forensics.sources.pyspy import (
    PyspyParser,
    classify,
    dedupe_children,
    read_pyspy_json,
)

SAMPLES = Path(__file__).resolve().parents[2] / "sample_logs" / "evidence" / "pyspy"
REAL = SAMPLES / "real"

VALID = [
    ("Process 15228: /usr/bin/python3.10 hang.py", "process", {"pid": 15228, "cmdline": "/usr/bin/python3.10 hang.py"}),
    ("Process 4085279: VLLM::EngineCore", "process", {"pid": 4085279, "cmdline": "VLLM::EngineCore"}),
    ("Python v3.10.13 (/usr/bin/python3.10)", "python", {"version": "3.10.13", "exe": "/usr/bin/python3.10"}),
    ("Python v3.11.7", "python", {"version": "3.11.7", "exe": None}),
    ("Parent Process 15536: /usr/bin/python3.10 hang.py", "parent", {"pid": 15536}),
    ('Thread 15228 (idle): "MainThread"', "thread",
     {"thread_id": 15228, "thread_id_raw": "15228", "state": "idle", "gil": False, "thread_name": "MainThread"}),
    ('Thread 0x7FDD07609B80 (active): "MainThread"', "thread",
     {"thread_id": 0x7FDD07609B80, "thread_id_raw": "0x7FDD07609B80", "state": "active", "gil": False}),
    ('Thread 16344 (active+gil): "pt_watchdog_like"', "thread", {"state": "active", "gil": True}),
    ("Thread 4079 (active)", "thread", {"thread_id": 4079, "thread_name": None, "state": "active"}),
    ("Thread 4079 (gil)", "thread", {"state": None, "gil": True}),
    ("Thread 4079", "thread", {"state": None, "gil": False}),
    ("    wait (threading.py:320)", "frame",
     {"function": "wait", "file": "threading.py", "line": 320, "native": False}),
    ("    Condition.wait (threading.py:327)", "frame", {"function": "Condition.wait", "line": 327}),
    ("    _tp_cache.<locals>.decorator.<locals>.inner (typing.py:362)", "frame",
     {"function": "_tp_cache.<locals>.decorator.<locals>.inner", "file": "typing.py"}),
    ("    _load_unlocked (<frozen importlib._bootstrap>:690)", "frame",
     {"file": "<frozen importlib._bootstrap>", "line": 690, "native": False}),
    ("    main (torchrun:8)", "frame", {"file": "torchrun", "line": 8, "native": False}),
    ("    select (libc.so.6)", "frame", {"function": "select", "file": "libc.so.6", "line": None, "native": True}),
    ("    0x7fdd0704524a (libc.so.6)", "frame", {"function": "0x7fdd0704524a", "native": True}),
    ("    c10d::ProcessGroupGloo::runLoop (ProcessGroupGloo.cpp:612)", "frame", {"line": 612, "native": True}),
    ("        Arguments:", "locals_header", {}),
    ("        Locals:", "locals_header", {}),
    ('            x: {"rank": 0, "world_size": 2}', "variable", {"name": "x", "repr": '{"rank": 0, "world_size": 2}'}),
    ("            t: ?", "variable", {"name": "t", "repr": "?"}),
    ("-" * 80, "rule", {}),
    ("Error: Failed to find python version from target process", "error",
     {"message": "Failed to find python version from target process"}),
    ("Permission Denied", "error", {"message": "Permission Denied"}),
    ("Caused by:", "cause", {"message": ""}),
    ("    0: No such file or directory (os error 2)", "cause",
     {"message": "0: No such file or directory (os error 2)"}),
    ("Reason: EPERM: Operation not permitted", "cause", {"message": "Reason: EPERM: Operation not permitted"}),
]
INVALID = [
    "Thread foo (idle)", "Thread 12 (sleeping)", "Process abc: x", "    frame without location",
    "  File \"x.py\", line 3, in f", "Thread 0x00007f76da71d6c0 (most recent call first):", "plain stdout line",
    "Python 3.10",
]






@pytest.mark.parametrize("text, kind, fields", VALID)
def test_valid_lines(text, kind, fields):
    assert_valid(classify, text, kind, fields)


@pytest.mark.parametrize("text", INVALID)
def test_invalid_lines(text):
    assert_invalid(classify, text)


def parse(path: Path, kind: SourceKind = SourceKind.PYSPY):
    result = parse_source(Source(str(path), kind))
    assert result.error is None
    return result


def by_kind(result, kind):
    return [e for e in result.events if e.kind == kind]


def write(tmp_path, text, name="dump.txt"):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_real_dump_shows_rank0_blocked_in_all_reduce():
    result = parse(REAL / "rank0.pyspy.txt")
    proc, = by_kind(result, "pyspy_process")
    thread, = by_kind(result, "pyspy_thread")
    assert result.unparsed == 0
    assert proc.data["python_version"] == "3.11.7" and "--worker 0" in proc.data["cmdline"]
    assert thread.pid == proc.pid == proc.data["pid"] and thread.tid == proc.pid
    assert (thread.data["thread_name"], thread.data["state"]) == ("MainThread", "idle")
    top = thread.data["frames"][0]
    assert (top["function"], top["file"], top["line"]) == ("all_reduce", "torch/distributed/distributed_c10d.py", 3252)


def test_real_rank1_sleeps_outside_the_collective():
    frames = by_kind(parse(REAL / "rank1.pyspy.txt"), "pyspy_thread")[0].data["frames"]
    assert frames[0]["function"] == "worker" and all(f["function"] != "all_reduce" for f in frames)


def test_real_locals_are_attached_to_their_frame():
    result = parse(REAL / "rank0.pyspy-locals.txt")
    assert result.unparsed == 0
    frames = by_kind(result, "pyspy_thread")[0].data["frames"]
    assert frames[0]["locals"]["async_op"] == "False"
    assert frames[2]["function"] == "worker" and frames[2]["locals"]["rank"] == "0"


@pytest.mark.parametrize("rank", [0, 1])
def test_real_json_gives_the_same_stack_as_text(rank):
    text = by_kind(parse(REAL / f"rank{rank}.pyspy.txt"), "pyspy_thread")[0]
    js = list(read_pyspy_json(Source(str(REAL / f"rank{rank}.pyspy.json"), SourceKind.PYSPY_JSON)))
    thread = [e for e in js if e.kind == "pyspy_thread"][0]
    assert [(f["function"], f["file"], f["line"]) for f in thread.data["frames"]] == \
        [(f["function"], f["file"], f["line"]) for f in text.data["frames"]]
    assert (thread.pid, thread.data["thread_id"], thread.data["state"]) == \
        (text.pid, text.data["thread_id"], text.data["state"])


def test_hex_thread_ids_from_0_3():
    threads = by_kind(parse(SAMPLES / "v0.3.14_hex_thread_ids.txt"), "pyspy_thread")
    assert [t.data["thread_id_raw"] for t in threads] == ["0x7FDD07609B80", "0x7FDD06E5F640"]
    assert threads[0].data["thread_id"] == 0x7FDD07609B80 and threads[0].tid is None
    assert all(t.pid == 15336 for t in threads)


def test_native_frames():
    frames = by_kind(parse(SAMPLES / "v0.4.3_native.txt"), "pyspy_thread")[0].data["frames"]
    assert [f["native"] for f in frames] == [True, True, False, False, True]


def test_subprocesses_repeated_by_old_py_spy_are_deduplicated():
    result = parse(SAMPLES / "v0.3.14_subprocesses_repeated.txt")
    procs = by_kind(result, "pyspy_process")
    assert [(p.pid, p.data["parent_pid"]) for p in procs] == [(15536, None), (15539, 15536)]
    threads = by_kind(result, "pyspy_thread")
    assert sorted((t.pid, t.data["thread_id"]) for t in threads) == [(15536, 15536), (15536, 15538), (15539, 15539)]
    assert [e.line for e in result.events] == sorted(e.line for e in result.events)


def test_fixed_subprocesses_output_gives_the_same_processes_and_threads():
    old = parse(SAMPLES / "v0.3.14_subprocesses_repeated.txt")
    new = parse(SAMPLES / "v0.4.3_subprocesses.txt")
    key = lambda r: sorted((e.kind, e.pid, e.data.get("thread_id")) for e in r.events)  # noqa: E731
    assert key(old) == key(new)


def test_ansi_colours_are_stripped_before_parsing():
    for kind in (SourceKind.PYSPY, SourceKind.CONSOLE):
        result = parse(SAMPLES / "v0.4.3_ansi_colours.txt", kind)
        proc, = by_kind(result, "pyspy_process")
        assert proc.pid == 15228 and proc.data["python_version"] == "3.10.13"
        assert by_kind(result, "pyspy_thread")[0].data["frames"][0]["locals"] == {"rank": "0", "world_size": "2"}


@pytest.mark.parametrize("name, category", [
    ("error_process_gone.txt", "process_gone"), ("error_python_version.txt", "python_version"),
    ("error_permission_denied.txt", "permission"), ("error_permission_docker.txt", "permission"),
    ("error_suspend_after_header.txt", "suspend"),
])
def test_error_messages(name, category):
    result = parse(SAMPLES / name, SourceKind.CONSOLE)
    error, = by_kind(result, "pyspy_error")
    assert error.data["category"] == category and result.unparsed == 0


def test_error_after_header_carries_the_pid_and_its_causes():
    error, = by_kind(parse(SAMPLES / "error_suspend_after_header.txt", SourceKind.CONSOLE), "pyspy_error")
    assert error.pid == 280058 and "EPERM" in error.data["message"]
    gone, = by_kind(parse(SAMPLES / "error_process_gone.txt", SourceKind.CONSOLE), "pyspy_error")
    assert "No such file or directory (os error 2)" in gone.data["message"]


def test_multiline_cmdline_is_joined(tmp_path):
    path = write(tmp_path, 'Process 7: python -c \nimport time\nif True:\n    time.sleep(9)  # (x)\n 0 1\n'
                           'Python v3.11.7 (/x/python)\n\nThread 7 (idle): "MainThread"\n    <module> (<string>:4)\n')
    result = parse(path)
    proc, = by_kind(result, "pyspy_process")
    assert result.unparsed == 0
    assert proc.data["cmdline"] == "python -c \nimport time\nif True:\n    time.sleep(9)  # (x)\n 0 1"
    assert proc.data["python_version"] == "3.11.7"


def test_malformed_thread_header_inside_a_dump_is_unparsed(tmp_path):
    path = write(tmp_path, 'Process 7: python x.py\nPython v3.11.7 (/x/python)\n\nThread 7 (sleeping): "Main"\n'
                           "    f (x.py:1)\n")
    result = parse(path, SourceKind.CONSOLE)
    assert [(e.kind, e.line) for e in result.events][:2] == [("pyspy_process", 1), ("unparsed", 4)]


@pytest.mark.parametrize("text", [
    "Thread 3 finished", "Thread 0x00007f76da71d6c0 (most recent call first):", "Process 3 timed out with traceback:",
    "Error: config file not found", "    indented stdout", "step 10 loss 2.31",
])
def test_ordinary_console_lines_are_not_claimed(text):
    parser = PyspyParser(Source("console.log", SourceKind.CONSOLE))
    assert parser.feed(Line(1, text)) is False and not parser.out and not parser.busy


def test_dump_in_a_console_ends_at_the_first_foreign_line(tmp_path):
    path = write(tmp_path, 'Process 9: python x.py\nPython v3.11.7 (/x/python)\nThread 9 (idle): "MainThread"\n'
                           "    f (x.py:1)\n[rank0]: Traceback (most recent call last):\n")
    result = parse(path, SourceKind.CONSOLE)
    assert [e.kind for e in result.events if e.source == "pyspy"] == ["pyspy_process", "pyspy_thread"]


def test_dedupe_keeps_single_children_untouched():
    assert dedupe_children([]) == []


def test_json_subprocess_arrays_back_to_back():
    events = list(read_pyspy_json(Source(str(SAMPLES / "v0.3.14_subprocesses_dump.json"), SourceKind.PYSPY_JSON)))
    assert [(e.kind, e.pid) for e in events if e.kind == "pyspy_process"] == [("pyspy_process", 15336),
                                                                                ("pyspy_process", 15339)]
    assert all(e.pid == e.data.get("pid", e.pid) for e in events)


def test_json_frames_locals_and_native():
    events = list(read_pyspy_json(Source(str(SAMPLES / "v0.4.3_dump.json"), SourceKind.PYSPY_JSON)))
    main = [e for e in events if e.data.get("thread_name") == "MainThread"][0]
    assert main.text == 'Thread 15336 (idle): "MainThread"'
    assert main.data["frames"][0]["native"] and main.data["frames"][1]["locals"] == {
        "rank": "0", "ev": "<Event at 0x7fc5d63ce080>"}


@pytest.mark.parametrize("content", ['{"not": "an array"}', "[{]", "[1, 2", "garbage"])
def test_json_bad_input_is_one_line_error(tmp_path, content):
    path = write(tmp_path, content, "dump.json")
    with pytest.raises(BadInput) as info:
        list(read_pyspy_json(Source(str(path), SourceKind.PYSPY_JSON)))
    assert "\n" not in str(info.value)


def test_frames_pasted_without_their_thread_header_are_one_thread(tmp_path):
    path = write(tmp_path, "Some processes stuck at\n    synchronize (torch/cuda/__init__.py:721)\n"
                           "    stop (nemo/utils/timers.py:115)\n"
                           'Thread 0x1502C1907640 (idle): "Thread-2 (_pin_memory_loop)"\n    select (selectors.py:415)\n')
    threads = [e for e in parse(path, SourceKind.CONSOLE).events if e.kind == "pyspy_thread"]
    assert [(e.line, e.data["thread_id"], [f["function"] for f in e.data["frames"]]) for e in threads] == [
        (2, None, ["synchronize", "stop"]), (4, 0x1502C1907640, ["select"])]


def test_one_frame_shaped_line_alone_is_no_dump(tmp_path):
    path = write(tmp_path, "step 10\n    helper (tool.py:3)\nstep 11\n")
    assert not [e for e in parse(path, SourceKind.CONSOLE).events if e.source == "pyspy"]
