"""Python tracebacks and C++ `terminate called` aborts → `traceback` events (grammars/traceback.lark).

Each block gives one `traceback` event (its line: the exception message line) and, when the message names a
cause, an `oom` / `gloo_error` / `dist_backend_error` event on the line that names it (sources/exceptions.py).
A paste that begins inside a traceback (its frames first, the header cut off) gives one too (`header_cut`).
Blocks are kept per wrapper key (rank, local rank, host), so tracebacks of several ranks interleaved in one
torchrun console are read apart. The exception message line (and a `what():` line) is recorded but not
claimed, so the torch and torchrun parsers can read it too; a bare exception line outside a traceback that
names a cause gives only the cause event.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from lark import Transformer, v_args

from ..model import Line, Source
from . import catalogue
from .base import LineParser, as_exit_barriers_wait
from .exceptions import might_name_cause, recognise
from .grammars import parse_with

_FRAME_START = '  File "'
_C10D = "distributed_c10d.py"
_PICKLING_EXC = frozenset({"PicklingError", "AttributeError", "TypeError", "RecursionError"})   # pickle.dump's own
# torch.distributed.checkpoint's CheckpointException prints each failed rank's traceback under a header that names the
# rank (`Traceback (most recent call last): (RANK 3)`, checkpoint/api.py __str__), inside the gathering rank's own
_NAMED_RANK = re.compile(r" \(RANK (\d+)\)\s*$")
STARTS = ("Traceback (most recent call last):", "terminate called after throwing an instance of '")
_IDENTIFIER_START = re.compile(r"[A-Za-z_][\w.]*(?:Error|Exception|Failure)\b")
# an exception named anywhere in a line (an app's logger, a run-on line): "… - RuntimeError: CUDA error: …"
_EXCEPTION_INSIDE = re.compile(r"(?:^|[\s\-:|\]])([A-Za-z_][\w.]*(?:Error|Exception))(?::|$)")


# A launcher's own traceback (torchrun, torch.distributed.launch, the DeepSpeed and accelerate launchers) that only
# reports a worker's failure: every frame in the launcher, raising ChildFailedError / CalledProcessError (torch
# elastic's `launch_agent`, DeepSpeed 0.3 - 0.5's `sigkill_handler`, accelerate's `simple_launcher`), or cut
# before its exception line. It is that worker's failure told again, not one of its own.
_LAUNCHER_FRAMES = ("/bin/torchrun", "torch/distributed/elastic/", "torch/distributed/run.py",
                    "torch/distributed/launcher/", "torch/distributed/launch.py", "deepspeed/launcher/",
                    "/bin/deepspeed", "accelerate/commands/", "/bin/accelerate", "/runpy.py",
                    "accelerate/test_utils/testing.py")
_LAUNCHER_RAISES = ("ChildFailedError", "CalledProcessError")
# accelerate's `execute_subprocess_async` (test_utils/testing.py, what `accelerate test` and accelerate's own tests run
# the launcher with) echoes the launcher's stderr line by line (`stderr: ...`) and then raises RuntimeError
# `'<command>' failed with returncode N` followed by that stderr again: the launcher's exit told once more
_LAUNCHER_RETURNCODE = re.compile(r"^'(?:\S*/)?(?:accelerate-launch|accelerate|torchrun|deepspeed)\b[^']*' "
                                  r"failed with returncode -?\d+")
# A wrapper's subprocess.run(check=True) of a launcher (a trainer's own CLI that starts torchrun, deepspeed or
# accelerate) raises CalledProcessError naming the launcher's command line: the launcher's exit told once more, by a
# process that is no rank, whatever frames (the wrapper's, a rank's cut traceback before them) the paste shows
_LAUNCHER_COMMAND = re.compile(r"Command '\['(?:[^']*/)?(?:torchrun|deepspeed|accelerate)'"
                               r"|Command '\[[^\]]*?'-m', '(?:torch\.distributed\.(?:run|launch)"
                               r"|deepspeed\.launcher\.\w+|accelerate\.commands\.\w+)'")
# Exceptions that report other ranks (a monitored barrier or a store counting who never came, a timeout, a collective
# mismatch or a size/parameter-shape check found across ranks): the rank that raises one is the reporter, not the one
# that failed.
REPORTS_OTHERS = frozenset({"missing_rank", "stuck_rank", "timeout_unknown", "collective_mismatch",
                             "collective_skipped", "shape_mismatch", "dtype_mismatch", "op_mismatch"})


def reports_others(message: str | None) -> bool:
    """Whether an exception's message is a catalogue message that blames other ranks, not the raising one."""
    if not message or not catalogue.might_match(message):
        return False
    return any(h.message.implies in REPORTS_OTHERS or h.message.data.get("reports_others")
               for h in catalogue.match(message))


