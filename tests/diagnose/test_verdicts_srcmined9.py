"""Verdicts on messages mined from their sources in catalogue round srcmined9 (the infrastructure around a training
job), each as the lines of a pasted console:

- the NVIDIA driver's NVRM Xid lines as dmesg shows them: 109 (context switch timeout), 154 (the recovery action a
  fatal error set: GPU reset or node reboot), 13/48/94/119, and 63/64 (a row remapping recorded: bookkeeping, the
  job goes on); NVSwitch SXids and fabric manager's fatal errors; cudaErrorSystemNotReady (fabric manager down);
- DCGM's health/diag words (`Detected XID %u for GPU %u`, `GPU %u's NvLink link %d is currently down`) and the
  Kubernetes device plugin's `XidCriticalError: Xid=%d on Device=%s; marking device as unhealthy.`;
- Slurm: `DUE TO JOB REQUEUE`, 14.03.8 - 14.11.9's `DUE TO NODE <node> FAILURE` and `FAILED (...) on <node>`
  orders, task/cgroup's `_oom_event_monitor: oom-kill event count: N`, the PMIx plugin's send retry limit;
- Open MPI: the BML's unreachable peers, the TCP BTL's failed connect, daemons that did not start; PRRTE's wrapped
  `exited on\nsignal 9`; the kubelet's eviction for ephemeral storage; torch elastic's file timer reaping a worker.
"""
from __future__ import annotations

import pytest

from nccl_forensics.sources import catalogue

from .consoles import PROGRESS, console_verdict

