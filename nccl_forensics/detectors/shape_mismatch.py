"""C101 shape-mismatch: one rank passes a tensor with a different number of elements to a collective.

What it detects:
    At the same (group, seq) most ranks pass N elements and a minority passes another count. Sources:
    flight-recorder input sizes, NCCL COLL ``count``, watchdog ``NumelIn``, DETAIL fingerprint
    ``TensorShape``. A send and the recv it matched (a recv from any source, ``recv 3<-?``, is matched against
    the sender) that disagree on the size. An all_to_all only when every member recorded it: pair by pair where
    the dump records the split sizes (schema 2.11), else by the job's totals. Without any of those, a gloo
    ``op.preamble.length <= op.nbytes`` error alone. With
    two ranks on gloo, where the receiver aborted without a dump, the sender's own history decides whether
    it changed the count (its last entry is new and the gloo byte ratio fits it; _gloo.sender_change).
    When only one rank recorded that collective (the others died before dumping), its entry is compared
    with the same point of its own earlier steps instead (divergence.self_outliers).

Why it hangs or dies:
    NCCL does not check counts across ranks: the ring waits for bytes that never come (hang) or reads
    past the short buffer. Gloo checks: the rank that *receives* the odd-sized message aborts with
    ``op.preamble.length <= op.nbytes. 1024 vs 512``, and its peers then fail with "Connection closed by
    peer". The rank that aborts is usually not the culprit.

Evidence it needs:
    Per-collective rows from at least two ranks (FR dumps, NCCL_DEBUG=INFO with NCCL_DEBUG_SUBSYS=COLL,
    watchdog timeouts or DETAIL fingerprints).

Example:
    ``ncclf diagnose sample_logs/bundles/real-shape-mismatch`` →
    ``shape_mismatch: rank 3 used element count 2048 at group 0 seq 5, where 3 of 4 ranks used 1024``.

Known limits:
    With two ranks the minority is a tie; the count that is more common over the whole timeline is taken
    as normal and the confidence is low. Shapes with equal element counts (``[32, 32]`` vs ``[1024]``)
    are not a mismatch for all-reduce and are not reported.

Suggested fix:
    Make every rank pass the same shape at that call site (pad the last batch, use
    ``drop_last=True``, or all-gather sizes first and pad to the maximum).
"""
from __future__ import annotations

from ..diagnosis.divergence import alltoall_imbalance
from ..diagnosis.fr_semantics import p2p_size_mismatches
from ..model import Confidence, Event, Evidence, ranks_text
from . import _gloo as gloo
from ._field_mismatch import FieldMismatch, call_site
from .base import Context, row_evidence


