"""Verdicts on torch's ProcessGroupNCCL teardown and split lines, NCCL 2.30's device-count check, RCCL's SMI and MSCCL++
lines and DeepSpeed's launcher and comm errors (catalogue round srcmined20); each message read in its source and put
in a console written around it.

- torch ProcessGroupNCCL.cpp: abort()'s waitForFutureOrTimeout (`Future for ProcessGroup abort timed out after N ms`,
  2.4 - 2.10: a teardown hang, alone no rank's fault; beside timeouts the same hang), the heartbeat monitor's failed
  `"should dump" flag` check when the store's host died (2.3 - 2.10, a consequence); NCCLUtils.cpp's
  TORCH_NCCL_NONBLOCKING_TIMEOUT warning and DebugInfoWriter's `Error opening file`; NanCheck.cu's device assert
  (TORCH_NCCL_NAN_CHECK, 2.5+); distributed_c10d.split_group's refusals (2.5+); the agent's stub health check server;
  the watchdog's `remote error detected from rank: N` (TORCH_NCCL_PROPAGATE_ERROR, 2.8+) and its 2.6+ `Failed to check
  the signal exception_dump on TCPStore` (echoes of another rank's failure or of the store's host gone).
- torchrun's launch configs (launcher/api.py, INFO): `min_nodes == max_nodes` fixes the world at max_nodes x
  nproc_per_node, so a one-node run's success is the whole job's.
- NCCL 2.30 init.cc: `Detected mixed local Net/CollNet device counts across ranks` (a node with a NIC fewer).
- RCCL rocm_smi_wrap.cc (`ARSMI_lib: <bus id> device index not found`, `ROCm SMI init failure`) and init.cc's MSCCL++
  warnings (RCCL 2.21+: the feature stays off, no failure).
- DeepSpeed runner.py (ssh check, no GPU, hostfile entry or duplicate host, num_nodes without a hostfile) and comm.py (backend not set).
"""
from __future__ import annotations

import pytest

from .consoles import check_case, console_verdict, failure_table, per_rank

_SITE = "/usr/local/lib/python3.10/dist-packages"
_PG = "[PG ID 0 PG GUID 0(default_pg) Rank {r}]"
_ABORT = "Future for ProcessGroup abort timed out after 600000 ms"
_TERM = "W1127 09:45:03.552000 2210 torch/distributed/elastic/multiprocessing/api.py:897] Sending process {} closing " \
        "signal SIGTERM\n"
_NO_TB = "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html"
_SYSTEM = "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. "
_INTERNAL = "ncclInternalError: Internal check failed."
_DS = "[2026-11-27 03:12:03,114] [INFO] [real_accelerator.py:222:get_accelerator] Setting ds_accelerator to cuda " \
      "(auto detect)\n"
_DS_TB = ('Traceback (most recent call last):\n  File "/usr/local/bin/deepspeed", line 6, in <module>\n    main()\n'
          f'  File "{_SITE}/deepspeed/launcher/runner.py", line 471, in main\n')
_NO_HOSTFILE = ("[2026-11-27 03:20:05,871] [WARNING] [runner.py:215:fetch_hostfile] Unable to find hostfile, will proceed "
                "with training with local resources only.\n")


def _ended(rank: int, others=(), exitcode: int = 1, host: str = "gpu-c-11") -> str:
    traceback = _NO_TB if exitcode > 0 else None
    return ("".join(_TERM.format(2240 + r) for r in others)
            + failure_table("train.py", "2026-11-27_09:45:03", host, rank, rank % 8, exitcode, 2240 + rank, traceback)
            + "\n")


def _launch(nodes: int | str, nproc: int) -> str:
    head = "I1127 08:01:02.114000 911 torch/distributed/launcher/api.py:194]"
    low, high = (nodes, nodes) if isinstance(nodes, int) else nodes.split(":")
    return (f"{head} Starting elastic_operator with launch configs:\n{head}   entrypoint       : train.py\n"
            f"{head}   min_nodes        : {low}\n{head}   max_nodes        : {high}\n"
            f"{head}   nproc_per_node   : {nproc}\n{head}   run_id           : none\n")


