"""Held-out set 71: pastes that must not be over-claimed (nccl-tests runs pasted in part or whole, progress bars
that stop with no error, NCCL INFO graph-search lines). One verdict test per case, then what the set showed:

- An nccl-tests table whose last row is the paste's last line read as a hang at the next size (NVIDIA/nccl#1530: a
  bandwidth question, the run pasted up to its first row). A paste cut there and a run still going read the same,
  so the stop alone is no failure: it is a hang only where the console goes on after the table
  (sources/nccltests.py), else the verdict rests on the other evidence (here: inconclusive).
"""
from __future__ import annotations

import pytest

from .consoles import check_case

_RANKS = "".join(f"#  Rank  {r} Group  0 Pid  28307 on      gpu59 device  {r} [0x{16 + r:02x}] NVIDIA GeForce RTX 4090\n"
                 for r in range(8))
CASES = [
    ("NVIDIA/nccl#1530", ("inconclusive",),
     "NCCL_ALGO=TREE ./all_reduce_perf -g 8 -b 8 -e 128M -f 2\n"
     "# nThread 1 nGpus 8 minBytes 8 maxBytes 134217728 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 "
     "validation: 1 graph: 0\n#\n# Using devices\n" + _RANKS + "#\n"
     "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw "
     "#wrong\n"
     "           8             2     float     sum      -1    42.56    0.00    0.00      0\n"),
    ("kvcache-ai/Mooncake#3484", ("none", "inconclusive"),
     "  1073741824     268435456     float     sum      -1  5252.64  204.42  357.73       0  5234.83  205.12  358.95"
     "       0\n# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 102.829 \n#\n"
     "# Collective test concluded: all_reduce_perf\n#\n"),
    ("Lightning-AI/pytorch-lightning#5750", ("inconclusive",),
     "Epoch 54:  99%|█████████▉| 2918/2950 [1:01:31<00:40,  1.27s/it, loss=0.541, v_num=0]\n"
     "Validating:  97%|█████████▋| 274/282 [14:09<00:26,  3.33s/it]\n"
     "Epoch 54: 100%|██████████| 2950/2950 [1:03:38<00:00,  1.29s/it, loss=0.541, v_num=0]\n"),
    ("NVIDIA/nccl-tests#307", ("inconclusive",),
     "node031:1936469:1936513 [0] NCCL INFO Pattern 4, crossNic 0, nChannels 1, bw 5.000000/5.000000, type SYS/PIX, "
     "sameChannels 1\n"
     "node031:1936469:1936513 [0] NCCL INFO  0 : GPU/0 GPU/1 GPU/2 GPU/3 GPU/4 GPU/5 GPU/6 GPU/7\n"),
]


@pytest.mark.parametrize("case", [(c[2], c[1], None) for c in CASES], ids=[c[0] for c in CASES])
def test_case(case, tmp_path):
    check_case(tmp_path, case, progress="")
