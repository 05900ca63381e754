"""The public entry point: ``diagnose(paths) -> Diagnosis``.

discover → parse (per file, in parallel) → ranks → timelines → detectors → verdict. Three lines of Python
redo what ``ncclf diagnose`` prints::

    from nccl_forensics.diagnosis import diagnose
    d = diagnose(["logs/"])
    print(d.verdict.cls, d.verdict.culprit_ranks)

Per-collective rows (NCCL COLL lines, flight-recorder entries) are turned into columns inside the worker
that parsed the file, so a 1,024-rank job never holds millions of Event objects: only the few thousand
other events travel back to the parent.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from itertools import repeat
from typing import Callable, Iterable

import numpy as np
import pandas as pd

from . import parse as parse_pkg
from .columns import narrow
from .detectors import run_detectors, selected
from .detectors.base import Context
from .discover import discover, evidence_sources
from .divergence import find_outliers, first_divergence
from .errors import NcclfError, NoEvidence
from .gc_pause import gc_paused
from .model import CollRun, Event, Finding, Source, SourceKind, SourceResult
from .parallel import map_sources
from .parse.flight_recorder import frames_of, table_of_dump
from .parse.fr_columns import coded_columns
from .parse.fr_load import load_dump
from .ranks import assign_ranks
from .rank_state import RankState, rank_states
from .timeline import (RowBuffer, Timelines, add_event, build_timelines, comm_ids_of, frame_from_packed,
                       nccl_group, pack_columns)
from .verdict import Verdict, decide

SCHEMA_VERSION = 1
_EVIDENCE_NAMES = {"timeline": "per-collective records (flight-recorder dumps or NCCL COLL lines)",
                   "pyspy": "py-spy dumps", "process_end": "process exit information (torchrun output, error.json)"}


@dataclass
class Diagnosis:
    verdict: Verdict
    findings: list[Finding]
    timelines: Timelines
    ranks: dict[int, RankState]
    divergence: pd.DataFrame                       # first divergent entry per (group, rank)
    sources: list[Source] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)   # detectors that lacked evidence
    missing: list[str] = field(default_factory=list)                # evidence kinds absent from the bundle
    errors: list[str] = field(default_factory=list)                 # files that could not be read

    @property
    def failed(self) -> bool:
        return self.verdict.cls != "none"


@dataclass
class Digest:
    """What one file gave, small and picklable: its non-bulk events and its timeline rows as columns."""

    result: SourceResult
    rows: dict = field(default_factory=dict)              # timeline.pack_columns of the file's rows
    row_pids: list = field(default_factory=list)
    row_hosts: list = field(default_factory=list)
    declared: dict = field(default_factory=dict)           # group -> ranks from pg_config


def digest_source(source: Source) -> Digest:
    """Parse one file (top-level so a process pool can run it)."""
    if source.kind is SourceKind.FLIGHT_RECORDER:
        return _digest_fr(source)
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
    return Digest(result, pack_columns(rows.columns()) if len(rows) else {}, pids, hosts, _declared(events))


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


_FR_FIELDS = ("pg_name", "seq", "op", "in_numel", "in_dtypes", "state", "time_created_ns")


def _digest_fr(source: Source) -> Digest:
    """A dump's timeline rows, straight from its columns: no Event per entry, no per-row text (evidence rows
    get theirs later). `fr_columns` codes the common shape of dump; the general table reader takes the rest."""
    try:
        with gc_paused():                                    # many small objects: GC passes only cost here
            dump = load_dump(source.path)
            fast = coded_columns(dump, source.path, source)
            if fast is not None:
                meta, rows = fast[0], _coded_rows(source, *fast)
            else:
                meta, cols = table_of_dump(dump, source.path, source, fields=_FR_FIELDS)
                rows = _fr_rows(source, meta, cols)
            del dump                                         # freed while the collector is still paused
    except NcclfError as exc:
        return Digest(SourceResult(source, [], error=str(exc)))
    dump = Event("fr_dump", "flight_recorder", source.path, 1, meta.get("rank"), text=f"flight-recorder dump "
                 f"({meta.get('entries')} entries, backend {meta.get('backend')}, version {meta.get('version')})",
                 data={k: meta.get(k) for k in ("version", "rank", "world_size", "backend", "pg_config",
                                                "comm_lib_version")})
    return Digest(SourceResult(source, [dump]), rows, declared=_declared([dump]))


def _coded_rows(source: Source, meta: dict, coded: dict) -> dict:
    """The dump's timeline rows, packed (timeline.pack_columns) from `fr_columns.coded_columns`."""
    rows = {name: ("cat", *coded[name]) for name in ("group", "op", "dtype", "state")}
    rows.update((name, ("num", narrow(coded[name]))) for name in ("seq", "numel", "line", "time"))
    rows.update(_fr_constant_rows(source, meta, len(coded["line"])))
    return rows


