"""PyTorch flight-recorder dumps → events (source = flight_recorder). Formats: torch/csrc/distributed/c10d's flight recorder (FlightRecorder).

Reads the pickle that `_dump_fr_trace()` / `_dump_nccl_trace()` / the on-timeout dump write, and the JSON of
`_dump_fr_trace_json()`, schema versions 2.2–2.10 (2.4 = torch 2.7, 2.10 = torch 2.9–2.15), NCCL and gloo.

Dumps are untrusted: `fr_load.load_dump` reads them without running anything in them (see there). Every
value is type-checked while it is copied out, so a well-formed dump of the wrong shape never raises; a value
of the wrong type becomes None and a non-dict entry becomes an `unparsed` event.

Two entry points:
- `read_flight_recorder(source) -> Iterator[Event]`: `fr_dump`, then `fr_pg_status` per PG, then
  `fr_entry` per entry (docs/events.md). A non-dict entry becomes `unparsed`.
- `read_flight_recorder_table(source, frames=False) -> (meta, columns)`: the general table path
  (`table_of_dump` for a dump already loaded); `diagnose` first tries `fr_columns.coded_columns`, which
  codes the usual shape of dump faster and hands anything else back here.
  `meta` holds the `fr_dump` fields plus `pg_status` {pg_name: {last_enqueued, last_started,
  last_completed}}, `entries` and `bad_lines`. `columns` maps each `fr_entry` field (plus `line`,
  `pg_id`, `op_id`, `backend`, `peer`, `retired`, `in_numel`, `out_numel`, `duration_ms`, `thread_id`,
  `thread_name`) to a list with one value per entry, so `pandas.DataFrame(columns)` is one row per entry.
  No Event is built; `frames` is included only when asked for (it is the costly column). `in_sizes`/
  `out_sizes` are tuples of tuples and `in_dtypes`/`out_dtypes` tuples (lists in events). Cost: about 1.5-2x
  a plain `pickle.load` of the same file (one C-level pass per column); files are independent, so read
  them in parallel.
  Build one DataFrame for many ranks by extending the column lists, then `pandas.DataFrame(columns)` once.

Gloo quirks: `pg_config` is keyed '' while entries say ('0', 'default_pg'), so PG names and descs
are taken from the entries (ranks None) and a note goes into `quirks`; gloo entries stay `scheduled`
with null times, so `retired` (False = still pending) is the usable signal; `pg_status` counts a failed
collective as completed. The dump holds no rank: it comes from the file name (`…rank_<r>`, trailing digits)
or from a top-level `rank` key that some third-party JSON writers add.
"""
from __future__ import annotations

import os
import re
from functools import lru_cache
from itertools import chain
from math import prod
from operator import itemgetter
from typing import Any, Callable, Iterable, Iterator

from ..errors import BadInput
from ..model import Event, Source
from .fr_load import load_dump

SOURCE = "flight_recorder"

