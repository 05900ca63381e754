"""PyTorch c10d log lines → `torch` events (grammars/torch.lark; kinds in docs/events.md "source = torch").

A cheap text check decides whether a line is a c10d line at all; only those are parsed, first with the
`start` rule (known messages), then with `c10d_line` (any other line with a c10 log prefix). A claimed line
that fits neither becomes `unparsed`.
"""
from __future__ import annotations

import re
from typing import Any, NamedTuple

from lark import Transformer, v_args

from ..model import Line, Source
from .base import LineParser
from .grammars import parse_with

# torch OpType names (opTypeToString, ProcessGroup.cpp; every release 1.8 - 2.x) → the normalised op names of
# docs/events.md.
OP_NAMES = {
    "ALLREDUCE": "allreduce", "ALLREDUCE_COALESCED": "allreduce_coalesced", "_ALLREDUCE_SPARSE": "allreduce_sparse",
    "ALLGATHER": "allgather", "_ALLGATHER_BASE": "allgather", "ALLGATHER_COALESCED": "allgather_coalesced",
    "ALLGATHER_INTO_TENSOR_COALESCED": "allgather_coalesced", "REDUCE_SCATTER": "reducescatter",
    "_REDUCE_SCATTER_BASE": "reducescatter", "REDUCE_SCATTER_TENSOR_COALESCED": "reducescatter_coalesced",
    "ALLTOALL": "alltoall", "ALLTOALL_BASE": "alltoall", "BROADCAST": "broadcast", "REDUCE": "reduce",
    "GATHER": "gather", "SCATTER": "scatter", "SEND": "send", "RECV": "recv", "RECVANYSOURCE": "recv",
    "BARRIER": "barrier", "COALESCED": "coalesced", "UNKNOWN": "unknown",
}
# c10 ScalarType names as printed in fingerprints → torch dtype names.
DTYPE_NAMES = {
    "Float": "float32", "Double": "float64", "Half": "float16", "BFloat16": "bfloat16", "Long": "int64",
    "Int": "int32", "Short": "int16", "Char": "int8", "Byte": "uint8", "Bool": "bool",
    "ComplexFloat": "complex64", "ComplexDouble": "complex128", "ComplexHalf": "complex32",
    "Float8_e4m3fn": "float8_e4m3", "Float8_e5m2": "float8_e5m2", "Float8_e4m3fnuz": "float8_e4m3fnuz",
    "Float8_e5m2fnuz": "float8_e5m2fnuz", "UInt16": "uint16", "UInt32": "uint32", "UInt64": "uint64",
}
_PREFIX_PARTS = re.compile(r"\[?(?P<sev>[FEWIV])\S*(?: \S+)*? (?P<file>[^\s\]]+):(?P<line>\d+)\]$")
_DEVICE_IN_OPTIONS = re.compile(r"device=(\w+)")
_KEYWORDS = (
    "Watchdog caught", "watchdog thread terminated", "Detected mismatch between collectives",
    "monitoredBarrier", "Monitored Barrier", "inconsistent collective", "TORCH_NCCL_DESYNC_DEBUG",
    "Could not acquire GIL", "[TC][rank=",
)
_DESYNC_KEYWORDS = re.compile(r"Timeout at collective:|To our best knowledge|collective #|Snapshot of ranks"
                              r"|(?:started|finished) ranks:|\] (?:started|finished) ")


# Where a c10d message may start inside a line whose start is not one (an application logger's prefix, several
# messages pasted on one line, a progress bar): the c10 prefix, a PG tag, or a message's first words.
_ANCHOR = re.compile(
    r"\[[FEWIV]\d{3,4} \d\d:\d\d:|\[[FEWIV] [^\]\s]+\.(?:cpp|cc|hpp):\d+\]|\[PG |\[Rank \d|\[TC\]\[rank="
    r"|Watchdog caught|(?:Process group|NCCL) watchdog thread terminated|Detected mismatch between collectives"
    r"|failure detected by watchdog|Exception \(either an error or timeout\)|Timeout at NCCL work"
    r"|(?:Work timeout|NCCL error) is detected by watchdog"
    r"|Received a dump signal|ProcessGroupNCCL's watchdog got stuck|Rank \d+ failed to pass monitoredBarrier"
    r"|Heartbeat monitor timed out")
