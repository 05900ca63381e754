"""Verdicts on lines ncclf did not read before catalogue round srcmined15, each message read in its source and put in a
console written around it:

- NCCL RAS's JSON client output (`ncclras -f json`, 2.28.7+: a missing rank considered dead or only unresponsive, ranks
  with an async error, every rank present) and monitor events (`-m -f json`, 2.29+: PEER_DEAD), src/ras/client_support.cc;
- RAS's NCCL_DEBUG lines (2.24+): `RAS declaring peer <addr> as DEAD` (peers.cc) before the job's watchdog timeouts (a
  process went away), after peers that exited cleanly (RAS runs until process exit, so a process that outlives its
  peers by 60 s declares them dead: no failure), a keep-alive warning that recovered, the RAS version-mismatch WARN;
- NVLS (transport/nvls.cc, include/cudawrap.h): the multicast bind failure and cuMulticastCreate's CUDA failure (fatal,
  the machine's), NCCL_NVLS_ENABLE=1 with ranks sharing an NVML device (invalid usage), `NVLS multicast support is not
  available` and a user buffer's multicast-bind failure at INFO (benign);
- ROCm BLAS: rocBLAS's missing Tensile library for the GPU arch (it aborts: the install has no kernels for this GPU),
  hipBLASLt's `rocblaslt error: Cannot read` (it goes on: benign alone, the cause once a hipblasLt call then fails),
  torch's `Attempting to use hipBLASLt on an unsupported architecture` and rocBLAS's `No paths matched` (benign);
- MPICH hydra's (and Intel MPI's) termination blocks, MPI_Abort, exit string and a proxy whose control link closed.
"""
from __future__ import annotations

import pytest

from .consoles import check_case

_RANK = """        {{
          "rank": {r},
          "host": "10.18.4.21",
          "pid": {pid},
          "cuda_dev": {r},
          "nvml_dev": {r},
          "status": {{
            "init_state": 0,
            "async_error": {err},
            "finalize_called": false,
            "destroy_flag": false,
            "abort_flag": {abort}
          }},
          "collective_counts": {{
            "AllReduce": 5120,
            "AllGather": 2048
          }}
        }}"""
_MISSING = """        {{
          "rank": {r},
          "host": "10.18.4.21",
          "pid": {pid},
          "cuda_dev": {r},
          "nvml_dev": {r},
          "status": {{
            "unresponsive": true,
            "considered_dead": {dead}
          }}
        }}"""


def _report(version: str, size: int, missing: dict[int, bool], errors: dict[int, int] | None = None) -> str:
    """A `ncclras -f json` report of one communicator, as client_support.cc writes it (one key a line)."""
    errors = errors or {}
    ranks = ",\n".join(_RANK.format(r=r, pid=41000 + r, err=errors.get(r, 0), abort=str(bool(errors)).lower())
                       for r in range(size) if r not in missing)
    gone = ",\n".join(_MISSING.format(r=r, pid=41000 + r, dead=str(dead).lower()) for r, dead in missing.items())
    return (f'$ ncclras -f json\n{{\n  "nccl_version": "{version}",\n  "cuda_runtime_version": 12080,\n'
            f'  "cuda_driver_version": 12080,\n  "timestamp": "2026-03-02 11:42:17",\n  "communicators_count": 1,\n'
            f'  "communicators": [\n    {{\n      "hash": "0x8c2b6d4e1f0a7391",\n'
            f'      "secondary_hash": "0x5c1a7e0d9b2f4411:0x0000000000a1b2c3",\n      "size": {size},\n'
            f'      "ranks_count": {size - len(missing)},\n      "missing_ranks_count": {len(missing)},\n'
            f'      "ranks": [\n{ranks}\n      ],\n      "missing_ranks": [\n{gone}\n      ]\n    }}\n  ],\n'
            f'  "ras": {{\n    "collection_time_sec": 5.012,\n    "timeouts_count": 0\n  }}\n}}\n')


