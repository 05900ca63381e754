"""Flight-recorder dumps of large-model jobs, simulated: Megatron-style TP x PP x DP (x EP) process groups, a
training step of real pipeline sends/recvs and per-group collectives, and faults injected as they happen.

Every rank runs its program; a collective completes when every member of its group has enqueued it (a send
when its recv is posted), and a rank blocks on each op until it completes (`depth` > 0: it may enqueue that
many more ops while one is pending, as NCCL's CPU does; they stay `scheduled`). The dumps are what each live
rank's watchdog writes when the hang is detected: optionally only the active entries, without frames, in
schema 2.8-2.11 (2.11 adds all_to_all split sizes), with pg_config as torch writes it.

    job = MegatronJob(tp=2, pp=2, dp=2)                # 8 ranks; groups named like Megatron's
    job.run(steps=3, faults={5: Fault("stuck", step=2, at=3)})
    job.write(tmp_path / "fr", only_active=True)
"""
from __future__ import annotations

import pickle
from dataclasses import dataclass, field
from pathlib import Path

BASE_NS = 1_760_000_000_000_000_000


@dataclass
class Fault:
    kind: str                     # "dead" (no dump), "stuck" (stops, dumps), "skip" (skips one op), "slow" (late),
                                  # "device" (its GPU stops: the CPU enqueues on, up to `depth`, nothing starts),
                                  # "split" (its first all_to_all of the step expects 16 more elements from a peer)
    step: int = 1                 # the step it happens in (0-based)
    at: int = 0                   # the op of the step it happens at (index into the rank's step program)
    group_kind: str | None = None # "skip"/"slow": only ops of this group kind (e.g. "dp")
    lag_ms: float = 0.0           # "slow": how late the rank enqueues each op of that group kind


@dataclass
class Op:
    kind: str                     # "coll" | "send" | "recv"
    group: str                    # group name
    name: str                     # profiling name op ("all_reduce", "all_to_all_single", "send", ...)
    ins: list
    outs: list
    peer: int | None = None       # global rank of the peer (p2p)
    splits: tuple | None = None   # (input splits, output splits) in elements per group rank (all_to_all)
    gkind: str = ""


@dataclass
class _Rank:
    rank: int
    program: list[Op]
    pos: int = 0
    entries: list[dict] = field(default_factory=list)
    coll_seq: dict = field(default_factory=dict)
    p2p_seq: dict = field(default_factory=dict)
    pending: list = field(default_factory=list)      # entries not completed
    stopped: bool = False
    dead: bool = False
    device_dead: bool = False


