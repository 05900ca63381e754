"""Shared by C101-C103: the earliest divergence of one field in each group, the minority named as culprit."""
from __future__ import annotations

from typing import Iterator

import pandas as pd

from ..diagnosis.rows import NO_SEQ
from ..model import Confidence, Event, Evidence, ranks_text
from ._gloo import element_bytes
from .base import BaseDetector, Context, row_evidence

_WHAT = {"op": "collective", "redop": "reduction op", "dtype": "dtype", "numel": "element count",
         "out_numel": "output element count", "size_note": "sizes that break the collective:"}


class FieldMismatch(BaseDetector):
    fields: tuple[str, ...] = ()
    needs: tuple[str, ...] = ("timeline",)

    def check(self, ctx: Context) -> Iterator:
        out = ctx.outliers
        if out.empty:
            return
        first = out[out["primary"]].groupby("group")["seq"].min()
        hits = out[out["primary"] & out["field"].isin(self.fields) & (out["shift"] == 0)]
        for group, rows in hits.groupby("group", sort=True):
            seq = rows["seq"].min()
            if seq != first.get(group):
                continue                          # an earlier divergence of another kind explains this one
            at = rows[rows["seq"] == seq]
            yield self._finding(ctx, group, int(seq), at)

    def _finding(self, ctx: Context, group: str, seq: int, at: pd.DataFrame):
        ranks = sorted(int(r) for r in at["rank"])
        row = at.iloc[0]
        colls = ctx.timelines.colls
        there = colls[(colls["group"] == group) & (colls["seq"] == seq)]
        mine = there[there["rank"].isin(ranks)]       # the culprits' own rows: their numel, dtype, state cited
        peers = there[~there["rank"].isin(ranks)]
        cited = mine.drop_duplicates("rank") if len(mine["rank"].unique()) == len(ranks) else at
        evidence = row_evidence(cited) + row_evidence(peers.head(1)) + self.support(ctx, ranks)
        conf = Confidence.LOW if bool(row["tie"]) else Confidence.HIGH
        if not bool(row["tie"]) and int(row["count"]) < 3:
            conf = Confidence.MEDIUM
        where = "DETAIL fingerprint check" if row["source"] == "fingerprint" else f"group {ctx.group_name(group)}"
        where += f" seq {seq}" if seq != NO_SEQ else ""
        if seq == NO_SEQ and row["source"] == "watchdog":
            # rows.seqless_timeouts_meet placed them: one point only if the job had one group (torch < 1.10 names none)
            where += " (each rank's oldest pending collective: this torch prints no sequence number)"
            conf = Confidence.LOW if conf == Confidence.LOW else Confidence.MEDIUM
        if row.get("basis") == "self":
            message = (f"rank {ranks[0]}'s {row['op']} at {where} used {_WHAT[row['field']]} {row['value']} "
                       f"where the same point of its {int(row['modal_count'])} earlier steps used {row['modal']} "
                       "(no other rank recorded that collective)")
            return self.finding(ranks, message, Confidence.MEDIUM, evidence + self.support(ctx, ranks)[:0],
                                self.fix_for(ctx, ranks, row), group, seq)
        message = (f"rank{'s' if len(ranks) > 1 else ''} {ranks_text(ranks)} used {_WHAT[row['field']]} "
                   f"{row['value']} at {where}, where {int(row['modal_count'])} of {int(row['count'])} "
                   f"ranks used {row['modal']}" + (" (a tie: the culprit is a guess)" if bool(row["tie"]) else ""))
        if row["field"] == "dtype":
            message += _element_sizes(row["value"], row["modal"])
        if row.get("basis") == "ranks+self":
            message += f"; rank {ranks[0]} also broke its own step pattern there, the other rank did not"
        return self.finding(ranks, message, conf, evidence, self.fix_for(ctx, ranks, row), group, seq)

    def support(self, ctx: Context, ranks: list[int]) -> list[Event | Evidence]:
        """Other events that prove the same mismatch (fingerprints, gloo size errors)."""
        return []

    def fix_for(self, ctx: Context, ranks: list[int], row) -> str:  # pragma: no cover - overridden
        return ""


def call_site(ctx: Context, rank: int, row) -> str:
    """Where the culprit called the collective: the FR frame, else py-spy, else its traceback."""
    frame = row.get("frame") if hasattr(row, "get") else None
    if isinstance(frame, str) and frame:
        return frame
    st = ctx.ranks.get(rank)
    if st is not None and st.at:
        return st.at
    for ev in ctx.of("traceback"):
        if ev.rank == rank:
            frames = [f for f in ev.data.get("frames") or [] if "torch/" not in str(f.get("file"))]
            if frames:
                f = frames[-1]
                return f"{f.get('file')}:{f.get('line')} ({f.get('function')})"
    return "its call site (no stack was recorded)"


def _element_sizes(value, modal) -> str:
    """`; float64 is 8 bytes per element, float32 4`: why the byte counts (gloo's `1024 vs 512`, NCCL's) differ
    although the element counts agree."""
    sizes = [element_bytes(d) for d in (value, modal)]
    if None in sizes or sizes[0] == sizes[1]:
        return ""
    return (f"; {str(value).split(',')[0]} is {sizes[0]} bytes per element, {str(modal).split(',')[0]} {sizes[1]}: "
            "equal element counts are different byte counts")
