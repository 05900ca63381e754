"""Signals and the exit codes that carry them: one table for the readers and the detectors.

A process killed by signal N shows as exit code -N where Python's ``subprocess`` reports it (torchrun's failure
table, DeepSpeed's launcher) and as 128 + N where a shell or a launcher in C does (Slurm, Hydra, Open MPI).
"""
from __future__ import annotations

# Linux's numbers (the jobs' logs come from Linux; the host reading them may be another system)
NAMES = {n: "SIG" + name for n, name in enumerate(
    "HUP INT QUIT ILL TRAP ABRT BUS FPE KILL USR1 SEGV USR2 PIPE ALRM TERM STKFLT CHLD CONT STOP TSTP TTIN TTOU URG "
    "XCPU XFSZ VTALRM PROF WINCH IO PWR SYS".split(), start=1)}
# The words a shell or a C library prints for a signal (strsignal, bash's job report)
WORDS = {"Segmentation fault": "SIGSEGV", "Aborted": "SIGABRT", "Killed": "SIGKILL", "Bus error": "SIGBUS",
         "Terminated": "SIGTERM", "Floating point exception": "SIGFPE", "Illegal instruction": "SIGILL"}
# A process ended by its own fault or killed outright (the OOM killer, the scheduler), not by a teardown
CRASH = frozenset({"SIGKILL", "SIGSEGV", "SIGBUS", "SIGILL", "SIGFPE"})
# A faulting crash of the process's own code (SIGKILL comes from outside it)
FAULT = CRASH - {"SIGKILL"}
# Sent to end a job (a launcher's SIGTERM fan-out) or raised by the watchdog's abort after an error elsewhere
TEARDOWN = frozenset({"SIGTERM", "SIGABRT"})


def of_exit_code(code: object) -> str | None:
    """The signal an exit code says ended the process (-N or 128 + N), or None."""
    if not isinstance(code, int) or isinstance(code, bool):
        return None
    if code < 0:
        return NAMES.get(-code)
    return NAMES.get(code - 128) if code > 128 else None
