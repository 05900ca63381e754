"""X801 reported-class: a message the software prints only for one kind of failure, when no detector reads it.

What it detects:
    A line whose message catalogue entry names the class it implies (sources/catalogue/, `implies`) and that no
    dedicated detector reads: NCCL's ``message truncated : receiving N bytes instead of M`` and the IB transport's
    size checks (shape mismatch), DDP's check at construction that every rank built the same model (``DDP expects
    same model across all ranks``, ``params[N] ... appears not to match sizes|strides``: shape mismatch, said as
    different models), a store or rendezvous that timed out waiting for ranks that never joined
    (``7/8 clients joined``, store-based barrier, ``wait timeout``: a rank missing, stuck or gone), NCCL's RAS
    report of live processes that sent no data (``Missing communicator data from N job processes``; their ranks are
    named), NCCL's ``Mismatched NCCL version detected`` (version mismatch), a straggler detector's report of the
    ranks whose GPUs fell behind (NVIDIA's resiliency extension: straggler).

Why it hangs or dies:
    The line is the software's own diagnosis: the receiving rank found a message of another size than it posted,
    the store counted fewer ranks than the world size, NCCL compared the ranks' versions.

Evidence it needs:
    The line itself (any log the job printed it to).

Example:
    ``NCCL WARN NET/Socket : peer 10.0.0.2<44817> message truncated : receiving 8192 bytes instead of 4096`` →
    ``shape_mismatch: NCCL reported a message of another size than the one posted``.

Known limits:
    One line names the class, rarely the rank at fault: confidence is low, and every dedicated detector's finding
    ranks above this one's. A store barrier's count names the absent ranks only when every arrival reported it and
    the console shows no rank beyond the barrier's size (a subgroup's barrier pasted alone would read as the world's).
    A count above the world size (torch 1.9 - 2.0 wait for `worker_count == world_size`) is no missing rank but a
    launch that started the script more times than the world (or two jobs on one store): it reads as
    unclassified_failure, with that fix.
    Where the store's server reports it could not accept clients, the store's count names no one (they were refused).

Suggested fix:
    The fix of the class it names; collect the flight recorder (TORCH_FR_BUFFER_SIZE=2000) to see every rank's
    sizes and positions.
"""
from __future__ import annotations

from ..model import Confidence, clip, ranks_phrase, ranks_text
from .base import BaseDetector, Context

# The classes a line may imply that no dedicated detector reads from the line alone, with the verdict class each
# becomes (the catalogue's `missing_rank`: a rank that never arrived, R203's class).
_CLASS = {"shape_mismatch": "shape_mismatch", "missing_rank": "stuck_rank", "version_mismatch": "version_mismatch",
          "dtype_mismatch": "dtype_mismatch", "op_mismatch": "op_mismatch", "straggler": "straggler"}
_READ_ELSEWHERE = frozenset({"gloo_error", "monitored_barrier"})      # C101/D-gloo and R203 read these
_CUDA_MISMATCH = frozenset({"cuda_driver", "cuda_stub", "cuda_arch"})   # V501 reads the CUDA driver/build mismatches
_SAYS = {"shape_mismatch": "a message of another size than the one posted (the ranks disagree on a tensor size)",
         "stuck_rank": "fewer ranks than expected arrived (a rank never joined: stuck, slow to start or gone)",
         "version_mismatch": "the ranks run different NCCL versions",
         "dtype_mismatch": "that the ranks submitted one collective with different data types",
         "op_mismatch": "that the ranks submitted different collectives (or reduce ops) under one name",
         "straggler": "ranks whose GPUs run slower than the others' or than their own best",
         # version_mismatch where every line says the caller's NCCL build and the library it loaded disagree
         "nccl_caller_build": "the program was built against another NCCL than the library it loaded",
         # shape_mismatch where every line is DDP's own check of the model at construction (no message was sent)
         "ddp_model_mismatch": "that the ranks built different models (DDP compared each parameter's count, sizes "
                               "or strides with process 0's before training)"}
_FIX = {"shape_mismatch": "make the tensor shapes (and NCCL_PROTO/NCCL_ALGO settings) agree on every rank; the flight "
                          "recorder (TORCH_FR_BUFFER_SIZE=2000) shows each rank's sizes.",
        "stuck_rank": "find the rank that never joined (its own log, its node's dmesg); py-spy dump it if it is alive.",
        "version_mismatch": "run one NCCL version everywhere: one image/environment on every node.",
        "dtype_mismatch": "make every rank pass the same dtype to the collective (a rank-dependent cast, autocast or "
                          "a metric computed in another precision).",
        "op_mismatch": "make every rank issue the same collectives in the same order: look for a rank-dependent "
                       "branch near the named tensor.",
        "straggler": "look at the named ranks' GPUs and hosts (clocks and throttling in nvidia-smi -q, CPU contention, "
                     "the data loader); the others wait for them at every collective.",
        "nccl_caller_build": "load the NCCL the program was built with (torch's own: drop an LD_LIBRARY_PATH or "
                             "LD_PRELOAD that points at another libnccl) or rebuild the program against the library "
                             "you load.",
        "ddp_model_mismatch": "build the same model on every rank before wrapping it in DDP: the same config and "
                              "checkpoint, no rank-dependent module, the same memory layout everywhere (channels_last "
                              "on every rank or on none; .contiguous() parameters a checkpoint load left strided)."}
# categories (catalogue `data.category`) that say more than their class's phrase when every line has them
_SAID_BY_CATEGORY = {"version_mismatch": "nccl_caller_build", "shape_mismatch": "ddp_model_mismatch"}


