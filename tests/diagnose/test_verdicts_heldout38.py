"""Held-out set 38: consoles of multi-GPU jobs on AMD GPUs (RCCL, HIP, ROCR, rccl-tests, vLLM/SGLang/DeepSpeed on
ROCm, Frontier). One verdict test per case, then the families it missed, each in the forms it arrives in:

- RCCL 2.27 (ROCm 7, ROCm/rocm-systems projects/rccl src/include/debug.h rcclCudaErrorHandler) prints its CUDACHECK
  at the error level, `[FATAL ERROR]: HIP failure: '<hipGetErrorString>'`, and returns ncclUnhandledCudaError: the
  same check as NCCL's `Cuda failure '...'` and RCCL's older `HIP failure '...'`; `out of memory` is an OOM.
- RCCL's unit tests (test/common/TestBedChild.cpp CHILD_NCCL_CALL) print a child's failed call with ncclResult_t's
  number, `Child process N fails NCCL call ncclGroupEnd with code C`: the number names the code (2 and 6, the system's
  or a peer's failure, are the network's, as the named codes are).
- ROCR's `Memory access fault by GPU node-N ... on address %p`: glibc prints a null address as `(nil)`.
"""
from __future__ import annotations

import pytest

from nccl_forensics.sources import catalogue

from .consoles import PROGRESS, check_case, console_verdict

