"""One node's capture: find the job's ranks, take everything at once, write the bundle and its manifest.

    result = capture(out="cap")            # every training job on this node → cap/<host>/
    result = capture(pids=[4242], out="cap", host="node-1")

Layout of a bundle (`<out>/<host>/`, or `<out>/<job>/<host>/` when this node runs several jobs):
`pyspy/rank<R>.py-spy-<host>-<pid>.txt`, `fr/nccl_trace_rank_<R>` (the job's own dumps),
`fr/fr_trace_json_rank_<R>.json` and `stacks/` (torch's debug server), `nccl/` (NCCL_DEBUG_FILE),
`torchrun_logs/<run>/attempt_N/<local_rank>/`, `dmesg.txt`, `node/` (nvidia-smi, interfaces) and
`manifest.json`. `ncclf diagnose <out>` reads one bundle or the folder of every node's bundles.

Towards the job it is read-only: it reads /proc, runs `py-spy dump` (which pauses each rank for the
moment of the dump), reads the store and the debug server, writes one byte to a dump pipe torch offers,
and copies files. It never signals, stops or kills a process.
"""
from __future__ import annotations

import os
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import CaptureError
from . import manifest, node
from .debug_server import capture_from_debug_server
from .evidence import copy_job_files
from .find import Found, Job, find_jobs
from .fr_pipe import trigger_dumps
from .pyspy import DEFAULT_TIMEOUT_S, StackDump, dump_stacks
from .tools import find_tool, install_hint


@dataclass
class CaptureOptions:
    native: bool = False                 # py-spy --native
    timeout_s: float = DEFAULT_TIMEOUT_S  # per py-spy dump
    debug_server: bool = True            # look the debug server up in the job's store
    cgroup: str | None = None            # also keep kernel OOM reports that hit this cgroup (reproducers)


@dataclass
class Bundle:
    path: Path
    job: Job | None
    manifest: dict
    stacks: list[StackDump] = field(default_factory=list)

    @property
    def failures(self) -> list[dict]:
        return self.manifest["failed"]


@dataclass
class CaptureResult:
    found: Found
    bundles: list[Bundle]
    elapsed_s: float = 0.0

    @property
    def ranks_found(self) -> int:
        return sum(len(j.ranks) for j in self.found.jobs)

    @property
    def stacks_taken(self) -> int:
        """Ranks with a stack: a py-spy dump or the debug server's traceback."""
        kinds = {"py-spy", "debug_server_dump_traceback"}
        return len({(str(b.path), e.get("rank"), e.get("pid")) for b in self.bundles
                    for e in b.manifest["captured"] if e["kind"] in kinds})


def capture(pids: list[int] | None = None, out: str | os.PathLike = "ncclf-capture", host: str | None = None,
            options: CaptureOptions | None = None, match: tuple[str, str] | None = None,
            users: set[int] | None = None) -> CaptureResult:
    """Capture every training job of this user on this node (or the ones under `pids`, or of `users`, or
    whose environment holds `match` = (NAME, VALUE)) into `out`. The bundle is private: folders 0700,
    files 0600 (a bundle holds stacks and logs; share it on purpose, with chmod)."""
    started = time.monotonic()
    options = options or CaptureOptions()
    label = node.host_label(host)
    out = Path(out)
    previous_umask = os.umask(0o077)
    try:
        check_writable(out)
        found = find_jobs(pids, match, users)
        bundles = []
        if not found.jobs:
            bundles.append(_empty_bundle(_fresh(out / label), label, found))
        for job in found.jobs:
            dest = out / label if len(found.jobs) == 1 else out / job.label / label
            bundles.append(capture_job(job, _fresh(dest), label, options, found))
    finally:
        os.umask(previous_umask)
    return CaptureResult(found, bundles, round(time.monotonic() - started, 2))


def capture_job(job: Job, bundle: Path, host: str, options: CaptureOptions, found: Found | None = None) -> Bundle:
    """Everything about one job on this node into `bundle` (which may already hold the job's own files)."""
    t0 = time.monotonic()
    bundle.mkdir(parents=True, exist_ok=True)
    boot = manifest.boot_epoch()
    doc = manifest.new_manifest(host, job, boot)
    _note_found(doc, found)
    with ThreadPoolExecutor(max_workers=4) as pool:
        stacks = pool.submit(_stacks, job, bundle, host, options, doc)
        server = pool.submit(_debug_server, job, bundle, host, options, doc)
        context = pool.submit(node_context, bundle, doc, job.start_s, job.pids() | _agent(job), options.cgroup)
        pipes = pool.submit(trigger_dumps, job.ranks)
        for rank, outcome in (_outcome(pipes, doc, "fr_pipe") or {}).items():
            if outcome != "dumped":
                manifest.add(doc, "failed", kind="fr_pipe", rank=rank, reason=outcome)
        try:
            manifest.add_items(doc, copy_job_files(job, bundle, boot + job.start_s))
        except Exception as exc:  # noqa: BLE001 - one part failing must not lose the others
            manifest.add(doc, "failed", kind="job_files", reason=f"internal error: {type(exc).__name__}: {exc}")
        result = Bundle(bundle, job, doc, _outcome(stacks, doc, "py-spy") or [])
        _outcome(server, doc, "debug_server")
        _outcome(context, doc, "node")
    doc["elapsed_s"] = round(time.monotonic() - t0, 2)
    manifest.write(doc, bundle)
    return result


