"""The message catalogue applied to every line, after the format parsers: classify once, at parse time.

`MessageParser` sits last in a text source's parser chain. It claims no line; `offer` (sources/__init__.py) hands
it each line with the events the chain made of it. For every catalogue message in the line (behind any prefix,
glued to others, cut after its decisive words, or wrapped onto the next line by a terminal) it either annotates the
event a parser already made of it (`meaning`, `implies`, `message_id` and the fields the parser left empty) or makes
that event itself. A line a parser could only call `unparsed` is replaced by what the catalogue read in it.

Events found on a line a parser took but has not answered yet (a traceback or torchrun summary block still open, an
NCCL line held until its rank is known) are held to the end of the input, and dropped where the parser's own events
say the same (kind, nearby line): those events take the entry's meaning instead. The line dispatcher and the block
scanner (nccl_fast.py) so give the same events.
The lines of a torchrun Root Cause table pasted without its header (`rank : R (local_rank: K)`, `exitcode : C
(pid: P)`, `traceback : Signal N (SIG) received by PID P`) become one `child_failed` event.
"""
from __future__ import annotations

import re
from collections import Counter
from typing import Any

from ..model import Event, Line, Source
from . import catalogue
from .base import LineParser, as_exit_barriers_wait
from .torchrun import failure_epoch

# The parser family an event kind belongs to (docs/events.md); kinds no parser makes are the catalogue's own.
_SOURCE = {
    **dict.fromkeys(("watchdog_timeout", "work_status", "heartbeat", "monitored_barrier", "fingerprint_mismatch"),
                    "torch"),
    **dict.fromkeys(("child_failed", "sigterm_sent", "worker_failed", "agent_log"), "torchrun"),
    **dict.fromkeys(("oom_kill", "oom_invoked", "hung_task"), "kernel"),
    **dict.fromkeys(("slurm_cancelled", "slurm_oom", "slurm_exit"), "slurm"),
    **dict.fromkeys(("warn", "error_trace"), "nccl"),
    **dict.fromkeys(("traceback", "oom", "gloo_error", "cuda_error", "nccl_error", "dist_backend_error"), "traceback"),
}
_TABLE = frozenset({"torchrun.rc_time", "torchrun.rc_rank", "torchrun.rc_exitcode", "torchrun.signal_received"})
_TABLE_FIRST_ROW = "torchrun.rc_time"     # an entry's first row: it begins the next entry
_TABLE_ROW_READ_PAST = re.compile(r"\s*(?:error_file|host)\s*:")   # an entry's rows that name no more of it
WRAP_MIN = 60          # a line this long may have been wrapped by a terminal: try it joined with the next
_NEAR = 40             # lines: a parser's event this close to a held one says the same thing
MAX_HELD = 4096        # held events kept for the parsers' own (they are released at the end of the input)
# Open MPI's "first process to exit non-zero" report names it on the lines after its head (ORTE's
# help-orterun.txt `non-zero-exit`: `Process name: [[jobid,step],vpid]` then `Exit code: N`; vpid is the rank;
# PRRTE's help-prun.txt `[nspace,rank]`). Its memory-limit report names its process the same way: the rank is the
# head's, and the head keeps its own meaning.
_FIRST_EXIT = "ompi.first_nonzero"
_NAMED_BELOW = frozenset({_FIRST_EXIT, "ompi.proc_mem_exceeded"})
_FIRST_EXIT_LINES = 6
_PROCESS_NAME = re.compile(r"^\s*Process name:\s*\[(?:\[\d+,\d+\]|[^\s,\]]+),(\d+)\]")
_EXIT_CODE = re.compile(r"^\s*Exit code:\s*(-?\d+)")
# Horovod's stall report lists the missing ranks on the lines after its head: `Missing ranks:` (0.20+; `Stalled
# ranks:` 0.16 - 0.19), then `R: [tensor, ...]` per rank (`R!:` past the shutdown time)
_STALL = "horovod.stall"
_STALL_HEAD = re.compile(r"^\s*(?:Missing|Stalled) ranks:\s*$")
_STALL_RANK = re.compile(r"^\s*(\d+)!?: \[")
# its head message ends `... which will cause deadlock.` (stall_inspector.cc): a head cut before that word was wrapped
# onto the next lines (a terminal, a paste), which come before the list
_STALL_HEAD_END = "deadlock"
_STALL_WRAPPED_LINES = 3
# accelerate's debug-mode shape check lists every process's shape below its head (`Operation: `op``, `Input shapes:`,
# then `  - Process N: [..]`): the processes whose shape differs from the one most of them hold are the odd ones
_SHAPES = "accelerate.shape_mismatch"
# Hydra's bad-termination block names its process (`=   RANK r PID p RUNNING AT host`) on the line before the one that
# says how it ended (`=   EXIT CODE: c`, `=   KILLED BY SIGNAL: s (name)`): that end is the named rank's
_HYDRA_WHO = "hydra.rank_running_at"
_HYDRA_END = frozenset({"hydra.exit_code", "hydra.killed_by_signal"})
_HYDRA_LINES = 2
# torch elastic's exit barrier logs its error with the store's below it (log.exception): the store wait that ran out
# there, within the traceback's lines, is the barrier's wait (catalogue torchrun.exit_barrier_error; where a paste kept
# the traceback only, its frame in `_exit_barrier`: torchrun.exit_barrier_frame), not a rank's
_EXIT_BARRIER = frozenset({"torchrun.exit_barrier_error", "torchrun.exit_barrier_frame"})
_EXIT_BARRIER_LINES = 30
# c10d's socket warning that the store's wait ran out (socket.cpp waitForInput) comes just before the barrier's error
_WAIT_ABOVE_BARRIER_LINES = 3
# XLA's coordination service lists the tasks a report is about one task name a line below it, a label (`srun -l`'s
# `0: `) perhaps before each: the tasks a timed-out barrier still waited for (`Timed out task names:` to 2023, `# of
# tasks that reached the barrier: n/m`, `The first task at the barrier: <task>. Some timed out task names:` after:
# those lines come between), and (2025+) those that stopped heartbeating (`The following tasks are unhealthy (stopped
# sending heartbeats):`, then `The tasks have crashed. ...`). A JAX task is a process (_JAX_TASK): the ranks at fault.
# Inside an escaped gRPC status (`"grpc_message":"... task names:\\n/job:...\\n"`) the list stays on the one line.
_XLA_BARRIER = "xla.coord_barrier_timeout"
_TASK_LISTS = frozenset({_XLA_BARRIER, "xla.coord_tasks_unhealthy"})
_XLA_BARRIER_HEAD = re.compile(r"^\s*(?:# of tasks that reached the barrier: \d+/\d+\.?|The first task at the barrier: "
                               r"\S+ Some timed out task names:)?\s*$")
