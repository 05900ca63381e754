"""Held-out set 45: multi-node jobs lost to the network or the machine (NCCL IB completion errors and async events,
ibv_* failures, NVLS Cuda failures after a Fabric Manager restart, NVIDIA Xid lines, a Slurm node failure, a
Kubernetes eviction), a watchdog timeout with no cause shown, and healthy multi-node nccl-tests runs. One verdict
test per case, then what the set showed:

- Slurm's SRUN_NODE_FAIL message is logged by whichever client holds the allocation, under its own name: `srun:
  error: Node failure on <nodes>` (api/step_launch.c, srun/allocate.c) and `salloc: error: Node failure on <nodes>`
  (salloc.c _node_fail_handler) for an interactive allocation. Only srun's was read; salloc's read as no failure.
- An nccl-tests table that stops short of its header's maxBytes read as a hang at the next size, a paste cut
  mid-table the same. Since heldout71 it is a hang only where the console goes on after the table; a table that is the
  paste's last line reads inconclusive (a cut paste, or a run still going).
"""
from __future__ import annotations

import pytest

from .consoles import PROGRESS, check_case, console_verdict

_IB5 = ("gh-3714u15:7038:7053 [0] ib_plugin.c:1007 NCCL WARN NET/IB : Got completion from peer 10.1.32.3<54891> with "
        "error 5, opcode 0, len 0, vendor err 249\ngh-3714u15:7038:7053 [0] NCCL INFO transport/net.cc:1117 -> 6\n"
        "gh-3714u15:7038:7053 [0] NCCL INFO proxy.cc:692 -> 6\n")
_NCCLTESTS_HEAD = (
    "# nThread 1 nGpus 1 minBytes 8192 maxBytes 8589934592 step: 2(factor) warmup iters: 10 iters: 100 agg iters: 1 "
    "validation: 1 graph: 0 unalign: 0\n#\n# Using devices\n"
    "#  Rank  0 Group  0 Pid 1666603 on spark-d708 device  0 [000f:01:00] NVIDIA GB10\n"
    "#  Rank  1 Group  0 Pid 1669515 on spark-dbf4 device  0 [000f:01:00] NVIDIA GB10\n#\n"
    "#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  "
    "#wrong\n"
    "        8192          2048     float     sum      -1    35.15    0.23    0.23       0    30.33    0.27    0.27       0\n"
    "       16384          4096     float     sum      -1    31.67    0.52    0.52       0    30.75    0.53    0.53       0\n")