def _outcome(future, doc: dict, kind: str):
    """A part's result; an exception in it is recorded in the manifest instead of ending the capture."""
    try:
        return future.result()
    except Exception as exc:  # noqa: BLE001 - one part failing must not lose the others
        manifest.add(doc, "failed", kind=kind, reason=f"internal error: {type(exc).__name__}: {exc}")
        return None


def check_writable(out: Path) -> None:
    """A one-line CaptureError unless `out` can be created and written to."""
    try:
        out.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=out, prefix=".ncclf-write-test-"):
            pass
    except OSError as exc:
        raise CaptureError(f"--out {out} is not writable: {exc.strerror or exc}") from None


def _fresh(dest: Path) -> Path:
    if dest.is_symlink():
        raise CaptureError(f"{dest} is a symbolic link; pick another --out")
    if dest.exists() and any(dest.iterdir()):
        raise CaptureError(f"{dest} already holds a capture; pick another --out")
    dest.mkdir(parents=True, exist_ok=True)
    if dest.stat().st_uid == os.geteuid():
        dest.chmod(0o700)
    return dest


def _stacks(job: Job, bundle: Path, host: str, options: CaptureOptions, doc: dict) -> list[StackDump]:
    exe = find_tool("py-spy")
    if exe is None:
        for r in job.ranks:
            manifest.add(doc, "failed", kind="py-spy", rank=r.rank, pid=r.pid,
                         reason=f"py-spy is not installed; install it with {install_hint('py-spy')}")
        return []
    dumps = dump_stacks(job.ranks, bundle / "pyspy", host, exe, options.native, options.timeout_s)
    for d in dumps:
        path = str(d.path.relative_to(bundle)) if d.path else None
        section = "captured" if d.status == "ok" else "failed"
        manifest.add(doc, section, kind="py-spy", rank=d.rank, pid=d.pid, path=path, reason=d.reason,
                     seconds=d.seconds, status=None if d.status == "ok" else d.status)
    return dumps


def _debug_server(job: Job, bundle: Path, host: str, options: CaptureOptions, doc: dict) -> None:
    if not options.debug_server:
        doc["notes"].append("debug server: not looked up (switched off)")
        return
    items, how = capture_from_debug_server(job, bundle, host)
    doc["notes"].append(how)
    manifest.add_items(doc, items)


def node_context(bundle: Path, doc: dict, since_s: float, pids: set[int], cgroup: str | None) -> None:
    lines, source = node.kernel_log()
    if lines:
        kept = node.job_kernel_lines(lines, since_s, pids, cgroup)
        if kept:
            (bundle / "dmesg.txt").write_text("\n".join(kept) + "\n")
            manifest.add(doc, "captured", kind="kernel", path="dmesg.txt", source=source, lines=len(kept))
        else:
            doc["notes"].append(f"kernel: no line about the job since it started ({source})")
    else:
        manifest.add(doc, "failed", kind="kernel", reason=source)
    files = {name: (text, how) for name, (text, how) in node.gpu_reports().items()}
    files["interfaces.txt"] = (node.interfaces(), "ok")
    for name, (text, how) in files.items():
        if text is None:
            manifest.add(doc, "failed", kind="node", path=f"node/{name}", reason=how)
            continue
        (bundle / "node").mkdir(exist_ok=True)
        (bundle / "node" / name).write_text(text)
        doc["context"].append(f"node/{name}")


def postmortem(job: Job | None, bundle: Path, host: str, pids: set[int], since_s: float) -> Bundle:
    """After the job ended by itself: the kernel's word on its processes and a manifest (its files are in place)."""
    bundle.mkdir(parents=True, exist_ok=True)
    doc = manifest.new_manifest(host, job, manifest.boot_epoch())
    doc["notes"].append("taken after the job ended: no stacks, only what the job and the kernel wrote")
    node_context(bundle, doc, since_s, pids, None)
    manifest.write(doc, bundle)
    return Bundle(bundle, job, doc)


def _empty_bundle(bundle: Path, host: str, found: Found) -> Bundle:
    doc = manifest.new_manifest(host, None, manifest.boot_epoch())
    _note_found(doc, found)
    manifest.add(doc, "failed", kind="find", reason="no training process found on this node")
    node_context(bundle, doc, 0.0, set(), None)
    manifest.write(doc, bundle)
    return Bundle(bundle, None, doc)


def _note_found(doc: dict, found: Found | None) -> None:
    if found is None:
        return
    doc["notes"].extend(found.notes)
    for pid, why in found.refused:
        manifest.add(doc, "failed", kind="find", pid=pid, reason=why)


def _agent(job: Job) -> set[int]:
    return {job.agent.pid} if job.agent else set()
