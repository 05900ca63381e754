"""Verdicts on messages mined from the sources in catalogue round srcmined3, each as the decisive line(s) of a pasted
console in the form its software prints it:

- the fronts that print a CUDA/HIP error text after their own words: torch's driver-API check (`CUDA driver error: `,
  c10/cuda/driver_api.h), Triton's launchers (`Triton Error [CUDA]: `, `Triton Error [HIP]:  Code: N, Messsage: `),
  CuPy's `<error name>: <text>` and its memory pool's `Out of memory allocating N bytes`;
- CUDA that does not start (torch's cudaGetDeviceCount check with the code and text, no driver, a device index past
  the GPUs the runtime started): the machine's or the launch's setup, or the driver's version where the text says so;
- ROCclr's queue callback (`Callback: Queue 0x.. aborting with error : HSA_STATUS_ERROR_...`) and the amdgpu kernel
  driver's ring timeout and no-retry page fault: a process's GPU work ended, named by pid where a launcher names it;
- PyTorch: the nonblocking communicator's `NCCL timeout in:`, the elastic agent's exit-barrier error (with the store
  error under it), the heartbeat monitor's failed store poll (the store host's end, not the network's).
"""
from __future__ import annotations

import pytest

from .consoles import check_case, console_verdict

_TABLE = """torch.distributed.elastic.multiprocessing.errors.ChildFailedError:
============================================================
train.py FAILED
------------------------------------------------------------
Failures:
  <NO_OTHER_FAILURES>
------------------------------------------------------------
Root Cause (first observed failure):
[0]:
  time      : 2026-11-26_12:05:40
  host      : gpu-node-07
  rank      : {rank} (local_rank: {rank})
  exitcode  : {code} (pid: {pid})
  error_file: <N/A>
  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html
============================================================"""


def _table(rank: int, code: int, pid: int) -> str:
    return _TABLE.format(rank=rank, code=code, pid=pid)


