"""The flight-recorder fast path for `diagnose`: one loaded dump → the timeline's columns, category-coded.

`flight_recorder.read_flight_recorder_table` type-checks every value of every column, one pass after another,
and builds lists that the timeline then codes again: for 2,000 entries that was most of what a worker spent on
a dump after unpickling it. Here the nine keys the timeline needs are read in one pass, each column is coded
at once (`columns.categorize`), and the type checks run on the distinct values only.

P2P entries (send/recv, and anything flagged `is_p2p`, such as a P2P batch's `coalesced` marker) are not rows
(diagnosis/fr_semantics.py): they are set apart, and the send/recv ones come back as columns of their own
(`p2p`), which the caller turns into `fr_semantics.P2POp`s. Only the rows are category-coded.

Anything unusual makes `coded_columns` return None, and the caller takes the general path: a non-dict entry,
a missing key (older schemas say `seq_id`), a value of the wrong type, a None where a number belongs, a PG
name with two descs, two collective entries with one (group, seq) (a coalesced call), an all_to_all. tests/diagnose/test_fr_fast_path.py checks that whenever this path answers, it answers
what the general path does.
"""
from __future__ import annotations

from itertools import chain
from math import prod
from operator import itemgetter, ne
from typing import Any, Callable

import numpy as np

from ..model import Source
from .columns import categorize, code_type, recode
from .flight_recorder import DTYPES, dump_meta, ended_incomplete, ranks_in_text, split_profiling_name

_KEYS = ("process_group", "collective_seq_id", "profiling_name", "input_sizes", "input_dtypes", "state",
         "time_created_ns", "record_id", "pg_id", "output_sizes")
# Collective ops whose entries do not map one-to-one onto a comparable (group, seq) row: the general path reads
# them (diagnosis/fr_semantics.py): coalesced members and markers, all_to_all, gather/scatter (the root's buffers
# differ). P2P entries are set apart here.
_GENERAL_OPS = {"coalesced", "allgather_coalesced", "reducescatter_coalesced", "allreduce_coalesced", "alltoall",
                "alltoall_single", "gather", "scatter"}
P2P_OPS = frozenset({"send", "recv"})                  # fr_semantics.P2P_OPS
_SIZE_RULE = {"allreduce": 1, "broadcast": 1, "allgather": 2, "reducescatter": 3, "allgather_base": 2,
              "reducescatter_base": 3}   # fr_semantics.size_note
_read = itemgetter(*_KEYS)
_read_flagged = itemgetter(*_KEYS, "is_p2p")
_NO_OP = (None, None, None)
_NO_TENSOR = [[0]]                                     # an entry without tensors: no elements


class _Unusual(Exception):
    """The dump is not in the common shape: the general path handles it."""


def coded_columns(dump: dict, path: str, source: Source | str, first_line: int = 1) -> tuple[dict, dict] | None:
    """(meta, columns) or None. `meta` is `read_flight_recorder_table`'s; `columns` holds ("cats", codes) for
    group, op, dtype (joined, e.g. "float32") and state, and numpy arrays for seq, numel, time (seconds) and
    line: the values `read_flight_recorder_table(..., fields=(pg_name, seq, op, in_numel, in_dtypes, state,
    time_created_ns))` gives, for each entry that is not P2P. `columns["p2p"]` holds the send/recv entries as
    lists (pg, seq, p2p_seq, op, peer text, numel, state, line, time in seconds), in entry order. `first_line`:
    the entry number of the first entry (a dump's tail, `fr_load.load_dump_tail`, starts past 1)."""
    entries = dump.get("entries")
    if type(entries) is not list or not entries or not set(map(type, entries)) <= {dict}:
        return None
    try:
        return _coded(dump, entries, path, source, first_line)
    except (_Unusual, KeyError, TypeError, OverflowError):
        return None


