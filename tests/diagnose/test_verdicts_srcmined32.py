"""Verdicts on lines ncclf did not read, or read wrong, before catalogue round srcmined32: the training frameworks'
own cross-rank and per-rank checks, each message read in its source and put in a console written around it.

- Megatron-core's local grad norm check through the rerun state machine (`Rank N, node H, device D, iteration I:
  Unexpected result inf (message='found Inf in local grad norm ...')`, core 0.11+): Inf as well as NaN, and the rank
  the message names is its own even with no launcher prefix; its peers' watchdog timeouts follow from it (X901, not
  T601).
- DeepSpeed ZeRO-3's `Detected a disagreement on list length|contents between rank0 and rankN` (zero/utils.py): the
  ranks about to all-gather or reduce different parameters (C107); one rank alone is the odd one out.
- DeepSpeed's `The checkpoint being loaded used a DP world size of A but the current world size is B` (engine.py):
  a setting every rank meets alike, no rank's death (X901, no culprit).
"""
from __future__ import annotations

import pytest

from .consoles import check_case, console_verdict

_TRACE = ("{p}Traceback (most recent call last):\n"
          "{p}  File \"/opt/megatron/megatron/core/rerun_state_machine.py\", line 534, in validate_result\n"
          "{p}    raise RuntimeError(full_message)\n")
_RERUN = ("RuntimeError: Rank {r}, node dgx-b07, device 3, iteration 2201: Unexpected result {v} (message='found {w} "
          "in local grad norm for bucket #2 in backward pass before data-parallel communication collective')\n")
_WATCHDOG = ("[rank{r}]:[E302 10:24:04.112000 ProcessGroupNCCL.cpp:632] [Rank {r}] Watchdog caught collective "
             "operation timeout: WorkNCCL(SeqNum=24571, OpType=_REDUCE_SCATTER_BASE, NumelIn=268435456, "
             "NumelOut=33554432, Timeout(ms)=600000) ran for 600041 milliseconds before timing out.\n")
_ZERO = ("[rank{r}]: Traceback (most recent call last):\n"
         "[rank{r}]:   File \"/usr/lib/python3/deepspeed/runtime/zero/utils.py\", line 84, in "
         "assert_lst_len_same_as_other_ranks\n"
         "[rank{r}]:     raise RuntimeError(f\"Detected a disagreement on list length between rank0 and rank\"\n"
         "[rank{r}]: RuntimeError: Detected a disagreement on list {what} between rank0 and rank{r}: \n"
         "[rank{r}]:  rank0: 412 \n[rank{r}]:  rank{r}: 398\n")
MISMATCH = ("collective_skipped", "op_mismatch", "shape_mismatch")

CASES = {
    "megatron_inf_no_prefix_then_timeout": (_TRACE.format(p="") + _RERUN.format(r=6, v="inf", w="Inf")
                                            + _WATCHDOG.format(r=0), ("unclassified_failure",), [6]),
    "megatron_nan_no_prefix": (_TRACE.format(p="") + _RERUN.format(r=11, v="nan", w="NaN"),
                               ("unclassified_failure",), [11]),
    "zero3_one_rank_disagrees": (_ZERO.format(r=5, what="length"), MISMATCH, [5]),
    "zero3_contents_one_rank": (_ZERO.format(r=2, what="contents"), MISMATCH, [2]),
    # every rank but rank 0 disagrees: rank 0 may be the odd one, so no rank is named
    "zero3_many_ranks_disagree": (_ZERO.format(r=1, what="length") + _ZERO.format(r=2, what="length"), MISMATCH, []),
    "zero_checkpoint_dp_world_size": (
        "[rank0]: deepspeed.runtime.zero.utils.ZeRORuntimeException: The checkpoint being loaded used a DP world size "
        "of 4 but the current world size is 8. Automatic adjustment of ZeRO's optimizer state partitioning with a new "
        "world size is not currently supported.\n", ("unclassified_failure",), []),
}


@pytest.mark.parametrize("name", CASES)
def test_verdict(name, tmp_path):
    check_case(tmp_path, CASES[name])


def test_a_timeout_with_no_value_check_stays_unexplained(tmp_path):
    # Megatron's non-fatal warning through the same wrapper (large grads) is no failure: the timeout stays T601's
    text = ("[WARNING  | megatron.core.rerun_state_machine]: Rank 2, node node-a, device 2, iteration 40: Unexpected "
            "result 812.5 (message='found unexpected large grads in bucket #0 in backward pass before data-parallel "
            "communication collective')\n" + _WATCHDOG.format(r=0) + _WATCHDOG.format(r=1))
    verdict = console_verdict(tmp_path, text)
    assert verdict.cls == "timeout_unknown", verdict.summary


def test_the_value_check_is_said_before_the_timeouts(tmp_path):
    verdict = console_verdict(tmp_path, CASES["megatron_inf_no_prefix_then_timeout"][0])
    assert "found Inf in local grad norm" in verdict.summary, verdict.summary


@pytest.mark.parametrize("line, rank", [
    ("AssertionError: Rank 13: found NaN in local grad norm in backward pass before data-parallel communication "
     "collective. Device: 5, node: node-15-11", 13),                         # the assert before the rerun machine
    (_RERUN.format(r=6, v="inf", w="Inf"), 6),
    ("found NaN in local grad norm in backward pass before data-parallel communication collective", None),
])
def test_the_grad_norm_check_names_its_own_rank(line, rank):
    from nccl_forensics.sources import catalogue
    hits = [h for h in catalogue.match(line) if h.message.id == "megatron.nan_grad_norm"]
    assert hits and hits[0].fields.get("rank") == rank


def test_the_non_fatal_wrapper_is_no_grad_norm_failure():
    from nccl_forensics.sources import catalogue
    line = ("Rank 2, node n, device 2, iteration 40: Unexpected result 812.5 (message='found unexpected large grads "
            "in bucket #0 in backward pass before data-parallel communication collective')")
    assert not any(h.message.id.startswith(("megatron.", "deepspeed.")) for h in catalogue.match(line))
