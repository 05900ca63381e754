"""Category coding shared by the parse stage's fast paths and the timeline: a column of hashable values as
(distinct values in first-seen order, one int32 code per value)."""
from __future__ import annotations

import numpy as np


def categorize(values) -> tuple[list, np.ndarray]:
    """(categories, codes); raises TypeError for an unhashable value."""
    cats = list(dict.fromkeys(values))
    return cats, codes_of(values, cats)


def codes_of(values, cats: list) -> np.ndarray:
    """Each value's index in `cats`, its distinct values; one category (a PG, a state) needs no lookups."""
    if len(cats) <= 1:
        return np.zeros(len(values), np.int32)
    index = {v: i for i, v in enumerate(cats)}
    return np.fromiter(map(index.__getitem__, values), np.int32, len(values))


def recode(values: list, codes: np.ndarray) -> tuple[list, np.ndarray]:
    """Categories mapped through a function (`values`, one per old category) may repeat: merge them."""
    cats = list(dict.fromkeys(values))
    if len(cats) == len(values):
        return cats, codes
    index = {v: i for i, v in enumerate(cats)}
    return cats, np.array([index[v] for v in values], np.int32)[codes]
