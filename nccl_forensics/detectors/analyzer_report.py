"""C105 analyzer-report: what PyTorch's own flight-recorder analyzer (`torchfrtrace`) reported, pasted into a log.

What it detects:
    The desync report of ``TORCH_NCCL_DESYNC_DEBUG=1`` ("the lagging/dead/mismatched ranks that caused the
    desync are: [7] finished collective #182, but didn't join collective #183"): those ranks are stuck before
    the collective everyone waits in. And a ``torchfrtrace`` report block: "Not all ranks joining collective,
    sequence number: N" with its
    ``missing ranks``, or "Collective sequence number: N has errors" (torch 2.5's "Collective N at entry M errors")
    with ``Culprit rank R; Error type: …``.
    The missing ranks are reported as stuck (they never reached that collective); a culprit with a type,
    dtype or size error as the matching mismatch class.

Why it hangs or dies:
    The ranks that did not join leave the others waiting in that collective until the timeout; a rank that
    calls another collective, dtype or size breaks it on every rank.

Evidence it needs:
    The analyzer's printed report (its head line and the field lines under it), or the desync report lines.

Example:
    ``Not all ranks joining collective, sequence number: 31117 … missing ranks: {3, 4, 5, 6, 7}`` →
    ``stuck_rank: torchfrtrace found that ranks 3-7 never joined all_reduce seq 31117 of group 0:default_pg``.

Known limits:
    The analyzer matches ranks greedily from the first rank it reads and can blame a healthy rank when the
    first one is the culprit; with the dumps themselves, ncclf's own alignment is the better evidence, and
    this finding only corroborates it.

Suggested fix:
    Run ``ncclf diagnose`` on the flight-recorder dumps themselves; for the ranks named, take ``py-spy
    dump`` while the job hangs and look at their last collective's call site.
"""
from __future__ import annotations

from ..model import Confidence
from .base import BaseDetector, Context, rank_list

_CLASS_OF = {"COLLECTIVE_TYPE_MISMATCH": "op_mismatch", "COLLECTIVE_DTYPE_MISMATCH": "dtype_mismatch",
             "SIZE_OR_SYNTAX_MISMATCH": "shape_mismatch", "COLLECTIVE_STATE_MISMATCH": "stuck_rank"}


class AnalyzerReport(BaseDetector):
    code, name, cls = "C105", "analyzer-report", "stuck_rank"
    needs = ("timeouts",)

    def check(self, ctx: Context):
        yield from self._desync(ctx)
        for ev in ctx.of("frtrace_report"):
            d = ev.data
            where = f"{d.get('op_raw') or 'a collective'} seq {d.get('seq')} of group {d.get('group')}"
            if d.get("problem") == "not_joining" and d.get("missing_ranks"):
                ranks = d["missing_ranks"]
                msg = (f"torchfrtrace found that rank{'s' if len(ranks) > 1 else ''} {rank_list(ranks)} never joined "
                       f"{where} (state {d.get('state')}): stuck before it, or dead")
                yield self.finding(ranks, msg, Confidence.MEDIUM, [ev], _FIX, d.get("group"), d.get("seq"))
            elif d.get("culprits"):
                cls = next((_CLASS_OF[e] for e in d.get("errors") or () if e in _CLASS_OF), "stuck_rank")
                msg = (f"torchfrtrace blames rank{'s' if len(d['culprits']) > 1 else ''} {rank_list(d['culprits'])} at "
                       f"{where}: {', '.join(d.get('errors') or ['an error'])}")
                finding = self.finding(d["culprits"], msg, Confidence.LOW, [ev], _FIX, d.get("group"), d.get("seq"))
                finding.cls = cls
                yield finding


    def _desync(self, ctx: Context):
        """TORCH_NCCL_DESYNC_DEBUG's report: the ranks it names as lagging, dead or mismatched, at its seq."""
        named = [ev for ev in ctx.of("desync_report") if ev.data.get("state") in _DESYNC_BLAME and ev.data.get("ranks")]
        if not named:
            return
        first = min(named, key=lambda ev: _DESYNC_BLAME.index(ev.data["state"]))
        ranks = sorted({r for ev in named if ev.data["state"] == first.data["state"] for r in ev.data["ranks"]})
        seq = first.data.get("seq")
        missed = seq + 1 if first.data["state"] == "finished_not_joined" and seq is not None else seq
        what = {"finished_not_joined": f"finished collective #{seq} but never joined #{missed}",
                "never_joined": f"never joined collective #{seq}",
                "joined_not_finished": f"joined collective #{seq} but never finished it"}[first.data["state"]]
        msg = (f"the desync report (TORCH_NCCL_DESYNC_DEBUG) names rank{'s' if len(ranks) > 1 else ''} "
               f"{rank_list(ranks)}: {what}")
        group = next((str(ev.data.get("pg_name")) for ev in ctx.of("watchdog_timeout") if ev.data.get("pg_name")), "0")
        yield self.finding(ranks, msg, Confidence.MEDIUM, named[:3], _FIX, group, missed)


# The desync report's states that blame a rank, the strongest first: it never got to the collective everyone waits in
_DESYNC_BLAME = ("finished_not_joined", "never_joined", "joined_not_finished")
_FIX = ("run ncclf diagnose on the flight-recorder dumps themselves; for the ranks named, take `py-spy dump --pid` "
        "while the job hangs and look at the call site of their last collective.")
