"""Held-out set 24: console pastes from 2024-2026 issues of the distributed ecosystem around PyTorch (torchtitan,
axolotl, vLLM, OpenRLHF, AReaL, verl, ms-swift, DeepSpeed, Lightning, NeMo/cosmos, slime, ray, nanochat, MiniCPM-V,
llama-cookbook, aws-k8s-tester, NVIDIA/nccl, a GKE Megatron workload) and one blog page, one verdict test per case
with its decisive lines. All 27 were read right at first sight; what changed after:

- ray-project/ray#44533 (vLLM on Ray, ppc64le): `ncclInternalError ... Last error: Attribute busid of node nic not
  found`. NCCL's topology XML (src/graph/xml.h xmlGetAttrStr, WARN in every release 2.6 - 2.30) lacks an attribute of
  a device it cannot place: the host's setup, on every rank of it. It was read right (an internal error is
  unclassified) but as an unknown line; now catalogue nccl.topology_attribute_missing (data `setup`), so the code that
  quotes it is the setup's, not the rank's own crash. An INFO line of the same words (a patched build's,
  NVIDIA/nccl#601) is not this failure.
"""
from __future__ import annotations

import pytest

from nccl_forensics.diagnosis.rank_state import setup_failures
from nccl_forensics.model import Source, SourceKind
from nccl_forensics.sources import parse_source
from nccl_forensics.sources.catalogue import match

from .consoles import PROGRESS, check_case, console_verdict

TIMEOUTS = {"timeout_unknown", "stuck_rank", "collective_skipped"}
DEATH = {"dropped_rank", "oom"}
CUDA = {"unclassified_failure", "dropped_rank"}
NIC = {"network_error", "nic_misselection"}
RAYLET = ("(raylet) A worker died or was killed while executing a task by an unexpected system error. To troubleshoot "
          "the problem, check the logs for the dead worker. Worker exit type: SYSTEM_ERROR Worker exit detail: Worker "
          "unexpectedly exits with a connection error code 2. End of file. There are some potential root causes. (1) "
          "The process is killed by SIGKILL by OOM killer due to high memory usage. (2) ray stop --force is called. (3) "
          "The worker is crashed unexpectedly due to SIGSEGV or other unexpected errors.")
TAKEN_DOWN = ("Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent "
              "GPU operations might run on corrupted/incomplete data.")
FINGERPRINT = ("TensorDeviceTypes=TensorOptions(dtype=float (default), device=cuda, layout=Strided (default), "
               "requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt))")


def _record(seq: int, op: str, numel: int, ms: int = 1800000, out: int | None = None) -> str:
    return f"WorkNCCL(SeqNum={seq}, OpType={op}, NumelIn={numel}, NumelOut={numel if out is None else out}, " \
           f"Timeout(ms)={ms})"


def _print(rank: int, seq: int, op: str, shape: str, dtype: str) -> str:
    return f"CollectiveFingerPrint(SequenceNumber={seq}, OpType={op}, TensorShape=[{shape}], TensorDtypes={dtype}, " \
           f"{FINGERPRINT})"


