"""Held-out set 22: console pastes from the infrastructure side (NVIDIA/nccl, nccl-tests, RCCL, aws-ofi-nccl,
pytorch/elastic, horovod, Ray, SkyPilot, composer). One verdict test per case, then the families it missed, each in
the forms it arrives in:

- NCCL 2.3 - 2.9's socket I/O failure without a peer: `Call to recv failed : <strerror>` (socketProgressOpt 2.4 -
  2.9, for sends too) and 2.3's `Call to write failed : <strerror>` (SYSCHECKVAL around recv()/write()): a network
  error. The same macro's other calls (bind, listen, setsockopt) are no peer's failure.
- Horovod's stall report before 0.13.6 listed each stalled tensor's *ready* ranks (`[ready ranks: 0, 2, 3]`): the
  ranks missing below the highest ready one are the stalled ones. The report is the coordinator's (rank 0) where no
  wrapper says so, and its head may be wrapped onto the lines above `Stalled ranks:` (0.16 - 0.19).
- An elastic agent stopped from outside (`Received 15 death signal`) closes the rendezvous as it exits; the others
  then fail with RendezvousClosedError: that node dropped out of the job.
"""
from __future__ import annotations

import pytest

from nccl_forensics.sources import catalogue

from .consoles import PROGRESS, console_verdict

