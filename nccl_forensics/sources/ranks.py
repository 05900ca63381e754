"""Rank recovery across sources: who is rank N, from names and content. Conflicts are reported, never guessed.

Each parsed file contributes `RankHints`: facts that tie a process to a global rank (NCCL `comm_init`
lines, torchrun's failure summary, error.json, flight-recorder dumps, wrapper prefixes, file names).
Hints from all files are merged, then events whose rank is still unknown are filled by (host, pid),
pid, or (host, local_rank). A (host, pid) claimed by two different ranks is a conflict: it is reported and
not used; a pid that two hosts use for different ranks (containers reuse pids) is only ambiguous.

Example: rank 3's py-spy dump is `py-spy-node1-4242.txt` (no rank inside). rank 3's NCCL log says
`comm 0x… rank 3 nranks 4 … Init COMPLETE` from `node1:4242:4242`, so its hint (node1, 4242) → 3 fills the dump.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Iterator

from ..model import Event, SourceResult

# Event kinds whose `data["rank"]` (or Event.rank) is the global rank of the event's (host, pid).
_RANK_FACTS = {"comm_init", "child_failed", "error_json", "fr_dump", "worker_failed", "pyspy_process"}


@dataclass
class RankHints:
    by_host_pid: dict[tuple[str, int], int] = field(default_factory=dict)
    by_pid: dict[int, int] = field(default_factory=dict)
    by_host_local: dict[tuple[str, int], int] = field(default_factory=dict)
    conflicts: list[str] = field(default_factory=list)
    pid_hosts: dict[int, str | None] = field(default_factory=dict)     # the host of each by_pid claim

    def add_pid(self, pid: int, host: str | None, rank: int) -> None:
        """A pid alone names a rank only while one host uses it: containers on different nodes reuse pids,
        which makes the pid ambiguous (unused), not a conflict; a conflict is one host's pid claimed twice."""
        first_host = self.pid_hosts.setdefault(pid, host)
        if host and first_host and host != first_host:
            if self.by_pid.get(pid, rank) != rank:
                self.by_pid[pid] = -1
            return
        self.add(self.by_pid, pid, rank, "pid")

    def add(self, table: dict, key, rank: int, what: str) -> None:
        old = table.get(key)
        if old is None:
            table[key] = rank
        elif old != rank and old != -1:
            self.conflicts.append(f"{what} {key} is claimed by ranks {old} and {rank}")
            table[key] = -1  # poisoned: never used

    def merge(self, other: "RankHints") -> None:
        """Add another file's hints. A key it poisoned stays poisoned here; its conflict is among its own, said
        once (not again as claimed by a rank and -1)."""
        for name in ("by_host_pid", "by_host_local"):
            mine, theirs = getattr(self, name), getattr(other, name)
            for key, rank in theirs.items():
                if rank == -1:
                    mine[key] = -1
                else:
                    self.add(mine, key, rank, name.removeprefix("by_").replace("_", "/"))
        for pid, rank in other.by_pid.items():
            if rank == -1:
                self.by_pid[pid] = -1
                self.pid_hosts.setdefault(pid, other.pid_hosts.get(pid))
            else:
                self.add_pid(pid, other.pid_hosts.get(pid), rank)
        self.conflicts.extend(other.conflicts)

    def rank_of(self, host: str | None, pid: int | None, local_rank: int | None = None) -> int | None:
        rank = None
        if pid is not None:
            rank = self.by_host_pid.get((host, pid)) if host else None
            if rank is None:
                rank = self.by_pid.get(pid)
        if rank is None and local_rank is not None:
            if host is None:   # a --log-dir file names no host: usable when the map covers one host only
                hosts = {h for h, _ in self.by_host_local}
                host = next(iter(hosts)) if len(hosts) == 1 else None
            if host is not None:
                rank = self.by_host_local.get((host, local_rank))
        return rank if rank is not None and rank >= 0 else None


