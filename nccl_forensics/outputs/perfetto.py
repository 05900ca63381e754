"""Diagnosis → a Chrome trace-event JSON that opens in Perfetto / chrome://tracing.

Format (trace-event format, "JSON Object Format"): ``{"traceEvents": [...], "displayTimeUnit": "ms"}``.
- one process (pid 1, named by a ``process_name`` metadata event), one track per rank: tid = rank + 1 with a
  ``thread_name`` "rank N" and ``thread_sort_index`` N;
- each collective of the main group is an instant event (``ph: "i"``, ``s: "t"``) at the time the rank
  enqueued it: the sources record when a collective started, rarely when it ended, so no duration is
  invented (``args.duration`` says "unknown"). Collectives without timestamps (NCCL COLL lines, gloo dumps
  without times) are laid out one per millisecond by seq and say so (``args.time``: "order only");
- where a rank waited for a later one, the wait is a complete event (``ph: "X"``) "waiting for rank N" from
  its own arrival to the last arrival: both ends are measured. Slices on one track never overlap (a wait is
  cut at the rank's next arrival, which clock offsets between hosts could otherwise put inside it);
- a flow arrow (``ph: "s"``/``"f"``) from each straggler's late arrival to the waits it ended;
- per rank, instants for its py-spy state, its errors and its end (exit, signal, OOM) when known;
- the last common collective: a global instant event (``ph: "i"``, ``s: "g"``);
- the culprit's first divergent entry: ``cname: "terrible"`` and ``args.divergent``.

Only the last WINDOW collectives before the last common one (or the first divergence) are drawn, so a
1,024-rank trace stays small enough to open.
"""
from __future__ import annotations

import json
import math
import re
from typing import Any

import numpy as np
import pandas as pd

from ..diagnosis.arrivals import arrivals
from ..pipeline.reduce import Diagnosis

PID = 1
SLOT_US = 1000.0              # spacing by seq when a collective has no timestamp
WINDOW = 200                  # collectives before the last common one that are drawn (the hang is at the end)
_STRAGGLER = "S701"


def main_group(d: Diagnosis) -> str | None:
    """The group with the most rows (the default PG / world communicator, usually)."""
    colls = d.timelines.colls
    if colls.empty:
        return None
    counts = colls.groupby("group", observed=True).size()
    return str(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[0][0])


def render(d: Diagnosis) -> str:
    events = [{"ph": "M", "pid": PID, "tid": 0, "name": "process_name", "args": {"name": "ncclf: ranks"}}]
    for rank in sorted(d.ranks):
        events.append({"ph": "M", "pid": PID, "tid": rank + 1, "name": "thread_name", "args": {"name": f"rank {rank}"}})
        events.append({"ph": "M", "pid": PID, "tid": rank + 1, "name": "thread_sort_index",
                       "args": {"sort_index": rank}})
    group = main_group(d)
    end = 0.0
    if group is not None:
        rows, measured = _window(d, group)
        events += _arrivals(d, group, rows, measured)
        if measured:
            events += _waits(d, rows)
        end = float(rows["ts"].max()) + SLOT_US if not rows.empty else 0.0
    events += _rank_marks(d, end)
    return json.dumps({"traceEvents": events, "displayTimeUnit": "ms"}, default=str) + "\n"


def _window(d: Diagnosis, group: str) -> tuple[pd.DataFrame, bool]:
    """The group's rows in the drawn window, with `ts` (µs): measured when every row has a time."""
    rows = d.timelines.colls[d.timelines.colls["group"] == group]
    common = d.timelines.last_common.get(group)
    first_div = d.divergence["seq"].min() if d.divergence is not None and not d.divergence.empty else None
    low = min(x for x in (common, first_div) if x is not None) - WINDOW if common is not None else None
    if low is not None:
        rows = rows[rows["seq"] >= low]
    rows = rows.sort_values(["rank", "seq"]).copy()
    t = rows["time"]
    measured = bool(len(rows)) and bool(t.notna().all()) and t.nunique() > 1
    rows["ts"] = ((t - t.min()) * 1e6) if measured else (rows["seq"] - rows["seq"].min()) * SLOT_US
    return rows, measured


def _arrivals(d: Diagnosis, group: str, rows: pd.DataFrame, measured: bool) -> list[dict]:
    flag = _divergent(d, group)
    out = []
    for rank, seq, op, numel, dtype, state, src, file, line, ts in rows[
            ["rank", "seq", "op", "numel", "dtype", "state", "source", "file", "line", "ts"]].itertuples(index=False):
        ev: dict[str, Any]
        ev = {"ph": "i", "s": "t", "pid": PID, "tid": int(rank) + 1, "name": str(op), "cat": str(src),
              "ts": round(float(ts), 3),
              "args": {"seq": int(seq), "numel": None if pd.isna(numel) else int(numel),
                       "dtype": None if pd.isna(dtype) else str(dtype), "state": str(state),
                       "evidence": f"{file}:{line}", "duration": "unknown",
                       "time": "enqueued (measured)" if measured else "order only (no timestamp)"}}
        if (int(rank), int(seq)) in flag:
            ev["cname"] = "terrible"
            ev["args"]["divergent"] = flag[(int(rank), int(seq))]
        out.append(ev)
    common = d.timelines.last_common.get(group)
    if common is not None:
        at = rows[rows["seq"] == common]
        out.append({"ph": "i", "s": "g", "pid": PID, "tid": 0, "ts": round(float(at["ts"].min()) if len(at) else 0.0, 3),
                    "name": f"last common collective: {group} seq {common}", "args": {"group": group, "seq": common}})
    return out


