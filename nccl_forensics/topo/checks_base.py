"""Shared helpers of the topology checks: building a warning, naming ranks, channels and processes."""
from __future__ import annotations

from typing import Callable, Iterable

from ..model import Evidence, ranks_text
from ..model import rank_span as _ranks
from .model import Communicator, Process, TopoWarning

__all__ = ["MAX_EVIDENCE", "_warn", "_label", "_channels", "_ranks", "_each", "_env", "_processes",
           "_rank_process", "_ranks_of"]

MAX_EVIDENCE = 8


def _warn(id_name: str, message: str, evidence: Iterable[Evidence | None], comms: Iterable[Communicator],
          ranks: Iterable[int] = (), verdict_class: str = "none", per_host: bool = False,
          channels: Iterable[int] = ()) -> TopoWarning:
    """A warning citing at most MAX_EVIDENCE lines; with `per_host`, one line of each shape per host
    (the same NET/IB line from 8 processes of one node is cited once)."""
    id_, _, name = id_name.partition(" ")
    seen: list[Evidence] = []
    shapes: set[tuple[str, str]] = set()
    for ev in evidence:
        if ev is None or ev in seen or len(seen) >= MAX_EVIDENCE:
            continue
        shape = _shape(ev.text) if per_host else (ev.file, str(ev.line))
        if shape not in shapes:
            shapes.add(shape)
            seen.append(ev)
    return TopoWarning(id_, name, message, seen, [c.comm_id for c in comms], sorted(set(ranks)), verdict_class,
                       sorted(set(channels)))


def _shape(text: str) -> tuple[str, str]:
    """(host, message with digits masked): repeated lines of one host count once."""
    head, _, message = text.partition(" NCCL INFO ")
    return head.split(":", 1)[0], "".join("#" if ch.isdigit() else ch for ch in message or text)


def _label(comm: Communicator) -> str:
    return f"communicator {comm.comm_id}" if comm.comm_id else "the communicator"


def _channels(chans: list[int]) -> str:
    """`channel 3`, `channels 0, 2`; past a few, as runs (`channels 0-31`): one sentence at any channel count."""
    return ("channel " if len(chans) == 1 else "channels ") + ranks_text(chans)


def _each(comms: list[Communicator], check: Callable) -> list[TopoWarning]:
    """Run a process-level check on each communicator's own processes; one warning per distinct message."""
    merged: dict[tuple[str, str], TopoWarning] = {}
    for comm in comms:
        for w in check([comm]):
            key = (w.id, w.message)
            if key in merged:
                merged[key].comm_ids += w.comm_ids
            else:
                merged[key] = w
    return list(merged.values())


def _env(proc: Process, name: str) -> str | None:
    value = proc.env.get(name)
    return value[0].rstrip(".").strip() if value else None


def _processes(comms: list[Communicator]) -> list[Process]:
    seen: dict[tuple, Process] = {}
    for comm in comms:
        for proc in comm.processes:
            seen.setdefault(proc.key, proc)
    return [seen[k] for k in sorted(seen, key=lambda k: tuple("" if v is None else str(v) for v in k))]


def _rank_process(comm: Communicator, rank: int) -> Process | None:
    info = comm.ranks.get(rank)
    return info.process if info else None


def _ranks_of(proc: Process, comms: list[Communicator]) -> list[int]:
    return sorted({r.rank for c in comms for r in c.ranks.values() if r.process is proc})
