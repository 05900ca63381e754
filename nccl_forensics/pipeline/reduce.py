"""The public entry point: ``diagnose(paths) -> Diagnosis``.

discover → parse (per file, in parallel) → ranks → timelines → detectors → verdict. Three lines of Python
redo what ``ncclf diagnose`` prints::

    from nccl_forensics.pipeline.reduce import diagnose
    d = diagnose(["logs/"])
    print(d.verdict.cls, d.verdict.culprit_ranks)

Each file is parsed into a `digest.Digest` in a worker process: its timeline rows as columns, plus its
few other events. The parent merges them, then analyses.
"""
from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Callable, Iterable, NamedTuple

import numpy as np
import pandas as pd

from ..detectors import assess_health, run_detectors, selected
from ..detectors._fronts import explaining_groups
from ..detectors.base import Context
from ..diagnosis.chunks import row_chunks
from ..diagnosis.divergence import find_outliers, first_divergence
from ..diagnosis.environment import Setting, settings, stated
from ..diagnosis.groups import as_set, label, relabel, split_by_membership
from ..diagnosis.rank_state import RankState, rank_states, store_teardown_errors
from ..diagnosis.rows import NO_SEQ, RowBuffer, add_event, comm_ids_of, seqless_timeouts_meet
from ..diagnosis.timeline import Timelines, build_timelines, frame_from_packed, frame_of
from ..diagnosis.verdict import INCONCLUSIVE, Verdict, decide, healthy_or_inconclusive, reported
from ..diagnosis.world import UNKNOWN_RANK, World, expected_world, stated_group_sizes
from ..libc import M_MMAP_THRESHOLD, mallopt
from ..model import Event, Evidence, Finding, Source, SourceKind
from ..sources.capture_manifest import MANIFEST_NAME, rank_env
from ..sources.gc_pause import gc_paused, trim_heap
from ..sources.lines import TAIL_BASE, read_lines, resolve_tail_line
from ..sources.ranks import assign_ranks
from .engines.local import SharedPool
from .map import WINDOW_MB, Digest, declared_groups, fr_event_rows
from .read import head_lines, read_inputs, read_whole
from .summary import RowBlock, read_summary_blocks
from .unread import suspect_middles

SCHEMA_VERSION = 1
WIDEN = 16                    # how much larger the window gets when the divergence may lie before it
_EVIDENCE_NAMES = {"timeline": "per-collective records (flight-recorder dumps or NCCL COLL lines)",
                   "pyspy": "py-spy dumps", "process_end": "process exit information (torchrun output, error.json)"}


class RayNode(NamedTuple):
    """One node of a `--ray` diagnosis: what it answered."""
    node_id: str
    host: str
    sent_evidence: bool
    note: str                      # why it sent nothing ("" when it did)


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
    world: World | None = None                                      # expected ranks, and the ones without evidence
    warnings: list[str] = field(default_factory=list)               # internal errors (a parser or detector raised)
    windowed: list[Source] = field(default_factory=list)            # large files read at their head and tail only
    windowed_dumps: dict[str, int] = field(default_factory=dict)    # dumps read from this entry number on
    window_mb: float | None = None                                  # the window they were read with (widened?)
    ray_nodes: list[RayNode] = field(default_factory=list)          # the nodes of --ray
    explaining: list[dict] = field(default_factory=list)   # the stalled groups the culprits are missing from, most
                                                           # telling first (wavefront.GroupFront.to_dict())
    quiet_groups: int = 0                                  # the other groups: every member at the same point
    environment: list[Setting] = field(default_factory=list)   # the variables the evidence says were set, per rank
    group_sizes: dict[str, int] = field(default_factory=dict)  # each group's size where a line states it
    group_descs: dict[str, str] = field(default_factory=dict)  # each group's pg_desc where a dump gives one
    head_lines: dict[str, int] = field(default_factory=dict)   # a windowed file's lines read at its head
    read_whole: dict[str, Evidence] = field(default_factory=dict)  # large files read whole: a line in the middle

    @property
    def failed(self) -> bool:
        """A hang or failure was diagnosed (not `none`, not `inconclusive`)."""
        return self.verdict.cls not in ("none", INCONCLUSIVE)

    @property
    def inconclusive(self) -> bool:
        return self.verdict.cls == INCONCLUSIVE