# ---- one verdict per case of the set (the decisive lines as pasted)
CASES = [
    ("NVIDIA/nccl#193", "network_error", None,
     "worker0-0d9gnb:15:91 [3] include/socket.h 398 NCCL WARN Call to write failed : Connection reset by peer.\n"
     "worker0-0d9gnb:15:91 [3] transport.cu:153 NCCL WARN transport.cu:153 ->2 [Proxy thread error]"),
    ("pytorch/elastic#134", ("dropped_rank", "network_error"), None,
     "multigpu:141:158 [0] include/socket.h:416 NCCL WARN Net : Connection closed by remote peer\n"
     "multigpu:141:158 [0] NCCL INFO transport/net_socket.cc:405 -> 2\n"
     "RuntimeError: NCCL error: unhandled system error, NCCL version 2.7.8"),
    ("pytorch/pytorch#91943", ("dropped_rank", "network_error"), None,
     "[E ProcessGroupNCCL.cpp:341] Some NCCL operations have failed or timed out. Due to the asynchronous nature of "
     "CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data. To avoid this inconsistency, we "
     "are taking the entire process down.\n"
     "terminate called after throwing an instance of 'std::runtime_error'\n"
     "  what():  NCCL error: unhandled system error, NCCL version 21.0.3\n"
     "ncclSystemError: System call (socket, malloc, munmap, etc) failed.\n"
     "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -6) local_rank: 0 (pid: 2019) of binary: "
     "/usr/bin/python"),
    ("aws/aws-ofi-nccl#663", "network_error", None,
     "[rank1]: torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:"
     "1970, internal error - please report this issue to the NCCL developers, NCCL version 2.20.5\n"
     "[rank1]: ncclInternalError: Internal check failed.\n[rank1]: Last error:\n"
     "[rank1]: NET/OFI Unable to insert remote address into address vector for device 1. RC: 0"),
    ("NVIDIA/nccl#1928", "network_error", None,
     "[rank3]: torch.distributed.DistBackendError: NCCL error in: /opt/pytorch/pytorch/torch/csrc/distributed/c10d/"
     "ProcessGroupNCCL.cpp:3763, remote process exited or there was a network error, NCCL version 2.28.8\n"
     "[rank3]: ncclRemoteError: A call failed possibly due to a network error or a remote process exiting "
     "prematurely.\n[rank3]: Last error:\n"
     "[rank3]: NET/OFI Request 0x7f14cc5b60c0 completed with error. RC: 113. Error: 2 (UNDELIVERABLE). Completed "
     "length: 0"),
    ("pytorch/pytorch#107021", "network_error", None,
     "[E socket.cpp:860] [c10d] The client socket has timed out after 60s while trying to connect to 192.0.0.1:1234\n"
     "torch.distributed.elastic.rendezvous.api.RendezvousConnectionError: The connection to the C10d store has "
     "failed. See inner exception for details."),
    ("pytorch/pytorch#69197", "network_error", None,
     "Traceback (most recent call last):\n"
     '  File "/home/ubuntu/miniconda3/envs/py39/lib/python3.9/site-packages/torch/distributed/elastic/rendezvous/'
     'c10d_rendezvous_backend.py", line 155, in _create_tcp_store\n'
     "    store = TCPStore(\nRuntimeError: connect() timed out. Original timeout was 60000 ms."),
    ("skypilot-org/skypilot#4448", ("nic_misselection", "network_error"), None,
     "(head, rank=0, pid=5634) [nccl-e9ef-7d4f-0:3]:nccl-e9ef-7d4f-0:11172:11249 [3] misc/socket.cc:484 NCCL WARN "
     "socketStartConnect: Connect to fe80::20d:3aff:fef7:74b3%enP7906s1<51577> failed : Software caused connection "
     "abort\n(head, rank=0, pid=5634) [nccl-e9ef-7d4f-0:3]:nccl-e9ef-7d4f-0:11172:11249 [3] NCCL INFO "
     "misc/socket.cc:567 -> 2"),
    ("horovod/horovod#1442", "stuck_rank", [6],
     "[1,0]<stderr>:[2019-10-10 05:48:22.606998: W horovod/common/stall_inspector.cc:105] One or more tensors were "
     "submitted to be reduced, gathered or broadcasted by subset of ranks and are waiting for remaind\n"
     "er of ranks for more than 60 seconds. This may indicate that different ranks are trying to submit different "
     "tensors or that only subset of ranks is submitting tensors, which will cause deadlock.\n"
     "[1,0]<stderr>:Stalled ranks:\n"
     "[1,0]<stderr>:6: [horovod_allreduce.0, horovod_allreduce.1, horovod_allreduce.10 ...]"),
    ("horovod/horovod#215", "stuck_rank", [16],
     "WARNING: One or more tensors were submitted to be reduced, gathered or broadcasted by subset of ranks and are "
     "waiting for remainder of ranks for more than 60 seconds. This may indicate that different ranks are trying to "
     "submit different tensors or that only subset of ranks is submitting tensors, which will cause deadlock. Stalled "
     "ops: training/SGD/DistributedSGD_Allreduce/HorovodAllreduce_training_SGD_gradients_AddN_335_0 [ready ranks: 21, "
     "25, 26, 27, 28, 29, 4, 5, 6, 7, 9, 10, 11, 12, 13, 14, 1, 3, 0, 15, 17, 18, 20, 22, 23, 24, 31, 8, 19, 2, 30]"),
    ("ROCm/rocm-systems#3743", "oom", None,
     "/longer_pathname_so_that_rpms_can_support_packaging_the_debug_info_for_all_os_profiles/src/out/ubuntu-22.04/"
     "22.04/build/rccl/hipify/src/allocator.cc:92 NCCL WARN Cuda failure 'out of memory'"),
    ("pytorch/pytorch#76287", ("dropped_rank", "network_error"), None,
     "WARNING:torch.distributed.elastic.rendezvous.dynamic_rendezvous:The node 'jean-zay-iam37-ib0_187281_0' has "
     "failed to send a keep-alive heartbeat to the rendezvous 'none' due to an error of type "
     "RendezvousConnectionError."),
    ("pytorch/pytorch#150916", "dropped_rank", None,
     '  File "/home/ubuntu/prototype-venv/lib/python3.12/site-packages/torch/distributed/elastic/rendezvous/'
     'dynamic_rendezvous.py", line 676, in run\n    raise RendezvousClosedError\n'
     "torch.distributed.elastic.rendezvous.api.RendezvousClosedError\n\n"
     "W0409 07:28:49.530000 1359 torch/distributed/elastic/agent/server/api.py:719] Received 15 death signal, "
     "shutting down workers\n"
     "W0409 07:28:49.531000 1359 torch/distributed/elastic/multiprocessing/api.py:897] Sending process 1365 closing "
     "signal SIGTERM"),
    ("NVIDIA/nccl-tests#79", "version_mismatch", None,
     "           8             2   float     sumzlabs-trainer: Test CUDA failure common.cu:253 'no kernel image is "
     "available for execution on the device'\n .. zlabs-trainer: Test failure common.cu:283"),
    ("NVIDIA/nccl#1111", ("timeout_unknown", "stuck_rank"), None,
     "[E ProcessGroupNCCL.cpp:481] [Rank 65] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1559, "
     "OpType=_REDUCE_SCATTER_BASE, NumelIn=3121908768, NumelOut=32519883, Timeout(ms)=1800000) ran for 1800441 "
     "milliseconds before timing out.\n"
     "[E ProcessGroupNCCL.cpp:481] [Rank 64] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1559, "
     "OpType=_REDUCE_SCATTER_BASE, NumelIn=3121908768, NumelOut=32519883, Timeout(ms)=1800000) ran for 1800780 "
     "milliseconds before timing out."),
    ("NVIDIA/nccl-tests#119", ("none", "inconclusive"), None,
     "   133169160      33292290     float     sum      -1   2666.0   49.95   95.74      0   2660.4   50.06   95.94"
     "      0\n# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 84.8558"),
    ("NVIDIA/nccl#1419", "dropped_rank", [48],
     "[gpu-node09:332629:0:332629] Caught signal 11 (Segmentation fault: address not mapped to object at address "
     "0x10)\n--------------------------------------------------------------------------\n"
     "prterun noticed that process rank 48 with PID 613162 on node gpu-node07 exited on signal 11 (Segmentation "
     "fault)."),
    ("NVIDIA/nccl#1241", "unclassified_failure", None,
     "torch.distributedtorch.distributed.DistBackendError.: DistBackendErrorNCCL error in: /opt/pytorch/pytorch/torch/"
     "csrc/distributed/c10d/ProcessGroupNCCL.cpp:1287, invalid usage, NCCL version 2.17.1\n"
     "ncclInvalidUsage: This usually reflects invalid usage of NCCL library.\nLast error:\n"
     "Duplicate GPU detected : rank 3 and rank 2 both on CUDA device e2000"),
    ("ray-project/ray#47461", ("dropped_rank", "oom"), None,
     "(raylet) A worker died or was killed while executing a task by an unexpected system error. To troubleshoot the "
     "problem, check the logs for the dead worker. Worker PID: 89513 Worker exit type: SYSTEM_ERROR Worker exit "
     "detail: Worker unexpectedly exits with a connection error code 2. End of file.\n"
     "(TorchTrainer pid=89392) Worker 0 has failed."),
    ("mosaicml/diffusion#70", ("timeout_unknown", "collective_skipped", "stuck_rank"), None,
     "  | 2023-10-05T04:00:22.612-07:00 | [1]:[E ProcessGroupNCCL.cpp:828] [Rank 33] Watchdog caught collective "
     "operation timeout: WorkNCCL(SeqNum=4447361, OpType=ALLREDUCE, Timeout(ms)=1800000) ran for 1805498 milliseconds "
     "before timing out.\n"
     "  | 2023-10-05T04:00:22.628-07:00 | [7]:[E ProcessGroupNCCL.cpp:828] [Rank 39] Watchdog caught collective "
     "operation timeout: WorkNCCL(SeqNum=4447361, OpType=ALLREDUCE, Timeout(ms)=1800000) ran for 1805581 milliseconds "
     "before timing out."),
]


