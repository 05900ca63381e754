"""Held-out set 55: pastes of DeepSpeed ZeRO-3/offload, accelerate, Lightning and LlamaFactory jobs (watchdog timeouts
with several ranks, a ChildFailedError table, one rank's OOM, SIGKILL), Kubernetes/Azure ML workers, Slurm GPU nodes and
nccl-tests; healthy runs. One verdict test per case, then what the set showed:

- The NVIDIA HPC SDK's accelerator runtime (OpenACC, CUDA Fortran: `Accelerator Fatal Error: call to cuCtxCreate
  returned error 214 (CUDA_ERROR_ECC_UNCORRECTABLE): uncorrectable ECC error encountered`) was not read: the driver
  call's failure ends the process (catalogue cuda.nvhpc_call_failed; error 2 is CUDA_ERROR_OUT_OF_MEMORY, an oom:
  cuda.nvhpc_out_of_memory). A paste that wraps the line leaves `(CUDA_ERROR_...): <text>` alone on the next one:
  cuda.named_error reads the name in parentheses too, and the unranked crash's summary takes the text from it.
- darknet's check_error (`CUDA Error: <text>`, `CUDA Error Prev: <text>`, then it exits) was not read as a CUDA
  front: it is one of cuda.runtime_error's fronts now.
- DeepSpeed#4648 (truth widened, /tmp/heldout55/truth.tsv): `CUDA error: unknown error` out of the watchdog ends rank
  0's device work (cuda._FATAL), the project's rule for a fatal CUDA error: dropped_rank is right.
"""
from __future__ import annotations

import pytest

from nccl_forensics.sources.catalogue import match

from .consoles import PROGRESS, console_verdict

_WATCHDOG = ("[E ProcessGroupNCCL.cpp:916] [Rank {r}] NCCL watchdog thread terminated with exception: [Rank {r}] "
             "Watchdog caught collective operation timeout: WorkNCCL(SeqNum=235, OpType=BROADCAST, NumelIn=768, "
             "NumelOut=768, Timeout(ms)=1800000) ran for 1800956 milliseconds before timing out.\n")
_PL_TIMEOUT = ("[rank{r}]:[E513 13:25:57.714781669 ProcessGroupNCCL.cpp:616] [Rank {r}] Watchdog caught collective "
               "operation timeout: WorkNCCL(SeqNum={seq}, OpType={op}, NumelIn=513, NumelOut=2052, "
               "Timeout(ms)=1800000) ran for 1800042 milliseconds before timing out.\n")
_AML = "2021-02-05 05:32:39 [job-pytorch-distr-nccl-1612503130-4b919e08-worker-1, unknown_ip] "
_AZ = "8dbe9e7102e4446db27ef6fb1a2533e9000001:176:194 [0] "
_K8S_HOST = "ts-3e2f482270f9487ab7cf319cfd7fbfec-launcher.ts-3e2f482270f9487ab7cf319cfd7fbfec-launcher.svc.cluster.local"
_BQL = "gpu-bql-144-103:18553:186{t} [0] "

