"""R202 stuck-rank: a rank is alive but not inside the collective its peers are waiting in.

What it detects:
    py-spy shows the peers inside a collective (``all_reduce`` in ``distributed_c10d.py``) while this
    rank's main thread is elsewhere: loading data, checkpointing, a busy loop, or sleeping. Or the
    timeline shows the rank stopped at the last common collective and py-spy shows it outside one.
    With a timeline alone (no py-spy, no exit status), a rank that stopped issuing collectives while the
    others went on is reported here with low confidence: logs alone cannot tell stuck from dead. A rank
    whose flight recorder shows it entering a collective later than the timeout its peers hit waiting for
    it is the cause of that timeout (high confidence), never one of its consequences. A worker that
    torch.distributed.elastic.timer reaped (``Reaping worker_id=[PID]. Expired timers: [...]``) overran its
    ``expires()`` block: stuck there, its SIGKILL the timer's (the rank whose pid torchrun's table names). A
    rank whose process the kernel reports blocked (``INFO: task python:PID blocked for more than N seconds``, the
    pid read to a rank from its own lines) while the others' watchdogs time out and it reports no timeout is the
    rank they waited for (medium confidence). A Horovod stall report whose coordinator (rank 0) names itself
    among the ranks that did not submit (absent from `[ready ranks: ...]`, or listed missing) is alive and stuck
    outside the collective: the report comes from its background thread (medium confidence).
    A failed barrier of a runtime that checks its workers' health apart from the barrier (Ray Train v2's report
    barrier, ``The following ranks have not called it: [2]``: a worker that died fails its health check long
    before the barrier's timeout) names ranks that were alive and never came: stuck or late (medium confidence).
    A rank whose own progress monitor killed it (nvidia-resiliency-ext's fault-tolerance rank monitor: ``[Cycle N]
    Did not get subsequent heartbeat``, a section open past its timeout) stopped progressing; medium confidence where
    other ranks are seen that it did not kill, none where it killed every rank seen (a shared hang).

Why it hangs or dies:
    Collectives wait for every member. Its peers block until the process-group timeout and then fail
    ("Timed out waiting Nms for recv" on gloo, the watchdog on NCCL); torchrun then blames whichever peer
    timed out first — a healthy rank.

Evidence it needs:
    py-spy dumps (``py-spy dump --pid``) of the ranks, ideally all; a timeline makes it stronger.

Example:
    ``ncclf diagnose sample_logs/bundles/real-stuck-rank`` →
    ``stuck_rank: rank 3 is busy in load_batch (train.py:17) while ranks 0-2 wait in all_reduce``.

Known limits:
    A py-spy dump is a snapshot: a straggler caught between steps looks stuck. py-spy alone decides (a
    capture is taken because the job hangs), but with no sign the job hung or failed and no timeline lag it
    is reported one confidence step lower, lower again when more ranks are outside than inside a collective
    or the stacks do not cover every expected rank, and not at all when the job shows it finished (every
    flight-recorder entry completed, every communicator destroyed).

Suggested fix:
    Look at the named frame: unbounded data loading, a checkpoint written by one rank inside the step,
    a rank-dependent loop. Set a shorter timeout while debugging and add `TORCH_NCCL_DUMP_ON_TIMEOUT=1`.
"""
from __future__ import annotations

import numpy as np

from ..diagnosis.arrivals import arrivals
from ..diagnosis.rank_state import cite, timer_reaped_pids
from ..diagnosis.timeline import stragglers
from ..model import Confidence, Event, ranks_phrase, ranks_text
from ._fronts import consequences
from .base import BaseDetector, Context, lower, rank_list, row_evidence, timeout_seconds

_OUTSIDE = {"data_loading", "checkpointing", "busy", "waiting"}


