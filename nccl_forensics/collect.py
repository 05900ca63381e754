"""paths → parsed, rank-attributed events: the first three stages (discover → parse → ranks) as one call.

Two ways to run them:
- `parse_paths` keeps every event in memory (what `diagnose` and the table summary need);
- `spool_events` streams each file's events straight into a per-file output spool (jsonl or csv), so
  `ncclf parse --format jsonl` never holds a large log in memory. A file whose events still lack a rank
  after the in-file recovery is re-parsed once with the merged cross-file hints.
"""
from __future__ import annotations

import codecs
import os
import shutil
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from typing import IO, Callable, Iterable

from .discover import discover, evidence_sources
from .model import CollRun, Source, SourceResult
from .parallel import default_jobs, map_sources
from .parse import iter_records, parse_source
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
    direct: int = 0                       # events written straight to the output before the spool began
    hints: RankHints = field(default_factory=RankHints)


def inventory(paths: Iterable[str], jobs: int = 0) -> list[FileSummary]:
    """One row per file found: kind, ranks, hosts, pids, lines, events, unparsed (skipped files included).

    Streams every file (bounded memory); ranks are recovered across files as in `parse_paths`.
    """
    sources = discover(paths)
    summaries = scan(evidence_sources(sources), jobs)
    if len({h for s in summaries for h in s.hosts}) <= 1:   # single node: a --log-dir folder names the rank
        for s in summaries:
            if not s.ranks and s.source.local_rank is not None:
                s.ranks.add(s.source.local_rank)
    by_path = {s.source.path: s for s in summaries}
    return [by_path.get(src.path) or FileSummary(src) for src in sources]


# --- streaming -----------------------------------------------------------------------------------------

WriterFactory = Callable[[str, IO[str]], Callable[[list], None]]


@dataclass
class _ScanJob:
    source: Source
    hints: RankHints | None = None        # merged cross-file hints, on the second pass
    local_is_global: bool = False         # single node: a --log-dir local rank is the global rank
    fmt: str | None = None
    writer_for: WriterFactory | None = None
    spool_dir: str | None = None
    skip: int = 0                         # events already written straight to the output (not written again)


class _Output:
    """Where a file's events go: a spool file of its own, or (serial runs) straight to the final output, until
    an event without a rank shows up. From that event on, this file and every later one spool, because a
    re-scan with other files' hints may still rewrite them."""

    def __init__(self, job: _ScanJob, summary: FileSummary, direct: "_Direct | None" = None):
        self.job, self.summary, self.direct = job, summary, direct if direct is not None and direct.open else None
        self.fh, self.write, self.skip = None, None, job.skip

    def put(self, items: list) -> None:
        if self.direct is not None:
            cut = next((i for i, ev in enumerate(items) if type(ev) is not CollRun and ev.rank is None), None)
            if cut is None:
                self.direct.write(items)
                self.summary.direct += _count(items)
                return
            self.direct.write(items[:cut])
            self.summary.direct += _count(items[:cut])
            self.direct.open, self.direct = False, None
            items = items[cut:]
        if self.skip:
            n = _count(items)
            items, self.skip = _drop(items, self.skip), max(0, self.skip - n)
        if self.write is None:
            fd, self.summary.spool = tempfile.mkstemp(prefix="ncclf-", suffix=f".{self.job.fmt}",
                                                      dir=self.job.spool_dir)
            self.fh = os.fdopen(fd, "w", encoding="utf-8", newline="")
            self.write = self.job.writer_for(self.job.fmt, self.fh)
        self.write(items)

    def close(self) -> None:
        if self.fh is not None:
            self.fh.close()


@dataclass
class _Direct:
    """The final output, written to while every event so far had a rank (serial runs only)."""

    write: Callable[[list], None]
    open: bool = True


def _count(items: list) -> int:
    return sum(len(ev) if type(ev) is CollRun else 1 for ev in items)


def _drop(items: list, n: int) -> list:
    """`items` without their first `n` events (a CollRun cut in two is expanded)."""
    out = []
    for item in items:
        size = len(item) if type(item) is CollRun else 1
        if n >= size:
            n -= size
        elif n:
            out.extend(list(item.events())[n:])
            n = 0
        else:
            out.append(item)
    return out


def _scan_worker(job: _ScanJob, direct: _Direct | None = None) -> FileSummary:
    """Parse one file in batches, fill ranks, and (optionally) write its events to a spool or `direct`."""
    summary = FileSummary(job.source)
    output = _Output(job, summary, direct) if job.writer_for is not None else None
    batch: list = []
    stats: dict = {}
    try:
        for item in iter_records(job.source, stats):
            batch.append(item)
            if len(batch) >= 4096 or type(item) is CollRun:
                _flush(batch, summary, job, output)
    except BadInput as exc:
        summary.error = str(exc)
    finally:
        _flush(batch, summary, job, output)
        if output is not None:
            output.close()
    summary.lines = max(summary.lines, stats.get("lines", 0))
    return summary


