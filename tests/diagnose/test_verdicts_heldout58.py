"""Held-out set 58: pastes away from the torchrun/DeepSpeed launcher mix: JAX/XLA multi-host coordination-service
errors (a task's missed heartbeats, a registration that never completed, a key another task never published), NCCL
INFO-only error traces, CUDA and /dev/shm failures inside NCCL's init, watchdog and flight-recorder dump lines of
torch 2.2 - 2.6 (some wrapped by the console), Horovod under Open MPI, a Ray-wrapped vLLM init. One verdict test per
case, then what the set showed:

- XLA's coordination service (JAX's `jax.distributed`, TensorFlow's multi-worker runtime) printed nothing ncclf knew:
  five consoles read inconclusive. Its messages are catalogue entries now (stack.py `xla.coord_*`, read in
  tensorflow/core and tensorflow/tsl distributed_runtime/coordination/ 2022 - 2023, openxla/xla
  xla/tsl/distributed_runtime/coordination/ and xla/pjrt/distributed/client.{cc,h} 2024 - 2026): a task's heartbeat
  timeout and the 2025+ `tasks are unhealthy` list (a task died), the registration barrier's failure (tasks never
  joined), a barrier or `GetKeyValue()` that timed out (a task did not arrive), the client's `Terminating process`
  (another task's death), and the agent's error status as the frame of those (alone, a DEADLINE_EXCEEDED is a wait
  that ran out).
- An NCCL WARN that the NCCL parser held until its process's rank was known took only the catalogue entry's meaning
  from the catalogue's event, not its fields (sources/messages.py `_adopt`): `Error while attaching to shared memory
  segment ... error: No such file or directory (2)` lost its errno and read as a full /dev/shm (oom). The fields
  the parser left unset are adopted now, as `annotate` does for a line's own event.
- NCCL 2.22+ prints the errno of a failed /dev/shm segment (misc/shmutils.cc; os/linux.cc 2.30+): ENOENT, a segment
  to attach to that is not there (the node's processes do not share one /dev/shm, or something removed it), is no
  memory that ran out, as an access refusal is not: M301 leaves both to X901.
"""
from __future__ import annotations

import pytest

from nccl_forensics.sources.catalogue import match

from .consoles import check_case, console_verdict

_TASK37 = ("2022-11-15 16:03:15.140058: E external/org_tensorflow/tensorflow/core/distributed_runtime/coordination/"
           "coordination_service.cc:954] /job:jax_worker/replica:0/task:37 has been set to ERROR in coordination "
           "service: UNAVAILABLE: Task /job:jax_worker/replica:0/task:37 heartbeat timeout. This indicates that the "
           "remote task has failed, got preempted, or crashed unexpectedly. "
           "[type.googleapis.com/tensorflow.CoordinationServiceError='']\n")
_DUMP = ("[rank{r}]:[E430 05:09:4{s}.083703086 ProcessGroupNCCL.cpp:1743] [PG ID 0 PG GUID 0(default_pg) Rank {r}] "
         "Received a dump signal due to a collective timeout from this local \nrank and we will try our best to dump "
         "the debug info. Last enqueued NCCL work: 9387, last completed NCCL work: 9386.This is most likely caused "
         "by incorrect usages of \ncollectives, e.g., wrong sizes used across ranks.\n")
_SEQ1 = ("[rank{r}]:[E1001 16:06:04.537131842 ProcessGroupNCCL.cpp:607] [Rank {r}] Watchdog caught collective "
         "operation timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE, NumelIn=128, NumelOut=128, Timeout(ms)=600000) ran "
         "for 600009 milliseconds before timing out.\n"
         "[rank{r}]:[E1001 16:06:04.537356909 ProcessGroupNCCL.cpp:1664] [PG 0 (default_pg) Rank {r}] Exception "
         "(either an error or timeout) detected by watchdog at work: 1, last enqueued NCCL work: 1, last completed "
         "NCCL work: -1.\n")

