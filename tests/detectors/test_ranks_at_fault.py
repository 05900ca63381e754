"""One field, `ranks_at_fault`, names the ranks a report blames, whichever report (a straggler detector's, accelerate's
shape check, NCCL's RAS): its producers set it and X801 reads it."""
from __future__ import annotations

import pytest

from nccl_forensics.pipeline.collect import parse_paths
from nccl_forensics.pipeline.reduce import diagnose

_STRAGGLER = "STRAGGLER DETECTION WARNING: Some GPUs performance dropped. Affected ranks: {3, 11}"
_SHAPES = ("accelerate.utils.operations.DistributedOperationException: Cannot apply desired operation due to shape "
           "mismatches. All shapes across devices must be valid.\n\n"
           "Operation: `accelerate.utils.operations.pad_across_processes`\nInput shapes:\n"
           + "\n".join(f"  - Process {i}: {s}" for i, s in enumerate(["[4, 16]", "[4, 16]", "[4, 16]", "[3, 16]"])))
_RAS = ("#0-0 (2468ace013579bdf) INCOMPLETE\n  Missing communicator data from 1 rank\n"
        "  Rank 6 -- GPU 6 managed by process 90116 on node 10.3.3.1\n")
_CASES = [(_STRAGGLER, "straggler", [3, 11]), (_SHAPES, "shape_mismatch", [3]), (_RAS, "stuck_rank", [6])]


@pytest.mark.parametrize("text,cls,blamed", _CASES, ids=["straggler", "shapes", "ras"])
def test_every_report_names_its_blamed_ranks_in_one_field(tmp_path, text, cls, blamed):
    (tmp_path / "console.log").write_text(text + "\n")
    events = list(parse_paths([str(tmp_path)], jobs=1).events)
    named = [ev.data["ranks_at_fault"] for ev in events if ev.data.get("ranks_at_fault")]
    assert named and all(ranks == blamed for ranks in named), [ev.data for ev in events]
    assert not any("odd_ranks" in ev.data for ev in events)


@pytest.mark.parametrize("text,cls,blamed", _CASES, ids=["straggler", "shapes", "ras"])
def test_x801_blames_the_ranks_the_report_names(tmp_path, text, cls, blamed):
    (tmp_path / "console.log").write_text(text + "\n")
    found = [f for f in diagnose([str(tmp_path)], jobs=1).findings if f.id == "X801"]
    assert [(f.cls, f.ranks) for f in found] == [(cls, blamed)]
    assert f"names rank{'s' if len(blamed) > 1 else ''} {', '.join(map(str, blamed))}" in found[0].message
