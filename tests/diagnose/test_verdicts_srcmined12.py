"""Verdicts on words new in NCCL 2.19 - 2.30 and PyTorch 2.4 - 2.9, mined from their sources in catalogue round
srcmined12, each as the lines of a pasted console:

- NCCL's IB transport: the fatal-count check (`communicator encountered a fatal error (detected in ncclIbIsend)`,
  2.23+; net_ib/common.cc from 2.30) and 2.27+'s completion wording (`status=NAME(n) opcode=NAME(n) reqSize=`);
  CollNet's chunk size check (`CollNet sizes: want=%d got=%ld`, 2.20+);
- plugins and settings: 2.27+'s `Failed to initialize any NET plugin`, the device-unpack plugin of another version and
  a `NCCL_WORK_FIFO_BYTES` that is not a power of 2 (both ignored: the run goes on);
- init and config: bootstrap's `mismatch in info from procs` (2.23+; the peers then time out), `improper usage of
  ncclCommInitRank` (ncclCommInitRankScalable), a split's net that differs from its parent's (2.18+ and 2.28+),
  ncclCommShrink's `shrinkShare`, a revoked communicator (2.28+), the host hash and local-rank checks,
  ncclCommInitAll's device list, CommCheck's corrupted comm object, cudawrap's `Retrieve %s failed with %d status %d`
  (a driver older than the build);
- symmetric memory and NVLS (2.28+): device communicators, window alignment, multicast teams, the window allocator,
  the symmetric scheduler, and the NVLS graph's NIC lookup; the proxy's UDS call to a rank that was killed;
- PyTorch: ~ProcessGroupNCCL's `destroy_process_group() was not called` warning on a run that finished, the watchdog's
  `Stack trace of the failed collective`, and NCCLComm::waitUntilInitialized's `NCCL timeout in communicator
  initialization.`
"""
from __future__ import annotations

import pytest

from nccl_forensics.sources import catalogue

from .consoles import NO_TRACEBACK, PROGRESS, check_case, console_verdict, failure_table

