"""The postmortem of every sample bundle: its making, sections in the order an engineer reads them, each missing
source named once (with the command that collects it), citations at the line a claim rests on; a healthy run
gets a health report."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from nccl_forensics.pipeline.reduce import diagnose

ROOT = Path(__file__).resolve().parents[2]
SETS = sorted(p for p in (ROOT / "sample_logs" / "bundles").glob("*") if p.is_dir())
ORDER = ["## Summary", "## Diagnostic walk", "## Root cause", "## Consequences", "## Fix", "## Prevention",
         "## Missing evidence", "## Read errors and warnings"]
CITATION = re.compile(r"`([^`\s]+?)(?::(\d+)| entry (\d+))`")


@pytest.fixture(scope="module", params=SETS, ids=lambda p: p.name)
def report(request):
    from nccl_forensics.cli.diagnose import report_context
    from nccl_forensics.outputs import markdown_report
    folder = request.param
    d = diagnose([str(folder.relative_to(ROOT))], jobs=1)
    return d, markdown_report.render(d, report_context([str(folder)]))


def test_sections_come_in_order_with_the_making(report):
    d, md = report
    for key in ("**Date:**", "**ncclf version:**", "**Command:**", "**Inputs:**"):
        assert key in md
    headings = [line for line in md.splitlines() if line.startswith("## ")]
    assert headings == [h for h in ORDER if h in headings], headings
    if d.verdict.cls == "none":
        assert md.startswith("# Health report") and "## Root cause" not in md
        return
    assert md.startswith("# Postmortem: ")
    assert headings[:5] == ORDER[:5]
    if d.verdict.primary:
        root = md.index(f"**{d.verdict.primary.id} {d.verdict.primary.name}**")
        assert md.index("## Root cause") < root < md.index("## Consequences")
        for f in d.verdict.consequences:
            assert md.index(f"**{f.id} {f.name}**", md.index("## Consequences")) > root


def test_the_summary_says_who_and_where(report):
    d, md = report
    summary = md.split("## Summary", 1)[1].split("## ", 1)[0]
    for rank in d.verdict.culprit_ranks:
        assert f"rank {rank}" in summary or f"ranks {rank}" in summary
    if d.verdict.culprit_ranks and not d.timelines.members:
        return
    if d.verdict.culprit_ranks and d.verdict.cls not in ("oom", "dropped_rank"):
        assert "seq" in summary or ".py:" in summary, summary


def test_each_missing_source_is_named_once_with_how_to_collect_it(report):
    d, md = report
    for missing in d.missing:
        assert md.count(missing) == 1, (missing, md)
        line = next(line for line in md.splitlines() if missing in line)
        assert "`" in line                                            # a command or a setting
    assert "keep collecting the same evidence" not in md


def test_citations_point_at_a_line_that_exists(report):
    d, md = report
    dumps = {s.path for s in d.sources if s.kind.value == "flight_recorder"}
    cited = CITATION.findall(md)
    if d.findings:
        assert cited
    for path, line, entry in cited:
        if not (ROOT / path).is_file() or not (line or entry):
            continue
        if entry:
            assert path in dumps
            continue
        text = (ROOT / path).read_text(errors="replace").splitlines()
        assert 1 <= int(line) <= len(text), (path, line)


def test_flight_recorder_entries_are_cited_one_way(report):
    _, md = report
    assert "record " not in md or not re.search(r"record \d+ pg ", md)
    assert "flight_recorder seq" not in md
    assert "[default" not in md and "/__w/pytorch" not in md


def test_r202_cites_the_frame_its_claim_rests_on():
    from nccl_forensics.outputs import markdown_report
    d = diagnose(["sample_logs/bundles/real-stuck-rank"], jobs=1)
    assert d.verdict.primary.id == "R202"
    first = d.verdict.primary.evidence[0]
    assert "data.py:41" in first.text
    lines = (ROOT / first.file).read_text().splitlines()
    assert "data.py:41" in lines[first.line - 1]
    assert f"`{first.file}:{first.line}`" in markdown_report.render(d)