def hints_from_events(events: Iterable[Event]) -> RankHints:
    """Collect the facts in one file's events that tie a process to a global rank."""
    hints = RankHints()
    for host, pid, rank, local in _rank_facts(events):
        if isinstance(pid, int) and pid > 0:
            if host:
                hints.add(hints.by_host_pid, (host, pid), rank, "host/pid")
            hints.add_pid(pid, host, rank)
        if host and isinstance(local, int):
            hints.add(hints.by_host_local, (host, local), rank, "host/local_rank")
    return hints


def _rank_facts(events: Iterable[Event]) -> Iterator[tuple]:
    """(host, pid, rank, local rank) of each event that ties a process to a global rank."""
    for ev in events:
        if ev.kind not in _RANK_FACTS:
            continue
        rank = ev.data.get("rank", ev.rank)
        if not isinstance(rank, int) or rank < 0:
            continue
        if ev.kind == "comm_init" and ev.data.get("nranks") == 1:
            continue  # a per-process 1-rank comm says nothing about the global rank
        yield ev.data.get("host", ev.host), ev.data.get("pid", ev.pid), rank, ev.data.get("local_rank")


def _merge_file_hints(hints: RankHints, events: list[Event]) -> None:
    """`hints.merge(hints_from_events(events))`. A file whose facts name one process and one local rank, however
    often (a rank log's init lines each name them), adds them as that merge would, without a RankHints of its own
    (4,096 rank logs: a tenth of a second)."""
    by_pid = by_local = None
    for host, pid, rank, local in _rank_facts(events):
        if isinstance(pid, int) and pid > 0:
            by_pid = by_pid or (host, pid, rank)
            if by_pid != (host, pid, rank):
                hints.merge(hints_from_events(events))
                return
        if host and isinstance(local, int):
            by_local = by_local or (host, local, rank)
            if by_local != (host, local, rank):
                hints.merge(hints_from_events(events))
                return
    if by_pid and by_pid[0]:                              # in merge's order and words
        hints.add(hints.by_host_pid, by_pid[:2], by_pid[2], "host/pid")
    if by_local:
        hints.add(hints.by_host_local, by_local[:2], by_local[2], "host/local")
    if by_pid:
        host, pid, rank = by_pid
        hints.add_pid(pid, host, rank)


def fill_ranks(events: Iterable[Event], hints: RankHints, local_rank: int | None = None) -> int:
    """Fill unknown ranks in place; returns how many events still have no rank."""
    missing = 0
    for ev in events:
        if ev.rank is None:
            ev.rank = hints.rank_of(ev.host, ev.pid, local_rank if ev.local_rank is None else ev.local_rank)
            if ev.rank is None:
                missing += 1
    return missing


def assign_ranks(results: list[SourceResult]) -> RankHints:
    """Merge hints from every parsed file and fill the events' unknown ranks. Returns the merged hints."""
    hints = RankHints()
    for res in results:
        _merge_file_hints(hints, res.events)
    for res in results:
        _ranks_from_failure_tables(res.events)
        fill_ranks(res.events, hints, res.source.local_rank)
    _single_node_local_ranks(results)
    _srun_tasks_as_ranks(results)
    return hints


def _ranks_from_failure_tables(events: list[Event]) -> None:
    """torchrun's failure table quotes the child's error file under `traceback :` (the Python traceback that
    @record wrote: the OOM, the CUDA error, the NCCL error that ended it). The other parsers read those lines as
    well but see no rank on them: the entry's `rank :` is theirs (from the entry's `exitcode` line, the child_failed
    event's, to the quote's last line)."""
    spans = [(ev.file, ev.line, ev.data["traceback_end"], ev.rank) for ev in events
             if ev.kind == "child_failed" and ev.data.get("traceback_end")
             and isinstance(ev.rank, int) and ev.rank >= 0]
    if not spans:
        return
    for ev in events:
        if ev.rank is None and ev.kind != "child_failed":
            ev.rank = next((rank for file, first, last, rank in spans if file == ev.file and first < ev.line <= last),
                           None)