def _coded(dump: dict, entries: list[dict], path: str, source: Source | str, first_line: int) -> tuple[dict, dict]:
    try:                                                  # one pass over the (cold) entries
        pgs, seqs, names, sizes, dtypes, states, times, record_ids, pg_ids, out_sizes, flags = \
            zip(*map(_read_flagged, entries), strict=True)
    except KeyError:                                      # no is_p2p (older schemas)
        pgs, seqs, names, sizes, dtypes, states, times, record_ids, pg_ids, out_sizes = zip(*map(_read, entries), strict=True)
        flags = tuple(e.get("is_p2p") for e in entries)
    _expect(set(map(type, seqs)) <= {int} and set(map(type, record_ids)) <= {int})
    _expect(set(map(type, times)) <= {int} and 0 not in times and set(map(type, pg_ids)) <= {int, type(None)})
    pg_cats, pg_codes = categorize(pgs)                   # a list (JSON) is unhashable: TypeError
    _expect(all(type(p) is tuple and len(p) == 2 and type(p[0]) is str and type(p[1]) is str for p in pg_cats))
    used_pgs = dict(pg_cats)
    _expect(len(used_pgs) == len(pg_cats))
    name_cats, name_codes = categorize(names)
    state_cats, state_codes = categorize(states)
    _expect(all(v is None or type(v) is str for v in chain(name_cats, state_cats)))
    split = [split_profiling_name(n) if n is not None else _NO_OP for n in name_cats]
    line = np.arange(first_line, first_line + len(entries), dtype=np.int64)
    p2p_flag = _p2p_flags(flags, split, name_codes)
    keep = np.flatnonzero(~p2p_flag) if p2p_flag.any() else None
    sub = (lambda column: column) if keep is None else (lambda column: column[keep])
    op_all = recode([s[1] for s in split], name_codes)
    _expect(not set(_take(op_all, keep)[0]) & _GENERAL_OPS)
    seq = np.array(seqs, np.int64)
    numel = _numel(sizes)
    time = np.array(times, np.int64) / 1e9
    p2p = _p2p_columns(entries, pgs, seqs, split, name_codes, numel, states, line, time, p2p_flag)
    group_codes, kept_seq, kept_numel = sub(pg_codes), sub(seq), sub(numel)
    if len(group_codes):
        key = np.sort(group_codes.astype(np.int64) * (int(seq.max()) + 1) + kept_seq)
        _expect((key[1:] != key[:-1]).all())              # one entry per (group, seq): no coalesced call
    kept_sizes, kept_out = _pick(sizes, keep), _pick(out_sizes, keep)
    out_numel = _out_numel(kept_numel, kept_sizes, kept_out)
    op = _take(op_all, keep)
    _expect_sizes_agree(op, kept_numel, out_numel, lambda: _group_sizes(dump, [p[0] for p in pg_cats])[group_codes])
    groups = _take(([p[0] for p in pg_cats], pg_codes), keep)
    kept_dtypes = _pick(dtypes, keep)
    cols = {"group": groups, "op": op, "state": _take((state_cats, state_codes), keep),
            "dtype": _dtypes(kept_dtypes), "numel": kept_numel, "out_numel": out_numel, "seq": kept_seq,
            "time": sub(time), "line": sub(line), "p2p": p2p}
    meta = dump_meta(dump, path, source, used_pgs=used_pgs,
                     pg_names={pg_id: pg[0] for pg_id, pg in dict(zip(pg_ids, pgs, strict=True)).items()},
                     backend=next((s[0] for s in split if s[0]), None),
                     record_ids=(min(record_ids), max(record_ids)))
    meta["entries"], meta["bad_lines"] = len(entries), []
    pending = np.flatnonzero(state_codes != state_cats.index("completed")) if "completed" in state_cats \
        else range(len(entries))
    meta["ended_incomplete"] = ended_incomplete(entries, line, pending, meta["backend"])
    return meta, cols


def _p2p_flags(flags: tuple, split: list, name_codes: np.ndarray) -> np.ndarray:
    """Which entries are P2P (fr_semantics.is_p2p): a send or recv, or flagged `is_p2p` (a P2P batch's marker)."""
    is_send_recv = np.array([s[1] in P2P_OPS for s in split] + [False])[name_codes]
    kinds = set(map(type, flags))
    _expect(kinds <= {bool, type(None)})
    if bool not in kinds or True not in flags:
        return is_send_recv
    return is_send_recv | np.fromiter(map(bool, flags), bool, len(flags))     # None is False


def _p2p_columns(entries: list[dict], pgs: tuple, seqs: tuple, split: list, name_codes: np.ndarray,
                 numel: np.ndarray, states: tuple, line: np.ndarray, time: np.ndarray, p2p_flag: np.ndarray) -> list:
    """The send/recv entries as (pg, seq, p2p_seq, op, peer text, numel, state, line, time) lists."""
    ops = np.array([s[1] in P2P_OPS for s in split] + [False])[name_codes]
    at = np.flatnonzero(ops & p2p_flag)
    if not len(at):
        return []
    index = at.tolist()
    picked = [entries[i] for i in index]
    try:
        p2p_seqs = list(map(itemgetter("p2p_seq_id"), picked))
    except KeyError:
        p2p_seqs = [e.get("p2p_seq_id") for e in picked]
    _expect(set(map(type, p2p_seqs)) <= {int, type(None)})
    codes = name_codes[at].tolist()
    return [[pgs[i][0] for i in index], [seqs[i] for i in index], p2p_seqs, [split[c][1] for c in codes],
            [split[c][2] for c in codes], numel[at].tolist(), [states[i] for i in index], line[at].tolist(),
            time[at].tolist()]


def _pick(values: tuple, keep: np.ndarray | None) -> tuple:
    """The values at `keep` (None: all), as a tuple."""
    if keep is None:
        return values
    if len(keep) < 2:
        return tuple(values[i] for i in keep.tolist())
    return itemgetter(*keep.tolist())(values)


