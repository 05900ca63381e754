"""Held-out set 48: pre-training stacks on many ranks (nanotron, Megatron-LM, Megatron-DeepSpeed, GPT-NeoX on ROCm,
torchtitan): a watchdog timeout while one rank still preprocesses data, a bare SIGABRT exit, an OOM building the
attention mask, device faults on many GPUs, a checkpoint save caught in `scatter` by a faulthandler dump, and a
healthy run. One verdict test per case, then what the set showed:

- faulthandler separates thread blocks with a blank line (CPython's `_Py_DumpTracebackThreads`), and torchrun's
  `[rank0]:` prefix with no space after it leaves a frame one indent space short once the reader strips the
  optional space: both belong to the dump, so one dump holds every thread and its last (the main) one is read.
- A dump with no `Fatal Python error` or `Timeout` header is a stack snapshot: where a rank stood, not how it ended,
  so it is no unexplained failure by itself.
"""
from __future__ import annotations

import pytest

from .consoles import PROGRESS, check_case, console_verdict

_TENSORBOARD_THREAD = "".join(
    f'[rank0]:  File "/home/u/env/lib/python3.11/{path}", line {line} in {func}\n'
    for path, line, func in (("threading.py", 324, "wait"), ("queue.py", 180, "get"),
                             ("site-packages/tensorboard/summary/writer/event_file_writer.py", 269, "_run"),
                             ("threading.py", 995, "_bootstrap")))
_SCATTER_DUMP = ("[rank0]:Thread 0x00007f07a6ffd640 (most recent call first):\n" + _TENSORBOARD_THREAD + "[rank0]:\n"
                 "[rank0]:Thread 0x00007f13c65f5400 (most recent call first):\n"
                 '[rank0]:  File "/home/u/env/lib/python3.11/site-packages/torch/distributed/distributed_c10d.py", '
                 "line 3230 in scatter\n")

CASES = [
    ("huggingface/nanotron#204", ("straggler", "timeout_unknown", "stuck_rank"), None,
     "[default0]:Grouping texts in chunks of 2049:   8%|▊         | 726000/9672101 [02:32<30:38, 4866.01 examples/s]"
     "[default2]:[E ProcessGroupNCCL.cpp:475] [Rank 2] Watchdog caught \n"
     "collective operation timeout: WorkNCCL(SeqNum=3, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) "
     "ran for 600888 milliseconds before timing out.\n"
     "[default3]:[E ProcessGroupNCCL.cpp:475] [Rank 3] Watchdog caught collective operation timeout: "
     "WorkNCCL(SeqNum=3, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) \n"
     "ran for 600892 milliseconds before timing out.\n"),
    ("bigscience-workshop/Megatron-DeepSpeed#384", ("oom",), None,
     "attention_mask = torch.tril(torch.ones(\n"
     "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 37631.79 GiB (GPU 3; 79.21 GiB total "
     "capacity; 50.52 GiB already allocated; 24.67 GiB free; 52.32 GiB reserved in total by PyTorch) If reserved "
     "memory is >> allocated memory try setting max_split_size_mb to avoid fragmentation.\n"
     "pt-0de9jsbu-master-0:39:39 [5] NCCL INFO comm 0x559e7ce3f680 rank 0 nranks 2 cudaDev 5 busId ad000 - Abort "
     "COMPLETE\n"),
    ("NVIDIA/Megatron-LM#1525", ("dropped_rank", "unclassified_failure"), None,
     "E0410 10:47:58.118000 55867 torch/distributed/elastic/multiprocessing/api.py:870] failed (exitcode: -6) "
     "local_rank: 0 (pid: 56003) of binary: /usr/bin/python\n"
     "Traceback (most recent call last):\n"
     '  File "/usr/local/lib/python3.12/dist-packages/torch/distributed/launcher/api.py", line 270, in launch_agent\n'
     "    raise ChildFailedError(\n"
     "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n"),
    ("EleutherAI/gpt-neox#1310", ("dropped_rank", "unclassified_failure"), None,
     "GPU core dump failed\n"
     + "".join(f"Memory access fault by GPU node-{n} (Agent handle: 0x7d5{n}990) on address 0x14a1cfe01000. Reason: "
               "Unknown.\n" for n in (9, 6, 11, 8))),
    ("pytorch/torchtitan#168", ("stuck_rank", "timeout_unknown", "inconclusive"), None, _SCATTER_DUMP),
    ("pytorch/torchtitan#3393", ("none", "inconclusive"), None,
     "".join(f"[rank0]:[titan] 2026-05-18 16:04:{46 + s - 14},338 - root - INFO - step: {s}  loss:  3.1  grad_norm:  "
             "0.83  memory:  9.46GiB(64.99%)  tps: 7,282  tflops: 0.52  mfu: 0.17%\n" for s in range(14, 22))),
]


@pytest.mark.parametrize("issue,want,culprits,text", CASES, ids=[case[0] for case in CASES])
def test_each_case_of_the_set(issue, want, culprits, text, tmp_path):
    check_case(tmp_path, (text, want, culprits), progress="")


def test_a_rank_prefixed_dump_keeps_its_threads_together_and_reads_the_main_one(tmp_path):
    verdict = console_verdict(tmp_path, _SCATTER_DUMP, progress=PROGRESS)
    assert verdict.cls != "unclassified_failure", verdict.summary


def test_a_fatal_dump_still_ends_its_rank(tmp_path):
    text = "Fatal Python error: Segmentation fault\n\n" + _SCATTER_DUMP.replace("[rank0]:", "")
    verdict = console_verdict(tmp_path, text, progress=PROGRESS)
    assert verdict.cls in ("dropped_rank", "unclassified_failure"), verdict.summary