_XLA_TASK = re.compile(r"^(?:\S+: )?\s*(/job:[\w-]+/)replica:\d+/task:(\d+)\s*$")
_XLA_TASKS_ESCAPED = re.compile(r"timed out task names:((?:\\n/job:[^/\s\\]+/replica:\d+/task:\d+)+)", re.I)
_XLA_ESCAPED_TASK = re.compile(r"/job:jax_worker/replica:\d+/task:(\d+)")
_SHAPES_HEAD = re.compile(r"^\s*(?:Operation: `[^`]*`|Input shapes:)?\s*$")
_SHAPES_PROCESS = re.compile(r"^\s*-\s*Process (\d+): (\S.*?)\s*$")
# XLA's rendezvous warnings are held until the same thread says it got unstuck (then they were no hang) or the end
_RENDEZVOUS_WAITS = frozenset({"xla.rendezvous_not_arrived", "xla.rendezvous_leader_stuck"})
_RENDEZVOUS_UNSTUCK = "xla.rendezvous_unstuck"
# the waiting thread: 2025+'s `[id=N] `, else glog's thread id column (`E1127 10:01:22.440193  140377 rendezvous.cc`)
_RENDEZVOUS_THREAD = re.compile(r"\[id=(\d+)\] This thread|[EWIF]\d{4} [\d:.]+\s+(\d+) \S*rendezvous\.cc:")


