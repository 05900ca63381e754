"""Whole console logs of failed jobs from public issues: each truth case right, and never `none` for a log that
visibly shows a failure (all of them do: they were pasted because the job failed)."""
from __future__ import annotations

import json

import pytest

from nccl_forensics.pipeline.reduce import diagnose

from .corpus import CORPUS, corpus_files, stripped

SETS = ("console", "console2")
TRUTH = {(sub, name): case for sub in SETS if (CORPUS / sub / "truth.json").is_file()
         for name, case in json.loads((CORPUS / sub / "truth.json").read_text()).items() if not name.startswith("_")}
CASES = sorted(TRUTH)


@pytest.mark.parametrize("sub,name", CASES, ids=[f"{s}/{n}" for s, n in CASES])
def test_the_stated_cause_is_found(sub, name, tmp_path):
    stripped(CORPUS / sub / name, tmp_path)
    verdict = diagnose([str(tmp_path)], jobs=1).verdict
    case = TRUTH[(sub, name)]
    assert verdict.cls in case["accept"], verdict.summary
    if case["culprit_ranks"] is not None:
        assert verdict.culprit_ranks == case["culprit_ranks"], verdict.summary


@pytest.mark.parametrize("path", corpus_files("console", "*.log"), ids=lambda p: p.name)
def test_a_failed_job_s_log_is_never_called_healthy(path, tmp_path):
    d = diagnose([str(stripped(path, tmp_path).parent)], jobs=1)
    assert d.verdict.cls not in ("none", "inconclusive"), d.verdict.summary
    assert d.verdict.primary is not None and d.verdict.primary.evidence


@pytest.mark.parametrize("path", corpus_files("console2", "*.log"), ids=lambda p: p.name)
def test_console2_never_crashes_nor_calls_a_failure_healthy(path, tmp_path):
    d = diagnose([str(stripped(path, tmp_path).parent)], jobs=1)
    accept = TRUTH.get(("console2", path.name), {}).get("accept", [])
    if "none" not in accept:
        assert d.verdict.cls != "none", d.verdict.summary
