"""S701 straggler: from arrival times in flight-recorder dumps (torch 2.13 schema, timing on) and the real
slow-rank bundle; never on a healthy job, a hang outranks it."""
from __future__ import annotations

import pickle
import random
from pathlib import Path

import pytest

from nccl_forensics.pipeline.reduce import diagnose
from tests.diagnose.fr_jobs import BASE_NS, Job

ROOT = Path(__file__).resolve().parents[2]
STEP_NS = 50_000_000


def timed_job(world: int, steps: int, late: dict[int, int], every: int = 5, seed: int = 7) -> Job:
    """`steps` all-reduces; rank r in `late` arrives `late[r]` ns after the others, except at every
    `every`-th step (it is late at 80% of collectives with the default); everyone jitters by up to 0.3 ms."""
    job, rnd = Job(world), random.Random(seed)
    for step in range(steps):
        for r in job.ranks:
            entry = r.coll("all_reduce", [[4096]])
            lag = late.get(r.rank, 0) if step % every else 0
            entry["time_created_ns"] = BASE_NS + step * STEP_NS + rnd.randrange(300_000) + lag
            entry["time_discovered_started_ns"] = entry["time_created_ns"] + 1_000
            entry["time_discovered_completed_ns"] = BASE_NS + step * STEP_NS + max(late.values(), default=0) + 900_000
    return job


def write(job: Job, folder: Path, host_of=None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for r in job.ranks:
        name = f"nccl_trace_rank_{host_of(r.rank)}_{r.rank}" if host_of else f"nccl_trace_rank_{r.rank}"
        (folder / name).write_bytes(pickle.dumps(r.dump(), protocol=2))
    return folder


@pytest.mark.slow
def test_one_rank_in_1024_late_by_5ms_at_80_percent_is_the_straggler(tmp_path):
    d = diagnose([str(write(timed_job(1024, 30, {700: 5_000_000}), tmp_path / "fr"))])
    assert (d.verdict.cls, d.verdict.culprit_ranks) == ("straggler", [700]), d.verdict.summary
    assert "rank 700 arrived last at 24 of 29 collectives" in d.verdict.summary


@pytest.mark.slow
def test_1024_ranks_none_late_is_no_straggler(tmp_path):
    d = diagnose([str(write(timed_job(1024, 30, {}), tmp_path / "fr"))])
    assert d.verdict.cls == "none" and "S701" not in {f.id for f in d.findings}, d.verdict.summary


def test_the_eight_ranks_of_one_host_late_together_are_that_host(tmp_path):
    late = {r: 5_000_000 + (r % 8) * 10_000 for r in range(40, 48)}     # node5's ranks, each a bit differently
    folder = write(timed_job(128, 30, late), tmp_path / "fr", host_of=lambda r: f"node{r // 8}")
    d = diagnose([str(folder)], jobs=1)
    assert (d.verdict.cls, d.verdict.culprit_ranks) == ("straggler", list(range(40, 48))), d.verdict.summary
    assert "host node5" in d.verdict.summary


def test_jitter_alone_is_no_straggler_even_with_two_ranks(tmp_path):
    for seed in range(5):
        d = diagnose([str(write(timed_job(2, 40, {}, seed=seed), tmp_path / f"fr{seed}"))], jobs=1)
        assert "S701" not in {f.id for f in d.findings}, d.verdict.summary


def test_a_few_milliseconds_of_scheduler_noise_is_no_straggler(tmp_path):
    """Seen in CI: a real 2-rank gloo job (the `timeout` reproducer) on a loaded 2-core machine, rank 1 last at
    5 of 7 collectives by 0.7, 0.5, 3.2, 2.2 and 7.6 ms: 13 ms of waiting in all, no straggler."""
    job = Job(2)
    lags_ms = [0, 0.7, 0, 0.5, 3.2, 2.2, 7.6]
    for step, lag in enumerate(lags_ms):
        for r in job.ranks:
            entry = r.coll("all_reduce", [[4096]])
            late = int(lag * 1e6) if r.rank == 1 else 0
            entry["time_created_ns"] = BASE_NS + step * 20_000_000 + late
    d = diagnose([str(write(job, tmp_path / "fr"))], jobs=1)
    assert "S701" not in {f.id for f in d.findings}, d.verdict.summary


def test_the_real_slow_rank_job_names_its_sleeping_rank_with_lag_and_share():
    d = diagnose([str(ROOT / "sample_logs/bundles/real-slow-rank")], jobs=1)
    assert (d.verdict.cls, d.verdict.culprit_ranks) == ("straggler", [1])
    assert "a median 324 ms after the others" in d.verdict.summary and "94% of all the waiting" in d.verdict.summary


def test_a_hang_outranks_a_straggler(tmp_path):
    job = timed_job(4, 20, {2: 5_000_000})
    for r in job.ranks:
        if r.rank != 3:
            r.coll("all_reduce", [[4096]], state="started")     # rank 3 never comes: a hang
    d = diagnose([str(write(job, tmp_path / "fr"))], jobs=1)
    assert d.verdict.cls == "stuck_rank" and d.verdict.culprit_ranks == [3], d.verdict.summary
    assert "S701" in {f.id for f in d.findings}


def evidence_sets() -> list[Path]:
    from tests.corpus.corpus import CORPUS
    sets = [p for sub in ("bundles", "flight_recorder", "evidence") for p in sorted((ROOT / "sample_logs" / sub).glob("*"))
            if p.is_dir() and not p.name.startswith(("real-slow-rank", "real-megatron-slow"))]
    return sets + sorted(p for p in CORPUS.glob("*/*") if p.is_file() and p.name not in ("truth.json", "README.md"))


def test_no_straggler_in_any_other_sample_bundle_or_corpus_file():
    from nccl_forensics.errors import NcclfError
    flagged = []
    for path in evidence_sets():
        try:
            d = diagnose([str(path)], jobs=1)
        except NcclfError:
            continue
        flagged += [f"{path}: {f.message}" for f in d.findings if f.id == "S701"]
    assert flagged == []


def test_a_job_that_exited_cleanly_has_no_straggler_that_cost_it_under_a_second(tmp_path):
    """A healthy 2-rank CPU run (CI): rank 0's own logging put it 7 ms behind at 7 of 16 collectives, 0.07 s in
    all. The same lag without the launcher's success line stays a straggler."""
    fr = write(timed_job(2, 16, {0: 7_000_000}), tmp_path / "fr")
    assert diagnose([str(fr)]).verdict.cls == "straggler"
    console = tmp_path / "console.log"
    console.write_text("I1125 14:03:56.711000 9319 torch/distributed/elastic/agent/server/api.py:985] Local worker "
                       "group finished (WorkerState.SUCCEEDED). Waiting 300 seconds for other agents to finish\n")
    d = diagnose([str(fr), str(console)])
    assert "S701" not in {f.id for f in d.findings}, d.verdict.summary
