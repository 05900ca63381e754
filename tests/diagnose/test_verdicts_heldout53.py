"""Held-out set 53: 2025-2026 pastes from RL and training stacks (verl and OpenRLHF under Ray, torchtitan, a Ulysses
all-to-all under torch 2.9's Watchdog::run) and NCCL 2.20-2.27 CUDACHECK failures. One verdict test per case, then
what the set showed:

- cudaErrorTooManyPeers (711; 60 before CUDA 10), `peer mapping resources exhausted`: one GPU asked for more peer
  mappings than its hardware holds (8 PCIe peers), as a process driving more GPUs than that does. A call refused for
  the state of a resource (catalogue cuda.TOO_MANY_PEERS), the same on every run of that launch, not a rank that died.
"""
from __future__ import annotations

import pytest

from .consoles import PROGRESS, console_verdict

_RAY = "(Runner pid=16018) "
_P2P_HOST = "6f747114300646eb-5af0524bda8e4aee:4167:5269 [0]"

CASES = [
    ("vipshop/cache-dit#761", ("timeout_unknown", "stuck_rank"),
     "[rank2]:[E125 18:38:34.698812301 ProcessGroupNCCL.cpp:2057] [PG ID 2 PG GUID 5(mesh_ulysses) Rank 2] Process "
     "group watchdog thread terminated with exception: [Rank 2] Watchdog caught collective operation timeout: "
     "WorkNCCL(SeqNum=472025, OpType=ALLTOALL_BASE, NumelIn=407003136, NumelOut=407003136, Timeout(ms)=1800000) ran "
     "for 1800018 milliseconds before timing out.\n"
     "frame #3: c10d::ProcessGroupNCCL::Watchdog::run() + 0xdf (0x7f70d245340f in libtorch_cuda.so)\n"),
    ("hiyouga/EasyR1#579", ("network_error", "unclassified_failure"),
     f"{_RAY}torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/"
     "ProcessGroupNCCL.cpp:3699, unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.27.3\n"
     f"{_RAY}ncclUnhandledCudaError: Call to CUDA function failed.\n{_RAY}Last error:\n"
     f"{_RAY}Cuda failure 217 'peer access is not supported between these two devices'\n"),
    ("TideDra/lmm-r1#43", ("oom",),
     "(LLMRayActor pid=347862) CUDA Error: out of memory at /workspace/csrc/cumem_allocator.cpp:62\n"
     "(ActorModelRayActor pid=348952)     python_create_and_map(*allocation_handle)\n"),
    ("NVIDIA/nccl-tests#324", ("unclassified_failure", "network_error"),
     "[2025-06-20 02:14:03] ubuntu:33207:33207 [0] allocator.cc:79 NCCL WARN Cuda failure 711 'peer mapping resources "
     "exhausted'\nubuntu: Test NCCL failure common.cu\n"),
    ("NVIDIA/DeepLearningExamples#1386", ("oom", "unclassified_failure"),
     "[rank2]: torch.distributed.DistBackendError: NCCL error in: /home/pytorch/torch/csrc/distributed/c10d/"
     "ProcessGroupNCCL.cpp:2028, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.20.5\n"
     "[rank2]: ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. \n"
     "[rank2]: Last error:\n"
     "[rank2]: Error while creating shared memory segment /dev/shm/nccl-c8G2vd (size 5767520)\n"),
    ("pytorch/torchtitan#2829", ("none", "inconclusive"),
     "[rank0]:[titan] 2026-04-03 13:00:48,267 - root - INFO - step: 97  loss:  2.89489  grad_norm:  0.3341  memory:  "
     "1.00GiB(1.06%)  tps: 169,542  tflops: 12.14  mfu: 1.23%\n"
     "[rank0]:[titan] 2026-04-03 13:00:48,269 - root - INFO - Staging ft checkpoint took 0.0018724950205069035 secs.\n"),
    ("pytorch/pytorch#150852", ("unclassified_failure", "dropped_rank", "version_mismatch"),
     "[2025-04-08 08:39:46] devgpu263:589012:591652 [0] transport/nvls.cc:254 NCCL WARN Cuda failure 1 'invalid "
     "argument'\ndevgpu263:589012:591652 [0] NCCL INFO transport/nvls.cc:409 -> 1\n"
     "[rank0]: torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/NCCLUtils.cpp:77, "
     "unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.26.2\n"),
    ("verl-project/verl#2044", ("unclassified_failure", "dropped_rank"),
     "    work = group.barrier(opts=opts)\n"
     "torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/NCCLUtils.hpp:268, "
     "unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.21.5\n"
     "ncclUnhandledCudaError: Call to CUDA function failed.\nLast error:\nCuda failure 1 'invalid argument'\n"),
    ("sgl-project/sglang#6246", ("unclassified_failure", "dropped_rank"),
     "6f747114300646eb-5af0524bda8e4aee:4168:5290 [1] NCCL INFO Received and initiated operation=Setup res=0\n\n"
     f"{_P2P_HOST} transport/p2p.cc:275 NCCL WARN Cuda failure 'invalid argument'\n"),
]


@pytest.mark.parametrize("issue,want,text", CASES, ids=[case[0] for case in CASES])
def test_each_case_of_the_set(issue, want, text, tmp_path):
    verdict = console_verdict(tmp_path, text, progress="")
    assert verdict.cls in want, verdict.summary


@pytest.mark.parametrize("line", [
    "[2025-06-20 02:14:03] ubuntu:33207:33207 [0] allocator.cc:79 NCCL WARN Cuda failure 711 'peer mapping resources "
    "exhausted'",
    "node1:1234:1300 [2] include/alloc.h:112 NCCL WARN Cuda failure 'peer mapping resources exhausted'",
])
def test_too_many_peers_under_nccl_is_a_refusal_of_the_setup_not_a_death(tmp_path, line):
    verdict = console_verdict(tmp_path, line)
    assert verdict.cls == "unclassified_failure", verdict.summary
    assert "state of a resource" in verdict.summary


def test_too_many_peers_from_torch_is_the_launch_not_a_dead_rank(tmp_path):
    text = ("RuntimeError: CUDA error: peer mapping resources exhausted\n"
            "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below "
            "might be incorrect.\n")
    assert console_verdict(tmp_path, text, PROGRESS).cls == "unclassified_failure"
