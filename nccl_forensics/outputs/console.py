"""The console every command writes through (rich), behind the output-safety mixin."""
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


PIPE_WIDTH = 160      # piped output without COLUMNS: a wide page, where cells wrap instead of being cut


def make_console(file=None, **options) -> Console:
    """The console of every command: on a terminal its width; piped, COLUMNS when set, else PIPE_WIDTH (rich
    would assume 80 columns and cut a CI log's table cells to `shape-misma…`)."""
    stream = file or sys.stdout
    wide = not (hasattr(stream, "isatty") and stream.isatty()) and "COLUMNS" not in os.environ
    return PipeConsole(file=file, width=PIPE_WIDTH if wide else None, **options)
