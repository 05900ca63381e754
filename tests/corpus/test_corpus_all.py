"""Every real file of the corpus through `parse` and `diagnose`: no crash, no internal-error warning, a known class.

The share of NCCL lines understood, the evidence events and the console truth cases have their own tests beside
this one; here the floor is that nothing a user pasted in a public issue breaks ncclf.
"""
from __future__ import annotations

import pytest

from nccl_forensics.pipeline.reduce import diagnose
from nccl_forensics.scenarios import VERDICT_CLASSES
from nccl_forensics.sources import parse_source
from nccl_forensics.sources.discover import sniff

from .corpus import corpus_files, stripped

FILES = [p for sub in ("nccl", "evidence", "console") for p in corpus_files(sub)]


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_parse_and_diagnose_never_crash(path, tmp_path):
    copy = stripped(path, tmp_path)
    result = parse_source(sniff(str(copy)))
    assert result.error is None, result.error
    d = diagnose([str(tmp_path)], jobs=1)
    assert d.warnings == []
    assert d.verdict.cls in VERDICT_CLASSES
    if d.verdict.primary is not None:
        assert d.verdict.primary.evidence, "every verdict cites its evidence"