# name -> (console lines, accepted classes, culprit ranks or None)
CASES: dict[str, tuple[str, set[str], list[int] | None]] = {
    'nccl_src_allocator_no_space_window': (
        "g4:3001:3001 [2] NCCL INFO NCCL version 2.28.9+cuda12.9\n"
        "g4:3001:3001 [2] allocator.cc:218 NCCL WARN Allocation failed. No suitable space found to accommodate size=0x80000000 within limit=0x100000000\n"
        "g4:3001:3001 [2] NCCL INFO dev_runtime.cc:655 -> 3\n"
        "[rank2]: Traceback (most recent call last):\n"
        "[rank2]: torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:3356, internal error - please report this issue to the NCCL developers, NCCL version 2.28.9\n"
        "[rank2]: ncclInternalError: Internal check failed.\n"
        "[rank2]: Last error:\n"
        "[rank2]: Allocation failed. No suitable space found to accommodate size=0x80000000 within limit=0x100000000",
        {'oom', 'unclassified_failure'}, None),
    'nccl_src_bootstrap_root_mismatch_info': (
        "node-0:1201:1290 [0] NCCL INFO NCCL version 2.23.4+cuda12.6\n"
        "node-0:1201:1299 [0] bootstrap.cc:327 NCCL WARN Bootstrap Root : mismatch in info from procs, nranks 16 vs 8, nroots 1 vs 1, iroot 0 vs 0\n"
        "node-0:1201:1299 [0] NCCL INFO bootstrap.cc:380 -> 3\n"
        "[rank0]:[E1126 07:31:20.110 ProcessGroupNCCL.cpp:1632] [PG ID 0 PG GUID 0(default_pg) Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600081 milliseconds before timing out.",
        {'unclassified_failure'}, None),
    'nccl_src_collnet_sizes_mismatch': (
        "sharp-n02:19022:19022 [0] NCCL INFO NCCL version 2.21.5+cuda12.8\n"
        "\n"
        "sharp-n02:19022:19110 [0] NCCL INFO ncclCommInitRank comm 0x55a1e4e0 rank 0 nranks 16 cudaDev 0 nvmlDev 0 busId 7000 commId 0x6c1e7ab3 - Init COMPLETE\n"
        "sharp-n02:19022:19140 [0] transport/coll_net.cc:931 NCCL WARN CollNet sizes: want=262144 got=131072\n"
        "sharp-n02:19022:19140 [0] NCCL INFO proxy.cc:912 -> 3\n"
        "[rank0]:[E1126 11:40:02.118021117 ProcessGroupNCCL.cpp:1895] [PG ID 0 PG GUID 0(default_pg) Rank 0] Process group watchdog thread terminated with exception: NCCL error: internal error - please report this issue to the NCCL developers, NCCL version 2.21.5\n"
        "ncclInternalError: Internal check failed.\n"
        "Last error:\n"
        "CollNet sizes: want=262144 got=131072",
        {'unclassified_failure', 'network_error'}, None),
    'nccl_src_comm_revoked': (
        "svc-1:771:771 [0] NCCL INFO NCCL version 2.28.3+cuda12.9\n"
        "svc-1:771:771 [0] enqueue.cc:2625 NCCL WARN AllReduce: communicator was revoked\n"
        "[rank0]: Traceback (most recent call last):\n"
        "[rank0]: torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:3356, invalid usage (run with NCCL_DEBUG=WARN for details), NCCL version 2.28.3\n"
        "[rank0]: ncclInvalidUsage: This usually reflects invalid usage of NCCL library.\n"
        "[rank0]: Last error:\n"
        "[rank0]: AllReduce: communicator was revoked",
        {'unclassified_failure'}, None),
    'nccl_src_corrupted_comm_object': (
        "r0:881:881 [0] NCCL INFO NCCL version 2.21.5+cuda12.4\n"
        "r0:881:881 [0] NCCL INFO comm 0x55d2a0 rank 0 nranks 2 cudaDev 0 busId 3b000 - Destroy COMPLETE\n"
        "r0:881:881 [0] argcheck.cc:39 NCCL WARN Error: corrupted comm object detected\n"
        "[rank0]: Traceback (most recent call last):\n"
        "[rank0]: torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:3356, invalid argument (run with NCCL_DEBUG=WARN for details), NCCL version 2.21.5\n"
        "[rank0]: ncclInvalidArgument: Invalid value for an argument.\n"
        "[rank0]: Last error:\n"
        "[rank0]: Error: corrupted comm object detected",
        {'unclassified_failure'}, None),
    'nccl_src_cudawrap_retrieve_symbol_failed': (
        "old-drv:601:601 [0] NCCL INFO NCCL version 2.26.2+cuda12.8\n"
        "old-drv:601:601 [0] misc/cudawrap.cc:187 NCCL WARN Retrieve cuGetErrorString failed with 35 status 1\n"
        "old-drv:601:601 [0] NCCL INFO misc/cudawrap.cc:245 -> 2\n"
        "old-drv:601:601 [0] NCCL INFO init.cc:1887 -> 2\n"
        "[rank0]: Traceback (most recent call last):\n"
        "[rank0]: torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:3356, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.26.2\n"
        "[rank0]: ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. \n"
        "[rank0]: Last error:\n"
        "[rank0]: Retrieve cuGetErrorString failed with 35 status 1",
        {'version_mismatch', 'unclassified_failure'}, None),
    'nccl_src_device_unpack_incompatible_healthy': (
        "I1126 08:00:01.120000 901 torch/distributed/run.py:793] \n"
        "I1126 08:00:01.120000 901 torch/distributed/run.py:793] *****************************************\n"
        "node-b:905:905 [0] NCCL INFO NCCL version 2.21.5+cuda12.4\n"
        "node-b:905:980 [0] plugin/net.cc:160 NCCL WARN NCCL_DEVICE_UNPACK plugin has incompatible version 6, this NCCL build is compatible with 7, not using it\n"
        "node-b:906:981 [1] plugin/net.cc:160 NCCL WARN NCCL_DEVICE_UNPACK plugin has incompatible version 6, this NCCL build is compatible with 7, not using it\n"
        "node-b:905:980 [0] NCCL INFO ncclCommInitRank comm 0x5581e0a1 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 4000 commId 0x11aa22bb - Init COMPLETE\n"
        "node-b:906:981 [1] NCCL INFO ncclCommInitRank comm 0x55d1c4f0 rank 1 nranks 2 cudaDev 1 nvmlDev 1 busId 5000 commId 0x11aa22bb - Init COMPLETE\n"
        "epoch 0 step 500 loss 1.902\n"
        "epoch 0 step 1000 loss 1.677\n"
        "node-b:905:905 [0] NCCL INFO comm 0x5581e0a1 rank 0 nranks 2 cudaDev 0 busId 4000 - Destroy COMPLETE\n"
        "node-b:906:906 [1] NCCL INFO comm 0x55d1c4f0 rank 1 nranks 2 cudaDev 1 busId 5000 - Destroy COMPLETE\n"
        "I1126 08:41:17.004000 901 torch/distributed/elastic/agent/server/api.py:879] [default] worker group successfully finished. Waiting 300 seconds for other agents to finish.\n"
        "I1126 08:41:17.005000 901 torch/distributed/elastic/agent/server/api.py:932] Local worker group finished (WorkerState.SUCCEEDED). Waiting 300 seconds for other agents to finish\n"
        "I1126 08:41:17.006000 901 torch/distributed/elastic/agent/server/api.py:946] Done waiting for other agents. Elapsed: 0.0004 seconds",
        {'inconclusive', 'none'}, None),
    'nccl_src_ib_completion_v228_reqsize': (
        "dgx-b12:40211:40211 [6] NCCL INFO NCCL version 2.28.3+cuda12.8\n"
        "\n"
        "dgx-b12:40211:40290 [6] NCCL INFO ncclCommInitRankConfig comm 0x5600ab31c2d0 rank 14 nranks 64 cudaDev 6 nvmlDev 6 busId c1000 commId 0x2fae7d0c11b39d05 - Init COMPLETE\n"
        "dgx-b12:40211:40377 [6] transport/net_ib.cc:2487 NCCL WARN NET/IB: Got completion from peer 172.16.4.31<51872> with status=IBV_WC_RETRY_EXC_ERR(12) opcode=IBV_WC_SEND(0) reqSize=524288 vendor_err=129 req_type=Send localGid ::ffff:172.16.4.12 remoteGids ::ffff:172.16.4.31 hca mlx5_6\n"
        "dgx-b12:40211:40377 [6] NCCL INFO transport/net.cc:1388 -> 6\n"
        "dgx-b12:40211:40377 [6] NCCL INFO proxy.cc:912 -> 6\n"
        "[rank14]:[E1126 03:02:17.004125931 ProcessGroupNCCL.cpp:2013] [PG ID 0 PG GUID 0(default_pg) Rank 14] Process group watchdog thread terminated with exception: NCCL error: remote process exited or there was a network error, NCCL version 2.28.3\n"
        "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.\n"
        "Last error:\n"
        "NET/IB: Got completion from peer 172.16.4.31<51872> with status=IBV_WC_RETRY_EXC_ERR(12) opcode=IBV_WC_SEND(0) reqSize=524288 vendor_err=129 req_type=Send localGid ::ffff:172.16.4.12 remoteGids ::ffff:172.16.4.31 hca mlx5_6",
        {'network_error'}, None),
    'nccl_src_ib_fatal_count_detected_in_isend': (
        "gpu-r07:88121:88121 [3] NCCL INFO NCCL version 2.23.4+cuda12.8\n"
        "\n"
        "gpu-r07:88121:88205 [3] NCCL INFO Channel 00/0 : 3[3] -> 11[3] [send] via NET/IB/3/GDRDMA\n"
        "gpu-r07:88121:88205 [3] NCCL INFO ncclCommInitRank comm 0x55d0c1e2a110 rank 3 nranks 16 cudaDev 3 nvmlDev 3 busId 4e000 commId 0x9d4f1a22be0c1177 - Init COMPLETE\n"
        "[rank3]: step 4200 loss 2.114\n"
        "gpu-r07:88121:88299 [3] transport/net_ib.cc:119 NCCL WARN communicator encountered a fatal error (detected in ncclIbIsend)\n"
        "gpu-r07:88121:88299 [3] NCCL INFO transport/net.cc:1302 -> 2\n"
        "gpu-r07:88121:88299 [3] NCCL INFO proxy.cc:894 -> 2\n"
        "gpu-r07:88121:88299 [3] NCCL INFO proxy.cc:910 -> 2\n"
        "[rank3]:[E1126 09:13:51.553281620 ProcessGroupNCCL.cpp:1895] [PG ID 0 PG GUID 0(default_pg) Rank 3] Process group watchdog thread terminated with exception: NCCL error: unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.23.4\n"
        "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. \n"
        "Last error:\n"
        "communicator encountered a fatal error (detected in ncclIbIsend)\n"
        "Exception raised from checkForNCCLErrorsInternal at /pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:2027 (most recent call first):\n"
        "terminate called after throwing an instance of 'c10::DistBackendError'\n"
        "E1126 09:14:03.219000 4412 torch/distributed/elastic/multiprocessing/api.py:874] failed (exitcode: -6) local_rank: 3 (pid: 88121) of binary: /usr/bin/python3\n"
        "Traceback (most recent call last):\n"
        "  File \"/usr/local/bin/torchrun\", line 8, in <module>\n"
        + failure_table("train.py", "2025-11-26_09:14:03", "gpu-r07", 3, 3, -6, 88121),
        {'network_error'}, None),
    'nccl_src_ib_fatal_count_detected_in_test_v230': (
        "worker-3:5521:5604 [1] NCCL INFO NCCL version 2.30.4+cuda13.0\n"
        "worker-3:5521:5604 [1] NCCL INFO ncclCommInitRankConfig comm 0x7f00a8001f20 rank 9 nranks 32 cudaDev 1 nvmlDev 1 busId 1b000 commId 0x51e07a3cd2f044aa - Init COMPLETE\n"
        "iteration 880 / 20000 | elapsed time per iteration (ms): 1412.3 | lm loss: 2.771\n"
        "worker-3:5521:5690 [1] transport/net_ib/common.cc:32 NCCL WARN communicator encountered a fatal error (detected in ncclIbTest)\n"
        "worker-3:5521:5690 [1] NCCL INFO transport/net.cc:1388 -> 2\n"
        "worker-3:5521:5690 [1] NCCL INFO proxy.cc:912 -> 2\n"
        "RuntimeError: NCCL error: unhandled system error (run with NCCL_DEBUG=INFO for details)",
        {'network_error'}, None),
    'nccl_src_improper_usage_init_scalable': (
        "trainer-2:4410:4410 [2] NCCL INFO NCCL version 2.26.2+cuda12.8\n"
        "trainer-2:4410:4410 [2] init.cc:1966 NCCL WARN improper usage of ncclCommInitRank: nId = 0, nranks=32\n"
        "Traceback (most recent call last):\n"
        "RuntimeError: NCCL error: invalid argument (run with NCCL_DEBUG=WARN for details)",
        {'unclassified_failure'}, None),
    'nccl_src_invalid_config_shrinkshare': (
        "ft-7:6120:6120 [3] NCCL INFO NCCL version 2.27.3+cuda12.9\n"
        "ft-7:6120:6120 [3] init.cc:1895 NCCL WARN Invalid config shrinkShare attribute value 2\n"
        "ft-7:6120:6120 [3] NCCL INFO init.cc:2461 -> 4\n"
        "[rank3]: Traceback (most recent call last):\n"
        "[rank3]: torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:3356, invalid argument (run with NCCL_DEBUG=WARN for details), NCCL version 2.27.3\n"
        "[rank3]: ncclInvalidArgument: Invalid value for an argument.\n"
        "[rank3]: Last error:\n"
        "[rank3]: Invalid config shrinkShare attribute value 2",
        {'unclassified_failure'}, None),
    'nccl_src_invalid_device_initall': (
        "ws:551:551 [0] NCCL INFO NCCL version 2.24.3+cuda12.6\n"
        "ws:551:551 [0] init.cc:2090 NCCL WARN Invalid device 4 (totalnDev=4)\n"
        "Traceback (most recent call last):\n"
        "RuntimeError: NCCL Error 4: invalid argument (run with NCCL_DEBUG=WARN for details)",
        {'unclassified_failure'}, None),
    'nccl_src_local_ranks_undetermined': (
        "c-14:3101:3170 [0] NCCL INFO NCCL version 2.20.5+cuda12.4\n"
        "c-14:3101:3170 [0] init.cc:1163 NCCL WARN Failed to determine local ranks rank 4 hostHash 7d1c0a9e44c1f3b2 pidHash 1a2b3c4d5e6f7081 localRank -1 localRanks 0 localRank0 -1\n"
        "c-14:3101:3170 [0] NCCL INFO init.cc:1392 -> 3\n"
        "[rank4]: Traceback (most recent call last):\n"
        "[rank4]: torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:3356, internal error - please report this issue to the NCCL developers, NCCL version 2.20.5\n"
        "[rank4]: ncclInternalError: Internal check failed.\n"
        "[rank4]: Last error:\n"
        "[rank4]: Failed to determine local ranks rank 4 hostHash 7d1c0a9e44c1f3b2 pidHash 1a2b3c4d5e6f7081 localRank -1 localRanks 0 localRank0 -1",
        {'unclassified_failure'}, None),
    'nccl_src_localhosthash_not_found': (
        "pod-5:102:160 [2] NCCL INFO NCCL version 2.27.7+cuda12.9\n"
        "pod-5:102:160 [2] NCCL INFO NCCL_HOSTID set by environment to pod-5\n"
        "pod-5:102:160 [2] graph/topo.cc:700 NCCL WARN localHostHash = 0x9ac1d2e38f0b4471 not found in the list of system hostHashes\n"
        "pod-5:102:160 [2] NCCL INFO graph/topo.cc:1419 -> 4\n"
        "pod-5:102:160 [2] NCCL INFO init.cc:1122 -> 4\n"
        "[rank2]: Traceback (most recent call last):\n"
        "[rank2]: torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:3356, invalid argument (run with NCCL_DEBUG=WARN for details), NCCL version 2.27.7\n"
        "[rank2]: ncclInvalidArgument: Invalid value for an argument.\n"
        "[rank2]: Last error:\n"
        "[rank2]: localHostHash = 0x9ac1d2e38f0b4471 not found in the list of system hostHashes",
        {'unclassified_failure'}, None),
    'nccl_src_multicast_team_unavailable': (
        "h100-pcie:7788:7788 [0] NCCL INFO NCCL version 2.28.9+cuda12.9\n"
        "h100-pcie:7788:7788 [0] dev_runtime.cc:260 NCCL WARN Multicast support requested for team but none available on system.\n"
        "h100-pcie:7788:7788 [0] NCCL INFO dev_runtime.cc:301 -> 4\n"
        "RuntimeError: NCCL error: invalid argument (run with NCCL_DEBUG=WARN for details)",
        {'unclassified_failure'}, None),
    'nccl_src_net_plugin_none_initialized': (
        "train-0:3311:3311 [0] NCCL INFO NCCL_NET set by environment to IB\n"
        "train-0:3311:3311 [0] NCCL INFO NCCL version 2.27.5+cuda12.9\n"
        "train-0:3311:3395 [0] NCCL INFO NET/IB : No device found.\n"
        "train-0:3311:3395 [0] NCCL INFO Failed to initialize NET plugin IB\n"
        "train-0:3311:3395 [0] plugin/net.cc:379 NCCL WARN Failed to initialize any NET plugin\n"
        "train-0:3311:3395 [0] NCCL INFO init.cc:417 -> 5\n"
        "train-0:3311:3395 [0] NCCL INFO init.cc:1538 -> 5\n"
        "train-0:3311:3395 [0] NCCL INFO group.cc:67 -> 5 [Async thread]\n"
        "train-0:3311:3311 [0] NCCL INFO group.cc:576 -> 5\n"
        "train-0:3311:3311 [0] NCCL INFO init.cc:1870 -> 5\n"
        "[rank0]: Traceback (most recent call last):\n"
        "[rank0]: torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:3356, invalid usage (run with NCCL_DEBUG=WARN for details), NCCL version 2.27.5\n"
        "[rank0]: ncclInvalidUsage: This usually reflects invalid usage of NCCL library.\n"
        "[rank0]: Last error:\n"
        "[rank0]: Failed to initialize any NET plugin\n"
        "E1126 09:14:03.219000 4412 torch/distributed/elastic/multiprocessing/api.py:874] failed (exitcode: 1) local_rank: 0 (pid: 3311) of binary: /usr/bin/python3\n"
        "Traceback (most recent call last):\n"
        "  File \"/usr/local/bin/torchrun\", line 8, in <module>\n"
        + failure_table("train.py", "2025-11-26_09:14:03", "train-0", 0, 0, 1, 3311, NO_TRACEBACK),
        {'unclassified_failure', 'nic_misselection', 'network_error'}, None),
    'nccl_src_nvls_no_nic_for_rank': (
        "gb-0:9101:9180 [5] NCCL INFO NCCL version 2.19.3+cuda12.3\n"
        "gb-0:9101:9180 [5] graph/search.cc:1152 NCCL WARN Could not find NIC for rank 5 in NVLS graph\n"
        "gb-0:9101:9180 [5] NCCL INFO init.cc:1047 -> 3\n"
        "gb-0:9101:9180 [5] NCCL INFO group.cc:64 -> 3 [Async thread]\n"
        "[rank5]: Traceback (most recent call last):\n"
        "[rank5]: torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:3356, internal error - please report this issue to the NCCL developers, NCCL version 2.19.3\n"
        "[rank5]: ncclInternalError: Internal check failed.\n"
        "[rank5]: Last error:\n"
        "[rank5]: Could not find NIC for rank 5 in NVLS graph",
        {'unclassified_failure', 'nic_misselection'}, None),
    'nccl_src_proxy_uds_call_failed_peer_killed': (
        "n0:2201:2290 [1] NCCL INFO NCCL version 2.20.5+cuda12.4\n"
        "n0:2201:2290 [1] NCCL INFO ncclCommInitRank comm 0x55e0 rank 1 nranks 8 cudaDev 1 nvmlDev 1 busId 19000 commId 0x9 - Init COMPLETE\n"
        "n0:2201:2378 [1] misc/ipcsocket.cc:221 NCCL WARN UDS: Sending data over socket /tmp/nccl-socket-5-a61f03d9c2e84b10 failed : Connection refused (111)\n"
        "n0:2201:2378 [1] NCCL INFO misc/ipcsocket.cc:245 -> 2\n"
        "n0:2201:2378 [1] proxy.cc:1119 NCCL WARN ncclProxyCallBlockingUDS call to tpRank 5(a61f03d9c2e84b10) failed : 2\n"
        "n0:2201:2378 [1] NCCL INFO transport/p2p.cc:251 -> 2\n"
        "W1126 09:14:01.880000 2190 torch/distributed/elastic/multiprocessing/api.py:900] Sending process 2201 closing signal SIGTERM\n"
        "W1126 09:14:01.881000 2190 torch/distributed/elastic/multiprocessing/api.py:900] Sending process 2202 closing signal SIGTERM\n"
        "E1126 09:14:03.219000 4412 torch/distributed/elastic/multiprocessing/api.py:874] failed (exitcode: -9) local_rank: 5 (pid: 2205) of binary: /usr/bin/python3\n"
        "Traceback (most recent call last):\n"
        "  File \"/usr/local/bin/torchrun\", line 8, in <module>\n"
        + failure_table("train.py", "2025-11-26_09:14:03", "n0", 5, 5, -9, 2205),
        {'dropped_rank'}, [5]),
    'nccl_src_split_netname_mismatch': (
        "gpu-a:2201:2201 [1] NCCL INFO NCCL version 2.28.3+cuda12.9\n"
        "gpu-a:2201:2260 [1] NCCL INFO ncclCommInitRankConfig comm 0x5561 rank 1 nranks 8 cudaDev 1 nvmlDev 1 busId 19000 commId 0x71 - Init COMPLETE\n"
        "gpu-a:2201:2301 [1] plugin/net.cc:392 NCCL WARN Comm config netName (Socket) does not match the parent (IB)\n"
        "gpu-a:2201:2301 [1] NCCL INFO init.cc:1512 -> 5\n"
        "gpu-a:2201:2301 [1] NCCL INFO group.cc:67 -> 5 [Async thread]\n"
        "[rank1]: Traceback (most recent call last):\n"
        "[rank1]: torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:3356, invalid usage (run with NCCL_DEBUG=WARN for details), NCCL version 2.28.3\n"
        "[rank1]: ncclInvalidUsage: This usually reflects invalid usage of NCCL library.\n"
        "[rank1]: Last error:\n"
        "[rank1]: Comm config netName (Socket) does not match the parent (IB)",
        {'unclassified_failure'}, None),
    'nccl_src_split_share_netname_differs': (
        "n3:991:1020 [0] NCCL INFO NCCL version 2.19.3+cuda12.3\n"
        "n3:991:1077 [0] init.cc:401 NCCL WARN Split shares resources, but parent comm netName IB is different from child comm netName Socket\n"
        "n3:991:1077 [0] NCCL INFO init.cc:1371 -> 5\n"
        "[rank0]: Traceback (most recent call last):\n"
        "[rank0]: torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:3356, invalid usage (run with NCCL_DEBUG=WARN for details), NCCL version 2.19.3\n"
        "[rank0]: ncclInvalidUsage: This usually reflects invalid usage of NCCL library.\n"
        "[rank0]: Last error:\n"
        "[rank0]: Split shares resources, but parent comm netName IB is different from child comm netName Socket",
        {'unclassified_failure'}, None),
    'nccl_src_symmetric_sched_out_of_channels': (
        "s9:3310:3310 [4] NCCL INFO NCCL version 2.28.3+cuda12.9\n"
        "s9:3310:3310 [4] scheduler/symmetric_sched.cc:215 NCCL WARN ncclSymmetricTaskScheduler ran out of channel space (nMaxChannels=32, workCount=40, workIndex=32)\n"
        "s9:3310:3310 [4] NCCL INFO enqueue.cc:1521 -> 3\n"
        "[rank4]: Traceback (most recent call last):\n"
        "[rank4]: torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:3356, internal error - please report this issue to the NCCL developers, NCCL version 2.28.3\n"
        "[rank4]: ncclInternalError: Internal check failed.\n"
        "[rank4]: Last error:\n"
        "[rank4]: ncclSymmetricTaskScheduler ran out of channel space (nMaxChannels=32, workCount=40, workIndex=32)",
        {'unclassified_failure'}, None),
    'nccl_src_symmetric_unsupported': (
        "g1:4001:4001 [0] NCCL INFO NCCL version 2.28.7+cuda13.0\n"
        "g1:4001:4060 [0] NCCL INFO ncclCommInitRankConfig comm 0x55b1 rank 0 nranks 8 cudaDev 0 nvmlDev 0 busId 18000 commId 0x3a - Init COMPLETE\n"
        "g1:4001:4001 [0] dev_runtime.cc:979 NCCL WARN Communicator does not support symmetric memory!\n"
        "g1:4001:4001 [0] NCCL INFO dev_runtime.cc:1012 -> 5\n"
        "[rank0]: Traceback (most recent call last):\n"
        "[rank0]: torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:3356, invalid usage (run with NCCL_DEBUG=WARN for details), NCCL version 2.28.7\n"
        "[rank0]: ncclInvalidUsage: This usually reflects invalid usage of NCCL library.\n"
        "[rank0]: Last error:\n"
        "[rank0]: Communicator does not support symmetric memory!",
        {'unclassified_failure'}, None),
    'nccl_src_window_address_unaligned': (
        "g2:5102:5102 [1] NCCL INFO NCCL version 2.28.9+cuda12.9\n"
        "g2:5102:5102 [1] dev_runtime.cc:608 NCCL WARN Window address must be suitably aligned.\n"
        "g2:5102:5102 [1] NCCL INFO dev_runtime.cc:702 -> 4\n"
        "Traceback (most recent call last):\n"
        "RuntimeError: NCCL error: invalid argument (run with NCCL_DEBUG=WARN for details)",
        {'unclassified_failure'}, None),
    'nccl_src_work_fifo_bytes_ignored_healthy': (
        "host1:7001:7001 [0] NCCL INFO NCCL version 2.22.3+cuda12.6\n"
        "host1:7001:7001 [0] NCCL INFO NCCL_WORK_FIFO_BYTES set by environment to 3000000.\n"
        "host1:7001:7070 [0] init.cc:539 NCCL WARN NCCL_WORK_FIFO_BYTES=3000000 is being ignored because it is not a power of 2.\n"
        "host1:7002:7071 [1] init.cc:539 NCCL WARN NCCL_WORK_FIFO_BYTES=3000000 is being ignored because it is not a power of 2.\n"
        "host1:7001:7070 [0] NCCL INFO ncclCommInitRank comm 0x55e1 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 18000 commId 0xfeed - Init COMPLETE\n"
        "host1:7002:7071 [1] NCCL INFO ncclCommInitRank comm 0x55e2 rank 1 nranks 2 cudaDev 1 nvmlDev 1 busId 2a000 commId 0xfeed - Init COMPLETE\n"
        "[rank0]: epoch 3 done, val acc 0.912\n"
        "host1:7001:7001 [0] NCCL INFO comm 0x55e1 rank 0 nranks 2 cudaDev 0 busId 18000 - Destroy COMPLETE\n"
        "host1:7002:7002 [1] NCCL INFO comm 0x55e2 rank 1 nranks 2 cudaDev 1 busId 2a000 - Destroy COMPLETE\n"
        "I1126 10:02:44.100000 6990 torch/distributed/elastic/agent/server/api.py:879] [default] worker group successfully finished. Waiting 300 seconds for other agents to finish.\n"
        "I1126 10:02:44.101000 6990 torch/distributed/elastic/agent/server/api.py:932] Local worker group finished (WorkerState.SUCCEEDED). Waiting 300 seconds for other agents to finish\n"
        "I1126 10:02:44.102000 6990 torch/distributed/elastic/agent/server/api.py:946] Done waiting for other agents. Elapsed: 0.0003 seconds",
        {'inconclusive', 'none'}, None),
    'torch_src_destroy_pg_warning_healthy': (
        "[rank0]: epoch 9 | loss 0.3011 | acc 0.941\n"
        "[rank1]: epoch 9 | loss 0.3022 | acc 0.939\n"
        "[rank0]:[W1126 12:00:04.518222940 ProcessGroupNCCL.cpp:1538] Warning: WARNING: destroy_process_group() was not called before program exit, which can leak resources. For more info, please see https://pytorch.org/docs/stable/distributed.html#shutdown (function operator())\n"
        "I1126 12:00:06.001000 2011 torch/distributed/elastic/agent/server/api.py:879] [default] worker group successfully finished. Waiting 300 seconds for other agents to finish.\n"
        "I1126 12:00:06.002000 2011 torch/distributed/elastic/agent/server/api.py:932] Local worker group finished (WorkerState.SUCCEEDED). Waiting 300 seconds for other agents to finish\n"
        "I1126 12:00:06.003000 2011 torch/distributed/elastic/agent/server/api.py:946] Done waiting for other agents. Elapsed: 0.0002 seconds",
        {'inconclusive', 'none'}, None),
    'torch_src_failed_collective_stack_trace': (
        "[rank0]:[E1126 05:20:11.100000000 ProcessGroupNCCL.cpp:632] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=812, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600013 milliseconds before timing out.\n"
        "[rank0]:[E1126 05:20:11.200000000 ProcessGroupNCCL.cpp:2168] [PG ID 0 PG GUID 0(default_pg) Rank 0]  failure detected by watchdog at work sequence id: 812 PG status: last enqueued work: 812, last completed work: 811\n"
        "[rank0]:[E1126 05:20:11.300000000 ProcessGroupNCCL.cpp:664] Stack trace of the failed collective: \n"
        "#0 all_reduce from /usr/local/lib/python3.11/site-packages/torch/distributed/distributed_c10d.py:2806\n"
        "#1 wrapper from /usr/local/lib/python3.11/site-packages/torch/distributed/c10d_logger.py:81\n"
        "#2 reduce_metrics from /workspace/train.py:205\n"
        "#3 main from /workspace/train.py:311\n"
        "[rank1]:[E1126 05:20:11.101000000 ProcessGroupNCCL.cpp:632] [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=812, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600013 milliseconds before timing out.\n"
        "[rank1]:[E1126 05:20:11.201000000 ProcessGroupNCCL.cpp:2168] [PG ID 0 PG GUID 0(default_pg) Rank 1]  failure detected by watchdog at work sequence id: 812 PG status: last enqueued work: 812, last completed work: 811\n"
        "[rank1]:[E1126 05:20:11.301000000 ProcessGroupNCCL.cpp:664] Stack trace of the failed collective: \n"
        "#0 all_reduce from /usr/local/lib/python3.11/site-packages/torch/distributed/distributed_c10d.py:2806\n"
        "#1 wrapper from /usr/local/lib/python3.11/site-packages/torch/distributed/c10d_logger.py:81\n"
        "#2 reduce_metrics from /workspace/train.py:205\n"
        "#3 main from /workspace/train.py:311\n"
        "[rank3]:[E1126 05:20:11.103000000 ProcessGroupNCCL.cpp:632] [Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=812, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600013 milliseconds before timing out.\n"
        "[rank3]:[E1126 05:20:11.203000000 ProcessGroupNCCL.cpp:2168] [PG ID 0 PG GUID 0(default_pg) Rank 3]  failure detected by watchdog at work sequence id: 812 PG status: last enqueued work: 812, last completed work: 811\n"
        "[rank3]:[E1126 05:20:11.303000000 ProcessGroupNCCL.cpp:664] Stack trace of the failed collective: \n"
        "#0 all_reduce from /usr/local/lib/python3.11/site-packages/torch/distributed/distributed_c10d.py:2806\n"
        "#1 wrapper from /usr/local/lib/python3.11/site-packages/torch/distributed/c10d_logger.py:81\n"
        "#2 reduce_metrics from /workspace/train.py:205\n"
        "#3 main from /workspace/train.py:311",
        {'collective_skipped', 'timeout_unknown', 'stuck_rank'}, None),
    'torch_src_nonblocking_init_timeout': (
        "[rank3]:[W1126 02:11:09.402811 NCCLUtils.cpp:153] Warning: Using experimental non-blocking NCCL communicator. (function nccl_use_nonblocking)\n"
        "[rank3]: Traceback (most recent call last):\n"
        "[rank3]: torch.distributed.DistBackendError: NCCL timeout in communicator initialization.",
        {'timeout_unknown'}, None),

}


