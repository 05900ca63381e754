"""The environment variables a job ran with, as its evidence states them, per rank.

Two sources say which variables were set: NCCL's `<NAME> set by environment to <value>` INFO lines (printed
with NCCL_DEBUG=INFO, one per variable NCCL read, per process) and a capture bundle's manifest, which keeps
each rank's NCCL_/TORCH_/GLOO_/CUDA_/launcher variables (`ncclf capture`, cut to an allow-list). A setting
shared by many ranks is one `Setting` naming them all, so a 1,024-rank job reads as a few lines.
The launcher's per-rank bookkeeping (RANK, LOCAL_RANK, WORLD_SIZE, TORCHELASTIC_*) is left out: it says who
a process was, not how it was configured; so is any variable named like a secret.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from ..capture.redact import SECRET_NAME
from ..model import Event, Evidence

_BOOKKEEPING = {"RANK", "LOCAL_RANK", "GROUP_RANK", "ROLE_RANK", "ROLE_NAME", "WORLD_SIZE", "LOCAL_WORLD_SIZE",
                "GROUP_WORLD_SIZE", "ROLE_WORLD_SIZE"}
_BOOKKEEPING_PREFIXES = ("TORCHELASTIC_",)


@dataclass(frozen=True)
class Setting:
    """One variable at one value, the ranks that had it, and the first line that says so."""
    name: str
    value: str
    ranks: tuple[int, ...]
    evidence: Evidence

    def to_dict(self) -> dict:
        return {"name": self.name, "value": self.value, "ranks": list(self.ranks),
                "file": self.evidence.file, "line": self.evidence.line}


def is_setting(name: str) -> bool:
    """A variable that configures the job (not the launcher's per-rank bookkeeping, not a comm config field, not
    one named like a secret: a manifest written by another tool may hold one)."""
    return (bool(name) and "." not in name and name not in _BOOKKEEPING and not name.startswith(_BOOKKEEPING_PREFIXES)
            and not SECRET_NAME.search(name))


def stated(events: Iterable[Event]) -> list[tuple[int | None, str, str, Evidence]]:
    """(rank, name, value, citation) of every NCCL `set by environment` line among `events`."""
    return [(ev.rank, str(ev.data.get("name")), str(ev.data.get("value", "")), Evidence(ev.file, ev.line, ev.text))
            for ev in events if ev.kind == "env" and is_setting(str(ev.data.get("name") or ""))]


def settings(stated_values: Iterable[tuple[int | None, str, str, Evidence]]) -> list[Setting]:
    """Group (rank, name, value, citation) by variable and value, sorted by name, the most common value first;
    the first citation of each (name, value) is kept."""
    ranks: dict[tuple[str, str], set[int]] = {}
    first: dict[tuple[str, str], Evidence] = {}
    for rank, name, value, evidence in stated_values:
        if not is_setting(name):
            continue
        key = (name, value)
        first.setdefault(key, evidence)
        found = ranks.setdefault(key, set())
        if rank is not None and rank >= 0:
            found.add(rank)
    out = [Setting(name, value, tuple(sorted(ranks[(name, value)])), first[(name, value)])
           for name, value in first]
    return sorted(out, key=lambda s: (s.name, -len(s.ranks), s.value))
