"""Held-out set 26: console pastes from issues of projects mined little so far (litgpt, TransformerEngine, gpt-neox,
Pai-Megatron-Patch, trl, an unsloth fork, kubeflow, torchtune, verl, sglang, mosaicml, fairseq, DeepBench) and a few
of NVIDIA/nccl and pytorch; one verdict test per case with its decisive lines. 27 of 30 were read right at first
sight; what changed after:

- TransformerEngine#801: `UDS: Sending data over socket /tmp/nccl-socket-... failed : Connection refused (111)` read
  as nothing. The Unix-domain sockets that pass cuMem file descriptors between the processes of one node print it:
  NCCL 2.17+ (src/misc/ipcsocket.cc, `: <strerror> (<errno>)` from 2.19, src/os/linux_ipcsocket.cc in 2.30) and
  TransformerEngine's userbuffers copy (ipc_warn). Catalogue nccl.uds_failed: a failure with no class of its own
  (no network is involved).
- LlamaFactory#74 (torch < 2.2, no `[rankN]:` prefix): rank 1 timed out in ALLGATHER and rank 0 in BROADCAST at the
  same SeqNum=80, read as an unknown timeout because the watchdog lines had no rank. c10d's own tag names the rank
  inside the process group, the global rank in the default group (traceback.rank_in_message reads it so): a
  watchdog record with no prefix rank now takes it from a default-group tag, never from another group's.
- pytorch#170045 (truth widened, /tmp/heldout26/truth.tsv): NCCL's `Cuda failure 999 'unknown error'` is one of the
  texts the catalogue reads as ending the process's device work (cuda._FATAL), so the rank that printed it died.
"""
from __future__ import annotations

import pytest

from nccl_forensics.sources.catalogue import match

from .consoles import console_verdict

TIMEOUTS = {"timeout_unknown", "stuck_rank", "collective_skipped"}
NIC = {"network_error", "nic_misselection"}
TIMEOUT_TAIL = " ran for 1800013 milliseconds before timing out."

