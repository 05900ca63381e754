"""Flight-recorder reader: real torch 2.13 gloo dumps, synthetic NCCL-style dumps, safety and corruption."""
from __future__ import annotations

import gzip
import importlib.util
import json
import os
import pickle
import resource
import tempfile
import threading
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nccl_forensics.errors import BadInput, NcclfError, UnsafeDump
from nccl_forensics.model import SourceKind
from nccl_forensics.sources import fr_load, parse_source
from nccl_forensics.sources.discover import sniff
from nccl_forensics.sources.flight_recorder import (
    read_flight_recorder,
    read_flight_recorder_table,
    split_profiling_name,
)

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_logs" / "flight_recorder"
_spec = importlib.util.spec_from_file_location("fr_synth", ROOT / "benchmarks" / "fr_synth.py")
fr_synth = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fr_synth)


def events_by_kind(path):
    out: dict[str, list] = {}
    for ev in read_flight_recorder(str(path)):
        out.setdefault(ev.kind, []).append(ev)
    return out


# ---- real torch 2.13 gloo dumps ----

@pytest.mark.parametrize("folder", ["gloo_diverged", "gloo_diverged_json"])
def test_real_gloo_diverged_dump_shows_pending_collective(folder):
    suffix = ".json" if folder.endswith("json") else ""
    ev = events_by_kind(SAMPLES / folder / f"comm_lib_trace_rank_0{suffix}")
    dump = ev["fr_dump"][0]
    assert dump.rank == 0 and dump.data["version"] == "2.10" and dump.data["backend"] == "gloo"
    # gloo quirk: pg_config is keyed '' but the entries say ('0', 'default_pg'): names come from the entries
    assert dump.data["pg_config"] == {"0": {"desc": "default_pg", "ranks": None},
                                      "1": {"desc": "PAIR_GROUP", "ranks": None}}
    assert any("keyed ''" in q for q in dump.data["quirks"])
    last = ev["fr_entry"][-1]
    assert (last.comm, last.data["seq"], last.data["op"], last.data["op_raw"]) == ("0", 11, "allreduce",
                                                                                 "gloo:all_reduce")
    assert last.data["state"] == "scheduled" and last.data["retired"] is False
    assert last.data["in_sizes"] == [[1024]] and last.data["in_dtypes"] == ["float32"]
    assert last.data["time_completed_ns"] is None and last.line == len(ev["fr_entry"])
    status = {e.data["pg_name"]: e.data for e in ev["fr_pg_status"]}
    assert (status["0"]["last_enqueued"], status["0"]["last_completed"]) == (11, 10)   # ints, also from JSON


def test_real_gloo_diverged_rank_stopped_one_collective_early():
    seqs = {}
    for rank in range(4):
        entries = events_by_kind(SAMPLES / "gloo_diverged" / f"comm_lib_trace_rank_{rank}")["fr_entry"]
        seqs[rank] = max(e.data["seq"] for e in entries if e.comm == "0")
    assert seqs == {0: 11, 1: 11, 2: 10, 3: 11}


def test_real_pickle_and_json_agree_except_frames():
    pkl = events_by_kind(SAMPLES / "gloo_healthy" / "comm_lib_trace_rank_1")["fr_entry"]
    js = events_by_kind(SAMPLES / "gloo_healthy_json" / "comm_lib_trace_rank_1.json")["fr_entry"]
    assert [dict(e.data, frames=None) for e in pkl] == [e.data for e in js]
    top = pkl[0].data["frames"][0]
    assert top["name"] == "all_reduce" and top["file"].endswith("distributed_c10d.py") and top["line"] > 0


def test_discovery_routes_real_dumps_here_with_rank_from_name():
    src = sniff(str(SAMPLES / "gloo_healthy" / "comm_lib_trace_rank_3"))
    assert src.kind is SourceKind.FLIGHT_RECORDER and src.rank == 3
    result = parse_source(src)
    assert result.error is None
    assert {e.rank for e in result.events} == {3}
    assert result.events[0].kind == "fr_dump"


