"""C104 skipped-collective: a rank skipped a collective the others issued, or issued one extra.

What it detects:
    (a) After its first divergence, a rank's entries match the group's entries one seq later (it skipped
    one) or one seq earlier (it added one) — an asymmetric code path. (b) A minority of ranks stopped at
    the last common collective (or went one further) while being alive and inside another collective, or
    after exiting cleanly: they are not stuck and not dead, they are out of step. (c) A lone dump whose last
    entry is what, in every earlier step, came one collective later (divergence.self_outliers). (d) On gloo,
    a rank that aborted on a size check and left no dump, while the others' dumps follow their steps, and
    whose buffer size matches the others' previous (extra) or next (skipped) collective (_gloo.py); or,
    with two ranks, the dumping sender's last entry is a collective it issues at another point of its
    steps and the gloo byte ratio fits that (_gloo.sender_change).

Why it hangs or dies:
    Collectives match by order. Once one rank skips or adds one, every later collective pairs with the
    wrong partner: data is silently mixed until the count runs out and the last collective waits forever
    (or gloo fails on a size check).

Evidence it needs:
    Per-collective rows (FR, NCCL COLL, watchdog) from most ranks; py-spy or process ends to tell a
    skipping rank from a stuck or dead one.

Example:
    ``ncclf diagnose sample_logs/bundles/real-skipped-collective`` →
    ``collective_skipped: rank 2 skipped a collective at group 0 seq 5: its later entries match the others'
    one seq later``.

Known limits:
    Runs of identical collectives (same op, size and dtype) carry no content to align on; then only the
    final count gives it away, and only if the lagging rank is known to be alive (py-spy, exit code).

Suggested fix:
    Find the rank-dependent branch around the named call site (``if rank == 0: dist.all_reduce(...)``,
    an early ``break`` or ``continue`` on one rank, uneven data so one rank runs one more step) and make
    every rank issue the same collectives in the same order; ``drop_last=True`` or ``Join`` for uneven inputs.
"""
from __future__ import annotations

from ..diagnosis.timeline import stragglers
from ..model import Confidence, ranks_text
from . import _gloo as gloo
from ._fronts import consequences
from .base import BaseDetector, Context, row_evidence

_NOT_OUT_OF_STEP = {"killed", "crashed", "exception", "oom", "oom_killed"}
_OUTSIDE = {"data_loading", "checkpointing", "busy", "waiting"}     # py-spy: stuck outside any collective


