"""Held-out set 39: consoles of 2025-2026 training stacks (TRL, torchtitan, NeMo-RL, Megatron-Bridge, nanotron,
OpenRLHF, LLaMA-Factory with Unsloth, DeepSpeed; NCCL 2.23 - 2.29 on H100/H200). One verdict test per case, then the families it
missed or said wrong, each in the forms it arrives in:

- vLLM's sleep-mode allocator (csrc/cumem_allocator.cpp CUDA_CHECK) prints a failed cuMem* call as
  `CUDA Error: <cuGetErrorString> at <file>:<line>` and raises it as RuntimeError: `out of memory` is an OOM.
- cudaErrorIllegalState (401, `the operation cannot be performed in the present state`) under NCCL's CUDACHECK is a
  call refused for the state of what it needs (NVLS on a node whose Fabric Manager is not ready), not a process that
  died; a refused call of NCCL's NVLS transport gets the Fabric Manager's fix.
"""
from __future__ import annotations

import pytest

from nccl_forensics.sources import catalogue
from nccl_forensics.sources.catalogue.cuda import reason_class

from .consoles import PROGRESS, check_case, console_verdict

# ---- one verdict per case of the set (the decisive lines as pasted)
CASES = [
    ("deepspeedai/DeepSpeed#7533", ("timeout_unknown", "stuck_rank"), None,
     "[rank5]:[E901 05:20:03.446595912 ProcessGroupNCCL.cpp:1899] [PG ID 0 PG GUID 0(default_pg) Rank 5] Process "
     "group watchdog thread terminated with exception: [Rank 5] Watchdog caught collective operation timeout: "
     "WorkNCCL(SeqNum=460631, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600051 "
     "milliseconds before timing out.\n"
     "[rank3]:[E901 05:20:03.616086576 ProcessGroupNCCL.cpp:1899] [PG ID 0 PG GUID 0(default_pg) Rank 3] Process "
     "group watchdog thread terminated with exception: [Rank 3] Watchdog caught collective operation timeout: "
     "WorkNCCL(SeqNum=460631, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600004 "
     "milliseconds before timing out."),
    ("NVIDIA-NeMo/Megatron-Bridge#926", ("dropped_rank", "network_error", "unclassified_failure"), None,
     "[rank2]:     raise EOFError\n[rank2]: EOFError\n"
     "torch.distributed.DistBackendError: NCCL error in: /opt/pytorch/pytorch/torch/csrc/distributed/c10d/"
     "NCCLUtils.cpp:77, remote process exited or there was a network error, NCCL version 2.27.3"),
    ("huggingface/nanotron#265", "unclassified_failure", None,
     " 0: [rank3]: torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:328, "
     "invalid usage (run with NCCL_DEBUG=WARN for details), NCCL version 2.23.4\n"
     " 0: [rank3]: ncclInvalidUsage: This usually reflects invalid usage of NCCL library."),
    ("NVIDIA-NeMo/RL#722", "unclassified_failure", None,
     'raise RuntimeError(f"NCCL error: {error_str}")\n'
     "RuntimeError: NCCL error: unhandled cuda error (run with NCCL_DEBUG=INFO for details)"),
    ("pytorch/pytorch#163546", ("timeout_unknown", "stuck_rank"), None,
     "[rank1]:[E922 19:07:21.891247234 ProcessGroupNCCL.cpp:1870] [PG ID 0 PG GUID 0(default_pg) Rank 1] "
     "ProcessGroupNCCL's watchdog got stuck for 480 seconds without making progress in monitoring enqueued "
     "collectives."),
    ("NVIDIA/nccl#1788", "unclassified_failure", None,
     "[2025-07-21 19:05:29] node004:27907:27907 [1] transport/nvls.cc:254 NCCL WARN Cuda failure 401 'the operation "
     "cannot be performed in the present state'\nnode004:27907:27907 [1] NCCL INFO transport/nvls.cc:409 -> 1"),
    ("pytorch/pytorch#177472", "unclassified_failure", None,
     "torch.distributed.DistBackendError: NCCL error in: /var/lib/jenkins/workspace/torch/csrc/distributed/c10d/"
     "NCCLUtils.cpp:93, unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.29.3 \n"
     "ncclUnhandledCudaError: Call to CUDA function failed. \nLast error: \n"
     "Failed to bind NVLink SHARP (NVLS) Multicast memory of size 2097152 : CUDA error 401 'the operation cannot be "
     "performed in the present state'. "),
    ("NVIDIA/nccl#1842", ("network_error", "unclassified_failure"), None,
     "misc/ibvwrap.cc:182 NCCL WARN Call to ibv_reg_mr_iova2 failed with error Invalid argument \n"
     "[rank3]:     work = group.allgather_into_tensor_coalesced(outputs, inputs)"),
    ("NVIDIA/nccl#1672", ("unclassified_failure", "dropped_rank"), None,
     "[2025-04-06 22:31:56] ccw-gpu-128:3485254:3487188 [0] transport/nvls.cc:598 NCCL WARN Cuda failure 1 'invalid "
     "argument'"),
    ("hiyouga/LlamaFactory#7233", ("oom", "unclassified_failure"), None,
     "[rank1]: torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/NCCLUtils.hpp:268,"
     " unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.21.5\n"
     "[rank1]: ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. \n"
     "[rank1]: Last error:\n"
     "[rank1]: Error while creating shared memory segment /dev/shm/nccl-LeXlEJ (size 9637888)"),
    ("NVIDIA/nccl#1996", ("dropped_rank", "unclassified_failure"), None,
     "[n125-011-039:288505:0:296459] Caught signal 11 (Segmentation fault: address not mapped to object at address "
     "0x48)\n==== backtrace (tid: 296459) ====\n"
     " 3  /opt/tiger/nccl/lib/libnccl.so(+0x120057) [0x7ff1c18c1057]"),
    ("OpenRLHF/OpenRLHF#1050", "oom", None,
     "(LLMRayActor pid=226426) ERROR 06-10 10:55:03 [core.py:459] RuntimeError: CUDA Error: out of memory at "
     "/workspace/csrc/cumem_allocator.cpp:62 [repeated 3x across cluster]"),
    ("OpenRLHF/OpenRLHF#813", ("dropped_rank", "unclassified_failure"), None,
     "    random_samples = random_samples.cpu()\nRuntimeError: CUDA error: unspecified launch failure"),
    ("ByteDance-Seed/Bagel#86", ("unclassified_failure", "dropped_rank"), None,
     "E0529 07:39:13.791000 10689 site-packages/torch/distributed/elastic/multiprocessing/api.py:869] failed "
     "(exitcode: 1) local_rank: 0 (pid: 10754) of binary: /usr/local/bin/python3.10"),
    ("pytorch/pytorch#178085", ("unclassified_failure", "dropped_rank"), None,
     "[rank3]: self.reducer = dist.Reducer(\n"
     "[rank3]: RuntimeError: CUDA error: an illegal memory access was encountered"),
    ("hiyouga/LlamaFactory#8113", "unclassified_failure", None,
     "[rank0]:     patch_trl_rl_trainers()\n[rank0]: RuntimeError: No backend type associated with device type cpu"),
    # the runs that did not fail
    ("pytorch/torchtitan#1232", ("none", "inconclusive"), None,
     "[rank0]:[titan] 2025-05-28 21:14:39,054 - root - INFO - step:  2  loss: -1.0000  memory: 42.78GiB(54.06%)  "
     "tps: 8  tflops: 1.81  mfu: 0.58%"),
    ("pytorch/torchtitan#1625", ("none", "inconclusive"), None,
     "[rank0]:[titan] 2025-08-22 07:52:57,469 - root - WARNING - Warmup steps (200) exceed total training steps (10). "
     "Adjusting warmup steps to 10.\n"
     "[rank0]:[titan] 2025-08-22 07:52:57,498 - root - INFO - Training starts at step 1"),
    ("huggingface/trl#3317", ("none", "inconclusive"), None,
     "[rank0]:[W501 21:01:27.110829382 ProcessGroupNCCL.cpp:4561] [PG ID 0 PG GUID 0 Rank 0]  using GPU 0 to perform "
     "barrier as devices used by this process are currently unknown. This can potentially cause a hang if this rank "
     "to GPU mapping is incorrect. Specify device_ids in barrier() to force use of a particular device, or call "
     "init_process_group() with a device_id."),
    ("bmaltais/kohya_ss#3260", ("none", "inconclusive"), None,
     "accelerator device: cuda:1\n"
     "[rank1]:[W529 23:30:43.921166898 ProcessGroupNCCL.cpp:4715] [PG ID 0 PG GUID 0 Rank 1]  using GPU 1 as device "
     "used by this process is currently unknown. This can potentially cause a hang if this rank to GPU mapping is "
     "incorrect. You can pecify device_id in init_process_group() to force use of a particular device."),
]


