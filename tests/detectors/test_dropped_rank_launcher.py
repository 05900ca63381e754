"""R201 from torchrun's agent lines: a local rank killed or exiting first, mapped to its rank on one node."""
from __future__ import annotations

KILLED = ("W0101 10:00:00.000 1 torch/distributed/elastic/multiprocessing/api.py:897] Sending process 4102 closing "
          "signal SIGTERM\n"
          "E0101 10:00:01.000 1 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: -9) "
          "local_rank: 0 (pid: 4101) of binary: /usr/bin/python\n")


def test_a_sigkilled_local_rank_on_one_node_is_the_dropped_rank(diagnose_text):
    d = diagnose_text(KILLED)
    assert d.verdict.cls == "dropped_rank" and d.verdict.culprit_ranks == [0]
    assert "SIGKILL" in d.verdict.summary


def test_a_rank_that_exits_while_torchrun_ends_the_others_failed_first(diagnose_text):
    text = ("[rank4]: For debugging consider passing CUDA_LAUNCH_BLOCKING=1\n"
            + "".join(f"W0101 10:00:00.000 1 torch/distributed/elastic/multiprocessing/api.py:897] Sending process "
                      f"{pid} closing signal SIGTERM\n" for pid in (11, 12, 13))
            + "E0101 10:00:09.000 1 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) "
              "local_rank: 4 (pid: 15) of binary: /usr/bin/python\n")
    d = diagnose_text(text)
    assert d.verdict.cls == "dropped_rank" and d.verdict.culprit_ranks == [4]


def test_local_ranks_stay_local_when_the_evidence_shows_two_nodes(diagnose_text):
    table = ("Failures:\n[1]:\n  time      : 2026-01-01_10:00:00\n  host      : node2\n  rank      : 9 (local_rank: 1)\n"
             "  exitcode  : -15 (pid: 77)\n  error_file: <N/A>\n  traceback : Signal 15 (SIGTERM) received by PID 77\n")
    d = diagnose_text(KILLED + table)
    assert 0 not in d.verdict.culprit_ranks          # local rank 0 of an unknown node is not global rank 0


def test_a_traceback_cut_before_its_exception_is_no_exception(diagnose_text):
    text = ('[rank7]: Traceback (most recent call last):\n[rank7]:   File "train.py", line 225, in <module>\n'
            "[rank7]:     trainer.train()\n")
    d = diagnose_text(text)
    assert d.verdict.cls != "dropped_rank"
