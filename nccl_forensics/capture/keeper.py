"""`python -m nccl_forensics.capture.keeper PARENT_PID -- COMMAND...`: the session leader `ncclf run` starts,
which starts the job and ends it if `ncclf run` dies, however it dies (SIGKILL included).

Linux tells the keeper when its parent dies (`PR_SET_PDEATHSIG`, as SIGUSR2), and the keeper is a child
subreaper (`PR_SET_CHILD_SUBREAPER`): every process of the job whose parent exits is re-parented to the
keeper, not to PID 1, so the whole job stays its descendants, whatever sessions the launcher creates
(torchrun puts each worker in its own). On its parent's death the keeper sends SIGTERM to all of them, and
SIGKILL after a grace period to what is left, then exits. Otherwise it waits for the launcher and exits
with its status (a launcher killed by a signal: the keeper ends by the same signal), so `ncclf run` sees
the launcher's exit code. SIGTERM and SIGINT sent to the keeper's group reach the launcher itself and are
not acted on by the keeper.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

from ..libc import PR_SET_CHILD_SUBREAPER, PR_SET_PDEATHSIG, prctl

PARENT_DIED = signal.SIGUSR2
GRACE_S = 5.0


def _descendants() -> list[int]:
    children: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as fh:
                stat = fh.read()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        if fields[0] != "Z":
            children.setdefault(int(fields[1]), []).append(int(name))
    found, todo = [], [os.getpid()]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def end_all(*_args) -> None:
    """SIGTERM to every descendant, SIGKILL to what is left after GRACE_S; then exit."""
    signal.signal(PARENT_DIED, signal.SIG_IGN)
    for sig, wait_s in ((signal.SIGTERM, GRACE_S), (signal.SIGKILL, 2.0)):
        for pid in _descendants():
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + wait_s
        while _descendants() and time.monotonic() < deadline:
            _reap()
            time.sleep(0.05)
    os._exit(137)


def _reap() -> None:
    try:
        while os.waitpid(-1, os.WNOHANG)[0] > 0:
            pass
    except ChildProcessError:
        pass


def main(argv: list[str]) -> int:
    parent, command = int(argv[0]), argv[2:]          # PARENT_PID -- COMMAND...
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, signal.SIG_IGN)            # meant for the launcher, which gets them too
    signal.signal(PARENT_DIED, end_all)
    prctl(PR_SET_CHILD_SUBREAPER, 1)
    prctl(PR_SET_PDEATHSIG, PARENT_DIED)
    if os.getppid() != parent:                        # our parent died before we could ask to be told
        end_all()
    try:
        launcher = subprocess.Popen(command, preexec_fn=_default_signals)
    except OSError as exc:
        print(f"ncclf run: cannot start {command[0]}: {exc.strerror or exc}", file=sys.stderr)
        return 127
    while True:
        try:
            pid, status = os.waitpid(-1, 0)         # the launcher, or an orphan re-parented to us
        except ChildProcessError:
            return 0
        except InterruptedError:
            continue
        if pid == launcher.pid:
            break
    if os.WIFSIGNALED(status):
        killed_by = os.WTERMSIG(status)
        signal.signal(killed_by, signal.SIG_DFL)
        os.kill(os.getpid(), killed_by)
    return os.waitstatus_to_exitcode(status)


def _default_signals() -> None:
    for sig in (signal.SIGTERM, signal.SIGINT, PARENT_DIED):
        signal.signal(sig, signal.SIG_DFL)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
