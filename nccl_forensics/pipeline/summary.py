"""The map step's output as a file: `ncclf summarize` writes it where the logs are, `ncclf diagnose` reduces it.

A summary (`*.ncclf`) is a zip archive, versioned and safe to read (nothing in it is unpickled):

    manifest.json   {"format": "ncclf-summary", "schema_version": 6, "ncclf_version", "created", "host",
                     "inputs": [...], "sources": [every file found, unreadable ones included], "digests": n}
    digests         (schemas 5 and 6) every digest in one member: an 8-byte little-endian length, a JSON header
                    of that length ({"digests": [digest, ...]}), then the raw bytes of their numpy arrays (each at
                    an 8-byte aligned offset): one member to inflate and one JSON text to parse per node. Schema 6
                    names a digest's source by its index in the manifest's `sources` ({"__source__": i}) where
                    the manifest lists it as it is, and leaves out every dataclass field that holds its default:
                    about 40% less JSON for the reduce to parse, and one Source object per file
    digests/<i>     (schemas 3 and 4) digest i as one member of the same layout
    rows/<j>        (schema 4) the timeline rows of several digests whose columns have one shape (every
                    flight-recorder dump of a node), concatenated: one member of the same layout whose header is
                    {"digests": [[i, first row, end row], ...], "columns": {name: column}}; those digests' own
                    `rows` are empty in their member. A reduce of 100,000 ranks then decodes a few arrays per
                    node, not a dozen per rank. (Schema 5) a block's digests are in the order of their first
                    rank, so that the reduce can take the block whole (`read_summary_blocks`).

The header holds every field of `map.Digest` by name, generically (a field added to Digest travels without a
change here): JSON values as they are; tuples, sets, ranges, NamedTuples, dataclasses and enums of the few
model types in `_TYPES` tagged so that they come back as themselves; each numpy array as
`{"__array__": [offset, dtype, shape]}`, read back with `np.frombuffer` (numeric dtypes only). Memberships are
ranges when their ranks step evenly (a 16,384-rank job's summary would otherwise repeat 16,384 ints per dump).

Schema 1 and 2 files (a manifest listing every digest, `events/<i>.jsonl`, `rows/<i>/<column>.npy`), schema 3
(every digest's rows in its own member), schema 4 (one member per digest) and schema 5 (sources repeated in the
digests, every field written) still read.

A large file read at its head and tail is summarized with its true line numbers: the newlines before its tail
are counted on the node that has the file (the reducing node has only the summary). One whose unread middle may
hold a failure line (pipeline/unread.py) is summarized whole instead.
"""
from __future__ import annotations

import datetime
import enum
import io
import json
import socket
import zipfile
from dataclasses import MISSING, asdict, fields, is_dataclass, replace
from functools import lru_cache
from math import prod
from typing import Any, NamedTuple

import numpy as np

from ..diagnosis.groups import compact
from ..errors import BadInput
from ..files import atomic_output, open_regular
from ..limits import LISTED_RANKS, SUMMARY_MEMBER_BYTES, SUMMARY_TOTAL_BYTES
from ..model import Event, Source, SourceKind, SourceResult
from ..sources.columns import code_type

FORMAT, SCHEMA_VERSION = "ncclf-summary", 6
_READABLE_SCHEMAS = (1, 2, 3, 4, 5, 6)
_MAX_RANKS = LISTED_RANKS          # a larger membership is damage, not a job
SUFFIX = ".ncclf"
_EVENT_FIELDS = [f.name for f in fields(Event)]


def write_summary(path: str, sources: list[Source], digests: list, inputs: list[str],
                  schema: int = SCHEMA_VERSION) -> None:
    """Write `digests` (pipeline.map.Digest, in path order) and every source found to `path` (`schema` 4 or 5:
    a previous layout, kept so that tests can check it still reads)."""
    from importlib.metadata import PackageNotFoundError, version
    try:
        own = version("nccl-forensics")
    except PackageNotFoundError:
        own = "unknown"
    manifest: dict[str, Any] = {
        "format": FORMAT, "schema_version": schema, "ncclf_version": own, "host": socket.gethostname(),
        "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"), "inputs": inputs,
        "sources": [_source_dict(s) for s in sources], "digests": len(digests)}
    try:
        with atomic_output(path, binary=True) as out, \
                zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=6) as zf:
            blocks = _row_blocks(digests)
            manifest["row_blocks"] = len(blocks)
            blocked = {i for block in blocks for i, _, _ in block["digests"]}
            lean = schema >= 6
            headers = [_fields_of(replace(d, rows={}) if i in blocked else d, lean) for i, d in enumerate(digests)]
            if schema >= 5:
                named = _source_refs(sources, digests) if lean else {}
                zf.writestr("digests", _block_of({"digests": headers}, named, lean))
            else:
                for i, header in enumerate(headers):
                    zf.writestr(f"digests/{i}", _block_of(header))
            for j, block in enumerate(blocks):
                zf.writestr(f"rows/{j}", _block_of(block))
            zf.writestr("manifest.json", _dumps(manifest))
    except OSError as exc:
        raise BadInput(f"cannot write the summary to {path}: {exc.strerror or exc}") from None


