"""The CUDA runtime's and driver's error strings (cudaGetErrorString), as torch raises them (`CUDA error: <text>`,
c10/cuda/CUDAException.cpp) and as the libraries on top print them (cuBLAS, cuDNN status names), plus HIP's and
the ROCm runtime's (ROCR-Runtime core/runtime/runtime.cpp: GPU memory faults and hardware exceptions).

Read in the CUDA runtime API reference (enum cudaError) and pytorch c10/cuda/CUDAException.{h,cpp},
c10/cuda/CUDAFunctions.cpp, c10/cuda/driver_api.h, aten/src/ATen/cuda/CUDAContext.cpp, aten/src/ATen/cuda/CUDABlas.cpp
(CUBLAS_STATUS_*), aten/src/ATen/cudnn/Exceptions.h; triton's backend driver.c (NVIDIA and AMD gpuAssert); cupy's
cupy_backends/cuda/api/{runtime,driver}.pyx and cupy/cuda/memory.pyx; ROCm clr rocclr/device/rocm/rocdevice.cpp.
"""
from __future__ import annotations

import re

from . import Message as M

_SRC = "pytorch:c10/cuda/CUDAException.cpp:c10_cuda_check_implementation"
# The fronts that print cudaGetErrorString's (cuGetErrorString's, hipGetErrorString's) text after their own words:
# torch's runtime check (`CUDA error: `, `HIP error: `), torch's driver-API check (c10/cuda/driver_api.h
# C10_CUDA_DRIVER_CHECK, 2.1+: `CUDA driver error: `) and Triton's launcher (third_party/nvidia/backend/driver.c
# gpuAssert: `Triton Error [CUDA]: `; the AMD backend's driver.c: `Triton Error [HIP]:  Code: N, Messsage: `,
# `Message` in the newer ones) and darknet's check_error (pjreddie/darknet src/cuda.c, AlexeyAB/darknet src/dark_cuda.c
# check_error_extended: `CUDA Error: `, and `CUDA Error Prev: ` for cudaGetLastError's, then error() exits)
_FRONT = (r"(?:(?:CUDA|HIP)(?: driver)? error|CUDA Error(?: Prev)?|Triton Error \[(?:CUDA|HIP)\]): +"
          r"(?:Code: -?\d+, Mess+age: )?")
_FRONT_ANCHORS = ("CUDA error: |HIP error: |CUDA driver error: |CUDA Error: |CUDA Error Prev: |Triton Error [CUDA]: "
                  "|Triton Error [HIP]: ")
# cudaGetErrorString texts that end a process's device work (a kernel faulted, the device is gone).
_FATAL = ("an illegal memory access was encountered", "device-side assert triggered", "unspecified launch failure",
          "an illegal instruction was encountered", "misaligned address", "uncorrectable ECC error encountered",
          "the launch timed out and was terminated", "operation not permitted when stream is capturing",
          "all CUDA-capable devices are busy or unavailable", "CUDA-capable device(s) is/are busy or unavailable",
          "no CUDA-capable device is detected", "no ROCm-capable device is detected",
          "invalid device ordinal", "invalid device function", "no kernel image is available for execution on the device",
          "CUDA driver version is insufficient for CUDA runtime version", "unknown error", "system not yet initialized",
          "an illegal memory access", "invalid argument", "initialization error", "invalid configuration argument",
          "hardware stack error", "warp illegal address", "peer access is not supported between these two devices",
          "CUDA driver is a stub library", "API call is not supported in the installed CUDA driver",
          "the provided PTX was compiled with an unsupported toolchain",
          "system has unsupported display driver / cuda driver combination",
          "forward compatibility was attempted on non supported HW")
# cudaGetErrorString texts that say the software does not fit the machine, not that a kernel faulted: the driver is
# older than the CUDA runtime the job was built with (cudaErrorInsufficientDriver 35, cudaErrorCallRequiresNewerDriver
# 36, cudaErrorSystemDriverMismatch 803, cudaErrorCompatNotSupportedOnDevice 804), the process loaded no driver at all
# (STUB_DRIVER), or the build carries no code this GPU can run (cudaErrorNoKernelImageForDevice 209,
# cudaErrorUnsupportedPtxVersion 222: PTX newer than the driver's JIT). Every rank on such a node fails the same way
# at its first CUDA call.
DRIVER_TOO_OLD = ("CUDA driver version is insufficient for CUDA runtime version",
                  "API call is not supported in the installed CUDA driver",
                  "system has unsupported display driver / cuda driver combination",
                  "forward compatibility was attempted on non supported HW")
# cudaErrorStubLibrary (34): the libcuda the process loaded is the toolkit's link-time stub (lib64/stubs), not the
# driver's; every CUDA call returns it. The driver's age is not in question: the library path is.
STUB_DRIVER = ("CUDA driver is a stub library",)
NO_CODE_FOR_GPU = ("no kernel image is available for execution on the device",
                   "the provided PTX was compiled with an unsupported toolchain",
                   # cudaErrorSymbolNotFound (500) from a query of a kernel of the library's own fatbinary: NCCL's
                   # kernel attribute calls at init (enqueue.cc ncclInitKernelsForDevice, 2.9 - 2.27.6; silent from 2.27.7) print it when
                   # the build has no code for this GPU (NVIDIA/nccl#1372: a build for sm_80 run on H100)
                   "named symbol not found",
                   # cudaErrorInvalidDeviceFunction (98) / hipErrorInvalidDeviceFunction: "the requested device function
                   # does not exist or is not compiled for the proper device architecture"; what ROCm builds without
                   # this GPU's gfx target raise (HIP error: invalid device function), as CUDA < 9 builds did
                   "invalid device function")
