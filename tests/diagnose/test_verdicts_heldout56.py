"""Held-out set 56: pastes of big jobs: sglang servers over 2-4 nodes (TP16/TP32), vLLM on Ray (TP8, a two-node
cluster), OpenRLHF and veRL on Ray, Megatron pipeline parallelism over two nodes, DeepSpeed ZeRO-3 MoE training, a
NeMo Megatron-Bridge LoRA run with TP8/EP8. One verdict test per case, then what the set showed:

- Ray's raylet reports a dead worker with its process id (`... Worker port: N Worker PID: N Worker exit type: ...`,
  src/ray/raylet/node_manager.cc, Ray 2.x); Ray's driver forwards that worker's own lines under `(Actor pid=N)`. Where
  that process had printed its own watchdog timeout (or `taking the entire process down`), the death is the
  watchdog's abort, no death of its own: the report, printed first, had made it dropped_rank (vLLM#1846, where the
  first allreduce never completed). catalogue ray.worker_died keeps the pid (`worker_pid`); the rule is
  diagnosis.rank_state.deaths_after_own_watchdog.
- A failed NCCL connect to an IPv4 link-local peer (169.254.0.0/16, RFC 3927: no router forwards it; Kubernetes'
  NodeLocal DNSCache dummy interface is 169.254.20.10) read as a plain network_error (veRL#726): N402 reads it as it
  read IPv6's fe80::/10, a peer that advertised an interface no other host reaches.
"""
from __future__ import annotations

import pytest

from nccl_forensics.sources.catalogue import match
from nccl_forensics.sources.lines import ray_prefix

from .consoles import PROGRESS, console_verdict

_SGL_PG2 = ("[rank16]:[E214 06:46:21.341483897 ProcessGroupNCCL.cpp:{line}] [PG ID 2 PG GUID 3 Rank 16] {what} at "
            "{where}: 9301, last enqueued NCCL work: 9301, last completed NCCL work: 9300.\n")
_VLLM_WORKER = "(VllmWorker rank={r} pid={pid}) ERROR 08-05 14:13:44 [multiproc_executor.py:487] "
_MOE = ("[E ProcessGroupNCCL.cpp:467] [Rank {r}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=202558, "
        "OpType=_ALLGATHER_BASE, NumelIn={n}, NumelOut={o}, Timeout(ms)=1800000) ran for 1800376 milliseconds before "
        "timing out.\n")
_RAY_DIED = ("2023-11-30 10:19:23,769 WARNING worker.py:2074 -- A worker died or was killed while executing a task by "
             "an unexpected system error. To troubleshoot the problem, check the logs for the dead worker. RayTask ID: "
             "ffffffffffffffffba61971047f999e0f9ceaab101000000 Worker ID: 0e4b1eeade4874f7080db5807059e066cc128f27de4d"
             "1404a6057750 Node ID: 9c6f827858d621904b3d1cfb06057c57480da46c3edab524030f1e58 Worker IP address: "
             "10.9.70.181 Worker port: 34011 Worker PID: {pid} Worker exit type: SYSTEM_ERROR Worker exit detail: "
             "Worker unexpectedly exits with a connection error code 2. End of file.\n")
_RAY_TIMEOUT = ("(RayWorker pid=1080651) [E ProcessGroupNCCL.cpp:474] [Rank 0] Watchdog caught collective operation "
                "timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=1800000) ran for "
                "1800305 milliseconds before timing out.\n"
                "(RayWorker pid=1080651) [E ProcessGroupNCCL.cpp:494] To avoid data inconsistency, we are taking the "
                "entire process down.\n")

