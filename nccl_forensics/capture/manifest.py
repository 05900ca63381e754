"""`manifest.json`: what one node's capture found, what it captured, and what failed and why.

Discovery reads it back (sources/capture_manifest.py) for what the files cannot say: the host of the
bundle and which global rank each pid / local rank was. It never holds a secret: each rank's environment
is cut to an allow-list (node.env_snapshot), and command-line options named like secrets are redacted.
"""
from __future__ import annotations

import datetime
import json
import os
import socket
from dataclasses import asdict
from importlib import metadata
from pathlib import Path

from ..sources.capture_manifest import MANIFEST_NAME, MARK
from .find import Job
from .node import env_snapshot
from .procs import is_alive
from .redact import redact_argv

SCHEMA_VERSION = 1


def ncclf_version() -> str:
    try:
        return metadata.version("nccl-forensics")
    except metadata.PackageNotFoundError:
        return "unknown"


def new_manifest(host: str, job: Job | None, boot_epoch: float) -> dict:
    doc = {
        MARK: SCHEMA_VERSION, "host": host, "hostname": socket.gethostname(),
        "time": _iso(datetime.datetime.now().astimezone()), "ncclf_version": ncclf_version(),
        "job": None, "ranks": [], "captured": [], "failed": [], "skipped": [], "context": [], "notes": [],
    }
    if job is not None:
        doc["job"] = {
            "label": job.label, "master": job.master, "run_id": job.run_id, "world_size": job.world_size,
            "ranks_here": len(job.ranks), "started": _iso_from_epoch(boot_epoch + job.start_s),
            "agent": {"pid": job.agent.pid, "cmdline": redact_argv(job.agent_cmdline)} if job.agent else None,
        }
        doc["ranks"] = [{
            "rank": r.rank, "local_rank": r.local_rank, "pid": r.pid, "alive": is_alive(r.proc),
            "helpers": r.helpers, "cmdline": redact_argv(r.cmdline), "env": env_snapshot(r.env),
        } for r in job.ranks]
    return doc


def add(doc: dict, section: str, **entry) -> None:
    """Append one record to `captured`, `failed` or `skipped` (None values dropped)."""
    doc[section].append({k: v for k, v in entry.items() if v is not None and v != ""})


def add_items(doc: dict, items) -> None:
    """Record evidence.Item-like objects under the section their status says."""
    for item in items:
        entry = {k: v for k, v in asdict(item).items() if k != "status"}
        if item.status in ("copied", "in_place"):
            add(doc, "captured", **entry, how=item.status)
        elif item.status in ("missing", "stale"):
            add(doc, "skipped", **entry, why=item.status)
        else:
            add(doc, "failed", **entry)


def write(doc: dict, bundle: Path) -> Path:
    path = bundle / MANIFEST_NAME
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(doc, indent=2, default=str) + "\n", encoding="utf-8")
    os.replace(tmp, path)
    return path


def boot_epoch() -> float:
    """When this machine booted (epoch seconds): turns /proc start times into wall-clock times."""
    try:
        with open("/proc/stat") as fh:
            for line in fh:
                if line.startswith("btime "):
                    return float(line.split()[1])
    except OSError:
        pass
    return 0.0


def _iso(moment: datetime.datetime) -> str:
    return moment.isoformat(timespec="seconds")


def _iso_from_epoch(epoch: float) -> str:
    return _iso(datetime.datetime.fromtimestamp(epoch).astimezone())
