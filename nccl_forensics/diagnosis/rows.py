"""A timeline's rows as a worker builds them: plain columns, packed small for the trip to the parent.

One row per collective a rank reached: ``add_event`` turns an NCCL COLL line, a flight-recorder entry, a watchdog
timeout or a DETAIL fingerprint into a row of COLUMNS; ``pack_columns`` codes the columns (categories, narrow
integers) for pickling; the parent joins every file's packs into one frame (``timeline.frame_from_packed``).
Workers import this module, never pandas: the parent loads pandas while they parse.
"""
from __future__ import annotations

from itertools import repeat
from math import prod
from typing import Iterable

import numpy as np

from ..model import Event
from ..sources.columns import categorize, code_type, narrow

COLUMNS = ["rank", "group", "seq", "op", "numel", "shape", "dtype", "state", "source", "file", "line", "text",
           "time", "frame", "redop",
           "out_numel",           # output elements (flight recorder), compared like `numel`
           "size_note",           # what a row's output size breaks for its collective (fr_semantics.size_note)
           "a2a_in", "a2a_out",   # all_to_all totals: checked over the job, not rank against rank
           "a2a_splits"]          # all_to_all (input splits, output splits) per group rank, where recorded (2.11)
# Which source wins when several describe the same (rank, group, seq): lower is better.
SOURCE_PRIORITY = {"flight_recorder": 0, "nccl": 1, "watchdog": 2, "fingerprint": 3}
TIMELINE_KINDS = {"coll", "fr_entry", "watchdog_timeout", "fingerprint_mismatch"}
NO_SEQ = -1          # the point of a record printed without a sequence number (DETAIL fingerprints of torch < 2.1,
                     # the watchdog timeouts of torch < 1.10 where they share one point: seqless_timeouts_meet)
DETAIL_GROUP = "detail"
_REDUCING = {"allreduce", "reduce", "reducescatter"}
CATEGORIES = ("group", "op", "redop", "dtype", "state", "source", "file")
# Columns empty on most rows: an all-empty or call-site column is kept as codes, its missing values NaN (as a
# pandas string column has them), never a column of None pointers (8 bytes a row, 200 MB at 25M rows).
SPARSE = ("shape", "text", "frame", "size_note", "a2a_in", "a2a_out", "a2a_splits")
# Compared only as values (divergence.FIELDS): with no value at all (NCCL rows), codes too, not None pointers.
ABSENT_AS_CODES = ("out_numel",)


class RowBuffer:
    """Timeline rows under construction, kept as columns (plain lists: cheap to build, small to pickle back from
    a worker): rows appended one by one (`add`), or many at once column by column (`extend`, for COLL runs that
    are columns already), in file order."""

    def __init__(self) -> None:
        self.rows: list[tuple] = []                  # added rows not yet moved into the columns
        self.cols: dict[str, list] = {name: [] for name in COLUMNS}

    def __len__(self) -> int:
        return len(self.rows) + len(self.cols["rank"])

    def add(self, *values) -> None:
        """One row, values in COLUMNS order; a row may stop early (the rest are None)."""
        self.rows.append(values)

    def extend(self, n: int, columns: dict[str, Iterable]) -> None:
        """`n` rows given as columns; a column not given is None throughout."""
        self._flush()
        for name, values in self.cols.items():
            given = columns.get(name)
            values.extend(repeat(None, n) if given is None else given)

    def columns(self) -> dict[str, list]:
        self._flush()
        return self.cols

    def _flush(self) -> None:
        if not self.rows:
            return
        filled = set()
        # rows may stop early (the rest are None): the columns past the shortest row are filled below
        for name, values in zip(COLUMNS, zip(*self.rows, strict=False), strict=False):
            self.cols[name].extend(values)
            filled.add(name)
        for name in COLUMNS:
            if name not in filled:
                self.cols[name].extend(repeat(None, len(self.rows)))
        self.rows = []


NUMERIC = ("rank", "seq", "numel", "line", "time", "out_numel", "a2a_in", "a2a_out")
_INT, _FLOAT = {int}, {int, float, type(None)}


