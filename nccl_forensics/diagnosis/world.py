"""The expected world, and which ranks of it left no usable evidence.

Many lines state how big the job is or that a rank exists: NCCL's init lines (`comm 0x… rank 3 nranks 8`), the
flight recorder's `world_size` and process-group membership, torchrun's failure table, a DETAIL mismatch
(`Rank 1 is running … but Rank 0 …`), a monitored barrier (`ranks 6 failed to pass`), a desync report, and the
file names (`nccl.rank6.log`). Each such line is a `Claim`. The expected world is `range(size)` for the largest
stated size (listed one by one only up to limits.LISTED_RANKS; beyond, the ranks no line names are a count,
`World.unlisted`), plus every rank named anywhere. A rank of it that left no readable evidence of its own is
*missing*; a rank whose every file could not be read (unreadable, refused, truncated, binary) is a *gap*. Both
are reported next to the verdict and are suspects, never silence.

Example: eight NCCL logs of which rank 6's was deleted::

    claims: nranks 8 (nccl.rank0.log:12), … ; present: 0-5, 7  →  missing {6: "no evidence"}
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Iterable

from ..limits import LISTED_RANKS, listed_world
from ..model import Event, Evidence, Source
from .rows import nccl_group

_READ_ERRORS = (("permission denied", "unreadable"), ("cannot read", "unreadable"), ("refus", "refused"),
                ("truncated", "truncated"), ("corrupt", "corrupt"), ("binary", "binary"))
UNKNOWN_RANK = -1      # in `file_ranks`: the file holds evidence, but nothing names whose
# Events that prove a rank was alive and writing (its own evidence, not another rank's report about it).
_NOT_OWN = {"unparsed"}


@dataclass(frozen=True)
class Claim:
    """One line that states the world's size or that some ranks exist."""

    what: str                       # e.g. "nranks 8", "world_size 1024", "named by a monitored barrier"
    size: int | None
    ranks: frozenset[int]
    evidence: Evidence


@dataclass(frozen=True)
class Gap:
    """Why an expected rank has no usable evidence of its own."""

    reason: str                     # "no evidence" | "unreadable" | "refused" | "truncated" | "corrupt" | "binary"
    detail: str = ""                # the read error, or what names the rank
    files: tuple[str, ...] = ()

    def to_dict(self) -> dict:
        return {"reason": self.reason, "detail": self.detail, "files": list(self.files)}


@dataclass
class World:
    size: int | None                                   # the largest stated world size
    expected: list[int]
    present: list[int]                                 # ranks with readable evidence of their own
    claims: list[Claim] = field(default_factory=list)
    gaps: dict[int, Gap] = field(default_factory=dict)  # expected ranks without usable evidence
    partial: dict[int, Gap] = field(default_factory=dict)  # ranks with some evidence and a file that failed
    unattributed: list[str] = field(default_factory=list)  # read errors of files whose rank is unknown
    unranked: list[str] = field(default_factory=list)      # files with evidence of an unknown rank: a missing
                                                           # rank's evidence may be in one of them
    unlisted: int = 0                                  # ranks below `size` too many to list: no evidence of theirs

    def size_claim(self) -> Claim | None:
        sized = [c for c in self.claims if c.size is not None and c.size == self.size]
        return sized[0] if sized else None


def expected_world(events: Iterable[Event], timeline_ranks: Iterable[int], sources: Iterable[Source] = (),
                   errors: dict[str, str] | None = None, file_ranks: dict[str, set[int]] | None = None) -> World:
    """The world the evidence states, compared with the ranks that left evidence.

    `errors` maps a file to its read error; `file_ranks` maps a file to the ranks its events and rows carry
    (what a truncated file did show); a source's own `rank` (from its name) attributes the rest.
    """
    events = list(events)
    errors = errors or {}
    unranked = sorted(p for p, ranks in (file_ranks or {}).items() if UNKNOWN_RANK in ranks and p not in errors)
    file_ranks = {p: ranks - {UNKNOWN_RANK} if UNKNOWN_RANK in ranks else ranks      # read only, never changed
                  for p, ranks in (file_ranks or {}).items()}
    claims = _merged(_claims(events, sources))
    own = {ev.rank for ev in events if ev.rank is not None and ev.kind not in _NOT_OWN and ev.file not in errors}
    own |= {int(r) for r in timeline_ranks}
    failed_by_rank: dict[int, list[str]] = {}
    unattributed = []
    for path, error in sorted(errors.items()):
        ranks = set(file_ranks.get(path, ())) | _source_rank(sources, path)
        if not ranks:
            unattributed.append(error)
        for rank in ranks:
            failed_by_rank.setdefault(rank, []).append(path)
    good_files = {r for path, ranks in file_ranks.items() if path not in errors for r in ranks}
    present = sorted(own | good_files)
    size = max((c.size for c in claims if c.size), default=None)
    expected = set(listed_world(size))
    expected |= {r for c in claims for r in c.ranks} | set(present) | set(failed_by_rank)
    unlisted = size - sum(1 for r in expected if r < size) if size and size > LISTED_RANKS else 0
    gaps: dict[int, Gap] = {}
    partial: dict[int, Gap] = {}
    seen = set(present)                  # `present` is a list: a lookup per rank in it was quadratic (16k ranks: 6 s)
    for rank in sorted(expected):
        files = tuple(failed_by_rank.get(rank, ()))
        if files:
            gap = Gap(_reason(errors[files[0]]), errors[files[0]], files)
            read_in_part = rank in good_files or rank in own and _has_clean_file(rank, file_ranks, errors)
            (partial if read_in_part else gaps)[rank] = gap
        elif rank not in seen:
            gaps[rank] = Gap("no evidence", _named_by(rank, claims, size))
    return World(size, sorted(expected), present, claims, gaps, partial, unattributed,
                 unranked if gaps or unlisted else [], unlisted)


