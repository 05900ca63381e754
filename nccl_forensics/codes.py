"""The one registry of codes: every detector and every topology check, each with a stable code and name.

A code is a family letter plus three digits: C1xx collective agreement, R2xx rank liveness, M3xx memory,
N4xx network/NIC, V5xx versions, T6xx timeouts, S7xx speed, X9xx the failure no other detector classes,
H0xx health: the rule that alone gives an all-clear (detectors, `nccl_forensics/detectors/`), G0xx the rings,
trees and transports NCCL built (topology checks,
`nccl_forensics/topo/checks_*.py`). A code is never reused: a retired one keeps its row with status
"removed". `ncclf explain CODE` prints the documentation of either kind: a detector's module docstring, a
topology check's function docstring.

Adding a detector or a check is adding its row here (see docs/architecture.md); tests/test_registry.py
checks that every row resolves and every module or check function has a row.
"""
from __future__ import annotations

import importlib
import inspect
import re
from typing import Any, NamedTuple

CODE_PATTERN = re.compile(r"^[A-Z]\d{3}$")
DETECTOR, TOPOLOGY = "detector", "topology"


class Code(NamedTuple):
    code: str
    name: str            # kebab name, also accepted wherever a code is
    module: str          # the module that implements it (full dotted name)
    attr: str            # the detector class or the check function inside it
    status: str          # "stable" | "preview" | "removed"
    kind: str = DETECTOR

    @property
    def leaf(self) -> str:
        """The module's own name (detectors/<leaf>.py)."""
        return self.module.rpartition(".")[2]


_D = "nccl_forensics.detectors."
_R, _N = "nccl_forensics.topo.checks_rings", "nccl_forensics.topo.checks_net"

CODES: tuple[Code, ...] = (
    Code("C101", "shape-mismatch", _D + "shape_mismatch", "ShapeMismatch", "stable"),
    Code("C102", "dtype-mismatch", _D + "dtype_mismatch", "DtypeMismatch", "stable"),
    Code("C103", "op-mismatch", _D + "op_mismatch", "OpMismatch", "stable"),
    Code("C104", "skipped-collective", _D + "skipped_collective", "CollectiveSkipped", "stable"),
    Code("C105", "analyzer-report", _D + "analyzer_report", "AnalyzerReport", "stable"),
    Code("C106", "p2p-unmatched", _D + "p2p_unmatched", "P2PUnmatched", "stable"),
    Code("C107", "reported-mismatch", _D + "reported_mismatch", "ReportedMismatch", "stable"),
    Code("R201", "dropped-rank", _D + "dropped_rank", "DroppedRank", "stable"),
    Code("R202", "stuck-rank", _D + "stuck_rank", "StuckRank", "stable"),
    Code("R203", "missing-rank", _D + "missing_rank", "MissingRank", "stable"),
    Code("M301", "oom", _D + "oom", "OutOfMemory", "stable"),
    Code("N401", "network-error", _D + "network_error", "NetworkError", "stable"),
    Code("N402", "nic-misselection", _D + "nic_misselection", "NicMisselection", "stable"),
    Code("V501", "version-mismatch", _D + "version_mismatch", "VersionMismatch", "stable"),
    Code("T601", "timeout-unknown", _D + "timeout_unknown", "TimeoutUnknown", "stable"),
    Code("S701", "straggler", _D + "straggler", "Straggler", "stable"),
    Code("X801", "reported-class", _D + "reported_class", "ReportedClass", "stable"),
    Code("X901", "unclassified-failure", _D + "unclassified_failure", "UnclassifiedFailure", "stable"),
    Code("H001", "healthy", _D + "healthy", "Healthy", "stable"),
    Code("G001", "ring-not-closed", _R, "check_ring_not_closed", "stable", TOPOLOGY),
    Code("G002", "ring-differs-across-ranks", _R, "check_ring_differs", "stable", TOPOLOGY),
    Code("G003", "rank-missing-from-ring", _R, "check_rank_missing", "stable", TOPOLOGY),
    Code("G004", "extra-inter-node-hops", _R, "check_extra_inter_node_hops", "stable", TOPOLOGY),
    Code("G005", "socket-despite-ib", _N, "check_socket_despite_ib", "stable", TOPOLOGY),
    Code("G006", "virtual-interface", _N, "check_virtual_interface", "stable", TOPOLOGY),
    Code("G007", "nccl-version-mismatch", _N, "check_version_mismatch", "stable", TOPOLOGY),
    Code("G008", "net-plugin-mismatch", _N, "check_net_plugin_mismatch", "stable", TOPOLOGY),
    Code("G009", "gdr-disabled", _N, "check_gdr_disabled", "stable", TOPOLOGY),
    Code("G010", "single-channel", _R, "check_single_channel", "stable", TOPOLOGY),
)


def of_kind(kind: str) -> tuple[Code, ...]:
    return tuple(c for c in CODES if c.kind == kind)


def lookup(code_or_name: str) -> Code | None:
    key = code_or_name.strip()
    return next((c for c in CODES if key.upper() == c.code or key.lower() == c.name), None)


def resolve(code: Code) -> Any:
    """The detector class or check function a row names (imports its module)."""
    return getattr(importlib.import_module(code.module), code.attr)


def documentation(code: Code) -> str:
    """What `ncclf explain` prints: a detector module's docstring, a topology check's function docstring."""
    target = resolve(code)
    owner = inspect.getmodule(target) if code.kind == DETECTOR else target
    return inspect.cleandoc(getattr(owner, "__doc__", None) or "")
