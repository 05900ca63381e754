"""Diagnosis → the JSON contract of `ncclf diagnose --format json` (schema_version 1).

    {"schema_version": 1,
     "verdict":  {"class", "culprit_ranks", "confidence", "confidence_reason", "summary", "fix", ...},
     "groups":   [{"name", "desc": str|null, "size": int|null, "ranks", "last_common_seq",
                   "positions": {"<rank>": "at|ahead|missing"}, "last_seq": {"<rank>": int|null}}],
     "findings": [{"id", "name", "class", "ranks", "message", "confidence", "evidence": [{"file","line","text"}],
                   "fix", "group", "seq", "cause"}],
     "ranks":    [{"rank", "host", "pids", "pyspy", "op", "at", "exitcode", "signal", "end", "end_detail",
                   "end_is_cause", "positions": {group: position}, "first_divergence": {...} | null}],
     "missing_evidence": [...], "skipped_detectors": [{"id", "reason"}], "sources": [...], "errors": [...],
     "world":    {"size": int|null, "expected": [int], "present": [int],
                  "claims": [{"what", "size", "ranks", "file", "line"}]},
     "missing_ranks": [{"rank", "reason", "detail", "files"}],   # expected ranks without (full) evidence
     "warnings": [...],                                           # internal errors of a parser or detector
     "windowed_files": [{"path", "head_bytes", "tail_bytes"}],    # large files read at their head and tail
     "windowed_dumps": [{"path", "first_entry"}],                 # flight-recorder dumps decoded from an entry on
     "environment": [{"name", "value", "ranks", "file", "line"}]} # variables set (NCCL INFO lines, capture manifest)
"""
from __future__ import annotations

import json
from json.encoder import encode_basestring_ascii
from operator import itemgetter
from typing import Callable, TextIO

import pandas as pd

from ..pipeline.reduce import SCHEMA_VERSION, Diagnosis


def _int(value):
    try:
        return None if value is None or value != value else int(value)
    except (TypeError, ValueError):
        return None


def group_order(name: str) -> tuple:
    """Groups in numeric order (0, 1, 2, 10, 100, not 0, 1, 10, 100, 2); names that are not numbers after."""
    text = str(name)
    return (0, int(text), "") if text.isdigit() else (1, 0, text)


def groups_of(d: Diagnosis) -> list[dict]:
    pos = d.timelines.positions
    # each group's rows found by one grouping, not one mask over every row per group (129 groups x 256 ranks)
    if pos.empty:
        pos = pd.DataFrame({"group": [], "rank": [], "position": [], "last_seq": []})
    at = pos.groupby("group", sort=False, observed=True).indices
    ranks, position, last = (pos[name].to_numpy() for name in ("rank", "position", "last_seq"))
    out = []
    for name, members in sorted(d.timelines.members.items(), key=lambda kv: group_order(kv[0])):
        rows = at.get(name, ())
        keys = [str(int(r)) for r in ranks[rows]] if len(rows) else []
        out.append({
            "name": name, "desc": d.group_descs.get(name), "size": d.group_sizes.get(name),
            "ranks": [int(r) for r in members],
            "last_common_seq": d.timelines.last_common.get(name),
            "positions": dict(zip(keys, position[rows], strict=True)) if len(rows) else {},
            "last_seq": dict(zip(keys, map(_int, last[rows]), strict=True)) if len(rows) else {},
        })
    return out


def divergence_of(d: Diagnosis) -> dict[int, dict]:
    out: dict[int, dict] = {}
    div = d.divergence
    if div is None or div.empty:
        return out
    for row in div.itertuples(index=False):
        out.setdefault(int(row.rank), {
            "group": row.group, "seq": int(row.seq), "field": row.field, "value": row.value, "modal": row.modal,
            "shift": int(row.shift), "file": row.file, "line": int(row.line),
            "text": row.text if isinstance(row.text, str) else None,
            "frame": row.frame if isinstance(row.frame, str) else None})
    return out


