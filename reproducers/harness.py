"""Run one torchrun job, watch it from outside, capture the evidence of a hang, and end it cleanly.

`run_job(spec)` starts `torchrun … --log-dir <out>/torchrun_logs --tee 3` in its own session with the
console captured to `<out>/console.log`. A hang is "no new progress line for `hang_after_s` seconds":
then every live rank gets a flight-recorder dump request and the job is captured in place by the same
code as `ncclf capture` (capture.py). The job is then ended (SIGTERM to torchrun's session, SIGKILL to
anything of ours left), and the harness checks that no process it started is alive. Ctrl-C or SIGTERM at
any moment runs the same clean-up.
"""
from __future__ import annotations

import re
import socket
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

from nccl_forensics.capture.procs import Proc, descendants, interrupt_on_sigterm, is_alive, stop_tree
from nccl_forensics.capture.tools import local_torchrun_command as launcher_command

from . import capture
from .cgroup import MemoryCgroup

POLL_S = 0.2
STARTUP_S = 90.0
TERM_GRACE_S = 8.0
HANG_AFTER_S = 5.0         # no new progress line for this long = a hang
OOM_LIMIT_BYTES = 96 * 1024 * 1024
_PROGRESS = re.compile(rb"^\[default(\d+)\]:step (\d+) \|", re.M)


@dataclass
class JobSpec:
    script: Path
    args: list[str]
    nproc: int
    out: Path
    env: dict[str, str]
    steps: int = 0                    # steps the trainer runs; once every rank printed them, no hang check
    hang_after_s: float = HANG_AFTER_S
    deadline_s: float = 180.0
    monitor_interval_s: float = 2.0
    oom_handshake: bool = False
    control: Path | None = None


@dataclass
class JobOutcome:
    how: str                          # "exited" | "hung" | "deadline"
    torchrun_rc: int | None = None
    last_step: int = 0
    pyspy: list[Path] = field(default_factory=list)
    fr: list[Path] = field(default_factory=list)
    oom_lines: int = 0
    oom_mode: str | None = None       # "cgroup" | "rlimit" (cgroup-oom only)
    leftovers: list[int] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def torchrun_command(spec: JobSpec) -> list[str]:
    return launcher_command() + [
        "--nproc_per_node", str(spec.nproc), "--master_addr", "127.0.0.1", "--master_port", str(free_port()),
        "--log-dir", str(spec.out / "torchrun_logs"), "--tee", "3",
        "--monitor-interval", str(spec.monitor_interval_s), str(spec.script), *spec.args,
    ]


def run_job(spec: JobSpec) -> JobOutcome:
    mark = capture.kernel_log_mark()
    seen: dict[int, Proc] = {}
    outcome = JobOutcome(how="exited")
    with interrupt_on_sigterm(), MemoryCgroup(OOM_LIMIT_BYTES) as cgroup:
        with open(spec.out / "console.log", "wb") as console:
            proc = subprocess.Popen(torchrun_command(spec), stdout=console, stderr=subprocess.STDOUT,
                                    stdin=subprocess.DEVNULL, env={**spec.env, "PYTHONUNBUFFERED": "1"},
                                    start_new_session=True)
        try:
            outcome.how, outcome.last_step = _watch(proc, spec, seen, cgroup, outcome)
            if outcome.how != "exited":
                _capture(proc, seen, spec, cgroup, outcome)
        finally:
            _track(proc, seen)
            outcome.torchrun_rc = stop_tree(proc, seen, TERM_GRACE_S)
    outcome.leftovers = sorted(p.pid for p in seen.values() if is_alive(p))
    outcome.fr = finished_dumps(spec.out / "fr", outcome.notes)
    lines = capture.oom_kill_lines(mark, set(seen), cgroup.name if outcome.oom_mode == "cgroup" else None)
    if lines:
        (spec.out / "dmesg.txt").write_text("\n".join(lines) + "\n")
    outcome.oom_lines = len(lines)
    return outcome