CASES = [
    # (issue, pasted excerpt, right classes, culprit ranks or None)
    ("litgpt#1832", "[rank2]:[E1119 13:21:12.525244336 ProcessGroupNCCL.cpp:616] [Rank 2] Watchdog caught collective "
     "operation timeout: WorkNCCL(SeqNum=1, OpType=BROADCAST, NumelIn=1, NumelOut=1, Timeout(ms)=1800000)"
     + TIMEOUT_TAIL + "\n[rank1]:[E1119 13:21:13.938073877 ProcessGroupNCCL.cpp:1785] [PG ID 0 PG GUID 0(default_pg) "
     "Rank 1] Exception (either an error or timeout) detected by watchdog at work: 1, last enqueued NCCL work: 1, "
     "last completed NCCL work: -1.", TIMEOUTS | {"network_error"}, None),
    ("llama-cookbook#567", "[rank2]:[E ProcessGroupNCCL.cpp:1537] [PG 0 Rank 2] Timeout at NCCL work: 1474236, last "
     "enqueued NCCL work: 1474236, last completed NCCL work: 1474235.", TIMEOUTS, None),
    ("TransformerEngine#994", "Failed, NCCL error TransformerEngine_official/transformer_engine/pytorch/csrc/"
     "userbuffers/userbuffers-host.cpp:223 ''", {"unclassified_failure"}, None),
    ("TransformerEngine#801", "UDS: Sending data over socket /tmp/nccl-socket-3-deadcafebeef failed : Connection "
     "refused (111)", {"unclassified_failure"}, None),
    ("gpt-neox#1147", "NCCL error in: ProcessGroupNCCL.cpp:1269, internal error, NCCL version 2.14.3\nnode2: Last "
     "error:\nnode2: Net : Call to recv from NODE2_IP<56843> failed : Connection refused", NIC, None),
    ("pytorch-lightning#14986", "hpc-25-14:18569:18835 [0] bootstrap.cc:131 NCCL WARN Bootstrap Root : rank 1 of 8 "
     "ranks has already checked in", {"unclassified_failure"}, None),
    ("mosaicml/diffusion#110", "> -:6015:6224 [1] misc/socket.cc:538 NCCL WARN Net : Connection closed by remote "
     "peer draw4<59227>\n>\n> -:6015:6224 [1] proxy.cc:884 NCCL WARN Proxy Call to rank 1 failed (Connect)",
     NIC | {"dropped_rank"}, None),
    ("sglang#3820", "NCCL WARN socketPollConnect: Connect to 10.0.0.4<56849> returned 113(No route to host) errno "
     "115(Operation now in progress)", NIC, None),
    ("verl#3873", "(WorkerDict pid=97397, ip=33.97.231.144) [rank3]:[E1023 02:44:30.941975491 ProcessGroupNCCL.cpp:632]"
     " [Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=26, OpType=ALLREDUCE, NumelIn=1, "
     "NumelOut=1, Timeout(ms)=1200000) ran for 1200007 milliseconds before timing out.\n(raylet) A worker died or was "
     "killed while executing a task by an unexpected system error.", TIMEOUTS | {"dropped_rank"}, None),
    ("simpleRL-reason#25", "(ActorModelRayActorBOX pid=12903) [rank1]:[E206 16:45:19.236012277 ProcessGroupNCCL.cpp:"
     "616] [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=5919, OpType=_ALLGATHER_BASE, "
     "NumelIn=272498688, NumelOut=544997376, Timeout(ms)=1800000)" + TIMEOUT_TAIL, TIMEOUTS, None),
    ("SQL-R1#18", "(WorkerDict pid=3944197) [rank2]:[E816 01:09:38.174648046 ProcessGroupNCCL.cpp:1515] [PG 0 "
     "(default_pg) Rank 2] Process group watchdog thread terminated with exception: [Rank 2] Watchdog caught "
     "collective operation timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) "
     "ran for 600034 milliseconds before timing out. [repeated 2x across cluster]", TIMEOUTS | {"network_error"}, None),
    ("JanusVLN#22", "[rank5]:[E1230 17:23:36.183261415 ProcessGroupNCCL.cpp:1595] [PG ID 0 PG GUID 0(default_pg) Rank "
     "5] Process group watchdog thread terminated with exception: [Rank 5] Watchdog caught collective operation "
     "timeout: WorkNCCL(SeqNum=18590, OpType=_ALLGATHER_BASE, NumelIn=4194304, NumelOut=33554432, "
     "Timeout(ms)=1800000)" + TIMEOUT_TAIL, TIMEOUTS, None),
    ("nnUNet#1516", "[rank1]:[E ProcessGroupNCCL.cpp:563] [Rank 1] Watchdog caught collective operation timeout: "
     "WorkNCCL(SeqNum=5, OpType=ALLGATHER, NumelIn=4, NumelOut=16, Timeout(ms)=600000) ran for 600081 milliseconds "
     "before timing out.", TIMEOUTS, None),
    ("unsloth-fork#6", "W0801 12:06:43.813000 18684 torch/distributed/elastic/multiprocessing/api.py:900] Sending "
     "process 18759 closing signal SIGTERM\nE0801 12:06:44.742000 18684 torch/distributed/elastic/multiprocessing/"
     "api.py:874] failed (exitcode: 1) local_rank: 0 (pid: 18758) of binary: /home/ubuntu/pythonn3.11/bin/python3",
     {"dropped_rank", "unclassified_failure"}, None),
    ("Pai-Megatron-Patch#612", "[2025-06-03 16:12:09] my_machine:1360625:1361883 [0] misc/ibvwrap.cc:291 NCCL WARN "
     "Call to ibv_modify_qp failed with 110 Connection timed out, on dev mlx5_bond_1:1, curr state INIT, next state "
     "RTR, local GID index 3, local GID ::ffff:172.168.20.71, remote GID ::ffff:172.16.20.65", NIC, None),
    ("trl#4737", "NCCL error: /pytorch/torch/csrc/distributed/c10d/NCCLUtils.hpp:268, NCCL version 2.22.3 "
     "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. Last "
     "error: ", NIC | {"unclassified_failure"}, None),
    ("LlamaFactory#2135", "RuntimeError: [3] is setting up NCCL communicator and retrieving ncclUniqueId from [0] via "
     "c10d key-value store by key '0', but store->get('0') got error: Connection reset by peer. This",
     {"dropped_rank", "network_error"}, None),
    ("pytorch-operator#125", "    store = TCPStore(master_addr, master_port, start_daemon)\nValueError: host not "
     "found: Name or service not known", {"network_error", "unclassified_failure"}, None),
    ("LlamaFactory#74", "[E ProcessGroupNCCL.cpp:828] [Rank 1] Watchdog caught collective operation timeout: "
     "WorkNCCL(SeqNum=80, OpType=ALLGATHER, Timeout(ms)=1800000) ran for 1805926 milliseconds before timing out.\n"
     "[E ProcessGroupNCCL.cpp:828] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=80, "
     "OpType=BROADCAST, Timeout(ms)=1800000) ran for 1805991 milliseconds before timing out.",
     {"op_mismatch", "collective_skipped"}, None),
    ("LlamaFactory#2902", "2%|▏ | 13/620 [01:07<50:20, 4.98s/it][rank0]:[E1123 00:52:57.664949121 ProcessGroupNCCL."
     "cpp:607] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1516, OpType=ALLREDUCE, "
     "NumelIn=25427968, NumelOut=25427968, Timeout(ms)=600000) ran for 600017 milliseconds before timing out. "
     "[rank1]:[E1123 00:52:57.704703955 ProcessGroupNCCL.cpp:607] [Rank 1] Watchdog caught collective operation "
     "timeout: WorkNCCL(SeqNum=1517, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(", TIMEOUTS | {"shape_mismatch"},
     None),
    ("kubeflow/website#4186", "[W822 03:54:49.636977195 TCPStore.cpp:125] [c10d] recvValue failed on SocketImpl(fd=15,"
     " addr=[job-node-0-1.svc.cluster.local]:60560, remote=[job-node-0-0.svc.cluster.local]:29500): failed to recv, "
     "got 0 bytes Exception raised from recvBytes at /pytorch/torch/csrc/distributed/c10d/Utils.hpp:678 (most recent "
     "call first):", {"network_error", "dropped_rank", "unclassified_failure"}, None),
    ("AI-MarioKart64#3", "[rank3]:[W625 23:35:35.311127584 ProcessGroupNCCL.cpp:1662] [PG ID 0 PG GUID 0(default_pg) "
     "Rank 3] Failed to check the \"should dump\" flag on TCPStore, (maybe TCPStore server has shut down too early), "
     "with error: failed to recv, got 0 bytes\n[rank2]:[W625 23:35:35.303797152 TCPStore.cpp:125] [c10d] recvValue "
     "failed on SocketImpl(fd=6, addr=[::ffff:127.0.0.1]:37468, remote=[::ffff:127.0.0.1]:6006): failed to recv, got "
     "0 bytes", {"dropped_rank", "unclassified_failure"}, None),
    ("nccl#799", "NCCL version 2.7.8+cuda10.2\n\nhost:76786:77145 [3] misc/ibvwrap.cc:284 NCCL WARN Call to "
     "ibv_modify_qp failed with error No such device\nhost:76786:77145 [3] NCCL INFO transport/net_ib.cc:395 -> 2",
     NIC, None),
    ("pytorch#47885", "frodo:33793:33885 [1] init.cc:573 NCCL WARN Duplicate GPU detected : rank 1 and rank 0 both on "
     "CUDA device 83000\n\nfrodo:33631:33884 [0] init.cc:573 NCCL WARN Duplicate GPU detect", {"unclassified_failure"},
     None),
    ("torchtune#2071", "[rank5]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.96 GiB. GPU 5 has a "
     "total capacity of 23.43 GiB of which 210.06 MiB is free.", {"oom"}, [5]),
    ("DeepBench#97", "terminate called after throwing an instance of 'std::runtime_error'\n  what():  NCCL failure: "
     "unhandled cuda error in nccl_mpi_all_reduce.cu at line: 86 rank: 0\n\n[jetson-3:29969] *** Process received "
     "signal ***\n[jetson-3:29969] Signal: Aborted (6)", {"unclassified_failure"}, None),
    ("fairseq#1482", "RuntimeError: NCCL error in: /pytorch/torch/lib/c10d/../c10d/NCCLUtils.hpp:48, invalid "
     "argument\n\nRuntimeError: NCCL error in: /pytorch/torch/lib/c10d/ProcessGroupNCCL.cpp:400, unhandled system "
     "error", {"unclassified_failure"}, None),
    ("pytorch#170045", "ncclUnhandledCudaError: Call to CUDA function failed. Last error: Cuda failure 999 'unknown "
     "error'", {"unclassified_failure", "dropped_rank"}, None),
    ("nccl#367", "\n".join(f"c6ad99331184:{pid}:{pid} [0] NCCL INFO Bootstrap : Using [0]eth0:172.17.0.2<0>"
                           for pid in (117277, 117298, 117312)) + "\nNCCL version 2.4.8+cuda10.0",
     NIC | {"timeout_unknown", "inconclusive"}, None),
    ("kubeflow/trainer#1532", ">>> Using nccl>>> Using nccl\n\nTrain Epoch: 1 [0/15018 (0%)]\tloss=7.0561\nTrain "
     "Epoch: 1 [2560/15018 (67%)]\tloss=3.2486\n\naccuracy=0.0000\n\ntime >>: 148.1217818260193",
     {"none", "inconclusive", "straggler"}, None),
]


