"""paths → parsed, rank-attributed events: the first three stages (discover → parse → ranks) as one call.

Two ways to run them:
- `parse_paths` keeps every event in memory (what `diagnose` and the table summary need);
- `spool_events` streams each file's events straight into a per-file output spool (jsonl or csv), so
  `ncclf parse --format jsonl` never holds a large log in memory. A file whose events still lack a rank
  after the in-file recovery is re-parsed once with the merged cross-file hints.
"""
from __future__ import annotations

import codecs
import io
import os
import shutil
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from typing import IO, Callable, Iterable

from .discover import discover, evidence_sources
from .model import CollRun, Source, SourceResult
from .parallel import imap_sources, map_sources, worker_count
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

    def __init__(self, job: _ScanJob, summary: FileSummary, direct: "_Sink | None" = None):
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


class _Sink:
    """The final output, filled in file order while every event so far had a rank: straight from a serial
    scan (`write`), or by copying each finished spool (`append`). `open` turns False for good at the first
    event without a rank; what follows waits for the re-scan and is appended at the end."""

    def __init__(self, out: IO[str], fmt: str, writer_for: WriterFactory):
        self.out, self.fmt, self.writer_for = out, fmt, writer_for
        self.open, self.header_done = True, False
        self._write: Callable[[list], None] | None = None

    def write(self, items: list) -> None:
        if self._write is None:
            self._write, self.header_done = self.writer_for(self.fmt, self.out), True   # csv: the header
        self._write(items)

    def append(self, summary: FileSummary) -> None:
        """Copy a finished spool to the output and delete it. Bytes are copied as they are when the output is a
        UTF-8 text stream with a binary buffer and plain newlines (no decoding and re-encoding), by the kernel
        when that buffer has a file descriptor."""
        binary = _utf8_buffer(self.out)
        self.out.flush()
        with (open(summary.spool, "rb") if binary is not None else
              open(summary.spool, encoding="utf-8", newline="")) as fh:
            if self.fmt == "csv":
                header = fh.readline()
                if header and not self.header_done:
                    (binary or self.out).write(header)
                    self.header_done = True
            if binary is None:
                shutil.copyfileobj(fh, self.out, 1 << 20)
            else:
                _copy_bytes(fh, binary)
        if binary is not None:
            binary.flush()
        os.unlink(summary.spool)
        summary.spool = None

    def finish(self) -> None:
        if self.fmt == "csv" and not self.header_done:   # no events at all: still a header
            self.write([])


def _copy_bytes(src: IO[bytes], dst: IO[bytes]) -> None:
    """The rest of `src` (a file) onto `dst`: with sendfile(2), without passing through this process, when
    `dst` has a file descriptor that takes it; otherwise by reads and writes."""
    offset = src.tell()
    dst.flush()                 # what `dst` buffers goes first
    try:
        out_fd, size = dst.fileno(), os.fstat(src.fileno()).st_size
        while offset < size:
            sent = os.sendfile(out_fd, src.fileno(), offset, size - offset)
            if sent == 0:
                break
            offset += sent
    except (OSError, AttributeError, ValueError, io.UnsupportedOperation):
        pass                    # no fd, or one sendfile refuses: copy what is left the plain way
    src.seek(offset)
    shutil.copyfileobj(src, dst, 1 << 20)


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


def _scan_worker(job: _ScanJob, direct: _Sink | None = None) -> FileSummary:
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
         spool_dir: str | None = None, sink: _Sink | None = None) -> list[FileSummary]:
    """Stream every source once; re-scan the few files whose ranks only other files can name.

    With a `sink`, each file's events go to it as soon as they are final, in file order: a serial scan writes
    them straight to it, a parallel one copies each spool as soon as it and every earlier one are done.
    """
    make = lambda src, hints=None, local=False: _ScanJob(src, hints, local, fmt, writer_for, spool_dir)  # noqa: E731
    serial = sink is not None and worker_count(jobs, len(sources)) == 1
    if serial:
        summaries = [_scan_worker(make(s), sink) for s in sources]
    else:
        summaries = []
        for s in imap_sources(_scan_worker, [make(s) for s in sources], jobs):
            summaries.append(s)
            if sink is not None and sink.open:
                sink.open = not s.missing_rank
                if sink.open and s.spool:
                    sink.append(s)
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
    callable that writes a batch of events; for "csv" it writes the header line first.
    """
    sources = evidence_sources(discover(paths))
    sink = _Sink(out, fmt, writer_for)
    with tempfile.TemporaryDirectory(prefix="ncclf-spool-") as spool_dir:
        summaries = scan(sources, jobs, fmt, writer_for, spool_dir, sink)
        for s in summaries:
            if s.spool:
                sink.append(s)
    sink.finish()
    return summaries


def _resolvable(summary: FileSummary, merged: RankHints) -> bool:
    return any(merged.rank_of(host, pid) is not None for pid in summary.pids for host in (summary.hosts or {None}))


def _utf8_buffer(out: IO[str]):
    buffer, encoding = getattr(out, "buffer", None), getattr(out, "encoding", None)
    if buffer is None or not encoding or os.linesep != "\n":
        return None
    try:
        return buffer if codecs.lookup(encoding).name == "utf-8" else None
    except LookupError:
        return None