_SUCCEEDED = ("I1127 09:12:44.880000 911 torch/distributed/elastic/agent/server/api.py:879] [default] worker group "
              "successfully finished. Waiting 300 seconds for other agents to finish.\n"
              "I1127 09:12:44.881000 911 torch/distributed/elastic/agent/server/api.py:932] Local worker group finished "
              "(WorkerState.SUCCEEDED). Waiting 300 seconds for other agents to finish\n")


def _epochs(ranks) -> str:
    return "".join(per_rank("epoch 9 done, val loss 0.311\n", [r]) for r in ranks)


def _teardown(r: int) -> str:
    return (per_rank(f"[E1127 09:44:02.118903417 ProcessGroupNCCL.cpp:1321] {_PG.format(r=r)} {_ABORT}\n", [r], sep="")
            + per_rank('Traceback (most recent call last):\n  File "/workspace/train.py", line 236, in main\n'
                       "    dist.destroy_process_group()\n"
                       f'  File "{_SITE}/torch/distributed/distributed_c10d.py", line 1815, in _shutdown_backend\n'
                       "    backend._shutdown()\n"
                       f"torch.distributed.DistBackendError: {_PG.format(r=r)} {_ABORT}\n", [r]))


def _blocking_wait(r: int) -> str:
    work = ("Work WorkNCCL(SeqNum=4812, OpType=ALLREDUCE, NumelIn=25165824, NumelOut=25165824, Timeout(ms)=600000) "
            "timed out in blocking wait (TORCH_NCCL_BLOCKING_WAIT=1).")
    return (per_rank(f"[E1127 10:31:17.402118003 ProcessGroupNCCL.cpp:1291] {_PG.format(r=r)} {work}\n", [r], sep="")
            + per_rank(f"torch.distributed.DistBackendError: {_PG.format(r=r)} {work}\n", [r])
            + _teardown(r))


def _init(r: int, world: int) -> str:
    return (f"gpu-c-12:{3301 + r}:{3390 + r} [{r}] NCCL INFO comm 0x55d1c0{r}e2a0 rank {r} nRanks {world} nNodes 1 "
            f"localRanks {world} localRank {r} MNNVL 0\n")


def _nccl_failed(ranks, where: str, warn: str, what: str, code: str, version: str) -> str:
    hosts = ("gpu-f-01", "gpu-f-02")
    warns = "".join(f"{hosts[r // 8]}:{40100 + r}:{40400 + r} [{r % 8}] {where} NCCL WARN {warn}\n" for r in ranks)
    return warns + "".join(per_rank(
        'Traceback (most recent call last):\n  File "/workspace/pretrain.py", line 61, in setup\n    dist.barrier()\n'
        "torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:"
        f"3690, {what}, NCCL version {version}\n{code}\nLast error:\n{warn}\n", [r]) for r in ranks)


def _split_refused(ranks, error: str) -> str:
    return "".join(per_rank('Traceback (most recent call last):\n  File "/workspace/train_tp.py", line 57, in <module>\n'
                            "    tp_group = dist.split_group(split_ranks=[[0, 1], [2, 3]])\n"
                            f'  File "{_SITE}/torch/distributed/distributed_c10d.py", line 5004, in split_group\n'
                            f"{error.format(r=r)}\n", [r]) for r in ranks)


_SYSTEM_ERR = "unhandled system error (run with NCCL_DEBUG=INFO for details)"
_INTERNAL_ERR = "internal error - please report this issue to the NCCL developers"
_NAN = ("/pytorch/torch/csrc/distributed/c10d/NanCheck.cu:19: checkForNaN: block: [2,0,0], thread: [14,0,0] Assertion "
        "`!isnan(data[i])` failed.\n")