def diagnose(paths: Iterable[str], jobs: int = 0, progress: Callable[[int, int], None] | None = None,
             select: Iterable[str] = (), ignore: Iterable[str] = (), window_mb: float | None = WINDOW_MB,
             shared: SharedPool | None = None) -> Diagnosis:
    """Diagnose a bundle of evidence. `progress(done, total)` is called as files finish.

    A text file larger than HEAD_MB + 2 × `window_mb` is read at its head (its init, topology and version lines,
    up to its first block of COLL lines or HEAD_MB) and its last `window_mb` MB (where a hang or a crash is);
    of a flight-recorder dump, only the last FR_ENTRIES_PER_MB × `window_mb` entries are decoded (a dump's
    entries beyond those are a ring buffer's older history); `window_mb=None` reads everything. When the first
    divergence sits at the start of a window, the files are read again with a window WIDEN times larger, then
    in full.

    Raises BadInput/NoEvidence (NcclfError) when the paths hold nothing ncclf can read. The files are read by
    `shared`'s workers where given (read.pool_for: started before the caller loaded this module), which stop once
    the files are read, as a pool of this call's own does.
    """
    paths = list(paths)
    result = _diagnose(paths, jobs, progress, select, ignore, window_mb, shared)
    wider = [window_mb * WIDEN, None] if window_mb is not None else []
    while (result.windowed or result.windowed_dumps) and wider and (_divergence_at_window_start(result)
                                                                    or _p2p_unmatched_in_window(result)):
        result = _diagnose(paths, jobs, progress, select, ignore, wider.pop(0))
    if result.verdict.cls == "none" and result.windowed:      # an all-clear needs what the window skipped
        suspects = suspect_middles(result.windowed, result.head_lines)
        if suspects:
            result = _diagnose(paths, jobs, progress, select, ignore, result.window_mb, whole=set(suspects))
            result.read_whole = suspects
    return result


def _diagnose(paths: list[str], jobs: int, progress, select, ignore, window_mb: float | None,
              shared: SharedPool | None = None, whole: set[str] | None = None) -> Diagnosis:
    # the digests of 16,384 dumps are a million small objects that live to the end: the cyclic collector's passes
    # over them cost about a fifth of the parent's time and free nothing (reference counting frees what goes)
    with gc_paused():
        return _diagnose_paused(paths, jobs, progress, select, ignore, window_mb, shared, whole or set())


def _diagnose_paused(paths: list[str], jobs: int, progress, select, ignore, window_mb: float | None,
                     shared: SharedPool | None, whole: set[str]) -> Diagnosis:
    """`whole`: windowed files to read in full (their digests then keep their rows: no row blocks)."""
    with shared or SharedPool() as pool:             # stopped once the files are read: idle workers hold memory
        sources, usable, windowed, digests, blocks = read_inputs(paths, window_mb, jobs, progress, False, pool,
                                                                 join=not whole)
    digests, windowed = read_whole(digests, windowed, whole, keep_text=False)
    sources = [s for s in sources if s.kind is not SourceKind.SUMMARY]
    summaries = [s for s in usable if s.kind is SourceKind.SUMMARY]
    if len(summaries) > 1:
        _map_large_blocks()
    for summary in summaries:                                   # other nodes' map steps
        theirs, their_digests, their_blocks = read_summary_blocks(summary.path)
        sources += theirs
        digests += their_digests
        blocks += their_blocks
    events, frames, declared, file_ranks, p2p = _collect(digests, [s for s in sources if s.error], blocks)
    errors = {s.path: s.error for s in sources if s.error}
    errors.update((d.result.source.path, d.result.error) for d in digests if d.result.error)
    errors.update(_rankless_dumps(digests, file_ranks, errors))
    warnings = [w for d in digests for w in d.warnings]
    result = analyse(events, frames, declared, select, ignore, sources=sources, errors=errors, file_ranks=file_ranks,
                     warnings=warnings, p2p=p2p)
    result.windowed, result.window_mb = windowed, window_mb
    result.head_lines = head_lines(digests)
    manifest_env = _manifest_env(sources)
    if manifest_env:                                   # else analyse's, from the events alone
        result.environment = settings([*stated(events), *manifest_env])
    result.windowed_dumps = {d.result.source.path: ev.data["first_entry"] for d in digests
                             for ev in d.result.events[:1] if ev.kind == "fr_dump" and "first_entry" in ev.data}
    if windowed:
        resolve_tail_lines(result, {s.path: s.window[1] for s in windowed if s.window})
    quote_cited_rows(result)
    return result


