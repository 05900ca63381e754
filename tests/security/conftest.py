"""Attacks on ncclf as another user of a shared node would try them. Every child runs under a 4 GB address-space
cap and a time limit (a regression fails the test instead of exhausting the machine); the attacker's side runs
as `nobody` (setpriv) where the platform allows it, and those tests skip cleanly where it does not."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

CAP_BYTES = 4_000_000_000
NOBODY = 65534
# ncclf's interpreter may sit under a folder only root can read (/root/.pyenv): when ncclf itself runs as
# nobody, the test lends it CAP_DAC_READ_SEARCH to read files, which gives no right over another user's
# processes, and no right to write anything.
AS_NOBODY = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
AS_NOBODY_READING = [*AS_NOBODY, "--inh-caps=+dac_read_search", "--ambient-caps=+dac_read_search"]
can_switch_user = pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("setpriv"),
                                     reason="needs root and setpriv to act as another user")


def capped(cmd: list[str], cap: int = CAP_BYTES) -> list[str]:
    """`cmd` under an address-space cap (prlimit where it exists; else the caller's resource limit applies)."""
    prlimit = shutil.which("prlimit")
    return [prlimit, f"--as={cap}", "--"] + cmd if prlimit else cmd


def run_ncclf(*args: str, as_nobody: bool = False, timeout: float = 120, env: dict | None = None,
              **kwargs) -> subprocess.CompletedProcess:
    cmd = capped([sys.executable, "-m", "nccl_forensics", *args])
    if as_nobody:
        cmd = AS_NOBODY_READING + cmd
    full = {**os.environ, "COLUMNS": "120", "NO_COLOR": "1", **(env or {})}
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=full, **kwargs)


def peak_rss_mb(done_rusage) -> float:
    return done_rusage.ru_maxrss / 1024
