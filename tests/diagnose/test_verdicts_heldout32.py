"""Held-out set 32: projects the earlier rounds used least. Console pastes from public issues of FSDP (PyTorch's
and trl's), accelerate, ColossalAI, mmcv/OpenPCDet and maskrcnn-benchmark launchers, metaseq, ultralytics,
TensorRT-LLM, Ray Lightning, CosyVoice and Kubeflow PyTorchJob workers. 20 of 20 were read right at first sight.
What changed after, from the sources:

- NCCL 2.3.5 - 2.7.8's P2P transport warned of its own CUDA IPC calls (src/transport/p2p.cc: `failed to open CUDA
  IPC handle : <n> <text>`, `rank R failed to get CUDA IPC handle to device D(=busid) : <n> <text>`) before 2.8 moved
  them under CUDACHECK (`Cuda failure`). The catalogue reads them (nccl.p2p_ipc_failed) with the error text deciding:
  217 `peer access is not supported between these two devices` is no P2P path between the GPUs (network_error, as
  `failed to peer with device`), where the bare `unhandled cuda error` beside it was read as unclassified_failure.
"""
from __future__ import annotations

import pytest

from .consoles import check_case, console_verdict

CASES = [
    # (issue, pasted excerpt, right classes, culprit ranks or None)
    ("hpcaitech/ColossalAI#3677",
     "WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 1167 closing signal SIGTERM\nW"
     "ARNING:torch.distributed.elastic.multiprocessing.api:Sending process 1169 closing signal SIGTERM\nWA"
     "RNING:torch.distributed.elastic.multiprocessing.api:Sending process 1170 closing signal SIGTERM\nERR"
     "OR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -9) local_rank: 1 (pid: 1168) of "
     "binary: /opt/conda/bin/python\n",
     {"dropped_rank", "oom"}, [1]),
    ("huggingface/trl#1099",
     "[rank2]:[E ProcessGroupNCCL.cpp:1454] [Rank 2] NCCL watchdog thread terminated with exception: [Rank"
     " 2] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1341, OpType=_ALLGATHER_BASE, Nume"
     "lIn=65539072, NumelOut=262156288, Timeout(ms)=1800000) ran for 1800766 milliseconds before timing ou"
     "t.\nException raised from checkTimeout at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:781 (m"
     "ost recent call first):\n",
     {"timeout_unknown", "stuck_rank"}, None),
    ("huggingface/accelerate#3380",
     "Rank 1] Timeout at NCCL work: 456, last enqueued NCCL work: 456, last completed NCCL work: 455.\n[ra"
     "nk1]:[E205 14:27:18.083900057 ProcessGroupNCCL.cpp:621] [Rank 1] Some NCCL operations have failed or"
     " timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on c"
     "orrupted/incomplete data.\n[rank1]:[E205 14:27:18.083904965 ProcessGroupNCCL.cpp:627] [Rank 1] To av"
     "oid data inconsistency, we are taking the entire process down.\n[rank1]:[E205 14:27:19.451747711 Pro"
     "cessGroupNCCL.cpp:1515] [PG 0 (default_pg) Rank 1] Process group watchdog thread terminated with exc"
     "eption: [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=456, OpType=ALLREDUCE"
     ", NumelIn=65297, NumelOut=65297, Timeout(ms)=600000) ran for 600054 milliseconds before timing out."
     "\n",
     {"timeout_unknown", "stuck_rank"}, None),
    ("huggingface/trl#1726",
     "2024-06-17 08:37:15,707::93731__main__:DEBUG Before PPO step\n[rank1]:[E617 08:47:15.010046090 Proce"
     "ssGroupNCCL.cpp:572] [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=7930, Op"
     "Type=_ALLGATHER_BASE, NumelIn=214016000, NumelOut=856064000, Timeout(ms)=600000) ran for 600029 mill"
     "iseconds before timing out.\n[rank1]:[E617 08:47:15.011359495 ProcessGroupNCCL.cpp:1587] [PG 0 (defa"
     "ult_pg) Rank 1] Exception (either an error or timeout) detected by watchdog at work: 7930, last enqu"
     "eued NCCL work: 7931, last completed NCCL work: 7929.\n[rank2]:[E617 08:47:15.047646334 ProcessGroup"
     "NCCL.cpp:572] [Rank 2] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=7930, OpType=_A"
     "LLGATHER_BASE, NumelIn=214016000, NumelOut=856064000, Timeout(ms)=600000) ran for 600073 millisecond"
     "s before timing out.\n[rank2]:[E617 08:47:15.048060595 ProcessGroupNCCL.cpp:1587] [PG 0 (default_pg)"
     " Rank 2] Exception (either an error or timeout) detected by watchdog at work: 7930, last enqueued NC"
     "CL work: 7931, last completed NCCL work: 7929.\n",
     {"timeout_unknown", "stuck_rank"}, None),
    ("salesforce/MUST#7",
     "[E ProcessGroupNCCL.cpp:587] [Rank 12] Watchdog caught collective operation timeout: WorkNCCL(OpType"
     "=ALLGATHER, Timeout(ms)=1800000) ran for 1800172 milliseconds before timing out.\n[E ProcessGroupNCC"
     "L.cpp:587] [Rank 15] Watchdog caught collective operation timeout: WorkNCCL(OpType=ALLGATHER, Timeou"
     "t(ms)=1800000) ran for 1800768 milliseconds before timing out.\n[E ProcessGroupNCCL.cpp:341] Some NC"
     "CL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent G"
     "PU operations might run on corrupted/incomplete data. To avoid this inconsistency, we are taking the"
     " entire process down.\n",
     {"timeout_unknown", "stuck_rank"}, None),
    ("pytorch/pytorch#77030",
     "[E ProcessGroupNCCL.cpp:737] [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum="
     "3742816, OpType=_ALLGATHER_BASE, Timeout(ms)=1800000) ran for 1801750 milliseconds before timing out"
     ".\n[E ProcessGroupNCCL.cpp:737] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqN"
     "um=3742816, OpType=REDUCE, Timeout(ms)=1800000) ran for 1801377 milliseconds before timing out.\n[E "
     "ProcessGroupNCCL.cpp:737] [Rank 5] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=374"
     "2816, OpType=_ALLGATHER_BASE, Timeout(ms)=1800000) ran for 1801790 milliseconds before timing out.\n",
     {"op_mismatch", "collective_skipped"}, None),
    ("tatsu-lab/stanford_alpaca#65",
     "[E ProcessGroupNCCL.cpp:828] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum="
     "2778, OpType=_ALLGATHER_BASE, Timeout(ms)=1800000) ran for 1801649 milliseconds before timing out.\n"
     "[E ProcessGroupNCCL.cpp:455] Some NCCL operations have failed or timed out. Due to the asynchronous "
     "nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.\n[E Proces"
     "sGroupNCCL.cpp:460] To avoid data inconsistency, we are taking the entire process down.\nterminate c"
     "alled after throwing an instance of 'std::runtime_error'\n  what():  [Rank 0] Watchdog caught collec"
     "tive operation timeout: WorkNCCL(SeqNum=2778, OpType=_ALLGATHER_BASE, Timeout(ms)=1800000) ran for 1"
     "801649 milliseconds before timing out.\nERROR:torch.distributed.elastic.multiprocessing.api:failed ("
     "exitcode: -6) local_rank: 0 (pid: 5037)\n",
     {"timeout_unknown", "stuck_rank"}, None),
    ("facebookresearch/metaseq#90",
     "  what():  NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:181, unhandled cuda error, NC"
     "CL version 21.0.3\nProcess Group destroyed on rank 0\nException raised from ncclCommAbort at ../torc"
     "h/csrc/distributed/c10d/NCCLUtils.hpp:181 (most recent call first):\nframe #3: c10d::ProcessGroupNCC"
     "L::~ProcessGroupNCCL() + 0x113 (0x7fa730e94233 in /home/kyungmin.lee/anaconda3/envs/large/lib/python"
     "3.8/site-packages/torch/lib/libtorch_cuda_cpp.so)\n",
     {"dropped_rank", "unclassified_failure"}, None),
    ("ultralytics/ultralytics#19375",
     "[rank1]: Traceback (most recent call last):\n[rank1]:   File \"SOME_DIR/anaconda3/envs/cuda_test/lib"
     "/python3.10/site-packages/torch/distributed/distributed_c10d.py\", line 2727, in broadcast\n[rank1]:"
     "     work = group.broadcast([tensor], opts)\n[rank1]: torch.distributed.DistBackendError: NCCL error"
     " in: /pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:3384, unhandled cuda error (run with "
     "NCCL_DEBUG=INFO for details), NCCL ver\n",
     {"dropped_rank", "unclassified_failure", "oom"}, None),
    ("NVIDIA/TensorRT-LLM#1670",
     "VM-0-16-ubuntu:392:494 [2] enqueue.cc:43 NCCL WARN Cuda failure 'out of memory'\nVM-0-16-ubuntu:392:"
     "494 [2] enqueue.cc:54 NCCL WARN Cuda failure 'invalid resource handle'\n",
     {"oom"}, None),
    ("lsdefine/simple_GRPO#46",
     "1021/100000 [45:39<51:20:53,  1.87s/it][rank2]:[E723 01:58:45.510486595 ProcessGroupNCCL.cpp:632] [R"
     "ank 2] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=45390, OpType=ALLREDUCE, NumelI"
     "n=544997376, NumelOut=544997376, Timeout(ms)=600000) ran for 600061 milliseconds before timing out."
     "\n[rank2]:[E723 01:58:45.511299168 ProcessGroupNCCL.cpp:2268] [PG ID 1 PG GUID 1 Rank 2]  failure de"
     "tected by watchdog at work sequence id: 45390 PG status: last enqueued work: 45403, last completed w"
     "ork: 45389\n",
     {"timeout_unknown", "stuck_rank"}, None),
    ("QwenAudio/CosyVoice#517",
     "2024-10-18 20:48:27,683 DEBUG TRAIN Batch 15/37700 loss 1.543046 acc 0.267136 lr 0.00055927 grad_nor"
     "m 0.190002 rank 0\n[E ProcessGroupNCCL.cpp:828] [Rank 0] Watchdog caught collective operation timeou"
     "t: WorkNCCL(SeqNum=377286, OpType=ALLREDUCE, Timeout(ms)=1800000) ran for 1805402 milliseconds befor"
     "e timing out.\nTraceback (most recent call last):\n",
     {"timeout_unknown", "stuck_rank"}, None),
    ("facebookresearch/ViewDiff#24",
     "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.c"
     "pp:1691, invalid usage (run with NCCL_DEBUG=WARN for details), NCCL version 2.19.3\nncclInvalidUsage"
     ": This usually reflects invalid usage of NCCL library.\nLast error:\nDuplicate GPU detected : rank 0"
     " and rank 1 both on CUDA device 1000\n",
     {"unclassified_failure"}, None),
    ("kubeflow/trainer#2008",
     "Using distributed PyTorch with gloo backend\n    dist.init_process_group(backend=args.backend)\n  Fi"
     "le \"/opt/conda/lib/python3.6/site-packages/torch/distributed/distributed_c10d.py\", line 360, in in"
     "it_process_group\n    timeout=timeout)\nRuntimeError: Connection reset by peer\n",
     {"network_error", "unclassified_failure"}, None),
    ("kubeflow/pytorch-operator#313",
     "-- Process 0 terminated with the following error:\nFile \"/usr/local/lib/python3.7/dist-packages/tor"
     "ch/distributed/rendezvous.py\", line 126, in _tcp_rendezvous_handler\nstore = TCPStore(result.hostna"
     "me, result.port, world_size, start_daemon, timeout)\nValueError: host not found: Name or service not"
     " known\n",
     {"network_error", "unclassified_failure"}, None),
    ("facebookresearch/maskrcnn-benchmark#699",
     "    dist.barrier()\n  File \"/miniconda/envs/py36/lib/python3.6/site-packages/torch/distributed/dist"
     "ributed_c10d.py\", line 1240, in barrier\n    work = _default_pg.barrier()\nRuntimeError: NCCL error"
     " in: /opt/conda/conda-bld/pytorch-nightly_1556168966744/work/torch/lib/c10d/ProcessGroupNCCL.cpp:$\n"
     "46, internal error\n",
     {"unclassified_failure", "dropped_rank"}, None),
    ("ray-project/ray_lightning#24",
     "(pid=909597) RuntimeError: NCCL error in: /opt/conda/conda-bld/pytorch_1603729062494/work/torch/lib/"
     "c10d/ProcessGroupNCCL.cpp:784, unhandled cuda error, NCCL version 2.7.8\n(pid=909608) z-pc:909608:91"
     "0337 [0] NCCL INFO Channel 00 : 0[2d000] -> 1[2e000] via P2P/IPC\n(pid=909608) \n(pid=909608) z-pc:9"
     "09608:910337 [0] transport/p2p.cc:238 NCCL WARN failed to open CUDA IPC handle : 217 peer access is "
     "not supported between these two devices\n(pid=909608) z-pc:909608:910337 [0] NCCL INFO transport.cc:"
     "68 -> 1\n",
     {"network_error", "unclassified_failure"}, None),
    ("open-mmlab/OpenPCDet#1215",
     "    dist._verify_model_across_ranks(self.process_group, parameters)\nRuntimeError: NCCL error in: /p"
     "ytorch/torch/lib/c10d/ProcessGroupNCCL.cpp:911, unhandled system error, NCCL version 2.7.8\nncclSyst"
     "emError: System call (socket, malloc, munmap, etc) failed.\n",
     {"unclassified_failure", "network_error"}, None),
    ("XiaohangZhan/deocclusion#45",
     "RuntimeError: work = default_pg.broadcast([tensor], opts): \nNCCL error in: /pytorch/torch/lib/c10d/"
     "ProcessGroupNCCL.cpp:911, invalid usage, NCCL version 2.7.8\nncclInvalidUsage: This usually reflects"
     " invalid usage of NCCL library (such as too many async ops, too many collectives at once, mixing str"
     "eams in a group, etc).RuntimeError\nERROR:torch.distributed.elastic.multiprocessing.api:failed (exit"
     "code: 1) local_rank: 6 (pid: 1211) of binary: /usr/bin/python3\nERROR:torch.distributed.elastic.agen"
     "t.server.local_elastic_agent:[default] Worker group failed\n",
     {"unclassified_failure"}, None),
    ("open-mmlab/mmcv#2869",
     "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n==============================="
     "=============================\n./train.py FAILED\nRoot Cause (first observed failure):\n[0]:\n  time"
     "      : 2023-07-14_16:14:46\n  host      : localhost\n  rank      : 1 (local_rank: 1)\n  exitcode  :"
     " 1 (pid: 8283)\n  error_file: <N/A>\n",
     {"dropped_rank", "unclassified_failure"}, None),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_heldout32_case(tmp_path, case):
    check_case(tmp_path, case[1:])


@pytest.mark.parametrize("line", [
    "z-pc:909608:910337 [0] transport/p2p.cc:275 NCCL WARN failed to open CUDA IPC handle : 217 peer access is not "
    "supported between these two devices",
    "node1:1234:1300 [1] transport/p2p.cc:159 NCCL WARN rank 1 failed to get CUDA IPC handle to device 0(=1a000) : 217 "
    "peer access is not supported between these two devices",
])
def test_a_pre_2_8_p2p_ipc_failure_without_peer_access_is_no_p2p_path(tmp_path, line):
    assert console_verdict(tmp_path, line).cls == "network_error"


def test_a_pre_2_8_p2p_ipc_failure_of_another_text_names_no_p2p_path(tmp_path):
    line = ("node1:1234:1300 [1] transport/p2p.cc:237 NCCL WARN failed to open CUDA IPC handle : 1 invalid argument\n"
            "RuntimeError: NCCL error in: ../torch/lib/c10d/ProcessGroupNCCL.cpp:784, unhandled cuda error, NCCL "
            "version 2.7.8")
    assert console_verdict(tmp_path, line).cls != "network_error"