class ShapeMismatch(FieldMismatch):
    code, name, cls = "C101", "shape-mismatch", "shape_mismatch"
    fields = ("numel", "out_numel", "size_note")
    needs = ("timeline", "errors")

    def check(self, ctx: Context):
        found = list(super().check(ctx))
        if not found and not ctx.outliers.shape[0]:
            found = list(self._from_alltoall(ctx)) or list(self._from_p2p(ctx)) or list(self._from_gloo(ctx))
        return found

    def _from_p2p(self, ctx: Context):
        """A send and the recv it matched (a recv from any source included) that disagree on the size."""
        dumped = {ev.rank for ev in ctx.of("fr_dump") if ev.rank is not None}
        for pair, ranks in p2p_size_mismatches(ctx.p2p, dumped):
            msg = (f"rank {pair.src} sends {pair.send.numel} elements to rank {pair.dst} (group {pair.pg}, p2p seq "
                   f"{pair.send.p2p_seq}), whose matching recv{' from any source' if pair.recv.peer is None else ''} "
                   f"expects {pair.recv.numel}; " + (f"rank {ranks[0]} changed its size against their earlier "
                                                    "transfers" if len(ranks) == 1 else "either side may be wrong"))
            evidence = [Evidence(pair.send_file, pair.send.line, f"flight_recorder p2p seq {pair.send.p2p_seq} send "
                                 f"peer {pair.dst} numel={pair.send.numel} state={pair.send.state}"),
                        Evidence(pair.recv_file, pair.recv.line, f"flight_recorder p2p seq {pair.recv.p2p_seq} recv "
                                 f"peer {pair.recv.peer if pair.recv.peer is not None else '?'} "
                                 f"numel={pair.recv.numel} state={pair.recv.state}")]
            conf = Confidence.MEDIUM if len(ranks) == 1 else Confidence.LOW
            yield self.finding(ranks, msg, conf, evidence, "make the send and the recv agree on the tensor's shape "
                               "(pipeline stages: the activation shape of the last micro-batch).", pair.pg,
                               pair.send.seq)

    def _from_alltoall(self, ctx: Context):
        """all_to_all(v): uneven splits are fine, but what the ranks send must add up to what they receive."""
        dumps = ctx.of("fr_dump")
        declared = {str(name) for ev in dumps for name, cfg in (ev.data.get("pg_config") or {}).items()
                    if isinstance(cfg, dict) and cfg.get("ranks")}
        dumped = {ev.rank for ev in dumps}
        everyone = set(ctx.expected.expected) if ctx.expected is not None else set(ctx.world)
        for bad in alltoall_imbalance(ctx.timelines.colls, ctx.timelines.members):
            if bad["group"].split(":", 1)[0] not in declared and not everyone <= dumped:
                continue              # gloo: no pg_config ranks, so an undumped rank may be a member that is missing
            ranks = bad["ranks"]
            many = len(ranks) > 1
            who = (f"rank{'s' if many else ''} {ranks_text(ranks)} disagree{'' if many else 's'} with the "
                   "others" if ranks else "no single rank stands out")
            if bad["pairs"]:
                i, j, sent, expected = bad["pairs"][0]
                more = f" (and {len(bad['pairs']) - 1} more pairs)" if len(bad["pairs"]) > 1 else ""
                msg = (f"all_to_all at group {bad['group']} seq {bad['seq']}: rank {i} sends {sent} elements to rank "
                       f"{j}, which expects {expected} from it{more}; {who}")
            else:
                msg = (f"all_to_all at group {bad['group']} seq {bad['seq']} does not balance: the ranks send "
                       f"{bad['sent']} elements and receive {bad['received']}; {who}")
            conf = Confidence.MEDIUM if ranks else Confidence.LOW
            yield self.finding(ranks, msg, conf, row_evidence(bad["rows"].head(4)),
                               "check the split sizes passed to all_to_all_single / all_to_all on every rank: the "
                               "input splits of each rank must equal the output splits its peers expect.",
                               bad["group"], bad["seq"])

    def support(self, ctx: Context, ranks: list[int]) -> list[Event | Evidence]:
        found: list[Event | Evidence] = [e for e in ctx.of("gloo_error") if e.data.get("category") == "size_mismatch"]
        return found[:2]

    def fix_for(self, ctx: Context, ranks: list[int], row) -> str:
        before = "its own earlier steps" if row.get("basis") == "self" else "the others"
        return (f"rank {ranks[0]} passed {row['value']} elements at {call_site(ctx, ranks[0], row)} where "
                f"{before} passed {row['modal']}: make the tensor shapes agree there (pad, drop_last=True, or "
                "all-gather the sizes and pad to the maximum).")

    def _from_gloo(self, ctx: Context):
        """gloo only: the rank with the smaller buffer aborted; see _gloo.py for who is odd."""
        abort = gloo.analyse(ctx)
        if abort is None or abort.kind in ("extra", "skipped", "dtype"):
            return
        if abort.why:                     # the sender's own history shows it changed the size
            yield self.finding(abort.culprits, abort.why, Confidence.MEDIUM,
                               abort.events[:2] + row_evidence(abort.rows),
                               f"rank {abort.culprits[0]} changed the element count of that collective: make the "
                               "tensor shapes agree there (pad, drop_last=True, or all-gather sizes and pad).")
            return
        d = abort.events[0].data
        who = ", ".join(map(str, abort.receivers)) or "?"
        odd = (f"rank {', '.join(map(str, abort.culprits))} is the odd one" if abort.culprits
               else "gloo does not name the sender")
        msg = (f"rank {who} received {d.get('received_bytes')} bytes where it expected {d.get('expected_bytes')}: the "
               f"ranks disagree on a tensor size (or dtype); {odd}")
        conf = Confidence.MEDIUM if abort.culprits and abort.culprits == abort.receivers else Confidence.LOW
        yield self.finding(abort.culprits, msg, conf, abort.events[:3],
                           "collect flight-recorder dumps (TORCH_FR_BUFFER_SIZE=2000) to see every rank's sizes; "
                           "then make the shapes agree at that call site.")
