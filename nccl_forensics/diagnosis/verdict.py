"""findings → one ranked Verdict: the primary class, the culprit ranks, a confidence with its reason.

Ranking (deterministic): causes before consequences, then the class order below (the most specific
cause first: a rank that died of OOM explains the mismatch-looking noise after it, a mismatch explains a
timeout), then confidence, then code, then ranks. Consequences are never the verdict while a cause exists:
torchrun's SIGTERM fan-out, peers' "Connection closed by peer", watchdog aborts and timeouts on healthy
ranks are listed as the cascade.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable

from ..model import Confidence, Event, Finding

CLASS_ORDER = ("oom", "dropped_rank", "op_mismatch", "dtype_mismatch", "shape_mismatch", "collective_skipped",
               "stuck_rank", "nic_misselection", "version_mismatch", "network_error", "straggler",
               "timeout_unknown", "unclassified_failure")
_CONF_ORDER = {Confidence.HIGH: 0, Confidence.MEDIUM: 1, Confidence.LOW: 2}
_WEAK = {"network_error", "straggler", "timeout_unknown", "unclassified_failure"}   # causes only when nothing more specific is
FALLBACK = "unclassified_failure"                     # reported only when no other detector names the failure
INCONCLUSIVE = "inconclusive"                         # nothing found, and the evidence does not cover the job


@dataclass
class Verdict:
    cls: str                                   # one of scenarios.VERDICT_CLASSES
    culprit_ranks: list[int]
    confidence: Confidence
    reason: str                                # why this confidence
    summary: str
    fix: str = ""
    primary: Finding | None = None
    supporting: list[Finding] = field(default_factory=list)
    consequences: list[Finding] = field(default_factory=list)
    cascade_ranks: list[int] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {"class": self.cls, "culprit_ranks": self.culprit_ranks, "confidence": self.confidence.value,
                "confidence_reason": self.reason, "summary": self.summary, "fix": self.fix,
                "primary_finding": self.primary.id if self.primary else None,
                "cascade_ranks": self.cascade_ranks}


def reported(findings: list[Finding]) -> list[Finding]:
    """The findings worth reporting: the fallback class only when nothing else names a cause (findings that are all
    consequences, a peer's closed connection after an unseen failure, leave the failure itself unexplained)."""
    if any(f.cls != FALLBACK and f.cause for f in findings):
        return [f for f in findings if f.cls != FALLBACK]
    return list(findings)


def rank_key(f: Finding):
    weak = f.cls in _WEAK
    order = CLASS_ORDER.index(f.cls) if f.cls in CLASS_ORDER else len(CLASS_ORDER)
    return (not f.cause, weak, order, _CONF_ORDER[f.confidence], f.id, f.ranks, f.group or "", f.seq or -1)


def decide(findings: list[Finding], cascade_ranks: Iterable[int] = (), root_cause: Iterable[Event] = (),
           missing: Iterable[str] = ()) -> Verdict:
    """Pick the primary finding and build the verdict around it (pass `reported(findings)`)."""
    if not findings:
        raise ValueError("decide() needs findings: without any, the health rule decides (healthy_or_inconclusive)")
    ordered = sorted(findings, key=rank_key)
    primary = ordered[0]
    same = [f for f in ordered if f.cls == primary.cls]
    culprits = sorted({r for f in same for r in f.ranks})
    others = [f for f in ordered if f.cls != primary.cls]
    supporting = [f for f in others if set(f.ranks) & set(culprits) and not consequence_of(f, primary)]
    consequences = [f for f in others if f not in supporting]
    confidence, reason = _confidence(primary, same, supporting, list(missing))
    cascade = sorted(set(cascade_ranks) - set(culprits))
    summary = f"{primary.cls}: {primary.message}"
    blamed = sorted({ev.rank for ev in root_cause if ev.rank is not None} - set(culprits))
    if blamed and culprits and primary.confidence is not Confidence.LOW:
        summary += (f" (torchrun's \"Root Cause\" names rank {', '.join(map(str, blamed))}, which only failed "
                    "after the culprit)")
    return Verdict(primary.cls, culprits, confidence, reason, summary, primary.fix, primary, supporting,
                   consequences, cascade)


def consequence_of(f: Finding, primary: Finding) -> bool:
    """Is finding `f` (of another class than the primary) a consequence of it, not a failure of its own: its end is
    no cause, or it is a weak class under a strong primary."""
    if f.cls == "straggler":
        return False                                  # context for a hang, never its consequence
    return not f.cause or f.cls in _WEAK and primary.cls not in _WEAK


def _confidence(primary: Finding, same: list[Finding], supporting: list[Finding], missing) -> tuple[Confidence, str]:
    conf = primary.confidence
    files = {e.file for f in same for e in f.evidence}
    why = [f"{primary.id} {primary.name} from {len(files)} file{'s' if len(files) != 1 else ''}"]
    backers = sorted({f.id for f in same[1:]} | {f.id for f in supporting})
    if backers and conf is not Confidence.HIGH:
        conf = Confidence.HIGH if conf is Confidence.MEDIUM else Confidence.MEDIUM
    if backers:
        why.append(f"corroborated by {', '.join(backers)}")
    if not primary.ranks:
        conf = Confidence.LOW
        why.append("no culprit rank could be named")
    if missing:
        why.append(f"missing: {', '.join(missing)}")
    return conf, f"{conf.value}: " + "; ".join(why)


def healthy_or_inconclusive(healthy: bool, confidence: Confidence, shown: str, why_not: list[str],
                            gap_ranks: Iterable[int] = ()) -> Verdict:
    """The verdict when no detector found a failure: `none` only on the health rule's positive evidence
    (detectors/healthy.py), else `inconclusive` with every reason there is no all-clear."""
    if healthy:
        return Verdict("none", [], confidence, f"{confidence.value}: H001 healthy: {shown}",
                       "no hang or failure found: " + shown)
    summary = "inconclusive: no failure found in the evidence read, but why not none: " + "; ".join(why_not)
    reason = f"low: {len(why_not)} reason{'s' if len(why_not) > 1 else ''} the evidence does not show health (H001)"
    return Verdict(INCONCLUSIVE, sorted(gap_ranks), Confidence.LOW, reason, summary, _COLLECT)


_COLLECT = ("collect the missing evidence and run again: each rank's NCCL_DEBUG=INFO log (NCCL_DEBUG_FILE), "
            "`py-spy dump --pid` of every rank while it hangs, flight-recorder dumps (TORCH_FR_BUFFER_SIZE), "
            "torchrun --log-dir, dmesg")