def _flush(items: list, summary: FileSummary, job: _ScanJob, output: _Output | None) -> None:
    """Count, rank-fill and write a batch of Events and CollRuns (whose events all have ranks, hosts, pids)."""
    batch = [ev for ev in items if type(ev) is not CollRun]
    for run in (item for item in items if type(item) is CollRun):
        _count_run(run, summary)
    if job.hints is not None:
        fill_ranks(batch, job.hints, summary.source.local_rank)
    if job.local_is_global:   # single node: torchrun's local ranks are the global ranks
        for ev in batch:
            if ev.rank is None:
                ev.rank = summary.source.local_rank if ev.local_rank is None else ev.local_rank
    summary.hints.merge(hints_from_events(batch))
    kinds = Counter(ev.kind for ev in batch)
    summary.kinds.update(kinds)
    summary.events += len(batch)
    summary.unparsed += kinds.get("unparsed", 0)
    ranks = {ev.rank for ev in batch}
    if None in ranks:
        summary.missing_rank += sum(1 for ev in batch if ev.rank is None)
        ranks.discard(None)
    summary.ranks |= ranks
    summary.pids |= {ev.pid for ev in batch}
    summary.pids.discard(None)
    summary.hosts |= {ev.host for ev in batch if ev.host}
    if output is not None and items:
        output.put(items)
    items.clear()


def _count_run(run: CollRun, summary: FileSummary) -> None:
    contexts = set(run.contexts)
    summary.kinds["coll"] += len(run)
    summary.events += len(run)
    summary.ranks |= {ctx.rank for ctx in contexts}
    summary.pids |= {ctx.pid for ctx in contexts}
    summary.hosts |= {ctx.host for ctx in contexts}


def scan(sources: list[Source], jobs: int = 0, fmt: str | None = None, writer_for: WriterFactory | None = None,
         spool_dir: str | None = None, direct: _Direct | None = None) -> list[FileSummary]:
    """Stream every source once; re-scan the few files whose ranks only other files can name.

    With `direct` (serial runs), files are scanned in order and written straight to it while they can be.
    """
    make = lambda src, hints=None, local=False: _ScanJob(src, hints, local, fmt, writer_for, spool_dir)  # noqa: E731
    if direct is not None:
        summaries = [_scan_worker(make(s), direct) for s in sources]
    else:
        summaries = map_sources(_scan_worker, [make(s) for s in sources], jobs)
    merged = RankHints()
    for s in summaries:
        merged.merge(s.hints)
    single_node = len({h for s in summaries for h in s.hosts}) <= 1
    redo = [i for i, s in enumerate(summaries) if s.missing_rank and (single_node or _resolvable(s, merged))]
    jobs_again = [make(sources[i], merged, single_node) for i in redo]
    for i, job in zip(redo, jobs_again):
        job.skip = summaries[i].direct
    again = map_sources(_scan_worker, jobs_again, jobs)
    for i, s in zip(redo, again):
        s.direct = summaries[i].direct
        if summaries[i].spool:
            os.unlink(summaries[i].spool)
        summaries[i] = s
    return summaries


def spool_events(paths: Iterable[str], fmt: str, writer_for: WriterFactory, out: IO[str],
                 jobs: int = 0) -> list[FileSummary]:
    """Write every event of every evidence file to `out`, file by file, in path order, in bounded memory.

    `writer_for(fmt, fh)` (a picklable top-level function, e.g. render.events.writer_for) returns a
    callable that writes a batch of events; for "csv" each spool starts with the header line.
    """
    sources = evidence_sources(discover(paths))
    serial = bool(sources) and min(jobs or default_jobs(), len(sources)) <= 1
    direct = _Direct(writer_for(fmt, out)) if serial else None   # csv: writes the header now
    with tempfile.TemporaryDirectory(prefix="ncclf-spool-") as spool_dir:
        summaries = scan(sources, jobs, fmt, writer_for, spool_dir, direct)
        _concatenate(summaries, fmt, out, header_done=direct is not None)
    return summaries


def _resolvable(summary: FileSummary, merged: RankHints) -> bool:
    return any(merged.rank_of(host, pid) is not None for pid in summary.pids for host in (summary.hosts or {None}))


def _concatenate(summaries: list[FileSummary], fmt: str, out: IO[str], header_done: bool = False) -> None:
    """Append every spool to `out` in order (csv: one header); bytes are copied as they are when `out` is a
    UTF-8 text stream with a binary buffer and plain newlines, which skips decoding and re-encoding."""
    binary = _utf8_buffer(out)
    if binary is not None:
        out.flush()
    for s in (s for s in summaries if s.spool):
        with (open(s.spool, "rb") if binary is not None else open(s.spool, encoding="utf-8", newline="")) as fh:
            if fmt == "csv":
                header = fh.readline()
                if header and not header_done:
                    (binary or out).write(header)
                    header_done = True
            shutil.copyfileobj(fh, binary or out, 1 << 20)
    if binary is not None:
        binary.flush()


def _utf8_buffer(out: IO[str]):
    buffer, encoding = getattr(out, "buffer", None), getattr(out, "encoding", None)
    if buffer is None or not encoding or os.linesep != "\n":
        return None
    try:
        return buffer if codecs.lookup(encoding).name == "utf-8" else None
    except LookupError:
        return None
