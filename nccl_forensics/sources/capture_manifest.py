"""What a capture bundle's `manifest.json` says that its files cannot: the node they came from, and which
global rank a pid or a torchrun local rank was on that node.

`ncclf capture` writes one bundle per node (`<out>/<host>/`), each with a manifest. Its files already
carry what they can in their names and lines (`pyspy/rank3.py-spy-node_1-4242.txt`,
`fr/nccl_trace_rank_3`, NCCL's `host:pid:tid` prefixes), but torchrun's `--log-dir` files only name a
*local* rank, and `dmesg.txt` names no host: on a multi-node job, local rank 0 of the second node is not
global rank 0. Discovery therefore fills, for files under a bundle, an unknown host with the bundle's
host and an unknown rank from the manifest's pid and local-rank tables. Node context files listed by the
manifest (`nvidia-smi -q`, interfaces) and the manifest itself are not evidence for the parsers.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field

from ..files import open_regular
from ..model import Source, SourceKind

MANIFEST_NAME = "manifest.json"
MARK = "ncclf_capture"             # the key (schema version) that tells a capture manifest from any JSON
_MAX_BYTES = 8 * 1024 * 1024


@dataclass
class BundleFacts:
    root: str
    host: str | None = None
    rank_by_pid: dict[int, int] = field(default_factory=dict)
    rank_by_local: dict[int, int] = field(default_factory=dict)
    context: set[str] = field(default_factory=set)     # bundle-relative paths of node context files


def read_bundle_facts(path: str) -> BundleFacts | None:
    """The facts of the capture manifest at `path`, or None when it is not one (or unreadable)."""
    doc = _read(path)
    if doc is None:
        return None
    facts = BundleFacts(root=os.path.dirname(path), host=_str(doc.get("host")))
    locals_seen: dict[int, set[int]] = {}
    for entry in doc.get("ranks") or []:
        rank, pid, local = (_int(entry.get(k)) if isinstance(entry, dict) else None for k in ("rank", "pid", "local_rank"))
        if rank is None:
            continue
        if pid is not None:
            facts.rank_by_pid[pid] = rank
        if local is not None:
            locals_seen.setdefault(local, set()).add(rank)
    facts.rank_by_local = {local: ranks.pop() for local, ranks in locals_seen.items() if len(ranks) == 1}
    facts.context = {p for p in doc.get("context") or [] if isinstance(p, str)}
    return facts


def _read_text(path: str) -> str | None:
    try:
        if os.path.getsize(path) > _MAX_BYTES:
            return None
        with open_regular(path) as fh:
            return fh.read(_MAX_BYTES + 1).decode("utf-8")
    except (OSError, ValueError):
        return None


def _read(path: str, text: str | None = None) -> dict | None:
    """The manifest's document, or None when `path` is not a capture manifest (or is unreadable)."""
    text = _read_text(path) if text is None else text
    try:
        doc = json.loads(text) if text is not None else None
    except ValueError:
        return None
    return doc if isinstance(doc, dict) and MARK in doc else None


def rank_env(path: str) -> list[tuple[int, str, str, int]]:
    """(rank, name, value, line) of each variable in each rank's recorded environment (capture/node.py's
    allow-list); `line` is the variable's line in the file (1 when the layout is not ncclf's own indent)."""
    text = _read_text(path)
    doc = _read(path, text)
    if doc is None or text is None:
        return []
    lines = _env_lines(text)
    out = []
    for entry in doc.get("ranks") or []:
        rank = _int(entry.get("rank")) if isinstance(entry, dict) else None
        env = entry.get("env") if isinstance(entry, dict) else None
        if rank is None or not isinstance(env, dict):
            continue
        out += [(rank, name, value, lines.get((rank, name), 1)) for name, value in env.items()
                if isinstance(name, str) and isinstance(value, str)]
    return out


def _env_lines(text: str) -> dict[tuple[int, str], int]:
    """(rank, variable) → its line number, for a manifest laid out as capture/manifest.py writes it."""
    out: dict[tuple[int, str], int] = {}
    rank, in_env = None, False
    for no, line in enumerate(text.splitlines(), 1):
        key = line.strip()
        if key.startswith('"rank": '):
            rank, in_env = _int(_json_int(key[8:].rstrip(","))), False
        elif key == '"env": {':
            in_env = True
        elif in_env and key.startswith("}"):
            in_env = False
        elif in_env and rank is not None and key.startswith('"') and '": ' in key:
            out.setdefault((rank, key[1:key.index('": ')]), no)
    return out


def _json_int(text: str) -> int | None:
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, int) else None


def apply_capture_manifests(sources: list[Source]) -> None:
    """Fill host/rank of sources that lie under a capture bundle, from its manifest (in place)."""
    bundles = []
    for src in sources:
        if os.path.basename(src.path) == MANIFEST_NAME:
            facts = read_bundle_facts(src.path)
            if facts is not None:
                src.kind, src.reason = SourceKind.UNKNOWN, "capture manifest (read for hosts and ranks)"
                bundles.append(facts)
    if not bundles:
        return
    bundles.sort(key=lambda b: len(b.root), reverse=True)     # the innermost bundle wins
    for src in sources:
        facts = next((b for b in bundles if _inside(src.path, b.root)), None)
        if facts is not None:
            _apply(src, facts)


def _apply(src: Source, facts: BundleFacts) -> None:
    rel = os.path.relpath(src.path, facts.root).replace(os.sep, "/")
    if rel in facts.context:
        src.kind, src.reason = SourceKind.UNKNOWN, "node context (ncclf capture)"
        return
    if src.host is None:
        src.host = facts.host
    if src.rank is None and src.local_rank is not None:
        src.rank = facts.rank_by_local.get(src.local_rank)
    if src.rank is None and src.pid is not None:
        src.rank = facts.rank_by_pid.get(src.pid)


def _inside(path: str, root: str) -> bool:
    if not root:                       # a manifest given by a relative name in the current directory
        return not os.path.isabs(path)
    return os.path.dirname(path) == root or path.startswith(root.rstrip(os.sep) + os.sep)


def _int(value) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _str(value) -> str | None:
    return value if isinstance(value, str) and value else None
