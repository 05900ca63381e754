"""The two records a `ncclf parse` scan passes between `collect` (which runs it) and `spool` (which writes its
output): the job for one file, and what that file gave."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import IO, Callable

from ..model import Source
from ..sources.ranks import RankHints

WriterFactory = Callable[[str, IO[str]], Callable[[list], None]]


@dataclass
class FileSummary:
    """What one file gave, small and picklable (the inventory row and the spool bookkeeping)."""

    source: Source
    lines: int = 0
    events: int = 0
    unparsed: int = 0
    kinds: Counter = field(default_factory=Counter)
    ranks: set = field(default_factory=set)
    pids: set = field(default_factory=set)
    hosts: set = field(default_factory=set)
    missing_rank: int = 0
    error: str | None = None
    spool: str | None = None
    direct: int = 0                       # events written straight to the output before the spool began
    hints: RankHints = field(default_factory=RankHints)
    other_nodes: bool = False             # an event says the job spans nodes (ranks.shows_other_nodes)


@dataclass
class ScanJob:
    """One file's scan: what a worker needs to parse it and write its events (picklable)."""

    source: Source
    hints: RankHints | None = None        # merged cross-file hints, on the second pass
    local_is_global: bool = False         # single node: a --log-dir local rank is the global rank
    fmt: str | None = None
    writer_for: WriterFactory | None = None
    spool_dir: str | None = None
    skip: int = 0                         # events already written straight to the output (not written again)
    index: int | None = None              # the file's place in the output, on a parallel first pass
