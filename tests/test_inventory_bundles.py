"""`ncclf parse --inventory` gives every rank-specific file of every sample bundle its right rank.

The truth comes from how each bundle was made, not from ncclf: the reproducer's layout (`fr/…rank_R`,
`pyspy/rankR.…`, torchrun's `attempt_0/<local_rank>/` on one node), the generator's `nccl.rankR.…` names,
and, for NCCL files named only by host and pid, the sample README's "rank N on host" notes.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from nccl_forensics.pipeline.collect import inventory

ROOT = Path(__file__).resolve().parents[1] / "sample_logs"
BUNDLES = sorted(p for p in (ROOT / "bundles").iterdir() if p.is_dir())
TRUTH_BY_PATH = [
    re.compile(r"fr/\w*?rank_(\d+)$"),
    re.compile(r"pyspy/rank(\d+)\."),
    re.compile(r"attempt_\d+/(\d+)/(?:stdout|stderr)\.log$"),
    re.compile(r"attempt_\d+/(\d+)/error\.json$"),
    re.compile(r"nccl\.rank(\d+)\."),
]


def true_rank(path: str) -> int | None:
    for pattern in TRUTH_BY_PATH:
        m = pattern.search(path.replace("\\", "/"))
        if m:
            return int(m.group(1))
    return None


@pytest.mark.parametrize("bundle", BUNDLES, ids=lambda p: p.name)
def test_every_rank_specific_file_gets_its_rank(bundle):
    rows = inventory([str(bundle)], jobs=1)
    checked = 0
    for row in rows:
        expected = true_rank(row.source.path)
        if expected is None or row.source.kind.value == "unknown":
            continue
        assert row.ranks == {expected}, f"{row.source.path}: {sorted(row.ranks)} != [{expected}]"
        checked += 1
    assert checked, "no rank-specific file in this bundle"


def test_nccl_files_named_by_host_and_pid_get_their_rank_from_content():
    folder = ROOT / "nccl" / "ib-16rank-2node-2.21"
    notes = (ROOT / "nccl" / "README.md").read_text()
    truth = {name: int(rank) for name, rank in
             re.findall(r"`ib-16rank-2node-2\.21/(nccl\.[\w.-]+\.log)`:.*?; rank (\d+) on", notes)}
    assert len(truth) == 16
    rows = {Path(r.source.path).name: r for r in inventory([str(folder)], jobs=1)}
    for name, rank in truth.items():
        assert rows[name].source.rank is None          # the name says nothing about the rank
        assert rows[name].ranks == {rank}, name


def test_files_that_are_not_evidence_are_listed_as_skipped(tmp_path):
    (tmp_path / "notes.md").write_text("# what happened\n")
    (tmp_path / "model.pt").write_bytes(b"\x00" * 64)
    rows = inventory([str(tmp_path / "notes.md"), str(tmp_path / "model.pt")], jobs=1)
    assert [r.source.kind.value for r in rows] == ["unknown", "unknown"]
    assert all(r.error is None for r in rows)
