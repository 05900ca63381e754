"""Held-out set 44: vLLM, SGLang and TensorRT-LLM start-up failures (symmetric memory, CUDA graph capture, pynccl
init, device mapping), NeMo 2.x, torchtune, ColossalAI and torchtitan runs (healthy step logs among them), torch
2.6's watchdog wording and NCCL socket/IB warnings. One verdict test per case, then what the set showed:

- vLLM's parallel config refuses more ranks (TP x PP) than the node's GPUs before any worker starts: `Tensor parallel
  size (N) cannot be larger than the number of available GPUs (M)` (0.11 - 0.12, under pydantic's `Value error, `),
  `World size (N) is larger than the number of available GPUs (M) in this node` after (vllm/config/parallel.py). It
  was read as no failure; it is a launch setting (the second node's GPUs never joined).
- TensorRT-LLM's CUDA check (cudaUtils.h `check`: `[TensorRT-LLM][ERROR] CUDA runtime error in <call>: <text>`, and
  TllmException's ` (<file>:<line>)`) was not read: the runtime's text now classifies as torch's `CUDA error:` does
  (`invalid device ordinal`: a launch that gave a rank no GPU), out of memory as out of memory.
- SGLang's `TP rank N could finish the model loading, but there are other ranks that didn't finish loading` is a gloo
  monitored_barrier over the TP group that timed out (model_runner.load_model), re-raised without the ranks: the TP
  rank that raises it is the one that loaded, never the culprit.
"""
from __future__ import annotations

import pytest

from .consoles import PROGRESS, check_case, console_verdict

_VLLM = "ERROR 12-08 20:46:56 [multiproc_executor.py:597] "
_TITAN = "[rank0]:[titan] 2025-06-16 22:4{m}:{s},024 - root - INFO - step: {n}  loss:  4.6{n}  memory: 49.66GiB(52.28%)  " \
         "tps: 5,855  tflops: 339.06  mfu: 34.28%\n"
_SIGTERM = "W0219 09:17:03.837000 140066961602368 torch/distributed/elastic/multiprocessing/api.py:858] Sending process " \
           "{pid} closing signal SIGTERM\n"