class ReportedClass(BaseDetector):
    code, name, cls = "X801", "reported-class", "unclassified_failure"
    needs = ("failures",)

    def check(self, ctx: Context):
        found: dict[str, list] = {}
        for ev in ctx.events:
            d = ev.data
            cls = _CLASS.get(d.get("implies") or "")
            if cls is None or d.get("meaning") != "failure" or ev.kind in _READ_ELSEWHERE \
                    or d.get("category") in _CUDA_MISMATCH:
                continue
            found.setdefault(cls, []).append(ev)
        over = _over_joined(found.get("stuck_rank", []))
        if over:
            found["stuck_rank"] = [ev for ev in found["stuck_rank"] if ev not in over]
            if not found["stuck_rank"]:
                del found["stuck_rank"]
            yield self._over_joined_finding(over)
        if _store_refused_clients(ctx):
            found.pop("stuck_rank", None)                # the absent ranks were refused, not stuck (X901 reads it)
        for cls, events in found.items():
            ranks = sorted({ev.rank for ev in events if ev.rank is not None})
            where = f" (rank {ranks_text(ranks)})" if ranks else ""
            # a report that names the ranks at fault (a shape report's odd ones, a straggler report's slow ones, NCCL
            # RAS's that sent no data) names the culprits
            blamed = sorted({r for ev in events for r in ev.data.get("ranks_at_fault") or ()})
            if blamed:
                where += f"; it names {ranks_phrase(blamed)}"
            elif cls == "stuck_rank" and (blamed := _absent_from_count(events, ctx)):
                where += f"; the one(s) that did not report: {ranks_phrase(blamed)}"
            said = _said(cls, events)
            finding = self.finding(blamed, f"the software reported {_SAYS[said]}{where}{_tally(events)}: "
                                   f"{clip(events[0].text.strip(), 160)}", Confidence.LOW, events[:3], _FIX[said])
            finding.cls = cls
            yield finding

    def _over_joined_finding(self, events):
        count, world = events[0].data["count"], events[0].data["nranks"]
        return self.finding([], f"more processes joined the store barrier than its world size ({count} for "
                            f"world_size={world}): no rank is missing, the script was started more times than the "
                            f"world has ranks{_tally(events)}: {clip(events[0].text.strip(), 160)}", Confidence.LOW,
                            events[:3], _OVER_JOINED_FIX)


def _said(cls: str, events) -> str:
    """The phrase key for a class: its category's own where every line has that category, else the class's."""
    category = _SAID_BY_CATEGORY.get(cls)
    return category if category and all(ev.data.get("category") == category for ev in events) else cls


_OVER_JOINED_FIX = ("start one process per rank: an srun/mpirun task count that matches a script which spawns no "
                    "workers of its own (or one task per node that spawns its GPUs), and give each job its own store "
                    "(a fresh MASTER_PORT or init file: a requeued job must not reuse the old one).")


def _over_joined(events) -> list:
    """The store-barrier timeouts whose count is above the world size. torch 1.9 - 2.0's `_store_based_barrier`
    loops `while worker_count != world_size`, so once more processes than the world added themselves to the key
    (a launcher that starts the script per task while the script spawns the world's workers, two jobs on one store,
    a requeued job on its old file store) the barrier can never be met; no rank is missing."""
    return [ev for ev in events if isinstance(ev.data.get("count"), int) and isinstance(ev.data.get("nranks"), int)
            and ev.data["count"] > ev.data["nranks"]]


def _store_refused_clients(ctx: Context) -> bool:
    """Did the store's server report that it could not accept clients (the libuv server's failed accept, out of
    file descriptors)? A store wait that counted too few ranks then names no rank that never arrived."""
    return any(ev.data.get("category") == "store_refused" and ev.data.get("meaning") == "failure" for ev in ctx.events)


def _absent_from_count(events, ctx: Context) -> list[int]:
    """The ranks a count of arrivals left out: a store barrier counts its arrivals, and every rank that arrived
    waits there and times out, so where the ranks that reported the timeout are as many as the count says arrived,
    and the console shows no rank at or above the barrier's size (nor states another world), the barrier is the
    world's and the ranks below its size that did not report never arrived. Nothing where the counts disagree.
    Limit: a subgroup's barrier (new_group) of the same size pasted without its other ranks would read the same."""
    counted = [ev for ev in events if isinstance(ev.data.get("count"), int) and isinstance(ev.data.get("nranks"), int)]
    counts = {(ev.data["count"], ev.data["nranks"]) for ev in counted}
    if len(counts) != 1:
        return []
    count, world = counts.pop()
    reporters = {ev.rank for ev in counted if ev.rank is not None}
    stated = ctx.expected.size if ctx.expected is not None else None
    if len(reporters) != count or stated not in (None, world) or any(r >= world for r in set(ctx.world) | reporters):
        return []
    return sorted(set(range(world)) - reporters)


def _tally(events) -> str:
    """How many of how many arrived, where the line counts them (a store barrier's `world_size=2048,
    worker_count=1792`, `7/8 clients joined`): at thousands of ranks the count is the finding, and the quoted line
    is cut before it."""
    for ev in events:
        count, world = ev.data.get("count"), ev.data.get("nranks")
        if isinstance(count, int) and isinstance(world, int) and 0 <= count < world:
            return f"; {count} of {world} arrived, {world - count} never did"
        if isinstance(count, int) and isinstance(world, int) and count > world:
            return f"; {count - world} more than the world arrived"
    return ""
