"""NCCL's INFO line of a connect it retries (catalogue nccl.socket_connect_retry) is a network error only where its
process did not get past it: a later `Init COMPLETE` or collective of the same process says the peer was only late."""
from __future__ import annotations

import shutil
from pathlib import Path

from nccl_forensics.pipeline.reduce import diagnose

JOB = Path(__file__).resolve().parents[2] / "sample_logs" / "nccl" / "ib-16rank-2node-2.21"   # 16 ranks, finished
RANK1 = "nccl.a100-node-03.301456.log"
RETRY = ("a100-node-03:301456:301470 [1] NCCL INFO socketPollConnect: connect to 10.42.1.12<43217> returned "
         "Connection refused, retrying (1/34) after sleep for 100 msec")


def _job(tmp_path: Path, rank1_lines) -> Path:
    """The finished 16-rank job, rank 1's log made of `rank1_lines(its lines)`."""
    job = tmp_path / "job"
    shutil.copytree(JOB, job)
    log = job / RANK1
    log.write_text("\n".join(rank1_lines(log.read_text().splitlines())) + "\n")
    return job


def test_a_retry_before_the_init_completed_is_no_failure(tmp_path):
    job = _job(tmp_path, lambda lines: [*lines[:5], RETRY, *lines[5:]])
    result = diagnose([str(job)], jobs=1)
    assert result.verdict.cls == "none", result.verdict.summary
    assert not [f for f in result.findings if f.id == "N401"]


def test_a_retry_the_process_never_got_past_is_a_network_error(tmp_path):
    job = _job(tmp_path, lambda lines: [*lines[:10], RETRY])     # the init started, then nothing
    result = diagnose([str(job)], jobs=1)
    assert result.verdict.cls != "none"
    assert [f for f in result.findings if f.id == "N401" and f.ranks == [1]], result.verdict.summary