def _fr_rows(source: Source, meta: dict, cols: dict) -> dict:
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
            "rank": ("num", narrow(np.full(n, rank, np.int64))) if type(rank) is int and abs(rank) < 1 << 62
            else [rank] * n,                                  # a rank from a damaged name stays a Python int
            "redop": ("cat", [None], zeros), **{name: ("none", n) for name in ("shape", "text", "frame")}}


def _seconds(ns: list) -> np.ndarray:
    """Nanosecond timestamps (None = unknown) as float seconds (NaN = unknown)."""
    if set(map(type, ns)) <= {int}:
        try:
            return np.array(ns, dtype=np.int64) / 1e9
        except OverflowError:
            pass
    return np.array([t / 1e9 if t else None for t in ns], dtype=np.float64)


def _declared(events: list[Event]) -> dict:
    out = {}
    for ev in events:
        if ev.kind == "fr_dump":
            for name, cfg in (ev.data.get("pg_config") or {}).items():
                if cfg and cfg.get("ranks"):
                    out[str(name)] = set(cfg["ranks"])
    return out


def diagnose(paths: Iterable[str], jobs: int = 0, progress: Callable[[int, int], None] | None = None,
             select: Iterable[str] = (), ignore: Iterable[str] = ()) -> Diagnosis:
    """Diagnose a bundle of evidence. `progress(done, total)` is called as files finish.

    Raises BadInput/NoEvidence (NcclfError) when the paths hold nothing ncclf can read.
    """
    sources = discover(list(paths))
    usable = evidence_sources(sources)
    if not usable:
        raise NoEvidence(f"{', '.join(map(str, paths))}: no evidence files (NCCL logs, py-spy dumps, flight-recorder "
                         "dumps, torchrun output, dmesg) found")
    digests = _map(usable, jobs, progress)
    events, frames, declared = _collect(digests)
    errors = [f"{d.result.source.path}: {d.result.error}" for d in digests if d.result.error]
    return analyse(events, frames, declared, select, ignore, sources=sources, errors=errors)


def diagnose_events(events: Iterable[Event], select: Iterable[str] = (), ignore: Iterable[str] = ()) -> Diagnosis:
    """The same analysis over events already parsed (ranks filled): used by tests and other tools."""
    rows, rest, comm_ids = RowBuffer(), [], {}
    events = list(events)
    comm_ids = comm_ids_of(events)
    for ev in events:
        if not (ev.kind in ("coll", "fr_entry") and add_event(rows, ev, comm_ids)):
            rest.append(ev)
    rest.sort(key=lambda e: (e.rank if e.rank is not None else 1 << 30, e.file, e.line))
    return analyse(rest, [rows.to_frame()], _declared(rest), select, ignore)


def analyse(events: list[Event], frames: list[pd.DataFrame], declared: dict, select=(), ignore=(),
            sources: list[Source] | None = None, errors: list[str] | None = None) -> Diagnosis:
    """timelines → detectors → verdict, for events and timeline rows with ranks filled."""
    for ev in events:
        if ev.kind in ("watchdog_timeout", "fingerprint_mismatch"):
            buf = RowBuffer()
            add_event(buf, ev)
            frames = [*frames, buf.to_frame()]
    timelines = build_timelines(frames, declared)
    outliers = _with_frames(find_outliers(timelines.colls))
    world = _world(events, timelines)
    ranks = rank_states(events, world)
    ctx = Context(events, timelines, outliers, ranks, sorted(ranks))
    report = run_detectors(ctx, selected(select, ignore))
    missing = [text for need, text in _EVIDENCE_NAMES.items() if not ctx.has(need)]
    cascade = [st.rank for st in ranks.values() if st.end and not st.cause]
    root = [ev for ev in ctx.of("child_failed") if ev.data.get("root_cause")]
    verdict = decide(report.findings, cascade, root, missing)
    return Diagnosis(verdict, sorted(report.findings, key=lambda f: (f.id, f.ranks, f.group or "")), timelines,
                     ranks, first_divergence(outliers), sources or [], report.skipped, missing, errors or [])


