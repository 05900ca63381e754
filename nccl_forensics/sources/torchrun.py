"""torchrun / elastic agent output → `torchrun` events (grammars/torchrun.lark), and error.json files.

Agent lines are parsed one by one. The ChildFailedError summary is a block: the parser is `busy` from its
`<entrypoint> FAILED` header (or its `Failures:` line) to the closing `====` rule, and each Failures/Root Cause
entry becomes one `child_failed` event. Kinds and fields: docs/events.md "source = torchrun".
"""
from __future__ import annotations

import calendar
import json
import re
import signal as signal_module
import time
from typing import Any, Iterator

from lark import Transformer, v_args

from .. import signals
from ..errors import BadInput
from ..files import open_regular
from ..model import Event, Line, Source
from .base import LineParser
from .grammars import parse_with
from .torch_log import parse_torch_message

MAX_ERROR_JSON = 64 * 1024 * 1024
MAX_TRACEBACK_LINES = 5000     # a summary traceback longer than this ends the block
_LEVEL_IN_PREFIX = re.compile(r"(DEBUG|INFO|WARNING|ERROR|CRITICAL)|^([DIWEFC])\d")
_LEVELS = {"D": "DEBUG", "I": "INFO", "W": "WARNING", "E": "ERROR", "F": "CRITICAL", "C": "CRITICAL"}
_AGENT_PREFIXES = ("DEBUG:torch.distributed", "INFO:torch.distributed", "WARNING:torch.distributed",
                   "ERROR:torch.distributed", "CRITICAL:torch.distributed")
_AGENT_PATHS = ("torch/distributed/elastic/", "torch/distributed/run.py", "torch/distributed/launcher/")
_AGENT_MESSAGES = ("Sending process ", "failed (exitcode: ", "Unable to shutdown process ")
_BLOCK_HEADS = ("Failures:", "Root Cause (first observed failure):")


def signal_name(exitcode: int | None) -> str | None:
    """-9 → "SIGKILL" (torchelastic reports a signal death as a negative exit code; 137 is an exit of its own)."""
    return signals.of_exit_code(exitcode) if isinstance(exitcode, int) and exitcode < 0 else None


def failure_epoch(stamp: str | None) -> float | None:
    """`2026-11-21_13:38:07` (printed in the agent's local time; read as UTC for determinism)."""
    if not stamp:
        return None
    return float(calendar.timegm(time.strptime(stamp, "%Y-%m-%d_%H:%M:%S")))


@v_args(inline=True)
class TorchrunTransformer(Transformer):
    """Parse tree → (kind, data); no I/O."""

    INT = int
    SIGNED_INT = int

    def agent_line(self, *items):
        kind, data = items[-1]
        if len(items) == 2:
            m = _LEVEL_IN_PREFIX.search(str(items[0]))
            data["level"] = (m[1] or _LEVELS[m[2]]) if m else None
        else:
            data["level"] = None
        return kind, data

    def agent_text(self, text):
        return "agent_log", {"message": str(text)}

    def sigterm_sent(self, pid, name):
        return "sigterm_sent", {"pid": pid, "signal": str(name)}

    def forced_kill(self, pid, _first, second):
        return "sigterm_sent", {"pid": pid, "signal": str(second).split(".", 1)[1]}

    def worker_failed(self, exitcode, local_rank, pid, entry_kind, entry):
        return "worker_failed", {"exitcode": exitcode, "local_rank": local_rank, "pid": pid,
                                 "signal": signal_name(exitcode), "entrypoint": str(entry).strip()}

    def summary_line(self, *items):
        return items

    def rule(self, token): return "rule", {"char": str(token)[0]}
    def header(self, token): return "header", {"entrypoint": str(token)[: -len(" FAILED")].strip()}
    def failures_head(self): return "section", {"root_cause": False}
    def root_cause_head(self): return "section", {"root_cause": True}
    def entry_index(self, idx): return "entry", {"index": idx}
    def no_other_failures(self): return "none", {}
    def time_field(self, stamp): return "field", {"time": str(stamp)}
    def host_field(self, host): return "field", {"host": str(host)}
    def rank_field(self, rank, local_rank): return "field", {"rank": rank, "local_rank": local_rank}
    def error_file_field(self, path): return "field", {"error_file": None if str(path) == "<N/A>" else str(path)}
    def signal_tag(self, name): return str(name)

    def exitcode_field(self, exitcode, pid, *tag):
        return "field", {"exitcode": exitcode, "pid": pid, "signal": tag[0] if tag else signal_name(exitcode)}

    def signal_received(self, _num, name, pid):
        return {"signal": str(name), "pid": pid}

    def traceback_signal(self, info):
        return "traceback", {"traceback": f"Signal received: {info['signal']}", **info}

    def traceback_field(self, text):
        return "traceback", {"traceback": str(text)}