class MegatronJob:
    """Rank = tp_rank + tp * (dp_rank + dp * pp_rank) (Megatron's default order); with `ep`, the expert-parallel
    groups split each pipeline stage's data-parallel ranks (EP x expert-DP), and each step runs two all_to_all
    per layer (dispatch, combine) with uneven splits."""

    def __init__(self, tp: int = 2, pp: int = 2, dp: int = 2, ep: int = 1, layers: int = 2, microbatches: int = 2,
                 depth: int = 0):
        self.tp, self.pp, self.dp, self.ep, self.layers, self.mb, self.depth = tp, pp, dp, ep, layers, microbatches, depth
        self.world = tp * pp * dp
        self.groups: dict[str, tuple[str, list[int]]] = {"0": ("default_pg", list(range(self.world)))}
        self.of: dict[tuple[str, int], str] = {}          # (group kind, rank) -> group name
        self._make_groups()
        self.ranks: list[_Rank] = []
        self.clock = 0

    # ---- layout ----
    def coords(self, r: int) -> tuple[int, int, int]:
        return r % self.tp, (r // self.tp) % self.dp, r // (self.tp * self.dp)

    def _add(self, kind: str, desc: str, ranks: list[int]) -> None:
        name = str(len(self.groups))
        self.groups[name] = (desc, ranks)
        for r in ranks:
            self.of[(kind, r)] = name

    def _make_groups(self) -> None:
        tp, dp, pp = self.tp, self.dp, self.pp
        rank = lambda t, d, p: t + tp * (d + dp * p)          # noqa: E731
        for p in range(pp):
            for d in range(dp):
                self._add("tp", "TENSOR_MODEL_PARALLEL_GROUP", [rank(t, d, p) for t in range(tp)])
        for p in range(pp):
            for t in range(tp):
                self._add("dp", "DATA_PARALLEL_GROUP", [rank(t, d, p) for d in range(dp)])
        for t in range(tp):
            for d in range(dp):
                self._add("pp", "PIPELINE_MODEL_PARALLEL_GROUP", [rank(t, d, p) for p in range(pp)])
        if self.ep > 1:
            for p in range(pp):
                for t in range(tp):
                    dps = [rank(t, d, p) for d in range(dp)]
                    for e in range(0, dp, self.ep):
                        self._add("ep", "EXPERT_MODEL_PARALLEL_GROUP", dps[e:e + self.ep])
                    for e in range(self.ep):
                        self._add("edp", "EXPERT_DATA_PARALLEL_GROUP", dps[e::self.ep])

    # ---- programs ----
    def step_program(self, r: int, step: int) -> list[Op]:
        t, d, p = self.coords(r)
        ops: list[Op] = []
        tpg, dpg, ppg = self.of[("tp", r)], self.of[("dp", r)], self.of[("pp", r)]
        prev = r - self.tp * self.dp if p > 0 else None
        nxt = r + self.tp * self.dp if p < self.pp - 1 else None
        for _ in range(self.mb):                               # forward of each micro-batch
            if prev is not None:
                ops.append(Op("recv", ppg, "recv", [[64, 32]], [[64, 32]], peer=prev, gkind="pp"))
            for _layer in range(self.layers):
                ops.append(Op("coll", tpg, "all_reduce", [[64, 32]], [[64, 32]], gkind="tp"))
                if self.ep > 1:
                    ops += self._a2a(r, step)
            if nxt is not None:
                ops.append(Op("send", ppg, "send", [[64, 32]], [[64, 32]], peer=nxt, gkind="pp"))
        for _ in range(self.mb):                               # backward
            if nxt is not None:
                ops.append(Op("recv", ppg, "recv", [[64, 32]], [[64, 32]], peer=nxt, gkind="pp"))
            ops.append(Op("coll", tpg, "all_reduce", [[64, 32]], [[64, 32]], gkind="tp"))
            if prev is not None:
                ops.append(Op("send", ppg, "send", [[64, 32]], [[64, 32]], peer=prev, gkind="pp"))
        ops.append(Op("coll", dpg, "_reduce_scatter_base", [[4096]], [[4096 // self.dp]], gkind="dp"))
        ops.append(Op("coll", dpg, "all_reduce", [[1]], [[1]], gkind="dp"))        # grad norm
        ops.append(Op("coll", dpg, "_all_gather_base", [[4096 // self.dp]], [[4096]], gkind="dp"))
        if self.ep > 1:
            edp = self.of[("edp", r)]
            ops.append(Op("coll", edp, "all_reduce", [[512]], [[512]], gkind="edp"))
        return ops

    def _a2a(self, r: int, step: int) -> list[Op]:
        ep = self.of[("ep", r)]
        members = self.groups[ep][1]
        me = members.index(r)
        n = len(members)
        sent = [(3 * me + 5 * j + step) % 7 + 1 for j in range(n)]            # tokens rank me sends to j
        recv = [(3 * j + 5 * me + step) % 7 + 1 for j in range(n)]            # what j sends to me
        ins, outs = [sum(sent) * 16], [sum(recv) * 16]
        splits = (tuple(x * 16 for x in sent), tuple(x * 16 for x in recv))
        return [Op("coll", ep, "all_to_all_single", [ins], [outs], splits=splits, gkind="ep"),
                Op("coll", ep, "all_to_all_single", [outs], [ins], splits=(splits[1], splits[0]), gkind="ep")]

    # ---- simulation ----
    def run(self, steps: int = 3, faults: dict[int, Fault] | None = None) -> "MegatronJob":
        faults = faults or {}
        self.faults = faults
        self.ranks = []
        for r in range(self.world):
            program, marks = [], {}
            for s in range(steps):
                ops = self.step_program(r, s)
                f = faults.get(r)
                if f and f.kind == "skip" and s == f.step:
                    picked = [i for i, o in enumerate(ops) if o.gkind == (f.group_kind or o.gkind) and o.kind == "coll"]
                    ops = [o for i, o in enumerate(ops) if i != picked[f.at]]
                if f and f.kind == "split" and s == f.step:       # its first all_to_all expects 16 more from a peer
                    i = next(i for i, o in enumerate(ops) if o.gkind == "ep")
                    o = ops[i]
                    recv = (o.splits[1][0] + 16,) + o.splits[1][1:]
                    ops[i] = Op(o.kind, o.group, o.name, o.ins, [[sum(recv)]], splits=(o.splits[0], recv), gkind="ep")
                if f and f.kind in ("dead", "stuck", "device") and s == f.step:
                    marks["stop"] = len(program) + f.at
                program += ops
            self.ranks.append(_Rank(r, program))
            if "stop" in marks:
                self.ranks[-1].stop_at = marks["stop"]          # type: ignore[attr-defined]
        self._simulate()
        return self

    def _simulate(self) -> None:
        progress = True
        while progress:
            progress = False
            for st in self.ranks:
                while self._issue(st):
                    progress = True
            progress |= self._complete()

    def _issue(self, st: _Rank) -> bool:
        if st.stopped or st.pos >= len(st.program) or len(st.pending) > self.depth:
            return False
        if st.pos == getattr(st, "stop_at", None) and not st.device_dead:
            if self.faults[st.rank].kind == "device":      # its GPU faults: the CPU goes on enqueuing, nothing runs
                st.device_dead = True
            else:
                st.stopped = True
                st.dead = self.faults[st.rank].kind == "dead"
                return False
        op = st.program[st.pos]
        st.pos += 1
        self.clock += 1
        f = self.faults.get(st.rank)
        lag = f.lag_ms if f and f.kind == "slow" and op.gkind == (f.group_kind or op.gkind) else 0.0
        created = BASE_NS + self.clock * 2_000_000 + int(lag * 1e6) + st.rank * 1_000
        g = op.group
        if op.kind == "coll":
            st.coll_seq[g] = st.coll_seq.get(g, 0) + 1
            meta = ""
        else:
            st.p2p_seq[g] = st.p2p_seq.get(g, 0) + 1
            members = self.groups[g][1]
            me, peer = members.index(st.rank), members.index(op.peer)
            meta = f" {me}->{peer}" if op.kind == "send" else f" {me}<-{peer}"
        entry = {
            "frames": [], "record_id": len(st.entries), "pg_id": int(g), "process_group": (g, self.groups[g][0]),
            "collective_seq_id": st.coll_seq.get(g, 0), "p2p_seq_id": st.p2p_seq.get(g, 0), "op_id": len(st.entries),
            "profiling_name": f"nccl:{op.name}{meta}", "time_created_ns": created, "input_sizes": op.ins,
            "input_dtypes": ["BFloat16"] * len(op.ins), "output_sizes": op.outs,
            "output_dtypes": ["BFloat16"] * len(op.outs),
            "state": "started" if not st.pending and not st.device_dead else "scheduled",
            "time_discovered_started_ns": created + 1000 if not st.pending and not st.device_dead else None,
            "time_discovered_completed_ns": None, "retired": False, "timeout_ms": 600_000,
            "is_p2p": op.kind != "coll", "thread_id": str(140_000 + st.rank), "thread_name": "pt_main_thread",
            "_op": op, "_key": self._key(st, op),
        }
        st.entries.append(entry)
        st.pending.append(entry)
        return True

    def _key(self, st: _Rank, op: Op) -> tuple:
        if op.kind == "coll":
            return ("coll", op.group, st.coll_seq[op.group])
        src, dst = (st.rank, op.peer) if op.kind == "send" else (op.peer, st.rank)
        n = sum(1 for e in st.entries if e["_op"].kind == op.kind and e["_op"].peer == op.peer and e["_op"].group == op.group)
        return ("p2p", op.group, src, dst, n)

    def _complete(self) -> bool:
        """Complete every pending head entry whose peers all posted theirs (a device runs its ops in order)."""
        done = False
        heads = {}
        for st in self.ranks:
            if st.pending:
                heads.setdefault(st.pending[0]["_key"], []).append(st)
        for key, sts in heads.items():
            need = len(self.groups[key[1]][1]) if key[0] == "coll" else 2
            if any(st.device_dead for st in sts):
                continue
            if len(sts) == need and (key[0] != "coll" or self._balanced(sts)):
                for st in sts:
                    e = st.pending.pop(0)
                    e.update(state="completed", retired=True,
                             time_discovered_completed_ns=e["time_created_ns"] + 500_000,
                             time_discovered_started_ns=e["time_discovered_started_ns"] or e["time_created_ns"] + 900)
                    for later in st.pending[:1]:      # the device moves on to the next enqueued op
                        later["state"], later["time_discovered_started_ns"] = "started", later["time_created_ns"] + 1000
                done = True
        return done

    def _balanced(self, sts: list[_Rank]) -> bool:
        """A collective whose members disagree on the op or sizes (an all_to_all: on its splits, pair by pair)
        never completes (NCCL waits for the bytes)."""
        ops = {st.rank: st.pending[0]["_op"] for st in sts}
        if len({(o.name, str(o.ins) if o.splits is None else "") for o in ops.values()}) > 1:
            return False                          # different collectives or sizes: NCCL hangs on the byte counts
        if any(o.splits is None for o in ops.values()):
            return True
        order = sorted(ops)
        return all(ops[i].splits[0][b] == ops[j].splits[1][a] for a, i in enumerate(order) for b, j in enumerate(order))

    # ---- dumps ----
    def dump(self, r: int, version: str = "2.10", only_active: bool = False, config: bool = True) -> dict:
        st = self.ranks[r]
        entries = []
        for e in st.entries:
            if only_active and e["state"] == "completed":
                continue
            out = {k: v for k, v in e.items() if not k.startswith("_")}
            op: Op = e["_op"]
            if version == "2.11" and op.splits is not None:
                out["input_split_sizes"], out["output_split_sizes"] = list(op.splits[0]), list(op.splits[1])
            if _v(version) < (2, 10):                          # 2.8 / 2.9: no thread fields, nccl_version
                out.pop("thread_id"), out.pop("thread_name")
            entries.append(out)
        mine = {name: (desc, ranks) for name, (desc, ranks) in self.groups.items() if r in ranks}
        pg_config = {name: {"name": name, "desc": desc, "ranks": str(ranks)} for name, (desc, ranks) in mine.items()} \
            if config else {}
        status = {name: {"last_enqueued_collective": st.coll_seq.get(name, -1), "last_started_collective": -1,
                         "last_completed_collective": -1} for name in mine}
        dump = {"version": version, "pg_config": pg_config, "pg_status": status, "entries": entries}
        dump["comm_lib_version" if _v(version) >= (2, 10) else "nccl_version"] = "2.27.5"
        return dump

    def write(self, folder: Path, version: str = "2.10", only_active: bool = False,
              no_config: tuple[int, ...] = (), skip: tuple[int, ...] = ()) -> Path:
        folder.mkdir(parents=True, exist_ok=True)
        for st in self.ranks:
            if st.dead or st.rank in skip:
                continue
            data = self.dump(st.rank, version, only_active, config=st.rank not in no_config)
            (folder / f"nccl_trace_rank_{st.rank}").write_bytes(pickle.dumps(data, protocol=2))
        return folder


def _v(version: str) -> tuple[int, ...]:
    return tuple(int(x) for x in version.split("."))
