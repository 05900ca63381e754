"""Ctrl-C stops `diagnose` and `parse` at the default -j within a second, exit 130, and no worker is left; a
worker never outlives its parent, even one killed with SIGKILL."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

LINE = ("gpu-a:{pid}:{pid} [0] NCCL INFO AllReduce: opCount {op:x} sendbuff 0x7f0000000000 recvbuff 0x7f0000000000 "
        "count 1048576 datatype 7 op 0 root 0 comm 0x55d0c0ffee00 [nranks=2] stream 0x55d0c0ffee10\n")
PER_FILE_MB = 150


def big_logs(folder: Path, files: int = 2) -> Path:
    folder.mkdir()
    for rank in range(files):
        pid = 4000 + rank
        block = "".join(LINE.format(pid=pid, op=i) for i in range(20000)).encode()
        with open(folder / f"nccl.rank{rank}.gpu-a.{pid}.log", "wb") as fh:
            for _ in range(PER_FILE_MB * (1 << 20) // len(block) + 1):
                fh.write(block)
    return folder


def children(pid: int) -> list[int]:
    out = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            out += [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            pass
    return out


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.fixture(scope="module")
def logs(tmp_path_factory):
    return big_logs(tmp_path_factory.mktemp("big") / "logs")


@pytest.mark.parametrize("command", [["diagnose", "--full"], ["parse", "--format", "jsonl"]], ids=["diagnose", "parse"])
def test_ctrl_c_stops_and_leaves_no_worker(logs, command):
    proc = subprocess.Popen([sys.executable, "-m", "nccl_forensics", *command, str(logs), "-j", "0"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    workers: list[int] = []
    deadline = time.monotonic() + 60
    while len(workers) < 2 and time.monotonic() < deadline and proc.poll() is None:
        workers = children(proc.pid)
        time.sleep(0.05)
    assert len(workers) >= 2, "the workers never started"
    time.sleep(0.5)                                   # both are deep in their 150 MB files now
    proc.send_signal(signal.SIGINT)
    proc.wait(timeout=30)                             # a generous bound: a loaded host must not fail it
    err = proc.stderr.read()
    assert proc.returncode == 130 and ("Interrupted." in err or "Aborted." in err) and "Traceback" not in err, err
    assert _none_alive(workers)


def _none_alive(pids: list[int], within_s: float = 30) -> bool:
    """Poll until none of `pids` is alive (a generous bound, not a timing claim)."""
    deadline = time.monotonic() + within_s
    while any(alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    return not any(alive(p) for p in pids)


def test_a_worker_dies_with_a_parent_killed_by_sigkill(logs):
    proc = subprocess.Popen([sys.executable, "-m", "nccl_forensics", "diagnose", "--full", str(logs), "-j", "2"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    workers: list[int] = []
    deadline = time.monotonic() + 60
    while len(workers) < 2 and time.monotonic() < deadline and proc.poll() is None:
        workers = children(proc.pid)
        time.sleep(0.05)
    assert len(workers) >= 2
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)
    deadline = time.monotonic() + 30                  # generous: a loaded host must not fail it
    while any(alive(w) for w in workers) and time.monotonic() < deadline:
        time.sleep(0.05)
    left = [w for w in workers if alive(w)]
    for w in left:
        os.kill(w, signal.SIGKILL)
    assert left == [], "a worker outlived its parent"
