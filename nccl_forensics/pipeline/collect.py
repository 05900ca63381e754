"""paths → parsed, rank-attributed events: the first three stages (discover → parse → ranks) as one call.

Three ways to run them:
- `parse_paths` keeps every event in memory (for library users; the CLI streams);
- `preview_events` (`parse`'s table) streams every file for its counts and reads only the first events again;
- `spool_events` streams each file's events to the output in file order (jsonl or csv), so
  `ncclf parse --format jsonl` never holds a large log in memory: straight to the output where it can,
  through a per-file spool elsewhere (spool.py). A file whose events still lack a rank after the in-file
  recovery is re-parsed once with the merged cross-file hints.
"""
from __future__ import annotations

import os
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from typing import IO, Callable, Iterable

from ..errors import BadInput
from ..model import CollRun, Event, Source, SourceKind, SourceResult
from ..sources import iter_records, parse_source
from ..sources.discover import discover, evidence_sources
from ..sources.ranks import RankHints, assign_ranks, fill_ranks, hints_from_events, shows_other_nodes
from . import spool
from .engines.local import imap_sources, map_sources, worker_count
from .scan_job import FileSummary, ScanJob, WriterFactory
from .spool import Output, Sink


@dataclass
class ParseRun:
    sources: list[Source]                 # every file found, skipped ones included
    results: list[SourceResult]           # one per evidence source, in path order
    hints: RankHints = field(default_factory=RankHints)

    @property
    def events(self):
        for res in self.results:
            yield from res.events


Progress = Callable[[int, int], None]           # progress(files done, files in all)


def parse_paths(paths: Iterable[str], jobs: int = 0) -> ParseRun:
    """Discover, parse every evidence file (in parallel), and recover ranks across files."""
    sources = discover(paths)
    results = map_sources(parse_source, _parsable(sources), jobs)
    hints = assign_ranks(results)
    return ParseRun(sources, results, hints)


@dataclass
class EventsPreview:
    """`parse`'s table: the first `limit` events (ranks filled across files) and every file's counts, from the
    same streaming scan as jsonl: no file's events are held, and none cross processes."""
    sources: list[Source]                 # every file found, skipped ones included
    summaries: list[FileSummary]          # one per evidence source, in path order
    first: list                           # the first events, in path order
    hints: RankHints = field(default_factory=RankHints)


def preview_events(paths: Iterable[str], jobs: int = 0, limit: int | None = 200,
                   progress: Progress | None = None) -> EventsPreview:
    sources = discover(paths)
    usable = _parsable(sources)
    summaries = scan(usable, jobs, progress=progress)
    merged = RankHints()
    for s in summaries:
        merged.merge(s.hints)
    single_node = _single_node(summaries)
    return EventsPreview(sources, summaries, _first_events(usable, merged, limit, single_node), merged)


def _first_events(sources: list[Source], hints: RankHints, limit: int | None, single_node: bool) -> list:
    """The first `limit` events in path order (all with None), read again from the start of the first files."""
    out: list = []
    for src in sources:
        if limit is not None and len(out) >= limit:
            break
        records = iter_records(src)
        try:
            for item in records:
                batch: list[Event] = list(item.events()) if isinstance(item, CollRun) else [item]
                fill_ranks(batch, hints, src.local_rank)
                for ev in batch:
                    if ev.rank is None and single_node:
                        ev.rank = src.local_rank if ev.local_rank is None else ev.local_rank
                out += batch
                if limit is not None and len(out) >= limit:
                    break
        except BadInput:
            pass                          # its error is in its summary
        finally:
            records.close()
    return out if limit is None else out[:limit]


def inventory(paths: Iterable[str], jobs: int = 0, progress: Progress | None = None) -> list[FileSummary]:
    """One row per file found: kind, ranks, hosts, pids, lines, events, unparsed (skipped files included).

    Streams every file (bounded memory); ranks are recovered across files as in `parse_paths`.
    """
    sources = discover(paths)
    summaries = scan(_parsable(sources), jobs, progress=progress)
    if _single_node(summaries):   # a --log-dir folder names the rank
        for s in summaries:
            if not s.ranks and s.source.local_rank is not None:
                s.ranks.add(s.source.local_rank)
    by_path = {s.source.path: s for s in summaries}
    return [by_path.get(src.path) or FileSummary(src) for src in sources]


def _single_node(summaries: list[FileSummary]) -> bool:
    """Is the evidence one node's, so that torchrun's local ranks are the global ranks: at most one host, and no
    event that says other nodes hold ranks (a global rank beside a different local rank, NCCL's `nNodes 2`)?"""
    return len({h for s in summaries for h in s.hosts}) <= 1 and not any(s.other_nodes for s in summaries)


