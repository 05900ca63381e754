"""Synthetic flight-recorder dumps, shaped exactly like torch's (formats/pytorch.md §1.5, checked against real
torch 2.13 gloo dumps in sample_logs/flight_recorder/): same top-level keys, entry keys and key order, tuple
`process_group`, string `ranks`, pickle protocol 2, file names `<prefix><rank>` with no extension.

Object sharing follows torch's pickler too, since it decides what a load costs. torch::jit::Pickler memoizes
strings by value and containers by pointer when shared, and FlightRecorder builds one dict per distinct
stack frame (`all_frames`) that every entry's fresh `frames` list points to: a real dump holds each frame dict
once and a BINGET per later use (seen in sample_logs/flight_recorder/gloo_*). So here frame dicts are shared
per dump, strings are made identical by value, and each entry's lists and tuple are its own objects. (Python's
pickler also puts containers that are not shared in the memo; those BINPUTs are the one difference left.)

    from benchmarks.fr_synth import make_dumps
    make_dumps("out/", ranks=1024, entries=2000, diverge_rank=17)          # NCCL style, schema 2.10

    python benchmarks/fr_synth.py out/ --ranks 8 --entries 2000 --diverge-rank 3 [--backend gloo]
        [--version 2.4] [--mode skip|shape|dtype|op] [--start-record-id 5000]
    python benchmarks/fr_synth.py out/ --megatron 8x4x32 --entries 2000 --diverge-rank 700   # TP x PP x DP

The job: `entries` collectives per rank on the default PG (all_reduce, all_gather_into_tensor, reduce_scatter,
broadcast in a fixed pattern; profiling names nccl:_all_gather_base etc. as ProcessGroupNCCL writes them). Every rank is hung in the last one. The diverging rank:
  skip  – never issued the last collective (its buffer ends one entry earlier): a desync / stopped rank;
  shape – issued it with different input sizes;  dtype – with a different dtype;  op – a different op.
`start_record_id` > 0 models a wrapped ring buffer (the healthy ranks' first record_id; the skipping rank's
buffer starts one earlier, as a real ring does). Output is deterministic.
"""
from __future__ import annotations

import argparse
import os
import pickle
from pathlib import Path

import numpy as np

VERSIONS = ("2.2", "2.3", "2.4", "2.5", "2.7", "2.10")
PREFIX = "nccl_trace_rank_"          # torch 2.7 / tutorial default; 2.11+ writes comm_lib_trace_rank_
BASE_NS = 1_795_200_000_000_000_000
STEP_NS = 2_500_000                  # 2.5 ms between collectives
TIMEOUT_MS = 600_000
_C10D = "/usr/local/lib/python3.11/site-packages/torch/distributed/distributed_c10d.py"
_LOGGER = "/usr/local/lib/python3.11/site-packages/torch/distributed/c10d_logger.py"
_OPS = [  # (profiling op, c10d function, c10d line, (input, output) shapes from a shape and the world size, as torch
          # requires them: all-gather out = in x world, reduce-scatter in = out x world)
    ("all_reduce", "all_reduce", 3245, lambda s, w: (s, s)),
    ("_all_gather_base", "all_gather_into_tensor", 4377, lambda s, w: (s, [s[0] * w] + s[1:])),
    ("_reduce_scatter_base", "reduce_scatter_tensor", 4842, lambda s, w: ([s[0] * w] + s[1:], s)),
    ("broadcast", "broadcast", 3101, lambda s, w: (s, s)),
]
_SHAPES = [[4096, 1024], [1024], [8192], [32, 4096], [50304, 768], [768]]
_DTYPES = ["BFloat16", "Float", "BFloat16", "Float"]


