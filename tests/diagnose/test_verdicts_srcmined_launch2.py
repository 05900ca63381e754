"""Verdicts on launcher and runtime messages mined from their sources (issue 25, round srcmined_launch2): each
message family in the wordings of the versions that print it, as a console would show it.
"""
from __future__ import annotations

import pytest

from .consoles import console_verdict


# Horovod's coordinator: 0.9 - 0.15 (lowercase op, `reduced`/`gathered`), 0.16 - 0.28 (request type names)
@pytest.mark.parametrize("line,cls", [
    ("tensorflow.python.framework.errors_impl.FailedPreconditionError: Mismatched allreduce tensor shapes: One rank "
     "reduced a tensor of shape [4,4], but another rank sent a tensor of shape [4,5].", "shape_mismatch"),
    ("horovod.common.exceptions.HorovodInternalError: Mismatched ALLGATHER tensor shapes: One rank sent a tensor of "
     "rank 2, but another rank sent a tensor of rank 3.", "shape_mismatch"),
    ("RuntimeError: Mismatched BROADCAST tensor shapes: One rank sent a tensor of shape [128], but another rank sent a "
     "tensor of shape [64].", "shape_mismatch"),
    ("horovod.common.exceptions.HorovodInternalError: Mismatched data types: One rank had type HOROVOD_FLOAT32, but "
     "another rank had type HOROVOD_INT64.", "dtype_mismatch"),
    ("tensorflow.python.framework.errors_impl.FailedPreconditionError: Mismatched MPI operations: One rank did an "
     "allreduce, but another rank did an allgather.", "op_mismatch"),
    ("horovod.common.exceptions.HorovodInternalError: Mismatched reduction operation: One rank sent reduction op "
     "Average, but another rank sent reduction op Sum.", "op_mismatch"),
])
def test_horovod_coordinator_mismatch(tmp_path, line, cls):
    assert console_verdict(tmp_path, line).cls == cls


def test_horovod_mismatch_under_mpirun_tags_is_not_the_tagged_rank_dying(tmp_path):
    # every rank raises the coordinator's diagnosis; the rank of the tag that printed it is no culprit
    text = ("[1,2]<stderr>:Traceback (most recent call last):\n"
            "[1,2]<stderr>:  File \"train.py\", line 40, in <module>\n"
            "[1,2]<stderr>:    hvd.allreduce(t)\n"
            "[1,2]<stderr>:horovod.common.exceptions.HorovodInternalError: Mismatched data types: One rank had type "
            "HOROVOD_FLOAT16, but another rank had type HOROVOD_FLOAT32.")
    v = console_verdict(tmp_path, text)
    assert v.cls == "dtype_mismatch" and 2 not in (v.culprit_ranks or [])


def _accelerate(shapes: list[str]) -> str:
    rows = "\n".join(f"  - Process {i}: {s}" for i, s in enumerate(shapes))
    return ("Traceback (most recent call last):\n  File \"run.py\", line 9, in <module>\n"
            "    out = accelerator.pad_across_processes(x)\n"
            "accelerate.utils.operations.DistributedOperationException: Cannot apply desired operation due to shape "
            "mismatches. All shapes across devices must be valid.\n\n"
            "Operation: `accelerate.utils.operations.pad_across_processes`\nInput shapes:\n" + rows)


def test_accelerate_shape_check_names_the_odd_process(tmp_path):
    v = console_verdict(tmp_path, _accelerate(["[4, 16]", "[4, 16]", "[4, 16]", "[4, 16]", "[4, 16]", "[3, 16]"]))
    assert v.cls == "shape_mismatch" and v.culprit_ranks == [5]


def test_accelerate_shape_check_without_a_majority_names_none(tmp_path):
    v = console_verdict(tmp_path, _accelerate(["[1, 5]", "[1, 2, 5]"]))
    assert v.cls == "shape_mismatch" and not v.culprit_ranks


@pytest.mark.parametrize("code,classes", [("-9", {"dropped_rank", "oom"}), ("-11", {"dropped_rank"}),
                                          ("1", {"dropped_rank", "unclassified_failure"})])
def test_lightning_child_observer(tmp_path, code, classes):
    line = (f"[rank: 2] Child process with PID 4411 terminated with code {code}. Forcefully terminating all other "
            "processes to avoid zombies 🧟")
    assert console_verdict(tmp_path, line).cls in classes