# ---- synthetic NCCL-style dumps (benchmarks/fr_synth.py), versions and backends ----

def test_synthetic_dumps_share_objects_as_torchs_pickler_does(tmp_path):
    """torch's pickler writes each string once (memo by value) and each stack frame dict once (FlightRecorder
    builds one per distinct frame), and a BINGET after: what a load costs. The synthetic dumps must match."""
    real = pickle.loads((SAMPLES / "gloo_diverged" / "comm_lib_trace_rank_0").read_bytes())
    fr_synth.make_dumps(tmp_path, ranks=1, entries=50, diverge_rank=None)
    synth = pickle.loads((tmp_path / "nccl_trace_rank_0").read_bytes())
    for dump in (real, synth):
        entries = dump["entries"]
        frames = [f for e in entries for f in e["frames"]]
        assert len({id(f) for f in frames}) == len({tuple(sorted(f.items())) for f in frames}) < len(frames)
        names = [e["profiling_name"] for e in entries]
        assert len({id(n) for n in names}) == len(set(names)) < len(names)
        assert len({id(e["input_sizes"]) for e in entries}) == len({id(e["frames"]) for e in entries}) == len(entries)


@pytest.mark.parametrize("version", ["2.4", "2.7", "2.10"])
def test_synthetic_nccl_versions(tmp_path, version):
    fr_synth.make_dumps(tmp_path, ranks=4, entries=30, diverge_rank=2, version=version)
    ev = events_by_kind(tmp_path / "nccl_trace_rank_1")
    dump = ev["fr_dump"][0].data
    assert (dump["version"], dump["backend"], dump["world_size"], dump["rank"]) == (version, "nccl", 4, 1)
    assert dump["pg_config"] == {"0": {"desc": "default_pg", "ranks": (0, 1, 2, 3)}}
    assert dump["comm_lib_version"] == {"2.4": None, "2.7": "2.26.2", "2.10": "2.27.5"}[version]
    first, last = ev["fr_entry"][0], ev["fr_entry"][-1]
    assert first.data["state"] == "completed" and first.data["time_completed_ns"] is not None
    assert last.data["state"] == "scheduled" and last.data["seq"] == 30
    assert (first.tid is None) == (version != "2.10")
    assert len(ev["fr_entry"]) == 30 and ev["fr_pg_status"][0].data["last_enqueued"] == 30


def test_synthetic_gloo_style(tmp_path):
    fr_synth.make_dumps(tmp_path, ranks=2, entries=10, diverge_rank=None, backend="gloo")
    meta, cols = read_flight_recorder_table(tmp_path / "nccl_trace_rank_0")
    assert meta["backend"] == "gloo" and meta["world_size"] is None
    assert meta["pg_config"] == {"0": {"desc": "default_pg", "ranks": None}}
    assert set(cols["state"]) == {"scheduled"} and cols["retired"][-1] is False


@pytest.mark.parametrize("mode,field,healthy,diverged", [
    ("shape", "in_sizes", ((50304, 768),), ((50305, 769),)),
    ("dtype", "in_dtypes", ("bfloat16",), ("float32",)),
    ("op", "op", "allreduce", "broadcast"),
])
def test_synthetic_mismatch_modes(tmp_path, mode, field, healthy, diverged):
    fr_synth.make_dumps(tmp_path, ranks=3, entries=40, diverge_rank=1, mode=mode)
    _, good = read_flight_recorder_table(tmp_path / "nccl_trace_rank_0")
    _, bad = read_flight_recorder_table(tmp_path / "nccl_trace_rank_1")
    assert good["seq"][-1] == bad["seq"][-1] == 40
    assert (good[field][-1], bad[field][-1]) == (healthy, diverged)
    assert good[field][:-1] == bad[field][:-1]