class MessageParser(LineParser):
    source = "catalogue"

    def __init__(self, src: Source) -> None:
        super().__init__(src)
        self._held: list[Event] = []        # found inside another parser's open block
        self._table: Event | None = None    # a headerless Root Cause table being read
        self._prev: Line | None = None      # the previous line, when it may continue on this one
        self._prev_ids: set[str] | None = set()   # the messages the catalogue found in it (on the line itself;
                                                  # None: not read yet, `skip_held_info_line`)
        self._read: list[int] = []          # the last lines the catalogue read (their `unparsed` events are void)
        self._first_exit: Event | None = None  # Open MPI's first-to-exit report, its process named on lines below
        self._stall: Event | None = None       # Horovod's stall report, its missing ranks listed on lines below
        self._stall_head_ended = True          # its head message read to its end (else wrapped onto the next lines)
        self._shapes: Event | None = None      # accelerate's shape check, each process's shape listed on lines below
        self._tasks: Event | None = None       # an XLA report whose tasks are listed on lines below (_TASK_LISTS)
        self._hydra: Event | None = None       # Hydra's bad-termination block: the process it names
        self._exit_barrier: Event | None = None  # torch elastic's exit-barrier error, its store error below it
        self._last_wait: Event | None = None     # the last store wait that ran out (c10d's socket warning above it)
        self._waits: list[Event] = []          # XLA rendezvous warnings not yet settled (see _settle_waits)

    def feed(self, line: Line) -> bool:
        return False

    def classify(self, line: Line, produced: list[Event], busy: bool, claimed: bool = False) -> list[Event]:
        """The events of one line, classified, plus what the catalogue found that no parser made."""
        text = line.text
        if self._first_exit is not None and self._name_first_exit(line):
            return produced
        if self._stall is not None and self._name_stalled(line):
            return produced
        if self._shapes is not None and self._read_shapes(line):
            return produced
        if self._tasks is not None and self._read_listed_tasks(line):
            return produced
        if produced and " NCCL INFO " in text and not self._held and self._table is None \
                and all(ev.kind != "unparsed" for ev in produced):
            self._prev = None
            return produced            # an NCCL INFO line its parser read (the bulk of a log): nothing to add
        hits = own = catalogue.match(text) if text else []     # one scan: match is [] where might_match is False
        if text and self._prev is not None and self._prev.no == line.no - 1:
            hits = self._wrapped(text, hits)
        # the physical line's length decides (a terminal wraps what it prints, a prefix the wrappers took off too)
        self._prev = line if len(line.raw or text) >= WRAP_MIN else None
        if self._prev is not None:
            self._prev_ids = {h.message.id for h in own}
        out = produced
        if self._held and produced:
            produced = self._settle(produced)
        out = produced
        if hits:
            mine = any(ev.line == line.no for ev in produced)
            out = self._apply(line, hits, produced, busy or (claimed and not mine), claimed)
        elif not busy and text and not produced and not (claimed and " NCCL INFO " in text) \
                and catalogue.LOOKS_LIKE_ERROR.search(text) and not catalogue.NOT_A_MESSAGE.search(text):
            # (an NCCL INFO line its parser holds until the rank is known, `comm … - Abort COMPLETE`, is read)
            out = [Event(
                "unknown_message", "catalogue", self.file, line.no, line.rank, line.host, text=line.raw or text,
                data={"message": text.strip()[:300]}, local_rank=line.local_rank)]
        if not hits and self._table is not None and text.strip() and not _TABLE_ROW_READ_PAST.match(text):
            out = out + self._end_table()
        self._first_exit = next((ev for ev in out if ev.data.get("message_id") in _NAMED_BELOW), self._first_exit)
        stall = next((ev for ev in out if ev.data.get("message_id") == _STALL), None)
        if stall is not None:
            self._stall, self._stall_head_ended = stall, _STALL_HEAD_END in (stall.text or "")
        if self._hydra is not None or hits and any(h.message.id == _HYDRA_WHO for h in hits):
            self._name_hydra_end(line, out)
        if hits:
            self._last_wait = next((ev for ev in out if ev.data.get("implies") == "missing_rank"), self._last_wait)
        if self._exit_barrier is not None or hits and any(h.message.id in _EXIT_BARRIER for h in hits):
            self._read_exit_barrier(line, out)
        if hits and any(h.message.id == _SHAPES for h in hits):
            self._shapes = next((ev for ev in (*out, *reversed(self._held)) if ev.line == line.no
                                 and ev.data.get("message_id") == _SHAPES), self._shapes)
        if hits and any(h.message.id in _TASK_LISTS for h in hits):
            self._tasks = self._listed_tasks_inline(line, out)
        if self._read and any(ev.kind == "unparsed" for ev in out):
            out = [ev for ev in out if not (ev.kind == "unparsed" and ev.line in self._read)]
        if hits and any(h.message.family == "xla" for h in hits):
            out = self._settle_waits(out, line.no)
        if len(self._held) > MAX_HELD:            # bounded: the oldest go out as the catalogue read them
            out = out + self._held[:-MAX_HELD]
            del self._held[:-MAX_HELD]
        return out

    def passes_info_lines(self) -> bool:
        """Would `classify` now return a parsed NCCL INFO line's events as they are (the early return below)?"""
        return self._first_exit is None and self._stall is None and self._shapes is None and self._tasks is None \
            and not self._held and self._table is None

    def skip_info_line(self) -> None:
        """What `classify` leaves of a parsed NCCL INFO line that passes (`passes_info_lines`) when its events
        are not wanted (nccl_fast.BlockScanner._unread_topology)."""
        self._prev = None

    def skip_held_info_line(self, line: Line, holds_unparsed: bool) -> bool:
        """Leave out `classify` for a plain NCCL INFO line its parser read but holds (no event yet: its rank is not
        known), where `classify` would return nothing and change nothing any event depends on; True when it did.

        `classify` returns [] for such a line whatever the catalogue finds in it (`_apply` leaves every hit inside an
        INFO record to the NCCL parser, and a table row to no one: the line counts as busy). What it leaves behind:
        the line as `_prev` (its own hits, read here only if the next line asks, `_wrapped`) and, when something was
        found, its number in `_read`, which only voids the `unparsed` events of the lines before it: none is waiting
        (where the NCCL parser holds one, `holds_unparsed`, the line is classified) and the later lines' are voided
        or kept as before. The line holds one level tag (INFO), so every position of it lies in an INFO record."""
        text = line.text
        if not self.passes_info_lines() or text.count("NCCL ") != 1 or " NCCL INFO " not in text \
                or holds_unparsed:
            return False
        self._prev = line if len(line.raw or text) >= WRAP_MIN else None
        self._prev_ids = None
        return True

    def settle(self, produced: list[Event]) -> list[Event]:
        """Events that reached no `classify` call (see sources.settle): held duplicates and void `unparsed` out."""
        if self._held:
            produced = self._settle(produced)
        if self._read:
            produced = [ev for ev in produced if not (ev.kind == "unparsed" and ev.line in self._read)]
        return produced

    def finish(self) -> None:
        self.out.extend(self._end_table())

    def flush(self, produced: list[Event]) -> list[Event]:
        """The end of the input: the held events that the blocks' own events do not repeat."""
        out = self._settle(produced + self.out if self.out else produced)
        out = out + self._release() + self._waits
        self._waits = []
        return [ev for ev in out if not (ev.kind == "unparsed" and ev.line in self._read)]

    # ---- one line's hits
    def _apply(self, line: Line, hits: list[catalogue.Hit], produced: list[Event], busy: bool,
               claimed: bool = True) -> list[Event]:
        mine = [ev for ev in produced if ev.line == line.no and ev.kind != "unparsed"]
        text = line.text
        new: list[Event] = []
        annotated: list[Event] = []         # the parser's events of this line an entry annotated
        table_hit = False
        for hit in hits:
            msg = hit.message
            if msg.id in _TABLE:
                if busy:
                    continue                # inside torchrun's own failure summary: it reads the rows
                table_hit = True
                new.extend(self._table_row(line, hit))
                continue
            if msg.id in catalogue.GENERIC and mine:
                continue                    # the parser read this line more closely than "an exception"
            same = next((ev for ev in mine if ev.kind == msg.kind and "message_id" not in ev.data), None)
            if same is None and any(ev.kind == msg.kind and ev.data.get("meaning") == msg.meaning
                                    and ev.data.get("implies") == msg.implies for ev in annotated):
                continue                    # a second entry on the line its parser read as one event, saying the same
            if same is None and mine and (msg.meaning in ("benign", "healthy") or " NCCL INFO " in text):
                same = mine[0]              # an INFO line its parser read: the entry says what it means, no more
            if same is None and claimed and " NCCL INFO " in text and _in_info_record(text, hit.start):
                continue                    # NCCL's INFO lines are the NCCL parser's (it may hold them a while)
            if same is not None:
                annotate(same, hit)
                annotated.append(same)
                continue
            ev = self._event(line, hit)
            if mine and ev.rank is None:        # what the line's parser knew of its process (an NCCL prefix's pid)
                ev.rank, ev.host, ev.pid = mine[0].rank, ev.host or mine[0].host, ev.pid or mine[0].pid
            (self._held if busy else new).append(ev)
        if not table_hit and self._table is not None:
            new = self._end_table() + new
        self._read.append(line.no)
        del self._read[:-8]
        return produced + new

    def _event(self, line: Line, hit: catalogue.Hit) -> Event:
        msg = hit.message
        data = {**hit.fields}
        rank = line.rank if line.rank is not None else _glued_rank(line.text, hit.start)
        ev = Event(msg.kind, _SOURCE.get(msg.kind, "catalogue"), self.file, line.no, rank, line.host,
                   text=line.raw or line.text, data=data, local_rank=line.local_rank)
        annotate(ev, hit)
        _fill_common(ev)
        return ev

    def _settle_waits(self, out: list[Event], line_no: int) -> list[Event]:
        """XLA's rendezvous warnings wait here (or among the held events, where another parser read the glog line); a
        thread's `unstuck` line drops its own earlier ones (the wait ended: the warning was a false positive), the
        rest go out at the end of the input."""
        kept = []
        for ev in out:
            if ev.data.get("message_id") in _RENDEZVOUS_WAITS and len(self._waits) < MAX_HELD:
                self._waits.append(ev)
            else:
                kept.append(ev)
        for ev in kept + [h for h in self._held if h.line == line_no]:
            if ev.data.get("message_id") == _RENDEZVOUS_UNSTUCK:
                self._drop_waits(_rendezvous_thread(ev))
        return kept

    def _drop_waits(self, thread: str | None) -> None:
        """The warnings of `thread` (None: the last one, the warning above) that wait, here or held (a glog line
        another parser read)."""
        held = [ev for ev in self._held if ev.data.get("message_id") in _RENDEZVOUS_WAITS]
        waiting = self._waits + held
        drop = [w for w in waiting if _rendezvous_thread(w) == thread] if thread is not None else waiting[-1:]
        self._waits = [w for w in self._waits if w not in drop]
        self._held = [ev for ev in self._held if ev not in drop]

    def _wrapped(self, text: str, own: list[catalogue.Hit]) -> list[catalogue.Hit]:
        """Messages that begin on the previous (long) line and go on here: a terminal wrapped them. The line's own
        hits (`own`) inside the wrapped message's tail are parts of it (an errno text after a peer address), not
        messages of their own."""
        prev = self._prev.text if self._prev is not None else ""
        whole = self._prev_ids                                     # read on the line itself already
        if whole is None:                                          # a line `skip_held_info_line` did not read
            whole = self._prev_ids = {h.message.id for h in catalogue.match(prev)}
        for joined, cut in ((prev + text, len(prev)), (prev + " " + text, len(prev) + 1)):
            hits = [h for h in catalogue.match(joined) if h.start < cut < h.end and h.message.id not in whole
                    and h.message.id not in catalogue.GENERIC]     # a frame's `.*` spans any two lines
            if hits:
                tail = max(h.end for h in hits) - cut
                return hits + [h for h in own if h.end > tail]
        return own

    def _name_first_exit(self, line: Line) -> bool:
        """Lines of Open MPI's first-to-exit report: its process's rank and exit code go on the report's event,
        which then names the job's first failure (the launcher aborted the job for it)."""
        ev = self._first_exit
        if ev is None or line.no - ev.line > _FIRST_EXIT_LINES:
            self._first_exit = None
            return False
        name, code = _PROCESS_NAME.match(line.text), _EXIT_CODE.match(line.text)
        if name:
            ev.rank = ev.data["rank"] = int(name.group(1))
            if ev.data.get("message_id") != _FIRST_EXIT:       # a block that names its process only
                self._first_exit = None
                return True
            ev.data.update(meaning="failure", implies="dropped_rank")
        elif code:
            ev.data["exitcode"] = int(code.group(1))
            self._first_exit = None
        return bool(name or code)

    def _name_stalled(self, line: Line) -> bool:
        """Lines of Horovod's stall report: each rank it lists goes on the report's event as a missing rank."""
        ev = self._stall
        assert ev is not None
        if _STALL_HEAD.match(line.text):
            return True
        rank = _STALL_RANK.match(line.text)
        if rank is None:
            if not self._stall_head_ended and line.no - ev.line <= _STALL_WRAPPED_LINES:
                self._stall_head_ended = _STALL_HEAD_END in line.text   # the head's own words, wrapped: the list
                return True                                             # is still to come
            self._stall = None
            return False
        missing = ev.data["missing_ranks"] = list(ev.data.get("missing_ranks") or [])
        if int(rank.group(1)) not in missing:
            missing.append(int(rank.group(1)))
        return True

    def _name_hydra_end(self, line: Line, out: list[Event]) -> None:
        """The exit code or signal line of Hydra's block goes to the process the block named a line above."""
        who = self._hydra
        if who is not None and line.no - who.line <= _HYDRA_LINES:
            for ev in out:
                if ev.data.get("message_id") in _HYDRA_END and ev.line == line.no and ev.rank is None:
                    for key in ("rank", "pid", "node"):
                        if who.data.get(key) is not None and ev.data.get(key) is None:
                            ev.data[key] = who.data[key]
                    _fill_common(ev)
        self._hydra = next((ev for ev in out if ev.line == line.no and ev.data.get("message_id") == _HYDRA_WHO),
                           who if who is not None and line.no - who.line < _HYDRA_LINES else None)

    def _read_exit_barrier(self, line: Line, out: list[Event]) -> None:
        """The store error under an exit-barrier error (its traceback's last line) takes the barrier's meaning."""
        head = next((ev for ev in (*out, *self._held) if ev.line == line.no
                     and ev.data.get("message_id") in _EXIT_BARRIER), None)
        if head is not None:
            self._exit_barrier = head
            # c10d's socket warning, printed as the barrier's wait ran out (held while a traceback parser reads)
            for ev in (self._last_wait, *self._held):
                if ev is not None and ev.data.get("implies") == "missing_rank" and \
                        0 < head.line - ev.line <= _WAIT_ABOVE_BARRIER_LINES:
                    as_exit_barriers_wait(ev.data)
            return
        barrier = self._exit_barrier
        if barrier is None or line.no - barrier.line > _EXIT_BARRIER_LINES:
            self._exit_barrier = None
            return
        # (the store error is often a traceback's last line: its event is held while the traceback parser reads)
        waits = [ev for ev in (*out, *self._held) if ev.line == line.no and ev.data.get("implies") == "missing_rank"]
        for ev in waits:
            as_exit_barriers_wait(ev.data)
        if waits:
            self._exit_barrier = None

    def _read_shapes(self, line: Line) -> bool:
        """Lines of accelerate's shape report: each process's shape; the processes whose shape differs from the one
        a majority holds go on the report's event as `ranks_at_fault` (its process index is the rank)."""
        ev = self._shapes
        assert ev is not None
        if _SHAPES_HEAD.match(line.text):
            return True
        one = _SHAPES_PROCESS.match(line.text)
        if one is None:
            self._shapes = None
            return False
        shapes = ev.data["process_shapes"] = {**(ev.data.get("process_shapes") or {}), int(one.group(1)): one.group(2)}
        common, held_by = Counter(shapes.values()).most_common(1)[0]
        ev.data["ranks_at_fault"] = sorted(r for r, shape in shapes.items() if shape != common) \
            if 2 * held_by > len(shapes) else []
        return True

    def _listed_tasks_inline(self, line: Line, out: list[Event]) -> Event | None:
        """The event of an XLA report that lists tasks (_TASK_LISTS) on this line: the JAX tasks an escaped gRPC status
        lists on the line itself go on it as `ranks_at_fault`; returned to read the task names on the lines below."""
        ev = next((e for e in (*out, *reversed(self._held)) if e.line == line.no
                   and e.data.get("message_id") in _TASK_LISTS), None)
        listed = _XLA_TASKS_ESCAPED.search(line.text)
        if ev is not None and listed:
            ev.data["ranks_at_fault"] = sorted({int(t) for t in _XLA_ESCAPED_TASK.findall(listed.group(1))})
        return ev

    def _read_listed_tasks(self, line: Line) -> bool:
        """Lines of an XLA report's task list: each JAX task it names goes on the report's event as a rank at fault
        (the list ends at the first line that names no task; a barrier's count lines may come before it)."""
        ev = self._tasks
        assert ev is not None
        task = _XLA_TASK.match(line.text)
        if task is None:
            if ev.data.get("ranks_at_fault") or ev.data.get("message_id") != _XLA_BARRIER or not line.text.strip() \
                    or not _XLA_BARRIER_HEAD.match(line.text):
                self._tasks = None
                return False
            return True                    # the count and first-arrival lines between the error and its list
        if task.group(1) == _JAX_TASK:
            ev.data["ranks_at_fault"] = sorted(set(ev.data.get("ranks_at_fault") or ()) | {int(task.group(2))})
        return True

    # ---- a Root Cause table without its header
    def _table_row(self, line: Line, hit: catalogue.Hit) -> list[Event]:
        done: list[Event] = []
        ev = self._table
        if ev is not None and (hit.message.id == _TABLE_FIRST_ROW or any(
                k in ev.data and ev.data[k] != v for k, v in hit.fields.items() if k in ("rank", "pid", "exitcode"))):
            done, ev = self._end_table(), None
        if ev is None:
            ev = self._table = self._event(line, hit)
            ev.data["root_cause"] = None
            return done
        for key, value in hit.fields.items():
            if ev.data.get(key) is None:
                ev.data[key] = value
        if ev.data.get("message_id") == _TABLE_FIRST_ROW and hit.message.id != _TABLE_FIRST_ROW:
            # the entry is cited by a row that names its process (as torchrun's own reader cites its exitcode row)
            ev.line, ev.text = line.no, line.raw or line.text
            annotate(ev, hit)
        _fill_common(ev)
        return done

    def _end_table(self) -> list[Event]:
        ev, self._table = self._table, None
        return [ev] if ev is not None else []

    # ---- events held while a parser had the line (in a block, or holding it until it knows the rank)
    def _settle(self, produced: list[Event]) -> list[Event]:
        """Parsers' events that say what a held event says (same kind, nearby line, no other rank) take its meaning; it
        is dropped.
        A held event goes to the parser's event of its own line first: of two WARNs on adjacent lines, the first
        must not take the second's meaning."""
        if not self._held:
            return produced
        by_line = {(ev.kind, ev.line): ev for ev in reversed(produced)}
        taken: set[int] = set()
        for held in [h for h in self._held if (h.kind, h.line) in by_line]:
            ev = by_line[(held.kind, held.line)]
            if id(ev) not in taken:
                taken.add(id(ev))
                self._adopt(ev, held)
        for ev in produced:
            if not self._held:
                break
            if id(ev) in taken:
                continue
            same = next((h for h in self._held if h.kind == ev.kind and abs(h.line - ev.line) <= _NEAR
                         and _same_rank(h, ev)), None)
            if same is not None:
                self._adopt(ev, same)
        return produced

    def _adopt(self, ev: Event, held: Event) -> None:
        """A parser's event takes a held event's meaning; the held one is dropped."""
        self._held.remove(held)
        # torch's CUDA_LAUNCH_BLOCKING hint (tail_only) says less than an error the parser read with its own class
        if "message_id" not in ev.data and not (held.data.get("tail_only") and ev.data.get("implies")):
            # a wait the traceback parser read as the exit barrier's (its frames) keeps that reading
            barrier = ev.data.get("context") == "exit_barrier"
            for key in ("message_id", "meaning", "implies", "category", "process_shapes", "ranks_at_fault"):
                if key in held.data and not (barrier and key in ("meaning", "implies")):
                    ev.data[key] = held.data[key]
            # the parser reads the line's frame (a WARN's file:line, a traceback's frames), the catalogue the message's
            # fields (a strerror, a size, a peer): those the parser left unset, as `annotate` does on the line itself
            for key, value in held.data.items():
                if ev.data.get(key) is None and not (barrier and key in ("meaning", "implies")):
                    ev.data[key] = value
            if ev.rank is None and held.data.get("rank_is_own"):
                ev.rank = held.rank                 # the rank the message names as its own (`Rank 11, node ...`)
            if self._shapes is held:        # the report's shape lines may still come: they go on the parser's event
                self._shapes = ev

    def _release(self) -> list[Event]:
        """Held events no parser repeated: the catalogue's own."""
        held, self._held = self._held, []
        return held