_TRANSFORMER = TorchrunTransformer()


def parse_torchrun_line(text: str, start: str) -> tuple[str, dict[str, Any]] | None:
    return parse_with("torchrun", _TRANSFORMER, text, start)


_AGENT_ANCHOR = re.compile(r"Sending process \d+ closing signal|failed \(exitcode: -?\d+\) local_rank:"
                           r"|Unable to shutdown process \d+")


# The rendezvous result the agent logs in one record (api.py _rendezvous: `Result:` then `  restart_count=0`,
# `  global_world_sizes=[4, 4]`, ...): where the logger prefixes only the record's first line (Python logging's
# `INFO:torch.distributed.elastic.agent.server.api:`), its fields follow unprefixed, two spaces in
_RESULT_FIELD = re.compile(r"  [a-z_]+=\S")
# The launch configs the launcher logs in one record before it starts the agent (launcher/api.py launch_agent, INFO,
# 1.9+: `Starting elastic_operator with launch configs:` then `  min_nodes        : 2`, ...); a fixed node count
# (min_nodes == max_nodes) states the world: max_nodes x nproc_per_node
_LAUNCH_HEAD = "Starting elastic_operator with launch configs:"
_LAUNCH_FIELD = re.compile(r"\s*([a-z_]+)\s+: (.*)$")
_LAUNCH_SIZES = ("min_nodes", "max_nodes", "nproc_per_node")


def _is_agent_line(text: str) -> bool:
    if text.startswith(_AGENT_PREFIXES):
        return True
    first = text[:1]
    if first == "[" and "] torch.distributed" in text[:60]:
        return True
    if first in "DIWEFC" and text[1:4].isdigit() and any(p in text[:200] for p in _AGENT_PATHS):
        return True
    return text.startswith(_AGENT_MESSAGES)


