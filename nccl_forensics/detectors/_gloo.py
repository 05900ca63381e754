"""Shared by C101 and C104: what a gloo size-mismatch abort says when the aborting rank left no dump.

On gloo the rank whose buffer is *smaller* aborts (``op.preamble.length <= op.nbytes. R vs E``: it received
R bytes, expected E). When the other ranks' flight-recorder entries show nothing odd, the aborting rank is
the odd one. Compare E/R with the healthy ranks' own last two collectives P, L (bytes): E/R ≈ P/L means
the aborting rank was still (again) in P — an extra collective; E/R ≈ N/L, with N what always followed L,
means it skipped ahead; anything else is a size (shape or dtype) mismatch on the aborting rank.
"""
from __future__ import annotations

import math
from typing import NamedTuple

import pandas as pd

from .base import Context

_BYTES = {"float64": 8, "int64": 8, "float32": 4, "int32": 4, "bfloat16": 2, "float16": 2, "int16": 2,
          "int8": 1, "uint8": 1, "bool": 1}


class GlooAbort(NamedTuple):
    receivers: list[int]        # ranks that aborted on a size check
    senders: list[int]          # the others
    culprits: list[int]         # who is odd, as far as the evidence goes
    kind: str                   # "extra" | "skipped" | "size" | "unknown"
    events: list                # the gloo_error events


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
        return GlooAbort(receivers, senders, receivers, _kind(colls, senders[0], errors[0].data), errors)
    culprits = senders if len(senders) == 1 else []
    return GlooAbort(receivers, senders, culprits, "size" if culprits else "unknown", errors)


def _kind(colls: pd.DataFrame, rank: int, data: dict) -> str:
    expected, received = data.get("expected_bytes"), data.get("received_bytes")
    mine = colls[colls["rank"] == rank].sort_values("seq")
    if not expected or not received or len(mine) < 3:
        return "size"
    sizes = [_nbytes(n, d) for n, d in zip(mine["numel"], mine["dtype"])]
    prev, last = sizes[-2], sizes[-1]
    observed = math.log(expected / received)
    if prev and last and abs(observed - math.log(prev / last)) < math.log(4):
        return "extra"
    sigs = list(zip(mine["op"].astype(str), sizes))
    nexts = [sigs[j + 1][1] for j in range(len(sigs) - 1) if sigs[j] == sigs[-1]]
    if nexts and nexts[-1] and abs(observed - math.log(nexts[-1] / last)) < math.log(4):
        return "skipped"
    return "size"


def _nbytes(numel, dtype) -> float | None:
    if numel is None or numel != numel:
        return None
    width = _BYTES.get(str(dtype).split(",")[0], 4)
    return float(numel) * width or None
