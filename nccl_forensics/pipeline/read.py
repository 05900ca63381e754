"""Reading the evidence, the parent's side of the map: which files, their windows, each file's Digest from the
workers (map.digest_source, map.sniff_and_digest), and `summarize`, the map step alone on a node.

Nothing here loads pandas or a detector: `ncclf summarize` runs without them, and `ncclf diagnose` starts the workers
(`pool_for`) before it imports the reduce.
"""
from __future__ import annotations

import os
from functools import partial
from typing import Callable, Iterable, Iterator, NamedTuple

import numpy as np

from ..errors import NcclfError, NoEvidence
from ..model import Source, SourceKind
from ..sources import warm_up
from ..sources.capture_manifest import MANIFEST_NAME
from ..sources.discover import discover, evidence_sources, list_files, sniff
from ..sources.gc_pause import gc_paused
from ..sources.lines import TAIL_BASE, resolve_tail_line
from .engines.local import SharedPool, chunk_size, imap_sources, worker_count
from .map import WINDOW_MB, Digest, digest_source, set_windows, sniff_and_digest
from .summary import RowBlock, joined_rows, write_summary
from .unread import suspect_middles


def pool_for(paths: list[str], jobs: int = 0, window_mb: float | None = WINDOW_MB) -> SharedPool:
    """A SharedPool for `reduce.diagnose(paths, jobs, window_mb=window_mb, shared=...)`, its workers started now
    where the files are several, each first building what parsing needs (`sources.warm_up`), and handed the files
    at once where they go out in batches (`read_inputs`): the caller loads what only it needs meanwhile (the CLI:
    the reduce, pandas, the detectors), instead of before the workers start or while they wait."""
    shared = SharedPool()
    try:
        files = list_files(paths)
    except NcclfError:                  # said by the read itself
        return shared
    workers = worker_count(jobs, len(files))
    if workers > 1:
        with gc_paused():               # the workers keep the collector off, as those a diagnosis starts do
            shared.start(workers, warm_up)
    if _fused(files, jobs):
        batch = partial(sniff_and_digest_batch, window_mb=window_mb, keep_text=False, join=True)
        shared.prefetch(_batched_read(files, window_mb, False, True), batch, _batches(files, jobs), jobs)
    return shared


def _fused(files: list[str], jobs: int) -> bool:
    """Are `files` sniffed and digested in one pass, in batches (`read_inputs`)?"""
    return worker_count(jobs, len(files)) > 1 and len(files) >= PARALLEL_SNIFF \
        and not any(os.path.basename(f) == MANIFEST_NAME for f in files)


def _batched_read(files: list[str], window_mb: float | None, keep_text: bool, join: bool) -> tuple:
    """What a batched read's results depend on: its prefetch's key (SharedPool.prefetch)."""
    return "batches", tuple(files), window_mb, keep_text, join


def map_inputs(paths: list[str], window_mb: float | None, jobs: int = 1, shared: SharedPool | None = None,
               files: list[str] | None = None) -> tuple[list[Source], list[Source], list[Source]]:
    """(every file found, the evidence files, the windowed ones); NoEvidence when there is no evidence. Thousands
    of files are sniffed by `jobs` processes (a 4,096-rank job's heads: about 1.3 s on one core), `shared`'s
    when given."""
    sources = discover(paths, partial(_sniff_files, jobs=jobs, shared=shared), files)
    usable = evidence_sources(sources)
    windowed = set_windows(usable, window_mb)
    if not usable:
        raise _no_evidence(paths, sources)
    return sources, usable, windowed


def _no_evidence(paths: list[str], sources: list[Source]) -> NoEvidence:
    unread = [s.error for s in sources if s.error]
    return NoEvidence(f"{', '.join(map(str, paths))}: no evidence files (NCCL logs, py-spy dumps, flight-recorder "
                      "dumps, torchrun output, dmesg, ncclf summaries) found" +
                      (f"; {len(unread)} could not be read, e.g. {unread[0]}" if unread else ""))


PARALLEL_SNIFF = 512     # files: below this, a process pool costs more than it saves