def test_wrapped_ring_buffer(tmp_path):
    fr_synth.make_dumps(tmp_path, ranks=4, entries=50, diverge_rank=2, start_record_id=5000)
    healthy, _ = read_flight_recorder_table(tmp_path / "nccl_trace_rank_0")
    meta, cols = read_flight_recorder_table(tmp_path / "nccl_trace_rank_2")
    assert (healthy["first_record_id"], healthy["last_record_id"]) == (5000, 5049)
    assert (meta["first_record_id"], meta["last_record_id"]) == (4999, 5048)
    assert cols["line"][0] == 1 and cols["seq"][0] == 5000 and cols["seq"][-1] == 5049


def test_subset_of_ranks(tmp_path):
    fr_synth.make_dumps(tmp_path, ranks=8, entries=5, diverge_rank=None)
    for rank in (1, 2, 4, 6, 7):
        (tmp_path / f"nccl_trace_rank_{rank}").unlink()
    metas = [read_flight_recorder_table(p)[0] for p in sorted(tmp_path.iterdir())]
    assert [(m["rank"], m["world_size"]) for m in metas] == [(0, 8), (3, 8), (5, 8)]


def test_table_matches_events(tmp_path):
    fr_synth.make_dumps(tmp_path, ranks=2, entries=25, diverge_rank=1, mode="dtype")
    meta, cols = read_flight_recorder_table(tmp_path / "nccl_trace_rank_1", frames=True)
    entries = events_by_kind(tmp_path / "nccl_trace_rank_1")["fr_entry"]
    assert len(entries) == meta["entries"] == 25
    for i, ev in enumerate(entries):
        assert ev.line == cols["line"][i]
        for key, value in ev.data.items():
            table_value = cols[key][i]
            if key in ("in_sizes", "out_sizes"):      # tuples in the table, lists in events
                table_value = [list(s) for s in table_value]
            elif key in ("in_dtypes", "out_dtypes"):
                table_value = list(table_value)
            assert table_value == value, key
    assert (cols["in_sizes"][3], cols["in_numel"][3]) == (((50304, 768),), 50304 * 768)


@pytest.mark.parametrize("raw,expected", [
    ("nccl:all_reduce", ("nccl", "allreduce", None)),
    ("gloo:all_reduce", ("gloo", "allreduce", None)),
    ("nccl:_all_gather_base", ("nccl", "allgather_base", None)),   # a distinct op type, as in torchfrtrace
    ("nccl:reduce_scatter_tensor_coalesced", ("nccl", "reducescatter_coalesced", None)),
    ("nccl:send 1->2", ("nccl", "send", "1->2")),
    ("gloo:recv 3<-?", ("gloo", "recv", "3<-?")),
    ("nccl2:all_to_all", ("nccl2", "alltoall", None)),
    ("nccl:coalesced", ("nccl", "coalesced", None)),
    ("gloo:barrier", ("gloo", "barrier", None)),
])
def test_profiling_names_are_normalised(raw, expected):
    assert split_profiling_name(raw) == expected


# ---- untrusted and broken input ----

class _RunsShell:
    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


@pytest.mark.parametrize("protocol", [0, 2, 4])
def test_malicious_pickle_is_refused_and_runs_nothing(tmp_path, protocol):
    marker = tmp_path / "pwned"
    evil = {"version": "2.10", "pg_config": {}, "entries": [_RunsShell(marker)]}
    path = tmp_path / "nccl_trace_rank_0"
    path.write_bytes(pickle.dumps(evil, protocol=protocol))
    with pytest.raises(UnsafeDump) as info:
        list(read_flight_recorder(str(path)))
    message = str(info.value)
    assert "refused" in message and "\n" not in message
    assert "posix.system" in message or protocol == 0   # the opcode walk refuses protocol 0's text opcodes
    assert not marker.exists()


def test_malicious_pickle_via_parse_source_is_a_one_line_error(tmp_path):
    marker = tmp_path / "pwned"
    path = tmp_path / "nccl_trace_rank_0"
    path.write_bytes(pickle.dumps(_RunsShell(marker), protocol=2))
    result = parse_source(sniff(str(path)))
    assert result.error and "refused" in result.error and "\n" not in result.error
    assert result.events == [] and not marker.exists()


