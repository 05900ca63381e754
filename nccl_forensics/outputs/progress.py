"""A progress bar on stderr for long commands (diagnose, summarize, parse of many or large files).

Shown only where a person watches: stderr is a terminal, and neither -q nor a pipe. The library reports
progress through a `progress(done, total)` callback; this module is one such callback.
"""
from __future__ import annotations

import contextlib
import sys
from typing import Callable, Iterator

MIN_FILES = 2          # one small file is done before a bar could be read


@contextlib.contextmanager
def progress_bar(what: str, enabled: bool = True) -> Iterator[Callable[[int, int], None] | None]:
    """A `progress(done, total)` callback drawing a transient bar, or None where no one would see it."""
    if not enabled or not sys.stderr.isatty():
        yield None
        return
    # rich is imported only where a bar is drawn (about 0.1 s)
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
    bar = Progress(TextColumn(what), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                   console=Console(stderr=True), transient=True)
    task = None

    def update(done: int, total: int) -> None:
        nonlocal task
        if total < MIN_FILES:
            return
        if task is None:
            bar.start()
            task = bar.add_task(what, total=total)
        bar.update(task, completed=done)

    try:
        yield update
    finally:
        bar.stop()
