"""`ncclf summarize` (the map step, per node) + `ncclf diagnose` of the summaries (the reduce) gives what
`diagnose` gives on the raw logs: for every sample bundle, and for a bundle split over two "nodes"."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from nccl_forensics.errors import BadInput
from nccl_forensics.pipeline.read import summarize
from nccl_forensics.pipeline.reduce import diagnose

ROOT = Path(__file__).resolve().parents[2]
BUNDLES = sorted(p for sub in ("bundles", "flight_recorder") for p in (ROOT / "sample_logs" / sub).glob("*") if p.is_dir())


def outcome(d) -> tuple:
    v = d.verdict
    return (v.cls, v.culprit_ranks, v.primary.id if v.primary else None, v.summary,
            sorted((f.id, e.file, e.line, e.text) for f in d.findings for e in f.evidence),
            sorted(d.world.expected) if d.world else None)


@pytest.mark.parametrize("bundle", BUNDLES, ids=lambda p: p.name)
def test_a_summary_diagnoses_like_the_logs_once_the_logs_are_gone(bundle, tmp_path):
    """The reduce reads only digests: summarized, then diagnosed with the raw files deleted (as after `kubectl cp`
    of the summaries alone), every bundle gives its raw verdict, culprits and cited lines."""
    copy = tmp_path / bundle.name
    shutil.copytree(bundle, copy)
    raw = outcome(diagnose([str(copy)], jobs=1))
    summarize([str(copy)], str(tmp_path / "node.ncclf"), jobs=1)
    shutil.rmtree(copy)
    assert outcome(diagnose([str(tmp_path / "node.ncclf")], jobs=1)) == raw


def test_two_nodes_summarized_apart_diagnose_as_one_job(tmp_path):
    bundle = ROOT / "sample_logs" / "bundles" / "real-stuck-rank"
    files = sorted(p for p in bundle.rglob("*") if p.is_file())
    nodes = {name: tmp_path / name for name in ("node-a", "node-b")}
    for i, src in enumerate(files):
        dst = nodes["node-a" if i % 2 else "node-b"] / src.relative_to(bundle)
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(src, dst)
    raw = diagnose([str(nodes["node-a"]), str(nodes["node-b"])], jobs=1)
    out = tmp_path / "sum"
    out.mkdir()
    for name, folder in nodes.items():          # as `srun ncclf summarize` would, one process per node
        done = subprocess.run([sys.executable, "-m", "nccl_forensics", "summarize", str(folder), "-o",
                               str(out / f"{name}.ncclf"), "-j", "1"], capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
    assert outcome(diagnose([str(out)], jobs=1)) == outcome(raw)
    assert raw.verdict.cls == "stuck_rank"


def test_a_summary_is_plain_data_and_a_damaged_one_is_bad_input(tmp_path):
    bundle = ROOT / "sample_logs" / "bundles" / "real-dropped-rank"
    summarize([str(bundle)], str(tmp_path / "a.ncclf"), jobs=1)
    names = zipfile.ZipFile(tmp_path / "a.ncclf").namelist()
    assert "manifest.json" in names and all(n in ("manifest.json", "digests") or n.startswith("rows/") for n in names)
    (tmp_path / "bad.ncclf").write_bytes((tmp_path / "a.ncclf").read_bytes()[:300])
    with pytest.raises(BadInput):
        diagnose([str(tmp_path / "bad.ncclf")], jobs=1)


def test_a_windowed_file_is_summarized_with_its_true_line_numbers(tmp_path, monkeypatch):
    from nccl_forensics.pipeline import map as map_step

    from .test_tail_window import write_rank
    monkeypatch.setattr(map_step, "HEAD_MB", 0.05)
    logs = tmp_path / "logs"
    logs.mkdir()
    for rank in range(4):
        write_rank(logs / f"nccl.rank{rank}.log", rank, 4, 30000, last_count=4097 if rank == 2 else None)
    summarize([str(logs)], str(tmp_path / "n.ncclf"), jobs=1, window_mb=0.2)
    assert outcome(diagnose([str(tmp_path / "n.ncclf")], jobs=1)) == outcome(diagnose([str(logs)], jobs=1,
                                                                                     window_mb=None))


def test_a_large_job_summarized_per_node_diagnoses_without_its_dumps(tmp_path):
    """512 ranks of flight-recorder dumps (rank 300 with a wrong size in its last all-reduce), summarized as 8
    nodes of 64 ranks, the dumps then deleted: the summaries alone name rank 300 (issue 30, at scale)."""
    fr_synth = pytest.importorskip("benchmarks.fr_synth")
    dumps = tmp_path / "dumps"
    fr_synth.make_dumps(dumps, ranks=512, entries=40, diverge_rank=300, mode="shape")
    files = sorted(dumps.iterdir(), key=lambda p: int(p.name.rsplit("_", 1)[1]))
    out = tmp_path / "summaries"
    out.mkdir()
    for node in range(8):
        folder = tmp_path / f"node{node}"
        folder.mkdir()
        for path in files[node * 64:(node + 1) * 64]:
            path.rename(folder / path.name)
        summarize([str(folder)], str(out / f"node{node}.ncclf"), jobs=1)
        shutil.rmtree(folder)
    v = diagnose([str(out)], jobs=1).verdict
    assert (v.cls, v.culprit_ranks) == ("shape_mismatch", [300])


def _sample_digests() -> list:
    """Digests of real sample files of every kind that has timeline rows or P2P ops: NCCL logs, flight-recorder
    dumps (the fast path and the general one), a P2P pipeline dump."""
    import importlib.util

    from nccl_forensics.pipeline.map import digest_source
    from nccl_forensics.sources.discover import discover
    spec = importlib.util.spec_from_file_location("fr_synth_pp", ROOT / "benchmarks" / "fr_synth_pp.py")
    fr_synth_pp = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fr_synth_pp)
    return spec, fr_synth_pp, digest_source, discover


def test_every_field_of_a_digest_round_trips(tmp_path):
    """write_summary/read_summary keep every field of Digest (fields added later included: the test reads them
    from dataclasses.fields), each equal to what the map step made, on digests where each field is not empty."""
    import dataclasses

    import numpy as np

    from nccl_forensics.pipeline.map import Digest
    from nccl_forensics.pipeline.summary import read_summary, write_summary
    _, fr_synth_pp, digest_source, discover = _sample_digests()
    fr_synth_pp.make_dumps(tmp_path / "pp", entries=60, tp=2, pp=2, dp=1, micro=2, culprit=3)
    (tmp_path / "rankless").mkdir()         # COLL lines of a process no init line names: rows whose rank the
    (tmp_path / "rankless" / "nccl.log").write_text("".join(   # parent fills from their (host, pid)
        f"host1:4242:4242 [0] NCCL INFO AllReduce: opCount {i:x} sendbuff 0x7f00 recvbuff 0x7f00 count 4 datatype 7 "
        "op 0 root 0 comm 0x5500 [nranks=2] stream 0x5600\n" for i in range(3)))
    paths = [str(tmp_path / "pp"), str(ROOT / "sample_logs" / "flight_recorder"),
             str(ROOT / "sample_logs" / "bundles" / "real-stuck-rank"), str(ROOT / "sample_logs" / "bundles" / "healthy-nccl"),
             str(tmp_path / "rankless")]
    sources = [s for s in discover(paths) if not s.error]
    digests = [digest_source(s) for s in sources]
    digests[0].warnings = ["internal error while parsing x (KeyError: 'y'), please report"]   # a parser's bug
    write_summary(str(tmp_path / "all.ncclf"), sources, digests, paths)
    _, back = read_summary(str(tmp_path / "all.ncclf"))
    assert len(back) == len(digests)

    def same(a, b) -> bool:
        if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
            return type(a) is type(b) and a.dtype == b.dtype and np.array_equal(a, b, equal_nan=a.dtype.kind == "f")
        if isinstance(a, dict):
            return type(b) is dict and a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
        if isinstance(a, (list, tuple)):
            return type(a) is type(b) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
        if dataclasses.is_dataclass(a):
            return type(a) is type(b) and all(same(getattr(a, f.name), getattr(b, f.name))
                                              for f in dataclasses.fields(a))
        return type(a) is type(b) and (a == b or a != a and b != b)  # noqa: PLR0124 - NaN equals NaN here

    for field in dataclasses.fields(Digest):
        values = [(getattr(d, field.name), getattr(e, field.name)) for d, e in zip(digests, back, strict=True)]
        assert any(a not in (None, [], {}, "") for a, _ in values), f"no sample digest fills Digest.{field.name}"
        for a, b in values:
            if field.name == "result":
                a = dataclasses.replace(a, source=dataclasses.replace(a.source, window=None))
            if field.name == "rows":       # a node's row block codes over its digests' categories: same values
                a, b = ({name: _values(part) for name, part in rows.items()} for rows in (a, b))
            assert same(a, b), field.name


def _values(part):
    """A row column's values, whatever its coding (categories and codes, a narrowed number type)."""
    import numpy as np
    if type(part) is list or part[0] == "obj":
        return list(part if type(part) is list else part[1])
    if part[0] == "none":
        return [None] * part[1]
    if part[0] == "cat":
        return [part[1][c] if c >= 0 else None for c in part[2].tolist()]
    return part[1].astype(np.float64 if part[1].dtype.kind == "f" else np.int64)