@pytest.mark.parametrize("issue,want,culprits,text", CASES, ids=[case[0] for case in CASES])
def test_each_case_of_the_set(issue, want, culprits, text, tmp_path):
    check_case(tmp_path, (text, (want,) if isinstance(want, str) else want, culprits), progress="")


# ---- vLLM's sleep-mode allocator
@pytest.mark.parametrize("line", [
    "RuntimeError: CUDA Error: out of memory at /workspace/csrc/cumem_allocator.cpp:62",
    "CUDA Error: out of memory at /home/runner/work/vllm/vllm/csrc/cumem_allocator.cpp:101",
    "(LLMRayActor pid=226426) CUDA Error: out of memory at /workspace/csrc/cumem_allocator.cpp:62 [repeated 3x across "
    "cluster]",
])
def test_vllm_cumem_out_of_memory_is_an_oom(line, tmp_path):
    verdict = console_verdict(tmp_path, line, progress=PROGRESS)
    assert verdict.cls == "oom" and "cuda memory" in verdict.summary, verdict.summary


def test_vllm_cumem_other_errors_are_not_an_oom(tmp_path):
    line = "RuntimeError: CUDA Error: invalid argument at /workspace/csrc/cumem_allocator.cpp:118"
    hit = next(h for h in catalogue.match(line) if h.message.family == "vllm")
    assert hit.message.id == "vllm.cumem_cuda_error" and hit.fields["reason"] == "invalid argument"
    assert console_verdict(tmp_path, line).cls != "oom"


