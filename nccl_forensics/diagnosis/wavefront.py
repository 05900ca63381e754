"""The wavefront across process groups: in each group, the collective some members never joined; then who waits
for whom, and which ranks no one explains (the root causes).

A large-model job has dozens to hundreds of groups (tensor, pipeline, data, expert parallel; every split of
them). When one rank stops (it died, its main thread holds the GIL in a C call, its GPU faulted), its peers in
each of its groups block in the next collective they share with it, and their own peers in *other* groups block
behind them: the hang spreads group by group. Read group by group, every stalled group looks guilty; read as a
whole, one rank explains all of them.

Per group (`GroupFront`): the *front* is the highest collective seq any member recorded; the members with a
row there *arrived*, the others are *missing*. Where the dumps record device states (NCCL: `started`), only an
entry a GPU started or completed counts: NCCL's CPU enqueues ahead (`scheduled`) while its device is still
blocked in an earlier collective, so an enqueued entry is not an arrival. A front whose rows are all `completed` is
not stalled and is
left out (a healthy group, or one that finished before the hang). Then, across groups:

- rank r *waits for* rank m when r arrived at a stalled front that m is missing from, or r has a pending send
  or recv whose peer m never posted the other side (or left no dump);
- a missing rank that waits for no one is a **root cause**: nothing explains why it is not there but itself
  (it is dead, stuck outside collectives, or its device never finished earlier work). A rank with no dump
  among dumps written during the hang is most likely dead: the dump is written by the watchdog / heartbeat
  monitor thread of every live rank (pytorch.md §1.3), not by the main thread, so even a wedged rank dumps;
- a rank that waits (directly or through others) is a **consequence**, whatever groups it is missing from;
- a rank in a stalled group that every member reached is **stalled** there: the members disagree on the
  collective (op, dtype, sizes: divergence.py names the odd one) or a device never ran it; not a root either.
  Where every missing rank waits for another (a cycle: a collective or a recv skipped on one rank, which then
  waits in another group for a peer that waits for it) there is no root: `cycle` is set, and no rank is named
  here (the skip shows in the order of collectives: divergence.py, fr_semantics.pair_p2p).

Example, 16 ranks, rank 5 (expert group [4, 5, 6, 7]) wedged::

    group 9  EXPERT_MODEL_PARALLEL_GROUP  seq 12 all_to_all  arrived 4, 6, 7   missing 5
    group 3  TENSOR_MODEL_PARALLEL_GROUP  seq 40 allreduce   arrived 0-3, 8-15 missing 4-7   (4, 6, 7 wait in 9)
    → roots [5]; consequences 0-4, 6-15; groups that explain it: 9 (then 3)

With only-active dumps (`onlyActive`: completed entries are not written) a rank that completed everything in a
group has no row there: it is missing from that group's front, as it should be (it never enqueued the
collective the others wait in).
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Iterable

import numpy as np
import pandas as pd

from ..model import Event, ranks_text
from .chunks import row_chunks
from .fr_semantics import P2POp, unmatched_p2p


@dataclass
class GroupFront:
    """One stalled group's front: the collective (seq, op) and who reached it."""

    group: str
    desc: str | None
    seq: int
    op: str | None
    members: list[int]
    arrived: list[int]
    missing: list[int]
    waiting: list[int]                  # arrived ranks whose row there is not completed
    undumped: list[int] = field(default_factory=list)   # missing members that left no dump at all
    role: str = ""                      # "root" (a root cause is missing here), "consequence", "mismatch", "stalled"

    @property
    def name(self) -> str:
        return f"{self.group} ({self.desc})" if self.desc and self.desc not in ("undefined", self.group) else self.group

    def to_dict(self) -> dict:
        return {"group": self.group, "desc": self.desc, "seq": self.seq, "op": self.op, "size": len(self.members),
                "arrived": self.arrived, "missing": self.missing, "waiting": self.waiting,
                "undumped": self.undumped, "role": self.role}

    def line(self) -> str:
        """`group 9 (EXPERT_MODEL_PARALLEL_GROUP) seq 12 all_to_all: ranks 4, 6, 7 arrived, 5 missing`."""
        missing = ranks_text(self.missing, runs=True) or "none"
        return (f"group {self.name} seq {self.seq} {self.op or '?'}: rank{'s' if len(self.arrived) != 1 else ''} "
                f"{ranks_text(self.arrived, runs=True)} arrived, {missing} missing")