CASES = [
    ("google/paxml#77", ("network_error", "dropped_rank", "timeout_unknown"), None,
     "> > Additional GRPC error information from remote target unknown_target_for_coordination_leader while calling "
     "/tensorflow.CoordinationService/RegisterTask:\n"
     "> 2024-04-12 23:39:41.656900: E external/xla/xla/pjrt/distributed/client.cc:96] Coordination service agent in "
     "error status: DEADLINE_EXCEEDED: Deadline Exceeded\n"),
    ("AI-Hypercomputer/gpu-recipes#2", ("dropped_rank", "timeout_unknown"), None,
     "Stopping coordination service as cluster registration failed. This may be due to 1) some tasks crashed earlier "
     "before connecting, 2) some tasks were never scheduled, or 3) scheduling delays. Consider setting a longer "
     "initialization timeout if such delays are expected, the timeout is currently set to: 1h.\n\n"
     "Original error: DEADLINE_EXCEEDED: Barrier timed out. Id: [Init]Wait_for_all_tasks_to_register::0. This usually "
     "happens because a task triggered the barrier too early or too slowly.\n"),
    ("EleutherAI/architecture-objective#26", ("dropped_rank", "timeout_unknown"), None,
     "I1115 16:00:39.451247 140641718562816 trainer.py:501] Training: step 198\n" + _TASK37),
    ("EnzymeAD/Enzyme-JAX#623", ("timeout_unknown", "stuck_rank", "collective_skipped", "dropped_rank"), None,
     "E0000 00:00:1743713172.513857  698835 pjrt_stream_executor_client.cc:3072] Execution of replica 0 failed: "
     "DEADLINE_EXCEEDED: GetKeyValue() timed out with key: devices=[0,1,2,3]; stream=0; groups=[[0,1,2,3]]; "
     "root_device=0; num_local_participants=2 and duration: 10m "
     "[type.googleapis.com/tensorflow.CoordinationServiceError='']\n"),
    ("jax-ml/jax#23599", ("dropped_rank", "stuck_rank", "timeout_unknown"), None,
     "2024-10-09 15:47:38.568412: E external/xla/xla/tsl/distributed_runtime/coordination/coordination_service.cc:1170]"
     " /job:jax_worker/replica:0/task:0 has been set to ERROR in coordination service: UNAVAILABLE: Task "
     "/job:jax_worker/replica:0/task:0 heartbeat timeout. This indicates that the remote task has failed, got "
     "preempted, or crashed unexpectedly. Check the task logs for an earlier error to debug further.\n"),
    ("NVIDIA/nccl#1099", ("network_error", "unclassified_failure"), None,
     "nd20-01:191191:219889 [0] NCCL INFO misc/socket.cc:564 -> 2\n"
     "nd20-01:191191:219889 [0] NCCL INFO misc/socket.cc:615 -> 2\n"
     "nd20-01:191191:219889 [0] NCCL INFO bootstrap.cc:270 -> 2\n"
     "nd20-01:191191:219889 [0] NCCL INFO init.cc:1303 -> 2\n"
     "nd20-01:191191:219889 [0] NCCL INFO group.cc:64 -> 2 [Async thread]\n"
     "nd20-01:191191:191191 [0] NCCL INFO group.cc:422 -> 2\n"),
    ("meta-pytorch/torchtune#2556", ("unclassified_failure", "version_mismatch"), None,
     "2025-04-04T16:57:57.7153695Z [2025-04-04 16:57:39] ip-10-0-9-191:95209:95228 [0] init.cc:416 NCCL WARN Cuda "
     "failure 'operation not supported'\n"
     "2025-04-04T16:57:57.7153889Z ip-10-0-9-191:95209:95228 [0] NCCL INFO init.cc:1397 -> 1\n"
     "2025-04-04T16:57:57.7154148Z ip-10-0-9-191:95209:95228 [0] NCCL INFO group.cc:75 -> 1 [Async thread]\n"
     "2025-04-04T16:57:57.7154972Z ip-10-0-9-191:95210:95210 [1] NCCL INFO group.cc:422 -> 1\n"),
    ("zd11024/NaviLLM#34", ("timeout_unknown", "collective_skipped", "stuck_rank", "dropped_rank"), None,
     "[rank0]:[E ProcessGroupNCCL.cpp:537] Some NCCL operations have failed or timed out. Due to the asynchr\n"
     "onous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.\n"
     "[rank0]:[E ProcessGroupNCCL.cpp:1182] [Rank 0] NCCL watchdog thread terminated with exception: [Rank 0\n"
     "] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=ALLGATHER, NumelIn=1, NumelO\n"
     "ut=2, Timeout(ms)=600000) ran for 600168 milliseconds before timing out.\n"),
    ("vllm-project/vllm#8978", ("timeout_unknown", "stuck_rank", "collective_skipped"), None,
     "cuda0003:2949601:2949642 [0] NCCL INFO comm 0x55fb6f3ce680 rank 0 nranks 4 cudaDev 0 nvmlDev 2 busId 41000 "
     "commId 0x795520212f433144 - Init COMPLETE\n" + "".join(_SEQ1.format(r=r) for r in (2, 0, 1))),
    ("horovod/horovod#153", ("unclassified_failure", "dropped_rank"), None,
     "2018-01-25 08:26:42.262115: E tensorflow/stream_executor/cuda/cuda_driver.cc:1124] could not synchronize on "
     "CUDA stream: CUDA_ERROR_ILLEGAL_ADDRESS :: No stack trace available\n"
     "The call to cuMemcpyAsync failed. This is a unrecoverable error and will\ncause the program to abort.\n"
     "[note8:86717] *** Process received signal ***\n[note8:86717] Signal: Aborted (6)\n"),
    ("horovod/horovod#3752", ("unclassified_failure",), None,
     "[1,1]<stdout>:slave1:126624:126758 [1] misc/argcheck.cc:39 NCCL WARN Broadcast : invalid root 0 (root should "
     "be in the 0..-1 range)\n"
     "[1,1]<stdout>:slave1:126624:126758 [1] NCCL INFO enqueue.cc:1450 -> 4\n"
     "[1,1]<stdout>:slave1:126624:126758 [1] NCCL INFO comm 0x7f7258228580 rank -1 nranks -1 cudaDev -1 busId "
     "ffffffffffffffff - Abort COMPLETE\n"),
    ("NVIDIA/nccl#1589", ("unclassified_failure", "version_mismatch"), None,
     "g148:14937:69361 [0] NCCL INFO Channel 00/1 : 0[0] -> 7[7] via P2P/CUMEM\n\n"
     "g148:14937:69361 [0] misc/shmutils.cc:93 NCCL WARN Call to open failed: No such file or directory\n\n"
     "g148:14937:69361 [0] misc/shmutils.cc:129 NCCL WARN Error while attaching to shared memory segment "
     "/dev/shm/nccl-glnlGK (size 14156128), error: No such file or directory (2)\n"),
    ("NVIDIA/nccl#328", ("unclassified_failure",), None,
     "node08:27106:27302 [0] include/shm.h:27 NCCL WARN Call to shm_open failed : Permission denied\n"
     "node08:27106:27302 [0] NCCL INFO include/shm.h:41 -> 2\n"
     "node08:27106:27302 [0] include/shm.h:48 NCCL WARN Error while creating shared memory segment "
     "nccl-shm-recv-b7948f403864987a-0-3-0 (size 4460544)\n"),
    ("vllm-project/vllm#798", ("network_error", "unclassified_failure"), None,
     "(LLMEngine pid=2347640, ip=10.58.226.15) ncclInternalError: Internal check failed.\n"
     "(LLMEngine pid=2347640, ip=10.58.226.15) Last error:\n"
     "(LLMEngine pid=2347640, ip=10.58.226.15) Proxy Call to rank 7 failed (Connect)\n"
     "(LLMEngine pid=2347640, ip=10.58.226.15) Unhandled error (suppress with 'RAY_IGNORE_UNHANDLED_ERRORS=1'): "
     "ray::RayWorker.execute_method() (pid=1985577, ip=10.58.226.18, actor_id=47db108bd468171ee4e6e31a10000000)\n"),
    ("vllm-project/vllm-omni#2928", ("timeout_unknown", "stuck_rank", "collective_skipped"), None,
     "[rank1]:[E418 01:32:50.907313453 ProcessGroupNCCL.cpp:1890] [PG ID 0 PG GUID 0(default_pg) Rank 1] Received a "
     "dump signal due to a collective timeout from this local rank and we will try our best to dump the debug info. "
     "Last enqueued NCCL work: 233659, last completed NCCL work: 233659.\n"
     "[rank0]:[E418 01:32:50.907342463 ProcessGroupNCCL.cpp:1890] [PG ID 0 PG GUID 0(default_pg) Rank 0] Received a "
     "dump signal due to a collective timeout from  rank 1 and we will try our best to dump the debug info. Last "
     "enqueued NCCL work: 233659, last completed NCCL work: 233659.\n"),
    ("meta-pytorch/torchtune#2651", ("timeout_unknown", "stuck_rank", "collective_skipped"), None,
     "[rank1]:[E430 05:09:48.046336354 ProcessGroupNCCL.cpp:1533] [PG ID 0 PG GUID 0(default_pg) Rank 1] "
     "ProcessGroupNCCL preparing to dump debug info. Include stack trace:\n 1\n"
     + _DUMP.format(r=7, s=8) + _DUMP.format(r=6, s=9)),
]