def _single_node_local_ranks(results: list[SourceResult]) -> None:
    """torchrun names local ranks (`--log-dir` folders, `[defaultN]:`, the agent's `failed (exitcode: -9)
    local_rank: 0` line), DeepSpeed's launcher each pid's (`spawned with command`); on a single node local == global.

    Used only for events that no hint could place, and only when the evidence shows at most one host and nothing
    that says the job spans nodes (`shows_other_nodes`).
    """
    events = [ev for res in results for ev in res.events]
    if spans_nodes(events):
        return
    # a launcher's spawn line (DeepSpeed's `process P spawned with command: [... --local_rank=K ...]`): pid -> local
    spawned = {ev.data["pid"]: ev.data["local_rank"] for ev in events if ev.kind == "worker_spawned"
               and isinstance(ev.data.get("pid"), int) and isinstance(ev.data.get("local_rank"), int)}
    for res in results:
        for ev in res.events:
            if ev.rank is None:
                local = res.source.local_rank if ev.local_rank is None else ev.local_rank
                if local is None and ev.kind == "worker_failed":
                    local = ev.data.get("local_rank")
                if local is None and ev.pid is not None:
                    local = spawned.get(ev.pid)
                if isinstance(local, int):
                    ev.rank = local


# the events of a launcher that runs on each node and starts that node's ranks (torchrun's agent and failure table,
# the DeepSpeed and accelerate launchers' kills and exits); slurmstepd's own `worker_failed` is no such launcher
_PER_NODE_LAUNCHER_KINDS = frozenset({"child_failed", "worker_failed", "worker_exit", "worker_spawned",
                                      "launcher_world", "sigterm_sent", "agent_log"})


def _srun_tasks_as_ranks(results: list[SourceResult]) -> None:
    """srun numbers a step's tasks 0..N-1 across its nodes (SLURM_PROCID): the global rank of a job whose ranks srun
    starts itself (MPI, or `srun python train.py` reading SLURM_PROCID). Under a per-node launcher (torchrun, the
    DeepSpeed or accelerate launcher) a task is a node's launcher instead, so srun's `task N: Out Of Memory` names
    rank N only where no such launcher's line is in the evidence, and only for one task (`tasks 0-3`: several). Its
    `task N: Bus error` / `Exited with exit code N` (srun_job.c _task_finish) names rank N only where srun also shows
    a node running several tasks (`gpu-06: tasks 0-7: Terminated`): a per-node launcher is one task per node."""
    srun = [ev for res in results for ev in res.events if ev.kind in ("slurm_oom", "slurm_exit")]
    if not srun or any(ev.kind in _PER_NODE_LAUNCHER_KINDS and not str(ev.data.get("message_id") or "").startswith(
            "slurm.") for res in results for ev in res.events):
        return
    kinds = {"slurm_oom", "slurm_exit"} if any(map(_several_tasks, srun)) else {"slurm_oom"}
    for ev in srun:
        task = str(ev.data.get("task")) if ev.kind in kinds and ev.rank is None else ""
        if task.isdigit():
            ev.rank = int(task)


def _several_tasks(ev: Event) -> bool:
    """An srun task line that names several tasks of one node (`tasks 0-7`, `tasks 8-12,14-15`)."""
    task = str(ev.data.get("task") or "")
    return bool(task) and not task.isdigit()


def spans_nodes(events: list[Event]) -> bool:
    """Does the evidence show the job on more than one node: two hosts, or an event that says so
    (`shows_other_nodes`)?"""
    hosts = {ev.host for ev in events if ev.host}
    return len(hosts) > 1 or any(map(shows_other_nodes, events))


def shows_other_nodes(ev: Event) -> bool:
    """Does one event say the job has ranks on other nodes, so that a torchrun local rank is no global rank? A rank
    named beside a different local rank of the same process: torchrun's failure table (`rank : 9 (local_rank: 1)`),
    NCCL's init line (`rank 9 ... localRank 1`), or a line under both torchrun's `[default1]:` (--tee: the local
    rank) and c10d's `[rank9]:` (the global rank); or NCCL's `nNodes 2`."""
    rank, local = ev.data.get("rank"), ev.data.get("local_rank")
    if isinstance(rank, int) and isinstance(local, int) and rank != local:
        return True
    if ev.rank is not None and ev.local_rank is not None and ev.rank != ev.local_rank:
        return True
    nodes = ev.data.get("nnodes")
    return ev.kind in ("comm_init", "launcher_world") and isinstance(nodes, int) and nodes > 1
