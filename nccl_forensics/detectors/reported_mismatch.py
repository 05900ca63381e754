"""C107 reported-mismatch: the software itself reported that the ranks called different collectives, but the
report does not say enough for the shape, dtype, op or skip detectors.

What it detects:
    DDP's ``Expected to have finished reduction in the prior iteration`` (with ``Parameters which did not receive
    grad for rank N``): the ranks' backward passes reduced different parameters. A
    ``TORCH_DISTRIBUTED_DEBUG=DETAIL`` mismatch (``Detected mismatch between collectives on ranks``) whose
    line was cut before the second fingerprint, or whose two fingerprints differ only in the raw OpType
    (``ALLGATHER`` against ``_ALLGATHER_BASE``: the same collective by name, a different call) or only in the
    sequence number (the ranks issued a different number of collectives before it: a skip); NCCL 2.4-2.7.6's
    own check ``Mismatched collective detected, please check your collective calls at and around rank N`` and its
    milder form ``Your program may be hanging, this may be caused by a collective mismatch around rank N``.
    FSDP's first-iteration order check (``Forward order differs across ranks: rank 0 is all-gathering 43
    parameters while rank 5 is all-gathering 1 parameters``): the ranks' forward passes all-gather different
    FlatParameters. DDP/Join's uneven-inputs check (``throw_on_early_termination=True``): ``Rank N exhausted all
    inputs.`` on the rank that ran out of data, ``Detected at least one rank that exhausted inputs`` on the others.
    DeepSpeed ZeRO-3's sanity checks (``Detected a disagreement on list length between rank0 and rank5``): rank 0
    broadcast the ids of the parameters (or submodules) it is about to all-gather or reduce, and the named rank holds
    others; when one rank alone says so, it is the odd one out (rank 0 agrees with every other rank).

Why it hangs or dies:
    Collectives pair up by order. Ranks that issue different ones (another op, another size, one skipped)
    wait on partners that never come, or exchange the wrong buffers.

Evidence it needs:
    The DETAIL check's exception line or NCCL's WARN line (``NCCL_DEBUG=WARN``).

Example:
    ``ncclf diagnose logs/`` →
    ``op_mismatch: rank 1 runs ALLGATHER while rank 0 runs _ALLGATHER_BASE (TORCH_DISTRIBUTED_DEBUG=DETAIL)``.

Known limits:
    A report cut before the second fingerprint names one side only: the class (skipped, other op or size)
    is a guess, with low confidence; the more specific detectors win wherever they have the evidence.

Suggested fix:
    Make every rank issue the same collectives in the same order with the same sizes: look for a
    rank-dependent branch or data-dependent shapes near the named call (all_gather vs all_gather_into_tensor,
    metrics logged with keys that differ across ranks).
"""
from __future__ import annotations

from ..model import Confidence, ranks_phrase, ranks_text
from .base import BaseDetector, Context