def _waits(d: Diagnosis, rows: pd.DataFrame) -> list[dict]:
    """'waiting for rank N' slices: each rank's arrival → the last arrival at the same collective."""
    table = arrivals(rows.reset_index(drop=True))
    if table.empty:
        return []
    last = dict(zip(table["seq"], zip(table["who"], table["row"], strict=True), strict=True))
    flat = rows.reset_index(drop=True)
    stragglers = {r for f in d.findings if f.id == _STRAGGLER for r in f.ranks}
    out, flow_id = [], 0
    for rank, part in flat.groupby("rank", sort=True):
        stated = _timeout_us(d.ranks.get(int(rank)))
        timeout = math.inf if stated is None else stated     # no stated timeout: no wait times out
        ts, seqs = part["ts"].to_numpy(), part["seq"].to_numpy(np.int64)
        order = np.append(np.sort(ts), np.inf)               # a wait ends by this rank's next arrival at the latest
        nxt = order[np.searchsorted(order, ts, side="right")]
        for t, seq, limit in zip(ts, seqs, nxt, strict=True):
            if int(seq) not in last:
                continue
            who, row = last[int(seq)]
            end = min(float(flat.at[row, "ts"]), float(limit))
            timed_out = end > t + timeout
            end = min(end, float(t) + timeout) if timed_out else end        # no wait outlives the rank's timeout
            if int(who) == int(rank) or end <= t:
                continue
            name = f"waiting for rank {int(who)}" + (f" (timed out after {timeout / 1e6:g} s)" if timed_out else "")
            out.append({"ph": "X", "pid": PID, "tid": int(rank) + 1, "name": name,
                        "cat": "wait", "ts": round(float(t), 3), "dur": round(round(end, 3) - round(float(t), 3), 3),
                        "args": {"seq": int(seq), "measured": (
                            f"from this rank's arrival to its timeout ({timeout / 1e3:g} ms, its error line)"
                            if timed_out else f"from this rank's arrival to rank {int(who)}'s")}})
            if int(who) in stragglers:
                flow_id += 1
                out.append({"ph": "s", "pid": PID, "tid": int(who) + 1, "id": flow_id, "name": "late arrival",
                            "cat": "straggler", "ts": round(float(flat.at[row, "ts"]), 3)})
                out.append({"ph": "f", "bp": "e", "pid": PID, "tid": int(rank) + 1, "id": flow_id,
                            "name": "late arrival", "cat": "straggler", "ts": round(end, 3)})
    return out


# How long a rank waited before it gave up, as its error line says: gloo's `Timed out waiting 5000ms`, the NCCL
# watchdog's `Timeout(ms)=600000`, `timeout_ms`/`timeout=...ms` in torch's messages.
_TIMEOUT_RE = re.compile(r"(?:Timed out waiting |Timeout\(ms\)=|timeout_ms[=:] ?|timeout (?:of |after )?)(\d+) ?(ms|s)?\b",
                         re.IGNORECASE)


def _timeout_us(st) -> float | None:
    """The timeout a rank's own error line states (µs), if it ended by one."""
    if st is None or not st.end:
        return None
    for text in [st.end_detail, *(e.text for e in st.evidence)]:
        m = _TIMEOUT_RE.search(text or "")
        if m:
            return float(m.group(1)) * (1e6 if (m.group(2) or "ms").lower() == "s" else 1e3)
    return None


def _rank_marks(d: Diagnosis, end: float) -> list[dict]:
    """Each rank's py-spy state, errors and end: instants after its last collective (their times are unknown)."""
    out = []
    for rank, st in sorted(d.ranks.items()):
        marks: list[tuple[str, dict[str, Any]]] = []
        if st.where:
            marks.append((f"py-spy: {st.where}" + (f" ({st.op})" if st.op else ""), {"at": st.at}))
        if st.end:
            marks.append((f"end: {st.end}", {"detail": st.end_detail, "exitcode": st.exitcode, "signal": st.signal}))
        for e in st.evidence[:3]:
            marks.append(("evidence", {"evidence": f"{e.file}:{e.line}", "text": e.text[:200]}))
        for i, (name, args) in enumerate(marks):
            out.append({"ph": "i", "s": "t", "pid": PID, "tid": rank + 1, "name": name, "cat": "rank",
                        "ts": round(end + i, 3), "args": {**args, "time": "unknown (drawn after the last collective)"}})
    return out


def _divergent(d: Diagnosis, group: str) -> dict:
    div = d.divergence
    if div is None or div.empty:
        return {}
    rows = div[(div["group"] == group) & div["rank"].isin(d.verdict.culprit_ranks)]
    return {(int(r), int(s)): f"{f}: {v} (others {m})"
            for r, s, f, v, m in zip(rows["rank"], rows["seq"], rows["field"], rows["value"], rows["modal"], strict=True)}