def to_dict(d: Diagnosis) -> dict:
    pos = d.timelines.positions
    per_rank: dict[int, dict] = {}
    if not pos.empty:
        for g, r, p in zip(pos["group"], pos["rank"], pos["position"], strict=True):
            per_rank.setdefault(int(r), {})[g] = p
    div = divergence_of(d)
    culprits = set(d.verdict.culprit_ranks)
    ranks = []
    for rank, st in sorted(d.ranks.items()):
        record = st.to_dict()                   # then its positions, its first divergence, whether it is a culprit
        record["positions"], record["first_divergence"], record["culprit"] = \
            per_rank.get(rank, {}), div.get(rank), rank in culprits
        ranks.append(record)
    return {
        "schema_version": SCHEMA_VERSION,
        "verdict": d.verdict.to_dict(),
        "groups": groups_of(d),
        "findings": [f.to_dict() for f in d.findings],
        "ranks": ranks,
        "missing_evidence": d.missing,
        "skipped_detectors": [{"id": code, "reason": why} for code, why in d.skipped],
        "sources": [{"path": s.path, "kind": s.kind.value, "rank": s.rank} for s in d.sources],
        "errors": d.errors,
        "world": world_of(d),
        "missing_ranks": missing_ranks_of(d),
        "warnings": d.warnings,
        "windowed_files": [{"path": s.path, "head_bytes": s.window[0], "tail_bytes": s.window[1]}
                           for s in d.windowed if s.window],
        "windowed_dumps": [{"path": path, "first_entry": first} for path, first in sorted(d.windowed_dumps.items())],
        "read_whole": [{"path": path, "line": ev.line, "text": ev.text} for path, ev in sorted(d.read_whole.items())],
        "environment": [s.to_dict() for s in d.environment],
    }


def missing_ranks_of(d: Diagnosis) -> list[dict]:
    """Expected ranks without usable evidence (`reason` "no evidence", "unreadable", …) or whose files were only
    partly read (`partial`: true)."""
    w = d.world
    if w is None:
        return []
    out = [{"rank": r, **g.to_dict(), "partial": False} for r, g in sorted(w.gaps.items())]
    out += [{"rank": r, **g.to_dict(), "partial": True} for r, g in sorted(w.partial.items())]
    return sorted(out, key=lambda m: m["rank"])


def world_of(d: Diagnosis) -> dict | None:
    w = d.world
    if w is None:
        return None
    claims = [{"what": c.what, "size": c.size, "ranks": sorted(c.ranks), "file": c.evidence.file,
               "line": c.evidence.line} for c in w.claims if c.evidence.line]    # file-name claims: see sources
    return {"size": w.size, "expected": w.expected, "present": w.present, "claims": claims[:64],
            "unattributed_errors": w.unattributed, "unlisted": w.unlisted}


def render(d: Diagnosis) -> str:
    return pretty(to_dict(d)) + "\n"


def write(d: Diagnosis, stream: TextIO) -> None:
    """`stream.write(render(d))`, a few thousand pieces at a time: a large job's report (5 MB at 8,192 ranks, 70 MB
    at 100,000) is not held again as one string, again with its newline, and again encoded."""
    pieces: list[str] = []
    _emit(to_dict(d), 0, pieces)
    pieces.append("\n")
    for start in range(0, len(pieces), _PIECES):
        stream.write("".join(pieces[start:start + _PIECES]))


_PIECES = 4096


def pretty(value) -> str:
    """`json.dumps(value, indent=2, default=str)`, the same text, several times faster on a 16,384-rank job's
    report: the stdlib's indenting encoder is pure Python (one generator step per value, 1.7M of them); here
    every run of scalar members goes through the C encoder at once, its separators carrying the indentation."""
    out: list[str] = []
    _emit(value, 0, out)
    return "".join(out)


def _emit(value, level: int, out: list[str]) -> None:
    if isinstance(value, (list, tuple)):
        if not value:
            out.append("[]")
        elif not any(isinstance(v, _CONTAINERS) and v for v in value):     # scalars only: one encoder call
            out.append(_whole(value, level, "[", "]"))
        else:
            records = _records(value, level + 1) if len(value) >= _MANY else None
            if records is None:
                _members(list(value), level, out, keyed=False)
            else:
                inner = "\n" + "  " * (level + 1)
                out.append("[" + inner + ("," + inner).join(records) + "\n" + "  " * level + "]")
    elif isinstance(value, dict):
        if not value:
            out.append("{}")
        elif all(type(key) is str for key in value):
            if not any(isinstance(v, _CONTAINERS) and v for v in value.values()):
                out.append(_whole(value, level, "{", "}"))
            else:
                out.append(_record(value, level) or "")
                if not out[-1]:
                    out.pop()
                    _members(list(value.items()), level, out, keyed=True)
        else:                              # keys the encoder converts (numbers, None): the stdlib's own words
            out.append(json.dumps(value, indent=2, default=str).replace("\n", "\n" + "  " * level))
    else:
        out.append(_encoder(level)(value))


