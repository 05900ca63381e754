"""On-demand flight-recorder dumps through torch's dump pipe (ProcessGroupNCCL and its kin).

With `TORCH_NCCL_DEBUG_INFO_PIPE_FILE` (newer torch: `TORCH_FR_DEBUG_INFO_PIPE_FILE`) set and the flight
recorder on, each rank creates the FIFO `<stem><rank>.pipe` and reads it without blocking; anything
written to it makes that rank dump its buffer to `<TORCH_FR_DUMP_TEMP_FILE><rank>`. This is the one
trigger torch offers on a live rank, so capture uses it: one byte per rank, opened without blocking (a
pipe nobody reads is skipped, never waited on). The CPU build of torch has no ProcessGroupNCCL and hence
no pipe; gloo jobs get their dumps from the debug server instead.
"""
from __future__ import annotations

import errno
import os
import stat
import time

from .evidence import fr_dump_candidates
from .find import RankProc

PIPE_VARS = ("TORCH_FR_DEBUG_INFO_PIPE_FILE", "TORCH_NCCL_DEBUG_INFO_PIPE_FILE")
WAIT_S = 5.0
POLL_S = 0.1


def pipe_path(r: RankProc) -> str | None:
    stem = next((r.env[v] for v in PIPE_VARS if r.env.get(v)), None)
    if stem is None or r.rank is None:
        return None
    path = f"{stem}{r.rank}.pipe"
    return path if os.path.isabs(path) else os.path.join(f"/proc/{r.pid}/cwd", path)


def trigger_dumps(ranks: list[RankProc], wait_s: float = WAIT_S) -> dict[int, str]:
    """Write to every rank's dump pipe and wait (at most `wait_s`) for the dumps. Returns {rank: outcome}."""
    asked: dict[int, tuple[list[str], dict[str, float]]] = {}
    outcome = {}
    for r in ranks:
        path = pipe_path(r)
        if path is None or r.rank is None:
            continue
        targets = fr_dump_candidates(r)
        before = {t: _mtime(t) for t in targets}
        outcome[r.rank] = _poke(path, r.owner)
        if outcome[r.rank] == "asked":
            asked[r.rank] = (targets, before)
    deadline = time.monotonic() + wait_s
    while asked and time.monotonic() < deadline:
        for rank, (targets, before) in list(asked.items()):
            if any(_mtime(t) > before[t] for t in targets):
                outcome[rank] = "dumped"
                del asked[rank]
        time.sleep(POLL_S)
    for rank in asked:
        outcome[rank] = f"asked through the pipe, but no dump appeared within {wait_s:g} s"
    return outcome


def _poke(path: str, owner: int | None) -> str:
    """One byte into the rank's pipe: only a FIFO (not through a symbolic link) owned by the rank's user."""
    try:
        if not stat.S_ISFIFO(os.lstat(path).st_mode):      # no device is ever opened for writing
            return f"{path} is not a pipe"
        fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError as exc:
        if exc.errno == errno.ENXIO:
            return f"{path}: no reader (the rank does not watch its pipe)"
        if exc.errno == errno.ELOOP:
            return f"{path} is a symbolic link: not followed"
        return f"{path}: {exc.strerror or exc}"
    try:
        st = os.fstat(fd)
        if not stat.S_ISFIFO(st.st_mode):
            return f"{path} is not a pipe"
        if owner is not None and st.st_uid != owner:
            return f"{path} is owned by uid {st.st_uid}, not by the rank's user (uid {owner}): not written"
        os.write(fd, b"1")
    except OSError as exc:
        return f"{path}: {exc.strerror or exc}"
    finally:
        os.close(fd)
    return "asked"


def _mtime(path: str) -> float:
    try:
        return os.path.getmtime(path)
    except OSError:
        return 0.0
