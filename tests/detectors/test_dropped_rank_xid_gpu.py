"""R201 maps a driver line that names a GPU by PCI address (an Xid with pid=<unknown>) to the rank NCCL's init lines
put on that GPU, where the job's init lines come from one host; on several hosts the address names no rank."""
from __future__ import annotations

import pytest

BUSES = ["1b000", "1c000", "3b000", "3c000"]
XID = "[ 9021.551] NVRM: Xid (PCI:0000:3b:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.\n"


def _inits(hosts: int) -> str:
    lines = []
    for rank in range(4 * hosts):
        host, dev = f"node{rank // 4}", rank % 4
        lines.append(f"{host}:{500 + rank}:{500 + rank} [{dev}] NCCL INFO comm 0x55{rank:02d} rank {rank} nranks "
                     f"{4 * hosts} cudaDev {dev} nvmlDev {dev} busId {BUSES[dev]} commId 0x1 - Init COMPLETE\n")
    return "".join(lines)


@pytest.mark.parametrize("hosts,culprits", [(1, [2]), (2, [])])
def test_an_xid_s_gpu_names_the_rank_on_it_only_on_one_host(diagnose_text, hosts, culprits):
    d = diagnose_text(_inits(hosts) + XID)
    assert d.verdict.cls == "dropped_rank" and d.verdict.culprit_ranks == culprits, d.verdict.summary