@dataclass
class Wavefront:
    fronts: dict[str, GroupFront]       # stalled groups only
    roots: list[int]                    # missing ranks that wait for no one
    waits: dict[int, set[int]]          # rank -> the ranks it waits for
    consequences: list[int]             # ranks that wait, directly or through others, for a root
    groups: int                         # groups read
    cycle: bool = False                 # every missing rank waits for another: a deadlock
    stalled: list[int] = field(default_factory=list)   # ranks in a stalled group that no member is missing from
                                                        # (they disagree on the collective, or a device is stuck)

    def explaining(self, ranks: Iterable[int]) -> list[GroupFront]:
        """The stalled groups that `ranks` are missing from, the most telling first (fewest missing, then most
        arrived: the group where the culprit alone is absent), then the group name."""
        ranks = set(ranks)
        hits = [f for f in self.fronts.values() if ranks & set(f.missing)]
        return sorted(hits, key=lambda f: (len(set(f.missing) - ranks), len(f.missing), -len(f.arrived), f.group))

    def quiet(self) -> int:
        """Groups with every member at the same point (not stalled, or stalled with no one missing)."""
        return self.groups - sum(1 for f in self.fronts.values() if f.missing)


def wavefront(colls: pd.DataFrame, members: dict[str, list[int]], dumps: list[Event],
              p2p: list | None = None, inside: Iterable[int] = ()) -> Wavefront:
    """The wavefront of flight-recorder rows (`colls`: the timeline), the groups' members and the `fr_dump`
    events (which ranks dumped, the groups' pg_desc); `p2p`: (rank, file, *P2POp) of every dump; `inside`: ranks
    a stack dump (py-spy) shows inside a collective: they wait, even for a peer no membership names (gloo's
    pg_config has no ranks)."""
    dumped = {ev.rank for ev in dumps if ev.rank is not None}
    descs = _descs(dumps)
    fr = _flight_recorder_rows(colls)
    fronts = _fronts(fr, members, dumped, descs)
    waits: dict[int, set[int]] = {}
    for f in fronts.values():
        for r in f.waiting if f.missing else ():
            waits.setdefault(r, set()).update(f.missing)
    device = not fr.empty and bool((fr["state"] == "started").any())
    for r, peer in _p2p_waits(p2p or [], dumped, device):
        waits.setdefault(r, set()).add(peer)
    for r in inside:
        waits.setdefault(r, set())
    stalled = sorted({r for f in fronts.values() if not f.missing for r in f.waiting})
    missing = {r for f in fronts.values() for r in f.missing} | {p for peers in waits.values() for p in peers}
    roots = sorted(r for r in missing if r not in waits and r not in stalled)
    cycle = bool(missing) and not roots and not stalled
    ends = set(roots) | set(stalled)
    consequences = [] if cycle else sorted(r for r in set(waits) - ends if _reaches(r, ends, waits))
    for f in fronts.values():
        f.role = ("root" if set(f.missing) & set(roots) else "consequence" if f.missing else f.role or "stalled")
    return Wavefront(fronts, roots, waits, consequences, len(members), cycle, stalled)


def _reaches(rank: int, roots: set[int], waits: dict[int, set[int]]) -> bool:
    """Does `rank` wait, directly or through others, for a root?"""
    seen, todo = set(), [rank]
    while todo:
        r = todo.pop()
        if r in roots:
            return True
        if r not in seen:
            seen.add(r)
            todo.extend(waits.get(r, ()))
    return False


def _descs(dumps: list[Event]) -> dict[str, str]:
    out: dict[str, str] = {}
    for ev in dumps:
        for name, cfg in (ev.data.get("pg_config") or {}).items():
            if isinstance(cfg, dict) and cfg.get("desc"):
                out.setdefault(str(name), str(cfg["desc"]))
    return out


def desc_of(group: str, descs: dict[str, str]) -> str | None:
    """A group's pg_desc; a split group's label `<name>:<ranks>` (groups.label) has its name's."""
    return descs.get(group) or descs.get(group.split(":", 1)[0])


def group_descs(dumps: list[Event], groups: Iterable[str]) -> dict[str, str]:
    """Each timeline group's pg_desc where the flight recorder's pg_config gives one that says more than its name
    (`TENSOR_MODEL_PARALLEL_GROUP`, not `undefined`): the renderers name a group by it."""
    descs = _descs(dumps)
    named = {g: desc_of(g, descs) for g in groups}
    return {g: d for g, d in named.items() if d and d not in ("undefined", g)}