def read_summary(path: str) -> tuple[list[Source], list]:
    """(every source the summary lists, its digests, each with its own rows). A damaged, foreign or oversized
    file is BadInput: every member is read at most limits.SUMMARY_MEMBER_BYTES decompressed, all of them
    SUMMARY_TOTAL_BYTES, a membership holds at most LISTED_RANKS ranks, and a digest's row columns agree in
    length."""
    sources, digests, blocks = read_summary_blocks(path)
    for block in blocks:
        block.share()
    return sources, digests


class RowBlock(NamedTuple):
    """The rows of several digests of one summary, whole: `columns` (rows.pack_columns form, "num", "cat"
    and "none" parts), `spans` [(digest, first row, end row)] in row order. Those digests' own `rows` are empty
    until `share()` gives each the views of its rows."""
    columns: dict
    spans: list

    def share(self) -> None:
        for d, start, end in self.spans:
            d.rows = {name: _view(part, start, end) for name, part in self.columns.items()}


def read_summary_blocks(path: str) -> tuple[list[Source], list, list[RowBlock]]:
    """read_summary, with the row blocks left whole (the reduce takes a block as one part of its frame)."""
    try:
        with open_regular(path) as raw, zipfile.ZipFile(raw) as zf:
            budget = _Budget(path)
            manifest = json.loads(budget.read(zf, "manifest.json"))
            if not isinstance(manifest, dict) or manifest.get("format") != FORMAT or \
                    manifest.get("schema_version") not in _READABLE_SCHEMAS:
                found = manifest if not isinstance(manifest, dict) else manifest.get("format")
                version = manifest.get("schema_version") if isinstance(manifest, dict) else None
                raise BadInput(f"{path}: not an ncclf summary of schema_version {_READABLE_SCHEMAS} "
                               f"(found {found!r:.60} {version!r})")
            sources = [_source(s) for s in manifest["sources"]]
            if manifest["schema_version"] < 3:
                return sources, _read_digests_v2(zf, manifest, budget), []
            count, blocks = manifest["digests"], manifest.get("row_blocks", 0)
            if type(count) is not int or type(blocks) is not int:
                raise ValueError("digests is not a count")
            if manifest["schema_version"] >= 5:
                listed = sources if manifest["schema_version"] >= 6 else None
                headers = _decoded(budget.read(zf, "digests"), sources=listed)["digests"]
                if type(headers) is not list or len(headers) != count:
                    raise ValueError("the digests member does not hold the manifest's digests")
                digests = [_digest_of(header) for header in headers]
            else:
                digests = [_digest_of(_decoded(budget.read(zf, f"digests/{i}"))) for i in range(count)]
            # each column its own array (copied out of the member): the reduce frees each once the frame has it
            row_blocks = [_row_block(_decoded(budget.read(zf, f"rows/{j}")), digests) for j in range(blocks)]
            return sources, digests, row_blocks
    except BadInput:
        raise
    except Exception as exc:  # noqa: BLE001 (whatever a damaged or hostile file makes the readers raise: bad input)
        raise BadInput(f"{path}: a damaged ncclf summary ({type(exc).__name__}: {str(exc)[:200]})") from None


class _Budget:
    """Reads zip members within the per-member and total limits, whatever their headers claim."""

    def __init__(self, path: str) -> None:
        self.path, self.left = path, SUMMARY_TOTAL_BYTES

    def read(self, zf: zipfile.ZipFile, name: str) -> bytes:
        limit = min(SUMMARY_MEMBER_BYTES, self.left)
        with zf.open(name) as fh:
            data = fh.read(limit + 1)
        if len(data) > limit:
            raise BadInput(f"{self.path}: member {name} decompresses to more than {limit >> 20} MiB "
                           f"(a summary's members are limited to {SUMMARY_MEMBER_BYTES >> 20} MiB each, "
                           f"{SUMMARY_TOTAL_BYTES >> 20} MiB in all)")
        self.left -= len(data)
        return data


