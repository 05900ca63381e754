"""The files `torch.distributed.debug.start_debug_server(dump_dir=...)` writes → events, rank by rank.

Its periodic dumper writes one file per handler and interval, `<handler>_<YYYYmmdd_HHMMSS>.txt`: `stacks_*` (each
rank's `faulthandler.dump_traceback` output), `pyspy_dump_*` (each rank's py-spy dump), `wait_counters_*`, and
`fr_trace_*` (the analyzer's tables). The per-rank handlers join the ranks' answers under a header line
`=== Rank <i>: <address> ===` (`Error: <status>` when a rank did not answer). Each section is read with the usual
parsers, its lines carrying the section's rank and the host of its address, so a stack or a py-spy dump here counts
as that rank's own evidence.
"""
from __future__ import annotations

import re
from typing import Iterator

from ..model import Event, Line, Source
from .base import LineParser
from .chain import finish, offer
from .faulthandler import FaulthandlerParser
from .lines import iter_lines
from .pyspy import PyspyParser
from .traceback import TracebackParser

SECTION = re.compile(r"^=== Rank (\d+): (\S+) ===$")
_ADDRESS = re.compile(r"^\[?([^\]]+?)\]?:\d+$")
_PARSERS: tuple[type[LineParser], ...] = (PyspyParser, FaulthandlerParser, TracebackParser)


def read_debug_server_dump(source: Source) -> Iterator[Event]:
    parsers: list[LineParser] = [cls(source) for cls in _PARSERS]
    rank = host = None
    for line in iter_lines(source.path):
        m = SECTION.match(line.text)
        if m:
            yield from finish(parsers)           # a rank's section ends where the next one starts
            rank, host = int(m.group(1)), _host(m.group(2))
            continue
        if rank is not None:
            line = Line(line.no, line.text, rank, host, None, line.raw)
        yield from offer(line, parsers)
    yield from finish(parsers)


def _host(address: str) -> str:
    m = _ADDRESS.match(address)
    return m.group(1) if m else address
