"""C103 op-mismatch: ranks call different collectives at the same point.

What it detects:
    At the same (group, seq) most ranks call one collective (e.g. ``allreduce``) and a minority another
    (``allgather``, ``barrier``, …), or the same collective with another reduction (``max`` vs ``sum``,
    from the NCCL COLL ``op`` field). Sources: FR ``profiling_name``, NCCL COLL op names, watchdog
    ``OpType``, DETAIL fingerprint ``OpType``.
    API variants are different ops, as in PyTorch's analyzer (``_all_gather_base`` vs ``all_gather``,
    ``all_to_all_single`` vs ``all_to_all``, ``_reduce_scatter_base`` vs ``reduce_scatter``); the message notes
    that NCCL runs each pair as one kernel.
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

import re

from ..sources.flight_recorder import OP_FAMILY
from ._field_mismatch import FieldMismatch, call_site
from .base import Context

_USED = re.compile(r"used collective (\S+) at .* ranks used (\S+?)(?: \(|$)")


def _variants(message: str) -> tuple[str | None, str | None]:
    m = _USED.search(message)
    return (m.group(1), m.group(2)) if m else (None, None)


class OpMismatch(FieldMismatch):
    code, name, cls = "C103", "op-mismatch", "op_mismatch"
    fields = ("op", "redop")

    def check(self, ctx: Context):
        for f in super().check(ctx):
            a, b = _variants(f.message)
            if a and b and OP_FAMILY.get(a, a) == OP_FAMILY.get(b, b):
                f.message += (f"; {a} and {b} are API variants of one collective: NCCL runs both as the same kernel, "
                              "so they hang only where their sizes differ, but the call sites differ (PyTorch's "
                              "analyzer calls them different op types)")
            yield f

    def fix_for(self, ctx: Context, ranks: list[int], row) -> str:
        return (f"rank {ranks[0]} calls {row['value']} at {call_site(ctx, ranks[0], row)} where the others call "
                f"{row['modal']}: make every rank take the same code path to that collective.")