# ---- one verdict per case of the set (the decisive lines as pasted)
CASES = [
    ("vllm-project/vllm#2988", "dropped_rank", None,
     "Memory access fault by GPU node-2 (Agent handle: 0x9f73a80) on address 0x7ef9eb704000. Reason: Unknown.\n"
     "*** SIGABRT received at time=1708511498 on cpu 37 ***"),
    ("ROCm/rccl-tests#50", "unclassified_failure", None,
     "#   Rank  0 Pid 117738 on sharbox-ultra device  0 [0000:63:00.0] AMD Instinct MI210\n"
     "sharbox-ultra: Test NCCL failure common.cu:1285 'internal error - please report this issue to the NCCL "
     "developers'\n .. sharbox-ultra pid 117738: Test failure common.cu:1161"),
    ("lumi-ai-factory/laifs-container-recipes#12", "unclassified_failure", None,
     "0: nid005023: Test NCCL failure /tmp/tmp.CEItloeMjG/rccl-tests/build/hipify/common.cu.cpp:1108 'unhandled cuda "
     "error (run with NCCL_DEBUG=INFO for details) / '\n"
     " 0:  .. nid005023 pid 48698: Test failure /tmp/tmp.CEItloeMjG/rccl-tests/build/hipify/common.cu.cpp:1582"),
    ("sgl-project/sglang#24011", ("unclassified_failure", "dropped_rank"), None,
     "Process group watchdog thread terminated with exception:\n"
     "HIP error: operation not permitted on an event last recorded in a capturing stream"),
    ("ROCm/legacy-rocm-build#6023", "dropped_rank", None,
     ":0:rocdevice.cpp:3586: Callback: Queue 0x7f78cb400000 aborting with error : HSA_STATUS_ERROR_EXCEPTION: An "
     "HSAIL operation resulted in a hardware exception. code: 0x1016"),
    ("parthenon-hpc-lab/parthenon#1101", "dropped_rank", None,
     ":0:rocdevice.cpp            :2660: 556940992572 us: 32834: [tid:0x7f9e41945700] Device::callbackQueue aborting "
     "with error : HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION: The agent attempted to access memory beyond the "
     "largest legal address. code: 0x29"),
    ("pytorch/pytorch#137695", ("unclassified_failure", "inconclusive"), None,
     "rocblaslt error: Could not load /home/hotaisle/miniforge3/envs/vllm/lib/python3.11/site-packages/torch/lib/"
     "hipblaslt/library/TensileLibrary_lazy_gfx942.dat"),
    ("AMDResearch/hpcfund#58", ("network_error", "dropped_rank"), None,
     "[rank0]:     self._configure_distributed_model(model)\n"
     "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely."),
    ("ROCm/rocm-systems#8178", ("dropped_rank", "unclassified_failure"), None,
     "[FATAL ERROR]: HIP failure: 'invalid device pointer'"),
    ("tinygrad/tinygrad#3343", "dropped_rank", None,
     "Memory access fault by GPU node-1 (Agent handle: 0x561401550ed0) on address 0x7f8942626000. Reason: Page not "
     "present or supervisor privilege."),
    ("deepspeedai/DeepSpeed#5330", "unclassified_failure", None,
     "FAILED unit/comm/test_dist.py::TestDistAllReduce::test - torch.distributed.DistBackendError: NCCL error in: "
     "../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1691, internal error, NCCL version 2.17.1"),
    ("ROCm/rccl#1370", "unclassified_failure", None,
     "[ ERROR    ] Child 0 reports failure\n/home/cc/rccl/test/common/TestBed.cpp:183: Failure\n"
     "[ ERROR    ] Child process 0 fails NCCL call ncclGroupEnd with code 1\n"
     "[ ERROR    ] Child 0 failed on command [INIT_COMMS]:\n[  FAILED  ] AllReduce.OutOfPlace (1511 ms)"),
    ("verl-project/verl#3163", ("version_mismatch", "unclassified_failure"), None,
     "    dist._broadcast_coalesced(\nRuntimeError: HIP error: invalid device function\n"
     "HIP kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be "
     "incorrect.\nFor debugging consider passing AMD_SERIALIZE_KERNEL=3"),
    ("E3SM-Project/scream#2337", "dropped_rank", None,
     "srun: error: frontier02038: task 872: Segmentation fault\n"
     "srun: launch/slurm: _step_signal: Terminating StepId=1310827.0"),
    ("ROCm/legacy-rocm-build#5259", "dropped_rank", None,
     "HW Exception by GPU node-4 (Agent handle: 0x1ebc04e0) reason :GPU Hang\n"
     "W0902 15:10:48.626000 819010 torch/distributed/elastic/multiprocessing/api.py:900] Sending process 819027 "
     "closing signal SIGTERM\n"
     "E0902 15:10:49.013000 819010 torch/distributed/elastic/multiprocessing/api.py:874] failed (exitcode: -6) "
     "local_rank: 0 (pid: 819025) of binary: /bin/python"),
    ("komikndr/raylight#102", "dropped_rank", None,
     "HW Exception by GPU node-1 (Agent handle: 0x3508fba0) reason :GPU Hang\n"
     "*** SIGABRT received at time=1786031662 on cpu 10 ***\nFatal Python error: Aborted"),
    ("sgl-project/sglang#25118", ("dropped_rank", "unclassified_failure"), None,
     '  File "/sgl-workspace/sglang/python/sglang/srt/entrypoints/engine.py", line 796, in _launch_subprocesses\n'
     '    scheduler_init_result.wait_for_ready()\n'
     '  File "/sgl-workspace/sglang/python/sglang/srt/entrypoints/engine.py", line 647, in wait_for_ready\n'
     '    infos = _wait_for_scheduler_ready(scheduler_pipe_readers, scheduler_procs)\n'
     '  File "/sgl-workspace/sglang/python/sglang/srt/entrypoints/engine.py", line 1277, in _wait_for_scheduler_ready\n'
     '    raise _scheduler_died_error(i, scheduler_procs[i])\n'
     'RuntimeError: Rank 0 scheduler died during initialization (exit code: -3). If exit code is -9 (SIGKILL), a common cause is the OS OOM killer. Run `dmesg -T | grep -i oom` to check.'),
    ("deepspeedai/DeepSpeed#6725 (fault)", "dropped_rank", None,
     "Memory access fault by GPU node-4 (Agent handle: 0x56387095fa40) on address (nil). Reason: Unknown."),
    ("deepspeedai/DeepSpeed#6725 (timeout)", ("timeout_unknown", "stuck_rank"), None,
     "[rank4]:[E1107 22:03:59.159782320 ProcessGroupNCCL.cpp:692] [Rank 4] Watchdog caught collective operation "
     "timeout: WorkNCCL(SeqNum=473096, OpType=_ALLGATHER_BASE, NumelIn=360448, NumelOut=2883584, "
     "Timeout(ms)=1800000) ran for 1800004 milliseconds before timing out."),
]