@pytest.mark.parametrize("issue,want,culprits,text", CASES, ids=[case[0] for case in CASES])
def test_each_case_of_the_set(issue, want, culprits, text, tmp_path):
    verdict = console_verdict(tmp_path, text, progress="")
    assert verdict.cls in ((want,) if isinstance(want, str) else want), verdict.summary
    if culprits is not None:
        assert verdict.culprit_ranks == culprits, verdict.summary


# ---- NCCL 2.3 - 2.9: a socket's recv()/write() failed, no peer printed
@pytest.mark.parametrize("line", [
    "gpu1:4021:4090 [0] include/socket.h:408 NCCL WARN Call to recv failed : Connection reset by peer",
    "gpu1:4021:4090 [0] include/socket.h:390 NCCL WARN Call to write failed : Broken pipe",
    "worker0:15:91 [3] include/socket.h 398 NCCL WARN Call to write failed : Connection timed out.",
])
def test_old_nccl_socket_io_failure_is_a_network_error(line, tmp_path):
    verdict = console_verdict(tmp_path, line)
    assert verdict.cls == "network_error", verdict.summary


def test_old_nccl_socket_io_failure_cut_after_its_decisive_words(tmp_path):
    verdict = console_verdict(tmp_path, "gpu1:4021:4090 [0] include/socket.h:408 NCCL WARN Call to recv failed : "
                              "Connection re", progress="")
    assert verdict.cls == "network_error", verdict.summary


@pytest.mark.parametrize("line", [
    "NCCL WARN Call to bind failed : Address already in use",
    "NCCL WARN Call to setsockopt failed : Invalid argument",
])
def test_the_same_macro_on_other_calls_is_no_socket_io_failure(line):
    assert not any(hit.message.id == "nccl.socket_io_failed_pre210" for hit in catalogue.match(line))


# ---- Horovod's stall report
HEAD = ("One or more tensors were submitted to be reduced, gathered or broadcasted by subset of ranks and are waiting "
        "for remainder of ranks for more than 60 seconds. This may indicate that different ranks are trying to submit "
        "different tensors or that only subset of ranks is submitting tensors, which will cause deadlock. ")


@pytest.mark.parametrize("ready,missing", [("0, 1, 3", [2]), ("3, 0, 1, 5, 4", [2]), ("2, 0", [1])])
def test_stalled_ops_ready_ranks_name_the_ranks_missing_below_the_highest(ready, missing, tmp_path):
    text = f"WARNING: {HEAD}Stalled ops: HorovodAllreduce_gradients_0 [ready ranks: {ready}]"
    verdict = console_verdict(tmp_path, text, progress="")
    assert verdict.cls == "stuck_rank", verdict.summary
    assert verdict.culprit_ranks == missing, verdict.summary


