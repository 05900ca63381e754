"""`ncclf run -- <launcher command>`: start a job with the evidence switched on, and catch its next hang.

Everything goes to `<out>/<host>/` (one folder per node, so `srun ncclf run --out /shared/run -- torchrun …`
gives each node its own): the launcher's console (`console.log`, also echoed), NCCL debug files, the
flight-recorder dumps, torchrun's `--log-dir`, and on a hang the capture (py-spy, kernel, context,
`manifest.json`). The environment gets what is missing, never replacing what the user set:

    NCCL_DEBUG=INFO  NCCL_DEBUG_SUBSYS=INIT,COLL,P2P,NET  NCCL_DEBUG_FILE=<bundle>/nccl/nccl.%h.%p.log
    TORCH_FR_BUFFER_SIZE=2000  TORCH_NCCL_DUMP_ON_TIMEOUT=1  TORCH_FR_DUMP_TEMP_FILE=<bundle>/fr/nccl_trace_rank_
    TORCH_NCCL_DEBUG_INFO_PIPE_FILE=<bundle>/.fr-pipes/rank_        (the on-demand dump trigger capture uses)

and a torchrun command gets `--log-dir <bundle>/torchrun_logs` and `--tee 3` unless it has its own. COLL
lines are on by default: they are what lines the ranks up, and what tells progress from a hang; for a job
whose collective count makes the logs too big, `--no-coll` keeps INIT,P2P,NET only (progress is then read
from log growth, and the alignment from the flight recorder).

When nothing advances for `hang_after_s` (progress.py), or the job writes a flight-recorder dump (torch
does on a failed collective), the job's ranks are captured in place and `on_capture` is called (the CLI
diagnoses and prints). The job is left running unless `kill_on_hang`; then, on Ctrl-C or SIGTERM, and in
every other way out, only the processes this run started are ended, and none is left.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import CaptureError
from . import node
from .bundle import Bundle, CaptureOptions, capture_job, check_writable, postmortem
from .find import Job, find_jobs
from .procs import (
    Proc,
    descendants,
    interrupt_on_sigterm,
    is_alive,
    stop_tree,
    uninterrupted,
)
from .progress import ProgressWatch
from .tools import torchrun_command

DEFAULT_SUBSYS = "INIT,COLL,P2P,NET"
NO_COLL_SUBSYS = "INIT,P2P,NET"
DEFAULT_HANG_AFTER_S = 300.0
STARTUP_S = 120.0            # before the first sign of progress, wait at least this long
POLL_S = 0.5
TERM_GRACE_S = 10.0
_ALIASES = {"TORCH_FR_BUFFER_SIZE": ("TORCH_NCCL_TRACE_BUFFER_SIZE",),
            "TORCH_NCCL_DUMP_ON_TIMEOUT": ("TORCH_FR_DUMP_ON_TIMEOUT",),
            "TORCH_FR_DUMP_TEMP_FILE": ("TORCH_NCCL_DEBUG_INFO_TEMP_FILE",),
            "TORCH_NCCL_DEBUG_INFO_PIPE_FILE": ("TORCH_FR_DEBUG_INFO_PIPE_FILE",)}


@dataclass
class RunOptions:
    out: Path
    host: str | None = None
    hang_after_s: float = DEFAULT_HANG_AFTER_S
    kill_on_hang: bool = False
    nccl_subsys: str = DEFAULT_SUBSYS
    capture: CaptureOptions = field(default_factory=CaptureOptions)


@dataclass
class RunOutcome:
    bundle: Path
    how: str = "exited"                  # "exited" | "killed_on_hang"
    rc: int | None = None                # the launcher's exit code
    capture: Bundle | None = None
    leftovers: list[int] = field(default_factory=list)


def job_env(base: dict[str, str], bundle: Path, subsys: str) -> tuple[dict[str, str], list[str]]:
    """The job's environment: `base` plus what is missing. Returns (env, one line per variable)."""
    wanted = {
        "NCCL_DEBUG": "INFO", "NCCL_DEBUG_SUBSYS": subsys,
        "NCCL_DEBUG_FILE": str(bundle / "nccl" / "nccl.%h.%p.log"),
        "TORCH_FR_BUFFER_SIZE": "2000", "TORCH_NCCL_DUMP_ON_TIMEOUT": "1",
        "TORCH_FR_DUMP_TEMP_FILE": str(bundle / "fr" / "nccl_trace_rank_"),
        "TORCH_NCCL_DEBUG_INFO_PIPE_FILE": str(bundle / ".fr-pipes" / "rank_"),
        "LOGLEVEL": "INFO",              # torchrun: the rendezvous result (world size) and how workers ended
        "PYTHONUNBUFFERED": "1",         # the ranks' output arrives as it is written, not at exit
    }
    env, lines = dict(base), []
    for name, value in wanted.items():
        held = next((n for n in (name, *_ALIASES.get(name, ())) if base.get(n)), None)
        if held:
            lines.append(f"kept {held}={base[held]}")
        else:
            env[name] = value
            lines.append(f"set  {name}={value}")
    return env, lines


