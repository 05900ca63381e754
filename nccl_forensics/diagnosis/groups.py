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
from typing import Iterable

from ..model import rank_span


def split_by_membership(declared: Iterable[dict[str, set[int]]]) -> dict[str, bool]:
    """For each PG name, whether the dumps disagree on its members (one name, several groups)."""
    seen: dict[str, set[frozenset]] = defaultdict(set)
    for per_dump in declared:
        for name, members in per_dump.items():
            if members:
                seen[name].add(frozenset(members))
    return {name: len(sets) > 1 for name, sets in seen.items()}


def label(name: str, members: Iterable[int]) -> str:
    return f"{name}:{rank_span(members, ',')}"




def relabel(names: dict[str, str], column: tuple | list) -> tuple | list:
    """A packed group column (timeline.pack_columns) with its PG names replaced by their labels."""
    if isinstance(column, tuple) and column[0] == "cat":
        return ("cat", [names.get(c, c) if isinstance(c, str) else c for c in column[1]], column[2])
    if isinstance(column, tuple) and column[0] == "obj":
        return ("obj", [names.get(c, c) if isinstance(c, str) else c for c in column[1]])
    return column