# Catalogue categories of failures a rank's own process makes (its DataLoader's workers, pin-memory thread, shared
# memory): whatever their words, no other rank is involved.
OWN_PROCESS = frozenset({"data_loader"})
# The catalogue category of the distributed API's usage and setup errors (catalogue/pytorch.py's `_USAGE`), which
# this parser also gives a pickling error in an object collective: the same on every rank, no rank's own death.
USAGE_ERROR = "usage_error"


def own_process_category(message: str | None) -> str | None:
    """The catalogue category (one of OWN_PROCESS) an exception's message names, or None."""
    if not message or not catalogue.might_match(message):
        return None
    return next((h.message.data["category"] for h in catalogue.match(message)
                 if h.message.data.get("category") in OWN_PROCESS), None)


def _pickling_an_object(frames: list[dict[str, Any]], exc_type: str | None) -> bool:
    """The object collectives (all_gather_object, broadcast_object_list, ...) pickle each rank's object in
    distributed_c10d's `_object_to_tensor` before any communication: pickle's own exception raised there is the
    object's (it cannot be pickled), the same on every rank, a usage error. (A CUDA error there is the copy to the
    device, not the pickling.)"""
    if not exc_type or exc_type.rsplit(".", 1)[-1] not in _PICKLING_EXC:
        return False
    return any(f.get("function") == "_object_to_tensor" and _C10D in str(f.get("file")) for f in frames[-3:])


# torch elastic's agent logs its exit barrier's failed wait with log.exception (agent/server/api.py `_exit_barrier`,
# 1.9 - 2.13), after its own workers SUCCEEDED: the store error that ends that traceback is the barrier's wait for the
# other nodes' agents (one failed, or finished more than the barrier's timeout later), no rank's failure. Where each
# line carries the logger's prefix the message parser reads it so (sources/messages.py `_read_exit_barrier`); a plain
# traceback under the log line is read here, by its frame.
_AGENT_API = "torch/distributed/elastic/agent/server/api.py"


def exit_barriers_wait(frames: list[dict[str, Any]]) -> bool:
    """Is this the traceback of torch elastic's exit barrier (a frame of its `_exit_barrier`)?"""
    return any(f.get("function") == "_exit_barrier" and _AGENT_API in str(f.get("file")) for f in frames)


def launchers_report(frames: list[dict[str, Any]], exc_type: str | None, message: str | None = None) -> bool:
    if exc_type and exc_type.rsplit(".", 1)[-1] == "CalledProcessError" and _LAUNCHER_COMMAND.search(message or ""):
        return True
    if exc_type and exc_type.rsplit(".", 1)[-1] == "RuntimeError" and _LAUNCHER_RETURNCODE.match(message or ""):
        return True
    if not frames or not all(any(p in str(f.get("file")) for p in _LAUNCHER_FRAMES) for f in frames):
        return False
    return exc_type is None or exc_type.rsplit(".", 1)[-1] in _LAUNCHER_RAISES


@v_args(inline=True)
class TracebackTransformer(Transformer):
    """One line's tree → (line kind, fields); no I/O."""

    def start(self, item):
        return item

    def traceback_header(self, _token):
        return "header", {}

    def frame_line(self, _start, path, lineno, function=None):
        return "frame", {"file": str(path), "line": int(lineno), "function": function and str(function)}

    def source_line(self, _token):
        return "source", {}

    repeat_line = group_line = source_line

    def chain_cause(self, _token):
        return "chain", {"how": "cause"}

    def chain_context(self, _token):
        return "chain", {"how": "context"}

    def message_continuation(self, token):
        return "continuation", {"message": str(token)}

    def exception_line(self, exc_type, message=None):
        return "exception", {"exc_type": str(exc_type), "message": (message or "").strip()}

    def terminate_line(self, _token, cpp_type):
        return "terminate", {"exc_type": str(cpp_type)}

    def what_line(self, _token, message=None):
        return "what", {"message": (message or "").strip()}

    def cpp_raised_line(self, _token):
        return "cpp_stack", {}

    cpp_frame_line = cpp_raised_line


_TRANSFORMER = TracebackTransformer()


