"""NCCL Inspector output (`NCCL_INSPECTOR_DUMP_DIR`, NCCL's `ext-profiler/inspector` plugin) → `coll` events.

The plugin writes one JSON object per collective per communicator, one after another (pretty-printed or one per
line), as its README shows:

    {"header": {"id": "0x7f8c496ae9f661", "rank": 2, "n_ranks": 8, "nnodes": 1},
     "metadata": {"inspector_output_format_version": "v4.0", "dump_timestamp_us": ..., "hostname": ..., "pid": ...},
     "coll_perf": {"coll": "AllReduce", "coll_sn": 1407, "coll_msg_size_bytes": ..., "coll_exec_time_us": ...,
                   "coll_algobw_gbs": ..., "coll_busbw_gbs": ...,
                   "event_trace_ts": {"coll_start_ts": <µs>, "coll_stop_ts": <µs>, ...}}}   # with DUMP_VERBOSE=1

Each record becomes a `coll` event of the communicator `header.id` at seq `coll_sn`; its time is
`coll_start_ts` (verbose dumps only: the plain ones carry the dump time, which says nothing about arrival), so
the records feed the arrival skew of stragglers (S701). Sizes are bytes (`bytes`), not elements: `count` stays
empty. `line` is the line the record starts on.
"""
from __future__ import annotations

import json
from typing import Iterator

from ..errors import BadInput
from ..model import Event, Source
from .lines import iter_blocks
from .nccl_fast import normalise_op

MAX_BYTES = 512 * 1024 * 1024          # a bigger file is read up to here (records are ~300-500 bytes each)


def read_inspector(source: Source) -> Iterator[Event]:
    decoder = json.JSONDecoder()
    text, line, read = "", 1, 0              # `line`: the line number at text[offset]
    for block in iter_blocks(source.path):
        read += len(block)
        text += block
        offset = 0
        while True:
            start = text.find("{", offset)
            stop = len(text) if start < 0 else start
            line += text.count("\n", offset, stop)
            offset = stop
            if start < 0:
                break
            try:
                record, end = decoder.raw_decode(text, start)
            except json.JSONDecodeError:
                break                           # an object cut by the block's end: wait for the next block
            event = _event(record, source.path, line)
            if event is not None:
                yield event
            line += text.count("\n", start, end)
            offset = end
        text = text[offset:]
        if read > MAX_BYTES:
            raise BadInput(f"{source.path}: NCCL Inspector output larger than {MAX_BYTES >> 20} MB, read in part")


def _object(record: dict, key: str) -> dict:
    """record[key] when it is a JSON object, else an empty one."""
    value = record.get(key)
    return value if type(value) is dict else {}


def _event(record: object, path: str, line: int) -> Event | None:
    if type(record) is not dict:
        return None
    head, meta, perf = (_object(record, k) for k in ("header", "metadata", "coll_perf"))
    op, seq = perf.get("coll"), perf.get("coll_sn")
    if type(op) is not str or type(seq) is not int:
        return None
    trace = _object(perf, "event_trace_ts")
    start = trace.get("coll_start_ts")
    seconds = start / 1e6 if (type(start) is int or type(start) is float) and start > 0 else None
    rank = head.get("rank") if type(head.get("rank")) is int else None
    pid = meta.get("pid") if type(meta.get("pid")) is int else None
    comm = head.get("id") if type(head.get("id")) is str else None
    data = {"op": normalise_op(op), "op_raw": op, "opcount": seq, "count": None, "dtype": None,
            "nranks": head.get("n_ranks"), "bytes": perf.get("coll_msg_size_bytes"),
            "exec_time_us": perf.get("coll_exec_time_us"), "busbw_gbs": perf.get("coll_busbw_gbs"),
            "inspector": True}
    text = (f"NCCL Inspector: rank {rank} {op} coll_sn {seq} {perf.get('coll_msg_size_bytes')} bytes "
            f"{perf.get('coll_exec_time_us')} us")
    return Event("coll", "nccl", path, line, rank, meta.get("hostname") if type(meta.get("hostname")) is str else None,
                 pid, comm=comm, time=seconds,
                 text=text, data=data)