def test_another_programs_cuda_error_words_are_not_vllms():
    assert not [h for h in catalogue.match("CUDA Error: invalid argument at kernel.cu:12") if h.message.family == "vllm"]


# ---- a call NCCL made that the runtime refused for the state of a resource it needs
def test_illegal_state_under_nccls_check_names_no_class_of_its_own():
    assert reason_class("the operation cannot be performed in the present state", "nccl.cuda_failure") == {
        "implies": "unclassified_failure"}
    assert reason_class("an illegal memory access was encountered", "nccl.cuda_failure") == {}


@pytest.mark.parametrize("line", [
    "node004:27907:27907 [1] transport/nvls.cc:254 NCCL WARN Cuda failure 401 'the operation cannot be performed in "
    "the present state'",
    "node004:27907:27907 [1] transport/nvls.cc:254 NCCL WARN Cuda failure 'the operation cannot be performed in the "
    "present state'",
])
def test_nvls_call_refused_for_its_state_is_said_so(line, tmp_path):
    verdict = console_verdict(tmp_path, line)
    assert verdict.cls == "unclassified_failure", verdict.summary
    assert "refused for the state of a resource it needs" in verdict.summary
    assert "Fabric Manager" in verdict.fix


def test_a_refused_call_outside_nvls_keeps_the_setup_fix(tmp_path):
    line = "gpu1:12:40 [0] transport/p2p.cc:298 NCCL WARN Cuda failure 1 'invalid argument'"
    verdict = console_verdict(tmp_path, line)
    assert "refused for its arguments ('invalid argument')" in verdict.summary
    assert "Fabric Manager" not in verdict.fix


def test_an_nvls_bind_failure_gets_the_fabric_manager_fix(tmp_path):
    text = ("torch.distributed.DistBackendError: NCCL error in: NCCLUtils.cpp:93, unhandled cuda error (run with "
            "NCCL_DEBUG=INFO for details), NCCL version 2.29.3\nncclUnhandledCudaError: Call to CUDA function failed.\n"
            "Last error:\nFailed to bind NVLink SHARP (NVLS) Multicast memory of size 2097152 : CUDA error 401 'the "
            "operation cannot be performed in the present state'.")
    verdict = console_verdict(tmp_path, text)
    assert verdict.cls == "unclassified_failure" and "Fabric Manager" in verdict.fix, verdict.fix
