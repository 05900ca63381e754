"""Verdicts on launcher, scheduler, runtime and kernel messages mined from their sources (issue 25, round
srcmined_launch3): torch elastic's rendezvous, Slurm's slurmstepd and PMIx plugin, Ray's GCS/raylet, submitit,
Lightning, Kubeflow and the kubelet, SkyPilot, PRRTE, DeepSpeed/pdsh, and the kernel's watchdogs, mlx5, the network
stack and PCIe AER, each in the wordings of the versions that print it, as a console would show it.
"""
from __future__ import annotations

import pytest

from .consoles import PROGRESS, console_verdict

_RAY_ID = "9426f44574cce4866be798cfed308f2d3e21ba69487d422872cdd6e3"


# ---- a node (or its agent, its raylet) that the runtime saw go: the ranks on it are gone
@pytest.mark.parametrize("text", [
    # torch elastic's rendezvous sanitizer (1.9+, DEBUG): a node whose keep-alives stopped
    "[DEBUG] 2024-07-06 18:51:37,303 dynamic_rendezvous: As part of the sync operation the node(s) 'gpu-node-2_28672_0' "
    "have been removed from the rendezvous 'job11' since they had no heartbeat.",
    # Ray's GCS: 0.8, 1.0 - 1.12 (`and ip:`), 1.13+ (`and address: ... and node name:`)
    f"2020-04-02 09:12:44,021\tWARNING worker.py:1072 -- The node with node id {_RAY_ID} has been marked dead because "
    "the detector has missed too many heartbeats from it.",
    f"2021-06-10 14:01:22,410 WARNING worker.py:1115 -- The node with node id: {_RAY_ID} and ip: 10.0.3.21 has been "
    "marked dead because the detector has missed too many heartbeats from it. This can happen when a raylet crashes "
    "unexpectedly or has lagging heartbeats.",
    f"2023-03-03 05:15:30,774 WARNING worker.py:1866 -- The node with node id: {_RAY_ID} and address: 10.130.0.113 and "
    "node name: 10.130.0.113 has been marked dead because the detector has missed too many heartbeats from it. This "
    "can happen when a       (1) raylet crashes unexpectedly (OOM, preempted node, etc.)",
    # Ray 2.9+: the actor's death cause NODE_DIED; the raylet itself gone
    "The actor died because its node has died. Node Id: 0b6abfec3ad8acdb94e5c2968c71a4c4582b2f43f3d72a9a74a04f85\n"
    "\tthe actor's node was terminated unexpectedly: health check failed due to missing too many heartbeats",
    "(raylet) Raylet is terminated. Termination is unexpected. Possible reasons include: (1) SIGKILL by the user or "
    "system OOM killer, (2) Invalid memory access from Raylet causing SIGSEGV or SIGBUS, (3) Other termination signals.",
    # Slurm took a node away: it failed, or a job of higher priority got it (req.c SIG_NODE_FAIL / SIG_PREEMPTED)
    "slurmstepd: error: *** JOB 88123 ON gpu-12 CANCELLED AT 2024-09-14T03:12:55 DUE TO NODE FAILURE, SEE SLURMCTLD "
    "LOG FOR DETAILS ***",
    "slurmstepd: error: *** STEP 5512.0 ON node-a17 CANCELLED AT 2025-02-11T06:40:03 DUE TO PREEMPTION ***",
    # submitit's warning-signal handler, when the run is short of its time limit
    "submitit INFO (2024-03-05 07:01:51,311) - Job has not timed out. Ran 12 minutes out of requested 240 minutes.\n"
    "submitit WARNING (2024-03-05 07:01:51,311) - Caught signal SIGUSR2 on gpu-031: this job is preempted.",
    # Kubeflow's training-operator, the replica past its restart policy
    "  Normal   PyTorchJobFailed   2m    pytorchjob-controller  PyTorchJob default/bert-ddp is failed because 1 Worker "
    "replica(s) failed.",
    # PCIe AER, fatal, on the NVIDIA device
    "[120311.440291] pcieport 0000:3a:00.0: AER: Uncorrected (Fatal) error received: 0000:3b:00.0\n"
    "[120311.440310] nvidia 0000:3b:00.0: PCIe Bus Error: severity=Uncorrected (Fatal), type=Inaccessible, "
    "(Unregistered Agent ID)",
])
def test_a_lost_node_is_a_dropped_rank(tmp_path, text):
    verdict = console_verdict(tmp_path, text)
    assert verdict.cls == "dropped_rank", verdict.summary


