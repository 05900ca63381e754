"""C106 p2p-unmatched: a send (or recv) waits for a peer that never posted its side.

What it detects:
    Flight-recorder P2P entries (``nccl:send 0->1``, ``nccl:recv 1<-0``), paired per (group, sender,
    receiver) in P2P order: the k-th send from rank a to rank b is the k-th recv at b from a. A send or
    recv left over that has not completed, while the peer's dump shows no matching op, names the peer as
    the rank that skipped its side. Healthy pipelines and batched P2P (``batch_isend_irecv``) pair up and
    give nothing; P2P is never compared as if it were a collective.

Why it hangs or dies:
    A send completes only when its receiver posts the recv (and the other way round): one missing side
    leaves its peer waiting until the timeout, typically a pipeline stage that took another branch.

Evidence it needs:
    Flight-recorder dumps of both ranks of the pair (with their P2P entries).

Example:
    stage 1 of a pipeline never posts ``recv(src=0)`` for step 12 →
    ``collective_skipped: rank 1 never posted the recv matching rank 0's send (group 0, p2p seq 24)``.

    A peer that is itself waiting in another group for a stuck rank, or is that stuck rank (diagnosis/wavefront.py),
    did not skip anything: R203 names the rank behind it.

Known limits:
    A rank whose ring buffer wrapped may look short of early ops; only ops that are still pending count,
    so a pair whose last ops completed is never reported. Sizes of matched pairs are not compared yet.

Suggested fix:
    Make every stage post the same sequence of sends and recvs: the branch that skips one on the named
    rank (a last micro-batch, an early exit) must be mirrored on its peer.
"""
from __future__ import annotations

from ..diagnosis.fr_semantics import unmatched_p2p
from ..model import Confidence, Evidence
from ._fronts import fronts_of
from .base import BaseDetector, Context


class P2PUnmatched(BaseDetector):
    code, name, cls = "C106", "p2p-unmatched", "collective_skipped"
    needs = ("flight_recorder",)

    def check(self, ctx: Context):
        if not ctx.p2p:
            return
        dumped = {ev.rank for ev in ctx.of("fr_dump") if ev.rank is not None}
        wf = fronts_of(ctx)
        elsewhere = set(wf.consequences) | set(wf.roots) | set(wf.stalled)   # waiting elsewhere, or stuck: no skip
        for miss in unmatched_p2p(ctx.p2p, dumped):
            if miss.culprit in elsewhere:
                continue
            op = miss.op
            side = "recv" if op.op == "send" else "send"
            msg = (f"rank {miss.culprit} never posted the {side} matching rank {miss.waiting}'s {op.op} "
                   f"(group {miss.pg}, p2p seq {op.p2p_seq}, state {op.state}): rank {miss.waiting} waits for it")
            evidence = [Evidence(miss.file, op.line, f"flight_recorder p2p seq {op.p2p_seq} {op.op} peer {op.peer} "
                                                     f"numel={op.numel} state={op.state}")]
            yield self.finding([miss.culprit], msg, Confidence.MEDIUM, evidence, _FIX, miss.pg, op.seq)


_FIX = ("make every stage post the same sequence of sends and recvs: mirror on the named rank the branch that skips "
        "one (a last micro-batch, an early exit), or guard both sides with the same condition.")