# Normalised op names (docs/events.md) for the `<op>` part of profiling_name "<backend>:<op>[ <meta>]". The API
# variants PyTorch's analyzer calls different op types stay apart (`_all_gather_base` is not `all_gather`,
# `all_to_all_single` is not `all_to_all`), although NCCL runs each pair as one kernel; `OP_FAMILY` maps a
# variant to the collective whose size rules it follows.
OPS = {
    "all_reduce": "allreduce", "allreduce": "allreduce", "allreduce_coalesced": "allreduce_coalesced",
    "all_reduce_barrier": "barrier", "barrier": "barrier", "broadcast": "broadcast", "_broadcast_oop": "broadcast",
    "reduce": "reduce", "_reduce_oop": "reduce", "all_gather": "allgather", "_all_gather_base": "allgather_base",
    "all_gather_single": "allgather_base", "all_gather_v": "allgather_v", "all_gather_into_tensor": "allgather_base",
    "allgather_coalesced": "allgather_coalesced", "ALLGATHER_coalesced": "allgather_coalesced",
    "all_gather_into_tensor_coalesced": "allgather_coalesced", "reduce_scatter": "reducescatter",
    "_reduce_scatter_base": "reducescatter_base", "reduce_scatter_single": "reducescatter_base",
    "reduce_scatter_v": "reducescatter_v", "reduce_scatter_tensor": "reducescatter_base",
    "reduce_scatter_tensor_coalesced": "reducescatter_coalesced",
    "REDUCE_SCATTER_coalesced": "reducescatter_coalesced", "all_to_all": "alltoall",
    "all_to_all_single": "alltoall_single", "all_to_all_v_single": "alltoall_single", "alltoall_base": "alltoall_single",
    "alltoall": "alltoall", "gather": "gather", "scatter": "scatter", "send": "send", "recv": "recv",
    "recvAnysource": "recv", "recvAnySource": "recv", "coalesced": "coalesced", "split": "split",
    "new_window": "new_window",
}
OP_FAMILY = {"allgather_base": "allgather", "reducescatter_base": "reducescatter", "alltoall_single": "alltoall"}
# c10::toString(ScalarType) → torch dtype name.
DTYPES = {
    "Byte": "uint8", "Char": "int8", "Short": "int16", "Int": "int32", "Long": "int64", "Half": "float16",
    "Float": "float32", "Double": "float64", "ComplexHalf": "complex32", "ComplexFloat": "complex64",
    "ComplexDouble": "complex128", "Bool": "bool", "BFloat16": "bfloat16", "QInt8": "qint8",
    "QUInt8": "quint8", "QInt32": "qint32", "Float8_e5m2": "float8_e5m2", "Float8_e4m3fn": "float8_e4m3",
    "Float8_e5m2fnuz": "float8_e5m2fnuz", "Float8_e4m3fnuz": "float8_e4m3fnuz", "UInt16": "uint16",
    "UInt32": "uint32", "UInt64": "uint64", "Float8_e8m0fnu": "float8_e8m0fnu", "Float4_e2m1fn_x2": "float4_e2m1fn_x2",
}
_HOST_IN_NAME = re.compile(r"(?:nccl|comm_lib)_trace_rank_(.*[^\d_].*?)_\d{1,9}(?:\.json|\.pkl|\.pickle)?(?:\.gz)?$")
_RANK_IN_NAME = re.compile(r"rank[_\-.]?(\d{1,9})(?!.*\d)|(?<!\d)(\d{1,9})(?:\.json|\.pkl|\.pickle)?(?:\.gz)?$", re.I)


# ---- small type-checked accessors: never raise, return None for anything of the wrong shape ----

def _int(v: Any) -> int | None:
    if type(v) is int:
        return v
    if type(v) is str and len(v) < 30:
        try:
            return int(v)   # JSON dumps print pg_status numbers (and thread ids) as strings
        except ValueError:
            return None
    return None


def _ns(v: Any) -> int | None:
    """A timestamp; JSON writes 0 for unknown."""
    return v if type(v) is int and v != 0 else None


def _bool(v: Any) -> bool | None:
    return v if type(v) is bool else None


def _num(v: Any) -> int | float | None:
    return v if type(v) in (int, float) else None


def _str(v: Any) -> str | None:
    return v if type(v) is str else None


def _shapes(v: Any) -> tuple | None:
    if type(v) is list and all(type(s) is list and all(type(d) is int for d in s) for s in v):
        return tuple(map(tuple, v))
    return None


def _dtypes(v: Any) -> tuple | None:
    if type(v) is list and all(type(d) is str for d in v):
        return tuple(DTYPES.get(d, d) for d in v)
    return None


