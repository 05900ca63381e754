"""Which ranks disagree with their group, and where first: modal values per (group, seq), vectorised.

For each field (``op``, ``dtype``, ``numel``) the value most ranks used at a (group, seq) is the group's
value; a rank that used another value is an outlier there. The minority is the suspect, whatever the
rank order (torchfrtrace instead compares everything against the first rank it reads).

Ties (two ranks, one each) are broken by how common each value is in the whole group timeline, then by
a prior for dtypes (float32/bfloat16/float16 are normal, float64 is the odd one), and marked ``tie`` so
detectors can lower their confidence.

Example, group 0, seq 5, four ranks::

    rank 0 float32, rank 1 float32, rank 2 float64, rank 3 float32  →  modal float32; rank 2 is an outlier

A skipped or extra collective shows up as a *shift*: after its first divergence the rank's entries match
the group's entries one seq later (it skipped one, ``shift`` +1) or one earlier (it added one, -1).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..sources.gc_pause import trim_heap
from .chunks import bincount, row_chunks
from .timeline import row_text, sorted_by

FIELDS = ("op", "redop", "dtype", "numel", "out_numel")   # checked in this order: the first that differs names it
# ("size_note": a rank whose own output size breaks its collective's semantics, see size_outliers)
_DTYPE_PRIOR = {"float32": 0, "bfloat16": 1, "float16": 2, "Float": 0, "BFloat16": 1, "Half": 2}
_INTEGRAL_FLOAT = r"^(-?\d+)\.0$"
OUTLIER_COLUMNS = ["group", "seq", "rank", "op", "field", "value", "modal", "modal_count", "count", "tie", "source",
                   "file", "line", "text", "frame", "shift", "primary", "basis"]


def modal_values(colls: pd.DataFrame, field: str, overall: pd.DataFrame | None = None) -> pd.DataFrame:
    """Per (group, seq): the modal value of `field`, its count, the group size there, and whether it tied.

    `overall` (group, value, overall) counts each value over the whole timeline; by default over `colls`.
    """
    df = colls.dropna(subset=[field])
    if df.empty:
        return pd.DataFrame(columns=["group", "seq", "modal", "modal_count", "count", "tie"])
    df = df.assign(group=df["group"].astype(str), value=df[field].astype(str))
    counts = df.groupby(["group", "seq", "value"]).size().rename("n").reset_index()
    if overall is None:
        overall = df.groupby(["group", "value"]).size().rename("overall").reset_index()
    counts = counts.merge(overall, on=["group", "value"], how="left").fillna({"overall": 0})
    counts["prior"] = counts["value"].map(_DTYPE_PRIOR).fillna(9) if field == "dtype" else 0
    counts = counts.sort_values(["group", "seq", "n", "overall", "prior", "value"],
                                ascending=[True, True, False, False, True, True], kind="stable")
    top = counts.groupby(["group", "seq"], sort=False)
    best = top.head(1).set_index(["group", "seq"])
    second = top.nth(1).set_index(["group", "seq"])["n"] if len(counts) > len(best) else pd.Series(dtype="int64")
    out = pd.DataFrame({"modal": best["value"], "modal_count": best["n"],
                        "count": counts.groupby(["group", "seq"])["n"].sum()})
    out["tie"] = (second.reindex(out.index).fillna(0) >= out["modal_count"]).to_numpy()
    return out.reset_index()


def _codes(column: pd.Series) -> np.ndarray:
    """Integer codes for a column (-1 = missing), whatever its dtype."""
    if isinstance(column.dtype, pd.CategoricalDtype):
        return column.array.codes          # int8 for a few categories: no 8-byte copy of 25M rows
    return pd.factorize(column, use_na_sentinel=True)[0].astype("int64")


def group_seq_ids(colls: pd.DataFrame) -> np.ndarray:
    """An id per (group, seq) key of each row, each in 0..(a few times the row count), shared by the per-field
    checks: the key itself where it is that small (one group code times the seq range, plus the seq), else a
    dense id from one hash pass."""
    if colls.empty:
        return np.zeros(0, dtype=np.int64)
    seq = colls["seq"].to_numpy()
    codes = colls["group"].array.codes
    stride = int(seq.max()) + 2
    # int32 where no key can overflow it (half the bytes of a row-sized array), else int64
    wide = seq.dtype.kind != "i" or int(seq.min()) < 0 or (len(colls["group"].cat.categories) + 1) * stride >= 1 << 31
    key = codes.astype("int64" if wide else "int32")            # in place from here: no row-sized temporaries
    key *= stride
    np.add(key, seq, out=key, casting="unsafe")                 # cast a block at a time: no row-sized copy
    if key.min() >= 0 and key.max() < 4 * len(key) + 1024:
        return key
    return pd.factorize(key)[0].astype("int64")


def disputed(colls: pd.DataFrame, field: str, ids: np.ndarray | None = None,
             first: np.ndarray | None = None) -> pd.DataFrame:
    """The rows of every (group, seq) where ranks do not all agree on `field` (usually a tiny subset).
    `ids` is `group_seq_ids(colls)` when the caller has it, `first` its `first_rows(ids)` (used where every row
    knows its value)."""
    column = colls[field]
    if isinstance(column.dtype, pd.CategoricalDtype) and len(column.cat.categories) < 2:
        return colls.iloc[0:0]                                # one value at most: nothing to disagree on
    values, known = _comparable(column)
    if not known.any():
        return colls.iloc[0:0]
    ids = group_seq_ids(colls) if ids is None else ids
    if not known.all():
        ids, values, first = ids[known], values[known], None
    first = first_rows(ids) if first is None else first
    bad = np.zeros(len(first), dtype=bool)
    for chunk in row_chunks(len(ids)):                        # a key where some value differs from its first
        part = ids[chunk]
        bad[part[values[chunk] != values[first[part]]]] = True
    if not bad.any():
        return colls.iloc[0:0]
    rows = np.empty(len(ids), dtype=bool)
    for part in row_chunks(len(ids)):                         # bad[ids] (indexing copies the ids to 8 bytes each)
        rows[part] = bad[ids[part]]
    if not known.all():
        rows, hits = np.zeros(len(colls), dtype=bool), np.flatnonzero(known)[rows]
        rows[hits] = True
    return colls[rows]


def first_rows(ids: np.ndarray) -> np.ndarray:
    """The row of each id's first row (0 for an id no row has)."""
    first = np.zeros(int(ids.max()) + 1, dtype=np.int64)
    for part in reversed(list(row_chunks(len(ids)))):         # the chunks from the last, each backwards (no
        end = min(part.stop, len(ids))                        # row-sized arange)
        first[ids[part][::-1]] = np.arange(end - 1, part.start - 1, -1)
    return first


