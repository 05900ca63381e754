"""A throw-away cgroup-v1 memory cgroup with a small limit, for the cgroup-oom scenario.

`MemoryCgroup` is a context manager: it creates `/sys/fs/cgroup/memory/ncclf-<id>/`, and always
removes it on exit. When the controller is not writable, `usable` is False and the caller falls back to
RLIMIT_AS. Memory already charged elsewhere stays there (v1 does not move charges by default), so the
limit applies to what the process allocates after the move.
"""
from __future__ import annotations

import os
import time
from pathlib import Path

MEMORY_ROOT = Path("/sys/fs/cgroup/memory")


class MemoryCgroup:
    def __init__(self, limit_bytes: int, root: Path = MEMORY_ROOT):
        self.name = f"ncclf-{os.getpid()}-{time.monotonic_ns() % 10**6}"
        self.path = root / self.name
        self.limit_bytes = limit_bytes
        self.usable = False
        self.reason = ""

    def __enter__(self) -> "MemoryCgroup":
        try:
            self.path.mkdir()
            (self.path / "memory.limit_in_bytes").write_text(str(self.limit_bytes))
            self.usable = True
        except OSError as exc:
            self.reason = f"{self.path}: {exc.strerror or exc}"
        return self

    def add(self, pid: int) -> None:
        (self.path / "cgroup.procs").write_text(str(pid))

    def __exit__(self, *exc) -> None:
        self.remove()

    def remove(self, wait_s: float = 5.0) -> None:
        """rmdir the cgroup; a just-killed task may take a moment to leave it."""
        deadline = time.monotonic() + wait_s
        while self.path.exists():
            try:
                self.path.rmdir()
                return
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
