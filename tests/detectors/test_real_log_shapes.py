"""Verdicts on the shapes real console logs take (public issues): each names its class, and its culprit where
the lines say which rank it is."""
from __future__ import annotations

import pytest

GLOO_SIGKILL_RUNON = ("Loading checkpoint shards:   0%|          | 0/2 [00:00<?, ?it/s]WARNING:torch.distributed."
                      "elastic.multiprocessing.api:Sending process 899505 closing signal SIGTERM          ERROR:torch."
                      "distributed.elastic.multiprocessing.api:failed (exitcode: -9) local_rank: 4 (pid: 899509) of "
                      "binary: /usr/bin/python          Traceback (most recent call last):\n")

_SOCKETS = ("w1:1015:1015 [0] NCCL INFO comm 0x55d0 rank 1 nranks 2\n"
            "w1:1015:1015 [0] NCCL INFO NET/Socket : Using [0]eno1:172.18.40.41<0> "
            "[1]veth25f2e72:fe80::380d:bfff:fe5b:54d2%veth25f2e72<0>\n")

CASES = {
    "agent line cut before its logger": (
        "torch/distributed/elastic/multiprocessing/api.py:826] failed (exitcode: -9) local_rank: 0 (pid: 1322) of "
        "binary: /usr/bin/python\n", "dropped_rank", [0]),
    "agent lines glued to a progress bar": (GLOO_SIGKILL_RUNON, "dropped_rank", [4]),
    "bracketed logger style": (
        "[2023-10-13 17:40:02,544] torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: -9) "
        "local_rank: 0 (pid: 62498) of binary: /usr/bin/python\n", "dropped_rank", [0]),
    "watchdog thread dies of a CUDA error": (
        "terminate called after throwing an instance of 'c10::DistBackendError'\n"
        "  what():  [PG ID 0 PG GUID 0(default_pg) Rank 2] Process group watchdog thread terminated with exception: "
        "CUDA error: an illegal memory access was encountered\n"
        "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be "
        "incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1\n", "dropped_rank", [2]),
    "a CUDA error whose rank no line names": (
        "[2025-04-15 00:31:11,815 E 808 17795] logging.cc:108: Unhandled exception: N3c1016DistBackendErrorE. what(): "
        "[PG ID 2 PG GUID 3 Rank 0] Process group watchdog thread terminated with exception: CUDA error: an illegal "
        "memory access was encountered\n", "dropped_rank", []),
    "NCCL cannot allocate device memory": (
        "h1:3063025:3066048 [0] misc/socket.cc:49 NCCL WARN socketProgress: Connection closed by remote peer h1<51159>\n"
        "h1:3063028:3066152 [3] include/alloc.h:178 NCCL WARN Cuda failure 'out of memory'\n"
        "h1:3063028:3066152 [3] include/alloc.h:185 NCCL WARN Failed to CUDA calloc 6291456 bytes\n", "oom", []),
    "NCCL_SOCKET_IFNAME names no interface": (
        "node1:1234:1234 [0] NCCL INFO NCCL_SOCKET_IFNAME set by environment to ib9\n"
        "node1:1234:1234 [0] bootstrap.cc:1127 NCCL WARN Bootstrap : no socket interface found\n",
        "nic_misselection", []),
    "loopback in a two-host job": (
        "gpu-1011:4289:4343 [0] NCCL INFO comm 0x7fc8e824c640 rank 0 nranks 4\n"
        "gpu-1012:4152:4206 [0] NCCL INFO comm 0x7f0dc0269bf0 rank 2 nranks 4\n"
        "gpu-1012:4152:4206 [0] NCCL INFO NET : Using interface lo:127.0.0.1<0>\n"
        "gpu-1012:4153:4209 [1] include/socket.h:361 NCCL WARN Call to connect timeout : Connection refused\n",
        "nic_misselection", [2]),
    # one host's log only: the channel's `NET/Socket/1` is the second interface NET/Socket listed, a veth
    "a channel over the veth NET/Socket listed second": (
        _SOCKETS + "w1:1015:1093 [0] NCCL INFO Channel 00 : 0[18000] -> 1[18000] [send] via NET/Socket/1\n"
        "w1:1015:1093 [0] include/socket.h:403 NCCL WARN Connect to 10.0.0.3<4311> failed : Connection timed out\n",
        "nic_misselection", [1]),
    # a paste indented as a code block: the `[rankN]:` wrappers behind spaces still name the ranks, and their
    # watchdog records at one SeqNum name different collectives
    "indented watchdog records of different collectives": (
        "    [rank7]:[E816 01:45:40.183009389 ProcessGroupNCCL.cpp:607] [Rank 7] Watchdog caught collective operation "
        "timeout: WorkNCCL(SeqNum=80078, OpType=BROADCAST, NumelIn=5056, NumelOut=5056, Timeout(ms)=600000) ran for "
        "600026 milliseconds before timing out.\n"
        "    [rank3]:[E816 01:45:40.212150935 ProcessGroupNCCL.cpp:607] [Rank 3] Watchdog caught collective operation "
        "timeout: WorkNCCL(SeqNum=80078, OpType=ALLREDUCE, NumelIn=2106881, NumelOut=2106881, Timeout(ms)=600000) "
        "ran for 600013 milliseconds before timing out.\n"
        "    [rank0]:[E816 01:45:40.212150935 ProcessGroupNCCL.cpp:607] [Rank 0] Watchdog caught collective operation "
        "timeout: WorkNCCL(SeqNum=80078, OpType=ALLREDUCE, NumelIn=2106881, NumelOut=2106881, Timeout(ms)=600000) "
        "ran for 600013 milliseconds before timing out.\n", "op_mismatch", [7]),
    # NCCL's error-return trace alone: its socket layer's connect failed with ncclSystemError (2.19+ add strerror)
    "bootstrap connect fails in the socket layer": (
        "n1:2692:2705 [0] NCCL INFO misc/socket.cc:505 -> 2 (Operation now in progress)\n"
        "n1:2692:2705 [0] NCCL INFO misc/socket.cc:570 -> 2\n"
        "n1:2692:2705 [0] NCCL INFO bootstrap.cc:275 -> 2\n"
        "n1:2692:2705 [0] NCCL INFO init.cc:1493 -> 2\n", "network_error", []),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_real_log_shape(diagnose_text, name):
    text, cls, culprits = CASES[name]
    d = diagnose_text(text)
    assert (d.verdict.cls, d.verdict.culprit_ranks) == (cls, culprits), d.verdict.summary
    assert d.verdict.primary.evidence


def test_missing_libibverbs_is_no_network_error(diagnose_text):
    d = diagnose_text("ai:480850:480850 [0] misc/ibvwrap.cc:63 NCCL WARN Failed to open libibverbs.so[.1]\n"
                      "ai:480850:480850 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.2<0>\n")
    assert d.verdict.cls != "network_error"


def test_a_channel_over_the_real_interface_is_no_nic_misselection(diagnose_text):
    d = diagnose_text(_SOCKETS + "w1:1015:1093 [0] NCCL INFO Channel 00 : 0[18000] -> 1[18000] [send] via NET/Socket/0\n"
                      "w1:1015:1093 [0] include/socket.h:403 NCCL WARN Connect to 10.0.0.3<4311> failed : Connection "
                      "timed out\n")
    assert d.verdict.cls == "network_error"


def test_a_remote_error_in_the_socket_layer_is_no_network_error_by_itself(diagnose_text):
    # ncclRemoteError (6) from misc/socket.cc is a peer that closed its end: what made it close decides
    d = diagnose_text("n1:2692:2705 [0] NCCL INFO misc/socket.cc:749 -> 6\nn1:2692:2705 [0] NCCL INFO proxy.cc:1143 -> 6\n")
    assert d.verdict.cls != "network_error", d.verdict.summary


# A CUDA fault that a process prints after it reported a failure of the network itself (NCCL's proxy got an error
# completion; the communicator is aborted under its running kernels): the network failure is the cause. Printed
# before any network failure, or by another process, the fault stays the cause.
_INIT = "g5:100:100 [0] NCCL INFO comm 0x1 rank 1 nranks 2 cudaDev 0 busId 1000 - Init COMPLETE\n"
_IB = ("g5:100:120 [0] transport/net_ib.cc:1295 NCCL WARN NET/IB : Got completion from peer 10.0.0.2<5000> with "
       "status=12 opcode=0 len=0 vendor err 129 (Recv)\n")
_FAULT = "g5:100:100 [0] enqueue.cc:1108 NCCL WARN Cuda failure 'unspecified launch failure'\n"
_OTHER_FAULT = "g6:200:200 [0] enqueue.cc:1108 NCCL WARN Cuda failure 'unspecified launch failure'\n"


@pytest.mark.parametrize("text,cls", [
    (_IB + _FAULT, "network_error"),
    (_INIT + _IB + _FAULT, "network_error"),
    (_IB + "g5:100:100 [0] NCCL INFO init.cc:1143 -> 1\n" + _FAULT, "network_error"),
    (_FAULT + _IB, "dropped_rank"),
    (_INIT + _FAULT + _IB, "dropped_rank"),
    (_IB + _OTHER_FAULT, "dropped_rank"),
])
def test_a_cuda_fault_after_a_network_failure_of_its_process(diagnose_text, text, cls):
    d = diagnose_text(text)
    assert d.verdict.cls == cls, d.verdict.summary


def test_no_order_between_files_without_times(diagnose_text):
    # the same rank's network failure and fault in two files with no time on either line: which came first is not
    # known, so the fault is not made a consequence
    d = diagnose_text(_INIT + _IB, **{"rank1b.log": "[rank1]:[E218 12:54:02.200000000 ProcessGroupNCCL.cpp:1] Process "
                                                    "group watchdog thread terminated with exception: CUDA error: an "
                                                    "illegal memory access was encountered\n"})
    assert d.verdict.cls == "dropped_rank" and d.verdict.culprit_ranks == [1], d.verdict.summary


# Each rank raises the machine's CUDA error and torchrun reports the first exit: the rank's traceback and exit are
# that error's, not a failure of its own
_RAISED = ("[rank0]: Traceback (most recent call last):\n[rank0]:   File \"train.py\", line 10, in <module>\n"
           "[rank0]:     dist.all_reduce(t)\n[rank0]: RuntimeError: CUDA error: {text}\n[rank0]: CUDA kernel errors "
           "might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\n"
           "[rank1]: RuntimeError: CUDA error: {text}\n"
           "W0325 20:57:27.620000 2606 torch/distributed/elastic/multiprocessing/api.py:897] Sending process 2631 "
           "closing signal SIGTERM\n"
           "E0325 20:57:27.620000 2606 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) "
           "local_rank: 0 (pid: 2630) of binary: /usr/bin/python\n")


@pytest.mark.parametrize("text,cls,culprits", [
    ("peer access is not supported between these two devices", "network_error", [0]),
    ("CUDA driver version is insufficient for CUDA runtime version", "version_mismatch", [0, 1]),
    ("no kernel image is available for execution on the device", "version_mismatch", [0, 1]),
    ("an illegal memory access was encountered", "dropped_rank", [0, 1]),      # each crashed of its own
])
def test_every_rank_raises_the_machines_cuda_error(diagnose_text, text, cls, culprits):
    d = diagnose_text(_RAISED.format(text=text))
    assert (d.verdict.cls, d.verdict.culprit_ranks) == (cls, culprits), d.verdict.summary


# A paste that begins inside a traceback (Horovod's launcher tags each line `[rank]<stderr>:`, no space after it):
# the frames are an error's even with the header and the exception line cut off
_HEADLESS = ('[6]<stderr>:    grads_and_vars = self._compute_gradients(\n[6]<stderr>:\n'
             '[6]<stderr>:  File "/x/horovod/_keras/__init__.py", line 136, in _compute_gradients\n'
             '[6]<stderr>:    allreduced_grads = self._allreduce(grads, weights)\n'
             '[6]<stderr>:  File "/x/horovod/tensorflow/__init__.py", line 616, in allreduce_grads\n[6]<st\n')
# TensorFlow's op error, only its tail pasted: the stack where the failing op was built
_TF_OP = ("[1,0]<stderr>:\t [[node DistributedAdamOptimizer_Allreduce/HorovodAllgather_grads_0 = HorovodAllgather"
          "[T=DT_FLOAT](grads/Reshape)]]\n[1,0]<stderr>:\n"
          "[1,0]<stderr>:Caused by op 'DistributedAdamOptimizer_Allreduce/HorovodAllgather_grads_0', defined at:\n"
          '[1,0]<stderr>:  File "train.py", line 194, in <module>\n[1,0]<stderr>:    fire.Fire(train_main)\n')


@pytest.mark.parametrize("text", [_HEADLESS, _TF_OP], ids=["headless traceback", "tensorflow op error tail"])
def test_a_pasted_error_tail_is_a_failure(diagnose_text, text):
    d = diagnose_text(text)
    assert d.verdict.cls == "unclassified_failure", d.verdict.summary


def test_frames_below_other_lines_are_not_a_traceback(diagnose_text):
    # only the head of a paste may be a cut traceback: a stack printed further down (print_stack, a compiler's
    # user-code trace) is no failure by itself
    d = diagnose_text("step 1 loss 0.5\n" + '  File "train.py", line 3, in <module>\n    main()\n')
    assert d.verdict.cls in ("none", "inconclusive"), d.verdict.summary


@pytest.mark.parametrize("head", ["[rank0]: Traceback (most recent call last):\n", ""], ids=["whole", "header cut"])
def test_a_traceback_that_reports_other_ranks_blames_them(diagnose_text, head):
    # rank 0 raises the barrier's report: the rank it names never came, rank 0 did not fail of its own
    d = diagnose_text(head + '[rank0]:   File "train.py", line 9, in <module>\n[rank0]:     dist.monitored_barrier()\n'
                      "[rank0]: RuntimeError: [Rank 0]: Ranks 6 failed to pass monitoredBarrier in 1800000 ms\n")
    assert (d.verdict.cls, d.verdict.culprit_ranks) == ("stuck_rank", [6]), d.verdict.summary
