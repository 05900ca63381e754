"""The causes an exception message names (OOM, a gloo transport error, a CUDA error, an NCCL result code), read with
the message catalogue (sources/catalogue/): this module holds no wording of its own.

The line shapes are in grammars/traceback.lark; `recognise` reads the free-text *message* of an exception (or a
continuation line under it) and returns (kind, data) pairs for `dist_backend_error`, `oom`, `gloo_error`,
`cuda_error` and `nccl_error` events, at most one of each, in that order; it never raises. Each event's data has
the same keys whatever entry read it (None where the message did not say); the catalogue's own pass
(sources/messages.py) then adds the entry's meaning.
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from . import catalogue
from .catalogue import size_bytes

__all__ = ["recognise", "nccl_result", "size_bytes"]

# The keys each cause's event carries (detectors read these), in the order recognise returns the causes.
_KEYS: dict[str, tuple[str, ...]] = {
    "oom": ("oom_kind", "requested_bytes", "gpu", "total_bytes", "free_bytes", "allocated_bytes", "reserved_bytes"),
    "gloo_error": ("category", "expected_bytes", "received_bytes", "timeout_ms", "peer", "op"),
    "cuda_error": ("message", "tail_only"),
    "nccl_error": ("code", "last_error"),
}
# A peer closing or resetting a socket is gloo's only when gloo's path or its `[ip]:port` says so (NCCL and the
# store say the same words).
_PEER_CATEGORIES = frozenset({"connection_closed", "connection_reset"})


def cause_of(msg: catalogue.Message) -> str | None:
    """The cause event a catalogue entry names inside an exception message, or None."""
    if msg.kind in _KEYS:
        return msg.kind
    if msg.data.get("oom_kind"):
        return "oom"             # NCCL's `Cuda failure 'out of memory'`, the host allocators
    return None


@lru_cache(maxsize=1)
def _quick() -> re.Pattern[str]:
    words = {a for m in catalogue.messages() if cause_of(m) is not None for a in catalogue.anchors(m)}
    return re.compile("|".join(re.escape(w) for w in sorted(words | {"DistBackendError"}, key=len, reverse=True)))


def might_name_cause(text: str) -> bool:
    """Whether a line may name a cause (a cheap test made of the cause entries' anchors)."""
    return _quick().search(text) is not None


def recognise(exc_type: str | None, message: str) -> list[tuple[str, dict[str, Any]]]:
    """The cause events one exception message (or continuation line) names, in a fixed order."""
    found: list[tuple[str, dict[str, Any]]] = []
    if exc_type and re.split(r"[.:]+", exc_type)[-1] == "DistBackendError":
        found.append(("dist_backend_error", {"message": message}))
    # an exception raised with no message (CPython's MemoryError) is told by its type alone
    message = message or exc_type or ""
    if not message or not might_name_cause(message):
        return found
    order = {m.id: i for i, m in enumerate(catalogue.messages())}
    hits: dict[str, list[catalogue.Hit]] = {}
    for hit in catalogue.match(message):
        kind = cause_of(hit.message)
        if kind == "gloo_error" and hit.fields.get("category") in _PEER_CATEGORIES \
                and hit.fields.get("port") is None and "gloo" not in message:
            continue
        if kind is not None:
            hits.setdefault(kind, []).append(hit)
    for kind in _KEYS:
        if kind in hits:
            found.append((kind, _data(kind, sorted(hits[kind], key=lambda h: order[h.message.id]))))
    return found


def _data(kind: str, hits: list[catalogue.Hit]) -> dict[str, Any]:
    """One cause's fields from its entries' hits, the catalogue's first entry first (the most specific wording)."""
    first = hits[0]
    data: dict[str, Any] = dict.fromkeys(_KEYS[kind])
    if kind == "cuda_error":
        named = next((h for h in hits if h.fields.get("reason") or h.fields.get("status_name")), None)
        if named is not None:
            text = named.fields.get("reason") or named.fields.get("status_name")
            data = {"message": str(text).strip(" ."), "tail_only": False}
            if named.fields.get("implies"):          # a class of its own (catalogue/cuda.py reason_class)
                data.update(implies=named.fields["implies"], category=named.fields.get("category"), meaning="failure")
            return data
        return {"message": None, "tail_only": True}
    if kind == "nccl_error":
        data["code"] = next((h.fields["code"] for h in hits if isinstance(h.fields.get("code"), str)
                             and h.fields["code"].startswith("nccl")), None)
        data["last_error"] = next((h.fields["last_error"] for h in hits if h.fields.get("last_error")), None)
        return data
    for key in data:
        data[key] = first.fields.get(key)
    return data


def nccl_result(message: str) -> dict[str, Any] | None:
    """NCCL's result code and the "Last error:" NCCL gave with it (the cause, when on the same text)."""
    return next((data for kind, data in recognise(None, message) if kind == "nccl_error"), None)
