"""Held-out set 62: consoles from the issue threads of training frameworks (mmseg, verl, torchtune, CL-MVSNet, NeMo,
detectron2, OpenNMT, anemoi, DeepSpeed, Megatron-LM, accelerate, ultralytics, JAX's levanter, vllm-ascend) and of
torch's gloo. All but the Ascend one read right before this set's changes (some with a class less precise than
they could name); what the set showed:

- XLA's coordination service lists the tasks a timed-out barrier still waited for, one task name a line below its
  error (`Timed out task names:` to 2023, `Some timed out task names:` after `# of tasks that reached the barrier`
  and `The first task at the barrier` from 2024; openxla/xla xla/tsl/distributed_runtime/coordination/
  coordination_service.cc), or inside the escaped gRPC status on one line. Those tasks (JAX's process indices) are
  the ranks that never arrived: sources/messages.py puts them on the error's event (`ranks_at_fault`), and X801 names
  them, where it named no rank before.
- Gloo's connect to a peer at 127.0.1.1 (the hostname's loopback line in Debian's /etc/hosts, which torch's Gloo
  device binds and publishes when the hostname resolves to it) read as a plain network error; a loopback or
  link-local peer of a failed Gloo connect is an interface choice now (N402), as an NCCL connect's already was.
- An HCCL op that failed on Ascend NPUs (torch_npu's `OPS function error: HcclAllreduce, error code is 6`) read as
  the raising rank's own death, though CANN's message below it (EI0006: `Getting socket times out. Reason: Remote Rank
  did not send the data in time`) says it waited for a peer. torch_npu's lines under its error and CANN's messages
  are the exception's continuation now (grammars/traceback.lark), an exception whose continuation reports other
  ranks is a reporter's (sources/traceback.py), and EI0006 is a catalogue entry (stack.py `cann.hccl_socket_timeout`).
- rdma-core's mlx5 provider reports an error completion (`mlx5: <host>: got completion with error:`, then the CQE's
  words) that ncclf did not know: a catalogue entry (stack.py `rdma_core.mlx5_error_cqe`).
"""
from __future__ import annotations

import pytest

from nccl_forensics.sources.catalogue import match

from .consoles import check_case, console_verdict

_JAX_CONNECT = ("jaxlib.xla_extension.XlaRuntimeError: DEADLINE_EXCEEDED: Barrier timed out. Barrier_id: "
                "PjRT_Client_Connect. Timed out task names:\n"
                + "".join(f"/job:jax_worker/replica:0/task:{t}\n" for t in (1, 6, 3, 2, 5, 7, 4)) + "\n"
                "Additional GRPC error information from remote target unknown_target_for_coordination_leader while "
                "calling /tensorflow.CoordinationService/Barrier:\n")
_JAX_ESCAPED = (':{"created":"@1706211255.371885374","description":"Error received from peer ipv4:10.142.0.55:8476",'
                '"grpc_message":"Barrier timed out. Barrier_id: multihost_broadcast_sync0. Timed out task names:\\n'
                '/job:jax_worker/replica:0/task:3\\n/job:jax_worker/replica:0/task:0\\n","grpc_status":4}\n')

_HCCL = ("[rank1]:   File \"/usr/lib/python3.10/site-packages/torch/distributed/distributed_c10d.py\", line 2501, in "
         "all_reduce\n[rank1]:     work = group.allreduce([tensor], opts)\n"
         "[rank1]: RuntimeError: InnerRunOpApi:torch_npu/csrc/framework/OpParamMaker.cpp:281 OPS function error: "
         "HcclAllreduce, error code is 6\n"
         "[rank1]: [ERROR] 2025-04-08-18:07:20 (PID:1292363, Device:1, RankID:1) ERR01100 OPS call acl api failed.\n"
         "[rank1]: {code}: [PID: 1292363] 2025-04-08-18:07:20.444.436 {said}\n")

CASES = [
    ("open-mmlab/mmsegmentation#2137", ("stuck_rank", "collective_skipped", "timeout_unknown"), None,
     "[E ProcessGroupNCCL.cpp:719] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=7559, "
     "OpType=_ALLGATHER_BASE, Timeout(ms)=1800000) ran for 1806456 milliseconds before timing out.\n"
     "[E ProcessGroupNCCL.cpp:719] [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=7561, "
     "OpType=_ALLGATHER_BASE, Timeout(ms)=1800000) ran for 1806450 milliseconds before timing out.\n"),
    ("hkproj/pytorch-transformer-distributed#1", ("nic_misselection", "network_error"), None,
     "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1333, "
     "unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.18.6\n"
     "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. \n"
     "Last error:\nsocketStartConnect: Connect to 192.168.19.14<52822> failed : No route to host\n"),
    ("pytorch/examples#812", ("nic_misselection",), None,
     "RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:769] connect [127.0.1.1]:25472: "
     "Connection refused\n"),
    ("vllm-project/vllm-ascend#486", ("stuck_rank", "timeout_unknown"), [], _HCCL.format(
        code="EI0006", said="Getting socket times out. Reason: Remote Rank did not send the data in time. Please check "
        "the reason for the rank being stuck")),
    ("ayaka14732/llama-2-jax#20", ("stuck_rank",), [1, 2, 3, 4, 5, 6, 7], _JAX_CONNECT),
    ("marin-community/levanter#432", ("stuck_rank",), [0, 3],
     "jaxlib.xla_extension.XlaRuntimeError: DEADLINE_EXCEEDED: Barrier timed out. Barrier_id: "
     "multihost_broadcast_sync0. Timed out task names:\n/job:jax_worker/replica:0/task:3\n"
     "/job:jax_worker/replica:0/task:0\n\n" + _JAX_ESCAPED),
]


