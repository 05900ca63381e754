"""Held-out set 61: real pastes of torch 2.3 - 2.6 heartbeat-monitor and watchdog lines (`[PG 0 (default_pg) Rank 3]`,
`[PG ID 0 PG GUID 0(default_pg) Rank 6]`), a Ray worker's first all-reduce that never completed, DeepSpeed ZeRO-3
timeouts, gloo CPU jobs whose peer closed the connection (send, broadcast, a one-line Ray driver error), Horovod's
stall inspector in both its formats, and NCCL's bootstrap losing a connection before its magic. One verdict test per
case, then what the set showed:

- Horovod's stall inspector runs on the coordinator's (rank 0's) background thread, apart from the framework thread
  that submits tensors; in the old format (`Stalled ops: name [ready ranks: 1]`, 0.9 - 0.13.5) a coordinator whose
  own training thread never submitted is absent from the ready ranks, so the report names its own reporter as
  missing. That rank is alive and stuck outside the collective (R202 `_named_by_own_report`); it read as a timeout
  of unknown cause before (torch's monitored barrier never names its reporter, so nothing read it).
"""
from __future__ import annotations

import pytest

from .consoles import PROGRESS, check_case, console_verdict

TIMEOUTS = ("timeout_unknown", "stuck_rank")
GLOO_PEER_GONE = ("dropped_rank", "network_error", "unclassified_failure")
_HEARTBEAT = ("ProcessGroupNCCL's watchdog got stuck for {s} seconds without making progress in monitoring enqueued "
              "collectives. This typically indicates a NCCL/CUDA API hang blocking the watchdog, and could be "
              "triggered by another thread holding the GIL inside a CUDA api, or other deadlock-prone behaviors.")
_STALL = ("One or more tensors were submitted to be reduced, gathered or broadcasted by subset of ranks and are "
          "waiting for remainder of ranks for more than 60 seconds. This may indicate that different ranks are trying "
          "to submit different tensors or that only subset of ranks is submitting tensors, which will cause deadlock.")

