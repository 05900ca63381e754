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
