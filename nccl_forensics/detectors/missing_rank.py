"""R203 missing-rank: the ranks that left evidence all stopped at one point, and an expected rank left none.

What it detects:
    The evidence states the world (NCCL ``nranks``, the flight recorder's ``world_size`` and group
    membership, torchrun's failure table, a monitored barrier or DETAIL message naming a rank, the file
    names) and one or a few of its ranks have no usable evidence of their own: no file at all, or only files
    that could not be read (unreadable, refused, binary). Every rank that did leave evidence stopped at the
    same point: the same last collective in every group, all inside a collective in py-spy, or all reporting
    timeouts or closed connections. The missing rank is then the prime suspect: the one everyone waits for.

Why it hangs or dies:
    A collective needs every member. If one rank died or got stuck before its log was saved (its node went
    down, its disk was lost, nobody copied its file), the others block in the collective it never entered,
    and the only trace of it is its absence.

Evidence it needs:
    Any statement of the world's size or membership, plus the other ranks' timelines, py-spy dumps or error
    lines. Reported as ``dropped_rank`` when the peers saw its connection close (it died), else as
    ``stuck_rank`` (logs alone cannot tell a stuck rank from a dead one on NCCL).

Example:
    ``sample_logs/bundles/stopped-rank-nccl`` without rank 6's log →
    ``stuck_rank: rank 6 left no evidence (the world has 8 ranks: nranks 8 at nccl.rank0….log:12) while ranks
    0-5, 7 all stopped at seq 146 of group nccl:0x97611f4ee0cb1e6b``.

Known limits:
    A job that finished cleanly but lost one rank's log looks the same when nothing records the finish (no
    communicator destroy lines, no torchrun SUCCEEDED); confidence is low then, and medium only when the
    present ranks show a hang (timeouts, py-spy inside a collective). Silent while a file of unknown rank
    holds evidence or could not be read (a flight-recorder dump renamed without its rank): it may be the
    missing rank's; the verdict is then inconclusive.

Suggested fix:
    Recover that rank's evidence (its node's local disk, the scheduler's log, ``dmesg`` on its node); while
    the job still hangs, ``py-spy dump`` the process of that rank. Next time write logs to shared storage
    (``NCCL_DEBUG_FILE``, torchrun ``--log-dir``).
"""
from __future__ import annotations

from ..model import Confidence, rank_span
from .base import BaseDetector, Context, row_evidence
from .healthy import finished_ranks

_DEATH = {"connection_closed", "connection_reset"}
_UNUSABLE = {"no evidence", "unreadable", "refused", "binary", "corrupt"}


class MissingRank(BaseDetector):
    code, name, cls = "R203", "missing-rank", "stuck_rank"
    needs = ("timeline", "pyspy", "timeouts", "errors")

    def check(self, ctx: Context):
        world = ctx.expected
        gaps = {r: g for r, g in ctx.gaps().items() if g.reason in _UNUSABLE}
        if not gaps or world is None or not world.present or world.unranked or world.unattributed or ctx.completed():
            return                                          # (its evidence may be in a file of unknown rank)
        if len(gaps) > max(1, len(world.expected) // 2):
            return                                          # too little evidence to single anyone out
        if set(world.present) <= set(finished_ranks(ctx)) and not _hang_signs(ctx):
            return                                          # the others finished: a gap (H001 says so), no hang
        halt, evidence, where = _halt(ctx, world.present)
        if not halt:
            return
        died = _peers_saw_death(ctx)
        ranks = sorted(gaps)
        who = f"rank{'s' if len(ranks) > 1 else ''} {rank_span(ranks)}"
        one = len(world.present) == 1
        peers = f"rank {world.present[0]}" if one else f"ranks {rank_span(world.present)} all"
        msg = f"{who} left no usable evidence ({_why(gaps)}) while {peers} {halt[0] if one else halt[1]}"
        if died:
            msg += "; its peers saw its connection close (it died)"
        conf = Confidence.MEDIUM if len(ranks) == 1 and (died or _hang_signs(ctx)) else Confidence.LOW
        finding = self.finding(ranks, msg, conf, evidence, _FIX, *where)
        if died:
            finding.cls = "dropped_rank"
        yield finding


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
