"""R201 dropped-rank: a rank's process died on its own (signal, exit code, traceback), and the rest hung or failed.

What it detects:
    A rank whose process ended with a *cause*: SIGKILL not sent by torchrun, SIGSEGV/SIGBUS, a CUDA error
    (``an illegal memory access``, or only the error's ``CUDA_LAUNCH_BLOCKING`` tail), a non-communication
    exception (``ValueError``, ``KeyError``, …), a failure in a library's own thread that ends the process (gloo's
    ``accept: Too many open files``; its rank: the one a launcher saw end by SIGABRT), or a non-zero exit while
    torchrun terminated the others; or a
    node whose elastic agent was stopped from outside (a death signal) while the other agents found the
    rendezvous it closed (``RendezvousClosedError``). Ends that are consequences are not reported: torchrun's
    SIGTERM fan-out, SIGABRT from the watchdog, "Connection closed by peer", gloo/NCCL timeouts, a non-zero exit
    of a process that had itself printed an NCCL failure (its ``host:pid`` WARN: that failure decides). Nor is one
    exception raised word for word by two or more ranks while no rank ended otherwise (torch.compile's tracing and
    compile errors, a refused set-up call): the program or its setup, alike on every rank that got there (X901's);
    nor Open MPI's "first process to exit non-zero" when that rank printed a failure the others printed too.

Why it hangs or dies:
    A dead rank never enters the next collective. On NCCL its peers wait until the watchdog timeout; on
    gloo their sockets close at once ("Connection closed by peer"). torchrun's "Root Cause" names the
    first rank to *exit*, which is often a peer, not the one that died.

Evidence it needs:
    torchrun's failure summary (exitcode/signal per rank), error.json, tracebacks, faulthandler output,
    a flight-recorder dump missing for one rank, or NCCL's RAS report (``ncclras``, 2.24+; ``-f json``, 2.28.7+): its
    DEAD processes and the ranks the job-wide communicator misses from them. RAS's INFO line ``RAS declaring peer
    <addr> as DEAD`` counts only beside a hang (a peer that exited cleanly is declared dead too), and names no rank.

Example:
    ``ncclf diagnose sample_logs/bundles/real-dropped-rank`` →
    ``dropped_rank: rank 2 was killed by SIGKILL (exit code -9); ranks 0, 1, 3 then failed with
    "Connection closed by peer"``.

Known limits:
    A SIGKILL with no matching kernel OOM line may still be the OOM killer when ``dmesg`` was not
    collected; a rank killed by the scheduler looks the same. A crash line without a rank (a HIP runtime's queue
    error, a kernel line) is named by the process id it prints only where a launcher's line gives that pid's rank.

Suggested fix:
    Look at why that process died: for SIGKILL check ``dmesg`` for the OOM killer and the scheduler's
    log; for a crash, its faulthandler/traceback output.
"""
from __future__ import annotations

from functools import lru_cache

from .. import signals
from ..diagnosis.rank_state import (
    crashes_after_own_nccl_failure,
    deaths_after_own_network_failure,
    deaths_after_own_watchdog,
    faults_after_network_failure,
    names_the_machine,
    short_host,
    snippets_of_barrier_waits,
    timer_reaped_pids,
)
from ..model import Confidence, Event, clip, ranks_phrase, shows_failure
from ..sources import catalogue
from ..sources.catalogue.cuda import from_amd_runtime
from .base import NEEDS_KINDS, BaseDetector, Context, is_timeout

_CAUSES: dict[str | None, str] = {      # RankState.end -> what happened
    "killed": "was killed by {signal}{code}", "crashed": "crashed: {detail}",
    "exception": "raised {detail}", "exited": "{detail}"}


