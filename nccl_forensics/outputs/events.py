"""Events → jsonl / csv / a rich summary table. Output only; nothing here decides anything.

`write_jsonl` prints exactly `json.dumps(event.to_dict())` per event (the `ncclf parse --format jsonl`
contract); COLL events, which dominate big logs, are encoded by hand, which is several times faster
(tests/sources/test_nccl_differential.py checks the two are byte-identical).
"""
from __future__ import annotations

import csv
import json
from collections import Counter
from typing import IO, Callable, Iterable

from rich.table import Table

from ..hygiene import csv_cell
from ..model import CollRun, Event, rank_span

try:
    from _json import (
        encode_basestring_ascii as _quote,  # the C encoder json.dumps itself uses
    )
except ImportError:  # pragma: no cover - pure-Python json
    from json.encoder import encode_basestring_ascii as _quote

# What JSON's ASCII encoder escapes, "\n" aside (a block's line separator): a block of lines without any is quoted
# line by line as it stands (`_verbatim`).
_ESCAPED = tuple(c for c in map(chr, range(128)) if c != "\n" and _quote(c) != f'"{c}"')
COMMON = ("kind", "source", "file", "line", "rank", "host", "pid", "tid", "device", "comm", "time")
CSV_COLUMNS = (*COMMON, "data", "text")
COLL_KEYS = ["op", "op_raw", "opcount", "count", "dtype", "dtype_code", "redop", "redop_code", "root", "peer",
             "comm_ptr", "nranks", "stream", "sendbuff", "recvbuff", "global_rank"]


class _Quoted(dict):
    """A memo of JSON-quoted strings (file names, hosts, op and dtype names repeat millions of times)."""

    def __missing__(self, key):
        value = "null" if key is None else _quote(key)
        if len(self) < 100_000:
            self[key] = value
        return value


def _num(value) -> str:
    if value is None:
        return "null"
    if value is True or value is False:
        return "true" if value else "false"
    return repr(value) if isinstance(value, float) else str(value)


class _Numbers(dict):
    """A memo of JSON ints and null (ranks, pids, devices, roots repeat); only ever indexed with an int or
    None (checked first: True == 1 would share a key with 1)."""

    def __missing__(self, key):
        value = "null" if key is None else str(key)
        if len(self) < 100_000:
            self[key] = value
        return value


_INT_OR_NONE = frozenset({int, type(None)})
_INF = float("inf")


def _coll_json(ev: Event, q: _Quoted, n: _Numbers, parts: dict) -> str | None:
    """The json.dumps(ev.to_dict()) line of a COLL event whose values have the types the parsers give them
    (ints, finite float time, strings); None for anything else (the caller then uses json.dumps).
    `parts` memoises the JSON of the fields that repeat line after line (process, op, codes, comm)."""
    d = ev.data
    if list(d) != COLL_KEYS:
        return None
    op, op_raw, opc, cnt, dt, dtc, ro, roc, root, peer, cp, nr, st, sb, rb, gr = d.values()
    line, rank, pid, tid, dev, tm = ev.line, ev.rank, ev.pid, ev.tid, ev.device, ev.time
    nullable = _INT_OR_NONE
    if not (type(opc) is int is type(cnt) is type(dtc) is type(roc) is type(nr) is type(line)
            and type(rank) in nullable and type(pid) in nullable and type(tid) in nullable
            and type(dev) in nullable and type(root) in nullable and type(peer) in nullable
            and type(gr) in nullable and (tm is None or type(tm) is float and -_INF < tm < _INF)):
        return None
    key = (ev.source, ev.file, rank, ev.host, pid, tid, dev, ev.comm, op, op_raw, dt, dtc, ro, roc, root, peer,
           cp, nr, st, gr)
    part = parts.get(key)
    if part is None:
        part = parts[key] = _coll_parts(key, q, n)
        if len(parts) > 10_000:
            parts.clear()
    return (f'{part[0]}{line}{part[1]}{"null" if tm is None else repr(tm)}{part[2]}{opc}, "count": {cnt}'
            f'{part[3]}{_quote(sb)}, "recvbuff": {_quote(rb)}{part[4]}{_quote(ev.text)}}}\n')