@pytest.mark.parametrize("text,classes,culprits", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_held_out_case(text, classes, culprits, tmp_path):
    verdict = console_verdict(tmp_path, text)
    assert verdict.cls in classes, verdict.summary
    if culprits is not None:
        assert verdict.culprit_ranks == culprits, verdict.summary


@pytest.mark.parametrize("line,reason", [
    # NCCL 2.19+ (strerror and errno), 2.17-2.18 (errno only), TransformerEngine's ipc_warn, a receive without a name
    ("NCCL WARN UDS: Sending data over socket /tmp/nccl-socket-3-deadcafebeef failed : Connection refused (111)",
     "Connection refused"),
    ("NCCL WARN UDS: Sending data over socket /tmp/nccl-socket-3-abc failed : 111", None),
    ("UDS: Binding to socket /tmp/ub-ipc-socket-0-1f failed : Address already in use (98)", "Address already in use"),
    ("NCCL WARN UDS: Receiving data over socket failed : 11", None),
])
def test_unix_socket_failures_are_failures_of_no_class(line, reason):
    hits = [h for h in match(line) if h.message.id == "nccl.uds_failed"]
    assert len(hits) == 1
    assert hits[0].message.meaning == "failure" and hits[0].message.implies is None
    assert hits[0].fields.get("reason") == reason


def _watchdog(tag: str, seq: int, op: str) -> str:
    return (f"[E ProcessGroupNCCL.cpp:828] {tag} Watchdog caught collective operation timeout: WorkNCCL(SeqNum={seq}, "
            f"OpType={op}, Timeout(ms)=1800000) ran for 1805926 milliseconds before timing out.")


def test_a_default_group_tag_names_the_rank_of_an_unprefixed_watchdog_line(tmp_path):
    text = "\n".join([_watchdog("[PG ID 0 PG GUID 0(default_pg) Rank 1]", 7, "ALLGATHER"),
                      _watchdog("[PG ID 0 PG GUID 0(default_pg) Rank 0]", 7, "ALLREDUCE")])
    assert console_verdict(tmp_path, text).cls == "op_mismatch"


def test_another_groups_tag_names_no_global_rank(tmp_path):
    # `Rank N` of PG 3 is a rank inside that group: two lines of two groups are no mismatch of one group
    text = "\n".join([_watchdog("[PG 3 Rank 1]", 7, "ALLGATHER"), _watchdog("[PG 3 Rank 0]", 7, "ALLREDUCE")])
    assert console_verdict(tmp_path, text).cls in TIMEOUTS