@lru_cache(maxsize=4096)
def split_profiling_name(name: str) -> tuple[str | None, str, str | None]:
    """'nccl:send 1->2' → ('nccl', 'send', '1->2'); the op is normalised per OPS (unknown ops kept as is)."""
    backend: str | None
    backend, sep, rest = name.partition(":")
    if not sep:
        backend, rest = None, name
    op, _, meta = rest.partition(" ")
    return backend, OPS.get(op, op.lower()), meta or None


def _pg(v: Any) -> tuple[str | None, str | None]:
    if type(v) in (tuple, list) and len(v) == 2:
        return _str(v[0]), _str(v[1])
    return None, None


def frames_of(raw: Any) -> list[dict] | None:
    """Torch's [{name, filename, line}] (innermost first) → [{file, line, name}]; None if not that shape."""
    return list(iter_frames(raw)) if type(raw) is list else None


def iter_frames(raw: list) -> Iterator[dict]:
    """`frames_of` one frame at a time (a reader that stops at the first frame it wants converts no more)."""
    return ({"file": _str(f.get("filename")), "line": _int(f.get("line")), "name": _str(f.get("name"))}
            for f in raw if type(f) is dict)


# ---- the columnar table ----
# Each column is read with one C-level pass (itemgetter), then type-checked with set(map(type, ...)); only a
# column that fails the check is converted value by value. Shapes and dtypes become tuples: hashable for
# pandas, and tuples of atoms drop out of the garbage collector's tracking (lists of 2M rows made it ~25% slower).

_NONE: type = type(None)
_INTS, _STRS, _BOOLS, _NUMS = {int, _NONE}, {str, _NONE}, {bool, _NONE}, {int, float, _NONE}
_COLUMNS: dict[str, tuple[str, str | None, set[type], Callable[[Any], Any]]] = {  # column → (entry key, older key, types kept as they are, converter for anything else)
    "record_id": ("record_id", None, _INTS, _int), "pg_id": ("pg_id", None, _INTS, _int),
    "seq": ("collective_seq_id", "seq_id", _INTS, _int), "p2p_seq": ("p2p_seq_id", None, _INTS, _int),
    "op_id": ("op_id", None, _INTS, _int), "op_raw": ("profiling_name", None, _STRS, _str),
    "state": ("state", None, _STRS, _str), "timeout_ms": ("timeout_ms", None, _INTS, _int),
    "time_created_ns": ("time_created_ns", None, _INTS, _ns),
    "time_started_ns": ("time_discovered_started_ns", None, _INTS, _ns),
    "time_completed_ns": ("time_discovered_completed_ns", None, _INTS, _ns),
    "retired": ("retired", None, _BOOLS, _bool), "is_p2p": ("is_p2p", None, _BOOLS, _bool),
    "duration_ms": ("duration_ms", None, _NUMS, _num), "thread_id": ("thread_id", None, _STRS, _str),
    "thread_name": ("thread_name", None, _STRS, _str),
}


def _values(entries: list[dict], key: str, alt: str | None) -> list:
    try:
        return list(map(itemgetter(key), entries))
    except KeyError:
        return [e.get(key, e.get(alt)) if alt else e.get(key) for e in entries]


def _raw_values(entries: list[dict], keys: list[tuple[str, str | None]]) -> dict[str, list]:
    """key -> its values, read in one pass over the entries: fresh from the unpickler they are cold in the CPU
    cache, so one pass fetching every key costs about a third of one pass per key."""
    if len(keys) > 1 and entries:
        try:
            return dict(zip((k for k, _ in keys), map(list, zip(*map(itemgetter(*(k for k, _ in keys)), entries), strict=True)), strict=True))
        except KeyError:    # an older schema or a damaged entry: the per-key path handles the alternatives
            pass
    return {key: _values(entries, key, alt) for key, alt in keys}


def _column(vals: list, ok: set, conv) -> list:
    if set(map(type, vals)) <= ok and (conv is not _ns or 0 not in vals):
        return vals
    return [conv(v) for v in vals]