class StuckRank(BaseDetector):
    code, name, cls = "R202", "stuck-rank", "stuck_rank"
    needs = ("pyspy", "timeline", "launcher_log", "timeouts")

    def check(self, ctx: Context):
        yield from self._reaped_by_timer(ctx)
        yield from self._late_past_timeout(ctx)
        yield from self._from_pyspy(ctx)
        yield from self._from_timeline(ctx)
        yield from self._from_states(ctx)
        yield from self._blocked_in_kernel(ctx)
        yield from self._named_by_own_report(ctx)
        yield from self._named_alive_by_barrier(ctx)
        yield from self._killed_by_rank_monitor(ctx)

    def _reaped_by_timer(self, ctx: Context):
        """torch.distributed.elastic.timer reaped a worker whose `expires()` block overran: that worker was stuck in
        the block (its pid is the rank's where torchrun's table or the rank's own lines name it)."""
        for pid, ev in sorted(timer_reaped_pids(ctx.of("agent_log")).items()):
            ranks = [r for r, st in ctx.ranks.items() if pid in st.pids]
            who = f"rank {rank_list(ranks)} (pid {pid})" if ranks else f"the worker with pid {pid}"
            scopes = ev.data.get("scopes")
            msg = (f"{who} overran its timed block{f' {scopes}' if scopes else ''}: the elastic timer server reaped "
                   "it, so it was stuck there (its SIGKILL is the timer's)")
            yield self.finding(ranks, msg, Confidence.HIGH if ranks else Confidence.MEDIUM, [cite(ev)], _TIMER_FIX)

    def _blocked_in_kernel(self, ctx: Context):
        """The kernel's hung-task report names a rank's process (by its pid) blocked uninterruptibly for minutes,
        in the GPU driver or on storage, while other ranks' watchdogs time out in a collective and it reports no
        timeout of its own: it is the rank they waited for."""
        waiting = {int(ev.rank) for ev in ctx.of("watchdog_timeout") if ev.rank is not None}
        blocked: dict[int, Event] = {}
        for ev in ctx.of("hung_task"):
            if ev.rank is not None and int(ev.rank) not in waiting:
                blocked.setdefault(int(ev.rank), ev)
        if not waiting or not blocked or len(blocked) >= len(waiting):
            return
        ranks = sorted(blocked)
        first = next(iter(blocked.values()))
        data = first.data
        msg = (f"rank {rank_list(ranks)}'s process ({data.get('task')}, pid {data.get('pid')}) was blocked in the "
               f"kernel for more than {data.get('seconds')} s (a hung task) while rank"
               f"{'s' if len(waiting) > 1 else ''} {rank_list(sorted(waiting))} timed out waiting in a collective: it "
               "never reached it")
        evidence = [cite(ev) for ev in blocked.values()][:2] + [cite(ev) for ev in ctx.of("watchdog_timeout")][:1]
        yield self.finding(ranks, msg, Confidence.MEDIUM, evidence, _KERNEL_FIX)

    def _named_by_own_report(self, ctx: Context):
        """A stall report whose reporter names itself as not having submitted: Horovod's coordinator (rank 0)
        checks for stalled tensors on its background thread, apart from the framework thread that submits them, so
        a rank-0 listed missing (or absent from the ready ranks) is alive and its training thread is stuck outside
        the collective the others submitted (torch's monitored barrier never names its own reporter)."""
        named = [ev for ev in ctx.of("monitored_barrier") if ev.data.get("state") == "failed"
                 and ev.rank is not None and ev.rank in (ev.data.get("missing_ranks") or [])]
        rank = named[0].rank if named else None
        if rank is None:
            return
        seconds = named[0].data.get("stall_seconds")
        msg = (f"rank {rank}'s own stall report names it as not having submitted tensors the other ranks did"
               f"{f' for more than {seconds} s' if seconds else ''}: its coordinator thread is alive, its training "
               "thread stuck or late before that collective")
        yield self.finding([rank], msg, Confidence.MEDIUM, [cite(ev) for ev in named[:2]], _SELF_NAMED_FIX)

    def _named_alive_by_barrier(self, ctx: Context):
        """A failed barrier whose runtime watches its workers' health apart from it (catalogue `missing_alive`: Ray
        Train v2 reports a dead worker by its failed health check, within seconds, long before its report barrier
        times out): the ranks it names as never arriving were alive, stuck or late before it."""
        named = [ev for ev in ctx.of("monitored_barrier") if ev.data.get("state") == "failed"
                 and ev.data.get("missing_alive") and ev.data.get("missing_ranks")]
        ranks = sorted({int(r) for ev in named for r in ev.data["missing_ranks"]})
        if not ranks:
            return
        msg = (f"{ranks_phrase(ranks)} never reached the barrier the other ranks waited in, while the runtime "
               "that watches its workers' health saw it alive: it was stuck or late before that barrier")
        yield self.finding(ranks, msg, Confidence.MEDIUM, [cite(ev) for ev in named[:2]], _SELF_NAMED_FIX)

    def _killed_by_rank_monitor(self, ctx: Context):
        """A per-rank progress monitor (nvidia-resiliency-ext's rank monitor, catalogue category `rank_monitor`)
        saw its rank's heartbeats or sections stop past their timeout and killed it: that rank stopped progressing.
        Where every rank seen (two or more) was killed so, the hang was shared (a collective all of them waited in)
        and the monitors name no one."""
        named = [ev for ev in ctx.of("heartbeat") if ev.data.get("category") == "rank_monitor" and ev.rank is not None]
        ranks = sorted({ev.rank for ev in named if ev.rank is not None})
        seen = set(ctx.world) | set(ctx.ranks)
        if not ranks or len(ranks) > 1 and seen <= set(ranks):
            return
        others = seen - set(ranks)
        msg = (f"{ranks_phrase(ranks)} stopped progressing: {'its' if len(ranks) == 1 else 'their'} rank monitor "
               f"got no heartbeat or section end within its timeout and killed it"
               f"{f' (rank {rank_list(sorted(others))} did not time out)' if others else ''}")
        yield self.finding(ranks, msg, Confidence.MEDIUM if others else Confidence.LOW,
                           [cite(ev) for ev in named[:2]], _MONITOR_FIX)

    def _late_past_timeout(self, ctx: Context):
        """A rank that entered a collective later than the timeout its peers hit while waiting for it: the timeout
        is the consequence, that rank the cause (the flight recorder's enqueue times show it)."""
        timeout_s = _shortest_timeout(ctx)
        colls = ctx.timelines.colls
        if timeout_s is None or colls.empty or "time" not in colls:
            return
        every = arrivals(colls)
        late = every[every["gap"] > timeout_s]
        for row in late.itertuples(index=False):
            who, at = int(row.who), colls.loc[int(row.row)]
            lagged = every[(every["who"] == row.who) & (every["group"] == row.group) & (every["seq"] < row.seq)
                           & (every["gap"] >= _STRAGGLING_S)]
            if len(lagged) >= 2:
                continue                                # a lag that grew until the timeout: a straggler's (S701)
            peers = colls[(colls["group"] == row.group) & (colls["seq"] == row.seq) & (colls["rank"] != who)]
            msg = (f"rank {who} entered {at['op']} seq {int(row.seq)} of group {row.group} {row.gap:.1f} s after "
                   f"rank{'s' if len(peers) > 1 else ''} {rank_list(int(r) for r in peers['rank'])}, later than the "
                   f"{timeout_s:g} s timeout {'they' if len(peers) > 1 else 'it'} hit waiting for it: the timeout is the consequence, rank {who} the "
                   "cause (it was busy or stuck before this collective)")
            evidence = row_evidence(colls.loc[[int(row.row)]]) + row_evidence(peers.head(1))
            evidence += [cite(ev) for ev in ctx.of(*_TIMEOUT_KINDS) if timeout_seconds(ev) is not None][:1]
            yield self.finding([who], msg, Confidence.HIGH, evidence, _LATE_FIX, row.group, int(row.seq))

    def _from_states(self, ctx: Context):
        """Flight recorder: at a group's first collective not completed everywhere, the peers have it `started`
        (their GPUs entered it) and a rank has it only `scheduled`: that rank's device never reached it. (gloo
        leaves every entry `scheduled`, so a state of `started` anywhere is needed.)"""
        colls = ctx.timelines.colls
        if colls.empty or "state" not in colls:
            return
        fr = colls[(colls["source"] == "flight_recorder") & (colls["state"] != "completed")]
        if fr.empty:
            return
        # each group's first open collective, for every group at once; only groups where it is `started` on
        # some rank and `scheduled` on another are looked at one by one (a Megatron job has hundreds of groups)
        names = fr["group"].astype(str)
        opening = fr["seq"].to_numpy() == fr["seq"].groupby(names).transform("min").to_numpy()
        first, first_names = fr[opening], names[opening]
        state = first["state"].astype(str)
        both = set(first_names[state == "started"]) & set(first_names[state == "scheduled"])
        if not both:
            return
        behind = consequences(ctx, stalled=False)       # their device waits in another group (wavefront.py)
        for group in sorted(both):
            at = first[(first_names == group).to_numpy()]
            seq = int(at["seq"].iloc[0])
            started = sorted(int(r) for r in at.loc[at["state"] == "started", "rank"])
            waiting = sorted(int(r) for r in at.loc[at["state"] == "scheduled", "rank"] if r not in behind)
            if not started or not waiting or len(waiting) > len(started):
                continue
            op = at["op"].iloc[0]
            msg = (f"rank{'s' if len(waiting) > 1 else ''} {rank_list(waiting)} never started {op} seq {seq} of group "
                   f"{group} on the device, while rank{'s' if len(started) > 1 else ''} {rank_list(started)} "
                   f"{'are' if len(started) > 1 else 'is'} inside it: the GPU of {rank_list(waiting)} is stuck in "
                   "earlier work or the process never launched it")
            rows_cited = at[at["rank"].isin(waiting[:2] + started[:1])]
            yield self.finding(waiting, msg, Confidence.HIGH, row_evidence(rows_cited), _STATE_FIX, group, seq)

    def _from_timeline(self, ctx: Context):
        """No py-spy and no exit for a rank that stopped issuing collectives: stuck as far as we can tell."""
        cut = ctx.cut_short() | consequences(ctx)       # their evidence ends where their file does; or they
                                                        # wait in another group for a stuck rank (wavefront.py)
        timed_out = _timed_out(ctx)
        for group, (side, ranks, seq) in stragglers(ctx.timelines).items():
            quiet = [r for r in ranks if ctx.ranks.get(r) is not None and ctx.ranks[r].where is None
                     and (ctx.ranks[r].end is None or r in timed_out) and r not in cut]
            if side != "behind" or not quiet or len(quiet) != len(ranks):
                continue
            colls = ctx.timelines.colls                 # positions, not copies: a group may have millions of rows
            in_group, quiet_rows = (colls["group"] == group).to_numpy(), np.isin(colls["rank"].to_numpy(), quiet)
            seqs = colls["seq"].to_numpy()
            last = colls.iloc[_last_of_each_rank(colls, np.flatnonzero(in_group & quiet_rows))]
            others = np.flatnonzero(in_group & ~quiet_rows)
            later = others[seqs[others] > seq]
            waited = colls.iloc[later[np.argsort(seqs[later], kind="stable")[:1]]]   # what the others wait in
            missed = int(waited["seq"].iloc[0]) if not waited.empty else seq
            head = int(seqs[others].max()) if len(others) else None
            many = len(quiet) > 1
            beyond = f" (they went on to {head})" if head is not None and missed is not None and head > missed else ""
            msg = (f"rank{'s' if many else ''} {ranks_text(quiet)} stopped issuing collectives after seq {seq} of "
                   f"group {ctx.group_name(group)} and never joined seq {missed}, which the others reached{beyond}; ")
            conf = Confidence.LOW
            if all(r in timed_out for r in quiet):       # every rank's watchdog reported where it waited
                msg += (f"{'their' if many else 'its'} own watchdog timed out at seq {seq}, which the others had "
                        "completed: the others' timeouts are the consequence")
                conf = Confidence.MEDIUM
            else:
                msg += "no py-spy dump or exit status says whether it is stuck or dead (treated as stuck)"
            cited = row_evidence(last) + row_evidence(waited.head(1))
            yield self.finding(quiet, msg, conf, cited, _TIMELINE_FIX, group, missed)

    def _from_pyspy(self, ctx: Context):
        """py-spy decides on its own: ranks inside a collective (or its wait) while a rank is elsewhere make that
        rank the culprit, with 2 ranks as with 1,024. Confidence comes from the other evidence (a timeline lag, a
        failure or timeout) and from how many expected ranks the stacks cover."""
        states = ctx.ranks.values()
        inside = sorted(st.rank for st in states if st.where == "collective")
        outside = [st for st in states if st.where in _OUTSIDE and st.end not in ("killed", "crashed", "oom_killed")]
        behind = {r for side, ranks, _ in stragglers(ctx.timelines).values() if side == "behind" for r in ranks}
        if behind:                                      # a rank that went further is waiting, not stuck
            outside = [st for st in outside if st.rank in behind or st.rank not in ctx.timelines.colls["rank"].values]
        if not outside or not (inside or behind):
            return
        hung = bool(behind) or ctx.failed()
        if not hung and ctx.completed():
            return                                      # the job shows it finished: a snapshot from before its end
        conf = _pyspy_confidence(ctx, hung, len(inside), len(outside))
        ops = sorted({op for r in inside for op in [ctx.ranks[r].op] if op})
        many = len(inside) > 1
        peers = (f"rank{'s' if many else ''} {rank_list(inside)} wait{'' if many else 's'} in "
                 f"{'/'.join(ops) or 'a collective'}") if inside else "its peers went on"
        for st in outside:
            msg = f"rank {st.rank} is {_doing(st)} at {st.at or 'an unknown frame'} while {peers}"
            evidence = st.evidence[:2] + [e for r in inside[:1] for e in ctx.ranks[r].evidence[:1]]
            evidence += _last_rows(ctx, [st.rank] + inside[:1])
            yield self.finding([st.rank], msg, conf, evidence, _fix(st))


