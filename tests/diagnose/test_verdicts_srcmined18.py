"""Verdicts on lines ncclf did not read, or read wrong, before catalogue round srcmined18; each message read in its
source and put in a console written around it (NCCL 2.19 - 2.30, RCCL of ROCm 6.2+, gloo, torch elastic 2.8+).

- NCCL's newer WARNs: the symmetric registration check (misc/argcheck.cc, 2.30), the symmetric-window space
  (allocator.cc ncclSpaceAlloc, 2.28+: the rank's window space is full, an out-of-memory of its own), a communicator
  without symmetric memory (dev_runtime.cc) or whose GIN registration failed (gin/gin_host.cc, 2.29+), the proxy's
  UDS calls and polls (proxy.cc), a revoked communicator (enqueue.cc, 2.29+), ncclAsyncJobComplete (group.cc), and
  commReclaim's cleanup error during an abort (init.cc 2.14+: the abort's, not a failed setup).
- RCCL: a collective the build left out (enqueue.cc), HIP's `no ROCm-capable device` (a launch setting: no rank of
  its own), MSCCL's missing algorithm files or channel limit (warnings; MSCCL stays off).
- gloo: printConnectivityInfo's lines (tcp/context.cc), Pair::verifyConnected's `Pair is not connected`, a pair's
  read failing with a broken link's strerror (`Connection timed out`: the network's failure, not a peer's exit), and
  the uv transport's `Cannot lock pointer to unbound buffer` (a buffer the program released first: a consequence).
- torch elastic: the exit barrier's error after a node's own success (benign: another agent was slower or failed),
  worker-group restarts after a killed rank, and a restart for new nodes (a membership change, no failure).
"""
from __future__ import annotations

import pytest

from .consoles import PROGRESS, check_case, console_verdict, failure_table, per_rank

_TERM = "W1127 03:14:51.861000 4411 torch/distributed/elastic/multiprocessing/api.py:897] Sending process {} closing " \
        "signal SIGTERM\n"
_TRAIN = ('Traceback (most recent call last):\n  File "/workspace/train.py", line 161, in main\n'
          "    train_step(model, batch, optimizer)\n")
_AGENT = "torch/distributed/elastic/agent/server/api.py"


def _raised(ranks, exception: str) -> str:
    return per_rank(_TRAIN + exception + "\n", list(ranks))


def _ended(rank: int, others=(), exitcode: int = 1, host: str = "gpu-node-07") -> str:
    return ("".join(_TERM.format(5000 + r) for r in others)
            + failure_table("train.py", "2026-11-27_03:14:51", host, rank, rank, exitcode, 5000 + rank,
                            "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html"
                            if exitcode > 0 else None) + "\n")


def _warn(rank: int, where: str, message: str, host: str = "gpu-a100-031") -> str:
    return f"{host}:{5000 + rank}:{5093 + rank} [{rank}] {where} NCCL WARN {message}\n"


def _backend_error(ranks, line: int, what: str, version: str, code: str, last: str) -> str:
    return _raised(ranks, f"torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/"
                          f"ProcessGroupNCCL.cpp:{line}, {what}, NCCL version {version}\n{code}\nLast error:\n{last}")


def _oom(gpu: int) -> str:
    return (f"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU {gpu} has a total capacity "
            "of 79.15 GiB of which 1.31 GiB is free. Process 77121 has 77.83 GiB memory in use.")


_SYMREG = ("Coll AllReduce size 8388608 symmetric registration check failed on rank 3: sendReg 0 recvReg 0 mismatch "
           "with rank 0 sendReg 1 recvReg 1")
_SPACE = "Allocation failed. No suitable space found to accommodate size=0x40000000 within limit=0x100000000"
_UDS = "ncclProxyCallBlockingUDS call to tpRank 5(3f1c9a0e2b7d4c55) failed : 6"
_POLL = "Socket recv failed while polling for opId=0x7f3a0c0012a0"
_REFUSED = ("socketPollConnect: connect to 10.42.1.9<52811> returned Connection refused, exceeded error retry count "
            "after 35 attempts")