CASES = {
    # ---- CUDA error texts behind other fronts
    "triton_illegal_address": (
        "[rank3]: Traceback (most recent call last):\n"
        "[rank3]:   File \"/usr/local/lib/python3.10/dist-packages/triton/runtime/jit.py\", line 691, in run\n"
        "[rank3]: RuntimeError: Triton Error [CUDA]: an illegal memory access was encountered\n" + _table(3, 1, 48213),
        {"dropped_rank"}, [3]),
    "triton_out_of_memory": (
        "(VllmWorker rank=0 pid=2271) ERROR 11-26 12:01:44 [multiproc_executor.py:527] RuntimeError: Triton Error "
        "[CUDA]: out of memory", {"oom"}, None),
    "torch_driver_api_out_of_memory": (
        "[rank1]: RuntimeError: CUDA driver error: out of memory\n" + _table(1, 1, 48211), {"oom"}, [1]),
    "torch_driver_api_illegal_address": (
        "[rank2]: RuntimeError: CUDA driver error: an illegal memory access was encountered\n" + _table(2, 1, 48212),
        {"dropped_rank"}, [2]),
    "cupy_named_illegal_address": (
        "cupy_backends.cuda.api.runtime.CUDARuntimeError: cudaErrorIllegalAddress: an illegal memory access was "
        "encountered", {"dropped_rank"}, None),
    "cupy_pool_out_of_memory": (
        "cupy.cuda.memory.OutOfMemoryError: Out of memory allocating 4,294,967,296 bytes (allocated so far: "
        "12,884,901,888 bytes).", {"oom"}, None),
    # ---- CUDA that does not start
    "no_nvidia_driver": (
        "[rank0]: RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and "
        "installed a driver from http://www.nvidia.com/Download/index.aspx\n" + _table(0, 1, 48210),
        {"unclassified_failure"}, None),
    "device_count_802_fabric_not_up": (
        "/usr/local/lib/python3.10/dist-packages/torch/cuda/__init__.py:129: UserWarning: CUDA initialization: "
        "Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling NumCudaDevices() "
        "that might have already set an error? Error 802: system not yet initialized (Triggered internally at "
        "../c10/cuda/CUDAFunctions.cpp:108.)\n  return torch._C._cuda_getDeviceCount() > 0\n"
        "[rank0]: ValueError: ProcessGroupNCCL is only supported with GPUs, no GPUs found!",
        {"unclassified_failure"}, None),
    "device_count_804_forward_compat": (
        "RuntimeError: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling "
        "NumCudaDevices() that might have already set an error? Error 804: forward compatibility was attempted on "
        "non supported HW", {"version_mismatch"}, None),
    "device_count_803_driver_combination": (
        "[rank1]: RuntimeError: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before "
        "calling NumCudaDevices() that might have already set an error? Error 803: system has unsupported display "
        "driver / cuda driver combination", {"version_mismatch"}, None),
    "device_index_past_the_gpus": (
        "[rank4]: torch.cuda.DeferredCudaCallError: CUDA call failed lazily at initialization with error: device >= 0 "
        "&& device < num_gpus INTERNAL ASSERT FAILED at \"../aten/src/ATen/cuda/CUDAContext.cpp\":50, please report a "
        "bug to PyTorch. device=4, num_gpus=4", {"unclassified_failure"}, None),
    # ---- ROCclr and amdgpu
    "rocclr_aperture_violation": (
        ":0:rocdevice.cpp            :2984: 6545699276902 us: [pid:196431 tid:0x7f2301dff640] Callback: Queue "
        "0x7f2301400000 aborting with error : HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION: The agent attempted to "
        "access memory beyond the largest legal address. code: 0x29\nAborted (core dumped)", {"dropped_rank"}, None),
    "rocclr_hw_exception_named_by_pid": (
        ":0:rocdevice.cpp            :2993: 89216349659 us: [pid:51116 tid:0x7f10e9fff640] Callback: Queue "
        "0x7f0ec0600000 aborting with error : HSA_STATUS_ERROR_EXCEPTION: An HSAIL operation resulted in a hardware "
        "exception. code: 0x1016\n" + _table(6, -6, 51116), {"dropped_rank"}, [6]),
    "rocclr_older_wording": (
        "Device::callbackQueue aborting with error : HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION: The agent attempted to "
        "execute an illegal shader instruction. code: 0x2a", {"dropped_rank"}, None),
    "rocclr_invalid_isa": (
        ":0:rocdevice.cpp            :3020: 7262982208d us:  Callback: Queue 0x77ec42100000 aborting with error : "
        "HSA_STATUS_ERROR_INVALID_ISA: The instruction set architecture is invalid. code: 0x100f\nAborted (core dumped)",
        {"version_mismatch"}, None),
    "rocclr_out_of_resources": (
        "rocdevice.cpp:3583: Aborting with error : HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime failed to allocate "
        "the necessary resources. Available Free mem : 24 MB", {"oom"}, None),
    "amdgpu_ring_timeout": (
        "[Thu Nov 26 12:04:51 2026] amdgpu 0000:c1:00.0: amdgpu: ring comp_1.1.0 timeout, signaled seq=1187, emitted "
        "seq=1189\n[Thu Nov 26 12:04:51 2026] amdgpu 0000:c1:00.0: amdgpu: GPU reset begin!", {"dropped_rank"}, None),
    "amdgpu_ring_timeout_drm_error": (
        "[drm:amdgpu_job_timedout [amdgpu]] *ERROR* ring gfx timeout, signaled seq=20843, emitted seq=20845",
        {"dropped_rank"}, None),
    "amdgpu_no_retry_page_fault": (
        "amdgpu 0000:83:00.0: amdgpu: [gfxhub0] no-retry page fault (src_id:0 ring:40 vmid:8 pasid:32776, for "
        "process python pid 4277 thread python pid 4277)\namdgpu 0000:83:00.0: amdgpu:   in page starting at address "
        "0x00007f8a3c000000 from IH client 0x1b (UTCL2)", {"dropped_rank"}, None),
    # ---- PyTorch
    "nonblocking_comm_init_timeout": (
        "[rank5]: torch.distributed.DistBackendError: NCCL timeout in: /pytorch/torch/csrc/distributed/c10d/"
        "NCCLUtils.cpp:125", {"timeout_unknown"}, None),
    "exit_barrier_after_success": (
        "I1126 13:40:35.103000 139795 torch/distributed/elastic/agent/server/api.py:932] Local worker group finished "
        "(WorkerState.SUCCEEDED). Waiting 300 seconds for other agents to finish\n"
        "E1126 13:45:35.118955 139795 torch/distributed/elastic/agent/server/api.py:951] Error waiting on exit "
        "barrier. Elapsed: 300.10335206985474 seconds\n"
        "E1126 13:45:35.118955 139795 torch/distributed/elastic/agent/server/api.py:951] Traceback (most recent call "
        "last):\n"
        "E1126 13:45:35.118955 139795 torch/distributed/elastic/agent/server/api.py:951]   File \"/usr/lib/python3.10/"
        "site-packages/torch/distributed/elastic/agent/server/api.py\", line 935, in _exit_barrier\n"
        "E1126 13:45:35.118955 139795 torch/distributed/elastic/agent/server/api.py:951] torch.distributed."
        "DistStoreError: Socket Timeout", {"inconclusive"}, None),
    "heartbeat_store_poll_after_store_host_ended": (
        "[rank3]:[W1126 10:17:38.404745404 TCPStore.cpp:106] [c10d] sendBytes failed on SocketImpl(fd=102, "
        "addr=[gpu-node-08]:33978, remote=[gpu-node-01]:29500): Broken pipe\n"
        "[rank3]:[W1126 10:17:38.405001122 ProcessGroupNCCL.cpp:1771] [PG ID 0 PG GUID 0 Rank 3] Failed to check the "
        "\"should dump\" flag on TCPStore, (maybe TCPStore server has shut down too early), with error: Broken pipe",
        {"unclassified_failure", "inconclusive"}, None),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_source_mined_message_verdict(name, tmp_path):
    check_case(tmp_path, CASES[name])


def test_a_ring_that_soft_recovered_is_no_failure(tmp_path):
    verdict = console_verdict(tmp_path, "amdgpu 0000:c1:00.0: amdgpu: ring gfx_0.0.0 timeout, but soft recovered")
    assert verdict.cls == "inconclusive", verdict.summary


def test_a_store_wait_outside_the_exit_barrier_is_still_a_missing_rank(tmp_path):
    verdict = console_verdict(tmp_path, "[rank1]: torch.distributed.DistStoreError: wait timeout after 1800000ms, "
                                        "keys: /default_pg/0//cuda//0")
    assert verdict.cls == "stuck_rank", verdict.summary


def test_the_heartbeat_monitors_store_poll_alone_is_no_failure(tmp_path):
    verdict = console_verdict(tmp_path, "[rank2]:[W1126 10:17:38.040221001 ProcessGroupNCCL.cpp:1771] [PG ID 0 PG GUID "
                                        "0 Rank 2] Failed to check the \"should dump\" flag on TCPStore, (maybe TCPStore "
                                        "server has shut down too early), with error: Broken pipe")
    assert verdict.cls == "inconclusive", verdict.summary


def test_a_store_socket_error_alone_is_still_read_as_the_network(tmp_path):
    verdict = console_verdict(tmp_path, "[rank3]:[W1126 10:17:38.404745404 TCPStore.cpp:106] [c10d] sendBytes failed "
                                        "on SocketImpl(fd=102, addr=[gpu-node-08]:33978, remote=[gpu-node-01]:29500): "
                                        "Broken pipe")
    assert verdict.cls in ("network_error", "unclassified_failure"), verdict.summary
