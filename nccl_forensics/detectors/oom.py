"""M301 oom: a rank ran out of memory — CUDA, the CPU allocator, or the kernel/cgroup OOM killer.

What it detects:
    ``torch.OutOfMemoryError: CUDA out of memory`` (and HIP/NCCL variants), ``DefaultCPUAllocator: can't
    allocate memory``, the kernel's ``Killed process <pid>`` / ``Memory cgroup out of memory`` lines
    matched to a rank by pid, Slurm's ``oom-kill event`` and Kubernetes ``OOMKilled``; NCCL's failure to
    allocate device memory, or to create its shared-memory segment in a full ``/dev/shm`` (``Error: failed to
    extend /dev/shm/nccl-* ... No space left on device``, ``Error while creating shared memory segment``).

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
    if exactly one, is named as the likely victim). A /dev/shm call refused for access (EACCES, EPERM,
    EROFS), or a segment to attach to that is not there (ENOENT, NCCL 2.22+'s errno), is no memory that ran
    out: X901 reads it. Nor is a segment that CUDA refused to register (the process's `Cuda failure '<reason>'`
    for another reason than memory, and no line of its saying the room ran out).

Suggested fix:
    Reduce that rank's memory (batch size, activation checkpointing, CPU offload), raise the cgroup/job
    memory limit, and check for a leak growing step by step. NCCL 2.28+'s symmetric-window space full
    (`Allocation failed. No suitable space found`): register fewer or smaller windows, or raise NCCL_WIN_STRIDE.
"""
from __future__ import annotations

from ..model import Confidence, clip
from .base import BaseDetector, Context


def _mib(nbytes) -> str:
    return f"{nbytes / 2 ** 20:.1f} MiB" if isinstance(nbytes, (int, float)) else "an unknown amount"


# the catalogue's oom_kind values that are not the name of a memory (the entry that read them, not what ran out)
_MEMORY_NAMES = {"cuda_error": "cuda", "cpu_allocator": "host", "nccl_window": "NCCL symmetric-window address"}


def _lone_failed_rank(ctx: Context) -> int | None:
    """The one rank whose process ended by exiting with a failure code or raising, where no other rank ended by a
    cause of its own (killed, crashed, out of memory) nor by failing too: the process an unranked out-of-memory
    traceback most likely came from (a launcher names the failed worker, not the traceback's). None otherwise."""
    failed = [st.rank for st in ctx.ranks.values()
              if st.end == "exception" or st.end == "exited" and st.exitcode not in (0, None)]
    others = [st.rank for st in ctx.ranks.values() if st.cause and st.end not in ("exited", "exception")]
    return failed[0] if len(failed) == 1 and not others else None


