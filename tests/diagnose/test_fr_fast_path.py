"""The flight-recorder fast path (sources/fr_columns.py) against the general table reader: whenever the fast path
answers, its timeline rows and meta equal the general path's; it answers for the shapes torch writes."""
from __future__ import annotations

import copy
import functools
import importlib.util
import pickle
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nccl_forensics.model import Source, SourceKind
from nccl_forensics.pipeline import map as digest
from nccl_forensics.sources.flight_recorder import split_profiling_name, table_of_dump
from nccl_forensics.sources.fr_columns import _GENERAL_OPS, coded_columns
from nccl_forensics.sources.fr_load import load_dump

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("fr_synth", ROOT / "benchmarks" / "fr_synth.py")
fr_synth = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fr_synth)
_spec_pp = importlib.util.spec_from_file_location("fr_synth_pp", ROOT / "benchmarks" / "fr_synth_pp.py")
fr_synth_pp = importlib.util.module_from_spec(_spec_pp)
_spec_pp.loader.exec_module(fr_synth_pp)

REAL_DUMPS = sorted(p for p in (ROOT / "sample_logs").rglob("*trace_rank_*") if p.is_file())


def _source(path) -> Source:
    return Source(str(path), SourceKind.FLIGHT_RECORDER)


def both_paths(dump: dict, path: str):
    """(fast rows, meta and P2P ops, or None; general rows, meta and P2P ops) for one loaded dump."""
    src = _source(path)
    fast = coded_columns(copy.deepcopy(dump), path, src)
    meta, cols = table_of_dump(dump, path, src, fields=digest.FR_FIELDS)
    rows, p2p = digest.fr_rows(src, meta, cols)
    return ((digest.coded_rows(src, *fast), fast[0], digest.coded_p2p(*fast)) if fast else None), (rows, meta, p2p)


def assert_same_rows(fast: dict, general: dict) -> None:
    assert fast.keys() == general.keys()
    for name, a in fast.items():
        b = general[name]
        assert type(a) is type(b) and a[0] == b[0], name
        if a[0] == "cat":
            assert a[1] == b[1], name
            assert a[2].dtype == b[2].dtype and np.array_equal(a[2], b[2]), name
        elif a[0] == "num":
            assert a[1].dtype == b[1].dtype and np.array_equal(a[1], b[1], equal_nan=True), name
        else:
            assert a == b, name


def assert_agree(dump: dict, path: str = "nccl_trace_rank_3") -> bool:
    """True if the fast path answered (and then agreed)."""
    fast, (rows, meta, p2p) = both_paths(dump, path)
    if fast is None:
        return False
    assert_same_rows(fast[0], rows)
    assert fast[1] == meta
    assert fast[2] == p2p
    assert all(type(a) is type(b) for x, y in zip(fast[2], p2p, strict=True) for a, b in zip(x, y, strict=True))
    return True


@pytest.mark.parametrize("path", REAL_DUMPS, ids=lambda p: str(p.relative_to(ROOT / "sample_logs")))
def test_real_torch_dumps_agree(path):
    dump = load_dump(str(path))
    answered = assert_agree(dump, str(path))
    # torch 2.13 writes the shape the fast path is for (JSON dumps carry lists for process_group), unless the dump
    # holds entries the general path reads (all_to_all, send/recv, coalesced: fr_semantics.py)
    general = {split_profiling_name(e["profiling_name"])[1] for e in dump["entries"]} & _GENERAL_OPS
    assert answered or path.suffix == ".json" or general


@pytest.mark.parametrize("version", fr_synth.VERSIONS)
@pytest.mark.parametrize("backend", ["nccl", "gloo"])
def test_synthetic_dumps_agree(tmp_path, version, backend):
    fr_synth.make_dumps(tmp_path, ranks=2, entries=30, diverge_rank=1, backend=backend, version=version,
                        mode="dtype", start_record_id=7)
    for path in sorted(tmp_path.iterdir()):
        answered = assert_agree(load_dump(str(path)), str(path))
        assert answered or version == "2.2"          # schema 2.2 says seq_id, not collective_seq_id


@pytest.mark.parametrize("mode", ["skip", "shape", "op"])
def test_diverging_dumps_agree(tmp_path, mode):
    fr_synth.make_dumps(tmp_path, ranks=3, entries=20, diverge_rank=1, mode=mode)
    assert all(assert_agree(load_dump(str(p)), str(p)) for p in sorted(tmp_path.iterdir()))


def test_pipeline_dumps_with_p2p_agree(tmp_path):
    """Megatron-style TP x PP x DP dumps: sends, recvs and P2P batch markers beside TP/DP collectives, four groups
    per dump, some groups with P2P only; the fast path answers and sets the P2P entries apart as the general
    path does."""
    paths = fr_synth_pp.make_dumps(tmp_path, entries=120, tp=2, pp=3, dp=2, micro=3, culprit=7)
    p2p_seen = 0
    for path in paths:
        dump = load_dump(str(path))
        assert assert_agree(dump, str(path))
        p2p_seen += len(both_paths(dump, str(path))[1][2])
    assert p2p_seen


def test_p2p_only_dump_agrees():
    dump = _base_dump()
    for i, e in enumerate(dump["entries"]):
        e["profiling_name"] = "nccl:send 0->1" if i % 2 else "nccl:recv 0<-1"
        e["is_p2p"], e["p2p_seq_id"] = True, i + 1
    dump["pg_config"]["0"]["ranks"] = "[4, 9]"
    fast, general = both_paths(dump, "nccl_trace_rank_4")
    assert fast is not None and fast[0] == {} == general[0]
    assert fast[2] == general[2] and {op.peer for op in fast[2]} == {9}