CASES = [
    ("deepspeedai/DeepSpeed#6756", ("timeout_unknown", "stuck_rank"),
     _WATCHDOG.format(r=3) + _WATCHDOG.format(r=1)),
    ("InternRobotics/StreamVLN#46", ("timeout_unknown",),
     "[rank2]: torch.distributed.DistBackendError: [Rank 2] Watchdog caught collective operation timeout: "
     "WorkNCCL(SeqNum=4596, OpType=_ALLGATHER_BASE, NumelIn=896, NumelOut=3584, Timeout(ms)=1800000) ran for "
     "1800002 milliseconds before timing out.\n"),
    ("Azure/AML-Kubernetes#58", ("unclassified_failure",),
     f"{_AML}job-pytorch-distr-nccl-1612503130-4b919e08-worker-1:25:25 [0] NCCL INFO NET/Socket : Using "
     "[0]eth0:10.240.1.123<0>\n"
     f"{_AML}job-pytorch-distr-nccl-1612503130-4b919e08-worker-1:25:25 [0] init.cc:981 NCCL WARN Invalid rank "
     "requested : 2/2\n"),
    ("Azure/azureml-examples#675", ("unclassified_failure",),
     "NCCL version 2.7.8+cuda11.0\n"
     f"{_AZ}init.cc:573 NCCL WARN Duplicate GPU detected : rank 0 and rank 1 both on CUDA device 1cb00000\n"
     f"{_AZ}NCCL INFO init.cc:840 -> 5\n{_AZ}NCCL INFO group.cc:73 -> 5 [Async thread]\n"),
    ("deepspeedai/DeepSpeed#4648", ("unclassified_failure", "dropped_rank"),
     "[E ProcessGroupNCCL.cpp:915] [Rank 0] NCCL watchdog thread terminated with exception: CUDA error: unknown "
     "error\nCUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below "
     "might be incorrect.\n"),
    ("hiyouga/LlamaFactory#2555", ("unclassified_failure",),
     "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n" + "=" * 60 + "\nsrc/train_bash.py "
     "FAILED\n" + "-" * 60 + "\nFailures:\n" + "".join(
         f"[{r}]:\n  time      : 2024-02-22_22:55:00\n  host      : {_K8S_HOST}\n  rank      : {r} (local_rank: {r})\n"
         f"  exitcode  : 1 (pid: {3606 + r})\n  error_file: <N/A>\n  traceback : To enable traceback see: "
         "https://pytorch.org/docs/stable/elastic/errors.html\n" for r in (1, 2))),
    ("MFlowCode/MFC#1748", ("unclassified_failure", "dropped_rank"),
     "Accelerator Fatal Error: call to cuCtxCreate returned error 214\n"
     "  (CUDA_ERROR_ECC_UNCORRECTABLE): uncorrectable ECC error encountered\n"
     "mfc: ERROR > syscheck failed with exit code 1.\n"),
    ("hiyouga/LlamaFactory#9510", ("oom",),
     "[rank5]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 56.00 MiB. GPU 5 has a total capacity "
     "of 79.33 GiB of which 49.81 MiB is free. Process 415557 has 79.27 GiB memory in use.\n"
     "[rank6]: Traceback (most recent call last):\n"
     "[rank6]:   File \"/workspace/LLaMA-Factory/src/llamafactory/launcher.py\", line 185, in <module>\n"),
    ("flagos-ai/FlagScale#938", ("none", "inconclusive"),
     "[default0]:=== Straggler Report at Step 10 ===\n[default0]:\u2713 No stragglers detected.\n"
     "[default0]:  optimizer:\n[default0]:    Min: 9.17ms, Max: 10.12ms, Avg: 9.55ms, Slowdown: 1.10x\n"
     "[default0]:    Rank 0: 9.98ms\n[default0]:    Rank 1: 10.12ms\n"),
    ("k2-fsa/icefall#63", ("none", "inconclusive"),
     "2021-09-30 01:05:27,005 INFO [asr_datamodule.py:161] (1/6) About to get Musan cuts\n"
     "2021-09-30 01:05:28,902 INFO [asr_datamodule.py:232] (0/6) About to create train dataloader\n"
     "2021-09-30 01:05:29,133 INFO [train.py:727] (0/6) epoch 0, learning rate 0\n"),
    ("ai4d-iasc/trixie#87", ("network_error", "unclassified_failure"),
     "RuntimeError: NCCL error in: /opt/conda/conda-bld/pytorch_1656352465323/work/torch/csrc/distributed/c10d/"
     "ProcessGroupNCCL.cpp:1191, unhandled system error, NCCL version 2.10.3\nncclSystemError: System call (e.g. "
     "socket, malloc) or external library call failed or device error. It can be also caused by unexpected exit of "
     "a remote peer, you can check NCCL warnings for failure reason and see if there is connection closure by a "
     "peer.\n"),
    ("deepspeedai/DeepSpeed#3160", ("oom", "dropped_rank"),
     "[2023-04-07 13:08:55,469] [INFO] [utils.py:838:see_memory_usage] CPU Virtual Memory:  used = 28.43 GB, "
     "percent = 22.6%\n[2023-04-07 13:09:33,201] [INFO] [launch.py:318:sigkill_handler] Killing subprocess 80\n"
     "[2023-04-07 13:09:33,220] [ERROR] [launch.py:324:sigkill_handler] ['/usr/bin/python3', '-u', 'run_clm.py', "
     "'--local_rank=0', '--deepspeed', 'ds_config_stage2_hf.json'] exits with return code = -9\n"),
    ("NVIDIA/nccl-tests#15", ("network_error",),
     "NCCL version 2.2.13+cuda9.0\n" + _BQL.format(t=12) + "INFO comm 0x7fa42c00a3b0 rank 0 nranks 2\n"
     + _BQL.format(t=11) + "include/socket.h:360 WARN Call to connect failed : Connection timed out\n"
     + _BQL.format(t=11) + "INFO bootstrap.cu:119 -> 2 [bthread]\n"
     + _BQL.format(t=12) + "include/socket.h:371 WARN Connection closed by remote peer\n"),
    ("nebius/soperator#428", ("none", "inconclusive"),
     "# nThread 1 nGpus 1 minBytes 536870912 maxBytes 8589934592 step: 2(factor) warmup iters: 5 iters: 20 agg "
     "iters: 1 validation: 1 graph: 0\n#\n# Using devices\n"
     "#  Rank  0 Group  0 Pid   1887 on   worker-1 device  0 [0x8d] NVIDIA H100 80GB HBM3\n"
     "#  Rank  8 Group  0 Pid   1885 on   worker-0 device  0 [0x8d] NVIDIA H100 80GB HBM3\n"),
    ("pytorch/pytorch#121209", ("unclassified_failure",),
     "".join(f"[{r}]:\n  time      : 2024-03-05_07:01:51\n  host      : vmnuvocinpoc.internal.cloudapp.net\n"
             f"  rank      : {r} (local_rank: {r})\n  exitcode  : 1 (pid: {69811 + r})\n  error_file: <N/A>\n"
             "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html\n"
             + ("-" * 60 + "\nRoot Cause (first observed failure):\n" if r == 3 else "") for r in (1, 2, 3, 0))),
    ("NVIDIA/pyxis#122", ("unclassified_failure",),
     "22: slurmstepd: error: pyxis: container start failed with error code: 1\n"
     "22: slurmstepd: error: pyxis: printing enroot log file:\n"
     "22: slurmstepd: error: pyxis:     nvidia-container-cli: ldcache error: process\n"),
    ("huggingface/accelerate#2107", ("network_error", "unclassified_failure"),
     "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1331, "
     "unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.18.1\n"
     "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. \n"
     "Last error:\n\n"),
    ("AlexeyAB/darknet#3496", ("unclassified_failure", "dropped_rank"),
     "CUDA status Error: file: ./src/dark_cuda.c : () : line: 309 : build time: Jun 22 2019 - 11:13:30 \n"
     "CUDA Error: uncorrectable ECC error encountered\n"
     "CUDA Error: uncorrectable ECC error encountered: Cannot allocate memory\n"
     "darknet: ./src/utils.c:293: error: Assertion `0' failed.\n"),
    ("deepinsight/insightface#1444", ("network_error", "unclassified_failure"),
     "  File \"train.py\", line 63, in main\n    dist.broadcast(ps, 0)\n"
     "RuntimeError: NCCL error in: /pytorch/torch/lib/c10d/ProcessGroupNCCL.cpp:518, unhandled system error, NCCL "
     "version 2.4.8\n"),
    ("Lightning-AI/pytorch-lightning#20832", ("collective_skipped", "op_mismatch", "stuck_rank"),
     _PL_TIMEOUT.format(r=2, seq=532339, op="BROADCAST") + _PL_TIMEOUT.format(r=1, seq=532339, op="BROADCAST")
     + _PL_TIMEOUT.format(r=0, seq=532341, op="_ALLGATHER_BASE")),
]