def launcher_command(argv: list[str], bundle: Path) -> tuple[list[str], list[str]]:
    """`argv` with torchrun's `--log-dir`/`--tee` added where missing (and a bare `torchrun` resolved beside
    the interpreter first). Returns (argv, one line per change)."""
    argv = list(argv)
    lines: list[str] = []
    at = _torchrun_at(argv)
    if at is None:
        return argv, lines
    if argv[at - 1] == "torchrun":             # a bare name: the one beside our interpreter first
        launcher = torchrun_command()
        argv[at - 1:at] = launcher
        at += len(launcher) - 1
    extra = []
    if not any(a.startswith(("--log-dir", "--log_dir")) for a in argv):
        extra += ["--log-dir", str(bundle / "torchrun_logs")]
    if not any(a.startswith(("--tee", "--redirects")) or a in ("-t", "-r") for a in argv):
        extra += ["--tee", "3"]
    if extra:
        lines.append("torchrun gets " + " ".join(extra))
    return argv[:at] + extra + argv[at:], lines


def _torchrun_at(argv: list[str]) -> int | None:
    """The index just after the torchrun launcher in `argv` (`torchrun`, `python -m torch.distributed.run`)."""
    for i, arg in enumerate(argv):
        if os.path.basename(arg) == "torchrun":
            return i + 1
        if arg == "-m" and i + 1 < len(argv) and argv[i + 1] in ("torch.distributed.run", "torch.distributed.launch"):
            return i + 2
    return None


