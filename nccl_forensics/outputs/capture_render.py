"""Text for `ncclf capture` and `ncclf run`: what was found, what each bundle holds, what failed and why."""
from __future__ import annotations

import errno
import os
from collections import Counter

from rich.console import Console
from rich.markup import escape

from ..model import rank_span

_KIND_NAMES = {      # in the order they are listed
    "py-spy": "py-spy", "flight_recorder": "flight recorder (the job's dumps)",
    "debug_server_fr_trace_json": "flight recorder (debug server)", "debug_server_dump_traceback": "stacks (debug server)",
    "nccl_log": "NCCL debug files", "torchrun_logs": "torchrun --log-dir files", "console": "console files",
    "kernel": "dmesg.txt",
}


def render_found(found, host: str, console: Console) -> None:
    jobs = found.jobs
    ranks = sum(len(j.ranks) for j in jobs)
    _line(console, f"found {len(jobs)} job{'s' if len(jobs) != 1 else ''} on {host} ({ranks} rank process"
                   f"{'es' if ranks != 1 else ''})")
    for job in jobs:
        pids = ",".join(str(r.pid) for r in job.ranks)
        known = [r.rank for r in job.ranks if r.rank is not None]
        agent = f"; launcher pid {job.agent.pid}" if job.agent else ""
        _line(console, f"  {job.label}: world size {job.world_size or '?'}, ranks {rank_span(known) or '?'} here "
                       f"(pids {pids}){agent}")
    for note in found.notes:
        _line(console, f"  {note}")
    if found.refused:
        _line(console, f"  {len(found.refused)} Python process(es) not readable (another user's): pids "
                       f"{','.join(str(p) for p, _ in found.refused[:10])}{'…' if len(found.refused) > 10 else ''}")


def render_bundle(bundle, console: Console) -> None:
    doc = bundle.manifest
    counts = Counter(entry["kind"] for entry in doc["captured"])
    order = list(_KIND_NAMES)
    kinds = sorted(counts, key=lambda k: (order.index(k) if k in order else len(order), k))
    held = ", ".join(f"{_KIND_NAMES.get(k, k)} {counts[k]}" for k in kinds)
    _line(console, f"bundle {bundle.path} ({doc.get('elapsed_s', 0):.1f} s): {held or 'node context only'}")
    no_pipe = sorted(e["rank"] for e in doc["failed"] if _no_dump_pipe(e))
    for entry in doc["failed"]:
        if _no_dump_pipe(entry):
            continue
        who = f"rank {entry['rank']}" if "rank" in entry else ("pid " + str(entry["pid"]) if "pid" in entry else "")
        _line(console, f"  failed: {entry['kind']}{' ' + who if who else ''}: {entry.get('reason', '')}")
    if no_pipe:
        _line(console, f"  note: no flight-recorder dump pipe for rank{'s' if len(no_pipe) > 1 else ''} "
                       f"{rank_span(no_pipe)}: torch opens one only for NCCL process groups with "
                       "TORCH_NCCL_DEBUG_INFO_PIPE_FILE set (normal for gloo)")
    for note in doc["notes"]:
        _line(console, f"  note: {note}")


def _no_dump_pipe(entry: dict) -> bool:
    """A rank without a dump pipe (the pipe file does not exist): not a failure, the job never asked for one."""
    return (entry.get("kind") == "fr_pipe" and "rank" in entry
            and str(entry.get("reason", "")).endswith(os.strerror(errno.ENOENT)))


def render_capture(result, host: str, console: Console) -> None:
    render_found(result.found, host, console)
    for bundle in result.bundles:
        render_bundle(bundle, console)


def _line(console: Console, text: str) -> None:
    console.print(escape(text), highlight=False, soft_wrap=True)