def _sniff_files(files: list[str], jobs: int, shared: SharedPool | None = None) -> list[Source]:
    return list(imap_sources(sniff, files, jobs if len(files) >= PARALLEL_SNIFF else 1, shared))


class Inputs(NamedTuple):
    sources: list[Source]        # every file found
    usable: list[Source]         # the evidence files
    windowed: list[Source]       # those read at their head and tail
    digests: list[Digest]        # the evidence's digests (summaries left to the reduce)
    blocks: list[RowBlock]       # row blocks holding the rows of digests whose own `rows` are empty (join=True)


def read_inputs(paths: list[str], window_mb: float | None, jobs: int = 1, progress=None, keep_text: bool = True,
                shared: SharedPool | None = None, join: bool = False) -> Inputs:
    """`map_inputs`, then the digests of the evidence that is not a summary (`_map`). Thousands of files go to the
    workers once each, in batches of neighbouring names (`sniff_and_digest_batch`): a 4,096-rank job's files were
    sent out twice (to be sniffed, then digested), with a wait for the last sniff between. With `join`, a batch's
    rows come back as row blocks (summary.joined_rows: a few arrays a column per batch, one part of the reduce's
    frame each), else in their digests. A capture bundle's manifest names the hosts and ranks of the files beside
    it before they are digested (`discover`), so a bundle takes the two steps."""
    files = list_files(paths)
    if not _fused(files, jobs):
        sources, usable, windowed = map_inputs(paths, window_mb, jobs, shared, files)
        digests = _map([s for s in usable if s.kind is not SourceKind.SUMMARY], jobs, progress, keep_text, shared)
        return Inputs(sources, usable, windowed, digests, [])
    blocks: list[RowBlock] = []
    batch = partial(sniff_and_digest_batch, window_mb=window_mb, keep_text=keep_text, join=join)
    batches = imap_sources(batch, _batches(files, jobs), jobs, shared, _batched_read(files, window_mb, keep_text, join))
    done = _gather(_unbatched(batches, blocks), len(files), progress)
    done.sort(key=lambda item: item.result.source.path if isinstance(item, Digest) else item.path)
    sources = [item.result.source if isinstance(item, Digest) else item for item in done]
    usable = evidence_sources(sources)
    if not usable:
        raise _no_evidence(paths, sources)
    return Inputs(sources, usable, [s for s in usable if s.window], [d for d in done if isinstance(d, Digest)], blocks)


def sniff_and_digest_batch(paths: list[str], window_mb: float | None, keep_text: bool = True,
                           join: bool = False) -> tuple[list[Digest | Source], list[RowBlock]]:
    """`sniff_and_digest` of each path (a worker's task), and, with `join`, their rows as row blocks."""
    items = [sniff_and_digest(path, window_mb, keep_text) for path in paths]
    return items, joined_rows([d for d in items if isinstance(d, Digest)]) if join else []


def _batches(files: list[str], jobs: int) -> Iterator[list[str]]:
    """The files in batches of `chunk_size`, a folder's names shortest first (`nccl.rank10.log` after
    `nccl.rank9.log`, as their numbers go where only the number differs): a batch of one job's per-rank files holds
    neighbouring ranks, so that the blocks of its rows follow each other in rank order, as the reduce frames them
    without a sort. (A key of a few C calls a path: 100,000 paths split into their numbers cost 0.7 s.)"""
    ordered = sorted(files, key=_shortest_first)     # (on the first batch taken: a prefetched read takes none)
    size = chunk_size(len(files), worker_count(jobs, len(files)))
    for at in range(0, len(ordered), size):
        yield ordered[at:at + size]


def _shortest_first(path: str) -> tuple[str, int, str]:
    folder, _, name = path.rpartition(os.sep)
    return folder, len(name), name


def _unbatched(batches: Iterable[tuple[list, list[RowBlock]]], blocks: list[RowBlock]) -> Iterator:
    """Each batch's items, its blocks added to `blocks`."""
    for items, joined in batches:
        blocks.extend(joined)
        yield from items


