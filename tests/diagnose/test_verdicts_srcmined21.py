"""Verdicts on NCCL 2.6 - 2.30 WARN lines of failed setups (net_ib connect.cc and p2p_resiliency.cc, p2p.cc,
cudawrap.cc, graph paths.cc / topo.cc / xml.cc, enqueue.cc, proxy.cc), torch's libuv TCPStore server warnings and the
kernel's mlx5 command timeouts, Xid 109 and hung tasks (catalogue round srcmined21); each message read in its source and
put in a console written around it.

- NCCL: `mlx5dv_create_qp failed to create QP` (2.30), `Trying to use non-existent virtual device` (2.26+), `OOO RQ is
  force enabled but AR is not enabled` (2.30), `cudaIpcGetMemHandle failed` (2.8+), `CUDA some PFN functions not found`
  (2.13+: a driver older than the build, V501), `P2P is disabled between NVLINK connected GPUs` (2.12+), `Could not find
  any local path from gpu N to net` (2.25+), `XML Topology has wrong version` (2.6+), `cudaArch N dynamic smem N exceeds
  device/fn maxSharedMem` (2.29.7+; `ncclMaxSharedMem` 2.26 - 2.29.2: ncclSystemError that is no network's), mixed
  graph-captured streams in a group (2.13+), FP8 reductions before sm90 (2.24+), IB resiliency without a replacement QP
  and on a one-NIC comm (2.29.7+, the latter advice only), `ncclProxyClientGetFd` after its peer died (2.19+).
- NCCL round 2: `commDestroySync ... sync hostStream error` (2.24+, a teardown echo), `GIN Error detected` (2.29.7+,
  ncclRemoteError), NCCL_NET_FORCE_MERGE's `Only matched N devices` (2.24+), PXN's `Could not find intermediate GPU`.
- torch TCPStoreLibUvBackend (2.4+): `Error processing client message` from a stray connection, `Write to client
  failed` to a dead client: neither is the failure; `Failed to accept client due to ... EMFILE`: the store refused
  clients, so a store wait's count names no rank that never arrived.
- Linux mlx5 cmd.c wait_func's firmware command timeout; NVRM Xid 109 (CTX SWITCH TIMEOUT), its pid read to a rank;
  kernel/hung_task.c naming one rank's process while the others time out.
"""
from __future__ import annotations

import pytest

from .consoles import check_case, console_verdict, failure_table, per_rank

_TB = ('Traceback (most recent call last):\n  File "/workspace/pretrain.py", line 61, in setup\n    dist.barrier()\n'
       "torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:"
       "3690, {what}, NCCL version {version}\n{code}\nLast error:\n{warn}\n")
_ERRORS = {
    "internal": ("internal error - please report this issue to the NCCL developers",
                 "ncclInternalError: Internal check failed."),
    "system": ("unhandled system error (run with NCCL_DEBUG=INFO for details)",
               "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. "),
    "cuda": ("unhandled cuda error (run with NCCL_DEBUG=INFO for details)",
             "ncclUnhandledCudaError: Call to CUDA function failed."),
    "usage": ("invalid usage (run with NCCL_DEBUG=WARN for details)",
              "ncclInvalidUsage: This usually reflects invalid usage of NCCL library."),
    "argument": ("invalid argument (run with NCCL_DEBUG=WARN for details)",
                 "ncclInvalidArgument: Invalid value for an argument."),
}
_NO_TB = "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html"
_PG = "[PG ID 0 PG GUID 0(default_pg) Rank {r}]"
_SUCCEEDED = ("I1127 09:12:44.880000 911 torch/distributed/elastic/agent/server/api.py:879] [default] worker group "
              "successfully finished. Waiting 300 seconds for other agents to finish.\n"
              "I1127 09:12:44.881000 911 torch/distributed/elastic/agent/server/api.py:932] Local worker group finished "
              "(WorkerState.SUCCEEDED). Waiting 300 seconds for other agents to finish\n")


