"""Flight-recorder dumps in exactly the schema torch 2.13 writes (version "2.10", NCCL backend), built entry by
entry per rank: the counters torch keeps (record_id, collective_seq_id per PG, p2p_seq_id per PG, op_id) advance as
torch advances them, so a scenario reads like the training step that made it.

    job = Job(4)
    for r in job.ranks: r.coll("all_reduce", [[1024]])
    job.rank(2).coll("all_reduce", [[1024]], dtype="Double")     # rank 2's next all_reduce in float64
    job.write(tmp_path)                                            # nccl_trace_rank_<r> pickles
"""
from __future__ import annotations

import itertools
import pickle
from pathlib import Path

DEFAULT = ("0", "default_pg")
BASE_NS = 1_750_000_000_000_000_000
_FRAME = [{"name": "all_reduce", "filename": "/usr/lib/python3/torch/distributed/distributed_c10d.py", "line": 3245},
          {"name": "train_step", "filename": "/work/train.py", "line": 42}]


class RankDump:
    def __init__(self, rank: int, world: int, groups: dict[str, tuple[str, list[int]]]):
        self.rank, self.world, self.groups = rank, world, groups       # groups: name -> (desc, global ranks)
        self.entries: list[dict] = []
        self.coll_seq: dict[str, int] = {}
        self.p2p_seq: dict[str, int] = {}
        self.record = itertools.count()
        self.clock = itertools.count(1)

    def _entry(self, name: str, pg: tuple[str, str], ins, outs, dtype, state: str, is_p2p: bool,
               seq: int, p2p_seq: int) -> dict:
        created = BASE_NS + next(self.clock) * 1_000_000 + self.rank * 1_000
        done = state == "completed"
        entry = {
            "frames": _FRAME, "record_id": next(self.record), "pg_id": int(pg[0]) if pg[0].isdigit() else 0,
            "process_group": pg, "thread_name": "pt_main_thread", "thread_id": str(140_000 + self.rank),
            "collective_seq_id": seq, "p2p_seq_id": p2p_seq, "op_id": seq, "profiling_name": f"nccl:{name}",
            "time_created_ns": created, "input_sizes": ins, "input_dtypes": [dtype] * len(ins),
            "output_sizes": outs, "output_dtypes": [dtype] * len(outs), "state": state,
            "time_discovered_started_ns": created + 1000 if state in ("started", "completed") else None,
            "time_discovered_completed_ns": created + 900_000 if done else None,
            "retired": done, "timeout_ms": 600_000, "is_p2p": is_p2p,
        }
        self.entries.append(entry)
        return entry

    def coll(self, name: str, ins, outs=None, dtype: str = "Float", pg: tuple[str, str] = DEFAULT,
             state: str = "completed", same_seq: bool = False) -> dict:
        """One collective; `same_seq` keeps the PG's seq (a member of a coalesced call)."""
        if not same_seq:
            self.coll_seq[pg[0]] = self.coll_seq.get(pg[0], 0) + 1
        return self._entry(name, pg, ins, ins if outs is None else outs, dtype, state, False,
                           self.coll_seq.get(pg[0], 0), self.p2p_seq.get(pg[0], 0))

    def coalesced(self, members: list[tuple[str, list]], marker: str = "coalesced", dtype: str = "Float",
                  pg: tuple[str, str] = DEFAULT, state: str = "completed") -> None:
        for i, (name, ins) in enumerate(members):
            self.coll(name, ins, dtype=dtype, pg=pg, state=state, same_seq=i > 0)
        self.coll(marker, [], [], dtype=dtype, pg=pg, state=state, same_seq=True)

    def p2p(self, kind: str, peer_local: int | None, size: list, pg: tuple[str, str] = DEFAULT,
            state: str = "completed") -> dict:
        """A send or recv; `peer_local` None: a recv from any source (`recv 3<-?`)."""
        self.p2p_seq[pg[0]] = self.p2p_seq.get(pg[0], 0) + 1
        me = self.groups[pg[0]][1].index(self.rank)
        peer = "?" if peer_local is None else peer_local
        meta = f"{me}->{peer}" if kind == "send" else f"{me}<-{peer}"
        return self._entry(f"{kind} {meta}", pg, [size], [size], "Float", state, True,
                           self.coll_seq.get(pg[0], 0), self.p2p_seq[pg[0]])

    def dump(self) -> dict:
        config = {name: {"name": name, "desc": desc, "ranks": str(ranks)}
                  for name, (desc, ranks) in self.groups.items() if self.rank in ranks}
        status = {name: {"last_enqueued_collective": self.coll_seq.get(name, 0), "last_started_collective": -1,
                         "last_completed_collective": self.coll_seq.get(name, 0)}
                  for name in config}                          # keyed by pg_id: the PG names here are their ids
        return {"version": "2.10", "pg_config": config, "comm_lib_version": "2.27.5", "pg_status": status,
                "entries": self.entries}


class Job:
    def __init__(self, world: int, groups: dict[str, tuple[str, list[int]]] | None = None):
        self.world = world
        self.groups = {"0": ("default_pg", list(range(world))), **(groups or {})}
        self.ranks = [RankDump(r, world, self.groups) for r in range(world)]

    def rank(self, r: int) -> RankDump:
        return self.ranks[r]

    def all(self, method: str, *args, **kwargs) -> None:
        for r in self.ranks:
            getattr(r, method)(*args, **kwargs)

    def write(self, folder: Path, skip: tuple[int, ...] = (), name: str = "nccl_trace_rank_{rank}") -> Path:
        folder.mkdir(parents=True, exist_ok=True)
        for r in self.ranks:
            if r.rank not in skip:
                (folder / name.format(rank=r.rank, letter="abcdefghijklmnopqrstuvwxyz"[r.rank % 26])).write_bytes(pickle.dumps(r.dump(), protocol=2))
        return folder