def pack_columns(cols: dict[str, list]) -> dict[str, tuple | list]:
    """Timeline columns → a compact form for the trip back from a worker (cheap to pickle and to merge):
    ("cat", categories, codes) for CATEGORIES, ("num", ndarray) for numbers, ("obj", list) otherwise; codes
    and integers in the narrowest type that holds them (sources/columns.py).
    `rank` stays a list: the parent may still fill it."""
    out: dict[str, tuple | list] = {}
    for name, vals in cols.items():
        if name == "rank":
            out[name] = list(vals)
            continue
        if name in SPARSE and vals.count(None) == len(vals):   # as a dump's digest sends them (map._fr_constant_rows)
            out[name] = ("none", len(vals))
            continue
        if name in CATEGORIES:
            try:
                out[name] = ("cat", *categorize(vals))
            except TypeError:      # an unhashable value: keep the list
                out[name] = ("obj", vals)
            continue
        elif name in NUMERIC:
            kinds = set(map(type, vals))
            if kinds <= _INT and name != "time":
                try:
                    out[name] = ("num", narrow(np.array(vals, dtype=np.int64)))
                    continue
                except OverflowError:
                    pass
            elif kinds <= _FLOAT:
                out[name] = ("num", np.array(vals, dtype=np.float64))
                continue
        out[name] = ("obj", vals)
    return out


def concat_packs(first: dict, second: dict) -> dict:
    """Two `pack_columns` results of one file as one (the rows of `first`, then those of `second`): numbers
    stay arrays and codes are remapped; columns packed differently become lists (rare: a file whose COLL lines
    came both one by one and in runs). `rank` is a list when either part's is (the parent fills it)."""
    if not first or not second:
        return first or second
    n1, n2 = pack_len(first), pack_len(second)
    out: dict = {}
    for name in COLUMNS:
        a, b = first.get(name, ("none", n1)), second.get(name, ("none", n2))
        if type(a) is list or type(b) is list:
            out[name] = [*(a if type(a) is list else values_of(a)), *(b if type(b) is list else values_of(b))]
        elif a[0] == b[0] == "none":
            out[name] = ("none", n1 + n2)
        elif a[0] == b[0] == "num":
            out[name] = ("num", np.concatenate([a[1], b[1]]))
        elif a[0] == b[0] == "cat":
            cats = list(dict.fromkeys([*a[1], *b[1]]))
            index = {v: i for i, v in enumerate(cats)}
            table = np.array([index[v] for v in b[1]] + [-1], np.int64)     # a code -1 (missing) stays -1
            kind = code_type(len(cats))
            out[name] = ("cat", cats, np.concatenate([a[2].astype(kind), table[b[2]].astype(kind)]))
        else:
            out[name] = ("obj", [*values_of(a), *values_of(b)])
    return out


def pack_len(pack: dict) -> int:
    part = pack["line"]
    return part[1] if part[0] == "none" else len(part[2]) if part[0] == "cat" else len(part[1])


def values_of(part: tuple) -> list:
    if part[0] == "cat":
        return [part[1][c] if c >= 0 else None for c in part[2]]
    if part[0] == "none":
        return [None] * part[1]
    return part[1].tolist() if part[0] == "num" else list(part[1])


