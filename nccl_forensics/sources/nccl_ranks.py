"""Rank and communicator recovery for NCCL lines, whose prefix never names the rank.

Per process (host, pid): comm init lines map the CUDA device and the `comm %p` pointer to a rank and to the
global commId; topology lines (transport, trees, GRAPH neighbours) name the printing rank too and serve as
weaker hints. Events seen before their rank is known are kept (bounded) and back-filled when it is learnt,
or at `finish()`.
"""
from __future__ import annotations

from collections import defaultdict

from ..model import Event

MAX_PENDING = 20_000

DevKey = tuple[str | None, int | None, int | None]      # (host, pid, cudaDev)


class RankBook:
    def __init__(self) -> None:
        self.by_dev: dict[DevKey, tuple[int, int]] = {}            # → (rank, nranks) of the largest comm
        self.hints: dict[DevKey, int] = {}                         # rank printed in topology lines
        self.by_ptr: dict[tuple, tuple[int | None, str | None]] = {}  # (host, pid, comm ptr) → (rank, commId)
        self.by_proc: dict[tuple, set[int]] = defaultdict(set)     # (host, pid) → ranks seen
        self.pending: dict[DevKey, list[Event]] = defaultdict(list)
        self.npending = 0

    def learn_comm(self, key: DevKey, ptr: str | None, rank: int | None, nranks: int | None,
                   comm_id: str | None) -> None:
        host, pid, _ = key
        if ptr is not None:
            old = self.by_ptr.get((host, pid, ptr), (None, None))
            self.by_ptr[(host, pid, ptr)] = (rank if rank is not None else old[0], comm_id or old[1])
        if rank is None:
            return
        self.by_proc[(host, pid)].add(rank)
        best = self.by_dev.get(key)
        if best is None or (nranks or 0) > best[1]:
            self.by_dev[key] = (rank, nranks or 0)
            self._resolve(key, rank)

    def learn_hint(self, key: DevKey, rank: int) -> None:
        """A rank printed in a topology line; it resolves held events only while no init line named one."""
        if key not in self.hints:
            self.hints[key] = rank
            if key not in self.by_dev:
                self._resolve(key, rank)

    def comm_of(self, host: str | None, pid: int | None, ptr: str | None) -> tuple[int | None, str | None]:
        return self.by_ptr.get((host, pid, ptr), (None, None))

    def rank_of(self, key: DevKey) -> int | None:
        best = self.by_dev.get(key)
        return best[0] if best is not None else None

    def defer(self, key: DevKey, ev: Event) -> bool:
        """Remember an event to back-fill when `key`'s rank is learnt (False when too many wait already)."""
        if self.npending >= MAX_PENDING:
            return False
        self.pending[key].append(ev)
        self.npending += 1
        return True

    def drop_pending(self) -> None:
        self.pending.clear()
        self.npending = 0

    def _resolve(self, key: DevKey, rank: int) -> None:
        for ev in self.pending.pop(key, ()):
            if ev.rank is None:
                ev.rank = rank
            self.npending -= 1

    def finish(self) -> None:
        """Back-fill what is left: weak hints, then a process's only rank."""
        for key, events in list(self.pending.items()):
            host, pid, _ = key
            rank = self.hints.get(key)
            if rank is None:
                ranks = self.by_proc.get((host, pid), set())
                rank = next(iter(ranks)) if len(ranks) == 1 else None
            if rank is None and len({r for (h, p, _), (r, _n) in self.by_dev.items() if (h, p) == (host, pid)}) == 1:
                rank = next(r for (h, p, _), (r, _n) in self.by_dev.items() if (h, p) == (host, pid))
            if rank is not None:
                for ev in events:
                    if ev.rank is None:
                        ev.rank = rank
        self.pending.clear()
        self.npending = 0