CASES = [
    ("NVIDIA-NeMo/Skills#1059", ("unclassified_failure", "dropped_rank"), None,
     "Value error, Tensor parallel size (16) cannot be larger than the number of available GPUs (8)\n"),
    ("NVIDIA-NeMo/Speech#13996", ("unclassified_failure", "network_error"), None,
     "distributed_backend=nccl\nAll distributed processes registered. Starting with 32 processes\n"
     "graph/topo.h:230 NCCL WARN Could not find NET with id 0\n"),
    ("NVIDIA/TensorRT-LLM#1667", ("unclassified_failure",), None,
     "[TensorRT-LLM][ERROR] CUDA runtime error in cudaDeviceCanAccessPeer(&canAccessPeer, firstDeviceId, "
     "secondDeviceId): invalid device ordinal (/home/jenkins/agent/workspace/LLM/main/L0_PostMerge/tensorrt_llm/cpp/"
     "tensorrt_llm/plugins/ncclPlugin/allreducePlugin.cpp:341)\n"),
    ("NVIDIA/nccl-tests#217", ("network_error", "nic_misselection"), None,
     "NAME :70918:70918 [0] NCCL INFO Bootstrap : Using lo:127.0.0.1<0>\nNCCL version 2.21.5+cuda12.4\n"
     "NAME :70918:70928 [0] NCCL INFO NET/Socket : Using [0]lo:127.0.0.1<0>\n"
     "NAME :70918:70928 [0] NCCL INFO Using network Socket\n"
     "NAME :70918:70927 [0] misc/socket.cc:50 NCCL WARN socketProgress: Connection closed by remote peer "
     "localhost<56086>\nNAME :70918:70927 [0] NCCL INFO misc/socket.cc:752 -> 6\n"),
    ("NVIDIA/nccl#733", ("network_error",), None,
     "task-646--1-mhpnk:91:123 [0] transport/net_ib.cc:881 NCCL WARN NET/IB : Got completion from peer "
     "172.17.127.143<49577> with error 12, opcode 1, len 0, vendor err 129\n"),
    ("SystemPanic/vllm-windows#5", ("unclassified_failure", "dropped_rank"), None,
     "ERROR 03-25 12:23:00 [engine.py:448]     super().capture_end()\n"
     "ERROR 03-25 12:23:00 [engine.py:448] RuntimeError: CUDA error: operation failed due to a previous error during "
     "capture\nERROR 03-25 12:23:00 [engine.py:448] For debugging consider passing CUDA_LAUNCH_BLOCKING=1\n"
     "ERROR 03-25 12:23:01 [multiproc_worker_utils.py:120] Worker VllmWorkerProcess pid 25756 died, exit code: -15\n"),
    ("akash-network/awesome-akash#543", ("unclassified_failure", "network_error"), None,
     "[vllm]: (VllmWorkerProcess pid=91) ERROR 07-28 23:29:37 multiproc_worker_utils.py:226] RuntimeError: NCCL "
     "error: unhandled system error (run with NCCL_DEBUG=INFO for details)\n"
     "[vllm]: ERROR 07-28 23:29:37 multiproc_worker_utils.py:120] Worker VllmWorkerProcess pid 87 died, exit code: "
     "-15\n"),
    ("hpcaitech/ColossalAI#6202", ("dropped_rank", "unclassified_failure"), None,
     "[rank0]:[W219 09:17:03.293812312 ProcessGroupNCCL.cpp:1168] Warning: WARNING: process group has NOT been "
     "destroyed before we destruct ProcessGroupNCCL. On normal program exit, the application should call "
     "destroy_process_group to ensure that any pending NCCL operations have finished in this process. (function "
     "operator())\n" + "".join(_SIGTERM.format(pid=p) for p in (2448006, 2448007, 2448009, 2448010))),
    ("meta-pytorch/torchtune#2093", ("timeout_unknown", "stuck_rank", "collective_skipped"), None,
     "[rank0]:[E227 23:07:54.322446753 ProcessGroupNCCL.cpp:629] [Rank 0] Watchdog caught collective operation "
     "timeout: WorkNCCL(SeqNum=619725, OpType=_ALLGATHER_BASE, NumelIn=54528000, NumelOut=218112000, "
     "Timeout(ms)=1800000) ran for 1800034 milliseconds before timing out.\n"
     "[rank0]:[E227 23:07:54.322713545 ProcessGroupNCCL.cpp:2168] [PG ID 0 PG GUID 0(default_pg) Rank 0]  failure "
     "detected by watchdog at work sequence id: 619725 PG status: last enqueued work: 619732, last completed work: "
     "619724\n[rank3]:[E227 23:07:54.323599416 ProcessGroupNCCL.cpp:629] [Rank 3] Watchdog caught collective "
     "operation timeout: WorkNCCL(SeqNum=619727, OpType=_REDUCE_SCATTER_BASE, NumelIn=4096, NumelOut=1024, "
     "Timeout(ms)=1800000) ran for 1800060 milliseconds before timing out.\n"
     "[rank3]:[E227 23:07:54.323727781 ProcessGroupNCCL.cpp:2168] [PG ID 0 PG GUID 0(default_pg) Rank 3]  failure "
     "detected by watchdog at work sequence id: 619727 PG status: last enqueued work: 619730, last completed work: "
     "619726\n"),
    ("pytorch/pytorch#159200", ("unclassified_failure",), None,
     '[rank0]:   File "/usr/local/lib/python3.10/dist-packages/torch/distributed/distributed_c10d.py", line 4844, in '
     'split_group\n[rank0]:     assert parent_backend_str.upper() in Backend._plugins, f"Unknown c10d backend type '
     '{parent_backend_str.upper()}"\n[rank0]: AssertionError: Unknown c10d backend type CUDA:NCCL\n'),
    ("pytorch/torchtitan#1287", ("none", "inconclusive"), None,
     "[rank0]:[titan] 2025-06-16 22:44:55,024 - root - INFO - [GC] Peforming periodical GC collection. 0.06 seconds.\n"
     + "".join(_TITAN.format(m=4 + i // 6, s=10 + i, n=80 + i) for i in range(4))),
    ("pytorch/torchtitan#1924", ("none", "inconclusive"), None,
     "[rank0]:[titan] 2025-10-21 11:50:24,918 - root - INFO - step:  1  loss:  8.2808  grad_norm:  1.4344  memory:  "
     "0.60GiB(0.63%)  tps: 884  tflops: 0.06  mfu: 0.01%\n[rank0]:[titan] 2025-10-21 11:50:24,918 - root - INFO - "
     "Synchronizing and adjusting timeout for all ProcessGroups to 0:01:40\n[rank0]:[titan] 2025-10-21 11:50:25,010 - "
     "root - INFO - step:  2  loss:  7.9722  grad_norm:  1.5075  memory:  0.65GiB(0.68%)  tps: 89,241  tflops: 6.39  "
     "mfu: 0.65%\n"),
    ("sgl-project/sglang#5602", ("dropped_rank", "unclassified_failure", "timeout_unknown", "stuck_rank"), None,
     '  File "/data/sglang/python/sglang/srt/model_executor/model_runner.py", line 484, in load_model\n'
     "raise ValueError(\nValueError: TP rank 1 could finish the model loading, but there are other ranks that didn't "
     "finish loading. It is likely due to unexpected failures (e.g. OOM) or a slow node.\n\n"
     "[2025-04-21 13:37:45] Received sigquit from a child process. It usually means the child failed.\n"),
    ("vllm-project/vllm-omni#241", ("unclassified_failure",), None,
     _VLLM + "    return _SymmetricMemory.rendezvous(tensor, group_name)\n"
     + _VLLM + "RuntimeError: CUDA driver error: system not yet initialized\n"
     "INFO 12-08 20:46:56 [multiproc_executor.py:558] Parent process exited, terminating worker\n"),
    ("vllm-project/vllm#7896", ("unclassified_failure",), None,
     "(RayWorkerWrapper pid=11305) ERROR 08-27 05:12:18 worker_base.py:382] RuntimeError: NCCL error: unhandled cuda "
     "error (run with NCCL_DEBUG=INFO for details)\n(RayWorkerWrapper pid=11934) ERROR 08-27 05:12:18 "
     "worker_base.py:382] Error executing method init_device. This might cause deadlock in distributed execution. "
     "[repeated 6x across cluster]\n"),
    ("NVIDIA/nccl-tests#162", ("nic_misselection", "network_error"), None,
     "#  Rank  0 Group  0 Pid  47853 on    beijing device  0 [0x1a] NVIDIA Tesla V100-PCIE-32GB\n"
     "#  Rank  1 Group  0 Pid  47853 on    beijing device  1 [0x1b] NVIDIA Tesla V100-PCIE-32GB\n"
     "beijing:47853:47853 [0] NCCL INFO Bootstrap : Using eno1:avahi:xxx.xxx.xxx.xxx<0>\n"
     "misc/socket.cc:483 NCCL WARN socketStartConnect: Connect to xxx failed : Software caused connection abort\n"),
]


@pytest.mark.parametrize("issue,want,culprits,text", CASES, ids=[case[0] for case in CASES])
def test_each_case_of_the_set(issue, want, culprits, text, tmp_path):
    check_case(tmp_path, (text, want, culprits), progress="")


# ---- vLLM's parallel config: more ranks than the node's GPUs, in each wording
@pytest.mark.parametrize("line", [
    "pydantic_core._pydantic_core.ValidationError: 1 validation error for ParallelConfig\n  Value error, Tensor "
    "parallel size (2) cannot be larger than the number of available GPUs (1).",
    "ValueError: World size (16) is larger than the number of available GPUs (8) in this node. If this is intentional "
    "and you are using:",
])
def test_more_ranks_than_gpus_is_a_launch_setting(line, tmp_path):
    verdict = console_verdict(tmp_path, line)
    assert verdict.cls == "unclassified_failure", verdict.summary


def test_a_tensor_parallel_size_that_fits_is_no_failure(tmp_path):
    verdict = console_verdict(tmp_path, "INFO 11-30 10:00:00 [config.py:1020] Tensor parallel size (8) set from "
                                        "--tensor-parallel-size")
    assert verdict.cls in ("none", "inconclusive"), verdict.summary


# ---- TensorRT-LLM's CUDA check: the runtime's text decides, as torch's does
@pytest.mark.parametrize("line,want", [
    ("RuntimeError: [TensorRT-LLM][ERROR] CUDA runtime error in ::cudaMalloc(ptr, n): out of memory "
     "(/src/cpp/tensorrt_llm/runtime/tllmBuffers.h:125)", "oom"),
    ("[TensorRT-LLM][ERROR] CUDA runtime error in cudaMemcpyAsync(dst, src, count, kind, stream): an illegal memory "
     "access was encountered (/src/cpp/tensorrt_llm/runtime/bufferManager.cpp:93)", "dropped_rank"),
    ("[TensorRT-LLM][ERROR] CUDA runtime error in cudaSetDevice(device): invalid device ordinal "
     "(/src/cpp/tensorrt_llm/runtime/worldConfig.cpp:60)", "unclassified_failure"),
])
def test_tensorrt_llm_cuda_errors_classify_by_their_text(line, want, tmp_path):
    verdict = console_verdict(tmp_path, line)
    assert verdict.cls == want, verdict.summary


def test_tensorrt_llm_assertion_is_not_taken_for_a_cuda_error(tmp_path):
    from nccl_forensics.sources import catalogue
    line = "[TensorRT-LLM][ERROR] Assertion failed: mpiSize == tp * pp (/src/cpp/tensorrt_llm/runtime/worldConfig.cpp:79)"
    assert not any(h.message.id.startswith("trtllm.") for h in catalogue.match(line))


# ---- SGLang's load barrier: the rank that raises it is the one that loaded
def test_the_rank_that_loaded_is_no_culprit(tmp_path):
    text = ("[2025-04-21 13:37:45 TP1] Scheduler hit an exception: Traceback (most recent call last):\n"
            '  File "/sgl-workspace/sglang/python/sglang/srt/model_executor/model_runner.py", line 484, in load_model\n'
            "    raise ValueError(\nValueError: TP rank 1 could finish the model loading, but there are other ranks that "
            "didn't finish loading. It is likely due to unexpected failures (e.g., OOM) or a slow node.\n")
    verdict = console_verdict(tmp_path, text, progress=PROGRESS)
    assert verdict.cls in ("timeout_unknown", "stuck_rank", "dropped_rank", "unclassified_failure"), verdict.summary
    assert 1 not in verdict.culprit_ranks, verdict.summary
