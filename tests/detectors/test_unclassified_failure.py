"""X901: a visible failure that no other detector names is reported, never "no failure found"."""
from __future__ import annotations

SIGTERM_TABLE = """torch.distributed.elastic.multiprocessing.errors.ChildFailedError:
============================================================
train.py FAILED
------------------------------------------------------------
Failures:
[1]:
  time      : 2026-04-09_13:34:15
  host      : node7
  rank      : 1 (local_rank: 1)
  exitcode  : -15 (pid: 1561536)
  error_file: <N/A>
  traceback : Signal 15 (SIGTERM) received by PID 1561536
[2]:
  time      : 2026-04-09_13:34:15
  host      : node7
  rank      : 2 (local_rank: 2)
  exitcode  : -15 (pid: 1561537)
  error_file: <N/A>
  traceback : Signal 15 (SIGTERM) received by PID 1561537
"""


def test_only_consequences_in_the_evidence_gives_the_fallback_class(diagnose_text):
    d = diagnose_text(SIGTERM_TABLE)
    assert d.verdict.cls == "unclassified_failure" and d.verdict.culprit_ranks == []
    assert "the first failure is not in the evidence" in d.verdict.summary
    assert d.verdict.primary.evidence


def test_a_sigabrt_with_nothing_else(diagnose_text):
    line = ("E1026 04:09:30.101000 2904014 site-packages/torch/distributed/elastic/multiprocessing/api.py:882] failed "
            "(exitcode: -6) local_rank: 0 (pid: 2904068) of binary: /usr/bin/python\n")
    d = diagnose_text(line)
    assert d.verdict.cls == "unclassified_failure" and "SIGABRT" in d.verdict.summary


def test_the_fallback_is_not_reported_beside_a_specific_class(diagnose_text):
    text = SIGTERM_TABLE.replace("exitcode  : -15 (pid: 1561537)", "exitcode  : -9 (pid: 1561537)").replace(
        "Signal 15 (SIGTERM) received by PID 1561537", "Signal 9 (SIGKILL) received by PID 1561537")
    d = diagnose_text(text)
    assert d.verdict.cls == "dropped_rank" and d.verdict.culprit_ranks == [2]
    assert "X901" not in {f.id for f in d.findings}


def test_a_healthy_log_gives_no_fallback(diagnose_text):
    assert diagnose_text("step 10 loss 2.31\nstep 11 loss 2.30\n").verdict.cls in ("none", "inconclusive")