def test_p2p_flags_and_markers_agree():
    """An `is_p2p` collective-named entry (a P2P batch's marker) is set apart; a send without the flag is P2P."""
    dump = _base_dump()
    dump["entries"][1]["is_p2p"] = True
    dump["entries"][2].update(profiling_name="nccl:send 0->1", is_p2p=False)
    dump["entries"][3].update(profiling_name="nccl:coalesced", is_p2p=True)
    assert assert_agree(dump)
    dump["entries"][4]["is_p2p"] = "yes"                  # not a bool: the general path decides
    assert coded_columns(dump, "x", "x") is None
    assert_agree(dump)


@functools.lru_cache(maxsize=1)
def _base_pickle() -> bytes:
    with tempfile.TemporaryDirectory(prefix="ncclf-frfast-") as tmp:
        return fr_synth.make_dumps(tmp, ranks=1, entries=6, diverge_rank=None)[0].read_bytes()


def _base_dump() -> dict:
    return pickle.loads(_base_pickle())


ODD_VALUES = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-3, max_value=2**70), st.floats(allow_nan=True),
    st.text(max_size=8), st.just([]), st.just([[]]), st.just([[2, 3], [4]]), st.just([[True]]),
    st.just(["Float", 3]), st.just(("0", "x")), st.just(["0", "default_pg"]), st.just(("0",)),
    st.just({"a": 1}), st.just([[2**70]]), st.just([[1.5]]), st.just(0), st.just("nccl:all_reduce"),
)
KEYS = ["process_group", "collective_seq_id", "profiling_name", "input_sizes", "input_dtypes", "state",
        "time_created_ns", "record_id", "pg_id", "frames"]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edits=st.lists(st.tuples(st.integers(0, 5), st.sampled_from(KEYS), st.one_of(st.just("del"), ODD_VALUES)),
                      min_size=1, max_size=3))
def test_mutated_dumps_fall_back_or_agree(edits):
    dump = _base_dump()
    for index, key, value in edits:
        if value == "del":
            dump["entries"][index].pop(key, None)
        else:
            dump["entries"][index][key] = value
    assert_agree(dump)


def test_a_pg_name_with_two_descs_falls_back():
    dump = _base_dump()
    dump["entries"][2]["process_group"] = ("0", "other_desc")
    assert coded_columns(dump, "x", "x") is None
    assert_agree(dump)


def test_non_dict_entries_and_empty_dumps_fall_back():
    dump = _base_dump()
    dump["entries"].insert(1, "not a dict")
    assert coded_columns(dump, "x", "x") is None
    assert coded_columns({"entries": []}, "x", "x") is None


P2P_VALUES = st.one_of(ODD_VALUES, st.sampled_from(["nccl:send 0->1", "nccl:recv 0<-1", "nccl:send 1->0",
                                                    "nccl:recv 3<-x", "nccl:coalesced", "nccl:send", "gloo:recv 1<-0"]))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edits=st.lists(st.tuples(st.integers(0, 5), st.sampled_from(KEYS + ["is_p2p", "p2p_seq_id", "profiling_name"]),
                                st.one_of(st.just("del"), P2P_VALUES, st.booleans())), min_size=1, max_size=4))
def test_mutated_p2p_dumps_fall_back_or_agree(edits):
    dump = _base_dump()
    for index, key, value in edits:
        if value == "del":
            dump["entries"][index].pop(key, None)
        else:
            dump["entries"][index][key] = value
    assert_agree(dump)


DTYPE_NAMES = st.sampled_from(["Float", "BFloat16", "Half", "", "Weird", "float32", "Int"])


def test_one_dtype_name_per_entry_agrees():
    """Entries of one tensor each: the fast path codes the names themselves (an unknown name, an empty one)."""
    dump = _base_dump()
    for entry, name in zip(dump["entries"], ["Float", "BFloat16", "", "Weird", "Float", "float32"], strict=True):
        entry["input_dtypes"] = [name]
    assert assert_agree(dump)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dtypes=st.lists(st.lists(DTYPE_NAMES, max_size=3), min_size=6, max_size=6))
def test_input_dtypes_agree(dtypes):
    dump = _base_dump()
    for entry, names in zip(dump["entries"], dtypes, strict=True):
        entry["input_dtypes"] = names
    assert_agree(dump)


def test_long_ranks_strings_are_compared_not_only_keyed():
    """A long pg_config ranks string is looked up by its length and ends, then compared whole: two strings alike
    at both ends and as long each get their own ranks."""
    from nccl_forensics.sources.flight_recorder import ranks_in_text
    a = str(list(range(3000)))
    b = a.replace(", 1500,", ", 1501,")
    assert len(a) == len(b) and a[:64] == b[:64] and a[-64:] == b[-64:] and a != b
    for _ in range(2):
        assert ranks_in_text(a) == tuple(range(3000))
        assert ranks_in_text(b) == tuple(range(1500)) + (1501,) + tuple(range(1501, 3000))
    assert ranks_in_text("[4, 9]") == (4, 9) and ranks_in_text("") == ()


SHAPES = st.lists(st.integers(0, 9), max_size=3)               # a tensor's shape: 0-D to 3-D


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sizes=st.lists(st.one_of(st.lists(st.lists(st.integers(0, 9), min_size=1, max_size=1), min_size=1, max_size=1),
                                st.lists(SHAPES, max_size=2)), min_size=6, max_size=6))
def test_input_sizes_agree(sizes):
    """One 1-D tensor per entry (the fast path takes its dim as the count) beside 0-D, 2-D, 3-D and several
    tensors or none: the element counts agree with the general path's."""
    dump = _base_dump()
    for entry, shapes in zip(dump["entries"], sizes, strict=True):
        entry["input_sizes"] = entry["output_sizes"] = shapes
    assert_agree(dump)
