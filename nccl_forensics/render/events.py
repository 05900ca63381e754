"""Events → jsonl / csv / a rich summary table. Output only; nothing here decides anything.

`write_jsonl` prints exactly `json.dumps(event.to_dict())` per event (the `ncclf parse --format jsonl`
contract); COLL events, which dominate big logs, are encoded by hand, which is several times faster
(tests/parse/test_nccl_differential.py checks the two are byte-identical).
"""
from __future__ import annotations

import csv
import json
from collections import Counter
from typing import IO, Callable, Iterable

from rich.table import Table

from ..model import Event

try:
    from _json import encode_basestring_ascii as _quote  # the C encoder json.dumps itself uses
except ImportError:  # pragma: no cover - pure-Python json
    from json.encoder import encode_basestring_ascii as _quote

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


def _coll_json(ev: Event, q: _Quoted) -> str | None:
    d = ev.data
    if list(d) != COLL_KEYS:
        return None
    return (f'{{"kind": "coll", "source": {q[ev.source]}, "file": {q[ev.file]}, "line": {ev.line}, '
            f'"rank": {_num(ev.rank)}, "host": {q[ev.host]}, "pid": {_num(ev.pid)}, "tid": {_num(ev.tid)}, '
            f'"device": {_num(ev.device)}, "comm": {q[ev.comm]}, "time": {_num(ev.time)}, '
            f'"op": {q[d["op"]]}, "op_raw": {q[d["op_raw"]]}, "opcount": {_num(d["opcount"])}, '
            f'"count": {_num(d["count"])}, "dtype": {q[d["dtype"]]}, "dtype_code": {_num(d["dtype_code"])}, '
            f'"redop": {q[d["redop"]]}, "redop_code": {_num(d["redop_code"])}, "root": {_num(d["root"])}, '
            f'"peer": {_num(d["peer"])}, "comm_ptr": {q[d["comm_ptr"]]}, "nranks": {_num(d["nranks"])}, '
            f'"stream": {q[d["stream"]]}, "sendbuff": {q[d["sendbuff"]]}, "recvbuff": {q[d["recvbuff"]]}, '
            f'"global_rank": {_num(d["global_rank"])}, "text": {_quote(ev.text)}}}\n')


def jsonl_lines(events: Iterable[Event], quoted: _Quoted | None = None) -> Iterable[str]:
    q = quoted if quoted is not None else _Quoted()
    dumps = json.dumps
    for ev in events:
        line = _coll_json(ev, q) if ev.kind == "coll" else None
        yield line if line is not None else dumps(ev.to_dict(), default=str) + "\n"


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


def csv_row(ev: Event) -> list:
    return [ev.kind, ev.source, ev.file, ev.line, ev.rank, ev.host, ev.pid, ev.tid, ev.device, ev.comm, ev.time,
            json.dumps(ev.data, sort_keys=True, default=str), ev.text]


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
        quoted = _Quoted()
        return lambda batch: fh.write("".join(jsonl_lines(batch, quoted)))
    if fmt == "csv":
        out = csv.writer(fh)
        out.writerow(CSV_COLUMNS)
        return lambda batch: out.writerows(csv_row(ev) for ev in batch)
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
    table.add_row("ranks found", _ranges(summary["ranks"]) or "none")
    return table


def _ranges(ranks: list[int]) -> str:
    """[0, 1, 2, 3, 7] → '0-3, 7'."""
    out: list[str] = []
    for r in ranks:
        if out and r == last + 1:
            start = out[-1].split("-")[0]
            out[-1] = f"{start}-{r}"
        else:
            out.append(str(r))
        last = r
    return ", ".join(out)
