"""Held-out set 50: hangs and failures around the communicator (py-spy stacks of a silent wedge, watchdog timeouts
seen from one rank under Ray, a c10d store that never got rank 0's unique id), NCCL socket and verbs failures from
NCCL 2.1 to 2.27 (a foreign TCP peer on NCCL's port included), RCCL on Radeon and Instinct parts, and healthy
nccl-tests runs. One verdict test per case, then what the set showed:

- NCCL 2.3's connectAddress retries a refused connect() (then `Call to connect timeout`) but fails any other errno at
  once through SYSCHECKVALEXP (`Call to connect failed : Connection timed out`): an address a peer published that
  this host cannot reach, the network's failure like 2.4+'s `Connect to <addr> failed`.
"""
from __future__ import annotations

import pytest

from .consoles import check_case, console_verdict

_HOST = "10-0-4-11:62452:62548 [0]"
_WATCHDOG_949 = (
    "(ActorModelRayActor pid=118633, ip=10.81.10.44) [rank3]:[E408 10:01:52.865193330 ProcessGroupNCCL.cpp:1895] "
    "[PG ID 1 PG GUID 1 Rank 3] Process group watchdog thread terminated with exception: [Rank 3] Watchdog caught "
    "collective operation timeout: WorkNCCL(SeqNum=147619, OpType=BROADCAST, NumelIn=32, NumelOut=32, "
    "Timeout(ms)=600000) ran for 600010 milliseconds before timing out.\n")