def test_persistent_id_is_refused(tmp_path):
    path = tmp_path / "dump"
    path.write_bytes(b"\x80\x02}q\x00X\x01\x00\x00\x00aq\x01Pevil\n\x85s.")
    with pytest.raises(UnsafeDump, match="persistent id"):
        list(read_flight_recorder(str(path)))


def test_memo_index_bomb_is_refused(tmp_path):
    # LONG_BINPUT with index 2**31 would make the C unpickler allocate and clear a 32 GiB memo table.
    path = tmp_path / "dump"
    path.write_bytes(b"\x80\x02}r\x00\x00\x00\x80.")
    with pytest.raises(UnsafeDump, match="memo index"):
        list(read_flight_recorder(str(path)))


def test_the_memory_cap_replaces_the_opcode_walk_in_a_one_thread_process(tmp_path, monkeypatch):
    walked = []

    def walk(data, path):
        walked.append(path)
        if len(data) < 20:
            raise UnsafeDump("walked")     # stop before an uncapped load of the bomb

    monkeypatch.setattr(fr_load, "_check_opcodes", walk)
    before = resource.getrlimit(resource.RLIMIT_AS)
    path = SAMPLES / "gloo_diverged" / "comm_lib_trace_rank_0"
    assert threading.active_count() == 1 and fr_load.load_dump(str(path))["entries"]
    assert walked == [] and resource.getrlimit(resource.RLIMIT_AS) == before
    bomb = tmp_path / "dump"
    bomb.write_bytes(b"\x80\x02}r\x00\x00\x00\x80.")
    with pytest.raises(UnsafeDump, match="walked"):    # the cap stopped the 32 GiB memo; then the walk ran
        fr_load.load_dump(str(bomb))
    assert walked == [str(bomb)] and resource.getrlimit(resource.RLIMIT_AS) == before


def test_with_a_second_thread_the_opcode_walk_guards_the_load(monkeypatch):
    walked = []
    monkeypatch.setattr(fr_load, "_check_opcodes", lambda data, path: walked.append(path))
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        fr_load.load_dump(str(SAMPLES / "gloo_diverged" / "comm_lib_trace_rank_0"))
    finally:
        stop.set()
        other.join()
    assert len(walked) == 1


def test_truncated_pickle_is_bad_input(tmp_path):
    data = (SAMPLES / "gloo_diverged" / "comm_lib_trace_rank_0").read_bytes()
    path = tmp_path / "nccl_trace_rank_0"
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(BadInput) as info:
        list(read_flight_recorder(str(path)))
    assert not isinstance(info.value, UnsafeDump)
    assert "truncated or corrupt pickle" in str(info.value) and "\n" not in str(info.value)


@pytest.mark.parametrize("content,message", [
    (b"", "empty"), (b'{"entries": [', "corrupt JSON"), (b"[1, 2]", "not a flight-recorder dump"),
    (pickle.dumps([1, 2], protocol=2), "not a flight-recorder dump"),
    (pickle.dumps({"version": "2.10", "entries": 5}, protocol=2), "not a list"),
])
def test_wrong_content_is_bad_input(tmp_path, content, message):
    path = tmp_path / "dump"
    path.write_bytes(content)
    with pytest.raises(BadInput, match=message):
        list(read_flight_recorder(str(path)))


def test_bad_entries_become_unparsed_and_bad_fields_none(tmp_path):
    good = pickle.loads((SAMPLES / "gloo_healthy" / "comm_lib_trace_rank_0").read_bytes())
    entry = dict(good["entries"][0], input_sizes="[[4, 3]]", collective_seq_id="x", process_group=7, frames=3)
    dump = dict(good, entries=[good["entries"][0], 42, entry])
    path = tmp_path / "comm_lib_trace_rank_0"
    path.write_bytes(pickle.dumps(dump, protocol=2))
    events = [e for e in read_flight_recorder(str(path)) if e.kind in ("fr_entry", "unparsed")]
    assert [(e.kind, e.line) for e in events] == [("fr_entry", 1), ("unparsed", 2), ("fr_entry", 3)]
    bad = events[2].data
    assert (bad["in_sizes"], bad["in_numel"], bad["seq"], bad["pg_name"], bad["frames"]) == (None,) * 5
    assert bad["out_sizes"] == [[4, 3]] and bad["op"] == "allreduce"