class DroppedRank(BaseDetector):
    code, name, cls = "R201", "dropped-rank", "dropped_rank"
    needs = ("process_end", "errors", "shutdown")

    def check(self, ctx: Context):
        dead = [st for st in ctx.ranks.values() if st.end in _CAUSES and st.cause]
        if not dead:
            first = list(self._ended_before_shutdown(ctx))
            yield from first or self._unranked_crash(ctx)
            return
        cascade = [st.rank for st in ctx.ranks.values() if st.end and not st.cause]
        for st in dead:
            code = f" (exit code {st.exitcode})" if st.exitcode is not None else ""
            what = _CAUSES[st.end].format(signal=st.signal, code=code, detail=st.end_detail)
            msg = f"rank {st.rank} {what}"
            if cascade:
                msg += f"; {ranks_phrase(cascade)} failed after it (consequences)"
            conf = Confidence.HIGH if st.end in ("killed", "crashed") or len(dead) == 1 else Confidence.MEDIUM
            fix = ("find out who killed it: check `dmesg` / `journalctl -k` for the OOM killer and the scheduler log"
                   if st.end == "killed" else "fix the error that rank raised (see its traceback); the other ranks "
                   "only failed because it left")
            yield self.finding([st.rank], msg, conf, st.evidence, fix)

    def _ended_before_shutdown(self, ctx: Context):
        """torchrun's shutdown sends SIGTERM only to the workers still running (elastic/multiprocessing/api.py
        `_close`): one fan-out to all ranks but one of a one-node job says one worker had already ended. When
        exactly one expected rank left no evidence of its own (no dump where the others dumped, no line), it is that
        worker: a process killed outright (SIGKILL) writes nothing. torchrun's own failure table may be missing
        (since 2.4 it reads the workers' error files after the shutdown, and can crash on one cut short)."""
        gaps = ctx.gaps()
        sent = ctx.of("sigterm_sent")
        pids = {ev.data.get("pid") or ev.pid for ev in sent}
        size = ctx.expected.size if ctx.expected is not None and ctx.expected.size else len(ctx.world)
        if len(gaps) != 1 or len({ev.file for ev in sent}) != 1 or len(pids) != size - 1 or size < 2 \
                or ctx.completed():
            return
        (rank,) = gaps
        yield self.finding([rank], f"rank {rank} ended before the others and left no evidence: torchrun sent SIGTERM "
                           f"to the other {len(pids)} workers only (a worker still running is always sent one), "
                           "and it wrote nothing, as a process killed outright (SIGKILL, the OOM killer) does",
                           Confidence.MEDIUM, sent[:2], "find out why that process died: `dmesg` / `journalctl -k` on "
                           "its node for the OOM killer or an Xid, and the scheduler's log; its own output "
                           "(torchrun --log-dir) if it printed anything")

    def _unranked_crash(self, ctx: Context):
        """A process crashed with a CUDA error and nothing says which rank it was; else a reported death."""
        # torch's hint under an error already read (its tail), a fault or an end after its process's network failure
        # and a crash in NCCL's error path after its own reported failure are no deaths of their own; a driver/build/P2P
        # error is V501's or N401's
        consequences = _cuda_tails(ctx) | faults_after_network_failure(ctx.events) \
            | deaths_after_own_network_failure(ctx.events) | crashes_after_own_nccl_failure(ctx.events) \
            | _timer_kills(ctx) | deaths_after_own_watchdog(ctx.events) | snippets_of_barrier_waits(ctx.events)
        crashes = [ev for ev in ctx.of("cuda_error") if ev.rank is None and id(ev) not in consequences
                   and not names_the_machine(ev.data)]
        if crashes:
            # the first crash line that kept its text (a wrapped paste may carry it on the next line)
            what = next((ev.data.get("message") or ev.data.get("reason") for ev in crashes
                         if ev.data.get("message") or ev.data.get("reason")), "its message was cut")
            runtime, serialize = _gpu_runtime(crashes[0])
            ranks, how = _ranks_of_pids(ctx, crashes), "by the process id its line names"
            if not ranks:
                ranks = _aborted_rank(ctx, crashes)
                how = "the one rank a launcher saw end by SIGABRT (the runtime aborts after its fault line)"
            if ranks:
                yield self.finding(ranks, f"{ranks_phrase(ranks)} crashed with a {runtime} error ({what}), "
                                   f"{how}", Confidence.MEDIUM, crashes[:3],
                                   _FIX_REPORTED if runtime == "CUDA" else _FIX_REPORTED_AMD)
                return
            fix = (f"find the process that printed it (its rank is in torchrun --tee / --log-dir output); rerun "
                   f"with {serialize} to locate the kernel, and check that rank's inputs and memory use.")
            yield self.finding([], f"a process crashed with a {runtime} error ({what}); no line says which rank it "
                               "was", Confidence.MEDIUM, crashes[:3], fix)
            return
        aborted = list(self._aborted_in_library_thread(ctx))
        yield from aborted or self._reported_death(ctx, consequences)

    def _aborted_in_library_thread(self, ctx: Context):
        """A library's failure thrown in a thread of its own (gloo's event loop: `accept:` failing), which nothing
        catches there: std::terminate ends the process by SIGABRT, and its `what():` line names no rank. When a
        launcher reports exactly one rank ended by SIGABRT, that is it; its peers' closed connections follow."""
        ends = _terminating_messages()
        lines = [ev for ev in ctx.events if ev.rank is None and ev.data.get("message_id") in ends
                 and ev.data.get("meaning") == "failure"]
        aborted = [st.rank for st in ctx.ranks.values() if st.signal == "SIGABRT"]
        if not lines or len(aborted) != 1:
            return
        yield self.finding(aborted, f"rank {aborted[0]} aborted (SIGABRT): an exception in a library's own thread, "
                           f"which ends the process: {clip(lines[0].text.strip(), 160)}", Confidence.MEDIUM,
                           lines[:2], "fix what that thread failed on (for `accept: Too many open files`: raise the "
                           "open-file limit, `ulimit -n`); the other ranks only lost their connections to it")

    def _reported_death(self, ctx: Context, consequences: set[int]):
        """A line that says a process died of its own cause, where no rank's end says so: a launcher's or the
        kernel's report of a crash signal (torchrun's or Hydra's exit line, Open MPI's signal block, a kernel
        segfault line), a GPU the driver lost (Xid 79, 48, 94/95, ...), NCCL's `Cuda failure`, a launcher line that
        names a rank whose exit is the job's only failure. A launcher's own signal report is medium confidence even
        without a rank: the death is certain, only its rank is unknown."""
        # a launcher's report of the first rank to exit non-zero (Open MPI's `Process name: [..,N]`) is no death of
        # that rank where it printed a failure the other ranks printed too: it was only the first of them to exit
        alike = _ranks_failing_alike(ctx)
        died = [ev for ev in ctx.events if ev.data.get("meaning") == "failure" and id(ev) not in consequences and (
            ev.data.get("implies") == "dropped_rank" and not (ev.kind in _EXIT_KINDS and _ranks_named(ev)
                                                              and set(_ranks_named(ev)) <= alike)
            or ev.kind in _EXIT_KINDS and _crash_signal(ev.data))]
        died = died or _peers_gone_in_a_hang(ctx)
        if not died:
            yield from self._lone_exit(ctx)
            return
        ranks = sorted({r for ev in died for r in _ranks_named(ev)})
        # a driver line that names the process by its pid (an Xid's `pid=N`): the rank whose own lines carry that pid
        ranks = ranks or _ranks_of_pids(ctx, [ev for ev in died if ev.kind == "xid" and ev.data.get("pid")])
        # (or by the GPU's PCI address, where NCCL's init lines give it to one rank)
        ranks = ranks or _ranks_of_gpus(ctx, [ev for ev in died if ev.data.get("bus_id")])
        # (or, for a node lost whole, by the node it names, where the job's own lines put ranks on that host)
        ranks = ranks or _ranks_on_nodes(ctx, [ev for ev in died if ev.data.get("node") and not ev.data.get("bus_id")])
        signalled = [ev for ev in died if ev.kind in _EXIT_KINDS and _crash_signal(ev.data)]
        # the line that states the death before one that only lists its ranks (NCCL RAS's DEAD before its INCOMPLETE),
        # an Xid's words before its register dump
        first = (signalled or sorted(died, key=lambda ev: (bool(ev.data.get("ranks_at_fault")), _registers(ev))))[0]
        who = ranks_phrase(ranks) if ranks else "a process"
        if first in signalled:
            code = first.data.get("exitcode")
            sig = first.data.get("signal") or signals.of_exit_code(code)
            how = "was killed by SIGKILL" if sig == "SIGKILL" else f"crashed with {sig}"
            msg = f"{who} {how}" + (f" (exit code {code})" if code is not None else "")
        else:
            msg = f"{who} {_death_verb(first)}: {_death_said(first)}"
        if not ranks:
            msg += "; no line says which rank it was"
        conf = Confidence.MEDIUM if ranks or signalled else Confidence.LOW
        yield self.finding(ranks, msg, conf, died[:3], _FIX_REPORTED)

    def _lone_exit(self, ctx: Context):
        """Processes exited non-zero (a launcher's or the scheduler's line) and nothing else in the job failed: that
        exit is the failure. The rank is named only where the line names it. Several ranks that the launcher's own
        times say failed at once are no rank dropping out ahead of the rest: that is left to X901."""
        reaped = _timer_kills(ctx)
        exits = [ev for ev in ctx.of(*_EXIT_KINDS) if shows_failure(ev) and _nonzero(ev.data) and id(ev) not in reaped]
        if not exits:
            yield from self._deepspeed_teardown(ctx)
            yield from self._agent_stopped(ctx)
            return
        if not _only_launchers_failed(ctx) or _launcher_named_a_cause(ctx):
            return
        ranks = sorted({ev.rank for ev in exits if ev.rank is not None})
        if len(ranks) > 1:
            earliest = _earliest_by_time(exits)  # several ranks ended: the first is named only where the times say it
            if len(set(earliest)) > 1:
                # torchrun saw them fail at once (its table's times): none ended ahead of the others, so no rank
                # dropped out of a job the rest kept running; the failure is theirs together (X901's floor)
                return
            ranks = earliest if len(earliest) == 1 else []
        who = f"rank {ranks[0]}" if ranks else "a process (no line says which rank)"
        yield self.finding(ranks, f"{who} exited with an error and no other line shows a failure: "
                           f"{clip(exits[0].text.strip(), 160)}", Confidence.LOW, exits[:3],
                           "read that process's own output above its exit for the error it raised; the launcher only "
                           "reports the exit")

    def _deepspeed_teardown(self, ctx: Context):
        """The DeepSpeed launcher kills its workers (`Killing subprocess N`, launch.py `sigkill_handler`) when one of
        them exits non-zero, or when it is itself sent SIGINT/SIGTERM, and then says so (`Main process received
        SIGTERM, exiting`, 0.4+). Kills with no such line and no exit line (cut, or 0.3 - 0.5's CalledProcessError
        traceback instead) are a worker's failure; which worker, no line says."""
        kills = [ev for ev in ctx.of("sigterm_sent") if ev.data.get("message_id") == "deepspeed.killing_subprocess"]
        if not kills or any(ev.data.get("message_id") == "deepspeed.main_received_signal" for ev in ctx.events) \
                or not _only_launchers_failed(ctx):
            return
        yield self.finding([], f"the DeepSpeed launcher killed its {len(kills)} worker{'s' if len(kills) > 1 else ''}, "
                           "which it does when one of them exits with an error (it was not signalled: no `Main process "
                           "received` line); no line says which worker", Confidence.LOW, kills[:2],
                           "find the worker's own error above the kills (its traceback, or `dmesg` for the OOM killer "
                           "if it printed nothing); the launcher's `exits with return code` line names its exit code")

    def _agent_stopped(self, ctx: Context):
        """An elastic agent told to stop from outside (`Received 15 death signal`: the scheduler, a preemption, a
        user) shuts its workers down and, as it exits, the rendezvous (dynamic_rendezvous `shutdown` marks it closed);
        the other agents then find it closed and fail with RendezvousClosedError. With nothing else failing, that
        node is the one that dropped out; which ranks it ran, no line says."""
        stopped = [ev for ev in ctx.of("sigterm_sent") if ev.data.get("message_id") == "torchrun.death_signal"]
        closed = [ev for ev in ctx.events if shows_failure(ev) and _rendezvous_closed(ev)]
        if not stopped or not closed or not _only_launchers_failed(ctx, besides=_rendezvous_closed):
            return
        sig = stopped[0].data.get("signal") or stopped[0].data.get("signum")
        yield self.finding([], f"an elastic agent was stopped from outside ({sig}): it shut its workers down and "
                           "closed the rendezvous, which the other agents then found closed (RendezvousClosedError), "
                           "so that node dropped out of the job; no line says which ranks it ran", Confidence.LOW,
                           [stopped[0], closed[0]], "find who sent the signal to that node's torchrun: the scheduler's "
                           "log (preemption, time limit, eviction) or a user; the other agents cannot go on in a "
                           "closed rendezvous: restart the job")


