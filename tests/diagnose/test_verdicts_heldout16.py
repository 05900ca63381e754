"""Families missed on held-out set 16 (real pastes of hangs and timeouts), each in the forms it arrives in:

- NCCL 2.4 - 2.7.6's milder collective check, `Your program may be hanging, this may be caused by a collective
  mismatch around rank N` (ncclCommGetAsyncError on a suspected device mismatch: a peer's op count stayed behind),
  was read as a bare NCCL WARN (unclassified). It is the same check as `Mismatched collective detected`: the
  ranks called different collectives.
"""
from __future__ import annotations

import pytest

from nccl_forensics.sources import catalogue

from .consoles import console_verdict

MISMATCH_CLASSES = {"collective_skipped", "op_mismatch", "shape_mismatch"}


# ---- NCCL's suspected collective mismatch
SUSPECTED = ("init.cc:{line} NCCL WARN Your program may be hanging, this may be caused by a collective mismatch "
             "around rank {rank}. Please check your collective calls at and around this rank. You can use "
             "NCCL_DEBUG=INFO and NCCL_DEBUG_SUBSYS=COLL to see the collective logs")


@pytest.mark.parametrize("prefix", ["[0] ", "jupyter-vmarkovtsev:15892:15892 [0] ", "node-3:812:812 [2] ",
                                    "[1,2]<stderr>:gpu-7:5130:5206 [2] "])
@pytest.mark.parametrize("line,rank", [(1002, 1), (1256, 3), (1206, 0)])
def test_nccl_suspecting_a_collective_mismatch_is_a_mismatch(prefix, line, rank, tmp_path):
    text = prefix + SUSPECTED.format(line=line, rank=rank)
    assert "nccl.suspected_mismatch" in [h.message.id for h in catalogue.match(text)]
    verdict = console_verdict(tmp_path, text, progress="")
    assert verdict.cls in MISMATCH_CLASSES, verdict.summary
    assert "may be hanging" in verdict.summary


def test_a_suspected_mismatch_cut_before_the_rank_still_counts(tmp_path):
    text = "[0] init.cc:1256 NCCL WARN Your program may be hanging, this may be caused by a collective mismatch"
    assert console_verdict(tmp_path, text, progress="").cls in MISMATCH_CLASSES


def test_the_suspected_mismatch_names_no_culprit(tmp_path):
    # the rank printed is the one that saw the mismatch (comm->rank), not the one that diverged
    verdict = console_verdict(tmp_path, "[0] " + SUSPECTED.format(line=1256, rank=1), progress="")
    assert verdict.culprit_ranks in ([], None, ())


def test_the_asserted_mismatch_keeps_its_wording(tmp_path):
    text = ("init.cc:1247 NCCL WARN Mismatched collective detected, please check your collective calls at and around "
            "rank 39. You can use NCCL_DEBUG=INFO and NCCL_DEBUG_SUBSYS=COLL to see the collective logs")
    verdict = console_verdict(tmp_path, text, progress="")
    assert verdict.cls in MISMATCH_CLASSES
    assert "may be hanging" not in verdict.summary