def _coll_parts(key: tuple, q: _Quoted, n: _Numbers) -> tuple[str, ...]:
    """The constant stretches of a COLL line between its per-line values (line, time, opcount, count,
    sendbuff, recvbuff, text)."""
    src, file, rank, host, pid, tid, dev, comm, op, op_raw, dt, dtc, ro, roc, root, peer, cp, nr, st, gr = key
    return (f'{{"kind": "coll", "source": {q[src]}, "file": {q[file]}, "line": ',
            f', "rank": {n[rank]}, "host": {q[host]}, "pid": {n[pid]}, "tid": {n[tid]}, "device": {n[dev]}, '
            f'"comm": {q[comm]}, "time": ',
            f', "op": {q[op]}, "op_raw": {q[op_raw]}, "opcount": ',
            f', "dtype": {q[dt]}, "dtype_code": {dtc}, "redop": {q[ro]}, "redop_code": {roc}, "root": {n[root]}, '
            f'"peer": {n[peer]}, "comm_ptr": {q[cp]}, "nranks": {nr}, "stream": {q[st]}, "sendbuff": ',
            f', "global_rank": {n[gr]}, "text": ')


class JsonlEncoder:
    """Events and CollRuns → jsonl lines, keeping its memos (quoted strings, numbers, COLL line parts) across
    batches."""

    def __init__(self) -> None:
        self.quoted, self.numbers = _Quoted(), _Numbers()
        self.parts: dict = {}                  # _coll_json's memo of COLL line parts

    def lines(self, events: Iterable[Event | CollRun]) -> Iterable[str]:
        q, n, parts, dumps = self.quoted, self.numbers, self.parts, json.dumps
        for ev in events:
            if isinstance(ev, CollRun):
                yield from self.run_lines(ev)
                continue
            line = _coll_json(ev, q, n, parts) if ev.kind == "coll" else None
            yield line if line is not None else dumps(ev.to_dict(), default=str) + "\n"

    def chunks(self, batch: Iterable[Event | CollRun]) -> Iterable[str]:
        """What `lines` yields, a run's lines joined 100 at a time: fewer writes, and pieces small enough
        (~50 kB) for malloc to reuse, where one multi-MB string per run costs fresh pages each time."""
        for item in batch:
            if type(item) is CollRun:
                lines = self.run_lines(item)
                yield from ("".join(lines[i:i + 100]) for i in range(0, len(lines), 100))
            else:
                yield from self.lines([item])

    def run_lines(self, run: CollRun) -> list[str]:
        """The lines of `run.events()`, built from the run's columns (its values have the parser's types;
        sendbuff/recvbuff are `0x<hex>` or `(nil)`, which JSON quotes as they are)."""
        by_context = {ctx: self._context_parts(run.file, ctx) for ctx in set(run.contexts)}
        block = getattr(run.texts, "block", None)
        quote = _as_it_stands if block is not None and _verbatim(block) else _quote
        return [f'{p0}{no}{p1}{"null" if tm is None else repr(tm)}{p2}{opc}, "count": {cnt}{p3}"{sb}", '
                f'"recvbuff": "{rb}"{p4}{quote(text)}}}\n'
                for (p0, p1, p2, p3, p4), no, tm, opc, cnt, sb, rb, text in zip(
                    map(by_context.__getitem__, run.contexts), run.lines, run.times, run.opcounts, run.counts,
                    run.sendbuffs, run.recvbuffs, run.texts, strict=True)]

    def _context_parts(self, file: str, ctx) -> tuple[str, ...]:
        d = ctx.data
        key = ("nccl", file, ctx.rank, ctx.host, ctx.pid, ctx.tid, ctx.device, ctx.comm, d["op"], d["op_raw"],
               d["dtype"], d["dtype_code"], d["redop"], d["redop_code"], d["root"], d["peer"], d["comm_ptr"],
               d["nranks"], d["stream"], d["global_rank"])
        part = self.parts.get(key)
        if part is None:
            if len(self.parts) > 10_000:
                self.parts.clear()
            part = self.parts[key] = _coll_parts(key, self.quoted, self.numbers)
        return part


