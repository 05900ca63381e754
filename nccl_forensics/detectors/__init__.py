"""The detectors: one failure class per module, each a row of the one registry of codes (`..codes`).

Codes are a family letter plus three digits (see codes.py). `ncclf explain CODE` prints a detector's
docstring; `run_detectors` runs the selected ones over a Context.
"""
from __future__ import annotations

import logging
import os
from typing import Iterable, NamedTuple

from ..codes import CODE_PATTERN, DETECTOR, Code, of_kind, resolve
from ..model import Finding
from .base import Context

__all__ = ["CODE_PATTERN", "REGISTRY", "Entry", "detector_class", "lookup", "selected", "run_detectors",
           "RunReport"]

log = logging.getLogger(__name__)
Entry = Code                                           # a registry row (code, name, module, attr, status, kind)
REGISTRY: tuple[Code, ...] = of_kind(DETECTOR)


def detector_class(entry: Code):
    return resolve(entry)


def lookup(code_or_name: str) -> Entry | None:
    key = code_or_name.strip()
    return next((e for e in REGISTRY if key.upper() == e.code or key.lower() == e.name), None)


def selected(select: Iterable[str] = (), ignore: Iterable[str] = ()) -> list[Entry]:
    """Registry rows to run: `select`/`ignore` take codes, code prefixes (``C1``) or kebab names."""
    def match(entry: Entry, keys) -> bool:
        return any(entry.code.startswith(k.upper()) or entry.name == k.lower() for k in keys)
    select, ignore = [s for s in select if s], [i for i in ignore if i]
    return [e for e in REGISTRY if e.status != "removed" and (not select or match(e, select))
            and not match(e, ignore)]


class RunReport(NamedTuple):
    findings: list[Finding]
    skipped: list[tuple[str, str]]     # (code, "not enough evidence: needs …")
    warnings: list[str] = []           # "internal error in detector T601 (AttributeError: …), please report"


def run_detectors(ctx: Context, entries: Iterable[Entry] | None = None) -> RunReport:
    """Run each detector that has the evidence it needs. A detector that raises costs only its own findings:
    the exception becomes a one-line warning and the others' verdict stands (NCCLF_DEBUG=1 re-raises)."""
    findings, skipped, warnings = [], [], []
    for entry in (selected() if entries is None else entries):
        try:
            det = detector_class(entry)()
            if det.needs and not any(ctx.has(n) for n in det.needs):
                skipped.append((entry.code, f"not enough evidence: needs {' or '.join(det.needs)}"))
                continue
            findings.extend(list(det.check(ctx) or ()))
        except Exception as exc:                       # noqa: BLE001 - isolated per detector, reported
            if os.environ.get("NCCLF_DEBUG"):
                raise
            log.debug("detector %s failed", entry.code, exc_info=True)
            warnings.append(f"internal error in detector {entry.code} {entry.name} ({type(exc).__name__}: {exc}), "
                            "please report")
    return RunReport(findings, skipped, warnings)
