"""The detector protocol and the context every detector reads (never files: only events and tables)."""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from functools import cached_property
from typing import Iterable

import pandas as pd

from ..diagnosis.rank_state import (
    RankState,
    cite,
    passed_connect_retries,
    recovered_error_traces,
    restarts_then_succeeded,
    store_teardown_errors,
)
from ..diagnosis.timeline import Timelines, row_text
from ..diagnosis.wavefront import group_descs
from ..diagnosis.world import World
from ..model import FAILURE_KINDS, Confidence, Event, Evidence, Finding, clip, ranks_text, shows_failure, shows_health

# Evidence names a detector may need; `Context.has` knows how to tell whether each is present.
NEEDS_KINDS: dict[str, set[str] | None] = {
    "timeline": None,                    # any per-collective rows (FR, COLL, watchdog, fingerprint)
    "flight_recorder": {"fr_entry"},
    "nccl_coll": {"coll"},
    "pyspy": {"pyspy_thread"},
    "process_end": {"child_failed", "worker_failed", "error_json", "traceback", "slurm_exit", "faulthandler",
                    "ras"},             # NCCL's RAS report: its DEAD processes
    "oom": {"oom", "oom_kill", "oom_invoked", "slurm_oom", "k8s_oomkilled"},
    "shutdown": {"sigterm_sent"},       # a launcher ending its workers (which one it did not signal ended first)
    "launcher_log": {"agent_log"},      # the elastic agent's own lines (its timer server reaping a worker)
    "errors": {"gloo_error", "warn", "dist_backend_error", "error_trace", "traceback", "cuda_error", "nccl_error",
               "cpp_terminate", "signal_report", "xid", "fingerprint_mismatch"},
    "nccl_init": {"bootstrap", "net_socket", "net_ib", "net_using"},
    "versions": {"nccl_version", "fr_dump", "net_plugin", "net_using"},
    "failures": None,                    # any line that shows a failure (model.shows_failure)
    "anything": None,                    # the health rule reads whatever there is
    "timeouts": {"watchdog_timeout", "gloo_error", "heartbeat", "slurm_cancelled", "monitored_barrier",
                 "desync_report", "faulthandler", "hung_task", "wait_timeout", "work_status", "frtrace_report",
                 "nccltests_incomplete", "fr_work_failed"},
}


_READ_IN_PART = {"truncated", "corrupt"}
_FAILING = ("failure", "consequence")        # the meanings that show a failure (model.shows_failure)


