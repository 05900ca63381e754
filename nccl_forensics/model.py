"""Types shared by every stage: discover → parse → events → timelines → detectors → verdict → render.

This module imports no other stage. The event kinds and their fields are listed in docs/events.md,
which is the contract between the parsers and everything downstream.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass, field, fields
from operator import attrgetter
from typing import Any, Iterable, Iterator, NamedTuple, Sequence


class SourceKind(str, enum.Enum):
    """What a file holds, sniffed from its first kilobytes (and its name as a hint)."""

    NCCL = "nccl"                      # an NCCL_DEBUG_FILE or a stdout full of NCCL INFO lines
    CONSOLE = "console"                # mixed console output: torchrun, tracebacks, c10d lines, NCCL lines
    PYSPY = "pyspy"                    # py-spy dump text
    PYSPY_JSON = "pyspy_json"          # py-spy dump --json
    FLIGHT_RECORDER = "flight_recorder"  # pickle or JSON flight-recorder dump
    ERROR_JSON = "error_json"          # torchelastic error.json
    KERNEL = "kernel"                  # dmesg / journalctl -k
    SLURM = "slurm"                    # slurm job output / sacct
    DEBUG_SERVER = "debug_server"      # torch's debug server dump_dir: `=== Rank i: addr ===` sections
    NCCL_INSPECTOR = "nccl_inspector"  # NCCL Inspector plugin output: one JSON record per collective
    SUMMARY = "summary"                # an `ncclf summarize` file: another node's digests (pipeline/summary.py)
    UNKNOWN = "unknown"                # not evidence; skipped


class Line(NamedTuple):
    """One logical line after decoding and wrapper stripping.

    `rank`/`host` are what a wrapper prefix said (`[rank3]:`, `[1,3]<stdout>:`, `host: `), else None.
    `local_rank` is set by `[defaultN]:` (torchrun --tee), which names the *local* rank.
    """

    no: int                  # 1-based line number in the file
    text: str                # the line without wrapper prefixes, CR, ANSI colours, trailing newline
    rank: int | None = None
    host: str | None = None
    local_rank: int | None = None
    raw: str | None = None   # the original line when a wrapper was stripped, else None


def pickled_by_fields(cls):
    """Pickle (and copy) a slots dataclass as a call of the class with its fields in order. The default for
    slots dataclasses goes through __getstate__/__setstate__ written in Python, which call dataclasses.fields()
    on every object: about 4x the time, both ways, and twice the bytes. A worker sends thousands of events to
    the parent, which unpickles them all in one process."""
    state = attrgetter(*(f.name for f in fields(cls)))

    def __reduce__(self):
        return cls, state(self)
    cls.__reduce__ = __reduce__
    return cls


@pickled_by_fields
@dataclass(slots=True)
class Event:
    """One structured fact read from one line (or block) of evidence.

    Common fields are attributes; kind-specific fields live in `data` (see docs/events.md).
    `line` is the 1-based line number that best proves the event (for a block, its key line).
    """

    kind: str
    source: str
    file: str
    line: int
    rank: int | None = None
    host: str | None = None
    pid: int | None = None
    tid: int | None = None
    device: int | None = None
    comm: str | None = None
    time: float | None = None       # epoch seconds, when the line carries a full timestamp
    text: str = ""                  # the raw evidence line (quoted in findings)
    data: dict[str, Any] = field(default_factory=dict)
    local_rank: int | None = None   # what a `[defaultN]:` wrapper said (torchrun --tee names local ranks)

    def to_dict(self) -> dict[str, Any]:
        out = {
            "kind": self.kind, "source": self.source, "file": self.file, "line": self.line,
            "rank": self.rank, "host": self.host, "pid": self.pid, "tid": self.tid,
            "device": self.device, "comm": self.comm, "time": self.time,
        }
        for key, value in self.data.items():
            out.setdefault(key, value)
        out["text"] = self.text
        return out


class CollContext:
    """What the repeating part of a plain COLL line says (process, op, codes, comm): shared by its lines.

    `data` is the `coll` event's data with the per-line fields (opcount, count, sendbuff, recvbuff) blank.
    Hashed by identity, so a run's distinct contexts are `set(run.contexts)`.
    """

    __slots__ = ("data", "rank", "host", "pid", "tid", "device", "comm")

    def __init__(self, data: dict[str, Any], rank: int | None, host: str | None, pid: int | None,
                 tid: int | None, device: int | None, comm: str | None):
        self.data, self.rank, self.host, self.pid = data, rank, host, pid
        self.tid, self.device, self.comm = tid, device, comm


def split_block(block: str) -> list[str]:
    """The lines of a block of text (without their newlines; a final newline ends the last line)."""
    lines = block.split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


class BlockLines(Sequence[str]):
    """The lines of a block of text, split each time they are read: a run of a whole block keeps the block
    (already in memory) instead of a string per line, which halves the memory a big log's runs hold."""

    __slots__ = ("block",)

    def __init__(self, block: str):
        self.block = block

    def _lines(self) -> list[str]:
        return split_block(self.block)

    def __len__(self) -> int:
        return len(self._lines())

    def __iter__(self) -> Iterator[str]:
        return iter(self._lines())

    def __getitem__(self, index):
        return self._lines()[index]


