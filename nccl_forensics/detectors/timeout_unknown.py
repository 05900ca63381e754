"""T601 timeout-unknown: the job timed out (or hung), and the evidence does not say why.

What it detects:
    Timeout evidence — watchdog ``WorkNCCL(...) ran for N milliseconds``, gloo ``Timed out waiting Nms``,
    heartbeat monitor, Slurm ``TIME LIMIT``, faulthandler timeouts, monitored-barrier failures — or a
    rank that stopped issuing collectives, with no dead, stuck or mismatched rank to blame. It names the
    ranks that a monitored barrier or desync report names as late as suspects (a rank that stopped in the
    timeline is R202's), and the rank the others' TORCH_NCCL_PROPAGATE_ERROR signal names as the first of
    their group to fail (``remote error detected from rank: N``) where its own lines are not in the evidence.

Why it hangs or dies:
    A collective waits for all members; a rank that is late for any reason (slow I/O, a long first step,
    a rank that eventually entered) trips the timeout on the others.

Evidence it needs:
    Any timeout line.

Example:
    ``ncclf diagnose sample_logs/bundles/real-timeout`` →
    ``timeout_unknown: ranks 0, 1, 2 timed out in allreduce (seq 12); missing: py-spy dumps, flight-recorder
    dumps``.

Known limits:
    This is the fallback: it reports what is missing rather than a cause. After an NCCL failure of communicator
    setup (a catalogue line of category ``init`` with no class of its own, such as ``Bootstrap Root : mismatch in
    info from procs``) its timeouts are that failure's consequences, and X901 reports the failure. So are they after
    a rank's own check of its values before communicating (Megatron-core's ``found NaN/Inf in local grad norm``,
    catalogue category ``numerics`` scoped to the rank that printed it): that rank raised before the collective.

Suggested fix:
    Next time collect the missing evidence it lists: ``py-spy dump --pid`` of every rank while it hangs,
    ``TORCH_FR_BUFFER_SIZE=2000`` (flight recorder, dumps on timeout), ``NCCL_DEBUG=INFO
    NCCL_DEBUG_SUBSYS=INIT,COLL``, torchrun ``--log-dir`` and ``dmesg``.
"""
from __future__ import annotations

from ..model import Confidence, ranks_text
from .base import NEEDS_KINDS, BaseDetector, Context, is_timeout, own_value_check, said

_COLLECT = {
    "pyspy": "py-spy dumps of every rank while it hangs (py-spy dump --pid PID)",
    "flight_recorder": "flight-recorder dumps (TORCH_FR_BUFFER_SIZE=2000; dumped on timeout)",
    "nccl_coll": "NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,COLL logs",
    "process_end": "torchrun output / --log-dir with each rank's exit code and error.json",
}


def _timed_out_rank(ev) -> int | None:
    """The rank whose collective timed out: a rank that only received another's flight-recorder dump signal
    (`Received a dump signal due to a collective timeout from rank N`, c10d 2.4+: N is the global rank the timed-out
    watchdog wrote to the store) names that rank, not itself."""
    origin = ev.data.get("signal_from_rank") if ev.kind == "work_status" else None
    if isinstance(origin, str) and origin.isdigit():       # as a catalogue entry captures it
        origin = int(origin)
    return origin if isinstance(origin, int) else ev.rank


def _how_it_ended(timeouts) -> str:
    """What the timeout lines say of the job's end where none names a rank: Slurm's cancel that names no reason
    (slurmstepd req.c: `*** STEP N ON node CANCELLED AT time ***`, from a scancel, not its time limit) says the job
    was stopped from outside, as a hung job is, not that a wait ran out."""
    if timeouts and all(ev.kind == "slurm_cancelled" and not ev.data.get("reason") for ev in timeouts):
        return "the job was cancelled while it ran (Slurm names no reason: a scancel, not its time limit)"
    return "the job timed out"