@dataclass
class Context:
    """Everything the detectors may look at, built once per diagnosis."""

    events: list[Event]                          # non-bulk events, sorted by (rank, file, line)
    timelines: Timelines
    outliers: pd.DataFrame                       # divergence.find_outliers(timelines.colls)
    ranks: dict[int, RankState]
    world: list[int]
    expected: World | None = None                # the stated world and its ranks without evidence (world.py)
    p2p: list = field(default_factory=list)      # (rank, file, *fr_semantics.P2POp): every dump's sends and recvs
    by_kind: dict[str, list[Event]] = field(default_factory=dict)
    store_gone: set[int] | None = None           # rank_state.store_teardown_errors, where the caller made them
    _any_failure: bool | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        if not self.by_kind:
            grouped = defaultdict(list)
            for ev in self.events:
                grouped[ev.kind].append(ev)
            self.by_kind = dict(grouped)

    @cached_property
    def group_descs(self) -> dict[str, str]:
        """Each timeline group's pg_desc where a flight-recorder dump gives one (wavefront.group_descs)."""
        return group_descs(self.of("fr_dump"), self.timelines.members)

    def group_name(self, group: str) -> str:
        """`38 (DATA_PARALLEL_GROUP)` where the dumps describe the group, else its name: messages say `group …`."""
        desc = self.group_descs.get(group)
        return f"{group} ({desc})" if desc else str(group)

    def of(self, *kinds: str) -> list[Event]:
        out = [ev for kind in kinds for ev in self.by_kind.get(kind, [])]
        return sorted(out, key=event_order) if len(kinds) > 1 else out

    def has(self, need: str) -> bool:
        if need == "timeline":
            return not self.timelines.empty
        if need == "failures":
            if self._any_failure is None:                      # asked by several detectors: one pass
                self._any_failure = any(any(map(shows_failure, events)) if kind in FAILURE_KINDS else any(
                    ev.data.get("meaning") in _FAILING for ev in events) for kind, events in self.by_kind.items())
            return self._any_failure
        if need == "anything":
            return True
        if need == "flight_recorder" and "flight_recorder" in self.timelines.sources():
            return True
        if need == "nccl_coll" and "nccl" in self.timelines.sources():
            return True
        return any(self.by_kind.get(k) for k in NEEDS_KINDS.get(need) or ())

    @cached_property
    def recovered_traces(self) -> set[int]:
        """The error lines the job got past, by event id: rank_state.recovered_error_traces (an error path NCCL left
        by a fallback), passed_connect_retries (a connect NCCL retried, then made) and restarts_then_succeeded (an
        elastic restart whose next attempt succeeded). Read by the health rule, N401 and X901, made once."""
        return (recovered_error_traces(self.events) | passed_connect_retries(self.events, self.timelines)
                | restarts_then_succeeded(self.events))

    @cached_property
    def store_teardown(self) -> set[int]:
        """rank_state.store_teardown_errors of the events (the store gone at the job's clean end), by event id: read
        by N401 and X901, made once (by the caller of rank_states, which reads them too)."""
        return self.store_gone if self.store_gone is not None else store_teardown_errors(self.events)

    def gaps(self) -> dict:
        """Expected ranks without usable evidence of their own: rank → world.Gap (none when the world is unknown)."""
        return dict(self.expected.gaps) if self.expected is not None else {}

    def cut_short(self) -> set[int]:
        """Ranks whose evidence ends because a file was read only in part (truncated, corrupt): a short timeline
        there says nothing about where the rank stopped. A file that could not be opened at all removes only its
        own evidence, as if it were absent."""
        if self.expected is None:
            return set()
        gaps = {**self.expected.gaps, **self.expected.partial}
        return {rank for rank, gap in gaps.items() if gap.reason in _READ_IN_PART}

    def failed(self) -> bool:
        """Is there any sign the job failed or hung (as opposed to a healthy run)?"""
        if any(st.end for st in self.ranks.values()):
            return True
        kinds = (NEEDS_KINDS["timeouts"] or set()) | (NEEDS_KINDS["oom"] or set()) | {
            "gloo_error", "dist_backend_error", "fingerprint_mismatch", "comm_abort", "cuda_error", "nccl_error"}
        return any(ev.data.get("meaning") != "benign" for k in kinds for ev in self.by_kind.get(k, ()))


    def launcher_success(self) -> list[Event]:
        """The one answer to "did the whole job succeed?": the lines that say every worker did. A scheduler's or
        launcher's line for the whole job (the catalogue's `scope: job`: LSF's report, SkyPilot, torchx) comes first,
        then the other rankless healthy lines (torchrun's worker group success, a whole nccl-tests run; not a
        `scope: process` line, one process's exit), torchrun's SUCCEEDED, and DeepSpeed's `Process P exits
        successfully.` where there is one for every process of the world it stated. Only a `scope: job` line covers a
        job whose world no line states (the health rule)."""
        return list(self._job_success)

    @cached_property
    def _job_success(self) -> list[Event]:
        # a `scope: job` line covers the whole job whoever printed it (nccl-tests' footer is cited on every rank its
        # device list names; rank 0 prints it after every rank finished)
        rankless = [ev for ev in self.events if shows_health(ev) and (
                    ev.data.get("scope") == "job" or (ev.rank is None and ev.data.get("scope") != "process"))]
        rankless.sort(key=lambda ev: ev.data.get("scope") != "job")
        said = {id(ev) for ev in rankless}
        torchrun = [ev for ev in self.by_kind.get("agent_log", []) if "SUCCEEDED" in str(ev.data.get("message"))
                    and id(ev) not in said]
        return rankless + torchrun + _every_process_exited(self.by_kind.get("launcher_world", []),
                                                           self.by_kind.get("worker_exit", []))

    def completed(self) -> bool:
        """Is there a sign the job finished normally (every rank's last collective completed or its
        communicator destroyed, or `launcher_success`: a line that the whole job succeeded)?"""
        if self.launcher_success():
            return True
        left_open = comms_left_open(self.events)
        destroyed = {ev.rank for ev in self.by_kind.get("comm_destroy", [])
                     if ev.rank is not None and (ev.file, ev.rank, ev.pid) not in left_open}
        if self.world and destroyed >= set(self.world):
            return True
        colls = self.timelines.colls
        fr = colls[colls["source"] == "flight_recorder"] if not colls.empty else colls
        if fr.empty:
            return False
        last = fr.sort_values("seq").groupby(["group", "rank"]).tail(1)
        return bool((last["state"] == "completed").all())


