"""False all-clears, part 2: flight-recorder dumps, stack dumps and windowed logs. Each bundle is one that ncclf calls
`none` with one twist that the sources say is no health: a send or recv left pending, an entry retired without
completing, an NCCL error trace in the unread middle of a large log, a communicator left open beside one destroyed."""
from __future__ import annotations

import pickle

from nccl_forensics.pipeline.reduce import diagnose
from nccl_forensics.sources.flight_recorder import ended_incomplete

_WORLD = 4
_PG = ("0", "default_pg")
_C10D = "/usr/lib/python3.11/site-packages/torch/distributed/distributed_c10d.py"


def _entry(rank: int, index: int, seq: int, state: str = "completed", retired: bool | None = None,
           name: str = "nccl:all_reduce", p2p: bool = False) -> dict:
    """One entry as torch 2.9+ writes it (FlightRecorder getCollectiveTrace, schema 2.10)."""
    created = 1_795_200_000_000_000_000 + index * 2_500_000 + rank * 1000
    return {"frames": [{"name": "all_reduce", "filename": _C10D, "line": 3245}], "record_id": index, "pg_id": 0,
            "process_group": _PG, "thread_name": "pt_main_thread", "thread_id": "139000000",
            "collective_seq_id": seq, "p2p_seq_id": 1 if p2p else 0, "op_id": seq + p2p, "profiling_name": name,
            "time_created_ns": created, "input_sizes": [[1024]], "input_dtypes": ["Float"],
            "output_sizes": [[1024]], "output_dtypes": ["Float"], "state": state,
            "time_discovered_started_ns": created + 1000 if state != "scheduled" else None,
            "time_discovered_completed_ns": created + 900_000 if state == "completed" else None,
            "retired": state == "completed" if retired is None else retired, "timeout_ms": 600_000, "is_p2p": p2p}


def _dump(entries: list[dict], completed: int = 8) -> dict:
    return {"version": "2.10", "comm_lib_version": "2.21.5",
            "pg_config": {"0": {"name": "0", "desc": "default_pg", "ranks": str(list(range(_WORLD)))}},
            "pg_status": {"0": {"last_enqueued_collective": 8, "last_started_collective": -1,
                                "last_completed_collective": completed}},
            "entries": entries}


def _dumps(tmp_path, twist=lambda rank, entries: entries) -> None:
    """Every rank's dump: eight all_reduces, all completed (a running job's healthy snapshot), then `twist`."""
    for rank in range(_WORLD):
        entries = twist(rank, [_entry(rank, i, i + 1) for i in range(8)])
        (tmp_path / f"comm_lib_trace_rank_{rank}").write_bytes(pickle.dumps(_dump(entries), protocol=2))


def _verdict(tmp_path, **kw):
    return diagnose([str(tmp_path)], jobs=1, **kw).verdict


def test_dumps_whose_collectives_all_completed_are_none(tmp_path):
    _dumps(tmp_path)
    assert _verdict(tmp_path).cls == "none"


def _send_recv(states: dict[int, tuple[str, str]]):
    """Rank 0 sends to rank 1 after the collectives, each side in the state `states` gives it."""
    def twist(rank, entries):
        if rank == 0:
            entries.append(_entry(0, 8, 8, states[0][0], name="nccl:send 0->1", p2p=True))
        if rank == 1:
            entries.append(_entry(1, 8, 8, states[1][0], name="nccl:recv 1<-0", p2p=True))
        return entries
    return twist


def test_a_recv_left_pending_is_no_health(tmp_path):
    """A pipeline's ranks hang in a send or recv while every collective they issued completed: P2P ops are no rows
    of the groups' timeline, so the pending recv went unseen and the dumps read as a healthy snapshot."""
    _dumps(tmp_path, _send_recv({0: ("completed", ""), 1: ("started", "")}))
    verdict = _verdict(tmp_path)
    assert verdict.cls != "none", verdict.summary
    assert "rank 1" in verdict.summary


def test_a_send_and_recv_both_pending_is_no_health(tmp_path):
    _dumps(tmp_path, _send_recv({0: ("started", ""), 1: ("scheduled", "")}))
    assert _verdict(tmp_path).cls != "none"