def test_schema_2_summaries_still_read(tmp_path):
    from nccl_forensics.pipeline import summary
    from nccl_forensics.pipeline.map import digest_source
    from nccl_forensics.sources.discover import discover
    bundle = ROOT / "sample_logs" / "bundles" / "real-stuck-rank"
    sources = [s for s in discover([str(bundle)]) if not s.error]
    digests = [digest_source(s) for s in sources]
    summary._write_summary_v2(str(tmp_path / "old.ncclf"), sources, digests, [str(bundle)])
    summary.write_summary(str(tmp_path / "new.ncclf"), sources, digests, [str(bundle)])
    assert outcome(diagnose([str(tmp_path / "old.ncclf")], jobs=1)) == \
        outcome(diagnose([str(tmp_path / "new.ncclf")], jobs=1)) == outcome(diagnose([str(bundle)], jobs=1))


@pytest.mark.parametrize("schema", [4, 5])
def test_schema_4_and_5_summaries_still_read(tmp_path, schema):
    """Schema 4 (one member per digest, row blocks in path order) and 5 (every digest's source and fields written
    out) read, and give the verdict of schema 6."""
    from nccl_forensics.pipeline import summary
    from nccl_forensics.pipeline.map import digest_source
    from nccl_forensics.sources.discover import discover
    _, fr_synth_pp, _, _ = _sample_digests()
    fr_synth_pp.make_dumps(tmp_path / "pp", entries=60, tp=2, pp=2, dp=1, micro=2, culprit=3)
    paths = [str(tmp_path / "pp"), str(ROOT / "sample_logs" / "flight_recorder")]
    sources = [s for s in discover(paths) if not s.error]
    digests = [digest_source(s) for s in sources]
    summary.write_summary(str(tmp_path / "old.ncclf"), sources, digests, paths, schema=schema)
    summary.write_summary(str(tmp_path / "new.ncclf"), sources, digests, paths)
    with zipfile.ZipFile(tmp_path / "old.ncclf") as zf:
        assert json.loads(zf.read("manifest.json"))["schema_version"] == schema
        assert ("digests/0" in zf.namelist()) == (schema == 4) and b"__source__" not in zf.read(zf.namelist()[0])
    assert outcome(diagnose([str(tmp_path / "old.ncclf")], jobs=1)) == \
        outcome(diagnose([str(tmp_path / "new.ncclf")], jobs=1)) == outcome(diagnose(paths, jobs=1))