def comms_left_open(events: list[Event]) -> set[tuple[str, int, int | None]]:
    """The (file, rank, pid)s whose process initialized a communicator that it never destroyed or aborted: destroying
    one communicator (a subgroup's, one a program makes and frees) says nothing of the others, which it may hang in."""
    opened: dict[tuple[str, int, int | None], set] = defaultdict(set)
    for ev in events:
        if ev.rank is not None and ev.kind in ("comm_init", "comm_destroy", "comm_abort"):
            ptr = ev.data.get("comm_ptr")
            if ptr is None:
                continue
            if ev.kind == "comm_init":
                opened[ev.file, ev.rank, ev.pid].add(ptr)
            else:
                opened[ev.file, ev.rank, ev.pid].discard(ptr)
    return {key for key, ptrs in opened.items() if ptrs}


def _every_process_exited(worlds: list[Event], exits: list[Event]) -> list[Event]:
    """DeepSpeed's exit lines (the first of them) when they name as many processes (host, pid) as the one world size
    its launchers stated (`dist_world_size=N`: every node's launcher states the whole world and logs its own
    processes' exits); none where no size, or two sizes (two runs of a bundle), were stated."""
    sizes = {ev.data.get("nranks") for ev in worlds}
    if len(sizes) != 1 or not exits:
        return []
    size = sizes.pop()
    exited = {(ev.host, ev.data.get("pid")) for ev in exits}
    return exits[:1] if isinstance(size, int) and len(exited) >= size else []


def event_order(ev: Event):
    """The order of Context.events: by rank (rankless last), file and line."""
    return (ev.rank if ev.rank is not None else 1 << 30, ev.file, ev.line)


class BaseDetector:
    """A detector: `check(ctx)` yields Findings. Its row in codes.py names the module and this class."""
    code = ""                 # stable, e.g. "C102"
    name = ""                 # kebab, e.g. "dtype-mismatch"
    cls = ""                  # verdict class, e.g. "dtype_mismatch"
    needs: tuple[str, ...] = ()   # any one of these evidence names lets it run (see NEEDS_KINDS)

    def finding(self, ranks, message, confidence=Confidence.MEDIUM, evidence=(), fix="", group=None, seq=None,
                cause=True) -> Finding:
        return Finding(self.code, self.name, self.cls, sorted({int(r) for r in ranks}), message, confidence,
                       _dedupe(evidence), fix, group, None if seq is None else int(seq), cause)

    def check(self, ctx: Context) -> Iterable[Finding]:  # pragma: no cover - interface
        raise NotImplementedError


def _dedupe(evidence) -> list[Evidence]:
    seen, out = set(), []
    for ev in evidence:
        e = cite(ev) if isinstance(ev, Event) else Evidence(*ev)
        if (e.file, e.line) not in seen:
            seen.add((e.file, e.line))
            out.append(e)
    return out