CASES = [
    ("NVIDIA/nccl#1737", ("network_error",), None, _IB5),
    ("NVIDIA/nccl#1710", ("network_error",), None,
     "node201:127799:127863 [0] transport/net_ib.cc:101 NCCL WARN NET/IB : mlx5_0:1 Got async event : local access "
     "violation work queue error\n\nnode023:10214:10303 [0] transport/net_ib.cc:1909 NCCL WARN NET/IB : Got completion "
     "from peer 10.1.3.201<33057> with status=9 opcode=0 len=0 vendor err 138 (Send) localGid ::ffff:10.206.1.23 "
     "remoteGids::ffff:10.206.1.11\n"),
    ("deepseek-ai/DeepEP#143", ("network_error",), None,
     "msm-h200-2:4016:4653 [7] misc/ibvwrap.cc:190 NCCL WARN Call to ibv_create_cq failed with error Cannot allocate "
     "memory\nmsm-h200-2:4016:4653 [7] NCCL INFO transport/net_ib.cc:659 -> 2\n"
     "msm-h200-2:4011:4650 [2] proxy.cc:1567 NCCL WARN [Proxy Service 10] Failed to execute operation Connect from "
     "rank 10, retcode 3\n"),
    ("NVIDIA/nccl#1488", ("unclassified_failure", "dropped_rank"), None,
     "node23:12098:12141 [2] transport/nvls.cc:244 NCCL WARN Cuda failure 1 'invalid argument'\n"
     "node23:12098:12141 [2] NCCL INFO transport/nvls.cc:394 -> 1\nnode23:12098:12141 [2] NCCL INFO init.cc:1196 -> 1\n"),
    ("NVIDIA/nccl#976", ("unclassified_failure", "dropped_rank"), None,
     "NCCL version 2.18.5+cuda12.2\ntransport/nvls.cc:165 NCCL WARN Cuda failure 'invalid argument'\n"
     "NCCL INFO transport/nvls.cc:324 -> 1\nNCCL INFO init.cc:1093 -> 1\n"),
    ("NVIDIA/open-gpu-kernel-modules#1150", ("dropped_rank", "unclassified_failure"), None,
     "kernel: NVRM: Xid (PCI:0000:dc:00): 45, pid=1818990, name=python3, Ch 00000001 caused by previous Xid 149\n"
     "kernel: NVRM: Xid (PCI:0000:ed:00): 45, pid=1818992, name=python3, Ch 0000000c caused by previous Xid 145\n"),
    ("nebius/soperator#854", ("dropped_rank",), None,
     "$ srun -l -N3 -n3 --exclude worker-1 hostname | sort\n0: worker-2\n1: worker-5\n2: worker-3\n"
     "salloc: error: Node failure on worker-1\n"),
    ("kubeflow/trainer#301", ("dropped_rank", "oom"), None,
     "Status:         Failed\nReason:         Evicted\nMessage:        The node was low on resource: memory.\n"),
    ("InternLM/InternLM#290", ("timeout_unknown", "stuck_rank"), None,
     "[E ProcessGroupNCCL.cpp:821] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=316, "
     "OpType=ALLREDUCE, Timeout(ms)=1800000) ran for 1803457 milliseconds before timing out.\n"
     "[E ProcessGroupNCCL.cpp:821] [Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=316, "
     "OpType=ALLREDUCE, Timeout(ms)=1800000) ran for 1803620 milliseconds before timing out.\n"
     "[E ProcessGroupNCCL.cpp:456] Some NCCL operations have failed or timed out. Due to the asynchronous nature of "
     "CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.\n"),
    ("NVIDIA/nccl-tests#78", ("none",), None,
     "   268435456      67108864     float     sum   122131    2.20    4.33  2e-06   122165    2.20    4.33  2e-06\n"
     "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 4.32178 \n"),
    ("NVIDIA/nccl-tests#27", ("none",), None,
     "$ mpirun -H 10.251.154.148,10.251.154.143 -np 2 ./all_reduce_perf -b 8 -e 128M -f 128 -g 2\n"
     "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 3.94145 \n#\n"
     "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 3.94156 \n"),
    ("NVIDIA/nccl-tests#232", ("none", "inconclusive"), None,
     "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw "
     "#wrong\n     2097152        524288     float     sum      -1    113.2   18.53   18.53      0    93.35   22.46   "
     "22.46      0\n"),
    ("NVIDIA/nccl-tests#293", ("none", "inconclusive"), None,
     "test2:3985:3998 [0] NCCL INFO ncclCommInitRank comm 0x55d9c8671e40 rank 1 nranks 2 cudaDev 0 nvmlDev 0 busId "
     "81000 commId 0xba13681239d5afb7 - Init COMPLETE\n"
     "           8             2     float     sum      -1    20.37    0.00    0.00      0    19.47    0.00    0.00      0\n"),
]


@pytest.mark.parametrize("issue,want,culprits,text", CASES, ids=[case[0] for case in CASES])
def test_each_case_of_the_set(issue, want, culprits, text, tmp_path):
    check_case(tmp_path, (text, want, culprits), progress="")


# ---- Slurm's node failure, from either client that holds the allocation
@pytest.mark.parametrize("prog", ["srun", "salloc"])
def test_a_node_failure_drops_the_ranks_on_it(prog, tmp_path):
    verdict = console_verdict(tmp_path, f"{prog}: error: Node failure on gpu-07")
    assert verdict.cls == "dropped_rank", verdict.summary
    assert "gpu-07" in verdict.summary


def test_sbatch_prints_no_node_failure_of_its_own(tmp_path):
    from nccl_forensics.sources import catalogue
    assert not any(h.message.id == "slurm.node_failure" for h in catalogue.match("sbatch: error: Node failure on x"))


# ---- nccl-tests (dgx-spark-playbooks#103, a healthy run pasted in part): a table cut short of maxBytes where the
# paste ends is no failure (inconclusive), the whole table with its summary a run that finished
def test_a_table_cut_short_of_max_bytes_where_the_paste_ends_is_inconclusive(tmp_path):
    verdict = console_verdict(tmp_path, _NCCLTESTS_HEAD, progress="")
    assert verdict.cls == "inconclusive", verdict.summary


def test_the_same_table_with_its_summary_is_a_finished_run(tmp_path):
    text = _NCCLTESTS_HEAD + "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 0.41 \n"
    verdict = console_verdict(tmp_path, text, progress="")
    assert verdict.cls == "none", verdict.summary


def test_an_ib_completion_error_behind_progress_is_still_the_network(tmp_path):
    assert console_verdict(tmp_path, _IB5, progress=PROGRESS).cls == "network_error"