def add_event(buf: RowBuffer, ev: Event, comm_ids: dict | None = None, seqless: int | None = None) -> bool:
    """Append the timeline row(s) an event carries; False if it carries none. `seqless` is the point of a watchdog
    timeout printed without its sequence number (none: the row has no point and joins no timeline)."""
    d = ev.data
    if ev.kind == "coll":
        op = d.get("op")
        buf.add(ev.rank, nccl_group(ev.comm, ev.host, ev.pid, d.get("comm_ptr"), comm_ids), d.get("opcount"), op,
                d.get("count"), None, d.get("dtype"), "enqueued", "nccl", ev.file, ev.line, ev.text, ev.time, None,
                d.get("redop") if op in _REDUCING else None)
    elif ev.kind == "fr_entry":
        sizes = d.get("in_sizes") or []
        buf.add(ev.rank, str(d.get("pg_name")), d.get("seq"), d.get("op"),
                sum(prod(s) for s in sizes) if sizes else None, str(sizes),
                ",".join(dict.fromkeys(d.get("in_dtypes") or [])) or None,
                d.get("state"), "flight_recorder", ev.file, ev.line, ev.text,
                _ns(d.get("time_created_ns")) or ev.time, user_frame(d.get("frames")), None)
    elif ev.kind == "watchdog_timeout":
        seq = d.get("seq")
        buf.add(ev.rank, watchdog_group(d), seqless if seq is None else seq, d.get("op"), d.get("numel_in"), None, None,
                "timed_out", "watchdog", ev.file, ev.line, ev.text, ev.time, None, None)
    elif ev.kind == "fingerprint_mismatch":
        # both fingerprints were taken at the same point (the wrapper checks them before each collective): the other
        # rank's row goes at the reporter's seq, even when its own sequence number differs (a skipped collective)
        # 1.11 - 2.0 print no SequenceNumber at all: the two rows still share their one point (NO_SEQ stands for it)
        point = next((d[k] for k in ("seq", "other_seq") if d.get(k) is not None), NO_SEQ)
        for who in ("", "other_"):
            shapes = d.get(f"{who}shapes") or []
            buf.add(d.get("rank", ev.rank) if not who else d.get("other_rank"), DETAIL_GROUP, point,
                    d.get(f"{who}op"), prod(shapes[0]) if shapes else None, str(shapes) if shapes else None,
                    ",".join(d.get(f"{who}dtypes") or []) or None, "checked", "fingerprint", ev.file, ev.line,
                    ev.text, ev.time, None, None)
    else:
        return False
    return True


_GROUP_KEYS = ("pg_uid", "pg_id", "pg_name")


def seqless_timeouts_meet(events: Iterable[Event]) -> bool:
    """Whether the watchdog timeouts printed without a sequence number or a group (torch 1.8 - 1.9:
    `WorkNCCL(OpType=ALLREDUCE, Timeout(ms)=...)`) all stand at one point of one group. Each process group's cleanup
    loop visits its works in the order they were enqueued and the first timeout takes the process down, so a rank's
    one record is its oldest collective still pending; in one group no rank completes a collective another has not
    joined, so those oldest collectives are one and the same. That holds only where every rank printed one record
    (the same record repeated by `what():` or `communicator was aborted` counts once), and two ranks at least did:
    a rank with two different records had several groups' works pending, and then nothing says which is whose."""
    records: dict[int, set] = {}
    for ev in events:
        d = ev.data
        if (ev.kind == "watchdog_timeout" and ev.rank is not None and d.get("seq") is None
                and all(d.get(k) is None for k in _GROUP_KEYS)):
            records.setdefault(ev.rank, set()).add((d.get("op"), d.get("timeout_ms"), d.get("elapsed_ms")))
    return len(records) > 1 and all(len(seen) == 1 for seen in records.values())


def watchdog_group(d: dict) -> str:
    """The process group of a watchdog record, named as the flight recorder names it (its GUID, the `pg_name` of an
    FR entry), else by its id, else by the name printed: every rank's record of one group lands in one timeline."""
    for key in _GROUP_KEYS:
        if d.get(key) is not None:
            return str(d[key])
    return "0"


def nccl_group(comm: str | None, host: str | None, pid: int | None, comm_ptr, comm_ids: dict | None) -> str:
    """The timeline group of a COLL line: its commId (from the line, else the file's init lines), else the
    process-local comm pointer."""
    return f"nccl:{comm or (comm_ids or {}).get((pid, comm_ptr)) or f'{host}:{pid}:{comm_ptr}'}"


def user_frame(frames) -> str | None:
    """`file:line (name)` of the innermost frame outside torch itself (where the user called the collective)."""
    for f in frames or ():
        path = str(f.get("file") or f.get("filename") or "")
        if path and "torch/distributed" not in path and "site-packages/torch" not in path:
            return f"{path}:{f.get('line')} ({f.get('name') or f.get('function')})"
    return None


def _ns(value) -> float | None:
    return value / 1e9 if isinstance(value, (int, float)) and value > 0 else None


def comm_ids_of(events: Iterable[Event]) -> dict:
    """(pid, comm_ptr) → commId, from one file's init lines (COLL lines name only the per-process pointer)."""
    ids = {}
    for ev in events:
        if ev.kind == "comm_init" and ev.data.get("comm_id") and ev.data.get("comm_ptr"):
            ids[(ev.pid, ev.data["comm_ptr"])] = ev.data["comm_id"]
    return ids
