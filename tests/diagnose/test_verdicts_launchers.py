"""Verdicts on the launchers' own failure messages, read from their sources (torch elastic and the legacy launcher,
DeepSpeed, composer, Open MPI / PRRTE, MPICH, Slurm, Horovod, Ray, ssh): each as a small console whose decisive
lines are the launcher's, in the wordings and line breaks the sources print."""
from __future__ import annotations

import pytest

from nccl_forensics.sources import catalogue

from .consoles import console_verdict

MISSING = {"stuck_rank", "timeout_unknown"}      # a rank named as missing may be dead, stuck or late


# torch.distributed.launch (1.0 - 1.8) and DeepSpeed's launcher (0.3.11 - 0.5.7) print `cmd`, the variable of their
# spawn loop, in the CalledProcessError: the last worker's command line, whichever worker failed. Its `--local_rank`
# names the failed worker only when the node ran one process.
@pytest.mark.parametrize("text,ranks", [
    ("Killing subprocess 20411\nKilling subprocess 20412\nsubprocess.CalledProcessError: Command '['/opt/conda/bin/"
     "python', '-u', 'tools/train.py', '--local_rank=3', 'configs/exp.py']' died with <Signals.SIGKILL: 9>.", []),
    ("subprocess.CalledProcessError: Command '['/usr/bin/python', '-u', 'train_net.py', '--local_rank=7', "
     "'--config-file', 'e2e.yaml']' returned non-zero exit status 1.", []),
    ("subprocess.CalledProcessError: Command '['/usr/bin/python', '-u', 'train.py', '--local-rank=1']' died with "
     "<Signals.SIGSEGV: 11>.", []),
    ("subprocess.CalledProcessError: Command '['/usr/bin/python', '-u', 'train.py', '--local_rank=0']' died with "
     "<Signals.SIGSEGV: 11>.", [0]),
    ("subprocess.CalledProcessError: Command '['/usr/bin/python', '-m', 'accelerate.commands.launch', 'train.py']' "
     "returned non-zero exit status 1.", []),
])
def test_the_legacy_launchers_command_line_is_the_last_workers(text, ranks, tmp_path):
    verdict = console_verdict(tmp_path, text)
    assert verdict.cls == "dropped_rank" and verdict.culprit_ranks == ranks, verdict.summary


@pytest.mark.parametrize("text,rank", [
    # composer's launcher: the ranks it killed, then the first non-zero exit in rank order
    ("INFO:composer.cli.launcher:Killing global rank 1 (PID 4414) with SIGTERM\nINFO:composer.cli.launcher:Killing "
     "global rank 2 (PID 4415) with SIGTERM\nWaiting up to 30 seconds for all training processes to terminate. Press "
     "Ctrl-C to exit immediately.\nGlobal rank 0 (PID 4413) exited with code -11\nERROR:composer.cli.launcher:Global "
     "rank 0 (PID 4413) exited with code -11", 0),
    ("ERROR:composer.cli.launcher:Rank 2 crashed with exit code 1.\nINFO:composer.cli.launcher:Killing global rank 3 "
     "(PID 7004) with SIGTERM\nWARNING:composer.cli.launcher:Failed to kill global rank 3 (PID 7004) with SIGTERM; "
     "terminating with SIGKILL instead", 2),
    # Open MPI: the help texts break their lines where the source does
    ("mpirun has exited due to process rank 3 with PID 7781 on\nnode gpu-01 exiting improperly. There are three "
     "reasons this could occur:", 3),
    ("MPI_ABORT was invoked on rank 1 in communicator MPI_COMM_WORLD\nwith errorcode 1.", 1),
    ("prterun detected that one or more processes exited with non-zero status,\nthus causing the job to be "
     "terminated. The first process to do so was:\n\n   Process name: [prterun-gpu01-41872@1,4]\n   Exit code:    1",
     4),
    # MPICH: the world rank is `on node N`; `process N` is the rank in the communicator it names
    ("Abort(1) on node 3 (rank 3 in comm 0): application called MPI_Abort(MPI_COMM_WORLD, 1) - process 3", 3),
    ("Abort(1) on node 5 (rank 1 in comm 2): application called MPI_Abort(comm=0x84000002, 1) - process 1", 5),
    ("[cli_2]: aborting job:\napplication called MPI_Abort(MPI_COMM_WORLD, 1) - process 2", 2),
    # Ray Train v2: each error under the ranks that raised it
    ("ray.train.WorkerGroupError: Training failed due to worker errors:\n[Rank 1 Error Snippet]:\n  File \"train.py\", "
     "line 88, in train_func\n    loss = model(batch).loss\nValueError: Expected input batch_size (16) to match target "
     "batch_size (8).", 1),
])
def test_a_launcher_names_the_rank_that_ended_on_its_own(text, rank, tmp_path):
    verdict = console_verdict(tmp_path, text)
    assert verdict.cls == "dropped_rank" and verdict.culprit_ranks == [rank], verdict.summary


