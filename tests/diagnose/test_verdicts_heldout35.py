"""Held-out set 35: real pastes from forums, Q&A threads and blog posts rather than GitHub issues (the Ray and
MetaX forums, CSDN and gitcode write-ups, personal blogs), kept as the pages show them: reworded, cut, an ellipsis
for a path. 11 of 13 were read right at first sight. What changed after, from the sources:

- NCCL's duplicate-GPU check (src/init.cc initTransportsRank, 2.5 - 2.29, and RCCL's copy) prints `Duplicate GPU
  detected : rank %d and rank %d both on CUDA device %lx`; pastes retold on blogs keep the format's tail and drop
  the prefix (`Error: rank 27 and rank 19 both on CUDA device 53000`). The tail is NCCL's own words and is read
  alone (a rank, another rank, `both on CUDA device` and the bus id).
- CuPy's NcclError (cupy/cuda/nccl.pyx, cupy_backends/cuda/libs/nccl.pyx) prints the result's enum name, then
  ncclGetErrorString's text (`NCCL_ERROR_INVALID_USAGE: invalid usage`); whatever drives NCCL through CuPy (vLLM
  0.2 - 0.3, Ray's NCCL channels) raises it. The text names the code as torch's does: a caller's misuse is no
  network fault, NCCL_ERROR_SYSTEM_ERROR and NCCL_ERROR_REMOTE_ERROR are the network's.
"""
from __future__ import annotations

import pytest

from .consoles import PROGRESS, check_case, console_verdict