# ---- a wait that ran out: the scheduler's time limit as submitit sees it, ray.get's timeout, a PMIx fence
@pytest.mark.parametrize("text", [
    "submitit WARNING (2024-03-05 07:01:51,310) - Bypassing signal SIGTERM\n"
    "submitit INFO (2024-03-05 07:01:51,311) - Job has timed out. Ran 239 minutes out of requested 240 minutes.\n"
    "submitit WARNING (2024-03-05 07:01:51,311) - Caught signal SIGUSR2 on gpu-031: this job is timed-out.",
    "submitit.core.utils.UncompletedJobError: Job not requeued because: timed-out and not checkpointable.",
    "slurmstepd: *** JOB 4242 CANCELLED AT 2016-03-28T02:04:23 DUE TO TIME LIMIT on node12 ***",
    "Traceback (most recent call last):\n  File \"launch.py\", line 54, in <module>\n"
    "    ray.get(futures, timeout=1800)\nray.exceptions.GetTimeoutError: Get timed out: some object(s) not ready.",
    "slurmstepd: error:  mpi/pmix_v3: pmixp_coll_ring_reset_if_to: gpu-07 [0]: pmixp_coll_ring.c:742: "
    "0x1523e4008f90: collective timeout seq=0",
])
def test_a_wait_that_ran_out_is_a_timeout(tmp_path, text):
    verdict = console_verdict(tmp_path, text)
    assert verdict.cls == "timeout_unknown", verdict.summary


# ---- the host stalled, or the step's processes would not die: a hang
@pytest.mark.parametrize("text", [
    "[ 7320.364127] NMI watchdog: Watchdog detected hard LOCKUP on cpu 13\n"
    "[ 7320.364140] CPU: 13 PID: 4021 Comm: python Tainted: P           OE     5.15.0-91-generic #101-Ubuntu",
    "[18273.112345] rcu: INFO: rcu_sched self-detected stall on CPU\n"
    "[18273.112352] rcu: \t12-....: (21000 ticks this GP) idle=a3e/1/0x4000000000000002 softirq=88121/88121 fqs=5245",
    "slurmstepd: error: *** JOB 1209813 STEPD TERMINATED ON gpu-031 AT 2024-05-02T11:20:09 DUE TO JOB NOT ENDING WITH "
    "SIGNALS ***\nslurmstepd: error: Container 1209813 in cgroup plugin has 5 processes, giving up after 63 sec",
])
def test_a_stalled_host_or_unkillable_step_is_a_hang(tmp_path, text):
    verdict = console_verdict(tmp_path, text)
    assert verdict.cls in ("stuck_rank", "timeout_unknown"), verdict.summary


# ---- the NIC: its link, its transceiver, its firmware, its transmit queue
@pytest.mark.parametrize("text", [
    "[91822.012876] mlx5_core 0000:3b:00.0 ens1f0np0: Link down",
    "[91822.004112] mlx5_core 0000:3b:00.0: mlx5_port_module_event:1157:(pid 0): Port module event: module 0, Cable "
    "unplugged",
    "[44120.551203] mlx5_core 0000:3b:00.0: poll_health:800:(pid 0): device's health compromised - reached miss count",
    "[52031.220984] NETDEV WATCHDOG: ens1f0np0 (mlx5_core): transmit queue 3 timed out 5376 ms",
    "[52031.220984] NETDEV WATCHDOG: ib0 (ib_ipoib): transmit queue 0 timed out",
])
def test_a_nic_that_lost_its_link_is_a_network_error(tmp_path, text):
    verdict = console_verdict(tmp_path, text)
    assert verdict.cls == "network_error", verdict.summary


# ---- memory: the kubelet's eviction, the container's limit, Ray's memory monitor
@pytest.mark.parametrize("text", [
    "Status:           Failed\nReason:           Evicted\nMessage:          The node was low on resource: memory. "
    "Container pytorch was using 61Gi, which exceeds its request of 32Gi. ",
    "    State:          Terminated\n      Reason:       OOMKilled\n      Exit Code:    137",
    "(raylet) Memory on the node (IP: 10.0.3.21, ID: 0b6a) where the task (actor ID: 7ea5, name=TrainWorker.__init__, "
    "pid=4021, memory used=61.20GB) was running was 118.30GB / 124.00GB (0.954032), which exceeds the memory usage "
    "threshold of 0.95. Ray killed this worker (ID: 12a6) because it was the most recently scheduled task",
])
def test_a_memory_kill_is_oom(tmp_path, text):
    verdict = console_verdict(tmp_path, text)
    assert verdict.cls == "oom", verdict.summary


def test_kubelet_eviction_for_disk_is_no_oom(tmp_path):
    text = ("Reason:           Evicted\nMessage:          The node was low on resource: ephemeral-storage. Container "
            "controller was using 16372Ki, which exceeds its request of 0.")
    assert console_verdict(tmp_path, text).cls != "oom"


# ---- not failures: a spare node leaving a closed rendezvous, a node joining, DeepSpeed's device note
@pytest.mark.parametrize("text", [
    "I0603 10:44:02.118000 4411 torch/distributed/elastic/agent/server/api.py:690] Rendezvous gracefully exited: The "
    "rendezvous 'job7' is closed, terminating pending rendezvous.",
    "torch.distributed.elastic.rendezvous.api.RendezvousGracefulExitError: The rendezvous 'job7' is closed, "
    "terminating pending rendezvous.",
    "[INFO] 2020-07-31 07:35:16,348 api: [default] Detected 1 new nodes from group_rank=1; will restart worker group\n"
    "[INFO] 2020-07-31 07:35:16,349 api: [default] Stopping worker group",
    "Detected CUDA_VISIBLE_DEVICES=0,1,2,3 but ignoring it because one or several of --include/--exclude/--num_gpus/"
    "--num_nodes cl args were used. If you want to use CUDA_VISIBLE_DEVICES don't pass any of these arguments to "
    "deepspeed.",
])
def test_a_launcher_note_is_no_failure(tmp_path, text):
    verdict = console_verdict(tmp_path, text)
    assert verdict.cls in ("none", "inconclusive"), verdict.summary