@pytest.mark.parametrize("name", sorted(CASES))
def test_srcmined12_case(name, tmp_path):
    check_case(tmp_path, CASES[name])


def test_the_ib_fatal_count_alone_is_a_network_error(tmp_path):
    """The words are printed by the IB transport only, after an async fatal event of a QP, CQ or the device."""
    verdict = console_verdict(tmp_path, "gpu-r07:88121:88299 [3] transport/net_ib.cc:119 NCCL WARN communicator "
                              "encountered a fatal error (detected in ncclIbTest)")
    assert verdict.cls == "network_error", verdict.summary


def test_a_communicator_in_abort_state_is_still_a_consequence():
    [hit] = catalogue.match("NCCL WARN Comm 0x55d0c1e2a110 is in abort state")
    assert hit.message.id == "nccl.comm_unusable" and catalogue.annotation(hit)["meaning"] == "consequence"


@pytest.mark.parametrize("line,implies", [
    ("NCCL WARN Retrieve cuGetErrorString failed with 35 status 1", "version_mismatch"),    # insufficient driver
    ("NCCL WARN Retrieve cuDeviceGet failed with 0 status 2", "version_mismatch"),          # version not sufficient
    ("NCCL WARN Retrieve cuGetErrorName failed with 999", None),                            # the driver's own failure
])
def test_a_driver_entry_point_names_an_old_driver_only_by_its_codes(line, implies):
    [hit] = catalogue.match(line)
    assert hit.message.id == "nccl.cuda_entry_point_failed"
    assert catalogue.annotation(hit).get("implies") == implies