def test_ready_ranks_without_a_gap_name_no_rank(tmp_path):
    verdict = console_verdict(tmp_path, f"WARNING: {HEAD}Stalled ops: HorovodAllreduce_gradients_0 [ready ranks: 0, "
                              "1, 2]", progress="")
    assert verdict.culprit_ranks in ([], None), verdict.summary
    assert verdict.cls != "none"


def test_a_wrapped_stall_head_still_reaches_its_ranks(tmp_path):
    cut = len(HEAD) // 2
    text = ("[2020-07-14 10:00:00.000000: W horovod/common/stall_inspector.cc:105] " + HEAD[:cut] + "\n"
            + HEAD[cut:] + "\nStalled ranks:\n3: [horovod_allreduce.0, horovod_allreduce.1]")
    verdict = console_verdict(tmp_path, text, progress="")
    assert verdict.cls == "stuck_rank", verdict.summary
    assert verdict.culprit_ranks == [3], verdict.summary


def test_an_unrelated_line_after_the_head_ends_the_report(tmp_path):
    text = ("[2020-07-14 10:00:00.000000: W horovod/common/stall_inspector.cc:105] " + HEAD + "\nEpoch 3 done\n"
            "Stalled ranks:\n3: [horovod_allreduce.0]")
    verdict = console_verdict(tmp_path, text, progress="")
    assert verdict.culprit_ranks != [3], verdict.summary


# ---- an elastic agent stopped from outside
CLOSED = ("torch.distributed.elastic.rendezvous.api.RendezvousClosedError")
DEATH = ("W0409 07:28:49.530000 1359 torch/distributed/elastic/agent/server/api.py:719] Received 15 death signal, "
         "shutting down workers\nW0409 07:28:49.531000 1359 torch/distributed/elastic/multiprocessing/api.py:897] "
         "Sending process 1365 closing signal SIGTERM")


@pytest.mark.parametrize("text", [CLOSED + "\n" + DEATH, DEATH + "\n" + CLOSED,
                                  CLOSED + "\nWARNING:torch.distributed.elastic.agent.server.api:Received "
                                  "Signals.SIGTERM death signal, shutting down workers"])
def test_a_closed_rendezvous_after_an_agent_was_stopped_is_a_dropped_node(text, tmp_path):
    verdict = console_verdict(tmp_path, text)
    assert verdict.cls == "dropped_rank", verdict.summary
    assert "stopped from outside" in verdict.summary


@pytest.mark.parametrize("text", [DEATH, CLOSED])
def test_either_alone_is_no_dropped_node(text, tmp_path):
    verdict = console_verdict(tmp_path, text)
    assert "stopped from outside" not in verdict.summary


def test_a_worker_failure_beside_them_is_not_the_stopped_agent(tmp_path):
    text = CLOSED + "\n" + DEATH + "\n[rank2]: ValueError: bad batch"
    verdict = console_verdict(tmp_path, text, progress=PROGRESS)
    assert "stopped from outside" not in verdict.summary


# ---- a connect that failed to a peer's IPv6 link-local address
@pytest.mark.parametrize("line", [
    "node1:11172:11249 [3] misc/socket.cc:484 NCCL WARN socketStartConnect: Connect to "
    "fe80::20d:3aff:fef7:74b3%enP7906s1<51577> failed : Software caused connection abort",
    "node1:4021:4090 [0] misc/socket.cc:538 NCCL WARN Net : Connect to fe80::14ad:64ff:fe64:b31e%veth75fa783<43521> "
    "failed : Network is unreachable",
    "node1:4021:4090 [0] misc/socket.cc:622 NCCL WARN socketPollConnect: connect to fe80::1%eth1<40001> returned "
    "Connection refused, exceeded error retry count after 35 attempts",
])
def test_a_failed_connect_to_a_link_local_address_is_a_nic_misselection(line, tmp_path):
    verdict = console_verdict(tmp_path, line)
    assert verdict.cls == "nic_misselection", verdict.summary
    assert "link-local" in verdict.summary


@pytest.mark.parametrize("line", [
    "node1:4021:4090 [0] misc/socket.cc:538 NCCL WARN socketStartConnect: Connect to 2001:db8::7<43521> failed : "
    "Connection refused",
    "node1:4021:4090 [0] misc/socket.cc:49 NCCL WARN socketProgress: Connection closed by remote peer "
    "fe80::966d:ae03:8b:df78%ib0<53249>",
])
def test_a_routable_peer_or_a_closed_link_local_connection_stays_a_network_error(line, tmp_path):
    verdict = console_verdict(tmp_path, line)
    assert verdict.cls == "network_error", verdict.summary