CASES = [
    # (page, pasted excerpt, right classes, culprit ranks or None)
    ('openillumi.com/?p=106752',
     'DistStoreError: Timed out after 300 seconds waiting for clients. 1/2 clients joined.\n',
     {'timeout_unknown', 'stuck_rank'}, None),
    ('blog.csdn.net gitblog_07897/148943836',
     'CUDA_VISIBLE_DEVICES=0,1,2,3,4,5 torchrun --standalone --nnodes 1 --nproc-per-node 6 vla-scripts/fin'
     'etune.py\ntorch.distributed.DistNetworkError: Connection reset by peer\n',
     {'unclassified_failure', 'network_error'}, None),
    ('thomaskalnik.com deepseek-v3 part 4',
     'Error: rank 27 and rank 19 both on CUDA device 53000 (PCI 53:00.0)\nError: rank 29 and rank 21 both o'
     'n CUDA device 91000 (PCI 91:00.0)\n',
     {'unclassified_failure'}, None),
    ('blog.gitcode.com 8aa18b88',
     'NCCL WARN Invalid rank requested : 6/4\nNCCL INFO init.cc:1872 -> 4\nNCCL error in: ../torch/csrc/dist'
     'ributed/c10d/NCCLUtils.hpp:275, invalid argument\n',
     {'unclassified_failure'}, None),
    ('blog.gitcode.com a552f72d',
     'ib_plugin.c:1105 NCCL WARN NET/IB : Got completion from peer 10.2.8.2<55466> with error 12, opcode 0'
     ', len 0, vendor err 129 (Recv) localGid fe80::966d:aeff:fe5d:9950 remoteGid fe80::6e92:cfff:fe87:ca5'
     '0\n',
     {'network_error'}, None),
    ('blog.gitcode.com a04cca93',
     'Watchdog caught collective operation timeout: WorkNCCL(SeqNum=59709, OpType=_ALLGATHER_BASE...)\nSome'
     ' NCCL operations have failed or timed out...\nTo avoid data inconsistency, we are taking the entire p'
     'rocess down\n',
     {'collective_skipped', 'timeout_unknown', 'stuck_rank'}, None),
    ('hubbid.com fixing-cuda-failure-999',
     "ncclUnhandledCudaError: Call to CUDA function failed. Last error: Cuda failure 999 'unknown error'\n",
     {'unclassified_failure', 'dropped_rank'}, None),
    ('blog.gitcode.com 9155d176',
     'Failed to open libibverbs.so[.1]\nNCCL_ERROR_INVALID_USAGE: invalid usage\n',
     {'nic_misselection', 'unclassified_failure'}, None),
    ('blog.csdn.net jacke121/140561775',
     '[E ProcessGroupNCCL.cpp:737] [Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum='
     '1751615, OpType=ALLREDUCE, Timeout(ms)=1800000) ran for 1800265 milliseconds before timing out.\n\n[E '
     'ProcessGroupNCCL.cpp:414] Some NCCL operations have failed or timed out. Due to the asynchronous nat'
     'ure of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data. To avoid this'
     ' inconsistency, we are taking the entire process down.\n',
     {'collective_skipped', 'timeout_unknown', 'stuck_rank'}, None),
    ('discuss.ray.io t/8598',
     '2023-08-21 09:01:33,024\tERROR trial_runner.py:993 -- Trial TorchTrainer_32216_00001: Error processin'
     'g event.\nray.exceptions.RayTaskError(RuntimeError): ray::_Inner.train() (pid=1641548, ip=192.168.1.1'
     '28, repr=TorchTrainer)\n  File "/home/xxx/miniconda3/lib/python3.8/site-packages/ray/tune/trainable/t'
     'rainable.py", line 355, in train\n    raise skipped from exception_cause(skipped)\n  File "/home/xxx/m'
     'iniconda3/lib/python3.8/site-packages/ray/train/_internal/utils.py", line 54, in check_for_failure\n '
     '   ray.get(object_ref)\nray.exceptions.RayTaskError(RuntimeError): ray::RayTrainWorker._RayTrainWorke'
     'r__execute() (pid=1641581, ip=192.168.1.128, repr=<ray.train._internal.worker_group.RayTrainWorker o'
     'bject at 0x7f5cc4b4ee20>)\n  File "/home/xxx/miniconda3/lib/python3.8/site-packages/ray/train/_intern'
     'al/worker_group.py", line 31, in __execute\n    raise skipped from exception_cause(skipped)\n  File "/'
     'home/xxx/miniconda3/lib/python3.8/site-packages/ray/train/_internal/utils.py", line 129, in discard_'
     'return_wrapper\n    train_func(*args, **kwargs)\n  File "multipathpp_train.py", line 442, in train_fun'
     'c_per_worker\n    model = train.torch.prepare_model(model,parallel_strategy_kwargs={"find_unused_para'
     'meters":True})\n  File "/home/xxx/miniconda3/lib/python3.8/site-packages/ray/train/torch/train_loop_u'
     'tils.py", line 120, in prepare_model\n    return get_accelerator(_TorchAccelerator).prepare_model(\n  '
     'File "/home/xxx/miniconda3/lib/python3.8/site-packages/ray/train/torch/train_loop_utils.py", line 36'
     '5, in prepare_model\n    model = DataParallel(model, **parallel_strategy_kwargs)\n  File "/home/xxx/mi'
     'niconda3/lib/python3.8/site-packages/torch/nn/parallel/distributed.py", line 578, in __init__\n    di'
     'st._verify_model_across_ranks(self.process_group, parameters)\nRuntimeError: NCCL\n',
     {'unclassified_failure', 'dropped_rank'}, None),
    ('developer.metax-tech.com forum 430',
     'torchrun --nproc_per_node=8 --master_port=29500 \\\n-m llamafactory.cli train /tmp/train_config.yaml\nR'
     'untimeError: The server socket has failed to listen on any local network address.\nport: 29500\nuseIpv'
     '6: 0\ncode: -98\nname: EADDRINUSE\nmessage: address already in use\nTraceback (most recent call last):\nF'
     'ile "/opt/conda/lib/python3.12/site-packages/torch/distributed/elastic/rendezvous/c10d_rendezvous_ba'
     'ckend.py", line 79, in _create_tcp_store\nstore = TCPStore(\n...\ntorch.distributed.elastic.multiproces'
     'sing.errors.ChildFailedError:\n============================================================\nllamafact'
     'ory.cli FAILED\n------------------------------------------------------------\nFailures:\n<NO_OTHER_FAIL'
     'URES>\n------------------------------------------------------------\nRoot Cause (first observed failur'
     'e):\nrank: 5 (local_rank: 5)\nerror_file: /tmp/torchelastic_xxx/xxx/attempt_0/5/error.json\nexitcode: 1'
     '\n...\n============================================================\n',
     {'unclassified_failure'}, None),
    ('blog.gitcode.com 85f1fd73',
     'torch.distributed.DistNetworkError: The server socket has failed to listen on any local network addr'
     'ess.\nThe server socket has failed to bind to [::]:55733 (errno: 98 - Address already in use).\nThe se'
     'rver socket has failed to bind to 0.0.0.0:55733 (errno: 98 - Address already in use).\n',
     {'unclassified_failure'}, None),
    ('rhkb.cn news/463024',
     'torch.distributed.DistBackendError: NCCL error in: …/torch/csrc/distributed/c10d/ProcessGroupNCCL.cp'
     'p:1333, internal error - please report this issue to the NCCL developers, NCCL version 2.18.1 ainode'
     '01: ncclInternalError: Internal check failed. ainode01: Last error\n',
     {'nic_misselection', 'unclassified_failure', 'network_error'}, None),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_heldout35_case(tmp_path, case):
    check_case(tmp_path, case[1:])


@pytest.mark.parametrize("line", [
    "frodo:33793:33885 [1] init.cc:573 NCCL WARN Duplicate GPU detected : rank 1 and rank 0 both on CUDA device 1000",
    "Duplicate GPU detected: rank 3 and rank 0 both on CUDA device 42000",
    "Error: rank 27 and rank 19 both on CUDA device 53000 (PCI 53:00.0)",
])
def test_two_ranks_on_one_gpu_is_a_usage_error_in_every_form(tmp_path, line):
    assert console_verdict(tmp_path, line).cls == "unclassified_failure"


def test_two_ranks_named_without_a_device_are_no_duplicate_gpu(tmp_path):
    text = "rank 1 and rank 0 finished the warmup\nEpoch 2: loss 0.31\n"
    assert console_verdict(tmp_path, text, progress=PROGRESS).cls in ("none", "inconclusive")


@pytest.mark.parametrize(("line", "cls"), [
    ("cupy_backends.cuda.libs.nccl.NcclError: NCCL_ERROR_INVALID_USAGE: invalid usage (run with NCCL_DEBUG=WARN for "
     "details)", "unclassified_failure"),
    ("cupy.cuda.nccl.NcclError: NCCL_ERROR_SYSTEM_ERROR: unhandled system error", "network_error"),
    ("cupy_backends.cuda.libs.nccl.NcclError: NCCL_ERROR_REMOTE_ERROR: remote process exited or there was a network "
     "error", "network_error"),
])
def test_cupys_nccl_error_is_read_by_its_result_code(tmp_path, line, cls):
    assert console_verdict(tmp_path, line).cls == cls