def _shape_column(vals: list) -> list:
    if set(map(type, vals)) <= {list}:
        shapes = list(chain.from_iterable(vals))
        if set(map(type, shapes)) <= {list} and set(map(type, chain.from_iterable(shapes))) <= {int}:
            return [tuple(map(tuple, v)) for v in vals]
    return [_shapes(v) for v in vals]


def _dtype_column(vals: list) -> list:
    if set(map(type, vals)) <= {list} and set(map(type, chain.from_iterable(vals))) <= {str}:
        tuples = list(map(tuple, vals))
        names = {t: tuple(DTYPES.get(n, n) for n in t) for t in set(tuples)}
        return list(map(names.__getitem__, tuples))
    return [_dtypes(v) for v in vals]


def _pg_columns(pgs: list) -> tuple[list, list]:
    if set(map(type, pgs)) <= {tuple, list} and set(map(len, pgs)) <= {2}:
        names, descs = list(map(itemgetter(0), pgs)), list(map(itemgetter(1), pgs))
        if set(map(type, names)) <= {str} and set(map(type, descs)) <= {str}:
            return names, descs
    pairs = [_pg(p) for p in pgs]
    return [p[0] for p in pairs], [p[1] for p in pairs]


# Columns `_meta` reads, always built; with `fields` given, only those plus these are built.
_META_FIELDS = ("pg_name", "pg_desc", "pg_id", "record_id", "op_raw", "backend")


def _entry_columns(entries: list[dict], lines: list[int], with_frames: bool, fields=None) -> dict[str, list]:
    want = (lambda name: True) if fields is None else set(fields).union(_META_FIELDS).__contains__
    specs = {name: spec for name, spec in _COLUMNS.items() if want(name) or name == "op_raw"}
    keys = [("process_group", None)] + [(key, alt) for key, alt, _, _ in specs.values()]
    for side, key in (("in", "input"), ("out", "output")):
        keys += [(f"{key}_sizes", None)] if want(f"{side}_sizes") or want(f"{side}_numel") else []
        keys += [(f"{key}_dtypes", None)] if want(f"{side}_dtypes") else []
    raw = _raw_values(entries, keys)
    cols: dict[str, list] = {"line": lines}
    cols["pg_name"], cols["pg_desc"] = _pg_columns(raw["process_group"])
    for name, (key, _, ok, conv) in specs.items():
        cols[name] = _column(raw[key], ok, conv)
    names = {n: split_profiling_name(n) if n is not None else (None, None, None) for n in set(cols["op_raw"])}
    split = list(map(names.__getitem__, cols["op_raw"]))
    cols["backend"], cols["op"], cols["peer"] = (list(map(itemgetter(i), split)) for i in range(3))
    for side, key in (("in", "input"), ("out", "output")):
        if want(f"{side}_sizes"):
            cols[f"{side}_sizes"] = sizes = _shape_column(raw[f"{key}_sizes"])
            cols[f"{side}_numel"] = _numel_column(sizes)
        elif want(f"{side}_numel"):
            cols[f"{side}_numel"] = _numel_only(raw[f"{key}_sizes"])
        if want(f"{side}_dtypes"):
            cols[f"{side}_dtypes"] = _dtype_column(raw[f"{key}_dtypes"])
    if want("in_splits") or want("out_splits"):
        cols["in_splits"], cols["out_splits"] = _split_columns(entries, cols["op"])
    if with_frames:
        cols["frames"] = [frames_of(e.get("frames")) for e in entries]
    return cols


# all_to_all split sizes (schema 2.11, pytorch PR #195443: elements per peer, group-rank order); read only from
# all_to_all entries, under either spelling.
_SPLIT_KEYS = (("input_split_sizes", "input_splits"), ("output_split_sizes", "output_splits"))


