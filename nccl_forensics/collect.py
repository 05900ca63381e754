"""paths → parsed, rank-attributed events: the first three stages (discover → parse → ranks) as one call.

Two ways to run them:
- `parse_paths` keeps every event in memory (what `diagnose` and the table summary need);
- `spool_events` streams each file's events straight into a per-file output spool (jsonl or csv), so
  `ncclf parse --format jsonl` never holds a large log in memory. A file whose events still lack a rank
  after the in-file recovery is re-parsed once with the merged cross-file hints.
"""
from __future__ import annotations

import os
import shutil
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from typing import IO, Callable, Iterable

from .discover import discover, evidence_sources
from .model import Source, SourceKind, SourceResult
from .parallel import map_sources
from .parse import iter_events, parse_source
from .ranks import RankHints, assign_ranks, fill_ranks, hints_from_events
from .errors import BadInput


@dataclass
class ParseRun:
    sources: list[Source]                 # every file found, skipped ones included
    results: list[SourceResult]           # one per evidence source, in path order
    hints: RankHints = field(default_factory=RankHints)

    @property
    def events(self):
        for res in self.results:
            yield from res.events


def parse_paths(paths: Iterable[str], jobs: int = 0, on_done: Callable[[int], None] | None = None) -> ParseRun:
    """Discover, parse every evidence file (in parallel), and recover ranks across files."""
    sources = discover(paths)
    results = map_sources(parse_source, evidence_sources(sources), jobs, on_done)
    hints = assign_ranks(results)
    return ParseRun(sources, results, hints)


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
    hints: RankHints = field(default_factory=RankHints)


def summarize(res: SourceResult) -> FileSummary:
    s = FileSummary(res.source, lines=res.lines, events=len(res.events), unparsed=res.unparsed, error=res.error)
    for ev in res.events:
        s.kinds[ev.kind] += 1
        if ev.rank is not None:
            s.ranks.add(ev.rank)
        else:
            s.missing_rank += 1
        if ev.pid is not None:
            s.pids.add(ev.pid)
        if ev.host:
            s.hosts.add(ev.host)
    return s


def inventory(paths: Iterable[str], jobs: int = 0) -> list[FileSummary]:
    """One row per file found: kind, ranks, hosts, pids, lines, events, unparsed (skipped files included)."""
    run = parse_paths(paths, jobs)
    by_path = {res.source.path: summarize(res) for res in run.results}
    return [by_path.get(src.path) or FileSummary(src) for src in run.sources]


# --- streaming output -------------------------------------------------------------------------------

def _spool_worker(job: tuple[Source, str, str, RankHints | None]) -> FileSummary:
    source, fmt, spool_dir, hints = job
    from .render.events import writer_for  # imported in the worker: keeps the parent light

    fd, spool = tempfile.mkstemp(prefix="ncclf-", suffix=f".{fmt}", dir=spool_dir)
    summary = FileSummary(source, spool=spool)
    with os.fdopen(fd, "w", encoding="utf-8", newline="") as out:
        write = writer_for(fmt, out)
        batch: list = []
        stats: dict = {}
        try:
            for ev in iter_events(source, stats):
                batch.append(ev)
                if len(batch) >= 4096:
                    _flush(batch, summary, hints, write)
        except BadInput as exc:
            summary.error = str(exc)
        _flush(batch, summary, hints, write)
    summary.lines = max(summary.lines, stats.get("lines", 0))
    return summary


def _flush(batch, summary: FileSummary, hints: RankHints | None, write) -> None:
    if hints is not None:
        fill_ranks(batch, hints, summary.source.local_rank)
    summary.hints.merge(hints_from_events(batch))
    for ev in batch:
        summary.events += 1
        summary.kinds[ev.kind] += 1
        summary.lines = max(summary.lines, ev.line)
        if ev.kind == "unparsed":
            summary.unparsed += 1
        if ev.rank is None:
            summary.missing_rank += 1
        else:
            summary.ranks.add(ev.rank)
        if ev.pid is not None:
            summary.pids.add(ev.pid)
        if ev.host:
            summary.hosts.add(ev.host)
    write(batch)
    batch.clear()


def spool_events(paths: Iterable[str], fmt: str, out: IO[str], jobs: int = 0) -> list[FileSummary]:
    """Write every event of every evidence file to `out` in `fmt` (jsonl|csv), file by file, in path order."""
    sources = evidence_sources(discover(paths))
    with tempfile.TemporaryDirectory(prefix="ncclf-spool-") as spool_dir:
        summaries = map_sources(_spool_worker, [(s, fmt, spool_dir, None) for s in sources], jobs)
        merged = RankHints()
        for s in summaries:
            merged.merge(s.hints)
        redo = [i for i, s in enumerate(summaries) if s.missing_rank and _resolvable(s, merged)]
        if redo:
            again = map_sources(_spool_worker, [(sources[i], fmt, spool_dir, merged) for i in redo], jobs)
            for i, s in zip(redo, again):
                os.unlink(summaries[i].spool)
                summaries[i] = s
        _concatenate(summaries, fmt, out)
    return summaries


def _resolvable(summary: FileSummary, merged: RankHints) -> bool:
    return any(merged.rank_of(host, pid) is not None for pid in summary.pids for host in (summary.hosts or {None}))


def _concatenate(summaries: list[FileSummary], fmt: str, out: IO[str]) -> None:
    header_done = False
    for s in summaries:
        with open(s.spool, encoding="utf-8", newline="") as fh:
            if fmt == "csv":
                header = fh.readline()
                if header and not header_done:
                    out.write(header)
                    header_done = True
            shutil.copyfileobj(fh, out, 1 << 20)


def is_skipped(source: Source) -> bool:
    return source.kind is SourceKind.UNKNOWN