def _killed_by_oom_killer(data: dict, ranks: list[int], pid) -> str:
    """The sentence for a kernel OOM kill: its victim (rank, pid, or neither where the line was cut before them), the
    memory that ran out (the host's or a cgroup's) and the victim's resident size where the line gave it."""
    who = (f"rank {ranks[0]}" + (f" (pid {pid})" if pid is not None else "") if ranks
           else f"pid {pid} (no rank known)" if pid is not None else "a process (its pid was cut from the line)")
    memcg = data.get("memcg")
    where = (f"cgroup {memcg}" if memcg else "its cgroup's limit") if data.get("cgroup_oom") else "host memory"
    rss = data.get("anon_rss_kb")
    size = f", anon-rss {_mib(rss * 1024)}" if isinstance(rss, int) and rss else ""
    return f"{who} was killed by the kernel OOM killer ({where}{size})"


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
            msg = _killed_by_oom_killer(ev.data, ranks, pid)
            if guess:
                msg += "; the pid is not in the logs, but it is the only rank killed by SIGKILL"
            conf = Confidence.HIGH if rank is not None else Confidence.MEDIUM if guess else Confidence.LOW
            ev_list = [ev] + [e for r in ranks for e in ctx.ranks[r].evidence[:1]]
            yield self.finding(ranks, msg, conf, ev_list, _FIX)
        ooms = ctx.of("oom")
        lone = _lone_failed_rank(ctx) if sum(ev.rank is None for ev in ooms) == 1 else None
        for ev in ooms:
            d = ev.data
            need = _mib(d.get("requested_bytes"))
            gpu = f" on GPU {d.get('gpu')}" if d.get("gpu") is not None else ""
            rank = ev.rank if ev.rank is not None else lone
            who = f"rank {rank}" if rank is not None else "a process (no line names its rank)"
            memory = _MEMORY_NAMES.get(str(d.get("oom_kind")), d.get("oom_kind"))
            msg = f"{who} ran out of {memory} memory{gpu}: it tried to allocate {need}"
            if d.get("free_bytes") is not None:
                msg += f" with {_mib(d.get('free_bytes'))} free"
            cited: list = [ev]
            conf = Confidence.HIGH
            if ev.rank is None and rank is not None:       # a guessed rank: its exit is evidence too
                msg += "; no line names its rank, but it is the only rank that exited with a failure"
                cited += ctx.ranks[rank].evidence[:1]
                conf = Confidence.MEDIUM
            yield self.finding([rank] if rank is not None else [], msg, conf, cited, _fix_for(d))
        shm: dict[tuple, list] = {}                # a process's /dev/shm failure: its lines, one finding
        for ev in ctx.of("warn"):
            if ev.data.get("implies") != "oom":      # the catalogue's NCCL allocation failures
                continue
            if str(ev.data.get("message_id") or "").startswith("nccl.shm"):
                shm.setdefault((ev.host, ev.pid, ev.device), []).append(ev)
            else:
                yield self._nccl_oom(ctx, ev)
        refused = {(ev.host, ev.pid, ev.device) for ev in ctx.of("warn") if shm_not_room(ev)}
        registering = {(ev.host, ev.pid, ev.device) for ev in ctx.of("warn") if _cuda_call_refused(ev)}
        for key, lines in shm.items():
            if key in refused or any(map(shm_not_room, lines)):
                continue
            if key in registering and not any(map(_room_said, lines)):
                continue                      # CUDA refused to register the segment: no room ran out (X901)
            yield self._nccl_shm(ctx, lines)
        if not ctx.of("oom_kill"):          # the kernel's header or summary line, its `Killed process` line cut off
            for ev in ctx.of("oom_invoked")[:1]:
                task = ev.data.get("task")
                yield self.finding([ev.rank] if ev.rank is not None else [], f"the kernel OOM killer ran"
                                   f"{f' (invoked by {task})' if task else ''}; the line naming its victim is not in "
                                   "the logs", Confidence.MEDIUM, [ev], _FIX)
        for ev in ctx.of("slurm_oom", "k8s_oomkilled"):
            yield self.finding([ev.rank] if ev.rank is not None else [], f"the scheduler reports an OOM kill: "
                               f"{ev.data.get('message') or ev.text}", Confidence.MEDIUM, [ev], _FIX)

    def _nccl_shm(self, ctx: Context, lines: list):
        """NCCL could not create or map its shared-memory segment in /dev/shm (the intra-node SHM transport and
        proxy buffers). `No space left on device` says /dev/shm is full: a container's default is 64 MB. An older
        NCCL prints no reason, and that is still the usual one (a reason other than room is none of this detector's:
        check() leaves it to X901)."""
        ev = next((e for e in lines if e.data.get("reason")), lines[0])
        rank, who = _process(ctx, ev)
        reason = str(ev.data.get("reason") or "").strip()
        full = not reason or any(word in reason for word in _NO_ROOM)
        nbytes = next((e.data["requested_bytes"] for e in lines if e.data.get("requested_bytes")), None)
        size = f" of {_mib(nbytes)}" if nbytes else ""
        msg = f"{who} could not get a shared-memory segment{size} in /dev/shm" + (
            f" ({reason})" if reason else " (most often /dev/shm is too small)")
        conf = Confidence.HIGH if reason and full else Confidence.MEDIUM if full else Confidence.LOW
        return self.finding([rank] if rank is not None else [], msg, conf, lines[:3], _FIX_SHM)

    def _nccl_oom(self, ctx: Context, ev):
        """NCCL could not allocate device memory (`Cuda failure 'out of memory'`, `Failed to CUDA calloc`): the
        process on that GPU ran out; its rank where any line maps (host, pid) or (host, GPU) to one."""
        rank, who = _process(ctx, ev)
        what = "its symmetric-window address space" if ev.data.get("oom_kind") == "nccl_window" else "GPU memory"
        said = ev.data.get("message") or ev.data.get("reason") or clip((ev.text or "").strip(), 160)
        msg = f"{who} ran out of {what} inside NCCL: {said}"
        conf = Confidence.HIGH if rank is not None else Confidence.MEDIUM
        return self.finding([rank] if rank is not None else [], msg, conf, [ev], _fix_for(ev.data))


# errno texts of a /dev/shm call refused for access, not for room (EACCES, EPERM, EROFS): no memory ran out
_ACCESS_REFUSED = ("Permission", "Operation not permitted", "Read-only file system")
# errno texts that say /dev/shm (or the host) had no room (ENOSPC, ENOMEM, EFBIG): NCCL 2.22+ prints strerror(errno)
# after `Error while creating|attaching to shared memory segment` (misc/shmutils.cc, os/linux.cc 2.30+)
_NO_ROOM = ("No space", "Cannot allocate memory", "File too large")
# the errno of a segment that is not there (ENOENT): a peer's segment to attach to, gone or in another /dev/shm
_MISSING = ("No such file or directory",)