class ReportedMismatch(BaseDetector):
    code, name, cls = "C107", "reported-mismatch", "collective_skipped"
    needs = ("errors",)        # DETAIL lines (fingerprint_mismatch, maybe without a seq), NCCL WARNs, DDP's error

    def check(self, ctx: Context):
        yield from self._ddp(ctx)
        yield from self._fsdp(ctx)
        yield from self._uneven_inputs(ctx)
        yield from self._zero_disagreement(ctx)
        for ev in ctx.of("fingerprint_mismatch", "warn"):
            d = ev.data
            if d.get("implies") != "collective_mismatch":
                continue
            if ev.kind == "warn":
                where = f" at and around rank {d['rank']}" if d.get("rank") is not None else ""
                if d.get("message_id") == "nccl.suspected_mismatch":    # a peer's op count stayed behind for long
                    yield self.finding([], f"NCCL suspects mismatched collectives{where} (the program may be "
                                       "hanging): the ranks called different collectives (order or size)",
                                       Confidence.LOW, [ev], _FIX)
                    continue
                yield self.finding([], f"NCCL reported mismatched collectives{where}: the ranks called different "
                                   "collectives (order or size)", Confidence.MEDIUM, [ev], _FIX)
            elif d.get("other_rank") is None:
                why = ("torch 1.10 - 1.11 report each rank's own fingerprint only" if "inconsistent collective" in
                       (ev.text or "") else "the line is cut before the other rank's fingerprint")
                yield self.finding([], f"the DETAIL check reported a collective mismatch (rank {d.get('rank')} runs "
                                   f"{d.get('op_raw') or d.get('op') or 'a collective'} at seq {d.get('seq')}); "
                                   f"{why}", Confidence.LOW, [ev], _FIX)
            elif d.get("op_raw") and d.get("other_op_raw") and d["op_raw"] != d["other_op_raw"] \
                    and d.get("op") == d.get("other_op"):
                finding = self.finding([], f"rank {d.get('rank')} runs {d['op_raw']} while rank {d['other_rank']} "
                                       f"runs {d['other_op_raw']} (TORCH_DISTRIBUTED_DEBUG=DETAIL)",
                                       Confidence.MEDIUM, [ev], _FIX)
                finding.cls = "op_mismatch"
                yield finding
            elif _only_seq_differs(d):
                yield self.finding([], f"rank {d.get('rank')} is at collective #{d['seq']} while rank "
                                   f"{d['other_rank']} is at #{d['other_seq']} of the same "
                                   f"{d.get('op_raw') or d.get('op') or 'collective'} (TORCH_DISTRIBUTED_DEBUG="
                                   "DETAIL): one of them skipped or added a collective before it", Confidence.MEDIUM,
                                   [ev], _FIX)


    def _ddp(self, ctx: Context):
        """DDP's reducer: a backward pass that left some parameters without a gradient (on the ranks it names)."""
        hits = [ev for ev in ctx.of("traceback") if ev.data.get("category") == "ddp_unused_parameters"]
        if not hits:
            return
        ranks = sorted({ev.data["rank"] for ev in hits if isinstance(ev.data.get("rank"), int)})
        where = f" on rank {ranks_text(ranks)}" if ranks else ""
        said = ("Your training graph has changed in this iteration" if any(ev.data.get("said") == "static_graph"
                for ev in hits) else "Expected to have finished reduction")
        msg = (f"DDP found parameters that received no gradient{where}: the ranks' backward passes reduced different "
               f"parameter sets, so the gradient all-reduces no longer pair up ({said})")
        yield self.finding(ranks, msg, Confidence.MEDIUM, hits[:3], _DDP_FIX)

    def _fsdp(self, ctx: Context):
        """FSDP's first-iteration order check: two ranks about to all-gather different FlatParameters (or a different
        number of them); every rank raises it, so it names no culprit."""
        hits = [ev for ev in ctx.of("traceback") if ev.data.get("category") == "fsdp_forward_order"]
        if not hits:
            return
        d = hits[0].data
        if d.get("count") is not None:
            what = (f"rank {d.get('first_rank')} all-gathers {d['count']} parameters while rank {d.get('other_rank')} "
                    f"all-gathers {d.get('other_count')}")
        else:
            what = f"ranks {d.get('first_rank')} and {d.get('other_rank')} all-gather different parameters"
        msg = (f"FSDP found that the ranks' forward passes differ: {what} (Forward order differs across ranks), so "
               "their all-gathers no longer pair up")
        yield self.finding([], msg, Confidence.MEDIUM, hits[:3], _FSDP_FIX)

    def _uneven_inputs(self, ctx: Context):
        """Join's check: a rank ran out of inputs while the others still iterate, so its gradient all-reduces would be
        missing; the rank that says it ran out is the one that would have skipped them."""
        hits = [ev for ev in ctx.of("traceback") if ev.data.get("category") == "uneven_inputs"]
        if not hits:
            return
        ranks = sorted({int(ev.data["rank"]) for ev in hits if str(ev.data.get("rank", "")).isdigit()})
        who = ranks_phrase(ranks) if ranks else "at least one rank"
        msg = (f"{who} exhausted its inputs before the others (uneven inputs under Join, throw_on_early_termination): "
               "its collectives would no longer pair up with theirs")
        yield self.finding(ranks, msg, Confidence.MEDIUM, hits[:3], _UNEVEN_FIX)

    def _zero_disagreement(self, ctx: Context):
        """ZeRO-3's check against rank 0's list: every rank that differs from rank 0 raises, naming itself. One rank
        alone is the odd one out; several may mean rank 0 is (it never raises), so they are no culprits."""
        hits = [ev for ev in ctx.of("traceback") if ev.data.get("category") == "zero_rank_disagreement"]
        if not hits:
            return
        named = sorted({int(ev.data["rank"]) for ev in hits if isinstance(ev.data.get("rank"), int)})
        what = hits[0].data.get("what") or "length"
        who = ranks_phrase(named) if named else "a rank"
        msg = (f"DeepSpeed ZeRO-3 found that {who} disagree{'s' if len(named) == 1 else ''} with rank 0 on the list "
               f"({what}) of parameters to all-gather or reduce: the ranks' forward or backward passes use different "
               "parameters, so their collectives no longer pair up")
        yield self.finding(named if len(named) == 1 else [], msg, Confidence.MEDIUM, hits[:3], _ZERO_FIX)


def _only_seq_differs(d: dict) -> bool:
    """Two whole fingerprints that differ in their sequence numbers only (ProcessGroupWrapper counts the collectives
    each rank issued on the group): the ranks issued a different number of collectives before this one."""
    seqs = [str(d.get(k)) for k in ("seq", "other_seq")]
    if not all(v.isdigit() for v in seqs) or int(seqs[0]) == int(seqs[1]):
        return False
    return all(d.get(k) == d.get(f"other_{k}") for k in ("op_raw", "shapes", "dtypes"))


_UNEVEN_FIX = ("give every rank the same number of batches (DistributedSampler with drop_last=True, or an equal "
               "split), or let Join shadow the finished ranks' collectives (throw_on_early_termination=False).")
_ZERO_FIX = ("make every rank run the same modules with the same parameters in the same order (no rank- or "
             "data-dependent branch around ZeRO-3 partitioned modules, the same model config on every rank).")
_FSDP_FIX = ("make every rank run the same modules in the same order in forward (no rank- or data-dependent branch "
             "around FSDP-wrapped modules); the parameter names in the error point at the branch.")
_DDP_FIX = ("make every parameter take part in the loss on every rank, or pass find_unused_parameters=True to "
            "DistributedDataParallel (TORCH_DISTRIBUTED_DEBUG=DETAIL names the parameters).")
_FIX = ("make every rank issue the same collectives in the same order with the same sizes: look for a rank-dependent "
        "branch or data-dependent shapes near the call (all_gather vs all_gather_into_tensor, metrics whose keys "
        "differ across ranks).")
