"""Diagnosis → a Chrome trace-event JSON that opens in Perfetto / chrome://tracing.

Format (trace-event format, "JSON Object Format"): ``{"traceEvents": [...], "displayTimeUnit": "ms"}``.
- one process (pid 1, named by a ``process_name`` metadata event), one track per rank: tid = rank + 1 with a
  ``thread_name`` "rank N" and ``thread_sort_index`` N;
- one complete event (``ph: "X"``, ``ts``/``dur`` in µs) per collective of the main group;
- the last common collective: a global instant event (``ph: "i"``, ``s: "g"``) at its start;
- the culprit's first divergent entry: ``cname: "terrible"`` and ``args.divergent``.

Collectives without timestamps (NCCL COLL lines, gloo dumps) are laid out one per millisecond by seq. Only the
last WINDOW collectives before the last common one (or the first divergence) are drawn, so a 1,024-rank trace
stays small enough to open.
"""
from __future__ import annotations

import json

import pandas as pd

from ..diagnosis.reduce import Diagnosis

PID = 1
SLOT_US = 1000.0              # synthetic spacing when a collective has no timestamp
WINDOW = 200                  # collectives before the last common one that are drawn (the hang is at the end)


def main_group(d: Diagnosis) -> str | None:
    """The group with the most rows (the default PG / world communicator, usually)."""
    colls = d.timelines.colls
    if colls.empty:
        return None
    counts = colls.groupby("group").size()
    return str(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[0][0])


def _times(rows: pd.DataFrame) -> pd.Series:
    """µs since the first collective; seq-based slots when times are missing."""
    t = rows["time"]
    if t.notna().all() and t.nunique() > 1:
        return (t - t.min()) * 1e6
    return (rows["seq"] - rows["seq"].min()) * SLOT_US


def render(d: Diagnosis) -> str:
    events = [{"ph": "M", "pid": PID, "tid": 0, "name": "process_name", "args": {"name": "ncclf: ranks"}}]
    for rank in sorted(d.ranks):
        events.append({"ph": "M", "pid": PID, "tid": rank + 1, "name": "thread_name", "args": {"name": f"rank {rank}"}})
        events.append({"ph": "M", "pid": PID, "tid": rank + 1, "name": "thread_sort_index",
                       "args": {"sort_index": rank}})
    group = main_group(d)
    if group is not None:
        events += _slices(d, group)
    return json.dumps({"traceEvents": events, "displayTimeUnit": "ms"}, default=str) + "\n"


def _slices(d: Diagnosis, group: str) -> list[dict]:
    rows = d.timelines.colls[d.timelines.colls["group"] == group]
    common = d.timelines.last_common.get(group)
    first_div = d.divergence["seq"].min() if d.divergence is not None and not d.divergence.empty else None
    low = min(x for x in (common, first_div) if x is not None) - WINDOW if common is not None else None
    if low is not None:
        rows = rows[rows["seq"] >= low]
    rows = rows.sort_values(["rank", "seq"])
    ts = _times(rows)
    dur = max(SLOT_US * 0.8, 1.0) if rows["time"].isna().any() else _duration(ts)
    flag = _divergent(d, group)
    out = []
    for (rank, seq, op, numel, dtype, state, src, file, line), t in zip(
            rows[["rank", "seq", "op", "numel", "dtype", "state", "source", "file", "line"]].itertuples(index=False),
            ts):
        ev = {"ph": "X", "pid": PID, "tid": int(rank) + 1, "name": str(op), "cat": str(src), "ts": round(float(t), 3),
              "dur": dur, "args": {"seq": int(seq), "numel": None if pd.isna(numel) else int(numel),
                                   "dtype": None if pd.isna(dtype) else str(dtype), "state": str(state),
                                   "evidence": f"{file}:{line}"}}
        if (int(rank), int(seq)) in flag:
            ev["cname"] = "terrible"
            ev["args"]["divergent"] = flag[(int(rank), int(seq))]
        out.append(ev)
    if common is not None:
        at = rows[rows["seq"] == common]
        t0 = float(ts[at.index].min()) if not at.empty else 0.0
        out.append({"ph": "i", "s": "g", "pid": PID, "tid": 0, "ts": round(t0, 3),
                    "name": f"last common collective: {group} seq {common}", "args": {"group": group, "seq": common}})
    return out


def _duration(ts: pd.Series) -> float:
    gaps = ts.sort_values().diff().dropna()
    gaps = gaps[gaps > 0]
    return round(float(gaps.median()) * 0.8, 3) if not gaps.empty else SLOT_US * 0.8


def _divergent(d: Diagnosis, group: str) -> dict:
    div = d.divergence
    if div is None or div.empty:
        return {}
    rows = div[(div["group"] == group) & div["rank"].isin(d.verdict.culprit_ranks)]
    return {(int(r), int(s)): f"{f}: {v} (others {m})"
            for r, s, f, v, m in zip(rows["rank"], rows["seq"], rows["field"], rows["value"], rows["modal"])}
