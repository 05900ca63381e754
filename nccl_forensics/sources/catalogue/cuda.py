"""The CUDA runtime's and driver's error strings (cudaGetErrorString), as torch raises them (`CUDA error: <text>`,
c10/cuda/CUDAException.cpp) and as the libraries on top print them (cuBLAS, cuDNN status names), plus HIP's.

Read in the CUDA runtime API reference (enum cudaError) and pytorch c10/cuda/CUDAException.{h,cpp},
c10/cuda/CUDAFunctions.cpp, aten/src/ATen/cuda/CUDABlas.cpp (CUBLAS_STATUS_*), aten/src/ATen/cudnn/Exceptions.h.
"""
from __future__ import annotations

from . import Message as M

_SRC = "pytorch:c10/cuda/CUDAException.cpp:c10_cuda_check_implementation"
# cudaGetErrorString texts that end a process's device work (a kernel faulted, the device is gone).
_FATAL = ("an illegal memory access was encountered", "device-side assert triggered", "unspecified launch failure",
          "an illegal instruction was encountered", "misaligned address", "uncorrectable ECC error encountered",
          "the launch timed out and was terminated", "operation not permitted when stream is capturing",
          "all CUDA-capable devices are busy or unavailable", "no CUDA-capable device is detected",
          "invalid device ordinal", "invalid device function", "no kernel image is available for execution on the device",
          "CUDA driver version is insufficient for CUDA runtime version", "unknown error", "system not yet initialized",
          "an illegal memory access", "invalid argument", "initialization error", "invalid configuration argument",
          "hardware stack error", "warp illegal address", "peer access is not supported between these two devices")

MESSAGES = [
    M("cuda.runtime_error",
      # the text ends where torch's standard tail begins (or the line ends)
      r"(?:CUDA|HIP) error: (?!out of memory)(?P<reason>(?:" + "|".join(_FATAL).replace(" ", r"\ ") +
      r")(?=[.\s]|$)|[a-z](?:.*?)(?=\.?\s+(?:CUDA kernel errors might|Search for `|For debugging consider|"
      r"Compile with `)|\.?\s*$))",
      "cuda_error", "failure", "dropped_rank", "CUDA 10 - 13, torch 1.0 - 2.13", _SRC,
      "RuntimeError: CUDA error: an illegal memory access was encountered", "CUDA error: an illegal",
      anchor="CUDA error: |HIP error: "),
    # the CUDACHECK macros of nccl-tests (src/common.h: `%s: Test CUDA failure %s:%d '%s'`, the host first) and of
    # the code that copied NCCL's examples (vLLM/SGLang csrc/custom_all_reduce.cuh, TensorRT-LLM, apex:
    # `Failed: Cuda error %s:%d '%s'`): cudaGetErrorString's text between quotes, then the process exits
    M("cuda.check_macro",
      (r"(?:Test CUDA failure|Failed: (?:CUDA|Cuda) error) (?P<src_file>[^\s:']+):(?P<src_line>\d+)",
       r" '(?P<reason>[^']*)'?"),
      "cuda_error", "failure", "dropped_rank", "nccl-tests 1.0 - 2.17; vLLM 0.3+, SGLang, TensorRT-LLM custom all-reduce",
      "nccl-tests:src/common.h:CUDACHECK; vllm:csrc/custom_all_reduce.cuh:CUDACHECK",
      "gpu5: Test CUDA failure common.cu:1045 'an illegal memory access was encountered'",
      "gpu5: Test CUDA failure common.cu:1045", anchor="Test CUDA failure|Failed: CUDA error|Failed: Cuda error"),
    M("cuda.out_of_memory_error",
      r"(?:CUDA|HIP) error: out of memory",
      "oom", "failure", "oom", "CUDA 10 - 13, torch 1.0 - 2.13", _SRC,
      "RuntimeError: CUDA error: out of memory", "CUDA error: out of memory", data={"oom_kind": "cuda_error"},
      anchor="CUDA error: |HIP error: "),
    M("cuda.launch_blocking_hint",
      r"For debugging consider passing (?:CUDA|HIP)_LAUNCH_BLOCKING=1|Compile with `TORCH_USE_(?:CUDA|HIP)_DSA`",
      "cuda_error", "failure", "dropped_rank", "torch 1.6 - 2.13", _SRC,
      "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be "
      "incorrect. For debugging consider passing CUDA_LAUNCH_BLOCKING=1", "For debugging consider passing CUDA_LAUNCH_BLOCKING=1",
      data={"tail_only": True}, anchor="_LAUNCH_BLOCKING=1|_DSA`"),
    M("cuda.cublas_status",
      r"CUBLAS_STATUS_(?P<status_name>EXECUTION_FAILED|INTERNAL_ERROR|NOT_INITIALIZED|ALLOC_FAILED|ARCH_MISMATCH)",
      "cuda_error", "failure", None, "torch 1.0 - 2.13", "pytorch:aten/src/ATen/cuda/CUDABlas.cpp",
      "RuntimeError: CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasSgemm( handle, opa, opb, m, n, k, "
      "&alpha, a, lda, b, ldb, &beta, c, ldc)`", "CUBLAS_STATUS_EXECUTION_FAILED", anchor="CUBLAS_STATUS_"),
    M("cuda.cudnn_status",
      r"CUDNN_STATUS_(?P<status_name>EXECUTION_FAILED|INTERNAL_ERROR|NOT_INITIALIZED|ALLOC_FAILED|MAPPING_ERROR)",
      "cuda_error", "failure", None, "torch 1.0 - 2.13", "pytorch:aten/src/ATen/cudnn/Exceptions.h",
      "RuntimeError: cuDNN error: CUDNN_STATUS_INTERNAL_ERROR", "CUDNN_STATUS_INTERNAL_ERROR", anchor="CUDNN_STATUS_"),
    M("cuda.device_assert",
      (r"block: \[\d+,\d+,\d+\], thread: \[\d+,\d+,\d+\] Assertion `", r"(?P<assertion>.+?)` failed"),
      "cuda_error", "failure", "dropped_rank", "CUDA 9 - 13 (device-side assert), torch 1.0 - 2.13",
      "pytorch:c10/macros/Macros.h:CUDA_KERNEL_ASSERT (the device runtime's __assertfail prints the line)",
      "/pytorch/aten/src/ATen/native/cuda/Loss.cu:242: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], "
      "thread: [5,0,0] Assertion `t >= 0 && t < n_classes` failed.",
      "block: [0,0,0], thread: [5,0,0] Assertion `", anchor="Assertion `"),
]
