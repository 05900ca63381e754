"""Held-out set 54: pastes of multi-node launches (srun and its PMIx noise, mpirun with Open MPI's tags, MPICH/Intel
MPI's fatal errors, a Kubernetes PyTorchJob worker, vLLM on a Ray cluster), NCCL's /dev/shm and NVLS failures and
healthy runs. One verdict test per case, then what the set showed:

- NCCL's /dev/shm call refused for access (`Call to shm_open failed : Permission denied`, include/shm.h 2.3 - 2.11;
  `Call to open failed` 2.12 - 2.15; an EACCES on the segment line later): no memory ran out, so it is no oom; the fix
  is /dev/shm's mode or a stale segment of another user (catalogue nccl.shm_access_refused).
- NCCL's `Failed to find reverse path from remNode` (graph/paths.cc 2.5 - 2.30, RCCL on MI300X here): the node's
  topology graph has a one-sided link; ncclInternalError on every rank of that node, the setup's (nccl.topo_reverse_path).
- MPICH's `Fatal error in PMPI_Init: ..., error stack:` (Intel MPI, MVAPICH2 alike; ch4 puts MPID_Abort's `Abort(N) on
  node R (rank R in comm C): ` before it): the launch's own start failed, before the program ran (mpich.fatal_error).
"""
from __future__ import annotations

import pytest

from .consoles import PROGRESS, console_verdict

_SHM_HOST = "node08:27106:27302 [0]"