def _host(r: int) -> str:
    return ("gpu-g-01", "gpu-g-02")[r // 8]


def _warn(ranks, where: str, warn: str, base: int = 51000) -> str:
    return "".join(f"{_host(r)}:{base + r}:{base + 300 + r} [{r % 8}] {where} NCCL WARN {warn}\n" for r in ranks)


def _failed(ranks, where: str, warn: str, error: str, version: str, base: int = 51000) -> str:
    what, code = _ERRORS[error]
    return _warn(ranks, where, warn, base) + "".join(
        per_rank(_TB.format(what=what, code=code, version=version, warn=warn), [r]) for r in ranks) + \
        failure_table("pretrain.py", "2026-11-27_07:15:40", _host(ranks[0]), ranks[0], ranks[0] % 8, 1,
                      base + ranks[0], _NO_TB) + "\n"


def _timeouts(ranks, seq: int) -> str:
    return "".join(per_rank(
        f"[E1127 05:30:12.330100000 ProcessGroupNCCL.cpp:632] {_PG.format(r=r)} Watchdog caught collective operation "
        f"timeout: WorkNCCL(SeqNum={seq}, OpType=ALLREDUCE, NumelIn=16777216, NumelOut=16777216, Timeout(ms)=600000) "
        "ran for 600044 milliseconds before timing out.\n", [r]) for r in ranks)


def _comm(host: str, base: int, world: int) -> str:
    return "".join(f"{host}:{base + r}:{base + 300 + r} [{r}] NCCL INFO comm 0x55e1c0{r}1a0 rank {r} nRanks {world} "
                   f"nNodes 1 localRanks {world} localRank {r} MNNVL 0\n" for r in range(world))


def _segv(rank: int, pid: int) -> str:
    return (per_rank("*** SIGSEGV received at time=1764223001 on cpu 31 ***\n", [rank])
            + f"E1127 10:01:42.204000 63990 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: -11) "
              f"local_rank: {rank} (pid: {pid}) of binary: /usr/bin/python3\n"
            + failure_table("train.py", "2026-11-27_10:01:41", "node9", rank, rank, -11, pid) + "\n")


_PFN = "CUDA some PFN functions not found in the library"
_P2P = ("P2P is disabled between NVLINK connected GPUs 2 and 5. This should not be the case given their connectivity, "
        "and is probably due to a hardware issue. If you still want to proceed, you can set NCCL_IGNORE_DISABLED_P2P=1.")
_SMEM = "cudaArch 900 dynamic smem 236544 exceeds device/fn maxSharedMem 232448"
_CAPTURE = ("Streams given to a communicator within a NCCL group must either be all uncaptured or all captured by the "
            "same graph.")
_OOO = "NET/IB: OOO RQ is force enabled but AR is not enabled, which is required for OOO RQ (device=mlx5_0)"
_HUNG = ("[86401.118220] INFO: task pt_main_thread:71302 blocked for more than 122 seconds.\n"
         "[86401.118241]       Tainted: P           OE      6.8.0-48-generic #48-Ubuntu\n"
         "[86401.118255] task:pt_main_thread  state:D stack:0     pid:71302 tgid:71302 ppid:71290  flags:0x00004002\n"
         "[86401.118262] Call Trace:\n[86401.118301]  os_acquire_mutex+0x4a/0x70 [nvidia]\n"
         "[86401.118701]  nvidia_ioctl+0x6b4/0x8c0 [nvidia]\n")
CASES = {
    # ---- NCCL net_ib
    "mlx5dv_create_qp_enomem": (
        _failed([9, 12], "connect.cc:372", "NET/IB: mlx5dv_create_qp failed to create QP: Cannot allocate memory",
                "internal", "2.30.3"), ("network_error", "unclassified_failure"), None),
    "nonexistent_virtual_device": (
        _failed([8, 10], "connect.cc:1410", "NET/IB : Trying to use non-existent virtual device 3", "internal",
                "2.27.3"), ("nic_misselection", "network_error", "unclassified_failure"), None),
    "ooo_rq_forced_without_adaptive_routing": (
        _failed([0, 8], "connect.cc:670", _OOO, "internal", "2.30.3"), ("unclassified_failure", "network_error"), None),
    "resiliency_no_replacement_qp": (
        _warn([11], "p2p.cc:688", "NET/IB: Got completion from peer 10.8.0.1<43127> with status=transport retry counter "
              "exceeded(12) opcode=RDMA_WRITE(0) vendor_err=129 localGid ::ffff:10.8.1.4 remoteGids ::ffff:10.8.0.4 "
              "hca mlx5_1")
        + _warn([11], "p2p_resiliency.cc:376", "NET/IB: Device 1 marked as failed. Initiating recovery? Yes (send "
                "comm=0x7f21c4012e40, outstandingRecovery=0)")
        + _warn([11], "p2p_resiliency.cc:116", "NET/IB: Could not find a replacement QP for the failed QP with "
                "qpIndex=0 (devIndex=1)"), ("network_error",), None),
    "resiliency_on_one_nic_is_advice": (
        _warn([0], "p2p_resiliency.cc:778", "NET/IB: Resiliency is enabled on a send communicator (comm=0x7f55a8001b20) "
              "with a single device. This does not make sense since there is no other device to fail over to.")
        + per_rank("training done; checkpoint saved to /ckpt/final\n", [0, 1]) + _SUCCEEDED,
        ("none", "inconclusive"), None),
    # ---- NCCL p2p / cudawrap / graph / enqueue / proxy
    "cuda_ipc_handle_unsupported": (
        _warn(range(2), "p2p.cc:250", "cudaIpcGetMemHandle failed : operation not supported")
        + _failed([0, 1], "p2p.cc:252", "Cuda failure 801 'operation not supported'", "cuda", "2.21.5"),
        ("unclassified_failure",), None),
    "pfn_functions_missing_is_an_old_driver": (
        _failed(list(range(4)), "cudawrap.cc:292", _PFN, "cuda", "2.19.3"), ("version_mismatch",), None),
    "p2p_disabled_between_nvlink_gpus": (
        _failed(list(range(8)), "paths.cc:396", _P2P, "cuda", "2.26.2"), ("unclassified_failure", "dropped_rank"), None),
    "no_local_path_from_gpu_to_net": (
        _failed([0, 1], "topo.cc:2048", "Could not find any local path from gpu 0 to net.", "internal", "2.25.1"),
        ("nic_misselection", "network_error", "unclassified_failure"), None),
    "topology_file_of_another_version": (
        _failed([0, 1], "xml.cc:394", "XML Topology has wrong version 2, 1 needed", "usage", "2.20.5"),
        ("version_mismatch", "unclassified_failure"), None),
    "kernel_smem_beyond_the_device_is_no_network_error": (
        _failed(list(range(4)), "enqueue.cc:81", _SMEM, "system", "2.29.7"), ("unclassified_failure",), None),
    "streams_of_mixed_graph_capture": (
        _failed([0, 1], "enqueue.cc:2596", _CAPTURE, "usage", "2.21.5"), ("unclassified_failure",), None),
    "fp8_reduction_before_sm90": (
        _failed([0, 1], "enqueue.cc:3029", "FP8 reduction support begins with sm90 capable devices.", "argument",
                "2.26.2"), ("unclassified_failure",), None),
    "proxy_getfd_after_the_peer_died": (
        _comm("node9", 64000, 4) + "".join(
            f"node9:{64000 + r}:{64300 + r} [{r}] proxy.cc:1299 NCCL WARN ncclProxyClientGetFd call to tpRank 2 handle "
            "0x7f02e8000b20 failed : 6\n" for r in (0, 1, 3)) + _segv(2, 64002), ("dropped_rank",), [2]),
    "comm_destroy_sync_error_after_an_illegal_address": (
        per_rank("RuntimeError: CUDA error: an illegal memory access was encountered\n", [3])
        + _warn([3], "init.cc:2742", "commDestroySync: comm 0x55f1e40a3b10 rank 3 sync hostStream error 1", 65000)
        + failure_table("train.py", "2026-11-27_10:40:02", "node-d1", 3, 3, 1, 65003, _NO_TB) + "\n",
        ("dropped_rank", "unclassified_failure"), [3]),
    "gin_error_is_the_network": (
        _warn([13], "init.cc:3470", "GIN Error detected", 66000) + per_rank(
            f"[E1127 02:11:07.553001003 ProcessGroupNCCL.cpp:2057] {_PG.format(r=13)} Process group watchdog thread "
            "terminated with exception: NCCL error: remote process exited or there was a network error, NCCL version "
            "2.29.7\nncclRemoteError: A call failed possibly due to a network error or a remote process exiting "
            "prematurely.\nLast error:\nGIN Error detected\n", [13]), ("network_error",), None),
    "net_force_merge_names_a_missing_nic": (
        _failed([0, 1], "topo.cc:1341", "TOPO/NET : Only matched 1 devices, 2 requested from mlx5_0,mlx5_9", "usage",
                "2.26.5"), ("nic_misselection", "unclassified_failure"), None),
    "pxn_intermediate_gpu_not_found": (
        _failed([3], "paths.cc:657", "Could not find intermediate GPU between GPU rank 3 and NIC 2", "internal",
                "2.21.5"), ("unclassified_failure", "nic_misselection"), None),
    # ---- torch libuv TCPStore server
    "libuv_store_refusing_clients_names_no_missing_rank": (
        "[W1127 01:02:11.004118220 TCPStoreLibUvBackend.cpp:1143] [c10d] Failed to accept client due to Failed to "
        "accept socket. code: -24, name: EMFILE, message: too many open files\n"
        + per_rank("torch.distributed.DistStoreError: wait timeout after 1800000ms, keys: /default_pg/0//cuda//0\n",
                   [17]), ("unclassified_failure", "network_error", "timeout_unknown"), None),
    "libuv_store_stray_client_message": (
        "".join(f"[W1127 08:14:51.220481337 TCPStoreLibUvBackend.cpp:121] [c10d] Error processing client message: "
                f"Invalid string size. size: {size}, max: 8192\n" for size in (5135603447292250196, 2314885530818453536))
        + per_rank("epoch 9 done, val loss 0.402\n", list(range(4))), ("none", "inconclusive"), None),
    "libuv_store_write_to_a_dead_client": (
        per_rank("[W1127 09:15:01.553810012 TCPStoreLibUvBackend.cpp:405] [c10d] Write to client failed. code:-32 "
                 "name:EPIPE desc:broken pipe.\n", [0]) + _segv(3, 5154), ("dropped_rank",), [3]),
    # ---- the kernel
    "mlx5_firmware_command_timeout_with_timeouts": (
        _timeouts(range(16), 90211) + "[412331.204118] mlx5_core 0000:b7:00.0: wait_func:1152:(pid 118203): "
        "CREATE_QP(0x500) timeout. Will cause a leak of a command resource\n", ("network_error", "timeout_unknown"), None),
    "xid_109_names_its_rank_by_pid": (
        "".join(f"hgx-c-03:{70100 + r}:{70400 + r} [{r}] NCCL INFO ncclCommInitRank comm 0x55d1c0{r}e2a0 rank {r} "
                f"nranks 8 cudaDev {r} nvmlDev {r} busId {bus}000 commId 0x77aa3e0f2c6b1d44 - Init COMPLETE\n"
                for r, bus in enumerate(("18", "2a", "3a", "5d", "9a", "ab", "ba", "db")))
        + "[Thu Nov 27 05:20:11 2026] NVRM: Xid (PCI:0000:ab:00): 109, pid=70105, name=python3, channel 0x00000008, "
          "errorString CTX SWITCH TIMEOUT, Info 0x2c614\n" + _timeouts((0, 1, 2, 3, 4, 6, 7), 17731),
        ("dropped_rank", "stuck_rank"), [5]),
    "hung_task_of_one_rank_while_the_others_time_out": (
        _comm("node-k2", 71300, 4) + _HUNG + _timeouts((0, 1, 3), 5521), ("stuck_rank", "dropped_rank"), [2]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_verdict(name, tmp_path):
    check_case(tmp_path, CASES[name])


def test_hung_tasks_on_every_rank_name_no_one(tmp_path):
    # every rank's process blocked (NCCL's teardown in the driver on all of them): no rank the others waited for
    text = _comm("node-k2", 71300, 4) + _timeouts(range(4), 5521) + "".join(
        f"[86401.1182{r}0] INFO: task pt_main_thread:{71300 + r} blocked for more than 122 seconds.\n" for r in range(4))
    verdict = console_verdict(tmp_path, text)
    assert verdict.cls != "stuck_rank" or len(verdict.culprit_ranks) != 1, verdict.summary


def test_an_xid_pid_no_rank_printed_names_no_one(tmp_path):
    # the Xid's pid is no rank's: the death is reported, its rank unknown
    text = _comm("node9", 64000, 4) + "NVRM: Xid (PCI:0000:ab:00): 109, pid=99999, name=python3, channel 0x00000008, " \
        "errorString CTX SWITCH TIMEOUT, Info 0x2c614\n" + _timeouts((0, 1, 2), 17731)
    verdict = console_verdict(tmp_path, text)
    assert 3 not in verdict.culprit_ranks or verdict.cls != "dropped_rank", verdict.summary
