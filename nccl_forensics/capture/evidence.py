"""The evidence the job writes by itself, located from each rank's environment and its launcher's command line,
and copied (never moved) into the bundle.

- `NCCL_DEBUG_FILE` (`%h` → host name up to its first dot, `%p` → the rank's pid, `%%` → `%`; relative to
  the rank's working directory) → `nccl/<name>`.
- torchrun `--log-dir`: the run's folder, from each rank's `TORCHELASTIC_ERROR_FILE`
  (`<log-dir>/<run>/attempt_N/<local_rank>/error.json`), else from the agent's `--log-dir` → `torchrun_logs/`.
- the files the ranks' and the agent's stdout/stderr go to (a Slurm `.out`, a shell redirect: tracebacks,
  watchdog messages) → `console/<name>`.
- flight-recorder dumps: `<TORCH_FR_DUMP_TEMP_FILE or TORCH_NCCL_DEBUG_INFO_TEMP_FILE><rank>` (verbatim with
  `TORCH_FR_DUMP_DYNAMIC_FILE_NAME`), else torch's defaults `${XDG_CACHE_HOME:-~/.cache}/torch/
  comm_lib_trace_rank_<rank>` (2.9+) and `~/.cache/torch/nccl_trace_rank_<rank>` (2.7) → `fr/nccl_trace_rank_<R>`
  (a dump holds no rank: the name must). A dump older than the job is an earlier job's and is left out.

Files already inside the bundle (`ncclf run` and the reproducers point the job there) are recorded in place.

The job's environment names these files, and the job may be another user's while capture runs as root: a
file is copied only when it is a regular file owned by the job's user, opened without following a symbolic
link in its last component (`O_NOFOLLOW`) and checked on the opened descriptor (no swap in between). Copies
are 0600 (the bundle's folders 0700).
"""
from __future__ import annotations

import errno
import glob
import os
import re
import socket
import stat
from dataclasses import dataclass
from pathlib import Path

from .find import Job, RankProc
from .procs import cwd

_ERROR_FILE = re.compile(r"attempt_\d+$")


@dataclass
class Item:
    kind: str                   # "nccl_log" | "torchrun_logs" | "console" | "flight_recorder"
    rank: int | None
    source: str                 # where the job wrote it
    path: str | None = None     # where it is in the bundle (relative), None when not captured
    status: str = "copied"      # "copied" | "in_place" | "missing" | "stale" | "failed"
    reason: str = ""


def copy_job_files(job: Job, bundle: Path, job_started_epoch: float) -> list[Item]:
    items: list[Item] = []
    for r in job.ranks:
        items.extend(_nccl_logs(r, bundle))
    run_dirs = torchrun_run_dirs(job, job_started_epoch)
    items.extend(_torchrun_logs(run_dirs, bundle, job.owner))
    items.extend(_consoles(job, bundle, run_dirs))
    for r in job.ranks:
        items.extend(copy_fr_dumps(r, bundle, job_started_epoch))
    return _dedupe(items)


def nccl_debug_pattern(r: RankProc) -> str | None:
    value = r.env.get("NCCL_DEBUG_FILE")
    if not value:
        return None
    out, i = [], 0
    while i < len(value):
        two = value[i:i + 2]
        if two in ("%h", "%p", "%%"):
            out.append({"%h": "\0h", "%p": str(r.pid), "%%": "%"}[two])
            i += 2
        else:
            out.append(value[i])
            i += 1
    return _absolute("".join(out), r.pid)


def _nccl_logs(r: RankProc, bundle: Path) -> list[Item]:
    pattern = nccl_debug_pattern(r)
    if pattern is None:
        return []
    exact = pattern.replace("\0h", socket.gethostname().split(".")[0])
    matches = [exact] if os.path.isfile(exact) else \
        sorted(glob.glob(glob.escape(pattern).replace("\0h", "*")))
    if not matches:
        return [Item("nccl_log", r.rank, exact, status="missing",
                     reason="NCCL_DEBUG_FILE names no file yet (NCCL writes it when the rank initialises NCCL)")]
    return [_copy_file("nccl_log", r.rank, Path(m), bundle, Path("nccl") / Path(m).name, r.owner) for m in matches]