# Lines that begin something else (never the continuation of a hard-wrapped c10d message)
_NEW_LINE = re.compile(r"\[[FEWIV]\d{3,4} |[FEWIV]\d{3,4} \d\d:|Traceback \(|frame #\d|Exception raised from|\[rank\d")
MAX_WRAPPED = 10         # physical lines one hard-wrapped message may span


class Msg(NamedTuple):
    kind: str
    data: dict[str, Any]


def op_name(raw: str | None) -> str | None:
    """c10d's OpType name → the normalised op; None for any other word. c10d prints only the names of OP_NAMES
    (opTypeToString in ProcessGroup.cpp asserts on any other), so another word is a name a paste cut or garbled
    (a terminal's wrap, `OpType=_ALLGATHER_BA[451/1919]`): the op is then unknown, never a different op."""
    return None if raw is None else OP_NAMES.get(raw)


def dtype_name(raw: str) -> str:
    return DTYPE_NAMES.get(raw, raw.lower())


@v_args(inline=True)
class TorchTransformer(Transformer):
    """Parse tree → `Msg(kind, data)`; no I/O."""

    INT = int
    SIGNED_INT = int

    def start(self, *items):
        msg = items[-1]
        for item in items[:-1]:
            if isinstance(item, dict):
                msg.data.setdefault("severity", item.get("severity"))
        return msg

    def c10d_line(self, prefix: dict[str, Any], *rest: Any) -> Msg:
        pg: dict[str, Any] = {}
        text = ""
        for item in rest:
            if isinstance(item, dict):
                for key, value in item.items():
                    pg.setdefault(key, value)
            elif item is not None:
                text = str(item)
        return Msg("c10d_log", {**prefix, "message": text, **pg})

    def log_prefix(self, token):
        m = _PREFIX_PARTS.match(str(token))
        return {"severity": m["sev"], "src_file": m["file"], "src_line": int(m["line"])} if m else {}

    def exc_prefix(self, *token): return None

    # ---- prefixes
    def pg_guid_prefix(self, pg_id, uid, *rest):
        return {"pg_id": pg_id, "pg_uid": str(uid), "pg_name": rest[0] if len(rest) > 1 else None,
                "group_rank": rest[-1]}

    def pg_short_prefix(self, pg_id, *rest):
        return {"pg_id": pg_id, "pg_uid": None, "pg_name": rest[0] if len(rest) > 1 else None,
                "group_rank": rest[-1]}

    def rank_prefix(self, rank): return {"group_rank": rank}
    def pg_desc(self, token): return str(token).strip()

    def prefixed(self, prefix, msg):
        for key, value in prefix.items():
            if msg.data.get(key) is None:
                msg.data[key] = value
        return msg

    # ---- watchdog
    def work_nccl(self, *fields): return dict(fields)
    def seq_num(self, v): return ("seq", v)
    def numel_in(self, v): return ("numel_in", v)
    def numel_out(self, v): return ("numel_out", v)
    def timeout_ms(self, v): return ("timeout_ms", v)
    def tensor_shape(self, v): return ("shape", v)
    def op_type(self, v): return ("op_raw", str(v))

    def _timeout(self, work, elapsed, context, backend="nccl"):
        data = {"pg_id": None, "pg_name": None, "seq": work.get("seq"), "op": op_name(work.get("op_raw")),
                "op_raw": work.get("op_raw"), "numel_in": work.get("numel_in"),
                "numel_out": work.get("numel_out"), "timeout_ms": work.get("timeout_ms"),
                "elapsed_ms": elapsed, "backend": backend, "context": context}
        if "shape" in work:
            data["shape"] = work["shape"]
        return Msg("watchdog_timeout", data)

    def watchdog_caught(self, work, elapsed): return self._timeout(work, elapsed, "caught")
    def blocking_wait(self, work): return self._timeout(work, None, "blocking_wait")

    def nccl2_timeout(self):
        return self._timeout({}, None, "caught", backend="nccl2")

    def watchdog_terminated(self, _kw, *rest):
        msg = rest[-1]
        for prefix in rest[:-1]:
            msg = self.prefixed(prefix, msg)
        msg.data["context"] = "terminated"
        return msg

    def tc_line(self, rank, *rest):
        text = str(rest[-1])
        name = str(rest[0]) if len(rest) > 1 else None
        if "due to timeout" in text:
            msg = self._timeout({}, None, "abort", backend="nccl2")
        else:
            msg = Msg("c10d_log", {"severity": None, "src_file": None, "src_line": None, "message": text})
        msg.data.update(pg_name=name, group_rank=rank)
        return msg

    # ---- PG status
    def _status(self, trigger, seq, enqueued, completed):
        return Msg("work_status", {"pg_id": None, "pg_name": None, "seq": seq, "last_enqueued": enqueued,
                                   "last_started": None, "last_completed": completed,
                                   "last_enqueued_op": None, "trigger": trigger})

    def last_pair(self, enqueued, completed): return (enqueued, completed)

    def failure_detected(self, seq, enqueued, completed):
        return self._status("failure_detected", seq, enqueued, completed)

    def exception_detected(self, seq, pair): return self._status("failure_detected", seq, *pair)
    def timeout_at_work(self, seq, pair): return self._status("timeout", seq, *pair)
    def timeout_detected(self, seq, pair): return self._status("timeout", seq, *pair)
    # an NCCL error (not a timeout) on the work's communicator: its text is the watchdog's exception, logged later
    def error_detected(self, seq, pair): return self._status("nccl_error", seq, *pair)

    def dump_signal(self, origin, enqueued, completed, *_text):
        msg = self._status("dump_signal", None, enqueued, completed)
        msg.data["signal_from_rank"] = origin
        return msg

    def dump_origin(self, *rank): return rank[0] if rank else None
    def work_update(self, pair): return self._status("periodic", None, *pair)

    # ---- heartbeat monitor
    def heartbeat_stuck(self, seconds, *_text): return Msg("heartbeat", {"message": None, "timeout_s": seconds})

    def heartbeat_terminate(self, reason):
        return Msg("heartbeat", {"message": None, "timeout_s": None, "reason": str(reason).rstrip(".")})

    def gil_hang(self, ms):
        return Msg("heartbeat", {"message": None, "timeout_s": None, "reason": f"GIL not acquired within {ms} ms"})

    # ---- desync report
    def rank_list(self, *ranks): return [r for r in ranks if r is not None]
    def shape(self, *dims): return [d for d in dims if d is not None]

    def _desync(self, state, ranks=(), seq=None, op=None):
        return Msg("desync_report", {"message": None, "seq": seq, "op": op_name(op), "ranks": list(ranks),
                                     "state": state})

    def desync_timeout(self, ranks, op, seq): return self._desync("timeout", ranks, seq, str(op))
    def desync_never_joined(self, ranks, *_t): return self._desync("never_joined", ranks)
    def desync_header(self): return self._desync("header")
    def desync_not_finished(self, ranks, seq): return self._desync("joined_not_finished", ranks, seq)
    def desync_not_joined(self, ranks, seq, _next): return self._desync("finished_not_joined", ranks, seq)
    def desync_snapshot(self, seq, state): return self._desync(f"snapshot_{state}", (), seq)
    def desync_ranks_state(self, ranks, state, op): return self._desync(str(state), ranks, None, str(op))
    def desync_failed(self): return self._desync("report_failed")

    # ---- monitoredBarrier
    def int_list(self, *ranks): return list(ranks)

    # `[Rank 0]: ` / `Rank 0 timed out`: the rank that waited for the others (always 0) says it is the one reporting,
    # which places it among the ranks that left evidence when the console has no rank prefix of its own
    def barrier_failed(self, me, _word, ranks, ms, *_t):
        return Msg("monitored_barrier", {"missing_ranks": ranks, "timeout_ms": ms, "state": "failed",
                                         "reporter_rank": me})

    def barrier_timed_out(self, me, ms, *_t):
        return Msg("monitored_barrier", {"missing_ranks": [], "timeout_ms": ms, "state": "timed_out",
                                         "reporter_rank": me})

    def barrier_peer_error(self, _me, peer, *_t):
        # the rank whose send/recv failed is the one the message sends you to ("Please check rank 0 logs")
        return Msg("monitored_barrier", {"missing_ranks": [int(peer)], "timeout_ms": None, "state": "peer_error"})

    def barrier_wrapper(self, _text):
        return Msg("monitored_barrier", {"missing_ranks": [], "timeout_ms": None, "state": "wrapper_error"})

    # ---- DETAIL fingerprint
    def seq_part(self, seq): return ("seq", seq)
    def more_dtype(self, token): return token

    def tensor_part(self, shape, *rest):
        return ("tensors", {"shape": shape, "dtypes": [dtype_name(str(t)) for t in rest[:-1]], "devices": rest[-1]})

    def devices(self, *tokens):
        out = []
        for tok in tokens:
            m = _DEVICE_IN_OPTIONS.search(str(tok))
            out.append(m[1] if m else str(tok).lower())
        return out

    def fingerprint(self, *items: Any) -> dict[str, Any]:
        fp: dict[str, Any] = {"seq": None, "op": None, "shapes": None, "dtypes": None, "device_types": None}
        for item in items:
            if isinstance(item, tuple) and item[0] == "seq":
                fp["seq"] = item[1]
            elif isinstance(item, tuple):
                t = item[1]
                fp.update(shapes=[t["shape"]], dtypes=t["dtypes"], device_types=t["devices"])
            else:
                fp["op_raw"], fp["op"] = str(item), op_name(str(item))
        return fp

    def fingerprint_mismatch(self, me, mine, other, theirs, *diff):
        keys = ("seq", "op", "op_raw", "shapes", "dtypes", "device_types")   # op_raw: ALLGATHER vs _ALLGATHER_BASE
        data = {"rank": me, **{k: mine.get(k) for k in keys},
                "other_rank": other, **{f"other_{k}": theirs.get(k) for k in keys},
                "differences": _differences(str(diff[0])) if diff and diff[0] is not None else None}
        return Msg("fingerprint_mismatch", data)

    def inconsistent_fingerprint(self, me, mine, *_text):
        empty = dict.fromkeys(("seq", "op", "shapes", "dtypes", "device_types"))
        return self.fingerprint_mismatch(me, mine, None, empty)