# cudaErrorPeerAccessUnsupported (217): cudaDeviceEnablePeerAccess / cudaIpcOpenMemHandle between two GPUs the PCIe
# topology (a switch with ACS on, an IOMMU, GPUs under different root complexes) or the driver gives no P2P path:
# the link between the ranks' GPUs, not the process's own work, failed.
PEER_UNSUPPORTED = ("peer access is not supported between these two devices",)
# cudaGetErrorString texts of a call the runtime refused for its arguments (cudaErrorInvalidValue 1 `invalid argument`,
# cudaErrorInvalidPitchValue 12, cudaErrorInvalidSymbol 13, cudaErrorInvalidDevicePointer 17,
# cudaErrorInvalidMemcpyDirection 21, cudaErrorInvalidResourceHandle 400, cudaErrorNotSupported 801; HIP's
# hipGetErrorString prints the same words): the call returns the error and the device's work is untouched (not one of
# the sticky faults that end a process's CUDA context). Raised by NCCL's own CUDACHECK (src/include/checks.h, RCCL's
# hipified copy), the arguments are NCCL's: built from the communicator's setup and what the driver and the container
# offer (cuMem and IPC handles, host registration, NVLS), so every rank of the job makes the same call and gets the
# same answer. Such a line shows a failure, not a rank that died of its own, nor a class.
CALL_REJECTED = ("invalid argument", "invalid pitch argument", "invalid device symbol", "invalid device pointer",
                 "invalid copy direction for memcpy", "invalid resource handle", "operation not supported")
# cudaGetErrorString's text of a call the runtime refused because a resource it needs is not in a state to do it
# (cudaErrorIllegalState 401, CUDA_ERROR_ILLEGAL_STATE to cuGetErrorString): returned by that call, not sticky. Under
# NCCL's CUDACHECK it is the NVLS setup's cuMulticast* calls on a node whose Fabric Manager or NVSwitches are not in a
# state to serve them (transport/nvls.cc), the same for every rank of that node: a refusal, as CALL_REJECTED's are.
# cudaErrorTooManyPeers (711; 60 before CUDA 10), `peer mapping resources exhausted`: cudaDeviceEnablePeerAccess or
# cuMemSetAccess asked one GPU for more peer mappings than its hardware holds (8 PCIe peers), as a process, or NCCL's
# allocator mapping its buffers to every GPU of the process, does when it drives more GPUs than that. Returned, not
# sticky, and the same on every run of that launch: the node's peer-mapping resources, not a rank, refused the call.
TOO_MANY_PEERS = ("peer mapping resources exhausted",)
CALL_IN_WRONG_STATE = ("the operation cannot be performed in the present state",) + TOO_MANY_PEERS
# cudaGetErrorString texts that say this process got no GPU to work on (cudaErrorInvalidDevice 101 `invalid device
# ordinal`: a device index at or past the visible count, e.g. more local ranks than GPUs or a CUDA_VISIBLE_DEVICES that
# hides them; cudaErrorDevicesUnavailable 46: GPUs in exclusive-process mode already held, the text CUDA 10+ prints and
# the older `all CUDA-capable devices ...`; cudaErrorNoDevice 100; HIP prints the same words, `ROCm-capable` for
# hipErrorNoDevice): raised at the first CUDA call, before any device work, by how the job was launched on the
# machine. No kernel faulted and no rank left a running job: no class of its own.
NO_USABLE_GPU = ("invalid device ordinal", "CUDA-capable device(s) is/are busy or unavailable",
                 "all CUDA-capable devices are busy or unavailable", "no CUDA-capable device is detected",
                 "no ROCm-capable device is detected",
                 # cudaErrorSystemNotReady (802): the system's CUDA setup is not up yet (on NVSwitch machines, the
                 # fabric manager is not running); every process on the node gets it at its first CUDA call
                 "system not yet initialized")
# HIP's error names, which hipGetErrorName prints and hipGetErrorString printed too in the HIP of 2019-2021 (clr
# hipamd/src/hip_error.cpp; rccl-tests' HIPCHECK quotes it): the CUDA runtime's text of the error hipify maps each to
# (hipErrorInvalidDevice <-> cudaErrorInvalidDevice, ...), so a name classifies as its text does
HIP_ERROR_TEXTS = {"hiperrorinvaliddevice": "invalid device ordinal",
                   "hiperrornodevice": "no ROCm-capable device is detected",
                   "hiperrorinvaliddevicefunction": "invalid device function",
                   "hiperrornobinaryforgpu": "no kernel image is available for execution on the device",
                   "hiperrorpeeraccessunsupported": "peer access is not supported between these two devices",
                   "hiperrorinsufficientdriver": "CUDA driver version is insufficient for CUDA runtime version"}
# the catalogue entries that quote NCCL's CUDACHECK: a CUDA call NCCL itself made
NCCL_CUDA_CHECKS = frozenset({"nccl.cuda_failure", "nccl.rccl_hip_failure"})
# the check macros of the collective code beside NCCL (nccl-tests, vLLM/SGLang custom all-reduce, TensorRT-LLM): the
# calls they check are the communicator's own (its IPC handles, its buffers), made alike on every rank, so a call the
# runtime refused for its arguments names no class and no rank there either
COLLECTIVE_CUDA_CHECKS = NCCL_CUDA_CHECKS | {"cuda.check_macro"}


def reason_class(reason: str | None, message_id: str | None = None) -> dict[str, str]:
    """What a cudaGetErrorString text says beyond "this process's device work failed": the fields that move an entry
    carrying it (`reason`) to another class (`implies`, `category`); nothing for a fault of the process's own. A call
    NCCL or a collective kernel beside it made (`message_id` one of COLLECTIVE_CUDA_CHECKS) that the runtime refused
    for its arguments names no class and no rank of its own: `unclassified_failure`."""
    text = (reason or "").strip().rstrip(".").lower()
    text = HIP_ERROR_TEXTS.get(text, text).lower()
    if text and message_id in COLLECTIVE_CUDA_CHECKS and rejected_call(text):
        return {"implies": "unclassified_failure"}
    if text:
        for texts, implies, category in _REASON_CLASSES:
            if any(text.startswith(t.lower()) or t.lower().startswith(text) and len(text) >= 24 for t in texts):
                return {"implies": implies, "category": category}
    return {}


def rejected_call(text: str | None) -> bool:
    """Is this cudaGetErrorString text (or a text quoting it: `Cuda failure 1 'invalid argument'`) a call the runtime
    refused, for its arguments (CALL_REJECTED) or for the state of a resource it needs (CALL_IN_WRONG_STATE)?"""
    words = (text or "").strip().lower()
    if "'" in words:                          # NCCL's `Cuda failure [N] '<text>'`: the quoted words
        words = words.split("'")[1]
    words = words.strip().rstrip(".:").strip()
    return any(words == t or words.startswith(t + " ") for t in CALL_REJECTED + CALL_IN_WRONG_STATE)


