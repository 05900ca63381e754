"""`py-spy dump` of every rank, side by side, each with its own time limit (8 ranks take about as long as one).

The dump file holds exactly what py-spy printed, an error included (the parser reads py-spy's errors as
`pyspy_error` events: permission, process gone), as `pyspy/rank<R>.py-spy-<host>-<pid>.txt`. A rank that
has exited is not attached to; a dump that outlasts its limit is stopped (the kernel detaches py-spy from
the rank when py-spy ends, and the rank carries on).
"""
from __future__ import annotations

import os
import re
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from .find import RankProc
from .procs import is_alive
from .redact import redact_command_line

DEFAULT_TIMEOUT_S = 10.0


@dataclass
class StackDump:
    rank: int | None
    pid: int
    status: str                 # "ok" | "refused" | "exited" | "timeout" | "failed"
    path: Path | None = None
    reason: str = ""
    seconds: float = 0.0


def dump_file_name(rank: int | None, host: str, pid: int) -> str:
    """`rank3.py-spy-node_1-4242.txt`: discovery reads rank, host and pid from it (no '-' inside the host)."""
    host = re.sub(r"[^\w.]+", "_", host)
    return f"{'' if rank is None else f'rank{rank}.'}py-spy-{host}-{pid}.txt"


def dump_stacks(ranks: list[RankProc], dest: Path, host: str, pyspy: str, native: bool = False,
                timeout_s: float = DEFAULT_TIMEOUT_S) -> list[StackDump]:
    """Dump every live rank at once; returns one StackDump per rank, in the order given."""
    dest.mkdir(parents=True, exist_ok=True)
    started: list[tuple] = []
    results: list[StackDump | None] = []
    for r in ranks:
        if not is_alive(r.proc):
            results.append(StackDump(r.rank, r.pid, "exited", reason="the process had exited before the dump"))
            continue
        path = dest / dump_file_name(r.rank, host, r.pid)
        args = [pyspy, "dump", "--pid", str(r.pid)] + (["--native"] if native else [])
        fh = os.fdopen(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600), "wb")
        child = subprocess.Popen(args, stdout=fh, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        started.append((r, path, fh, child, time.monotonic()))
        results.append(None)
    finished = iter(_wait(item, timeout_s) for item in started)
    return [res if res is not None else next(finished) for res in results]


def _wait(item, timeout_s: float) -> StackDump:
    r, path, fh, child, t0 = item
    try:
        rc = child.wait(timeout=max(0.1, timeout_s - (time.monotonic() - t0)))
    except subprocess.TimeoutExpired:
        child.kill()
        child.wait()
        rc = None
    fh.close()
    redact_header(path)
    result = StackDump(r.rank, r.pid, "ok", path, seconds=round(time.monotonic() - t0, 2))
    if rc is None:
        result.status, result.reason = "timeout", f"py-spy did not finish within {timeout_s:g} s"
    elif rc != 0:
        result.status, result.reason = _failure(path.read_text(errors="replace"), r)
    if not path.stat().st_size:
        path.unlink()
        result.path = None
        if result.status == "ok":
            result.status, result.reason = "failed", "py-spy printed nothing"
    return result


_HEADER = re.compile(rb"^(Process \d+: )(.*)$", re.M)


def redact_header(path: Path) -> None:
    """py-spy starts a dump with the rank's whole command line (`Process 42: python train.py --token x`): the
    one redaction (redact.py) goes over it before the file stays in the bundle."""
    data = path.read_bytes()
    redacted = _HEADER.sub(lambda m: m.group(1) + redact_command_line(m.group(2).decode(errors="replace")).encode(),
                           data)
    if redacted != data:
        path.write_bytes(redacted)


def _failure(text: str, r: RankProc) -> tuple[str, str]:
    first = next((line.strip() for line in text.splitlines() if line.strip()), "py-spy failed with no message")
    if re.search(r"permission denied|operation not permitted|EPERM", text, re.I):
        return "refused", f"ptrace refused: {first}"
    if not is_alive(r.proc) or re.search(r"No such process|Check that the process is running", text):
        return "exited", f"the process exited during the dump: {first}"
    return "failed", first
