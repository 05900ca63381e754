"""py-spy `dump` text (grammars/pyspy.lark) and `dump --json` → `pyspy` events (docs/events.md "source = pyspy").

One `pyspy_process` per process, one `pyspy_thread` per thread (frames innermost first, as py-spy prints
them) and one `pyspy_error` per error message. Every event of a process carries its pid. `--subprocesses`
output from py-spy ≤ 0.4.1 prints each child after *every* parent thread, so a parent thread can follow a
child block: children are buffered until the dump ends, the last copy of each child gives its real threads,
other threads found in its earlier copies go back to the parent, and repeats are dropped.
"""
from __future__ import annotations

import re
from typing import Any

from lark import Transformer, v_args

from ..model import Event, Line, Source, SourceKind
from .base import LineParser
from .grammars import parse_with
from .pyspy_json import frame_dict, read_pyspy_json  # noqa: F401  (re-exported reader)

_THREAD_HEAD = re.compile(r'Thread (?:0x[0-9A-Fa-f]+|\d+)(?: \((?:idle|active|active\+gil|gil)\))?(?:: "|$)')
_PREFIXES = ("Process ", "Python v", "Parent Process ", "Thread ", "    ", "Error:", "Permission Denied",
             "Caused by:", "Reason:", "----------")
_FRAME_INDENT = "    "              # a frame line (grammars/pyspy.lark frame_line)
_FIRST_CHARS = "PTE"                # Process/Thread/Error (any `_PREFIXES` line in a py-spy file)
_HEADER_END = ("Python v", "Parent Process ", "Thread ", "Error:", "Permission Denied", "Process ", "----------")
_ERROR_CONTINUATION = ("It looks like you are running in a docker container", "Stack backtrace:", " ")
_MAX_CMDLINE_LINES = 64
# (category, phrases) in the order they are tried against the whole error text.
_ERROR_CATEGORIES = [
    ("suspend", ("Failed to suspend",)),
    ("process_gone", ("Failed to get process executable name", "No such process", "process is running")),
    ("python_version", ("python version", "Unsupported version of Python", "Py_Version", "python interpreter",
                        "_PyRuntime")),
    ("permission", ("Permission Denied", "requires root", "Operation not permitted")),
]


# py-spy's own error phrases (src/python_process_info.rs, python_spy.rs), distinctive enough to be found in prose
_QUOTED_ERRORS = ("Failed to copy Py_Version", "Failed to find python version", "Failed to suspend process",
                  "Failed to get process executable name", "Failed to copy PyInterpreterState",
                  "Failed to find a python interpreter", "Failed to copy PyCodeObject")


def error_category(message: str) -> str:
    for category, phrases in _ERROR_CATEGORIES:
        if any(p in message for p in phrases):
            return category
    return "other"


@v_args(inline=True)
class PyspyTransformer(Transformer):
    """One dump line's tree → (line kind, fields); no I/O."""

    def start(self, item):
        return item

    def process_line(self, pid, cmdline=None):
        return "process", {"pid": int(pid), "cmdline": (cmdline or "")[1:]}

    def python_line(self, version, exe=None):
        return "python", {"version": str(version), "exe": exe and exe[2:-1]}

    def parent_line(self, pid, cmdline=None):
        return "parent", {"pid": int(pid), "cmdline": (cmdline or "")[1:]}

    def thread_line(self, tid, *rest):
        data = {"thread_id_raw": str(tid), "state": None, "gil": False, "thread_name": None}
        data["thread_id"] = int(tid, 16) if tid.startswith("0x") else int(tid)
        for item in rest:
            data.update(item)
        return "thread", data

    def status(self, status):
        return {"state": None if status == "gil" else status.split("+")[0], "gil": status.endswith("gil")}

    def thread_name(self, name):
        return {"thread_name": name[2:-1]}

    def frame_line(self, _indent, function, file, lineno=None):
        return "frame", frame_dict(str(function), str(file), int(lineno[1:]) if lineno else None)

    def arguments_line(self, _token):
        return "locals_header", {}

    locals_line = arguments_line

    def variable_line(self, _indent, name, value=None):
        return "variable", {"name": str(name), "repr": (value or " ")[1:]}

    def subprocess_rule(self, _token):
        return "rule", {}

    def error_line(self, message=None):
        return "error", {"message": (message or "").strip()}

    def permission_line(self, head, message=None):
        return "error", {"message": (head + (message or "")).strip()}

    def caused_by_line(self):
        return "cause", {"message": ""}

    def cause_line(self, text):
        return "cause", {"message": text.strip()}

    def reason_line(self, message=None):
        return "cause", {"message": "Reason:" + (message or "")}


_TRANSFORMER = PyspyTransformer()


