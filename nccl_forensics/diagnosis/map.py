"""One evidence file → a `Digest`: what `diagnose` needs from it, small enough to send back from a worker.

Per-collective rows (NCCL COLL lines, flight-recorder entries) become timeline columns here, inside the worker
that parsed the file (`timeline.pack_columns` form), so a 1,024-rank job never holds millions of Event
objects: only the few thousand other events travel back to the parent.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from itertools import repeat

import numpy as np

from .. import sources as parse_pkg
from ..errors import NcclfError
from ..model import CollRun, Event, Source, SourceKind, SourceResult
from ..sources.columns import narrow
from ..sources.flight_recorder import table_of_dump
from ..sources.fr_columns import coded_columns
from ..sources.fr_load import load_dump
from ..sources.gc_pause import gc_paused
from .timeline import RowBuffer, add_event, comm_ids_of, nccl_group, pack_columns


@dataclass
class Digest:
    """What one file gave, small and picklable: its non-bulk events and its timeline rows as columns."""

    result: SourceResult
    rows: dict = field(default_factory=dict)              # timeline.pack_columns of the file's rows
    row_pids: list = field(default_factory=list)
    row_hosts: list = field(default_factory=list)
    declared: dict = field(default_factory=dict)           # group -> ranks from pg_config
    warnings: list = field(default_factory=list)           # internal errors, one line each


def digest_source(source: Source) -> Digest:
    """Parse one file (top-level so a process pool can run it). A bug in a parser costs this file, never the
    diagnosis: it comes back as the file's error and an internal-error warning."""
    try:
        return _digest(source)
    except Exception as exc:                                 # noqa: BLE001 - isolated per file, reported
        if os.environ.get("NCCLF_DEBUG"):
            raise
        what = f"internal error while parsing {source.path} ({type(exc).__name__}: {exc}), please report"
        return Digest(SourceResult(source, [], error=what), warnings=[what])


def _digest(source: Source) -> Digest:
    if source.kind is SourceKind.FLIGHT_RECORDER:
        return digest_flight_recorder(source)
    rows, pids, hosts, events = RowBuffer(), [], [], []
    error, comm_ids = None, {}
    try:
        for ev in parse_pkg.iter_records(source):
            if type(ev) is CollRun:
                _add_run(rows, ev, comm_ids, pids, hosts)
                continue
            if ev.kind == "comm_init":
                comm_ids.update(comm_ids_of([ev]))
            if ev.kind in ("coll", "fr_entry") and add_event(rows, ev, comm_ids):
                pids.append(ev.pid)
                hosts.append(ev.host)
                continue
            events.append(ev)
    except NcclfError as exc:
        error = str(exc)
    result = SourceResult(source, events, lines=max((e.line for e in events), default=0), error=error)
    return Digest(result, pack_columns(rows.columns()) if len(rows) else {}, pids, hosts, declared_groups(events))


def _add_run(rows: RowBuffer, run: CollRun, comm_ids: dict, pids: list, hosts: list) -> None:
    """A CollRun's timeline rows: what `add_event` adds for each of its events, built column-wise."""
    shared = {}
    for ctx in set(run.contexts):
        d = ctx.data
        group = nccl_group(ctx.comm, ctx.host, ctx.pid, d["comm_ptr"], comm_ids)
        shared[ctx] = (ctx.rank, group, d["op"], d["dtype"], d["redop"], ctx.pid, ctx.host)
    ranks, groups, ops, dtypes, redops, run_pids, run_hosts = zip(*map(shared.__getitem__, run.contexts))
    rows.rows.extend(zip(ranks, groups, run.opcounts, ops, run.counts, repeat(None), dtypes, repeat("enqueued"),
                         repeat("nccl"), repeat(run.file), run.lines, run.texts, run.times, repeat(None), redops))
    pids.extend(run_pids)
    hosts.extend(run_hosts)