@pytest.mark.parametrize("damage", ["header", "array", "type", "source"])
def test_a_damaged_digest_member_is_bad_input(tmp_path, damage):
    import json as jsonlib

    from nccl_forensics.pipeline.summary import read_summary
    bundle = ROOT / "sample_logs" / "flight_recorder"
    summarize([str(bundle)], str(tmp_path / "a.ncclf"), jobs=1)
    with zipfile.ZipFile(tmp_path / "a.ncclf") as zf:
        members = {n: zf.read(n) for n in zf.namelist()}
    name = "rows/0" if damage == "array" else "digests"         # a dump's rows travel in its node's row block
    block = members[name]
    size = int.from_bytes(block[:8], "little")
    header = block[8:8 + size].decode()
    if damage == "header":
        block = (10 ** 9).to_bytes(8, "little") + block[8:]
    elif damage == "array":
        header = header.replace('"__array__":[0,', '"__array__":[99999999,', 1)
    elif damage == "source":                                    # a source the manifest does not list
        header, named = re.subn(r'"__source__":\d+', '"__source__":99999', header, count=1)
        assert named == 1
    else:
        header = header.replace('"__dc__":["SourceResult"', '"__dc__":["os.system"', 1)
    if damage != "header":
        head = header.encode()
        block = len(head).to_bytes(8, "little") + head + block[8 + size:]
        assert jsonlib.loads(head)
    members[name] = block
    with zipfile.ZipFile(tmp_path / "b.ncclf", "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    with pytest.raises(BadInput):
        read_summary(str(tmp_path / "b.ncclf"))


def test_a_dataclass_field_this_version_does_not_know_is_left_out():
    """A summary from a later ncclf may name a field an Event or Source of this one lacks: it is left out, and the
    rest reads (the object hook's fast path builds a dataclass whose fields are all known; otherwise it filters)."""
    from nccl_forensics.model import Event
    from nccl_forensics.pipeline.summary import _decoded
    header = {"events": [{"__dc__": ["Event", {"kind": "warn", "source": "nccl", "file": "f", "line": 3}]},
                         {"__dc__": ["Event", {"kind": "warn", "source": "nccl", "file": "f", "line": 4,
                                               "added_later": {"__tuple__": [1, 2]}}]}]}
    head = json.dumps(header).encode()
    block = len(head).to_bytes(8, "little") + head + b"\0" * ((-len(head)) % 8)
    assert _decoded(block)["events"] == [Event("warn", "nccl", "f", 3), Event("warn", "nccl", "f", 4)]