def _manifest_env(sources: list[Source]):
    """Each rank's recorded variables from the capture manifests among `sources` (not evidence of a rank by
    themselves: the world and the verdict do not see them)."""
    return [(rank, name, value, Evidence(src.path, line, f'"{name}": "{value}"'))
            for src in sources if os.path.basename(src.path) == MANIFEST_NAME and src.kind is SourceKind.UNKNOWN
            for rank, name, value, line in rank_env(src.path)]


def _divergence_at_window_start(d: Diagnosis) -> bool:
    """Does a group's first divergence sit at the first collective its windowed rows hold (so that it may have
    begun before the window)?"""
    div, colls = d.divergence, d.timelines.colls
    if div is None or div.empty or colls.empty:
        return False
    # numpy on four columns, a chunk of rows at a time: a 100,000-rank frame is not copied for this
    files = colls["file"]
    text_tails, dumps = (_codes_of(files, paths) for paths in ([s.path for s in d.windowed], d.windowed_dumps))
    codes, lines = files.array.codes, colls["line"].to_numpy()
    groups, seqs = colls["group"].array.codes, colls["seq"].to_numpy()
    first_in_window = np.full(len(colls["group"].cat.categories), np.iinfo(np.int64).max, np.int64)
    any_in_window = False
    for part in row_chunks(len(seqs)):
        in_window = dumps[codes[part]] | (text_tails[codes[part]] & (lines[part] >= TAIL_BASE))
        in_window &= groups[part] >= 0
        if in_window.any():
            any_in_window = True
            np.minimum.at(first_in_window, groups[part][in_window], seqs[part][in_window].astype(np.int64))
    if not any_in_window:
        return False
    none = np.iinfo(np.int64).max                                       # a group with no row in a window
    first = {group: seq for group, seq in zip(colls["group"].cat.categories, first_in_window.tolist(), strict=True)
             if seq != none}
    first_divergence = div.groupby("group", observed=True)["seq"].min()
    return any(int(seq) <= first[group] + 1 for group, seq in first_divergence.items() if group in first)


def _codes_of(column: pd.Series, values) -> np.ndarray:
    """A lookup by a categorical column's codes (code -1, a missing value, last): is the row's value in `values`?"""
    return np.append(column.cat.categories.isin(list(values)), False)


def _p2p_unmatched_in_window(d: Diagnosis) -> bool:
    """Does a P2P finding cite a windowed dump? Sends and recvs are paired by count, and two ranks' windows start
    at different points of their P2P history, so only whole dumps decide it."""
    return any(f.id == "C106" and any(ev.file in d.windowed_dumps for ev in f.evidence) for f in d.findings)


def resolve_tail_lines(d: Diagnosis, tails: dict[str, int]) -> None:
    """Turn the tail-relative line numbers (>= TAIL_BASE) that the report cites into true line numbers: the
    newlines before each cited file's tail are counted, once per file, only for the files cited (in threads:
    the counting runs in numpy, outside the GIL)."""
    cites = [ev for f in d.findings for ev in f.evidence] + [ev for st in d.ranks.values() for ev in st.evidence]
    files = sorted({ev.file for ev in cites if ev.line >= TAIL_BASE and ev.file in tails})
    if not files:
        return
    with ThreadPoolExecutor(max_workers=min(4, len(files))) as pool:
        found = pool.map(lambda path: resolve_tail_line(path, tails[path], TAIL_BASE), files)
        bases = {path: (None if true is None else true - TAIL_BASE) for path, true in zip(files, found, strict=True)}

    def fix(ev: Evidence) -> Evidence:
        base = bases.get(ev.file) if ev.line >= TAIL_BASE else None
        return ev if base is None else ev._replace(line=ev.line + base)

    for f in d.findings:
        f.evidence[:] = [fix(ev) for ev in f.evidence]
    for st in d.ranks.values():
        st.evidence[:] = [fix(ev) for ev in st.evidence]
    for frame in (d.divergence, d.timelines.colls):
        if frame is None or frame.empty:
            continue
        for path, base in bases.items():
            if base is not None:
                rows = (frame["file"] == path) & (frame["line"] >= TAIL_BASE)
                frame.loc[rows, "line"] = frame.loc[rows, "line"] + base


