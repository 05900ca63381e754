"""events → timelines: one pandas row per (rank, group, seq), and the last common collective of each group.

A *group* is one communicator or process group, named so that the same group has the same name on every
rank:
- ``nccl:<commId>`` for NCCL COLL lines (``seq`` = opCount; the commId comes from the init lines);
- ``<pg_name>`` for flight-recorder entries and watchdog timeouts (``seq`` = collective_seq_id / SeqNum);
- ``detail`` for TORCH_DISTRIBUTED_DEBUG=DETAIL fingerprints (``seq`` = the fingerprint SequenceNumber).

When two sources describe the same (rank, group, seq), the richer one wins (flight recorder, then NCCL,
then watchdog, then fingerprint) and the ``source`` column says which one it was.

Example, four ranks on the default PG where rank 3 stopped after seq 7::

    rank  group  seq  op         numel  dtype    source
    0     0      8    allreduce  1024   float32  flight_recorder
    1     0      8    allreduce  1024   float32  flight_recorder
    2     0      8    allreduce  1024   float32  flight_recorder
    3     0      7    allreduce  1024   float32  flight_recorder   <- last row of rank 3

gives ``last_common_seq`` 7 for group 0, rank 3 ``at`` it and ranks 0-2 ``ahead``.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from operator import itemgetter
from typing import Callable, Iterable

import numpy as np
import pandas as pd

from ..sources.columns import code_type
from ..sources.lines import read_line
from .chunks import row_chunks
from .rows import ABSENT_AS_CODES, CATEGORIES, COLUMNS, SOURCE_PRIORITY, SPARSE, RowBuffer, pack_len, values_of


def frame_of(buffers: Iterable[RowBuffer]) -> pd.DataFrame:
    """One DataFrame from many buffers (one concatenation of lists, not of frames)."""
    merged: dict[str, list] = {name: [] for name in COLUMNS}
    for buf in buffers:
        for name, values in buf.columns().items():
            merged[name].extend(values)
    return pd.DataFrame(merged, columns=COLUMNS)


def frame_from_packed(packs: list[dict[str, tuple]], consume: bool = False,
                      after_column: Callable[[], None] | None = None) -> pd.DataFrame:
    """One DataFrame (COLUMNS, CATEGORIES as categoricals) from many `pack_columns` results. A part may also be
    ("none", n): n missing values (cheaper to send and to merge than a list of n Nones). With `consume`, the
    parts are taken out of the packs and each column's are dropped once it is in the frame (the rows are never
    held twice); `after_column()` is then called whenever the columns built since its last call reach
    TRIM_EVERY bytes (the reduce gives the freed memory back to the system there)."""
    data = {}
    lengths = [pack_len(p) for p in packs]
    empty = _AllMissing(sum(lengths))
    columns = _parts_by_column(packs, lengths, consume)
    built = 0
    for name in COLUMNS:
        parts = columns.pop(name)
        kinds = set(map(itemgetter(0), parts))
        if parts and name in CATEGORIES and kinds == {"cat"}:
            data[name] = _merge_categories(parts)
        elif parts and (kinds == {"none"} and name in ABSENT_AS_CODES or name in SPARSE and (kinds == {"none"} or (
                kinds <= {"cat", "none"} and all(part[0] == "none" or not len(part[1]) for part in parts)))):
            # empty throughout
            data[name] = empty.column()
        elif parts and kinds == {"num"}:
            data[name] = _numbers(name, [part[1] for part in parts])
        elif parts and name in SPARSE and kinds <= {"cat", "none"}:
            # mostly or wholly empty (a text, a call site, a note): codes of one byte a row, not a pointer
            missing = np.full(max(part[1] if part[0] == "none" else 0 for part in parts), -1, np.int8)
            data[name] = _merge_categories([("cat", (), missing[:part[1]]) if part[0] == "none" else part
                                            for part in parts])
        elif parts and kinds == {"none"}:                     # a Series: no dtype inference over the Nones
            data[name] = pd.Series(np.full(sum(part[1] for part in parts), None, dtype=object), dtype=object,
                                   copy=False)
        else:
            data[name] = [v for part in parts for v in values_of(part)]
        del parts
        built += _nbytes(data[name])
        if consume and after_column and built >= TRIM_EVERY:
            after_column()
            built = 0
    if consume and after_column and built:
        after_column()
    return pd.DataFrame(data, columns=COLUMNS, copy=False)     # the arrays are new: no need to copy them again


# bytes of columns built between two `after_column` calls: a trim of the heap costs a few ms at any size, and a
# column of a million rows frees only a few MB (a 100,000-rank reduce's columns reach it one by one); 8 MB: the
# peak RSS of a 4,096-rank reduce stays where a trim after every column left it
TRIM_EVERY = 8 << 20


def _parts_by_column(packs: list[dict], lengths: list[int], consume: bool) -> dict[str, list]:
    """Every column's parts, one per pack in pack order (("none", n) where a pack has no such column), in one
    pass over the packs (taken out of them with `consume`)."""
    columns: dict[str, list] = {name: [] for name in COLUMNS}
    appends = [(name, columns[name].append) for name in COLUMNS]
    for pack, n in zip(packs, lengths, strict=True):
        get = pack.get
        none = ("none", n)
        for name, append in appends:
            append(get(name, none))
        if consume:
            pack.clear()
    return columns


def _nbytes(column) -> int:
    if isinstance(column, pd.Categorical):
        return column.codes.nbytes
    return column.nbytes if isinstance(column, (np.ndarray, pd.Series)) else 8 * len(column)


class _AllMissing:
    """Columns with no value on any row (most of SPARSE on flight-recorder rows) as categoricals over one shared,
    read-only array of -1 codes: one byte a row for all of them, not one per column (pandas replaces a column
    it changes; a write in place into the shared codes would raise)."""

    def __init__(self, rows: int) -> None:
        self.rows = rows
        self.codes: np.ndarray | None = None

    def column(self) -> pd.Categorical:
        if self.codes is None:
            self.codes = np.full(self.rows, -1, np.int8)
            self.codes.flags.writeable = False
        return pd.Categorical.from_codes(self.codes, dtype=pd.CategoricalDtype(pd.Index([], dtype=object)),
                                         validate=False)


def _numbers(name: str, parts: list[np.ndarray]) -> np.ndarray:
    """A numeric column from its parts: integers as int64 (parts may come narrowed, columns.narrow), except line
    numbers, int32 where every part's fit (NARROW_COLUMNS); times as float64, or float32 where none is known."""
    values = np.concatenate(parts)                      # one numpy call over the rows, not a few per part
    if name == "time" and not np.isfinite(values).any():
        return np.full(len(values), np.nan, np.float32)                # no timestamps: 4 bytes a row, not 8
    if values.dtype.kind == "i" and name in SMALL_INTS and len(values) and \
            -SMALL_INTS_BOUND < int(values.min()) and int(values.max()) < SMALL_INTS_BOUND:
        return values.astype(np.int32, copy=False)
    if values.dtype.kind == "i" and not (name in NARROW_COLUMNS and values.dtype == np.int32):
        values = values.astype(np.int64, copy=False)
    return values


