"""Held-out set 51: multi-node hangs seen from some ranks (watchdog timeouts, dump signals), bootstrap interface
mistakes (a link-local IPv6 on one node and bond0 on the other, no interface NCCL_SOCKET_IFNAME allows, MPI's UCX on the
docker bridge), store barriers that more processes joined than the world, a launch that asks for GPUs a node lacks,
and a two-node nccl-tests run pasted without its last line. One verdict test per case, then what the set showed:

- torch 1.9 - 2.0's `_store_based_barrier` waits `while worker_count != world_size`: a count above the world size
  (`world_size=2, worker_count=4`) is no missing rank but a launch that started the script more times than the world
  (srun tasks that each mp.spawn the world, two jobs on one store, a requeued job on its old file store).
- nccl-tests prints `# Out of bounds values` after every size ran (and, MPI builds, after the error count's
  MPI_Allreduce), before `# Avg bus bandwidth`: a paste that ends on that line is a completed run, not a table that
  stopped (mscclpp's test forks print no average line at all).
"""
from __future__ import annotations

import pytest

from .consoles import PROGRESS, check_case, console_verdict

_WAIT = ("Waiting in store based barrier to initialize process group for rank: 0, key: store_based_barrier_key:1 "
         "(world_size=4, worker_count=16, timeout=0:01:00)\n")
_SPARK = (
    "# nThread 1 nGpus 1 minBytes 17179869184 maxBytes 17179869184 step: 2(factor) warmup iters: 1 iters: 20 agg "
    "iters: 1 validation: 1 graph: 0\n#\n# Using devices\n"
    "#  Rank  0 Group  0 Pid 1935208 on      spark device  0 [000f:01:00] NVIDIA GB10\n"
    "#  Rank  1 Group  0 Pid 1278829 on spark-3995 device  0 [000f:01:00] NVIDIA GB10\n#\n"
    "#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  "
    "#wrong \n"
    " 17179869184    2147483648     float    none      -1   453650   37.87   18.94       0   410049   41.90   20.95"
    "       0\n")

