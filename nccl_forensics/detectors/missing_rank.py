"""R203 missing-rank: the rank missing from the front of its groups, that no one else explains.

What it detects:
    (a) The wavefront across process groups (diagnosis/wavefront.py): in every group, the collective some
    members never joined; a missing rank that itself waits for no one (no pending collective whose group
    misses a member, no send or recv waiting for a peer) is the root cause, and every rank that waits, in
    whatever group, is a consequence. With dumps of the other ranks written during the hang and none from this
    rank, it is most likely dead (``dropped_rank``): the dump is written by each live rank's watchdog /
    heartbeat-monitor thread, not by its main thread, so even a rank wedged in a C call holding the GIL dumps
    (without stack frames). With a dump of its own, it is alive and stuck outside collectives (``stuck_rank``).
    (b) Without flight-recorder fronts: the evidence states the world (NCCL ``nranks``, the flight recorder's
    ``world_size`` and group membership, torchrun's failure table, a monitored barrier or DETAIL message
    naming a rank, the file names) and one or a few of its ranks have no usable evidence of their own, while
    every rank that did leave evidence stopped at the same point (the same last collective in every group, all
    inside a collective in py-spy, or all reporting timeouts or closed connections).

Why it hangs or dies:
    A collective needs every member. If one rank died or got stuck, its peers block in the next collective
    they share with it, and their own peers in other groups block behind them: in a TP x PP x DP x EP job the
    hang spreads to every group, and each group on its own looks guilty.

Evidence it needs:
    Flight-recorder dumps of most ranks (pending entries; ``only_active`` dumps are enough), or any statement
    of the world's size plus the other ranks' timelines, py-spy dumps or error lines.

Example:
    16-rank Megatron MoE job, rank 5 wedged →
    ``stuck_rank: rank 5 never joined all_to_all seq 12 of group 9 (EXPERT_MODEL_PARALLEL_GROUP), where ranks
    4, 6, 7 wait for it; it is missing from the front of 3 stalled groups and waits in none …``.

Known limits:
    A rank whose dump was simply not collected looks dead; say so by collecting every rank's dump. A deadlock
    (each rank waits for another: a collective skipped in one group while the skipper waits in another) has no
    root and is left to C104/C106. A rank that was late by more at each collective before it went missing is a
    straggler the timeout caught (S701), not reported here. Without fronts, a job that
    finished cleanly but lost one rank's log looks the same as a hang when nothing records the finish;
    confidence is low then. Silent while a file of unknown rank holds evidence or could not be read.

Suggested fix:
    For a dead rank: its exit status, ``dmesg`` on its node (OOM killer, Xid), the scheduler's log. For a stuck
    one: ``py-spy dump --native --pid`` its process while the job hangs (a C call holding the GIL shows only
    with --native). Next time write logs to shared storage (``NCCL_DEBUG_FILE``, torchrun ``--log-dir``).
"""
from __future__ import annotations

from ..diagnosis.arrivals import straggler
from ..diagnosis.fr_semantics import P2POp
from ..model import Confidence, Evidence, ranks_phrase, ranks_text
from ._fronts import fronts_of
from .base import BaseDetector, Context, row_evidence
from .healthy import finished_ranks

_DEATH = {"connection_closed", "connection_reset"}
_UNUSABLE = {"no evidence", "unreadable", "refused", "binary", "corrupt"}


