"""Process bookkeeping from /proc: the harness kills and checks only processes it started.

A process is identified by (pid, start time) so that a reused pid is never mistaken for ours.
"""
from __future__ import annotations

import os
import signal
from typing import NamedTuple


class Proc(NamedTuple):
    pid: int
    ppid: int
    session: int
    start: int          # clock ticks since boot (field 22 of /proc/<pid>/stat)


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


def descendants(root: int) -> list[Proc]:
    """Every live process below `root` (children, grandchildren…), found by walking parent links."""
    procs = all_procs()
    children: dict[int, list[Proc]] = {}
    for proc in procs:
        children.setdefault(proc.ppid, []).append(proc)
    found, todo = [], [root]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child.pid)
    return found


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


def rank_of(pid: int) -> int | None:
    """The RANK torchrun gave a worker (read from its environment), or None."""
    try:
        with open(f"/proc/{pid}/environ", "rb") as fh:
            env = fh.read().split(b"\0")
    except OSError:
        return None
    for item in env:
        if item.startswith(b"RANK="):
            return int(item[5:])
    return None


KILL = signal.SIGKILL
TERM = signal.SIGTERM