def _take(cat: tuple[list, np.ndarray], keep: np.ndarray | None) -> tuple[list, np.ndarray]:
    """A category column's entries at `keep` (None: all of them), coded again over the categories they use, in
    first-seen order, as `columns.categorize` codes them."""
    cats, codes = cat
    if keep is None:
        return cats, codes
    sub = codes[keep].astype(np.int64)
    order = list(dict.fromkeys(sub.tolist()))           # the codes used, in first-seen order
    if len(order) <= 1:
        return [cats[i] for i in order], np.zeros(len(sub), np.int8)
    remap = np.zeros(len(cats), np.int64)
    remap[order] = np.arange(len(order))
    return [cats[i] for i in order], remap[sub].astype(code_type(len(order)))


def _expect_sizes_agree(op: tuple, numel: np.ndarray, out_numel: np.ndarray, world: Callable[[], np.ndarray]) -> None:
    """Every entry's output size fits its collective (fr_semantics.size_note) for its group's size (`world()`, per
    entry): all-reduces and broadcasts keep it, all-gathers multiply it by the group size, reduce-scatters divide it
    (not checked where the group size is unknown, or the output empty). A dump where one does not goes to the
    general path, which notes what breaks. Outputs shaped as their inputs (`out_numel is numel`) fit every
    all-reduce and broadcast: only all-gathers and reduce-scatters are then checked."""
    cats, codes = op
    rules = [_SIZE_RULE.get(name, 0) for name in cats]
    if out_numel is numel and max(rules, default=0) < 2:
        return
    kind = np.array(rules + [0], np.int8)[codes]
    group_size = world()
    ok = np.where(kind == 1, numel == out_numel,
                  np.where(kind == 2, out_numel == numel * group_size,
                           np.where(kind == 3, numel == out_numel * group_size, True)))
    _expect((ok | (kind >= 2) & (group_size <= 0) | (out_numel == 0) & (kind != 1)).all())   # as size_note: unknown = ok


def _group_sizes(dump: dict, names: list) -> np.ndarray:
    """Each PG's size from pg_config's ranks (0 = unknown), in the order of `names`."""
    pg_config = dump.get("pg_config")
    config = pg_config if type(pg_config) is dict else {}
    sizes = []
    for name in names:
        ranks = (config.get(name) or {}).get("ranks") if type(config.get(name)) is dict else None
        sizes.append(len(ranks_in_text(ranks)) if type(ranks) is str else len(ranks) if type(ranks) is list else 0)
    return np.array(sizes + [0], np.int64)


def _expect(ok: Any) -> None:
    if not ok:
        raise _Unusual


def _numel(sizes: tuple) -> np.ndarray:
    """Elements of each entry's input tensors: usually one (C-level passes), none for a barrier."""
    _expect(set(map(type, sizes)) <= {list})
    lengths = set(map(len, sizes))
    if lengths == {0, 1}:                                  # one tensor or none (a marker, a barrier): 0 elements
        sizes = tuple(s or _NO_TENSOR for s in sizes)
        lengths = {1}
    one = lengths == {1}
    shapes = list(map(itemgetter(0), sizes)) if one else list(chain.from_iterable(sizes))
    _expect(set(map(type, shapes)) <= {list})
    if one and set(map(len, shapes)) == {1}:             # one 1-D tensor each (a flat bucket): its one dim
        dims = list(map(itemgetter(0), shapes))
        _expect(set(map(type, dims)) <= {int})
        return np.array(dims, np.int64)
    _expect(set(map(type, chain.from_iterable(shapes))) <= {int})
    # products and sums of ints are ints: no type check of the results
    return np.array(list(map(prod, shapes)) if one else [sum(map(prod, s)) for s in sizes], np.int64)


def _out_numel(numel: np.ndarray, sizes: tuple, out_sizes: tuple) -> np.ndarray:
    """Elements of each entry's outputs; only the entries whose output shapes differ from their inputs' (the
    all-gathers and reduce-scatters) are counted again."""
    if out_sizes == sizes:
        return numel
    differ = np.flatnonzero(np.fromiter(map(ne, sizes, out_sizes), bool, len(sizes)))
    out = numel.copy()
    out[differ] = _numel(tuple(out_sizes[i] for i in differ))
    return out


def _dtypes(dtypes: tuple) -> tuple[list, np.ndarray]:
    """Each entry's distinct input dtypes as torch names joined by ',' (None for none): dtypes are compared per
    tensor, so four float32 tensors and one are the same dtype (fr_semantics.dtype_key)."""
    _expect(set(map(type, dtypes)) <= {list})
    if set(map(len, dtypes)) == {1}:                   # one tensor each (the usual entry): its name is its key
        cats, codes = categorize(list(map(itemgetter(0), dtypes)))
        _expect(all(type(name) is str for name in cats))
        return recode([DTYPES.get(name, name) or None for name in cats], codes)
    cats, codes = categorize(list(map(tuple, dtypes)))
    _expect(all(type(name) is str for names in cats for name in names))
    return recode([",".join(dict.fromkeys(d for d in map(DTYPES.get, names, names) if d)) or None for names in cats],
                  codes)      # as fr_semantics.dtype_key: each distinct name once, empty ones dropped
