"""`diagnose --ray`: the map step on every node of a real (simulated, multi-node) Ray cluster, the reduce here.

ray.cluster_utils.Cluster starts a head and two more nodes (raylets) on this machine. Each node gets its own
log folder, `<tmp>/<its node id>/`, which the path template `{node_id}` names: a task that ran on the wrong
node would read another node's folder, and the verdict or the rank count would show it."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from nccl_forensics.pipeline.reduce import diagnose

ray = pytest.importorskip("ray", reason="the ray extra is not installed")
from ray.cluster_utils import Cluster  # noqa: E402

from nccl_forensics.pipeline.on_ray import diagnose_on_ray, map_on_ray  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
BUNDLE = ROOT / "sample_logs" / "bundles" / "dtype-mismatch-nccl"
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def cluster():
    c = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
    for _ in range(2):
        c.add_node(num_cpus=1)
    c.wait_for_nodes()
    ray.init(address=c.address, log_to_driver=False, logging_level="ERROR")
    try:
        yield c
    finally:
        ray.shutdown()
        c.shutdown()


def _node_ids() -> list[str]:
    return sorted(n["NodeID"] for n in ray.nodes() if n["Alive"])


def _spread(tmp_path: Path, culprit_files: list[Path], others: list[Path]) -> list[str]:
    """The culprit's files on the first node, the rest on the other two; returns the node ids."""
    nodes = _node_ids()
    assert len(nodes) == 3
    for node in nodes:
        (tmp_path / node).mkdir()
    for f in culprit_files:
        shutil.copy(f, tmp_path / nodes[0] / f.name)
    for i, f in enumerate(others):
        shutil.copy(f, tmp_path / nodes[1 + i % 2] / f.name)
    return nodes


def test_three_nodes_with_the_culprit_on_one_give_the_verdict_of_all_logs_in_one_place(cluster, tmp_path):
    here = diagnose([str(BUNDLE)], jobs=1)
    assert here.failed and here.verdict.culprit_ranks
    culprit = here.verdict.culprit_ranks[0]
    files = sorted(p for p in BUNDLE.rglob("*") if p.is_file())
    culprit_files = [f for f in files if any(s.path == str(f) and s.rank == culprit for s in here.sources)]
    assert culprit_files
    nodes = _spread(tmp_path, culprit_files, [f for f in files if f not in culprit_files])

    result = diagnose_on_ray(cluster.address, [str(tmp_path / "{node_id}")], jobs=1)

    assert (result.verdict.cls, result.verdict.culprit_ranks) == (here.verdict.cls, here.verdict.culprit_ranks)
    assert sorted(result.timelines.colls["rank"].unique()) == sorted(here.timelines.colls["rank"].unique())
    assert sorted(n[0] for n in result.ray_nodes) == nodes and all(n[2] for n in result.ray_nodes)
    cited = {ev.file for f in result.findings for ev in f.evidence}
    assert any(str(tmp_path / nodes[0]) in path for path in cited)        # the culprit's node's own file


def test_a_node_without_the_paths_sends_nothing_and_says_why(cluster, tmp_path):
    nodes = _node_ids()
    only = tmp_path / nodes[2]
    only.mkdir()
    for f in sorted(p for p in BUNDLE.rglob("*") if p.is_file()):
        shutil.copy(f, only / f.name)
    answers = {a.node_id: a for a in map_on_ray(cluster.address, [str(tmp_path / "{node_id}")], None, 1)}
    assert answers[nodes[2]].summary is not None
    assert all(answers[n].summary is None and "exists" in answers[n].note for n in nodes[:2])