def _in_info_record(text: str, at: int) -> bool:
    """Whether position `at` of a line lies in an NCCL INFO record: the last level tag before it is INFO. Lines pasted
    run-on (`... NCCL INFO init.cc:840 -> 5 host:pid:tid [0] init.cc:573 NCCL WARN Duplicate GPU ...`) carry WARN
    records among the INFO ones; those are failures whose event the NCCL parser may still hold."""
    tags = _LEVEL_TAG.findall(text, 0, at)
    return not tags or tags[-1] == "INFO"


_LEVEL_TAG = re.compile(r"NCCL (INFO|WARN|TRACE|CALL)(?= |$)")


def annotate(ev: Event, hit: catalogue.Hit) -> None:
    """The catalogue entry's meaning and fields on an event (fields a parser already set are kept)."""
    ev.data.update(catalogue.annotation(hit))   # its fields may settle the meaning (a strerror), the class (CUDA)
    for key, value in hit.fields.items():
        if ev.data.get(key) is None:
            ev.data[key] = value
    if ev.rank is None and hit.fields.get("rank_is_own") and isinstance(hit.fields.get("rank"), int):
        ev.rank = hit.fields["rank"]            # the message names the rank that printed it (`Rank 11, node ...`)


_GLUED_WRAPPER = re.compile(r"\[rank(\d+)\]:")