def classify(text: str) -> tuple[str, dict[str, Any]] | None:
    """The line's kind and fields per grammars/pyspy.lark, or None when no rule matches."""
    return parse_with("pyspy", _TRANSFORMER, text)


class PyspyParser(LineParser):
    source = "pyspy"

    def __init__(self, src: Source):
        super().__init__(src)
        self.whole_file = src.kind is SourceKind.PYSPY   # a py-spy file: every line is ours
        self.proc: Event | None = None       # the process whose header/threads are being read
        self.proc_put = False                # its event has been queued
        self.header_lines = 0                # > 0 while the header (before `Python v`) is open
        self.thread: Event | None = None
        self.locals: dict[str, str] | None = None
        self.error: Event | None = None
        self.after_rule = False              # a `-----` rule was seen: the next Process is a child
        self.children: list[list[Event]] = []  # buffered child blocks: [process event, thread events...]

    # ---- feeding -------------------------------------------------------------------------------
    def feed(self, line: Line) -> bool:
        text = line.text
        if not self.busy:
            if text.startswith(_FRAME_INDENT) and self._headless(line):
                return True
            if (text[:1] not in _FIRST_CHARS and not self.whole_file) or not self._could_start(text):
                return self._quoted_error(line)
        if self.header_lines and self.proc is not None and not text.startswith(_HEADER_END):
            self.proc.data["cmdline"] += "\n" + text      # a cmdline holding newlines (`python -c ...`)
            self.header_lines = self.header_lines + 1 if self.header_lines < _MAX_CMDLINE_LINES else 0
            return True
        if text.startswith(_PREFIXES):
            parsed = classify(text)
            if parsed is not None:
                getattr(self, "_on_" + parsed[0])(line, parsed[1])
                return True
            if "(most recent call first)" not in text and (self.busy or self.whole_file):
                self._put_process()
                self.unparsed(line)
                return True
        if self.error is not None and text.startswith(_ERROR_CONTINUATION):
            self.error.data["message"] += " " + text.strip()
            return True
        if self.whole_file and not text.startswith("Traceback (most recent call last):"):
            self._close_blocks()
            self.unparsed(line)
            return True
        self._end_dump()
        return False

    def _headless(self, line: Line) -> bool:
        """A dump pasted without its thread header (`Some ranks are stuck at:` then the frames): py-spy's frame
        lines start one thread of no known id; a single frame-shaped line is dropped when it closes."""
        parsed = classify(line.text)
        if parsed is None or parsed[0] != "frame":
            return False
        self.thread = self._event("pyspy_thread", line, None, frames=[], thread_id_raw="", thread_id=None,
                                  state=None, gil=False, thread_name=None, headless=True)
        self.busy = True
        self._on_frame(line, parsed[1])
        return True

    def _quoted_error(self, line: Line) -> bool:
        """A py-spy error quoted anywhere in a line (a console or a report pasting what py-spy said): the evidence
        that a dump was attempted and why it failed. Never claims the line."""
        text = line.text
        if "Failed to " not in text:
            return False
        phrase = next((p for p in _QUOTED_ERRORS if p in text), None)
        if phrase is not None:
            start = text.find(phrase)
            message = text[start:].split("`")[0].split("'")[0].strip()
            self._end_dump()
            self.out.append(self._event("pyspy_error", line, None, message=message, category=error_category(text)))
        return False

    def _could_start(self, text: str) -> bool:
        """Outside a dump: only a real process/thread header or a known py-spy error starts one."""
        if text.startswith("Process ") or text.startswith("Thread "):
            return text.startswith("Process ") and text[8:9].isdigit() or _THREAD_HEAD.match(text) is not None
        if text.startswith(("Error:", "Permission Denied")):
            return self.whole_file or error_category(text) != "other"
        return self.whole_file and text.startswith(_PREFIXES)

    def finish(self) -> None:
        self._end_dump()

    # ---- one handler per line kind -----------------------------------------------------------
    def _on_process(self, line: Line, data: dict[str, Any]) -> None:
        if not self.after_rule:
            self._end_dump()
        self._close_blocks()
        self.proc = self._event("pyspy_process", line, data["pid"], pid=data["pid"], cmdline=data["cmdline"],
                                python_version=None, parent_pid=None)
        if self.after_rule:
            self.children.append([self.proc])
        self.after_rule = self.proc_put = False
        self.header_lines = 1
        self.busy = True

    def _on_python(self, line: Line, data: dict[str, Any]) -> None:
        if self.proc is None or self.proc.data["python_version"] is not None or self.thread is not None:
            self.unparsed(line)
            return
        self.proc.data["python_version"] = data["version"]
        self.header_lines = 0

    def _on_parent(self, line: Line, data: dict[str, Any]) -> None:
        if self.proc is None or self.thread is not None:
            self.unparsed(line)
            return
        self.proc.data["parent_pid"] = data["pid"]
        self.header_lines = 0

    def _on_thread(self, line: Line, data: dict[str, Any]) -> None:
        self._close_blocks(keep_process=True)
        self.thread = self._event("pyspy_thread", line, self.proc.pid if self.proc else None,
                                  frames=[], **data)
        if data["thread_id_raw"].isdigit():
            self.thread.tid = data["thread_id"]
        self.busy = True

    def _on_frame(self, line: Line, data: dict[str, Any]) -> None:
        if self.thread is None:
            self.unparsed(line)
            return
        self.thread.data["frames"].append({**data, "dump_line": line.no})    # where a citation points
        self.locals = None

    def _on_locals_header(self, line: Line, data: dict[str, Any]) -> None:
        frames = self.thread.data["frames"] if self.thread is not None else []
        if not frames:
            self.unparsed(line)
            return
        self.locals = frames[-1]["locals"]

    def _on_variable(self, line: Line, data: dict[str, Any]) -> None:
        if self.locals is None:
            self.unparsed(line)
            return
        self.locals[data["name"]] = data["repr"]

    def _on_rule(self, line: Line, data: dict[str, Any]) -> None:
        self._close_blocks()
        self.after_rule = True
        self.busy = True

    def _on_error(self, line: Line, data: dict[str, Any]) -> None:
        self._close_blocks(keep_process=True)
        self.error = self._event("pyspy_error", line, self.proc.pid if self.proc else None,
                                 message=data["message"], category=None)
        self.busy = True

    def _on_cause(self, line: Line, data: dict[str, Any]) -> None:
        if self.error is None:
            self.unparsed(line)
        elif data["message"]:
            sep = " " if data["message"].startswith("Reason:") else "; caused by "
            self.error.data["message"] += sep + data["message"]

    # ---- closing blocks ------------------------------------------------------------------------
    def _event(self, kind: str, line: Line, owner: int | None, **data: Any) -> Event:
        return Event(kind, self.source, self.file, line.no, line.rank, line.host, pid=owner,
                     text=line.raw or line.text, data=data)

    def _put(self, ev: Event) -> None:
        (self.children[-1] if self.children and ev.pid == self.children[-1][0].pid else self.out).append(ev)

    def _close_blocks(self, keep_process: bool = False) -> None:
        """Emit the open thread and error and (unless `keep_process`) the process header."""
        self._put_process()
        for attr in ("thread", "error"):
            ev = getattr(self, attr)
            if ev is not None and ev.data.get("headless") and len(ev.data["frames"]) < 2:
                setattr(self, attr, None)         # one stray frame-shaped line is no dump
            elif ev is not None:
                if ev.kind == "pyspy_error":
                    ev.data["category"] = error_category(ev.data["message"])
                self._put(ev)
                setattr(self, attr, None)
        self.locals = None
        if not keep_process:
            self.proc = None

    def _put_process(self) -> None:
        """Queue the process event once its header is complete (a child's is already in its block)."""
        if self.proc is not None and not self.proc_put:
            self.proc_put = True
            if not self.children or self.children[-1][0] is not self.proc:
                self.out.append(self.proc)
        self.header_lines = 0

    def _end_dump(self) -> None:
        self._close_blocks()
        self.out.extend(dedupe_children(self.children))
        self.children = []
        self.after_rule = self.busy = False


