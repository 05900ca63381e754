"""`ncclf summarize` (the map step, per node) + `ncclf diagnose` of the summaries (the reduce) gives what
`diagnose` gives on the raw logs: for every sample bundle, and for a bundle split over two "nodes"."""
from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from nccl_forensics.errors import BadInput
from nccl_forensics.pipeline.reduce import diagnose, summarize

ROOT = Path(__file__).resolve().parents[2]
BUNDLES = sorted(p for sub in ("bundles", "flight_recorder") for p in (ROOT / "sample_logs" / sub).glob("*") if p.is_dir())


def outcome(d) -> tuple:
    v = d.verdict
    return (v.cls, v.culprit_ranks, v.primary.id if v.primary else None, v.summary,
            sorted((f.id, e.file, e.line, e.text) for f in d.findings for e in f.evidence),
            sorted(d.world.expected) if d.world else None)


@pytest.mark.parametrize("bundle", BUNDLES, ids=lambda p: p.name)
def test_a_summary_diagnoses_like_the_logs(bundle, tmp_path):
    summarize([str(bundle)], str(tmp_path / "node.ncclf"), jobs=1)
    assert outcome(diagnose([str(tmp_path / "node.ncclf")], jobs=1)) == outcome(diagnose([str(bundle)], jobs=1))


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
    from nccl_forensics.pipeline import reduce

    from .test_tail_window import write_rank
    monkeypatch.setattr(reduce, "HEAD_MB", 0.05)
    logs = tmp_path / "logs"
    logs.mkdir()
    for rank in range(4):
        write_rank(logs / f"nccl.rank{rank}.log", rank, 4, 30000, last_count=4097 if rank == 2 else None)
    summarize([str(logs)], str(tmp_path / "n.ncclf"), jobs=1, window_mb=0.2)
    assert outcome(diagnose([str(tmp_path / "n.ncclf")], jobs=1)) == outcome(diagnose([str(logs)], jobs=1,
                                                                                     window_mb=None))