def _pyspy_confidence(ctx: Context, hung: bool, inside: int, outside: int) -> Confidence:
    """High when other evidence shows the hang and most ranks wait; one step lower for a live snapshot alone (a
    straggler between steps looks the same), or when more ranks are outside than inside; one step lower again
    when the stacks leave some expected ranks uncovered."""
    conf = Confidence.HIGH if hung else Confidence.MEDIUM
    if outside > inside:
        conf = lower(conf)
    expected = set(ctx.expected.expected) if ctx.expected is not None else set()
    stacked = {st.rank for st in ctx.ranks.values() if st.where is not None}
    if expected - stacked:
        conf = lower(conf)
    return conf


_TIMEOUT_KINDS = ("gloo_error", "watchdog_timeout", "monitored_barrier")
_STRAGGLING_S = 0.1          # earlier lags this long, twice or more: the late arrival ends a straggler's growing lag
_TIMER_FIX = ("look at what that rank ran inside the timed block (a py-spy dump of it the next time, its last log "
              "lines): a collective its peers never joined, I/O or a loop that does not end; raise `after=` if the "
              "block is legitimately slow.")
_MONITOR_FIX = ("look at what that rank ran when its heartbeats stopped (its last log lines; a py-spy dump of it the "
                "next time, before the monitor's timeout): data loading, a checkpoint, a collective its peers never "
                "joined; raise the rank monitor's timeouts if that work is legitimately slow.")