CASES = [
    ("NVIDIA/nccl#2077", ("unclassified_failure",),
     "torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/NCCLUtils.cpp:93, "
     "unhandled cuda error, NCCL version 2.29.7\nncclUnhandledCudaError: Call to CUDA function failed.\n"
     "Failed to bind NVLink SHARP (NVLS) Multicast memory of size 2097152 : CUDA error 2 'out of memory'.\n"),
    ("pytorch/torchtitan#708", ("none", "inconclusive"),
     "1: [rank0]:2024-11-27 14:28:39,087 - root - INFO - Training starts at step 1, with local batch size 1, global "
     "batch size 32, sequence length 8192, total steps 1000 (warmup 200)\n"
     "0: [rank0]:2024-11-27 14:29:40,378 - root - INFO - step: 10  loss:  1.5568  memory: 26.47GiB(33.47%)  wps: "
     "1,786  mfu: 10.46%\n"
     "3: [rank0]:2024-11-27 14:29:40,378 - root - INFO - step: 10  loss:  1.5568  memory: 26.47GiB(33.47%)  wps: "
     "1,786  mfu: 10.46%\n"),
    ("NVIDIA/nccl-tests#92", ("unclassified_failure",),
     "Abort(3712399) on node 0 (rank 0 in comm 0): Fatal error in PMPI_Init: Other MPI error, error stack:\n"
     "MPIR_Init_thread(159).......: \nMPIR_pmi_kvs_get(227).......: PMI_KVS_Get returned -1\n"
     "node1: Test CUDA failure common.cu:963 'invalid device ordinal'\n .. node1 pid 198671: Test failure "
     "common.cu:925\n"),
    ("NVIDIA/nccl-tests#204", ("network_error", "unclassified_failure", "dropped_rank"),
     "DisAI-4090-2:914454:914479 [1] NCCL INFO bootstrap.cc:312 -> 3\n"
     "DisAI-4090-2: Test NCCL failure common.cu:961 'internal error - please report this issue to the NCCL "
     "developers / '\n"
     "DisAI-4090-3:63755:63768 [0] misc/socket.cc:50 NCCL WARN socketProgress: Connection closed by remote peer "
     "10.102.0.232<40318>\nDisAI-4090-3:63755:63768 [0] NCCL INFO bootstrap.cc:75 -> 6\n"),
    ("WangRongsheng/XrayGLM#83", ("oom", "unclassified_failure"),
     "Error while creating shared memory segment /dev/shm/nccl-CsYXMW (size 9637888)\n"
     "Traceback (most recent call last):\n"
     '  File "/home/li/.conda/envs/vglm2/lib/python3.10/site-packages/deepspeed/runtime/engine.py", line 1077, in '
     "_broadcast_model\n"),
    ("pytorch/pytorch#37004", ("unclassified_failure",),
     f"{_SHM_HOST} include/shm.h:27 NCCL WARN Call to shm_open failed : Permission denied\n"
     "node08:27106:27302 [0] NCCL INFO include/shm.h:41 -> 2\n"
     f"{_SHM_HOST} include/shm.h:48 NCCL WARN Error while creating shared memory segment "
     "nccl-shm-recv-b7948f403864987a-0-3-0 (size 4460544)\n"),
    ("NVIDIA/nccl-tests#208", ("version_mismatch", "unclassified_failure"),
     "NCCL version 2.21.5+cuda11.8\n"
     "noodle-4090-0:1896106:1896121 [1] enqueue.cc:47 NCCL WARN Cuda failure 'named symbol not found'\n"),
    ("NVIDIA/nccl-tests#280", ("unclassified_failure",),
     "c2211f46f318: Test NCCL failure common.cu:1005 'unhandled CUDA error'\n"
     ".. c2211f46f318 pid 3288: Test failure common.cu:891\n"),
    ("NVIDIA/nccl-tests#322", ("unclassified_failure", "oom"),
     "HCA-128: Test NCCL failure common.cu:1204 'unhandled cuda error (run with NCCL_DEBUG=INFO for details) / '\n"
     " .. HCA-128 pid 757466: Test failure common.cu:915\n"
     "HCA-108: Test NCCL failure common.cu:1204 'unhandled cuda error (run with NCCL_DEBUG=INFO for details) / '\n"),
    ("NVIDIA/nccl#1297", ("unclassified_failure", "dropped_rank"),
     "(RayWorkerWrapper pid=246832, ip=141.105.68.142) INFO 05-24 09:59:28 pynccl_utils.py:43] vLLM is using "
     "nccl==2.18.1\n*** SIGSEGV received at time=1716533968 on cpu 8 ***\n"
     "ERROR 05-24 09:59:28 worker_base.py:145] Error executing method init_device. This might cause deadlock in "
     "distributed execution.\n"),
    ("NVIDIA/nccl#1453", ("none", "inconclusive"),
     "[0]      4194304       1048576     float     sum      -1[0]     622.6    6.74   12.91      0[0]     625.8    "
     "6.70   12.85      0\n"
     "[0]     67108864      16777216     float     sum      -1[0]     24410    2.75    5.27      0[0]     24425    "
     "2.75    5.27      0\n"),
    ("uber-research/LaneGCN#2", ("dropped_rank", "oom"),
     "mpirun noticed that process rank 0 with PID 0 on node dagobert exited on signal 9 (Killed).\n"),
    ("karpathy/llm.c#426", ("none", "inconclusive"),
     "srun: lua: Submitted job 12168\n"
     "[qbd487:400139] PMIX ERROR: ERROR in file ../../../../../../src/mca/gds/ds12/gds_ds12_lock_pthread.c at line "
     "169\n[qbd488:616078] PMIX ERROR: ERROR in file ../../../../../../src/mca/gds/ds12/gds_ds12_lock_pthread.c at "
     "line 169\nStarted Multi Node training managed by Slurm: ProcessID:0, NumProcess::4, DeviceId:0\n"),
    ("meta-pytorch/torchtune#2301", ("none", "inconclusive"),
     "Model checkpoint of size 4.66 GiB saved to /mnt/slurm/Llama3.3-70B-fft-output/epoch_0/"
     "ft-model-00003-of-00030.safetensors\n"
     "Model checkpoint of size 4.63 GiB saved to /mnt/slurm/Llama3.3-70B-fft-output/epoch_0/"
     "ft-model-00004-of-00030.safetensors\n"),
    ("NVIDIA/nccl#879", ("network_error", "unclassified_failure"),
     "resnet-p-worker-0:195626:198757 [0] proxy.cc:808 NCCL WARN Proxy Call to rank 1 failed (Connect)\n"
     "resnet-p-worker-0:195626:198757 [0] NCCL INFO transport/net.cc:319 -> 2\n"
     "resnet-p-worker-0:195626:198757 [0] NCCL INFO group.cc:58 -> 2 [Async thread]\n"),
    ("ROCm/rccl#1728", ("unclassified_failure",),
     "[rank2]: torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:317, "
     "internal error - please report this issue to the NCCL developers, NCCL version 2.20.5\n"
     "[rank2]: ncclInternalError: Internal check failed.\n[rank2]: Last error:\n"
     "[rank2]: Failed to find reverse path from remNode 0/200000 nlinks 3 to node 0/700000\n"),
    ("pytorch/pytorch#79847", ("unclassified_failure",),
     "RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:891, internal error, NCC\n"
     "L version 21.0.3\n"
     "ncclInternalError: Internal check failed. This is either a bug in NCCL or due to memory corruption\n"
     "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 0 (pid: 51428) of bi\n"),
]