def _rank_log(rank: int, middle: str = "", ops: int = 8) -> str:
    pre, comm = f"node-a:{1000 + rank}:{1000 + rank} [{rank}] NCCL", f"comm 0x55{rank}"
    lines = [f"{pre} INFO {comm} rank {rank} nRanks {_WORLD} nNodes 1 localRanks {_WORLD} localRank {rank} MNNVL 0"]
    colls = [f"{pre} INFO AllReduce: opCount {op:x} sendbuff 0x7f00 recvbuff 0x7f00 count 1024 datatype 7 op 0 "
             f"root 0 {comm} [nranks={_WORLD}] stream 0x56" for op in range(ops)]
    lines += colls[:ops // 2] + ([middle] if middle else []) + colls[ops // 2:]
    lines.append(f"{pre} INFO {comm} rank {rank} nranks {_WORLD} cudaDev {rank} busId 18000 - Destroy COMPLETE")
    return "\n".join(lines) + "\n"


def _timed_out(ranks: set[int], state: str = "started", backend: str = "nccl"):
    """Seq 5 of `ranks` retired without completing (a timeout the watchdog did not tear down: error handling off),
    after which the job went on and every later collective completed."""
    def twist(rank, entries):
        entries = [{**e, "profiling_name": e["profiling_name"].replace("nccl", backend)} for e in entries]
        if rank in ranks:
            entries[4] = {**_entry(rank, 4, 5, state, retired=True), "profiling_name": f"{backend}:all_reduce"}
        return entries
    return twist


def test_an_entry_retired_without_completing_is_a_timeout(tmp_path):
    """FlightRecorder.hpp: "a retired but not completed event has timed out". Every rank's pg_status and last
    collective say completed, so the dumps read as healthy."""
    _dumps(tmp_path, _timed_out({0, 1, 2, 3}))
    verdict = _verdict(tmp_path)
    assert verdict.cls == "timeout_unknown", verdict.summary


def test_one_rank_with_an_entry_retired_without_completing_is_no_health(tmp_path):
    _dumps(tmp_path, _timed_out({2}, state="scheduled"))
    verdict = _verdict(tmp_path)
    assert verdict.cls not in ("none", "inconclusive"), verdict.summary
    assert "rank 2" in verdict.summary


def test_gloo_entries_stay_scheduled_when_retired_and_are_no_timeout():
    """Gloo records no device events: its entries stay `scheduled` when they complete, and retired marks them done."""
    entries = [_entry(0, i, i + 1, "scheduled", retired=True, name="gloo:all_reduce") for i in range(3)]
    assert ended_incomplete(entries, [1, 2, 3], range(3), "gloo") == []
    assert [e["seq"] for e in ended_incomplete(entries, [1, 2, 3], range(3), "nccl")] == [1, 2, 3]


def test_an_entry_with_a_completion_time_is_no_timeout():
    """The 2.2-era recorder set the completion time on retiring, whatever the state said."""
    entry = {**_entry(0, 0, 1, "scheduled", retired=True), "time_discovered_completed_ns": 1_795_200_000_000_900_000}
    assert ended_incomplete([entry], [1], range(1), "nccl") == []


def test_an_nccl_error_trace_in_the_unread_middle_of_a_large_log_is_read(tmp_path):
    """NCCL prints its error trace (`net.cc:1386 -> 6`) at INFO level: the windowed read's check of the skipped middle
    passed over every INFO line, while the full read reports the trace."""
    trace = "node-a:1003:1090 [3] NCCL INFO transport/net.cc:1386 -> 6"
    for rank in range(_WORLD):
        text = _rank_log(rank, trace if rank == 3 else "", ops=60_000)
        (tmp_path / f"nccl.node-a.{1000 + rank}.log").write_text(text)
    assert (tmp_path / "nccl.node-a.1003.log").stat().st_size > 4.2e6     # head (4 MB) + two windows of 64 KB
    verdict = _verdict(tmp_path, window_mb=0.0625)
    assert verdict.cls not in ("none", "inconclusive"), verdict.summary


def test_a_large_log_with_topology_arrows_in_its_middle_stays_none(tmp_path):
    """A channel line (`0[0] -> 1[1] via P2P/IPC`) is no error trace."""
    channel = "node-a:1003:1003 [3] NCCL INFO Channel 00/0 : 3[3] -> 0[0] via P2P/CUMEM/read"
    for rank in range(_WORLD):
        (tmp_path / f"nccl.node-a.{1000 + rank}.log").write_text(_rank_log(rank, channel if rank == 3 else "",
                                                                            ops=60_000))
    assert _verdict(tmp_path, window_mb=0.0625).cls == "none"


def _with_subgroup(rank: int, world_end: bool) -> str:
    """A rank log whose process makes a two-rank communicator, destroys it, and goes on in the world one (which it
    destroys too when `world_end`)."""
    pre = f"node-a:{1000 + rank}:{1000 + rank} [{rank}] NCCL INFO"
    sub = (f"{pre} ncclCommInitRank comm 0x66{rank} rank {rank % 2} nranks 2 cudaDev {rank} nvmlDev {rank} busId 18000 "
           f"commId 0xdef{rank // 2} - Init COMPLETE\n"
           f"{pre} comm 0x66{rank} rank {rank % 2} nranks 2 cudaDev {rank} busId 18000 - Destroy COMPLETE")
    text = _rank_log(rank, sub)
    return text if world_end else text[:text.rindex(f"{pre} comm 0x55{rank} rank {rank} nranks")]


def test_a_destroyed_subgroup_communicator_is_no_end_of_the_rank(tmp_path):
    """Every rank destroyed a subgroup's communicator, then went on issuing collectives in the world's, which no line
    ends: the job may hang there. A destroy showed the rank finished whatever else its process still held."""
    for rank in range(_WORLD):
        (tmp_path / f"nccl.node-a.{1000 + rank}.log").write_text(_with_subgroup(rank, world_end=False))
    assert _verdict(tmp_path).cls != "none"


def test_every_communicator_destroyed_is_an_end(tmp_path):
    for rank in range(_WORLD):
        (tmp_path / f"nccl.node-a.{1000 + rank}.log").write_text(_with_subgroup(rank, world_end=True))
    assert _verdict(tmp_path).cls == "none"


def test_a_collective_pending_in_pg_status_is_no_health(tmp_path):
    """Every entry left in rank 2's ring completed, but its pg_status says group 1 enqueued collective 5 and completed
    only 4: that collective's entry left the ring (every group of a process shares it), and rank 2 may hang in it."""
    for rank in range(_WORLD):
        dump = _dump([_entry(rank, i, i + 1) for i in range(8)])
        if rank == 2:
            dump["pg_status"]["1"] = {"last_enqueued_collective": 5, "last_started_collective": 5,
                                      "last_completed_collective": 4}
        (tmp_path / f"comm_lib_trace_rank_{rank}").write_bytes(pickle.dumps(dump, protocol=2))
    verdict = _verdict(tmp_path)
    assert verdict.cls != "none", verdict.summary
    _dumps(tmp_path)                                       # the same dumps with nothing pending: healthy
    assert _verdict(tmp_path).cls == "none"


def test_a_gloo_dump_pending_in_pg_status_stays_healthy(tmp_path):
    """Gloo's counters, as its entries, do not follow completion (fr_semantics): not read as pending."""
    for rank in range(_WORLD):
        entries = [{**_entry(rank, i, i + 1), "profiling_name": "gloo:all_reduce"} for i in range(8)]
        dump = _dump(entries, completed=-1)
        (tmp_path / f"comm_lib_trace_rank_{rank}").write_bytes(pickle.dumps(dump, protocol=2))
    assert _verdict(tmp_path).cls == "none"


def test_a_pending_collective_the_dump_holds_gives_no_status_event(tmp_path):
    """Where the pending collective's entry is in the dump its row says so: the digest keeps no event for it (a hung
    job's every dump has one), only for a group whose pending collective left the ring."""
    from nccl_forensics.pipeline.map import sniff_and_digest
    entries = [_entry(0, i, i + 1) for i in range(7)] + [_entry(0, 7, 8, state="started")]
    dump = _dump(entries, completed=7)
    dump["pg_status"]["0"]["last_enqueued_collective"] = 8
    dump["pg_status"]["1"] = {"last_enqueued_collective": 3, "last_started_collective": 3,
                              "last_completed_collective": 2}
    path = tmp_path / "comm_lib_trace_rank_0"
    path.write_bytes(pickle.dumps(dump, protocol=2))
    events = sniff_and_digest(str(path), 2.0, keep_text=False).result.events
    assert [ev.data["pg_name"] for ev in events if ev.kind == "fr_pg_status"] == ["1"]