def _check_rows(rows: dict) -> None:
    """Every row column of a digest has the same length (a "none" column states its own)."""
    lengths = set()
    for name, part in rows.items():
        if type(part) is list:
            lengths.add(len(part))
        elif part[0] == "none":
            lengths.add(part[1])
        elif part[0] == "cat":
            lengths.add(len(part[2]))
            codes = part[2]
            if len(codes) and (int(codes.min()) < -1 or int(codes.max()) >= len(part[1])):   # -1: missing
                raise ValueError(f"row column {name}: codes outside its {len(part[1])} categories")
        else:
            lengths.add(len(part[1]))
    if len(lengths) > 1:
        raise ValueError(f"row columns of different lengths {sorted(lengths)[:4]}")


# ---- schema 3: one member per digest ----

@lru_cache(maxsize=1)
def _types() -> dict[str, type]:
    """The types a header may name (nothing else is ever built from a summary)."""
    from ..diagnosis.fr_semantics import P2POp
    from ..model import Evidence
    return {t.__name__: t for t in (Event, Source, SourceResult, SourceKind, P2POp, Evidence)}


def _fields_of(d, lean: bool = False) -> dict:
    """A dataclass's fields by name; `lean`: without those that hold their default (the reader fills them in)."""
    if not lean:
        return {f.name: getattr(d, f.name) for f in fields(d)}
    kind: type = type(d)
    defaults = _defaults(kind)
    return {f.name: value for f in fields(d) for value in [getattr(d, f.name)]
            if not (f.name in defaults and type(value) is type(defaults[f.name]) and value == defaults[f.name])}


@lru_cache(maxsize=64)
def _defaults(cls: type) -> dict:
    """Each field's default value, a factory's made once (an empty list or dict)."""
    out = {}
    for f in fields(cls):
        if f.default is not MISSING:
            out[f.name] = f.default
        elif f.default_factory is not MISSING:
            out[f.name] = f.default_factory()
    return out


def _source_refs(sources: list[Source], digests: list) -> dict[int, int]:
    """{id(a digest's source): its index in the manifest's sources} where the manifest lists it as it is: the
    digest names it there instead of repeating it (one Source object per file for the reduce to build)."""
    index = {s.path: i for i, s in enumerate(sources)}
    refs = {}
    for d in digests:
        src = d.result.source
        i = index.get(src.path)
        if i is not None and _source_dict(sources[i]) == _source_dict(src):
            refs[id(src)] = i
    return refs


class _Packing(NamedTuple):
    """What `_pack` writes into and with: the arrays (and where the next one starts), the sources the manifest
    lists (by id, see _source_refs), and whether dataclasses leave out their default fields (schema 6)."""
    arrays: list
    offset: list
    named: dict
    lean: bool


def _block_of(value: dict, named: dict | None = None, lean: bool = False) -> bytes:
    out_of = _Packing([], [0], named or {}, lean)
    header = {k: _pack(v, out_of) for k, v in value.items()}
    arrays = out_of.arrays
    head = _dumps(header).encode()
    out = [len(head).to_bytes(8, "little"), head]
    pad = (-len(head)) % 8
    out.append(b"\0" * pad)
    for a in arrays:
        raw = a.tobytes()
        out.append(raw + b"\0" * ((-len(raw)) % 8))
    return b"".join(out)