def quote_cited_rows(d: Diagnosis) -> None:
    """Give the citations of NCCL rows kept without their text (a file read whole, `map.RunColumns`) the lines
    they cite, read again from their files: a few lines, one pass per cited file up to its last cited line. A
    file gone since (a summary reduced on another node) keeps the row's own description."""
    colls, div = d.timelines.colls, d.divergence
    if colls.empty or "nccl" not in d.timelines.sources():
        return                     # no NCCL row, none kept without its text: nothing to quote
    cited: dict[str, set[int]] = {}
    for ev in (ev for f in d.findings for ev in f.evidence):
        cited.setdefault(ev.file, set()).add(ev.line)
    has_div = div is not None and not div.empty and "text" in div
    if has_div:
        for file, line, text in zip(div["file"], div["line"], div["text"], strict=True):
            if not isinstance(text, str):
                cited.setdefault(str(file), set()).add(int(line))
    textless = (colls["text"].isna() & (colls["source"] == "nccl")).to_numpy()
    lines = colls["line"].to_numpy()
    quotes: dict[tuple[str, int], str] = {}
    for file, wanted in cited.items():
        rows = textless & (colls["file"] == file).to_numpy()
        asked = np.fromiter(wanted, np.int64, len(wanted))
        found = asked[np.isin(asked, lines[rows])] if rows.any() else asked[:0]
        quotes.update(((file, no), text) for no, text in read_lines(file, found.tolist()).items())
    if not quotes:
        return
    for f in d.findings:
        f.evidence[:] = [ev._replace(text=quotes.get((ev.file, ev.line), ev.text)) for ev in f.evidence]
    if has_div:
        div["text"] = [text if isinstance(text, str) else quotes.get((str(file), int(line)), text)
                       for file, line, text in zip(div["file"], div["line"], div["text"], strict=True)]


def diagnose_events(events: Iterable[Event], select: Iterable[str] = (), ignore: Iterable[str] = ()) -> Diagnosis:
    """The same analysis over events already parsed (ranks filled): used by tests and other tools."""
    rows, rest = RowBuffer(), []
    events = list(events)
    comm_ids = comm_ids_of(events)
    for ev in events:
        if ev.kind != "fr_entry" and not (ev.kind == "coll" and add_event(rows, ev, comm_ids)):
            rest.append(ev)
    p2p = fr_event_rows(rows, events)
    rest.sort(key=lambda e: (e.rank if e.rank is not None else 1 << 30, e.file, e.line))
    return analyse(rest, [frame_of([rows])], declared_groups(rest), select, ignore, p2p=p2p)