def test_lightning_reconciliation_names_the_rank_that_raised(tmp_path):
    text = ("pytorch_lightning.utilities.exceptions.DeadlockDetectedException: DeadLock detected from rank: 3 \n"
            " Traceback (most recent call last):\n  File \"model.py\", line 10, in training_step\n"
            "    x = batch[\"missing\"]\nKeyError: 'missing'")
    v = console_verdict(tmp_path, text)
    assert v.cls in ("dropped_rank", "unclassified_failure") and v.culprit_ranks == [3]


@pytest.mark.parametrize("who,end,classes,culprits", [
    ("=   RANK 5 PID 4242 RUNNING AT gpu-03", "=   KILLED BY SIGNAL: 11 (Segmentation fault)", {"dropped_rank"}, [5]),
    ("=   RANK 0 PID 4242 RUNNING AT gpu-01", "=   EXIT CODE: 139", {"dropped_rank"}, [0]),
    ("=   PID 4242 RUNNING AT gpu-01", "=   EXIT CODE: 9", {"dropped_rank", "oom"}, []),      # MPICH <= 3.2
])
def test_hydra_bad_termination_block_names_its_rank(tmp_path, who, end, classes, culprits):
    text = ("\n" + "=" * 83 + "\n=   BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES\n" + who + "\n" + end +
            "\n=   CLEANING UP REMAINING PROCESSES\n" + "=" * 83)
    v = console_verdict(tmp_path, text)
    assert v.cls in classes and (v.culprit_ranks or []) == culprits


def test_hydra_bootstrap_saw_a_process_terminate_badly(tmp_path):
    text = ("[mpiexec@n01] HYDT_bscu_wait_for_completion (tools/bootstrap/utils/bscu_wait.c:75): one of the processes "
            "terminated badly; aborting\n[mpiexec@n01] HYDT_bsci_wait_for_completion (tools/bootstrap/src/bsci_wait.c:"
            "23): launcher returned error waiting for completion")
    assert console_verdict(tmp_path, text).cls == "dropped_rank"


@pytest.mark.parametrize("line", [
    "slurmstepd: error: Job 99 exceeded 4194304 KB memory limit, being killed",                      # 1.3 - 13.11
    "slurmstepd: error: Step 99.0 exceeded 4194304 KB memory limit, being killed",                   # 2.1 - 13.11
    "slurmstepd: error: Job 99 exceeded memory limit (4300000 > 4194304), being killed",             # 13.12 - 20.02
    "slurmstepd: error: StepId=99.0 exceeded virtual memory limit (9300000 > 8388608), being killed",  # 20.11+
])
def test_slurm_jobacct_memory_limit_in_every_wording(tmp_path, line):
    assert console_verdict(tmp_path, line).cls == "oom"


@pytest.mark.parametrize("line", [
    "srun: error: Task launch for 77.0 failed on node n12: Communication connection failure",
    "srun: error: Task launch for StepId=77.0 failed on node n12: Zero Bytes were transmitted or received",
    "srun: error: Application launch failed: Socket timed out on send/recv operation",
])
def test_slurm_launch_that_could_not_reach_a_node_is_the_network(tmp_path, line):
    assert console_verdict(tmp_path, line).cls == "network_error"


def test_slurm_launch_refused_for_a_credential_is_not_the_network(tmp_path):
    line = "srun: error: Task launch for StepId=77.0 failed on node n12: Invalid job credential"
    assert console_verdict(tmp_path, line).cls != "network_error"


@pytest.mark.parametrize("text", [
    # MPICH ch3 nemesis tcp in an error stack
    "Fatal error in PMPI_Allreduce: Unknown error class, error stack:\n"
    "MPIR_Allreduce_impl(293)........:\nMPID_nem_tcp_connpoll(1845)....: Communication error with rank 6: Connection "
    "reset by peer",
    # Open MPI openib BTL's completion handler
    "[[51512,1],0][btl_openib_component.c:3644:handle_wc] from gpu-01 to: gpu-04 error polling LP CQ with status "
    "RETRY EXCEEDED ERROR status number 12 for wr_id 1ae3b80 opcode 0  vendor error 129 qp_idx 0",
    # PRRTE's out-of-band TCP
    "------------------------------------------------------------\nA process or daemon was unable to complete a TCP "
    "connection\nto another process:\n  Local host:    n01\n  Remote host:   n07",
])
def test_mpi_runtime_connection_failures_are_the_network(tmp_path, text):
    assert console_verdict(tmp_path, text).cls == "network_error"