NARROW_COLUMNS = ("line",)   # only ever compared or printed: int32 where it fits (10M rows of a --full read)
# Ranks and sequence numbers: compared, grouped, shifted by a few collectives, never multiplied in place (the keys
# built from them are int64, or int32 only where checked to fit): int32 while every value stays within 2**30, so
# that adding a small number cannot overflow (18 MB less at 2.3M rows)
SMALL_INTS = ("rank", "seq")
SMALL_INTS_BOUND = 1 << 30


def _merge_categories(parts: list[tuple]) -> pd.Categorical:
    """Concatenate coded columns: one global, sorted category list; every part's codes remapped in one numpy pass
    through one table over the distinct category lists laid end to end. The files of one job mostly hold equal
    lists (one PG, the same ops): then the table alone does it; a column such as `file` has one list per part."""
    # lists compared by content: short tuples of interned strings, cheap to hash (C-level maps: 4,096 parts a column)
    keys = list(map(tuple, map(itemgetter(1), parts)))
    lists: list[tuple] = list(dict.fromkeys(keys))
    slot = {key: at for at, key in enumerate(lists)}
    which = list(map(slot.__getitem__, keys))
    flat = [v for kind in lists for v in kind]
    values = {v for v in flat if v is not None and v == v}
    try:
        cats = sorted(values)
    except TypeError:
        cats = list(dict.fromkeys(v for v in flat if v is not None and v == v))
    index = {v: i for i, v in enumerate(cats)}
    # every list's local codes -> global codes, the lists end to end, then -1: where a local code -1 (missing) goes
    width = code_type(len(cats))
    table: np.ndarray = np.array([index.get(v, -1) if v is not None and v == v else -1 for v in flat] + [-1], width)
    local = list(map(itemgetter(2), parts))
    codes = np.concatenate(local) if local else np.array([], np.int8)
    if len(lists) > 1:
        starts = np.zeros(len(lists), np.int32)
        np.cumsum([len(kind) for kind in lists[:-1]], out=starts[1:])
        sizes = np.fromiter(map(len, local), np.int64, len(local))
        where = codes.astype(np.int32) + np.repeat(starts[np.array(which, np.int64)], sizes)
        where[codes < 0] = len(flat)
        codes = table[where]                                                 # -1: the last entry
    elif not (table[:-1] == np.arange(len(flat))).all():
        codes = table[codes]
    # else one list, the sorted categories themselves (one PG, one state): its codes are already global
    return pd.Categorical.from_codes(codes.astype(width, copy=False), categories=pd.Index(cats, dtype=object),
                                     validate=False)                          # codes in range: made from `table`


