"""Held-out set 29: console pastes from public issues of NVIDIA/nccl, aws-ofi-nccl, horovod, pytorch, ROCm (HIP) and
multi-node launchers (Slurm's `srun -l`, pdsh, mpirun, Ray, Kubernetes), trimmed to their decisive lines. One verdict
test per case; 21 of 23 were read right at first sight. What changed after:

- NVIDIA/nccl#948, pytorch/pytorch#167288: NCCL's INFO line before it retries a connect no one answers (`Call to
  connect returned Connection refused, retrying` 2.4 - 2.23; `<function>: connect returned ...` 2.24 - 2.26;
  `<function>: connect to <addr> returned ..., retrying (n/N) after sleep for M msec` 2.27+, src/misc/socket.cc,
  src/os/linux.cc from 2.29) is the catalogue's nccl.socket_connect_retry: NCCL connects only to an address a peer
  published once it listened, so a refusal is that peer gone (or an address this host cannot reach). The NCCL
  parser gives the INFO event the entry's meaning (a consequence, a network error); N401 reads it.
"""
from __future__ import annotations

import pytest

from .consoles import PROGRESS, console_verdict

NET = {"network_error"}
TIMEOUT = {"timeout_unknown"}

CASES = [
    # (issue, pasted excerpt, right classes, culprit ranks or None)
    ("NVIDIA/nccl#1698", "mycl-g2:353236:353423 [6] transport/net_ib.cc:2244 NCCL WARN NET/IB: Got completion from peer "
     "192.168.3.5<53908> with status=12 opcode=129 len=1048576 vendor err 129 (Recv) localGid ::ffff:192.168.6.3 "
     "remoteGids::ffff:192.168.6.5 hca mlx5_10\nmycl-g2:353236:353423 [6] NCCL INFO transport/net.cc:1362 -> 6",
     NET, None),
    ("NVIDIA/nccl#1664", "NET/IBP:Got completion from peer 7.6.13.83<36315> with status=12 opcode=32698 len=32696 vendor "
     "err 129 (Send)", NET, None),
    ("NVIDIA/nccl#214", "transport/net_ib.cu:788 NCCL WARN NET/IB : Got completion with error 4, opcode 1, len 21938, "
     "vendor err 81", NET, None),
    ("horovod/horovod#147", "I have the same error as 'transport/net_ib.cu:781 WARN NET/IB : Got completion with error "
     "12, opcode 1, len0, vendor err 129' although I am running the mpi task in a docker container.", NET, None),
    ("aws/aws-ofi-nccl#22", "INFO: Function: ofi_init Line: 686: NET/OFI Selected Provider is efa\n"
     "WARN: Function: create_nccl_ofi_component Line: 459: NET/OFI Couldn't open AV. RC: -22, ERROR: Invalid argument\n"
     "[ 1632.420957] infiniband efa_0: Failed to allocate pd[-12]", NET, None),
    ("NVIDIA/nccl#562", "hai-a100-3:376586:377443 [4] NCCL INFO ib_plugin.c:273 -> 2\n"
     "hai-a100-3:376586:377443 [4] NCCL INFO external/nccl_archive/src/group.cc:72 -> 2 [Async thread]\n\n"
     "hai-a100-3:376586:377441 [2] ibvwrap.c:130 NCCL WARN Call to ibv_create_qp failed", NET, None),
    ("NVIDIA/nccl#1129", "node08:6561:6561 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB ibs3:10.252.0.211<0>\n"
     "NCCL version 2.7.8+cuda11.1\nmisc/ibvwrap.cc:280 NCCL WARN Call to ibv_create_qp failed", NET, None),
    ("NVIDIA/nccl#380", "spark01:2683:2826 [0] NCCL INFO Channel 00 : 0[3000] -> 1[3000] [send] via NET/IB/0\n\n"
     "spark01:2683:2826 [0] misc/ibvwrap.cc:268 NCCL WARN Call to ibv_create_cq failed", NET, None),
    ("horovod/horovod#385", "bdb5d1df-0212:12122:12182 [0] INFO NET/IB : Using interface eth1 for sideband "
     "communication\n\nbdb5d1df-0212:12122:12182 [0] misc/ibvwrap.cu:205 WARN Call to ibv_open_device failed\n\n"
     "bdb5d1df-0212:12122:12182 [0] transport/net_ib.cu:109 WARN NET/IB : Unable to open device mlx4_8",
     {"network_error", "nic_misselection", "inconclusive"}, None),   # widened in heldout30: ncclIbInit skips the device
    ("NVIDIA/nccl#1546", "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/"
     "ProcessGroupNCCL.cpp:1333, internal error - please report this issue to the NCCL developers, NCCL version 2.18.1\n"
     "ncclInternalError: Internal check failed.\nLast error:\nSocket recv failed while polling for opId=0x7f22ff731e10",
     {"network_error", "unclassified_failure"}, None),
    ("NVIDIA/nccl#948", "RuntimeError: NCCL error in: ***/spack-src/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:"
     "1269, internal error, NCCL version 2.14.3\n"
     "lrdn1629:236813:236852 [1] NCCL INFO Using network IB\n"
     "lrdn1629:236813:236852 [1] NCCL INFO Call to connect returned Connection refused, retrying\n"
     "lrdn1629:236813:236852 [1] NCCL INFO Call to connect returned Connection refused, retrying", NET, None),
    ("horovod/horovod#2365", "[1,25]<stderr>:terminate called after throwing an instance of 'std::logic_error'\n"
     "[1,25]<stderr>:  what():  cudaEventQuery failed: an illegal memory access was encountered\n"
     "[1,25]<stderr>:[c102:70259] *** Process received signal ***\n[1,25]<stderr>:[c102:70259] Signal: Aborted (6)",
     {"dropped_rank", "unclassified_failure"}, [25]),
    ("horovod/horovod#1634", "node205:10645:10653 [0] transport/p2p.cu:431 WARN failed to open CUDA IPC handle : 30 "
     "unknown error\nTraceback (most recent call last):\n  File \"pytorch_synthetic_benchmark.py\", line 79, in "
     "benchmark_step\n    optimizer.step()", {"unclassified_failure"}, None),
    ("ecmwf/WeatherGenerator#360", "11: [rank11]:[E617 15:17:35.520063769 ProcessGroupNCCL.cpp:1895] [PG ID 0 PG GUID "
     "0(default_pg) Rank 11] Process group watchdog thread terminated with exception: [Rank 11] Watchdog caught "
     "collective operation timeout: WorkNCCL(SeqNum=52, OpType=ALLREDUCE, NumelIn=11, NumelOut=11, "
     "Timeout(ms)=240000) ran for 240077 milliseconds before timing out.", TIMEOUT, None),
    ("ultralytics/yolov5#12429", "[E ProcessGroupNCCL.cpp:828] [Rank 1] Watchdog caught collective operation timeout: "
     "WorkNCCL(SeqNum=4, OpType=ALLGATHER, Timeout(ms)=1800000) ran for 1800081 milliseconds before timing out.\n"
     "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -6) local_rank: 0 (pid: 95313) of binary: "
     "/bin/python\nterminate called after throwing an instance of 'std::runtime_error'\n"
     "  what():  NCCL error: remote process exited or there was a network err",
     {"timeout_unknown", "network_error", "dropped_rank"}, None),
    ("NVlabs/Sana#206", "[rank3]:[E318 13:21:42.592237171 ProcessGroupNCCL.cpp:1515] [PG 0 (default_pg) Rank 3] Process "
     "group watchdog thread terminated with exception: [Rank 3] Watchdog caught collective operation timeout: "
     "WorkNCCL(SeqNum=327117, OpType=BROADCAST, NumelIn=2984960, NumelOut=2984960, Timeout(ms)=600000) ran for 600092 "
     "milliseconds before timing out.", TIMEOUT, None),
    ("ShinoharaHare/LLM-Training#7", "[rank2]:[E ProcessGroupNCCL.cpp:563] [Rank 2] Watchdog caught collective "
     "operation timeout: WorkNCCL(SeqNum=7487, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=1800000) ran for "
     "1800096 milliseconds before timing out.\n[rank2]:[E ProcessGroupNCCL.cpp:1537] [PG 0 Rank 2] Timeout at NCCL "
     "work: 7487, last enqueued NCCL work: 7487, last completed NCCL work: 7486.", TIMEOUT, None),
    ("areal-project/AReaL#449", "(raylet) A worker died or was killed while executing a task by an unexpected system "
     "error. To troubleshoot the problem, check the logs for the dead worker. Worker IP address: 100.64.27.138 Worker "
     "port: 10185 Worker PID: 232845 Worker exit type: SYSTEM_ERROR Worker exit detail: Worker unexpectedly exits with "
     "a connection error code 2. End of file.", {"dropped_rank", "unclassified_failure", "oom"}, None),
    ("pytorch/pytorch#23363", "fail to new train...e= NCCL error in: /pytorch/torch/lib/c10d/ProcessGroupNCCL.cpp:272, "
     "unhanled system error", {"network_error", "unclassified_failure"}, None),
    ("MLI-lab/DeepDeWedge#22", "[rank1]:[E ProcessGroupNCCL.cpp:523] [Rank 1] Watchdog caught collective operation "
     "timeout: WorkNCCL(SeqNum=44, OpType=ALLREDUCE, NumelIn=6832129, NumelOut=6832129, Timeout(ms)=1800000) ran for "
     "1800772 milliseconds before timing out.", TIMEOUT, None),
    ("salesforce/CodeGen2#3", "c05r2n11: RuntimeErrorRuntimeError: : HIP out of memory. Tried to allocate 576.00 MiB "
     "(GPU 3; 15.98 GiB total capacity; 15.83 GiB already allocated; 0 bytes free; 15.84 GiB reserved in total by "
     "PyTorch) If reserved memory is >> allocated memory try setting max_split_size_mb to avoid fragmentation.\n"
     "c05r2n11: RuntimeError", {"oom"}, None),
    ("pytorch/pytorch#167288", "bj4-ml-g8h20-k8s-slave1026-20250527:5971:6015 [4] NCCL INFO socketPollConnect: connect "
     "to 10.29.224.148<52333> returned Connection refused, retrying (18/34) after sleep for 1800 msec\n"
     "bj4-ml-g8h20-k8s-slave1026-20250527:5971:6015 [4] NCCL INFO socketPollConnect: connect to 10.29.224.148<52333> "
     "returned Connection refused, retrying (19/34) after sleep for 1900 msec", {"network_error", "dropped_rank"}, None),
    ("pytorch/pytorch#38702", "tj1-asr-train-v100-13:941227:943077 [0] NCCL INFO Call to connect returned Connection "
     "refused, retrying\n\ntj1-asr-train-v100-13:941227:943077 [0] include/socket.h:390 NCCL WARN Connect to "
     "10.38.10.112<21724> failed : Connection refused\nRuntimeError: NCCL error in: /pytorch/torch/lib/c10d/"
     "ProcessGroupNCCL.cpp:410, unhandled system error, NCCL version 2.4.8", NET, None),
]


@pytest.mark.parametrize("case", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_heldout29_verdict(case, tmp_path):
    text, accept, culprits = case
    verdict = console_verdict(tmp_path, text, PROGRESS)
    assert verdict.cls in accept, verdict.summary
    if culprits is not None:
        assert verdict.culprit_ranks == culprits, verdict.summary


def test_a_kernel_interrupted_connect_retry_is_no_network_error(tmp_path):
    """The near miss: NCCL retries a connect the kernel interrupted (EINTR), not one a peer refused."""
    text = ("lrdn1629:236813:236852 [1] NCCL INFO Using network IB\n"
            "lrdn1629:236813:236852 [1] NCCL INFO Call to connect returned Interrupted system call, retrying")
    assert console_verdict(tmp_path, text, PROGRESS).cls != "network_error"
