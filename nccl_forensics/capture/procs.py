"""Process bookkeeping from /proc: what a process is, what it runs, and ending only the ones we started.

A process is identified by (pid, start time) so that a reused pid is never mistaken for ours. Reading
another user's `/proc/PID/environ` needs ptrace-read rights: `environ()` raises PermissionError then, so
callers can say so instead of skipping the process silently.
"""
from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
import time
from typing import NamedTuple

POLL_S = 0.1
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


class Proc(NamedTuple):
    pid: int
    ppid: int
    session: int
    start: int          # clock ticks since boot (field 22 of /proc/<pid>/stat)

    @property
    def start_s(self) -> float:
        """Start time in seconds since boot (the clock of dmesg's `[12345.678901]` stamps)."""
        return self.start / CLOCK_TICKS


def read_proc(pid: int) -> Proc | None:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            stat = fh.read()
    except OSError:
        return None
    fields = stat[stat.rindex(")") + 2:].split()
    if fields[0] == "Z":          # a zombie is dead; only its parent's wait() remains
        return None
    return Proc(pid, int(fields[1]), int(fields[3]), int(fields[19]))


def all_procs() -> list[Proc]:
    procs = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            proc = read_proc(int(name))
            if proc:
                procs.append(proc)
    return procs


def children_map(procs: list[Proc]) -> dict[int, list[Proc]]:
    children: dict[int, list[Proc]] = {}
    for proc in procs:
        children.setdefault(proc.ppid, []).append(proc)
    return children


def descendants(root: int, procs: list[Proc] | None = None) -> list[Proc]:
    """Every live process below `root` (children, grandchildren…), found by walking parent links."""
    children = children_map(all_procs() if procs is None else procs)
    found, todo = [], [root]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child.pid)
    return found


def ancestors(pid: int) -> list[int]:
    """The parent chain of `pid` up to init (excluding `pid` itself)."""
    chain = []
    proc = read_proc(pid)
    while proc is not None and proc.ppid > 0 and proc.ppid not in chain:
        chain.append(proc.ppid)
        proc = read_proc(proc.ppid)
    return chain


def is_alive(proc: Proc) -> bool:
    now = read_proc(proc.pid)
    return now is not None and now.start == proc.start


def signal_proc(proc: Proc, sig: int) -> None:
    """Send `sig` to `proc` only if that pid is still the process we started."""
    if is_alive(proc):
        try:
            os.kill(proc.pid, sig)
        except ProcessLookupError:
            pass


def owner(pid: int) -> int | None:
    """The user a process runs as (the owner of /proc/PID: its effective uid), or None once it is gone."""
    try:
        return os.stat(f"/proc/{pid}").st_uid
    except OSError:
        return None


def environ(pid: int) -> dict[str, str]:
    """The environment a process started with. Raises PermissionError / FileNotFoundError (gone)."""
    with open(f"/proc/{pid}/environ", "rb") as fh:
        raw = fh.read()
    env = {}
    for item in raw.split(b"\0"):
        name, sep, value = item.partition(b"=")
        if sep:
            env[name.decode(errors="replace")] = value.decode(errors="replace")
    return env


def cmdline(pid: int) -> list[str]:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            raw = fh.read()
    except OSError:
        return []
    return [part.decode(errors="replace") for part in raw.split(b"\0")[:-1]]


def cwd(pid: int) -> str | None:
    try:
        return os.readlink(f"/proc/{pid}/cwd")
    except OSError:
        return None


def rank_of(pid: int) -> int | None:
    """The RANK torchrun gave a worker (read from its environment), or None."""
    try:
        value = environ(pid).get("RANK")
    except OSError:
        return None
    return int(value) if value is not None and value.isdigit() else None


def stop_tree(popen: subprocess.Popen, seen: dict[int, Proc], grace_s: float) -> int:
    """End a job we started: SIGTERM to its session, then SIGKILL to every process of it we saw.

    `popen` was started with `start_new_session=True`; `seen` holds every descendant we tracked (torchrun
    puts each worker in its own session, so the session signal alone does not reach them). Returns the
    launcher's exit code.
    """
    if popen.poll() is None:
        seen.update((p.pid, p) for p in descendants(popen.pid))
        with contextlib.suppress(ProcessLookupError):
            os.killpg(popen.pid, signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            popen.wait(timeout=grace_s)
    _wait_gone(seen, grace_s)
    for child in seen.values():
        signal_proc(child, signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(popen.pid, signal.SIGKILL)
    rc = popen.wait()
    _wait_gone(seen, 5.0)
    return rc


def _wait_gone(seen: dict[int, Proc], limit_s: float) -> None:
    deadline = time.monotonic() + limit_s
    while any(is_alive(p) for p in seen.values()) and time.monotonic() < deadline:
        time.sleep(POLL_S)


@contextlib.contextmanager
def interrupt_on_sigterm():
    """While a job runs, SIGTERM to us behaves like Ctrl-C, so the clean-up always runs."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


@contextlib.contextmanager
def uninterrupted():
    """Ctrl-C and SIGTERM are ignored inside (a second Ctrl-C must not cut a clean-up short)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {sig: signal.signal(sig, signal.SIG_IGN) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


KILL = signal.SIGKILL
TERM = signal.SIGTERM