class Supervisor:
    """One `ncclf run`: `run()` returns when the job has ended (or was ended on a hang)."""

    def __init__(self, argv: list[str], options: RunOptions, report: Callable[[str], None] = lambda line: None,
                 on_capture: Callable[[Bundle], None] = lambda bundle: None):
        if not argv:
            raise CaptureError("give the launcher command after `--`, e.g. ncclf run -- torchrun --nproc-per-node 4 train.py")
        self.options, self.report, self.on_capture = options, report, on_capture
        self.host = node.host_label(options.host)
        self.bundle = Path(options.out).absolute() / self.host     # the ranks may run in another directory
        self.argv = argv
        self.seen: dict[int, Proc] = {}
        self.root = 0                    # the launcher's pid, once started
        self.last_job: Job | None = None

    def run(self) -> RunOutcome:
        self._prepare_folder()
        env, env_lines = job_env(dict(os.environ), self.bundle, self.options.nccl_subsys)
        argv, argv_lines = launcher_command(self.argv, self.bundle)
        for line in env_lines + argv_lines:
            self.report(line)
        outcome = RunOutcome(self.bundle)
        with interrupt_on_sigterm():
            popen = self._start(argv, env)
            self.root = popen.pid
            tee = threading.Thread(target=_tee, args=(popen.stdout, self.bundle / "console.log"), daemon=True)
            tee.start()
            try:
                self._watch(popen, outcome)
            finally:
                with uninterrupted():
                    outcome.rc = stop_tree(popen, self.seen, TERM_GRACE_S) if popen.poll() is None else popen.wait()
                    tee.join(timeout=5)
                    outcome.leftovers = sorted(p.pid for p in self.seen.values() if is_alive(p))
        if outcome.capture is None and outcome.rc not in (0, None):
            outcome.capture = self._postmortem()
        return outcome

    def _prepare_folder(self) -> None:
        check_writable(Path(self.options.out))
        if self.bundle.exists() and any(self.bundle.iterdir()):
            raise CaptureError(f"{self.bundle} is not empty; pick another --out")
        for sub in ("nccl", "fr", ".fr-pipes"):
            (self.bundle / sub).mkdir(parents=True, exist_ok=True)

    def _start(self, argv: list[str], env: dict[str, str]) -> subprocess.Popen:
        """The launcher, under a keeper (keeper.py) that ends the whole job if this process dies, even by
        SIGKILL, so that no job outlives its `ncclf run`."""
        if shutil.which(argv[0], path=env.get("PATH")) is None and not os.access(argv[0], os.X_OK):
            raise CaptureError(f"cannot start {argv[0]}: No such file or directory")
        keeper = [sys.executable, "-m", "nccl_forensics.capture.keeper", str(os.getpid()), "--"]
        try:
            return subprocess.Popen(keeper + argv, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                    stderr=subprocess.STDOUT, start_new_session=True)
        except OSError as exc:
            raise CaptureError(f"cannot start {argv[0]}: {exc.strerror or exc}") from None

    def _watch(self, popen: subprocess.Popen, outcome: RunOutcome) -> None:
        under_torchrun = _torchrun_at(self.argv) is not None
        watch = ProgressWatch(self.bundle, console=self.bundle / "console.log" if under_torchrun else None)
        last = time.monotonic()
        progressed = False
        while popen.poll() is None:
            self._track(popen.pid)
            poll = watch.poll()
            now = time.monotonic()
            if poll.progressed:
                last, progressed = now, True
            limit = self.options.hang_after_s if progressed else max(self.options.hang_after_s, STARTUP_S)
            why = _hang_reason(now - last, limit, poll.new_fr_dumps)
            if why and outcome.capture is None:
                outcome.capture = self._capture(why)
                if self.options.kill_on_hang:
                    self.report("--kill-on-hang: ending the job (only the processes this run started)")
                    outcome.how = "killed_on_hang"
                    return
                self.report("the job is left running (Ctrl-C ends it; --kill-on-hang would have)")
            time.sleep(POLL_S)

    def _track(self, root: int) -> None:
        before = len(self.seen)
        for proc in descendants(root):
            self.seen.setdefault(proc.pid, proc)
        if len(self.seen) != before:
            found = find_jobs([root])
            if found.jobs:
                self.last_job = found.jobs[0]

    def _capture(self, why: str) -> Bundle:
        self.report(f"{why}: capturing the job's evidence into {self.bundle}")
        found = find_jobs([self.root])
        if not found.jobs:
            self.report("no rank process found under the launcher (are the ranks on other nodes?)")
            return self._postmortem()
        bundle = capture_job(found.jobs[0], self.bundle, self.host, self.options.capture, found)
        self.on_capture(bundle)
        return bundle

    def _postmortem(self) -> Bundle:
        pids = set(self.seen)
        since = min((p.start_s for p in self.seen.values()), default=0.0)
        bundle = postmortem(self.last_job, self.bundle, self.host, pids, since)
        self.on_capture(bundle)
        return bundle


def _hang_reason(idle_s: float, limit_s: float, new_fr: list[Path]) -> str | None:
    if new_fr:
        names = ", ".join(p.name for p in new_fr[:4])
        return f"the job wrote a flight-recorder dump ({names}): a collective failed or timed out"
    if idle_s > limit_s:
        return f"no progress for {idle_s:.0f} s (no new NCCL COLL line or log output)"
    return None


def _tee(pipe, log_path: Path) -> None:
    """Copy the launcher's output to `log_path` and to our stdout, as it comes."""
    sink = getattr(sys.stdout, "buffer", None)
    with open(log_path, "ab") as log:
        for chunk in iter(lambda: pipe.read1(65536), b""):
            log.write(chunk)
            log.flush()
            if sink is not None:
                try:
                    sink.write(chunk)
                    sink.flush()
                except (OSError, ValueError):
                    sink = None          # our stdout went away: keep logging to the file
