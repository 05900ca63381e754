"""Real torchrun gloo jobs for the capture tests: started on localhost in their own session, always ended.

`HangingJob.start(...)` runs tests/capture/hang_job.py under torchrun (`--tee 3 --log-dir`), waits until every
rank has printed `step <K-1>` (so the culprit is at its fault and the others wait in the next collective),
and `stop()` ends torchrun's session and SIGKILLs every process of it that was seen.
"""
from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from nccl_forensics.capture.procs import Proc, descendants, is_alive, stop_tree
from nccl_forensics.capture.tools import torchrun_command

HANG_JOB = Path(__file__).with_name("hang_job.py")
STARTUP_S = 180.0
MATCH_VAR = "NCCLF_CAPTURE_TEST_JOB"       # every process of one test job carries its own value


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class HangingJob:
    out: Path
    popens: list[subprocess.Popen] = field(default_factory=list)
    seen: dict[int, Proc] = field(default_factory=dict)
    marker: str = field(default_factory=lambda: uuid.uuid4().hex)

    @classmethod
    def start(cls, out: Path, mode: str, culprit: int, nproc: int = 4, step: int = 3, debug_server: bool = False,
              nnodes: int = 1, flight_recorder: bool = True) -> HangingJob:
        job = cls(out)
        out.mkdir(parents=True, exist_ok=True)
        port = free_port()
        env = {**os.environ, "OMP_NUM_THREADS": "1", "HANG_MODE": mode, "HANG_RANK": str(culprit),
               "HANG_STEP": str(step), "TORCH_FR_BUFFER_SIZE": "2000", MATCH_VAR: job.marker}
        if debug_server:
            env.update(HANG_DEBUG_SERVER="1", HANG_FRONTEND_PORT=str(free_port()))
        if not flight_recorder:
            env.pop("TORCH_FR_BUFFER_SIZE")
        for node in range(nnodes):
            args = [*torchrun_command(), "--nnodes", str(nnodes), "--node-rank", str(node),
                    "--nproc-per-node", str(nproc), "--master-addr", "127.0.0.1", "--master-port", str(port),
                    "--log-dir", str(out / f"logs{node}"), "--tee", "3", "--monitor-interval", "1", str(HANG_JOB)]
            with open(out / f"console{node}.log", "wb") as console:
                job.popens.append(subprocess.Popen(args, env=env, stdout=console, stderr=subprocess.STDOUT,
                                                   stdin=subprocess.DEVNULL, start_new_session=True))
        try:
            job.wait_for_step(step - 1, nproc)
        except BaseException:
            job.stop()
            raise
        time.sleep(1.0)               # the others are now blocked in the collective of step K
        return job

    def wait_for_step(self, step: int, nproc: int) -> None:
        deadline = time.monotonic() + STARTUP_S
        while time.monotonic() < deadline:
            self.track()
            if all(self.last_steps(node).get(r, 0) >= step for node in range(len(self.popens)) for r in range(nproc)):
                return
            if any(p.poll() is not None for p in self.popens):
                raise RuntimeError("the job ended early:\n" + self.console(0)[-3000:])
            time.sleep(0.2)
        raise TimeoutError("the job did not reach step %d:\n%s" % (step, self.console(0)[-3000:]))

    def console(self, node: int = 0) -> str:
        return (self.out / f"console{node}.log").read_text(errors="replace")

    def last_steps(self, node: int = 0) -> dict[int, int]:
        """{local rank: last step printed}."""
        steps: dict[int, int] = {}
        for local, step in re.findall(r"^\[default(\d+)\]:step (\d+)$", self.console(node), re.M):
            steps[int(local)] = max(steps.get(int(local), 0), int(step))
        return steps

    def track(self) -> None:
        for popen in self.popens:
            for proc in descendants(popen.pid):
                self.seen.setdefault(proc.pid, proc)

    def workers(self, node: int = 0) -> list[Proc]:
        """torchrun's direct children on `node` (the ranks), by local rank order of their pids."""
        self.track()
        agent = self.popens[node].pid
        return sorted((p for p in self.seen.values() if p.ppid == agent), key=lambda p: p.pid)

    def alive(self) -> list[int]:
        return sorted(p.pid for p in self.seen.values() if is_alive(p))

    def stop(self) -> list[int]:
        """End every agent's session and whatever of ours is left; returns the pids still alive (none)."""
        self.track()
        for popen in self.popens:
            stop_tree(popen, self.seen, 10.0)
        return self.alive()


def ncclf(*args: str, env: dict | None = None, timeout: float = 120, **kwargs) -> subprocess.CompletedProcess:
    """`ncclf ARGS` in a subprocess of this interpreter, as a user would run it."""
    full_env = {**os.environ, "COLUMNS": "120", "NO_COLOR": "1", **(env or {})}
    return subprocess.run([sys.executable, "-m", "nccl_forensics", *args], capture_output=True, text=True,
                          env=full_env, timeout=timeout, **kwargs)
