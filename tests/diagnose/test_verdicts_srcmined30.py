"""Verdicts on lines ncclf did not read, or read wrong, before catalogue round srcmined30: the fault-tolerance and
health layers of large training jobs, each message read in its source and put in a console written around it.

- nvidia-resiliency-ext's fault-tolerance rank monitor (0.1 - 0.7): one monitor per rank kills its rank when the
  heartbeats or the sections stop past their timeout, and names that rank in its logger's name (R202). Where every
  rank seen was killed so, the hang was shared and no monitor names a culprit (T601).
- Megatron-core's check of a rank's local grad norm before the data-parallel all-reduce (the assert, then the rerun
  state machine's `Rank N, node H, device D, iteration I: Unexpected result nan`): the rank whose own values went NaN
  is the culprit (X901).
"""
from __future__ import annotations

import pytest

from .consoles import check_case, console_verdict

_LAUNCH = "[2026-11-20 03:11:02,118] [INFO] [ft_launcher@node-07] [default] Starting worker group\n"
_FAILED = "[2026-11-20 04:12:56,402] [WARNING] [ft_launcher@node-07] [default] Worker group failed\n"


def _monitor(rank: int, words: str, new: bool = True) -> str:
    name = f"RankMonServer{7000 + rank}@node-07:{rank}] [Cycle 0" if new else f"RankMonitorServer:{rank}"
    return f"[2026-11-20 04:12:51,330] [WARNING] [{name}] {words}\n"


def _steps(ranks) -> str:
    return "".join(f"[rank{r}]: iteration 300 | loss 3.41\n" for r in ranks)


def _timed_out(ranks) -> str:
    """The other ranks' watchdogs, timed out in the all-reduce the monitored rank never reached."""
    return "".join(f"[rank{r}]:[E1120 04:02:51.101224 ProcessGroupNCCL.cpp:632] [Rank {r}] Watchdog caught collective "
                   "operation timeout: WorkNCCL(SeqNum=901, OpType=ALLREDUCE, NumelIn=1048576, NumelOut=1048576, "
                   "Timeout(ms)=600000) ran for 600037 milliseconds before timing out.\n" for r in ranks)


_SUBSEQUENT = "Did not get subsequent heartbeat. Waited 1800.00 seconds."
_TRACE = ('[rank{r}]: Traceback (most recent call last):\n[rank{r}]:   File "/workspace/megatron/core/distributed/'
          'param_and_grad_buffer.py", line 211, in check_grads\n[rank{r}]:     rerun_state_machine.validate_result(\n')
STUCK = ("stuck_rank",)
CASES = {
    "subsequent_heartbeat": (_LAUNCH + _monitor(12, _SUBSEQUENT) + _FAILED, STUCK, [12]),
    "initial_heartbeat": (_LAUNCH + _monitor(3, "Did not get initial heartbeat. Waited 600.00 seconds.") + _FAILED,
                          STUCK, [3]),
    "section_open": (_LAUNCH + _monitor(5, "Section 'step' has been open for 612.35 seconds. Timeout is 600.00 "
                                           "seconds.") + _FAILED, STUCK, [5]),
    "out_of_section": (_LAUNCH + _monitor(9, "Was out of section for 900.41 seconds. Timeout is 900.00 seconds.")
                       + _FAILED, STUCK, [9]),
    "first_releases_logger": (_LAUNCH + _monitor(21, _SUBSEQUENT, new=False) + _FAILED, STUCK, [21]),
    "one_of_four_ranks": (_LAUNCH + _steps(range(4)) + _timed_out((0, 1, 3)) + _monitor(2, _SUBSEQUENT) + _FAILED,
                          STUCK, [2]),
    "every_rank_shared_hang": (_LAUNCH + _steps(range(2)) + _monitor(0, _SUBSEQUENT) + _monitor(1, _SUBSEQUENT)
                               + _FAILED, ("timeout_unknown",), []),
    "megatron_assert": (_TRACE.format(r=13) + "[rank13]: AssertionError: Rank 13: found NaN in local grad norm in "
                        "backward pass before data-parallel communication collective. Device: 5, node: node-15-11",
                        ("unclassified_failure",), [13]),
    "megatron_rerun_state_machine": (
        _TRACE.format(r=6) + "[rank6]: RuntimeError: Rank 6, node gpu-node-11, device 6, iteration 412: Unexpected "
        "result nan (message='found NaN in local grad norm for bucket #0 in backward pass before data-parallel "
        "communication collective')", ("unclassified_failure",), [6]),
}


@pytest.mark.parametrize("name", CASES)
def test_verdict(name, tmp_path):
    check_case(tmp_path, CASES[name])


def test_the_monitor_that_fired_is_named_against_the_ranks_that_did_not(tmp_path):
    verdict = console_verdict(tmp_path, CASES["one_of_four_ranks"][0])
    assert "rank 2 stopped progressing" in verdict.summary and "did not time out" in verdict.summary, verdict.summary


def test_a_numerics_failure_of_the_whole_job_still_names_no_rank(tmp_path):
    # DeepSpeed's loss scale at its minimum: the run diverged, every rank alike
    text = _TRACE.format(r=0) + ("[rank0]: Exception: Current loss scale already at minimum - cannot decrease scale "
                                 "anymore. Exiting run.")
    verdict = console_verdict(tmp_path, text)
    assert verdict.cls == "unclassified_failure" and verdict.culprit_ranks == [], verdict.summary
