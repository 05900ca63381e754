"""Typed errors. The CLI maps each to a one-line message and an exit code; nothing else exits."""
from __future__ import annotations

# Exit codes, documented in the README and `ncclf --help`.
EXIT_OK = 0            # nothing wrong found / command succeeded
EXIT_FOUND = 1         # diagnose: a hang or failure was diagnosed; repro --check: a mismatch
EXIT_BAD_INPUT = 2     # bad input or usage
EXIT_INTERNAL = 3      # a bug in ncclf outside the diagnosis pipeline (one line; NCCLF_DEBUG=1 shows the traceback)
EXIT_INCONCLUSIVE = 4  # diagnose: nothing found, but the evidence does not cover every rank (never a false all-clear)
EXIT_OUTPUT_CLOSED = 141   # the reader of the output went away (`ncclf parse ... | head`): 128 + SIGPIPE,
                           # what a shell reports for a program that SIGPIPE ended


class NcclfError(Exception):
    """Base class: a user-facing problem with a one-line message."""

    exit_code = EXIT_BAD_INPUT

    def __str__(self) -> str:  # always one line
        return " ".join(str(self.args[0] if self.args else self.__class__.__name__).split())


class BadInput(NcclfError):
    """A path is missing, unreadable, or holds nothing usable."""


class NoEvidence(BadInput):
    """The paths exist but contain no evidence ncclf can read."""


class UnsafeDump(BadInput):
    """A pickle asked for a class or function the restricted unpickler refuses."""


class OutputClosed(NcclfError):
    """The reader of stdout closed the pipe before ncclf finished writing (silent; exit 141)."""

    exit_code = EXIT_OUTPUT_CLOSED


class ReproError(NcclfError):
    """A reproducer could not be run (torch missing, bad scenario, harness failure)."""


class MissingTool(NcclfError):
    """A helper program (py-spy, torchrun) is installed neither beside the interpreter nor on PATH."""


class CaptureError(NcclfError):
    """`ncclf capture` / `ncclf run` cannot start: an unwritable --out, a bad --pid, an empty launcher command."""