CASES = [
    ("NVIDIA/nccl#1291", ("nic_misselection",), None,
     "#  Rank  0 Group  0 Pid 180172 on        gh1 device  0 [0x01] NVIDIA GH200 480GB\n"
     "#  Rank  1 Group  0 Pid   9746 on        gh2 device  0 [0x01] NVIDIA GH200 480GB\n"
     "gh1:180172:180172 [0] NCCL INFO Bootstrap : Using ib0:fe80::a288:c203:d2:aaf2%ib0<0>\n"
     "gh2:9746:9746 [0] NCCL INFO cudaDriverVersion 12040\n"
     "gh2:9746:9746 [0] NCCL INFO Bootstrap : Using bond0:X.X.X.X<0>\n"),
    ("marin-community/marin#7018", ("nic_misselection",), None,
     "Failed to create NCCL communicator: INTERNAL: ncclCommInitRankConfig(...) failed:\n"
     "invalid usage ... Last NCCL warning(error): 'Bootstrap : no socket interface found'\n"),
    ("NVIDIA/nccl-tests#263", ("unclassified_failure",), None,
     "g0010: Test CUDA failure common.cu:941 'invalid device ordinal'\n .. g0010 pid 888386: Test failure "
     "common.cu:891\ng0016: Test CUDA failure common.cu:941 'invalid device ordinal'\n .. g0016 pid 3645592: Test "
     "failure common.cu:891\n"),
    ("modelscope/ms-swift#2443", ("timeout_unknown", "stuck_rank"), None,
     "[rank3]:[E1113 14:07:50.955124402 ProcessGroupNCCL.cpp:616] [Rank 3] Watchdog caught collective operation "
     "timeout: WorkNCCL(SeqNum=335, OpType=BROADCAST, NumelIn=67895296, NumelOut=67895296, Timeout(ms)=600000) ran "
     "for 600008 milliseconds before timing out.\n"
     "[rank2]:[E1113 14:07:51.007422130 ProcessGroupNCCL.cpp:616] [Rank 2] Watchdog caught collective operation "
     "timeout: WorkNCCL(SeqNum=335, OpType=BROADCAST, NumelIn=67895296, NumelOut=67895296, Timeout(ms)=600000) ran "
     "for 600081 milliseconds before timing out.\n"),
    ("IDEA-CCNL/Fengshenbang-LM#123", ("timeout_unknown", "stuck_rank"), None,
     "terminate called after throwing an instance of 'std::runtime_error'\n"
     "  what():  [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=756, OpType=ALLREDUCE, "
     "Timeout(ms)=1800000) ran for 1801566 milliseconds before timing out.\n"
     "[E ProcessGroupNCCL.cpp:737] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=756, "
     "OpType=ALLREDUCE, Timeout(ms)=1800000) ran for 1802603 milliseconds before timing out.\n"),
    ("xiuqhou/Salience-DETR#8", ("timeout_unknown", "stuck_rank"), None,
     "[rank3]:[E ProcessGroupNCCL.cpp:523] [Rank 3] Watchdog caught collective operation timeout: "
     "WorkNCCL(SeqNum=2665572, OpType=ALLREDUCE, NumelIn=11100676, NumelOut=11100676, Timeout(ms)=600000) ran for "
     "601336 milliseconds before timing out.\n"
     "[rank0]:[E ProcessGroupNCCL.cpp:523] [Rank 0] Watchdog caught collective operation timeout: "
     "WorkNCCL(SeqNum=2665572, OpType=ALLREDUCE, NumelIn=11100676, NumelOut=11100676, Timeout(ms)=600000) ran for "
     "600851 milliseconds before timing out.\n"),
    ("hiyouga/LlamaFactory#9496", ("timeout_unknown", "stuck_rank"), None,
     "[rank5]:[E1115 16:42:37.909000893 ProcessGroupNCCL.cpp:1753] [PG ID 0 PG GUID 0 Rank 5] Received a dump signal "
     "due to a collective timeout from this local rank and we will try our best to dump the debug info. Last enqueued "
     "NCCL work: 2, last completed NCCL work: 2.This is most likely caused by incorrect usages of collectives, e.g., "
     "wrong sizes used across ranks, the order of collectives is not same for all ranks or the scheduled collective, "
     "for some reason, didn't run.\n"),
    ("facebookincubator/submitit#1613", ("unclassified_failure", "timeout_unknown", "dropped_rank"), None,
     "slurmstepd: error: *** JOB 37361369 ON learnfair5146 CANCELLED AT 2021-03-15T18:00:46 DUE TO PREEMPTION ***\n"
     "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.\n"
     "RuntimeError: Timed out initializing process group in store based barrier on rank: 0, for key: "
     "store_based_barrier_key:1 (world_size=8, worker_count=16, timeout=0:30:00)\n"),
    ("tczhangzhi/pytorch-distributed#18", ("unclassified_failure",), None,
     "torch.multiprocessing.spawn.ProcessRaisedException:\n\n-- Process 1 terminated with the following error:\n"
     "Traceback (most recent call last):\n"
     '  File "/usr/local/lib/python3.8/dist-packages/torch/multiprocessing/spawn.py", line 59, in _wrap\n'
     "    fn(i, *args)\n"
     "RuntimeError: Timed out initializing process group in store based barrier on rank: 2, for key: "
     "store_based_barrier_key:1 (world_size=2, worker_count=4, timeout=0:30:00)\n"),
    ("ultralytics/yolov5#4409", ("unclassified_failure", "timeout_unknown"), None,
     "Added key: store_based_barrier_key:1 to store for rank: 0\n" + _WAIT * 3
     + 'Traceback (most recent call last):\n  File "train.py", line 494, in main\n'
       '    dist.init_process_group(backend="nccl" if dist.is_nccl_available() else "gloo", '
       "timeout=timedelta(seconds=60))\n"),
    ("NVIDIA/nccl-tests#180", ("nic_misselection", "network_error"), None,
     "[1700554343.440877] [10-192-80-132:7356 :0]            sock.c:323  UCX  ERROR   connect(fd=48, "
     "dest_addr=172.17.0.1:42887) failed: Connection refused\n"
     "[10-192-80-132.cls-gebgk6vq.ecp.shopeemobile.com:07356] pml_ucx.c:424  Error: ucp_ep_create(proc=3) failed: "
     "Destination is unreachable\n"
     "[10-192-80-132:07356] *** An error occurred in MPI_Allgather\n"
     "[10-192-80-132:07356] *** MPI_ERR_OTHER: known error not in list\n"),
    ("NVIDIA/dgx-spark-playbooks#25", ("none",), None, _SPARK + "# Out of bounds values : 0 OK\n"),
    ("deepspeedai/DeepSpeedExamples#964", ("timeout_unknown", "stuck_rank"), None,
     "[rank4]:[E417 20:43:19.177767953 ProcessGroupNCCL.cpp:616] [Rank 4] Watchdog caught collective operation "
     "timeout: WorkNCCL(SeqNum=1, OpType=BROADCAST, NumelIn=131076096, NumelOut=131076096, Timeout(ms)=6\n"
     "00000) ran for 600016 milliseconds before timing out.\n"
     "[rank4]:[E417 20:43:19.178477173 ProcessGroupNCCL.cpp:1834] [PG ID 1 PG GUID 1 Rank 4] Timeout at NCCL work: 1, "
     "last enqueued NCCL work: 291, last completed NCCL work: -1.\n"),
    ("deepspeedai/DeepSpeed#5008", ("timeout_unknown", "stuck_rank"), None,
     "Invalidate trace cache @ step 1: expected module 25, but got module 323\n"
     "[E ProcessGroupNCCL.cpp:467] [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=211067, "
     "OpType=_ALLGATHER_BASE, NumelIn=2359296, NumelOut=18874368, Timeout(ms)=1800000) ran for 1800001 milliseconds "
     "before timing out.\n"
     "[E ProcessGroupNCCL.cpp:467] [Rank 7] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=211067, "
     "OpType=_ALLGATHER_BASE, NumelIn=2359296, NumelOut=18874368, Timeout(ms)=1800000) ran for 1800385 milliseconds "
     "before timing out.\n"),
]