def _rendezvous_closed(ev) -> bool:
    return "RendezvousClosed" in str(ev.data.get("exc_type") or "")


def _aborted_rank(ctx: Context, crashes: list[Event]) -> list[int]:
    """The rank whose process ROCm's runtime aborted, where its fault line names no process: ROCR's fault handlers
    (`Memory access fault by GPU node-N`, `HW Exception by GPU node-N`) and ROCclr's queue callback call abort()
    after printing, so their process ends by SIGABRT; when a launcher reports exactly one rank ended by SIGABRT,
    that is it (the watchdog's own abort prints its rank, and is then no unranked crash)."""
    if not all(str(ev.data.get("message_id", "")).startswith(("cuda.rocr_", "cuda.rocclr_")) for ev in crashes):
        return []
    aborted = [st.rank for st in ctx.ranks.values() if st.signal == "SIGABRT"]
    return aborted if len(aborted) == 1 else []


def _gpu_runtime(ev: Event) -> tuple[str, str]:
    """The runtime a GPU error came from, and the setting that makes its kernels synchronous: ROCm's runtime faults
    (ROCR's `Memory access fault by GPU node-N`) and HIP's errors (torch's hipified `HIP error: ...`) are AMD's, where
    AMD_SERIALIZE_KERNEL=3 (ROCm 6; HIP_LAUNCH_BLOCKING=1 before) is what CUDA_LAUNCH_BLOCKING=1 is on CUDA."""
    if from_amd_runtime(ev.data.get("message_id"), ev.text):
        return "ROCm/HIP", "AMD_SERIALIZE_KERNEL=3 (HIP_LAUNCH_BLOCKING=1 before ROCm 6)"
    return "CUDA", "CUDA_LAUNCH_BLOCKING=1"


