"""Signals and the exit codes that carry them: one table for the readers and the detectors.

A process killed by signal N shows as exit code -N where Python's ``subprocess`` reports it (torchrun's failure
table, DeepSpeed's launcher) and as 128 + N where a shell or a launcher in C does (Slurm, Hydra, Open MPI).
"""
from __future__ import annotations

# Linux's numbers (the jobs' logs come from Linux; the host reading them may be another system)
NAMES = {n: "SIG" + name for n, name in enumerate(
    "HUP INT QUIT ILL TRAP ABRT BUS FPE KILL USR1 SEGV USR2 PIPE ALRM TERM STKFLT CHLD CONT STOP TSTP TTIN TTOU URG "
    "XCPU XFSZ VTALRM PROF WINCH IO PWR SYS".split(), start=1)}
# The words glibc's strsignal prints for a signal, by Linux number (bash's job report and Slurm use them;
# the host's own strsignal may be another C library's)
WORDS = {word: NAMES[n] for n, word in enumerate((
    "Hangup", "Interrupt", "Quit", "Illegal instruction", "Trace/breakpoint trap", "Aborted", "Bus error",
    "Floating point exception", "Killed", "User defined signal 1", "Segmentation fault", "User defined signal 2",
    "Broken pipe", "Alarm clock", "Terminated", "Stack fault", "Child exited", "Continued", "Stopped (signal)",
    "Stopped", "Stopped (tty input)", "Stopped (tty output)", "Urgent I/O condition", "CPU time limit exceeded",
    "File size limit exceeded", "Virtual timer expired", "Profiling timer expired", "Window changed",
    "I/O possible", "Power failure", "Bad system call"), start=1)}
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
