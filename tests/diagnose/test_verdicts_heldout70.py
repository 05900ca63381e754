"""Held-out set 70: DDP reducer pastes (unused parameters, the model check at construction, torch 1.7's rebuilt
parameter indices assert). One verdict test per case, then what the set showed:

- DDP's check that every rank built the same model (reducer.cpp verify_params_across_processes: `DDP expects same
  model across all ranks` 1.11+, `params[N] in this process with sizes [..] appears not to match sizes|strides of the
  same param in process 0` 1.1+) sends no message: X801 now says the ranks built different models (and how to make
  them agree), not that a message of another size arrived.
- the reducer's bucket-rebuild INTERNAL ASSERT (`rebuilt parameter indices size is not same as original model
  parameters size`, reducer.cpp rebuild_buckets, 1.7+; torch 1.7.0 with mmcv's DDP wrapper in an eval hook, pytorch#47050)
  is the same on every rank: catalogue pytorch.ddp_rebuilt_indices_assert (usage/setup, unclassified_failure), where
  it read as a failure whose first cause was missing.
"""
from __future__ import annotations

import pytest

from nccl_forensics.sources.catalogue import match

from .consoles import PROGRESS, console_verdict

_UNUSED = ("RuntimeError: Expected to have finished reduction in the prior iteration before starting a new one. "
           "This error indicates that your module has parameters that were not used in producing loss.")

CASES = [
    ("open-mmlab/mmdetection#8626", ("collective_skipped",),
     "  File \"/opt/conda/lib/python3.8/site-packages/mmcv/parallel/distributed.py\", line 46, in train_step\n"
     "    and self.reducer._rebuild_buckets()):\n"
     f"{_UNUSED}\n"
     "Parameter indices which did not receive grad for rank 3: 444 445 446 447 448 449\n"),
    ("open-mmlab/mmdetection#2377", ("collective_skipped",),
     "    self.reducer.prepare_for_backward([])\n"
     "RuntimeError: Expected to have finished reduction in the prior iteration before starting a new one.\n"),
    ("pytorch/pytorch#70099", ("collective_skipped",),
     "> Parameter indices which did not receive grad for rank 7: 1360 1361 1362 1363\n"),
    ("open-mmlab/mmdetection#4157", ("unclassified_failure",),
     "RuntimeError: replicas_[0].size() == rebuilt_param_indices_.size() INTERNAL ASSERT FAILED at \"/opt/conda/"
     "conda-bld/pytorch_1603729138878/work/torch/csrc/distributed/c10d/reducer.cpp\":1326, please report a bug to "
     "PyTorch. rebuilt parameter indices size is not same as original model parameters size.177 versus 169389\n"),
    ("dongrunmin/RefDiff#2", ("shape_mismatch",),
     "RuntimeError: params[182] in this process with sizes [256, 256, 1, 1] appears not to match strides of the same "
     "param in process 0.\n"),
]


@pytest.mark.parametrize("issue,want,text", CASES, ids=[case[0] for case in CASES])
def test_each_case_of_the_set(issue, want, text, tmp_path):
    assert console_verdict(tmp_path, text, progress="").cls in want


@pytest.mark.parametrize("issue,want,text", CASES, ids=[case[0] for case in CASES])
def test_progress_before_the_failure_changes_nothing(issue, want, text, tmp_path):
    assert console_verdict(tmp_path, text, PROGRESS).cls in want


@pytest.mark.parametrize("line", [
    # 1.10+: the strides check prints the sizes; <= 1.9 `replicas[0][p]`; 1.11+ the count check before both
    "RuntimeError: [1]: params[0] in this process with sizes [96, 32] appears not to match sizes of the same param "
    "in process 0.",
    "RuntimeError: params[3] in this process with sizes [64, 3, 7, 7] appears not to match strides of the same param "
    "in process 0.",
    "RuntimeError: replicas[0][0] in this process with strides [1, 96] appears not to match strides of the same "
    "param in process 0.",
    "RuntimeError: DDP expects same model across all ranks, but Rank 0 has 120 params, while rank 1 has "
    "inconsistent 118 params.",
])
def test_the_ddp_model_check_says_the_models_differ(line, tmp_path):
    verdict = console_verdict(tmp_path, line)
    assert verdict.cls == "shape_mismatch"
    assert "built different models" in verdict.summary
    assert "another size than the one posted" not in verdict.summary


def test_a_truncated_message_still_says_the_sizes_differ(tmp_path):
    verdict = console_verdict(tmp_path, "node1:123:456 [0] NCCL WARN NET/Socket : peer 10.0.0.2<44817> message "
                              "truncated : receiving 8192 bytes instead of 4096")
    assert verdict.cls == "shape_mismatch"
    assert "built different models" not in verdict.summary


@pytest.mark.parametrize("line", [
    # 1.7: the two sizes glued to the sentence; 1.8+: named, params_ in place of replicas_[0] from 1.10
    "RuntimeError: replicas_[0].size() == rebuilt_param_indices_.size() INTERNAL ASSERT FAILED at \"/pytorch/torch/"
    "csrc/distributed/c10d/reducer.cpp\":1326, please report a bug to PyTorch. rebuilt parameter indices size is not "
    "same as original model parameters size.438 versus 70080",
    "RuntimeError: params_.size() == rebuilt_param_indices_.size() INTERNAL ASSERT FAILED at \"../torch/csrc/"
    "distributed/c10d/reducer.cpp\":1612, please report a bug to PyTorch. rebuilt parameter indices size is not same "
    "as original model parameters size.Original model param size is: 120 versus rebuilt params size of: 118",
])
def test_the_rebuilt_indices_assert_is_the_same_on_every_rank(line, tmp_path):
    assert [h for h in match(line) if h.message.id == "pytorch.ddp_rebuilt_indices_assert"]
    verdict = console_verdict(tmp_path, line)
    assert verdict.cls == "unclassified_failure" and verdict.culprit_ranks == []
    assert "every rank makes the same way" in verdict.summary


def test_near_miss_of_the_rebuilt_indices_assert():
    line = ("rebuilt parameter tensors size is not same as rebuilt parameter indices size: 3 versus 4")
    assert not [h for h in match(line) if h.message.id == "pytorch.ddp_rebuilt_indices_assert"]