def _has_clean_file(rank: int, file_ranks: dict[str, set[int]], errors: dict[str, str]) -> bool:
    return any(rank in ranks for path, ranks in file_ranks.items() if path not in errors)


def _source_rank(sources: Iterable[Source], path: str) -> set[int]:
    return {s.rank for s in sources if s.path == path and s.rank is not None}


def _reason(error: str) -> str:
    low = error.lower()
    return next((reason for key, reason in _READ_ERRORS if key in low), "unreadable")


def _named_by(rank: int, claims: list[Claim], size: int | None) -> str:
    named = [c for c in claims if rank in c.ranks]
    if named:
        c = named[0]
        where = f"{c.evidence.file}:{c.evidence.line}" if c.evidence.line else c.evidence.file
        return f"{c.what} at {where}"
    sized = next((c for c in claims if c.size == size), None)
    if sized is not None:
        return f"the world has {size} ranks: {sized.what} at {sized.evidence.file}:{sized.evidence.line}"
    return ""


def _merged(claims: Iterable[Claim]) -> list[Claim]:
    """One claim per kind of statement (and size): the ranks it names together, cited by its first line.
    Each distinct rank set is added once (16,384 dumps repeat one membership 16,384 times)."""
    first: dict[tuple, Claim] = {}
    ranks: dict[tuple, set[int]] = {}
    added: dict[tuple, set[frozenset]] = {}
    for c in claims:
        key = (c.what, c.size)
        first.setdefault(key, c)
        if c.ranks not in added.setdefault(key, set()):
            added[key].add(c.ranks)
            ranks.setdefault(key, set()).update(c.ranks)
    return [Claim(c.what, c.size, frozenset(ranks[key]), c.evidence) for key, c in first.items()]


# NCCL's lines that state a communicator's size: its init, and its end (`comm 0x… rank 1 nranks 2 … - Destroy
# COMPLETE`, Abort, Revoke), which a log cut to its last lines may hold alone
_COMM_LINES = frozenset({"comm_init", "comm_destroy", "comm_abort", "comm_revoke"})


# torch's default process group (every rank's): the timelines name it `0` (the flight recorder's pg_name, the
# watchdog's PG ID and GUID, rows.watchdog_group)
WORLD_GROUP = "0"


def stated_group_sizes(events: Iterable[Event], groups: Iterable[str], world_size: int | None) -> dict[str, int]:
    """Each timeline group's size where a line states it: NCCL's `nranks` for its communicator's group, the stated
    world's for torch's default group. A group no line sizes is left out (its members seen are all that is known)."""
    groups = set(groups)
    out = {WORLD_GROUP: world_size} if world_size and WORLD_GROUP in groups else {}
    seen: set[tuple] = set()                   # a communicator's lines state its size again and again
    for ev in events:
        if ev.kind not in _COMM_LINES:
            continue
        comm, size = ev.comm or ev.data.get("comm_id"), ev.data.get("nranks")
        if comm and isinstance(size, int) and (comm, size) not in seen:
            seen.add((comm, size))
            name = nccl_group(comm, None, None, None, None)
            if name in groups:
                out[name] = max(out.get(name, 0), size)
    return out