def analyse(events: list[Event], frames: list[pd.DataFrame], declared: dict, select=(), ignore=(),
            sources: list[Source] | None = None, errors: dict[str, str] | None = None,
            file_ranks: dict[str, set[int]] | None = None, warnings: list[str] | None = None,
            p2p: list | None = None) -> Diagnosis:
    """timelines → detectors → verdict, for events and timeline rows with ranks filled.

    `errors` maps each file that could not be (fully) read to its error; `file_ranks` maps each file to the ranks
    its evidence carries; together they say which expected ranks are evidence gaps (world.py)."""
    errors = errors or {}
    seqless = NO_SEQ if seqless_timeouts_meet(events) else None
    for ev in events:
        if ev.kind in ("watchdog_timeout", "fingerprint_mismatch"):
            buf = RowBuffer()
            add_event(buf, ev, seqless=seqless)
            frames = [*frames, frame_of([buf])]
    timelines = build_timelines(frames, declared)
    trim_heap()                   # each step's row-sized temporaries, freed into the heap's holes, go back
    outliers = find_outliers(timelines.colls)
    trim_heap()
    world = expected_world(events, _timeline_ranks(timelines), sources or (), errors, file_ranks)
    store_gone = store_teardown_errors(events)
    ranks = rank_states(events, world.expected, store_gone)
    ctx = Context(events, timelines, outliers, ranks, sorted(ranks), expected=world, p2p=p2p or [],
                  store_gone=store_gone)
    entries = selected(select, ignore)
    report = run_detectors(ctx, entries)
    missing = [text for need, text in _EVIDENCE_NAMES.items() if not ctx.has(need)]
    cascade = [st.rank for st in ranks.values() if st.end and not st.cause]
    root = [ev for ev in ctx.of("child_failed") if ev.data.get("root_cause")]
    findings = reported(report.findings)
    if findings:
        verdict = decide(findings, cascade, root, missing)
    else:
        health = assess_health(ctx, entries, report, warnings or ())
        verdict = healthy_or_inconclusive(health.healthy, health.confidence, health.shown, health.why_not,
                                          {**world.gaps, **world.partial})
    result = Diagnosis(verdict, sorted(findings, key=lambda f: (f.id, f.ranks, f.group or "")), timelines,
                       ranks, first_divergence(outliers), sources or [], report.skipped, missing,
                       list(errors.values()), world, [*(warnings or ()), *report.warnings])
    result.explaining, result.quiet_groups = explaining_groups(ctx, verdict.culprit_ranks)
    result.environment = settings(stated(events))
    result.group_sizes = stated_group_sizes(events, timelines.members, world.size)
    result.group_descs = ctx.group_descs
    return result


def _collect(digests: list[Digest], unread: Iterable[Source] = (), blocks: Iterable[RowBlock] = ()):
    """Recover ranks across files, then fill the rows' missing ranks from the same (host, pid) map.

    Also returns, per file, the ranks its evidence carries (a file that could not be read at all gets the rank
    its name or its (host, pid) names, so that its rank is an evidence gap). `blocks` are summaries' row blocks
    (summary.RowBlock): one part of the frame each, where nothing needs their digests' rows apart."""
    results = [d.result for d in digests]
    hints = assign_ranks(results)
    packs: list[dict] = []
    declared: dict[str, dict] = {}
    file_ranks: dict[str, set[int]] = {}
    p2p: list = []
    split = split_by_membership(d.declared for d in digests)
    block_ranks: dict[int, set] = {}                  # id(digest) -> the ranks of its rows in a whole block
    for block in blocks:
        spans = _whole_block_ranks(block, split)
        if spans is None:
            block.share()                             # its digests' rows are relabelled apart, or out of order
            continue
        block_ranks.update(spans)
        packs.append(block.columns)
    for d in digests:
        _label_split_groups(d, split)
        if d.p2p:                                             # a dump's sends and recvs: (rank, file, *op), in C
            rank = next((ev.rank for ev in d.result.events if ev.kind == "fr_dump"), None)
            p2p.extend(map((rank, d.result.source.path).__add__, d.p2p))
        ranks = {ev.rank for ev in d.result.events if ev.rank is not None}
        has_rows = bool(d.rows) or id(d) in block_ranks
        if d.rows:
            if type(d.rows["rank"]) is list:                  # not packed yet: some ranks may still be missing
                _fill_row_ranks(d.rows["rank"], d, hints)
                d.rows["rank"] = ("num", _rank_array(d.rows["rank"]))
            packs.append(d.rows)
            ranks |= _ranks_in(d.rows["rank"][1])
        elif has_rows:
            ranks |= block_ranks[id(d)]
        ranks = ranks or _named_rank(d.result.source, hints)
        if not ranks and (has_rows or any(ev.kind != "unparsed" for ev in d.result.events)):
            ranks = {UNKNOWN_RANK}                            # evidence whose rank nothing names
        file_ranks[d.result.source.path] = ranks
        for group, members in d.declared.items():
            declared.setdefault(group, {})[members] = None             # distinct ones first: no 16k x 16k
    for src in unread:
        file_ranks[src.path] = _named_rank(src, hints)
    events = sorted((ev for r in results for ev in r.events),
                    key=lambda e: (e.rank if e.rank is not None else 1 << 30, e.file, e.line))
    packs.sort(key=_first_rank)    # FR dumps of one PG then come out sorted: build_timelines need not sort them
    members = {group: set().union(*map(as_set, distinct)) for group, distinct in declared.items()}
    frame = frame_from_packed(packs, consume=True, after_column=trim_heap)
    for d in digests:
        d.rows = {}                # the frame holds them now: a 100,000-rank reduce must not hold them twice
    trim_heap()
    return events, [frame], members, file_ranks, p2p