def _cuda_tails(ctx: Context) -> set[int]:
    """torch's CUDA_LAUNCH_BLOCKING / TORCH_USE_CUDA_DSA hint lines below a CUDA error whose text was read (same file):
    that error's tail, which says no more than it (its class may be another's: a driver too old, no P2P)."""
    events = ctx.of("cuda_error")
    first: dict[str, int] = {}
    for ev in events:
        if not ev.data.get("tail_only"):
            first[ev.file] = min(first.get(ev.file, ev.line), ev.line)
    return {id(ev) for ev in events if ev.data.get("tail_only") and first.get(ev.file, ev.line) < ev.line}


def _ranks_of_pids(ctx: Context, lines) -> list[int]:
    """The ranks of the processes some unranked lines name by process id (a runtime's `[pid:N ...]` prefix, a kernel
    line's `pid N`), where a launcher's line gives that pid's rank (torchrun's failure table, its exit lines): one
    host's pids only, so only where every ranked pid is unique."""
    by_pid: dict = {}
    for ev in ctx.events:
        pid = ev.pid if ev.pid is not None else ev.data.get("pid")
        if ev.rank is not None and isinstance(pid, int):
            by_pid.setdefault(pid, set()).add(ev.rank)
    named = {ev.data.get("pid") if ev.data.get("pid") is not None else ev.pid for ev in lines}
    return sorted({next(iter(by_pid[p])) for p in named if len(by_pid.get(p, ())) == 1})