def _glued_rank(text: str, end: int) -> int | None:
    """The rank of the last torchrun `[rankN]:` wrapper glued inside a line before a message at `end`: two writers'
    lines run together where one ended without a newline (a C++ frame list, then a rank's next warning), and the
    message after the wrapper is that rank's. None without one (a wrapper at the line's start is the line's own)."""
    glued = list(_GLUED_WRAPPER.finditer(text, 1, end))
    return int(glued[-1].group(1)) if glued else None


def _rank_list(text: str) -> list[int]:
    return [int(r) for r in text.replace(" ", "").split(",") if r.isdigit()]


# A syslog line's host (`Nov 27 10:00:00 node2 kernel: `, rsyslog's ISO stamp too): the node a kernel message was
# printed on, where the line names no process of the job (a panic, a lost GPU)
_SYSLOG_HOST = re.compile(r"(?:<\d+>)?(?:[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d|\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?"
                          r"(?:Z|[+-]\d\d:?\d\d)?) (?P<host>[A-Za-z0-9][\w.-]*) kernel: ")


# JAX names each process of a multi-process job `/job:jax_worker/replica:0/task:<process id>` in XLA's coordination
# service (xla/pjrt/distributed/client.cc: the agent registers as job `jax_worker`, task `node_id`, the process_id
# jax.distributed.initialize passes): a task the service set to ERROR, or whose heartbeats stopped, is that process.
# (A TensorFlow job numbers its tasks per job, `worker` apart from `chief`: no rank.)
_JAX_TASK = "/job:jax_worker/"