@pytest.mark.parametrize("issue,want,culprits,text", CASES, ids=[case[0] for case in CASES])
def test_each_case_of_the_set(issue, want, culprits, text, tmp_path):
    check_case(tmp_path, (text, (want,) if isinstance(want, str) else want, culprits), progress="")


# ---- RCCL 2.27's CUDACHECK at the error level
@pytest.mark.parametrize("line,reason", [
    ("[FATAL ERROR]: HIP failure: 'invalid argument'", "invalid argument"),
    ("crsuse2-m2m-276:717:1686 [0] [FATAL ERROR]: HIP failure: 'the operation cannot be performed in the present "
     "state'", "the operation cannot be performed in the present state"),
    ("Last error:\nHIP failure: 'an illegal memory access was encountered'", "an illegal memory access was encountered"),
])
def test_rccl_error_level_hip_failure_is_its_cuda_check(line, reason):
    hits = [h for h in catalogue.match(line.splitlines()[-1]) if h.message.id == "nccl.rccl_hip_failure"]
    assert hits and hits[0].fields["reason"] == reason


def test_rccl_error_level_hip_out_of_memory_is_an_oom(tmp_path):
    text = ("Capturing prefill buckets (bucket= 512 avail_mem= 0.03 GB):  42%\n"
            "[FATAL ERROR]: HIP failure: 'out of memory'")
    assert console_verdict(tmp_path, text).cls == "oom"


def test_the_older_rccl_hip_failure_still_reads():
    hits = catalogue.match("alloc.h:123 NCCL WARN HIP failure 'hipErrorInvalidValue' at /rccl/src/include/alloc.h:123")
    assert [h.message.id for h in hits if h.message.family == "nccl"] == ["nccl.rccl_hip_failure"]


# ---- RCCL's unit tests: the failed call's ncclResult_t number
@pytest.mark.parametrize("code,name,implied", [
    (1, "ncclUnhandledCudaError", None), (2, "ncclSystemError", "network_error"),
    (3, "ncclInternalError", None), (6, "ncclRemoteError", "network_error"),
])
def test_rccl_unit_test_call_names_its_code(code, name, implied):
    line = f"[ ERROR    ] Child process 0 fails NCCL call ncclGroupEnd with code {code}"
    hit = next(h for h in catalogue.match(line) if h.message.id == "nccl.rccl_testbed_call")
    assert hit.fields["code"] == name
    assert hit.fields.get("implies") == implied


def test_rccl_unit_test_internal_error_is_no_class_of_its_own(tmp_path):
    text = ("[ ERROR    ] Child process 0 fails NCCL call ncclGroupEnd with code 3\n"
            "[ ERROR    ] Child 0 failed on command [INIT_COMMS]:")
    assert console_verdict(tmp_path, text).cls == "unclassified_failure"


# ---- ROCR's fault at a null address
def test_rocr_fault_at_a_null_address_keeps_its_reason(tmp_path):
    text = "Memory access fault by GPU node-4 (Agent handle: 0x56387095fa40) on address (nil). Reason: Unknown."
    hit = next(h for h in catalogue.match(text) if h.message.id == "cuda.rocr_memory_access_fault")
    assert hit.fields["address"] == "(nil)" and hit.fields["reason"] == "Unknown"
    verdict = console_verdict(tmp_path, text, progress=PROGRESS)
    assert verdict.cls == "dropped_rank" and "Unknown" in verdict.summary