def _verbatim(block: str) -> bool:
    """JSON quotes every line of `block` as it stands: ASCII without a character its encoder escapes (one C scan
    per such character costs an eighth of quoting each line)."""
    return block.isascii() and not any(c in block for c in _ESCAPED)


def _as_it_stands(text: str) -> str:
    return f'"{text}"'


def jsonl_lines(events: Iterable[Event]) -> Iterable[str]:
    return JsonlEncoder().lines(events)


def write_jsonl(events: Iterable[Event], fh: IO[str]) -> int:
    """One JSON object per line; returns the number written."""
    n = 0
    chunk: list[str] = []
    for line in jsonl_lines(events):
        chunk.append(line)
        if len(chunk) >= 4096:
            fh.write("".join(chunk))
            n += len(chunk)
            chunk.clear()
    fh.write("".join(chunk))
    return n + len(chunk)


def expand(items: Iterable[Event | CollRun]) -> Iterable[Event]:
    """Events, with each CollRun expanded to its events."""
    for item in items:
        if isinstance(item, CollRun):
            yield from item.events()
        else:
            yield item


def csv_row(ev: Event) -> list:
    """One event's cells; text cells that a spreadsheet would run as a formula are neutralised (hygiene)."""
    return [csv_cell(c) for c in (ev.kind, ev.source, ev.file, ev.line, ev.rank, ev.host, ev.pid, ev.tid, ev.device,
                                  ev.comm, ev.time, json.dumps(ev.data, sort_keys=True, default=str), ev.text)]


def write_csv(events: Iterable[Event], fh: IO[str], header: bool = True) -> int:
    """Common fields as columns, kind-specific fields as one JSON `data` column; returns rows written."""
    out = csv.writer(fh)
    if header:
        out.writerow(CSV_COLUMNS)
    n = 0
    for ev in events:
        out.writerow(csv_row(ev))
        n += 1
    return n


def writer_for(fmt: str, fh: IO[str]) -> Callable[[list[Event]], None]:
    """A batch writer for `collect.spool_events`: jsonl, or csv with the header first."""
    if fmt == "jsonl":
        encoder = JsonlEncoder()
        return lambda batch: fh.writelines(encoder.chunks(batch))
    if fmt == "csv":
        out = csv.writer(fh)
        out.writerow(CSV_COLUMNS)
        return lambda batch: out.writerows(csv_row(ev) for ev in expand(batch))
    raise ValueError(f"unknown event format {fmt!r}")


def summarize(events: Iterable[Event]) -> dict:
    """Events per kind, the unparsed count and the ranks found."""
    kinds: Counter = Counter()
    ranks: set[int] = set()
    for ev in events:
        kinds[ev.kind] += 1
        if ev.rank is not None:
            ranks.add(ev.rank)
    return {"kinds": dict(sorted(kinds.items())), "events": sum(kinds.values()),
            "unparsed": kinds.get("unparsed", 0), "ranks": sorted(ranks)}


def summary_table(summary: dict) -> Table:
    table = Table(title="Summary", show_header=True, header_style="bold")
    table.add_column("kind")
    table.add_column("events", justify="right")
    for kind, n in summary["kinds"].items():
        table.add_row(kind, str(n), style="red" if kind == "unparsed" and n else None)
    table.add_section()
    table.add_row("total", str(summary["events"]))
    table.add_row("unparsed", str(summary["unparsed"]))
    table.add_row("ranks found", rank_span(summary["ranks"]) or "none")
    return table