_CONTAINERS = (dict, list, tuple)


def _whole(value, level: int, opening: str, closing: str) -> str:
    """A container of scalars (and empty containers) at `level`, as _members writes it, in one encoder call (most
    of a report's containers: a rank's positions, a citation)."""
    return opening + "\n" + "  " * (level + 1) + _encoder(level + 1)(value)[1:-1] + "\n" + "  " * level + closing


def _record(value: dict, level: int) -> str | None:
    """A dict whose members are plain scalars or containers of them (a rank's record: 4,096 of them in a large job's
    report), as _members writes it, a member at a time; None for any other member (_members writes it then)."""
    inner = "\n" + "  " * (level + 1)
    lines = []
    for key, v in value.items():
        text = _SCALAR_TEXT.get(type(v))
        if text is not None:
            lines.append(encode_basestring_ascii(key) + ": " + text(v))
            continue
        nested = _flat(v, level + 1) if type(v) in (list, dict) else None
        if nested is None:
            return None
        lines.append(encode_basestring_ascii(key) + ": " + nested)
    return "{" + inner + ("," + inner).join(lines) + "\n" + "  " * level + "}"


_MANY = 64      # a list of as many records or more is written a column at a time (_records)


def _records(items, level: int) -> list[str] | None:
    """Each of a list of dicts with the same keys in the same order (the ranks' records, the sources), as `_record`
    writes it at `level`, built a column at a time: a column of plain scalars in one encoder call, whose texts a
    newline parts (the encoder escapes any in a string). None for anything else (`_members` writes it then)."""
    first = items[0]
    if type(first) is not dict or not first or not all(type(key) is str for key in first):
        return None
    keys = list(first)
    if not all(type(item) is dict and list(item) == keys for item in items):
        return None
    columns = []
    for values in zip(*map(itemgetter(*keys), items), strict=True) if len(keys) > 1 else [[item[keys[0]] for item
                                                                                          in items]]:
        texts = _column_texts(list(values), level + 1)
        if texts is None:
            return None
        columns.append(texts)
    inner = "\n" + "  " * (level + 1)
    # one format a record: its keys and separators fixed, its members' texts filled in
    template = "{" + inner + ("," + inner).join(encode_basestring_ascii(key).replace("%", "%%") + ": %s"
                                                for key in keys) + "\n" + "  " * level + "}"
    return [template % row for row in zip(*columns, strict=True)]


def _column_texts(values: list, level: int) -> list[str] | None:
    """The texts of a record member's values as `_record` writes them at `level`; None where one is not a plain scalar
    or a container `_flat` writes."""
    types = set(map(type, values))
    if types <= _SCALARS:
        return _LINES(values)[1:-1].split("\n") if values else []
    if types <= {list, dict}:                      # a rank's pids, its positions
        texts = _containers_texts(values, level)
        if texts is not None:
            return texts
    texts = []
    for v in values:
        text = _SCALAR_TEXT.get(type(v))
        if text is None:
            flat = _flat(v, level) if type(v) in (list, dict) else None
            if flat is None:
                return None
            texts.append(flat)
        else:
            texts.append(text(v))
    return texts


def _containers_texts(values: list, level: int) -> list[str] | None:
    """`_flat(v, level)` of each of a column's lists or each of its dicts, their members (and keys) encoded in one
    call; None where a member is not a plain scalar or a key not a str."""
    keys = [key for v in values if type(v) is dict for key in v]
    members = [m for v in values for m in (v.values() if type(v) is dict else v)]
    if keys and len(keys) != len(members) or not all(type(key) is str for key in keys) or \
            not set(map(type, members)) <= _SCALARS:
        return None                                   # lists beside dicts, or other members: one at a time
    texts = _LINES(members)[1:-1].split("\n") if members else []
    if keys:
        texts = [key + ": " + text for key, text in zip(_LINES(keys)[1:-1].split("\n"), texts, strict=True)]
    inner = "\n" + "  " * (level + 1)
    joiner, closing = "," + inner, "\n" + "  " * level
    out, at = [], 0
    for v in values:
        n = len(v)
        if not n:
            out.append("[]" if type(v) is list else "{}")
            continue
        part = joiner.join(texts[at:at + n])
        at += n
        out.append("[" + inner + part + closing + "]" if type(v) is list else "{" + inner + part + closing + "}")
    return out


