"""The detectors: one failure class per module, each a row of the one registry of codes (`..codes`).

Codes are a family letter plus three digits (see codes.py); H001 is the health rule, the only way to an all-clear
(`healthy.py`). `ncclf explain CODE` prints a detector's docstring; `run_detectors` runs the selected ones over a
Context, `assess_health` decides `none` or `inconclusive` when none of them found a failure.
"""
from __future__ import annotations

import logging
import os
from typing import Iterable, NamedTuple

from ..codes import CODE_PATTERN, DETECTOR, Code, of_kind, resolve
from ..errors import BadInput
from ..model import Finding
from ..sources.gc_pause import trim_heap
from .base import Context
from .healthy import Health, Healthy

__all__ = ["CODE_PATTERN", "REGISTRY", "Entry", "detector_class", "lookup", "selected", "run_detectors",
           "RunReport"]

log = logging.getLogger(__name__)
Entry = Code                                           # a registry row (code, name, module, attr, status, kind)
REGISTRY: tuple[Code, ...] = of_kind(DETECTOR)


HEALTH = "H001"


def detector_class(entry: Code):
    return resolve(entry)


def lookup(code_or_name: str) -> Code | None:
    key = code_or_name.strip()
    return next((e for e in REGISTRY if key.upper() == e.code or key.lower() == e.name), None)


def selected(select: Iterable[str] = (), ignore: Iterable[str] = ()) -> list[Code]:
    """Registry rows to run: `select`/`ignore` take codes, code prefixes (``C1``) or kebab names; a key that
    names no detector is BadInput (a typo must not silently run nothing)."""
    select, ignore = [s for s in select if s], [i for i in ignore if i]
    for key in (*select, *ignore):
        if not any(_matches(e, key) for e in REGISTRY):
            raise BadInput(f"unknown detector code or name '{key}' (see `ncclf explain --list`)")
    return [e for e in REGISTRY if e.status != "removed" and (not select or any(_matches(e, k) for k in select))
            and not any(_matches(e, k) for k in ignore)]


def not_run(entries: Iterable[Code]) -> list[str]:
    """The codes of the registry's live detectors missing from `entries` (a --select/--ignore subset)."""
    chosen = {e.code for e in entries}
    return [e.code for e in REGISTRY if e.status != "removed" and e.code not in chosen]


def _matches(entry: Code, key: str) -> bool:
    return entry.code.startswith(key.strip().upper()) or entry.name == key.strip().lower()


class RunReport(NamedTuple):
    findings: list[Finding]
    skipped: list[tuple[str, str]]     # (code, "not enough evidence: needs …")
    warnings: list[str] = []           # "internal error in detector T601 (AttributeError: …), please report"


def run_detectors(ctx: Context, entries: Iterable[Code] | None = None) -> RunReport:
    """Run each detector that has the evidence it needs. A detector that raises costs only its own findings:
    the exception becomes a one-line warning and the others' verdict stands (NCCLF_DEBUG=1 re-raises)."""
    findings, skipped, warnings = [], [], []
    for entry in (selected() if entries is None else entries):
        if entry.code == HEALTH:
            continue                                   # assessed after the others (assess_health)
        try:
            det = detector_class(entry)()
            if det.needs and not any(ctx.has(n) for n in det.needs):
                skipped.append((entry.code, f"not enough evidence: needs {' or '.join(det.needs)}"))
                continue
            findings.extend(list(det.check(ctx) or ()))
            trim_heap()                                # its row-sized temporaries (sources.gc_pause.trim_heap)
        except Exception as exc:                       # noqa: BLE001 - isolated per detector, reported
            if os.environ.get("NCCLF_DEBUG"):
                raise
            log.debug("detector %s failed", entry.code, exc_info=True)
            warnings.append(f"internal error in detector {entry.code} {entry.name} ({type(exc).__name__}: {exc}), "
                            "please report")
    return RunReport(findings, skipped, warnings)


def assess_health(ctx: Context, entries: Iterable[Code], report: RunReport,
                  parser_warnings: Iterable[str] = ()) -> Health:
    """The health rule (H001) over what the failure detectors left: the one place an all-clear is decided. A
    subset of detectors (H001 itself left out included) is never an all-clear."""
    return Healthy().assess(ctx, not_run(entries), [*report.warnings, *parser_warnings])