def _fronts(fr: pd.DataFrame, members: dict[str, list[int]], dumped: set[int],
            descs: dict[str, str]) -> dict[str, GroupFront]:
    if fr.empty:
        return {}
    if (fr["state"] == "started").any():     # device states are recorded (NCCL): only what a GPU ran arrived
        fr = fr[fr["state"].isin(["started", "completed"]).to_numpy()]
        if fr.empty:
            return {}
    front, at = _front_rows(fr)
    rows = fr[at]
    names = rows["group"].astype(str).to_numpy()
    order = np.argsort(names, kind="stable")            # one pass over the front rows, not a pandas group each
    names = names[order]
    ranks, states = rows["rank"].to_numpy()[order], rows["state"].astype(object).to_numpy()[order]
    ops = rows["op"].astype(object).to_numpy()[order]
    starts = np.flatnonzero(np.r_[True, names[1:] != names[:-1]]) if len(names) else np.array([], np.int64)
    out = {}
    for start, end in zip(starts.tolist(), [*starts[1:].tolist(), len(names)], strict=True):
        name = str(names[start])
        pending = states[start:end] != "completed"
        if not pending.any():
            continue
        here = ranks[start:end]
        came = set(map(int, here.tolist()))
        arrived = sorted(came)
        group_members = sorted(set(members.get(name) or ()) | came)
        if len(group_members) < 2:
            continue
        missing = [r for r in group_members if r not in came]
        waiting = sorted(set(map(int, here[pending].tolist())))
        out[name] = GroupFront(name, desc_of(name, descs), int(front[name]), _mode(ops[start:end]), group_members,
                               arrived, missing, waiting, [r for r in missing if r not in dumped])
    return out


def _flight_recorder_rows(colls: pd.DataFrame) -> pd.DataFrame:
    if colls.empty:
        return colls
    fr = (colls["source"] == "flight_recorder").to_numpy()
    return colls if fr.all() else colls[fr]            # no copy of a timeline that is all flight recorder


def _front_rows(fr: pd.DataFrame) -> tuple[pd.Series, np.ndarray]:
    """(each group's front: the highest seq any member reached, by group name; the rows at their group's front),
    on the group codes where the timeline has them (no string per row)."""
    seq = fr["seq"].to_numpy()
    group = fr["group"]
    codes = group.array.codes if isinstance(group.dtype, pd.CategoricalDtype) else None
    if codes is None or (codes < 0).any():
        names = group.astype(str).to_numpy()
        front = pd.Series(seq).groupby(names).max()
        return front, seq == front.reindex(names).to_numpy()
    highest = np.full(len(group.cat.categories), np.iinfo(np.int64).min, np.int64)
    for part in row_chunks(len(seq)):               # int64 values: ufunc.at is ~40x slower when it must cast them
        np.maximum.at(highest, codes[part], seq[part].astype(np.int64))
    present = np.flatnonzero(highest > np.iinfo(np.int64).min)      # the groups with rows (no bincount: it copies
                                                                     # the codes to 8 bytes a row)
    front = pd.Series(highest[present], index=[str(c) for c in group.cat.categories[present]]).sort_index()
    at_front = np.empty(len(seq), bool)
    for part in row_chunks(len(seq)):               # seq == highest[codes], without its row-sized int64s
        at_front[part] = seq[part] == highest[codes[part]]
    return front, at_front


def _mode(values: np.ndarray) -> str | None:
    """The most frequent value that is not missing, the least of them on a tie (pandas' `mode().iloc[0]`)."""
    counts = Counter(v for v in values.tolist() if v is not None and v == v)
    if not counts:
        return None
    top = max(counts.values())
    return min(v for v, n in counts.items() if n == top)


_PEER, _STATE = 2 + P2POp._fields.index("peer"), 2 + P2POp._fields.index("state")   # in (rank, file, *P2POp)


def _p2p_waits(ops: list, dumped: set[int], device: bool = False) -> list[tuple[int, int]]:
    """(waiting rank, peer) for each pending send/recv whose peer never posted its side, or left no dump; with
    `device` states, a send or recv only enqueued (`scheduled`) is not posted yet."""
    if device:
        ops = [op for op in ops if op[_STATE] != "scheduled"]
    if not ops:
        return []
    everyone = dumped | {op[0] for op in ops if op[0] is not None} | {op[_PEER] for op in ops}
    return [(u.waiting, u.culprit) for u in unmatched_p2p(ops, {r for r in everyone if r is not None})]