def finished_dumps(fr_dir: Path, notes: list[str]) -> list[Path]:
    """The flight-recorder dumps in `fr_dir`. A `.tmp` file is a dump its rank was stopped while writing
    (frdump writes there, then renames): it is the harness's own leftover, not the job's, and is removed."""
    for part in sorted(fr_dir.glob("*.tmp")):
        part.unlink(missing_ok=True)
        notes.append(f"{part.stem}: the rank was stopped while writing its dump; the unfinished file was removed")
    return sorted(p for p in fr_dir.glob("nccl_trace_rank_*") if p.is_file())


def _watch(proc, spec: JobSpec, seen, cgroup, outcome: JobOutcome) -> tuple[str, int]:
    console, offset, steps = spec.out / "console.log", 0, {}
    start = last_progress = time.monotonic()
    while True:
        _track(proc, seen)
        offset, new = _read_progress(console, offset)
        if new:
            steps.update(new)
            last_progress = time.monotonic()
        last_step = max(steps.values(), default=0)
        if spec.oom_handshake:
            _oom_handshake(spec.control, cgroup, outcome)
        if proc.poll() is not None:
            return "exited", last_step
        if _looks_hung(spec, steps, time.monotonic() - last_progress, _workers(proc, seen)):
            return "hung", last_step
        if time.monotonic() - start > spec.deadline_s:
            return "deadline", last_step
        time.sleep(POLL_S)


def _looks_hung(spec: JobSpec, steps: dict[int, int], idle: float, live: list[Proc]) -> bool:
    """No progress for a while. While a rank has already exited, torchrun is about to end the job
    itself, so wait longer before calling it a hang (on a loaded machine its monitor can be slow)."""
    if len(steps) == spec.nproc and min(steps.values()) >= spec.steps:
        return False                          # every rank printed its last step: the job is finishing
    limit = spec.hang_after_s if steps else STARTUP_S
    if len(live) < spec.nproc:
        limit *= 4
    return idle > limit


def _capture(proc, seen, spec: JobSpec, cgroup: MemoryCgroup, outcome: JobOutcome) -> None:
    bundle = capture.capture_hang(proc.pid, _workers(proc, seen), spec.out,
                                  cgroup.name if outcome.oom_mode == "cgroup" else None)
    if bundle is None:
        outcome.notes.append("capture found no rank process under torchrun")
        return
    outcome.pyspy = sorted(d.path for d in bundle.stacks if d.path is not None)
    outcome.notes.extend(f"py-spy rank {d.rank}: {d.status}: {d.reason}" for d in bundle.stacks if d.status != "ok")


def _read_progress(console: Path, offset: int) -> tuple[int, dict[int, int]]:
    """New whole lines of the console since `offset`: (new offset, {local rank: last step printed})."""
    with open(console, "rb") as fh:
        fh.seek(offset)
        chunk = fh.read()
    end = chunk.rfind(b"\n") + 1
    return offset + end, {int(local): int(step) for local, step in _PROGRESS.findall(chunk[:end])}


def _oom_handshake(control: Path, cgroup: MemoryCgroup, outcome: JobOutcome) -> None:
    ready, go = control / "oom-ready", control / "oom-go"
    if not ready.exists() or go.exists():
        return
    pid, mode = int(ready.read_text()), "rlimit"
    if cgroup.usable:
        try:
            cgroup.add(pid)
            mode = "cgroup"
        except OSError as exc:
            cgroup.reason = f"{cgroup.path / 'cgroup.procs'}: {exc.strerror or exc}"
    if mode == "rlimit":
        outcome.notes.append(f"cgroups not writable ({cgroup.reason}); fell back to an RLIMIT_AS allocation failure")
    outcome.oom_mode = mode
    go.write_text(mode)


def _track(proc, seen: dict[int, Proc]) -> None:
    for child in descendants(proc.pid):
        seen.setdefault(child.pid, child)


def _workers(proc, seen: dict[int, Proc]) -> list[Proc]:
    _track(proc, seen)
    return [p for p in seen.values() if p.ppid == proc.pid and is_alive(p)]
