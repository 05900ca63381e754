"""The map step's output as a file: `ncclf summarize` writes it where the logs are, `ncclf diagnose` reduces it.

A summary (`*.ncclf`) is a zip archive, versioned and safe to read (nothing in it is unpickled):

    manifest.json          {"format": "ncclf-summary", "schema_version": 2, "ncclf_version", "created", "host",
                            "inputs": [...], "sources": [every file found, unreadable ones included],
                            "digests": [one per evidence file: its source, lines, error, declared groups,
                                        warnings, row pids/hosts, P2P ops, and how each timeline column
                                        is stored]}
    events/<i>.jsonl       digest i's events (Event fields; tuples, sets and ranges tagged so that they come back)
    rows/<i>/<column>.npy  digest i's numeric columns and category codes (numpy, allow_pickle=False)

Schema 2 keeps process-group memberships compact (`{"__range__": [start, stop, step]}` for evenly stepped
ranks: a 16,384-rank job's summary would otherwise repeat 16,384 ints per dump); schema 1 files still read.

A large file read at its head and tail is summarized with its true line numbers: the newlines before its tail
are counted on the node that has the file (the reducing node has only the summary).
"""
from __future__ import annotations

import datetime
import io
import json
import socket
import zipfile
from dataclasses import asdict, fields
from typing import Any

import numpy as np

from ..diagnosis.groups import compact
from ..errors import BadInput
from ..model import Event, Source, SourceKind, SourceResult

FORMAT, SCHEMA_VERSION = "ncclf-summary", 2
_READABLE_SCHEMAS = (1, 2)
_MAX_RANKS = 1 << 24               # a larger range is damage, not a job
SUFFIX = ".ncclf"
_EVENT_FIELDS = [f.name for f in fields(Event)]


def write_summary(path: str, sources: list[Source], digests: list, inputs: list[str]) -> None:
    """Write `digests` (pipeline.map.Digest, in path order) and every source found to `path`."""
    from importlib.metadata import PackageNotFoundError, version
    try:
        own = version("nccl-forensics")
    except PackageNotFoundError:
        own = "unknown"
    manifest: dict[str, Any] = {
        "format": FORMAT, "schema_version": SCHEMA_VERSION, "ncclf_version": own, "host": socket.gethostname(),
        "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"), "inputs": inputs,
        "sources": [_source_dict(s) for s in sources], "digests": []}
    try:
        with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=6) as zf:
            for i, d in enumerate(digests):
                zf.writestr(f"events/{i}.jsonl", "".join(_dumps(_event_dict(ev)) + "\n" for ev in d.result.events))
                manifest["digests"].append({
                    "source": _source_dict(d.result.source), "lines": d.result.lines,
                    "unparsed": d.result.unparsed, "error": d.result.error,
                    "declared": {g: _tag(m) for g, m in d.declared.items()}, "warnings": d.warnings,
                    "row_pids": d.row_pids, "row_hosts": d.row_hosts, "p2p": [_tag(list(op)) for op in d.p2p],
                    "rows": {name: _store(zf, f"rows/{i}/{name}", part) for name, part in d.rows.items()}})
            zf.writestr("manifest.json", _dumps(manifest))
    except OSError as exc:
        raise BadInput(f"cannot write the summary to {path}: {exc.strerror or exc}") from None


def read_summary(path: str) -> tuple[list[Source], list]:
    """(every source the summary lists, its digests). A damaged or foreign file is BadInput."""
    from ..diagnosis.fr_semantics import P2POp
    from .map import Digest
    try:
        with zipfile.ZipFile(path) as zf:
            manifest = json.loads(zf.read("manifest.json"))
            if manifest.get("format") != FORMAT or manifest.get("schema_version") not in _READABLE_SCHEMAS:
                raise BadInput(f"{path}: not an ncclf summary of schema_version {_READABLE_SCHEMAS} "
                               f"(found {manifest.get('format')!r} {manifest.get('schema_version')!r})")
            sources = [_source(s) for s in manifest["sources"]]
            digests = []
            for i, entry in enumerate(manifest["digests"]):
                events = [_event(json.loads(line, object_hook=_untag))
                          for line in zf.read(f"events/{i}.jsonl").decode().splitlines() if line]
                result = SourceResult(_source(entry["source"]), events, entry["lines"], entry["unparsed"],
                                      entry["error"])
                rows = {name: _load(zf, f"rows/{i}/{name}", spec) for name, spec in entry["rows"].items()}
                digests.append(Digest(result, rows, entry["row_pids"], entry["row_hosts"],
                                      {g: compact(_untag_all(m)) for g, m in entry["declared"].items()},
                                      entry["warnings"],
                                      [P2POp(*_untag_all(op)) for op in entry["p2p"]]))
    except (OSError, KeyError, ValueError, zipfile.BadZipFile, TypeError) as exc:
        raise BadInput(f"{path}: a damaged ncclf summary ({type(exc).__name__}: {exc})") from None
    return sources, digests


