"""`ncclf parse --format table` and `--inventory`: rich tables over parsed events and files."""
from __future__ import annotations

import json
import os
from collections import Counter
from typing import Iterable

from rich.console import Console
from rich.table import Table

from ..model import Event, rank_span
from ..pipeline.collect import EventsPreview, FileSummary

# The fields shown for each kind in the events table (everything else is in --format jsonl).
_KEY_FIELDS = {
    "coll": ("op", "opcount", "count", "dtype", "redop", "root", "peer", "nranks"),
    "comm_init": ("phase", "rank", "nranks", "comm_id", "bus_id"),
    "ring": ("channel", "order"),
    "transport": ("channel", "from_rank", "to_rank", "transport", "detail"),
    "nccl_version": ("version",),
    "fr_entry": ("pg_name", "seq", "op", "state", "in_sizes", "in_dtypes"),
}


def _summary_of(event: Event) -> str:
    keys = _KEY_FIELDS.get(event.kind)
    if keys is None:
        keys = tuple(k for k, v in event.data.items() if isinstance(v, (str, int, float)) and v not in ("", None))[:5]
    parts = [f"{k}={_short(event.data.get(k))}" for k in keys if event.data.get(k) is not None]
    return " ".join(parts) if parts else event.text[:100]


def _short(value) -> str:
    text = value if isinstance(value, str) else json.dumps(value)
    return text if len(text) <= 60 else text[:57] + "..."


def render_events_table(run: EventsPreview, console: Console) -> None:
    table = Table(title="events", show_lines=False)
    for col in ("file:line", "rank", "source", "kind", "fields"):
        table.add_column(col, overflow="fold")
    for ev in run.first:
        table.add_row(f"{ev.file}:{ev.line}", "-" if ev.rank is None else str(ev.rank), ev.source, ev.kind,
                      _summary_of(ev))
    console.print(table)
    render_summary(run, console, len(run.first))


def render_summary(run: EventsPreview, console: Console, shown: int | None = None) -> None:
    kinds: Counter = Counter()
    ranks: set[int] = set()
    for s in run.summaries:
        kinds.update(s.kinds)
        ranks |= {r for r in s.ranks if r is not None}
    no_rank = sum(s.missing_rank for s in run.summaries)
    table = Table(title="summary")
    table.add_column("kind")
    table.add_column("events", justify="right")
    for kind, n in sorted(kinds.items(), key=lambda kv: (-kv[1], kv[0])):
        table.add_row(kind, str(n))
    console.print(table)
    total = sum(kinds.values())
    skipped = sum(1 for s in run.sources if s.kind.value == "unknown")
    console.print(f"files: {len(run.summaries)} parsed, {skipped} skipped   events: {total}"
                  + (f" (showing {shown})" if shown is not None and shown < total else ""))
    console.print(f"unparsed lines: {kinds.get('unparsed', 0)}")
    if kinds.get("unknown_message"):
        console.print(f"lines that look like errors but match no catalogue message: {kinds['unknown_message']} "
                      "(kind unknown_message; see `ncclf explain --messages`)")
    console.print(f"ranks found: {rank_span(ranks, ',') or 'none'}"
                  + (f"   events with unknown rank: {no_rank}" if no_rank else ""))
    for s in run.summaries:
        if s.error:
            console.print(f"[yellow]warning:[/] {s.error}")
    for conflict in run.hints.conflicts:
        console.print(f"[yellow]rank conflict:[/] {conflict}")



def inventory_rows(rows: Iterable[FileSummary]) -> list[dict]:
    return [{
        "file": r.source.path, "kind": r.source.kind.value,
        "ranks": sorted(r.ranks) if r.ranks else ([r.source.rank] if r.source.rank is not None else []),
        "hosts": sorted(r.hosts), "pids": sorted(r.pids), "lines": r.lines, "events": r.events,
        "unparsed": r.unparsed, "skipped": r.source.kind.value == "unknown",
        "note": r.error or (r.source.reason if r.source.kind.value == "unknown" else ""),
        "rank_known": bool(r.ranks) or r.source.rank is not None,
    } for r in rows]


_NODE_LEVEL = {"kernel", "slurm"}   # evidence about a node or job, not one rank


def render_inventory(rows: list[dict], console: Console) -> None:
    root = os.path.commonpath([os.path.dirname(r["file"]) or "." for r in rows]) if rows else ""
    table = Table(title=f"inventory of {root or '.'}/", title_justify="left")
    table.add_column("file", no_wrap=True)
    for col in ("kind", "rank(s)", "host", "pid(s)", "lines", "events", "unparsed", "note"):
        table.add_column(col, overflow="fold", justify="right" if col in ("lines", "events", "unparsed") else "left")
    for r in rows:
        shown = os.path.relpath(r["file"], root) if root else r["file"]
        rank_text = (rank_span(r["ranks"]) if r["ranks"] else "-" if r["skipped"]
                     else "node-level" if r["kind"] in _NODE_LEVEL else "[yellow]unknown[/]")
        table.add_row(shown, "skipped" if r["skipped"] else r["kind"], rank_text, ",".join(r["hosts"]) or "-",
                      rank_span(r["pids"]) if len(r["pids"]) < 2 else ",".join(map(str, r["pids"][:4])),
                      str(r["lines"]), str(r["events"]), str(r["unparsed"]), r["note"])
    console.print(table)
