"""Thousands of files are sniffed and digested by one task each (read.read_inputs' fused path): the same
sources, digests and verdict as the two steps (sniff every file, then digest the evidence)."""
from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from nccl_forensics.diagnosis.rows import values_of
from nccl_forensics.errors import NoEvidence
from nccl_forensics.pipeline import read
from nccl_forensics.pipeline.engines import local
from nccl_forensics.pipeline.map import WINDOW_MB
from nccl_forensics.pipeline.read import PARALLEL_SNIFF, pool_for, read_inputs
from nccl_forensics.pipeline.reduce import diagnose

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_log_shapes.py"
RANKS = PARALLEL_SNIFF


def _bench():
    spec = importlib.util.spec_from_file_location("bench_log_shapes", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def job(tmp_path_factory) -> Path:
    """512 ranks' small NCCL logs (the last stops early), a second folder of them, and files that are no evidence."""
    root = tmp_path_factory.mktemp("fused")
    bench = _bench()
    for rank in range(RANKS):
        folder = root / ("a" if rank % 2 else "b")
        folder.mkdir(exist_ok=True)
        bench.write_rank_log(folder / f"nccl.rank{rank}.log", rank, RANKS, 6000, 2 if rank == RANKS - 1 else 0)
    (root / "notes.md").write_text("# what we ran\n")
    (root / "empty.log").write_text("")
    (root / "blob.log").write_bytes(b"\x00\x01" * 64)
    return root


def _fingerprint(sources, usable, windowed, digests, blocks):
    for block in blocks:
        block.share()
    return ([(s.path, s.kind, s.reason, s.rank, s.size, s.window) for s in sources],
            [s.path for s in usable], [s.path for s in windowed],
            [(d.result.source.path, len(d.result.events), d.result.lines, sorted(d.rows)) for d in digests])


def test_the_fused_path_reads_what_the_two_steps_read(job, monkeypatch):
    fused = _fingerprint(*read_inputs([str(job)], WINDOW_MB, jobs=2))
    monkeypatch.setattr(read, "PARALLEL_SNIFF", 10 ** 9)           # the two steps, still in two workers
    assert _fingerprint(*read_inputs([str(job)], WINDOW_MB, jobs=2)) == fused
    assert len(fused[1]) == RANKS and len(fused[0]) == RANKS + 3


def test_joined_rows_are_the_rows_of_their_digests(job):
    """A batch's rows sent as row blocks (join=True, as diagnose reads: rows without their text) are each digest's
    rows, in blocks of neighbouring ranks."""
    plain = read_inputs([str(job)], WINDOW_MB, jobs=2, keep_text=False)
    joined = read_inputs([str(job)], WINDOW_MB, jobs=2, keep_text=False, join=True)
    assert joined.blocks and not any(d.rows for d in joined.digests)
    for block in joined.blocks:
        ranks = block.columns["rank"][1]
        assert (ranks[1:] >= ranks[:-1]).all()            # in rank order: the reduce takes the block whole
        block.share()
    assert _fingerprint(*joined) == _fingerprint(*plain)
    for mine, theirs in zip(joined.digests, plain.digests, strict=True):
        assert _values(mine.rows) == _values(theirs.rows)


def _values(rows: dict) -> list:
    return [list(map(repr, values_of(rows[name]))) for name in sorted(rows)]     # repr: nan == nan


def test_batches_hold_neighbouring_numbers():
    """A folder's names shortest first: where only a number differs, in its order (folders in path order)."""
    files = [f"/job/{host}/nccl.rank{r}.log" for host in ("b", "a") for r in (12, 3, 100, 7)]
    batches = read._batches(files, jobs=2)
    assert [f for batch in batches for f in batch] == [f"/job/{host}/nccl.rank{r}.log"
                                                       for host in ("a", "b") for r in (3, 7, 12, 100)]


def test_the_verdict_and_the_rows_are_the_same_with_one_job_and_two(job):
    """Two jobs read in batches whose rows come back as row blocks; one job reads file by file."""
    one, two = diagnose([str(job)], jobs=1), diagnose([str(job)], jobs=2)
    assert (two.verdict.cls, two.verdict.culprit_ranks) == (one.verdict.cls, one.verdict.culprit_ranks)
    assert two.verdict.culprit_ranks == [RANKS - 1]
    assert [s.path for s in two.sources] == [s.path for s in one.sources]
    columns = ["rank", "group", "seq", "op", "numel", "dtype", "state", "file", "line"]
    frames = [d.timelines.colls[columns].sort_values(["file", "line"]).reset_index(drop=True).astype(str)
              for d in (one, two)]
    assert frames[0].equals(frames[1])


def test_workers_started_early_read_what_a_diagnosis_s_own_would(job):
    """The CLI's order (read.pool_for starts the workers, each warming up, then the reduce is imported): the same
    verdict and sources as a pool the diagnosis starts itself, and the workers are stopped once the files are read."""
    own = diagnose([str(job)], jobs=2)
    with pool_for([str(job)], jobs=2) as shared:
        assert shared.pool is not None and shared.jobs == 2
        early = diagnose([str(job)], jobs=2, shared=shared)
        assert not any(p.is_alive() for p in (shared.pool._processes or {}).values())
    assert (early.verdict.cls, early.verdict.culprit_ranks) == (own.verdict.cls, own.verdict.culprit_ranks)
    assert [s.path for s in early.sources] == [s.path for s in own.sources]


def test_the_files_go_out_before_the_reduce_is_imported_and_the_diagnosis_takes_their_results(job, monkeypatch):
    """read.pool_for hands the workers the batches at once; the diagnosis reads no file again."""
    with pool_for([str(job)], jobs=2, window_mb=2.0) as shared:
        assert len(shared.early) == 1
        sent = []
        monkeypatch.setattr(local, "_submit", lambda *args: sent.append(args))      # nothing sent out again
        early = diagnose([str(job)], jobs=2, shared=shared, window_mb=2.0)
        assert shared.early == {} and sent == []
    assert early.verdict.culprit_ranks == [RANKS - 1] and len(early.sources) == RANKS + 3     # and 3 others


def test_a_read_with_another_window_sends_the_files_again_and_the_prefetch_is_dropped(job):
    own = diagnose([str(job)], jobs=2, window_mb=None)
    with pool_for([str(job)], jobs=2, window_mb=2.0) as shared:
        (key, (_, futures)), = shared.early.items()
        other = diagnose([str(job)], jobs=2, shared=shared, window_mb=None)
        assert shared.early == {} and all(f.done() for f in futures)     # the pool stopped with the read
    assert (other.verdict.cls, other.verdict.culprit_ranks) == (own.verdict.cls, own.verdict.culprit_ranks)
    assert key[2] == 2.0 and other.window_mb is None


def test_one_file_or_one_job_starts_no_workers(tmp_path):
    (tmp_path / "a.log").write_text("x\n")
    assert pool_for([str(tmp_path)], jobs=2).pool is None
    (tmp_path / "b.log").write_text("x\n")
    assert pool_for([str(tmp_path)], jobs=1).pool is None
    assert pool_for([str(tmp_path / "missing")], jobs=2).pool is None


def test_a_capture_manifest_takes_the_two_steps(job, tmp_path, monkeypatch):
    """The manifest names hosts and ranks before the files are digested: no fused pass where one lies."""
    (job / "manifest.json").write_text(json.dumps({"host": "node0000"}))
    try:
        monkeypatch.setattr(read, "sniff_and_digest_batch", None)   # would fail if the fused path ran
        sources, usable, _, digests, _ = read_inputs([str(job)], WINDOW_MB, jobs=2)
        assert len(digests) == len(usable) == RANKS
    finally:
        (job / "manifest.json").unlink()


def test_no_evidence_among_many_files_is_said_as_before(tmp_path):
    for i in range(PARALLEL_SNIFF):
        (tmp_path / f"note{i}.md").write_text("nothing\n")
    with pytest.raises(NoEvidence, match="no evidence files"):
        read_inputs([str(tmp_path)], WINDOW_MB, jobs=2)
