"""Evidence capture for the reproducers' own jobs: `ncclf capture`'s path, plus the trainers' dump signal.

On a hang the harness first asks every live rank for its flight-recorder buffer with SIGUSR1 (the
trainers' own opt-in trigger, frdump.py: gloo has no dump path of its own, and the harness owns the
job), then runs the same capture as `ncclf capture` on the job's process tree, in place: py-spy dumps
(`<out>/pyspy/rank<R>.py-spy-<host>-<pid>.txt`), the dumps the ranks wrote (`<out>/fr/nccl_trace_rank_<R>`),
the node's context and `<out>/manifest.json`. py-spy is required (repro.py checks it up front); a dump
that fails is kept with py-spy's own message and listed in the manifest, never skipped silently.
"""
from __future__ import annotations

import signal
import time
from pathlib import Path

from nccl_forensics.capture import node
from nccl_forensics.capture.bundle import Bundle, CaptureOptions, capture_job
from nccl_forensics.capture.find import find_jobs
from nccl_forensics.capture.procs import Proc, is_alive, rank_of, signal_proc

FR_WAIT_S = 5.0
PYSPY_TIMEOUT_S = 20.0


def capture_hang(launcher_pid: int, workers: list[Proc], out: Path, cgroup: str | None) -> Bundle | None:
    """Flight-recorder dumps by signal, then the capture of the job under `launcher_pid` into `out`."""
    flight_recorder_dumps(workers, out / "fr")
    found = find_jobs([launcher_pid])
    if not found.jobs:
        return None
    options = CaptureOptions(timeout_s=PYSPY_TIMEOUT_S, debug_server=False, cgroup=cgroup)
    return capture_job(found.jobs[0], out, node.host_label(), options, found)


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


def oom_kill_lines(since: float, pids: set[int], cgroup_name: str | None) -> list[str]:
    """The kernel lines since `since` (a kernel_log_mark) about `pids` or our cgroup (OOM reports first of all)."""
    return node.job_kernel_lines(node.kernel_log()[0], since, pids, cgroup_name)


kernel_log_mark = node.kernel_log_mark
