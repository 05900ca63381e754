"""findings → one ranked Verdict: the primary class, the culprit ranks, a confidence with its reason.

Ranking (deterministic): causes before consequences, then the class order below (the most specific
cause first: a rank that died of OOM explains the mismatch-looking noise after it, a mismatch explains a
timeout), then confidence, then code, then ranks. Consequences are never the verdict while a cause exists:
torchrun's SIGTERM fan-out, peers' "Connection closed by peer", watchdog aborts and timeouts on healthy
ranks are listed as the cascade.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..model import Confidence, Event, Finding
from .world import World

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
    """The findings worth reporting: the fallback class only when nothing else names the failure."""
    if any(f.cls != FALLBACK for f in findings):
        return [f for f in findings if f.cls != FALLBACK]
    return list(findings)


def rank_key(f: Finding):
    weak = f.cls in _WEAK
    order = CLASS_ORDER.index(f.cls) if f.cls in CLASS_ORDER else len(CLASS_ORDER)
    return (not f.cause, weak, order, _CONF_ORDER[f.confidence], f.id, f.ranks, f.group or "", f.seq or -1)


def decide(findings: list[Finding], cascade_ranks: list[int] = (), root_cause: list[Event] = (),
           missing: list[str] = ()) -> Verdict:
    """Pick the primary finding and build the verdict around it (pass `reported(findings)`)."""
    if not findings:
        return Verdict("none", [], Confidence.HIGH if not missing else Confidence.MEDIUM,
                       "no detector found a failure" + (f" (missing: {', '.join(missing)})" if missing else ""),
                       "no hang or failure found")
    ordered = sorted(findings, key=rank_key)
    primary = ordered[0]
    same = [f for f in ordered if f.cls == primary.cls]
    culprits = sorted({r for f in same for r in f.ranks})
    others = [f for f in ordered if f.cls != primary.cls]
    supporting = [f for f in others if set(f.ranks) & set(culprits) and not _consequence(f, primary)]
    consequences = [f for f in others if f not in supporting]
    confidence, reason = _confidence(primary, same, supporting, missing)
    cascade = sorted(set(cascade_ranks) - set(culprits))
    summary = f"{primary.cls}: {primary.message}"
    blamed = sorted({ev.rank for ev in root_cause if ev.rank is not None} - set(culprits))
    if blamed and culprits and primary.confidence is not Confidence.LOW:
        summary += (f" (torchrun's \"Root Cause\" names rank {', '.join(map(str, blamed))}, which only failed "
                    "after the culprit)")
    return Verdict(primary.cls, culprits, confidence, reason, summary, primary.fix, primary, supporting,
                   consequences, cascade)


def _consequence(f: Finding, primary: Finding) -> bool:
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


def none_or_inconclusive(verdict: Verdict, world: World, has_behaviour: bool) -> Verdict:
    """`none` only when the evidence covers every expected rank and shows what the job did; otherwise say which
    evidence is missing (never a false all-clear)."""
    gaps = {**world.gaps, **world.partial}
    why = []
    if gaps:
        why.append("incomplete evidence for rank" + ("s " if len(gaps) > 1 else " ")
                   + ", ".join(f"{r} ({g.reason})" for r, g in sorted(gaps.items())[:8])
                   + (f" and {len(gaps) - 8} more" if len(gaps) > 8 else ""))
    if world.unranked:
        why.append(f"{len(world.unranked)} file{'s' if len(world.unranked) > 1 else ''} hold evidence of an unknown "
                   f"rank (e.g. {world.unranked[0]})")
    if world.unattributed:
        why.append(f"{len(world.unattributed)} file{'s' if len(world.unattributed) > 1 else ''} of unknown rank "
                   "could not be read or placed")
    if not has_behaviour:
        why.append("nothing shows what the ranks did (no collective records, py-spy dumps or exit status)")
    if not why:
        return verdict
    summary = "inconclusive: no failure found in the evidence read, but " + "; ".join(why)
    fix = ("collect the missing evidence and run again: each rank's NCCL_DEBUG=INFO log (NCCL_DEBUG_FILE), "
           "`py-spy dump --pid` of every rank while it hangs, flight-recorder dumps (TORCH_FR_BUFFER_SIZE), "
           "torchrun --log-dir, dmesg")
    return Verdict(INCONCLUSIVE, sorted(gaps), Confidence.LOW, "low: " + "; ".join(why), summary, fix)