def _split_columns(entries: list[dict], ops: list) -> tuple[list, list]:
    ins: list[tuple | None] = [None] * len(entries)
    outs: list[tuple | None] = [None] * len(entries)
    for i, op in enumerate(ops):
        if op in ("alltoall", "alltoall_single"):
            e = entries[i]
            ins[i], outs[i] = (next((_ints(e.get(k)) for k in keys if k in e), None) for keys in _SPLIT_KEYS)
    return ins, outs


def _ints(v: Any) -> tuple | None:
    return tuple(v) if type(v) in (list, tuple) and all(type(x) is int for x in v) else None


def _numel_only(vals: list) -> list:
    """`_numel_column(_shape_column(vals))` without building the shape tuples, for one tensor per entry."""
    if set(map(type, vals)) <= {list} and set(map(len, vals)) == {1}:
        shapes = list(map(itemgetter(0), vals))
        if set(map(type, shapes)) <= {list} and set(map(type, chain.from_iterable(shapes))) <= {int}:
            return list(map(prod, shapes))
    return _numel_column(_shape_column(vals))


def _numel_column(sizes: list) -> list:
    """Elements per entry; one C-level pass when every entry has exactly one input tensor (the usual case)."""
    if None not in sizes and set(map(len, sizes)) == {1}:
        return list(map(prod, map(itemgetter(0), sizes)))
    return [sum(map(prod, s)) if s is not None else None for s in sizes]


def read_flight_recorder_table(source: Source | str, frames: bool = False,
                               fields=None) -> tuple[dict, dict[str, list]]:
    """One dump → (meta, columns); see the module docstring. Raises UnsafeDump/BadInput.

    `fields` (optional): the columns the caller needs; only those (plus what `meta` needs) are built."""
    path = source.path if isinstance(source, Source) else str(source)
    return table_of_dump(load_dump(path), path, source, frames, fields)


def table_of_dump(dump: dict, path: str, source: Source | str, frames: bool = False,
                  fields=None) -> tuple[dict, dict[str, list]]:
    """`read_flight_recorder_table` of a dump already loaded (`fr_load.load_dump`)."""
    raw_entries = dump.get("entries", [])
    if type(raw_entries) is not list:
        raise BadInput(f"{path}: flight-recorder 'entries' is a {type(raw_entries).__name__}, not a list")
    if set(map(type, raw_entries)) <= {dict}:
        entries, lines, bad_lines = raw_entries, list(range(1, len(raw_entries) + 1)), []
    else:
        entries = [e for e in raw_entries if type(e) is dict]
        lines = [i + 1 for i, e in enumerate(raw_entries) if type(e) is dict]
        bad_lines = [i + 1 for i, e in enumerate(raw_entries) if type(e) is not dict]
    cols = _entry_columns(entries, lines, frames, fields)
    meta = _meta(dump, path, source, cols)
    meta["entries"], meta["bad_lines"] = len(entries), bad_lines
    states = cols.get("state")                      # (read with FR_FIELDS; every entry where it was not)
    pending = range(len(entries)) if states is None else [i for i, st in enumerate(states) if st != "completed"]
    meta["ended_incomplete"] = ended_incomplete(entries, lines, pending, meta["backend"])
    return meta, cols


def ended_incomplete(entries: list[dict], lines, candidates: Iterable[int], backend: str | None) -> list[dict]:
    """The entries (of `candidates`, indices into `entries`) that the watchdog retired without their completing:
    the work ended in a timeout or an error (FlightRecorder.hpp: "a retired but not completed event has timed
    out"; ProcessGroupNCCL's watchdog retires a work whose exception is set, as on a timeout it did not tear down).
    Gloo records no device events, so its entries stay `scheduled` when they complete: none of its entries count.
    An entry that holds a completion time completed (the 2.2-era recorder set it on retiring)."""
    if backend == "gloo":
        return []
    out = []
    for i in candidates:
        entry = entries[i]
        if entry.get("retired") is True and entry.get("state") != "completed" \
                and _ns(entry.get("time_discovered_completed_ns")) is None:
            pg, desc = _pg(entry.get("process_group"))
            out.append({"line": int(lines[i]), "pg_name": pg, "pg_desc": desc,
                        "seq": _int(entry.get("collective_seq_id")), "op": _str(entry.get("profiling_name")),
                        "state": _str(entry.get("state")), "timeout_ms": _int(entry.get("timeout_ms"))})
    return out