def _pack(value, out: _Packing):
    """`value` as JSON with tags (see the module docstring); arrays are appended to `out.arrays`."""
    t = type(value)
    if value is None or t in (str, int, float, bool):
        return value
    if t is list:
        return [_pack(v, out) for v in value]
    if t is dict:
        if all(type(k) is str for k in value) and not (len(value) == 1 and next(iter(value)) in _TAGS):
            return {k: _pack(v, out) for k, v in value.items()}
        return {"__dict__": [[_pack(k, out), _pack(v, out)] for k, v in value.items()]}
    if t is np.ndarray:
        if value.dtype.kind not in _ARRAY_KINDS:
            return {"__list__": _pack(value.tolist(), out)}
        a = np.ascontiguousarray(value)
        spec = {"__array__": [out.offset[0], a.dtype.str, list(a.shape)]}
        out.arrays.append(a)
        out.offset[0] += a.nbytes + (-a.nbytes) % 8
        return spec
    if isinstance(value, np.generic):
        return value.item()
    if t is range:
        return {"__range__": [value.start, value.stop, value.step]}
    if t in (set, frozenset):
        return {"__set__": [_pack(v, out) for v in sorted(value, key=repr)]}
    if isinstance(value, enum.Enum):
        return {"__enum__": [t.__name__, value.value]}
    if t is tuple:
        return {"__tuple__": [_pack(v, out) for v in value]}
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return {"__nt__": [t.__name__, [_pack(v, out) for v in value]]}
    if is_dataclass(value):
        if t is Source and id(value) in out.named:
            return {"__source__": out.named[id(value)]}
        items = _fields_of(value, out.lean)
        if t is Source:
            items["window"] = None           # line numbers in a summary are already the true ones
            if out.lean:
                del items["window"]
        return {"__dc__": [t.__name__, {k: _pack(v, out) for k, v in items.items()}]}
    raise TypeError(f"a digest holds a {t.__name__}, which a summary cannot store: add it to summary._types")


_ARRAY_KINDS = "biuf"
_TAGS_5 = {"__array__", "__range__", "__tuple__", "__set__", "__list__", "__dict__", "__enum__", "__nt__", "__dc__"}
_TAGS = _TAGS_5 | {"__source__"}     # schema 6: a digest's source, by its index in the manifest's sources


def _decoded(block: bytes, copy: bool = True, sources: list[Source] | None = None):
    """A member's header, its tags decoded; `sources`: the manifest's (schema 6), which `__source__` names."""
    size = int.from_bytes(block[:8], "little")
    if size > len(block) - 8:
        raise ValueError("a digest header longer than its member")
    start = 8 + size + (-size) % 8
    return json.loads(block[8:8 + size], object_hook=_untagger(memoryview(block)[start:], _types(), copy, sources))


def _untagger(data: memoryview, types: dict, copy: bool = True, sources: list[Source] | None = None):
    """The JSON decoder's object hook for one member: each tagged object as what it stands for (the decoder calls
    it innermost first, so its parts are already decoded). One Python call per object: a summary of 100,000 ranks
    has millions of them. Before schema 6 (no `sources`), a `__source__` object is a plain one."""
    tags = _TAGS if sources is not None else _TAGS_5
    listed = sources if sources is not None else []

    def hook(value: dict):
        if len(value) != 1:
            return value
        (tag, body), = value.items()
        if tag not in tags:
            return value
        if tag == "__dc__":
            cls, fields_of = types[body[0]], body[1]
            known = _field_names(cls)
            return cls(**fields_of) if known.issuperset(fields_of) else \
                cls(**{k: v for k, v in fields_of.items() if k in known})
        if tag == "__source__":
            if type(body) is not int or not 0 <= body < len(listed):
                raise ValueError(f"a digest names source {body!r:.20}, which the summary does not list")
            return listed[body]
        if tag == "__array__":
            offset, dtype, shape = body
            return _array(data, offset, dtype, shape, copy)
        if tag == "__range__":
            members = range(*body)
            if len(members) > _MAX_RANKS:
                raise ValueError(f"a membership of {len(members)} ranks")
            return members
        if tag == "__tuple__":
            return tuple(body)
        if tag == "__set__":
            if len(body) > _MAX_RANKS:
                raise ValueError(f"a set of {len(body)} members")
            return set(body)
        if tag == "__list__":
            return body
        if tag == "__dict__":
            return dict(body)
        if tag == "__enum__":
            return types[body[0]](body[1])
        return types[body[0]](*body[1])                      # __nt__
    return hook


def joined_rows(digests: list) -> list[RowBlock]:
    """The digests' packed rows as row blocks (`_row_blocks`), each digest's own rows then emptied (`share()` gives
    it views of them back): a worker sends a few arrays per column for a batch of files, and the reduce frames a
    block as one part, not one per file."""
    blocks = [RowBlock(b["columns"], [(digests[i], start, end) for i, start, end in b["digests"]])
              for b in _row_blocks(digests)]
    for block in blocks:
        for d, _, _ in block.spans:
            d.rows = {}
    return blocks


