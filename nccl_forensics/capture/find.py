"""Find the training processes on this node, grouped by job, from /proc alone (read-only towards them).

A rank is a Python process whose environment holds torch's rank variables (`RANK` and `WORLD_SIZE`, as
torchrun, `torch.distributed.launch`, Kubernetes operators and most Slurm recipes set them). Processes
that inherit a rank's environment (DataLoader workers, the debug server's frontend) are its *helpers*, not
ranks: of the processes sharing one (job, rank), the topmost is the rank. A process below which another
rank runs is a launcher (a torchrun agent inside a pod that sets `RANK` for the node), not a rank. A job is keyed by `MASTER_ADDR:MASTER_PORT` and `TORCHELASTIC_RUN_ID`: every node of a job sees the
same key, so each node's bundle lands under the same job label.

Only the invoking user's processes are acted on by default. Root sees the other users' jobs too and says
whose they are (`Found.others`), but acts on one only when it is named: its PID (`--pid`) or its user
(`--user`). A process's own environment and argv are data: nothing in them is ever executed.

With `--pid`, only the process trees under the given PIDs count (a torchrun agent, an `srun` step, a
rank), and `SLURM_PROCID`/`SLURM_NTASKS` stand in for `RANK`/`WORLD_SIZE` where those are absent.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

from . import procs
from .procs import Proc
from .redact import redact_argv

_PYTHON = re.compile(r"^python[\d.]*[dmu]?$|^pt_elastic$")
_LAUNCHER = re.compile(r"torchrun|torch\.distributed\.(run|launch)|nccl_forensics\.capture\.local_launch")
_LABEL_CHARS = re.compile(r"[^\w.-]+")


@dataclass
class RankProc:
    pid: int
    proc: Proc
    rank: int | None
    world_size: int | None
    local_rank: int | None
    env: dict[str, str]                  # the whole environment, in memory only (the manifest keeps an allow-list)
    cmdline: list[str]
    helpers: list[int] = field(default_factory=list)
    uid: int | None = None               # the user it runs as (None: read from /proc when asked)

    @property
    def owner(self) -> int | None:
        return self.uid if self.uid is not None else procs.owner(self.pid)


@dataclass
class Job:
    label: str                           # folder name; the same on every node of the job
    master: str | None                   # "MASTER_ADDR:MASTER_PORT"
    run_id: str | None
    world_size: int | None
    ranks: list[RankProc]
    agent: Proc | None = None            # the common parent (a torchrun agent) when there is one
    agent_cmdline: list[str] = field(default_factory=list)

    @property
    def start_s(self) -> float:
        """When the job started on this node (seconds since boot): its agent, else its first rank."""
        starts = [r.proc.start_s for r in self.ranks] + ([self.agent.start_s] if self.agent else [])
        return min(starts, default=0.0)

    def pids(self) -> set[int]:
        return {r.pid for r in self.ranks} | {h for r in self.ranks for h in r.helpers}

    @property
    def owner(self) -> int | None:
        """The user the job's ranks run as (the first rank's; files it names must be this user's)."""
        return next((r.owner for r in self.ranks if r.owner is not None), None)


@dataclass
class Found:
    jobs: list[Job]
    refused: list[tuple[int, str]] = field(default_factory=list)    # (pid, why its environment is unreadable)
    notes: list[str] = field(default_factory=list)                  # given PIDs that hold no training process
    others: dict[int, list[str]] = field(default_factory=dict)      # uid -> labels of its jobs, seen, not taken


