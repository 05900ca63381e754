"""Bounds on what evidence may make ncclf build: a number in a line is a claim, not a size to allocate.

A stated world size stays a number; only up to LISTED_RANKS ranks are ever listed one by one (rank tables,
gaps, the ranks of a topology), and what lies beyond is a count. Real jobs reach about 100k ranks.
"""
from __future__ import annotations

LISTED_RANKS = 1 << 17          # ranks listed one by one from a stated size (0..size-1)
MAX_RANK = 1 << 24              # a rank number (or a group's member count) above this is damage, not a job

# A summary (`ncclf summarize`'s zip): what one member and all of them may decompress to.
SUMMARY_MEMBER_BYTES = 256 << 20
SUMMARY_TOTAL_BYTES = 1 << 30


def listed_world(size: int | None) -> range:
    """The ranks 0..size-1 of a stated size, when they are few enough to list; else none (the size stays a
    number and the caller counts what it does not list)."""
    return range(size) if size and 0 < size <= LISTED_RANKS else range(0)