def _ranks(v: Any) -> tuple[int, ...] | list[int] | None:
    """pg_config 'ranks' is a string "[0, 1, 2]" (a list in some JSON writers); empty means unknown. The
    string's ranks come back as one shared tuple per distinct string (every dump of a job repeats them)."""
    if type(v) is str and len(v) < 10_000_000:
        return ranks_in_text(v) or None           # ints by construction
    if type(v) is list and all(type(r) is int for r in v):
        return v or None
    return None


def ranks_in_text(text: str) -> tuple[int, ...]:
    """Every dump of a job repeats the same ranks strings (1,024 ranks: 0.4 ms each to parse). Each dump brings
    its own copy of a string, and a new string's hash is a pass over all of it: a 16,384-rank world's 100 KB
    costs ~70 us to hash, ~5 us to compare with the copy seen before. So a long string is looked up by its
    length and ends, then compared; a short one by its hash."""
    if len(text) < _LONG_RANKS:
        return _short_ranks(text)
    key = (len(text), text[:32], text[-32:])
    seen = _LONG_SEEN.get(key)
    if seen is not None and seen[0] == text:
        return seen[1]
    ranks = _parse_ranks(text)
    if len(_LONG_SEEN) >= 64:
        _LONG_SEEN.clear()
    _LONG_SEEN[key] = (text, ranks)             # the last one with these ends
    return ranks


_LONG_RANKS = 4096
_LONG_SEEN: dict[tuple[int, str, str], tuple[str, tuple[int, ...]]] = {}


def _parse_ranks(text: str) -> tuple[int, ...]:
    return tuple(map(int, re.findall(r"-?\d+", text)))


_short_ranks = lru_cache(maxsize=64)(_parse_ranks)


def _pg_config(raw: Any, used: dict, quirks: list[str]) -> dict[str, dict]:
    """pg_config by PG name; `used`: the entries' PG names and their descs (the last one each)."""
    config = {key: {"desc": _str(val.get("desc")), "ranks": _ranks(val.get("ranks"))}
              for key, val in (raw.items() if type(raw) is dict else ()) if type(key) is str and type(val) is dict}
    used = dict(used)
    used.pop(None, None)
    missing = sorted(name for name in used if name not in config)
    if missing and "" in config:
        quirks.append("pg_config keyed '' (gloo): PG names and descs taken from the entries, ranks unknown")
        del config[""]
    elif missing:
        quirks.append(f"PGs {missing} used by entries but absent from pg_config")
    for name in missing:
        config[name] = {"desc": used[name], "ranks": None}
    return config


def _pg_status(raw: Any, names: dict) -> dict[str, dict]:
    """pg_status is keyed by str(pg_id); report it by PG name (`names`: pg_id -> name, from the entries)."""
    status = {}
    for key, val in (raw.items() if type(raw) is dict else ()):
        pg_id = _int(key)
        if pg_id is None or type(val) is not dict:
            continue
        status[names.get(pg_id) or str(pg_id)] = {
            "pg_id": pg_id, "last_enqueued": _int(val.get("last_enqueued_collective")),
            "last_started": _int(val.get("last_started_collective")),
            "last_completed": _int(val.get("last_completed_collective"))}
    return status


MAX_RANK = (1 << 31) - 1     # what a rank can be; a bigger number in a damaged dump or name is no rank


def host_in_name(path: str) -> str | None:
    """The host of a dump named `nccl_trace_rank_<host>_<rank>` (as some launchers name them), else None."""
    m = _HOST_IN_NAME.search(os.path.basename(path))
    return m.group(1) if m else None


