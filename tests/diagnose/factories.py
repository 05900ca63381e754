"""Event factories for diagnosis tests (torchfrtrace's `create_one_entry` idea): real-format text, contract fields.

Every factory returns a `model.Event` shaped exactly as docs/events.md says the parsers emit it.
"""
from __future__ import annotations

from nccl_forensics.model import Event

NCCL_DTYPES = {"int8": 0, "uint8": 1, "int32": 2, "int64": 4, "float16": 6, "float32": 7, "float64": 8, "bfloat16": 9}
NCCL_OPS = {"allreduce": "AllReduce", "allgather": "AllGather", "broadcast": "Broadcast",
            "reducescatter": "ReduceScatter", "reduce": "Reduce", "send": "Send", "recv": "Recv"}
FR_DTYPES = {"float32": "Float", "float64": "Double", "bfloat16": "BFloat16", "float16": "Half", "int64": "Long"}
FR_OPS = {"allreduce": "all_reduce", "allgather": "_allgather_base", "broadcast": "broadcast",
          "reducescatter": "reduce_scatter_tensor", "barrier": "barrier"}


def comm_init(rank, nranks=4, comm_id="0x7a1b2c3d4e5f6071", file=None, line=5, host="node1", pid=None, ptr=None):
    pid = pid or 1000 + rank
    ptr = ptr or f"0x55d0c0{rank:04x}"
    text = (f"{host}:{pid}:{pid} [{rank % 8}] NCCL INFO ncclCommInitRank comm {ptr} rank {rank} nranks {nranks} "
            f"cudaDev {rank % 8} nvmlDev {rank % 8} busId {rank + 1}000 commId {comm_id} - Init COMPLETE")
    return Event("comm_init", "nccl", file or f"rank{rank}.log", line, rank=rank, host=host, pid=pid,
                 device=rank % 8, comm=comm_id, text=text,
                 data={"phase": "complete", "comm_ptr": ptr, "rank": rank, "nranks": nranks, "cuda_dev": rank % 8,
                       "nvml_dev": rank % 8, "bus_id": f"{rank + 1}000", "comm_id": comm_id, "nnodes": None,
                       "local_ranks": None, "local_rank": None})


def coll(rank, opcount, op="allreduce", count=1024, dtype="float32", nranks=4, comm_id="0x7a1b2c3d4e5f6071",
         file=None, line=None, host="node1", pid=None, ptr=None):
    pid = pid or 1000 + rank
    ptr = ptr or f"0x55d0c0{rank:04x}"
    root = 0
    text = (f"{host}:{pid}:{pid} [{rank % 8}] NCCL INFO {NCCL_OPS[op]}: opCount {opcount:x} sendbuff 0x7f0000001000 "
            f"recvbuff 0x7f0000002000 count {count} datatype {NCCL_DTYPES[dtype]} op 0 root {root} comm {ptr} "
            f"[nranks={nranks}] stream 0x55d0d0000000")
    return Event("coll", "nccl", file or f"rank{rank}.log", line or 10 + opcount, rank=rank, host=host, pid=pid,
                 device=rank % 8, comm=comm_id, text=text,
                 data={"op": op, "op_raw": NCCL_OPS[op], "opcount": opcount, "count": count, "dtype": dtype,
                       "redop": "sum", "root": root, "peer": None, "comm_ptr": ptr, "nranks": nranks,
                       "stream": "0x55d0d0000000", "sendbuff": "0x7f0000001000", "recvbuff": "0x7f0000002000"})


def fr_dump(rank, world_size=4, backend="nccl", version="2.10", file=None, ranks=None):
    ranks = list(range(world_size)) if ranks is None else ranks
    return Event("fr_dump", "flight_recorder", file or f"nccl_trace_rank_{rank}", 0, rank=rank, text="",
                 data={"version": version, "rank": rank, "world_size": world_size, "backend": backend,
                       "pg_config": {"0": {"desc": "default_pg", "ranks": ranks}}})


def fr_entry(rank, seq, op="allreduce", shape=(1024,), dtype="float32", state="completed", pg="0", file=None,
             record_id=None, frames=None, backend="nccl", time_ns=None):
    sizes = [list(shape)]
    raw = f"{backend}:{FR_OPS.get(op, op)}"
    frames = frames if frames is not None else [
        {"file": "/usr/lib/python3/site-packages/torch/distributed/distributed_c10d.py", "line": 3245,
         "name": "all_reduce"},
        {"file": "/work/train.py", "line": 42, "name": "train_step"}]
    created = time_ns if time_ns is not None else 1_700_000_000_000_000_000 + seq * 1_000_000 + rank * 1000
    rid = record_id if record_id is not None else seq - 1
    text = f"#{rid} pg={pg} seq={seq} {raw} in={sizes} {FR_DTYPES.get(dtype, dtype)} {state}"
    return Event("fr_entry", "flight_recorder", file or f"nccl_trace_rank_{rank}", rid + 1, rank=rank,
                 comm=pg, time=created / 1e9, text=text,
                 data={"pg_name": pg, "pg_desc": "default_pg", "record_id": rid, "seq": seq, "p2p_seq": 0,
                       "op": op, "op_raw": raw, "state": state, "in_sizes": sizes, "out_sizes": sizes,
                       "in_dtypes": [dtype], "out_dtypes": [dtype], "time_created_ns": created,
                       "time_started_ns": None, "time_completed_ns": created + 5000 if state == "completed" else None,
                       "timeout_ms": 600000, "frames": frames, "is_p2p": False})


