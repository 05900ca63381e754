"""Tail-bounded reading: a large text file is read at its head and its tail; the verdict and every cited line
are those of a full read, the cited line numbers are the file's true ones, and a divergence that may lie
before the window makes the window grow."""
from __future__ import annotations

from pathlib import Path

import pytest

from nccl_forensics.pipeline import map as map_step
from nccl_forensics.pipeline.reduce import diagnose
from nccl_forensics.sources.lines import TAIL_BASE, iter_lines, resolve_tail_line

COMM_ID = "0x7a11c0ffee5eed01"


def write_rank(path: Path, rank: int, ranks: int, ops: int, last_count: int | None = None,
               skip_at: int | None = None) -> None:
    head = f"node0:{3000 + rank}:{3000 + rank} [{rank}] NCCL INFO "
    comm = f"0x{0x55d0c0000000 + rank * 0x1000:x}"
    lines = [f"{head}NCCL version 2.21.5+cuda12.4",
             f"{head}ncclCommInitRank comm {comm} rank {rank} nranks {ranks} cudaDev {rank} nvmlDev {rank} "
             f"busId {rank + 1:x}8000 commId {COMM_ID} - Init COMPLETE"]
    kinds = ("AllReduce", "AllReduce", "AllGather", "ReduceScatter")
    shift = 0
    for op in range(ops):
        if skip_at is not None and op == skip_at:
            shift = 1                                       # this rank skips one collective: the rest shift
        if op + shift >= ops:
            break
        kind = kinds[(op + shift) % len(kinds)]
        count = last_count if last_count is not None and op == ops - 1 else 4096
        lines.append(f"{head}{kind}: opCount {op:x} sendbuff 0x7f3a00000000 recvbuff 0x7f3b00000000 count {count} "
                     f"datatype 7 op 0 root 0 comm {comm} [nranks={ranks}] stream 0x55d0d1000000")
    path.write_text("\n".join(lines) + "\n")


def cited(d) -> list[tuple[str, int, str]]:
    return sorted((e.file, e.line, e.text) for f in d.findings for e in f.evidence)


@pytest.fixture
def small_head(monkeypatch):
    monkeypatch.setattr(map_step, "HEAD_MB", 0.05)


def test_lines_of_a_window_are_the_head_and_the_tail_with_their_true_numbers(tmp_path):
    path = tmp_path / "numbered.log"
    path.write_text("".join(f"line {n}\n" for n in range(1, 20001)))
    lines = list(iter_lines(str(path), window=(1000, 5000)))
    head = [ln for ln in lines if ln.no < TAIL_BASE]
    tail = [ln for ln in lines if ln.no >= TAIL_BASE]
    assert head and tail and all(ln.text == f"line {ln.no}" for ln in head)
    assert tail[-1].text == "line 20000"
    assert all(ln.text == f"line {resolve_tail_line(str(path), 5000, ln.no)}" for ln in tail)


def test_a_hang_in_large_logs_gives_the_verdict_and_the_lines_of_a_full_read(tmp_path, small_head):
    for rank in range(4):
        write_rank(tmp_path / f"nccl.rank{rank}.log", rank, 4, 30000, last_count=4097 if rank == 2 else None)
    tail = diagnose([str(tmp_path)], jobs=1, window_mb=0.2)
    full = diagnose([str(tmp_path)], jobs=1, window_mb=None)
    assert len(tail.windowed) == 4 and not full.windowed
    assert (tail.verdict.cls, tail.verdict.culprit_ranks) == (full.verdict.cls, full.verdict.culprit_ranks) \
        == ("shape_mismatch", [2])
    assert cited(tail) == cited(full)
    for file, line, text in cited(tail):
        assert Path(file).read_text().splitlines()[line - 1].strip().endswith(text.split("NCCL INFO ")[-1].strip())


def test_a_divergence_older_than_the_window_widens_it_until_it_is_inside(tmp_path, small_head):
    for rank in range(4):
        write_rank(tmp_path / f"nccl.rank{rank}.log", rank, 4, 30000, skip_at=5000 if rank == 1 else None)
    tail = diagnose([str(tmp_path)], jobs=1, window_mb=0.2)
    full = diagnose([str(tmp_path)], jobs=1, window_mb=None)
    assert (tail.verdict.cls, tail.verdict.culprit_ranks) == (full.verdict.cls, full.verdict.culprit_ranks)
    assert tail.verdict.primary.seq == full.verdict.primary.seq
    assert cited(tail) == cited(full)
    assert tail.windowed == []                  # the divergence was older than both windows: read in full
