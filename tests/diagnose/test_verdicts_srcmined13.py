"""Verdicts on the lines of the launchers and schedulers a multi-node job runs under besides torchrun and Slurm
(issue 25, round srcmined13): Open MPI's orterun (4.1) and PRRTE's prterun (5.x) help blocks, OpenPBS/Torque's MoM,
LSF's job report, Kubernetes' scheduler and kubelet as kubectl prints them, SkyPilot's job driver and torchx's
`run`, each read in its source and written as a console would show it, with the healthy endings that must not read
as failures.
"""
from __future__ import annotations

import pytest

from .consoles import PROGRESS, check_case, console_verdict

_RULE = "-" * 74
_LSF_HEAD = (
    "------------------------------------------------------------\n"
    "Sender: LSF System <lsfadmin@gpu-l14>\n"
    "Subject: Job 884213: <ddp_train> in cluster <hpc> {status}\n\n"
    "Job <ddp_train> was submitted from host <login1> by user <jdoe> in cluster <hpc> at Tue Mar  4 09:12:01 2025\n"
    "Job was executed on host(s) <8*gpu-l14>, in queue <gpu>, as user <jdoe> in cluster <hpc> at Tue Mar  4 "
    "09:12:05 2025\n"
    "------------------------------------------------------------\n"
    "# LSBATCH: User input\ntorchrun --nproc-per-node 8 train.py\n"
    "------------------------------------------------------------\n\n")
_LSF_TAIL = "\n\nResource usage summary:\n\n    CPU time :   4102.00 sec.\n    Max Memory :   256000 MB\n"