def torchrun_run_dirs(job: Job, job_started_epoch: float) -> list[Path]:
    dirs = set()
    for r in job.ranks:
        error_file = r.env.get("TORCHELASTIC_ERROR_FILE")
        if error_file:
            attempt = Path(_absolute(error_file, r.pid)).parent.parent
            if _ERROR_FILE.search(attempt.name):
                dirs.add(attempt.parent)
    if dirs or not job.agent:
        return sorted(dirs)
    log_dir = _option(job.agent_cmdline, ("--log-dir", "--log_dir"))
    if log_dir is None:
        return []
    root = Path(log_dir if os.path.isabs(log_dir) else os.path.join(cwd(job.agent.pid) or "/", log_dir))
    prefix = f"{job.run_id or 'none'}_"
    return sorted(d for d in _subdirs(root) if d.name.startswith(prefix) and d.stat().st_mtime >= job_started_epoch - 1)


def _torchrun_logs(run_dirs: list[Path], bundle: Path, owner: int | None) -> list[Item]:
    items = []
    for run_dir in run_dirs:
        refused = _owned_dir(run_dir, owner)
        if refused is not None:
            items.append(Item("torchrun_logs", None, str(run_dir), status="failed", reason=refused))
            continue
        for src in sorted(p for p in _walk(run_dir) if _regular(p)):
            items.append(_copy_file("torchrun_logs", None, src, bundle,
                                    Path("torchrun_logs") / run_dir.name / src.relative_to(run_dir), owner))
    return items


def _owned_dir(path: Path, owner: int | None) -> str | None:
    """Why the folder `path` may not be read for the job (None: it may): not a folder of the job's user."""
    try:
        st = path.lstat()
    except OSError as exc:
        return f"{path}: {exc.strerror or exc}"
    if not stat.S_ISDIR(st.st_mode):
        return f"{path}: not a folder (a symbolic link is not followed)"
    if owner is not None and st.st_uid != owner:
        return f"{path}: owned by uid {st.st_uid}, not by the job's user (uid {owner}): not copied"
    return None


def _walk(root: Path) -> list[Path]:
    """Every file below `root`, without following a symbolic link to a folder."""
    out: list[Path] = []
    for folder, _dirs, files in os.walk(root, followlinks=False):
        out.extend(Path(folder) / f for f in files)
    return out


def console_files(job: Job) -> list[str]:
    """Regular files that the ranks' (and the agent's) stdout and stderr are open on."""
    pids = [r.pid for r in job.ranks] + ([job.agent.pid] if job.agent else [])
    found = []
    for pid in pids:
        for fd in (1, 2):
            try:
                target = os.readlink(f"/proc/{pid}/fd/{fd}")
            except OSError:
                continue
            if target.startswith("/") and _regular(Path(target)) and target not in found:
                found.append(target)
    return found


def _consoles(job: Job, bundle: Path, run_dirs: list[Path]) -> list[Item]:
    """The consoles, but not torchrun's `--tee` files: those come with its log folder."""
    files = [Path(f) for f in console_files(job) if not any(Path(f).is_relative_to(d) for d in run_dirs)]
    names = [f.name if [g.name for g in files].count(f.name) == 1 else f"{i}-{f.name}" for i, f in enumerate(files)]
    return [_copy_file("console", None, f, bundle, Path("console") / name, job.owner) for f, name in zip(files, names, strict=True)]


