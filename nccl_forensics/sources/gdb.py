"""gdb and cuda-gdb backtraces (`bt`, `thread apply all bt`) → `native_thread` events (grammars/gdb.lark).

One event per thread, on its header line (or on its first frame for a `bt` pasted without one), with its frames
innermost first as {function, file, line}: `file` is the source file of a frame gdb has debug info for, else the
library it names (`from LIB`). gdb prints a frame as `#N  0xADDR in FUNC (ARGS) from LIB` or `... at FILE:LINE`
(gdb/stack.c print_frame); a long frame wraps before `(ARGS)` or `from LIB`, and the pager's prompt may cut in.
"""
from __future__ import annotations

import re
from typing import Any

from lark import Transformer, v_args

from ..model import Line, Source
from .base import LineParser
from .grammars import parse_with

_AT = re.compile(r" at (?P<file>\S+?):(?P<line>\d+)$")
_FROM = re.compile(r" from (?P<file>\S+)$")
_ADDRESS = re.compile(r"^0x[0-9a-fA-F]+ in ")
_STARTS = ("Thread ", "#")
_INSIDE = _STARTS + (" ", "--")


@v_args(inline=True)
class GdbTransformer(Transformer):
    """One line's tree → (line kind, fields); no I/O."""

    def start(self, item):
        return item

    def thread_header(self, number, target, name=None):
        lwp = re.search(r"LWP (\d+)", str(target))
        return "thread", {"thread": int(number), "lwp": int(lwp.group(1)) if lwp else None,
                          "name": name.strip()[1:-1] if name else None}

    def frame_line(self, level, _spaces, call):
        return "frame", {"level": int(level), **split_call(_ADDRESS.sub("", str(call), count=1))}

    def frame_tail(self, tail):
        return "tail", split_call(" " + str(tail).strip())

    def pager_line(self, _prompt):
        return "pager", {}


_TRANSFORMER = GdbTransformer()


def classify(text: str) -> tuple[str, dict[str, Any]] | None:
    """The line's kind and fields per grammars/gdb.lark, or None when no rule matches."""
    return parse_with("gdb", _TRANSFORMER, text)


def split_call(call: str) -> dict[str, Any]:
    """`FUNC (ARGS) at FILE:LINE` / `FUNC (ARGS) from LIB` → {function, file, line}. A C++ function keeps its
    parameter list (`c10d::NCCLComm::create(int, int)`): the arguments are the last parenthesised group after a
    space."""
    file, line = None, None
    located = _AT.search(call) or _FROM.search(call)
    if located:
        file = located.group("file")
        line = int(located.group("line")) if "line" in located.groupdict() else None
        call = call[:located.start()]
    return {"function": _function(call.rstrip()), "file": file, "line": line}


def _function(call: str) -> str | None:
    if not call.endswith(")"):
        return call or None
    depth = 0
    for i in range(len(call) - 1, -1, -1):
        depth += {")": 1, "(": -1}.get(call[i], 0)
        if depth == 0:
            return call[:i].rstrip() or None if i and call[i - 1] == " " else call
    return call


def _could_be(text: str) -> bool:
    """A cheap look before the grammar: a frame's `#` is followed by its level, a thread header ends in `):`."""
    if text[0] == "#":
        return text[1:2].isdigit()
    return not text.startswith("Thread ") or text.endswith("):")


class GdbParser(LineParser):
    source = "gdb"

    def __init__(self, src: Source) -> None:
        super().__init__(src)
        self.thread: dict[str, Any] | None = None   # {"line": Line, "thread": int|None, ..., "frames": [...]}

    def feed(self, line: Line) -> bool:
        text = line.text
        if not text.startswith(_INSIDE if self.busy else _STARTS) or not _could_be(text):
            return self._not_mine()
        parsed = classify(text)
        if parsed is None:
            return self._not_mine()
        kind, data = parsed
        if kind == "thread":
            self._close()
            self._open(line, data)
        elif kind == "frame":
            if self.thread is None or data["level"] == 0 and self.thread["frames"]:
                self._close()
                self._open(line, {"thread": None, "lwp": None, "name": None})
            self.thread["frames"].append({k: data[k] for k in ("function", "file", "line")})  # type: ignore[index]
        elif not self.busy:
            return False                            # a tail or a pager prompt with no backtrace open
        elif kind == "tail" and self.thread and self.thread["frames"]:
            self._wrap(self.thread["frames"][-1], data)
        return True

    def finish(self) -> None:
        self._close()

    @staticmethod
    def _wrap(frame: dict[str, Any], tail: dict[str, Any]) -> None:
        """A frame's wrapped end: its location (and its arguments, which name no function)."""
        frame["file"], frame["line"] = tail["file"] or frame["file"], tail["line"] or frame["line"]

    def _not_mine(self) -> bool:
        self._close()
        return False

    def _open(self, line: Line, data: dict[str, Any]) -> None:
        self.thread = {"line": line, **data, "frames": []}
        self.busy = True

    def _close(self) -> None:
        thread, self.thread, self.busy = self.thread, None, False
        if thread is not None and thread["frames"]:
            self.emit("native_thread", thread.pop("line"), **thread)