def _ranks_of_gpus(ctx: Context, lines) -> list[int]:
    """The ranks on the GPUs some driver lines name by PCI address (an Xid's `(PCI:0000:3b:00)`, a PCIe error's
    `0000:3b:00.0`), where NCCL's init lines (`busId 3b000`) give that address to one rank of the job's widest
    communicator on the line's node (its syslog host), or, where the line names no node, on the one host of the
    init lines: on several hosts every node has the same addresses."""
    inits = [ev for ev in ctx.of("comm_init") if ev.rank is not None and ev.host and _pci(ev.data.get("bus_id"))]
    widest = max((ev.data.get("nranks") or 0 for ev in inits), default=0)
    inits = [ev for ev in inits if ev.data.get("nranks") == widest]
    out: set[int] = set()
    for line in lines:
        node = line.data.get("node")
        here = [ev for ev in inits if node is None or short_host(str(ev.host)) == short_host(str(node))]
        if node is None and len({ev.host for ev in here}) != 1:
            continue
        gpu = _pci(line.data.get("bus_id"))
        ranks = {int(ev.rank) for ev in here if ev.rank is not None and _pci(ev.data["bus_id"]) == gpu}
        out |= ranks if len(ranks) == 1 else set()
    return sorted(out)


def _ranks_on_nodes(ctx: Context, lines) -> list[int]:
    """The ranks on the nodes some lines name as lost (Slurm's `Node failure on gpu-07`, pdsh's `downstream from host
    X`, a kernel panic's syslog host), by the hosts the job's own lines give its ranks (NCCL's `host:pid:tid` prefix:
    its host name cut at the first dot, as Slurm names nodes)."""
    named = {short_host(str(ev.data["node"])) for ev in lines}
    return sorted({ev.rank for ev in ctx.events if ev.rank is not None and ev.host
                   and short_host(ev.host) in named})


