"""H001 healthy: the job was healthy, shown by positive evidence for every expected rank.

What it detects:
    Health, never the mere absence of findings. The all-clear (`none`) is given only when all of these hold:

    - the world is known: some line states the job's size (NCCL's ``nranks``, the flight recorder's
      ``world_size``, torchrun's table), and every expected rank left readable evidence of its own (no
      missing, unreadable, truncated or refused file, no file whose rank nothing names); or, where no line states
      the world, a scheduler or launcher says the whole job succeeded (LSF's ``Successfully completed.``,
      SkyPilot's and torchx's ``SUCCEEDED``: every rank of it, seen or not, ended well);
    - every expected rank shows that it finished (an exit code of 0 or the launcher's success line, every
      communicator its process made destroyed, every collective it enqueued completed, a completed nccl-tests
      run; where the job spans nodes, one node's torchrun success covers the ranks its file shows, and ``Done
      waiting for other agents``, the exit barrier that every agent reaches only after its workers succeeded,
      covers all), or that it completed the last collective any rank reached in each of its groups (a
      flight-recorder state: an NCCL COLL line says only that a collective was enqueued, and every rank of a hang
      reaches the collective it hangs in), with no send or recv left pending after it;
    - no line anywhere shows a failure (a traceback, a C++ ``terminate``, a signal, an NCCL error trace
      ``file.cc:N -> N``, a timeout, a flight-recorder entry retired without completing, a launcher's non-zero
      exit), whether or not a detector explains it;
    - every detector ran (no ``--select``/``--ignore`` subset) and none, and no parser, failed inside.

    Otherwise the verdict is the failure another detector found or, when none did, ``inconclusive``
    (exit 4) with each reason after ``why not none:``.

Why it hangs or dies:
    It does not: this is the rule for saying that nothing did.

Evidence it needs:
    Any. Health of a finished job is strongest (communicators destroyed, exit codes 0, torchrun's
    ``SUCCEEDED``); ranks that all completed the same last collective are healthy with medium confidence.

Example:
    ``ncclf diagnose sample_logs/bundles/healthy-nccl`` → ``none: every expected rank (0-7) shows health:
    8 destroyed their communicators``; the same bundle without ``nccl.rank6…log`` → ``inconclusive``,
    ``why not none: no usable evidence from rank 6 (no evidence)``.

Known limits:
    A fragment of a running job is healthy only where its flight recorder shows the last collective
    completed (medium confidence), with no send or recv left pending after it; NCCL COLL lines alone, in step or
    not, never show health, and neither do py-spy stacks: a snapshot cannot tell progress. A stack dump inside a
    collective beside dumps whose collectives all completed is still that health (the two snapshots have no order).

Suggested fix:
    To get an all-clear where ncclf is inconclusive, collect what the reasons name: every rank's log
    (``NCCL_DEBUG_FILE=…/nccl.%h.%p.log``), torchrun ``--log-dir`` with exit codes, flight-recorder dumps.
"""
from __future__ import annotations

from collections import defaultdict
from typing import Iterable, NamedTuple

from ..diagnosis.fr_semantics import P2POp
from ..diagnosis.rank_state import cite
from ..model import Confidence, Event, Evidence, ranks_phrase, ranks_text, shows_failure, shows_health
from ..sources.flight_recorder import completed_in_status, pending_in_status
from ..sources.ranks import spans_nodes
from .base import BaseDetector, Context, comms_left_open

_SHOWN = 3           # failure lines quoted in a reason
P2P_STATE, P2P_LINE = P2POp._fields.index("state"), P2POp._fields.index("line")   # of a Context.p2p row


class Health(NamedTuple):
    """The health rule's answer: healthy or not, with what shows it and why not."""

    healthy: bool
    confidence: Confidence
    shown: str                        # what shows health ("ranks 0-7 destroyed their communicators")
    why_not: list[str]                # the reasons there is no all-clear (empty when healthy)
    evidence: list[Evidence]