class CollectiveSkipped(BaseDetector):
    code, name, cls = "C104", "skipped-collective", "collective_skipped"
    needs = ("timeline",)

    def check(self, ctx: Context):
        found = list(self._shifted(ctx)) + list(self._from_gloo(ctx))
        named = {r for f in found for r in f.ranks} | consequences(ctx)   # (waiting in another group: wavefront.py)
        if any(st.where in _OUTSIDE and not st.end for st in ctx.ranks.values()):
            return found             # py-spy shows a rank stuck outside collectives: the others wait for it (R202)
        for group, (side, ranks, seq) in stragglers(ctx.timelines).items():
            if named & set(ranks):
                continue
            odd = [r for r in ranks if self._out_of_step(ctx, r, side)]
            if odd and len(odd) == len(ranks):
                found.append(self._lagging(ctx, group, side, odd, seq))
        return found

    def _from_gloo(self, ctx: Context):
        """A gloo abort on a rank that left no dump, while the others' dumps look normal (see _gloo.py)."""
        if not ctx.outliers.empty:
            return
        abort = gloo.analyse(ctx)
        if abort is None or abort.kind not in ("extra", "skipped"):
            return
        if abort.why:                     # the sender's own history shows it skipped or repeated one
            yield self.finding(abort.culprits, abort.why, Confidence.MEDIUM,
                               abort.events[:2] + row_evidence(abort.rows), _fix(None))
            return
        d = abort.events[0].data
        what = ("issued an extra collective (its buffer matches the others' previous collective)"
                if abort.kind == "extra" else "skipped a collective (its buffer matches the others' next one)")
        msg = (f"rank {', '.join(map(str, abort.culprits))} {what}: it expected {d.get('expected_bytes')} bytes and "
               f"received {d.get('received_bytes')} from ranks whose flight-recorder entries follow their usual steps")
        yield self.finding(abort.culprits, msg, Confidence.MEDIUM, abort.events[:2], _fix(None))

    def _shifted(self, ctx: Context):
        out = ctx.outliers
        if out.empty:
            return
        first = out[out["primary"]].groupby("group")["seq"].min()
        hits = out[out["primary"] & (out["shift"] != 0)]
        hits = hits[hits["seq"] == hits["group"].map(first)]
        for (group, shift), rows in hits.groupby(["group", "shift"], sort=True):
            ranks = sorted(int(r) for r in rows["rank"].unique())
            seq = int(rows["seq"].min())
            verb = "skipped a collective" if shift > 0 else "issued an extra collective"
            how = "later" if shift > 0 else "earlier"
            name = ctx.group_name(group)
            msg = (f"rank{'s' if len(ranks) > 1 else ''} {ranks_text(ranks)} {verb} at group {name} seq "
                   f"{seq}: its later entries match the other ranks' entries one seq {how}")
            if (rows["basis"] == "ranks+self").all() and shift > 0:
                msg = (f"rank{'s' if len(ranks) > 1 else ''} {ranks_text(ranks)} skipped a collective at "
                       f"group {name} seq {seq}: there {'they' if len(ranks) > 1 else 'it'} issued "
                       f"{rows.iloc[0]['op']}, which in every earlier step came one collective later, where the "
                       f"other ranks issued {rows.iloc[0]['modal'] if rows.iloc[0]['field'] == 'op' else 'the usual one'}")
            if (rows["basis"] == "self").all():
                msg = (f"rank {ranks[0]} {verb} at group {name} seq {seq}: in every earlier step the collective "
                       f"after its previous one {_had(rows.iloc[0])}, this time it was "
                       f"{'the one that comes after that' if shift > 0 else 'a repeat of the previous one'}")
            yield self.finding(ranks, msg, Confidence.HIGH, row_evidence(rows.head(3)), _fix(rows.iloc[0]), group, seq)

    @staticmethod
    def _out_of_step(ctx: Context, rank: int, side: str) -> bool:
        st = ctx.ranks.get(rank)
        if st is None or st.end in _NOT_OUT_OF_STEP:
            return False
        if side == "ahead":
            return st.where in (None, "collective")
        return st.where == "collective" or st.end == "exited" and st.exitcode == 0

    def _lagging(self, ctx: Context, group: str, side: str, ranks: list[int], seq):
        colls = ctx.timelines.colls
        last = colls[(colls["group"] == group) & colls["rank"].isin(ranks)].sort_values("seq").groupby("rank").tail(1)
        verb = "stopped at" if side == "behind" else "went one collective past"
        msg = (f"rank{'s' if len(ranks) > 1 else ''} {ranks_text(ranks)} {verb} seq {seq} "
               f"of group {ctx.group_name(group)} "
               f"while the others did not, yet {'they are' if len(ranks) > 1 else 'it is'} alive and not stuck "
               f"outside a collective: a collective was {'skipped' if side == 'behind' else 'added'} on "
               f"{'these ranks' if len(ranks) > 1 else 'this rank'}")
        evidence = row_evidence(last) + [e for r in ranks for e in ctx.ranks[r].evidence[:1]]
        return self.finding(ranks, msg, Confidence.MEDIUM, evidence, _fix(None), group, seq)


def _fix(row) -> str:
    where = row.get("frame") if row is not None else None
    at = f" near {where}" if isinstance(where, str) and where else ""
    return ("make every rank issue the same collectives in the same order" + at + ": look for a rank-dependent "
            "branch, an early break/continue, or uneven data (use drop_last=True or torch.distributed.algorithms.Join).")


def _had(row) -> str:
    """What the usual next collective was, in words: its op (`was allreduce`) or the field that told it apart
    (`had 4 elements`, `had dtype float32`), never a bare value."""
    field, value = row["field"], row["modal"]
    words = {"op": f"was {value}", "numel": f"had {value} elements", "out_numel": f"had {value} output elements",
             "redop": f"reduced with {value}", "dtype": f"had dtype {value}"}
    return words.get(field, f"had {field.replace('_', ' ')} {value}")