CASES = [
    ("sgl-project/sglang#3572", ("timeout_unknown", "stuck_rank"),
     _SGL_PG2.format(line=1785, what="Exception (either an error or timeout) detected by watchdog", where="work")
     + _SGL_PG2.format(line=1834, what="Timeout", where="NCCL work")),
    ("sgl-project/sglang#3606", ("timeout_unknown",),
     "Process group watchdog thread terminated with exception: [Rank 1] Watchdog caught collective operation timeout: "
     "WorkNCCL(SeqNum=2, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600049 milliseconds "
     "before timing out.\n"),
    ("vllm-project/vllm#2734", ("timeout_unknown", "stuck_rank"),
     " [36m(RayWorkerVllm pid=5085) [0m [E ProcessGroupNCCL.cpp:475] [Rank 4] Watchdog caught collective operation "
     "timeout: WorkNCCL(SeqNum=20518, OpType=ALLREDUCE, NumelIn=106496, NumelOut=106496, Timeout(ms)=1800000) ran for "
     "1800270 milliseconds before timing out.\n"),
    ("OpenRLHF/OpenRLHF#335", ("network_error",),
     "(LLMRayActor pid=1112, ip=172.26.5.7) job-hvjmrsm8sqf4r2h5q2tl-worker-0:1112:13532 [0] ibvwrap.c:160 NCCL WARN "
     "Call to ibv_modify_qp failed with error Connection timed out\n"
     "(LLMRayActor pid=1112, ip=172.26.5.7) ERROR 06-30 06:10:12 worker_base.py:145] Error executing method "
     "update_weight. This might cause deadlock in distributed execution.\n"),
    ("gpustack/gpustack#2680", ("unclassified_failure", "network_error"),
     "".join(f"{_VLLM_WORKER.format(r=r, pid=pid)}RuntimeError: NCCL error: unhandled system error (run with "
             "NCCL_DEBUG=INFO for details)\n" for r, pid in ((3, 4665), (0, 4662)))),
    ("vllm-project/vllm#7699", ("unclassified_failure",),
     "  File \"/usr/local/lib/python3.10/dist-packages/vllm/distributed/device_communicators/pynccl_wrapper.py\", "
     "line 223, in NCCL_CHECK\n    raise RuntimeError(f\"NCCL error: {error_str}\")\n"
     "RuntimeError: NCCL error: invalid usage (run with NCCL_DEBUG=WARN for details)\n"),
    ("NVIDIA/Megatron-LM#1207", ("timeout_unknown",),
     "Watchdog caught collective operation timeout: WorkNCCL(SeqNum=5, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, "
     "Timeout(ms)=600000) ran for 600013 milliseconds before timing out.\n"),
    ("PKU-YuanGroup/MoE-LLaVA#20", ("shape_mismatch", "timeout_unknown"),
     "".join(_MOE.format(r=r, n=2359296, o=18874368) for r in (6, 1, 2)) + _MOE.format(r=0, n=75264, o=602112)),
    ("hiyouga/LlamaFactory#3237", ("timeout_unknown",),
     "RuntimeError: NCCL communicator was aborted on rank 7.  Original reason for failure was: [Rank 7] Watchdog "
     "caught collective operation timeout: WorkNCCL(SeqNum=323081, OpType=_ALLGATHER_BASE, Timeout(ms)=1800000) ran "
     "for 1800951 milliseconds before timing out.\n"),
    ("NVIDIA-NeMo/Megatron-Bridge#1376", ("timeout_unknown", "collective_skipped"),
     "torch.distributed.DistBackendError: [Rank X] Watchdog caught collective operation timeout: \n"
     "WorkNCCL(SeqNum=7, OpType=_ALLGATHER_BASE, NumelIn=XXXX, NumelOut=XXXX, Timeout(ms)=600000) \n"
     "ran for 600000 milliseconds before timing out.\n"),
    ("open-compass/VLMEvalKit#975", ("unclassified_failure",),
     "    attn_output = attn_output.reshape(bsz, q_len, self.hidden_size).contiguous()\n"
     "RuntimeError: shape '[1, 1416, 3584]' is invalid for input of size 1268736\n"
     "12f0e56ac84d:2338970:2338970 [0] NCCL INFO comm 0x563917771740 rank 1 nranks 4 cudaDev 0 busId 3b000 - Destroy "
     "COMPLETE\n"),
    ("vllm-project/vllm#5458", ("timeout_unknown", "network_error"),
     "[rank0]:[E ProcessGroupNCCL.cpp:563] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, "
     "OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600086 milliseconds before timing out.\n"
     "[rank0]:[E ProcessGroupNCCL.cpp:1537] [PG 0 Rank 0] Timeout at NCCL work: 1, last enqueued NCCL work: 1, last "
     "completed NCCL work: 0.\n"),
    ("vllm-project/vllm#1846", ("timeout_unknown",), _RAY_DIED.format(pid=1080651) + _RAY_TIMEOUT),
    ("pytorch/pytorch#81628", ("network_error",),
     "tf144:143468:143468 [1] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [1]mlx5_1:1/RoCE [2]i40iw0:1/RoCE ; OOB "
     "enp88s0:192.168.17.144<0>\n"
     "NCCL WARN NET/IB : Got completion from peer 192.168.17.147<38560> with error 12, opcode 0, len 0, vendor err "
     "129\n"),
    ("gpustack/gpustack#2275", ("nic_misselection", "network_error"),
     "gpu:77952:77952 [0] NCCL INFO Bootstrap : Using ens3:172.16.0.16<0>\n"
     "gpu:77952:77952 [0] misc/socket.cc:484 NCCL WARN socketStartConnect: Connect to 172.21.0.1<57093> failed : "
     "Software caused connection abort\n"),
    ("verl-project/verl#726", ("nic_misselection", "network_error"),
     "multi-node training nccl issue. socketStartConnect: Connect to 169.254.0.1<40815> failed : Software caused "
     "connection abort\n"
     "ray.exceptions.RayTaskError(DistBackendError): ray::WorkerDict.ref_init_model() (pid=312270, ip=172.19.230.131, "
     "actor_id=20b1dafb2d53ee1bcba9a56c05000000)\n"),
]


