"""Recognise the exception messages that name a cause: OOM, gloo transport errors, DistBackendError.

The line shapes are in grammars/traceback.lark; this module reads the free-text *message* of an exception
(or a continuation line under it) with the patterns of PyTorch's c10/cuda/CUDACachingAllocator.cpp and
ProcessGroupGloo, checked against the gloo texts torch 2.13 prints here
(sample_logs/evidence/tracebacks/real/). `recognise` returns (kind, data) pairs for `oom`, `gloo_error` and
`dist_backend_error` events; it never raises.
"""
from __future__ import annotations

import re
from typing import Any

_UNITS = {"bytes": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40, "PiB": 1 << 50}
_SIZE = r"([\d.]+ (?:bytes|KiB|MiB|GiB|TiB|PiB))"
_GPU_OOM = re.compile(r"\b(CUDA|HIP) out of memory\. Tried to allocate " + _SIZE)
# ≤ 2.0: "(GPU 0; 11.17 GiB total capacity; 10.90 GiB already allocated; 576.00 KiB free; 30.96 MiB cached)"
_OLD_DETAIL = re.compile(
    r"\(GPU (\d+); " + _SIZE + r" total capacity; " + _SIZE + r" already allocated; " + _SIZE + r" free;"
    r"(?: " + _SIZE + r" (?:reserved in total by PyTorch|cached))?")
# 2.1+: "GPU 0 has a total capac(i)ty of 23.65 GiB of which 11.06 MiB is free."
_NEW_DETAIL = re.compile(r"GPU (\d+) has a total capac(?:i)?ty of " + _SIZE + r" of which " + _SIZE + r" is free")
_NEW_ALLOCATED = re.compile(r"Of the allocated memory " + _SIZE + r" is allocated by PyTorch, (?:with "
                            + _SIZE + r" allocated in private pools \([^)]*\), )?and " + _SIZE
                            + r" is reserved by PyTorch but unallocated")
_CPU_OOM = re.compile(r"DefaultCPUAllocator: can't allocate memory: you tried to allocate (\d+) bytes")
_NCCL_CUDA_OOM = re.compile(r"\bCuda failure(?: \d+)? 'out of memory'")
_CUDA_ERROR_OOM = re.compile(r"\b(?:CUDA|HIP) error: out of memory")
_GLOO_SIZE = re.compile(r"op\.preamble\.length <= op\.nbytes\. (\d+) vs (\d+)")
_GLOO_TIMEOUT = re.compile(r"Timed out waiting (\d+)ms for (recv|send) operation to complete")
_GLOO_CLOSED = re.compile(r"Connection closed by peer(?: \[([^\]]*)\]:(\d+))?")
_GLOO_RESET = re.compile(r"Read error(?: \[([^\]]*)\]:(\d+))?:? .*?Connection reset by peer")
# A CUDA/HIP error other than OOM ("CUDA error: an illegal memory access was encountered"), or only its standard
# tail when the message itself was cut: that rank's process crashed on the device.
_CUDA_ERROR = re.compile(r"\b(?:CUDA|HIP) error: (?!out of memory)(.+?)(?:\s+(?:CUDA kernel errors might|Search for `|"
                         r"For debugging consider|Compile with `)|\s*$)")
_CUDA_TAIL = re.compile(r"For debugging consider passing (?:CUDA|HIP)_LAUNCH_BLOCKING=1|Compile with `TORCH_USE_(?:CUDA|HIP)_DSA`")
# NCCL's result codes as torch raises them: "NCCL error in: …, unhandled system error (run with NCCL_DEBUG=INFO for
# details), NCCL version 2.18.1 ncclSystemError: System call (e.g. socket, malloc) or external library call failed …
# Last error: socketProgress: Connection closed by remote peer …"
_NCCL_RESULT = re.compile(r"\b(nccl(?:UnhandledCudaError|SystemError|InternalError|InvalidArgument|InvalidUsage|"
                          r"RemoteError|InProgress))\b")
_LAST_ERROR = re.compile(r"Last error:\s*(\S.*)")
_QUICK = ("out of memory", "can't allocate memory", "gloo", "Timed out waiting", "Connection ",
          "DistBackendError", "op.preamble", "CUDA error", "HIP error", "_LAUNCH_BLOCKING", "_DSA`", "nccl",
          "Last error")


def size_bytes(text: str | None) -> int | None:
    """'20.00 MiB' → 20971520 (format_size prints two decimals, so this is exact to ~1%)."""
    if not text:
        return None
    number, unit = text.split(" ")
    return int(round(float(number) * _UNITS[unit]))