def _comparable(column: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """(values to compare, which are known): a categorical's codes or an integer column as they are (no copy),
    floats with NaN unknown, anything else factorized."""
    if isinstance(column.dtype, pd.CategoricalDtype):
        codes = column.array.codes
        return codes, codes >= 0
    values = column.to_numpy()
    if values.dtype.kind in "iu":
        return values, np.ones(len(values), dtype=bool)
    if values.dtype.kind == "f":
        return values, ~np.isnan(values)
    codes = _codes(column)
    return codes, codes >= 0


def find_outliers(colls: pd.DataFrame) -> pd.DataFrame:
    """Every (group, seq, rank, field) where a rank's value differs from its group's modal value."""
    found, ids = [], group_seq_ids(colls)
    first = first_rows(ids) if len(ids) else None             # shared by the fields every row knows
    for field in FIELDS:
        sub = disputed(colls, field, ids, first) if not colls.empty else colls
        if sub.empty:
            continue
        sub = sub.assign(group=sub["group"].astype(str))
        modal = modal_values(sub, field, _overall(colls, sub, field))
        df = sub.merge(modal, on=["group", "seq"])
        df = df[(df["count"] > 1) & (df[field].astype(str) != df["modal"])]
        if not df.empty:
            found.append(df.assign(field=field, value=df[field].astype(str), basis="ranks"))
        trim_heap()                # this field's row-sized temporaries (see trim_heap)
    del ids, first                 # 4-8 bytes a row: gone before the shift check makes its own
    trim_heap()
    lone = self_outliers(colls)
    trim_heap()
    if not lone.empty:
        found.append(lone)
    sizes = size_outliers(colls)
    if not sizes.empty:
        found.append(sizes)
    if not found:
        return pd.DataFrame(columns=OUTLIER_COLUMNS)
    out = pd.concat(found, ignore_index=True)
    out["field_order"] = out["field"].map({f: i for i, f in enumerate(FIELDS + ("size_note",))})
    out = out.sort_values(["group", "rank", "seq", "field_order"], kind="stable")
    out["primary"] = ~out.duplicated(["group", "rank", "seq"], keep="first")
    out["shift"] = out["shift"].fillna(0).astype("int64") if "shift" in out else 0
    out = _break_ties(colls, out)
    out = _mark_shifts(colls, out)
    for name in ("value", "modal"):           # a count of a column with missing values is a float: 5373952.0 is 5373952
        out[name] = out[name].astype(str).str.replace(_INTEGRAL_FLOAT, r"\1", regex=True)
    return out[OUTLIER_COLUMNS].reset_index(drop=True)


def size_outliers(colls: pd.DataFrame) -> pd.DataFrame:
    """Ranks whose output size breaks their collective's semantics (fr_semantics.size_note: all_gather out = in x
    world, …) where the group's other ranks at that (group, seq) keep it. When every rank breaks it alike, the
    group size assumed is wrong, not a rank: nobody is named."""
    if colls.empty or "size_note" not in colls or colls["size_note"].isna().all():
        return pd.DataFrame(columns=OUTLIER_COLUMNS)
    noted = colls[colls["size_note"].notna()]
    keys = set(zip(noted["group"].astype(str), noted["seq"], strict=True))
    here = colls[[k in keys for k in zip(colls["group"].astype(str), colls["seq"], strict=True)]]
    rows = []
    for (group, seq), at in here.groupby([here["group"].astype(str), "seq"], sort=True):
        bad = at[at["size_note"].notna()]
        if len(bad) * 2 > len(at) or len(at) < 2:
            continue                                       # a majority (or a lone rank) breaks it: no culprit
        for row in bad.itertuples(index=False):
            rows.append({"group": group, "seq": int(seq), "rank": int(row.rank), "op": row.op, "field": "size_note",
                         "value": row.size_note, "modal": "consistent sizes", "modal_count": len(at) - len(bad),
                         "count": len(at), "tie": False, "source": row.source, "file": row.file, "line": row.line,
                         "text": row.text, "frame": row.frame, "shift": 0, "primary": True, "basis": "ranks"})
    return pd.DataFrame(rows, columns=OUTLIER_COLUMNS) if rows else pd.DataFrame(columns=OUTLIER_COLUMNS)


def alltoall_imbalance(colls: pd.DataFrame, members: dict[str, list[int]] | None = None) -> list[dict]:
    """all_to_all(v) collectives that do not balance, judged only where every member of the group recorded it (a
    member that never arrived is a missing member, diagnosis/wavefront.py, not a size mismatch).

    Where every rank's dump records the split sizes (schema 2.11), pair by pair: what rank i sends to j must be
    what j expects from i (uneven MoE splits are normal); the suspect is the rank in the most broken pairs, else
    both ranks of the pair. Otherwise by totals: elements sent must equal elements received, and the suspect is
    the one rank whose sent (or received) total differs from all the others' (which all agree); a group whose
    totals fail at more than one seq is left out (a member's rows are missing, not sizes wrong)."""
    if colls.empty or "a2a_in" not in colls or colls["a2a_in"].isna().all():
        return []
    rows = colls[colls["a2a_in"].notna() & colls["a2a_out"].notna()]
    out = []
    unbalanced: dict[str, int] = {}
    for (group, seq), at in rows.groupby([rows["group"].astype(str), "seq"], sort=True):
        size = len((members or {}).get(group) or ())
        if len(at) < 2 or size and len(at) < size:
            continue
        pairs = _broken_pairs(at)
        if pairs is not None:
            if pairs:
                out.append({"group": group, "seq": int(seq), "pairs": pairs, "ranks": _pair_suspects(pairs),
                            "rows": at, "sent": None, "received": None})
            continue
        sent, received = int(at["a2a_in"].sum()), int(at["a2a_out"].sum())
        if sent == received:
            continue
        unbalanced[group] = unbalanced.get(group, 0) + 1
        suspects = _lone(at, "a2a_in") or _lone(at, "a2a_out")
        out.append({"group": group, "seq": int(seq), "sent": sent, "received": received, "ranks": suspects,
                    "rows": at, "pairs": []})
    # a mismatched all_to_all hangs or fails where it happens: totals that fail at several seqs of one group
    # (the later ones run) say that a member's rows are missing (a rank without a dump, an unknown membership)
    return [bad for bad in out if bad["pairs"] or unbalanced.get(bad["group"], 0) == 1]


def _broken_pairs(at: pd.DataFrame) -> list[tuple] | None:
    """(i, j, sent by i to j, expected by j from i) for each pair that disagrees; None when a rank's splits are
    not recorded (or do not fit the group's size). Group ranks in ascending global rank order."""
    if "a2a_splits" not in at or at["a2a_splits"].isna().any():
        return None
    ranks = [int(r) for r in at["rank"]]
    splits = dict(zip(ranks, at["a2a_splits"], strict=True))
    order = sorted(ranks)
    if any(len(splits[r][0]) != len(order) or len(splits[r][1]) != len(order) for r in order):
        return None
    return [(i, j, splits[i][0][b], splits[j][1][a]) for a, i in enumerate(order) for b, j in enumerate(order)
            if splits[i][0][b] != splits[j][1][a]]


def _pair_suspects(pairs: list[tuple]) -> list[int]:
    count: dict[int, int] = {}
    for i, j, _, _ in pairs:
        count[i] = count.get(i, 0) + 1
        count[j] = count.get(j, 0) + 1
    top = max(count.values())
    best = sorted(r for r, n in count.items() if n == top)
    return best if len(best) == 1 or len(pairs) == 1 else []


def _lone(at: pd.DataFrame, column: str) -> list[int]:
    """The one rank whose total differs from every other rank's (uneven splits make totals differ anyway, so
    nothing less than all the others agreeing singles a rank out)."""
    counts = at[column].value_counts()
    if len(at) < 3 or len(counts) != 2 or counts.iloc[0] != len(at) - 1:
        return []
    return sorted(int(r) for r in at.loc[at[column] != counts.index[0], "rank"])


def _minority(at: pd.DataFrame, column: str) -> list[int]:
    counts = at[column].value_counts()
    if len(counts) < 2 or counts.iloc[0] == counts.iloc[1]:
        return []
    return sorted(int(r) for r in at.loc[at[column] != counts.index[0], "rank"])


def _break_ties(colls: pd.DataFrame, out: pd.DataFrame) -> pd.DataFrame:
    """A tie (two ranks, one value each) is settled when exactly one of the tied ranks broke its own pattern
    (see self_outliers) at that seq: that rank is the outlier, the other one is not."""
    ties = out[out["tie"].astype(bool) & (out["basis"] == "ranks") & out["primary"]]
    for (group, seq), _rows in list(ties.groupby(["group", "seq"]))[:MAX_LONE]:
        ranks = colls[in_group(colls, group) & (colls["seq"] == seq)]["rank"].tolist()
        broke = [(r, check) for r in ranks if (check := _self_check(colls, group, r, upto=int(seq))) is not None]
        if len(broke) != 1:
            continue
        rank, check = broke[0]
        here = (out["group"] == group) & (out["seq"] == seq)
        if not ((out["rank"] == rank) & here).any():
            continue                       # the modal pick disagrees with the history: leave it a tie
        out = out[~here | (out["rank"] == rank)].copy()
        mine = here & (out["rank"] == rank)
        out.loc[mine, "tie"] = False
        out.loc[mine, "basis"] = "ranks+self"
        shift = check["shift"]
        if shift and (out.loc[mine, "shift"] == 0).all():
            out.loc[mine, "shift"] = shift                  # what it issued came one step later (or earlier)
    return out


def _overall(colls: pd.DataFrame, sub: pd.DataFrame, field: str) -> pd.DataFrame:
    """How often each value of `field` occurs over the whole timeline of the disputed groups (tie-break).
    Counted on integer codes (a categorical's own, else one factorization), a chunk of rows at a time; only the few
    distinct (group, value) pairs are turned into text."""
    groups = colls["group"]
    if not isinstance(groups.dtype, pd.CategoricalDtype):
        groups = groups.astype(object).astype("category")
    wanted = np.flatnonzero(groups.cat.categories.astype(str).isin(set(sub["group"])))
    column = colls[field]
    if isinstance(column.dtype, pd.CategoricalDtype):
        values, uniques = column.array.codes, column.cat.categories
    else:
        values, uniques = pd.factorize(column, use_na_sentinel=True)
    codes = groups.array.codes
    every = len(wanted) == len(groups.cat.categories)
    width = max(len(uniques), 1)
    found: list[tuple[np.ndarray, np.ndarray]] = []
    for part in row_chunks(len(codes)):
        g, v = codes[part], values[part]
        rows = (g >= 0 if every else np.isin(g, wanted)) & (v >= 0)
        key, n = _key_counts(g[rows].astype("int64") * width + v[rows])
        found.append((key, n))
    key = np.concatenate([k for k, _ in found]) if found else np.zeros(0, np.int64)
    n = np.concatenate([c for _, c in found]) if found else np.zeros(0, np.int64)
    if len(found) > 1:                                      # the chunks' counts of one pair added up
        key, where = np.unique(key, return_inverse=True)
        n = np.bincount(where, weights=n, minlength=len(key)).astype(np.int64)
    g, v = key // width, key % width
    named = pd.DataFrame({"group": pd.Series(groups.cat.categories[g]).astype(str),
                          "value": pd.Series(uniques[v]).astype(str), "overall": n})
    counts = named.groupby(["group", "value"]).size() if named.empty else named.groupby(["group", "value"])["overall"].sum()
    return counts.rename("overall").rename_axis(["group", "value"]).reset_index()


def _pair_counts(g: np.ndarray, v: np.ndarray, width: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(g, v, count) of each distinct pair of codes (v < width)."""
    key, counts = _key_counts(g * width + v)
    return key // width, key % width, counts


def _key_counts(key: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(each distinct key, its count), keys ascending: a bincount where the keys' range is small, else a sort."""
    if len(key) and key.max() < 4 * len(key) + (1 << 16):
        counts = np.bincount(key)
        key = np.flatnonzero(counts)
        return key, counts[key]
    return np.unique(key, return_counts=True)


def in_group(colls: pd.DataFrame, group: str) -> pd.Series:
    """`colls["group"].astype(str) == group`, on the categorical codes (no 2M-string column)."""
    col = colls["group"]
    if not isinstance(col.dtype, pd.CategoricalDtype):
        return col.astype(str) == group
    hit = np.append(col.cat.categories.astype(str) == group, False)     # code -1 (missing): the last entry
    return pd.Series(hit[col.array.codes], index=colls.index)   # a lookup: no 8-byte copy of the codes


MAX_LONE = 64          # ranks checked against their own history (a lone dump, a rank that went further)
HISTORY = 400          # entries of history used for that check


def self_outliers(colls: pd.DataFrame) -> pd.DataFrame:
    """A rank's last entry that no other rank recorded, checked against the rank's own history.

    Training steps repeat: if every earlier time the rank issued entry P it then issued E (at least twice),
    and this time it issued L ≠ E after P, then L is the rank's divergence: a field change (E's dtype or
    size differs), or a skipped collective (L is what came after E before: shift +1), or a repeat (L == P:
    an extra collective, shift -1). Example, rank 1 of 2 (rank 0 aborted before dumping)::

        seq 4 allreduce 106240 float32, seq 5 allreduce 4 float32, ..., seq 8 allreduce 106240 float32,
        seq 9 allreduce 4 float32, seq 10 allreduce 106240 float32, seq 11 allreduce 4 float64   <- dtype
    """
    if colls.empty:
        return pd.DataFrame(columns=OUTLIER_COLUMNS)
    found = [row for g, r in _lone_ranks(colls) if (row := _self_check(colls, g, r)) is not None]
    return pd.DataFrame(found, columns=OUTLIER_COLUMNS) if found else pd.DataFrame(columns=OUTLIER_COLUMNS)


def _lone_ranks(colls: pd.DataFrame) -> list[tuple]:
    """(group, rank), in that order, whose last seq no other rank recorded; at most MAX_LONE."""
    coded = isinstance(colls["group"].dtype, pd.CategoricalDtype)
    groups, ranks, seqs = colls["group"].array.codes if coded else None, colls["rank"].to_numpy(), \
        colls["seq"].to_numpy()
    # not coded, or not sorted (build_timelines sorts; others may not)
    if groups is None or not sorted_by([groups, ranks, seqs], strictly=False):
        counts = colls.groupby(["group", "seq"], observed=True).size()
        last = colls.groupby(["group", "rank"], observed=True)["seq"].max()
        return [(g, r) for (g, r), s in last.items() if counts.get((g, s), 0) == 1][:MAX_LONE]
    ends = np.flatnonzero(np.r_[(groups[1:] != groups[:-1]) | (ranks[1:] != ranks[:-1]), True])
    ends = ends[groups[ends] >= 0]                                   # rows of an unnamed group: left out
    ids = group_seq_ids(colls)
    lone = ends[bincount(ids)[ids[ends]] == 1][:MAX_LONE]
    cats = colls["group"].cat.categories
    return [(cats[groups[i]], ranks[i]) for i in lone]



def _last_entries(colls: pd.DataFrame, group, rank, upto: int | None) -> np.ndarray:
    """Positions of the rank's last HISTORY rows of `group` (up to seq `upto`), in seq order: found on the
    arrays, so that a rank with millions of rows is never copied whole to keep its last few hundred."""
    at = np.flatnonzero(((colls["group"] == group) & (colls["rank"] == rank)).to_numpy())
    seqs = colls["seq"].to_numpy()[at]
    if upto is not None:
        keep = seqs <= upto
        at, seqs = at[keep], seqs[keep]
    if len(seqs) > 1 and not (seqs[1:] >= seqs[:-1]).all():
        order = np.argsort(seqs, kind="stable")
        at = at[order]
    return at[-HISTORY:]


def _self_check(colls: pd.DataFrame, group, rank, upto: int | None = None) -> dict | None:
    rows = colls.iloc[_last_entries(colls, group, rank, upto)]
    sigs = list(zip(*(rows[f].astype(object).where(rows[f].notna(), None) for f in FIELDS), strict=True))
    if len(sigs) < 5:
        return None
    prev, last = sigs[-2], sigs[-1]
    followers = [sigs[j + 1] for j in range(len(sigs) - 2) if sigs[j] == prev]
    if len(followers) < 2 or len(set(followers)) != 1 or followers[0] == last:
        return None
    expected = followers[0]
    after = [sigs[j + 2] for j in range(len(sigs) - 3) if sigs[j] == prev and sigs[j + 1] == expected]
    shift = 1 if after and after[-1] == last else (-1 if last == prev else 0)
    field = next(f for f, a, b in zip(FIELDS, last, expected, strict=True) if a != b)
    row = rows.iloc[-1]
    return {"group": str(group), "seq": int(row["seq"]), "rank": int(rank), "op": row["op"], "field": field,
            "value": str(last[FIELDS.index(field)]), "modal": str(expected[FIELDS.index(field)]),
            "modal_count": len(followers), "count": 1, "tie": False, "source": row["source"], "file": row["file"],
            "line": int(row["line"]), "text": row["text"], "frame": row["frame"], "shift": shift, "primary": True,
            "basis": "self"}


def first_divergence(outliers: pd.DataFrame) -> pd.DataFrame:
    """Per (group, rank): its first divergent entry (the primary field there)."""
    if outliers.empty:
        return outliers
    prim = outliers[outliers["primary"]]
    first = (prim.sort_values(["group", "rank", "seq"], kind="stable")
                 .drop_duplicates(["group", "rank"], keep="first").reset_index(drop=True))
    first["text"] = [row_text(*values) for values in zip(first["source"], first["file"], first["line"], first["text"],
                                                          strict=True)]
    return first


SIGNATURE = ["op", "redop", "dtype", "numel"]


def _signature(colls: pd.DataFrame) -> pd.Series:
    """Each row's "op|redop|dtype|numel" ("-" where missing), the text made once per distinct combination (a
    window of a large job repeats a few of them hundreds of thousands of times)."""
    ids = colls.groupby(SIGNATURE, dropna=False, sort=False, observed=True).ngroup().to_numpy()
    _, first_rows = np.unique(ids, return_index=True)                 # ids 0..k-1: the k distinct ones in order
    return pd.Series(_signature_text(colls.iloc[first_rows]).to_numpy()[ids], index=colls.index)


def _signature_text(rows: pd.DataFrame) -> pd.Series:
    parts = [rows[c].astype(object).where(rows[c].notna(), "-").astype(str) for c in SIGNATURE]
    return parts[0].str.cat(parts[1:], sep="|")


SHIFT_WINDOW = 64     # entries after the first divergence used to test for a skipped/extra collective


def _mark_shifts(colls: pd.DataFrame, outliers: pd.DataFrame) -> pd.DataFrame:
    """Set `shift` on a rank's outliers when its entries from the first divergence on match the group's
    entries one seq later (+1: it skipped a collective) or earlier (-1: it issued an extra one)."""
    firsts = first_divergence(outliers)[["group", "rank", "seq"]].rename(columns={"seq": "first"})
    if firsts.empty:
        return outliers
    best = {}
    for group, rows in firsts.groupby("group", sort=True):
        lo, hi = int(rows["first"].min()) - 1, int(rows["first"].max()) + SHIFT_WINDOW + 1
        win = colls[in_group(colls, group) & colls["seq"].between(lo, hi)]
        sig = win[["seq", "rank"]].assign(sig=_signature(win).to_numpy())
        modal = (sig.groupby(["seq", "sig"]).size().rename("n").reset_index()
                    .sort_values(["seq", "n", "sig"], ascending=[True, False, True])
                    .drop_duplicates("seq"))[["seq", "sig"]].rename(columns={"sig": "msig"})
        mine = sig.merge(rows[["rank", "first"]], on="rank")
        mine = mine[(mine["seq"] >= mine["first"]) & (mine["seq"] < mine["first"] + SHIFT_WINDOW)]
        score = {k: _score(mine, modal, k) for k in (0, 1, -1)}
        for rank in rows["rank"]:
            base = score[0].get(rank, 0.0)
            for shift in (1, -1):
                mean = score[shift].get(rank)
                if mean is not None and mean >= 0.8 and mean > base and (group, rank) not in best:
                    best[(group, rank)] = shift
    if best:
        outliers["shift"] = [best.get(k, old) for k, old in zip(zip(outliers["group"], outliers["rank"], strict=True),
                                                               outliers["shift"], strict=True)]
    return outliers


def _score(mine: pd.DataFrame, modal: pd.DataFrame, shift: int) -> dict:
    """Per rank: the share of its entries that equal the group's modal entry `shift` seqs later."""
    m = mine.assign(seq=mine["seq"] + shift).merge(modal, on="seq", how="inner")
    return (m["sig"] == m["msig"]).groupby(m["rank"]).mean().to_dict()