@pytest.mark.parametrize("line", [
    "h:1:2 [0] init.cc:539 NCCL WARN NCCL_WORK_FIFO_BYTES=3000000 is being ignored because it is not a power of 2.",
    "h:1:2 [0] plugin/net.cc:160 NCCL WARN NCCL_DEVICE_UNPACK plugin has incompatible version 6, this NCCL build is "
    "compatible with 7, not using it",
])
def test_settings_nccl_replaces_are_benign(line):
    [hit] = catalogue.match(line)
    assert catalogue.annotation(hit)["meaning"] == "benign"


def test_both_wordings_of_the_nonblocking_init_timeout():
    for line in ("torch.distributed.DistBackendError: NCCL timeout in communicator initialization.",
                 "torch.distributed.DistBackendError: NCCL timeout in: /pytorch/torch/csrc/distributed/c10d/"
                 "NCCLUtils.cpp:125"):
        assert [h.message.id for h in catalogue.match(line)] == ["pytorch.nccl_nonblocking_timeout"], line


def test_timeouts_after_an_nccl_setup_failure_are_its_consequences(tmp_path):
    """A second process with the same rank: the root gives up, the others wait at their first collective."""
    verdict = console_verdict(tmp_path, (
        "n0:10:20 [0] bootstrap.cc:140 NCCL WARN Bootstrap Root : rank 3 of 8 ranks has already checked in\n"
        "[rank0]:[E1126 07:31:20.110 ProcessGroupNCCL.cpp:1632] [PG ID 0 PG GUID 0(default_pg) Rank 0] Watchdog caught "
        "collective operation timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) "
        "ran for 600081 milliseconds before timing out."), progress=PROGRESS)
    assert verdict.cls == "unclassified_failure", verdict.summary
    assert "communicator setup failed" in verdict.summary, verdict.summary


def test_a_timeout_without_a_setup_failure_stays_a_timeout(tmp_path):
    verdict = console_verdict(tmp_path, (
        "[rank0]:[E1126 07:31:20.110 ProcessGroupNCCL.cpp:1632] [PG ID 0 PG GUID 0(default_pg) Rank 0] Watchdog caught "
        "collective operation timeout: WorkNCCL(SeqNum=9, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) "
        "ran for 600081 milliseconds before timing out."))
    assert verdict.cls == "timeout_unknown", verdict.summary