def _pci(address) -> tuple[int, int, int] | None:
    """A PCI address as (domain, bus, device), from the driver's `PCI:0000:3b:00` or `0000:3b:00.0` or NCCL's busId
    (`3b000`: the address's hex digits, leading zeros dropped); None for anything else."""
    text = str(address or "").removeprefix("PCI:")
    parts = text.replace(".", ":").split(":")
    try:
        if len(parts) >= 3:
            return int(parts[0], 16), int(parts[1], 16), int(parts[2], 16)
        if len(parts) == 1 and 4 <= len(text) <= 12:
            digits = text.rjust(9, "0")
            return int(digits[:-5], 16), int(digits[-5:-3], 16), int(digits[-3:-1], 16)
    except ValueError:
        return None
    return None


def _only_launchers_failed(ctx: Context, besides=lambda ev: False) -> bool:
    """No line shows a failure but a launcher's (and those `besides` accepts)."""
    return not any(shows_failure(ev) and ev.kind not in _LAUNCHER_KINDS and not ev.data.get("launcher")
                   and not besides(ev) for ev in ctx.events)


def _launcher_named_a_cause(ctx: Context) -> bool:
    """A launcher's line that names a cause beyond a process's end (ssh could not reach the node, a timer reaped a
    stuck worker): the exits it reports (pdsh's `ssh exited with exit code 255`) are that cause's consequence, and
    the class is that line's detector's."""
    return any(ev.kind in _LAUNCHER_KINDS and ev.data.get("implies") not in (None, "dropped_rank") and shows_failure(ev)
               for ev in ctx.events)


@lru_cache(maxsize=1)
def _terminating_messages() -> frozenset[str]:
    """The catalogue entries printed by a failure that ends its process (data `terminates`)."""
    return frozenset(msg.id for msg in catalogue.messages() if msg.data.get("terminates"))


def _ranks_failing_alike(ctx: Context) -> set[int]:
    """The ranks that printed a failure (a catalogue message, not a launcher's) that another rank printed too."""
    ranks_of: dict[str, set[int]] = {}
    for ev in ctx.events:
        said = ev.data.get("message_id")
        if said and ev.rank is not None and ev.data.get("meaning") == "failure" and ev.kind not in _LAUNCHER_KINDS:
            ranks_of.setdefault(said, set()).add(ev.rank)
    return {rank for ranks in ranks_of.values() if len(ranks) > 1 for rank in ranks}


def _earliest_by_time(exits) -> list[int]:
    """The ranks of the exits at the earliest of the launcher's own times, once per exit (torchrun's failure tables
    carry a time per entry, each node's table its own first failure); none where no exit has a time and a rank."""
    timed = [(ev.time, ev.rank) for ev in exits if ev.time is not None and ev.rank is not None]
    if not timed:
        return []
    first = min(when for when, _ in timed)
    return [rank for when, rank in timed if when == first]


def _nonzero(data: dict) -> bool:
    """An exit of the process's own making: not SIGTERM (a launcher's teardown) nor SIGABRT (the watchdog's abort
    after a collective error elsewhere: X901 says that one's cause is not in the evidence)."""
    code = data.get("exitcode")
    sig = data.get("signal") or signals.of_exit_code(code)
    if sig in signals.TEARDOWN:
        return False
    return isinstance(code, int) and code != 0 or sig is not None


