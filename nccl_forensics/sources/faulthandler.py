"""Python faulthandler dumps → `faulthandler` events (source "traceback"; grammars/faulthandler.lark).

A dump starts at `Fatal Python error: X`, `Timeout (h:mm:ss)!`, a `[Current t|T]hread 0x… (most recent
call first):` header or `Stack (most recent call first):`, and ends at `Extension modules: …` or at the first
line that is not part of it (the blank line CPython writes between two thread blocks is part of it). One event
per dump, on its first line, with every thread's frames innermost first. Thread ids are ints (faulthandler
prints them zero-padded lower-case hex; py-spy's hex ids are the same numbers).
"""
from __future__ import annotations

from typing import Any

from lark import Transformer, v_args

from ..model import Line, Source
from .base import LineParser
from .grammars import parse_with

STARTS = ("Fatal Python error:", "Timeout (", "Current thread 0x", "Thread 0x", "Stack (most recent call first):")
_INSIDE = STARTS + ("  ", "...", "Extension modules:", "Python runtime state:")
_FRAME = '  File "'


@v_args(inline=True)
class FaulthandlerTransformer(Transformer):
    """One line's tree → (line kind, fields); no I/O."""

    def start(self, item):
        return item

    def fatal_line(self, reason=None):
        return "reason", {"reason": (reason or "").strip()}

    def timeout_line(self, token):
        return "reason", {"reason": str(token)}

    def thread_header(self, which, hex_id):
        return "thread", {"thread_id": int(hex_id, 16), "current": which.startswith("Current")}

    def stack_header(self):
        return "thread", {"thread_id": None, "current": True}

    def frame_line(self, path, lineno, function):
        return "frame", {"file": str(path), "line": None if lineno == "???" else int(lineno),
                         "function": str(function)}

    def frame_marker(self, _token):
        return "marker", {}

    def more_threads(self):
        return "marker", {}

    def runtime_state_line(self, _state=None):
        return "marker", {}

    def extension_modules_line(self, _modules=None):
        return "end", {}


_TRANSFORMER = FaulthandlerTransformer()


def classify(text: str) -> tuple[str, dict[str, Any]] | None:
    """The line's kind and fields per grammars/faulthandler.lark, or None when no rule matches."""
    return parse_with("faulthandler", _TRANSFORMER, text)


class FaulthandlerParser(LineParser):
    source = "traceback"

    def __init__(self, src: Source) -> None:
        super().__init__(src)
        self.dump: dict[str, Any] | None = None   # {"line": Line, "reason": str|None, "threads": [...]}

    def feed(self, line: Line) -> bool:
        text = line.text
        if self.busy and self.dump is not None and self.dump["threads"]:
            if not text.strip():
                return True                     # the blank line faulthandler writes between two thread blocks
            if text.startswith(_FRAME[1:]):     # `[rank0]:  File "…"`: the rank prefix took one indent space
                text = " " + text
        if not self.busy:
            if text.startswith(_FRAME):
                return self._headless(line)
            if not text.startswith(STARTS):
                return False
        elif not text.startswith(_INSIDE):
            return self._not_mine()
        if text.startswith(("Thread 0x", "Current thread 0x")) and not text.endswith("(most recent call first):"):
            return self._not_mine()             # a py-spy thread header with a hex id
        parsed = classify(text)
        if parsed is None:
            if not self.busy:
                return False
            self.unparsed(line)
            return True
        kind, data = parsed
        dump = self.dump
        if kind == "reason" and (dump is None or dump["reason"] is not None or dump["threads"]):
            self._close()
            dump = self._open(line, data["reason"])
        elif kind in ("reason", "thread") and dump is None:
            dump = self._open(line, data.get("reason"))
        if kind == "marker":
            pass
        elif kind == "end":
            self._close()
        elif dump is None:                      # a frame with no dump open (the checks above leave none)
            self.unparsed(line)
        elif kind == "reason":
            dump["reason"] = data["reason"]
        elif kind == "thread":
            dump["threads"].append({**data, "frames": []})
        elif kind == "frame" and dump["threads"]:
            dump["threads"][-1]["frames"].append(data)
        else:
            self.unparsed(line)
        return True

    def finish(self) -> None:
        self._close()

    def _headless(self, line: Line) -> bool:
        """A dump pasted without its header: faulthandler's `  File "x", line 5 in f` frames (no comma before
        `in`, unlike a Python traceback) start one, as the current thread's stack."""
        parsed = classify(line.text)
        if parsed is None or parsed[0] != "frame":
            return False
        dump = self._open(line, None)
        dump["headless"] = True
        dump["threads"].append({"thread_id": None, "current": True, "frames": [parsed[1]]})
        return True

    def _not_mine(self) -> bool:
        self._close()
        return False

    def _open(self, line: Line, reason: str | None) -> dict[str, Any]:
        dump: dict[str, Any] = {"line": line, "reason": reason, "threads": []}
        self.dump = dump
        self.busy = True
        return dump

    def _close(self) -> None:
        if self.dump is not None and self.dump.get("headless") and len(self.dump["threads"][0]["frames"]) < 2:
            self.dump = None                    # one stray frame-shaped line is no dump
        if self.dump is not None:
            self.emit("faulthandler", self.dump["line"], reason=self.dump["reason"], threads=self.dump["threads"])
        self.dump = None
        self.busy = False
