"""C103 op-mismatch: ranks call different collectives at the same point.

What it detects:
    At the same (group, seq) most ranks call one collective (e.g. ``allreduce``) and a minority another
    (``allgather``, ``barrier``, …), or the same collective with another reduction (``max`` vs ``sum``,
    from the NCCL COLL ``op`` field). Sources: FR ``profiling_name``, NCCL COLL op names, watchdog
    ``OpType``, DETAIL fingerprint ``OpType``.
    When only one rank recorded that collective (the others died before dumping), its entry is compared
    with the same point of its own earlier steps instead (divergence.self_outliers).

Why it hangs or dies:
    Collectives of different types exchange different messages: NCCL hangs (or corrupts data), gloo
    fails on a size check, and ``barrier`` against ``all_reduce`` on gloo is a silent hang.

Evidence it needs:
    Per-collective rows from two or more ranks.

Example:
    ``ncclf diagnose sample_logs/bundles/op-mismatch-nccl`` →
    ``op_mismatch: rank 3 used collective allgather at group 0 seq 5, where 3 of 4 ranks used allreduce``.

Known limits:
    A skipped or extra collective also shows as an op mismatch at first; when the rank's later entries
    match the group's one seq off, C104 skipped-collective reports it instead.

Suggested fix:
    Make the code path that issues collectives identical on every rank (no rank-dependent branches
    around collectives).
"""
from __future__ import annotations

from ._field_mismatch import FieldMismatch, call_site
from .base import Context


class OpMismatch(FieldMismatch):
    code, name, cls = "C103", "op-mismatch", "op_mismatch"
    fields = ("op", "redop")

    def fix_for(self, ctx: Context, ranks: list[int], row) -> str:
        return (f"rank {ranks[0]} calls {row['value']} at {call_site(ctx, ranks[0], row)} where the others call "
                f"{row['modal']}: make every rank take the same code path to that collective.")
