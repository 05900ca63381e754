"""Modal values per (group, seq): the minority is the suspect, ties are marked, shifts are found."""
from __future__ import annotations

from nccl_forensics.diagnosis.divergence import (
    find_outliers,
    first_divergence,
    modal_values,
)
from nccl_forensics.diagnosis.rows import RowBuffer, add_event
from nccl_forensics.diagnosis.timeline import build_timelines, frame_of

from . import factories as F


def _colls(events):
    buf = RowBuffer()
    for ev in events:
        add_event(buf, ev)
    return build_timelines([frame_of([buf])]).colls


def test_minority_is_the_outlier_whatever_the_rank_order():
    for culprit in (0, 2, 3):
        out = find_outliers(_colls(F.fr_job(nranks=4, diverge_rank=culprit, field="dtype", value="float64")))
        assert list(out["rank"]) == [culprit]
        assert out.iloc[0]["modal"] == "float32" and not out.iloc[0]["tie"]


def test_two_rank_tie_picks_the_value_more_common_over_the_timeline():
    out = find_outliers(_colls(F.fr_job(nranks=2, entries=11, diverge_rank=1, field="shape", value=(7,), at=3)))
    assert list(out["rank"]) == [1] and bool(out.iloc[0]["tie"])     # too little history to settle it
    assert out.iloc[0]["modal"] == "1024"


def test_two_rank_tie_with_history_is_settled():
    out = find_outliers(_colls(F.fr_job(nranks=2, diverge_rank=1, field="shape", value=(7,))))
    assert list(zip(out["rank"], out["tie"], strict=True)) == [(1, False)]


def test_dtype_prior_breaks_a_single_collective_tie():
    modal = modal_values(_colls([F.fingerprint_mismatch(0, 1, dtype="float64", other_dtype="float32")]), "dtype")
    assert modal.iloc[0]["modal"] == "float32" and bool(modal.iloc[0]["tie"])


def test_op_outranks_size_at_the_same_entry():
    events = F.fr_job(nranks=4, diverge_rank=1, field="op", value="allgather")
    events = [e if not (e.kind == "fr_entry" and e.rank == 1 and e.data["seq"] == 10)
              else F.fr_entry(1, 10, op="allgather", shape=(4096,)) for e in events]
    first = first_divergence(find_outliers(_colls(events)))
    assert first.iloc[0]["field"] == "op"


def test_skip_is_a_shift_of_plus_one():
    ops = lambda s: "allgather" if s % 3 == 0 else "allreduce"   # noqa: E731
    events = [F.fr_entry(r, s, op=ops(s)) for r in range(3) for s in range(1, 16)]
    events += [F.fr_entry(3, s, op=ops(s + (s >= 6))) for s in range(1, 15)]
    out = find_outliers(_colls(events))
    assert set(out["shift"]) == {1} and set(out["rank"]) == {3}


def test_plain_mismatch_is_not_a_shift():
    out = find_outliers(_colls(F.fr_job(nranks=4, diverge_rank=3, field="op", value="allgather")))
    assert set(out["shift"]) == {0}


def test_healthy_job_has_no_outliers():
    assert find_outliers(_colls(F.fr_job(nranks=8))).empty
    assert find_outliers(_colls(F.nccl_job(nranks=4))).empty


def _steps(rank, last, n_steps=3):
    """One rank's dump: per step allreduce(106240) then allreduce(4); `last` replaces the final entry."""
    events, seq = [F.fr_dump(rank, 2, "gloo")], 0
    for _ in range(n_steps):
        for shape in ((106240,), (4,)):
            seq += 1
            events.append(F.fr_entry(rank, seq, shape=shape, backend="gloo"))
    seq += 1
    events.append(F.fr_entry(rank, seq, shape=(106240,), backend="gloo"))
    seq += 1
    events.append(F.fr_entry(rank, seq, backend="gloo", **last))
    return events


def test_lone_dump_is_checked_against_its_own_steps():
    out = find_outliers(_colls(_steps(1, {"shape": (4,), "dtype": "float64"})))
    assert list(zip(out["rank"], out["field"], out["value"], out["modal"], out["basis"], strict=True)) == \
        [(1, "dtype", "float64", "float32", "self")]


def test_lone_dump_that_skips_ahead_is_a_shift():
    out = find_outliers(_colls(_steps(1, {"shape": (106240,)})))
    assert list(zip(out["rank"], out["shift"], strict=True)) == [(1, 1)]


def test_lone_dump_following_its_steps_is_fine():
    assert find_outliers(_colls(_steps(0, {"shape": (4,)}))).empty


def test_two_rank_tie_is_settled_by_the_rank_that_broke_its_own_pattern():
    events = _steps(0, {"shape": (4,)}) + _steps(1, {"shape": (4,), "op": "allgather"})
    out = find_outliers(_colls(events))
    assert list(zip(out["rank"], out["field"], out["tie"], out["basis"], strict=True)) == [(1, "op", False, "ranks+self")]


def test_group_seq_ids_split_rows_as_the_pairs_do():
    import pandas as pd

    from nccl_forensics.diagnosis.divergence import group_seq_ids
    for seqs in ([0, 1, 1, 2, 0, 5], [0, 10**9, 10**9, 3, 0, 5]):     # the key itself, then a hash pass
        colls = pd.DataFrame({"group": pd.Categorical(["x", "x", "x", "y", "y", "y"]), "seq": seqs})
        ids = group_seq_ids(colls)
        pairs = list(zip(colls["group"], colls["seq"], strict=True))
        assert ids.min() >= 0 and ids.max() < 4 * len(ids) + 1024
        assert all((ids[i] == ids[j]) == (pairs[i] == pairs[j]) for i in range(6) for j in range(6))


def test_pair_counts_count_each_pair_with_either_method():
    from collections import Counter

    import numpy as np

    from nccl_forensics.diagnosis.divergence import _pair_counts
    g, v = np.array([0, 0, 1, 1, 1, 2]), np.array([3, 3, 0, 2, 0, 1])
    for width in (4, 10**6):                                         # a bincount table, then a sort
        got = {(int(a), int(b)): int(n) for a, b, n in zip(*_pair_counts(g, v, width), strict=True)}
        assert got == Counter(zip(g.tolist(), v.tolist(), strict=True))
