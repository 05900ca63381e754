"""`gc_paused()`: the cyclic garbage collector off for a short, synchronous stretch of bulk work.

Parsing builds millions of small acyclic objects (strings, tuples, lists of them); CPython's generational
collector then re-scans every surviving container again and again, which costs up to a third of the parse
time and frees nothing (reference counting frees them all). Keep the paused stretch free of `yield`s, so
that code outside it never runs with the collector off.
"""
from __future__ import annotations

import contextlib
import gc
from typing import Iterator

from ..libc import malloc_trim


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def trim_heap() -> None:
    """Give the heap's free pages back to the system (glibc keeps them). After a 100,000-rank reduce has built its
    timeline, the heap is a gigabyte of holes: a row-sized temporary lands in one, and once freed stays in the
    process's RSS until trimmed (a few ms)."""
    malloc_trim()                  # not glibc: nothing to do