CASES = [
    ("marin-community/marin#7344", ("inconclusive", "timeout_unknown"), None,
     'Thread 1 (idle): "MainThread"\n    _run_grug_local (experiments/grug/moe_hero_fsdp/train.py:585)\n'
     "    <module> (_callable_runner.py:40)\n"),
    ("vllm-project/vllm#5484", ("timeout_unknown",), None,
     "(RayWorkerWrapper pid=4009) [rank1]:[E ProcessGroupNCCL.cpp:563] [Rank 1] Watchdog caught collective operation "
     "timeout: WorkNCCL(SeqNum=158046, OpType=GATHER, NumelIn=2867200, NumelOut=0, Timeout(ms)=600000) ran for "
     "600027 milliseconds before timing out.\n"
     "(RayWorkerWrapper pid=4009) [rank1]:[E ProcessGroupNCCL.cpp:1537] [PG 1 Rank 1] Timeout at NCCL work: 158046, "
     "last enqueued NCCL work: 158046, last completed NCCL work: 158045.\n"),
    ("magiccodingman/vllm-radiance#5", ("unclassified_failure", "version_mismatch"), None,
     "rccl/src/enqueue.cc:2061 NCCL WARN HIP failure 'the operation cannot be performed in the present state'\n"
     "RuntimeError: NCCL error: unhandled cuda error\n"),
    ("vllm-project/vllm#10150", ("inconclusive", "none"), None,
     "ruijie:849:1185 [0] NCCL INFO comm 0x55a968d59160 rank 0 nranks 2 cudaDev 0 busId 3000 commId "
     "0xdf38d22419fae72b localSize 192 used 134323280 bytes - Init COMPLETE\n"
     "ruijie:1122:1186 [1] NCCL INFO comm 0x557519a97630 rank 1 nranks 2 cudaDev 1 busId c3000 commId "
     "0xdf38d22419fae72b localSize 192 used 134323280 bytes - Init COMPLETE\n"),
    ("NVIDIA/nccl#1808", ("network_error", "inconclusive"), None,
     "2025-08-12 09:37:03.463948 worker-9 >> [2025-08-12 01:37:03] :166:1226 [0] misc/socket.cc:484 NCCL WARN "
     "socketFinalizeAccept: wrong magic 74656d2f20544547 != 7970663b906d70b9\n"),
    ("turingaicloud/quickstart#6", ("network_error", "nic_misselection"), None,
     f"{_HOST} misc/ibvwrap.cc:284 NCCL WARN Call to ibv_modify_qp failed with error No such device\n"
     f"{_HOST} NCCL INFO transport/net_ib.cc:415 -> 2\n"),
    ("horovod/horovod#110", ("network_error", "nic_misselection"), None,
     "lf-solar-gpu9-pm:285594:285607 [0] include/socket.h:361 NCCL WARN Call to connect failed : Connection timed out\n"
     "lf-solar-gpu9-pm:285594:285607 [0] NCCL INFO transport/net_socket.cu:139 -> 2\n"
     "tensorflow.python.framework.errors_impl.UnknownError: ncclCommInitRank failed: unhandled system error\n"),
    ("horovod/horovod#210", ("network_error", "nic_misselection"), None,
     "ml-gpu-ser015:2123:2230 [3] include/socket.h:194 WARN Call to recv failed : Connection reset by peer\n"
     "ml-gpu-ser015:2123:2230 [3] INFO bootstrap.cu:169 -> 2\n"),
    ("NVIDIA/nccl-tests#102", ("network_error", "nic_misselection", "unclassified_failure"), None,
     "host3: Test NCCL failure common.cu:1125 'unhandled system error'\n"
     " .. host3 pid 3590858: Test failure common.cu:1017\n"),
    ("NVIDIA/nccl#1706", ("none",), None,
     "deepseek:2081594:2081611 [0] NCCL INFO comm 0x55f6848de3b0 rank 0 nranks 2 cudaDev 0 busId f000 - Destroy "
     "COMPLETE\ndeepseek:2081594:2081611 [1] NCCL INFO comm 0x55f68495f4f0 rank 1 nranks 2 cudaDev 1 busId 34000 - "
     "Destroy COMPLETE\n# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 8.62002 \n#\n"),
    ("NVIDIA/nccl-tests#82", ("none", "inconclusive"), None,
     "v100-gpu-1:14926:14926 [0] misc/ibvwrap.cc:63 NCCL WARN Failed to open libibverbs.so[.1]\n"
     "NCCL version 2.9.6+cuda11.2\n"
     "           8             2   float       0    45.82    0.00    0.00    N/A    38.17    0.00    0.00    N/A\n"),
    ("OpenRLHF/OpenRLHF#949", ("timeout_unknown",), None, _WATCHDOG_949),
    ("OpenRLHF/OpenRLHF#211", ("stuck_rank", "timeout_unknown"), None,
     "torch.distributed.DistBackendError: [1] is setting up NCCL communicator and retrieving ncclUniqueId from [0] "
     "via c10d key-value store by key '0', but store->get('0') got error: Socket Timeout\n"
     "Exception raised from doWait at ../torch/csrc/distributed/c10d/TCPStore.cpp:550 (most recent call first):\n"),
    ("OpenRLHF/OpenRLHF#795", ("unclassified_failure", "network_error"), None,
     "(ActorModelRayActor pid=16101) [dlc1f0bnd3uip696-master-0][16101:17880][0][init.cc:1815] NCCL WARN "
     "init.cc:1815 -> 5\n"
     "(ActorModelRayActor pid=16101) [dlc1f0bnd3uip696-master-0][16101:16101][0][group.cc:585] NCCL WARN "
     "group.cc:585 -> 3\nTraceback (most recent call last):\n"),
    ("horovod/horovod#3333", ("inconclusive", "none"), None,
     "[1,6]<stderr>:libibverbs: Warning: couldn't stat '/sys/class/infiniband/mlx5_7'.\n"
     "[1,1]<stdout>:tensorflow-mnist-worker-0:8363:8893 [1] NCCL INFO NET/IB : Using [0]mlx5_3:1/RoCE ; OOB "
     "eth1:10.0.0.74<0>\n"),
]


@pytest.mark.parametrize("issue,want,culprits,text", CASES, ids=[case[0] for case in CASES])
def test_each_case_of_the_set(issue, want, culprits, text, tmp_path):
    check_case(tmp_path, (text, want, culprits), progress="")


def test_nccl_2_3_connect_failure_is_the_network_s(tmp_path):
    verdict = console_verdict(tmp_path, "n1:77:79 [0] include/socket.h:361 NCCL WARN Call to connect failed : "
                                        "No route to host")
    assert verdict.cls == "network_error", verdict.summary


def test_nccl_2_3_bind_failure_is_no_peer_s(tmp_path):
    verdict = console_verdict(tmp_path, "n1:77:79 [0] include/socket.h:328 NCCL WARN Call to bind failed : "
                                        "Address already in use")
    assert verdict.cls != "network_error", verdict.summary