class TorchrunParser(LineParser):
    source = "torchrun"

    def __init__(self, src: Source):
        super().__init__(src)
        self._after_rule = False      # the previous line was a `====` rule (a summary may start next)
        self._root_cause = False
        self._entry: dict[str, Any] | None = None
        self._entry_line: Line | None = None
        self._traceback: list[str] | None = None
        self._traceback_end = 0        # the line of the quoted traceback's last line
        self._seen_section = False     # a Failures/Root Cause head was seen in this block
        self._in_result = False        # the agent's rendezvous `Result:` was the last line read
        self._launch: dict[str, str] | None = None   # the launch configs read so far, while their record lasts

    def feed(self, line: Line) -> bool:
        if self.busy:
            return self._feed_block(line)
        text = line.text
        if self._in_result:
            if _RESULT_FIELD.match(text):
                self.emit("agent_log", line, message=text.strip())
                return True
            self._in_result = False
        if self._launch is not None and text.startswith("  ") and _LAUNCH_FIELD.match(text):
            self._launch_field(text, line)       # a field of the record printed without the logger's prefix
            return True
        after_rule, self._after_rule = self._after_rule, False
        if text[:3] == "===" and not text.strip("="):
            self._after_rule = True
            return False              # not claimed: other reports (ncclras) underline with `=` too
        if (after_rule and text.endswith(" FAILED")) or text.startswith(_BLOCK_HEADS):
            self.busy = True
            return self._feed_block(line)
        if not _is_agent_line(text):
            return self._messages_inside(line)
        parsed = parse_torchrun_line(text, "agent_line")
        if parsed is None:
            self.unparsed(line)
            return True
        kind, data = parsed
        ev = self.emit(kind, line, **data)
        ev.pid = data.get("pid")
        message = str(data.get("message", "")) if kind == "agent_log" else ""
        self._in_result = message.endswith("Result:")
        if message.startswith(_LAUNCH_HEAD):
            self._launch = {}
        elif self._launch is not None:
            self._launch_field(message, line)
        return True

    def _launch_field(self, text: str, line: Line) -> None:
        """One field of the launch configs; with the node and process counts read, the world they fix (if fixed)."""
        field = _LAUNCH_FIELD.match(text)
        if field is None or self._launch is None:
            self._launch = None                   # not the record's field: the record is over
            return
        self._launch[field[1]] = field[2].strip()
        sizes = [self._launch.get(name, "") for name in _LAUNCH_SIZES]
        if all(sizes):
            self._launch = None
            if all(size.isdigit() for size in sizes) and sizes[0] == sizes[1]:
                self.emit("launcher_world", line, nranks=int(sizes[1]) * int(sizes[2]), nnodes=int(sizes[1]))

    def _messages_inside(self, line: Line) -> bool:
        """The agent's messages wherever they stand in a line: behind a prefix cut short or unknown, or several on
        one run-on line (a progress bar and the agent's lines printed without newlines)."""
        text = line.text
        if "exitcode" not in text and "closing signal" not in text and "Unable to shutdown" not in text:
            return False
        starts = [m.start() for m in _AGENT_ANCHOR.finditer(text)]
        found = False
        for begin, end in zip(starts, [*starts[1:], len(text)], strict=False):   # no anchor: no piece
            parsed = parse_torchrun_line(text[begin:end].strip(), "agent_line")
            if parsed is not None:
                kind, data = parsed
                self.emit(kind, line, **data).pid = data.get("pid")
                found = True
        return found

    # ---- the ChildFailedError block
    def _feed_block(self, line: Line) -> bool:
        if line.rank is not None or line.local_rank is not None:
            return False              # a worker's own output interleaved with the summary
        parsed = parse_torchrun_line(line.text.strip(), "summary_line")
        if parsed is None:
            tb = self._traceback
            if tb is not None and line.text.startswith("  ") and len(tb) < MAX_TRACEBACK_LINES:
                tb.append(line.text[2:])
                self._traceback_end = line.no
                return True
            self.finish()             # not summary text: the block is over (or never was one)
            return False
        kind, data = parsed
        if kind in ("field", "traceback") and self._entry is not None:
            self._take_field(self._entry, kind, data, line)
        elif kind == "section":
            self._flush()
            self._root_cause = data["root_cause"]
        elif kind == "entry":
            self._flush()
            self._entry, self._entry_line = {"index": data["index"]}, line
        elif kind == "rule":
            self._flush()
            if data["char"] == "=" and self._seen_section:
                self.busy = False
        elif kind == "header":
            self._seen_section = False
        elif kind != "none":
            self.unparsed(line)
        if kind == "section":
            self._seen_section = True
        return True

    def _take_field(self, entry: dict[str, Any], kind: str, data: dict[str, Any], line: Line) -> None:
        for key, value in data.items():
            if key == "signal" and value is None and entry.get("signal"):
                continue
            entry[key] = value
        if "exitcode" in data:
            self._entry_line = line
        self._traceback = [data["traceback"]] if kind == "traceback" else None
        self._traceback_end = line.no

    def _flush(self) -> None:
        entry, line = self._entry, self._entry_line
        tb = self._traceback
        self._entry = self._entry_line = self._traceback = None
        if entry is None or line is None:
            return
        if tb is not None:
            entry["traceback"] = "\n".join(t for t in tb if t.strip())
        data: dict[str, Any] = {"root_cause": self._root_cause, "time": entry.get("time"), "host": entry.get("host"),
                "rank": entry.get("rank"), "local_rank": entry.get("local_rank"),
                "exitcode": entry.get("exitcode"), "signal": entry.get("signal"), "pid": entry.get("pid"),
                "error_file": entry.get("error_file"), "traceback": entry.get("traceback"),
                "traceback_end": self._traceback_end if tb is not None else None}
        ev = self.emit("child_failed", line, **data)
        ev.rank, ev.host, ev.pid = data["rank"], data["host"], data["pid"]
        ev.time = failure_epoch(data["time"])
        self._fingerprint_from(data["traceback"], line, ev)

    def _fingerprint_from(self, traceback: str | None, line: Line, failed: Event) -> None:
        """A DETAIL fingerprint mismatch quoted in a child's traceback is a `torch` event too."""
        if not traceback or "Detected mismatch between collectives" not in traceback:
            return
        last = traceback.strip().splitlines()[-1].strip()
        msg = parse_torch_message(last)
        if msg is not None and msg.kind == "fingerprint_mismatch":
            self.out.append(Event(msg.kind, "torch", self.file, line.no, failed.rank, failed.host,
                                  pid=failed.pid, text=last, data=msg.data))

    def finish(self) -> None:
        if self.busy:
            self._flush()
            self.busy = False