def row_text(source, file, line, text):
    """A timeline row's text: as kept, or, for an NCCL COLL row whose digest kept none (pipeline/map.py), its
    file's line re-read; `text` as given when there is none (a flight-recorder row) or it cannot be re-read."""
    if isinstance(text, str) or source != "nccl" or not isinstance(file, str) or line != line:
        return text
    found = read_line(file, int(line))
    return text if found is None else found


@dataclass
class Timelines:
    """The merged collectives of every rank, plus each group's membership and alignment."""

    colls: pd.DataFrame                                  # COLUMNS, one row per (rank, group, seq)
    members: dict[str, list[int]] = field(default_factory=dict)   # declared ∪ observed ranks per group
    positions: pd.DataFrame = field(default_factory=pd.DataFrame)  # group, rank, first_seq, last_seq, position
    last_common: dict[str, int | None] = field(default_factory=dict)
    _stragglers: dict | None = field(default=None, repr=False, compare=False)   # stragglers(), once computed
    _sources: tuple | None = field(default=None, repr=False, compare=False)     # (colls, sources()) once computed

    @property
    def empty(self) -> bool:
        return self.colls.empty

    def last_rows(self, files: Iterable[str]) -> dict[tuple, int]:
        """The line of the last row of each (file, rank), for the rows of `files`."""
        files = set(files)
        if self.colls.empty or not files:
            return {}
        rows = self.colls.loc[self.colls["file"].isin(files), ["file", "rank", "line"]]
        last = rows.groupby(["file", "rank"], observed=True, sort=False)["line"].max()
        return {(str(file), int(rank)): int(line) for (file, rank), line in last.items()}

    def sources(self) -> set[str]:
        """The sources of the rows: one pass over the frame's codes, not one per question (the detectors, the
        reduce and the renderers ask it several times)."""
        if self._sources is None or self._sources[0] is not self.colls:
            self._sources = (self.colls, _sources_of(self.colls))
        return set(self._sources[1])


