"""Timelines: one row per (rank, group, seq), source priority, last common collective, positions."""
from __future__ import annotations

import numpy as np

from nccl_forensics.diagnosis.rows import RowBuffer, add_event
from nccl_forensics.diagnosis.timeline import build_timelines, frame_of, last_common_collective, stragglers
from nccl_forensics.pipeline.reduce import diagnose_events

from . import factories as F


def _timelines(events, declared=None):
    buf = RowBuffer()
    for ev in events:
        add_event(buf, ev)
    return build_timelines([frame_of([buf])], declared)


def test_one_row_per_rank_group_seq_and_flight_recorder_wins_over_watchdog():
    events = F.fr_job(nranks=2, entries=5) + [F.watchdog_timeout(0, 5, numel=999)]
    tl = _timelines(events)
    assert len(tl.colls) == 10
    row = tl.colls[(tl.colls["rank"] == 0) & (tl.colls["seq"] == 5)].iloc[0]
    assert row["source"] == "flight_recorder" and row["numel"] == 1024


def test_watchdog_rows_fill_in_when_no_flight_recorder():
    tl = _timelines([F.watchdog_timeout(r, 7, numel=64) for r in range(3)])
    assert sorted(tl.colls["source"].unique()) == ["watchdog"]
    assert tl.last_common == {"0": 7}


def test_nccl_groups_are_keyed_by_comm_id_across_ranks():
    tl = _timelines(F.nccl_job(nranks=3, ops=4))
    assert list(tl.members) == ["nccl:0x7a1b2c3d4e5f6071"]
    assert tl.members["nccl:0x7a1b2c3d4e5f6071"] == [0, 1, 2]


def test_last_common_collective_and_positions():
    tl = _timelines(F.fr_job(nranks=4, entries=12, diverge_rank=3, stop_at=9))
    assert tl.last_common == {"0": 9}
    pos = dict(zip(tl.positions["rank"], tl.positions["position"], strict=True))
    assert pos == {0: "ahead", 1: "ahead", 2: "ahead", 3: "at"}
    assert stragglers(tl) == {"0": ("behind", [3], 9)}


def test_wrapped_ring_buffers_still_align_on_seq():
    tl = _timelines(F.fr_job(nranks=3, entries=30, start={0: 11, 1: 5, 2: 20}))
    assert tl.last_common == {"0": 30}
    assert set(tl.positions["position"]) == {"at"}


def test_declared_member_without_rows_is_missing():
    tl = _timelines(F.fr_job(nranks=2, entries=3), declared={"0": {0, 1, 2}})
    pos = dict(zip(tl.positions["rank"], tl.positions["position"], strict=True))
    assert pos[2] == "missing" and tl.members["0"] == [0, 1, 2]


def test_extra_collective_minority_is_ahead():
    events = F.fr_job(nranks=4, entries=10) + [F.fr_entry(2, 11)]
    assert stragglers(_timelines(events)) == {"0": ("ahead", [2], 10)}


def test_empty_timeline_has_no_common_collective():
    colls = frame_of([RowBuffer()])
    pos, common = last_common_collective(colls, {"0": [0, 1]})
    assert pos.empty and common == {"0": None}


def test_diagnosis_keeps_fingerprints_in_their_own_group():
    d = diagnose_events([F.fingerprint_mismatch(0, 1), F.fingerprint_mismatch(1, 0, dtype="float64",
                                                                              other_dtype="float32")])
    assert list(d.timelines.members) == ["detail"]
    assert len(d.timelines.colls) == 2


def test_packed_columns_give_the_same_timelines_as_plain_rows():
    from nccl_forensics.diagnosis.rows import pack_columns
    from nccl_forensics.diagnosis.timeline import frame_from_packed
    events = F.fr_job(nranks=3, entries=6) + [F.watchdog_timeout(2, 9, numel=64)]
    halves = [RowBuffer(), RowBuffer()]
    for i, ev in enumerate(events):
        add_event(halves[i % 2], ev)
    plain = build_timelines([frame_of(halves)])
    packs = [pack_columns(b.columns()) for b in halves]
    for pack in packs:                      # the parent turns the (filled) rank list into numbers
        pack["rank"] = ("num", np.array(pack["rank"]))
    packed = build_timelines([frame_from_packed(packs)])
    assert plain.colls.astype(object).equals(packed.colls.astype(object))
    assert plain.last_common == packed.last_common
    assert list(plain.colls["group"].cat.categories) == list(packed.colls["group"].cat.categories)


def _parts():
    from hypothesis import strategies as st
    part = st.lists(st.sampled_from(["a", "b", "c", "d", None]), unique=True, min_size=0, max_size=4).flatmap(
        lambda cats: st.tuples(st.just(cats), st.lists(st.integers(-1, len(cats) - 1), max_size=6)))
    return st.lists(part, min_size=1, max_size=6)


def test_merged_categories_keep_every_value():
    from hypothesis import given, settings

    from nccl_forensics.diagnosis.timeline import _merge_categories

    @settings(max_examples=200, deadline=None)
    @given(_parts())
    def check(parts):
        packed = [("cat", cats, np.array(codes, np.int32)) for cats, codes in parts]
        want = [cats[c] if c >= 0 else None for cats, codes in parts for c in codes]
        got = _merge_categories(packed)
        assert [None if v != v else v for v in got.astype(object)] == want
        assert list(got.categories) == sorted({v for cats, _ in parts for v in cats if v is not None})
    check()


