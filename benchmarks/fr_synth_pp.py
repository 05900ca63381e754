"""Synthetic flight-recorder dumps of a Megatron-style job with pipeline P2P: TP x PP x DP (default 8 x 4 x 8 =
256 ranks, 1 + 32 + 64 + 32 = 129 process groups), entries shaped as `fr_synth.py`'s (torch's schema 2.10).

Rank layout as Megatron's default order (tp fastest, then dp, then pp): rank = tp + TP * (dp + DP * pp). Each
rank's dump holds its own four groups (default, TP, PP, DP) in pg_config, as ProcessGroupNCCL records only the
groups it is in. A training step, GPipe-style, for each of `micro` micro-batches:
  forward   recv activations from the previous stage, two TP all-reduces, send to the next stage;
  backward  one P2P batch (recv grads from the next stage, send grads to the previous one; batch_isend_irecv,
            so the pair is followed by a P2P `coalesced` marker), two TP all-reduces;
then a DP reduce-scatter and all-gather, and an all-reduce on the default group (the loss).

The job is simulated op by op: a collective completes when every member posted it, a send when its receiver
posted the matching recv (and the other way round); a rank posts its next op once its previous one completed.
In the last step `culprit` never posts the forward recv of micro-batch `micro // 2` and stops there: its
previous stage's send stays pending, its TP peers wait in their all-reduce, and the whole job hangs behind it.
The job runs as many steps as fit in `entries` entries (the ring buffer's size), so no rank's buffer wraps:
pairing sends with recvs across wrapped buffers is a matter of the analysis, not of this benchmark. Output is
deterministic.

    python benchmarks/fr_synth_pp.py OUT --entries 2000 [--tp 8 --pp 4 --dp 8 --culprit 77]
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import pickle
from pathlib import Path

_spec = importlib.util.spec_from_file_location("fr_synth", Path(__file__).with_name("fr_synth.py"))
fr_synth = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fr_synth)

_PIPE = "/workspace/megatron/core/pipeline_parallel"
_FRAMES = {  # what a user frame of each kind of op looks like
    "fwd": ("forward_step", f"{_PIPE}/schedules.py", 275), "bwd": ("backward_step", f"{_PIPE}/schedules.py", 396),
    "p2p": ("_batched_p2p_ops", f"{_PIPE}/p2p_communication.py", 161),
    "dp": ("finish_grad_sync", "/workspace/megatron/core/distributed/param_and_grad_buffer.py", 512),
    "loss": ("reduce_loss", "/workspace/megatron/training/training.py", 840),
}
ACT = [4096, 1024]


class Job:
    """The ranks' programs and the groups they run in."""

    def __init__(self, tp: int, pp: int, dp: int, micro: int, steps: int, culprit: int):
        self.tp, self.pp, self.dp, self.world = tp, pp, dp, tp * pp * dp
        self.groups: dict[str, tuple[str, list[int]]] = {"0": ("default_pg", list(range(self.world)))}
        self.tp_of, self.pp_of, self.dp_of = {}, {}, {}
        for kind, desc, table in (("tp", "TENSOR_MODEL_PARALLEL_GROUP", self.tp_of),
                                  ("pp", "PIPELINE_MODEL_PARALLEL_GROUP", self.pp_of),
                                  ("dp", "DATA_PARALLEL_GROUP", self.dp_of)):
            for members in self._members(kind):
                name = str(len(self.groups))
                self.groups[name] = (desc, members)
                for r in members:
                    table[r] = name
        self.programs = {r: self._program(r, micro, steps, r == culprit) for r in range(self.world)}

    def _members(self, kind: str) -> list[list[int]]:
        tp, pp, dp = self.tp, self.pp, self.dp
        rank = lambda t, d, p: t + tp * (d + dp * p)       # noqa: E731
        if kind == "tp":
            return [[rank(t, d, p) for t in range(tp)] for p in range(pp) for d in range(dp)]
        if kind == "pp":
            return [[rank(t, d, p) for p in range(pp)] for d in range(dp) for t in range(tp)]
        return [[rank(t, d, p) for d in range(dp)] for p in range(pp) for t in range(tp)]

    def _program(self, r: int, micro: int, steps: int, culprit: bool) -> list[list[tuple]]:
        """A list of posts; each post is a list of ops: ("coll", group, op, in, out, frame) or
        ("send"/"recv", group, peer_global, frame)."""
        stage = self.groups[self.pp_of[r]][1].index(r)
        prev = self.groups[self.pp_of[r]][1][stage - 1] if stage > 0 else None
        nxt = self.groups[self.pp_of[r]][1][stage + 1] if stage < self.pp - 1 else None
        tpg, dpg, ppg = self.tp_of[r], self.dp_of[r], self.pp_of[r]
        grad = [ACT[0] * ACT[1] // 4]
        posts: list[list[tuple]] = []
        for step in range(steps):
            for m in range(micro):
                if culprit and step == steps - 1 and m == micro // 2:
                    return posts                            # never posts this recv: stops here
                if prev is not None:
                    posts.append([("recv", ppg, prev, "fwd")])
                posts += [[("coll", tpg, "all_reduce", [ACT], [ACT], "fwd")]] * 2
                if nxt is not None:
                    posts.append([("send", ppg, nxt, "fwd")])
            for _ in range(micro):
                batch = ([("recv", ppg, nxt, "p2p")] if nxt is not None else []) + \
                        ([("send", ppg, prev, "p2p")] if prev is not None else [])
                if batch:
                    posts.append(batch)
                posts += [[("coll", tpg, "all_reduce", [ACT], [ACT], "bwd")]] * 2
            dp = len(self.groups[dpg][1])
            posts.append([("coll", dpg, "_reduce_scatter_base", [[grad[0] * dp]], [grad], "dp")])
            posts.append([("coll", dpg, "_all_gather_base", [grad], [[grad[0] * dp]], "dp")])
            posts.append([("coll", "0", "all_reduce", [[1]], [[1]], "loss")])
        return posts


def simulate(job: Job) -> dict[int, list[dict]]:
    """Each rank's recorded ops, in order, with their group seq / p2p seq, post tick and completion."""
    world = job.world
    at = dict.fromkeys(range(world), 0)            # index of each rank's current post
    posted: dict[int, list[dict] | None] = dict.fromkeys(range(world))
    records: dict[int, list[dict]] = {r: [] for r in range(world)}
    coll_seq: dict[tuple, int] = {}                # (rank, group) -> collectives posted
    p2p_seq: dict[tuple, int] = {}                 # (rank, group) -> P2P ops posted
    arrivals: dict[tuple, list] = {}               # (group, seq) -> ops posted
    pairs: dict[tuple, list] = {}                  # (group, src, dst, k) -> [send, recv]
    pair_count: dict[tuple, int] = {}
    tick, progress = 0, True
    while progress:
        progress = False
        tick += 1
        for r in range(world):
            if posted[r] is not None:
                if all(op["done"] is not None for op in posted[r]):
                    posted[r] = None
                    progress = True
                else:
                    continue
            if at[r] >= len(job.programs[r]):
                continue
            post, ops = job.programs[r][at[r]], []
            at[r] += 1
            for spec in post:
                group = spec[1]
                op = {"kind": spec[0], "group": group, "tick": tick, "done": None, "spec": spec,
                      "seq": coll_seq.get((r, group), 0), "p2p_seq": p2p_seq.get((r, group), 0)}
                if spec[0] == "coll":
                    op["seq"] = coll_seq[(r, group)] = op["seq"] + 1
                    waiting = arrivals.setdefault((group, op["seq"]), [])
                    waiting.append(op)
                    if len(waiting) == len(job.groups[group][1]):
                        for o in waiting:
                            o["done"] = tick
                else:
                    op["p2p_seq"] = p2p_seq[(r, group)] = op["p2p_seq"] + 1
                    src, dst = (r, spec[2]) if spec[0] == "send" else (spec[2], r)
                    key = (group, src, dst, spec[0])
                    k = pair_count[key] = pair_count.get(key, 0) + 1
                    pair = pairs.setdefault((group, src, dst, k), [])
                    pair.append(op)
                    if len(pair) == 2:
                        for o in pair:
                            o["done"] = tick
                ops.append(op)
            records[r].extend(ops)
            if len(ops) > 1:
                records[r].append({"kind": "marker", "group": post[0][1], "tick": tick, "parts": ops,
                                   "seq": ops[0]["seq"], "p2p_seq": ops[-1]["p2p_seq"], "spec": post[0]})
            posted[r] = ops
            progress = True
    return records


def _entry(job: Job, r: int, rec: dict, record_id: int, frame_dicts: dict) -> dict:
    spec, group = rec["spec"], rec["group"]
    desc, members = job.groups[group]
    me = members.index(r)
    if rec["kind"] == "coll":
        name, ins, outs, is_p2p = f"nccl:{spec[2]}", spec[3], spec[4], False
    elif rec["kind"] == "marker":
        name, ins, outs, is_p2p = "nccl:coalesced", [], [], True
    else:
        peer = members.index(spec[2])
        name = f"nccl:send {me}->{peer}" if rec["kind"] == "send" else f"nccl:recv {me}<-{peer}"
        ins = outs = [ACT] if spec[3] == "fwd" else [[ACT[0] * ACT[1] // 2]]
        is_p2p = True
    done = rec["done"] if rec["kind"] != "marker" else (
        max(p["done"] for p in rec["parts"]) if all(p["done"] is not None for p in rec["parts"]) else None)
    created = fr_synth.BASE_NS + rec["tick"] * fr_synth.STEP_NS + r * 1_000
    fn, file, line = _FRAMES[spec[-1]] if rec["kind"] != "coll" else _FRAMES[spec[5]]
    frames = [frame_dicts.setdefault(f, {"name": f[0], "filename": f[1], "line": f[2]})
              for f in ((fn, file, line), ("train_step", "/workspace/megatron/training/training.py", 1210),
                        ("pretrain", "/workspace/megatron/training/training.py", 360),
                        ("<module>", "/workspace/pretrain_gpt.py", 241))]
    dtype = "BFloat16" if rec["kind"] != "marker" else None
    return {"frames": frames, "record_id": record_id, "pg_id": int(group), "process_group": (group, desc),
            "thread_name": "pt_main_thread", "thread_id": str(139_872_301_000_000 + r * 4096),
            "collective_seq_id": rec["seq"], "p2p_seq_id": rec["p2p_seq"], "op_id": record_id + 1,
            "profiling_name": name, "time_created_ns": created,
            "input_sizes": [list(s) for s in ins], "input_dtypes": [dtype] * len(ins),
            "output_sizes": [list(s) for s in outs], "output_dtypes": [dtype] * len(outs),
            "state": "completed" if done is not None else "scheduled", "time_discovered_started_ns": None,
            "time_discovered_completed_ns": created + 900_000 if done is not None else None,
            "retired": done is not None, "timeout_ms": fr_synth.TIMEOUT_MS, "is_p2p": is_p2p}


def make_dumps(out_dir: str | os.PathLike, entries: int = 2000, tp: int = 8, pp: int = 4, dp: int = 8,
               micro: int = 8, culprit: int | None = None, prefix: str = fr_synth.PREFIX) -> list[Path]:
    """Write one pickle per rank and return their paths; `culprit` defaults to a rank of the middle stages."""
    world = tp * pp * dp
    culprit = culprit if culprit is not None else min(world - 1, tp * dp * (pp // 2) + tp + 5)
    per_step = micro * 9 + 3                  # a middle stage's entries per step, and then some
    job = Job(tp, pp, dp, micro, steps=max(2, entries // per_step), culprit=culprit)
    records = simulate(job)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for r in range(world):
        recs, frame_dicts = records[r], {}
        first = max(0, len(recs) - entries)
        ents = [_entry(job, r, rec, first + i, frame_dicts) for i, rec in enumerate(recs[first:])]
        mine = {name: (desc, members) for name, (desc, members) in job.groups.items() if r in members}
        config = {name: {"name": name, "desc": desc, "ranks": str(members)} for name, (desc, members) in mine.items()}
        status = {}
        for name in mine:
            seqs = [e["collective_seq_id"] for e in ents if e["process_group"][0] == name and not e["is_p2p"]]
            done = [e["collective_seq_id"] for e in ents if e["process_group"][0] == name and not e["is_p2p"]
                    and e["state"] == "completed"]
            status[name] = {"last_enqueued_collective": max(seqs, default=-1), "last_started_collective": -1,
                            "last_completed_collective": max(done, default=-1)}
        dump = {"version": "2.10", "pg_config": config, "comm_lib_version": "2.27.5", "pg_status": status,
                "entries": ents}
        path = out / f"{prefix}{r}"
        path.write_bytes(pickle.dumps(fr_synth._same_strings(dump, {}, set()), protocol=2))
        paths.append(path)
    return paths


def main() -> None:
    ap = argparse.ArgumentParser(description="Write synthetic Megatron-style flight-recorder dumps with P2P.")
    ap.add_argument("out_dir")
    ap.add_argument("--entries", type=int, default=2000)
    ap.add_argument("--tp", type=int, default=8)
    ap.add_argument("--pp", type=int, default=4)
    ap.add_argument("--dp", type=int, default=8)
    ap.add_argument("--micro", type=int, default=8)
    ap.add_argument("--culprit", type=int, default=None)
    args = ap.parse_args()
    paths = make_dumps(args.out_dir, args.entries, args.tp, args.pp, args.dp, args.micro, args.culprit)
    print(f"wrote {len(paths)} dumps to {args.out_dir}")


if __name__ == "__main__":
    main()