def test_gzipped_dump_is_read(tmp_path):
    data = (SAMPLES / "gloo_healthy" / "comm_lib_trace_rank_2").read_bytes()
    path = tmp_path / "comm_lib_trace_rank_2.gz"
    path.write_bytes(gzip.compress(data))
    meta, cols = read_flight_recorder_table(str(path))
    assert meta["rank"] == 2 and meta["entries"] == len(cols["seq"]) == 10


_REAL_PICKLE = (SAMPLES / "gloo_diverged" / "comm_lib_trace_rank_0").read_bytes()
_REAL_JSON = (SAMPLES / "gloo_diverged_json" / "comm_lib_trace_rank_0.json").read_bytes()


def _mutate(data: bytes, edits: list[tuple[int, int, int]]) -> bytes:
    buf = bytearray(data)
    for kind, pos, value in edits:
        pos %= max(len(buf), 1)
        if kind == 0 and buf:
            buf[pos] = value
        elif kind == 1:
            buf.insert(pos, value)
        elif kind == 2 and buf:
            del buf[pos]
        else:
            del buf[pos:]
    return bytes(buf)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(base=st.sampled_from([_REAL_PICKLE, _REAL_JSON]),
       edits=st.lists(st.tuples(st.integers(0, 3), st.integers(0, 1 << 16), st.integers(0, 255)),
                      min_size=1, max_size=6))
def test_fuzz_mutated_dumps_raise_only_ncclf_errors(base, edits):
    data = _mutate(base, edits)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "comm_lib_trace_rank_0")
        with open(path, "wb") as fh:
            fh.write(data)
        try:
            events = list(read_flight_recorder(path))
            read_flight_recorder_table(path)
        except NcclfError as exc:
            assert "\n" not in str(exc)
            return
    assert events[0].kind == "fr_dump"
    json.dumps([e.to_dict() for e in events], default=str)


def test_table_fields_subset_equals_full_columns(tmp_path):
    fr_synth.make_dumps(tmp_path, ranks=2, entries=30, diverge_rank=1, mode="shape")
    full_meta, full = read_flight_recorder_table(tmp_path / "nccl_trace_rank_1")
    meta, some = read_flight_recorder_table(tmp_path / "nccl_trace_rank_1", fields=("seq", "in_numel", "in_dtypes"))
    assert meta == full_meta
    assert "out_sizes" not in some and "out_dtypes" not in some
    for name, values in some.items():
        assert values == full[name], name


def test_a_rank_too_big_to_be_one_is_left_unknown(tmp_path):
    """A damaged name or a third-party 'rank' key must not become a rank that overflows the timeline."""
    from nccl_forensics.pipeline.reduce import diagnose
    fr_synth.make_dumps(tmp_path, ranks=2, entries=5, diverge_rank=None)
    huge = tmp_path / ("nccl_trace_rank_" + "9" * 40)
    (tmp_path / "nccl_trace_rank_1").rename(huge)
    assert read_flight_recorder_table(huge)[0]["rank"] is None
    as_json = tmp_path / "other.json"
    dump = pickle.loads((tmp_path / "nccl_trace_rank_0").read_bytes())
    dump["entries"] = [{**e, "process_group": list(e["process_group"])} for e in dump["entries"]]
    as_json.write_text(json.dumps({**dump, "rank": 2**70}))
    assert read_flight_recorder_table(as_json)[0]["rank"] is None
    verdict = diagnose([str(tmp_path)]).verdict           # rank 1's evidence is there, but nothing says it is rank 1
    assert verdict.cls == "inconclusive" and "of unknown rank" in verdict.summary
