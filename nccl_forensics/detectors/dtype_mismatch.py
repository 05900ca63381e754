"""C102 dtype-mismatch: one rank passes a tensor of another dtype to a collective.

What it detects:
    At the same (group, seq) most ranks use one dtype (e.g. float32) and a minority another (float64).
    Sources: flight-recorder ``input_dtypes``, NCCL COLL ``datatype``, DETAIL fingerprint
    ``TensorDtypes``.
    When only one rank recorded that collective (the others died before dumping), its entry is compared
    with the same point of its own earlier steps instead (divergence.self_outliers); with too little
    history for that, a gloo size abort on the other rank whose byte ratio fits the dtype change
    (_gloo.sender_change).

Why it hangs or dies:
    NCCL does not compare dtypes: byte counts differ, so the collective hangs or corrupts data. Gloo
    aborts the rank that receives the larger message (``op.preamble.length <= op.nbytes``), and its
    peers fail with "Connection closed by peer".

Evidence it needs:
    Per-collective rows with dtypes from two or more ranks: FR dumps, NCCL COLL lines, or a DETAIL
    fingerprint mismatch (which quotes both ranks' dtypes).

Example:
    ``ncclf diagnose sample_logs/bundles/dtype-mismatch-nccl`` →
    ``dtype_mismatch: rank 3 used dtype float64 at group 0 seq 5, where 3 of 4 ranks used float32``.

Known limits:
    With two ranks the minority is a tie: the dtype that is more common over the timeline (then
    float32/bfloat16/float16 before others) is taken as normal and the confidence is low.

Suggested fix:
    Cast the tensor at the named frame to the dtype the other ranks use (``t.to(torch.float32)``), or
    create it with an explicit ``dtype=``.
"""
from __future__ import annotations

from ..model import Confidence, Event, Evidence
from . import _gloo as gloo
from ._field_mismatch import FieldMismatch, call_site
from .base import Context, row_evidence


class DtypeMismatch(FieldMismatch):
    code, name, cls = "C102", "dtype-mismatch", "dtype_mismatch"
    fields = ("dtype",)

    def check(self, ctx: Context):
        found = list(super().check(ctx))
        if not found and ctx.outliers.empty and ctx.has("errors"):
            found = list(self._from_gloo(ctx))
        return found

    def _from_gloo(self, ctx: Context):
        """gloo, two ranks: the aborting receiver left no dump; the sender's own history shows a dtype change."""
        abort = gloo.analyse(ctx)
        if abort is None or abort.kind != "dtype" or not abort.why:
            return
        yield self.finding(abort.culprits, abort.why, Confidence.MEDIUM, abort.events[:2] + row_evidence(abort.rows),
                           f"rank {abort.culprits[0]}: cast the tensor of that collective to the dtype it used in "
                           "its earlier steps (and the other ranks use), e.g. t.to(torch.float32).")

    def support(self, ctx: Context, ranks: list[int]) -> list[Event | Evidence]:
        found: list[Event | Evidence] = [e for e in ctx.of("gloo_error") if e.data.get("category") == "size_mismatch"]
        return found[:2]

    def fix_for(self, ctx: Context, ranks: list[int], row) -> str:
        tensor = f"the {row['value']} tensor passed to {row.get('op') or 'the collective'}"
        return (f"rank {ranks[0]}: cast {tensor} at {call_site(ctx, ranks[0], row)} to {row['modal']} "
                f"(e.g. t.to(torch.{str(row['modal']).split(',')[0]})) so every rank sends the same dtype.")
