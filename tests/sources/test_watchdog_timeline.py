"""Every rank's watchdog record (`Watchdog caught collective operation timeout: WorkNCCL(SeqNum=S, OpType=…,
NumelIn=A, NumelOut=B, …)`) read from console lines into the timelines: one group per process group, a rank with
other sizes at the same SeqNum is a shape mismatch, a rank at a lower SeqNum is behind."""
from __future__ import annotations

from nccl_forensics.diagnosis.rows import RowBuffer, add_event
from nccl_forensics.diagnosis.timeline import build_timelines, frame_of, stragglers
from nccl_forensics.model import Source, SourceKind
from nccl_forensics.pipeline.reduce import diagnose
from nccl_forensics.sources import parse_source


def _line(rank, seq, op="ALLREDUCE", numel_in=10, numel_out=10, pg=0):
    return (f"[rank{rank}]:[E1120 10:00:00.000000000 ProcessGroupNCCL.cpp:632] [PG ID {pg} PG GUID {pg}(default_pg) "
            f"Rank {rank}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum={seq}, OpType={op}, "
            f"NumelIn={numel_in}, NumelOut={numel_out}, Timeout(ms)=600000) ran for 600017 milliseconds before timing "
            "out.\n")


def _timelines(tmp_path, text):
    path = tmp_path / "console.log"
    path.write_text(text)
    buf = RowBuffer()
    for ev in parse_source(Source(str(path), SourceKind.CONSOLE)).events:
        add_event(buf, ev)
    return build_timelines([frame_of([buf])])


def test_a_rank_at_a_lower_seqnum_is_behind(tmp_path):
    tl = _timelines(tmp_path, "".join(_line(r, 99 if r == 3 else 100) for r in range(4)))
    assert stragglers(tl) == {"0": ("behind", [3], 99)}


def test_each_process_group_is_its_own_timeline(tmp_path):
    text = "".join(_line(r, 100) for r in range(4)) + "".join(_line(r, 6 if r == 1 else 7, pg=1) for r in range(2))
    tl = _timelines(tmp_path, text)
    assert sorted(tl.members) == ["0", "1"]
    assert stragglers(tl) == {"1": ("behind", [1], 6)}


def test_other_sizes_at_the_same_seqnum_are_a_shape_mismatch(tmp_path):
    text = "".join(_line(r, 100, "_ALLGATHER_BASE", 999 if r == 3 else 1000, 3996 if r == 3 else 4000)
                   for r in range(4))
    (tmp_path / "console.log").write_text(text)
    verdict = diagnose([str(tmp_path)], jobs=1).verdict
    assert verdict.cls == "shape_mismatch" and verdict.culprit_ranks == [3], verdict.summary