def test_narrowed_parts_come_back_as_int64_and_small_codes_stay_exact():
    from nccl_forensics.diagnosis.timeline import frame_from_packed
    from nccl_forensics.sources.columns import categorize, narrow
    cats, codes = categorize([f"g{i % 200}" for i in range(400)])        # 200 categories: int16 codes
    assert codes.dtype == np.int16 and narrow(np.array([1, 2**40])).dtype == np.int64
    from nccl_forensics.diagnosis.rows import COLUMNS
    packs = [{"group": ("cat", cats, codes), "seq": ("num", narrow(np.arange(400, dtype=np.int64)))},
             {"group": ("cat", ["g7"], np.zeros(3, np.int8)), "seq": ("num", np.array([2**40] * 3))}]
    for pack in packs:
        n = len(pack["seq"][1])
        pack.update({name: ("none", n) for name in COLUMNS if name not in pack})
    frame = frame_from_packed(packs)
    assert frame["seq"].dtype == np.int64 and frame["seq"].iloc[-1] == 2**40 and frame["seq"].iloc[399] == 399
    assert list(frame["group"].astype(str)) == [f"g{i % 200}" for i in range(400)] + ["g7"] * 3


def _interleaved_log(path, comms=("0x55d0c0001000", "0x55d0c0002000"), lines=600):
    """One process, two communicators whose COLL lines alternate, a warning now and then (NCCL 2.21 shapes)."""
    head = "node0:4242:4242 [0] NCCL INFO "
    out = [f"{head}NCCL version 2.21.5+cuda12.4"]
    for i, comm in enumerate(comms):
        out.append(f"{head}ncclCommInitRank comm {comm} rank {i} nranks 2 cudaDev 0 nvmlDev 0 busId 18000 "
                   f"commId 0x{i + 1:016x} - Init COMPLETE")
    for n in range(lines):
        comm = comms[n % 2 if n % 7 else 0]
        out.append(f"{head}{'AllReduce' if n % 3 else 'Broadcast'}: opCount {n // 2:x} sendbuff 0x7f3a000 recvbuff "
                   f"0x7f3b000 count {1024 + n % 5} datatype {7 if n % 4 else 9} op 0 root 0 comm {comm} "
                   "[nranks=2] stream 0x55d0d1000000")
        if n % 97 == 0:
            out.append("node0:4242:4250 [0] NCCL WARN some warning in the middle")
    path.write_text("\n".join(out) + "\n")


def test_a_files_row_codes_follow_the_order_its_lines_come_in(tmp_path):
    """map.RunColumns codes a row's (rank, group, op, dtype, redop) in the order the file first shows each: the same
    codes every run (a set of a run's contexts, hashed by identity, gave them in memory order)."""
    from nccl_forensics.pipeline.map import digest_source
    from nccl_forensics.sources.discover import discover

    _interleaved_log(tmp_path / "nccl.rank0.log")
    (source,) = discover([str(tmp_path)])
    rows = digest_source(source, keep_text=False).rows
    for name, first in (("group", "nccl:0x0000000000000001"), ("op", "broadcast"), ("dtype", "bfloat16")):
        kind, cats, codes = rows[name]
        assert (kind, cats[codes[0]]) == ("cat", first)
        assert cats == list(dict.fromkeys(cats[c] for c in codes)), name     # first seen, first coded


def test_coll_runs_give_the_timeline_rows_their_events_give(tmp_path):
    """map.RunColumns packs a run's rows as typed columns; they must be the rows add_event makes line by line,
    less the line text (a whole file's rows are cited by line number and the line read again: read_lines)."""
    from nccl_forensics.diagnosis.rows import comm_ids_of, pack_columns
    from nccl_forensics.diagnosis.timeline import frame_from_packed
    from nccl_forensics.model import CollRun
    from nccl_forensics.pipeline.map import digest_source
    from nccl_forensics.sources import iter_records
    from nccl_forensics.sources.discover import discover
    from nccl_forensics.sources.lines import read_lines

    _interleaved_log(tmp_path / "nccl.rank0.log")
    (source,) = discover([str(tmp_path)])
    items = list(iter_records(source))
    assert any(type(i) is CollRun and len(set(i.contexts)) > 1 for i in items)   # the multi-context path is tested
    buf, comm_ids = RowBuffer(), {}
    for ev in (e for i in items for e in (i.events() if type(i) is CollRun else [i])):
        if ev.kind == "comm_init":
            comm_ids.update(comm_ids_of([ev]))
        if ev.kind == "coll":
            add_event(buf, ev, comm_ids)
    packs = [pack_columns(buf.columns()), digest_source(source, keep_text=False).rows]
    packs[0]["rank"] = ("num", np.array(packs[0]["rank"]))   # the parent packs ranks once it has filled them
    by_events, by_runs = map(frame_from_packed, ([p] for p in packs))
    assert len(by_runs) == 600
    assert by_runs["text"].isna().all()
    quoted = read_lines(source.path, by_runs["line"].tolist())
    assert [quoted[no] for no in by_runs["line"]] == by_events["text"].tolist()
    rest = [name for name in by_runs.columns if name not in ("text", "out_numel")]
    assert by_runs[rest].astype(object).equals(by_events[rest].astype(object))
    assert by_runs["out_numel"].isna().all() and by_events["out_numel"].isna().all()
