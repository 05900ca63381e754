"""V501 version-mismatch: ranks run different NCCL (or flight-recorder/torch) versions.

What it detects:
    ``NCCL version X`` lines that differ across ranks or hosts, and flight-recorder dumps whose schema
    version (which follows the torch release) differs across ranks.

Why it hangs or dies:
    NCCL's wire protocol and algorithm choices change between releases: mixed versions can fail at init,
    pick incompatible protocols and hang, or corrupt data. Mixed torch versions change c10d behaviour
    (sequence numbers, timeouts, FR schema).

Evidence it needs:
    The NCCL version line of each rank (``NCCL_DEBUG=VERSION`` or higher), or FR dumps from each rank.

Example:
    ``ncclf diagnose logs/`` →
    ``version_mismatch: ranks 4-7 (node2) run NCCL 2.18.1, ranks 0-3 run 2.21.5``.

The rule (majority first, the rest odd) is `diagnosis/versions.py`, shared with topology check G007.

Known limits:
    The torch version itself is not printed in these logs; only the FR schema version stands in for it.

Suggested fix:
    Use one container image / environment on every node; pin ``nvidia-nccl-cu12`` and torch.
"""
from __future__ import annotations

from ..diagnosis.versions import by_version
from ..model import Confidence
from .base import BaseDetector, Context


class VersionMismatch(BaseDetector):
    code, name, cls = "V501", "version-mismatch", "version_mismatch"
    needs = ("versions",)

    def check(self, ctx: Context):
        for kind, label in (("nccl_version", "NCCL"), ("fr_dump", "flight-recorder schema")):
            groups = by_version((ev.data.get("version"), ev) for ev in ctx.of(kind))
            if len(groups) < 2:
                continue
            seen = dict(groups)
            versions = [v for v, _ in groups]
            odd = [ev for _, evs in groups[1:] for ev in evs]
            ranks = sorted({ev.rank for ev in odd if ev.rank is not None})
            parts = [f"{len(seen[v])} run {v}" for v in versions]
            msg = f"{label} versions differ across ranks: " + ", ".join(parts)
            if ranks:
                msg += f" (odd ones: ranks {', '.join(map(str, ranks))})"
            evidence = [seen[v][0] for v in versions]
            conf = Confidence.HIGH if kind == "nccl_version" else Confidence.MEDIUM
            yield self.finding(ranks, msg, conf, evidence, f"run one {label} version everywhere: use one image/"
                               f"environment on every node (most ranks run {versions[0]}).")