def _sources_of(colls: pd.DataFrame) -> set[str]:
    if colls.empty:
        return set()
    column = colls["source"]
    if not isinstance(column.dtype, pd.CategoricalDtype):
        return set(column.unique())
    codes = column.array.codes                  # unique() on the codes: an 8-byte copy of them per call
    used = np.zeros(len(column.cat.categories) + 1, bool)       # code -1 (missing): the last entry
    for part in row_chunks(len(codes)):
        used[codes[part]] = True
    found: set = set(column.cat.categories[used[:-1]])
    if used[-1]:
        found.add(np.nan)                        # a missing source, as unique() gives it
    return found


def build_timelines(frames: Iterable[pd.DataFrame], declared: dict[str, set[int]] | None = None) -> Timelines:
    """Concatenate row chunks, keep the best source per (rank, group, seq), then align each group.

    Low-cardinality text columns become categoricals, so a 1,024-rank x 2,000-entry job groups on ints.
    """
    parts = [f for f in frames if f is not None and not f.empty]
    colls = pd.concat(parts, ignore_index=True) if len(parts) > 1 else (parts[0] if parts else
                                                                         pd.DataFrame(columns=COLUMNS))
    known = colls["rank"].notna().to_numpy() & colls["seq"].notna().to_numpy()
    if not known.all():
        colls = colls[known]
    if not (colls["rank"].dtype in _INTS and colls["seq"].dtype in _INTS):
        colls = colls.astype({"rank": "int64", "seq": "int64"})
    for name in CATEGORIES:
        if isinstance(colls[name].dtype, pd.CategoricalDtype):     # already coded (frame_from_packed)
            colls[name] = _without_unused(colls[name])
        else:
            colls[name] = colls[name].astype(object).astype("category")
    colls = _best_source(_one_timeout_per_group(colls))
    span = _spans(colls)
    members = _members(span, declared or {})
    positions, last_common = last_common_collective(colls, members, span)
    return Timelines(colls, members, positions, last_common)


_INTS = (np.dtype(np.int64), np.dtype(np.int32))      # rank and seq: int32 from frame_from_packed where they fit


def _without_unused(column: pd.Series) -> pd.Series:
    codes = column.array.codes
    count = len(column.cat.categories)
    if count == 1 and len(codes) and codes.max() >= 0:
        return column                                # one category (a group, a state, a source), used: no scatter
    used = np.zeros(count + 1, bool)                 # a missing value's code, -1, marks the last entry
    for rows in row_chunks(len(codes)):             # a chunk at a time: no 8-byte copy of 25M codes
        used[codes[rows]] = True
    if used[:-1].all():
        return column                                # the usual case: skips the sort remove_unused does
    return column.cat.remove_unused_categories()


def sorted_by(keys: list[np.ndarray], strictly: bool) -> bool:
    """Whether the rows are already in (strictly) increasing lexicographic order of `keys`."""
    if len(keys[0]) < 2:
        return True
    later, same = np.zeros(len(keys[0]) - 1, dtype=bool), np.ones(len(keys[0]) - 1, dtype=bool)
    for key in keys:
        before, after = key[:-1], key[1:]
        later |= same & (after > before)
        same &= after == before
    return bool((later if strictly else later | same).all())