_DIFF_HEAD = re.compile(r"Collectives differ in the following aspects:\s*")


def _differences(text: str) -> str | None:
    """What compute_collective_diff says differs (2.1+), without its head words; None when the paste cut the
    line inside them."""
    m = _DIFF_HEAD.match(text)
    return " ".join(text[m.end():].split()) or None if m else None


_TRANSFORMER = TorchTransformer()


def parse_torch_message(text: str) -> Msg | None:
    """A c10d line (wrappers stripped) → Msg, or None when the grammar does not know it."""
    for start in ("start", "c10d_line") if _KNOWN_WORDS.search(text) else ("c10d_line",):
        msg = parse_with("torch", _TRANSFORMER, text, start)
        if msg is not None:
            return msg
    return None


_OLD_PREFIX = re.compile(r"\[[FEWIV] [^\]\s]+\.(?:cpp|cc|hpp|h|c|cu):\d+\]")   # ≤2.1 `[E File.cpp:475]`, not
                                                                                 # Jupyter's `[I 20:09:38.772 NotebookApp]`


def looks_like_torch(text: str) -> bool:
    """Cheap check before any parsing: is this plausibly a c10d line?"""
    if not text:
        return False
    first = text[0]
    if first == "[":
        if text[1:2] in "FEWIV" and "]" in text and (text[2:3].isdigit() or _OLD_PREFIX.match(text)):
            return True
        if text.startswith(("[PG ", "[Rank ", "[TC]")):
            return True
    elif first in "FEWIV" and text[1:4].isdigit() and any(s in text[:200] for s in (".cpp:", ".cc:", ".hpp:")):
        return True
    elif first in "\t -#" and _DESYNC_KEYWORDS.search(text):
        return True
    # fragments of words only c10d messages hold ("atchdog": Watchdog/watchdog, "ollective": fingerprints,
    # "onitored": monitoredBarrier/Monitored Barrier); plain `in` tests, since this runs on every console line
    if ("atchdog" in text or "ollective" in text or "onitored" in text or "DESYNC" in text
            or "acquire GIL" in text or "[TC]" in text):
        return any(k in text for k in _KEYWORDS)
    return False