@pytest.mark.parametrize("issue,want,text", CASES, ids=[case[0] for case in CASES])
def test_each_case_of_the_set(issue, want, text, tmp_path):
    verdict = console_verdict(tmp_path, text, progress="")
    assert verdict.cls in want, verdict.summary


@pytest.mark.parametrize("line", [
    "Call to shm_open failed : Permission denied",          # include/shm.h 2.3 - 2.11
    "Call to open failed : Permission denied",              # misc/shmutils.cc 2.12 - 2.15
    "Call to posix_fallocate failed : Read-only file system",
])
def test_a_dev_shm_refused_for_access_is_no_oom(tmp_path, line):
    text = (f"gpu3:4242:4300 [1] include/shm.h:27 NCCL WARN {line}\n"
            "gpu3:4242:4300 [1] include/shm.h:48 NCCL WARN Error while creating shared memory segment "
            "nccl-shm-recv-0a1b-0-1-0 (size 9637888)\n")
    verdict = console_verdict(tmp_path, text, PROGRESS)
    assert verdict.cls == "unclassified_failure", verdict.summary
    assert "refused access to /dev/shm" in verdict.summary and "1777" in verdict.fix


def test_a_dev_shm_without_room_is_still_oom(tmp_path):
    text = ("gpu3:4242:4300 [1] include/shm.h:28 NCCL WARN Call to posix_fallocate failed : No space left on device\n"
            "gpu3:4242:4300 [1] include/shm.h:48 NCCL WARN Error while creating shared memory segment "
            "nccl-shm-recv-0a1b-0-1-0 (size 9637888)\n")
    assert console_verdict(tmp_path, text, PROGRESS).cls == "oom"


@pytest.mark.parametrize("head", ["Abort(1615247) on node 3 (rank 3 in comm 0): ", ""])
def test_an_mpi_init_fatal_error_is_the_launch_not_a_rank(tmp_path, head):
    text = (f"{head}Fatal error in PMPI_Init_thread: Other MPI error, error stack:\n"
            "MPIR_Init_thread(136)........: \nMPID_Init(904)...............: \n")
    verdict = console_verdict(tmp_path, text, PROGRESS)
    assert verdict.cls == "unclassified_failure" and verdict.culprit_ranks == [], verdict.summary
    assert "MPI library failed in its own start" in verdict.summary and "--mpi=pmix" in verdict.fix


def test_a_one_sided_topology_link_is_the_nodes_setup(tmp_path):
    text = ("gpu5:777:801 [0] graph/paths.cc:108 NCCL WARN Failed to find reverse path from remNode 0/200000 nlinks 3 "
            "to node 0/700000\ngpu5:777:801 [0] NCCL INFO graph/paths.cc:664 -> 3\n")
    verdict = console_verdict(tmp_path, text, PROGRESS)
    assert verdict.cls == "unclassified_failure" and verdict.culprit_ranks == [], verdict.summary
    assert "setup failed" in verdict.summary