def _claims(events: list[Event], sources: Iterable[Source]):
    seen_sizes: set[tuple[str, int]] = set()
    for ev in events:
        if ev.kind not in _CLAIM_KINDS:
            continue
        d = ev.data
        if ev.kind in _COMM_LINES and isinstance(d.get("nranks"), int) and d["nranks"] > 0:
            key = ("nranks", d["nranks"])
            if key not in seen_sizes:            # one citation per distinct size is enough
                seen_sizes.add(key)
                yield Claim(f"nranks {d['nranks']}", d["nranks"], frozenset(), _cite(ev))
        elif ev.kind == "launcher_world" and isinstance(d.get("nranks"), int) and d["nranks"] > 0:
            key = ("world_size", d["nranks"])
            if key not in seen_sizes:
                seen_sizes.add(key)
                yield Claim(f"the launcher's world size {d['nranks']}", d["nranks"], frozenset(), _cite(ev))
        elif ev.kind == "fr_dump":
            yield from _fr_claims(ev, seen_sizes)
        elif ev.kind == "agent_log":
            yield from _agent_claims(ev, seen_sizes)
        elif ev.kind == "child_failed" and isinstance(d.get("rank"), int):
            yield Claim("named in torchrun's failure table", None, frozenset({d["rank"]}), _cite(ev))
        elif ev.kind == "fingerprint_mismatch":
            named = {r for r in (d.get("rank"), d.get("other_rank")) if isinstance(r, int)}
            if named:
                yield Claim("named by a DETAIL mismatch", None, frozenset(named), _cite(ev))
        elif ev.kind in ("monitored_barrier", "desync_report"):
            listed = d.get("missing_ranks") if ev.kind == "monitored_barrier" else d.get("ranks")
            named = {r for r in listed or () if isinstance(r, int)}
            if named:
                yield Claim(f"named by a {ev.kind.replace('_', ' ')}", None, frozenset(named), _cite(ev))
    by_name = [src for src in sources if src.rank is not None]
    if by_name:                          # one claim for them all, cited by the first, as `_merged` makes of them
        yield Claim("named by its file name", None, frozenset(src.rank for src in by_name if src.rank is not None),
                    Evidence(by_name[0].path, 0, by_name[0].path))


_CLAIM_KINDS = _COMM_LINES | {"launcher_world", "fr_dump", "agent_log", "child_failed", "fingerprint_mismatch",
                              "monitored_barrier", "desync_report"}      # the kinds `_claims` reads
_AGENT_SIZES = re.compile(r"^\s*global_world_sizes=\[(\d+)")
_AGENT_RANKS = re.compile(r"^\s*global_ranks=\[([\d, ]*)\]")


def _agent_claims(ev: Event, seen_sizes: set):
    """torchrun's rendezvous result (printed at LOGLEVEL=INFO): `global_world_sizes=[16, 16]`, `global_ranks=[8, 9]`."""
    message = str(ev.data.get("message") or "")
    size = _AGENT_SIZES.match(message)
    if size and int(size[1]) > 0 and ("world_size", int(size[1])) not in seen_sizes:
        seen_sizes.add(("world_size", int(size[1])))
        yield Claim(f"global_world_sizes {size[1]}", int(size[1]), frozenset(), _cite(ev))
    ranks = _AGENT_RANKS.match(message)
    if ranks and ranks[1].strip():
        yield Claim("started by torchrun", None, frozenset(int(r) for r in ranks[1].split(",")), _cite(ev))


def _fr_claims(ev: Event, seen_sizes: set):
    size = ev.data.get("world_size")
    if isinstance(size, int) and size > 0 and ("world_size", size) not in seen_sizes:
        seen_sizes.add(("world_size", size))
        yield Claim(f"world_size {size}", size, frozenset(), _cite(ev))
    memberships = []
    for cfg in (ev.data.get("pg_config") or {}).values():
        ranks = cfg.get("ranks") if isinstance(cfg, dict) else None
        if isinstance(ranks, (list, tuple, range, set, frozenset)):
            memberships.append(tuple(ranks) if isinstance(ranks, (list, set)) else ranks)
    members = _valid_ranks(tuple(memberships))
    if members:
        yield Claim("named in a process group's membership", None, members, _cite(ev))


@lru_cache(maxsize=256)
def _valid_ranks(memberships: tuple) -> frozenset:
    """The ranks of a dump's memberships that are ranks at all; every dump of a job repeats the same ones (in a
    Megatron layout, each its own mix of the same groups: each group is read once)."""
    return frozenset().union(*map(_valid_members, memberships))


@lru_cache(maxsize=4096)
def _valid_members(ranks: tuple | range | frozenset) -> frozenset:
    return frozenset(r for r in ranks if isinstance(r, int) and 0 <= r < 1 << 31)


def _cite(ev: Event) -> Evidence:
    return Evidence(ev.file, ev.line, ev.text)