_LATE_FIX = ("look at what that rank ran just before this collective (its own earlier entries' frames, a py-spy dump "
             "of it during the next hang): work outside the collective that took longer than the process-group "
             "timeout. Make it bounded and the same on every rank, or raise the timeout if it is legitimate.")


def _timed_out(ctx: Context) -> set[int]:
    """Ranks whose process ended only in a watchdog timeout of their own (a consequence-class end that still says
    where the rank waited)."""
    return {int(ev.rank) for ev in ctx.of("watchdog_timeout") if ev.rank is not None
            and ctx.ranks.get(int(ev.rank)) is not None and not ctx.ranks[int(ev.rank)].cause
            and ctx.ranks[int(ev.rank)].end == "comm_error"}


def _shortest_timeout(ctx: Context) -> float | None:
    found = [t for ev in ctx.of(*_TIMEOUT_KINDS) for t in [timeout_seconds(ev)] if t is not None]
    return min(found) if found else None


_KERNEL_FIX = ("read the kernel's stack of that task (the lines after `blocked for more than` in dmesg): a call into "
               "the GPU driver (nvidia_ioctl: look for Xid lines, run nvidia-smi, the GPU may need a reset) or storage "
               "I/O it waits on (a hung network filesystem); fix that, then rerun.")
_SELF_NAMED_FIX = ("py-spy dump --native that rank's process while the stall lasts: its training thread is outside the "
                   "collective (data loading, a rank-dependent branch, a different tensor submitted); the other ranks' "
                   "names for the stalled tensors show which one it never reached.")
