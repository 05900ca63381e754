"""The one ordered registry of detectors: stable code, kebab name, class, status.

Codes are a family letter plus three digits — C1xx collective agreement, R2xx rank liveness, M3xx memory,
N4xx network/NIC, V5xx versions, T6xx timeouts, S7xx speed,
X9xx the failure no other detector classes, H0xx health (the only way to an all-clear: `healthy.py`). A code is never reused; a retired detector keeps its row
with status "removed". `ncclf explain CODE` prints a detector's docstring.
"""
from __future__ import annotations

import importlib
import logging
import os
import re
from typing import Iterable, NamedTuple

from ..errors import BadInput
from ..model import Finding
from .base import Context
from .healthy import Health, Healthy

log = logging.getLogger(__name__)
CODE_PATTERN = re.compile(r"^[A-Z]\d{3}$")


class Entry(NamedTuple):
    code: str
    name: str
    module: str          # detectors/<module>.py
    cls: str             # the class inside it
    status: str          # "stable" | "preview" | "removed"


REGISTRY: tuple[Entry, ...] = (
    Entry("C101", "shape-mismatch", "count_mismatch", "ShapeMismatch", "stable"),
    Entry("C102", "dtype-mismatch", "dtype_mismatch", "DtypeMismatch", "stable"),
    Entry("C103", "op-mismatch", "op_mismatch", "OpMismatch", "stable"),
    Entry("C104", "skipped-collective", "skipped_collective", "CollectiveSkipped", "stable"),
    Entry("C105", "analyzer-report", "analyzer_report", "AnalyzerReport", "stable"),
    Entry("C106", "p2p-unmatched", "p2p_unmatched", "P2PUnmatched", "stable"),
    Entry("C107", "reported-mismatch", "reported_mismatch", "ReportedMismatch", "stable"),
    Entry("R201", "dropped-rank", "dead_rank", "DroppedRank", "stable"),
    Entry("R202", "stuck-rank", "stuck_rank", "StuckRank", "stable"),
    Entry("R203", "missing-rank", "missing_rank", "MissingRank", "stable"),
    Entry("M301", "oom", "oom", "OutOfMemory", "stable"),
    Entry("N401", "network-error", "transport_error", "NetworkError", "stable"),
    Entry("N402", "nic-misselection", "wrong_nic", "NicMisselection", "stable"),
    Entry("V501", "version-mismatch", "version_mismatch", "VersionMismatch", "stable"),
    Entry("T601", "timeout-unknown", "timeout_unknown", "TimeoutUnknown", "stable"),
    Entry("S701", "straggler", "straggler", "Straggler", "stable"),
    Entry("X901", "unclassified-failure", "unclassified_failure", "UnclassifiedFailure", "stable"),
    Entry("H001", "healthy", "healthy", "Healthy", "stable"),
)
HEALTH = "H001"


def detector_class(entry: Entry):
    return getattr(importlib.import_module(f"{__name__}.{entry.module}"), entry.cls)


def lookup(code_or_name: str) -> Entry | None:
    key = code_or_name.strip()
    return next((e for e in REGISTRY if key.upper() == e.code or key.lower() == e.name), None)


def selected(select: Iterable[str] = (), ignore: Iterable[str] = ()) -> list[Entry]:
    """Registry rows to run: `select`/`ignore` take codes, code prefixes (``C1``) or kebab names; a key that
    names no detector is BadInput (a typo must not silently run nothing)."""
    select, ignore = [s for s in select if s], [i for i in ignore if i]
    for key in (*select, *ignore):
        if not any(_matches(e, key) for e in REGISTRY):
            raise BadInput(f"unknown detector code or name '{key}' (see `ncclf explain --list`)")
    return [e for e in REGISTRY if e.status != "removed" and (not select or any(_matches(e, k) for k in select))
            and not any(_matches(e, k) for k in ignore)]


def not_run(entries: Iterable[Entry]) -> list[str]:
    """The codes of the registry's live detectors missing from `entries` (a --select/--ignore subset)."""
    chosen = {e.code for e in entries}
    return [e.code for e in REGISTRY if e.status != "removed" and e.code not in chosen]


def _matches(entry: Entry, key: str) -> bool:
    return entry.code.startswith(key.strip().upper()) or entry.name == key.strip().lower()


class RunReport(NamedTuple):
    findings: list[Finding]
    skipped: list[tuple[str, str]]     # (code, "not enough evidence: needs …")
    warnings: list[str] = []           # "internal error in detector T601 (AttributeError: …), please report"


def run_detectors(ctx: Context, entries: Iterable[Entry] | None = None) -> RunReport:
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
        except Exception as exc:                       # noqa: BLE001 - isolated per detector, reported
            if os.environ.get("NCCLF_DEBUG"):
                raise
            log.debug("detector %s failed", entry.code, exc_info=True)
            warnings.append(f"internal error in detector {entry.code} {entry.name} ({type(exc).__name__}: {exc}), "
                            "please report")
    return RunReport(findings, skipped, warnings)


def assess_health(ctx: Context, entries: Iterable[Entry], report: RunReport, parser_warnings: Iterable[str] = ()) -> Health:
    """The health rule (H001) over what the failure detectors left: the one place an all-clear is decided. A
    subset of detectors (H001 itself left out included) is never an all-clear."""
    return Healthy().assess(ctx, not_run(entries), [*report.warnings, *parser_warnings])