@pytest.mark.parametrize("issue,want,text", CASES, ids=[case[0] for case in CASES])
def test_each_case_of_the_set(issue, want, text, tmp_path):
    verdict = console_verdict(tmp_path, text, progress="")
    assert verdict.cls in want, verdict.summary


@pytest.mark.parametrize("line,entry,fields", [
    ("Accelerator Fatal Error: call to cuCtxCreate returned error 214 (CUDA_ERROR_ECC_UNCORRECTABLE): uncorrectable "
     "ECC error encountered", "cuda.nvhpc_call_failed",
     {"call": "cuCtxCreate", "code": 214, "reason": "uncorrectable ECC error encountered"}),
    ("Accelerator Fatal Error: call to cuMemAlloc returned error 2: Out of memory", "cuda.nvhpc_out_of_memory",
     {"call": "cuMemAlloc"}),
    ("  (CUDA_ERROR_ECC_UNCORRECTABLE): uncorrectable ECC error encountered", "cuda.named_error",
     {"error_name": "CUDA_ERROR_ECC_UNCORRECTABLE"}),
])
def test_the_hpc_sdk_runtime_names_the_failed_driver_call(line, entry, fields):
    (hit,) = match(line)
    assert hit.message.id == entry and fields.items() <= hit.fields.items()


@pytest.mark.parametrize("line", ["CUDA Error: an illegal memory access was encountered",
                                  "CUDA Error Prev: unspecified launch failure"])
def test_darknets_check_error_is_a_cuda_front(line):
    assert [hit.message.id for hit in match(line)] == ["cuda.runtime_error"]


def test_an_hpc_sdk_out_of_memory_is_an_oom(tmp_path):
    text = "Accelerator Fatal Error: call to cuMemAlloc returned error 2 (CUDA_ERROR_OUT_OF_MEMORY): Out of memory\n"
    assert console_verdict(tmp_path, text, PROGRESS).cls == "oom"


def test_a_wrapped_fatal_line_keeps_its_text_in_the_summary(tmp_path):
    text = ("Accelerator Fatal Error: call to cuCtxCreate returned error 214\n"
            "  (CUDA_ERROR_ECC_UNCORRECTABLE): uncorrectable ECC error encountered\n")
    verdict = console_verdict(tmp_path, text, PROGRESS)
    assert verdict.cls == "dropped_rank" and "uncorrectable ECC error encountered" in verdict.summary, verdict.summary