CASES = [
    # (issue, pasted excerpt, right classes, culprit ranks or None)
    ("torchtitan#1092", f"[rank3]:[E410 14:46:34.629385703 ProcessGroupNCCL.cpp:684] [Rank 3] {TAKEN_DOWN}\n"
     "[rank3]:[E410 14:46:34.630696293 ProcessGroupNCCL.cpp:1896] [PG ID 0 PG GUID 0(default_pg) Rank 3] Process group "
     "watchdog thread terminated with exception: [Rank 3] Watchdog caught collective operation timeout: "
     f"{_record(319682, '_ALLGATHER_BASE', 65667328, 100000, 525338624)} ran for 138169 milliseconds before timing out.",
     TIMEOUTS | {"straggler"}, None),
    ("axolotl#3476", "[rank1]:[E307 05:30:20.039566920 ProcessGroupNCCL.cpp:2057] [PG ID 0 PG GUID 0(default_pg) Rank 1] "
     "Process group watchdog thread terminated with exception: [Rank 1] Watchdog caught collectiv\ne operation timeout: "
     f"{_record(13, 'SCATTER', 384, out=0)} ran for 1800085 milliseconds before timing out.", TIMEOUTS, None),
    ("WeatherGenerator#1533", "\n".join(
        f"[rank{r}]:[E112 15:47:18.728729935 ProcessGroupNCCL.cpp:629] [Rank {r}] Watchdog caught collective operation "
        f"timeout: {_record(1085, 'ALLREDUCE', 4096, 600000)} ran for 600045 milliseconds before timing out.\n"
        f"[rank{r}]:[E112 15:47:18.729000049 ProcessGroupNCCL.cpp:2168] [PG ID 0 PG GUID 0(default_pg) Rank {r}]  "
        "failure detected by watchdog at work sequence id: 1085 PG status: last enqueued work: 1119, last completed "
        "work: 1084" for r in (2, 3)), TIMEOUTS, None),
    ("vllm#20226", "[2025-08-11 10:45:36] server:2699411:2699411 [0] init.cc:416 NCCL WARN Cuda failure 'operation not "
     "supported'\nserver:2699411:2699411 [0] NCCL INFO init.cc:1397 -> 1\n(VllmWorker rank=1 pid=2699412) ERROR 08-11 "
     "10:45:36 [multiproc_executor.py:511] WorkerProc failed to start.", CUDA, None),
    ("vllm#9369", "kmaker-54-033138205093:44713:44745 [3] transport/nvls.cc:246 NCCL WARN Cuda failure 3 'initialization "
     "error'\nkmaker-54-033138205093:44713:44745 [3] NCCL INFO init.cc:1010 -> 1\nkmaker-54-033138205093:44710:44710 [0] "
     "NCCL INFO comm 0x7c1fa60 rank 0 nranks 4 cudaDev 0 busId d1000 - Abort COMPLETE", CUDA, None),
    ("axolotl#1813", "[rank1]: torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU  has a "
     "to\ntal capacity of 23.67 GiB of which 1.59 GiB is free.", {"oom"}, None),
    ("cosmos#85", "Root Cause (first observed failure):\n[0]:\n  time      : 2025-01-27_03:30:50\n  host      : "
     "c314873f2a6c\n  rank      : 1 (local_rank: 1)\n  exitcode  : 1 (pid: 3414)\n  error_file: <N/A>\n  traceback : To "
     "enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html", {"dropped_rank", "unclassified_failure"},
     None),
    ("OpenRLHF#621", f"{RAYLET}\n(RayWorkerWrapper pid=92234, ip=172.19.24.110) mlx5: host_unknown: got completion with "
     "error: [repeated 2x across cluster]\n(RayWorkerWrapper pid=92234, ip=172.19.24.110) [rank1]:[E1224 "
     "13:23:05.483840160 ProcessGroupNCCL.cpp:542] [Rank 12] Collective "
     f"{_record(1, 'BROADCAST', 778567680)} raised the following async exception: NCCL error: remote process exited or "
     "there was a network error, NCCL version 2.21.5", NIC | {"dropped_rank"}, None),
    ("AReaL#3", "(model_worker/12 pid=43581, ip=10.208.16.54) [rank12]:[E227 06:13:07.855233166 ProcessGroupNCCL.cpp:1534]"
     " [PG 134 Rank 1] Process group watchdog thread terminated with exception: NCCL error: remote process exited or "
     "there was a network error, NCCL version 2.22.3\n(model_worker/12 pid=43581, ip=10.208.16.54) ncclRemoteError: A "
     "call failed possibly due to a network error or a remote process exiting prematurely.\n(model_worker/12 pid=43581, "
     "ip=10.208.16.54) NET/IB : Got completion from peer 10.10.11.9<51354> with status=5 opcode=0 len=0 vendor err 249 "
     "(Recv) localGid ::ffff:10.10.15.1 remoteGids::ffff:10.10.14.4", {"network_error", "dropped_rank"}, None),
    ("AReaL#25", "(model_worker/7 pid=20331) 20250404-10:47:52.228 worker ERROR: Worker encountered error NCCL error in: "
     "/opt/pytorch/pytorch/torch/csrc/distributed/c10d/NCCLUtils.hpp:275, remote process exited or there was a network "
     "error, NCCL version 2.22.3\n(model_worker/7 pid=20331) ncclRemoteError: A call failed possibly due to a network "
     "error or a remote process exiting prematurely.\n(model_worker/7 pid=20331) Last error:\n(model_worker/7 pid=20331) "
     "socketStartConnect: exceeded retries (20000)", {"network_error", "dropped_rank"}, None),
    ("verl#2995", f"{RAYLET} [repeated 8x across cluster]\n(WorkerDict pid=833, ip=172.26.153.33) [rank62]:[E809 "
     "14:59:33.656957424 ProcessGroupNCCL.cpp:629] [Rank 62] Watchdog caught collective operation timeout: "
     f"{_record(1, 'ALLREDUCE', 1, 600000)} ran for 600020 milliseconds before timing out.", DEATH | TIMEOUTS, None),
    ("ms-swift#8307", "2026-09-17 13:40:02 [rank2]: RuntimeError: Detected mismatch between collectives on ranks. Rank 2 "
     f"is running collective: {_print(2, 8372, 'BROADCAST', '24084544', 'Float')}, but Rank 0 is running collective: "
     f"{_print(0, 8372, 'BROADCAST', '64', 'Float')}.Collectives differ in the following aspects:   Tensor Tensor "
     "shapes: 24084544vs 64", {"shape_mismatch"}, None),
    ("ms-swift#3955", "[rank7]: RuntimeError: Detected mismatch between collectives on ranks. Rank 7 is running "
     f"collective: {_print(7, 5, '_ALLGATHER_BASE', '1', 'Float')}, but Rank 0 is running collective: "
     f"{_print(0, 5, '_ALLGATHER_BASE', '1', 'BFloat16')}.Collectives differ in the following aspects:   Tensor Tensor "
     "dtypes: Floatvs BFloat16", {"dtype_mismatch"}, None),
    ("DeepSpeed#7568", "[rank2]: RuntimeError: Detected mismatch between collectives on ranks. Rank 2 is running "
     f"collective: {_print(2, 32, 'ALLREDUCE', '', 'Float')}, but Rank 3 is running collective: "
     "CollectiveFingerPrint(SequenceNumber=0OpType=GATHER).Collectives differ in the following aspects:          "
     "Sequence number: 32vs 0  Op type: ALLREDUCEvs GATHER", {"op_mismatch", "collective_skipped"}, None),
    ("OpenRLHF#876", f"make_experience:   0%|          | 0/128 [10:02<?, ?it/s]\n{RAYLET}\n(ReferenceModelRayActor "
     "pid=4347, ip=10.164.204.17) [rank1]:[E317 03:27:31.594678338 ProcessGroupNCCL.cpp:616] [Rank 1] Watchdog caught "
     f"collective operation timeout: {_record(1, '_ALLGATHER_BASE', 110336, 600000, 220672)} ran for 600033 "
     "milliseconds before timing out.", DEATH | TIMEOUTS, None),
    ("vllm#2826", "[E ProcessGroupNCCL.cpp:475] [Rank 0] Watchdog caught collective operation timeout: "
     f"{_record(49, 'ALLREDUCE', 268435456)} ran for 3747540 milliseconds before timing out.\n(RayWorkerVllm pid=1486) "
     "[E ProcessGroupNCCL.cpp:475] [Rank 1] Watchdog caught collective operation timeout: "
     f"{_record(48, 'ALLREDUCE', 268435456)} ran for 3747549 milliseconds before timing out.", TIMEOUTS, None),
    ("nccl#962", "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:"
     "1296, internal error - please report this issue to the NCCL developers, NCCL version 2.18.1\n"
     "node:2134736:2285781 [0] include/alloc.h:178 NCCL WARN Cuda failure 'out of memory'\nnode:2134736:2285781 [0] "
     "include/alloc.h:185 NCCL WARN Failed to CUDA calloc 6291456 bytes", {"oom"}, None),
    ("MiniCPM-V#770", "torch/distributed/elastic/multiprocessing/api.py:826] failed (exitcode: -9) local_rank: 0 (pid: "
     "1322) of binary: /root/miniconda3/bin/python", DEATH, None),
    ("llama-cookbook#79", "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -9) local_rank: 6 (pid: "
     "730) of binary: /data/Anaconda/anaconda3/envs/autogpt/bin/python3.10", DEATH, None),
    ("pytorch-lightning#20757", "user-MH53-G40-001:10225:10225 [0] NCCL INFO NCCL version 2.26.2+cuda12.2\n"
     "user-MH53-G40-001:10225:10549 [0] NCCL INFO NET/Socket : Using [0]enp1s0f0np0:10.70.59.78<0>\nenqueue.cc:1556 NCCL "
     "WARN Cuda failure 700 'an illegal memory access was encountered'", CUDA, None),
    ("ai-infra-cluster-provisioning#383", "GPU 00000000:04:00.0: Detected Critical Xid Error\nTraceback (most recent "
     "call last):\n  File \"/workspace/Megatron-LM/pretrain_gpt.py\", line 220, in <module>\n    "
     "pretrain(train_valid_test_datasets_provider,", CUDA, None),
    ("slime#1297", "  File \"/usr/local/lib/python3.12/dist-packages/torch/cuda/random.py\", line 43, in get_rng_state\n"
     "    return default_generator.get_state()\ntorch.AcceleratorError: CUDA error: an illegal memory access was "
     "encountered", CUDA, None),
    ("aws-k8s-tester#503", "[1,0]<stdout>:           8             2     float     sum      -1    12.90    0.00    0.00"
     "      0    12.87    0.00    0.00      0\n        [1,0]<stdout>:# Out of bounds values : 0 OK\n       "
     "[1,0]<stdout>:# Avg bus bandwidth    : 92.3405 ", {"none", "inconclusive"}, None),
    ("ray#44533", "(RayWorkerVllm pid=7602) ERROR 04-07 00:57:46 ray_utils.py:45] torch.distributed.DistBackendError: "
     "NCCL error in: /root/pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1333, internal error - please report "
     "this issue to the NCCL developers, NCCL version 2.18.6\n(RayWorkerVllm pid=7602) ERROR 04-07 00:57:46 "
     "ray_utils.py:45] ncclInternalError: Internal check failed.\n(RayWorkerVllm pid=7602) ERROR 04-07 00:57:46 "
     "ray_utils.py:45] Last error:\n(RayWorkerVllm pid=7602) ERROR 04-07 00:57:46 ray_utils.py:45] Attribute busid of "
     "node nic not found", NIC | {"unclassified_failure"}, None),
    ("nccl#1410", "[rank5]: torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/"
     "NCCLUtils.hpp:275, unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.20.5\n[rank5]: "
     "ncclUnhandledCudaError: Call to CUDA function failed.\n[rank5]: Last error:\n[rank5]: Cuda failure 1 'invalid "
     "argument'", CUDA, None),
    ("nanochat#443", "    buf706 = empty_strided_cuda((65536, 65536), (65536, 1), torch.bfloat16)\n"
     "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 8.00 GiB. \nGPU has 79.19 GiB total, 6.68 GiB free, "
     "72.48 GiB in use by this process.", {"oom"}, None),
    ("gitcode-vllm-multinode", "jnlh102072:8969:8969 [0] misc/socket.cc:484 NCCL WARN socketStartConnect: Connect to "
     "10.37.12.78<46417> failed : Software caused connection abort\n...\nRuntimeError: NCCL error: unhandled system "
     "error (run with NCCL_DEBUG=INFO for details)", NIC, None),
]