class Healthy(BaseDetector):
    code, name, cls = "H001", "healthy", "none"
    needs = ("anything",)

    def check(self, ctx: Context):            # health is assessed after the failure detectors (assess)
        return ()

    def assess(self, ctx: Context, not_run: Iterable[str] = (), internal_errors: Iterable[str] = ()) -> Health:
        finished, progressed = finished_ranks(ctx), progressed_ranks(ctx)
        whole_job = job_success(ctx)
        why: list[str] = _world_reasons(ctx, finished, whole_job)
        recovered = ctx.recovered_traces                    # an error path NCCL left by a fallback
        failures = [ev for ev in ctx.events if shows_failure(ev) and id(ev) not in recovered]
        if failures:
            quoted = "; ".join(f"{ev.file}:{ev.line}" for ev in failures[:_SHOWN])
            why.append(f"{len(failures)} line{'s' if len(failures) > 1 else ''} show{'' if len(failures) > 1 else 's'}"
                       f" a failure that no detector explains ({quoted})")
        not_run = list(not_run)
        if not_run:
            many = "s" if len(not_run) > 1 else ""
            why.append(f"detector{many} {', '.join(not_run)} did not run (--select/--ignore)")
        errors = list(internal_errors)
        if errors:
            why.append(f"{len(errors)} internal error{'s' if len(errors) > 1 else ''} ({errors[0]})")
        expected = _expected(ctx)
        gaps = set(ctx.expected.gaps) | set(ctx.expected.partial) if ctx.expected is not None else set()
        unhealthy = [r for r in expected if r not in finished and r not in progressed and r not in gaps]
        if expected and unhealthy:
            why.append(f"nothing shows that {ranks_phrase(unhealthy)} finished "
                       "or completed the last collective (an exit code, a success line, communicators destroyed, "
                       "completed collectives)")
        if why:
            return Health(False, Confidence.LOW, "", why, [cite(ev) for ev in failures[:_SHOWN]])
        if not expected and whole_job is not None:        # no rank seen, no world stated: the job's own end
            return Health(True, Confidence.MEDIUM, f"the whole job succeeded: {whole_job.data.get('message')}", [],
                          [cite(whole_job)])
        all_finished = all(r in finished for r in expected)
        shown = _shown(expected, finished, progressed)
        conf = Confidence.HIGH if all_finished else Confidence.MEDIUM
        evidence = [finished[r] for r in expected if r in finished][:2] + \
                   [progressed[r] for r in expected if r not in finished and r in progressed][:2]
        return Health(True, conf, shown, [], evidence)


def job_success(ctx: Context) -> Event | None:
    """The line of `Context.launcher_success` that covers the whole job whatever its size (`scope: job`: LSF's
    `Successfully completed.`, SkyPilot's and torchx's SUCCEEDED): every rank of it, seen or not, ended well."""
    return next((ev for ev in ctx.launcher_success() if ev.data.get("scope") == "job"), None)


def _world_reasons(ctx: Context, finished: dict[int, Evidence], whole_job: Event | None) -> list[str]:
    """A rank without evidence of its own is no gap when the launcher's success covers it (its exit code 0); an
    unstated world is none when the whole job's success covers every rank of it."""
    world = ctx.expected
    if world is None or not world.size:
        if whole_job is not None:
            return []
        return ["nothing states the job's world size, so ranks beyond those seen may be missing"]
    why = []
    gaps = {rank: gap for rank, gap in {**world.gaps, **world.partial}.items()
            if not (gap.reason == "no evidence" and rank in finished)}
    if gaps:
        by_reason = defaultdict(list)
        for rank, gap in sorted(gaps.items()):
            by_reason[gap.reason].append(rank)
        why.append("no usable evidence from " + "; ".join(f"{ranks_phrase(r)} ({reason})"
                                                          for reason, r in sorted(by_reason.items())))
    if world.unlisted:
        many = "s" if world.unlisted > 1 else ""
        why.append(f"{world.unlisted} more rank{many} of the stated world left no evidence")
    if world.unattributed:
        why.append(f"{len(world.unattributed)} file{'s' if len(world.unattributed) > 1 else ''} of unknown rank could "
                   f"not be read ({world.unattributed[0]})")
    return why


def _expected(ctx: Context) -> list[int]:
    return list(ctx.expected.expected) if ctx.expected is not None else sorted(ctx.ranks)