def _parsable(sources: list[Source]) -> list[Source]:
    """The evidence `parse` reads: an ncclf summary is another node's digests, for `diagnose` only."""
    return [s for s in evidence_sources(sources) if s.kind is not SourceKind.SUMMARY]


# --- streaming -----------------------------------------------------------------------------------------

def _scan_worker(job: ScanJob, direct: Sink | None = None) -> FileSummary:
    """Parse one file in batches, fill ranks, and (optionally) write its events to a spool or `direct`."""
    summary = FileSummary(job.source)
    output = Output(job, summary, direct, spool.forked_turn) if job.writer_for is not None else None
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


def _flush(items: list, summary: FileSummary, job: ScanJob, output: Output | None) -> None:
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
    summary.other_nodes = summary.other_nodes or any(shows_other_nodes(ev) for ev in batch)
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
         spool_dir: str | None = None, sink: Sink | None = None, progress: Progress | None = None
         ) -> list[FileSummary]:
    """Stream every source once; re-scan the few files whose ranks only other files can name.

    With a `sink`, each file's events go to it as soon as they are final, in file order: a serial scan writes
    them straight to it, a parallel one copies each spool as soon as it and every earlier one are done.
    """
    make = lambda src, hints=None, local=False: ScanJob(src, hints, local, fmt, writer_for, spool_dir)  # noqa: E731
    serial = sink is not None and worker_count(jobs, len(sources)) == 1
    if serial:
        summaries = []
        for src in sources:
            summaries.append(_scan_worker(make(src), sink))
            if progress:
                progress(len(summaries), len(sources))
    else:
        summaries = _parallel_first_pass([make(s) for s in sources], jobs, sink, progress)
    merged = RankHints()
    for s in summaries:
        merged.merge(s.hints)
    single_node = _single_node(summaries)
    redo = [i for i, s in enumerate(summaries) if s.missing_rank and (single_node or _resolvable(s, merged))]
    jobs_again = [make(sources[i], merged, single_node) for i in redo]
    for i, job in zip(redo, jobs_again, strict=True):
        job.skip = summaries[i].direct
    again = map_sources(_scan_worker, jobs_again, jobs)
    for i, redone in zip(redo, again, strict=True):
        first = summaries[i]
        redone.direct = first.direct
        if first.spool:
            os.unlink(first.spool)
        summaries[i] = redone
    return summaries


def _parallel_first_pass(jobs_list: list[ScanJob], jobs: int, sink: Sink | None,
                         progress: Progress | None = None) -> list[FileSummary]:
    """Scan in worker processes; with a sink, copy each file's spool to it as soon as it and every earlier
    file are done, and (jsonl on a descriptor) let the next file's worker write straight to it meanwhile."""
    turn = spool.Turn.for_sink(sink) if sink is not None else None
    if turn is not None:
        for i, job in enumerate(jobs_list):
            job.index = i
    summaries: list[FileSummary] = []
    spool.forked_turn = turn
    try:
        for s in imap_sources(_scan_worker, jobs_list, jobs):
            summaries.append(s)
            if sink is not None and sink.open:
                sink.open = not s.missing_rank
                if sink.open and s.spool:
                    sink.append(s)
            if turn is not None:
                turn.passed(len(summaries), sink is not None and sink.open)
            if progress:
                progress(len(summaries), len(jobs_list))
    finally:
        spool.forked_turn = None
    return summaries


def spool_events(paths: Iterable[str], fmt: str, writer_for: WriterFactory, out: IO[str],
                 jobs: int = 0, progress: Progress | None = None) -> list[FileSummary]:
    """Write every event of every evidence file to `out`, file by file, in path order, in bounded memory.

    `writer_for(fmt, fh)` (a picklable top-level function, e.g. render.events.writer_for) returns a
    callable that writes a batch of events; for "csv" it writes the header line first.
    """
    sources = _parsable(discover(paths))
    sink = Sink(out, fmt, writer_for)
    with tempfile.TemporaryDirectory(prefix="ncclf-spool-") as spool_dir:
        summaries = scan(sources, jobs, fmt, writer_for, spool_dir, sink, progress)
        for s in summaries:
            if s.spool:
                sink.append(s)
    sink.finish()
    return summaries


def _resolvable(summary: FileSummary, merged: RankHints) -> bool:
    return any(merged.rank_of(host, pid) is not None for pid in summary.pids for host in (summary.hosts or {None}))