def shm_access_refused(ev) -> bool:
    """Did NCCL say its /dev/shm call was refused for access (catalogue nccl.shm_access_refused, or a segment line
    whose errno says so)? A /dev/shm the user may not write is no memory that ran out (X901 reads it)."""
    said = _shm_said(ev)
    return said is not None and any(word in said for word in _ACCESS_REFUSED)


def shm_not_room(ev) -> bool:
    """Did NCCL's /dev/shm call fail for a reason its errno states that is no lack of room: refused for access, or a
    segment to attach to that is not there (ENOENT: the node's processes see different /dev/shm, or it was removed
    under them)? No memory ran out (X901 reads it). Another errno leaves the room in doubt (M301, low confidence)."""
    said = _shm_said(ev)
    return said is not None and any(word in said for word in (*_ACCESS_REFUSED, *_MISSING))


def _cuda_call_refused(ev) -> bool:
    """NCCL's `Cuda failure '<reason>'` for a reason other than memory (catalogue nccl.cuda_failure). Printed by the
    process whose segment then fails, it is ncclShmOpen's cudaHostRegister / cudaHostGetDevicePointer refusing the
    mapped segment (misc/shmutils.cc 2.12 - 2.29, os/linux.cc 2.30+: both CUDACHECKGOTO to the `Error while creating`
    line): the segment was made, so /dev/shm had room."""
    return ev.data.get("message_id") == "nccl.cuda_failure"


def _room_said(ev) -> bool:
    """Does an NCCL /dev/shm line say the room ran out: a file it could not extend or map (shmutils.cc's own WARNs
    before its `Error while creating`, 2.12+; shm.h's `Call to posix_fallocate failed` before), or an errno of no room
    (2.22+)?"""
    if ev.data.get("message_id") in ("nccl.shm_extend_failed", "nccl.shm_syscall_no_space"):
        return True
    said = _shm_said(ev)
    return said is not None and any(word in said for word in _NO_ROOM)


def _shm_said(ev) -> str | None:
    """The words of a /dev/shm line of NCCL's (a catalogue nccl.shm* message; a parser's event may carry the words
    only, not the reason), None for any other line."""
    if not str(ev.data.get("message_id") or "").startswith("nccl.shm"):
        return None
    return str(ev.data.get("reason") or ev.data.get("message") or "")


def _fix_for(data: dict) -> str:
    return _FIX_WINDOW if data.get("oom_kind") == "nccl_window" else _FIX


def _process(ctx: Context, ev) -> tuple[int | None, str]:
    """The rank of the process that printed an NCCL WARN (its own, or the one rank whose pids hold its pid), and
    how a message names it."""
    rank = ev.rank
    if rank is None:
        on_device = {st.rank for st in ctx.ranks.values() if ev.pid in st.pids}
        rank = next(iter(on_device)) if len(on_device) == 1 else None
    if rank is not None:
        return rank, f"rank {rank}"
    where = [f"GPU {ev.device}"] if ev.device is not None else []
    where += [f"pid {ev.pid}" + (f" on {ev.host}" if ev.host else "")] if ev.pid is not None else []
    if not where:                  # a line that names no process (a torch error quoting NCCL's last error)
        return None, "a process (no line names it)"
    return None, f"the process on {where[0]} ({', '.join(where[1:]) + '; ' if where[1:] else ''}no line names its rank)"


_FIX = ("reduce that rank's memory use (batch size, activation checkpointing, offload) or raise its memory limit; "
        "watch memory per step for a leak (torch.cuda.max_memory_allocated / RSS).")
# NCCL 2.28+ places every symmetric window of a rank in one address space of NCCL_WIN_STRIDE bytes (by default the
# largest GPU's memory): more or larger windows than it holds fail to register
_FIX_WINDOW = ("register fewer or smaller symmetric-memory windows on that rank (free the ones no longer used), or "
               "raise NCCL_WIN_STRIDE, the address space NCCL reserves per rank for them.")
_FIX_SHM = ("give /dev/shm room for NCCL's segments: run the container with `--ipc=host` or `--shm-size=8g` (Docker; "
            "a Kubernetes pod: an emptyDir with medium Memory at /dev/shm), and clear stale /dev/shm/nccl-* files; "
            "NCCL_SHM_DISABLE=1 avoids /dev/shm at some intra-node bandwidth cost")