def _one_timeout_per_group(colls: pd.DataFrame) -> pd.DataFrame:
    """Leave out the watchdog timeouts of a rank that cannot be the group's. In one group a later work is enqueued
    after an earlier one, so it cannot have run longer when both time out; one rank's timeouts in one group name
    where a later seq ran longer (by over a minute) come from several groups (torch < 2.2 tags none) or several runs
    of the job. Of such a rank's seqs, those other ranks timed out at too are this group's; the rest are left out
    (none when no seq is shared: nothing says which is the group's)."""
    timed = (colls["source"] == "watchdog").to_numpy()   # (on the categorical's codes: no object array of the rows)
    if timed.sum() < 3:
        return colls
    rows = colls[timed]
    seqs = rows.groupby(["group", "rank"], observed=True)["seq"].nunique()
    several = seqs[seqs > 1].index                 # (group, rank) pairs with more than one timeout: usually none
    if several.empty:
        return colls
    # how many ranks timed out at each (group, seq); the pairs' rows split once (a 4,096-rank job: no row scan a pair)
    ranks_at = rows.groupby(["group", "seq"], observed=True)["rank"].nunique().to_dict()
    theirs = rows[pd.MultiIndex.from_arrays([rows["group"], rows["rank"]]).isin(several)]
    drop: list = []
    for (group, _), mine in theirs.groupby(["group", "rank"], observed=True):
        if not _out_of_order(mine):
            continue
        shared = {seq for seq in mine["seq"] if ranks_at.get((group, seq), 0) > 1}   # another rank's too
        if shared:
            drop.extend(mine.index[~mine["seq"].isin(shared)])
    return colls.drop(index=drop) if drop else colls


_RAN_FOR = re.compile(r"ran for (\d+) milliseconds")
_SLACK_MS = 60_000          # reports of one group printed a little apart: their elapsed times differ by that much


def _out_of_order(rows: pd.DataFrame) -> bool:
    """Does a later seq of these timeouts (one rank's, one group name) say it ran longer than an earlier one?"""
    ran = [(seq, int(m.group(1))) for seq, text in zip(rows["seq"], rows["text"], strict=True)
           if isinstance(text, str) and (m := _RAN_FOR.search(text))]
    ran.sort()
    return any(b[1] > a[1] + _SLACK_MS for a, b in zip(ran, ran[1:], strict=False) if b[0] > a[0])


def _best_source(colls: pd.DataFrame) -> pd.DataFrame:
    """Sort by (group, rank, seq) and keep one row per key: the best source, then the first line."""
    if colls.empty:
        return colls.reset_index(drop=True)
    if sorted_by([colls["group"].array.codes, colls["rank"].to_numpy(), colls["seq"].to_numpy()], True):
        return colls.reset_index(drop=True)          # one row per key already in order (e.g. FR dumps alone)
    priority = colls["source"].map(SOURCE_PRIORITY).astype("float64").fillna(9).to_numpy()
    order = np.lexsort((colls["line"].to_numpy(), colls["file"].array.codes, priority,
                        colls["seq"].to_numpy(), colls["rank"].to_numpy(), colls["group"].array.codes))
    keys = [colls[name].array.codes[order] if name == "group" else colls[name].to_numpy()[order]
            for name in ("group", "rank", "seq")]
    dup = np.zeros(len(order), dtype=bool)          # sorted by key: a duplicate follows its first row
    dup[1:] = np.logical_and.reduce([k[1:] == k[:-1] for k in keys])
    return colls.iloc[order[~dup]].reset_index(drop=True)


def _spans(colls: pd.DataFrame) -> pd.DataFrame:
    """Per (group, rank) with rows: first_seq, last_seq; sorted by group, rank. Group names as str."""
    if colls.empty:
        return pd.DataFrame(columns=["group", "rank", "first_seq", "last_seq"])
    coded = isinstance(colls["group"].dtype, pd.CategoricalDtype)
    groups = colls["group"].array.codes if coded else None
    ranks, seqs = colls["rank"].to_numpy(), colls["seq"].to_numpy()
    if groups is None or not sorted_by([groups, ranks, seqs], False):    # None: not coded
        span = colls.groupby(["group", "rank"], observed=True)["seq"].agg(first_seq="min", last_seq="max")
        return span.reset_index().astype({"group": str})
    keep = groups >= 0                                  # rows of an unnamed group are left out, as groupby does
    if not keep.all():                                  # (copies only then: these are the timeline's own columns)
        groups, ranks, seqs = groups[keep], ranks[keep], seqs[keep]
    starts = np.flatnonzero(np.r_[True, (groups[1:] != groups[:-1]) | (ranks[1:] != ranks[:-1])]) if len(seqs) \
        else np.zeros(0, dtype=np.int64)
    ends = np.r_[starts[1:], len(seqs)] - 1
    group = pd.Categorical.from_codes(groups[starts], dtype=colls["group"].dtype)
    return pd.DataFrame({"group": group, "rank": ranks[starts], "first_seq": seqs[starts],
                         "last_seq": seqs[ends]}).astype({"group": str})


