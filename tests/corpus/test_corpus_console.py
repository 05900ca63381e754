"""Whole console logs of failed jobs from public issues: each truth case right, and never `none` for a log that
visibly shows a failure (all of them do: they were pasted because the job failed)."""
from __future__ import annotations

import json

import pytest

from nccl_forensics.pipeline.reduce import diagnose

from .corpus import CORPUS, corpus_files, stripped

TRUTH = json.loads((CORPUS / "console" / "truth.json").read_text()) if CORPUS.is_dir() else {}
CASES = sorted(k for k in TRUTH if not k.startswith("_"))


@pytest.mark.parametrize("name", CASES)
def test_the_stated_cause_is_found(name, tmp_path):
    stripped(CORPUS / "console" / name, tmp_path)
    verdict = diagnose([str(tmp_path)], jobs=1).verdict
    case = TRUTH[name]
    assert verdict.cls in case["accept"], verdict.summary
    if case["culprit_ranks"] is not None:
        assert verdict.culprit_ranks == case["culprit_ranks"], verdict.summary


@pytest.mark.parametrize("path", corpus_files("console", "*.log"), ids=lambda p: p.name)
def test_a_failed_job_s_log_is_never_called_healthy(path, tmp_path):
    d = diagnose([str(stripped(path, tmp_path).parent)], jobs=1)
    assert d.verdict.cls not in ("none", "inconclusive"), d.verdict.summary
    assert d.verdict.primary is not None and d.verdict.primary.evidence