@pytest.mark.parametrize("issue,want,culprits,text", CASES, ids=[c[0] for c in CASES])
def test_each_case_of_the_set(issue, want, culprits, text, tmp_path):
    check_case(tmp_path, (text, want, culprits), progress="")


@pytest.mark.parametrize("count,world", [(4, 2), (16, 8), (9, 8)])
def test_a_store_barrier_more_joined_than_the_world_is_no_missing_rank(count, world, tmp_path):
    verdict = console_verdict(tmp_path, "RuntimeError: Timed out initializing process group in store based barrier "
                                        f"on rank: 0, for key: store_based_barrier_key:1 (world_size={world}, "
                                        f"worker_count={count}, timeout=0:30:00)", PROGRESS)
    assert verdict.cls == "unclassified_failure", verdict.summary
    assert "more processes joined" in verdict.summary


def test_a_store_barrier_fewer_joined_is_still_a_missing_rank(tmp_path):
    verdict = console_verdict(tmp_path, "RuntimeError: Timed out initializing process group in store based barrier "
                                        "on rank: 0, for key: store_based_barrier_key:1 (world_size=8, "
                                        "worker_count=7, timeout=0:30:00)")
    assert verdict.cls == "stuck_rank", verdict.summary


def test_a_table_that_stops_before_the_footer_is_a_hang_where_the_console_goes_on(tmp_path):
    assert console_verdict(tmp_path, _SPARK + "^C\n", progress="").cls == "timeout_unknown"
    assert console_verdict(tmp_path, _SPARK, progress="").cls == "inconclusive"     # cut where the paste ends


def test_a_failed_out_of_bounds_footer_is_no_all_clear(tmp_path):
    verdict = console_verdict(tmp_path, _SPARK + "# Out of bounds values : 5 FAILED\n", progress="")
    assert verdict.cls != "none", verdict.summary


def test_two_runs_in_one_console_each_ending_on_its_first_footer_line(tmp_path):
    verdict = console_verdict(tmp_path, (_SPARK + "# Out of bounds values : 0 OK\n") * 2, progress="")
    assert verdict.cls == "none", verdict.summary
