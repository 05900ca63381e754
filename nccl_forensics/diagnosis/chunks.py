"""Row-sized work a chunk of rows at a time. numpy makes temporaries of its operands' size (a mask, an index
copied to 8 bytes a row, `np.bincount`'s int64 copy of int32 ids): taken ROWS at a time they stay a few MB,
whatever the timeline's size (tens of millions of rows at 100,000 ranks)."""
from __future__ import annotations

from typing import Iterator

import numpy as np

ROWS = 1 << 18


def row_chunks(n: int) -> Iterator[slice]:
    """Slices of ROWS rows covering 0..n."""
    for start in range(0, n, ROWS):
        yield slice(start, start + ROWS)


def bincount(ids: np.ndarray, size: int | None = None) -> np.ndarray:
    """np.bincount(ids, minlength=size) without its copy of the ids."""
    counts = np.zeros(size if size is not None else (int(ids.max()) + 1 if len(ids) else 0), np.int64)
    for part in row_chunks(len(ids)):
        np.add.at(counts, ids[part], 1)
    return counts