@dataclass(slots=True)
class CollRun:
    """Consecutive plain NCCL COLL lines of one file, decoded into columns: the bulk form of `coll` events.

    Big logs are mostly COLL lines; holding them as columns (one list per field, the repeating fields shared
    through `contexts`) costs a fraction of an Event per line. Every field is decoded and every rank known;
    `events()` gives the very Events the line-by-line parser makes (tests/sources/test_nccl_differential.py).
    """

    file: str
    lines: Sequence[int]                # a list, or the range of a whole block's line numbers
    contexts: list[CollContext]
    times: list[float | None]
    opcounts: list[int]
    counts: list[int]
    sendbuffs: list[str]
    recvbuffs: list[str]
    texts: Sequence[str]                # a list, or the BlockLines of the block the run is

    def __len__(self) -> int:
        return len(self.lines)

    def events(self) -> Iterator[Event]:
        file = self.file
        for no, ctx, tm, opc, cnt, sb, rb, text in zip(self.lines, self.contexts, self.times, self.opcounts,
                                                         self.counts, self.sendbuffs, self.recvbuffs, self.texts, strict=True):
            data = ctx.data.copy()
            data["opcount"], data["count"], data["sendbuff"], data["recvbuff"] = opc, cnt, sb, rb
            yield Event("coll", "nccl", file, no, ctx.rank, ctx.host, ctx.pid, ctx.tid, ctx.device, ctx.comm, tm,
                        text, data)


@pickled_by_fields
@dataclass(slots=True)
class Source:
    """One input file and what discovery learnt about it before parsing."""

    path: str                        # as given / found (used in evidence citations)
    kind: SourceKind
    rank: int | None = None          # from the file name or layout, when known
    local_rank: int | None = None    # torchrun --log-dir <local_rank>/ folder
    host: str | None = None
    pid: int | None = None
    size: int = 0
    compressed: bool = False
    reason: str = ""                 # why this kind / why skipped
    error: str | None = None         # the file exists but could not be read (an evidence gap, not silence)
    window: tuple[int, int] | None = None   # (head, tail) bytes: read only those of a large file (lines.py)
    tail_entries: int | None = None         # a flight-recorder dump: decode only its last this many entries


@pickled_by_fields
@dataclass(slots=True)
class SourceResult:
    """What parsing one source produced: its events plus bookkeeping (small and picklable)."""

    source: Source
    events: list[Event]
    lines: int = 0
    unparsed: int = 0
    error: str | None = None         # a one-line reason the file could not be (fully) read; it names the
                                     # file, as every BadInput does, so it is printed as it is
    head_lines: int = 0              # a windowed file: the lines of its head; those up to its tail were not read


class Evidence(NamedTuple):
    """A `file:line` citation and the quoted line, like a linter diagnostic."""

    file: str
    line: int
    text: str

    def to_dict(self) -> dict[str, Any]:
        return {"file": self.file, "line": self.line, "text": self.text}


class Confidence(str, enum.Enum):
    HIGH = "high"
    MEDIUM = "medium"
    LOW = "low"