CASES = [
    ("facebookresearch/dinov2#447", TIMEOUTS, None,
     "[rank0]:[E ProcessGroupNCCL.cpp:1316] [PG 0 Rank 0] Heartbeat monitor timed out! Process will be terminated "
     "after dumping debug info. workMetaList_.size()=1\n"
     "[rank0]:[F ProcessGroupNCCL.cpp:1169] [PG 0 Rank 0] [PG 0 Rank 0] " + _HEARTBEAT.format(s=600) + "\n"
     "[rank1]:[E ProcessGroupNCCL.cpp:1316] [PG 0 Rank 1] Heartbeat monitor timed out! Process will be terminated "
     "after dumping debug info. workMetaList_.size()=1\n"),
    ("huggingface/transformers#30399", TIMEOUTS, None,
     "[3]:E0423 02:10:44.182842  8355 ProcessGroupNCCL.cpp:1329] [PG 0 (default_pg) Rank 3] Heartbeat monitor timed "
     "out! Process will be terminated after dumping debug info. workMetaList_.size()=0\n"
     "[3]:I0423 02:10:44.182879  8355 ProcessGroupNCCL.cpp:1333] Dumping c++ stacktraces: Stack trace for 186 "
     "thread(s) [10924 pt_main_thread, 10925 pt_main_thread]\n"),
    ("hiyouga/EasyR1#300", TIMEOUTS, None,
     "(WorkerDict pid=1008813) NCCL version 2.21.5+cuda12.4\n"
     "(WorkerDict pid=1009101) [rank4]:[E519 04:35:55.111951168 ProcessGroupNCCL.cpp:629] [Rank 4] Watchdog caught "
     "collective operation timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) "
     "ran for 600015 milliseconds before timing out.\n"
     "(WorkerDict pid=1009101) [rank4]:[E519 04:35:55.112571170 ProcessGroupNCCL.cpp:2168] [PG ID 0 PG GUID "
     "0(default_pg) Rank 4]  failure detected by watchdog at work sequence id: 1 PG status: last enqueued work: 1, "
     "last completed work: -1\n"),
    ("hiyouga/LlamaFactory#6964", TIMEOUTS, None,
     "[rank6]:[E217 00:13:05.609415848 ProcessGroupNCCL.cpp:1484] [PG ID 0 PG GUID 0(default_pg) Rank 6] "
     + _HEARTBEAT.format(s=480) + "\n"
     "[rank3]:[E217 00:14:54.880931348 ProcessGroupNCCL.cpp:1484] [PG ID 0 PG GUID 0(default_pg) Rank 3] "
     + _HEARTBEAT.format(s=480) + "\n"),
    ("deepspeedai/DeepSpeed#5394", TIMEOUTS, None,
     "{'eval_loss': 1.8737543821334839, 'eval_runtime': 14.4006, 'epoch': 0.02}\n"
     "  2%|▏         | 1/42 [02:52<1:48:00, 158.06s/i[rank0]:[E ProcessGroupNCCL.cpp:523] [Rank 0] Watchdog caught "
     "collective operation timeout: WorkNCCL(SeqNum=9314, OpType=_REDUCE_SCATTER_BASE, NumelIn=131072000, "
     "NumelOut=32768000, Timeout(ms)=600000) \n"),
    ("hkust-nlp/simpleRL-reason#17", GLOO_PEER_GONE, None,
     "  File \"/raid/llm/miniforge3/envs/r1/lib/python3.11/site-packages/ray/_private/auto_init_hook.py\", line 21, "
     "in auto_init_wrapper\n    return fn(*args, **kwargs)\n"
     "RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:534] Connection closed by peer "
     "[127.0.0.1]:38032\n"),
    ("CGCL-codes/pFedSD#3", GLOO_PEER_GONE, None,
     "  File \"/usr/local/lib/python3.10/dist-packages/torch/distributed/distributed_c10d.py\", line 1295, in send\n"
     "    default_pg.send([tensor], dst, tag).wait()\n"
     "RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:598] Connection closed by peer "
     "[172.28.0.12]:43185\n"),
    ("pantheon5100/pid_diffusion#2", GLOO_PEER_GONE, None,
     "    dist.broadcast(p, 0)\n"
     "  File \"/home/u/.conda/envs/pid/lib/python3.9/site-packages/torch/distributed/distributed_c10d.py\", line "
     "1408, in broadcast\n    work.wait()\n"
     "RuntimeError: [/opt/conda/conda-bld/pytorch_1670525551200/work/third_party/gloo/gloo/transport/tcp/pair.cc:598] "
     "Connection closed by peer [10.0.1.17]:22780\n"),
    ("horovod/horovod#457", ("stuck_rank", "collective_skipped"), [815],
     f"WARNING: {_STALL}\nStalled ops:\n"
     "v0/tower_0/HorovodAllreduce_v0_tower_0_gradients_AddN_37_0 [missing ranks: 815]\n"
     "v0/tower_0/HorovodAllreduce_v0_tower_0_gradients_AddN_44_0 [missing ranks: 815]\n"),
    ("horovod/horovod#100", ("stuck_rank", "collective_skipped"), [0],
     f"{_STALL}\n\nStalled ops: \n"
     "model/model/DistributedAdamOptimizer_Allreduce/HorovodAllgather_model_model_gradients_concat_0 "
     "[ready ranks: 1], \n"
     "model/model/DistributedAdamOptimizer_Allreduce/HorovodAllreduce_model_model_gradients_AddN_58_0 "
     "[ready ranks: 1], \n"),
    ("NVIDIA/nccl#1612", ("network_error", "dropped_rank"), None,
     "[0] misc/socket.cc:71 NCCL WARN socketProgress: Connection closed by remote peer 10.10.1.3<36138>\n"
     "[0] NCCL INFO misc/socket.cc:80 -> 6\n[0] NCCL INFO misc/socket.cc:474 -> 6\n"
     "[0] NCCL INFO bootstrap.cc:701 -> 6\n[0] NCCL INFO init.cc:1402 -> 6\n"
     "[0] NCCL INFO group.cc:75 -> 6 [Async thread]\n[0] NCCL INFO group.cc:106 -> 6\n"),
]


@pytest.mark.parametrize("issue,want,culprits,text", CASES, ids=[case[0] for case in CASES])
def test_each_case_of_the_set(issue, want, culprits, text, tmp_path):
    check_case(tmp_path, (text, want, culprits), progress="")


def test_a_stall_report_naming_other_ranks_only_is_not_read_as_the_reporter_stuck(tmp_path):
    """The reporter's own stall finding needs the reporter among the missing: ready ranks 0 and 2 name rank 1."""
    text = f"{_STALL}\nStalled ops:\nHorovodAllreduce_grads_0 [ready ranks: 0, 2]\n"
    verdict = console_verdict(tmp_path, text, progress=PROGRESS)
    assert verdict.culprit_ranks == [1], verdict.summary
