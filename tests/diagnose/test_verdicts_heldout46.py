"""Held-out set 46: fine-tuning stacks run on several GPUs (LLaMA-Factory, axolotl, TRL, ms-swift, SimpleTuner,
Mantis, a Qwen-VL finetune, llama-cookbook, torchtune, DeepSpeed, F5-TTS's accelerate run): watchdog timeouts with no
cause shown, ranks that reduced or broadcast tensors of different sizes at one sequence number, a rank lost to a
signal, a CUDA OOM, NCCL finding no interface, a hang at init and a healthy run. One verdict test per case, then what
the set showed:

- A rank the agent reports dead of SIGABRT (-6) is not named the culprit: the watchdog aborts a rank after a
  collective error or timeout, so the aborting rank may be waiting on a peer; SIGBUS (-7) and SIGKILL (-9) name it.
- Two ranks at one sequence number with different element counts read as a shape mismatch whether the op is an
  all-reduce (the MoE case) or a broadcast (a rank already further on does not hide it).
"""
from __future__ import annotations

import pytest

from .consoles import PROGRESS, check_case, console_verdict

_WATCHDOG = ("[rank{r}]:[E{stamp}] ProcessGroupNCCL.cpp:{line}] [Rank {r}] Watchdog caught collective operation "
             "timeout: WorkNCCL(SeqNum={seq}, OpType={op}, NumelIn={n}, NumelOut={n}, Timeout(ms)={ms}) ran for "
             "{ran} milliseconds before timing out.\n")
_SIGTERMS = "".join(f"W0715 08:53:40.704000 1272387 torch/distributed/elastic/multiprocessing/api.py:851] Sending "
                    f"process {pid} closing signal SIGTERM\n" for pid in (6955, 6956, 6958))


def _failed(code: int, local_rank: int, pid: int) -> str:
    return (f"E0715 08:53:42.146000 1272387 torch/distributed/elastic/multiprocessing/api.py:826] failed (exitcode: "
            f"{code}) local_rank: {local_rank} (pid: {pid}) of binary: /workspace/envs/train/bin/python\n")