def _row_blocks(digests: list) -> list[dict]:
    """The digests whose rows are all packed columns (numbers, codes, nothing), grouped by the shape of their
    columns, each group's rows concatenated (codes over the union of their categories)."""
    by_shape: dict[tuple, list[int]] = {}
    for i, d in enumerate(digests):
        shape = _shape_of(d.rows)
        if shape is not None:
            by_shape.setdefault(shape, []).append(i)
    blocks = []
    for members in by_shape.values():
        members.sort(key=lambda i: _first_rank(digests[i].rows))   # the reduce can take the block as it is
        parts = [digests[i].rows for i in members]
        ends = np.cumsum([_rows_in(p) for p in parts]).tolist()
        blocks.append({"digests": [[i, start, end] for i, start, end in zip(members, [0, *ends[:-1]], ends,
                                                                              strict=True)],
                       "columns": {name: _joined([p[name] for p in parts]) for name in parts[0]}})
    return blocks


def _shape_of(rows: dict) -> tuple | None:
    """Each column's (name, kind, numpy kind of its numbers); None where a column is not packed, or holds categories
    that JSON may not give back as themselves."""
    shape = []
    for name, part in rows.items():
        kind = part[0] if type(part) is tuple else None
        if kind == "cat" and not set(map(type, part[1])) <= _JSON_CATEGORIES or kind not in ("num", "cat", "none"):
            return None
        shape.append((name, kind, part[1].dtype.kind if kind == "num" else ""))
    return tuple(shape) if shape else None


_JSON_CATEGORIES = frozenset({str, int, type(None)})


def _first_rank(rows: dict) -> float:
    part = rows.get("rank")
    if type(part) is not tuple or part[0] != "num" or not len(part[1]) or part[1][0] != part[1][0]:
        return float("inf")
    return float(part[1][0])


def _rows_in(rows: dict) -> int:
    part = next(iter(rows.values()))
    return part[1] if part[0] == "none" else len(part[-1])


def _joined(parts: list[tuple]) -> tuple:
    kind = parts[0][0]
    if kind == "none":
        return ("none", sum(p[1] for p in parts))
    if kind == "num":
        return ("num", np.concatenate([p[1] for p in parts]))
    keys = [tuple(p[1]) for p in parts]                     # category lists compared by content: a job's files
    lists = list(dict.fromkeys(keys))                       # mostly hold the same one
    cats = list(dict.fromkeys(c for key in lists for c in key))
    if len(lists) == 1:                                     # the parts' codes are the block's already
        return ("cat", cats, np.concatenate([p[2] for p in parts]).astype(code_type(len(cats))))
    index = {c: i for i, c in enumerate(cats)}
    tables = {key: np.array([index[c] for c in key] + [-1], np.int64) for key in lists}   # code -1 stays -1
    codes = np.concatenate([tables[key][p[2]] for key, p in zip(keys, parts, strict=True)])
    return ("cat", cats, codes.astype(code_type(len(cats))))


def _row_block(block: dict, digests: list) -> RowBlock:
    """A row block's columns and the digests whose rows it holds (checked: every span inside the block, no
    digest twice, no digest that has rows of its own)."""
    columns, spans = block["columns"], block["digests"]
    _check_rows(columns)
    total = _rows_in(columns) if columns else 0
    seen: set[int] = set()
    for i, start, end in spans:
        if not (type(i) is int and 0 <= i < len(digests) and type(start) is int and type(end) is int
                and 0 <= start <= end <= total) or digests[i].rows or i in seen:
            raise ValueError("a row block names rows it does not hold")
        seen.add(i)
    return RowBlock(columns, [(digests[i], start, end) for i, start, end in spans])


def _view(part: tuple, start: int, end: int) -> tuple:
    if part[0] == "none":
        return ("none", end - start)
    if part[0] == "num":
        return ("num", part[1][start:end])
    return ("cat", part[1], part[2][start:end])


def _digest_of(header: dict):
    from .map import Digest
    if type(header) is not dict:
        raise ValueError("a digest that is not an object")
    known = _field_names(Digest)
    digest = Digest(**{k: v for k, v in header.items() if k in known})
    digest.declared = {str(g): compact(m) for g, m in digest.declared.items()}
    _check_rows(digest.rows)
    return digest


