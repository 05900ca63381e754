"""Shared by C101, C102 and C104: what a gloo size-mismatch abort says when the aborting rank left no dump.

On gloo the rank whose buffer is *smaller* aborts (``op.preamble.length <= op.nbytes. R vs E``: it received
R bytes, expected E) and leaves no flight-recorder dump; the sender fails with "Connection closed" and
dumps. Two readings of the same abort, decided by the sender's own history and the byte ratio E/R:

- the sender broke its own step pattern: its last entry L is not what always followed its previous
  entry P (the usual follower F), and E/R ≈ F/L (the receiver was doing F). Then the *sender* is the
  culprit (the receiver of an oversized message is not): a dtype change if L and F differ in dtype, a
  size change if only the count differs and L is new, a skipped collective if L is a collective the
  sender issued before. Used with one sender only (two ranks): with more, the majority vote decides.
- the sender did what it always does: the aborting rank is the odd one. With P, L the sender's last two
  collectives (bytes): E/R ≈ P/L means the aborting rank was still (again) in P — an extra collective;
  E/R ≈ N/L, with N what always followed L, means it skipped ahead; anything else is a size mismatch.

Example, two ranks, rank 1 all-reduces 5 metrics at step 2 where it reduced 4 at step 1: rank 0 aborts
with ``8 vs 4``; rank 1's dump ends ``allreduce 106240 float32, allreduce 5 float32`` where its step 1 had
``allreduce 106240 float32, allreduce 4 float32``: 16/20 fits 4/8 better than any receiver reading.
"""
from __future__ import annotations

import math
from collections import Counter
from typing import NamedTuple

import pandas as pd

from .base import Context

_BYTES = {"float64": 8, "int64": 8, "uint64": 8, "complex64": 8, "complex128": 16, "float32": 4, "int32": 4,
          "uint32": 4, "bfloat16": 2, "float16": 2, "int16": 2, "uint16": 2, "int8": 1, "uint8": 1, "bool": 1,
          "float8_e4m3fn": 1, "float8_e5m2": 1, "float8_e4m3fnuz": 1, "float8_e5m2fnuz": 1}
_FIT = math.log(4)          # how far (in log ratio) a byte ratio may be from E/R and still fit


class GlooAbort(NamedTuple):
    receivers: list[int]        # ranks that aborted on a size check
    senders: list[int]          # the others
    culprits: list[int]         # who is odd, as far as the evidence goes
    kind: str                   # "extra" | "skipped" | "size" | "dtype" | "unknown"
    events: list                # the gloo_error events
    why: str = ""               # set when the sender is the culprit: what its own history shows
    rows: pd.DataFrame | None = None   # the sender's entries that show it (previous, last)


class SenderChange(NamedTuple):
    kind: str
    why: str
    rows: pd.DataFrame


def analyse(ctx: Context) -> GlooAbort | None:
    errors = [ev for ev in ctx.of("gloo_error") if ev.data.get("category") == "size_mismatch"]
    if not errors:
        return None
    receivers = sorted({ev.rank for ev in errors if ev.rank is not None})
    senders = [r for r in ctx.world if r not in receivers]
    colls = ctx.timelines.colls
    dumped = set(colls["rank"].unique()) if not colls.empty else set()
    odd = set(ctx.outliers["rank"]) if not ctx.outliers.empty else set()
    if receivers and senders and set(senders) <= dumped and not odd & set(senders) and not set(receivers) & dumped:
        change = sender_change(colls, senders[0], errors[0].data) if len(senders) == 1 else None
        if change is not None:
            return GlooAbort(receivers, senders, senders, change.kind, errors, change.why, change.rows)
        return GlooAbort(receivers, senders, receivers, _kind(colls, senders[0], errors[0].data), errors)
    culprits = senders if len(senders) == 1 else []
    return GlooAbort(receivers, senders, culprits, "size" if culprits else "unknown", errors)


