"""S701 straggler: one rank (or every rank of one host) kept the others waiting at collective after collective.

What it detects:
    For every collective with arrival times from two or more ranks (diagnosis/arrivals.py), the rank that
    arrived last and by how much. A rank is a straggler when it was clearly last (its lag at least 1 ms, 10x the
    median and 2x the 95th percentile of the gaps where it was not last) at 3 or more collectives, caused 60%
    of all the waiting, and the lag costs time that matters: an absolute floor (its median lag at least 3 ms,
    and those lags 50 ms or more in all: below that, a loaded host's scheduler) and a relative one (the waiting
    is at least 5% of the time the timed collectives span). A healthy run where one rank is 2 ms behind at every
    collective is noise, not a straggler. A host is one when its ranks together did, no single one of them alone.
    When a timeout ends the job at a collective the
    straggler never reached, the timeout is the straggler's.

Why it hangs or dies:
    A collective finishes when its last member arrives: every rank runs at the straggler's pace. A rank
    that is slow before the collective (data loading, a slow disk, CPU contention, thermal throttling)
    makes everyone wait; if its lag grows past the process-group timeout, the others time out.

Evidence it needs:
    Timed per-collective rows from two or more ranks: flight-recorder dumps (``time_created_ns``), NCCL
    COLL lines with timestamps, or NCCL Inspector records written with ``NCCL_INSPECTOR_DUMP_VERBOSE=1``
    (``coll_start_ts``).

Example:
    ``ncclf diagnose sample_logs/bundles/real-slow-rank`` →
    ``straggler: rank 1 arrived last at 4 of 15 collectives, a median 324 ms after the others (p95 373 ms);
    the others waited 1.34 s for it, 94% of all the waiting``.

Known limits:
    Times are when the CPU enqueued each collective: a lag inside the collective (a slow link) shows only
    where a source records completion. Ranks on different hosts compare clocks that NTP keeps about a
    millisecond apart, so lags below that are not counted. Only the last 1,000 collectives of each group
    are read. A hang or failure outranks it: then it is context.

Suggested fix:
    Find what the late rank does before the collective: ``py-spy dump --pid PID`` (or ``py-spy record``) of
    it and of a healthy rank during a few steps; check its data loader, disk and CPU, and on its host
    ``nvidia-smi -q -d PERFORMANCE`` (clocks, throttling).
"""
from __future__ import annotations

from ..diagnosis.arrivals import Straggling, straggler
from ..model import Confidence, ranks_text, shows_health
from .base import BaseDetector, Context, is_timeout, row_evidence

_TIMED_OUT = {"watchdog_timeout", "gloo_error", "monitored_barrier", "desync_report"}


class Straggler(BaseDetector):
    code, name, cls = "S701", "straggler", "straggler"
    needs = ("timeline",)

    def check(self, ctx: Context):
        colls = ctx.timelines.colls
        found = straggler(colls, {r: st.host for r, st in ctx.ranks.items() if st.host})
        if found is None or (found.waited < FINISHED_MIN_WAIT and _exited_cleanly(ctx)):
            return
        who = (f"the ranks of host {found.host} ({ranks_text(found.ranks)})" if found.host
               else f"rank {found.ranks[0]}")
        message = (f"{who} arrived last at {len(found.late)} of {found.timed} collectives, a median "
                   f"{_ms(found.median)} after the others (p95 {_ms(found.p95)}); the others waited "
                   f"{_s(found.waited)} for {'them' if found.host else 'it'}, {found.share:.0%} of all the waiting")
        message += _timeout_after(ctx, found)
        message += (f"; {'they' if found.host else 'it'} enqueued {'their' if found.host else 'its'} collectives "
                    "late: the time goes before the collective (compute, data loading, the host), not into the network")
        newest = found.late[-1]
        rows = colls.loc[[late.row for late in found.late[-3:]]]
        conf = Confidence.MEDIUM if len(found.late) >= 5 and found.share >= 0.8 else Confidence.LOW
        yield self.finding(found.ranks, message, conf, row_evidence(rows), _fix(found), newest.group, newest.seq)


FINISHED_MIN_WAIT = 1.0      # s: a job that ran to a clean exit lost less than this to the late rank: no verdict
                             # (a healthy 2-rank CPU run: rank 0's own logging, 7 ms at 7 of 16 collectives, 0.07 s)


def _exited_cleanly(ctx: Context) -> bool:
    """The launcher's success line, or a clean exit of every rank of the world (not a flight recorder's
    completed entries: a dump is written while the job runs)."""
    if ctx.launcher_success():
        return True
    clean = {ev.rank for ev in ctx.events if ev.rank is not None and shows_health(ev)}
    return bool(ctx.world) and clean >= set(ctx.world)


def _fix(found: Straggling) -> str:
    return (f"find what rank {found.ranks[0]} does before its collectives: py-spy dump (or py-spy record) it and a "
           "healthy rank during a few steps; check its data loader, disk, CPU and GPU clocks (nvidia-smi -q -d "
           "PERFORMANCE)" if not found.host else
           f"check host {found.host}: CPU and memory contention, its disks and network, GPU clocks and throttling "
           "(nvidia-smi -q -d PERFORMANCE); compare it with a healthy host")


def _timeout_after(ctx: Context, found: Straggling) -> str:
    """', then it never reached seq N …: the timeout is its' when the job timed out waiting for it."""
    timeouts = [ev for ev in ctx.of(*_TIMED_OUT) if ev.rank not in found.ranks and is_timeout(ev)]
    if not timeouts:
        return ""
    colls = ctx.timelines.colls
    mine = colls[colls["rank"].isin(found.ranks)]
    others = colls[~colls["rank"].isin(found.ranks)]
    if mine.empty or others.empty:
        return ""
    reached, waited_at = int(mine["seq"].max()), int(others["seq"].max())
    lags = [late.gap for late in found.late[-4:]]
    grew = f"; its lag grew ({', '.join(map(_ms, lags))})" if len(lags) >= 3 and lags == sorted(lags) else ""
    cite = f"{timeouts[0].file}:{timeouts[0].line}"
    if waited_at > reached:
        return (f"{grew}, then it never reached seq {reached + 1}, which the others waited in until they timed out "
                f"({cite}): the timeout is the straggler's")
    if grew:
        return f"{grew}, and the others timed out waiting for it ({cite}): the timeout is the straggler's"
    return ""


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms" if seconds >= 0.0095 else f"{seconds * 1000:.1f} ms"


def _s(seconds: float) -> str:
    return f"{seconds:.2f} s" if seconds < 120 else f"{seconds / 60:.1f} min"