def pyspy_thread(rank, frames, state="idle", file=None, pid=None, line=4):
    """`frames` innermost first: [(function, file, line)]."""
    pid = pid or 1000 + rank
    return Event("pyspy_thread", "pyspy", file or f"pyspy_rank{rank}.txt", line, rank=rank, pid=pid, tid=pid,
                 text=f'Thread {pid} ({state}): "MainThread"',
                 data={"thread_id": pid, "thread_id_raw": str(pid), "thread_name": "MainThread", "state": state,
                       "gil": False, "frames": [{"function": f, "file": p, "line": n, "native": False, "locals": {}}
                                               for f, p, n in frames]})


IN_ALLREDUCE = [("all_reduce", "torch/distributed/distributed_c10d.py", 3252),
                ("wrapper", "torch/distributed/c10d_logger.py", 83),
                ("train_step", "train.py", 42), ("<module>", "train.py", 90)]
BUSY_LOADING = [("__next__", "torch/utils/data/dataloader.py", 701), ("load_batch", "train.py", 17),
                ("<module>", "train.py", 88)]
SLEEPING = [("slow_step", "train.py", 30), ("<module>", "train.py", 88)]


def child_failed(rank, exitcode, signal=None, root_cause=False, pid=None, line=40, file="console.log"):
    pid = pid or 1000 + rank
    sig = f"  ({signal})" if signal else " "
    text = f"  exitcode  : {exitcode} (pid: {pid}){sig}"
    return Event("child_failed", "torchrun", file, line, rank=rank, host="node1", pid=pid, text=text,
                 data={"root_cause": root_cause, "time": "2026-11-21_13:38:15", "host": "node1", "rank": rank,
                       "local_rank": rank, "exitcode": exitcode, "signal": signal, "pid": pid, "error_file": None,
                       "traceback": None})


def sigterm_sent(pid, line=30, file="console.log"):
    text = (f"W1121 13:38:17.248000 5597 site-packages/torch/distributed/elastic/multiprocessing/api.py:897] "
            f"Sending process {pid} closing signal SIGTERM")
    return Event("sigterm_sent", "torchrun", file, line, text=text, data={"pid": pid, "signal": "SIGTERM"})


def gloo_error(rank, category, expected=None, received=None, timeout_ms=None, peer=None, op=None, line=12,
               file=None):
    texts = {
        "size_mismatch": (f"[rank{rank}]: RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:534] "
                          f"op.preamble.length <= op.nbytes. {received} vs {expected}"),
        "connection_closed": (f"[rank{rank}]: RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:"
                              f"598] Connection closed by peer [{peer}]"),
        "timeout": (f"[rank{rank}]: RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:"
                    f"81] Timed out waiting {timeout_ms}ms for {op} operation to complete"),
    }
    return Event("gloo_error", "traceback", file or f"rank{rank}.err", line, rank=rank, text=texts.get(category, ""),
                 data={"category": category, "expected_bytes": expected, "received_bytes": received,
                       "timeout_ms": timeout_ms, "peer": peer, "op": op})


def traceback(rank, exc_type, message, line=3, file=None, frames=None):
    return Event("traceback", "traceback", file or f"rank{rank}.err", line, rank=rank,
                 text=f"[rank{rank}]: {exc_type}: {message}",
                 data={"exc_type": exc_type, "message": message, "frames": frames or [], "chained": False,
                       "start_line": line})


def oom_kill(pid, anon_rss_kb=204160, line=7, file="dmesg.txt"):
    text = (f"[ 1234.567890] Memory cgroup out of memory: Killed process {pid} (python3) total-vm:221444kB, "
            f"anon-rss:{anon_rss_kb}kB, file-rss:6316kB, shmem-rss:0kB, UID:0 pgtables:464kB oom_score_adj:0")
    return Event("oom_kill", "kernel", file, line, pid=pid, text=text,
                 data={"victim_pid": pid, "task": "python3", "memcg": "/ncclf", "constraint": "CONSTRAINT_MEMCG",
                       "total_vm_kb": 221444, "anon_rss_kb": anon_rss_kb, "file_rss_kb": 6316, "shmem_rss_kb": 0,
                       "oom_score_adj": 0, "cgroup_oom": True})


def cuda_oom(rank, requested=2 * 1024 ** 3, gpu=0, line=20, file=None):
    text = (f"[rank{rank}]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU {gpu} has a "
            f"total capacity of 79.10 GiB of which 1.06 GiB is free.")
    return Event("oom", "traceback", file or f"rank{rank}.err", line, rank=rank, text=text,
                 data={"oom_kind": "cuda", "requested_bytes": requested, "gpu": gpu, "total_bytes": None,
                       "free_bytes": None, "allocated_bytes": None, "reserved_bytes": None})