def recognise(exc_type: str | None, message: str) -> list[tuple[str, dict[str, Any]]]:
    """The cause events one exception message (or continuation line) names, in a fixed order."""
    found: list[tuple[str, dict[str, Any]]] = []
    if exc_type and re.split(r"[.:]+", exc_type)[-1] == "DistBackendError":
        found.append(("dist_backend_error", {"message": message}))
    if not any(q in message for q in _QUICK):
        return found
    oom = _oom(message)
    if oom is not None:
        found.append(("oom", oom))
    gloo = _gloo(message)
    if gloo is not None:
        found.append(("gloo_error", gloo))
    cuda = _cuda_error(message)
    if cuda is not None:
        found.append(("cuda_error", cuda))
    nccl = nccl_result(message)
    if nccl is not None:
        found.append(("nccl_error", nccl))
    return found


def _cuda_error(message: str) -> dict[str, Any] | None:
    m = _CUDA_ERROR.search(message)
    if m:
        return {"message": m.group(1).strip(" ."), "tail_only": False}
    if _CUDA_TAIL.search(message):
        return {"message": None, "tail_only": True}
    return None


def nccl_result(message: str) -> dict[str, Any] | None:
    """NCCL's result code and the "Last error:" NCCL gave with it (the cause, when on the same text)."""
    m = _NCCL_RESULT.search(message)
    last = _LAST_ERROR.search(message)
    if m is None and last is None:
        return None
    return {"code": m.group(1) if m else None, "last_error": last.group(1).strip() if last else None}


def _oom(message: str) -> dict[str, Any] | None:
    data: dict[str, Any] = dict.fromkeys(("requested_bytes", "gpu", "total_bytes", "free_bytes",
                                          "allocated_bytes", "reserved_bytes"))
    m = _GPU_OOM.search(message)
    if m:
        data.update(oom_kind=m.group(1).lower(), requested_bytes=size_bytes(m.group(2)))
        _gpu_detail(message, data)
        return {"oom_kind": data.pop("oom_kind"), **data}
    m = _CPU_OOM.search(message)
    if m:
        return {"oom_kind": "cpu_allocator", **data, "requested_bytes": int(m.group(1))}
    if _NCCL_CUDA_OOM.search(message):
        return {"oom_kind": "nccl_cuda", **data}
    if _CUDA_ERROR_OOM.search(message):
        return {"oom_kind": "cuda_error", **data}
    return None


def _gpu_detail(message: str, data: dict[str, Any]) -> None:
    m = _OLD_DETAIL.search(message)
    if m:
        data.update(gpu=int(m.group(1)), total_bytes=size_bytes(m.group(2)), allocated_bytes=size_bytes(m.group(3)),
                    free_bytes=size_bytes(m.group(4)), reserved_bytes=size_bytes(m.group(5)))
        return
    m = _NEW_DETAIL.search(message)
    if m:
        data.update(gpu=int(m.group(1)), total_bytes=size_bytes(m.group(2)), free_bytes=size_bytes(m.group(3)))
    m = _NEW_ALLOCATED.search(message)
    if m:
        allocated = size_bytes(m.group(1)) or 0
        data.update(allocated_bytes=allocated, reserved_bytes=allocated + (size_bytes(m.group(3)) or 0))


def _gloo(message: str) -> dict[str, Any] | None:
    data: dict[str, Any] = {"category": None, "expected_bytes": None, "received_bytes": None,
                            "timeout_ms": None, "peer": None, "op": None}
    m = _GLOO_SIZE.search(message)
    if m:   # op.preamble.length (what arrived) <= op.nbytes (the local buffer)
        return {**data, "category": "size_mismatch", "received_bytes": int(m.group(1)),
                "expected_bytes": int(m.group(2))}
    if "Received data size doesn't match expected size" in message:
        return {**data, "category": "size_mismatch"}
    m = _GLOO_TIMEOUT.search(message)
    if m:
        return {**data, "category": "timeout", "timeout_ms": int(m.group(1)), "op": m.group(2)}
    # other transports say "Connection closed/reset by peer" too: ask for gloo's `[ip]:port` or its path
    m = _GLOO_CLOSED.search(message)
    if m and (m.group(2) or "gloo" in message):
        return {**data, "category": "connection_closed", "peer": _peer(m)}
    m = _GLOO_RESET.search(message)
    if m and (m.group(2) or "gloo" in message):
        return {**data, "category": "connection_reset", "peer": _peer(m)}
    return None


def _peer(m: re.Match[str]) -> str | None:
    return f"{m.group(1)}:{m.group(2)}" if m.group(2) else None