def _rank(dump: dict, path: str, source: Source | str) -> int | None:
    """A top-level `rank` key, else the rank discovery gave the file, else one in its name: the first that is
    a rank at all (0..MAX_RANK), so that no damaged key or name reaches the timeline's int64 columns."""
    m = _RANK_IN_NAME.search(os.path.basename(path))
    given = (dump.get("rank"), source.rank if isinstance(source, Source) else None,
             int(m.group(1) or m.group(2)) if m else None)
    return next((r for r in given if type(r) is int and 0 <= r <= MAX_RANK), None)


def _meta(dump: dict, path: str, source: Source | str, cols: dict[str, list]) -> dict:
    record_ids = [r for r in cols["record_id"] if r is not None]
    return dump_meta(dump, path, source, used_pgs=dict(zip(cols["pg_name"], cols["pg_desc"], strict=True)),
                     pg_names=dict(zip(cols["pg_id"], cols["pg_name"], strict=True)),
                     backend=next((b for b in cols["backend"] if b), None),
                     record_ids=(min(record_ids, default=None), max(record_ids, default=None)))


def dump_meta(dump: dict, path: str, source: Source | str, used_pgs: dict, pg_names: dict, backend: str | None,
              record_ids: tuple) -> dict:
    """The `meta` of `read_flight_recorder_table`, from what the entries say: PG name -> desc (the last one
    each), pg_id -> PG name (the last one each), the first backend named, and (first, last) record_id."""
    quirks: list[str] = []
    config = _pg_config(dump.get("pg_config"), used_pgs, quirks)
    if backend == "gloo":
        quirks.append("gloo: entries stay 'scheduled' with null times (retired=False marks the pending one); "
                      "pg_status counts a failed collective as completed")
    world = next((len(c["ranks"]) for c in config.values() if c["desc"] == "default_pg" and c["ranks"]), None)
    return {
        "version": _str(dump.get("version")), "rank": _rank(dump, path, source), "world_size": world,
        "backend": backend, "comm_lib_version": _str(dump.get("comm_lib_version", dump.get("nccl_version"))),
        "pg_config": config, "pg_status": _pg_status(dump.get("pg_status"), pg_names), "quirks": quirks,
        "first_record_id": record_ids[0], "last_record_id": record_ids[1],
    }


# ---- events ----

_DUMP_FIELDS = ("version", "rank", "world_size", "backend", "pg_config", "comm_lib_version", "entries",
                "first_record_id", "last_record_id", "quirks")
_ENTRY_FIELDS = ("pg_name", "pg_desc", "record_id", "seq", "p2p_seq", "op", "op_raw", "state", "in_sizes",
                 "out_sizes", "in_dtypes", "out_dtypes", "time_created_ns", "time_started_ns", "time_completed_ns",
                 "timeout_ms", "frames", "is_p2p", "pg_id", "op_id", "backend", "peer", "retired", "in_numel",
                 "out_numel", "duration_ms", "thread_name", "in_splits", "out_splits")


def pg_status_events(path: str, rank: int | None, pg_status: dict[str, dict]) -> Iterator[Event]:
    """One `fr_pg_status` event per group of a dump's `pg_status` (by group name, as `dump_meta` gives it)."""
    for name, st in sorted(pg_status.items()):
        text = (f"pg_status {name}: last enqueued {st['last_enqueued']}, started {st['last_started']}, "
                f"completed {st['last_completed']}")
        yield Event("fr_pg_status", SOURCE, path, 1, rank, comm=name, text=text, data={"pg_name": name, **st})


def pending_in_status(status: dict) -> bool:
    """Does a group's pg_status say it enqueued a collective it has not completed (ProcessGroupNCCL's own counters:
    the ring of entries, which every group of the process shares, may no longer hold that collective's entry)?"""
    counts = _status_counts(status)
    return counts is not None and counts[1] < counts[0]


