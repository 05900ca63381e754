"""libc.die_with_parent: a process ends when its parent dies by SIGKILL (the case no handler can see)."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from nccl_forensics import libc

CHILD = ("import signal, time\nfrom nccl_forensics.libc import die_with_parent\n"
         "die_with_parent(signal.SIGTERM)\nprint('ready', flush=True)\ntime.sleep(120)\n")
PARENT = ("import subprocess, sys\n"
          f"child = subprocess.Popen([sys.executable, '-c', {CHILD!r}], stdout=subprocess.PIPE, text=True)\n"
          "assert child.stdout.readline() == 'ready\\n'\nprint(child.pid, flush=True)\nchild.wait()\n")


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="prctl is Linux's")
def test_a_child_ends_when_its_parent_is_killed():
    parent = subprocess.Popen([sys.executable, "-c", PARENT], stdout=subprocess.PIPE, text=True,
                              env={**os.environ, "PYTHONUNBUFFERED": "1"})
    child = int(parent.stdout.readline())
    try:
        assert _alive(child)
        parent.kill()
        parent.wait()
        deadline = time.monotonic() + 30            # a bound on the wait, not a speed assert
        while _alive(child) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _alive(child)
    finally:
        if _alive(child):
            os.kill(child, signal.SIGKILL)


def test_calls_the_c_library_lacks_are_false():
    assert libc._call("no_such_function_in_libc") is False