# ---- sources and events ----

def _source_dict(s: Source) -> dict:
    out = asdict(s)
    out["kind"] = s.kind.value
    out["window"] = None                 # line numbers in a summary are already the true ones
    return out


def _source(d: dict) -> Source:
    return Source(**{**d, "kind": SourceKind(d["kind"]), "window": None})


def _event_dict(ev: Event) -> dict:
    return {name: _tag(getattr(ev, name)) for name in _EVENT_FIELDS}


def _event(d: dict) -> Event:
    return Event(**{name: d[name] for name in _EVENT_FIELDS if name in d})


def _tag(value):
    """JSON keeps lists and dicts; tuples and sets come back only when tagged."""
    if type(value) is tuple:
        return {"__tuple__": [_tag(v) for v in value]}
    if type(value) is range:
        return {"__range__": [value.start, value.stop, value.step]}
    if type(value) in (set, frozenset):
        return {"__set__": [_tag(v) for v in sorted(value, key=repr)]}
    if type(value) is list:
        return [_tag(v) for v in value]
    if type(value) is dict:
        return {str(k): _tag(v) for k, v in value.items()}
    if isinstance(value, np.generic):
        return value.item()
    if value is None or type(value) in (str, int, float, bool):
        return value
    return str(value)


def _untag(d: dict):
    if len(d) == 1 and "__tuple__" in d:
        return tuple(d["__tuple__"])
    if len(d) == 1 and "__set__" in d:
        return set(d["__set__"])
    if len(d) == 1 and "__range__" in d:
        members = range(*d["__range__"])
        if len(members) > _MAX_RANKS:
            raise ValueError(f"a membership of {len(members)} ranks")
        return members
    return d


def _untag_all(value):
    if type(value) is dict:
        return _untag({k: _untag_all(v) for k, v in value.items()})
    if type(value) is list:
        return [_untag_all(v) for v in value]
    return value


def _dumps(value) -> str:
    return json.dumps(value, separators=(",", ":"), allow_nan=True)


# ---- timeline columns (timeline.pack_columns form) ----

def _store(zf: zipfile.ZipFile, stem: str, part) -> dict:
    if type(part) is list:                                   # ranks not packed yet
        return {"type": "list", "values": _tag(part)}
    kind = part[0]
    if kind == "num":
        _npy(zf, f"{stem}.npy", part[1])
        return {"type": "num"}
    if kind == "cat":
        _npy(zf, f"{stem}.npy", np.asarray(part[2]))
        return {"type": "cat", "categories": _tag(list(part[1]))}
    if kind == "none":
        return {"type": "none", "n": int(part[1])}
    return {"type": "obj", "values": _tag(list(part[1]))}


def _load(zf: zipfile.ZipFile, stem: str, spec: dict):
    kind = spec["type"]
    if kind == "list":
        return _untag_all(spec["values"])
    if kind == "num":
        return ("num", _read_npy(zf, f"{stem}.npy"))
    if kind == "cat":
        return ("cat", _untag_all(spec["categories"]), _read_npy(zf, f"{stem}.npy"))
    if kind == "none":
        return ("none", int(spec["n"]))
    return ("obj", _untag_all(spec["values"]))


def _npy(zf: zipfile.ZipFile, name: str, array: np.ndarray) -> None:
    buf = io.BytesIO()
    np.save(buf, np.asarray(array), allow_pickle=False)
    zf.writestr(name, buf.getvalue())


def _read_npy(zf: zipfile.ZipFile, name: str) -> np.ndarray:
    return np.load(io.BytesIO(zf.read(name)), allow_pickle=False)
