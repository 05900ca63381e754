"""The line-parser protocol every text source implements.

A `LineParser` is fed cleaned `Line`s one at a time. `feed` returns True when the line belongs to its
source (whether or not it parsed: a line that looks like the source but matches no grammar rule becomes
an `unparsed` event). Finished events are appended to `self.out`; the dispatcher drains it after each
call. Multi-line parsers (tracebacks, py-spy stacks) set `busy` while inside a block so they are offered
the next line first, and may finish a block when they see a line that is not theirs (returning False).
"""
from __future__ import annotations

from typing import Any

from ..model import Event, Line, Source


def as_exit_barriers_wait(data: dict[str, Any]) -> None:
    """An event's data read as torch elastic's exit barrier waiting for the other nodes' agents (its traceback, the
    store's wait that ran out under it): benign, no rank's failure or absence."""
    data.update(meaning="benign", context="exit_barrier")
    data.pop("implies", None)


class LineParser:
    source: str = ""

    def __init__(self, src: Source):
        self.src = src
        self.file = src.path
        self.out: list[Event] = []
        self.busy = False

    def feed(self, line: Line) -> bool:  # pragma: no cover - interface
        raise NotImplementedError

    def finish(self) -> None:
        """Flush any open block at end of file."""

    def emit(self, kind: str, line: Line, text: str | None = None, **data: Any) -> Event:
        """Append an event carrying the line's wrapper rank/host; kind-specific fields go in `data`."""
        ev = Event(kind, self.source, self.file, line.no, line.rank, line.host,
                   text=line.raw or line.text if text is None else text, data=data, local_rank=line.local_rank)
        self.out.append(ev)
        return ev

    def unparsed(self, line: Line) -> Event:
        return self.emit("unparsed", line)
