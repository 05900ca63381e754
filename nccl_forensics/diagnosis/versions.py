"""The version-mismatch rule, shared by detector V501 and topology check G007 (and G008's networks/plugins).

Processes that print different values of something that must agree (NCCL version, flight-recorder schema,
network, net plugin) are grouped by value; the largest group is taken as the intended one (ties: the smaller
value first) and every other group is odd.
"""
from __future__ import annotations

from typing import Hashable, Iterable, TypeVar

T = TypeVar("T")


def by_version(pairs: Iterable[tuple[Hashable | None, T]]) -> list[tuple[Hashable, list[T]]]:
    """(value, items) groups, the majority first; values that are None or empty are left out. More than one
    group means a mismatch, and the groups after the first are the odd ones."""
    groups: dict[Hashable, list[T]] = {}
    for value, item in pairs:
        if value:
            groups.setdefault(value, []).append(item)
    return sorted(groups.items(), key=lambda kv: (-len(kv[1]), str(kv[0])))
