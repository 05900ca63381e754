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


def _walk(md: str) -> str:
    return md.split("## Diagnostic walk", 1)[1].split("\n## ", 1)[0]


def test_the_walk_shows_the_frame_then_the_timelines_then_the_variables_set(report):
    d, md = report
    walk = _walk(md)
    marks = [walk.find(m) for m in ("**py-spy**", "**Collective timelines**", "**Environment")]
    assert marks[2] >= 0 and walk.count("**Environment") == 1
    present = [m for m in marks if m >= 0]
    assert present == sorted(present), marks
    if not d.environment:
        assert "no variable recorded in this evidence" in walk and "`NCCL_DEBUG=INFO`" in walk
        assert md.count("no variable recorded") == 1


def test_each_variable_a_capture_recorded_is_in_the_walk_at_its_line(report):
    from nccl_forensics.diagnosis.environment import is_setting
    from nccl_forensics.sources.capture_manifest import rank_env
    d, md = report
    manifests = [s.path for s in d.sources if s.path.endswith("manifest.json")]
    walk = _walk(md)
    for path in manifests:
        lines = (ROOT / path).read_text().splitlines()
        recorded = [(rank, name, value, line) for rank, name, value, line in rank_env(str(ROOT / path))
                    if is_setting(name)]
        assert recorded
        for rank, name, value, line in recorded:
            assert f"`{name}={value}`" in walk
            assert f'"{name}": ' in lines[line - 1]
        cited = {int(n) for n in re.findall(re.escape(path) + r":(\d+)`", walk)}
        assert cited and all(any(f'"{n}": ' in lines[c - 1] for _, n, _, _ in recorded) for c in cited)
        assert "`RANK=" not in walk and "TORCHELASTIC_" not in walk     # the launcher's bookkeeping


def test_the_variables_nccl_logged_are_in_the_walk_with_their_line():
    from nccl_forensics.outputs import diagnosis_json, markdown_report
    folder = "sample_logs/topo/bad-interface-multinode/bad"
    d = diagnose([folder], jobs=1)
    walk = _walk(markdown_report.render(d))
    assert "- `NCCL_SOCKET_IFNAME=lo`: every rank — `" in walk
    path, line = re.search(r"NCCL_SOCKET_IFNAME=lo`: every rank — `([^`]+):(\d+)`", walk).groups()
    assert "NCCL_SOCKET_IFNAME set by environment to lo" in (ROOT / path).read_text().splitlines()[int(line) - 1]
    doc = __import__("json").loads(diagnosis_json.render(d))
    assert {"name": "NCCL_SOCKET_IFNAME", "value": "lo"}.items() <= doc["environment"][0].items()
    assert doc["environment"][0]["ranks"] == sorted(d.ranks)


def test_a_variable_set_to_different_values_is_one_line_per_value():
    from nccl_forensics.diagnosis.environment import settings
    from nccl_forensics.model import Evidence
    ev = Evidence("a.log", 3, "x")
    found = settings([(0, "NCCL_SOCKET_IFNAME", "eth0", ev), (1, "NCCL_SOCKET_IFNAME", "eth0", ev),
                      (2, "NCCL_SOCKET_IFNAME", "ib0", ev), (2, "RANK", "2", ev), (0, "config.Blocking", "1", ev),
                      (0, "TORCH_HUB_TOKEN", "hf_x", ev), (1, "NCCL_IB_PASSWORD", "x", ev)])
    assert [(s.name, s.value, s.ranks) for s in found] == [("NCCL_SOCKET_IFNAME", "eth0", (0, 1)),
                                                           ("NCCL_SOCKET_IFNAME", "ib0", (2,))]


def test_a_finding_of_the_verdicts_own_class_backs_the_root_cause_and_is_no_consequence(report):
    d, md = report
    v = d.verdict
    if v.primary is None or "## Consequences" not in md:
        return
    consequences = md.split("## Consequences", 1)[1].split("\n## ", 1)[0]
    for f in d.findings:
        if f is not v.primary and f.cls == v.primary.cls:
            assert f"Corroborated by **{f.id} {f.name}**" in md.split("## Consequences", 1)[0]
            assert f"**{f.id} {f.name}**" not in consequences


def test_prevention_asks_for_no_flight_recorder_where_the_job_ran_with_it(report):
    d, md = report
    prevention = md.split("## Prevention", 1)[1].split("\n## ", 1)[0] if "## Prevention" in md else ""
    if any(s.kind.value == "flight_recorder" for s in d.sources):
        assert "TORCH_FR_BUFFER_SIZE" not in prevention, prevention