def find_jobs(pids: list[int] | None = None, match: tuple[str, str] | None = None,
              users: set[int] | None = None) -> Found:
    """The training jobs on this node (all of them, or those under `pids`), ranks sorted.

    `match` = (NAME, VALUE) keeps only processes whose environment holds NAME=VALUE (one user's job on a
    shared node: `SLURM_JOB_ID=1234`). `users` (uids) are the users whose processes are taken; by default
    the invoking user alone, or, with `pids`, whoever owns the processes named.
    """
    table = {p.pid: p for p in procs.all_procs()}
    found = Found(jobs=[])
    candidates = _candidates(pids, table, found)
    wanted = users if users is not None else (None if pids is not None else {os.geteuid()})
    ranks: list[RankProc] = []
    others: list[RankProc] = []
    for pid in sorted(candidates):
        uid = procs.owner(pid)
        if wanted is not None and uid not in wanted and os.geteuid() != 0:
            continue                          # another user's process: not ours to read or act on
        rank = _rank_proc(table[pid], explicit=pids is not None, given=pid in (pids or ()), found=found)
        if rank is None or not (match is None or rank.env.get(match[0]) == match[1] or not rank.env):
            continue
        rank.uid = uid
        (ranks if wanted is None or uid in wanted else others).append(rank)
    found.jobs = _jobs(ranks, table)
    if others:
        for job in _jobs(others, table):
            found.others.setdefault(job.owner if job.owner is not None else -1, []).append(job.label)
        for uid, labels in sorted(found.others.items()):
            found.notes.append(f"left alone: {len(labels)} job(s) of another user, {user_name(uid)}: "
                               f"{', '.join(labels[:5])}{' …' if len(labels) > 5 else ''} "
                               "(name them with --pid or --user to capture them)")
    if pids:
        _note_empty_pids(pids, table, found)
    return found


def _jobs(ranks: list[RankProc], table: dict[int, Proc]) -> list[Job]:
    ranks = _drop_launchers(ranks, table)
    jobs = [_job(members, table) for members in _group(ranks, table).values()]
    return sorted(jobs, key=lambda j: j.label)


def user_name(uid: int) -> str:
    try:
        import pwd
        return f"{pwd.getpwuid(uid).pw_name} (uid {uid})"
    except (KeyError, ImportError):
        return f"uid {uid}"


def _candidates(pids: list[int] | None, table: dict[int, Proc], found: Found) -> set[int]:
    if pids is None:
        mine = {os.getpid(), *procs.ancestors(os.getpid())}
        return {pid for pid in table if pid not in mine}
    chosen: set[int] = set()
    everyone = list(table.values())
    for pid in pids:
        if pid not in table:
            found.notes.append(f"pid {pid}: no such process")
            continue
        chosen.add(pid)
        chosen.update(p.pid for p in procs.descendants(pid, everyone))
    return chosen


def _rank_proc(proc: Proc, explicit: bool, given: bool, found: Found) -> RankProc | None:
    argv = procs.cmdline(proc.pid)
    if not given and not _is_python(proc.pid, argv):
        return None
    try:
        env = procs.environ(proc.pid)
    except PermissionError:
        found.refused.append((proc.pid, "its environment is unreadable (permission denied: another user's process)"))
        if given:        # named by the user: still try its stacks, under an unknown rank
            return RankProc(proc.pid, proc, None, None, None, {}, argv)
        return None
    except OSError:
        return None                           # exited meanwhile
    rank, world = _int(env.get("RANK")), _int(env.get("WORLD_SIZE"))
    if explicit and rank is None:
        rank, world = _int(env.get("SLURM_PROCID")), _int(env.get("SLURM_NTASKS"))
    if rank is None or (world is None and not given):
        return None
    return RankProc(proc.pid, proc, rank, world, _int(env.get("LOCAL_RANK")), env, argv)


def _is_python(pid: int, argv: list[str]) -> bool:
    names = [os.path.basename(argv[0])] if argv else []
    try:
        names.append(os.path.basename(os.readlink(f"/proc/{pid}/exe")))
    except OSError:
        pass
    return any(_PYTHON.match(n) for n in names)


def job_key(env: dict[str, str]) -> tuple[str, str, str]:
    if "MASTER_ADDR" in env or "TORCHELASTIC_RUN_ID" in env:
        return (env.get("MASTER_ADDR", ""), env.get("MASTER_PORT", ""), env.get("TORCHELASTIC_RUN_ID", ""))
    if "SLURM_JOB_ID" in env:
        return ("slurm", env["SLURM_JOB_ID"], env.get("SLURM_STEP_ID", ""))
    return ("", "", "")                  # unknown: an unreadable environment


