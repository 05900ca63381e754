"""Take a live job's evidence (`ncclf capture`) and start jobs with the evidence switched on (`ncclf run`).

    from nccl_forensics.capture import capture
    result = capture(out="cap")          # every training job on this node → cap/<host>/

Modules: find (ranks from /proc, grouped by job), pyspy (side-by-side dumps), evidence (the files the job
writes), fr_pipe and debug_server (flight-recorder dumps on demand), node (kernel, GPU, interfaces, env),
manifest, bundle (one node's capture), supervise + progress (`ncclf run`), procs and tools (shared with the
reproducers: process bookkeeping, helper programs beside the interpreter).
"""
from __future__ import annotations

import importlib

_API = {
    "capture": "nccl_forensics.capture.bundle",
    "capture_job": "nccl_forensics.capture.bundle",
    "CaptureOptions": "nccl_forensics.capture.bundle",
    "find_jobs": "nccl_forensics.capture.find",
    "find_tool": "nccl_forensics.capture.tools",
}
__all__ = sorted(_API)


def __getattr__(name: str):
    if name in _API:
        return getattr(importlib.import_module(_API[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
