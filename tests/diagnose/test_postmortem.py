"""The postmortem of every sample bundle records its making and puts the root cause before its consequences."""
from __future__ import annotations

from pathlib import Path

import pytest

from nccl_forensics.pipeline.reduce import diagnose

ROOT = Path(__file__).resolve().parents[2]
SETS = sorted(p for p in (ROOT / "sample_logs" / "bundles").glob("*") if p.is_dir())


@pytest.mark.parametrize("folder", SETS, ids=lambda p: p.name)
def test_every_sample_postmortem_has_its_making_and_the_cause_before_its_consequences(folder):
    from nccl_forensics.cli.diagnose import report_context
    from nccl_forensics.outputs import markdown_report
    d = diagnose([str(folder)], jobs=1)
    md = markdown_report.render(d, report_context([str(folder)]))
    for key in ("**Date:**", "**ncclf version:**", "**Command:**", "**Inputs:**"):
        assert key in md
    assert md.index("## Root cause") < md.index("## Consequences") < md.index("## Fix")
    if d.verdict.primary:
        root = md.index(f"**{d.verdict.primary.id} {d.verdict.primary.name}**")
        assert md.index("## Root cause") < root < md.index("## Consequences")
        for f in d.verdict.consequences:
            assert md.index(f"**{f.id} {f.name}**", md.index("## Consequences")) > root