_STATE_FIX = ("look at what that rank ran before this collective (py-spy dump --native of its process, or its own "
              "earlier flight-recorder entries): a kernel or a CUDA sync that never returns, or a host-side stall "
              "between enqueueing and launching.")
_TIMELINE_FIX = ("take `py-spy dump --pid PID` of that rank (and one healthy rank) while the job hangs, and check "
                 "whether its process is still alive (dmesg, torchrun's exit codes); then fix what it is doing.")


def _last_of_each_rank(colls, rows: np.ndarray) -> np.ndarray:
    """Of `rows` (positions), each rank's row with the highest seq, in seq order."""
    ranks, seqs = colls["rank"].to_numpy()[rows], colls["seq"].to_numpy()[rows]
    picked = np.array([rows[ranks == r][np.argmax(seqs[ranks == r])] for r in np.unique(ranks)], dtype=np.int64)
    return picked[np.argsort(colls["seq"].to_numpy()[picked], kind="stable")] if len(picked) else picked


def _last_rows(ctx: Context, ranks: list[int]):
    colls = ctx.timelines.colls
    if colls.empty:
        return []
    last = colls[colls["rank"].isin(ranks)].sort_values("seq").groupby("rank", sort=True).tail(1)
    return row_evidence(last.sort_values("rank"))


def _doing(st) -> str:
    return {"data_loading": "loading data", "checkpointing": "checkpointing", "busy": "busy (on CPU) outside any "
            "collective", "waiting": "idle outside any collective (sleeping or blocked)"}[st.where]



def _fix(st) -> str:
    return (f"look at {st.at or 'the frame py-spy shows'} on rank {st.rank}: make that work bounded and the same on "
            "every rank (or move it outside the step); while debugging, set a shorter process-group timeout.")
