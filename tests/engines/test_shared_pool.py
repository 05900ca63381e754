"""One process pool for the sniff and the map steps (engines.local.SharedPool)."""
from __future__ import annotations

import os
import threading

import pytest

from nccl_forensics.pipeline.engines.local import SharedPool, imap_sources


def _pid(_item: int) -> int:
    return os.getpid()


def _square(x: int) -> int:
    return x * x


def _fail(x: int) -> int:
    if x == 3:
        raise ValueError("boom")
    return x


def test_two_maps_run_on_the_same_workers_and_the_workers_stop_after_the_block():
    with SharedPool() as shared:
        first = set(imap_sources(_pid, range(64), 2, shared))
        workers = set(shared.pool._processes)
        assert list(imap_sources(_square, range(50), 2, shared)) == [x * x for x in range(50)]
        second = set(imap_sources(_pid, range(64), 2, shared))
        procs = list(shared.pool._processes.values())
    # which worker takes which item is the scheduler's: both maps ran on the pool's two workers, none started again
    assert first | second <= workers and len(workers) == 2 and set(p.pid for p in procs) == workers
    assert all(not p.is_alive() for p in procs)


def test_an_error_in_a_worker_reaches_the_caller_and_stops_the_workers():
    procs = []
    with pytest.raises(ValueError, match="boom"), SharedPool() as shared:
        try:
            list(imap_sources(_fail, range(10), 2, shared))
        finally:
            procs = list(shared.pool._processes.values())
    assert procs and all(not p.is_alive() for p in procs)


def test_stopping_the_workers_after_an_error_leaves_the_pool_thread_quiet(monkeypatch):
    # CPython 3.11's pool thread raised InvalidStateError when it failed a future that had been cancelled
    # (about one run in 40): on Ctrl-C, that thread's traceback reached the user's terminal
    errors: list[BaseException | None] = []
    monkeypatch.setattr(threading, "excepthook", lambda hook: errors.append(hook.exc_value))
    for _ in range(100):
        with pytest.raises(ValueError), SharedPool() as shared:
            list(imap_sources(_fail, range(200), 2, shared))
    assert errors == []


def test_one_job_runs_in_this_process_and_starts_no_pool():
    with SharedPool() as shared:
        assert set(imap_sources(_pid, range(8), 1, shared)) == {os.getpid()}
    assert shared.pool is None