@pytest.mark.parametrize("text,classes", [
    # slurmstepd says why it cancelled: only the time limit is a wait that ran out
    ("slurmstepd: error: *** STEP 5512.0 ON node-a17 CANCELLED AT 2025-02-11T06:40:03 DUE TO TASK FAILURE ***",
     {"dropped_rank"}),
    ("slurmstepd: error: *** STEP 5512.0 ON node-a17 FAILED (non-zero exit code or other failure mode) ***",
     {"dropped_rank"}),
    ("slurmstepd: error: *** JOB 4242 ON gpu-05 CANCELLED AT 2024-03-01T10:11:12 DUE TO TIME LIMIT ***",
     {"timeout_unknown"}),
    # the rendezvous: torchelastic's names before it moved into torch, and a node that lost the store
    ("INFO:torchelastic.rendezvous.etcd_rendezvous:Rendezvous timeout occured in EtcdRendezvousHandler\n"
     "torchelastic.rendezvous.api.RendezvousTimeoutException", MISSING),
    ("[2024-02-20 22:41:07,003] torch.distributed.elastic.rendezvous.dynamic_rendezvous: [WARNING] The node "
     "'node-3_7121_0' has failed to send a keep-alive heartbeat to the rendezvous 'a1b2c3' due to an error of type "
     "RendezvousConnectionError.", {"network_error"}),
    # ssh, as pdsh/mpirun start the remote nodes
    ("worker-2: ssh: connect to host worker-2 port 22: Connection refused\npdsh@worker-1: worker-2: ssh exited with "
     "exit code 255", {"network_error"}),
])
def test_the_launchers_reason_decides_the_class(text, classes, tmp_path):
    verdict = console_verdict(tmp_path, text)
    assert verdict.cls in classes, verdict.summary


def test_slurm_preemption_is_no_timeout(tmp_path):
    verdict = console_verdict(tmp_path, "slurmstepd: error: *** JOB 4242 ON gpu-05 CANCELLED AT 2024-03-01T10:11:12 DUE TO "
                                 "PREEMPTION ***")
    assert verdict.cls != "timeout_unknown", verdict.summary


@pytest.mark.parametrize("text,ranks", [
    # 0.20+: `Missing ranks:` then one line per rank
    ("[2021-03-04 10:11:12.345678: W /tmp/pip-install/horovod/common/stall_inspector.cc:107] One or more tensors were "
     "submitted to be reduced, gathered or broadcasted by subset of ranks and are waiting for remainder of ranks for "
     "more than 60 seconds. This may indicate that different ranks are trying to submit different tensors or that only "
     "subset of ranks is submitting tensors, which will cause deadlock. \nMissing ranks:\n1: [DistributedAdamOptimizer"
     "_Allreduce/cond_12/HorovodAllreduce_gradients_0, DistributedAdamOptimizer_Allreduce/cond_13/HorovodAllreduce_1]",
     [1]),
    # 0.16 - 0.19: `Stalled ranks:`, `!` past the shutdown time
    ("W horovod/common/operations.cc:779] One or more tensors were submitted to be reduced, gathered or broadcasted by "
     "subset of ranks and are waiting for remainder of ranks for more than 60 seconds. This may indicate that different "
     "ranks are trying to submit different tensors or that only subset of ranks is submitting tensors, which will "
     "cause deadlock. \nStalled ranks:\n2!: [allreduce.fc.weight]\n3: [allreduce.fc.weight]\nEpoch 2", [2, 3]),
    # 0.11 - 0.16: each tensor with its missing ranks
    ("W horovod/common/operations.cc:1501] One or more tensors were submitted to be reduced, gathered or broadcasted "
     "by subset of ranks and are waiting for remainder of ranks for more than 60 seconds. This may indicate that "
     "different ranks are trying to submit different tensors or that only subset of ranks is submitting tensors, which "
     "will cause deadlock. \nStalled ops:\nDistributedSGD_Allreduce/HorovodAllreduce_grads_0 [missing ranks: 2]", [2]),
])
def test_horovods_stall_report_names_the_missing_ranks(text, ranks, tmp_path):
    verdict = console_verdict(tmp_path, text)
    assert verdict.cls in MISSING and verdict.culprit_ranks == ranks, verdict.summary


def test_the_stall_reports_rank_lines_are_read_only_under_it(tmp_path):
    # `1: [...]` alone is no message
    assert not [h for h in catalogue.match("1: [DistributedAdamOptimizer_Allreduce/HorovodAllreduce_0]")]