def refused_for_state(text: str | None) -> bool:
    """Does this cudaGetErrorString text (or a text quoting it) say the call was refused for the state of a resource
    it needs (CALL_IN_WRONG_STATE), not for its arguments?"""
    words = (text or "").lower()
    return any(t in words for t in CALL_IN_WRONG_STATE)


def refused_nccl_call(data: dict) -> bool:
    """Does an event's data say NCCL's CUDACHECK quoted a call the runtime refused for its arguments? (An NCCL WARN
    keeps the whole `message`, not the entry's `reason` field.)"""
    return data.get("message_id") in NCCL_CUDA_CHECKS and rejected_call(data.get("reason") or data.get("message"))


def refused_check_macro(data: dict) -> bool:
    """Does an event's data say a collective kernel's check macro (cuda.check_macro: vLLM's custom all-reduce,
    nccl-tests) quoted a call the runtime refused for its arguments?"""
    return data.get("message_id") == "cuda.check_macro" and rejected_call(data.get("reason"))


# AMD's runtime: ROCR's and ROCclr's faults, clr's code-object errors (message ids), torch's hipified errors (text)
_AMD_IDS = ("cuda.rocr_", "cuda.rocclr_", "cuda.hip_")
_AMD_WORDS = ("HIP error", "hipError")


def from_amd_runtime(message_id: str | None, text: str | None) -> bool:
    """Did this GPU error come from AMD's runtime (ROCm/HIP), not CUDA's?"""
    return str(message_id or "").startswith(_AMD_IDS) or any(w in (text or "") for w in _AMD_WORDS)


_REASON_CLASSES = ((DRIVER_TOO_OLD, "version_mismatch", "cuda_driver"), (STUB_DRIVER, "version_mismatch", "cuda_stub"),
                   (NO_CODE_FOR_GPU, "version_mismatch", "cuda_arch"),
                   (PEER_UNSUPPORTED, "network_error", "p2p"), (NO_USABLE_GPU, "unclassified_failure", "cuda_setup"),
                   (TOO_MANY_PEERS, "unclassified_failure", "cuda_setup"))

