"""findings → verdict: ranking, tie-breaks, confidence, consequences."""
from __future__ import annotations

import pytest

from nccl_forensics.diagnosis.verdict import decide, healthy_or_inconclusive, reported
from nccl_forensics.model import Confidence, Evidence, Finding

from . import factories as F


def _f(code, cls, ranks, conf=Confidence.MEDIUM, cause=True, file="a.log"):
    return Finding(code, code.lower(), cls, ranks, f"{cls} on {ranks}", conf, [Evidence(file, 1, "x")], "fix it",
                   cause=cause)


def test_no_findings_is_not_a_verdict_by_itself():
    with pytest.raises(ValueError):
        decide([])


def test_health_gives_none_and_its_absence_inconclusive_with_reasons():
    v = healthy_or_inconclusive(True, Confidence.HIGH, "every expected rank (0-3) shows health", [])
    assert v.cls == "none" and v.culprit_ranks == [] and "H001" in v.reason
    v = healthy_or_inconclusive(False, Confidence.LOW, "", ["no usable evidence from rank 2 (unreadable)"], [2])
    assert v.cls == "inconclusive" and v.culprit_ranks == [2]
    assert "why not none: no usable evidence from rank 2" in v.summary


def test_specific_cause_beats_network_error_and_timeout():
    v = decide([_f("N401", "network_error", [0], Confidence.HIGH), _f("T601", "timeout_unknown", [1]),
                _f("C102", "dtype_mismatch", [3], Confidence.LOW)])
    assert v.cls == "dtype_mismatch" and v.culprit_ranks == [3]
    assert {f.id for f in v.consequences} == {"N401", "T601"}


def test_oom_beats_dropped_rank_and_is_corroborated_by_it():
    v = decide([_f("R201", "dropped_rank", [1], Confidence.HIGH), _f("M301", "oom", [1], Confidence.MEDIUM)])
    assert v.cls == "oom" and v.confidence is Confidence.HIGH
    assert [f.id for f in v.supporting] == ["R201"] and "corroborated by R201" in v.reason


def test_consequence_never_wins_over_a_cause():
    v = decide([_f("N401", "network_error", [0], Confidence.HIGH, cause=False), _f("R202", "stuck_rank", [3])])
    assert v.cls == "stuck_rank"


def test_order_of_findings_does_not_matter():
    found = [_f("C101", "shape_mismatch", [2]), _f("C101", "shape_mismatch", [5], file="b.log"),
             _f("V501", "version_mismatch", [7])]
    assert decide(found).to_dict() == decide(list(reversed(found))).to_dict()
    assert decide(found).culprit_ranks == [2, 5]


def test_no_culprit_means_low_confidence():
    assert decide([_f("T601", "timeout_unknown", [], Confidence.MEDIUM)]).confidence is Confidence.LOW


def test_cascade_excludes_culprits_and_root_cause_is_called_out():
    v = decide([_f("R201", "dropped_rank", [2], Confidence.HIGH)], cascade_ranks=[0, 1, 2, 3],
               root_cause=[F.child_failed(0, 1, root_cause=True)])
    assert v.cascade_ranks == [0, 1, 3]
    assert "names rank 0" in v.summary


def test_the_fallback_answers_while_every_other_finding_is_a_consequence():
    fallback = _f("X901", "unclassified_failure", [])
    closed = _f("N401", "network_error", [0], cause=False)
    v = decide(reported([closed, fallback]))
    assert v.cls == "unclassified_failure" and v.culprit_ranks == [] and v.consequences == [closed]
    cause = _f("N401", "network_error", [3])
    assert reported([closed, cause, fallback]) == [closed, cause]
