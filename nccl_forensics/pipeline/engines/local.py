"""Per-file parallelism (flake8's checker is the model): a pure top-level worker, the same code run serially.

`map_sources(fn, items, jobs)` returns `[fn(item) for item in items]` in input order (`imap_sources` streams
them, each as soon as it and all earlier ones are done). It runs serially
for one job or one item, and falls back to serial when a process pool cannot start. Workers ignore
SIGINT (the parent handles Ctrl-C): on Ctrl-C or any error the parent terminates them at once, and a
worker whose parent dies (even by SIGKILL) gets SIGTERM from the kernel, so none is ever left behind.
"""
from __future__ import annotations

import logging
import os
import signal
from concurrent.futures import Future, ProcessPoolExecutor
from typing import Callable, Hashable, Iterable, Iterator, TypeVar

from ...libc import die_with_parent

T = TypeVar("T")
R = TypeVar("R")
log = logging.getLogger(__name__)


def default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - non-Linux
        return max(1, os.cpu_count() or 1)


def worker_count(jobs: int, items: int) -> int:
    """How many processes `jobs` (0 = one per core) means for `items` items; 1 = run serially."""
    return max(1, min(jobs or default_jobs(), items))


def _worker_init(warm: Callable[[], None] | None = None) -> None:
    """Ctrl-C is the parent's to handle; and a worker never outlives its parent, however the parent ends
    (SIGKILL included: the kernel sends the worker SIGTERM when the parent dies). Then `warm()`, where given."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    die_with_parent(signal.SIGTERM)
    if warm is not None:
        warm()



def map_sources(fn: Callable[[T], R], items: Iterable[T], jobs: int = 0) -> list[R]:
    """Apply `fn` to each item, in parallel when `jobs` != 1 (results in item order)."""
    return list(imap_sources(fn, items, jobs))


def imap_sources(fn: Callable[[T], R], items: Iterable[T], jobs: int = 0,
                 shared: SharedPool | None = None, key: Hashable = None) -> Iterator[R]:
    """`map_sources` as a stream: each result as soon as it and every earlier one are done, in item order.
    With `shared`, its workers run the items (started on first use, stopped by its `with` block); where
    `shared.prefetch` sent out these items under `key` already, their results."""
    early = shared.early.pop(key, None) if shared is not None and key is not None else None
    if early is not None:
        yield from _results(*early, own=False)
        return
    items = list(items)
    jobs = worker_count(jobs, len(items))
    if jobs == 1:
        yield from map(fn, items)
        return
    pool = shared.executor(jobs) if shared is not None else _new_pool(jobs)
    if pool is None:
        yield from map(fn, items)
        return
    yield from _results(pool, _submit(pool, fn, items, jobs), own=shared is None)


def _submit(pool: ProcessPoolExecutor, fn: Callable[[T], R], items: list[T], jobs: int) -> list[Future]:
    size = chunk_size(len(items), jobs)
    return [pool.submit(_run_chunk, fn, items[at:at + size]) for at in range(0, len(items), size)]


def _results(pool: ProcessPoolExecutor, futures: list[Future], own: bool) -> Iterator:
    try:
        for future in futures:
            yield from future.result()
    except BaseException:                   # Ctrl-C, an error, a consumer that stopped: stop the workers now,
        _terminate(pool)                    # not after they finish a multi-GB file
        raise
    finally:
        if own:
            pool.shutdown(wait=True)


def _run_chunk(fn: Callable[[T], R], chunk: list[T]) -> list[R]:
    """One worker task: `fn` over a few neighbouring items. The futures are never cancelled: a cancelled future
    that the pool later fails (its workers stopped) makes CPython 3.11's manager thread raise."""
    return [fn(item) for item in chunk]


def _new_pool(jobs: int, warm: Callable[[], None] | None = None) -> ProcessPoolExecutor | None:
    try:
        return ProcessPoolExecutor(max_workers=jobs, initializer=_worker_init, initargs=(warm,))
    except (OSError, ValueError, NotImplementedError) as exc:
        log.info("process pool unavailable (%s); running serially", exc)
        return None


class SharedPool:
    """One process pool for several `imap_sources` calls (sniffing, then digesting, thousands of files: starting
    the workers twice costs each fork's copied pages twice). Used as a context manager: on leaving it the
    workers stop, at once when it is left by an exception."""

    def __init__(self) -> None:
        self.pool: ProcessPoolExecutor | None = None
        self.jobs = 0
        self.failed = False
        self.early: dict[Hashable, tuple[ProcessPoolExecutor, list[Future]]] = {}   # prefetch's, by key

    def executor(self, jobs: int) -> ProcessPoolExecutor | None:
        """The pool, started with `jobs` workers on first use (None: no pool can start here); a later call that
        asks for another count gets the pool as started (the work is the same, only its spread differs)."""
        if self.pool is None and not self.failed:
            self.pool, self.jobs = _new_pool(jobs), jobs
            self.failed = self.pool is None
        return self.pool

    def start(self, jobs: int, warm: Callable[[], None]) -> None:
        """Start `jobs` workers now, each running `warm()` first (what every task needs, built once per worker while
        the parent goes on), rather than at the first task."""
        if self.pool is None and not self.failed:
            self.pool, self.jobs = _new_pool(jobs, warm), jobs
            self.failed = self.pool is None
        if self.pool is not None:
            self.pool.submit(os.getpid)         # a pool forks its workers at its first task (all of them: fork)

    def prefetch(self, key: Hashable, fn: Callable[[T], R], items: Iterable[T], jobs: int) -> None:
        """Send out `fn` over `items` now, for `imap_sources(..., key=key)` to stream later: the workers start on them
        while the caller loads what it needs meanwhile (the CLI: the reduce), instead of waiting for it idle."""
        pool = self.executor(jobs)
        if pool is not None:
            items = list(items)
            self.early[key] = pool, _submit(pool, fn, items, worker_count(jobs, len(items)))

    def __enter__(self) -> SharedPool:
        return self

    def __exit__(self, kind, value, tb) -> None:
        """Stop the workers (a second exit, the caller's after `diagnose`'s, finds them stopped)."""
        if self.pool is None:
            return
        if kind is not None:
            _terminate(self.pool)
        else:                                   # a prefetch nobody took: its tasks not begun are dropped
            for _, futures in self.early.values():
                for future in futures:
                    future.cancel()
        self.early.clear()
        self.pool.shutdown(wait=True)


def chunk_size(items: int, jobs: int) -> int:
    """Items per task sent to a worker: one for a few files (a large one must not hold up others queued behind
    it), up to 64 for thousands of small ones (16,384 dumps were 16,384 submissions and result messages)."""
    return max(1, min(64, items // (jobs * 32)))


def _terminate(pool: ProcessPoolExecutor) -> None:
    """SIGTERM every worker of `pool` (they are ours: started by this pool, never anyone else's process)."""
    for proc in list((getattr(pool, "_processes", None) or {}).values()):
        try:
            proc.terminate()
        except (OSError, ValueError):
            pass