# name -> (console lines, accepted classes, culprit ranks or None)
CASES: dict[str, tuple[str, set[str], list[int] | None]] = {
    "cuda_system_not_initialized_fm_down": (
        '/usr/local/lib/python3.10/dist-packages/torch/cuda/__init__.py:128: UserWarning: CUDA initialization: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling NumCudaDevices() that might have already set an error? Error 802: system not yet initialized (Triggered internally at ../c10/cuda/CUDAFunctions.cpp:108.)\n'
        '  return torch._C._cuda_getDeviceCount() > 0\n'
        'Traceback (most recent call last):\n'
        '  File "/workspace/train.py", line 40, in <module>\n'
        '    torch.cuda.set_device(local_rank)\n'
        'RuntimeError: No CUDA GPUs are available',
        {'inconclusive', 'unclassified_failure'}, None),
    "dcgmi_diag_nvlink_down": (
        '[rank1]:[E1104 10:32:14.551203 ProcessGroupNCCL.cpp:632] [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=48211, OpType=ALLREDUCE, NumelIn=26214400, NumelOut=26214400, Timeout(ms)=600000) ran for 600043 milliseconds before timing out.\n'
        '$ dcgmi diag -r 1\n'
        '+---------------------------+------------------------------------------------+\n'
        '| Diagnostic                | Result                                         |\n'
        '+===========================+================================================+\n'
        '| Deployment                | Fail                                           |\n'
        "| Warning                   | GPU 1's NvLink link 3 is currently down        |\n"
        '+---------------------------+------------------------------------------------+',
        {'dropped_rank', 'network_error'}, None),
    "dcgmi_health_xid79": (
        '[2024-05-02 11:20:01,112] torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: -6) local_rank: 2 (pid: 40121) of binary: /usr/bin/python3\n'
        '$ dcgmi health -c -g 1\n'
        '+---------------------------+----------------------------------------------------------+\n'
        '| Health Monitor Report                                                                |\n'
        '+===========================+==========================================================+\n'
        '| Overall Health            | Failure                                                  |\n'
        '| GPU                       | 2                                                        |\n'
        '| -> Overall Health         | Failure                                                  |\n'
        '| -> PCIe system            | Failure                                                  |\n'
        '|                           | Detected XID 79 for GPU 2                                |\n'
        '+---------------------------+----------------------------------------------------------+',
        {'dropped_rank'}, None),
    "elastic_file_timer_reaping": (
        "[2025-02-11 06:40:03,114] torch.distributed.elastic.timer.file_based_local_timer: [INFO] Reaping worker_pid=[40121]. Expired timers: ['train_step']\n"
        '[2025-02-11 06:40:04,201] torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: -9) local_rank: 1 (pid: 40121) of binary: /usr/bin/python3',
        {'dropped_rank', 'stuck_rank'}, None),
    "fabricmanager_fatal_fid": (
        '[Jul 16 2024 21:05:44] [ERROR] [tid 841] detected NVSwitch fatal error 24007 on fid 0 on NVSwitch pci bus id 00000000:86:00.0 physical id 2 port 44\n'
        '[rank4]:[E1104 10:32:14.551203 ProcessGroupNCCL.cpp:632] [Rank 4] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=48211, OpType=ALLREDUCE, NumelIn=26214400, NumelOut=26214400, Timeout(ms)=600000) ran for 600043 milliseconds before timing out.',
        {'dropped_rank', 'network_error'}, None),
    "k8s_device_plugin_xid_unhealthy": (
        'I0810 15:36:05.551834       1 health.go:169] XidCriticalError: Xid=79 on Device=GPU-455e672a-1c3e-9f0a-2b17-7a1d2e4c9f01; marking device as unhealthy.\n'
        "I0810 15:36:05.552532       1 server.go:278] 'nvidia.com/gpu' device marked unhealthy: GPU-455e672a-1c3e-9f0a-2b17-7a1d2e4c9f01\n"
        '[rank0]:[E1104 10:32:14.551203 ProcessGroupNCCL.cpp:632] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=48211, OpType=ALLREDUCE, NumelIn=26214400, NumelOut=26214400, Timeout(ms)=600000) ran for 600043 milliseconds before timing out.',
        {'dropped_rank'}, None),
    "k8s_evicted_ephemeral_storage": (
        'Name:             bert-ddp-worker-1\n'
        'Namespace:        default\n'
        'Status:           Failed\n'
        'Reason:           Evicted\n'
        'Message:          The node was low on resource: ephemeral-storage. Threshold quantity: 10Gi, available: 8123Ki. Container pytorch was using 118Gi, request is 0, has larger consumption of ephemeral-storage.',
        {'dropped_rank', 'unclassified_failure'}, None),
    "k8s_oomkilled_describe_control": (
        '    State:          Terminated\n'
        '      Reason:       OOMKilled\n'
        '      Exit Code:    137\n'
        '      Started:      Mon, 04 Nov 2024 10:02:00 +0000\n'
        '      Finished:     Mon, 04 Nov 2024 10:31:55 +0000',
        {'oom'}, None),
    "nvrm_rminitadapter_failed": (
        '[Mon Oct  7 08:00:01 2024] NVRM: GPU 0000:3b:00.0: RmInitAdapter failed! (0x26:0xffff:1474)\n'
        '[Mon Oct  7 08:00:01 2024] NVRM: GPU 0000:3b:00.0: rm_init_adapter failed, device minor number 2\n'
        'Traceback (most recent call last):\n'
        '  File "/workspace/train.py", line 40, in <module>\n'
        '    torch.cuda.set_device(local_rank)\n'
        'RuntimeError: CUDA error: no CUDA-capable device is detected',
        {'dropped_rank', 'unclassified_failure'}, None),
    "nvrm_xid109_ctx_switch_timeout": (
        '[Mon Nov  4 10:22:09 2024] NVRM: Xid (PCI:0000:cb:00): 109, pid=1797828, name=pt_main_thread, Ch 00000008, errorString CTX SWITCH TIMEOUT, Info 0x58005\n'
        '[rank5]:[E1104 10:32:14.551203 ProcessGroupNCCL.cpp:632] [Rank 5] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=48211, OpType=ALLREDUCE, NumelIn=26214400, NumelOut=26214400, Timeout(ms)=600000) ran for 600043 milliseconds before timing out.\n'
        '[rank5]:[E1104 10:32:14.551400 ProcessGroupNCCL.cpp:2168] [PG ID 0 PG GUID 0(default_pg) Rank 5] failure detected by watchdog at work sequence id: 48211 PG status: last enqueued work: 48211, last completed work: 48210',
        {'dropped_rank', 'stuck_rank', 'timeout_unknown'}, None),
    "nvrm_xid119_gsp_timeout": (
        '[Sat Jun  1 02:10:11 2024] NVRM: Xid (PCI:0000:1b:00): 119, pid=3381, name=python, Timeout after 6s of waiting for RPC response from GPU1 GSP! Expected function 76 (GSP_RM_CONTROL) (0x20800a4c 0x4).\n'
        '[rank1]:[E1104 10:32:14.551203 ProcessGroupNCCL.cpp:632] [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=48211, OpType=ALLREDUCE, NumelIn=26214400, NumelOut=26214400, Timeout(ms)=600000) ran for 600043 milliseconds before timing out.',
        {'dropped_rank'}, None),
    "nvrm_xid13_sm_exception": (
        "[Fri Aug 30 11:43:09 2024] NVRM: Xid (PCI:0000:cb:00): 13, pid='<unknown>', name=<unknown>, Graphics SM Warp Exception on (GPC 7, TPC 7, SM 0): Illegal Instruction Parameter\n"
        "[Fri Aug 30 11:43:09 2024] NVRM: Xid (PCI:0000:cb:00): 13, pid='<unknown>', name=<unknown>, Graphics Exception: ESR 0x57c730=0xc04000b 0x57c734=0x24 0x57c728=0x1f81fb60 0x57c72c=0x1174\n"
        '[rank3]: RuntimeError: CUDA error: an illegal instruction was encountered',
        {'dropped_rank', 'unclassified_failure'}, None),
    "nvrm_xid154_reset_required": (
        '[Tue Mar 11 03:12:40 2025] NVRM: Xid (PCI:0000:b3:00): 154, GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)\n'
        '[rank5]: Traceback (most recent call last):\n'
        '[rank5]:   File "/workspace/train.py", line 211, in <module>\n'
        '[rank5]:     loss.backward()\n'
        '[rank5]: RuntimeError: CUDA error: unspecified launch failure\n'
        '[rank5]: CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.',
        {'dropped_rank'}, None),
    "nvrm_xid48_dbe_ecc": (
        '[Wed Jan 10 08:01:02 2024] NVRM: Xid (PCI:0000:3b:00): 48, pid=22114, name=python, An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition 6, subpartition 0.\n'
        '[rank2]: RuntimeError: CUDA error: uncorrectable ECC error encountered',
        {'dropped_rank'}, None),
    "nvrm_xid63_row_remap_healthy": (
        '[Mon Sep  2 09:00:01 2024] NVRM: Xid (PCI:0000:10:1c): 63, pid=1896, Row Remapper: New row marked for remapping, reset gpu to activate.\n'
        'step 5000 | loss 1.012 | lr 1.0e-5\n'
        'Training complete. Saving final checkpoint.\n'
        'INFO:torch.distributed.elastic.agent.server.api:[default] worker group successfully finished. Waiting 300 seconds for other agents to finish.\n'
        'INFO:torch.distributed.elastic.agent.server.api:Local worker group finished (WorkerState.SUCCEEDED). Waiting 300 seconds for other agents to finish\n'
        'INFO:torch.distributed.elastic.agent.server.api:Done waiting for other agents. Elapsed: 0.0011 seconds',
        {'inconclusive', 'none'}, None),
    "nvrm_xid79_then_154_node_reboot": (
        "[Sun Mar 29 19:20:37 2025] NVRM: Xid (PCI:0000:5f:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.\n"
        '[Sun Mar 29 19:20:37 2025] NVRM: GPU 0000:5f:00.0: GPU has fallen off the bus.\n'
        '[Sun Mar 29 19:20:37 2025] NVRM: Xid (PCI:0000:5f:00): 154, GPU recovery action changed from 0x0 (None) to 0x2 (Node Reboot Required)\n'
        '[rank0]:[E1104 10:32:14.551203 ProcessGroupNCCL.cpp:632] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=48211, OpType=ALLREDUCE, NumelIn=26214400, NumelOut=26214400, Timeout(ms)=600000) ran for 600043 milliseconds before timing out.',
        {'dropped_rank'}, None),
    "nvrm_xid94_contained": (
        '[Thu Feb  6 14:20:51 2025] NVRM: Xid (PCI:0000:4e:00): 94, pid=81234, name=python3, Contained: SM (0x1). RST: No, D-RST: No\n'
        '[rank6]: RuntimeError: CUDA error: uncorrectable ECC error encountered',
        {'dropped_rank'}, None),
    "nvswitch_sxid_minion_fatal": (
        '[Tue Jul 16 21:05:44 2024] nvidia-nvswitch0: SXid (PCI:0000:86:00.0): 24007, Fatal, Link 44 MINION Link DL Fatal\n'
        '[Tue Jul 16 21:05:44 2024] nvidia-nvswitch0: SXid (PCI:0000:86:00.0): 24007, Severity 1 Engine instance 44 Sub-engine instance 00\n'
        '[rank4]:[E1104 10:32:14.551203 ProcessGroupNCCL.cpp:632] [Rank 4] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=48211, OpType=ALLREDUCE, NumelIn=26214400, NumelOut=26214400, Timeout(ms)=600000) ran for 600043 milliseconds before timing out.',
        {'dropped_rank', 'network_error'}, None),
    "nvswitch_sxid_nonfatal_healthy": (
        '[Tue Jul 16 21:05:44 2024] nvidia-nvswitch3: SXid (PCI:0000:05:00.0): 12028, Non-fatal, Link 32 egress non-posted PRIV error (First)\n'
        'step 1220 | loss 2.301 | lr 3.0e-4\n'
        'step 1230 | loss 2.298 | lr 3.0e-4\n'
        'Training complete.\n'
        'INFO:torch.distributed.elastic.agent.server.api:Local worker group finished (WorkerState.SUCCEEDED). Waiting 300 seconds for other agents to finish',
        {'inconclusive', 'none'}, None),
    "ompi_bml_unreachable": (
        '--------------------------------------------------------------------------\n'
        'At least one pair of MPI processes are unable to reach each other for\n'
        'MPI communications.  This means that no Open MPI device has indicated\n'
        'that it can be used to communicate between these processes.  This is\n'
        'an error; Open MPI requires that all MPI processes be able to reach\n'
        'each other.  This error can sometimes be the result of forgetting to\n'
        'specify the "self" BTL.\n'
        '\n'
        '  Process 1 ([[12345,1],0]) is on host: gpu-01\n'
        '  Process 2 ([[12345,1],4]) is on host: gpu-02\n'
        '  BTLs attempted: self sm\n'
        '\n'
        'Your MPI job is now going to abort; sorry.\n'
        '--------------------------------------------------------------------------',
        {'network_error'}, None),
    "ompi_orte_unable_start_daemons": (
        '--------------------------------------------------------------------------\n'
        'ORTE was unable to reliably start one or more daemons.\n'
        'This usually is caused by:\n'
        '\n'
        '* not finding the required libraries and/or binaries on\n'
        '  one or more nodes. Please check your PATH and LD_LIBRARY_PATH\n'
        '  settings, or configure OMPI with --enable-orterun-prefix-by-default\n'
        '\n'
        '* lack of authority to execute on one or more specified nodes.\n'
        '--------------------------------------------------------------------------',
        {'network_error', 'unclassified_failure'}, None),
    "ompi_tcp_connect_failed": (
        '--------------------------------------------------------------------------\n'
        'WARNING: Open MPI failed to TCP connect to a peer MPI process.  This\n'
        'should not happen.\n'
        '\n'
        'Your Open MPI job may now hang or fail.\n'
        '\n'
        '  Local host: gpu-02\n'
        '  PID:        120099\n'
        '  Message:    connect() to 172.17.0.1:1025 failed\n'
        '  Error:      Connection refused (111)\n'
        '--------------------------------------------------------------------------\n'
        '[gpu-02:120099] *** An error occurred in Socket closed',
        {'network_error', 'nic_misselection'}, None),
    "prterun_noticed_killed": (
        '--------------------------------------------------------------------------\n'
        'prterun noticed that process rank 3 with PID 40121 on node gpu-07 exited on\n'
        'signal 9 (Killed).\n'
        '--------------------------------------------------------------------------',
        {'dropped_rank', 'oom', 'unclassified_failure'}, [3]),
    "slurm_cgroup_oom_event_monitor": (
        'slurmstepd: task/cgroup: _oom_event_monitor: oom-kill event count: 1\n'
        'srun: error: gpu-07: task 3: Killed\n'
        'srun: Terminating job step 4242.0',
        {'oom'}, None),
    "slurm_job_requeue": (
        'slurmstepd: error: *** JOB 31182239 ON gpu-031 CANCELLED AT 2024-11-05T10:35:06 DUE TO JOB REQUEUE ***\n'
        'srun: Job step aborted: Waiting up to 32 seconds for job step to finish.',
        {'dropped_rank', 'unclassified_failure'}, None),
    "slurm_old_node_failure": (
        'slurmstepd: error: *** JOB 1209813 CANCELLED AT 2015-03-06T03:17:51 DUE TO NODE gpu-17 FAILURE ***',
        {'dropped_rank'}, None),
    "slurm_old_step_failed": (
        'slurmstepd: error: *** STEP 5512.0 FAILED (non-zero exit code or other failure mode) on node-a17 ***\n'
        'srun: error: node-a17: task 3: Exited with exit code 1',
        {'dropped_rank', 'unclassified_failure'}, None),
    "slurm_pmix_send_retry_limit": (
        'slurmstepd: error:  mpi/pmix_v4: pmixp_p2p_send: gpu-07 [1]: pmixp_utils.c:467: send failed, rc=1001, exceeded the retry limit\n'
        'slurmstepd: error:  mpi/pmix_v4: _slurm_send: gpu-07 [1]: pmixp_server.c:1627: Cannot send message to /var/spool/slurmd/stepd.slurm.pmix.4242.0, size = 649, hostlist:\n'
        '(null)\n'
        'slurmstepd: error:  mpi/pmix_v4: pmixp_coll_ring_reset_if_to: gpu-07 [1]: pmixp_coll_ring.c:742: 0x1523e4008f90: collective timeout seq=0',
        {'network_error', 'timeout_unknown'}, None),
    "slurm_tasks_killed_terminating": (
        'srun: error: gpu-07: tasks 0-3: Killed\n'
        'srun: launch/slurm: _step_signal: Terminating StepId=4242.0\n'
        'slurmstepd: error: *** STEP 4242.0 ON gpu-07 CANCELLED AT 2024-06-01T10:00:00 ***',
        {'dropped_rank', 'oom', 'unclassified_failure'}, None),
    "slurm_time_limit_control": (
        'slurmstepd: error: *** STEP 4242.0 ON gpu-07 CANCELLED AT 2024-06-01T10:00:00 DUE TO TIME LIMIT ***\n'
        'srun: Job step aborted: Waiting up to 32 seconds for job step to finish.',
        {'timeout_unknown'}, None),
}
_ENDED_WELL = {'nvrm_xid63_row_remap_healthy', 'nvswitch_sxid_nonfatal_healthy'}