def summarize(paths: Iterable[str], out: str, jobs: int = 0, window_mb: float | None = WINDOW_MB,
              progress: Callable[[int, int], None] | None = None) -> list[Digest]:
    """The map step alone, where the logs are: digest every evidence file under `paths` and write the digests
    to `out` (pipeline/summary.py) for `diagnose` to reduce with other nodes' summaries. Lines read from a tail
    window get their true numbers here (this node has the files)."""
    paths = list(paths)
    sources, usable, windowed, digests, _ = read_inputs(paths, window_mb, jobs, progress)
    # the reducing node cannot go back to a file whose unread middle may hold a failure line: it is summarized whole
    digests, windowed = read_whole(digests, windowed, suspect_middles(windowed, head_lines(digests)))
    tails = {s.path: s.window[1] for s in windowed if s.window}
    for d in digests:
        if d.result.source.path in tails:
            absolute_lines(d, tails[d.result.source.path])
    write_summary(out, [s for s in sources if s.kind is not SourceKind.SUMMARY], digests, paths)
    return digests


def head_lines(digests: list[Digest]) -> dict[str, int]:
    """Each windowed file's lines read at its head, by path (what `suspect_middles` scans after)."""
    return {d.result.source.path: d.result.head_lines for d in digests if d.result.head_lines}


def read_whole(digests: list[Digest], windowed: list[Source], whole: Iterable[str],
               keep_text: bool = True) -> tuple[list[Digest], list[Source]]:
    """The digests with those of the windowed files `whole` digested again in full (their rows in their digests:
    `read_inputs` without `join`; `keep_text` as there), and the files still windowed."""
    whole = set(whole)
    if not whole:
        return digests, windowed
    for src in windowed:
        if src.path in whole:
            src.window = None
    again = []
    for d in digests:
        if d.result.source.path in whole:
            d.result.source.window = None
            d = digest_source(d.result.source, keep_text)
        again.append(d)
    return again, [src for src in windowed if src.path not in whole]


def absolute_lines(d: Digest, tail: int) -> None:
    """Give a windowed file's digest its true line numbers (events and rows)."""
    true = resolve_tail_line(d.result.source.path, tail, TAIL_BASE)
    if true is None:
        return
    base = true - TAIL_BASE
    for ev in d.result.events:
        if ev.line >= TAIL_BASE:
            ev.line += base
    part = d.rows.get("line")
    if part is not None and part[0] == "num":
        lines = part[1].astype(np.int64)
        d.rows["line"] = ("num", np.where(lines >= TAIL_BASE, lines + base, lines))


def _map(sources: list[Source], jobs: int, progress, keep_text: bool = True,
         shared: SharedPool | None = None) -> list[Digest]:
    """Every source's Digest, in order (`keep_text`: see map.digest_source; a summary keeps its rows' text), by
    `shared`'s workers when given."""
    fn = digest_source if keep_text else partial(digest_source, keep_text=False)
    return _gather(imap_sources(fn, sources, jobs, shared), len(sources), progress)


def _gather(results: Iterable, total: int, progress) -> list:
    """The workers' results as they arrive (Digests share their memberships), with progress."""
    memberships, out = dict[object, object](), []
    for i, item in enumerate(results):
        if isinstance(item, Digest):
            _share_memberships(item, memberships)
        out.append(item)
        if progress:
            progress(i + 1, total)
    return out


def _share_memberships(d: Digest, shared: dict) -> None:
    """Every dump of a job repeats the same process-group memberships (`groups.compact`, hashable): keep one
    object per distinct membership, as the digests arrive."""
    for name, members in d.declared.items():
        d.declared[name] = shared.setdefault(members, members)
    dump = next((ev for ev in d.result.events[:1] if ev.kind == "fr_dump"), None)
    for cfg in (dump.data.get("pg_config") or {}).values() if dump else ():
        ranks = cfg.get("ranks") if isinstance(cfg, dict) else None
        if type(ranks) in (range, tuple):
            cfg["ranks"] = shared.setdefault(ranks, ranks)
