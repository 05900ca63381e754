"""A capture manifest's per-rank environment, read back with the line each variable sits on."""
from __future__ import annotations

import json

from nccl_forensics.sources.capture_manifest import MARK, rank_env


def _doc(ranks):
    return {MARK: 1, "host": "node-a", "ranks": ranks}


def test_each_ranks_variables_with_their_lines(tmp_path):
    path = tmp_path / "manifest.json"
    path.write_text(json.dumps(_doc([{"rank": 0, "env": {"NCCL_DEBUG": "INFO", "RANK": "0"}},
                                     {"rank": 1, "env": {"NCCL_DEBUG": "WARN"}}]), indent=2))
    lines = path.read_text().splitlines()
    found = rank_env(str(path))
    assert [(r, n, v) for r, n, v, _ in found] == [(0, "NCCL_DEBUG", "INFO"), (0, "RANK", "0"), (1, "NCCL_DEBUG", "WARN")]
    for rank, name, value, line in found:
        assert lines[line - 1].strip().startswith(f'"{name}": "{value}"')


def test_another_layout_cites_the_first_line_and_junk_gives_nothing(tmp_path):
    path = tmp_path / "manifest.json"
    path.write_text(json.dumps(_doc([{"rank": 3, "env": {"NCCL_IB_HCA": "mlx5_0"}}, {"rank": "x", "env": {}},
                                     {"rank": 4, "env": ["NCCL_X=1"]}, {"rank": 5, "env": {"A": 1}}])))
    assert rank_env(str(path)) == [(3, "NCCL_IB_HCA", "mlx5_0", 1)]
    path.write_text('{"not": "a manifest"}')
    assert rank_env(str(path)) == []
    path.write_text("{cut")
    assert rank_env(str(path)) == [] and rank_env(str(tmp_path / "absent.json")) == []