CASES = {
    # ---- Open MPI / PRRTE: help blocks that name their process below the head
    "ompi_orte_proc_mem_exceeded": (
        f"{_RULE}\nA process exceeded memory limits:\n\n  Process name: [[41872,1],5]\n  Node:         gpu-b07\n{_RULE}\n"
        "[gpu-b01:118722] 7 more processes have sent help message help-orterun.txt / orterun:proc-mem-exceeded",
        {"oom"}, [5]),
    "ompi_prte_proc_mem_exceeded": (
        f"{_RULE}\nA process exceeded memory limits:\n\n   Process name: [prterun-gpu-c01-90321@1,6]\n"
        f"   Node:         gpu-c02\n{_RULE}", {"oom"}, [6]),
    "ompi_prte_daemon_failed_after_launch": (
        f"{_RULE}\nAn PRTE daemon has unexpectedly failed after launch and before\ncommunicating back to mpirun. This "
        f"could be caused by a number\nof factors, including an inability to create a connection back\n{_RULE}",
        {"network_error", "dropped_rank"}, None),
    "ompi_orte_timeout_reached": (
        f"{_RULE}\nThe user-provided time limit for job execution has been reached:\n\n  Timeout: 7200 seconds\n\n"
        f"The job will now be aborted.  Please check your code and/or\n{_RULE}", {"timeout_unknown"}, None),
    "ompi_orte_proc_comm_failed": (
        f"{_RULE}\nA critical communication path was lost to:\n\n  My name:      [[18293,0],0]\n"
        f"  Process name: [[18293,1],9]\n  Node:         gpu-n17\n{_RULE}", {"network_error", "dropped_rank"}, None),
    "ompi_prte_first_nonzero_named": (
        "prterun detected that one or more processes exited with non-zero status,\nthus causing the job to be "
        "terminated. The first process to do so was:\n\n   Process name: [prterun-gpu-d01-2231@1,4]\n"
        "   Exit code:    1", {"dropped_rank"}, [4]),
    "ompi_prte_ordered_abort": (
        f"{_RULE}\nprterun has exited due to process rank 5 with PID 77420 on node gpu-g02 calling\n\"abort\". This may "
        f"have caused other processes in the application to be\n{_RULE}", {"dropped_rank", "unclassified_failure"}, [5]),
    # ---- PBS: the MoM's over-limit kill on the job's stderr
    "openpbs_walltime_then_torchrun_sigterm": (
        "=>> PBS: job killed: walltime 86417 exceeded limit 86400\n"
        "W0412 08:14:03.221000 140233 torch/distributed/elastic/agent/server/api.py:704] Received Signals.SIGTERM "
        "death signal, shutting down workers\n"
        "W0412 08:14:03.222000 140233 torch/distributed/elastic/multiprocessing/api.py:897] Sending process 140301 "
        "closing signal SIGTERM", {"timeout_unknown"}, None),
    "torque_walltime_then_mpirun_sigterm": (
        "=>> PBS: job killed: walltime 43230 exceeded limit 43200\nmpirun: Forwarding signal 15 to job\n"
        f"{_RULE}\nmpirun noticed that process rank 0 with PID 0 on node n042 exited on signal 15 (Terminated).\n{_RULE}",
        {"timeout_unknown"}, None),
    "openpbs_mem": ("=>> PBS: job killed: mem 263409152kb exceeded limit 251658240kb", {"oom"}, None),
    "openpbs_vmem": ("=>> PBS: job killed: vmem 540028928kb exceeded limit 536870912kb", {"oom"}, None),
    # ---- LSF's job report
    "lsf_term_runlimit": (
        _LSF_HEAD.format(status="Exited") + "TERM_RUNLIMIT: job killed after reaching LSF run time limit.\n"
        "Exited with exit code 140." + _LSF_TAIL, {"timeout_unknown"}, None),
    "lsf_term_memlimit": (
        _LSF_HEAD.format(status="Exited") + "TERM_MEMLIMIT: job killed after reaching LSF memory usage limit.\n"
        "Exited with exit code 130." + _LSF_TAIL, {"oom"}, None),
    "lsf_term_preempt": (
        _LSF_HEAD.format(status="Exited") + "TERM_PREEMPT: job killed after preemption.\nExited with exit code 143."
        + _LSF_TAIL, {"dropped_rank"}, None),
    # ---- Kubernetes, as kubectl prints it
    "k8s_get_pods_oomkilled": (
        "NAME                READY   STATUS      RESTARTS      AGE\nllama-ft-master-0   1/1     Running     0       "
        "      47m\nllama-ft-worker-1   0/1     OOMKilled   2 (31s ago)   47m", {"oom"}, None),
    "k8s_preempted_by_pod_uid": (
        "  Normal   Preempted  2m    default-scheduler  Preempted by pod 5d8f7a1e-2b0c-4d11-9a3e-71c0e4b2f9aa on node "
        "gke-train-pool-a-3f2c\n  Normal   Killing    2m    kubelet            Stopping container pytorch",
        {"dropped_rank"}, None),
    "k8s_preempted_by_namespace_name": (
        "  Normal   Preempted  5m    default-scheduler  Preempted by ml/serving-7c9d on node gpu-node-4",
        {"dropped_rank"}, None),
    "k8s_node_shutdown": (
        "Status:           Failed\nReason:           Terminated\nMessage:          Pod was terminated in response to "
        "imminent node shutdown.", {"dropped_rank"}, None),
    "k8s_backoff_exit1": (
        "    State:          Waiting\n      Reason:       CrashLoopBackOff\n    Last State:     Terminated\n"
        "      Reason:       Error\n      Exit Code:    1\n  Warning  BackOff  12s (x40 over 11m)   kubelet  Back-off "
        "restarting failed container pytorch in pod resnet-ddp-worker-1_default(0b1f3c5e)",
        {"unclassified_failure", "dropped_rank"}, None),
    # ---- SkyPilot's job driver: 137 on the other nodes is its own cleanup, no OOM
    "skypilot_worker_rc1_cleanup137": (
        "ERROR: Job 4 failed with return code list: [137, 1] (A Worker failed with return code 1, SkyPilot cleaned "
        "up the processes on other nodes with return code 137)\n✓ Job finished (status: FAILED).",
        {"unclassified_failure", "dropped_rank"}, None),
    "skypilot_segfault": (
        "ERROR: \x1b[31mJob 2 failed with return code list:\x1b[0m [0, 139] (likely due to Segmentation Fault)\n"
        "INFO: Job finished (status: FAILED).", {"unclassified_failure", "dropped_rank"}, None),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_srcmined13(tmp_path, name):
    check_case(tmp_path, CASES[name])


def test_skypilots_cleanup_code_is_no_oom(tmp_path):
    verdict = console_verdict(tmp_path, CASES["skypilot_worker_rc1_cleanup137"][0])
    assert verdict.cls != "oom", verdict.summary


# ---- the whole job's success, as its scheduler or launcher states it: every rank of it ended well
@pytest.mark.parametrize("text", [
    _LSF_HEAD.format(status="Done") + "Successfully completed." + _LSF_TAIL,
    "(head, rank=0, pid=3310) [rank0]: saved checkpoint to /checkpoints/final\n✓ Job finished (status: SUCCEEDED).",
    "SKY INFO: Job finished (status: SUCCEEDED).",
    "torchx 2024-05-10 10:02:11 INFO     Waiting for the app to finish...\ntrain/0 [0]:done\n"
    "torchx 2024-05-10 10:05:40 INFO     Job finished: SUCCEEDED",
])
def test_the_whole_jobs_success_is_healthy(tmp_path, text):
    verdict = console_verdict(tmp_path, text)
    assert verdict.cls == "none", verdict.summary


def test_the_whole_jobs_success_does_not_hide_a_failure(tmp_path):
    text = ("[rank3]: RuntimeError: CUDA error: an illegal memory access was encountered\n"
            "torchx 2024-05-10 10:05:40 INFO     Job finished: SUCCEEDED")
    assert console_verdict(tmp_path, text).cls != "none"


@pytest.mark.parametrize("text", [
    # one pod's clean end is one worker's, not the job's: no all-clear, and no failure
    "    State:          Terminated\n      Reason:       Completed\n      Exit Code:    0",
    # the words inside another line are no job report
    "INFO step 400: Successfully completed. the warmup phase",
])
def test_a_part_of_the_job_that_ended_well_is_no_failure(tmp_path, text):
    verdict = console_verdict(tmp_path, text)
    assert verdict.cls in ("none", "inconclusive"), verdict.summary


def test_a_failed_torchx_app_without_its_cause_is_a_failure(tmp_path):
    text = "torchx 2024-05-10 11:14:20 INFO     Job finished: FAILED"
    assert console_verdict(tmp_path, text, progress=PROGRESS).cls not in ("none", "inconclusive")
