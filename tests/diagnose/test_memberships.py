"""Process-group memberships travel and are kept compact (diagnosis.groups.compact): a 16,384-rank job repeats
one membership in every dump, and nothing may cost the world size per dump."""
from __future__ import annotations

import importlib.util
import json
import pickle
import zipfile
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nccl_forensics.diagnosis.groups import as_set, compact, split_by_membership
from nccl_forensics.diagnosis.world import expected_world
from nccl_forensics.errors import BadInput
from nccl_forensics.model import Source, SourceKind
from nccl_forensics.pipeline.map import digest_source
from nccl_forensics.pipeline.read import summarize
from nccl_forensics.pipeline.reduce import diagnose

from .factories import fr_dump

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("fr_synth", ROOT / "benchmarks" / "fr_synth.py")
fr_synth = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fr_synth)


@pytest.mark.parametrize("ranks, expected", [
    (list(range(16)), range(16)), ([0, 2, 4, 6], range(0, 8, 2)), ([3, 2, 1], range(3, 0, -1)),
    ([8, 9, 10, 11], range(8, 12)), ([0, 1, 3], (0, 1, 3)), ([5], (5,)), ([], ()), ([1, 1], (1, 1)),
    ([0, "1"], (0, "1")),
])
def test_evenly_stepped_ranks_become_a_range_and_others_a_tuple(ranks, expected):
    got = compact(ranks)
    assert got == expected and type(got) is type(expected)


@given(st.lists(st.integers(-5, 1 << 20), max_size=40))
def test_compact_keeps_every_rank_in_its_order(ranks):
    assert list(compact(ranks)) == ranks


def test_equal_memberships_come_back_as_one_object():
    a, b = compact([0, 1, 5, 9]), compact([0, 1, 5, 9])
    assert a is b and as_set(a) is as_set(b) == {0, 1, 5, 9}


def test_one_name_two_member_sets_is_a_split_and_equal_sets_are_not():
    dumps = [{"1": compact([0, 1])}, {"1": compact([2, 3])}, {"0": compact(range(4))}, {"0": compact([0, 1, 2, 3])}]
    assert split_by_membership(dumps) == {"1": True, "0": False}


def _digest_size(tmp_path: Path, world: int) -> int:
    (path,) = fr_synth.make_dumps(tmp_path / str(world), ranks=world, entries=6, diverge_rank=None, only=[1])
    digest = digest_source(Source(str(path), SourceKind.FLIGHT_RECORDER, rank=1))
    assert digest.result.error is None and digest.rows
    assert digest.declared == {"0": range(world)}
    return len(pickle.dumps(digest))


def test_a_dump_digest_does_not_grow_with_the_world(tmp_path):
    small, large = _digest_size(tmp_path, 4), _digest_size(tmp_path, 16384)
    assert large - small < 64, (small, large)


def test_every_rank_a_membership_names_is_expected_once_per_distinct_membership():
    dumps = [fr_dump(r, world_size=8, ranks=compact(range(8))) for r in range(3)]
    dumps += [fr_dump(3, world_size=8, ranks=[0, 2, 4, 9])]
    world = expected_world(dumps, [0, 1, 2, 3])
    named = [c for c in world.claims if c.what == "named in a process group's membership"]
    assert len(named) == 1 and named[0].ranks == frozenset(range(8)) | {9}
    assert named[0].evidence.file == dumps[0].file
    assert world.expected == [*range(8), 9] and set(world.gaps) == {4, 5, 6, 7, 9}


def _job(tmp_path: Path) -> Path:
    fr_synth.make_dumps(tmp_path / "job", ranks=8, entries=20, diverge_rank=5, mode="dtype")
    return tmp_path / "job"