_NO_SYMM = "Communicator does not support symmetric memory!"
_GIN = "rank 14 - GIN Symmetric register failed: buff 0x7f2a40000000, size 536870912"
_UNBUILT = ("appendWorkElemP2p: unsupported collective. Please ensure the collective has been enabled in build.")
_NO_DEVICE = "HIP failure 'no ROCm-capable device is detected'"
_MSCCL = ("MSCCL Internal Scheduler:  Unable to find algorithm files in /opt/rocm/lib/msccl-algorithms. Please ensure "
          "that RCCL has been installed properly")
_MSCCL_OFF = ("NCCL_MAX_NCHANNELS:16 is lesser than number of channels required by MSCCL:32, so disabling MSCCL for "
              "allreduce between minBytes:0 and maxBytes:1048576 from file: /opt/rocm/lib/msccl-algorithms/"
              "allreduce-allpairs-8n-32cs.xml")
_ALIGN = "Window address must be suitably aligned."
_INVALID_USAGE = "ncclInvalidUsage: This usually reflects invalid usage of NCCL library."
_REMOTE = ("ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.")


def _record(r: int, seq: int) -> str:
    return (f"[rank{r}]:[E1127 03:24:51.101224 ProcessGroupNCCL.cpp:616] [Rank {r}] Watchdog caught collective "
            f"operation timeout: WorkNCCL(SeqNum={seq}, OpType=ALLREDUCE, NumelIn=1048576, NumelOut=1048576, "
            "Timeout(ms)=600000) ran for 600037 milliseconds before timing out.\n")


def _restart(left: int, pid: int) -> str:
    return (f"W1127 03:12:51.861000 4411 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: -9) "
            f"local_rank: 1 (pid: {pid}) of binary: /opt/conda/bin/python3.11\n"
            f"I1127 03:12:51.902000 4411 {_AGENT}:722] [default] Worker group FAILED. {left}/2 attempts left; will "
            "restart worker group\n")


_EXIT_BARRIER = (
    f"I1127 05:02:11.421000 4411 {_AGENT}:950] Local worker group finished (WorkerState.SUCCEEDED). Waiting 300 "
    "seconds for other agents to finish\n"
    f"E1127 05:07:11.733000 4411 {_AGENT}:977] Error waiting on exit barrier. Elapsed: 300.3117 seconds\n"
    f"E1127 05:07:11.733000 4411 {_AGENT}:977] Traceback (most recent call last):\n"
    f'E1127 05:07:11.733000 4411 {_AGENT}:977]   File "/opt/conda/lib/python3.11/site-packages/torch/distributed/'
    'elastic/utils/store.py", line 212, in barrier\n'
    f"E1127 05:07:11.733000 4411 {_AGENT}:977]     store.wait([last_member_key])\n"
    f"E1127 05:07:11.733000 4411 {_AGENT}:977] torch.distributed.DistStoreError: wait timeout after 300000ms, keys: "
    "/torchelastic/agent/terminal_state/last_member\n")

