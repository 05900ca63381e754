"""A host-memory leak on one rank: it caches every buffer it builds until the kernel (or the allocator)
stops it.

Hand-shake with the harness through the private control directory: this rank writes `oom-ready`
(its pid), the harness moves it into a small memory cgroup and answers `oom-go` with `cgroup`, or with
`rlimit` when cgroups are not writable; then this rank caps its own address space with RLIMIT_AS.
"""
from __future__ import annotations

import os
import resource
import time
from pathlib import Path

import torch

from .plan import CONTROL_ENV

CHUNK_FLOATS = 4 * 1024 * 1024           # 16 MiB per cached buffer
RLIMIT_HEADROOM = 256 * 1024 * 1024


def cache_batches_forever() -> None:
    _wait_for_harness()
    cache = []
    while True:
        cache.append(torch.ones(CHUNK_FLOATS))  # touched pages, so the memory is really used


def _wait_for_harness(timeout_s: float = 20.0) -> None:
    control = os.environ.get(CONTROL_ENV)
    if not control:
        return
    Path(control, "oom-ready.tmp").write_text(str(os.getpid()))
    os.replace(Path(control, "oom-ready.tmp"), Path(control, "oom-ready"))
    go = Path(control, "oom-go")
    deadline = time.monotonic() + timeout_s
    while not go.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    if go.exists() and go.read_text().strip() == "rlimit":
        used = _virtual_memory_bytes()
        resource.setrlimit(resource.RLIMIT_AS, (used + RLIMIT_HEADROOM, used + RLIMIT_HEADROOM))


def _virtual_memory_bytes() -> int:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")


def cache_on_gpu_forever(device) -> None:
    """The GPU flavour: keep activations of every step on the device until CUDA runs out of memory."""
    cache = []
    while True:
        cache.append(torch.empty(256 * 1024 * 1024, dtype=torch.float32, device=device))
