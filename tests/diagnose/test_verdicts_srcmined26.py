"""Verdicts on consoles written around messages read in the sources (catalogue round srcmined26): Ray core's
NodeDiedError (`the node dying`, later `(where this task was running)  was dead or unavailable`), ray.util.collective's
rendezvous store that rank 0 never created, Ray Train v2's report barrier naming the ranks that never called
`ray.train.report` (alive: stuck or late, not dead); the Kubeflow training-operator's ExitedWithCode event and its
restarting / failing conditions; the kubelet's local-storage evictions (emptyDir over its sizeLimit, ephemeral
storage); the Job controller's DeadlineExceeded and BackoffLimitExceeded.
"""
from __future__ import annotations

import pytest

from nccl_forensics.sources import catalogue

from .consoles import check_case, console_verdict

CASES = {
    'k8s_emptydir_shm_evicted': (
        'Name:             mixtral-sft-worker-3\n'
        'Namespace:        llm\n'
        'Priority:         0\n'
        'Node:             a100-node-07/10.12.4.27\n'
        'Start Time:       Tue, 14 May 2024 06:02:11 +0000\n'
        'Labels:           training.kubeflow.org/job-name=mixtral-sft\n'
        '                  training.kubeflow.org/replica-index=3\n'
        '                  training.kubeflow.org/replica-type=worker\n'
        'Status:           Failed\n'
        'Reason:           Evicted\n'
        'Message:          Usage of EmptyDir volume "dshm" exceeds the limit "16Gi". \n'
        'IP:               10.244.7.31\n'
        'Containers:\n'
        '  pytorch:\n'
        '    Image:          nvcr.io/nvidia/pytorch:24.03-py3\n'
        '    State:          Terminated\n'
        '      Reason:       Error\n'
        '      Exit Code:    137\n'
        '      Started:      Tue, 14 May 2024 06:02:40 +0000\n'
        '      Finished:     Tue, 14 May 2024 07:48:02 +0000\n'
        'Volumes:\n'
        '  dshm:\n'
        "    Type:       EmptyDir (a temporary directory that shares a pod's lifetime)\n"
        '    Medium:     Memory\n'
        '    SizeLimit:  16Gi\n'
        'Events:\n'
        '  Type     Reason     Age   From     Message\n'
        '  ----     ------     ----  ----     -------\n'
        '  Warning  Evicted    3m    kubelet  Usage of EmptyDir volume "dshm" exceeds the limit "16Gi".\n'
        '  Normal   Killing    3m    kubelet  Stopping container pytorch\n',
        ['dropped_rank', 'oom'], None),
    'k8s_ephemeral_storage_evicted': (
        'LAST SEEN   TYPE      REASON     OBJECT                        MESSAGE\n'
        '58m         Normal    Started    pod/gpt-neox-worker-0         Started container pytorch\n'
        '58m         Normal    Started    pod/gpt-neox-worker-1         Started container pytorch\n'
        '4m12s       Warning   Evicted    pod/gpt-neox-worker-1         Pod ephemeral local storage usage exceeds the total limit of containers 200Gi.\n'
        '4m12s       Normal    Killing    pod/gpt-neox-worker-1         Stopping container pytorch\n'
        '4m10s       Warning   Evicted    pod/gpt-neox-worker-0         Container pytorch exceeded its local ephemeral storage limit "200Gi".\n',
        ['dropped_rank'], None),
    'k8s_job_deadline_exceeded': (
        'Name:             ddp-indexed\n'
        'Namespace:        default\n'
        'Completion Mode:  Indexed\n'
        'Parallelism:      4\n'
        'Completions:      4\n'
        'Active Deadline Seconds:  7200s\n'
        'Pods Statuses:    0 Active (0 Ready) / 0 Succeeded / 4 Failed\n'
        'Conditions:\n'
        '  Type    Status  Reason            Message\n'
        '  ----    ------  ------            -------\n'
        '  Failed  True    DeadlineExceeded  Job was active longer than specified deadline\n'
        'Events:\n'
        '  Type     Reason            Age    From            Message\n'
        '  ----     ------            ----   ----            -------\n'
        '  Normal   SuccessfulCreate  2h1m   job-controller  Created pod: ddp-indexed-0-7xk2p\n'
        '  Normal   SuccessfulCreate  2h1m   job-controller  Created pod: ddp-indexed-1-qm9fd\n'
        '  Normal   SuccessfulDelete  58s    job-controller  Deleted pod: ddp-indexed-0-7xk2p\n'
        '  Normal   SuccessfulDelete  58s    job-controller  Deleted pod: ddp-indexed-1-qm9fd\n'
        '  Warning  DeadlineExceeded  58s    job-controller  Job was active longer than specified deadline\n',
        ['stuck_rank', 'timeout_unknown'], None),
    'k8s_pytorchjob_failing_exitcode_policy': (
        'LAST SEEN   TYPE      REASON                OBJECT                       MESSAGE\n'
        '12m         Normal    SuccessfulCreatePod   pytorchjob/bert-pretrain     Created pod: bert-pretrain-master-0\n'
        '12m         Normal    SuccessfulCreatePod   pytorchjob/bert-pretrain     Created pod: bert-pretrain-worker-0\n'
        '12m         Normal    Scheduled             pod/bert-pretrain-worker-0   Successfully assigned train/bert-pretrain-worker-0 to gpu-node-14\n'
        '12m         Normal    Pulled                pod/bert-pretrain-worker-0   Container image "registry.local/bert:2.3" already present on machine\n'
        '12m         Normal    Started               pod/bert-pretrain-worker-0   Started container pytorch\n'
        '41s         Normal    ExitedWithCode        pytorchjob/bert-pretrain     Pod: train.bert-pretrain-worker-0 exited with code 1\n'
        '41s         Warning   PyTorchJobFailed      pytorchjob/bert-pretrain     job "bert-pretrain" is failing because "Worker" replica(s) failed.\n',
        ['dropped_rank', 'unclassified_failure'], None),
    'k8s_pytorchjob_restarting_exit137': (
        'Name:         llama-ft\n'
        'Namespace:    research\n'
        'API Version:  kubeflow.org/v1\n'
        'Kind:         PyTorchJob\n'
        'Status:\n'
        '  Conditions:\n'
        '    Last Transition Time:  2024-11-03T02:10:44Z\n'
        '    Message:               PyTorchJob llama-ft is created.\n'
        '    Reason:                PyTorchJobCreated\n'
        '    Status:                True\n'
        '    Type:                  Created\n'
        '    Last Transition Time:  2024-11-03T02:12:09Z\n'
        '    Message:               PyTorchJob llama-ft is restarting because 1 Worker replica(s) failed.\n'
        '    Reason:                PyTorchJobRestarting\n'
        '    Status:                True\n'
        '    Type:                  Restarting\n'
        '  Replica Statuses:\n'
        '    Master:\n'
        '      Active:  1\n'
        '    Worker:\n'
        '      Active:  2\n'
        '      Failed:  1\n'
        'Events:\n'
        '  Type     Reason                    Age                From                   Message\n'
        '  ----     ------                    ----               ----                   -------\n'
        '  Normal   SuccessfulCreatePod       41m                pytorchjob-controller  Created pod: llama-ft-master-0\n'
        '  Normal   SuccessfulCreatePod       41m                pytorchjob-controller  Created pod: llama-ft-worker-0\n'
        '  Normal   SuccessfulCreatePod       41m                pytorchjob-controller  Created pod: llama-ft-worker-1\n'
        '  Normal   SuccessfulCreatePod       41m                pytorchjob-controller  Created pod: llama-ft-worker-2\n'
        '  Normal   ExitedWithCode            2m14s              pytorchjob-controller  Pod: research.llama-ft-worker-1 exited with code 137\n'
        '  Warning  PyTorchJobRestarting      2m14s              pytorchjob-controller  PyTorchJob llama-ft is restarting because 1 Worker replica(s) failed.\n',
        ['dropped_rank', 'oom'], None),
    'ray_collective_rendezvous': (
        '(LLMRayActor pid=23810, ip=10.2.0.7) INFO 03-02 11:20:14 worker.py:267] init weight update group: rank 1, world size 3\n'
        '(LLMRayActor pid=23811, ip=10.2.0.7) INFO 03-02 11:20:14 worker.py:267] init weight update group: rank 2, world size 3\n'
        '(LLMRayActor pid=23810, ip=10.2.0.7) Exception raised in creation task: The actor died because of an error raised in its creation task, ray::LLMRayActor.__init__() (pid=23810, ip=10.2.0.7, actor_id=3e91aa0c2d6f1b8e7a5c4d2001000000, repr=<openrlhf.trainer.ray.vllm_engine.LLMRayActor object at 0x7f2c5c1d0a90>)\n'
        '(LLMRayActor pid=23810, ip=10.2.0.7)   File "/usr/local/lib/python3.10/dist-packages/ray/util/collective/collective.py", line 435, in broadcast\n'
        '(LLMRayActor pid=23810, ip=10.2.0.7)     g.broadcast([tensor], opts)\n'
        '(LLMRayActor pid=23810, ip=10.2.0.7)   File "/usr/local/lib/python3.10/dist-packages/ray/util/collective/collective_group/nccl_collective_group.py", line 249, in broadcast\n'
        '(LLMRayActor pid=23810, ip=10.2.0.7)     self._collective(tensors, tensors, collective_fn)\n'
        '(LLMRayActor pid=23810, ip=10.2.0.7)   File "/usr/local/lib/python3.10/dist-packages/ray/util/collective/collective_group/nccl_collective_group.py", line 421, in _get_nccl_collective_communicator\n'
        '(LLMRayActor pid=23810, ip=10.2.0.7)     rendezvous.meet()\n'
        '(LLMRayActor pid=23810, ip=10.2.0.7)   File "/usr/local/lib/python3.10/dist-packages/ray/util/collective/collective_group/nccl_collective_group.py", line 69, in meet\n'
        '(LLMRayActor pid=23810, ip=10.2.0.7)     raise RuntimeError(\n'
        '(LLMRayActor pid=23810, ip=10.2.0.7) RuntimeError: Unable to meet other processes at the rendezvous store. If you are using P2P communication, please check if tensors are put in the correct GPU. \n',
        ['dropped_rank', 'stuck_rank'], None),
    'ray_node_died_task': (
        '(train_shard pid=5512, ip=10.4.1.9) [rank3]: step 1200 loss 0.8812\n'
        '(train_shard pid=5510, ip=10.4.1.8) [rank0]: step 1200 loss 0.8790\n'
        'Traceback (most recent call last):\n'
        '  File "/workspace/launch.py", line 142, in <module>\n'
        '    ray.get(futures)\n'
        '  File "/usr/local/lib/python3.11/site-packages/ray/_private/worker.py", line 2772, in get\n'
        '    values, debugger_breakpoint = worker.get_objects(object_refs, timeout=timeout)\n'
        '  File "/usr/local/lib/python3.11/site-packages/ray/_private/worker.py", line 921, in get_objects\n'
        '    raise value\n'
        'ray.exceptions.NodeDiedError: Task failed due to the node (where this task was running)  was dead or unavailable.\n'
        '\n'
        'The node IP: 10.4.1.9, node ID: 8f0d3c1b2a7e4f65d9c0b1a2e3f4a5b6c7d8e9f0a1b2c3d4e5f6a7b8\n'
        '\n'
        'This can happen if the instance where the node was running failed, the node was preempted, or raylet crashed unexpectedly (e.g., due to OOM) etc.\n'
        '\n'
        'To see node death information, use `ray list nodes --filter "node_id=8f0d3c1b2a7e4f65d9c0b1a2e3f4a5b6c7d8e9f0a1b2c3d4e5f6a7b8"`, or check Ray dashboard cluster page, or search the node ID in GCS log, or use `ray logs raylet.out -ip 10.4.1.9`\n',
        ['dropped_rank'], None),
    'ray_v2_report_barrier': (
        '(TrainController pid=9021) Started training worker group of size 4:\n'
        '(TrainController pid=9021) - (ip=10.1.0.21, pid=9187) world_rank=0, local_rank=0, node_rank=0\n'
        '(TrainController pid=9021) - (ip=10.1.0.21, pid=9188) world_rank=1, local_rank=1, node_rank=0\n'
        '(TrainController pid=9021) - (ip=10.1.0.21, pid=9189) world_rank=2, local_rank=2, node_rank=0\n'
        '(TrainController pid=9021) - (ip=10.1.0.21, pid=9190) world_rank=3, local_rank=3, node_rank=0\n'
        '(RayTrainWorker pid=9187) step 500 loss 1.0211\n'
        '(SynchronizationActor pid=9133) \n'
        '(SynchronizationActor pid=9133) `ray.train.report` has not been called by all 4 workers in the group.\n'
        '(SynchronizationActor pid=9133) \n'
        '(SynchronizationActor pid=9133) The workers have been waiting for 30.01 s for the following ranks\n'
        '(SynchronizationActor pid=9133) to join the `report` call: [2].\n'
        '(SynchronizationActor pid=9133) \n'
        '(SynchronizationActor pid=9133) Please ensure that all workers call `ray.train.report` regardless of whether\n'
        '(SynchronizationActor pid=9133) they participate in checkpointing or not (e.g., pass `checkpoint=None` for ranks\n'
        '(SynchronizationActor pid=9133) that do not save a checkpoint). Also ensure that workers are not hanging on\n'
        '(SynchronizationActor pid=9133) other operations, causing them to miss this synchronization barrier.\n'
        '(SynchronizationActor pid=9133) \n'
        '(SynchronizationActor pid=9133) You can set the RAY_TRAIN_REPORT_BARRIER_WARN_INTERVAL_S environment variable to change the frequency\n'
        '(SynchronizationActor pid=9133) of this warning (current value: 60 s).\n'
        'ray.train.WorkerGroupError: Training failed due to worker errors:\n'
        '[Rank 0,1,3 Error Snippet]:\n'
        'Traceback (most recent call last):\n'
        '  File "/home/ray/train.py", line 61, in train_func\n'
        '    ray.train.report(metrics, checkpoint=checkpoint)\n'
        '  File "/home/ray/anaconda3/lib/python3.11/site-packages/ray/train/v2/_internal/execution/train_fn_utils.py", line 41, in report\n'
        '    self.get_context().report(\n'
        'ray.train.v2._internal.exceptions.BroadcastCollectiveTimeoutError: The broadcast operation timed out after 1800.02 seconds. Please make sure all worker ranks call `ray.train.report`. \n'
        'The following ranks have not called it: [2]\n'
        'You can set this timeout with the RAY_TRAIN_REPORT_BARRIER_TIMEOUT_S environment variable (current value: 1800.00 s).\n',
        ['stuck_rank'], [2]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_verdict(name, tmp_path):
    check_case(tmp_path, CASES[name])


@pytest.mark.parametrize("text, entry", [
    ("Pod: research.llama-ft-worker-1 exited with code 137", "kubeflow.pod_exited"),
    ("TFJob mnist is restarting because Worker replica(s) failed.", "kubeflow.replica_restarting"),
    ("job mnist is restarting because Worker replica(s) failed.", "kubeflow.replica_restarting"),
    ('job "bert" is failing because "Worker" replica(s) failed.', "kubeflow.replica_restarting"),
    ("Warning  Evicted  kubelet  The node had condition: [DiskPressure]. ", "k8s.evicted_local_storage"),
    ("ray.exceptions.NodeDiedError: Task failed due to the node dying.", "ray.node_died_task"),
    ("RuntimeError: Unable to get the NCCLUniqueID from the store.", "ray.collective_rendezvous"),
    ("(SynchronizationActor pid=9133) to join the `report` call: [1, 3].", "ray.train_report_barrier"),
])
def test_each_wording_is_read(text, entry):
    assert entry in {hit.message.id for hit in catalogue.match(text)}


@pytest.mark.parametrize("text", [
    "Pod: research.llama-ft-master-0 exited with code 0",          # a replica that completed
    "The following ranks have not called it: []",                   # nobody missing
    "Job completed successfully",
])
def test_near_misses_are_not_read(text):
    ids = {hit.message.id for hit in catalogue.match(text)}
    assert not ids & {"kubeflow.pod_exited", "ray.train_report_barrier", "k8s.job_backoff_limit"}, ids


def test_the_ranks_that_raised_the_barrier_timeout_are_not_dead(tmp_path):
    # the snippet's ranks waited in the barrier; the rank it names as missing is the culprit, alive (stuck or late)
    text = ("ray.train.WorkerGroupError: Training failed due to worker errors:\n"
            "[Rank 0,2 Error Snippet]:\n"
            "ray.train.v2._internal.exceptions.BroadcastCollectiveTimeoutError: The broadcast operation timed out "
            "after 1800.01 seconds. Please make sure all worker ranks call `ray.train.report`. \n"
            "The following ranks have not called it: [1]\n")
    verdict = console_verdict(tmp_path, text)
    assert verdict.cls == "stuck_rank" and verdict.culprit_ranks == [1], verdict.summary


def test_another_snippets_error_still_reports_a_death(tmp_path):
    # a snippet whose error is not the barrier's (a worker's health check failed) keeps its death
    text = ("ray.train.WorkerGroupError: Training failed due to worker errors:\n"
            "[Rank 3 Error Snippet]:\n"
            "A worker health check failed.\n")
    verdict = console_verdict(tmp_path, text)
    assert verdict.cls == "dropped_rank" and verdict.culprit_ranks == [3], verdict.summary
