"""The reproducer harness's view of the flight-recorder dumps its ranks wrote (no torch job needed)."""
from __future__ import annotations

from nccl_forensics.reproducers import harness


def test_a_dump_cut_short_by_the_launcher_is_removed_and_noted(tmp_path):
    """frdump writes `<prefix><rank>.tmp`, then renames it: a `.tmp` left behind is a rank killed mid-write."""
    (tmp_path / "nccl_trace_rank_0").write_bytes(b"dump")
    (tmp_path / "nccl_trace_rank_1.tmp").write_bytes(b"")
    notes: list[str] = []
    assert harness.finished_dumps(tmp_path, notes) == [tmp_path / "nccl_trace_rank_0"]
    assert not (tmp_path / "nccl_trace_rank_1.tmp").exists()
    assert notes == ["nccl_trace_rank_1: the rank was stopped while writing its dump; the unfinished file was removed"]