def watchdog_timeout(rank, seq, op="allreduce", numel=1024, pg="0", line=50, file=None, timeout_ms=600000):
    text = (f"[rank{rank}]:[E1121 13:38:17.248000 100 ProcessGroupNCCL.cpp:632] [Rank {rank}] Watchdog caught "
            f"collective operation timeout: WorkNCCL(SeqNum={seq}, OpType={op.upper()}, NumelIn={numel}, "
            f"NumelOut={numel}, Timeout(ms)={timeout_ms}) ran for {timeout_ms + 17} milliseconds before timing out.")
    return Event("watchdog_timeout", "torch", file or f"rank{rank}.err", line, rank=rank, text=text,
                 data={"pg_id": 0, "pg_name": pg, "seq": seq, "op": op, "numel_in": numel, "numel_out": numel,
                       "timeout_ms": timeout_ms, "elapsed_ms": timeout_ms + 17, "backend": "nccl"})


def fingerprint_mismatch(rank, other_rank, seq=1, dtype="float32", other_dtype="float64", shape=(1024,),
                         other_shape=(1024,), op="allreduce", other_op="allreduce", line=18, file=None):
    text = (f"[rank{rank}]: RuntimeError: Detected mismatch between collectives on ranks. Rank {rank} is running "
            f"collective: CollectiveFingerPrint(SequenceNumber={seq}, OpType={op.upper()}, TensorShape="
            f"{list(shape)}, TensorDtypes={FR_DTYPES[dtype]}, ...), but Rank {other_rank} is running collective: "
            f"CollectiveFingerPrint(SequenceNumber={seq}, OpType={other_op.upper()}, TensorShape={list(other_shape)}, "
            f"TensorDtypes={FR_DTYPES[other_dtype]}, ...)")
    return Event("fingerprint_mismatch", "torch", file or f"rank{rank}.err", line, rank=rank, text=text,
                 data={"rank": rank, "seq": seq, "op": op, "shapes": [list(shape)], "dtypes": [dtype],
                       "device_types": ["cpu"], "other_rank": other_rank, "other_seq": seq, "other_op": other_op,
                       "other_shapes": [list(other_shape)], "other_dtypes": [other_dtype]})


def nccl_version(rank, version="2.21.5", host="node1", file=None):
    pid = 1000 + rank
    return Event("nccl_version", "nccl", file or f"rank{rank}.log", 1, rank=rank, host=host, pid=pid,
                 text=f"{host}:{pid}:{pid} [{rank % 8}] NCCL INFO NCCL version {version}+cuda12.4",
                 data={"version": version, "suffix": "", "cuda": "12.4", "rccl": False, "rccl_version": None})


def bootstrap(rank, iface="eth0", addr="10.0.0.1", host="node1", file=None):
    pid = 1000 + rank
    return Event("bootstrap", "nccl", file or f"rank{rank}.log", 2, rank=rank, host=host, pid=pid,
                 text=f"{host}:{pid}:{pid} [{rank % 8}] NCCL INFO Bootstrap : Using {iface}:{addr}<0>",
                 data={"interfaces": [{"name": iface, "addr": addr}]})


def nccl_warn(rank, message, category="socket", host="node1", file=None, line=60, time=None):
    pid = 1000 + rank
    return Event("warn", "nccl", file or f"rank{rank}.log", line, rank=rank, host=host, pid=pid, time=time,
                 text=f"{host}:{pid}:{pid + 5} [{rank % 8}] misc/socket.cc:50 NCCL WARN {message}",
                 data={"message": message, "src_file": "misc/socket.cc", "src_line": 50, "function": None,
                       "category": category})


def nccl_job(nranks=4, ops=20, diverge_rank=None, at=10, field=None, value=None, stop_at=None):
    """Events for an NCCL-only job: every rank logs init + `ops` COLL lines; one may diverge or stop."""
    events = []
    for r in range(nranks):
        events.append(comm_init(r, nranks))
        for i in range(ops):
            if r == diverge_rank and stop_at is not None and i >= stop_at:
                break
            kw = {"op": "allreduce", "count": 1024, "dtype": "float32"}
            if r == diverge_rank and field and i == at:
                kw[field] = value
            events.append(coll(r, i, nranks=nranks, **kw))
    return events


def fr_job(nranks=4, entries=20, diverge_rank=None, at=10, field=None, value=None, stop_at=None, backend="nccl",
           start=None):
    """Flight-recorder events for a job; `start[r]` drops rank r's first entries (a wrapped ring buffer)."""
    events = []
    for r in range(nranks):
        events.append(fr_dump(r, nranks, backend))
        first = (start or {}).get(r, 1)
        for seq in range(first, entries + 1):
            if r == diverge_rank and stop_at is not None and seq > stop_at:
                break
            kw = {"op": "allreduce", "shape": (1024,), "dtype": "float32"}
            if r == diverge_rank and field and seq == at:
                kw[field] = value
            state = "completed" if seq < entries else "scheduled"
            events.append(fr_entry(r, seq, state=state, backend=backend, **kw))
    return events
