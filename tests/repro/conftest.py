"""Reproducer tests start real torchrun jobs; after each test nothing they started may be alive.

They take minutes; the README's test command (and CI) runs them. Skip them while iterating on something
else with `pytest -m "not repro"`.
"""
from __future__ import annotations

import importlib.util
import os
import time
import uuid

import pytest

TOKEN_ENV = "NCCLF_TEST_TOKEN"      # set during each test; every process the test starts inherits it
needs_torch = pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="torch is not installed")


def processes_with_token(token: bytes) -> list[int]:
    """Live (non-zombie) processes whose environment carries `token`: everything a test started."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as fh:
                env = fh.read()
            with open(f"/proc/{name}/stat") as fh:
                stat = fh.read()
        except OSError:
            continue
        if token in env and stat[stat.rindex(")") + 2] != "Z":
            found.append(int(name))
    return found


def cgroups_of(pid: int) -> list[str]:
    root = "/sys/fs/cgroup/memory"
    return sorted(n for n in os.listdir(root) if n.startswith(f"ncclf-{pid}-")) if os.path.isdir(root) else []


@pytest.fixture(autouse=True)
def nothing_left_behind(monkeypatch):
    """Assert that no process started during the test, and no cgroup it created, is left."""
    token = uuid.uuid4().hex
    monkeypatch.setenv(TOKEN_ENV, token)
    yield
    mark = f"{TOKEN_ENV}={token}".encode()
    deadline = time.monotonic() + 30            # generous: a loaded host is slow to reap
    while processes_with_token(mark) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert processes_with_token(mark) == [], "a process started by the test is still alive"
    assert cgroups_of(os.getpid()) == [], "a memory cgroup created by the test was not removed"
