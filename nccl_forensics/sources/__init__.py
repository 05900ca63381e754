"""The first stage: paths → Sources (discover.py) → events, one parser per evidence format.

formats.py registers each evidence format (kind, sniffer, parsers) as one object; this module holds the
dispatcher that runs a format's parsers over one source.

Text sources are parsed line by line by a chain of `LineParser`s (see base.py); structured sources
(flight-recorder dumps, py-spy --json, error.json) by a reader function. Either way the result is a
stream of `Event`s in file order.
"""
from __future__ import annotations

from typing import Callable, Generator, Iterator

from ..errors import BadInput
from ..model import CollRun, Event, Source, SourceResult
from .base import LineParser
from .chain import dispatch_lines, finish, offer, settle
from .formats import BY_KIND, FORMATS, Format, whole_file
from .gc_pause import gc_paused
from .nccl_fast import dispatch_blocks  # the fast path; equal to dispatch_lines (differential test)

__all__ = ["BY_KIND", "FORMATS", "Format", "dispatch_blocks", "dispatch_lines", "finish", "iter_events", "iter_records",
           "line_parsers", "offer", "parse_source", "settle", "warm_up", "whole_file"]


def warm_up() -> None:
    """Build what parsing builds on first use, now: the message catalogue's scans and the NCCL line grammar's
    parser (a worker's first file paid about 0.2 s for them; a worker started early builds them while its parent
    does something else)."""
    from . import catalogue
    from .grammars import lalr
    catalogue.build()
    lalr("nccl")


def line_parsers(source: Source) -> list[LineParser]:
    """The line parsers of the source's format, fresh, in offer order (none for a whole-file format)."""
    fmt = BY_KIND.get(source.kind)
    return fmt.line_parsers(source) if fmt is not None else []


def iter_events(source: Source, stats: dict | None = None) -> Iterator[Event]:
    """Stream the events of one source, in file order, with wrapper/file ranks filled in.

    `stats["lines"]` is kept up to date with the number of lines read (text sources).
    """
    reader = _reader(source)
    if reader is not None:
        yield from _fill(reader(source), source)
        return
    yield from _fill(_dispatch(source, stats if stats is not None else {}), source)


def iter_records(source: Source, stats: dict | None = None, topology: bool = True, buffers: bool = True
                 ) -> Generator[Event | CollRun, None, None]:
    """`iter_events`, with plain NCCL COLL lines as `CollRun`s (columns; their `events()` expand them).

    The bulk path for consumers that take COLL lines column-wise (diagnose's timelines, the jsonl writer).
    A run's events never need filling: their rank, host and pid are known. Without `topology` (a consumer that
    reads no topology: diagnose), the topology lines of processes of known rank give no event
    (nccl_fast.BlockScanner._unread_topology); `stats["skipped_line"]` is the last of them. Without `buffers` (a
    consumer that reads no sendbuff/recvbuff column), a whole block's run reads those only when asked.
    """
    if _reader(source) is not None:
        yield from iter_events(source, stats)
        return
    yield from _fill(_dispatch(source, stats if stats is not None else {}, True, topology, buffers), source)


def _reader(source: Source) -> Callable[[Source], Iterator[Event]] | None:
    fmt = BY_KIND.get(source.kind)
    return fmt.reader if fmt is not None else None


def _dispatch(source: Source, stats: dict, bulk: bool = False, topology: bool = True, buffers: bool = True
              ) -> Iterator[Event]:
    """The block scanner over the source's parser chain. A chain that opens with the NCCL parser comes with only
    its two ends built (the NCCL parser, the message catalogue): the parsers between them are built when a line
    first reaches them (BlockScanner._chain), which no line of a per-rank NCCL log does."""
    fmt = BY_KIND.get(source.kind)
    classes = fmt.parsers if fmt is not None else ()
    if len(classes) > 2 and hasattr(classes[0], "coll_context"):
        ends = [classes[0](source), classes[-1](source)]
        yield from dispatch_blocks(source.path, ends, stats, bulk, source.window, topology, buffers,
                                   lambda: [cls(source) for cls in classes[1:-1]])
        return
    yield from dispatch_blocks(source.path, line_parsers(source), stats, bulk, source.window, topology, buffers)


def _fill(events: Iterator[Event], source: Source) -> Iterator[Event]:
    if source.rank is None and source.host is None and source.pid is None:
        yield from events            # nothing to fill: skip the per-event step
        return
    for ev in events:
        if type(ev) is CollRun:
            yield ev
            continue
        if ev.rank is None and source.rank is not None:
            ev.rank = source.rank
        if ev.host is None and source.host is not None:
            ev.host = source.host
        if ev.pid is None and source.pid is not None:
            ev.pid = source.pid
        yield ev


def parse_source(source: Source) -> SourceResult:
    """Parse one source fully. Read errors become `SourceResult.error`, never an exception."""
    events: list[Event] = []
    stats: dict = {}
    error = None
    try:
        with gc_paused():   # list.extend drives the generator: no other code runs while the collector is off
            events.extend(iter_events(source, stats))
    except BadInput as exc:
        error = str(exc)
    lines = stats.get("lines") or max((e.line for e in events), default=0)
    return SourceResult(source, events, lines=lines, unparsed=_count_unparsed(events), error=error)


def _count_unparsed(events: list[Event]) -> int:
    return sum(1 for e in events if e.kind == "unparsed")