def _map(sources: list[Source], jobs: int, progress) -> list[Digest]:
    total = len(sources)
    on_done = (lambda i: progress(i + 1, total)) if progress else None
    return map_sources(digest_source, sources, jobs, on_done)


def _collect(digests: list[Digest]):
    """Recover ranks across files, then fill the rows' missing ranks from the same (host, pid) map."""
    results = [d.result for d in digests]
    hints = assign_ranks(results)
    packs, declared = [], {}
    for d in digests:
        if d.rows:
            if type(d.rows["rank"]) is list:                  # not packed yet: some ranks may still be missing
                _fill_row_ranks(d.rows["rank"], d, hints)
                d.rows["rank"] = ("num", _rank_array(d.rows["rank"]))
            packs.append(d.rows)
        for group, ranks in d.declared.items():
            declared.setdefault(group, set()).update(ranks)
    events = sorted((ev for r in results for ev in r.events),
                    key=lambda e: (e.rank if e.rank is not None else 1 << 30, e.file, e.line))
    packs.sort(key=_first_rank)    # FR dumps of one PG then come out sorted: build_timelines need not sort them
    return events, [frame_from_packed(packs)], declared


def _first_rank(pack: dict) -> float:
    ranks = pack["rank"][1]
    return float(ranks[0]) if len(ranks) and ranks[0] == ranks[0] else float("inf")


def _rank_array(ranks: list) -> np.ndarray:
    return np.array(ranks, dtype=np.int64 if None not in ranks else np.float64)


def _fill_row_ranks(ranks: list, d: Digest, hints) -> None:
    if None not in ranks:
        return
    src = d.result.source
    for i, rank in enumerate(ranks):
        if rank is None:
            pid = d.row_pids[i] if i < len(d.row_pids) else None
            host = d.row_hosts[i] if i < len(d.row_hosts) else None
            found = hints.rank_of(host, pid, src.local_rank) if hints is not None and pid is not None else None
            ranks[i] = found if found is not None else src.rank


def _world(events: list[Event], timelines: Timelines) -> list[int]:
    ranks = {ev.rank for ev in events if ev.rank is not None}
    ranks |= {r for members in timelines.members.values() for r in members}
    for ev in events:
        if ev.kind == "fr_dump" and isinstance(ev.data.get("world_size"), int):
            ranks |= set(range(ev.data["world_size"]))
    return sorted(ranks)


def _with_frames(outliers: pd.DataFrame) -> pd.DataFrame:
    """Fill the call-site frame and text of the first flight-recorder outliers (frames are costly to read for all)."""
    if outliers.empty or "frame" not in outliers:
        return outliers
    need = outliers[outliers["frame"].isna() & (outliers["source"] == "flight_recorder")]
    if need.empty:
        return outliers
    from .timeline import user_frame
    for path in sorted(need["file"].unique())[:16]:
        try:
            dump = load_dump(path)
            _, cols = table_of_dump(dump, path, path)
        except NcclfError:
            continue
        index = {line: i for i, line in enumerate(cols["line"])}
        mask = (outliers["file"] == path) & outliers["frame"].isna()
        at = [index.get(line) for line in outliers.loc[mask, "line"]]
        outliers.loc[mask, "frame"] = [user_frame(frames_of(dump["entries"][cols["line"][i] - 1].get("frames")))
                                       if i is not None else None for i in at]
        outliers.loc[mask, "text"] = [_fr_text(cols, i) if i is not None else None for i in at]
    return outliers


def _fr_text(cols: dict, i: int) -> str:
    return (f"record {cols['record_id'][i]} pg {cols['pg_name'][i]} seq {cols['seq'][i]} {cols['op_raw'][i]} "
            f"in={cols['in_sizes'][i]} {cols['in_dtypes'][i]} state={cols['state'][i]}")
