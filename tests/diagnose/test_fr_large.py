"""Large-model jobs (fr_large.py): Megatron TP x PP x DP and MoE EP x DP layouts, dozens of groups, faults as they
happen, dumps as production writes them (only active entries, schemas 2.8-2.11, no frames, ranks missing from
pg_config). The injected class and exactly the injected ranks, and the group that explains them."""
from __future__ import annotations

import pytest

from nccl_forensics.pipeline.reduce import diagnose

from .fr_large import Fault, MegatronJob

LAYOUTS = {
    "tp2-pp2-dp2": dict(tp=2, pp=2, dp=2),
    "ep4-dp2": dict(tp=1, pp=1, dp=8, ep=4),
    "moe16": dict(tp=2, pp=2, dp=4, ep=2),
}
DUMPS = {
    "full-2.10": dict(version="2.10"),
    "active-2.8": dict(version="2.8", only_active=True),
    "active-2.9": dict(version="2.9", only_active=True),
    "active-2.11": dict(version="2.11", only_active=True),
    "full-2.11-no-config": dict(version="2.11", no_config=(0, 3)),
}
FAULTS = {   # name -> (faults, class, culprits)
    "stuck": ({5: Fault("stuck", step=1, at=3)}, "stuck_rank", [5]),
    "dead": ({5: Fault("dead", step=1, at=3)}, "dropped_rank", [5]),
    "dead-early": ({2: Fault("dead", step=1, at=0)}, "dropped_rank", [2]),
    "two-dead": ({1: Fault("dead", step=1, at=2), 6: Fault("dead", step=1, at=4)}, "dropped_rank", [1, 6]),
}


def _verdict(tmp_path, layout, faults, steps=3, **dump):
    job = MegatronJob(**LAYOUTS[layout]).run(steps, faults)
    d = diagnose([str(job.write(tmp_path / "fr", **dump))], jobs=1)
    return d


@pytest.mark.parametrize("dump", sorted(DUMPS))
@pytest.mark.parametrize("fault", sorted(FAULTS))
@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_injected_ranks_are_named(tmp_path, layout, fault, dump):
    faults, cls, culprits = FAULTS[fault]
    v = _verdict(tmp_path, layout, faults, **DUMPS[dump]).verdict
    assert (v.cls, v.culprit_ranks) == (cls, culprits), v.summary


def test_a_missing_member_of_an_all_to_all_is_no_size_mismatch(tmp_path):
    """The issue's 16-rank MoE job: a rank that never entered the all_to_all was read as `shape_mismatch`."""
    d = _verdict(tmp_path, "moe16", {5: Fault("stuck", step=1, at=4)}, version="2.10", only_active=True)
    assert (d.verdict.cls, d.verdict.culprit_ranks) == ("stuck_rank", [5]), d.verdict.summary
    assert not [f for f in d.findings if f.cls == "shape_mismatch"]


def test_the_verdict_names_the_group_its_desc_op_and_seq(tmp_path):
    d = _verdict(tmp_path, "moe16", {5: Fault("stuck", step=1, at=4)}, version="2.10", only_active=True)
    primary = d.verdict.primary
    assert primary.group_desc == "EXPERT_MODEL_PARALLEL_GROUP"
    assert "EXPERT_MODEL_PARALLEL_GROUP" in d.verdict.summary and f"seq {primary.seq}" in d.verdict.summary
    first = primary.groups[0]
    assert first["missing"] == [5] and first["group"] == primary.group and first["op"] == "alltoall_single"
    assert all(5 in g["missing"] for g in primary.groups)      # every group it explains misses rank 5
    assert "consequences" in d.verdict.summary
    assert d.explaining == primary.groups                       # on the Diagnosis, for the renderers
    assert d.quiet_groups > 20 and d.quiet_groups + len(d.explaining) <= len(d.timelines.members)


def test_healthy_runs_are_not_failures(tmp_path):
    for layout in LAYOUTS:
        v = _verdict(tmp_path / layout, layout, {}, version="2.11").verdict
        assert v.cls == "none", (layout, v.summary)


def test_skipping_a_collective_in_one_group(tmp_path):
    d = _verdict(tmp_path, "tp2-pp2-dp2", {3: Fault("skip", step=2, at=1, group_kind="dp")}, steps=4)
    assert (d.verdict.cls, d.verdict.culprit_ranks) == ("collective_skipped", [3]), d.verdict.summary


@pytest.mark.parametrize("version, culprits", [("2.11", [4, 6]), ("2.10", [])])
def test_uneven_moe_splits_balance_pair_by_pair(tmp_path, version, culprits):
    """Rank 6 expects 16 more elements from rank 4 than rank 4 sends: with the split sizes (2.11) the broken pair
    is named (one pair cannot say which side is wrong); with totals alone no single rank stands out."""
    d = _verdict(tmp_path, "ep4-dp2", {6: Fault("split", step=1)}, version=version, only_active=True)
    assert (d.verdict.cls, d.verdict.culprit_ranks) == ("shape_mismatch", culprits), d.verdict.summary
    if culprits:
        assert "rank 4 sends 80 elements to rank 6, which expects 96" in d.verdict.summary


def test_uneven_splits_that_balance_are_healthy(tmp_path):
    v = _verdict(tmp_path, "ep4-dp2", {}, version="2.11", only_active=False).verdict
    assert v.cls == "none", v.summary


TWO_FAILED = {   # the 16-rank MoE runs: two ranks fail the same way mid-run, in different groups and steps
    "accelerator-error": ({3: Fault("device", step=1, at=2), 12: Fault("device", step=1, at=4)}, "stuck_rank"),
    "gil-held": ({3: Fault("stuck", step=1, at=2), 12: Fault("stuck", step=1, at=4)}, "stuck_rank"),
    "killed": ({3: Fault("dead", step=1, at=2), 12: Fault("dead", step=1, at=1)}, "dropped_rank"),
}


@pytest.mark.parametrize("dump", ["full-2.10", "active-2.11"])
@pytest.mark.parametrize("fault", sorted(TWO_FAILED))
def test_two_failed_ranks_of_a_16_rank_moe_job_are_both_named(tmp_path, fault, dump):
    faults, cls = TWO_FAILED[fault]
    v = _verdict(tmp_path, "moe16", faults, **DUMPS[dump]).verdict
    assert (v.cls, v.culprit_ranks) == (cls, [3, 12]), v.summary


def test_a_second_failure_of_its_own_is_not_filed_as_a_consequence(tmp_path):
    """Rank 5 stuck and rank 12's dump never collected: whichever leads the verdict, the postmortem lists the other
    as a failure of its own, not under the root cause's consequences."""
    from nccl_forensics.outputs import markdown_report
    job = MegatronJob(**LAYOUTS["moe16"]).run(3, {5: Fault("stuck", step=1, at=4)})
    folder = job.write(tmp_path / "fr", version="2.10")
    (folder / "nccl_trace_rank_12").unlink()
    d = diagnose([str(folder)], jobs=1)
    other = next(f for f in d.findings if f.cls != d.verdict.cls and f.cause)
    section = markdown_report.render(d).split("## Consequences", 1)[1].split("\n## ", 1)[0]
    assert "Also found, not a consequence of the root cause:" in section
    assert section.index("Also found") < section.index(f"**{other.id} {other.name}**")
