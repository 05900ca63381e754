"""M301 oom: a rank ran out of memory — CUDA, the CPU allocator, or the kernel/cgroup OOM killer.

What it detects:
    ``torch.OutOfMemoryError: CUDA out of memory`` (and HIP/NCCL variants), ``DefaultCPUAllocator: can't
    allocate memory``, the kernel's ``Killed process <pid>`` / ``Memory cgroup out of memory`` lines
    matched to a rank by pid, Slurm's ``oom-kill event`` and Kubernetes ``OOMKilled``.

Why it hangs or dies:
    The rank dies (SIGKILL from the OOM killer, or an exception); its peers then wait in the next
    collective until the timeout, or fail at once on gloo with "Connection closed by peer".

Evidence it needs:
    The rank's traceback, or ``dmesg``/``journalctl -k`` plus a pid→rank map (torchrun's failure summary,
    NCCL init lines or py-spy dumps carry pids).

Example:
    ``ncclf diagnose sample_logs/bundles/real-cgroup-oom`` →
    ``oom: rank 1 (pid 14023) was killed by the kernel OOM killer (cgroup /ncclf, anon-rss 199.4 MiB)``.

Known limits:
    A kernel OOM line whose pid matches no known rank is reported without a rank (and a SIGKILLed rank,
    if exactly one, is named as the likely victim).

Suggested fix:
    Reduce that rank's memory (batch size, activation checkpointing, CPU offload), raise the cgroup/job
    memory limit, and check for a leak growing step by step.
"""
from __future__ import annotations

from ..model import Confidence
from .base import BaseDetector, Context


def _mib(nbytes) -> str:
    return f"{nbytes / 2 ** 20:.1f} MiB" if isinstance(nbytes, (int, float)) else "an unknown amount"


class OutOfMemory(BaseDetector):
    code, name, cls = "M301", "oom", "oom"
    needs = ("oom", "errors")

    def check(self, ctx: Context):
        pid_rank = {pid: st.rank for st in ctx.ranks.values() for pid in st.pids}
        killed = [st.rank for st in ctx.ranks.values() if st.end == "killed"]
        for ev in ctx.of("oom_kill"):
            pid = ev.data.get("victim_pid")
            rank = pid_rank.get(pid, ev.rank)
            guess = rank is None and len(killed) == 1
            ranks = [killed[0]] if guess else ([rank] if rank is not None else [])
            where = f"cgroup {ev.data.get('memcg')}" if ev.data.get("cgroup_oom") else "host memory"
            rss = _mib((ev.data.get("anon_rss_kb") or 0) * 1024)
            who = f"rank {ranks[0]} (pid {pid})" if ranks else f"pid {pid} (no rank known)"
            msg = f"{who} was killed by the kernel OOM killer ({where}, anon-rss {rss})"
            if guess:
                msg += "; the pid is not in the logs, but it is the only rank killed by SIGKILL"
            conf = Confidence.HIGH if rank is not None else Confidence.MEDIUM if guess else Confidence.LOW
            ev_list = [ev] + [e for r in ranks for e in ctx.ranks[r].evidence[:1]]
            yield self.finding(ranks, msg, conf, ev_list, _FIX)
        for ev in ctx.of("oom"):
            d = ev.data
            need = _mib(d.get("requested_bytes"))
            gpu = f" on GPU {d.get('gpu')}" if d.get("gpu") is not None else ""
            who = f"rank {ev.rank}" if ev.rank is not None else "a process (no line names its rank)"
            msg = f"{who} ran out of {d.get('oom_kind')} memory{gpu}: it tried to allocate {need}"
            if d.get("free_bytes") is not None:
                msg += f" with {_mib(d.get('free_bytes'))} free"
            yield self.finding([ev.rank] if ev.rank is not None else [], msg, Confidence.HIGH, [ev], _FIX)
        for ev in ctx.of("warn"):
            if ev.data.get("implies") == "oom":      # the catalogue's NCCL device-allocation failures
                yield self._nccl_oom(ctx, ev)
        if not ctx.of("oom_kill"):          # the kernel's header or summary line, its `Killed process` line cut off
            for ev in ctx.of("oom_invoked")[:1]:
                task = ev.data.get("task")
                yield self.finding([ev.rank] if ev.rank is not None else [], f"the kernel OOM killer ran"
                                   f"{f' (invoked by {task})' if task else ''}; the line naming its victim is not in "
                                   "the logs", Confidence.MEDIUM, [ev], _FIX)
        for ev in ctx.of("slurm_oom", "k8s_oomkilled"):
            yield self.finding([ev.rank] if ev.rank is not None else [], f"the scheduler reports an OOM kill: "
                               f"{ev.data.get('message') or ev.text}", Confidence.MEDIUM, [ev], _FIX)


    def _nccl_oom(self, ctx: Context, ev):
        """NCCL could not allocate device memory (`Cuda failure 'out of memory'`, `Failed to CUDA calloc`): the
        process on that GPU ran out; its rank where any line maps (host, pid) or (host, GPU) to one."""
        rank = ev.rank
        if rank is None:
            on_device = {st.rank for st in ctx.ranks.values() if ev.pid in st.pids}
            rank = next(iter(on_device)) if len(on_device) == 1 else None
        who = f"rank {rank}" if rank is not None else (
            f"the process on GPU {ev.device} (pid {ev.pid}{f' on {ev.host}' if ev.host else ''}; no line names its "
            "rank)")
        msg = f"{who} ran out of GPU memory inside NCCL: {ev.data.get('message')}"
        conf = Confidence.HIGH if rank is not None else Confidence.MEDIUM
        return self.finding([rank] if rank is not None else [], msg, conf, [ev], _FIX)


_FIX = ("reduce that rank's memory use (batch size, activation checkpointing, offload) or raise its memory limit; "
        "watch memory per step for a leak (torch.cuda.max_memory_allocated / RSS).")