CASES = [
    ("hiyouga/LlamaFactory#5450", ("timeout_unknown",), None,
     "[rank1]:[E916 17:44:14.562376704 ProcessGroupNCCL.cpp:1515] [PG 1 Rank 1] Process group watchdog thread "
     "terminated with exception: [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=616, "
     "OpType=ALLREDUCE, NumelIn=17891328, NumelOut=17891328, Timeout(ms)=600000) ran for 600079 milliseconds before "
     "timing out.\n"),
    ("axolotl-ai-cloud/axolotl#891", ("dropped_rank", "oom"), [2],
     "".join(f"WARNING:torch.distributed.elastic.multiprocessing.api:Sending process {pid} closing signal SIGTERM\n"
             for pid in (92, 93, 95, 96, 97, 98, 99))
     + "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -7) local_rank: 2 (pid: 94) of binary: "
       "/root/miniconda3/envs/py3.10/bin/python3\n"),
    ("axolotl-ai-cloud/axolotl#2267", ("timeout_unknown", "stuck_rank"), None,
     "E114 16:14:58.306997582 ProcessGroupNCCL.cpp:1834] [PG ID 0 PG GUID 0(default_pg) Rank 1] Timeout at NCCL "
     "work: 1, last enqueued NCCL work: 1, last completed NCCL work: -1.\n"
     "E114 16:14:58.307026389 ProcessGroupNCCL.cpp:630] [Rank 1] Some NCCL operations have failed or timed out.\n"),
    ("axolotl-ai-cloud/axolotl#1495", ("shape_mismatch",), None,
     "".join(f"[E ProcessGroupNCCL.cpp:475] [Rank {r}] Watchdog caught collective operation timeout: "
             f"WorkNCCL(SeqNum=13807, OpType=ALLREDUCE, NumelIn={n}, NumelOut={n}, Timeout(ms)=1800000) ran for "
             f"1800221 milliseconds before timing out.\n"
             for r, n in ((1, 11274112), (6, 11274112), (5, 11274112), (7, 10942336)))),
    ("modelscope/ms-swift#10183", ("shape_mismatch", "collective_skipped"), None,
     _WATCHDOG.format(r=3, stamp="918 19:29:24.436955737", line=689, seq=7219, op="BROADCAST", n=64, ms=3000000,
                      ran=3000097)
     + _WATCHDOG.format(r=2, stamp="918 19:29:25.950601628", line=689, seq=7219, op="BROADCAST", n=24084544,
                        ms=3000000, ran=3000074)
     + _WATCHDOG.format(r=0, stamp="918 19:29:44.897601903", line=689, seq=7221, op="ALLREDUCE", n=593920,
                        ms=3000000, ran=3000012)),
    ("bghira/SimpleTuner#1219", ("nic_misselection", "network_error"), None,
     "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:2251, "
     "internal error - please report this issue to the NCCL developers, NCCL version 2.21.5\n"
     "ncclInternalError: Internal check failed.\nLast error:\nBootstrap : no socket interface found\n"),
    ("huggingface/trl#3172", ("oom",), None,
     "torch.OutOfMemoryError:\nCUDA out of memory. Tried to allocate 130.00 MiB. GPU 0 has a total capacity of 79.10 "
     "GiB of which 12.81 MiB is free. Process 3427 has 0 bytes memory in use. Of the allocated memory 10.47 GiB is "
     "allocated by PyTorch, and 93.52 MiB is reserved by PyTorch but unallocated.\n"),
    ("TIGER-AI-Lab/Mantis#11", ("dropped_rank", "oom"), [2],
     "".join(f"e7497f3c073c:{pid}:9750 [{r}] NCCL INFO comm 0x75ebdb2446d0 rank {r} nranks 4 cudaDev {r} nvmlDev {r} "
             f"busId {r + 3}000 commId 0x273b00670b73d30e - Init COMPLETE\n"
             for r, pid in ((1, 6956), (3, 6958), (0, 6955), (2, 6957)))
     + _SIGTERMS + _failed(-9, 2, 6957)),
    ("2U1/Qwen-VL-Series-Finetune#243", ("timeout_unknown",), None,
     "".join(_WATCHDOG.format(r=r, stamp="217 21:41:15.510799683", line=685, seq=81220, op="ALLGATHER", n=1,
                              ms=1800000, ran=1800019).replace("NumelOut=1", "NumelOut=8") for r in (6, 7))),
    ("meta-llama/llama-cookbook#920", ("timeout_unknown",), None,
     "[rank0]:[E419 18:14:51.952620177 ProcessGroupNCCL.cpp:1834] [PG ID 0 PG GUID 0(default_pg) Rank 0] Timeout at "
     "NCCL work: 5, last enqueued NCCL work: 6, last completed NCCL work: 4.\n"),
    ("meta-pytorch/torchtune#2620", ("none", "inconclusive"), None,
     "".join(f"[trainer0|0]:1|{s}|Loss: 0.9{s}:  {s}%|████████▎ | {s + 1}/101 [22:38<04:33, 16.06s/it]\n"
             for s in range(83, 90))),
    ("RLHFlow/Online-RLHF#11", ("inconclusive", "stuck_rank"), None,
     "[2024-06-11 00:23:36,254] [INFO] [comm.py:637:init_distributed] cdb=None\n"
     "[2024-06-11 00:23:36,254] [INFO] [comm.py:668:init_distributed] Initializing TorchBackend in DeepSpeed with "
     "backend nccl\n[2024-06-11 00:23:36,296] [INFO] [comm.py:637:init_distributed] cdb=None\n"),
    ("SWivid/F5-TTS#728", ("dropped_rank", "unclassified_failure"), None,
     _SIGTERMS + _failed(-6, 1, 28773)),
]


@pytest.mark.parametrize("issue,want,culprits,text", CASES, ids=[case[0] for case in CASES])
def test_each_case_of_the_set(issue, want, culprits, text, tmp_path):
    check_case(tmp_path, (text, want, culprits), progress="")


# ---- which signal names the rank the agent reports: an abort may be the watchdog's, a bus error or a kill is not
@pytest.mark.parametrize("code,named", [(-6, False), (-7, True), (-9, True)])
def test_only_an_abort_leaves_the_reported_rank_unnamed(code, named, tmp_path):
    verdict = console_verdict(tmp_path, _SIGTERMS + _failed(code, 2, 6957), progress=PROGRESS)
    assert verdict.cls in ("dropped_rank", "unclassified_failure"), verdict.summary
    assert (verdict.culprit_ranks == [2]) is named, verdict.summary


# ---- one sequence number, two element counts: a broadcast reads as an all-reduce does
@pytest.mark.parametrize("op", ["ALLREDUCE", "BROADCAST"])
def test_two_element_counts_at_one_sequence_number_are_a_shape_mismatch(op, tmp_path):
    text = "".join(_WATCHDOG.format(r=r, stamp="918 19:29:24.436955737", line=689, seq=77, op=op, n=n, ms=600000,
                                    ran=600017) for r, n in ((0, 4096), (1, 4096), (2, 64)))
    verdict = console_verdict(tmp_path, text, progress=PROGRESS)
    assert verdict.cls == "shape_mismatch", verdict.summary