def sender_change(colls: pd.DataFrame, rank: int, data: dict) -> SenderChange | None:
    """The sender's own evidence that it, not the aborting receiver, changed (see the module doc)."""
    mine = colls[colls["rank"] == rank].sort_values("seq")
    sigs = _signatures(mine)
    observed = _observed(data)
    if len(sigs) < 3 or observed is None:
        return None
    prev, last = sigs[-2], sigs[-1]
    followers = Counter(sigs[j + 1] for j in range(len(sigs) - 2) if sigs[j] == prev)
    if not followers:
        return None
    usual = max(followers, key=lambda s: (followers[s], max(j for j, x in enumerate(sigs[:-1]) if x == s)))
    if usual == last or usual[0] != last[0]:
        return None                       # it did what it always did there, or another op (C103's case)
    fit = _distance(observed, usual[3], last[3])
    if fit is None or fit > _FIT or any(d is not None and d <= fit for d in _receiver_fits(sigs, observed).values()):
        return None
    kind = "skipped" if last in sigs[:-1] else "dtype" if last[1] != usual[1] else "size"
    note = {"skipped": " (a collective it issues at another point of its steps: it skipped or added one)",
            "dtype": " (a new dtype)", "size": " (a new element count)"}[kind]
    why = (f"rank {rank}'s flight recorder ends with {last[0]} {last[2]} {last[1]}{note} at seq "
           f"{int(mine['seq'].iloc[-1])}, where "
           f"after the same previous collective its earlier step{'s' if followers[usual] > 1 else ''} issued "
           f"{usual[0]} {usual[2]} {usual[1]}; the other rank aborted receiving {data.get('received_bytes')} bytes "
           f"where it expected {data.get('expected_bytes')}, which fits that change (the rank that aborts is the "
           "receiver of the oversized message, not the culprit)")
    return SenderChange(kind, why, mine.tail(2))


def _kind(colls: pd.DataFrame, rank: int, data: dict) -> str:
    """The aborting rank is odd: was it still in the previous collective, ahead, or at another size?"""
    mine = colls[colls["rank"] == rank].sort_values("seq")
    observed = _observed(data)
    if observed is None or len(mine) < 3:
        return "size"
    fits = _receiver_fits(_signatures(mine), observed)
    return next((k for k, d in fits.items() if d is not None and d < _FIT), "size")     # "extra" first


def _receiver_fits(sigs: list[tuple], observed: float) -> dict[str, float | None]:
    """How well E/R fits "the receiver was still in P" (extra) and "it had gone on to N" (skipped)."""
    prev, last = sigs[-2], sigs[-1]
    nexts = [sigs[j + 1][3] for j in range(len(sigs) - 1) if sigs[j] == last]
    return {"extra": _distance(observed, prev[3], last[3]),
            "skipped": _distance(observed, nexts[-1], last[3]) if nexts else None}


def _signatures(rows: pd.DataFrame) -> list[tuple]:
    """(op, dtype, numel, bytes) per entry."""
    return [(str(op), str(dtype).split(",")[0], _plain(n), _nbytes(n, dtype))
            for op, dtype, n in zip(rows["op"], rows["dtype"], rows["numel"], strict=True)]


def _observed(data: dict) -> float | None:
    expected, received = data.get("expected_bytes"), data.get("received_bytes")
    return math.log(expected / received) if expected and received else None


def _distance(observed: float, num: float | None, den: float | None) -> float | None:
    return abs(observed - math.log(num / den)) if num and den else None


def _plain(numel):
    return None if numel is None or numel != numel else int(numel)


def element_bytes(dtype) -> int | None:
    """Bytes per element of a dtype as the timelines name it (`float32`; the first of `float32,float32`)."""
    return _BYTES.get(str(dtype).split(",")[0])


def _nbytes(numel, dtype) -> float | None:
    if numel is None or numel != numel:
        return None
    width = _BYTES.get(str(dtype).split(",")[0], 4)
    return float(numel) * width or None