def _whole_block_ranks(block: RowBlock, split: dict[str, bool]) -> dict[int, set] | None:
    """{id(digest): the ranks of its rows} for a row block the frame can take whole: its rows in rank order (as
    the packs are sorted) and no digest of it with a split group to relabel; else None."""
    if any(split.get(name) for d, _, _ in block.spans for name in d.declared):
        return None
    ranks = block.columns["rank"][1] if block.columns.get("rank", ("",))[0] == "num" else None
    if ranks is None or ranks.dtype.kind not in "iu" or (len(ranks) > 1 and (ranks[1:] < ranks[:-1]).any()):
        return None
    spans = [(d, start, end) for d, start, end in block.spans if end > start]
    out: dict[int, set] = {id(d): set() for d, _, _ in block.spans}
    if spans:
        starts = np.array([start for _, start, _ in spans])
        ends = np.array([end for _, _, end in spans])
        lowest, highest = ranks[starts], ranks[ends - 1]        # sorted: a span's first and last rows bound it
        for (d, start, end), low, high in zip(spans, lowest.tolist(), highest.tolist(), strict=True):
            out[id(d)] = {low} if low == high else {int(r) for r in np.unique(ranks[start:end])}
    return out


def _map_large_blocks() -> None:
    """Have glibc map every allocation of 64 KB or more on its own (a summary's row block, a column): freed, it
    goes back to the system at once instead of raising the heap a 100,000-rank reduce never shrinks again."""
    mallopt(M_MMAP_THRESHOLD, 64 << 10)                         # fixed: no dynamic raise (not glibc: no-op)


def _rankless_dumps(digests: list[Digest], file_ranks: dict[str, set[int]], errors: dict[str, str]) -> dict:
    """Flight-recorder dumps whose rank nothing names: a dump holds no rank, torch puts it in the file name
    (`<TORCH_FR_DUMP_TEMP_FILE><rank>`), and a renamed dump or TORCH_FR_DUMP_DYNAMIC_FILE_NAME loses it."""
    return {path: f"{path}: flight-recorder dump names no rank (torch writes none inside; name the file "
                  "`<prefix><rank>`, e.g. nccl_trace_rank_3)"
            for d in digests if d.result.source.kind is SourceKind.FLIGHT_RECORDER
            for path in [d.result.source.path] if file_ranks.get(path) == {UNKNOWN_RANK} and path not in errors}


def _label_split_groups(d: Digest, split: dict[str, bool]) -> None:
    """One PG name, several member sets (split groups): this dump's groups get their membership label."""
    names = {name: label(name, members) for name, members in d.declared.items() if split.get(name)}
    if not names:
        return
    if d.rows:
        d.rows["group"] = relabel(names, d.rows["group"])
    d.declared = {names.get(name, name): members for name, members in d.declared.items()}
    d.p2p = [op._replace(pg=names.get(op.pg, op.pg)) for op in d.p2p]


def _named_rank(src: Source, hints) -> set[int]:
    if src.rank is not None:
        return {src.rank}
    rank = hints.rank_of(src.host, src.pid, src.local_rank) if hints is not None else None
    return {rank} if rank is not None else set()


def _first_rank(pack: dict) -> float:
    ranks = pack["rank"][1]
    return float(ranks[0]) if len(ranks) and ranks[0] == ranks[0] else float("inf")


def _ranks_in(column: np.ndarray) -> set[int]:
    """The ranks of a file's rows: one, for a dump (checked without the sort np.unique does)."""
    if len(column) and column[0] == column[0] and (column == column[0]).all():
        return {int(column[0])}
    return {int(r) for r in np.unique(column) if r == r}


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


def _timeline_ranks(timelines: Timelines) -> list[int]:
    """Ranks with a timeline row of their own (a group's declared members are claims, not evidence)."""
    return [] if timelines.empty else [int(r) for r in timelines.colls["rank"].unique()]