@pytest.mark.parametrize("issue,want,culprits,text", CASES, ids=[case[0] for case in CASES])
def test_each_case_of_the_set(issue, want, culprits, text, tmp_path):
    check_case(tmp_path, (text, want, culprits), progress="")


@pytest.mark.parametrize("line,entry,fields", [
    # TF 2.8 - 2.12 and XLA 2024+ print the same words for a task whose heartbeats stopped
    (_TASK37, "xla.coord_heartbeat_timeout", {"task_id": "37"}),
    ("absl::Status: UNAVAILABLE: The following tasks are unhealthy (stopped sending heartbeats):",
     "xla.coord_tasks_unhealthy", {}),
    ("DEADLINE_EXCEEDED: Barrier timed out. Barrier_id: PjRT_Client_Connect", "xla.coord_barrier_timeout",
     {"barrier": "PjRT_Client_Connect"}),
    ("DEADLINE_EXCEEDED: Barrier timed out. Id: 0_async_write_complete.0.1. This usually happens because a task "
     "triggered the barrier too early or too slowly. Please look at the task logs (both timed out and first task) to "
     "debug further. # of tasks that reached the barrier: 8/16.", "xla.coord_barrier_timeout",
     {"barrier": "0_async_write_complete.0.1", "arrived": "8", "expected": "16"}),
    ("INTERNAL: Getting local topologies failed: GetKeyValue() timed out with key: cuda:local_topology/cuda/1 and "
     "duration: 2m", "xla.coord_get_key_timeout", {"key": "cuda:local_topology/cuda/1", "duration": "2m"}),
    ("F0926 17:26:32.075587  157988 client.h:77] Terminating process because the JAX distributed service detected "
     "fatal errors. This most likely indicates that another task died", "xla.coord_terminating", {}),
    ("Terminating process because the coordinator detected missing heartbeats. This most likely indicates that "
     "another task died", "xla.coord_terminating", {}),
])
def test_the_coordination_service_lines_as_each_version_prints_them(line, entry, fields):
    hits = {h.message.id: h for h in match(line)}
    assert entry in hits, sorted(hits)
    for key, value in fields.items():
        assert hits[entry].fields.get(key) == value