def test_a_summary_keeps_memberships_as_ranges_and_diagnoses_like_the_dumps(tmp_path):
    job = _job(tmp_path)
    summarize([str(job)], str(tmp_path / "n.ncclf"), jobs=1)
    with zipfile.ZipFile(tmp_path / "n.ncclf") as zf:
        manifest = json.loads(zf.read("manifest.json"))
        headers = _header(zf.read("digests"))["digests"]
    assert manifest["schema_version"] == 6 and len(headers) == manifest["digests"]
    assert [h["result"]["__dc__"][1]["source"] for h in headers] == [{"__source__": i} for i in range(8)]
    assert {json.dumps(h["declared"]) for h in headers} == {'{"0": {"__range__": [0, 8, 1]}}'}
    assert '"ranks": {"__range__": [0, 8, 1]}' in json.dumps(headers[0]["result"])
    from_summary, from_dumps = diagnose([str(tmp_path / "n.ncclf")], jobs=1), diagnose([str(job)], jobs=1)
    assert (from_summary.verdict.cls, from_summary.verdict.culprit_ranks) == ("dtype_mismatch", [5])
    assert from_summary.verdict.summary == from_dumps.verdict.summary
    assert from_summary.world.expected == from_dumps.world.expected == list(range(8))


def _header(block: bytes) -> dict:
    size = int.from_bytes(block[:8], "little")
    return json.loads(block[8:8 + size])


def _summarize_v2(job: Path, out: Path) -> None:
    """A schema 2 summary of `job`, as ncclf wrote them before schema 3."""
    from nccl_forensics.pipeline.summary import _write_summary_v2, read_summary
    digests = summarize([str(job)], str(out) + ".v3", jobs=1)
    _write_summary_v2(str(out), read_summary(str(out) + ".v3")[0], digests, [str(job)])


def _rewrite_manifest(src: Path, dst: Path, change) -> None:
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        for name in zin.namelist():
            data = zin.read(name)
            if name == "manifest.json":
                manifest = json.loads(data)
                change(manifest)
                data = json.dumps(manifest).encode()
            elif name.startswith("events/"):          # schema 1 wrote memberships as lists
                data = data.replace(b'{"__range__":[0,8,1]}', json.dumps(list(range(8))).replace(" ", "").encode())
            zout.writestr(name, data)


def test_a_schema_1_summary_with_membership_lists_still_reads(tmp_path):
    job = _job(tmp_path)
    _summarize_v2(job, tmp_path / "n.ncclf")

    def as_schema_1(manifest):
        manifest["schema_version"] = 1
        for d in manifest["digests"]:
            d["declared"] = {g: list(range(8)) for g in d["declared"]}
    _rewrite_manifest(tmp_path / "n.ncclf", tmp_path / "old.ncclf", as_schema_1)
    old = diagnose([str(tmp_path / "old.ncclf")], jobs=1)
    assert (old.verdict.cls, old.verdict.culprit_ranks) == ("dtype_mismatch", [5])
    assert old.world.expected == list(range(8))


@pytest.mark.parametrize("bad", [[0, 1 << 40, 1], ["a", 8, 1], [0, 8, 0]])
def test_a_damaged_membership_range_is_bad_input(tmp_path, bad):
    job = _job(tmp_path)
    _summarize_v2(job, tmp_path / "n.ncclf")

    def damage(manifest):
        manifest["digests"][0]["declared"] = {"0": {"__range__": bad}}
    _rewrite_manifest(tmp_path / "n.ncclf", tmp_path / "bad.ncclf", damage)
    with pytest.raises(BadInput, match="damaged ncclf summary"):
        diagnose([str(tmp_path / "bad.ncclf")], jobs=1)
    summarize([str(job)], str(tmp_path / "n3.ncclf"), jobs=1)                   # schema 5: in the digests' header
    with zipfile.ZipFile(tmp_path / "n3.ncclf") as zin, zipfile.ZipFile(tmp_path / "bad3.ncclf", "w") as zout:
        for name in zin.namelist():
            data = zin.read(name)
            if name == "digests":
                size = int.from_bytes(data[:8], "little")
                head = data[8:8 + size].replace(b'"declared":{"0":{"__range__":[0,8,1]}}',
                                                b'"declared":{"0":{"__range__":' + json.dumps(bad).encode() + b'}}')
                data = len(head).to_bytes(8, "little") + head + data[8 + size:]
            zout.writestr(name, data)
    with pytest.raises(BadInput, match="damaged ncclf summary"):
        diagnose([str(tmp_path / "bad3.ncclf")], jobs=1)