MESSAGES = [
    M("cuda.runtime_error",
      # the text ends where torch's standard tail begins (or the line ends)
      _FRONT + r"(?!out of memory)(?P<reason>(?:" + "|".join(re.escape(t) for t in _FATAL) +
      r")(?=[.\s]|$)|[a-z](?:.*?)(?=\.?\s+(?:CUDA kernel errors might|Search for `|For debugging consider|"
      r"Compile with `)|\.?\s*$))",
      "cuda_error", "failure", "dropped_rank", "CUDA 10 - 13, torch 1.0 - 2.13 (`CUDA driver error` 2.1+), Triton 2 - 3, "
      "darknet 2016+",
      _SRC + "; c10/cuda/driver_api.h; triton:third_party/nvidia/backend/driver.c:gpuAssert; "
      "darknet:src/cuda.c:check_error",
      "RuntimeError: CUDA error: an illegal memory access was encountered", "CUDA error: an illegal",
      anchor=_FRONT_ANCHORS),
    # the CUDACHECK macros of nccl-tests (src/common.h: `%s: Test CUDA failure %s:%d '%s'`, the host first), its
    # rccl-tests port's HIPCHECK (`%s: Test HIP failure %s:%d '%s'`, hipGetErrorString's text, from the port in 2019
    # until rccl-tests hipified the CUDA sources in March 2024) and of the code that copied NCCL's examples
    # (vLLM/SGLang csrc/custom_all_reduce.cuh, TensorRT-LLM, apex: `Failed: Cuda error %s:%d '%s'`; vLLM's builds of
    # mid-2024 to spring 2025, 0.5 - 0.8, print it without `Cuda error `, as its own issue titles quote its wheels:
    # that bare form is read only before a CUDA header's name, `<file>.cuh:<line>`): the runtime's error text between
    # quotes, then the process exits
    M("cuda.check_macro",
      (r"(?:Test (?:CUDA|HIP) failure|Failed:(?: (?:CUDA|Cuda) error|(?= [^\s:']+\.cuh:\d))|C(?:uda|UDA) failure) "
       r"(?P<src_file>[^\s:']+):(?P<src_line>\d+)", r" '(?P<reason>[^']*)'?"),
      "cuda_error", "failure", "dropped_rank",
      "nccl-tests 1.0 - 2.17; rccl-tests 2019 - 2024-03 (Test HIP failure); vLLM 0.3+ (no `Cuda error ` in 0.5 - "
      "0.8), SGLang, TensorRT-LLM custom all-reduce",
      "nccl-tests:src/common.h:CUDACHECK (`Cuda failure %s:%d '%s'` before 2.0, as NCCL's own examples print it); "
      "rccl-tests:src/common.h:HIPCHECK; vllm:csrc/custom_all_reduce.cuh:CUDACHECK",
      "gpu5: Test CUDA failure common.cu:1045 'an illegal memory access was encountered'",
      "gpu5: Test CUDA failure common.cu:1045",
      anchor="Test CUDA failure|Test HIP failure|Failed: CUDA error|Failed: Cuda error|Cuda failure|CUDA failure|.cuh:"),
    # torch < 1.0's THC check (aten/src/THC/THCGeneral.cpp `__THCudaCheck`), printed once before its
    # `cuda runtime error (N) : <text>` exception
    M("cuda.thc_check",
      (r"THCudaCheck FAIL file=(?P<src_file>\S+) line=(?P<src_line>\d+) error=(?P<code>\d+)", r" : (?P<reason>.+?)\s*$"),
      "cuda_error", "failure", "dropped_rank", "torch 0.1 - 1.0", "pytorch:aten/src/THC/THCGeneral.cpp:__THCudaCheck",
      "THCudaCheck FAIL file=/pytorch/aten/src/THC/THCGeneral.cpp line=844 error=11 : invalid argument",
      "THCudaCheck FAIL file=/pytorch/aten/src/THC/THCGeneral.cpp line=844 error=11", anchor="THCudaCheck FAIL"),
    M("cuda.thc_runtime_error",
      r"cuda runtime error \((?P<code>\d+)\) : (?P<reason>[^\n]+?)(?= at \S+:\d+|\s*$)",
      "cuda_error", "failure", "dropped_rank", "torch 0.1 - 1.0", "pytorch:aten/src/THC/THCGeneral.cpp:__THCudaCheck",
      "RuntimeError: cuda runtime error (77) : an illegal memory access was encountered at "
      "/pytorch/aten/src/THC/THCCachingHostAllocator.cpp:265", "cuda runtime error (77) : an illegal",
      anchor="cuda runtime error ("),
    # torch's own driver check (c10/cuda/CUDAFunctions.cpp, `device_count_impl`): the driver is older than the build
    M("cuda.driver_too_old",
      r"The NVIDIA driver on your system is too old(?: \(found version (?P<driver_version>\d+)\))?",
      "cuda_error", "failure", "version_mismatch", "torch 1.0 - 2.13", "pytorch:c10/cuda/CUDAFunctions.cpp",
      "RuntimeError: The NVIDIA driver on your system is too old (found version 11040). Please update your GPU "
      "driver by downloading and installing a new version from the URL: http://www.nvidia.com/Download/index.aspx",
      "The NVIDIA driver on your system is too old", data={"category": "cuda_driver"},
      anchor="NVIDIA driver on your system is too old"),
    # the NVIDIA container toolkit's prestart hook (libnvidia-container src/cli/configure.c, warnx: `nvidia-container-
    # cli: <stage> error: ...`; docker/containerd print it under `OCI runtime create failed`): the container never
    # starts. A requirement error says the host driver is older than the image's CUDA (`unsatisfied condition:
    # cuda>=12.4`), as torch's own check does; an initialization error says the host's driver cannot be used at all
    # (`nvml error: driver/library version mismatch`, `load library failed: libnvidia-ml.so.1`, WSL without adapters)
    M("cuda.container_cli_requirement",
      r"nvidia-container-cli: requirement error: unsatisfied condition: (?P<condition>[^,\s]+)",
      "cuda_error", "failure", "version_mismatch", "libnvidia-container 1.0 - 1.17",
      "nvidia:libnvidia-container src/cli/configure.c:configure_command",
      "nvidia-container-cli: requirement error: unsatisfied condition: cuda>=12.4, please update your driver to a newer "
      "version, or use an earlier cuda container: unknown.",
      "nvidia-container-cli: requirement error: unsatisfied condition: cuda>=12.4", data={"category": "cuda_driver"},
      anchor="nvidia-container-cli: requirement error"),
    M("cuda.container_cli_init_error",
      r"nvidia-container-cli: (?P<stage>initialization|detection|mount|ldcache) error: (?P<reason>\S[^\n]*)",
      "cuda_error", "failure", "unclassified_failure", "libnvidia-container 1.0 - 1.17",
      "nvidia:libnvidia-container src/cli/configure.c:configure_command, src/cli/common.c",
      "nvidia-container-cli: initialization error: nvml error: driver/library version mismatch: unknown.",
      "nvidia-container-cli: initialization error: n", data={"category": "cuda_setup"},
      anchor="nvidia-container-cli: "),
    M("cuda.out_of_memory_error",
      _FRONT + r"out of memory",
      "oom", "failure", "oom", "CUDA 10 - 13, torch 1.0 - 2.13 (`CUDA driver error` 2.1+), Triton 2 - 3",
      _SRC + "; c10/cuda/driver_api.h; triton:third_party/nvidia/backend/driver.c:gpuAssert",
      "RuntimeError: CUDA error: out of memory", "CUDA error: out of memory", data={"oom_kind": "cuda_error"},
      anchor=_FRONT_ANCHORS),
    M("cuda.launch_blocking_hint",
      # ROCm builds print HIP_LAUNCH_BLOCKING=1 (hipified) or, with ROCm 6's runtime, AMD_SERIALIZE_KERNEL=3
      r"For debugging consider passing (?:(?:CUDA|HIP)_LAUNCH_BLOCKING=1|AMD_SERIALIZE_KERNEL=3)"
      r"|Compile with `TORCH_USE_(?:CUDA|HIP)_DSA`",
      "cuda_error", "failure", "dropped_rank", "torch 1.6 - 2.13 (AMD_SERIALIZE_KERNEL: ROCm 6 builds)", _SRC,
      "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be "
      "incorrect. For debugging consider passing CUDA_LAUNCH_BLOCKING=1", "For debugging consider passing CUDA_LAUNCH_BLOCKING=1",
      data={"tail_only": True}, anchor="_LAUNCH_BLOCKING=1|AMD_SERIALIZE_KERNEL=3|_DSA`"),
    M("cuda.cublas_status",
      r"CUBLAS_STATUS_(?P<status_name>EXECUTION_FAILED|INTERNAL_ERROR|NOT_INITIALIZED|ARCH_MISMATCH)",
      "cuda_error", "failure", None, "torch 1.0 - 2.13", "pytorch:aten/src/ATen/cuda/CUDABlas.cpp",
      "RuntimeError: CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasSgemm( handle, opa, opb, m, n, k, "
      "&alpha, a, lda, b, ldb, &beta, c, ldc)`", "CUBLAS_STATUS_EXECUTION_FAILED", anchor="CUBLAS_STATUS_"),
    M("cuda.cudnn_status",
      r"CUDNN_STATUS_(?P<status_name>EXECUTION_FAILED|INTERNAL_ERROR|NOT_INITIALIZED|MAPPING_ERROR)",
      "cuda_error", "failure", None, "torch 1.0 - 2.13", "pytorch:aten/src/ATen/cudnn/Exceptions.h",
      "RuntimeError: cuDNN error: CUDNN_STATUS_INTERNAL_ERROR", "CUDNN_STATUS_INTERNAL_ERROR", anchor="CUDNN_STATUS_"),
    # cuBLAS/cuDNN: "resource allocation failed inside the library, usually a cudaMalloc() failure" (cuBLAS and cuDNN
    # API references, status ALLOC_FAILED): the device is out of memory when the handle or its workspace is created
    M("cuda.library_alloc_failed",
      r"(?P<library>CUBLAS|CUDNN)_STATUS_ALLOC_FAILED",
      "oom", "failure", "oom", "torch 1.0 - 2.13 (cuBLAS 9 - 12, cuDNN 7 - 9)",
      "pytorch:aten/src/ATen/cuda/CublasHandlePool.cpp, aten/src/ATen/cudnn/Exceptions.h",
      "RuntimeError: CUDA error: CUBLAS_STATUS_ALLOC_FAILED when calling `cublasCreate(handle)`",
      "CUBLAS_STATUS_ALLOC_FAILED", data={"oom_kind": "cuda"}, anchor="CUBLAS_STATUS_ALLOC_FAILED|CUDNN_STATUS_ALLOC_FAILED"),
    # the HIP runtime (ROCm clr, hipamd/src/hip_code_object.cpp) when the binary carries no code object for a GPU of
    # the machine; it prints this to stderr and the process aborts (SIGABRT) at its first HIP call
    M("cuda.hip_no_binary_for_gpu",
      (r"hipErrorNoBinaryForGpu: Unable to find code object", r" for all current devices"),
      "cuda_error", "failure", "version_mismatch", "ROCm 4 - 6", "rocm:clr/hipamd/src/hip_code_object.cpp",
      "hipErrorNoBinaryForGpu: Unable to find code object for all current devices!",
      "hipErrorNoBinaryForGpu: Unable to find code object", data={"category": "cuda_arch"}),
    # the HIP runtime registering a kernel of the binary (clr hipamd/src/hip_platform.cpp __hipRegisterFunction) with
    # deferred loading off (HIP_ENABLE_DEFERRED_LOADING=0): no function for a device of the machine in the code
    # objects (218, hipErrorNoBinaryForGpu: a build without code for this GPU). `guarantee` prints it behind ClPrint's
    # prefix and aborts (SIGABRT); the older clr printed `Cannot Retrieve Static function` without the error code
    M("cuda.hip_static_function_missing",
      (r"Cannot [Rr]etrieve Static function", r", error: ?(?P<code>\d+)"),
      "cuda_error", "failure", "version_mismatch", "ROCm 4 - 7 (clr/hipamd; `, error: N` in the later clr)",
      "rocm:clr/hipamd/src/hip_platform.cpp:__hipRegisterFunction",
      "Cannot retrieve Static function, error: 218", "Cannot retrieve Static function",
      data={"category": "cuda_arch"}, anchor="Static function"),
    # rocBLAS (library/src/tensile_host.cpp, TensileHost::initialize) when its Tensile kernel library has no file for
    # this GPU's architecture (` for GPU arch : gfxN` and the list of the files it has from ROCm 5.x): it then prints
    # `Could not initialize Tensile host` / `library` and calls rocblas_abort (SIGABRT) at the first GEMM
    M("cuda.rocblas_tensile_missing",
      (r"rocBLAS error: Cannot read (?P<path>\S*TensileLibrary\S*?):", r" (?P<os_error>[^\n]+?) for GPU arch : (?P<target>gfx\w+)"),
      "cuda_error", "failure", "version_mismatch", "ROCm 4 - 7 (rocBLAS)", "rocblas:library/src/tensile_host.cpp",
      "rocBLAS error: Cannot read /opt/rocm/lib/rocblas/library/TensileLibrary.dat: No such file or directory for GPU "
      "arch : gfx1151", "rocBLAS error: Cannot read /opt/rocm/lib/rocblas/library/TensileLibrary.dat:",
      data={"category": "blas_arch"}, anchor="rocBLAS error: Cannot read "),
    # hipBLASLt's copy of that code (tensile_host.cpp, `rocblaslt error: Cannot read`, then `Could not load`): it goes
    # on (its rocblaslt_abort is commented out) and torch falls back or fails later in a hipblasLt call. Alone no
    # failure; before a GPU library error of the job it says the install has no kernels for this GPU (V501)
    M("cuda.hipblaslt_library_missing",
      (r"rocblaslt error: Cannot read \"?(?P<path>[^\s\"]*TensileLibrary\S*?)\"?:", r" (?P<os_error>[^\n]+)"),
      "cuda_error", "benign", "version_mismatch", "ROCm 6 - 7 (hipBLASLt)",
      "hipblaslt:library/src/amd_detail/rocblaslt/src/tensile_host.cpp",
      "rocblaslt error: Cannot read \"/opt/rocm/lib/hipblaslt/library/TensileLibrary_lazy_gfx1201.dat\": No such file or "
      "directory", "rocblaslt error: Cannot read", data={"category": "blas_arch"}, anchor="rocblaslt error: Cannot read"),
    # torch's BLAS checks on ROCm (CUDABlas.cpp hipified: `CUDA error: HIPBLAS_STATUS_... when calling ...`): the
    # GEMM failed in hipBLAS/hipBLASLt; which ranks is the traceback's
    M("cuda.hipblas_status",
      r"HIPBLAS_STATUS_(?P<status_name>EXECUTION_FAILED|INTERNAL_ERROR|NOT_INITIALIZED|ARCH_MISMATCH|INVALID_VALUE|"
      r"NOT_SUPPORTED|HANDLE_IS_NULLPTR|UNKNOWN)",
      "cuda_error", "failure", None, "torch 2.0 - 2.13 (ROCm builds)", "pytorch:aten/src/ATen/cuda/CUDABlas.cpp",
      "RuntimeError: CUDA error: HIPBLAS_STATUS_NOT_SUPPORTED when calling `hipblasLtMatmulAlgoGetHeuristic( ltHandle, "
      "computeDesc.descriptor(), Adesc.descriptor(), Bdesc.descriptor(), Cdesc.descriptor(), Cdesc.descriptor(), "
      "preference.descriptor(), 1, &heuristicResult, &returnedResult)`", "HIPBLAS_STATUS_NOT_SUPPORTED",
      anchor="HIPBLAS_STATUS_"),
    # the later clr's fat-binary loader (hipamd/src/hip_fatbin.cpp, LogPrintfError: printed whatever AMD_LOG_LEVEL,
    # `, value of HIP_FORCE_SPIRV_CODEOBJECT: N` appended where SPIR-V is supported): no code object for this GPU's
    # target; the launch that needs it then fails (invalid device function) or the process crashes
    M("cuda.hip_no_compatible_code_objects",
      (r"No compatible code objects found for: (?P<target>gfx\w+)", r"(?::[\w+-]+)*"),
      "cuda_error", "failure", "version_mismatch", "ROCm 6 - 7 (clr)", "rocm:clr/hipamd/src/hip_fatbin.cpp",
      ":1:hip_fatbin.cpp           :109 : 2231871023 us: [pid:52210 tid:0x7f90f1e3b740] No compatible code objects "
      "found for: gfx1100, value of HIP_FORCE_SPIRV_CODEOBJECT: 0", "No compatible code objects found for: gfx1100",
      data={"category": "cuda_arch"}, anchor="No compatible code objects found for: "),
    # ROCm's runtime (ROCR-Runtime, core/runtime/runtime.cpp) when the GPU faults: the VM-fault handler prints
    # `Memory access fault by GPU node-N (Agent handle: 0x..) on address 0x..[(may not be exact address)]. Reason:
    # <reason>.` and the HW-exception handler `HW Exception by GPU node-N (Agent handle: 0x..) reason :GPU Hang` (or
    # `ECC`), each to stderr, then std::abort(): the process dies of SIGABRT, HIP's counterpart of CUDA's `an illegal
    # memory access was encountered` (older runtimes print no `(Agent handle: ..)`; the address is a `%p`, so glibc
    # prints a null one as `(nil)`)
    M("cuda.rocr_memory_access_fault",
      (r"Memory access fault by GPU node-(?P<gpu_node>\d+)(?: \(Agent handle: 0x[0-9a-fA-F]+\))?",
       r" on address (?P<address>0x[0-9a-fA-F]+|\(nil\))",
       r"(?:\(may not be exact address\))?\. Reason: (?P<reason>[A-Z][\w -]*)"),
      "cuda_error", "failure", "dropped_rank", "ROCm 3 - 7 (ROCR-Runtime; `(Agent handle: ..)` in ROCm 5+)",
      "rocm:ROCR-Runtime/runtime/hsa-runtime/core/runtime/runtime.cpp:Runtime::VMFaultHandler",
      "Memory access fault by GPU node-2 (Agent handle: 0x5640a8bb1980) on address 0x7feea09c5000. Reason: Page not "
      "present or supervisor privilege.", "Memory access fault by GPU node-2", data={"category": "gpu_fault"},
      anchor="Memory access fault by GPU node-"),
    M("cuda.rocr_hw_exception",
      (r"HW Exception by GPU node-(?P<gpu_node>\d+)(?: \(Agent handle: 0x[0-9a-fA-F]+\))?", r" reason :(?P<reason>GPU Hang|ECC)"),
      "cuda_error", "failure", "dropped_rank", "ROCm 3 - 7 (ROCR-Runtime; `(Agent handle: ..)` in ROCm 5+)",
      "rocm:ROCR-Runtime/runtime/hsa-runtime/core/runtime/runtime.cpp:Runtime::HwExceptionHandler",
      "HW Exception by GPU node-9 (Agent handle: 0x631351bb5a20) reason :GPU Hang", "HW Exception by GPU node-9",
      data={"category": "gpu_fault"}, anchor="HW Exception by GPU node-"),
    # HIP's device-side assert (clr hipamd/include/hip/amd_detail/hip_assert.h __assert_fail, amd_device_functions.h
    # before; ROCm 5 - 7): `%s:%u: %s: Device-side assertion `%s' failed.`, from the kernel through the device printf,
    # then a trap that ends the process's device work (ROCclr's queue callback then aborts it): the counterpart of
    # CUDA's `block: [..], thread: [..] Assertion `..` failed.`, printed by torch's ROCm kernels (CUDA_KERNEL_ASSERT)
    M("cuda.hip_device_assert",
      (r"Device-side assertion `", r"(?P<assertion>.+?)' failed"),
      "cuda_error", "failure", "dropped_rank", "ROCm 5 - 7 (clr hip_assert.h; amd_device_functions.h before)",
      "rocm:clr/hipamd/include/hip/amd_detail/hip_assert.h:__assert_fail",
      "/pytorch/aten/src/ATen/native/hip/Loss.hip:250: nll_loss_forward_reduce_cuda_kernel_2d: Device-side assertion "
      "`t >= 0 && t < n_classes' failed.", "/pytorch/aten/src/ATen/native/hip/Loss.hip:250: "
      "nll_loss_forward_reduce_cuda_kernel_2d: Device-side assertion `", anchor="Device-side assertion `"),
    M("cuda.device_assert",
      (r"block: \[\d+,\d+,\d+\], thread: \[\d+,\d+,\d+\] Assertion `", r"(?P<assertion>.+?)` failed"),
      "cuda_error", "failure", "dropped_rank", "CUDA 9 - 13 (device-side assert), torch 1.0 - 2.13",
      "pytorch:c10/macros/Macros.h:CUDA_KERNEL_ASSERT (the device runtime's __assertfail prints the line)",
      "/pytorch/aten/src/ATen/native/cuda/Loss.cu:242: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], "
      "thread: [5,0,0] Assertion `t >= 0 && t < n_classes` failed.",
      "block: [0,0,0], thread: [5,0,0] Assertion `", anchor="Assertion `"),

    # ---- CUDA that does not start: the process never gets a GPU to work on (no kernel ran, no rank left a running
    # job), so no class of its own unless the error's text names the driver or the build (reason_class)
    # torch's device count (c10/cuda/CUDAFunctions.cpp device_count_impl) when cudaGetDeviceCount fails with anything
    # but "no device" / "no driver": raised by _cuda_init, or warned (`CUDA initialization: ...`) when torch only asks
    # whether CUDA is there; the code and cudaGetErrorString's text follow (802 system not yet initialized, 803/804
    # driver combinations, 2 out of memory, 999 unknown error)
    M("cuda.device_count_error",
      (r"Unexpected error from cudaGetDeviceCount\(\)",
       r"\. Did you run some cuda functions before calling NumCudaDevices\(\) that might have already set an error\?",
       r" Error (?P<code>\d+): (?P<reason>[^(\n]+?)(?= \(Triggered internally|\s*$)"),
      "cuda_error", "failure", "unclassified_failure", "torch 1.9 - 2.13 (first release not checked)",
      "pytorch:c10/cuda/CUDAFunctions.cpp:device_count_impl",
      "RuntimeError: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling "
      "NumCudaDevices() that might have already set an error? Error 802: system not yet initialized",
      "Unexpected error from cudaGetDeviceCount()", data={"category": "cuda_setup"}),
    # the same function with no driver at all (cudaErrorInsufficientDriver and no driver version), and torch's check
    # that at least one GPU is visible (device_count_ensure_non_zero: CUDA_VISIBLE_DEVICES empty, a container without
    # the GPUs)
    M("cuda.no_gpu_visible",
      r"Found no NVIDIA driver on your system|No CUDA GPUs are available",
      "cuda_error", "failure", "unclassified_failure", "torch 1.0 - 2.13",
      "pytorch:c10/cuda/CUDAFunctions.cpp:device_count_impl, device_count_ensure_non_zero",
      "RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed a "
      "driver from http://www.nvidia.com/Download/index.aspx", "Found no NVIDIA driver on your system",
      data={"category": "cuda_setup"}, anchor="Found no NVIDIA driver on your system|No CUDA GPUs are available"),
    # ATen's device-properties check (aten/src/ATen/cuda/CUDAContext.cpp getDeviceProperties, AT_ASSERT): a device
    # index at or past the GPUs the runtime initialised (more local ranks than visible GPUs, or a GPU NVML lists
    # that the runtime could not start); torch/cuda/__init__.py re-raises it from a lazy call as
    # `DeferredCudaCallError: CUDA call failed lazily at initialization with error: ...`
    M("cuda.device_index_out_of_range",
      r"device >= 0 && device < num_gpus INTERNAL ASSERT FAILED",
      "cuda_error", "failure", "unclassified_failure", "torch 1.0 - 2.13",
      "pytorch:aten/src/ATen/cuda/CUDAContext.cpp:getDeviceProperties",
      "RuntimeError: device >= 0 && device < num_gpus INTERNAL ASSERT FAILED at \"../aten/src/ATen/cuda/"
      "CUDAContext.cpp\":50, please report a bug to PyTorch. device=4, num_gpus=4",
      "device >= 0 && device < num_gpus INTERNAL ASSERT FAILED", data={"category": "cuda_setup"}),
    # ---- the error's name, then its text: CuPy's CUDARuntimeError / CUDADriverError (cupy_backends/cuda/api/
    # runtime.pyx, driver.pyx: `<cudaGetErrorName>: <cudaGetErrorString>`, `<cuGetErrorName>: <cuGetErrorString>`) and
    # the HIP names of the same (cupy on ROCm, hipGetErrorName)
    M("cuda.named_error",
      r"\b(?P<error_name>cudaError(?!MemoryAllocation\b)[A-Z]\w*|CUDA_ERROR_(?!OUT_OF_MEMORY\b)[A-Z_]+|"
      r"hipError(?!OutOfMemory\b)[A-Z]\w*)\)?: (?P<reason>[a-z][^\n]*?)\.?\s*$",
      "cuda_error", "failure", "dropped_rank", "CuPy 7 - 13", "cupy:cupy_backends/cuda/api/runtime.pyx:CUDARuntimeError;"
      " cupy_backends/cuda/api/driver.pyx:CUDADriverError",
      "cupy_backends.cuda.api.runtime.CUDARuntimeError: cudaErrorIllegalAddress: an illegal memory access was "
      "encountered", "cudaErrorIllegalAddress: an illegal", anchor="cudaError|CUDA_ERROR_|hipError"),
    M("cuda.named_out_of_memory",
      r"\b(?:cudaErrorMemoryAllocation|CUDA_ERROR_OUT_OF_MEMORY|hipErrorOutOfMemory): out of memory",
      "oom", "failure", "oom", "CuPy 7 - 13", "cupy:cupy_backends/cuda/api/runtime.pyx:CUDARuntimeError",
      "cupy_backends.cuda.api.runtime.CUDARuntimeError: cudaErrorMemoryAllocation: out of memory",
      "cudaErrorMemoryAllocation: out of memory", data={"oom_kind": "cuda"},
      anchor="cudaErrorMemoryAllocation: |CUDA_ERROR_OUT_OF_MEMORY: |hipErrorOutOfMemory: "),
    # ---- the NVIDIA HPC SDK's (PGI's) accelerator runtime, under OpenACC, CUDA Fortran and stdpar programs: a driver
    # call that failed ends the process with `Accelerator Fatal Error: call to <cu call> returned error <CUresult>`,
    # then (NVHPC 20+) ` (<cuGetErrorName>): <cuGetErrorString>`, (PGI) `: <text>`. Error 2 is CUDA_ERROR_OUT_OF_MEMORY
    M("cuda.nvhpc_out_of_memory",
      (r"Accelerator Fatal Error: call to (?P<call>cu\w+) returned error 2\b",
       r"(?: \(CUDA_ERROR_OUT_OF_MEMORY\))?: (?P<reason>[Oo]ut of memory)"),
      "oom", "failure", "oom", "NVHPC 20+, PGI before it (as printed)", "nvhpc:libacccuda (closed source)",
      "Accelerator Fatal Error: call to cuMemAlloc returned error 2 (CUDA_ERROR_OUT_OF_MEMORY): Out of memory",
      "Accelerator Fatal Error: call to cuMemAlloc returned error 2", data={"oom_kind": "cuda"},
      anchor="Accelerator Fatal Error: call to "),
    M("cuda.nvhpc_call_failed",
      (r"Accelerator Fatal Error: call to (?P<call>cu\w+) returned error (?!2\b)(?P<code>\d+)",
       r"(?: \((?P<error_name>CUDA_ERROR_[A-Z_]+)\))?: (?P<reason>[A-Za-z][^\n]*?)\.?\s*$"),
      "cuda_error", "failure", "dropped_rank", "NVHPC 20+, PGI before it (as printed)", "nvhpc:libacccuda (closed source)",
      "Accelerator Fatal Error: call to cuCtxCreate returned error 214 (CUDA_ERROR_ECC_UNCORRECTABLE): uncorrectable "
      "ECC error encountered", "Accelerator Fatal Error: call to cuCtxCreate returned error 214",
      anchor="Accelerator Fatal Error: call to "),
    # CuPy's memory pool when the device has no room left (cupy/cuda/memory.pyx OutOfMemoryError)
    M("cuda.cupy_out_of_memory",
      (r"Out of memory allocating [\d,]+ bytes", r" \(allocated so far: [\d,]+ bytes"),
      "oom", "failure", "oom", "CuPy 5 - 13", "cupy:cupy/cuda/memory.pyx:OutOfMemoryError",
      "cupy.cuda.memory.OutOfMemoryError: Out of memory allocating 4,294,967,296 bytes (allocated so far: "
      "12,884,901,888 bytes).", "Out of memory allocating 4,294,967,296 bytes",
      data={"oom_kind": "cuda"}, anchor="Out of memory allocating "),
    # ---- ROCclr (the HIP runtime's device layer, clr rocclr/device/rocm/rocdevice.cpp) when a queue reports an
    # error: its callback prints `Callback: Queue 0x.. aborting with error : <hsa_status_string> code: 0x..`
    # (`Device::callbackQueue aborting with error : ...` in the later clr, behind the same ClPrint prefix) and calls
    # abort(): the process dies of SIGABRT. The status names the fault: a memory aperture violation, a hardware
    # exception, an illegal instruction end the process's device work; an ISA the agent does not run is a build
    # without code for this GPU; a runtime that could not get its resources (memory) is RCCL's ROCr
    # out-of-resources (nccl.rccl_hip_oom).
    M("cuda.rocclr_queue_fault",
      # ClPrint's prefix names the process (`[pid:N tid:0x..]`, ROCm 6+) before the callback's words
      (r"(?:\[pid:(?P<pid>\d+) +tid:0x[0-9a-fA-F]+\] +(?:Callback: Queue 0x[0-9a-fA-F]+|Device::callbackQueue) a"
       r"|\ba|\bA)"
       r"borting with error : (?P<status_name>HSA_STATUS_ERROR_(?!INVALID_ISA\b|OUT_OF_RESOURCES\b)[A-Z_]+)",
       r":? (?P<reason>[^\n]*?) code: 0x[0-9a-fA-F]+"),
      "cuda_error", "failure", "dropped_rank", "ROCm 4 - 7 (clr/ROCclr; `Callback: Queue` or `Device::callbackQueue`)",
      "rocm:clr/rocclr/device/rocm/rocdevice.cpp:callbackQueue",
      ":0:rocdevice.cpp            :2984: 6545699276902 us: [pid:196431 tid:0x7f2301dff640] Callback: Queue "
      "0x7f2301400000 aborting with error : HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION: The agent attempted to access "
      "memory beyond the largest legal address. code: 0x29",
      ":0:rocdevice.cpp            :2984: 6545699276902 us: [pid:196431 tid:0x7f2301dff640] Callback: Queue "
      "0x7f2301400000 aborting with error : HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION",
      data={"category": "gpu_fault"}, anchor="borting with error : HSA_STATUS_ERROR_"),
    M("cuda.rocclr_invalid_isa",
      r"borting with error : HSA_STATUS_ERROR_INVALID_ISA\b",
      "cuda_error", "failure", "version_mismatch", "ROCm 4 - 7 (clr/ROCclr)",
      "rocm:clr/rocclr/device/rocm/rocdevice.cpp:callbackQueue",
      ":0:rocdevice.cpp            :3020: 7262982208d us:  Callback: Queue 0x77ec42100000 aborting with error : "
      "HSA_STATUS_ERROR_INVALID_ISA: The instruction set architecture is invalid. code: 0x100f",
      ":0:rocdevice.cpp            :3020: 7262982208d us:  Callback: Queue 0x77ec42100000 aborting with error : "
      "HSA_STATUS_ERROR_INVALID_ISA", data={"category": "cuda_arch"}, anchor="borting with error : HSA_STATUS_ERROR_"),
    M("cuda.rocclr_out_of_resources",
      r"borting with error : HSA_STATUS_ERROR_OUT_OF_RESOURCES\b",
      "oom", "failure", "oom", "ROCm 4 - 7 (clr/ROCclr)", "rocm:clr/rocclr/device/rocm/rocdevice.cpp",
      "rocdevice.cpp:3583: Aborting with error : HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime failed to allocate "
      "the necessary resources. Available Free mem : 24 MB",
      "Aborting with error : HSA_STATUS_ERROR_OUT_OF_RESOURCES", data={"oom_kind": "hip"},
      anchor="borting with error : HSA_STATUS_ERROR_"),
    # the HIP runtime's own log of a device allocation that did not fit (clr hipamd/src/hip_memory.cpp ihipMalloc and
    # the virtual-memory calls, LogPrintfError: printed with AMD_LOG_LEVEL >= 1, behind ClPrint's `:1:hip_memory.cpp`
    # prefix): `Allocation failed : Device memory : required :N | free :N | total :N` (`free :N| total` in the
    # VMM calls); the call returns hipErrorOutOfMemory, which torch reports as `HIP out of memory`
    M("cuda.hip_allocation_failed",
      (r"Allocation failed : Device memory : required :\s*(?P<requested_bytes>\d+)",
       r"\s*\|\s*free :(?P<free_bytes>\d+)\s*\|\s*total :(?P<total_bytes>\d+)"),
      "oom", "failure", "oom", "ROCm 5 - 7 (clr hipamd, AMD_LOG_LEVEL >= 1)", "rocm:clr/hipamd/src/hip_memory.cpp:ihipMalloc",
      ":1:hip_memory.cpp           :303 : 9616777863 us: [pid:4278  tid:0x7f7fc7dff6c0] Allocation failed : Device "
      "memory : required :68719476736 | free :2314338304 | total :68702699520",
      "Allocation failed : Device memory : required :68719476736", data={"oom_kind": "hip"},
      anchor="Allocation failed : Device memory : required :"),
]