def _template(first_seq: int, count: int, world: int) -> list[dict]:
    """`count` entries from collective `first_seq` on, oldest first. What collective N is depends only on N,
    so two ranks whose ring buffers start at different points still agree on every shared seq id."""
    out = []
    for seq in range(first_seq, first_seq + count):
        op, fn, line, shapes_of = _OPS[0] if seq % 5 else _OPS[(seq // 5) % len(_OPS)]
        shape = list(_SHAPES[(seq * 7) % len(_SHAPES)])
        dtype = _DTYPES[(seq * 3) % len(_DTYPES)]
        frames = [
            (fn, _C10D, line),
            ("wrapper", _LOGGER, 83),
            ("_sync_grads", "/workspace/train/ddp_step.py", 88 + seq % 3),
            ("train_step", "/workspace/train/train.py", 142),
            ("main", "/workspace/train/train.py", 201),
            ("<module>", "/workspace/train/train.py", 215),
        ]
        in_shape, out_shape = shapes_of(shape, world)
        out.append({"frames": frames, "op": op, "in": [in_shape], "out": [out_shape], "dtype": dtype,
                    "record_id": seq - 1, "seq": seq})
    return out


def _entry(t: dict, rank: int, backend: str, version: str, last: bool, frame_dicts: dict) -> dict:
    gloo = backend == "gloo"
    created = BASE_NS + (t["seq"] * STEP_NS) + rank * 1_000
    frames = [frame_dicts.setdefault(f, {"name": f[0], "filename": f[1], "line": f[2]}) for f in t["frames"]]
    e = {"frames": frames, "record_id": t["record_id"], "pg_id": 0, "process_group": ("0", "default_pg")}
    if version == "2.10":
        e["thread_name"] = "pt_main_thread"
        e["thread_id"] = str(139_872_301_000_000 + rank * 4096)
    e.update({
        "collective_seq_id": t["seq"], "p2p_seq_id": 0, "op_id": t["seq"],
        "profiling_name": f"{backend}:{t['op']}", "time_created_ns": created,
        "input_sizes": [list(s) for s in t["in"]], "input_dtypes": [t["dtype"]],
        "output_sizes": [list(s) for s in t["out"]], "output_dtypes": [t["dtype"]],
        "state": "scheduled" if (last or gloo) else "completed", "time_discovered_started_ns": None,
        "time_discovered_completed_ns": None if (last or gloo) else created + 900_000,
        "retired": not last, "timeout_ms": TIMEOUT_MS, "is_p2p": False,
    })
    return e


def _diverge(t: dict, mode: str) -> dict:
    t = dict(t)
    if mode == "shape":
        t["in"] = [[d + 1 for d in t["in"][0]]]
        t["out"] = [[d + 1 for d in t["out"][0]]]
    elif mode == "dtype":
        t["dtype"] = "Float" if t["dtype"] != "Float" else "Half"
    elif mode == "op":
        t["op"], t["out"] = "broadcast", t["in"]
    return t


def _dump(entries: list[dict], world: int, backend: str, version: str) -> dict:
    last = entries[-1]["collective_seq_id"] if entries else -1
    done = last if entries and entries[-1]["retired"] else last - 1
    if backend == "gloo":   # torch 2.13 gloo: config keyed '' and ranks unknown
        config = {"": {"name": "", "desc": "", "ranks": "[]"}}
    else:
        config = {"0": {"name": "0", "desc": "default_pg", "ranks": str(list(range(world)))}}
    dump: dict = {"version": version, "pg_config": config}
    if version == "2.10":
        dump["comm_lib_version"] = "" if backend == "gloo" else "2.27.5"
    elif version == "2.7":
        dump["nccl_version"] = "2.26.2"
    dump["pg_status"] = {"0": {"last_enqueued_collective": last, "last_started_collective": -1,
                               "last_completed_collective": done}}
    dump["entries"] = entries
    return dump


def _same_strings(obj, seen: dict, done: set):
    """`obj` with equal strings made one object, so Python's pickler (memo by identity) writes each string once
    and a BINGET after, as torch's does (memo by value). Containers keep their identity (and so their sharing);
    a shared dict (a stack frame) is visited once (`done` holds the ids of those seen)."""
    if type(obj) is str:
        return seen.setdefault(obj, obj)
    if type(obj) is dict and id(obj) not in done:
        done.add(id(obj))
        items = [(_same_strings(k, seen, done), _same_strings(v, seen, done)) for k, v in obj.items()]
        obj.clear()
        obj.update(items)
    elif type(obj) is list:
        obj[:] = [_same_strings(v, seen, done) for v in obj]
    elif type(obj) is tuple:
        return tuple(_same_strings(v, seen, done) for v in obj)
    return obj


def make_dumps(out_dir: str | os.PathLike, ranks: int, entries: int, diverge_rank: int | None,
               backend: str = "nccl", version: str = "2.10", mode: str = "skip",
               start_record_id: int = 0, prefix: str = PREFIX, only=None) -> list[Path]:
    """Write one pickle per rank (`<prefix><rank>`) into out_dir and return their paths; `only`: write just
    these ranks' dumps of the `ranks`-rank job."""
    if backend not in ("nccl", "gloo") or version not in VERSIONS or mode not in ("skip", "shape", "dtype", "op"):
        raise ValueError(f"unsupported backend/version/mode: {backend}/{version}/{mode}")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    template = _template(start_record_id + 1, entries, ranks)
    shifted = _template(max(1, start_record_id), entries if start_record_id else entries - 1, ranks)
    def pickled(rank: int) -> bytes:
        rows = template
        if rank == diverge_rank:
            rows = shifted if mode == "skip" else template[:-1] + [_diverge(template[-1], mode)]
        hung = rank != diverge_rank or mode != "skip"
        frame_dicts: dict = {}
        ents = [_entry(t, rank, backend, version, hung and i == len(rows) - 1, frame_dicts)
                for i, t in enumerate(rows)]
        return pickle.dumps(_same_strings(_dump(ents, ranks, backend, version), {}, set()), protocol=2)

    todo = list(range(ranks) if only is None else only)
    patch = _Patcher.of(pickled, todo, diverge_rank, version) if len(todo) > 64 else None
    paths = []
    for rank in todo:
        path = out / f"{prefix}{rank}"
        path.write_bytes(patch(rank) if patch and rank != diverge_rank else pickled(rank))
        paths.append(path)
    return paths


class _Patcher:
    """Many ranks' dumps in a fraction of the time: the healthy ranks' pickles differ only in the rank's own
    numbers (each entry's time_created_ns and completion time, rank x 1,000 ns later; the thread id), which are
    written into a copy of rank 0's bytes. Checked against the pickler on two ranks; None when they differ."""

    def __init__(self, base: bytes, times: list[int], thread: bytes):
        self.base, self.thread_at = base, base.find(thread)
        at, self.values = [], []
        for value in times:
            found = base.find(b"\x8a\x08" + value.to_bytes(8, "little", signed=True))
            if found >= 0:
                at.append(found + 2)
                self.values.append(value)
        self.at = np.array(at, np.int64)[:, None] + np.arange(8)
        self.values = np.array(self.values, np.int64)

    @classmethod
    def of(cls, pickled, todo: list[int], diverge_rank, version: str) -> _Patcher | None:
        import pickle as _pickle
        healthy = [r for r in todo if r != diverge_rank]
        if version != "2.10" or len(healthy) < 3 or 0 in (diverge_rank,):
            return None
        base = pickled(0)
        dump = _pickle.loads(base)
        times = [t for e in dump["entries"] for t in (e["time_created_ns"], e["time_discovered_completed_ns"]) if t]
        patcher = cls(base, times, dump["entries"][0]["thread_id"].encode())
        if len(patcher.values) != len(times) or patcher.thread_at < 0:
            return None
        return patcher if all(patcher(r) == pickled(r) for r in (healthy[1], healthy[-1])) else None

    def __call__(self, rank: int) -> bytes:
        buf = np.frombuffer(self.base, np.uint8).copy()
        buf[self.at] = (self.values + rank * 1_000).astype("<i8").view(np.uint8).reshape(-1, 8)
        thread = str(139_872_301_000_000 + rank * 4096).encode()
        buf[self.thread_at:self.thread_at + len(thread)] = np.frombuffer(thread, np.uint8)
        return buf.tobytes()


# ---- a Megatron layout: TP x PP x DP groups, interleaved ----

MEGATRON_STEP = [  # (group kind, profiling op, input shape, output shape as a function of the group size)
    *[("tp", "all_reduce", [2048, 1024], lambda s, n: s)] * 4,
    ("pp", "all_reduce", [50304, 64], lambda s, n: s),                 # tied embedding grads (first, last stage)
    *[("tp", "all_reduce", [2048, 1024], lambda s, n: s)] * 4,
    ("dp", "_reduce_scatter_base", [65536], lambda s, n: [s[0] // n]),
    ("dp", "all_reduce", [1], lambda s, n: s),                          # grad norm
    ("dp", "_all_gather_base", [2048], lambda s, n: [s[0] * n]),
]
_MEGATRON_DESCS = {"tp": "TENSOR_MODEL_PARALLEL_GROUP", "pp": "PIPELINE_MODEL_PARALLEL_GROUP",
                   "dp": "DATA_PARALLEL_GROUP"}


def megatron_groups(tp: int, pp: int, dp: int) -> dict[str, tuple[str, list[int]]]:
    """PG name -> (desc, global ranks), named in the order Megatron creates them (rank = t + tp * (d + dp * p))."""
    rank = lambda t, d, p: t + tp * (d + dp * p)            # noqa: E731
    groups = {"0": ("default_pg", list(range(tp * pp * dp)))}
    for kind, members in (("tp", [[rank(t, d, p) for t in range(tp)] for p in range(pp) for d in range(dp)]),
                          ("pp", [[rank(t, d, p) for p in range(pp)] for t in range(tp) for d in range(dp)]),
                          ("dp", [[rank(t, d, p) for d in range(dp)] for p in range(pp) for t in range(tp)])):
        for ranks in members:
            groups[str(len(groups))] = (_MEGATRON_DESCS[kind], ranks)
    return groups


def make_megatron_dumps(out_dir: str | os.PathLike, tp: int = 8, pp: int = 4, dp: int = 32, entries: int = 2000,
                        stuck_rank: int | None = None, only=None, prefix: str = PREFIX) -> list[Path]:
    """A TP x PP x DP job (default 1,024 ranks in 417 groups: the world, 128 TP, 256 PP, 32 DP): every rank issues the
    collectives of MEGATRON_STEP in its own TP, PP and DP groups, `entries` in all (schema 2.10, NCCL, no frames:
    as a production dump written on timeout). Every rank hangs in its last collective (a TP all_reduce); the
    `stuck_rank` never issued it (its main thread stopped), so its TP peers wait for it there."""
    groups = megatron_groups(tp, pp, dp)
    world = tp * pp * dp
    mine: dict[int, dict[str, str]] = {r: {} for r in range(world)}
    for name, (desc, ranks) in groups.items():
        kind = next((k for k, d in _MEGATRON_DESCS.items() if d == desc), None)
        for r in ranks:
            if kind:
                mine[r][kind] = name
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for rank in range(world) if only is None else only:
        n = entries - 1 if rank == stuck_rank else entries
        seqs: dict[str, int] = {}
        ents = []
        for i in range(n):
            kind, op, shape, out_of = MEGATRON_STEP[i % len(MEGATRON_STEP)]
            pg = mine[rank][kind]
            size = len(groups[pg][1])
            seqs[pg] = seqs.get(pg, 0) + 1
            last = i == entries - 1
            created = BASE_NS + i * STEP_NS + rank * 1_000
            ents.append({
                "frames": [], "record_id": i, "pg_id": int(pg), "process_group": (pg, groups[pg][0]),
                "thread_name": "pt_main_thread", "thread_id": str(139_872_301_000_000 + rank * 4096),
                "collective_seq_id": seqs[pg], "p2p_seq_id": 0, "op_id": seqs[pg], "profiling_name": f"nccl:{op}",
                "time_created_ns": created, "input_sizes": [list(shape)], "input_dtypes": ["BFloat16"],
                "output_sizes": [list(out_of(shape, size))], "output_dtypes": ["BFloat16"],
                "state": "started" if last else "completed", "time_discovered_started_ns": created + 2_000,
                "time_discovered_completed_ns": None if last else created + 900_000, "retired": not last,
                "timeout_ms": TIMEOUT_MS, "is_p2p": False})
        config = {name: {"name": name, "desc": desc, "ranks": str(ranks)}
                  for name, (desc, ranks) in groups.items() if rank in ranks}
        status = {name: {"last_enqueued_collective": seqs.get(name, 0), "last_started_collective": -1,
                         "last_completed_collective": seqs.get(name, 0) - 1} for name in config}
        dump = {"version": "2.10", "pg_config": config, "comm_lib_version": "2.27.5", "pg_status": status,
                "entries": ents}
        path = out / f"{prefix}{rank}"
        path.write_bytes(pickle.dumps(_same_strings(dump, {}, set()), protocol=2))
        paths.append(path)
    return paths


def main() -> None:
    ap = argparse.ArgumentParser(description="Write synthetic torch flight-recorder dumps (one pickle per rank).")
    ap.add_argument("out_dir")
    ap.add_argument("--ranks", type=int, default=8)
    ap.add_argument("--entries", type=int, default=2000)
    ap.add_argument("--diverge-rank", type=int, default=None)
    ap.add_argument("--backend", choices=("nccl", "gloo"), default="nccl")
    ap.add_argument("--version", choices=VERSIONS, default="2.10")
    ap.add_argument("--mode", choices=("skip", "shape", "dtype", "op"), default="skip")
    ap.add_argument("--start-record-id", type=int, default=0)
    ap.add_argument("--prefix", default=PREFIX)
    ap.add_argument("--megatron", metavar="TPxPPxDP", help="a Megatron layout instead, e.g. 8x4x32 (--ranks ignored; "
                    "--diverge-rank is the stuck rank)")
    args = ap.parse_args()
    if args.megatron:
        tp, pp, dp = (int(x) for x in args.megatron.lower().split("x"))
        paths = make_megatron_dumps(args.out_dir, tp, pp, dp, args.entries, args.diverge_rank, prefix=args.prefix)
        print(f"wrote {len(paths)} dumps to {args.out_dir}")
        return
    paths = make_dumps(args.out_dir, args.ranks, args.entries, args.diverge_rank, args.backend, args.version,
                       args.mode, args.start_record_id, args.prefix)
    print(f"wrote {len(paths)} dumps to {args.out_dir}")


if __name__ == "__main__":
    main()
