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

from .chunks import bincount, row_chunks

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
    ranks (how many arrived), end (the last arrival's time). Rows come in the order their (group, seq) first
    appears in `colls`; numpy throughout (a few arrays of the timed rows: 100,000 ranks' rows fit)."""
    empty = pd.DataFrame({"group": [], "seq": [], "who": [], "gap": [], "row": [], "ranks": [], "end": []})
    if colls.empty or "time" not in colls:
        return empty
    column = colls["time"]
    time = column.to_numpy() if column.dtype == np.float64 else column.to_numpy(np.float64, na_value=np.nan)
    group = colls["group"]
    codes = group.array.codes if isinstance(group.dtype, pd.CategoricalDtype) else pd.factorize(group)[0]
    known = np.empty(len(time), bool)
    for part in row_chunks(len(time)):             # ~isnan(time) & (codes >= 0): no row-sized temporaries
        np.logical_and(~np.isnan(time[part]), codes[part] >= 0, out=known[part])
    seq, rank = (_ints(colls[c], known) for c in ("seq", "rank"))
    if not known.any():
        return empty
    keep = _in_window(codes, seq, known)                # known, in place: the rows read
    if not keep.any():
        return empty
    # key: (group, seq) per row, -1 on a row not read. A 100,000-rank timeline is nearly every row read: the key
    # is the one array of the rows' size made here (no selection copies the columns)
    key = _keys(codes, seq, keep)
    when, who, where, labels = time, rank, None, None
    if hosts is not None:                                 # a host arrives with its last rank
        where = np.flatnonzero(keep)
        key, when, who = key[where].astype(np.int64), time[where], rank[where]       # key * hosts below: 8 bytes
        ranks, inverse = np.unique(who, return_inverse=True)
        host_codes, labels = pd.factorize(pd.Index([hosts.get(int(r)) or f"rank {int(r)}" for r in ranks],
                                                   dtype=object))
        who = host_codes[inverse].astype(np.int64)
        firsts = _last_of_each(_dense(key * len(labels) + who), when)[0]
        key, when, who = key[firsts], when[firsts], who[firsts]
        where = where[firsts]
    del keep
    lowest = int(np.argmin(key))                          # a row not read, if any is (key -1)
    unread = bool(key[lowest] < 0)
    ids = _dense(key, own=True)
    del key
    skip = int(ids[lowest]) if unread else None
    last, counts = _last_of_each(ids, when, skip)
    last = last[counts[ids[last]] >= 2]
    rest = np.ones(len(ids), bool)
    rest[last] = False
    runner_up = np.full(int(ids.max()) + 1, -np.inf)
    for part in row_chunks(len(ids)):           # -inf leaves a maximum as it is
        np.fmax.at(runner_up, ids[part], np.where(rest[part], when[part], -np.inf))
    end, row = when[last], (last if where is None else where[last])
    owner = who[last] if labels is None else np.asarray(labels, dtype=object)[who[last]]
    return pd.DataFrame({"group": group.iloc[row].to_numpy(), "seq": colls["seq"].to_numpy()[row].astype(np.int64),
                         "who": owner, "gap": end - runner_up[ids[last]], "row": colls.index[row],
                         "ranks": counts[ids[last]], "end": end})


def _in_window(codes: np.ndarray, seq: np.ndarray, known: np.ndarray) -> np.ndarray:
    """`known`, cleared (in place) on each group's first collective and on those before its last WINDOW."""
    lowest = np.full(int(codes.max()) + 1, np.iinfo(np.int64).max)
    highest = np.full(len(lowest), -(1 << 62))
    for part in row_chunks(len(seq)):
        rows = known[part]
        groups, seqs = codes[part][rows], seq[part][rows].astype(np.int64, copy=False)   # ufunc.at is ~40x
        np.minimum.at(lowest, groups, seqs)                          # slower when it must cast the values
        np.maximum.at(highest, groups, seqs)
    for part in row_chunks(len(seq)):           # a row of no group (code -1) is not known already
        groups, seqs = codes[part], seq[part]
        known[part] &= (seqs > lowest[groups]) & (seqs > highest[groups] - WINDOW)
    return known


def _keys(codes: np.ndarray, seq: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """group code x (the largest seq kept + 2) + seq for each row kept, -1 for the others."""
    top = max(int(seq[part][keep[part]].max()) for part in row_chunks(len(seq)) if keep[part].any())
    # int32 where no key can overflow it (half the bytes of the one row-sized array made here), else int64
    wide = int(seq.min()) < 0 or (int(codes.max()) + 2) * (top + 2) >= 1 << 31
    key: np.ndarray = codes.astype(np.int64 if wide else np.int32)
    key *= top + 2
    np.add(key, seq, out=key, casting="unsafe")          # a block at a time: no row-sized copy of the seqs
    for part in row_chunks(len(key)):
        np.putmask(key[part], ~keep[part], -1)
    return key


def _ints(column: pd.Series, known: np.ndarray) -> np.ndarray:
    """An integer column as it is; a float one (missing values) also clears `known` where it is NaN."""
    if column.dtype.kind in "iu":
        return column.to_numpy()                             # as it is (int32 in a timeline where it fits)
    values = column.to_numpy(np.float64, na_value=np.nan)
    known &= ~np.isnan(values)
    return np.where(np.isnan(values), 0, values).astype(np.int64)


def _dense(key: np.ndarray, own: bool = False) -> np.ndarray:
    """Ids 0..k-1 for the distinct values of `key` (the key itself where its range is that small; shifted in
    place when the caller gives up its `own` key)."""
    low = int(key.min())
    if int(key.max()) - low < 4 * len(key) + 1024:
        if own:
            key -= low
            return key
        return key if low == 0 else key - low
    return pd.factorize(key)[0].astype(np.int64)


def _last_of_each(ids: np.ndarray, when: np.ndarray, skip: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(position of each id's latest row, its first one on ties (as pandas' idxmax), ordered by where the id first
    appears (as groupby(sort=False)); rows per id). Id `skip` (the rows not read) is left out (its count 0)."""
    n, size = len(ids), int(ids.max()) + 1
    counts = bincount(ids, size)
    if skip is not None:
        counts[skip] = 0
    first = np.full(size, n, np.int64)
    latest = np.full(size, -np.inf)
    for rows in row_chunks(n):
        part = ids[rows]
        np.minimum.at(first, part, np.arange(rows.start, rows.start + len(part)))
        np.fmax.at(latest, part, when[rows].astype(np.float64, copy=False))   # fmax: a row not read may have no time
    best = np.full(size, n, np.int64)
    for rows in row_chunks(n):
        part = ids[rows]
        at_latest = np.flatnonzero(when[rows] == latest[part])
        np.minimum.at(best, part[at_latest], at_latest + rows.start)
    present = np.flatnonzero(counts)
    return best[present[np.argsort(first[present], kind="stable")]], counts


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
