"""Column coding shared by the parse stage's fast paths and the timeline: a column of hashable values as
(distinct values in first-seen order, one code per value), in the narrowest integer type that holds them.
Workers send their columns back this way: a result under the pipe's 64 KiB is written without waiting for
the parent to read it."""
from __future__ import annotations

import numpy as np


def categorize(values) -> tuple[list, np.ndarray]:
    """(categories, codes); raises TypeError for an unhashable value."""
    cats = list(dict.fromkeys(values))
    return cats, codes_of(values, cats)


def code_type(ncats: int) -> type:
    """The narrowest signed type for codes 0..ncats-1 and -1 (missing)."""
    return np.int8 if ncats < 1 << 7 else np.int16 if ncats < 1 << 15 else np.int32


def codes_of(values, cats: list) -> np.ndarray:
    """Each value's index in `cats`, its distinct values; one category (a PG, a state) needs no lookups."""
    if len(cats) <= 1:
        return np.zeros(len(values), np.int8)
    index = {v: i for i, v in enumerate(cats)}
    return np.fromiter(map(index.__getitem__, values), code_type(len(cats)), len(values))


def narrow(values: np.ndarray) -> np.ndarray:
    """An int64 array as int32 when every value fits (half the bytes to send); anything else as it is."""
    if values.dtype == np.int64 and len(values) and -(1 << 31) <= values.min() and values.max() < 1 << 31:
        return values.astype(np.int32)
    return values


def recode(values: list, codes: np.ndarray) -> tuple[list, np.ndarray]:
    """Categories mapped through a function (`values`, one per old category) may repeat: merge them."""
    cats = list(dict.fromkeys(values))
    if len(cats) == len(values):
        return cats, codes
    index = {v: i for i, v in enumerate(cats)}
    return cats, np.array([index[v] for v in values], code_type(len(cats)))[codes]