class TorchLogParser(LineParser):
    source = "torch"

    def __init__(self, src: Source):
        super().__init__(src)
        self._last_rank: int | None = None   # wrapper rank of the last c10d line (desync lines carry none)
        self._wrapped: list[Line] = []       # the physical lines of a message that may be hard-wrapped
        self._provisional: Msg | None = None  # what the first of them gives alone (a generic c10d line)
        self._ungrouped: dict[tuple, Any] = {}  # watchdog timeouts whose line names no process group, by rank and seq

    def feed(self, line: Line) -> bool:
        if self._wrapped:
            if self._continues(line):
                return True
            self._give_up_wrapped()
        text = line.text
        if not looks_like_torch(text):
            return False
        msg = _known_message(text) or parse_torch_message(text.strip())
        if msg is None or msg.kind == "c10d_log":
            # maybe the head of a message hard-wrapped over the next lines: wait for them (busy)
            self._wrapped, self._provisional, self.busy = [line], msg, True
            return True
        self._take(line, msg, text)
        return True

    def _continues(self, line: Line) -> bool:
        """A line that may carry the rest of a hard-wrapped message: join it on; True while it is claimed."""
        text = line.text
        if line.raw is not None or not text or _NEW_LINE.match(text):
            return False
        if text[:1] in "\t -#" and looks_like_torch(text) and _known_message(text) is not None:
            return False                         # a message of its own (the desync report's lines under its head)
        self._wrapped.append(line)
        pieces = [w.text for w in self._wrapped]
        joined = "".join(pieces)                 # a hard wrap at a fixed width splits words ("opera|tion")
        msg = _known_message(joined)
        if msg is None:                          # a soft wrap loses the space at the break ("detected|by")
            joined = " ".join(p.rstrip() for p in pieces)
            msg = _known_message(joined)
        if msg is not None:
            first = self._wrapped[0]
            self._wrapped, self._provisional, self.busy = [], None, False
            self._take(first, msg, joined, last=line.no)
        elif len(self._wrapped) >= MAX_WRAPPED:
            self._give_up_wrapped()
        return True

    def _give_up_wrapped(self) -> None:
        first, msg = self._wrapped[0], self._provisional
        self._wrapped, self._provisional, self.busy = [], None, False
        if msg is None:
            self.unparsed(first)
        else:
            self._take(first, msg, first.text)

    def _take(self, line: Line, msg: Msg, text: str, last: int | None = None) -> None:
        ev = self.emit(msg.kind, line, **msg.data)
        if last is not None and last > line.no:
            ev.data["end_line"] = last           # a message hard-wrapped over several physical lines
        if ev.data.get("message", "") is None:
            ev.data["message"] = text.strip()
        if line.rank is not None:
            self._last_rank = line.rank
        elif msg.kind == "watchdog_timeout" and ev.rank is None:
            ev.rank = _default_pg_rank(ev.data)
        elif msg.kind == "monitored_barrier" and ev.rank is None and isinstance(ev.data.get("reporter_rank"), int):
            ev.rank = ev.data["reporter_rank"]   # in the numbering of the ranks it names (the barrier's group)
        elif msg.kind == "desync_report" and text[:1] in "\t ":
            ev.rank = self._last_rank         # a continuation line of the same LOG message
        if msg.kind == "watchdog_timeout" and not any(ev.data.get(k) is not None for k in _GROUP_KEYS):
            self._ungrouped[_work_key(line, ev)] = ev
            if len(self._ungrouped) > _MAX_UNGROUPED:
                del self._ungrouped[next(iter(self._ungrouped))]
        elif msg.kind == "work_status" and ev.data.get("trigger") in ("failure_detected", "timeout"):
            self._group_timeout(line, ev)

    def _group_timeout(self, line: Line, status) -> None:
        """checkTimeout's line (`[Rank N] Watchdog caught ... WorkNCCL(SeqNum=S, ...)`) names the rank inside its
        group but not the group; the watchdog then logs the same work with its group's prefix (`[PG ID 3 PG GUID
        30(desc) Rank N] Exception ... detected by watchdog at work: S`, 2.2 - 2.5; `Work timeout is detected by
        watchdog at work: S`, the 2.6.0.dev nightlies; `failure detected by watchdog at work sequence id: S`, 2.6+;
        ProcessGroupNCCL::watchdogHandler). That names the timeout's group: without it every
        group's sequence numbers would be compared as the default group's."""
        timeout = self._ungrouped.pop(_work_key(line, status), None)
        if timeout is None or all(status.data.get(k) is None for k in _GROUP_KEYS):
            return
        for key in _GROUP_KEYS:
            if status.data.get(key) is not None:
                timeout.data[key] = status.data[key]
        if line.rank is None and _default_pg_rank(timeout.data) is None:
            timeout.rank = None               # read as the default group's rank; the group says it is not

    def finish(self) -> None:
        if self._wrapped:
            self._give_up_wrapped()