def finished_ranks(ctx: Context) -> dict[int, Evidence]:
    """Ranks that show they finished: a healthy-meaning line of their own, the whole job's success
    (`Context.launcher_success`), communicators destroyed, every collective their flight recorder enqueued completed.
    Where the job spans nodes, a node's agent saying its workers SUCCEEDED covers only the ranks its file shows (the
    other nodes' may not have finished); torchrun's `Done waiting for other agents` (the exit barrier every agent
    reaches only after its own workers succeeded) covers the job."""
    out: dict[int, Evidence] = {}
    job = ctx.launcher_success()
    several_nodes = any(map(_one_node_s, job)) and spans_nodes(ctx.events)
    whole = [ev for ev in job if not (several_nodes and _one_node_s(ev))]
    if whole:
        for rank in _expected(ctx):
            out.setdefault(rank, cite(whole[0]))
    nodes = {ev.file: ev for ev in job if _one_node_s(ev)} if not whole else {}
    for ev in ctx.events:
        if ev.rank is not None and ev.file in nodes:             # the ranks that node's agent started
            out.setdefault(ev.rank, cite(nodes[ev.file]))
    left_open = comms_left_open(ctx.events)
    for ev in ctx.events:
        if ev.rank is not None and (shows_health(ev) or ev.kind == "comm_destroy"
                                    and (ev.file, ev.rank, ev.pid) not in left_open):
            out.setdefault(ev.rank, cite(ev))
    status = defaultdict(list)
    for ev in ctx.of("fr_pg_status"):
        if ev.rank is not None:
            status[ev.rank].append(ev)
    for rank, evs in status.items():
        done = [ev for ev in evs if completed_in_status(ev.data)]
        if done and len(done) == len(evs):
            out.setdefault(rank, cite(done[0]))
    return out


def _one_node_s(ev: Event) -> bool:
    """Is this success line one node's (torchrun's agent: its own workers SUCCEEDED), not the whole job's?"""
    return ev.kind == "agent_log" and ev.data.get("scope") != "job"


def progressed_ranks(ctx: Context) -> dict[int, Evidence]:
    """Ranks whose timeline shows, in every group it has rows in, the last collective any rank reached there
    *completed* (a flight-recorder state): reaching it is not enough, every rank of a hang reaches the collective it
    hangs in, and an NCCL COLL line only says the collective was enqueued. A rank whose dump ends in a send or recv
    left pending, or whose pg_status says a group has a collective pending (its entry may have left the ring), is not
    shown to have progressed."""
    colls = ctx.timelines.colls
    if colls.empty or "state" not in colls:
        return {}
    rows = colls[["group", "rank", "seq", "state", "file", "line"]].dropna(subset=["seq", "rank"])
    if rows.empty:
        return {}
    head = rows.groupby("group", observed=True)["seq"].transform("max")
    at_head = (rows["seq"] >= head) & (rows["state"].astype(object) == "completed")
    reached = at_head.groupby([rows["group"], rows["rank"]], observed=True).any()
    behind = {int(rank) for (_, rank), ok in reached.items() if not ok} | _pending_p2p(ctx, rows) | \
        {ev.rank for ev in ctx.of("fr_pg_status") if pending_in_status(ev.data)}
    out: dict[int, Evidence] = {}
    for row in rows[at_head].itertuples(index=False):
        rank = int(row.rank)
        if rank not in behind and rank not in out:
            out[rank] = Evidence(str(row.file), int(row.line), f"seq {int(row.seq)} of group {row.group}")
    return out


def _pending_p2p(ctx: Context, rows) -> set[int]:
    """Ranks whose flight recorder ends in a send or recv that did not complete (after the last collective of the
    dump that completed): a P2P op is no row of the timeline's groups, and a pipeline's ranks can hang in one while
    every collective they issued completed. A batch's sends and recvs that later collectives passed stay
    `scheduled` (the batch's marker holds its events)."""
    pending = [(rank, file, op[P2P_LINE]) for rank, file, *op in ctx.p2p if op[P2P_STATE] != "completed"]
    if not pending:
        return set()
    done = rows[rows["state"].astype(object) == "completed"].groupby(["rank", "file"], observed=True)["line"].max()
    last = {(int(rank), str(file)): int(line) for (rank, file), line in done.items()}
    return {rank for rank, file, line in pending if line > last.get((rank, file), -1)}


def _shown(expected: list[int], finished: dict, progressed: dict) -> str:
    done = [r for r in expected if r in finished]
    pace = [r for r in expected if r not in finished and r in progressed]
    parts = []
    if done:
        parts.append(f"{ranks_phrase(done)} finished")
    if pace:
        parts.append(f"{ranks_phrase(pace)} completed the last collective any "
                     "rank reached (still running, or its end not recorded)")
    return f"every expected rank ({ranks_text(expected, runs=True)}) shows health: " + "; ".join(parts)
