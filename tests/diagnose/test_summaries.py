"""`ncclf summarize` (the map step, per node) + `ncclf diagnose` of the summaries (the reduce) gives what
`diagnose` gives on the raw logs: for every sample bundle, and for a bundle split over two "nodes"."""
from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from nccl_forensics.diagnosis.reduce import diagnose, summarize
from nccl_forensics.errors import BadInput

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
    assert "manifest.json" in names and all(n.endswith((".json", ".jsonl", ".npy")) for n in names)
    (tmp_path / "bad.ncclf").write_bytes((tmp_path / "a.ncclf").read_bytes()[:300])
    with pytest.raises(BadInput):
        diagnose([str(tmp_path / "bad.ncclf")], jobs=1)


def test_a_windowed_file_is_summarized_with_its_true_line_numbers(tmp_path, monkeypatch):
    from nccl_forensics.diagnosis import reduce

    from .test_tail_window import write_rank
    monkeypatch.setattr(reduce, "HEAD_MB", 0.05)
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