@pytest.mark.parametrize("issue,want,text", CASES, ids=[case[0] for case in CASES])
def test_each_case_of_the_set(issue, want, text, tmp_path):
    verdict = console_verdict(tmp_path, text, progress="")
    assert verdict.cls in want, verdict.summary


def test_rays_death_report_keeps_the_dead_workers_pid():
    (hit,) = match(_RAY_DIED.format(pid=1080651).strip())
    assert hit.message.id == "ray.worker_died"
    assert (hit.fields["worker_ip"], hit.fields["worker_pid"]) == ("10.9.70.181", "1080651")


@pytest.mark.parametrize("line,found", [
    ("(RayWorker pid=1080651) [E ProcessGroupNCCL.cpp:474] [Rank 0] Watchdog", (1080651, None)),
    ("(LLMRayActor pid=1112, ip=172.26.5.7) update weight: model.embed_tokens.weight", (1112, "172.26.5.7")),
    (" [36m(RayWorkerVllm pid=5085) [0m [E ProcessGroupNCCL.cpp:475] [Rank 4]", (5085, None)),
    ("ray::WorkerDict.ref_init_model() (pid=312270, ip=172.19.230.131)", None),
    ("[rank0]:[E ProcessGroupNCCL.cpp:563] [Rank 0] Watchdog caught", None),
])
def test_rays_log_prefix_names_the_workers_pid_and_node(line, found):
    assert ray_prefix(line) == found


def test_a_workers_death_after_its_own_watchdog_timeout_is_the_timeouts(tmp_path):
    verdict = console_verdict(tmp_path, _RAY_DIED.format(pid=1080651) + _RAY_TIMEOUT, PROGRESS)
    assert verdict.cls == "timeout_unknown", verdict.summary


def test_another_workers_death_beside_a_timeout_stays_a_death(tmp_path):
    verdict = console_verdict(tmp_path, _RAY_DIED.format(pid=2020202) + _RAY_TIMEOUT, PROGRESS)
    assert verdict.cls == "dropped_rank", verdict.summary


def test_the_same_pid_on_another_node_is_another_process(tmp_path):
    """pids are per node: a worker that timed out on one node is not the one the raylet of another saw die."""
    other_node = _RAY_TIMEOUT.replace("(RayWorker pid=1080651)", "(RayWorker pid=1080651, ip=10.9.70.99)")
    verdict = console_verdict(tmp_path, _RAY_DIED.format(pid=1080651) + other_node, PROGRESS)
    assert verdict.cls == "dropped_rank", verdict.summary


_CONNECT = ("h:1:1 [0] misc/socket.cc:484 NCCL WARN socketStartConnect: Connect to {peer}<40815> failed : Software "
            "caused connection abort\n")


def test_a_connect_to_an_ipv4_link_local_peer_is_a_misselected_interface(tmp_path):
    verdict = console_verdict(tmp_path, _CONNECT.format(peer="169.254.0.1"), PROGRESS)
    assert verdict.cls == "nic_misselection" and "IPv4 link-local" in verdict.summary, verdict.summary


@pytest.mark.parametrize("peer", ["10.0.0.82", "169.25.4.1", "172.21.0.1"])
def test_a_connect_to_a_routable_peer_stays_a_network_error(peer, tmp_path):
    assert console_verdict(tmp_path, _CONNECT.format(peer=peer), PROGRESS).cls == "network_error"