def _monitor(event: str, details: str) -> str:
    return (f'{{\n  "timestamp": "2026-03-02 12:04:46",\n  "group": "LIFECYCLE",\n  "event": "{event}",\n'
            f'  "peer": {{\n    "host": "10.18.4.22",\n    "pid": 88231,\n    "cuda_devs": [3],\n    "nvml_devs": [3]\n'
            f'  }},\n  "details": "{details}"\n}}\n')


def _info(pid: int, dev: int, msg: str) -> str:
    return f"gpu-a07:{pid}:{pid + 89} [{dev}] NCCL INFO {msg}\n"


_WATCHDOG = "".join(
    f"[rank{r}]:[E302 14:22:48.{100 + r}000 {30110 + r} ProcessGroupNCCL.cpp:632] [Rank {r}] Watchdog caught collective "
    f"operation timeout: WorkNCCL(SeqNum=24115, OpType=ALLREDUCE, NumelIn=51380224, NumelOut=51380224, "
    f"Timeout(ms)=600000) ran for 600081 milliseconds before timing out.\n" for r in range(4))
_DEAD = _info(30110, 0, "RAS declaring peer 10.40.1.8<51877> as DEAD; rasDeadPeersHash 0x3f9e2a11c04b7d65")
_RETRY = _info(30110, 0, "RAS connect retry timeout (60s) on socket connection with 10.40.1.8<51877>")
_DONE = "".join(f"[rank{r}]:" + _info(6100 + r, r, f"comm 0x5512ee0 rank {r} nranks 4 cudaDev {r} busId 1b000 - "
                                      "Destroy COMPLETE") for r in range(4))
_NVLS_ABORT = ("[rank3]: torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/"
               "ProcessGroupNCCL.cpp:3356, unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version "
               "2.26.2\n[rank3]: ncclUnhandledCudaError: Call to CUDA function failed.\n[rank3]: Last error:\n")
_BAD = "===================================================================================\n"
_TRAINED = "{'train_runtime': 3011.4, 'train_samples_per_second': 10.6, 'train_loss': 1.117, 'epoch': 1.0}\n"
HEALTHY = ["none", "inconclusive"]
NO_CODE = ["version_mismatch", "unclassified_failure"]

