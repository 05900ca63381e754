"""The wavefront (diagnosis/wavefront.py) of a Context, computed once and shared by the detectors that read it."""
from __future__ import annotations

from ..diagnosis.wavefront import Wavefront, wavefront
from .base import Context


def fronts_of(ctx: Context) -> Wavefront:
    found = ctx.__dict__.get("_wavefront")
    if found is None:
        inside = [r for r, st in ctx.ranks.items() if st.where == "collective" and not st.end]
        found = wavefront(ctx.timelines.colls, ctx.timelines.members, ctx.of("fr_dump"), ctx.p2p, inside)
        ctx.__dict__["_wavefront"] = found
    return found


def consequences(ctx: Context, stalled: bool = True) -> set[int]:
    """Ranks that wait in one group for a peer stuck or missing in another, and ranks waiting in a collective that
    every member reached but that cannot finish (a mismatch, or a device that never ran it; left out with
    `stalled=False`): they are not stuck outside collectives."""
    if ctx.timelines.empty or "flight_recorder" not in ctx.timelines.sources():
        return set()
    wf = fronts_of(ctx)
    return set(wf.consequences) | (set(wf.stalled) if stalled else set())


def explaining_groups(ctx: Context, culprits: list[int]) -> tuple[list[dict], int]:
    """(the stalled groups the culprits are missing from, most telling first; how many other groups there are
    with every member at the same point) for the verdict panel: "54 other groups: every member at the same point"."""
    if not culprits or ctx.timelines.empty or "flight_recorder" not in ctx.timelines.sources():
        return [], 0
    wf = fronts_of(ctx)
    shown = wf.explaining(culprits)
    return [f.to_dict() for f in shown], max(0, len(ctx.timelines.members) - len(wf.fronts))
