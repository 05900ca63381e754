"""Renderers: model objects in, text out. Only this package writes user-facing text."""
from __future__ import annotations

import os
import sys

from rich.console import Console

from ..hygiene import SafeConsoleMixin


class PipeConsole(SafeConsoleMixin, Console):
    """A rich console that reports a closed output pipe as BrokenPipeError (rich itself exits 1, which in ncclf
    means "a failure was diagnosed"; the CLI turns the error into a silent exit 141). No escape sequence from
    evidence gets through it (hygiene.SafeConsoleMixin)."""

    def on_broken_pipe(self) -> None:
        self.quiet = True
        raise BrokenPipeError("output closed")


def make_console(file=None) -> Console:
    """A rich console; when output is piped and COLUMNS is unset, use a wide page instead of 80 columns."""
    stream = file or sys.stdout
    wide = not (hasattr(stream, "isatty") and stream.isatty()) and "COLUMNS" not in os.environ
    return PipeConsole(file=file, width=160 if wide else None)