class TimeoutUnknown(BaseDetector):
    code, name, cls = "T601", "timeout-unknown", "timeout_unknown"
    needs = ("timeouts",)

    def check(self, ctx: Context):
        timeouts = [ev for ev in ctx.of(*sorted(NEEDS_KINDS["timeouts"] or ())) if is_timeout(ev)]
        suspects = self._suspects(ctx)
        if not timeouts and not suspects:
            return
        missing = [text for need, text in _COLLECT.items() if not ctx.has(need)]
        reporters = sorted({rank for rank in map(_timed_out_rank, timeouts) if rank is not None})
        signalled = [r for r in _remote_error_ranks(ctx) if r not in suspects]
        parts = []
        if reporters:
            parts.append(f"rank{'s' if len(reporters) > 1 else ''} {ranks_text(reporters)} timed out")
        if suspects:
            parts.append(f"rank{'s' if len(suspects) > 1 else ''} {ranks_text(suspects)} stopped first "
                         "(dead, stuck or late: the evidence does not say which)")
        if signalled:
            parts.append(_first_to_fail(signalled))
            suspects = sorted(set(suspects) | set(signalled))
        msg = "; ".join(parts or [_how_it_ended(timeouts)])
        msg += "; missing: " + ("; ".join(missing) if missing else "nothing obvious — the cause is outside the logs")
        fix = "next time collect: " + "; ".join(missing or _COLLECT.values()) + "; and dmesg / the scheduler log."
        evidence = timeouts[:3] + [e for r in suspects[:2] if r in ctx.ranks for e in ctx.ranks[r].evidence[:1]]
        evidence += self._last_rows(ctx, suspects)
        conf = Confidence.LOW
        setup = _setup_failures(ctx)
        checked = _own_value_checks(ctx)
        if setup:
            msg += f"; after an NCCL setup failure ({said(setup[0], 100)}), which the timeouts follow from"
        elif checked:
            msg += (f"; after rank {checked[0].rank}'s own check of its values failed ({said(checked[0], 100)}), "
                    "which the timeouts follow from")
            setup = checked
        yield self.finding(suspects, msg, conf, evidence + setup[:1], fix, cause=not setup)

    @staticmethod
    def _suspects(ctx: Context) -> list[int]:
        named = {r for ev in ctx.of("monitored_barrier") for r in ev.data.get("missing_ranks") or []}
        named |= {r for ev in ctx.of("desync_report") for r in ev.data.get("ranks") or []}
        named |= {r for ev in ctx.of("frtrace_report") for r in ev.data.get("missing_ranks") or []}
        explained = {r for r, st in ctx.ranks.items()
                     if st.cause or st.where in ("data_loading", "checkpointing", "busy", "waiting")}
        return sorted(named - explained)

    @staticmethod
    def _last_rows(ctx: Context, ranks: list[int]):
        from .base import row_evidence
        colls = ctx.timelines.colls
        if colls.empty or not ranks:
            return []
        last = colls[colls["rank"].isin(ranks[:2])].sort_values(["rank", "seq"]).groupby("rank").tail(1)
        return row_evidence(last)


def _first_to_fail(ranks: list[int]) -> str:
    """What the remote error signal says of the ranks it names."""
    if len(ranks) == 1:
        return (f"rank {ranks[0]} failed first in its group (the other ranks' TORCH_NCCL_PROPAGATE_ERROR signal names "
                "it; its own error is not in the evidence)")
    return (f"ranks {ranks_text(ranks)} failed first in their groups (the other ranks' TORCH_NCCL_PROPAGATE_ERROR "
            "signal names them; their own errors are not in the evidence)")


def _remote_error_ranks(ctx: Context) -> list[int]:
    """The ranks other ranks' watchdogs read as the first of their group to fail (TORCH_NCCL_PROPAGATE_ERROR's
    `remote error detected from rank: N`, catalogue pytorch.remote_error_detected), where that rank's own lines
    show no failure of its own (they would name it through their own detector)."""
    named = {ev.data["error_from_rank"] for ev in ctx.of("c10d_log")
             if isinstance(ev.data.get("error_from_rank"), int) and ev.rank != ev.data["error_from_rank"]}
    return sorted(r for r in named if not (r in ctx.ranks and ctx.ranks[r].cause))


def _own_value_checks(ctx: Context):
    """A rank's own check of its values before it communicates (catalogue category `numerics`, scope `rank`: Megatron's
    local grad norm), failed on a known rank: it raised before the collective its peers then wait in."""
    return [ev for ev in ctx.events if own_value_check(ev) and ev.data.get("meaning") == "failure"
            and ev.rank is not None]


def _setup_failures(ctx: Context):
    """NCCL's failure lines of communicator setup (catalogue category `init`, no class of their own): the rank whose
    init failed raised or hangs in bootstrap, and its peers wait at init or their first collective until the
    timeout, so the timeouts are consequences (the failure itself is X901's, or its class's detector)."""
    return [ev for ev in ctx.events if ev.data.get("category") == "init" and ev.data.get("meaning") == "failure"
            and not ev.data.get("implies")]