def fr_dump_candidates(r: RankProc) -> list[str]:
    env, rank = r.env, r.rank
    prefix = env.get("TORCH_FR_DUMP_TEMP_FILE") or env.get("TORCH_NCCL_DEBUG_INFO_TEMP_FILE")
    if prefix:
        dynamic = env.get("TORCH_FR_DUMP_DYNAMIC_FILE_NAME", "").lower() in ("1", "true", "yes", "y")
        return [_absolute(prefix if dynamic else f"{prefix}{rank}", r.pid)]
    home = env.get("HOME") or os.path.expanduser("~")
    cache = env.get("XDG_CACHE_HOME") or os.path.join(home, ".cache")
    return [os.path.join(cache, "torch", f"comm_lib_trace_rank_{rank}"),
            os.path.join(home, ".cache", "torch", f"nccl_trace_rank_{rank}")]


def copy_fr_dumps(r: RankProc, bundle: Path, job_started_epoch: float) -> list[Item]:
    if r.rank is None:
        return []
    items = []
    for src in dict.fromkeys(fr_dump_candidates(r)):
        if not os.path.isfile(src):
            continue
        if os.path.getmtime(src) < job_started_epoch:
            items.append(Item("flight_recorder", r.rank, src, status="stale",
                              reason="older than the job: an earlier job's dump"))
            continue
        items.append(_copy_file("flight_recorder", r.rank, Path(src), bundle, Path("fr") / f"nccl_trace_rank_{r.rank}",
                                r.owner))
    return items


def _copy_file(kind: str, rank: int | None, src: Path, bundle: Path, rel: Path, owner: int | None) -> Item:
    item = Item(kind, rank, str(src), str(rel))
    try:
        inside = src.resolve().relative_to(bundle.resolve())
    except ValueError:
        inside = None
    if inside is not None:
        item.path, item.status = str(inside), "in_place"
        return item
    dest = bundle / rel
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
        copy_owned(src, dest, owner)
    except OSError as exc:
        item.path, item.status, item.reason = None, "failed", f"{src}: {exc.strerror or exc}"
    return item


def copy_owned(src: Path, dest: Path, owner: int | None) -> None:
    """Copy `src` to a new private file `dest` (0600) when `src` is a regular file owned by `owner` (the job's
    user; None: anyone), opened without following a symbolic link and without blocking; checked on the fd."""
    try:
        fd = os.open(src, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise OSError(exc.errno, "a symbolic link: not followed") from None
        raise
    with os.fdopen(fd, "rb") as fh:
        st = os.fstat(fh.fileno())
        if not stat.S_ISREG(st.st_mode):
            raise OSError(errno.EINVAL, "not a regular file")
        if owner is not None and st.st_uid != owner:
            raise OSError(errno.EPERM, f"owned by uid {st.st_uid}, not by the job's user (uid {owner}): not copied")
        with _create_private(dest) as out:
            while chunk := fh.read(1 << 20):
                out.write(chunk)


def write_private(dest: Path, data: bytes) -> None:
    """A new file `dest` (0600, not through a symbolic link) holding `data`."""
    with _create_private(dest) as out:
        out.write(data)


def _create_private(dest: Path):
    fd = os.open(dest, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    if os.fstat(fd).st_mode & 0o077:
        os.fchmod(fd, 0o600)
    return os.fdopen(fd, "wb")


def _dedupe(items: list[Item]) -> list[Item]:
    """One NCCL_DEBUG_FILE without %p is shared by every rank: keep it once."""
    seen, out = set(), []
    for item in items:
        key = (item.kind, item.source, item.status)
        if key not in seen:
            seen.add(key)
            out.append(item)
    return out


def _absolute(path: str, pid: int) -> str:
    path = os.path.expanduser(path)
    return path if os.path.isabs(path) else os.path.join(cwd(pid) or "/", path)


def _option(argv: list[str], names: tuple[str, ...]) -> str | None:
    for i, arg in enumerate(argv):
        for name in names:
            if arg == name and i + 1 < len(argv):
                return argv[i + 1]
            if arg.startswith(name + "="):
                return arg.split("=", 1)[1]
    return None


def _subdirs(root: Path) -> list[Path]:
    try:
        return [d for d in root.iterdir() if d.is_dir()]
    except OSError:
        return []


def _regular(path: Path) -> bool:
    try:
        return stat.S_ISREG(path.lstat().st_mode)
    except OSError:
        return False
