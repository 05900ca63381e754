"""Diagnosis → the JSON contract of `ncclf diagnose --format json` (schema_version 1).

    {"schema_version": 1,
     "verdict":  {"class", "culprit_ranks", "confidence", "confidence_reason", "summary", "fix", ...},
     "groups":   [{"name", "ranks", "last_common_seq", "positions": {"<rank>": "at|ahead|missing"},
                   "last_seq": {"<rank>": int|null}}],
     "findings": [{"id", "name", "class", "ranks", "message", "confidence", "evidence": [{"file","line","text"}],
                   "fix", "group", "seq", "cause"}],
     "ranks":    [{"rank", "host", "pids", "pyspy", "op", "at", "exitcode", "signal", "end", "end_detail",
                   "end_is_cause", "positions": {group: position}, "first_divergence": {...} | null}],
     "missing_evidence": [...], "skipped_detectors": [{"id", "reason"}], "sources": [...], "errors": [...]}
"""
from __future__ import annotations

import json

from ..diagnosis.reduce import SCHEMA_VERSION, Diagnosis


def _int(value):
    try:
        return None if value is None or value != value else int(value)
    except (TypeError, ValueError):
        return None


def groups_of(d: Diagnosis) -> list[dict]:
    pos = d.timelines.positions
    out = []
    for name, members in sorted(d.timelines.members.items()):
        rows = pos[pos["group"] == name] if not pos.empty else pos
        out.append({
            "name": name, "ranks": [int(r) for r in members],
            "last_common_seq": d.timelines.last_common.get(name),
            "positions": {str(int(r)): p for r, p in zip(rows.get("rank", []), rows.get("position", []))},
            "last_seq": {str(int(r)): _int(s) for r, s in zip(rows.get("rank", []), rows.get("last_seq", []))},
        })
    return out


def divergence_of(d: Diagnosis) -> dict[int, dict]:
    out = {}
    div = d.divergence
    if div is None or div.empty:
        return out
    for row in div.itertuples(index=False):
        out.setdefault(int(row.rank), {
            "group": row.group, "seq": int(row.seq), "field": row.field, "value": row.value, "modal": row.modal,
            "shift": int(row.shift), "file": row.file, "line": int(row.line), "text": row.text,
            "frame": row.frame if isinstance(row.frame, str) else None})
    return out


def to_dict(d: Diagnosis) -> dict:
    pos = d.timelines.positions
    per_rank: dict[int, dict] = {}
    if not pos.empty:
        for g, r, p in zip(pos["group"], pos["rank"], pos["position"]):
            per_rank.setdefault(int(r), {})[g] = p
    div = divergence_of(d)
    ranks = []
    for rank, st in sorted(d.ranks.items()):
        ranks.append({**st.to_dict(), "positions": per_rank.get(rank, {}), "first_divergence": div.get(rank),
                      "culprit": rank in d.verdict.culprit_ranks})
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
    }


def render(d: Diagnosis) -> str:
    return json.dumps(to_dict(d), indent=2, sort_keys=False, default=str) + "\n"
