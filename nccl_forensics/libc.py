"""The few glibc/Linux calls ncclf makes through ctypes, each a no-op (False) where the C library lacks it."""
from __future__ import annotations

import ctypes
import os
from functools import cache

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
M_MMAP_THRESHOLD = -3


@cache
def _libc() -> ctypes.CDLL | None:
    try:
        return ctypes.CDLL(None, use_errno=True)
    except OSError:                         # pragma: no cover - no C library to load
        return None


def _call(name: str, *args: int) -> bool:
    fn = getattr(_libc(), name, None)
    return fn is not None and fn(*args) in ((0,) if name == "prctl" else (1,))


def prctl(option: int, value: int) -> bool:
    """prctl(option, value): whether it took effect (False off Linux)."""
    return _call("prctl", option, value, 0, 0, 0)


def malloc_trim() -> bool:
    """Give the heap's free pages back to the system (glibc keeps them)."""
    return _call("malloc_trim", 0)


def mallopt(param: int, value: int) -> bool:
    return _call("mallopt", param, value)


def die_with_parent(sig: int) -> None:
    """Have Linux send this process `sig` when its parent dies, however it dies (SIGKILL included): a pool
    worker, a probe rank, a reproducer's rank (torchrun's agent starts its ranks without one, so an agent
    killed by SIGKILL would leave them running under PID 1, a rank blocked in a collective for good). If the
    parent died before the signal was set, this process exits at once."""
    parent = os.getppid()
    if prctl(PR_SET_PDEATHSIG, sig) and os.getppid() != parent:
        os._exit(1)