class MissingRank(BaseDetector):
    code, name, cls = "R203", "missing-rank", "stuck_rank"
    needs = ("timeline", "pyspy", "timeouts", "errors")

    def check(self, ctx: Context):
        found = list(self._from_fronts(ctx))
        if found:
            yield from found
            return
        world = ctx.expected
        gaps = {r: g for r, g in ctx.gaps().items() if g.reason in _UNUSABLE}
        if not gaps or world is None or not world.present or world.unranked or world.unattributed or ctx.completed():
            return                                          # (its evidence may be in a file of unknown rank)
        if len(gaps) > max(1, len(world.expected) // 2) and not set(gaps) <= _barrier_named(ctx):
            return                                          # too little evidence to single anyone out
        if set(world.present) <= set(finished_ranks(ctx)) and not _hang_signs(ctx):
            return                                          # the others finished: a gap (H001 says so), no hang
        halt, evidence, where = _halt(ctx, world.present)
        if not halt:
            return
        died = _peers_saw_death(ctx)
        ranks = sorted(gaps)
        who = f"{ranks_phrase(ranks)}"
        one = len(world.present) == 1
        peers = f"rank {world.present[0]}" if one else f"ranks {ranks_text(world.present, runs=True)} all"
        msg = f"{who} left no usable evidence ({_why(gaps)}) while {peers} {halt[0] if one else halt[1]}"
        if died:
            msg += "; its peers saw its connection close (it died)"
        conf = Confidence.MEDIUM if len(ranks) == 1 and (died or _hang_signs(ctx)) else Confidence.LOW
        finding = self.finding(ranks, msg, conf, evidence, _FIX, *where)
        if died:
            finding.cls = "dropped_rank"
        yield finding


    def _from_fronts(self, ctx: Context):
        """(a): the roots of the wavefront, split into ranks with no dump (likely dead) and ranks with one (stuck)."""
        if ctx.timelines.empty or "flight_recorder" not in ctx.timelines.sources():
            return
        wf = fronts_of(ctx)
        if not wf.roots or wf.cycle or _slowing(ctx, wf.roots) or _disputed(ctx, wf.explaining(wf.roots)):
            return
        world = ctx.expected
        dumped = {ev.rank for ev in ctx.of("fr_dump") if ev.rank is not None}
        unsure = world is not None and (world.unranked or world.unattributed)
        gaps = ctx.gaps()
        ended = {r for r, st in ctx.ranks.items() if st.end}         # how it ended is known: R201 and others say
        alive = {r for r, st in ctx.ranks.items() if st.where and not st.end}     # py-spy saw its stack
        dead = [r for r in wf.roots if r not in dumped and r not in alive
                and (r not in gaps or gaps[r].reason == "no evidence")]
        stuck = [r for r in wf.roots if (r in dumped or r in alive) and r not in ended]
        if dead and not unsure:
            yield self._root(ctx, wf, dead, dead=True)
        if stuck:
            yield self._root(ctx, wf, stuck, dead=False)

    def _root(self, ctx: Context, wf, ranks: list[int], dead: bool):
        fronts = wf.explaining(ranks)
        top = fronts[0] if fronts else None
        who = f"{ranks_phrase(ranks)}"
        waiters = [r for r in top.waiting if r not in ranks] if top else \
            sorted(r for r, peers in wf.waits.items() if set(ranks) & peers)
        verb = f"wait{'s' if len(waiters) == 1 else ''} for {'them' if len(ranks) > 1 else 'it'}"
        msg = (f"{who} never joined {top.op or 'the collective'} seq {top.seq} of group {top.name}, where "
               f"rank{'s' if len(waiters) != 1 else ''} {ranks_text(waiters, runs=True) or '-'} {verb}" if top else
               f"{who} never posted the send or recv that rank{'s' if len(waiters) != 1 else ''} "
               f"{ranks_text(waiters, runs=True)} {verb} in")
        mine = [f for f in wf.fronts.values() if set(ranks) & set(f.members)]
        msg += (f"; {'they are' if len(ranks) > 1 else 'it is'} missing from the front of {len(fronts)} of "
                f"{len(mine)} stalled group{'s' if len(mine) != 1 else ''} {'they' if len(ranks) > 1 else 'it'} "
                "belong" + ("" if len(ranks) > 1 else "s") + " to and wait" + ("" if len(ranks) > 1 else "s")
                + " in none")
        others = [r for r in wf.consequences if r not in ranks and r not in waiters]
        if others:
            msg += (f"; {ranks_phrase(others)} wait behind "
                    f"{'them' if len(ranks) > 1 else 'it'} in other groups (consequences)")
        if dead:
            msg += (f"; {who} left no flight-recorder dump while the others dumped during the hang: each live rank's "
                    "watchdog thread writes its dump (not its main thread, so even a wedged rank dumps), so "
                    f"{'they were' if len(ranks) > 1 else 'it was'} most likely dead (killed, crashed, or "
                    "its node lost)")
            if _peers_saw_death(ctx):
                msg += "; its peers saw its connection close"
        elif any(r not in {ev.rank for ev in ctx.of("fr_dump")} for r in ranks):
            st = ctx.ranks[ranks[0]]
            msg += (f"; {who} left no flight-recorder dump, yet py-spy shows {'them' if len(ranks) > 1 else 'it'} "
                    f"alive ({_doing(st)}): its dump thread could not run (a C call holding the GIL stops every "
                    "Python thread, and gloo dumps from Python), so it is stuck, not dead")
        else:
            msg += (f"; {'their' if len(ranks) > 1 else 'its'} own dump shows no collective waiting for anyone: "
                    f"{'they are' if len(ranks) > 1 else 'it is'} alive (the watchdog dumped) and stuck outside "
                    "collectives")
            state = ctx.ranks.get(ranks[0])
            if state is not None and state.where:
                msg += f" (py-spy: {_doing(state)})"
        conf = Confidence.HIGH if len(fronts) == len(mine) else Confidence.MEDIUM
        if dead:
            conf = Confidence.MEDIUM
        colls = ctx.timelines.colls
        cited = colls[(colls["group"] == top.group) & (colls["seq"] == top.seq) & colls["rank"].isin(top.waiting[:2])] \
            if top else colls.iloc[0:0]
        evidence = row_evidence(cited) + [e for r in ranks[:2] if r in ctx.ranks for e in ctx.ranks[r].evidence[:1]]
        evidence += [] if top else _p2p_evidence(ctx, waiters[:2], ranks)
        finding = self.finding(ranks, msg, conf, evidence, _DEAD_FIX if dead else _STUCK_FIX,
                               top.group if top else None, top.seq if top else None)
        finding.cls = "dropped_rank" if dead else "stuck_rank"
        finding.group_desc = top.desc if top else None
        finding.groups = [f.to_dict() for f in fronts]
        return finding


def _doing(st) -> str:
    where = {"collective": f"inside {st.op or 'a collective'}", "data_loading": "loading data",
             "checkpointing": "checkpointing", "busy": "busy on CPU",
             "waiting": "idle or blocked"}.get(st.where, st.where)
    return f"{where} at {st.at}" if st.at else str(where)


def _disputed(ctx: Context, fronts: list) -> bool:
    """Do the ranks that reached each front disagree there (op, dtype, size)? The mismatch is then the failure
    (C101-C104) and the missing dumps are only missing evidence."""
    out = ctx.outliers
    if not fronts or out.empty:
        return False
    keys = set(zip(out["group"].astype(str), out["seq"].astype(int), strict=True))
    return all((f.group, f.seq) in keys for f in fronts)


def _slowing(ctx: Context, roots: list[int]) -> bool:
    """Were the roots late at collective after collective, by more each time, before they went missing? Then the
    job timed out waiting for a straggler (S701 says so), not for a rank that stopped."""
    found = straggler(ctx.timelines.colls)
    if found is None or not set(roots) <= set(found.ranks):
        return False
    lags = [late.gap for late in found.late[-4:]]
    return len(lags) >= 3 and lags == sorted(lags)


def _p2p_evidence(ctx: Context, waiters: list[int], peers: list[int]) -> list:
    out = []
    for rank, file, *fields in ctx.p2p:
        op = P2POp(*fields)
        if rank in waiters and op.peer in peers and op.state != "completed":
            out.append(Evidence(file, op.line, f"flight_recorder p2p seq {op.p2p_seq} {op.op} peer {op.peer} "
                                               f"state {op.state}"))
    return out[-2:]


_DEAD_FIX = ("find out how that rank ended: torchrun's exit codes, `dmesg` / `journalctl -k` on its node (OOM killer, "
             "GPU Xid errors), the scheduler's log; if its dump was only not collected, collect it and run again.")
_STUCK_FIX = ("`py-spy dump --native --pid PID` that rank's process while the job hangs (a C call holding the GIL "
              "shows only with --native); then fix what its main thread is doing.")
_FIX = ("recover that rank's evidence (its node's local disk, the scheduler log, dmesg on its node); if the job still "
        "hangs, `py-spy dump --pid` its process; next time write NCCL_DEBUG_FILE and torchrun --log-dir to shared "
        "storage.")


def _halt(ctx: Context, present: list[int]) -> tuple[tuple[str, str] | None, list, tuple]:
    """How the present ranks show they all stopped at one point, said of one rank and of several (None when they
    do not), its evidence, and the (group, seq) they stopped in where a timeline says."""
    pos = ctx.timelines.positions
    if not pos.empty:
        mine = pos[pos["rank"].isin(present)]
        if not mine.empty and (mine["position"] == "at").all():
            groups = sorted(mine["group"].unique())
            g = groups[0]
            seq = ctx.timelines.last_common.get(g)
            colls = ctx.timelines.colls
            last = colls[(colls["group"] == g) & colls["rank"].isin(present)].sort_values("seq").tail(2)
            where = f"seq {seq} of group {g}" + (f" (and {len(groups) - 1} more groups)" if len(groups) > 1 else "")
            return (f"stopped at {where}",) * 2, row_evidence(last), (g, seq)
    spies = [ctx.ranks[r] for r in present if r in ctx.ranks and ctx.ranks[r].where]
    if spies and all(st.where == "collective" for st in spies):
        ops = sorted({st.op for st in spies if st.op})
        where = f"in {'/'.join(ops) or 'a collective'} (py-spy)"
        return (f"waits {where}", f"wait {where}"), [e for st in spies[:2] for e in st.evidence[:1]], (None, None)
    waits = ctx.of("watchdog_timeout", "gloo_error", "monitored_barrier")
    if waits and {ev.rank for ev in waits if ev.rank is not None} >= set(present):
        return ("timed out or lost a peer",) * 2, waits[:3], (None, None)
    return None, [], (None, None)


def _barrier_named(ctx: Context) -> set[int]:
    """The ranks a failed monitored barrier names as not arriving: stated by rank 0, not guessed from absence."""
    return {r for ev in ctx.of("monitored_barrier") if ev.data.get("state") == "failed"
            for r in ev.data.get("missing_ranks") or []}


def _why(gaps: dict) -> str:
    if len(gaps) == 1:
        (gap,) = gaps.values()
        if gap.reason == "no evidence":
            return gap.detail or "no file"
        return gap.reason + (f": {gap.detail}" if gap.detail else "")
    return "; ".join(f"rank {r}: {g.reason}" for r, g in sorted(gaps.items())[:4])


def _hang_signs(ctx: Context) -> bool:
    return bool(ctx.of("watchdog_timeout", "monitored_barrier", "heartbeat")) or any(
        st.where == "collective" for st in ctx.ranks.values())


def _peers_saw_death(ctx: Context) -> bool:
    return any(ev.data.get("category") in _DEATH for ev in ctx.of("gloo_error"))