@pytest.mark.parametrize("name", sorted(CASES))
def test_srcmined9_verdict(tmp_path, name):
    text, accept, culprits = CASES[name]
    verdict = console_verdict(tmp_path, text, progress="" if name in _ENDED_WELL else PROGRESS)
    assert verdict.cls in accept, verdict.summary
    if culprits is not None:
        assert verdict.culprit_ranks == culprits, verdict.summary


def _ids(line: str) -> list[str]:
    return [h.message.id for h in catalogue.match(line)]


@pytest.mark.parametrize("line, ids", [
    # Xid 154 to any action but None: the GPU is out until it is reset (back to None: the generic Xid entry's)
    ("NVRM: Xid (PCI:0000:b3:00): 154, GPU recovery action changed from 0x1 (GPU Reset Required) to 0x0 (None)",
     ["kernel.nvidia_xid"]),
    ("NVRM: Xid (PCI:0000:5f:00): 154, GPU recovery action changed from 0x0 (None) to 0x2 (Node Reboot Required)",
     ["kernel.xid_recovery_action"]),
    ("NVRM: Xid (PCI:0000:10:1c): 64, pid=1896, Row Remapper: Failed to record row remapping", ["kernel.xid_ecc_recorded"]),
    # DCGM reports every Xid: only the ones that end the GPU's work name a lost rank
    ("Detected XID 63 for GPU 0", []),
    ("Detected XID 94 for GPU 3", ["dcgm.xid_fatal"]),
    # the memory eviction stays an OOM
    ("The node was low on resource: memory. Container pytorch was using 61Gi", ["k8s.evicted_memory"]),
    ("The node was low on resource: ephemeral-storage. Threshold quantity: 10Gi", ["k8s.evicted_resource"]),
    # an OOM monitor that counted none
    ("slurmstepd: task/cgroup: _oom_event_monitor: oom-kill event count: 0", []),
])
def test_infrastructure_messages(line, ids):
    assert _ids(line) == ids


def test_old_slurm_node_failure_names_the_node():
    hits = {h.message.id: h.fields for h in catalogue.match(
        "slurmstepd: error: *** JOB 1209813 CANCELLED AT 2015-03-06T03:17:51 DUE TO NODE gpu-17 FAILURE ***")}
    assert hits["slurm.step_node_lost"]["node"] == "gpu-17"
    assert hits.get("slurm.step_cancelled", {}).get("reason") is None     # no `NODE` reason of its own


def test_old_slurm_step_failure_names_the_node():
    hit, = catalogue.match("slurmstepd: error: *** STEP 5512.0 FAILED (non-zero exit code or other failure mode) on "
                           "node-a17 ***")
    assert hit.message.id == "slurm.step_task_failed" and hit.fields["node"] == "node-a17"
