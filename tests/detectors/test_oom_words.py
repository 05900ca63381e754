"""M301's sentences say only what the lines said: a kill line cut before its pid or cgroup, an NCCL CUDA failure
printed without its WARN prefix, never put "None" where a value was missing."""
from __future__ import annotations

import pytest


@pytest.mark.parametrize("text,said", [
    ("[17798674.377396] oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=38e6fab2,mems_allowed=0-7,o\n",
     "a process (its pid was cut from the line) was killed by the kernel OOM killer (its cgroup's limit)"),
    ("Last error:\nCuda failure 2 'out of memory'\n", "ran out of GPU memory inside NCCL: "),
])
def test_a_value_the_line_lacks_is_not_printed_as_none(diagnose_text, text, said):
    d = diagnose_text(text)
    assert d.verdict.cls == "oom", d.verdict.summary
    assert said in d.verdict.summary and "None" not in d.verdict.summary, d.verdict.summary


_CUDA_OOM = ("torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 58.00 MiB (GPU 0; 14.62 GiB total "
             "capacity; 13.24 GiB already allocated; 34.00 MiB free; 13.53 GiB reserved in total by PyTorch)\n")
_FAILED = ("ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: {rank} (pid: 39{rank}1)"
           " of binary: /usr/bin/python3\n")


def test_an_unranked_oom_names_the_only_rank_that_failed(diagnose_text):
    """torchrun names the one worker that exited with a failure; the traceback names no rank: that worker ran out."""
    d = diagnose_text(_CUDA_OOM + _FAILED.format(rank=2))
    assert d.verdict.cls == "oom", d.verdict.summary
    assert d.verdict.culprit_ranks == [2], d.verdict.summary
    assert "only rank that exited with a failure" in d.verdict.summary


def test_an_unranked_oom_names_no_rank_when_several_failed(diagnose_text):
    d = diagnose_text(_CUDA_OOM + _FAILED.format(rank=2) + _FAILED.format(rank=3))
    assert d.verdict.cls == "oom", d.verdict.summary
    assert d.verdict.culprit_ranks == [], d.verdict.summary


def test_two_unranked_ooms_are_not_both_given_the_one_failed_rank(diagnose_text):
    d = diagnose_text(_CUDA_OOM + _CUDA_OOM.replace("GPU 0", "GPU 1") + _FAILED.format(rank=2))
    assert d.verdict.cls == "oom", d.verdict.summary
    assert "only rank that exited with a failure" not in d.verdict.summary
