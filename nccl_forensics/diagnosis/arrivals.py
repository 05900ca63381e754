"""When each rank arrived at each collective, and who the others waited for: the skew behind stragglers (S701).

A rank's arrival is the time its row carries: a flight-recorder entry's `time_created_ns` (the CPU enqueued
the collective) or a timestamped NCCL COLL line. For every (group, seq) with times from two or more ranks,
the rank that arrived last and its *gap*, how long after the next-to-last rank it came, are what the others
spent waiting for it. The first collective of each group is left out (start-up skew: imports, data loader
workers), and only the last WINDOW collectives of each group are read: a straggler is a recent, persistent
pattern, and the cost stays linear in the window.

Clocks: ranks on one host share one; across hosts the gaps include their clock offset (NTP keeps it to about
a millisecond). A constant offset makes a host look late at *every* collective by the same amount; the
straggler rule wants the lag to stand out against the gaps of the collectives that rank was not last at.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd

WINDOW = 1000                  # collectives per group, counted back from its last


class Late(NamedTuple):
    """One collective at which a rank arrived last."""
    group: str
    seq: int
    gap: float                 # seconds after the next-to-last rank
    row: int                   # index of the last rank's row in `colls` (for evidence)


def arrivals(colls: pd.DataFrame, hosts: dict[int, str] | None = None) -> pd.DataFrame:
    """One row per timed (group, seq) reached by ≥ 2 ranks: group, seq, who (the rank that arrived last, or with
    `hosts` the host whose last rank did), gap (s after the runner-up), row (the late row's index in `colls`),
    ranks (how many arrived), end (the last arrival's time)."""
    empty = pd.DataFrame({"group": [], "seq": [], "who": [], "gap": [], "row": [], "ranks": [], "end": []})
    if colls.empty or "time" not in colls:
        return empty
    time, seq, rank = (colls[c].to_numpy(np.float64, na_value=np.nan) for c in ("time", "seq", "rank"))
    group = colls["group"]
    codes = group.cat.codes.to_numpy() if isinstance(group.dtype, pd.CategoricalDtype) else pd.factorize(group)[0]
    where = np.flatnonzero(~(np.isnan(time) | np.isnan(seq) | np.isnan(rank)) & (codes >= 0))
    if not len(where):
        return empty
    codes, seq = codes[where].astype(np.int64), seq[where].astype(np.int64)
    by_group = pd.Series(seq).groupby(codes)
    keep = (seq > by_group.transform("min").to_numpy()) & (seq > by_group.transform("max").to_numpy() - WINDOW)
    where, codes, seq = where[keep], codes[keep], seq[keep]
    if not len(where):
        return empty
    who = rank[where].astype(np.int64)
    if hosts is not None:
        who = np.array([hosts.get(int(r)) or f"rank {int(r)}" for r in who], dtype=object)
    frame = pd.DataFrame({"key": codes * (int(seq.max()) + 2) + seq, "who": who, "time": time[where], "row": where})
    if hosts is not None:                                 # a host arrives with its last rank
        frame = frame.loc[frame.groupby(["key", "who"], sort=False)["time"].idxmax()].reset_index(drop=True)
    by_key = frame.groupby("key", sort=False)["time"]
    counts = by_key.transform("size").to_numpy()
    last = by_key.idxmax().to_numpy()
    last = last[counts[last] >= 2]
    rest = np.ones(len(frame), bool)
    rest[last] = False
    runner_up = frame["time"][rest].groupby(frame["key"][rest]).max()
    key, end, row = (frame[c].to_numpy()[last] for c in ("key", "time", "row"))
    pos = colls.index[row]
    return pd.DataFrame({"group": colls["group"].to_numpy()[row], "seq": colls["seq"].to_numpy()[row].astype(np.int64),
                         "who": frame["who"].to_numpy()[last], "gap": end - runner_up.reindex(key).to_numpy(),
                         "row": pos, "ranks": counts[last], "end": end})


class Straggling(NamedTuple):
    """A rank (or a host's ranks) the others kept waiting for."""
    ranks: list[int]
    host: str | None           # set when the late ranks are one host's
    late: list[Late]           # the collectives it was clearly last at, oldest first
    timed: int                 # collectives with times from ≥ 2 ranks
    median: float              # seconds, over `late`
    p95: float
    waited: float              # the others' total wait for it (s)
    share: float               # of all the waiting
    baseline: float            # median gap at the collectives it was not last at (s)


MIN_LATE = 3                   # collectives it must be clearly last at
MIN_GAP = 1e-3                 # s: below this a lag is clock noise
RATIO = 10.0                   # its lag against the usual gap
OUTLIER = 2.0                  # and against the others' worst (p95) gaps: a late rank stands out from them
MIN_SHARE = 0.6                # of all the waiting
MIN_WAIT = 0.05                # s: the others' waiting for it in all; less costs the job nothing worth a verdict,
                               # and a loaded host's scheduler alone reaches ~10 ms (a 2-rank CI job: 3 lags, 13 ms)
MIN_LAG = 0.003                # s: its median lag (absolute floor): below this, scheduling noise and clock offsets
                               # (a rank 2 ms behind at every collective of a healthy run is not a straggler)
MIN_COST = 0.05                # of the time the timed collectives span (relative floor): waiting that costs the job
                               # less than 5% of its run time is not worth a verdict


def straggler(colls: pd.DataFrame, hosts: dict[int, str] | None = None) -> Straggling | None:
    """The rank, else the host, that caused most of the waiting by a clear margin, or None."""
    found = _who(arrivals(colls), lambda r: [int(r)], None)
    if found is None and hosts and len(set(hosts.values())) > 1:
        found = _who(arrivals(colls, hosts), lambda h: sorted(r for r, hh in hosts.items() if hh == h), "host")
        if found is not None and len(found.ranks) < 2:
            found = None                                  # a one-rank host: the rank rule already decided
    return found


def _who(table: pd.DataFrame, members, kind: str | None) -> Straggling | None:
    if len(table) < MIN_LATE:
        return None
    owner = table["who"].to_numpy()
    gaps = table["gap"].to_numpy(np.float64)
    waited = pd.Series(gaps).groupby(owner).sum()
    if waited.empty or waited.sum() <= 0:
        return None
    top = waited.idxmax()
    mine = owner == top
    baseline = float(np.median(gaps[~mine])) if (~mine).any() else 0.0
    worst_other = float(np.percentile(gaps[~mine], 95)) if (~mine).any() else 0.0
    clear = mine & (gaps >= max(MIN_GAP, RATIO * baseline, OUTLIER * worst_other))
    share = float(gaps[clear].sum() / gaps.sum())
    if clear.sum() < MIN_LATE or share < MIN_SHARE or gaps[clear].sum() < MIN_WAIT:
        return None
    ends = table["end"].to_numpy(np.float64)
    span = float(ends.max() - ends.min()) if len(ends) else 0.0
    if float(np.median(gaps[clear])) < MIN_LAG or span > 0 and gaps[clear].sum() < MIN_COST * span:
        return None
    late = [Late(str(g), int(s), gap, int(row)) for g, s, gap, row in
            table.loc[clear, ["group", "seq", "gap", "row"]].itertuples(index=False)]
    lags = gaps[clear]
    return Straggling(members(top), str(top) if kind == "host" else None, late, len(table), float(np.median(lags)),
                      float(np.percentile(lags, 95)), float(lags.sum()), share, baseline)