CASES = {
    # ---- torch ProcessGroupNCCL / NCCLUtils
    "abort_future_timeout_at_teardown": (
        _epochs(range(4)) + "".join(_teardown(r) for r in (1, 3, 0, 2)) + _ended(1, (0, 2, 3)),
        ("timeout_unknown", "unclassified_failure"), None),
    "abort_future_timeout_after_blocking_wait": (
        "".join(_init(r, 4) for r in range(4)) + _epochs(range(4)) + "".join(_blocking_wait(r) for r in (0, 1, 3)),
        ("stuck_rank", "timeout_unknown"), None),
    "should_dump_flag_unreadable_after_the_store_host_died": (
        "".join(f"{r}: step 700 loss 2.113\n" for r in range(4)) + "0: *** SIGSEGV received at time=1764237301 on cpu 12 "
        "***\nsrun: error: gpu-d-01: task 0: Segmentation fault (core dumped)\n"
        + "".join(f"{r}: [W1127 10:35:13.551802610 ProcessGroupNCCL.cpp:1398] {_PG.format(r=r)} Failed to check the "
                  '"should dump" flag on TCPStore, (maybe TCPStore server has shut down too early), with error: '
                  "Connection reset by peer\n" for r in (1, 2, 3))
        + "srun: error: gpu-d-01: tasks 1-3: Terminated\n", ("dropped_rank",), [0]),
    "nonblocking_timeout_without_nonblocking_healthy": (
        _launch(1, 4) + "".join(per_rank(
            "[W1127 08:01:09.031002000 NCCLUtils.cpp:211] Warning: TORCH_NCCL_NONBLOCKING_TIMEOUT has no effect when "
            "TORCH_NCCL_USE_COMM_NONBLOCKING is false. (function _parse_nccl_nonblocking_timeout)\n", [r], sep="")
            for r in range(4)) + _epochs(range(4)) + _SUCCEEDED, ("none",), None),
    "nan_check_device_assert": (
        _epochs(range(4)) + per_rank(_NAN, [3]) + per_rank(
            f"[E1127 11:02:51.330114207 ProcessGroupNCCL.cpp:1595] {_PG.format(r=3)} Process group watchdog thread "
            "terminated with exception: CUDA error: device-side assert triggered\n", [3], sep="") + _ended(3, (0, 1, 2), -6),
        ("dropped_rank", "unclassified_failure"), [3]),
    "debug_info_writer_cannot_open_beside_a_timeout": (
        "".join(per_rank(f"[E1127 02:10:00.118000000 ProcessGroupNCCL.cpp:616] [Rank {r}] Watchdog caught collective "
                         "operation timeout: WorkNCCL(SeqNum=96, OpType=ALLGATHER, NumelIn=4096, NumelOut=16384, "
                         "Timeout(ms)=600000) ran for 600093 milliseconds before timing out.\n"
                         f"[E1127 02:10:10.330000000 NCCLUtils.cpp:374] Error opening file for writing NCCLPG debug info: "
                         f"/mnt/readonly/nccl_trace_rank_{r}\n", [r], sep="") for r in range(4)) + _ended(0, (), -6),
        ("timeout_unknown", "stuck_rank"), None),
    "split_group_backend_cannot_split": (
        _split_refused(range(4), "RuntimeError: No backend for the parent process group or its backend does not support "
                                 "splitting") + _ended(0), ("unclassified_failure",), None),
    "split_group_rank_not_in_parent": (
        _split_refused(range(4, 8), "ValueError: Global rank {r} is not part of the parent group "
                                    "<torch.distributed.distributed_c10d.ProcessGroup object at 0x7f3e2c1b5cb0>")
        + _ended(4), ("unclassified_failure",), None),
    "noop_health_check_server_healthy": (
        _launch(1, 2) + "W1127 00:30:02.410000 700 torch/distributed/elastic/agent/server/health_check_server.py:49] No "
        "health check server started\n" + _epochs(range(2)) + _SUCCEEDED, ("none",), None),
    "remote_error_detected_after_an_ib_completion_error": (
        "gpu-n2-05:5105:5190 [5] transport/net_ib.cc:1700 NCCL WARN NET/IB : Got completion from peer 10.3.1.4<60022> "
        "with status=12 opcode=0 len=0 vendor err 129 (Recv) localGid ::ffff:10.3.1.5 remoteGids::ffff:10.3.1.4 hca "
        "mlx5_3\n" + "".join(per_rank(f"[E1127 07:41:03.220114000 ProcessGroupNCCL.cpp:1992] {_PG.format(r=r)}  remote "
                                      "error detected from rank: 5\n", [r], sep="") for r in (0, 1, 2, 3, 4, 6, 7))
        + _ended(5, (), -6), ("network_error",), None),
    "signal_check_fails_when_the_stores_node_is_gone": (
        "".join(per_rank(f"[W1127 06:02:14.004401000 ProcessGroupNCCL.cpp:1899] {_PG.format(r=r)} Failed to check the "
                         "signal exception_dump on TCPStore, Connection reset by peer\n", [r], sep="") for r in range(4, 8))
        + "W1127 06:02:31.114000 4400 torch/distributed/elastic/rendezvous/dynamic_rendezvous.py:1356] The node "
        "'gpu-k-02_4400_0' has failed to send a keep-alive heartbeat to the rendezvous 'job-8812' due to an error of "
        "type RendezvousConnectionError.\n", ("dropped_rank", "network_error"), None),
    # ---- NCCL 2.30's device counts
    "mixed_local_net_device_counts_230": (
        "".join(f"gpu-f-02:{40100 + r}:{40400 + r} [{r % 8}] NCCL INFO Rank {r} has 3 local Net devices (max 4).\n"
                for r in range(8, 16))
        + _nccl_failed(range(16), "init.cc:1339", "Detected mixed local Net device counts across ranks (min 3, max 4). "
                       "Set NCCL_IGNORE_NET_MISMATCH=1 to continue.", _SYSTEM_ERR, _SYSTEM, "2.30.3") + _ended(0),
        ("network_error", "nic_misselection"), None),
    "mixed_local_collnet_device_counts_230": (
        _nccl_failed(range(16), "init.cc:1362", "Detected mixed local CollNet device counts across ranks (min 0, max 1). "
                     "Set NCCL_IGNORE_COLLNET_MISMATCH=1 to continue.", _SYSTEM_ERR, _SYSTEM, "2.30.3") + _ended(0),
        ("network_error", "nic_misselection", "unclassified_failure"), None),
    # ---- RCCL
    "rccl_arsmi_device_index_not_found": (
        "mi300-n3:7712:7712 [2] rocm_smi_wrap.cc:155 NCCL WARN ARSMI_lib: 0000:25:00.0 device index not found\n"
        + per_rank("torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/"
                   f"ProcessGroupNCCL.cpp:2006, {_INTERNAL_ERR}, NCCL version 2.20.5\n{_INTERNAL}\nLast error:\n"
                   "ARSMI_lib: 0000:25:00.0 device index not found\n", [2]) + _ended(2, (0, 1, 3)),
        ("unclassified_failure", "dropped_rank"), None),
    "rccl_rocm_smi_init_failure": (
        "".join(f"mi250-a7:{9101 + r}:{9101 + r} [{r}] rocm_smi_wrap.cc:34 NCCL WARN ROCm SMI init failure "
                "RSMI_STATUS_INIT_ERROR: An error occurred during initialization, during monitor discovery or when when "
                "initializing internal data structures\n" for r in range(4))
        + "".join(per_rank("torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/"
                           f"ProcessGroupNCCL.cpp:1970, {_INTERNAL_ERR}, NCCL version 2.18.3\n{_INTERNAL}\n", [r])
                  for r in range(4)) + _ended(0), ("unclassified_failure",), None),
    "rccl_mscclpp_cannot_enable_healthy": (
        _launch(1, 8) + "".join(f"mi210-b2:{611 + r}:{611 + r} [{r}] init.cc:2061 NCCL WARN MSCCL++: Cannot enable "
                                "MSCCL++ on gfx90a:sramecc+:xnack- architecture\n" for r in range(8))
        + _epochs(range(8)) + _SUCCEEDED, ("none",), None),
    # ---- DeepSpeed
    "deepspeed_host_not_reachable_via_ssh": (
        _DS + _DS_TB + "    raise RuntimeError(\nRuntimeError: Using hostfile at /job/hostfile but host=worker-0 was not "
        "reachable via ssh. If you are running with a single node please remove /job/hostfile or setup passwordless "
        "ssh.\n", ("network_error", "unclassified_failure"), None),
    "deepspeed_no_gpu_resources": (
        _DS + _NO_HOSTFILE + _DS_TB + '    raise RuntimeError("Unable to proceed, no GPU resources available")\n'
        "RuntimeError: Unable to proceed, no GPU resources available\n", ("unclassified_failure",), None),
    "deepspeed_hostfile_bad_entry": (
        _DS + "[2026-11-27 03:25:01,002] [ERROR] [runner.py:265:_parse_hostfile] Bad hostfile text: ['worker-0 "
        "slots=8\\n', 'worker-1 slot=8\\n']\n" + _DS_TB + "ValueError: Hostfile contains a bad entry: worker-1 slot=8, "
        "unable to proceed with launching\n", ("unclassified_failure",), None),
    "deepspeed_hostfile_duplicate_host": (
        _DS + _DS_TB + "ValueError: Hostfile contains multiple entries for worker-1, unable to proceed with launching\n",
        ("unclassified_failure",), None),
    "deepspeed_num_nodes_without_hostfile": (
        _DS + _NO_HOSTFILE + _DS_TB + "ValueError: Num nodes is >1 but no extra nodes available via hostfile\n",
        ("unclassified_failure",), None),
    "deepspeed_comm_backend_not_set": (
        'Traceback (most recent call last):\n  File "/workspace/train.py", line 33, in <module>\n'
        "    tp_group = dist.new_group([0, 1])\n"
        f'  File "{_SITE}/deepspeed/comm/comm.py", line 188, in new_group\n'
        "AssertionError: DeepSpeed backend not set, please initialize it using init_process_group()\n" * 2
        + "[2026-11-27 03:31:04,554] [ERROR] [launch.py:325:sigkill_handler] ['/usr/bin/python3', '-u', 'train.py', "
        "'--local_rank=1'] exits with return code = 1\n", ("unclassified_failure",), None),
}