@pytest.mark.parametrize("issue,want,culprits,text", CASES, ids=[case[0] for case in CASES])
def test_each_case_of_the_set(issue, want, culprits, text, tmp_path):
    check_case(tmp_path, (text, want, culprits), progress="")


def test_the_2024_barrier_error_lists_its_missing_tasks_after_the_count_and_the_first_arrival(tmp_path):
    """XLA 2024+: the count and the first task at the barrier come between the error and its list; the first task
    arrived, so it is no culprit."""
    text = ("jaxlib.xla_extension.XlaRuntimeError: DEADLINE_EXCEEDED: Barrier timed out. Id: "
            "0_async_write_complete.0.1. This usually happens because a task triggered the barrier too early or too "
            "slowly. Please look at the task logs (both timed out and first task) to debug further.\n"
            "# of tasks that reached the barrier: 14/16.\n"
            "The first task at the barrier: /job:jax_worker/replica:0/task:13. Some timed out task names:\n"
            "/job:jax_worker/replica:0/task:6\n/job:jax_worker/replica:0/task:2\n\n\n"
            "RPC: /tensorflow.CoordinationService/Barrier [type.googleapis.com/tensorflow.CoordinationServiceError='']\n")
    verdict = console_verdict(tmp_path, text, progress="")
    assert (verdict.cls, verdict.culprit_ranks) == ("stuck_rank", [2, 6]), verdict.summary


def test_task_names_away_from_a_barrier_error_name_no_rank(tmp_path):
    """A task name on a line of its own that follows no barrier error (a heartbeat report's, a log's) blames no one;
    nor does one that follows the error after another line ended its list."""
    text = ("jaxlib.xla_extension.XlaRuntimeError: DEADLINE_EXCEEDED: Barrier timed out. Barrier_id: "
            "PjRT_Client_Connect. Timed out task names:\n/job:jax_worker/replica:0/task:1\n"
            "I1115 16:00:39.451247 140641718562816 trainer.py:501] Training: step 198\n"
            "/job:jax_worker/replica:0/task:5\n")
    verdict = console_verdict(tmp_path, text, progress="")
    assert verdict.culprit_ranks == [1], verdict.summary
    assert console_verdict(tmp_path, "/job:jax_worker/replica:0/task:5\n", progress="").culprit_ranks == []


@pytest.mark.parametrize("line", [
    "RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:799] connect [172.31.71.170]:13195: Connection "
    "refused",
    "RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:589] Read error [127.0.0.1]:5312: Connection reset "
    "by peer",
])
def test_a_gloo_error_with_a_routable_peer_or_no_connect_stays_a_network_error(line, tmp_path):
    """Only a failed connect to a loopback (or link-local) peer names the interface: a routable peer's refusal, or a
    loopback peer that reset an open connection (one host's job whose peer died), is the network's or the peer's."""
    verdict = console_verdict(tmp_path, line + "\n", progress="")
    assert verdict.cls == "network_error", verdict.summary


@pytest.mark.parametrize("line,host", [
    ("mlx5: gpu-node-12: got completion with error:", "gpu-node-12"),
    ("(RayWorkerWrapper pid=92234, ip=172.19.24.110) mlx5: host_unknown: got completion with error: [repeated 2x "
     "across cluster]", "host_unknown"),
])
def test_rdma_cores_mlx5_error_completion(line, host):
    [hit] = [h for h in match(line) if h.message.id == "rdma_core.mlx5_error_cqe"]
    assert hit.fields["host"] == host
    assert hit.message.implies == "network_error"


@pytest.mark.parametrize("line", [
    "NCCL WARN NET/IB : Got completion from peer 10.0.35.1<49189> with error 4, opcode 5327, len 5327, vendor err 81",
    "mlx5: gpu-node-12: freezing at poll cq...",
    "got completion with error: 0x5",
])
def test_near_misses_of_the_mlx5_error_completion(line):
    assert not [h for h in match(line) if h.message.id == "rdma_core.mlx5_error_cqe"]


def test_an_hccl_op_error_with_another_cann_message_stays_its_ranks_own(tmp_path):
    """Only CANN's account of a peer that never came (EI0006) makes the raising rank a reporter: an HCCL op that
    failed for a reason of its own (a parameter CANN rejected) is that rank's exception, as before."""
    text = _HCCL.format(code="EI0001", said="The environment variable check failed. Reason: invalid value")
    verdict = console_verdict(tmp_path, text, progress="")
    assert (verdict.cls, verdict.culprit_ranks) == ("dropped_rank", [1]), verdict.summary