_GROUP_KEYS = ("pg_id", "pg_uid", "pg_name")
_MAX_UNGROUPED = 4096


def _work_key(line: Line, ev) -> tuple:
    """One rank's one work: its wrapper rank, the work's sequence number and its rank inside the group."""
    return line.rank, ev.data.get("seq"), ev.data.get("group_rank")


def _default_pg_rank(data: dict[str, Any]) -> int | None:
    """The global rank a watchdog record's own tag names when no `[rankN]:` prefix does: c10d's tag (`[Rank N]`,
    `[PG 0 Rank N]`, `[PG ID 0 PG GUID 0(default_pg) Rank N]`) names the rank inside its process group, which is the
    global rank in the default group only (a tag without a group, as torch < 2.2 prints it, is read as that group,
    as traceback.rank_in_message reads it)."""
    rank = data.get("group_rank")
    if rank is None or str(data.get("pg_id") or 0) != "0" or str(data.get("pg_uid") or 0) != "0":
        return None
    return int(rank)


def _known_message(text: str) -> Msg | None:
    """A known c10d message (not the generic `c10d_line`) from the line's start or from where one starts inside."""
    if _KNOWN_WORDS.search(text) is None:       # (most c10d lines: a warning the grammar's `start` does not know)
        return None
    stripped = text.strip()
    msg = parse_with("torch", _TRANSFORMER, stripped, "start")
    return msg if msg is not None else _message_inside(stripped)