CASES = {
    # ---- NCCL
    "symmetric_registration_check_rank0_says": (
        _warn(0, "misc/argcheck.cc:104", _SYMREG)
        + _backend_error(range(4), 3690, "invalid argument (run with NCCL_DEBUG=WARN for details)", "2.30.3",
                         "ncclInvalidArgument: Invalid value for an argument.", _SYMREG) + _ended(0, (1, 2, 3)),
        ("unclassified_failure", "collective_skipped"), None),
    "window_space_full_on_one_rank": (
        _warn(2, "allocator.cc:228", _SPACE)
        + _raised([2], "torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/"
                       "symm_mem/NCCLSymmetricMemory.cu:231, internal error - please report this issue to the NCCL "
                       f"developers, NCCL version 2.28.9\nncclInternalError: Internal check failed.\nLast error:\n{_SPACE}")
        + _ended(2, (0, 1, 3)), ("oom",), [2]),
    "proxy_uds_call_after_peer_sigkill": (
        "".join(_warn(r, "proxy.cc:1275", _UDS) for r in (0, 1, 2, 4))
        + "E1127 03:14:51.852000 4411 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: -9) "
          "local_rank: 5 (pid: 5005) of binary: /usr/bin/python3\n" + _ended(5, (0, 1, 2, 4), exitcode=-9),
        ("dropped_rank", "oom"), [5]),
    "proxy_socket_recv_failed_polling": (
        "".join(_warn(r, "proxy.cc:1248", _POLL) for r in range(4))
        + _backend_error(range(4), 2027, "remote process exited or there was a network error", "2.23.4", _REMOTE, _POLL)
        + _ended(0, (1, 2, 3)), ("network_error", "dropped_rank"), None),
    "revoked_after_peer_oom": (
        _raised([3], _oom(3)) + "".join(_warn(r, "enqueue.cc:3129", "AllReduce: communicator was revoked")
                                        for r in range(3))
        + _backend_error(range(3), 3690, "invalid usage (run with NCCL_DEBUG=WARN for details)", "2.29.2",
                         _INVALID_USAGE, "AllReduce: communicator was revoked") + _ended(3, (0, 1, 2)),
        ("oom",), [3]),
    "async_job_failed_connect_refused": (
        "".join(_warn(r, "misc/socket.cc:569", _REFUSED) + _warn(r, "group.cc:89", f"ncclAsyncJobComplete: job "
                                                                 f"0x55d1c2{r}a0b40 failed, job error 6")
                for r in (0, 1))
        + _backend_error((0, 1), 3353, "remote process exited or there was a network error", "2.27.5", _REMOTE,
                         _REFUSED) + _ended(0, (1,)), ("network_error", "dropped_rank"), None),
    "no_symmetric_memory_every_rank": (
        "".join(_warn(r, "dev_runtime.cc:1523", _NO_SYMM) for r in range(4))
        + _backend_error(range(4), 287, "invalid usage (run with NCCL_DEBUG=WARN for details)", "2.28.3",
                         _INVALID_USAGE, _NO_SYMM) + _ended(0, (1, 2, 3)), ("unclassified_failure",), None),
    "gin_register_failed_one_rank": (
        _warn(6, "gin/gin_host.cc:393", _GIN)
        + _backend_error([14], 231, "unhandled system error (run with NCCL_DEBUG=INFO for details)", "2.29.7",
                         "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device "
                         "error.", _GIN)
        + _ended(14, (0, 1, 2)), ("unclassified_failure", "network_error"), [14]),
    "commreclaim_after_watchdog_timeout": (
        "".join(_record(r, 88) for r in range(3))
        + "".join(_warn(r, "init.cc:2199", f"commReclaim: cleanup comm 0x55ab1c{r}0e700 rank {r} failed in "
                                           "destroy/abort, error 3") for r in range(3))
        + _ended(0, (1, 2), exitcode=-6), ("stuck_rank", "timeout_unknown"), None),
    # ---- RCCL
    "rccl_collective_not_built": (
        "".join(_warn(r, "enqueue.cc:193", _UNBUILT, host="mi300x-n07") for r in range(8))
        + _backend_error(range(8), 3356, "invalid usage (run with NCCL_DEBUG=WARN for details)", "2.21.5",
                         _INVALID_USAGE, _UNBUILT) + _ended(0, range(1, 8), host="mi300x-n07"),
        ("unclassified_failure", "version_mismatch"), None),
    "rccl_no_rocm_device_one_rank": (
        _warn(2, "init.cc:1919", _NO_DEVICE, host="mi300x-n07")
        + _backend_error([2], 3356, "unhandled cuda error (run with NCCL_DEBUG=INFO for details)", "2.21.5",
                         "ncclUnhandledCudaError: Call to CUDA function failed.", _NO_DEVICE)
        + _ended(2, (0, 1, 3), host="mi300x-n07"), ("unclassified_failure", "dropped_rank"), None),
    "rccl_msccl_files_missing_then_segfault": (
        "".join(_warn(r, "msccl/msccl_lifecycle.cc:169", _MSCCL, host="mi300x-n07") for r in range(8))
        + PROGRESS + _ended(5, (0, 1, 2, 3, 4, 6, 7), exitcode=-11, host="mi300x-n07"), ("dropped_rank",), [5]),
    # ---- gloo
    "gloo_all_connected_then_oom": (
        "".join(f"[Gloo] Rank {r} is connected to 3 peer ranks. Expected number of connected peer ranks is : 3\n"
                for r in range(4)) + PROGRESS + _raised([2], _oom(2)) + _ended(2, (0, 1, 3)), ("oom",), [2]),
    "gloo_not_connected_then_recv_timeout": (
        "".join(f"[Gloo] Rank {r} is connected to 2 peer ranks. Expected number of connected peer ranks is : 3\n"
                f"[Gloo] Rank {r} is NOT connected to: [3]\n" for r in range(3))
        + _raised(range(3), "RuntimeError: [../third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:81] Timed out "
                            "waiting 1800000ms for recv operation to complete") + _ended(0, (1, 2)),
        ("stuck_rank", "dropped_rank", "network_error", "timeout_unknown"), None),
    "gloo_pair_not_connected": (
        _raised([1], "RuntimeError: [enforce fail at ../third_party/gloo/gloo/transport/tcp/pair.cc:787] state_ >= "
                     "CONNECTED. 1 vs 2. Pair is not connected ([10.0.3.12]:40217 <--> [10.0.3.14]:35561)")
        + _ended(1, (0, 2, 3)), ("network_error",), [1]),
    "gloo_read_connection_timed_out": (
        "".join(_raised([r], "RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:534] Read error "
                             f"[10.8.0.{21 + r}]:{45112 + r}: Connection timed out") for r in (0, 2))
        + _ended(0, (1, 2, 3)), ("network_error",), None),
    "rccl_msccl_channel_limit_then_timeout": (
        "".join(_warn(r, "msccl/msccl_lifecycle.cc:132", _MSCCL_OFF, host="mi300x-n07") for r in range(4)) + PROGRESS
        + "".join(_record(r, 311) for r in (0, 1, 3)) + _ended(0, (1, 3), exitcode=-6, host="mi300x-n07"),
        ("stuck_rank", "timeout_unknown"), None),
    "window_address_not_aligned_every_rank": (
        "".join(_warn(r, "dev_runtime.cc:881", _ALIGN) for r in range(4))
        + _backend_error(range(4), 231, "invalid argument (run with NCCL_DEBUG=WARN for details)", "2.28.9",
                         "ncclInvalidArgument: Invalid value for an argument.", _ALIGN) + _ended(0, (1, 2, 3)),
        ("unclassified_failure",), None),
    "gloo_uv_unbound_buffer_abort": (
        "terminate called after throwing an instance of 'gloo::EnforceNotMet'\n  what():  [enforce fail at "
        "../third_party/gloo/gloo/transport/uv/pair.cc:338] buf. Cannot lock pointer to unbound buffer\n"
        + _ended(1, (0, 2, 3), exitcode=-6), ("unclassified_failure", "dropped_rank"), None),
    # ---- torch elastic
    "exit_barrier_error_after_own_success": (_EXIT_BARRIER, ("inconclusive",), None),
    "new_nodes_restart_then_success": (
        f"I1127 03:20:01.120000 4411 {_AGENT}:740] [default] Detected 1 new nodes from group_rank=0; will restart "
        f"worker group\n{PROGRESS}I1127 05:02:11.421000 4411 {_AGENT}:950] Local worker group finished "
        "(WorkerState.SUCCEEDED). Waiting 300 seconds for other agents to finish\n"
        f"I1127 05:02:14.003000 4411 {_AGENT}:964] Done waiting for other agents. Elapsed: 2.5819 seconds\n",
        ("none", "inconclusive"), None),
    "worker_group_restarts_rank_killed": (
        _restart(2, 5101) + PROGRESS + _restart(1, 5111) + PROGRESS + _ended(1, (0, 2, 3), exitcode=-9),
        ("dropped_rank", "oom"), [1]),
}


@pytest.mark.parametrize("name", CASES)
def test_verdict(name, tmp_path):
    check_case(tmp_path, CASES[name])


def test_commreclaim_alone_is_no_setup_failure(tmp_path):
    verdict = console_verdict(tmp_path, CASES["commreclaim_after_watchdog_timeout"][0])
    assert "communicator setup failed" not in verdict.summary, verdict.summary


def test_a_full_window_space_says_how_to_make_room(tmp_path):
    verdict = console_verdict(tmp_path, CASES["window_space_full_on_one_rank"][0])
    assert verdict.cls == "oom" and "NCCL_WIN_STRIDE" in verdict.fix, verdict.fix