def row_evidence(rows: pd.DataFrame) -> list[Evidence]:
    """Citations for timeline rows. Rows read on the fast path carry no text: one line is made from the row, in
    one format for every source (`<source> seq S <op> numel=N dtype=D state=S at <call site>`); a column the
    frame lacks is left out, never an error."""
    out = []
    for row in rows.itertuples(index=False):
        text = getattr(row, "text", None)
        if not isinstance(text, str) and hasattr(row, "file") and hasattr(row, "line"):
            text = row_text(getattr(row, "source", None), row.file, row.line, text)
        if not isinstance(text, str):
            fields = [f"{name}={_or_unknown(getattr(row, name, None))}" for name in ("numel", "dtype", "state")]
            site = getattr(row, "frame", None)
            text = " ".join([f"{getattr(row, 'source', 'timeline')} seq {_plain(getattr(row, 'seq', None))} "
                             f"{getattr(row, 'op', '?')}", *fields] + ([f"at {site}"] if isinstance(site, str) else []))
        out.append(Evidence(str(row.file), int(row.line), text))
    return out


def _or_unknown(value):
    plain = _plain(value)
    return "?" if plain is None else plain


def _plain(value):
    return None if value is None or value != value else (int(value) if isinstance(value, float) else value)


_FAILED_WORK = {"failure_detected", "timeout", "dump_signal"}   # work_status lines written because a collective failed


def own_value_check(ev: Event) -> bool:
    """A rank's own check of its values before it communicates, failed (catalogue category `numerics`, scope `rank`:
    Megatron-core's local grad norm before the data-parallel all-reduce): the rank whose own values went NaN/Inf."""
    return ev.data.get("category") == "numerics" and ev.data.get("scope") == "rank"


def is_timeout(ev: Event) -> bool:
    """A timeout line of the `timeouts` kinds that says a wait ran out (a gloo error of another category, a
    status line written for another reason, a live stack dump and an nccl-tests table cut where the log ends do
    not)."""
    if ev.kind == "nccltests_incomplete":
        return ev.data.get("meaning") == "failure"
    if ev.kind == "gloo_error":
        return ev.data.get("category") == "timeout"
    if ev.kind == "work_status":
        return ev.data.get("trigger") in _FAILED_WORK
    if ev.kind == "faulthandler":                 # a live stack dump is no timeout; `Timeout (0:05:00)!` is
        return "Timeout" in str(ev.data.get("reason"))
    if ev.kind == "slurm_cancelled" and ev.data.get("reason"):
        # slurmstepd names why it cancelled (req.c): only the time limit is a wait that ran out; PREEMPTION, NODE
        # FAILURE, JOB REQUEUE and TASK FAILURE are other causes
        return str(ev.data["reason"]).startswith("TIME LIMIT")
    return True


def timeout_seconds(ev: Event) -> float | None:
    """The timeout a timeout line states, in seconds."""
    ms = ev.data.get("timeout_ms")
    return ms / 1000 if is_timeout(ev) and isinstance(ms, (int, float)) and ms > 0 else None


def lower(conf: Confidence) -> Confidence:
    return {Confidence.HIGH: Confidence.MEDIUM, Confidence.MEDIUM: Confidence.LOW}.get(conf, Confidence.LOW)


def rank_list(ranks) -> str:
    """Ranks for a message: "3-7" for a run of three or more, else as `model.ranks_text` gives them ("0, 4"; a long
    list abridged)."""
    ranks = sorted(ranks)
    if len(ranks) > 2 and ranks == list(range(ranks[0], ranks[-1] + 1)):
        return f"{ranks[0]}-{ranks[-1]}"
    return ranks_text(ranks)


def said(ev: Event, limit: int = 120) -> str:
    """What a line says, for a sentence: its parsed message where there is one (an NCCL WARN's words, not its
    prefix), else its text, cut at a word past `limit`."""
    message = ev.data.get("message") if isinstance(ev.data.get("message"), str) else None
    return clip((message or ev.text).strip(), limit)
