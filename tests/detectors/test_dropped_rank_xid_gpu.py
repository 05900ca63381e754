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


def test_a_syslog_xid_names_the_rank_on_that_node_s_gpu(diagnose_text):
    d = diagnose_text(_inits(2) + "Nov 27 10:00:01 node1 kernel: " + XID.split("] ", 1)[1])
    assert d.verdict.culprit_ranks == [6], d.verdict.summary          # node1's third GPU, not every rank of node1


@pytest.mark.parametrize("line,culprits", [
    ("Nov 27 10:00:00 node1 kernel: [12345.678] Kernel panic - not syncing: Fatal hardware error!\n", [4, 5, 6, 7]),
    ("srun: error: Node failure on node0\n", [0, 1, 2, 3]),
    ("srun: error: Node failure on node9\n", []),                    # no rank of the job ran there
])
def test_a_node_lost_whole_names_the_ranks_on_it(diagnose_text, line, culprits):
    d = diagnose_text(_inits(2) + line)
    assert d.verdict.cls == "dropped_rank" and d.verdict.culprit_ranks == culprits, d.verdict.summary