# kinds whose printed `rank` is the event's own rank (a launcher's failed worker, a rank monitor's monitored rank)
_RANK_FIELD_KINDS = frozenset({"child_failed", "worker_failed", "slurm_exit", "launcher_world", "heartbeat"})


def _fill_common(ev: Event) -> None:
    d: dict[str, Any] = ev.data
    if ev.kind == "child_failed" and ev.time is None and isinstance(d.get("time"), str):
        ev.time = failure_epoch(d["time"])
    if ev.kind in ("worker_failed", "worker_exit", "child_failed", "slurm_exit", "signal_report", "sigterm_sent") \
            and d.get("pid"):
        ev.pid = ev.pid or d["pid"]
    rank = d.get("rank")
    if isinstance(rank, int) and ev.kind in _RANK_FIELD_KINDS and ev.rank is None:
        ev.rank = rank
    if ev.kind == "worker_failed" and ev.rank is None and isinstance(d.get("local_rank"), int):
        ev.local_rank = ev.local_rank if ev.local_rank is not None else d["local_rank"]
    if ev.host is None and d.get("node") is None and str(d.get("message_id")).startswith("kernel."):
        syslog = _SYSLOG_HOST.match(ev.text or "")
        if syslog is not None:
            d["node"] = syslog.group("host")
    if ev.kind == "worker_failed" and str(d.get("task") or "").startswith(_JAX_TASK) and d.get("task_id"):
        d.setdefault("ranks_at_fault", [int(d["task_id"])])
    if ev.kind == "oom" and "oom_kind" in d and isinstance(d["oom_kind"], str):
        d["oom_kind"] = d["oom_kind"].lower()
    if ev.kind == "monitored_barrier" and isinstance(d.get("reporter_rank"), int) and ev.rank is None:
        ev.rank = d["reporter_rank"]
    if ev.kind == "monitored_barrier" and isinstance(d.get("ranks"), str) and d.get("missing_ranks") is None:
        d["missing_ranks"] = _rank_list(d.pop("ranks"))
    if ev.kind == "monitored_barrier" and isinstance(d.get("ready_ranks"), str) and d.get("missing_ranks") is None:
        # the ranks that did submit: those missing below the highest of them certainly did not (the world's size,
        # and so any missing rank above it, the line does not say)
        ready = set(_rank_list(d.pop("ready_ranks")))
        gaps = sorted(set(range(max(ready, default=-1) + 1)) - ready)
        if gaps:
            d["missing_ranks"] = gaps
    if ev.kind == "straggler_report" and isinstance(d.get("ranks"), str):
        d["ranks_at_fault"] = _rank_list(d.pop("ranks").strip("[]{}()"))   # the ranks the report names as slow
    if ev.kind == "fingerprint_mismatch":
        for who in ("", "other_"):
            shape = d.pop(f"{who}shape", None)
            if shape is not None and d.get(f"{who}shapes") is None:
                d[f"{who}shapes"] = [[int(x) for x in shape.replace(" ", "").split(",") if x]]
            raw = d.get(f"{who}op")
            if raw and not d.get(f"{who}op_raw"):
                from .torch_log import op_name
                d[f"{who}op_raw"], d[f"{who}op"] = raw, op_name(raw)
    if ev.kind == "watchdog_timeout":
        raw = d.get("op")
        if raw and raw.isupper() or (raw or "").startswith("_"):
            from .torch_log import op_name
            d["op_raw"], d["op"] = raw, op_name(raw)
        if isinstance(d.get("numel_in"), str):      # ≤ 2.1 printed TensorShape=[...] there
            d["shape"] = d.pop("numel_in")


def _same_rank(held: Event, ev: Event) -> bool:
    """Could the two events be one process's line? Not when each names a rank and the ranks differ: on an
    interleaved console of many ranks, rank 0's heartbeat line is not rank 2's watchdog report 6 lines below."""
    return held.rank is None or ev.rank is None or held.rank == ev.rank


def _rendezvous_thread(ev: Event) -> str | None:
    """The thread that logged an XLA rendezvous line (`[id=N]` or glog's thread id), None where the line names none."""
    found = _RENDEZVOUS_THREAD.search(ev.text or "")
    if found is None:
        return None
    return f"id={found[1]}" if found[1] else f"tid={found[2]}"