def _drop_launchers(ranks: list[RankProc], table: dict[int, Proc]) -> list[RankProc]:
    """A process with rank variables below which another rank (of any job) runs launched it: a rank's
    helpers share its job and rank, a launcher's children do not."""
    by_pid = {r.pid: r for r in ranks}
    launchers = set()
    for r in ranks:
        for up in _ancestors_in(r.pid, table):
            other = by_pid.get(up)
            if other is not None and (other.rank, job_key(other.env)) != (r.rank, job_key(r.env)):
                launchers.add(up)
    return [r for r in ranks if r.pid not in launchers]


def _group(ranks: list[RankProc], table: dict[int, Proc]) -> dict[tuple, list[RankProc]]:
    """Per job, one RankProc per rank: the topmost process; the ones below it become its helpers."""
    jobs: dict[tuple, list[RankProc]] = {}
    same: dict[tuple[tuple, int | None], list[RankProc]] = {}
    for r in ranks:
        same.setdefault((job_key(r.env), r.rank), []).append(r)
    for (key, _), members in sorted(same.items(), key=lambda kv: (kv[0][0], _order(kv[0][1]))):
        pids = {m.pid for m in members}
        tops = [m for m in members if not pids.intersection(_ancestors_in(m.pid, table))]
        for top in tops:
            top.helpers = sorted(m.pid for m in members if top.pid in _ancestors_in(m.pid, table))
        jobs.setdefault(key, []).extend(tops)
    return jobs


def _ancestors_in(pid: int, table: dict[int, Proc]) -> list[int]:
    chain, proc = [], table.get(pid)
    while proc is not None and proc.ppid in table and proc.ppid not in chain:
        chain.append(proc.ppid)
        proc = table[proc.ppid]
    return chain


def _job(members: list[RankProc], table: dict[int, Proc]) -> Job:
    env = members[0].env
    master = f"{env['MASTER_ADDR']}:{env.get('MASTER_PORT', '')}" if "MASTER_ADDR" in env else None
    run_id = env.get("TORCHELASTIC_RUN_ID")
    worlds = {m.world_size for m in members if m.world_size is not None}
    parents = {m.proc.ppid for m in members}
    agent = table.get(parents.pop()) if len(parents) == 1 else None
    agent_argv = procs.cmdline(agent.pid) if agent else []
    if agent is not None and not _LAUNCHER.search(" ".join(agent_argv)) and len(members) == 1:
        agent, agent_argv = None, []          # a lone rank's parent is a shell, not a launcher
    return Job(label=job_label(env), master=master, run_id=run_id, world_size=max(worlds, default=None),
               ranks=sorted(members, key=lambda m: (_order(m.rank), m.pid)),
               agent=agent, agent_cmdline=agent_argv)


def job_label(env: dict[str, str]) -> str:
    key = job_key(env)
    if key == ("", "", ""):
        raw = "job-unknown"
    elif key[0] == "slurm":
        raw = f"slurm-{key[1]}.{key[2]}"
    elif key[2] and key[2] != "none":
        raw = f"job-{key[2]}"
    else:
        raw = f"job-{key[0]}-{key[1]}"
    return _LABEL_CHARS.sub("_", raw).strip("_") or "job"


def _note_empty_pids(pids: list[int], table: dict[int, Proc], found: Found) -> None:
    held = {p for job in found.jobs for p in job.pids()} | {j.agent.pid for j in found.jobs if j.agent}
    refused = {pid for pid, _ in found.refused}
    everyone = list(table.values())
    for pid in pids:
        if pid not in table or pid in held:
            continue
        tree = {pid} | {p.pid for p in procs.descendants(pid, everyone)}
        if tree & held:
            continue
        argv = " ".join(redact_argv(procs.cmdline(pid)))[:80] or "?"
        why = "its environment is unreadable" if tree & refused else "no process in its tree has RANK/WORLD_SIZE"
        found.notes.append(f"pid {pid} ({argv}) is not a training process: {why}")


def _order(rank: int | None) -> int:
    return -1 if rank is None else rank


def _int(value: str | None) -> int | None:
    return int(value) if value is not None and value.strip().isdigit() else None