# Words every message of grammars/torch.lark's `start` holds (one alternative each, as the grammar spells them; a
# literal's inner spaces are its own, so it stands in the line as written): a line without any is no known message,
# and Lark is spared it (a c10d warning, a compiler's log line: ~150 us a parse). tests/sources/test_torch_grammar.py
# checks every `start` example against it.
_KNOWN_WORDS = re.compile(
    r"Watchdog caught collective operation timeout:|timed out in blocking wait\.|watchdog thread terminated with "
    r"exception:|failure detected by watchdog at work sequence id:|Exception \(either an error or timeout\) detected"
    r"|Timeout at NCCL work:|Work timeout is detected by watchdog|NCCL error is detected by watchdog|Received a dump "
    r"signal due to a collective timeout|NCCL Work update periodically:|ProcessGroupNCCL's watchdog got stuck for"
    r"|Terminating the process after attempting to dump debug info|Could not acquire GIL within|\[TC\]\[rank="
    r"|Timeout at collective:|To our best knowledge|collective #|Snapshot of ranks' latest states:|started|finished"
    r"|Failed to retrieve TORCH_NCCL_DESYNC_DEBUG report\.|monitoredBarrier|Monitored Barrier encountered error"
    r"|is running (?:inconsistent )?collective:")


def _message_inside(text: str) -> Msg | None:
    """A known c10d message that starts somewhere inside the line (never at 0: the caller tried that)."""
    for m in _ANCHOR.finditer(text, 1):
        msg = parse_with("torch", _TRANSFORMER, text[m.start():].strip(), "start")
        if msg is not None:
            return msg
    return None
