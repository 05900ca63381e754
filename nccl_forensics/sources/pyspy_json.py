"""`py-spy dump --json` → `pyspy` events (docs/events.md "source = pyspy"); re-exported by sources/pyspy.py.

Each process prints one JSON array of thread objects (interpreter order, so MainThread usually comes last);
`--subprocesses` prints one array per process, back to back, which is not one JSON document. Events carry
the element's first line and, as `text`, the thread header py-spy's text mode would print.
"""
from __future__ import annotations

import json
import re
from typing import Any, Iterator

from ..errors import BadInput
from ..model import Event, Source
from .lines import open_binary

_NATIVE_SOURCE = (".c", ".cc", ".cpp", ".cxx", ".h", ".hpp", ".cu", ".cuh", ".rs", ".S")


def frame_dict(function: str, file: str, line: int | None, native: bool | None = None) -> dict[str, Any]:
    if native is None:
        native = line is None or function.startswith("0x") or file.endswith(_NATIVE_SOURCE)
    return {"function": function, "file": file, "line": line, "native": native, "locals": {}}


_MAX_JSON_BYTES = 512 << 20


def read_pyspy_json(source: Source) -> Iterator[Event]:
    """`py-spy dump --json`: one JSON array of threads per process (several back to back with -s)."""
    with open_binary(source.path) as fh:
        raw = fh.read(_MAX_JSON_BYTES + 1)
    if len(raw) > _MAX_JSON_BYTES:
        raise BadInput(f"{source.path}: too large for a py-spy --json dump")
    text = raw.decode("utf-8", "replace")
    seen_pids: set[int] = set()
    for lineno, item in _json_array_items(source.path, text):
        if not isinstance(item, dict) or not isinstance(item.get("frames"), list):
            yield Event("unparsed", "pyspy", source.path, lineno, text=json.dumps(item)[:500])
            continue
        pid = item.get("pid")
        if isinstance(pid, int) and pid not in seen_pids:
            seen_pids.add(pid)
            yield _json_process(source.path, lineno, item)
        yield _json_thread(source.path, lineno, item)


def _json_array_items(path: str, text: str) -> Iterator[tuple[int, Any]]:
    """(1-based line, element) for every element of the back-to-back top-level arrays in `text`."""
    decoder = json.JSONDecoder()
    pos, lineno, counted = 0, 1, 0
    while True:
        pos = _skip_separators(text, pos)
        if pos >= len(text):
            return
        if text[pos] not in "[]":
            lineno += text.count("\n", counted, pos)
            raise BadInput(f"{path}: not a py-spy --json dump (unexpected {text[pos]!r} at line {lineno})")
        pos += 1
        while True:
            pos = _skip_separators(text, pos)
            if pos >= len(text):
                raise BadInput(f"{path}: truncated py-spy --json dump (no closing ']')")
            if text[pos] == "]":
                pos += 1
                break
            lineno += text.count("\n", counted, pos)
            counted = pos
            try:
                item, pos = decoder.raw_decode(text, pos)
            except json.JSONDecodeError as exc:
                raise BadInput(f"{path}: invalid py-spy --json at line {exc.lineno} ({exc.msg})") from None
            yield lineno, item


_SEPARATORS = re.compile(r"[\s,]*")


def _skip_separators(text: str, pos: int) -> int:
    """The first position at or after `pos` that is not white space or a comma."""
    found = _SEPARATORS.match(text, pos)
    return found.end() if found else pos


def _json_process(path: str, lineno: int, item: dict[str, Any]) -> Event:
    info = item.get("process_info")
    info = info if isinstance(info, dict) else {}
    cmdline = info.get("command_line")
    parent = info.get("parent")
    parent_pid = parent.get("pid") if isinstance(parent, dict) else parent if isinstance(parent, int) else None
    text = f"Process {item['pid']}: {cmdline or ''}".rstrip()
    return Event("pyspy_process", "pyspy", path, lineno, pid=item["pid"], text=text,
                 data={"pid": item["pid"], "cmdline": cmdline, "python_version": None, "parent_pid": parent_pid})


def _json_thread(path: str, lineno: int, item: dict[str, Any]) -> Event:
    os_tid, pthread_id = item.get("os_thread_id"), item.get("thread_id")
    tid = os_tid if isinstance(os_tid, int) else pthread_id
    raw = str(os_tid) if isinstance(os_tid, int) else f"{pthread_id:#X}".replace("0X", "0x") if isinstance(
        pthread_id, int) else str(pthread_id)
    state = "active" if item.get("active") else "idle"
    gil = bool(item.get("owns_gil"))
    name = item.get("thread_name")
    text = f"Thread {raw} ({state}{'+gil' if gil and state == 'active' else ''})" + (f': "{name}"' if name else "")
    frames = [_json_frame(f) for f in item["frames"] if isinstance(f, dict)]
    return Event("pyspy_thread", "pyspy", path, lineno, pid=item.get("pid"),
                 tid=os_tid if isinstance(os_tid, int) else None, text=text,
                 data={"thread_id": tid, "thread_id_raw": raw, "thread_name": name, "state": state, "gil": gil,
                       "frames": frames})


def _json_frame(frame: dict[str, Any]) -> dict[str, Any]:
    line = frame.get("line") if isinstance(frame.get("line"), int) and frame.get("line") else None
    out = frame_dict(str(frame.get("name")), str(frame.get("short_filename") or frame.get("filename")), line,
                     native=frame.get("module") is not None or line is None)
    for var in frame.get("locals") or []:
        if isinstance(var, dict) and "name" in var:
            out["locals"][str(var["name"])] = str(var.get("repr", "?"))
    return out