# ---- launchers that name or imply the process that ended
@pytest.mark.parametrize("text,classes,culprits", [
    ("prterun detected that one or more processes exited with non-zero status,\nthus causing the job to be "
     "terminated. The first process to do so was:\n\n   Process name: [prterun-gpu-01-81234@1,3]\n   Exit code:    1",
     {"dropped_rank"}, [3]),
    ("prterun noticed that process rank 2 with PID 0 on node gpu-02 exited on signal 9 (Killed).",
     {"dropped_rank", "oom"}, [2]),
    ("node2: [2024-09-08 23:12:45,901] [ERROR] [launch.py:325:sigkill_handler] ['/usr/bin/python', '-u', 'train.py', "
     "'--local_rank=7'] exits with return code = 1\npdsh@node1: node2: ssh exited with exit code 1",
     {"dropped_rank", "unclassified_failure"}, None),
    ("(worker1, rank=1, pid=3121, ip=10.0.0.5) RuntimeError: CUDA error: an illegal memory access was encountered\n"
     "ERROR: Job 2 failed with return code list: [137, 1] (A Worker failed with return code 1, SkyPilot cleaned up the "
     "processes on other nodes with return code 137)", {"dropped_rank", "unclassified_failure"}, None),
    ("(raylet) A worker died or was killed while executing a task by an unexpected system error. Worker exit type: "
     "SYSTEM_ERROR Worker exit detail: The leased worker has unrecoverable failure. Worker is requested to be destroyed "
     "when it is returned. RPC Error message: Socket closed; RPC Error details: ",
     {"dropped_rank", "unclassified_failure"}, None),
    ("[rank: 1] Received SIGTERM: 15\nTraceback (most recent call last):\n  File \"/opt/conda/lib/python3.10/"
     "site-packages/lightning/pytorch/loops/fit_loop.py\", line 385, in on_advance_start\n    raise SIGTERMException\n"
     "lightning.pytorch.utilities.exceptions.SIGTERMException", {"dropped_rank", "unclassified_failure"}, None),
])
def test_a_launcher_report_of_an_ended_process(tmp_path, text, classes, culprits):
    verdict = console_verdict(tmp_path, text)
    assert verdict.cls in classes, verdict.summary
    if culprits is not None:
        assert verdict.culprit_ranks == culprits, verdict.summary


# ---- the rendezvous backend could not be reached: the store's host is gone or unreachable
@pytest.mark.parametrize("text", [
    "torch.distributed.DistNetworkError: Connection reset by peer\n\nThe above exception was the direct cause of the "
    "following exception:\n\ntorch.distributed.elastic.rendezvous.api.RendezvousConnectionError: The connection to the "
    "C10d store has failed. See inner exception for details.",
    "W0813 22:23:02.961031 140204091807488 torch/distributed/elastic/rendezvous/dynamic_rendezvous.py:1267] The node "
    "'gpu-b_88121_0' has failed to send a keep-alive heartbeat to the rendezvous '100' due to an error of type "
    "RendezvousTimeoutError.",
])
def test_an_unreachable_rendezvous_backend(tmp_path, text):
    verdict = console_verdict(tmp_path, text)
    assert verdict.cls in ("network_error", "dropped_rank", "timeout_unknown"), verdict.summary


# ---- the scheduler's requeue and Lightning's auto-requeue are no failure of their own; a configuration error is
def test_lightning_auto_requeue_is_no_failure(tmp_path):
    text = ("Handling auto-requeue signal: 10\nrequeued exp 4242\nslurmstepd: error: *** STEP 4242.0 ON gpu-031 "
            "CANCELLED AT 2024-03-05T07:01:59 ***")
    assert console_verdict(tmp_path, text).cls in ("none", "inconclusive", "timeout_unknown")


def test_lightning_slurm_ntasks_error_is_a_failure(tmp_path):
    text = ("Traceback (most recent call last):\n  File \"slurm.py\", line 224, in _validate_srun_variables\n"
            "    raise RuntimeError(\nRuntimeError: You set `--ntasks=8` in your SLURM bash script, but this variable is "
            "not supported. HINT: Use `--ntasks-per-node=8` instead.")
    assert console_verdict(tmp_path, text, progress="").cls == "unclassified_failure"


def test_slurm_requeue_is_no_timeout(tmp_path):
    text = "slurmstepd: error: *** STEP 77120.0 ON gpu-03 CANCELLED AT 2024-10-02T04:22:10 DUE TO JOB REQUEUE ***"
    assert console_verdict(tmp_path, text, progress=PROGRESS).cls != "timeout_unknown"