def _members(span: pd.DataFrame, declared: dict[str, set[int]]) -> dict[str, list[int]]:
    seen = span.groupby("group")["rank"].unique() if not span.empty else {}
    groups = sorted(set(declared) | set(getattr(seen, "index", [])))
    return {g: sorted(set(int(r) for r in (seen[g] if g in seen else [])) | set(declared.get(g, ())))
            for g in groups}


def last_common_collective(colls: pd.DataFrame, members: dict[str, list[int]], span: pd.DataFrame | None = None):
    """Per group: the highest seq every member with data reached, and each rank's position against it.

    position: ``at`` (its last entry is the last common one), ``ahead`` (it went further), ``missing``
    (a declared member with no entries in this group). Returns (positions frame, {group: seq or None}).
    `span` is `_spans(colls)` when the caller has it.
    """
    if colls.empty:
        return pd.DataFrame(columns=["group", "rank", "first_seq", "last_seq", "position"]), \
            {g: None for g in members}
    span = (_spans(colls) if span is None else span).copy()
    common = span.groupby("group")["last_seq"].min()
    span["position"] = "ahead"
    span.loc[span["last_seq"] == span["group"].map(common), "position"] = "at"
    present = {g: set(rows["rank"]) for g, rows in span.groupby("group")}
    missing = [(g, r) for g, ranks in members.items() for r in ranks if r not in present.get(g, ())]
    if missing:
        extra = pd.DataFrame([{"group": g, "rank": r, "first_seq": None, "last_seq": None, "position": "missing"}
                              for g, r in missing])
        span = pd.concat([span, extra], ignore_index=True)
    last_common = {g: (int(common[g]) if g in common.index else None) for g in members}
    return span.sort_values(["group", "rank"], kind="stable").reset_index(drop=True), last_common


def stragglers(timelines: Timelines) -> dict[str, tuple[str, list[int], int | None]]:
    """Per group where ranks disagree on how far they got: (side, ranks, seq) of the odd ones out.

    side ``behind``: the minority stopped at the last common collective while the others went on (ties count
    as behind: with 2 ranks the one that stopped is the suspect); side ``ahead``: a minority went further
    (an extra collective). ``seq`` is the last common collective. Computed once per Timelines (several detectors
    ask), in one pass over the positions rather than one pandas selection per group (hundreds of groups).
    """
    if timelines._stragglers is None:
        timelines._stragglers = _stragglers(timelines)
    return {group: (side, list(ranks), seq) for group, (side, ranks, seq) in timelines._stragglers.items()}


def _stragglers(timelines: Timelines) -> dict[str, tuple[str, list[int], int | None]]:
    pos = timelines.positions
    if pos.empty:
        return {}
    ranks: dict[tuple, list[int]] = {}
    for group, position, rank in zip(pos["group"].to_numpy(), pos["position"].to_numpy(), pos["rank"].to_numpy(),
                                     strict=True):
        if position == "at" or position == "ahead":
            ranks.setdefault((group, position), []).append(int(rank))
    both = {group for group, position in ranks if position == "at"} & \
        {group for group, position in ranks if position == "ahead"}
    out: dict[str, tuple[str, list[int], int | None]] = {}
    for group in pos["group"].drop_duplicates().sort_values():      # groupby's order (categories' for a categorical)
        if group in both:
            at, ahead = sorted(ranks[(group, "at")]), sorted(ranks[(group, "ahead")])
            side = ("ahead", ahead) if len(ahead) < len(at) else ("behind", at)
            out[group] = (*side, timelines.last_common.get(group))
    return out