def completed_in_status(status: dict) -> bool:
    """Does a group's pg_status say it completed every collective it enqueued?"""
    counts = _status_counts(status)
    return counts is not None and counts[1] >= counts[0]


def _status_counts(status: dict) -> tuple[int, int] | None:
    """(last enqueued, last completed) of a group's pg_status; None where either is not a number."""
    enqueued, completed = status.get("last_enqueued"), status.get("last_completed")
    return (enqueued, completed) if type(enqueued) is int and type(completed) is int else None


def read_flight_recorder(source: Source | str) -> Iterator[Event]:
    """Events of one dump: fr_dump, fr_pg_status per PG, then fr_entry per entry (unparsed for a non-dict)."""
    path = source.path if isinstance(source, Source) else str(source)
    meta, cols = read_flight_recorder_table(source, frames=True)
    rank = meta["rank"]
    yield Event("fr_dump", SOURCE, path, 1, rank, text=_dump_text(meta),
                data={k: meta[k] for k in _DUMP_FIELDS})
    yield from ended_incomplete_events(path, rank, meta.get("ended_incomplete") or [])
    yield from pg_status_events(path, rank, meta["pg_status"])
    bad = iter(meta["bad_lines"])
    next_bad = next(bad, None)
    for row in zip(cols["line"], cols["thread_id"], *(cols[f] for f in _ENTRY_FIELDS), strict=True):
        while next_bad is not None and next_bad < row[0]:
            yield Event("unparsed", SOURCE, path, next_bad, rank, text="entry is not a dict")
            next_bad = next(bad, None)
        yield _entry_event(path, rank, row)
    for line in ([next_bad] if next_bad is not None else []) + list(bad):
        yield Event("unparsed", SOURCE, path, line, rank, text="entry is not a dict")


def ended_incomplete_events(path: str, rank: int | None, ended: list[dict]) -> Iterator[Event]:
    """`fr_work_failed` events: a dump's entries that ended without completing (`ended_incomplete`), its first few
    (every later one on a communicator an error left is a consequence)."""
    for entry in ended[:_ENDED_SHOWN]:
        text = (f"flight recorder: {entry['op']} seq {entry['seq']} of group {entry['pg_name']} was retired without "
                f"completing (state {entry['state']}): it timed out or failed")
        yield Event("fr_work_failed", SOURCE, path, entry["line"], rank, comm=entry["pg_name"], text=text,
                    data={**entry, "count": len(ended)})


_ENDED_SHOWN = 3


def _entry_event(path: str, rank: int | None, row: tuple) -> Event:
    line, thread_id = row[0], row[1]
    data = dict(zip(_ENTRY_FIELDS, row[2:], strict=True))
    for key in ("in_sizes", "out_sizes"):   # events carry lists (docs/events.md); the table carries tuples
        if data[key] is not None:
            data[key] = list(map(list, data[key]))
    for key in ("in_dtypes", "out_dtypes"):
        if data[key] is not None:
            data[key] = list(data[key])
    created = data["time_created_ns"]
    tid = _int(thread_id)
    return Event("fr_entry", SOURCE, path, line, rank, tid=tid, comm=data["pg_name"],
                 time=created / 1e9 if created is not None else None, text=_entry_text(data), data=data)


def _entry_text(d: dict) -> str:
    return (f"record {d['record_id']} pg {d['pg_name']}({d['pg_desc']}) seq {d['seq']} {d['op_raw']} "
            f"in={d['in_sizes']} {d['in_dtypes']} out={d['out_sizes']} state={d['state']} retired={d['retired']}")


def _dump_text(meta: dict) -> str:
    return (f"flight-recorder dump version {meta['version']} backend {meta['backend']}: {meta['entries']} entries, "
            f"record_id {meta['first_record_id']}..{meta['last_record_id']}, PGs {sorted(meta['pg_config'])}")
