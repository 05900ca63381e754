"""Process groups are known by their members, not only by their name.

`new_subgroups` and `split_group` make several groups that every rank names alike (their PG name is a counter
each rank keeps, so ranks 0-1 and ranks 2-3 both call theirs "1") while they hold different ranks. Merged by name,
their legitimately different sizes look like a shape mismatch, and a real outlier hides behind a false tie. Each
dump's `pg_config` says which ranks its group holds; where one name stands for several member sets, each set
becomes its own group, labelled `<name>:<ranks>` (e.g. `1:0-1`, `1:2-3`).

Example::

    rank 0 and 1 dumps: pg "1" ranks [0, 1]      rank 2 and 3 dumps: pg "1" ranks [2, 3]
    → rows of ranks 0, 1 in group "1:0-1"; rows of ranks 2, 3 in group "1:2-3"
"""
from __future__ import annotations

from collections import defaultdict
from functools import lru_cache
from typing import Iterable, Sequence

from ..model import rank_span


def compact(ranks: Sequence[int]) -> range | tuple[int, ...]:
    """A membership as it travels and is kept: a `range` when its ranks step evenly (the world, a node's
    ranks, a strided data-parallel group: a few bytes whatever the size), else a tuple. Every dump of a job
    repeats the same memberships, so this is cached, and equal memberships come back as one object."""
    if type(ranks) is tuple:          # the one tuple every dump's ranks string parses to (ranks_in_text's cache):
        seen = _COMPACTED.get(id(ranks))   # found by identity, not by hashing its 16,384 ints twice per dump
        if seen is not None and seen[0] is ranks:
            return seen[1]
        if len(_COMPACTED) >= 256:
            _COMPACTED.clear()
        _COMPACTED[id(ranks)] = (ranks, _compact(ranks))
        return _COMPACTED[id(ranks)][1]
    return _compact(ranks if type(ranks) is range else tuple(ranks))


_COMPACTED: dict[int, tuple] = {}     # id -> (the tuple itself, kept alive so that its id stays its own; compact)


@lru_cache(maxsize=256)
def _compact(ranks: tuple | range) -> range | tuple[int, ...]:
    if type(ranks) is range or len(ranks) < 2 or not all(type(r) is int for r in ranks):
        return ranks
    step = ranks[1] - ranks[0]
    as_range = range(ranks[0], ranks[0] + step * len(ranks), step) if step else None
    return as_range if as_range is not None and tuple(as_range) == ranks else ranks


@lru_cache(maxsize=256)
def as_set(members: range | tuple) -> frozenset:
    """A membership's ranks as a set, once per distinct membership."""
    return frozenset(members)


def split_by_membership(declared: Iterable[dict[str, range | tuple]]) -> dict[str, bool]:
    """For each PG name, whether the dumps disagree on its members (one name, several groups)."""
    seen: dict[str, set[frozenset]] = defaultdict(set)
    for per_dump in declared:
        for name, members in per_dump.items():
            if members:
                seen[name].add(as_set(members))
    return {name: len(sets) > 1 for name, sets in seen.items()}


def label(name: str, members: Iterable[int]) -> str:
    return f"{name}:{rank_span(members, ',')}"




def relabel(names: dict[str, str], column: tuple | list) -> tuple | list:
    """A packed group column (rows.pack_columns) with its PG names replaced by their labels."""
    if isinstance(column, tuple) and column[0] == "cat":
        return ("cat", [names.get(c, c) if isinstance(c, str) else c for c in column[1]], column[2])
    if isinstance(column, tuple) and column[0] == "obj":
        return ("obj", [names.get(c, c) if isinstance(c, str) else c for c in column[1]])
    return column