# Launcher lines about workers' ends, and their teardown (never a failure of their own)
_EXIT_KINDS = frozenset({"worker_failed", "child_failed", "slurm_exit", "signal_report", "error_json"})
_LAUNCHER_KINDS = _EXIT_KINDS | {"sigterm_sent", "agent_log", "slurm_cancelled", "comm_abort", "unknown_message"}
_FIX_REPORTED = ("find that process's own output (its rank's log, `dmesg` on its node for the OOM killer or an Xid) "
                 "for why it died; a lost GPU (Xid 79/48/94/95/119) needs the node drained and the GPU reset or "
                 "replaced")
# the same on AMD, where the kernel's amdgpu driver logs a GPU's hang and reset (no Xid)
_FIX_REPORTED_AMD = ("find that process's own output (its rank's log, `dmesg` on its node for the OOM killer or an "
                     "amdgpu ring timeout / GPU reset) for why it died; a GPU that hangs again needs the node "
                     "drained and the GPU checked (rocm-smi) or replaced")


def _ranks_named(ev: Event) -> list[int]:
    """The ranks a death line names: its own, or those it lists as the dead (NCCL RAS's missing ranks). A line that
    reports another process gone (NCCL RAS's `declaring peer <addr> as DEAD`) names that peer, by its address only:
    the rank that printed it is the one still alive."""
    if ev.data.get("ranks_at_fault"):
        return ev.data["ranks_at_fault"]
    if ev.data.get("meaning") == "benign" and ev.data.get("implies") == "dropped_rank" and ev.data.get("peer"):
        return []
    return [ev.rank] if ev.rank is not None else []


def _death_verb(ev: Event) -> str:
    """What a death line says happened to its process: a GPU the driver reports hung (Xid 61, 109, an amdgpu ring
    timeout) stalls the process on it, one it lost (Xid 79, 119/120, a fatal PCIe error) takes the GPU from it; every
    other line reports a death."""
    return {"gpu_hang": "stalled on a hung GPU", "gpu_lost": "lost its GPU"}.get(str(ev.data.get("category")), "died")


def _death_said(ev: Event) -> str:
    """What a line that reports a death says, for a sentence: an Xid as the driver's report (its code, GPU and words,
    not the syslog stamp and host before them), any other line as it reads."""
    data = ev.data
    if ev.kind == "xid" and data.get("xid") is not None:
        gpu = f" on GPU {data['bus_id']}" if data.get("bus_id") else ""
        pid = f", pid {data['pid']}" if str(data.get("pid") or "").isdigit() else ""
        reason = clip(str(data.get("reason") or "").strip().rstrip(".,"), 120)
        return f"the NVIDIA driver reported Xid {data['xid']}{gpu}" + (f" ({reason}{pid})" if reason or pid else "")
    return clip(ev.text.strip(), 160).rstrip(".")


def _registers(ev: Event) -> bool:
    """Is this Xid line the driver's register dump of an exception (`Graphics Exception: ESR 0x...=0x...`), which
    the lines after it put in words?"""
    return ev.kind == "xid" and "ESR 0x" in str(ev.data.get("reason") or "")


def _crash_signal(data: dict) -> bool:
    return (data.get("signal") or signals.of_exit_code(data.get("exitcode"))) in signals.CRASH


def _timer_kills(ctx: Context) -> set[int]:
    """The exits (by event id) of workers the elastic timer server reaped: its SIGKILL, no death of their own (R202
    reads the overrun)."""
    reaped = timer_reaped_pids(ctx.of("agent_log"))
    return {id(ev) for ev in ctx.of(*_EXIT_KINDS) if reaped and (ev.pid in reaped or ev.data.get("pid") in reaped)}


def _peers_gone_in_a_hang(ctx: Context) -> list[Event]:
    """Lines that alone are no failure but say a peer process went away (NCCL RAS declaring a peer dead: a peer
    that exited cleanly is declared dead too), once the job hangs: then the peer's going is why the others wait."""
    if not any(is_timeout(ev) for ev in ctx.of(*(NEEDS_KINDS["timeouts"] or ()))):
        return []
    return [ev for ev in ctx.events if ev.data.get("meaning") == "benign" and ev.data.get("implies") == "dropped_rank"]
