"""The parser chain of a text source: each line offered to its `LineParser`s in order, the end of the input, and
the message catalogue's view of what they emitted. The dispatchers (`dispatch_lines` here, the block scanner in
nccl_fast.py) share these steps; sources/__init__.py re-exports them."""
from __future__ import annotations

from typing import Iterator

from ..errors import BadInput
from ..model import Event
from .base import LineParser
from .lines import iter_lines


def dispatch_lines(path: str, parsers: list[LineParser], stats: dict,
                   window: tuple[int, int] | None = None) -> Iterator[Event]:
    """The reference dispatcher: every line offered to the parser chain, one at a time."""
    stats["lines"] = 0
    try:
        for line in iter_lines(path, window=window):
            stats["lines"] = line.no
            yield from offer(line, parsers)
    except BadInput:                 # a cut gzip: what the parsers hold from the lines before it still counts
        yield from finish(parsers)
        raise
    yield from finish(parsers)


def finish(parsers: list[LineParser]) -> Iterator[Event]:
    """The end of the input: each parser closes what it holds open (held events, a multi-line block)."""
    for p in parsers:
        p.finish()
    produced = _drain(parsers)
    messages = catalogue_parser(parsers)
    if messages is not None:
        produced = messages.flush(produced)
        messages.out.clear()
    yield from produced


def offer(line, parsers: list[LineParser]) -> Iterator[Event]:
    """Offer one line to the chain (a parser inside a multi-line block first) and drain what they emitted."""
    claimed = False
    if line.text:
        chain = sorted(parsers, key=lambda p: not p.busy) if any(p.busy for p in parsers) else parsers
        for p in chain:
            if p.feed(line):
                claimed = True
                break
    produced = _drain(parsers)
    messages = catalogue_parser(parsers)
    if messages is not None:
        produced = messages.classify(line, produced, any(p.busy for p in parsers), claimed)
    yield from produced


def settle(parsers: list[LineParser], events: list[Event]) -> list[Event]:
    """Events a parser emitted outside `offer` (the block scanner's COLL path), given to the message catalogue."""
    messages = catalogue_parser(parsers)
    return messages.settle(events) if messages is not None else events


def _drain(parsers: list[LineParser]) -> list[Event]:
    produced: list[Event] = []
    for p in parsers:
        if p.out:
            produced.extend(p.out)
            p.out.clear()
    return produced


def catalogue_parser(parsers: list[LineParser]):
    """The chain's message catalogue (always last), if it has one."""
    last = parsers[-1] if parsers else None
    return last if last is not None and last.source == "catalogue" else None