@pytest.mark.parametrize("name", CASES)
def test_verdict(name, tmp_path):
    check_case(tmp_path, CASES[name])


@pytest.mark.parametrize("first", [
    "INFO:torch.distributed.launcher.api:Starting elastic_operator with launch configs:\n  entrypoint       : train.py\n"
    "  min_nodes        : 1\n  max_nodes        : 1\n  nproc_per_node   : 2\n",
    "[2024-03-12 08:22:45,549] torch.distributed.launcher.api: [INFO] Starting elastic_operator with launch configs:\n"
    "[2024-03-12 08:22:45,549] torch.distributed.launcher.api: [INFO]   min_nodes        : 1\n"
    "[2024-03-12 08:22:45,549] torch.distributed.launcher.api: [INFO]   max_nodes        : 1\n"
    "[2024-03-12 08:22:45,549] torch.distributed.launcher.api: [INFO]   nproc_per_node   : 2\n",
])
def test_launch_configs_fix_the_world_in_each_logger_format(first, tmp_path):
    # Python logging's default format prefixes only the record's first line; torch 2.1 - 2.3's prefixes every line
    verdict = console_verdict(tmp_path, first + _epochs(range(2)) + _SUCCEEDED, progress="")
    assert verdict.cls == "none", verdict.summary


def test_an_elastic_node_range_fixes_no_world(tmp_path):
    # min_nodes 1, max_nodes 2: the job may have had another node, so one node's success is not the whole job's
    verdict = console_verdict(tmp_path, _launch("1:2", 2) + _epochs(range(2)) + _SUCCEEDED, progress="")
    assert verdict.cls == "inconclusive", verdict.summary



def test_srun_names_the_rank_of_one_task_only(tmp_path):
    # srun's `task 0` is rank 0 where srun starts the ranks itself; `tasks 1-3` names no one rank
    text = ("srun: error: gpu-d-01: tasks 1-3: Terminated\n"
            "srun: error: gpu-d-01: task 0: Exited with exit code 1\n")
    verdict = console_verdict(tmp_path, text)
    assert verdict.culprit_ranks in ([], [0]) and 1 not in verdict.culprit_ranks, verdict.summary