def dedupe_children(blocks: list[list[Event]]) -> list[Event]:
    """Resolve py-spy ≤ 0.4.1's repeated child blocks (module docstring); events in line order."""
    last_copy: dict[int | None, set[int]] = {}
    for block in blocks:
        last_copy[block[0].pid] = {ev.data["thread_id"] for ev in block[1:] if ev.kind == "pyspy_thread"}
    seen: set[tuple[str, int | None, int | str]] = set()
    kept: list[Event] = []
    for block in blocks:
        proc = block[0]
        if ("process", proc.pid, 0) not in seen:
            seen.add(("process", proc.pid, 0))
            kept.append(proc)
        for ev in block[1:]:
            if ev.kind != "pyspy_thread":       # py-spy's error for the child (one per repeated block)
                if ("error", ev.pid, ev.data["message"]) not in seen:
                    seen.add(("error", ev.pid, ev.data["message"]))
                    kept.append(ev)
                continue
            if ev.data["thread_id"] not in last_copy[proc.pid]:
                ev.pid = proc.data["parent_pid"]   # a parent thread printed after the child block
            if ("thread", ev.pid, ev.data["thread_id"]) not in seen:
                seen.add(("thread", ev.pid, ev.data["thread_id"]))
                kept.append(ev)
    return sorted(kept, key=lambda ev: ev.line)
