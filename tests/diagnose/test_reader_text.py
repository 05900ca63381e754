"""What a user reads at 3 a.m.: the verdict's sentences end at a word, counts read as words, ranks in one line."""
from __future__ import annotations

from nccl_forensics.model import clip

from .consoles import PROGRESS, console_verdict

# a Python traceback's last line (PyTorch's DistBackendError, NCCL 2.28's revoked communicator): cut at a fixed
# length the summary ended "(run with NCCL_DEBUG=WARN for d; ..."
_LONG_NCCL_ERROR = """\
svc-1:771:771 [0] NCCL INFO NCCL version 2.28.3+cuda12.9
svc-1:771:771 [0] NCCL INFO ncclCommRevoke comm 0x55f0 rank 0 nRanks 4
svc-1:771:771 [0] enqueue.cc:2625 NCCL WARN AllReduce: communicator was revoked
[rank0]: Traceback (most recent call last):
[rank0]:   File "/workspace/train.py", line 141, in <module>
[rank0]:     dist.all_reduce(t)
[rank0]: torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:3356, \
invalid usage (run with NCCL_DEBUG=WARN for details), NCCL version 2.28.3
[rank0]: ncclInvalidUsage: This usually reflects invalid usage of NCCL library.
[rank0]: Last error:
[rank0]: AllReduce: communicator was revoked"""


def test_clip_ends_at_a_word_and_shows_the_cut():
    text = "invalid usage (run with NCCL_DEBUG=WARN for details)"
    assert clip(text, 100) == text
    assert clip(text, 44) == "invalid usage (run with NCCL_DEBUG=WARN…"
    assert clip("x" * 50, 10) == "x" * 9 + "…"          # no space to end at: cut, still marked


def test_a_quoted_error_in_the_summary_is_not_cut_mid_word(tmp_path):
    verdict = console_verdict(tmp_path, _LONG_NCCL_ERROR, PROGRESS)
    assert "WARN for d;" not in verdict.summary
    assert "NCCL_DEBUG=WARN for…;" in verdict.summary