@pytest.mark.parametrize("case", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_held_out_case(case, tmp_path):
    check_case(tmp_path, case)


def _topology_hits(line: str) -> list[str]:
    return [h.message.id for h in match(line) if h.message.id == "nccl.topology_attribute_missing"]


def test_a_missing_topology_attribute_is_read_behind_any_prefix():
    assert _topology_hits("node1:7602:7650 [0] graph/xml.h:107 NCCL WARN Attribute busid of node nic not found")
    assert _topology_hits("(RayWorkerVllm pid=7602) ERROR 04-07 00:57:46 ray_utils.py:45] Attribute busid of node nic "
                          "not found")


def test_an_info_line_of_the_same_words_is_not_the_failure(tmp_path):
    # NCCL prints it as a WARN only; an INFO of these words comes from a patched build that went on (NVIDIA/nccl#601)
    info = "gpu23:1513:1528 [2] NCCL INFO Attribute coll of node net not found"
    assert not _topology_hits(info)
    assert console_verdict(tmp_path, info, progress=PROGRESS).cls in {"none", "inconclusive"}


def test_an_internal_error_that_quotes_a_missing_topology_attribute_is_the_setup(tmp_path):
    # the code and its `Last error:` as torch prints them (ray#44533): the host's setup, not the rank's own crash
    path = tmp_path / "console.log"
    path.write_text(PROGRESS + dict((c[0], c[1]) for c in CASES)["ray#44533"] + "\n", encoding="utf-8")
    events = parse_source(Source(str(path), SourceKind.CONSOLE)).events
    setup = setup_failures(events)
    assert [ev.data.get("code") for ev in events if id(ev) in setup and ev.data.get("code")] == ["ncclInternalError"]