def _array(data: memoryview, offset: int, dtype: str, shape: list, copy: bool = True) -> np.ndarray:
    kind = _dtype(dtype)
    if not all(type(n) is int and n >= 0 for n in shape):
        raise ValueError(f"an array of shape {shape!r}")
    count = prod(shape)
    if type(offset) is not int or offset < 0 or offset + count * kind.itemsize > len(data):
        raise ValueError("an array past the end of its digest")
    array = np.frombuffer(data, kind, count, offset).reshape(shape)
    return array.copy() if copy else array


@lru_cache(maxsize=64)
def _dtype(name: str) -> np.dtype:
    kind = np.dtype(name)
    if kind.kind not in _ARRAY_KINDS or kind.hasobject:
        raise ValueError(f"an array of dtype {name!r}")
    return kind


@lru_cache(maxsize=64)
def _field_names(cls: type) -> frozenset:
    return frozenset(f.name for f in fields(cls))


# ---- schemas 1 and 2 ----

def _write_summary_v2(path: str, sources: list[Source], digests: list, inputs: list[str]) -> None:
    """A schema 2 summary (what ncclf wrote before schema 3), kept so that tests can check it still reads."""
    manifest: dict[str, Any] = {"format": FORMAT, "schema_version": 2, "ncclf_version": "old", "host": "h",
                                "created": "", "inputs": inputs, "sources": [_source_dict(s) for s in sources],
                                "digests": []}
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=6) as zf:
        for i, d in enumerate(digests):
            zf.writestr(f"events/{i}.jsonl", "".join(_dumps(_event_dict(ev)) + "\n" for ev in d.result.events))
            manifest["digests"].append({
                "source": _source_dict(d.result.source), "lines": d.result.lines, "unparsed": d.result.unparsed,
                "error": d.result.error, "declared": {g: _tag(m) for g, m in d.declared.items()},
                "warnings": d.warnings, "row_pids": d.row_pids, "row_hosts": d.row_hosts,
                "p2p": [_tag(list(op)) for op in d.p2p],
                "rows": {name: _store(zf, f"rows/{i}/{name}", part) for name, part in d.rows.items()}})
        zf.writestr("manifest.json", _dumps(manifest))


def _read_digests_v2(zf: zipfile.ZipFile, manifest: dict, budget: _Budget) -> list:
    from ..diagnosis.fr_semantics import P2POp
    from .map import Digest
    digests = []
    for i, entry in enumerate(manifest["digests"]):
        events = [_event(json.loads(line, object_hook=_untag))
                  for line in budget.read(zf, f"events/{i}.jsonl").decode().splitlines() if line]
        result = SourceResult(_source(entry["source"]), events, entry["lines"], entry["unparsed"], entry["error"])
        rows = {name: _load(zf, f"rows/{i}/{name}", spec, budget) for name, spec in entry["rows"].items()}
        _check_rows(rows)
        digests.append(Digest(result, rows, entry["row_pids"], entry["row_hosts"],
                              {g: compact(_untag_all(m)) for g, m in entry["declared"].items()},
                              entry["warnings"], [P2POp(*_untag_all(op)) for op in entry["p2p"]]))
    return digests


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
        if len(d["__set__"]) > _MAX_RANKS:
            raise ValueError(f"a set of {len(d['__set__'])} members")
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


# ---- timeline columns (rows.pack_columns form) ----

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


def _load(zf: zipfile.ZipFile, stem: str, spec: dict, budget: _Budget):
    kind = spec["type"]
    if kind == "list":
        return _untag_all(spec["values"])
    if kind == "num":
        return ("num", _read_npy(zf, f"{stem}.npy", budget))
    if kind == "cat":
        return ("cat", _untag_all(spec["categories"]), _read_npy(zf, f"{stem}.npy", budget))
    if kind == "none":
        n = int(spec["n"])
        if not 0 <= n <= SUMMARY_MEMBER_BYTES:
            raise ValueError(f"a column of {n} rows")
        return ("none", n)
    return ("obj", _untag_all(spec["values"]))


def _npy(zf: zipfile.ZipFile, name: str, array: np.ndarray) -> None:
    buf = io.BytesIO()
    np.save(buf, np.asarray(array), allow_pickle=False)
    zf.writestr(name, buf.getvalue())


def _read_npy(zf: zipfile.ZipFile, name: str, budget: _Budget) -> np.ndarray:
    array = np.load(io.BytesIO(budget.read(zf, name)), allow_pickle=False)
    if array.ndim != 1 or array.dtype.kind not in "biuf":
        raise ValueError(f"{name}: not a column of numbers ({array.dtype}, {array.ndim} dimensions)")
    return array