def classify(text: str) -> tuple[str, dict[str, Any]] | None:
    """The line's kind and fields per grammars/traceback.lark, or None when no rule matches."""
    return parse_with("traceback", _TRANSFORMER, text)


@dataclass
class _Block:
    start: Line
    cpp: bool                                   # a `terminate called ...` abort, not a Python traceback
    header_cut: bool = False                    # the evidence begins inside it, below its header
    named_rank: int | None = None               # the rank its header names (a rank's traceback re-raised by another)
    exc_type: str | None = None
    exc_line: Line | None = None
    message: str | None = None
    frames: list[dict[str, Any]] = field(default_factory=list)
    causes: list[tuple[Line, str, dict[str, Any]]] = field(default_factory=list)
    continued: list[str] = field(default_factory=list)   # the message's lines below its first

    def record(self, line: Line, message: str, first: bool = False) -> None:
        """Note the causes `message` names; the exception type counts only on the message's first line."""
        found = recognise(self.exc_type if first else None, message)
        self.causes.extend((line, kind, data) for kind, data in found)
        if not first:
            self.continued.append(message)


class TracebackParser(LineParser):
    source = "traceback"

    def __init__(self, src: Source) -> None:
        super().__init__(src)
        self.blocks: dict[tuple, _Block] = {}
        self._last_error_next = False
        self._lead = True        # no line yet but blank or indented ones: a paste may begin inside a traceback

    def feed(self, line: Line) -> bool:
        text = line.text
        if self._last_error_next:              # NCCL printed "Last error:" alone: this line is the cause
            self._last_error_next = False
            if text.strip():                   # (the line is still read below: "Cuda failure 'out of memory'")
                self.emit("nccl_error", line, code=None, last_error=text.strip())
        if text.rstrip().endswith("Last error:"):
            self._last_error_next = True
        if self._lead and text.strip():
            if text.startswith(_FRAME_START) and self._header_cut(line):
                return True
            self._lead = text[0].isspace() and not text.startswith(_FRAME_START)
        if not self.blocks and not text.startswith(STARTS) and "Error" not in text and "error" not in text \
                and "_LAUNCH_BLOCKING" not in text and not text.endswith(" | Traceback (most recent call last):"):
            return False                        # the common case: not a traceback line at all
        key = (line.rank, line.local_rank, line.host)
        block = self.blocks.get(key)
        if block is None and key == _NO_WRAPPER and len(self.blocks) == 1:
            key, block = next(iter(self.blocks.items()))   # a logger prefixed only the header line (`rank: 3 | …`)
        if block is None:
            claimed = self._outside(line, key)
        else:
            claimed = self._inside(line, key, block)
        if not claimed and self.blocks:
            for other in [k for k, b in self.blocks.items() if k != key and b.exc_line is not None]:
                self._close(other)
        self.busy = bool(self.blocks)
        return claimed

    def finish(self) -> None:
        for key in sorted(self.blocks, key=lambda k: self.blocks[k].start.no):
            self._close(key)
        self.busy = False

    def _outside(self, line: Line, key: tuple) -> bool:
        text = line.text
        head = "Traceback (most recent call last):"
        if text.startswith(head) or text.endswith(" | " + head):
            named = _NAMED_RANK.match(text, len(head))
            self.blocks[key] = _Block(line, cpp=False, named_rank=int(named.group(1)) if named else None)
            return True
        if text.startswith("terminate called after throwing an instance of '"):
            parsed = classify(text)
            if parsed is not None:
                self.blocks[key] = _Block(line, cpp=True, exc_type=parsed[1]["exc_type"])
                return True
        if might_name_cause(text):          # a cause message, at the line's start or anywhere inside it
            for kind, data in _causes_in(text):
                self._emit_cause(kind, line, data)
        return False

    def _header_cut(self, line: Line) -> bool:
        """The evidence begins with a traceback's frames: the paste cut its `Traceback` header (and often its
        exception line) off. It is read as a traceback all the same: at the head of a pasted console, frames are an
        error's (a stack printed on purpose, `traceback.print_stack`, is the rare exception). Only the head counts:
        frames further down with no header above them stay unread."""
        self._lead = False
        parsed = classify(line.text)
        if parsed is None or parsed[0] != "frame":
            return False                        # faulthandler's `  File "x", line 3 in f` is not a traceback
        key = (line.rank, line.local_rank, line.host)
        self.blocks[key] = _Block(line, cpp=False, header_cut=True)
        self.blocks[key].frames.append(parsed[1])
        self.busy = True
        return True

    def _emit_cause(self, kind: str, line: Line, data: dict[str, Any], block: _Block | None = None) -> None:
        ev = self.emit(kind, line, **data)
        if ev.rank is None:
            ev.rank = rank_in_message(line.text)
        if ev.rank is None and block is not None:
            ev.rank = block.start.rank

    def _inside(self, line: Line, key: tuple, block: _Block) -> bool:
        parsed = classify(line.text)
        kind, data = parsed if parsed is not None else (None, {})
        after = block.exc_line is not None or block.cpp
        if kind in ("header", "terminate"):
            self._close(key)
            return self._outside(line, key)
        if kind == "frame" and not after:
            block.frames.append(data)
            return True
        if kind in ("source", "group") and not after:
            return True
        if kind == "chain" and after and not block.cpp:
            self._close(key, chained=True)
            return True
        if kind in ("continuation", "cpp_stack") and after:
            block.record(line, line.text)
            return True
        if kind == "exception" and not after:
            block.exc_type, block.exc_line, block.message = data["exc_type"], line, data["message"]
            block.record(line, data["message"], first=True)
            return False                        # recorded; left for the torch/torchrun parsers as well
        if kind == "exception" and data["exc_type"].startswith("nccl") and block.exc_line is not None:
            block.record(line, line.text)       # "ncclUnhandledCudaError: Call to CUDA function failed."
            return True
        if kind == "what" and block.cpp and block.exc_line is None:
            block.exc_line, block.message = line, data["message"]
            block.record(line, data["message"], first=True)
            return False
        if not after and (kind is not None or line.text.startswith(" ")):
            self.unparsed(line)                 # inside the frames, but no rule fits
            return True
        self._close(key)
        return self._outside(line, key)

    def _close(self, key: tuple, chained: bool = False) -> None:
        block = self.blocks.pop(key)
        where = block.exc_line or block.start
        ev = self.emit("traceback", where, exc_type=block.exc_type, message=block.message, frames=block.frames,
                       chained=chained, start_line=block.start.no)
        if block.header_cut:
            ev.data["header_cut"] = True
        # (the message's own lines below its first count: torch_npu puts CANN's account of a failed HCCL op there)
        if reports_others(block.message) or any(reports_others(text) for text in block.continued):
            ev.data["reports_others"] = True
        elif _pickling_an_object(block.frames, block.exc_type):
            ev.data["category"] = USAGE_ERROR
        elif own := own_process_category(block.message):
            ev.data["category"] = own
        launcher = launchers_report(block.frames, block.exc_type, block.message)
        if launcher:
            ev.data.update(meaning="consequence", launcher=True)
        if exit_barriers_wait(block.frames):
            for data in [ev.data] + [data for _, _, data in block.causes]:
                as_exit_barriers_wait(data)
        if block.named_rank is not None:
            ev.rank = block.named_rank          # the failed rank's own traceback, printed by the rank that gathered it
        elif ev.rank is None and not launcher:  # a launcher is no rank, whichever rank's cut frames its block began in
            ev.rank = block.start.rank
        for line, kind, data in block.causes:
            self._emit_cause(kind, line, data, block)


# c10d's own tag names the rank inside a process group; in the default group (PG 0) that is the global rank
_DEFAULT_PG_RANK = re.compile(r"\[(?:PG ID 0 PG GUID 0(?:\(default_pg\))? |PG 0 (?:\(default_pg\) )?)?Rank (\d+)\]")


_NO_WRAPPER = (None, None, None)


def rank_in_message(text: str) -> int | None:
    """The global rank a c10d message names (`[Rank 2]`, `[PG ID 0 PG GUID 0(default_pg) Rank 2]`), else None."""
    m = _DEFAULT_PG_RANK.search(text)
    return int(m.group(1)) if m else None


def _causes_in(text: str) -> list[tuple[str, dict[str, Any]]]:
    """The cause events a line outside any traceback names: from its exception (wherever it starts), else from the
    line as free text (a CUDA error's tail, "Last error: …")."""
    if _IDENTIFIER_START.match(text):
        parsed = classify(text)
        if parsed is not None and parsed[0] == "exception":
            return recognise(parsed[1]["exc_type"], parsed[1]["message"])
    m = _EXCEPTION_INSIDE.search(text)
    if m is not None:
        return recognise(m.group(1), text[m.end():].strip())
    return recognise(None, text)
