"""C105: a pasted torchfrtrace report is evidence: ranks that never joined, or the culprit it names."""
from __future__ import annotations

NOT_JOINING = """Not all ranks joining collective: sequence number: 31117
internal record id: 31116
group info: 0:default_pg
collective: nccl:all_reduce
missing ranks: {3, 4, 5, 6, 7}
input sizes: [[1571911]]
output sizes: [[1571911]]
world size: 8
expected ranks: {0, 1, 2, 3, 4, 5, 6, 7}
collective state: scheduled
collective stack trace:
 all_reduce at /x/torch/distributed/distributed_c10d.py:2707
"""


def test_ranks_that_never_joined_are_stuck(diagnose_text):
    d = diagnose_text(NOT_JOINING)
    assert d.verdict.cls == "stuck_rank" and d.verdict.culprit_ranks == [3, 4, 5, 6, 7]
    assert d.verdict.primary.id == "C105" and d.verdict.primary.seq == 31117


def test_a_dtype_culprit_gives_the_dtype_class(diagnose_text):
    text = ("Collective sequence number: 12 has errors\ninternal record id: 11\ngroup info: 0:default_pg\n"
            "collective: nccl:all_reduce\nerror msg: Culprit rank 2; Error type: COLLECTIVE_DTYPE_MISMATCH, Expected "
            "dtypes: 'Float' does not match found dtype: 'Double'.\ncollective stack trace: \n")
    d = diagnose_text(text)
    assert d.verdict.cls == "dtype_mismatch" and d.verdict.culprit_ranks == [2]
