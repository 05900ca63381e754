"""One evidence file → a `Digest`: what `diagnose` needs from it, small enough to send back from a worker.

Per-collective rows (NCCL COLL lines, flight-recorder entries) become timeline columns here, inside the worker
that parsed the file (`rows.pack_columns` form), so a 1,024-rank job never holds millions of Event
objects: only the few thousand other events travel back to the parent.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field, fields

import numpy as np

from .. import sources as parse_pkg
from ..diagnosis.fr_semantics import Entry, P2POp, rows_and_p2p
from ..diagnosis.fr_semantics import _peer as peer_rank
from ..diagnosis.groups import compact
from ..diagnosis.rows import (
    COLUMNS,
    RowBuffer,
    add_event,
    comm_ids_of,
    concat_packs,
    nccl_group,
    pack_columns,
    user_frame,
)
from ..errors import NcclfError
from ..limits import MAX_RANK
from ..model import CollRun, Event, Source, SourceKind, SourceResult
from ..sources import whole_file
from ..sources.columns import categorize, code_type, narrow
from ..sources.discover import sniff
from ..sources.flight_recorder import (
    ended_incomplete_events,
    host_in_name,
    iter_frames,
    pending_in_status,
    pg_status_events,
    table_of_dump,
)
from ..sources.fr_columns import coded_columns
from ..sources.fr_load import load_dump, load_dump_tail
from ..sources.gc_pause import gc_paused

HEAD_MB = 4.0                 # the head of a large file: init, topology and version lines
WINDOW_MB = 2.0               # the tail of a large file: its last ~10,000 collectives, the hang, the crash
COMPRESSED_WINDOW_BYTES = 256 << 10   # a .gz this large may decompress past HEAD_MB + 2 windows: windowed
FR_ENTRIES_PER_MB = 128       # a flight-recorder dump's window: its last 256 entries at the default 2 MB


@dataclass
class Digest:
    """What one file gave, small and picklable: its non-bulk events and its timeline rows as columns."""

    result: SourceResult
    rows: dict = field(default_factory=dict)              # rows.pack_columns of the file's rows
    row_pids: list = field(default_factory=list)
    row_hosts: list = field(default_factory=list)
    declared: dict = field(default_factory=dict)           # group -> ranks from pg_config, groups.compact form
    warnings: list = field(default_factory=list)           # internal errors, one line each
    p2p: list = field(default_factory=list)                # fr_semantics.P2POp of the dump (rank filled later)

    def __reduce__(self):
        """Sent from a worker with its P2P ops as plain tuples: pickle writes a namedtuple through a Python call
        each way (a 256-rank pipeline job's ~100 ops a dump cost more to send than its rows). Every field goes."""
        state = {f.name: getattr(self, f.name) for f in fields(self)}
        state["p2p"] = list(map(tuple, self.p2p))
        return _digest_of, (state,)


def _digest_of(state: dict) -> Digest:
    state["p2p"] = list(map(P2POp._make, state["p2p"]))
    return Digest(**state)


def sniff_and_digest(path: str, window_mb: float | None, keep_text: bool = True) -> Digest | Source:
    """One file's Digest, or its Source when it is not evidence to digest (not evidence at all, or a summary)."""
    src = sniff(path)
    if src.kind in (SourceKind.UNKNOWN, SourceKind.SUMMARY):
        return src
    set_windows([src], window_mb)
    return digest_source(src, keep_text)


def set_windows(sources: list[Source], window_mb: float | None) -> list[Source]:
    """Give every large plain text file a (head, tail) window, and every flight-recorder dump its tail entries;
    the windowed text files."""
    if window_mb is None:
        return []
    head, tail = int(HEAD_MB * 1e6), int(window_mb * 1e6)
    out = []
    for src in sources:
        if src.kind is SourceKind.FLIGHT_RECORDER:
            src.tail_entries = fr_tail_entries(window_mb)
        elif not whole_file(src.kind) and (src.compressed and src.size > COMPRESSED_WINDOW_BYTES
                                          or src.size > head + 2 * tail):
            # a compressed file's size says little of its text (logs compress 20-250x): past a few hundred KB it
            # may hold more than the window, so it gets the window; smaller ones are read whole
            src.window = (head, tail)
            out.append(src)
    return out


def fr_tail_entries(window_mb: float) -> int:
    """How many of a flight-recorder dump's last entries a window of `window_mb` decodes."""
    return max(16, int(window_mb * FR_ENTRIES_PER_MB))


def digest_source(source: Source, keep_text: bool = True) -> Digest:
    """Parse one file (top-level so a process pool can run it). A bug in a parser costs this file, never the
    diagnosis: it comes back as the file's error and an internal-error warning.

    Without `keep_text`, the rows of plain COLL lines of a file read whole carry no text (None): the few a
    finding cites are re-read from the file (`sources.lines.read_line`; diagnosis.timeline.row_text), so a
    4,096-rank job does not hold every COLL line twice. A summary keeps them (its files stay on their node)."""
    try:
        return _digest(source, keep_text or source.window is not None)
    except Exception as exc:                                 # noqa: BLE001 - isolated per file, reported
        if os.environ.get("NCCLF_DEBUG"):
            raise
        what = f"internal error while parsing {source.path} ({type(exc).__name__}: {exc}), please report"
        return Digest(SourceResult(source, [], error=what), warnings=[what])


def _digest(source: Source, keep_text: bool = True) -> Digest:
    if source.kind is SourceKind.FLIGHT_RECORDER:
        return digest_flight_recorder(source)
    rows: RowBuffer | None = None                 # made at the first row (most files have none, only runs)
    events: list[Event] = []
    runs = RunColumns(source.path, keep_text=keep_text)
    pids: list[int | None] = []
    hosts: list[str | None] = []
    comm_ids: dict[tuple, str] = {}
    stats: dict[str, int] = {}
    error = None
    try:
        for ev in parse_pkg.iter_records(source, stats, topology=False, buffers=False):   # nor reads buffers
            if isinstance(ev, CollRun):
                runs.add(ev, comm_ids)
                continue
            if ev.kind == "comm_init":
                comm_ids.update(comm_ids_of([ev]))
            if ev.kind in ("coll", "fr_entry"):
                if rows is None:
                    rows = RowBuffer()
                if add_event(rows, ev, comm_ids):
                    pids.append(ev.pid)
                    hosts.append(ev.host)
                    continue
            events.append(ev)
    except NcclfError as exc:
        error = str(exc)
    last = max(max((e.line for e in events), default=0), stats.get("skipped_line", 0))
    result = SourceResult(source, events, lines=last, error=error, head_lines=stats.get("head_lines", 0))
    packed = concat_packs(pack_columns(rows.columns()) if rows is not None and len(rows) else {}, runs.packed())
    return Digest(result, packed, pids, hosts, declared_groups(events))


class RunColumns:
    """The timeline rows of a file's CollRuns, packed as they arrive: per row only typed numbers (seq, numel,
    line, time) and the code of its (rank, group, op, dtype, redop); no object per row.

    The line text is kept only with `keep_text` (a windowed file: its rows are bounded by the window). A file
    read whole is cited by line number instead, and the few lines a finding cites are read again
    (`sources.lines.read_lines`): a 1 GB log's text would cost more than its numbers."""

    NUMBERS = ("seq", "numel", "line", "time")

    def __init__(self, path: str, keep_text: bool = False):
        self.path = path
        self.kinds: dict[tuple, int] = {}              # (rank, group, op, dtype, redop) -> its code
        self.parts: dict[str, list[np.ndarray]] = {name: [] for name in (*self.NUMBERS, "kind")}
        self.texts: list[str] | None = [] if keep_text else None
        self.n = 0
        self.stamped = False                           # a row has a time

    def add(self, run: CollRun, comm_ids: dict) -> None:
        n, codes = len(run), {}
        for ctx in dict.fromkeys(run.contexts):          # first seen first: the codes are the same every run
            d = ctx.data
            key = (ctx.rank, nccl_group(ctx.comm, ctx.host, ctx.pid, d["comm_ptr"], comm_ids), d["op"], d["dtype"],
                   d["redop"])
            codes[ctx] = self.kinds.setdefault(key, len(self.kinds))
        if len(codes) == 1:                            # the common case: one process, one communicator
            kind = np.full(n, next(iter(codes.values())), np.int32)
        else:
            kind = np.fromiter(map(codes.__getitem__, run.contexts), np.int32, n)
        lines = run.lines
        self.parts["line"].append(np.arange(lines.start, lines.stop, dtype=np.int64) if type(lines) is range
                                  else np.array(lines, np.int64))
        self.parts["seq"].append(_ints(run.opcounts))
        self.parts["numel"].append(_ints(run.counts))
        stamped = run.times.count(None) != n
        self.parts["time"].append(np.array(run.times, np.float64) if stamped       # None -> NaN
                                  else np.full(n, np.nan))                          # no timestamps: 10x faster
        self.stamped = self.stamped or stamped
        self.parts["kind"].append(kind)
        if self.texts is not None:
            self.texts.extend(run.texts)
        self.n += n

    def packed(self) -> dict:
        """The rows in `rows.pack_columns` form ({} without rows)."""
        if not self.n:
            return {}
        kind = _joined(self.parts.pop("kind"))
        keys = list(self.kinds)
        # every kind has rows: the ranks' narrowest type is their table's
        out: dict = {"rank": ("num", narrow(np.array([k[0] for k in keys], np.int64))[kind])}
        for i, name in enumerate(("group", "op", "dtype", "redop"), start=1):
            cats, table = categorize([k[i] for k in keys])
            out[name] = ("cat", cats, table.astype(code_type(len(cats)))[kind])
        for name, value in (("state", "enqueued"), ("source", "nccl"), ("file", self.path)):
            out[name] = ("cat", [value], np.zeros(self.n, np.int8))
        for name in self.NUMBERS:                      # one column at a time: the parts go as it is made
            if name == "time" and not self.stamped:    # no timestamps (the usual NCCL log): 4 bytes a row
                self.parts.pop(name)
                out[name] = ("num", np.full(self.n, np.nan, np.float32))
                continue
            values = _joined(self.parts.pop(name))
            if name == "time" and not np.isfinite(values).any():
                values = values.astype(np.float32)     # no timestamp parsed (a date timegm refuses)
            out[name] = ("obj", values.tolist()) if values.dtype == object else ("num", narrow(values))
        out["text"] = ("obj", self.texts) if self.texts is not None else ("none", self.n)
        out.update((name, ("none", self.n)) for name in COLUMNS if name not in out)
        return out


def _joined(parts: list[np.ndarray]) -> np.ndarray:
    """The parts as one array (a file read in one block has one part: no copy)."""
    return parts[0] if len(parts) == 1 else np.concatenate(parts)


def _ints(values: list[int]) -> np.ndarray:
    """int64, or objects where a value does not fit (a 20-digit count: the grammar's bound, not int64's)."""
    try:
        return np.array(values, np.int64)
    except OverflowError:
        return np.array(values, object)


FR_FIELDS = ("pg_name", "seq", "p2p_seq", "op", "peer", "is_p2p", "in_sizes", "out_sizes", "in_dtypes", "state",
             "time_created_ns", "time_started_ns", "time_completed_ns", "out_dtypes", "in_splits", "out_splits")


def digest_flight_recorder(source: Source) -> Digest:
    """A dump's timeline rows, straight from its columns: no Event per entry, no per-row text (evidence rows
    get theirs later). `fr_columns` codes the common shape of dump; the general table reader (through
    fr_semantics: P2P apart, coalesced members as one row, all_to_all by totals) takes the rest.

    With `source.tail_entries`, only the dump's last entries are decoded (`fr_load.load_dump_tail`) when the
    fast path takes them: the fr_dump event then says `first_entry`, the window's first entry number."""
    p2p: list = []
    try:
        with gc_paused():                                    # many small objects: GC passes only cost here
            fast, first, sites = _coded_tail(source, source.tail_entries) if source.tail_entries else (None, None, {})
            dump = load_dump(source.path) if fast is None else None
            if dump is not None:
                sites = call_sites(dump, len(dump.get("entries") or ()))
                fast = coded_columns(dump, source.path, source)
            if fast is not None:
                meta, rows, p2p = fast[0], coded_rows(source, *fast), coded_p2p(*fast)
            elif dump is not None:
                meta, cols = table_of_dump(dump, source.path, source, fields=FR_FIELDS)
                rows, p2p = fr_rows(source, meta, cols)
            del dump                                         # freed while the collector is still paused
            _add_call_sites(rows, sites)
    except NcclfError as exc:
        return Digest(SourceResult(source, [], error=str(exc)))
    event = Event("fr_dump", "flight_recorder", source.path, 1, meta.get("rank"),
                  host=source.host or host_in_name(source.path), text=f"flight-recorder dump "
                  f"({meta.get('entries')} entries, backend {meta.get('backend')}, version {meta.get('version')})"
                  + (f", read from entry {first}" if first else ""),
                  data={k: meta.get(k) for k in ("version", "rank", "world_size", "backend", "comm_lib_version")}
                  | {"pg_config": compact_config(meta.get("pg_config"))} | ({"first_entry": first} if first else {}))
    ended = list(ended_incomplete_events(source.path, meta.get("rank"), meta.get("ended_incomplete") or []))
    return Digest(SourceResult(source, [event, *ended, *_pending_groups(source.path, meta, rows)]), rows,
                  declared=declared_groups([event]), p2p=p2p)


def _pending_groups(path: str, meta: dict, rows: dict) -> list[Event]:
    """The `fr_pg_status` events of an NCCL dump's groups whose counters say a collective is pending that its rows do
    not hold (its entry left the ring): where the rows hold it, their state says so already, and an event per group
    of each of 100,000 hung ranks' dumps would cost more than their rows. Gloo's are left out, as its entries are
    (fr_semantics: they stay `scheduled` when they complete)."""
    if meta.get("backend") not in (None, "nccl"):
        return []
    last = _last_seqs(rows)
    pending = {name: st for name, st in (meta.get("pg_status") or {}).items()
               if pending_in_status(st) and last.get(name, -1) < st["last_enqueued"]}
    return list(pg_status_events(path, meta.get("rank"), pending))


def _last_seqs(rows: dict) -> dict[str, int]:
    """Each group's last collective seq among packed rows ({} where they are not packed as categories and numbers)."""
    group, seq = rows.get("group"), rows.get("seq")
    if type(group) is not tuple or type(seq) is not tuple or group[0] != "cat" or seq[0] != "num" or not len(seq[1]):
        return {}
    cats, codes, seqs = group[1], group[2], seq[1]
    return {str(cats[code]): int(seqs[codes == code].max()) for code in np.unique(codes) if code >= 0}


def _coded_tail(source: Source, tail_entries: int) -> tuple[tuple[dict, dict] | None, int | None, dict[int, str]]:
    """The fast path's (meta, columns) of the dump's tail, the tail's first entry number and the call sites of its
    last entries, or (None, None, {}) when the dump is small or the tail is not in the common shape (the whole
    dump is then read). What the tail needs from the skipped middle (a pipeline job's step-end ops, first issued
    after the head) is found by `load_dump_tail`, which extends the head to it."""
    tail = load_dump_tail(source.path, tail_entries)
    if tail is None:
        return None, None, {}
    dump, first, total = tail
    fast = coded_columns(dump, source.path, source, first_line=first)
    if fast is None:
        return None, None, {}
    fast[0]["entries"] = total
    return fast, first, call_sites(dump, total)


CALL_SITES_KEPT = 64      # a dump's last entries whose call site (user frame) travels in the digest


def call_sites(dump: dict, total: int) -> dict[int, str]:
    """Entry number → `file:line (function)` of the user code that issued it, for the dump's last CALL_SITES_KEPT
    entries: where a hang's first divergence is. The digest carries them, so the reduce never reopens the dump
    (a summary reduced far from the raw files cites them too)."""
    entries = dump.get("entries") if isinstance(dump, dict) else None
    if type(entries) is not list or total < len(entries[-CALL_SITES_KEPT:]):
        return {}
    last = entries[-CALL_SITES_KEPT:]
    sites: dict[int, str] = {}
    seen: dict[tuple, str | None] = {}
    for number, entry in zip(range(total - len(last) + 1, total + 1), last, strict=True):
        frames = entry.get("frames") if type(entry) is dict else None
        if type(frames) is list:       # torch shares one dict per distinct frame: read each stack once
            key = tuple(map(id, frames))
            site = seen[key] if key in seen else seen.setdefault(key, user_frame(iter_frames(frames)))
        else:
            site = None
        if site:
            sites[number] = site
    return sites


def _add_call_sites(rows: dict, sites: dict[int, str]) -> None:
    if not rows or not sites or rows.get("line", ("",))[0] != "num":
        return
    cats = list(dict.fromkeys(sites.values()))              # a coded column: -1 for an entry without a site
    numbers = np.array(list(sites), np.int64)                # increasing (call_sites walks the entries in order)
    index = {site: i for i, site in enumerate(cats)}
    site_codes = np.array([index[site] for site in sites.values()], np.int64)
    lines = rows["line"][1]
    at = np.minimum(np.searchsorted(numbers, lines), len(numbers) - 1)
    codes = np.where(numbers[at] == lines, site_codes[at], -1)
    rows["frame"] = ("cat", cats, codes.astype(code_type(len(cats))))


def coded_rows(source: Source, meta: dict, coded: dict) -> dict:
    """The dump's timeline rows, packed (rows.pack_columns) from `fr_columns.coded_columns`."""
    if not len(coded["line"]):
        return {}
    n = len(coded["line"])          # a column of None alone is no column, as pack_columns leaves it in fr_rows
    rows = {name: ("cat", *coded[name]) if coded[name][0] != [None] else ("none", n)
            for name in ("group", "op", "dtype", "state")}
    rows.update((name, ("num", narrow(coded[name]))) for name in ("seq", "numel", "out_numel", "line", "time"))
    rows.update(_fr_constant_rows(source, meta, len(coded["line"])))
    return rows


def coded_p2p(meta: dict, coded: dict) -> list[P2POp]:
    """The dump's P2P ops from `fr_columns.coded_columns`' p2p columns, as `rows_and_p2p` makes them: each
    distinct (group, op, peer text) asks fr_semantics for its peer once."""
    if not coded["p2p"]:
        return []
    pgs, seqs, p2p_seqs, ops, peers, numels, states, lines, times = coded["p2p"]
    members, rank = group_members(meta), meta.get("rank")
    peer_of = {key: peer_rank(Entry(key[0], None, key[1], key[2], True, None, None, None, None, 0, None, None, None),
                              members.get(key[0]), rank)
               for key in set(zip(pgs, ops, peers, strict=True))}
    peers_found = map(peer_of.__getitem__, zip(pgs, ops, peers, strict=True))
    return list(map(P2POp, pgs, seqs, p2p_seqs, ops, peers_found, numels,
                    states, lines, times))


def fr_rows(source: Source, meta: dict, cols: dict) -> tuple[dict, list]:
    """The dump's timeline rows, packed (rows.pack_columns), and its P2P ops, from `read_flight_recorder_table`
    columns (fr_semantics decides what each entry means)."""
    if not cols["line"]:
        return {}, []
    entries = fr_entries(cols)
    members = group_members(meta)
    table, p2p = rows_and_p2p(entries, members, meta.get("rank"))
    if not table:
        return {}, p2p
    columns = {name: [r.get(name) for r in table] for name in ("group", "seq", "op", "numel", "out_numel", "dtype",
                                                                 "state", "line", "shape", "size_note", "a2a_in",
                                                                 "a2a_out", "a2a_splits")}
    rows = pack_columns({name: values for name, values in columns.items() if any(v is not None for v in values)})
    rows.update((name, ("none", len(table))) for name, values in columns.items() if name not in rows)
    rows["time"] = ("num", np.array([r["time"] if r["time"] is not None else np.nan for r in table], np.float64))
    rows.update(_fr_constant_rows(source, meta, len(table), shape=False))
    return rows, p2p


def fr_entries(cols: dict) -> list[Entry]:
    """`read_flight_recorder_table` columns → fr_semantics entries."""
    ns = lambda v: v / 1e9 if v else None                    # noqa: E731
    none = [None] * len(cols["line"])
    return [Entry(pg, seq, op, peer, p2p_flag, ins, outs, dts, state, line, ns(created), ns(started), ns(done), p2p_seq,
                  out_dtypes=odts, in_splits=isp, out_splits=osp)
            for (pg, seq, op, peer, p2p_flag, ins, outs, dts, state, line, created, started, done, p2p_seq, odts, isp,
                 osp)
            in zip(cols["pg_name"], cols["seq"], cols["op"], cols["peer"], cols["is_p2p"], cols["in_sizes"],
                   cols["out_sizes"], cols["in_dtypes"], cols["state"], cols["line"], cols["time_created_ns"],
                   cols["time_started_ns"], cols["time_completed_ns"], cols["p2p_seq"], cols.get("out_dtypes", none),
                   cols.get("in_splits", none), cols.get("out_splits", none), strict=True)]


def group_members(meta: dict) -> dict[str, list[int]]:
    """PG name → its global ranks in group-rank order (pg_config); the default PG falls back to the world."""
    out = {str(name): list(cfg["ranks"]) for name, cfg in (meta.get("pg_config") or {}).items()
           if cfg and cfg.get("ranks")}
    world = meta.get("world_size")
    for name, cfg in (meta.get("pg_config") or {}).items():
        if str(name) not in out and cfg and cfg.get("desc") == "default_pg" and isinstance(world, int) \
                and 0 < world <= MAX_RANK:
            out[str(name)] = list(range(world))
    return out


def _fr_constant_rows(source: Source, meta: dict, n: int, shape: bool = True) -> dict:
    zeros, rank = np.zeros(n, np.int8), meta.get("rank")
    blank = ("shape", "text", "frame", "size_note", "a2a_in", "a2a_out", "a2a_splits") if shape else ("text", "frame")
    return {"source": ("cat", ["flight_recorder"], zeros), "file": ("cat", [source.path], zeros),
            "rank": ("num", narrow(np.full(n, rank, np.int64))) if type(rank) is int
            else [rank] * n,                                  # unknown: the parent fills it from other files
            "redop": ("cat", [None], zeros), **{name: ("none", n) for name in blank}}


def fr_event_rows(buf: RowBuffer, events: list[Event]) -> list:
    """The timeline rows (added to `buf`) and P2P ops ((rank, file, *op)) of `fr_entry` events, dump by dump,
    read as the flight-recorder map path reads a dump's table (fr_semantics)."""
    dumps = {ev.file: ev for ev in events if ev.kind == "fr_dump"}
    by_file: dict[str, list[Event]] = {}
    for ev in events:
        if ev.kind == "fr_entry":
            by_file.setdefault(ev.file, []).append(ev)
    p2p: list = []
    for file, entries in by_file.items():
        dump = dumps.get(file)
        members = group_members(dump.data) if dump is not None else {}
        rank = entries[0].rank
        table, ops = rows_and_p2p((_entry_of(ev) for ev in entries), members, rank)
        for row in table:
            buf.add(*(rank if name == "rank" else file if name == "file" else "flight_recorder" if name == "source"
                      else row.get(name) for name in COLUMNS))
        p2p.extend((rank, file, *op) for op in ops)
    return p2p


def _entry_of(ev: Event) -> Entry:
    d = ev.data
    ns = lambda v: v / 1e9 if v else None                    # noqa: E731
    return Entry(str(d.get("pg_name")), d.get("seq"), d.get("op"), d.get("peer"), d.get("is_p2p"),
                 d.get("in_sizes"), d.get("out_sizes"), d.get("in_dtypes"), d.get("state"), ev.line,
                 ns(d.get("time_created_ns")) or ev.time, ns(d.get("time_started_ns")),
                 ns(d.get("time_completed_ns")), d.get("p2p_seq"), user_frame(d.get("frames")), ev.text,
                 d.get("out_dtypes"), d.get("in_splits"), d.get("out_splits"))


def declared_groups(events: list[Event]) -> dict[str, range | tuple]:
    """Group name -> the ranks the flight-recorder dumps' pg_config says it has (where it says), compact."""
    out = {}
    for ev in events:
        if ev.kind == "fr_dump":
            for name, cfg in (ev.data.get("pg_config") or {}).items():
                if cfg and cfg.get("ranks"):
                    out[str(name)] = compact(cfg["ranks"])
    return out


def compact_config(config: dict | None) -> dict | None:
    """pg_config with each membership in its compact form (`groups.compact`): at 16,384 ranks a digest would
    otherwise carry 16,384 ints per dump, and the parent 16,384 copies of them."""
    if not isinstance(config, dict):
        return config
    return {name: {**cfg, "ranks": compact(cfg["ranks"])} if isinstance(cfg, dict) and cfg.get("ranks") else cfg
            for name, cfg in config.items()}
