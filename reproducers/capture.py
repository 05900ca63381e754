"""Evidence capture from outside a hung job: py-spy dumps, flight-recorder dumps, kernel OOM lines.

Files land where a user would put them: `<out>/pyspy/rank<R>.py-spy-<host>-<pid>.txt`,
`<out>/fr/nccl_trace_rank_<R>` (written by the ranks themselves, see frdump.py), `<out>/dmesg.txt`.
"""
from __future__ import annotations

import re
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

from .procs import Proc, is_alive, rank_of, signal_proc

PYSPY_TIMEOUT_S = 20
FR_WAIT_S = 5.0
_KILLED = re.compile(r"Killed process (\d+) ")
_STAMP = re.compile(r"\[\s*(\d+\.\d+)\]")          # dmesg's "[22163.588510] " (seconds since boot)


def host_name() -> str:
    return socket.gethostname().split(".")[0].replace("-", "_")


def pyspy_dumps(workers: list[Proc], out: Path) -> list[Path]:
    """`py-spy dump --pid P` of every live worker, run side by side; returns the files written."""
    exe = shutil.which("py-spy")
    if exe is None:
        return []
    (out / "pyspy").mkdir(parents=True, exist_ok=True)
    running = []
    for proc in workers:
        if is_alive(proc):
            path = out / "pyspy" / f"rank{rank_of(proc.pid)}.py-spy-{host_name()}-{proc.pid}.txt"
            fh = open(path, "wb")
            running.append((path, fh, subprocess.Popen([exe, "dump", "--pid", str(proc.pid)],
                                                       stdout=fh, stderr=subprocess.STDOUT)))
    for path, fh, child in running:
        try:
            child.wait(timeout=PYSPY_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()
        fh.close()
    return [path for path, _, _ in running]


def flight_recorder_dumps(workers: list[Proc], fr_dir: Path) -> list[Path]:
    """Ask every live worker for its flight-recorder buffer (SIGUSR1) and wait for the files."""
    asked = {}
    for proc in workers:
        rank = rank_of(proc.pid)
        if is_alive(proc) and rank is not None:
            path = fr_dir / f"nccl_trace_rank_{rank}"
            asked[path] = path.stat().st_mtime_ns if path.exists() else 0
            signal_proc(proc, signal.SIGUSR1)
    deadline = time.monotonic() + FR_WAIT_S
    while time.monotonic() < deadline:
        if all(p.exists() and p.stat().st_mtime_ns != before for p, before in asked.items()):
            break
        time.sleep(0.1)
    return sorted(p for p in asked if p.exists())


def kernel_log_mark() -> float:
    """The timestamp of the kernel log's last line now: the start mark for `oom_kill_lines`. A time, not a
    line count: once the ring buffer is full, old lines drop out as new ones come in (seen on a long-lived
    machine), so a count would skip the very report we wait for."""
    for line in reversed(_dmesg()):
        m = _STAMP.match(line)
        if m:
            return float(m.group(1))
    return -1.0


def oom_kill_lines(since: float, pids: set[int], cgroup_name: str | None) -> list[str]:
    """The OOM reports logged after the `since` mark that killed one of `pids` or hit our cgroup."""
    kept, block = [], []
    for line in _dmesg():
        m = _STAMP.match(line)
        if m and float(m.group(1)) <= since:
            continue
        if "invoked oom-killer" in line:
            block = []
        block.append(line)
        m = _KILLED.search(line)
        if m:
            if int(m.group(1)) in pids or (cgroup_name and any(cgroup_name in b for b in block)):
                kept.extend(block)
            block = []
    return kept


def _dmesg() -> list[str]:
    try:
        done = subprocess.run(["dmesg"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return []
    return done.stdout.splitlines() if done.returncode == 0 else []