def _flat(value: list | dict, level: int) -> str | None:
    """A list or a dict of str keys holding only plain scalars, written at `level`; None for anything else."""
    if not value:
        return "[]" if type(value) is list else "{}"
    inner = "\n" + "  " * (level + 1)
    try:
        if isinstance(value, list):
            lines = [_SCALAR_TEXT[type(v)](v) for v in value]
        elif all(type(k) is str for k in value):
            lines = [encode_basestring_ascii(k) + ": " + _SCALAR_TEXT[type(v)](v) for k, v in value.items()]
        else:                                     # keys the encoder converts
            return None
    except KeyError:                              # another type of value
        return None
    opening, closing = ("[", "]") if type(value) is list else ("{", "}")
    return opening + inner + ("," + inner).join(lines) + "\n" + "  " * level + closing


def _float_text(value: float) -> str:
    """What the stdlib's encoder writes for a float."""
    if value != value:
        return "NaN"
    if value in (float("inf"), float("-inf")):
        return "Infinity" if value > 0 else "-Infinity"
    return float.__repr__(value)


# the exact types the stdlib's encoder writes by themselves (a subclass, an IntEnum, goes the general way)
_SCALAR_TEXT: dict[type, Callable] = {str: encode_basestring_ascii, int: int.__repr__, float: _float_text,
                                      bool: lambda v: "true" if v else "false", type(None): lambda v: "null"}


_SCALARS = frozenset(_SCALAR_TEXT)


def _members(items: list, level: int, out: list[str], keyed: bool) -> None:
    """A container's members, one a line at `level` + 1: consecutive scalars (and empty containers) encoded
    together, containers recursed into."""
    inner = "\n" + "  " * (level + 1)
    flat = _encoder(level + 1)
    out.append(("{" if keyed else "[") + inner)
    # written on one line by the compact encoder as the indenting one writes it: a scalar or an empty container
    flags = [not isinstance(v, _CONTAINERS) or not v for v in ([v for _, v in items] if keyed else items)]
    start, n = 0, len(items)
    while start < n:
        end = start
        while end < n and flags[end]:
            end += 1
        if start:
            out.append("," + inner)
        if end > start:                    # scalars: one C-encoder call, without its brackets
            out.append(flat(dict(items[start:end]) if keyed else items[start:end])[1:-1])
            start = end
            continue
        if keyed:
            out.append(encode_basestring_ascii(items[start][0]) + ": ")
        _emit(items[start][1] if keyed else items[start], level + 1, out)
        start += 1
    out.append("\n" + "  " * level + ("}" if keyed else "]"))


_ENCODERS: dict[int, Callable[[object], str]] = {}
c_make_encoder = getattr(json.encoder, "c_make_encoder", None)    # the C accelerator (not in typeshed)


def _encoder(level: int) -> Callable[[object], str]:
    """A compact (C) encoder whose item separator is a newline and the indentation of `level`: what
    `json.JSONEncoder(separators=(",\n" + "  " * level, ": "), default=str).encode` gives, without building a
    new C encoder (and its circular-reference memo) on every call (tens of thousands of calls per report)."""
    if level not in _ENCODERS:
        stdlib = json.JSONEncoder(separators=(",\n" + "  " * level, ": "), default=str)
        _ENCODERS[level] = stdlib.encode if c_make_encoder is None else _c_encoder(c_make_encoder, stdlib)
    return _ENCODERS[level]


def _lines_encoder() -> Callable[[object], str]:
    """A list of plain scalars, one a line (no indentation): `_column_texts` splits it at its newlines."""
    stdlib = json.JSONEncoder(separators=("\n", ": "))
    return stdlib.encode if c_make_encoder is None else _c_encoder(c_make_encoder, stdlib)


def _c_encoder(make: Callable, stdlib: json.JSONEncoder) -> Callable[[object], str]:
    encode = make(None, stdlib.default, encode_basestring_ascii, None, stdlib.key_separator,
                            stdlib.item_separator, False, False, True)

    def encoder(value) -> str:
        if isinstance(value, str):
            return encode_basestring_ascii(value)
        return "".join(encode(value, 0))
    return encoder


_LINES = _lines_encoder()