@pytest.mark.parametrize("line", [
    "Worker heartbeat timeout: 30s",                           # not the service's task name
    "Barrier timed out after 10s waiting for peers",           # not the service's barrier error
    "GetKeyValue() returned key: devices=[0,1]",
    "Coordination service agent in error status: ok",
])
def test_near_misses_of_the_coordination_service(line):
    assert not [h for h in match(line) if h.message.id.startswith("xla.coord_")]


def test_the_registration_barrier_names_tasks_that_never_joined(tmp_path):
    """The barrier of the cluster's registration timing out: tasks that never registered (crashed before connecting
    or never scheduled), where another barrier's timeout is a task that did not arrive."""
    [hit] = [h for h in match("Barrier timed out. Id: [Init]Wait_for_all_tasks_to_register::0. This usually happens")
             if h.message.id == "xla.coord_barrier_timeout"]
    assert hit.fields.get("implies") == "dropped_rank"
    [other] = [h for h in match("Barrier timed out. Id: levanter_barrier_sync_3::0.")
               if h.message.id == "xla.coord_barrier_timeout"]
    assert "implies" not in other.fields


@pytest.mark.parametrize("errno,want", [
    ("No space left on device (28)", "oom"),
    ("Cannot allocate memory (12)", "oom"),
    ("No such file or directory (2)", "unclassified_failure"),
    ("Permission denied (13)", "unclassified_failure"),
])
def test_a_dev_shm_segment_is_oom_only_where_its_errno_says_no_room(errno, want, tmp_path):
    text = (f"node2:24881:25568 [2] misc/shmutils.cc:129 NCCL WARN Error while creating shared memory segment "
            f"/dev/shm/nccl-QkEMTp (size 9637888), error: {errno}\n"
            "node2:24881:25568 [2] NCCL INFO transport/shm.cc:114 -> 2\n")
    assert console_verdict(tmp_path, text, progress="").cls == want