FR_FIELDS = ("pg_name", "seq", "op", "in_numel", "in_dtypes", "state", "time_created_ns")


def digest_flight_recorder(source: Source) -> Digest:
    """A dump's timeline rows, straight from its columns: no Event per entry, no per-row text (evidence rows
    get theirs later). `fr_columns` codes the common shape of dump; the general table reader takes the rest."""
    try:
        with gc_paused():                                    # many small objects: GC passes only cost here
            dump = load_dump(source.path)
            fast = coded_columns(dump, source.path, source)
            if fast is not None:
                meta, rows = fast[0], coded_rows(source, *fast)
            else:
                meta, cols = table_of_dump(dump, source.path, source, fields=FR_FIELDS)
                rows = fr_rows(source, meta, cols)
            del dump                                         # freed while the collector is still paused
    except NcclfError as exc:
        return Digest(SourceResult(source, [], error=str(exc)))
    event = Event("fr_dump", "flight_recorder", source.path, 1, meta.get("rank"), text=f"flight-recorder dump "
                  f"({meta.get('entries')} entries, backend {meta.get('backend')}, version {meta.get('version')})",
                  data={k: meta.get(k) for k in ("version", "rank", "world_size", "backend", "pg_config",
                                                 "comm_lib_version")})
    return Digest(SourceResult(source, [event]), rows, declared=declared_groups([event]))


def coded_rows(source: Source, meta: dict, coded: dict) -> dict:
    """The dump's timeline rows, packed (timeline.pack_columns) from `fr_columns.coded_columns`."""
    rows = {name: ("cat", *coded[name]) for name in ("group", "op", "dtype", "state")}
    rows.update((name, ("num", narrow(coded[name]))) for name in ("seq", "numel", "line", "time"))
    rows.update(_fr_constant_rows(source, meta, len(coded["line"])))
    return rows


def fr_rows(source: Source, meta: dict, cols: dict) -> dict:
    """The dump's timeline rows, packed (timeline.pack_columns) from `read_flight_recorder_table` columns."""
    n = len(cols["line"])
    if not n:
        return {}
    joined = {d: ",".join(d) if d else None for d in set(cols["in_dtypes"])}
    rows = pack_columns({"group": cols["pg_name"], "seq": cols["seq"], "op": cols["op"], "numel": cols["in_numel"],
                         "dtype": list(map(joined.__getitem__, cols["in_dtypes"])), "state": cols["state"],
                         "line": cols["line"]})
    rows["time"] = ("num", _seconds(cols["time_created_ns"]))
    rows.update(_fr_constant_rows(source, meta, n))
    return rows


def _fr_constant_rows(source: Source, meta: dict, n: int) -> dict:
    zeros, rank = np.zeros(n, np.int8), meta.get("rank")
    return {"source": ("cat", ["flight_recorder"], zeros), "file": ("cat", [source.path], zeros),
            "rank": ("num", narrow(np.full(n, rank, np.int64))) if type(rank) is int
            else [rank] * n,                                  # unknown: the parent fills it from other files
            "redop": ("cat", [None], zeros), **{name: ("none", n) for name in ("shape", "text", "frame")}}


def _seconds(ns: list) -> np.ndarray:
    """Nanosecond timestamps (None = unknown) as float seconds (NaN = unknown)."""
    if set(map(type, ns)) <= {int}:
        try:
            return np.array(ns, dtype=np.int64) / 1e9
        except OverflowError:
            pass
    return np.array([t / 1e9 if t else None for t in ns], dtype=np.float64)


def declared_groups(events: list[Event]) -> dict:
    """Group name -> the ranks the flight-recorder dumps' pg_config says it has (where it says)."""
    out = {}
    for ev in events:
        if ev.kind == "fr_dump":
            for name, cfg in (ev.data.get("pg_config") or {}).items():
                if cfg and cfg.get("ranks"):
                    out[str(name)] = set(cfg["ranks"])
    return out
