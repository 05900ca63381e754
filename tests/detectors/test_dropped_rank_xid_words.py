"""R201's sentence for a driver's report says what the driver saw: a hung GPU stalls its process, a lost one is lost
to it; only other lines report a death."""
from __future__ import annotations

import pytest

INIT = "host1:90214:90214 [3] NCCL INFO comm 0x55e0 rank 3 nranks 8 cudaDev 3 busId 43000 - Init COMPLETE\n"
XID = "Nov 27 10:00:01 host1 kernel: NVRM: Xid (PCI:0000:43:00): {code}, pid=90214, name=python, {words}\n"


@pytest.mark.parametrize("code,words,said", [
    (61, "0cec(3098) 00000000 00000000", "rank 3 stalled on a hung GPU: the NVIDIA driver reported Xid 61"),
    (79, "GPU has fallen off the bus.", "rank 3 lost its GPU: the NVIDIA driver reported Xid 79"),
    (31, "Ch 00000010, intr 10000000. MMU Fault", "rank 3 died: the NVIDIA driver reported Xid 31"),
])
def test_the_xid_sentence_follows_what_the_driver_reported(diagnose_text, code, words, said):
    d = diagnose_text(INIT + XID.format(code=code, words=words))
    assert d.verdict.cls == "dropped_rank" and d.verdict.culprit_ranks == [3]
    assert said in d.verdict.summary, d.verdict.summary