@dataclass(slots=True)
class Finding:
    """One detector hit."""

    id: str                          # stable code, e.g. "C102"
    name: str                        # kebab name, e.g. "dtype-mismatch"
    cls: str                         # verdict class, e.g. "dtype_mismatch"
    ranks: list[int]
    message: str
    confidence: Confidence = Confidence.MEDIUM
    evidence: list[Evidence] = field(default_factory=list)
    fix: str = ""
    group: str | None = None
    seq: int | None = None
    cause: bool = True               # False for cascades/consequences
    group_desc: str | None = None    # the group's pg_desc (EXPERT_MODEL_PARALLEL_GROUP, default_pg, ...), where known
    groups: list[dict] = field(default_factory=list)   # the groups that explain the finding, most telling first
    # (each a wavefront.GroupFront.to_dict(): group, desc, seq, op, members, arrived, missing, waiting, role)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id, "name": self.name, "class": self.cls, "ranks": sorted(self.ranks),
            "message": self.message, "confidence": self.confidence.value,
            "evidence": [e.to_dict() for e in self.evidence], "fix": self.fix,
            "group": self.group, "seq": self.seq, "cause": self.cause, "group_desc": self.group_desc,
            "groups": self.groups,
        }


def rank_span(ranks: Iterable[int], sep: str = ", ") -> str:
    """[0, 1, 2, 5] → "0-2, 5": ranks (sorted, each once) as runs."""
    nums = sorted(set(ranks))
    parts, i = [], 0
    while i < len(nums):
        j = i
        while j + 1 < len(nums) and nums[j + 1] == nums[j] + 1:
            j += 1
        parts.append(str(nums[i]) if i == j else f"{nums[i]}-{nums[j]}")
        i = j + 1
    return sep.join(parts)


def clip(text: str, limit: int) -> str:
    """`text` in at most `limit` characters for a sentence a user reads: a longer one ends at a word ("… for
    details" → "… for…"), never mid-word, and shows it was cut."""
    if len(text) <= limit:
        return text
    head = text[: limit - 1]
    space = head.rfind(" ")
    if space > limit // 2:
        head = head[:space]
    return head.rstrip(" ,;:.([{") + "…"


SHORT_LIST = 8      # ranks a message lists one by one; a longer list is written as runs, and its runs capped


def ranks_text(ranks: Iterable[int], runs: bool = False) -> str:
    """Ranks for a message that stays readable on a console of thousands of ranks: up to SHORT_LIST listed one by
    one ("0, 4, 9"), more as runs ("0-299, 301-511"), and past SHORT_LIST runs the first ones and the count
    ("0, 2, 4, 6, 8, 10, 12, 14, … (256 ranks)"). `runs`: a short list as runs too ("0-1, 3"). --format json keeps
    every rank."""
    ranks = sorted(set(ranks))
    if len(ranks) <= SHORT_LIST and not runs:
        return ", ".join(map(str, ranks))
    spans = rank_span(ranks).split(", ")
    if len(spans) <= SHORT_LIST:
        return ", ".join(spans)
    return ", ".join(spans[:SHORT_LIST]) + f", … ({len(ranks)} ranks)"


def ranks_phrase(ranks: Iterable[int]) -> str:
    """`rank 3`, `ranks 0-7, 9`: the word and the ranks as runs, capped as ranks_text caps them."""
    ranks = sorted(set(ranks))
    return f"rank{'s' if len(ranks) > 1 else ''} {ranks_text(ranks, runs=True)}"


# What a line means for the job, set by the parser from the message catalogue as `Event.data["meaning"]`:
# "failure" (this rank or the job failed here), "consequence" (a failure elsewhere reached this rank),
# "benign" (looks alarming, is not), "healthy" (positive evidence that a rank finished or progressed).
MEANINGS = ("failure", "consequence", "benign", "healthy")
# Kinds that show a failure when the parser set no meaning: a health claim is refused while one is present.
FAILURE_KINDS = frozenset({
    "traceback", "oom", "oom_kill", "oom_invoked", "slurm_oom", "k8s_oomkilled", "gloo_error", "dist_backend_error",
    "cuda_error", "nccl_error", "error_trace", "faulthandler", "watchdog_timeout", "heartbeat", "desync_report",
    "monitored_barrier", "fingerprint_mismatch", "child_failed", "worker_failed", "error_json", "sigterm_sent",
    "hung_task", "wait_timeout", "slurm_cancelled", "comm_abort", "frtrace_report", "cpp_terminate", "signal_report",
    "fr_work_failed",
})


def shows_failure(ev: Event) -> bool:
    """Does this event show that some rank failed or hung (its own failure or a consequence of another's)?"""
    meaning = ev.data.get("meaning")
    if meaning is not None:
        return meaning in ("failure", "consequence")
    return ev.kind in FAILURE_KINDS


def shows_health(ev: Event) -> bool:
    """Is this event positive evidence that its rank (or the job) finished or progressed normally?"""
    return ev.data.get("meaning") == "healthy"