CASES = {
    "ras_json_missing_rank_dead": (_report("2.28.7", 8, {5: True}), ["dropped_rank"], [5]),
    "ras_json_missing_rank_unresponsive": (_report("2.29.3", 8, {5: False}), ["stuck_rank"], [5]),
    "ras_json_all_present": (_report("2.30.4", 4, {}), ["inconclusive"], None),
    "ras_json_async_errors": (_report("2.28.9", 4, {}, {0: 6, 1: 2, 2: 6, 3: 6}),
                              ["unclassified_failure", "network_error"], None),
    "ras_json_monitor_peer_dead": ("$ ncclras -m -f json\n" + _monitor("PEER_UNRESPONSIVE", "peer not responding for 5s "
                                   "(keepalive warning)") + _monitor("PEER_DEAD", ""), ["dropped_rank"], None),
    "ras_debug_dead_then_watchdog": (
        _info(30110, 0, "RAS keep-alive timeout error (20s) on socket connection with 10.40.1.8<51877>") + _RETRY
        + _DEAD + _WATCHDOG, ["dropped_rank"], None),
    "ras_debug_dead_after_clean_exit": (
        "{'train_runtime': 20411.2, 'train_loss': 0.6018, 'epoch': 3.0}\n[rank0]:Saving model checkpoint to /ckpt/final\n"
        + _RETRY + _DEAD + "[rank0]:Model weights saved in /ckpt/final/model.safetensors\n", HEALTHY, None),
    "ras_debug_keepalive_recovered": (
        _info(9100, 0, "RAS keep-alive timeout warning (6s) on socket connection with 10.9.0.4<38811>")
        + _info(9100, 0, "RAS recovered connection with 10.9.0.4<38811> (sendQ empty, experiencingDelays 1, "
                "startRetryTime 0.00s)") + "epoch 4 step 400 loss 1.688\n[rank0]:training done in 3h12m\n", HEALTHY, None),
    "ras_version_mismatch_warn": (
        "node7:4410:4470 [0] ras/ras.cc:415 NCCL WARN NCCL version mismatch with remote peer 10.1.0.8<47211> (local: "
        "2.26.2+cuda12.8, remote 2.27.3+cuda12.9)\n", ["version_mismatch"], None),
    "ras_debug_dead_broadcast_then_ib_error": (
        _info(2200, 0, "RAS handling deadPeer (addr 10.7.3.13<45001>)") + _DEAD
        + "[rank0]:[E302 09:12:44.118000 2200 ProcessGroupNCCL.cpp:1895] [PG ID 0 PG GUID 0(default_pg) Rank 0] Process "
          "group watchdog thread terminated with exception: NCCL error: remote process exited or there was a network "
          "error, NCCL version 2.25.1\n[rank0]:ncclRemoteError: A call failed possibly due to a network error or a "
          "remote process exiting prematurely.\n[rank0]:Last error:\n[rank0]:NET/IB : Got completion from peer "
          "10.7.3.13<45001> with status=12 opcode=0 len=0 vendor err 129 (Recv)\n", ["network_error", "dropped_rank"], None),
    "nvls_bind_mem_failed": (
        "h100-22:5503:5503 [3] transport/nvls.cc:381 NCCL WARN Failed to bind NVLink SHARP (NVLS) Multicast memory of "
        "size 1610612736 : CUDA error 401 'the operation cannot be performed in the present state'.\n" + _NVLS_ABORT
        + "[rank3]: Failed to bind NVLink SHARP (NVLS) Multicast memory of size 1610612736 : CUDA error 401 'the "
          "operation cannot be performed in the present state'.\n", ["unclassified_failure"], None),
    "nvls_multicast_create_unsupported": (
        _info(12000, 0, "NVLS Creating Multicast group nranks 2 size 1610612736 on rank 0")
        + "gh200-01:12000:12000 [0] include/cudawrap.h:37 NCCL WARN Cuda failure 801 'operation not supported'\n"
        + _NVLS_ABORT.replace("rank3", "rank0") + "[rank0]: Cuda failure 801 'operation not supported'\n",
        ["unclassified_failure"], None),
    "nvls_enable_multi_rank_same_device": (
        "gpu-box:3300:3300 [0] transport/nvls.cc:254 NCCL WARN NCCL_NVLS_ENABLE has been set to \"1\" and communicator "
        "has multiple ranks using the same NVML device. This is not compatible with NCCL_NVLS_ENABLE=1.\n"
        "[rank0]: torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/"
        "ProcessGroupNCCL.cpp:3480, invalid usage (run with NCCL_DEBUG=WARN for details), NCCL version 2.27.5\n",
        ["unclassified_failure"], None),
    "nvls_not_available_healthy": (
        "".join(f"[rank{r}]:" + _info(6100 + r, r, f"NVLS multicast support is not available on dev {r}") for r in range(4))
        + "Test accuracy: 93.1%\n" + _DONE, HEALTHY, None),
    "nvls_user_buffer_bind_info_healthy": (
        "[rank1]:" + _info(6101, 1, "Failed to multicast-bind user buffer: CUDA error 800 'operation not permitted'")
        + "  successfully saved checkpoint from iteration 500 to /ckpt\n" + _DONE, HEALTHY, None),
    "rocblas_tensile_library_missing_abort": (
        "[rank0]:rocBLAS error: Cannot read /opt/venv/lib/python3.12/site-packages/torch/lib/rocblas/library/"
        "TensileLibrary.dat: No such file or directory for GPU arch : gfx1151\n[rank0]: List of available "
        "TensileLibrary Files : \nE0302 10:01:19.880000 8812 torch/distributed/elastic/multiprocessing/api.py:869] "
        "failed (exitcode: -6) local_rank: 0 (pid: 8840) of binary: /opt/venv/bin/python\n", NO_CODE, None),
    "hipblaslt_unsupported_arch_warning_healthy": (
        "[rank0]:/opt/venv/lib/python3.10/site-packages/torch/nn/modules/linear.py:125: UserWarning: Attempting to use "
        "hipBLASLt on an unsupported architecture! Overriding blas backend to hipblas (Triggered internally at "
        "/pytorch/aten/src/ATen/Context.cpp:296.)\n" + _TRAINED, HEALTHY, None),
    "hipblaslt_library_missing_matmul_fails": (
        "[rank0]:rocblaslt error: Cannot read \"/opt/venv/lib/python3.12/site-packages/torch/lib/hipblaslt/library/"
        "TensileLibrary_lazy_gfx1201.dat\": No such file or directory\n[rank0]: Traceback (most recent call last):\n"
        "[rank0]:   File \"/work/pretrain.py\", line 214, in <module>\n[rank0]:     loss = model(batch).loss\n"
        "[rank0]: RuntimeError: CUDA error: HIPBLAS_STATUS_INVALID_VALUE when calling `hipblasLtMatmulAlgoGetHeuristic( "
        "ltHandle, computeDesc.descriptor(), Adesc.descriptor(), Bdesc.descriptor(), Cdesc.descriptor(), "
        "Cdesc.descriptor(), preference.descriptor(), 1, &heuristicResult, &returnedResult)`\n", NO_CODE, None),
    "hipblaslt_library_missing_job_completes": (
        "rocblaslt error: Cannot read \"/opt/rocm/lib/hipblaslt/library/TensileLibrary_lazy_gfx1100.dat\": No such "
        "file or directory\n[rank0]:step 1000/1000 loss 1.47\n[rank0]:Done. Saved final checkpoint to out/final.pt\n",
        HEALTHY, None),
    "rocblas_no_paths_matched_healthy": (
        "rocBLAS warning: No paths matched /opt/rocm/lib/rocblas/library/*gfx942*co. Make sure that "
        "ROCBLAS_TENSILE_LIBPATH is set correctly.\n[rank0]: training complete, best val loss 1.09\n", HEALTHY, None),
    "hydra_bad_termination_rank_killed": (
        f"[0] step 4200 loss 1.809\n{_BAD}=   BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES\n=   RANK 5 PID 219977 "
        f"RUNNING AT c2-node02\n=   KILLED BY SIGNAL: 9 (Killed)\n{_BAD}", ["dropped_rank", "oom"], [5]),
    "hydra_rank_oom_exit_code": (
        "[2] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.50 GiB. GPU 2 has a total capacity of "
        "79.10 GiB of which 1.20 GiB is free.\n"
        f"{_BAD}=   BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES\n=   RANK 2 PID 77120 RUNNING AT gpu-n1\n"
        f"=   EXIT CODE: 1\n=   CLEANING UP REMAINING PROCESSES\n{_BAD}", ["oom"], [2]),
    "mpich_abort_one_rank": (
        "Abort(1) on node 7 (rank 7 in comm 0): application called MPI_Abort(MPI_COMM_WORLD, 1) - process 7\n",
        ["unclassified_failure", "dropped_rank"], [7]),
    "hydra_exit_string_segfault": (
        "YOUR APPLICATION TERMINATED WITH THE EXIT STRING: Segmentation fault (signal 11)\nThis typically refers to a "
        "problem with your application.\n", ["unclassified_failure", "dropped_rank"], None),
    "hydra_proxy_closed_terminated_badly": (
        "[proxy:0:1@cn-117] HYD_pmcd_pmip_control_cmd_cb (pm/pmiserv/pmip_cb.c:887): assert (!closed) failed\n"
        "[mpiexec@cn-116] HYDT_bscu_wait_for_completion (tools/bootstrap/utils/bscu_wait.c:76): one of the processes "
        "terminated badly; aborting\n", ["dropped_rank"], None),
    "hydra_healthy_prefixed_ranks": ("".join(f"[{r}] rank {r} finished\n" for r in range(8)), HEALTHY, None),
}


@pytest.mark.parametrize("name", CASES)
def test_verdict(name, tmp_path):
    check_case(tmp_path, CASES[name])