def read_error_json(source: Source) -> Iterator[Event]:
    """A torchelastic error.json → one `error_json` event (plus a `torch` event for a fingerprint mismatch)."""
    if source.size > MAX_ERROR_JSON:
        raise BadInput(f"{source.path}: too large for an error.json ({source.size} bytes)")
    try:
        with open_regular(source.path) as fh:
            doc = json.loads(fh.read(MAX_ERROR_JSON + 1).decode("utf-8", "replace"))
    except OSError as exc:
        raise BadInput(f"{source.path}: cannot read ({exc.strerror or exc})") from None
    except json.JSONDecodeError as exc:
        raise BadInput(f"{source.path}: not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})") from None
    if not isinstance(doc, dict) or "message" not in doc:
        raise BadInput(f"{source.path}: not a torchelastic error.json (no \"message\" key)")
    data = _error_json_fields(doc, source)
    first = (data["message"] or "").splitlines()[0] if data["message"] else ""
    yield Event("error_json", "torchrun", source.path, 1, source.rank, source.host, pid=data["pid"],
                time=data["timestamp"], text=first, data=data)
    if "Detected mismatch between collectives" in first:
        msg = parse_torch_message(first)
        if msg is not None and msg.kind == "fingerprint_mismatch":
            yield Event(msg.kind, "torch", source.path, 1, source.rank, source.host, pid=source.pid,
                        text=first, data=msg.data)


def _error_json_fields(doc: dict[str, Any], source: Source) -> dict[str, Any]:
    outer = doc["message"]
    if isinstance(outer, dict):
        message = outer.get("message")
        info = outer.get("extraInfo")
        extra = info if isinstance(info, dict) else {}
    else:
        message, extra = outer, doc
    message = message if isinstance(message, str) else (json.dumps(message) if message is not None else None)
    exc_type = None
    if message and ": " in message.split("\n", 1)[0]:
        head = message.split(": ", 1)[0]
        if re.fullmatch(r"[A-Za-z_][\w.]*", head):
            exc_type = head
    stamp = extra.get("timestamp")
    try:
        timestamp = float(stamp) if stamp is not None else None
    except (TypeError, ValueError):
        timestamp = None
    callstack = extra.get("py_callstack")
    fields = {"message": message, "exc_type": exc_type, "timestamp": timestamp,
              "traceback": callstack if isinstance(callstack, str) else None, "pid": source.pid,
              "rank": source.rank, "local_rank": source.local_rank, "exitcode": doc.get("exitcode"),
              "signal": None}
    if message and message.startswith("Signal "):       # written for a signal death: "Signal 9 (SIGKILL) received by PID N"
        parsed = parse_torchrun_line(f"traceback : {message.splitlines()[0]}", "summary_line")
        if parsed is not None and "signal" in parsed[1]:
            name = parsed[1]["signal"]
            fields.update(signal=name, pid=parsed[1]["pid"],
                          exitcode=-signal_module.Signals[name].value if name in signal_module.Signals.__members__ else None)
    return fields
