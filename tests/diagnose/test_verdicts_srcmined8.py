"""Verdicts on messages mined from their sources in catalogue round srcmined8, each as the lines of a pasted console:

- ncclGetErrorString's texts as vLLM's and SGLang's pynccl wrappers raise them (`RuntimeError: NCCL error: remote
  process exited or there was a network error`: ncclRemoteError, NCCL 2.13+) and as torch's watchdog quotes them;
- aws-ofi-nccl's plugin setup (`OFI fi_getinfo() call failed`, NCCL_NET forced or fallen back to Socket), its address
  vector; UCX's wireup and mlx5 completion errors;
- c10d 2.4+'s `Failed to recv, got 0 bytes. Connection was likely closed...` (TCPStore recvBytes, the heartbeat
  monitor's store poll at the job's end) and elastic's rendezvous shutdown after the workers succeeded;
- torch 2.8+'s `torch.AcceleratorError: CUDA error: ...` (HIP on ROCm builds), RCCL's `HIP failure '...'`;
- torchrun's local ranks on multi-node pastes (`[default1]:[rank9]:`, `rank : 9 (local_rank: 1)`, NCCL's init line).
"""
from __future__ import annotations

import pytest

from nccl_forensics.sources import catalogue
from nccl_forensics.sources.catalogue.nccl import result_code

from .consoles import PROGRESS, console_verdict

# name -> (console lines, accepted classes, culprit ranks or None)
CASES: dict[str, tuple[str, set[str], list[int] | None]] = {
    "nccl_ibv_reg_mr_memlock": (
        "node3:5512:5690 [4] misc/ibvwrap.cc:194 NCCL WARN Call to ibv_reg_mr_iova2 failed with error Cannot allocate memory\n"
        "node3:5512:5690 [4] NCCL INFO transport/net_ib.cc:1162 -> 2\n"
        "node3:5512:5690 [4] NCCL INFO transport/net.cc:744 -> 2\n"
        "[rank4]: torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:3356, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.21.5\n"
        "[rank4]: ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error.\n"
        "[rank4]: Last error:\n"
        "[rank4]: Call to ibv_reg_mr_iova2 failed with error Cannot allocate memory",
        {'network_error', 'oom', 'unclassified_failure'}, None),
    "nccl_proxy_connect_remote_retcode": (
        "gpu-07:2201:2388 [3] proxy.cc:1512 NCCL WARN [Proxy Service 3] Failed to execute operation Connect from rank 3, retcode 6\n"
        "gpu-07:2201:2380 [3] misc/socket.cc:49 NCCL WARN socketProgress: Connection closed by remote peer gpu-07<40113>\n"
        "gpu-07:2201:2380 [3] NCCL INFO misc/socket.cc:752 -> 6\n"
        "gpu-07:2201:2380 [3] proxy.cc:1125 NCCL WARN Proxy Call to rank 3 failed (Connect)\n"
        "[rank3]: torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:275, remote process exited or there was a network error, NCCL version 2.20.5\n"
        "[rank3]: ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.",
        {'dropped_rank', 'network_error', 'inconclusive', 'unclassified_failure'}, None),
    "ofi_av_insert_failed": (
        "compute-st-p5-2:1188:1290 [6] nccl_net_ofi_rdma.cpp:6011 NCCL WARN NET/OFI Unable to insert remote address into address vector for device 0. RC: -22 Invalid argument\n"
        "compute-st-p5-2:1188:1290 [6] NCCL INFO transport/net.cc:388 -> 2\n"
        "compute-st-p5-2:1188:1290 [6] NCCL INFO transport.cc:197 -> 2\n"
        "[rank14]: torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:2027, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.21.5\n"
        "[rank14]: ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error.\n"
        "[rank14]: Last error:\n"
        "[rank14]: NET/OFI Unable to insert remote address into address vector for device 0. RC: -22 Invalid argument",
        {'network_error'}, None),
    "ofi_plugin_init_failed_fallback_ok": (
        "ip-10-0-4-12:3321:3321 [0] nccl_net_ofi_create_plugin:261 NCCL WARN NET/OFI Unable to find a protocol that worked.  Failing initialization.\n"
        "ip-10-0-4-12:3321:3321 [0] nccl_net_ofi_create_plugin:341 NCCL WARN NET/OFI aws-ofi-nccl initialization failed\n"
        "ip-10-0-4-12:3321:3321 [0] nccl_net_ofi_init:134 NCCL WARN NET/OFI Initializing plugin failed\n"
        "ip-10-0-4-12:3321:3321 [0] NCCL INFO net.cc:73 Net Plugin: Failed to initialize NET plugin aws-ofi-nccl\n"
        "ip-10-0-4-12:3321:3321 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.4.12<0>\n"
        "ip-10-0-4-12:3321:3321 [0] NCCL INFO Using network Socket\n"
        "ip-10-0-4-12:3321:3400 [0] NCCL INFO comm 0x55d1c0 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 101c0 commId 0x8a1f22c1d3a0f6e1 - Init COMPLETE\n"
        "Epoch 1: loss 0.48\n"
        "Epoch 2: loss 0.31\n"
        "Training finished.",
        {'none', 'inconclusive'}, None),
    "ofi_plugin_init_failed_net_forced": (
        "ip-10-0-4-12:3321:3321 [0] NCCL INFO NCCL_NET_PLUGIN set by environment to aws-ofi-nccl\n"
        "ip-10-0-4-12:3321:3321 [0] NCCL INFO NET/OFI Initializing aws-ofi-nccl 1.13.2\n"
        "ip-10-0-4-12:3321:3321 [0] nccl_net_ofi_rdma_init:7737 NCCL WARN NET/OFI OFI fi_getinfo() call failed: No data available\n"
        "ip-10-0-4-12:3321:3321 [0] nccl_net_ofi_create_plugin:261 NCCL WARN NET/OFI Unable to find a protocol that worked.  Failing initialization.\n"
        "ip-10-0-4-12:3321:3321 [0] nccl_net_ofi_create_plugin:341 NCCL WARN NET/OFI aws-ofi-nccl initialization failed\n"
        "ip-10-0-4-12:3321:3321 [0] nccl_net_ofi_init:134 NCCL WARN NET/OFI Initializing plugin failed\n"
        "ip-10-0-4-12:3321:3321 [0] net.cc:626 NCCL WARN Error: network AWS Libfabric not found.\n"
        "ip-10-0-4-12:3321:3321 [0] NCCL INFO init.cc:1718 -> 5\n"
        "[rank0]: torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:3352, invalid usage (run with NCCL_DEBUG=WARN for details), NCCL version 2.23.4\n"
        "[rank0]: ncclInvalidUsage: This usually reflects invalid usage of NCCL library.\n"
        "[rank0]: Last error:\n"
        "[rank0]: Error: network AWS Libfabric not found.",
        {'network_error', 'unclassified_failure', 'nic_misselection'}, None),
    "rccl_hip_illegal_address_proxy": (
        "mi300-4:8810:9012 [2] proxy.cc:1390 NCCL WARN HIP failure 'an illegal memory access was encountered'\n"
        "mi300-4:8810:9012 [2] NCCL INFO proxy.cc:1427 -> 1\n"
        "[rank2]:[E1126 09:14:02.118201 ProcessGroupNCCL.cpp:1630] [PG ID 0 PG GUID 0(default_pg) Rank 2] Process group watchdog thread terminated with exception: NCCL error: unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.20.5",
        {'dropped_rank'}, [2]),
    "rccl_hip_invalid_device_ordinal": (
        "mi250-2:1201:1201 [5] NCCL INFO RCCL version 2.18.3+hip6.0 develop:2a0e7a2\n"
        "mi250-2:1201:1201 [5] init.cc:1741 NCCL WARN HIP failure 'invalid device ordinal'\n"
        "mi250-2:1201:1201 [5] NCCL INFO init.cc:1791 -> 1\n"
        "[rank5]: torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.18.3\n"
        "[rank5]: ncclUnhandledCudaError: Call to CUDA function failed.\n"
        "[rank5]: Last error:\n"
        "[rank5]: HIP failure 'invalid device ordinal'",
        {'unclassified_failure'}, None),
    "sglang_pynccl_invalid_usage_duplicate_gpu": (
        "[2025-03-09 00:41:02 TP1] Init torch distributed begin.\n"
        "node-a:4410:4410 [0] init.cc:871 NCCL WARN Duplicate GPU detected : rank 1 and rank 0 both on CUDA device 18000\n"
        "node-a:4410:4410 [0] NCCL INFO init.cc:1501 -> 5\n"
        "[2025-03-09 00:41:04 TP1] Scheduler hit an exception: Traceback (most recent call last):\n"
        "  File \"/sgl-workspace/sglang/python/sglang/srt/distributed/device_communicators/pynccl_wrapper.py\", line 374, in NCCL_CHECK\n"
        "    raise RuntimeError(f\"NCCL error: {error_str}\")\n"
        "RuntimeError: NCCL error: invalid usage (run with NCCL_DEBUG=WARN for details)",
        {'unclassified_failure'}, None),
    "sglang_pynccl_remote_error_allreduce": (
        "[2025-06-02 11:20:41 TP3] Decode batch. #running-req: 12, #token: 5210, token usage: 0.03, gen throughput (token/s): 812.44\n"
        "[2025-06-02 11:20:44 TP3] Scheduler hit an exception: Traceback (most recent call last):\n"
        "  File \"/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py\", line 2311, in run_scheduler_process\n"
        "    scheduler.event_loop_overlap()\n"
        "  File \"/sgl-workspace/sglang/python/sglang/srt/distributed/device_communicators/pynccl.py\", line 131, in all_reduce\n"
        "    self.nccl.ncclAllReduce(\n"
        "  File \"/sgl-workspace/sglang/python/sglang/srt/distributed/device_communicators/pynccl_wrapper.py\", line 374, in NCCL_CHECK\n"
        "    raise RuntimeError(f\"NCCL error: {error_str}\")\n"
        "RuntimeError: NCCL error: remote process exited or there was a network error\n"
        "\n"
        "[2025-06-02 11:20:44] Received sigquit from a child process. It usually means the child failed.\n"
        "Killed",
        {'dropped_rank', 'network_error', 'inconclusive'}, None),
    "torch_accelerator_error_ecc": (
        "[rank2]: Traceback (most recent call last):\n"
        "[rank2]:   File \"/workspace/train.py\", line 188, in train_step\n"
        "[rank2]:     out = model(x)\n"
        "[rank2]: torch.AcceleratorError: CUDA error: uncorrectable ECC error encountered\n"
        "[rank2]: Search for `cudaErrorECCUncorrectable' in https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__TYPES.html for more information.",
        {'dropped_rank'}, [2]),
    "torch_accelerator_error_illegal_address": (
        "[rank6]: Traceback (most recent call last):\n"
        "[rank6]:   File \"/workspace/train.py\", line 301, in <module>\n"
        "[rank6]:     loss.backward()\n"
        "[rank6]: torch.AcceleratorError: CUDA error: an illegal memory access was encountered\n"
        "[rank6]: Search for `cudaErrorIllegalAddress' in https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__TYPES.html for more information.\n"
        "[rank6]: CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\n"
        "[rank6]: For debugging consider passing CUDA_LAUNCH_BLOCKING=1\n"
        "[rank6]: Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.",
        {'dropped_rank'}, [6]),
    "torch_cuda_launch_timeout": (
        "[rank1]: RuntimeError: CUDA error: the launch timed out and was terminated\n"
        "[rank1]: CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.",
        {'dropped_rank'}, [1]),
    "torch_cuda_no_kernel_image_2_8": (
        "[rank0]: torch.AcceleratorError: CUDA error: no kernel image is available for execution on the device\n"
        "[rank0]: Search for `cudaErrorNoKernelImageForDevice' in https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__TYPES.html for more information.",
        {'version_mismatch'}, None),
    "torch_elastic_rdzv_shutdown_error_after_success": (
        "I1126 12:01:10.811000 2121 torch/distributed/elastic/agent/server/api.py:885] [default] worker group successfully finished. Waiting 300 seconds for other agents to finish.\n"
        "I1126 12:01:10.812000 2121 torch/distributed/elastic/agent/server/api.py:938] Local worker group finished (WorkerState.SUCCEEDED). Waiting 300 seconds for other agents to finish\n"
        "I1126 12:01:10.920000 2121 torch/distributed/elastic/agent/server/api.py:952] Done waiting for other agents. Elapsed: 0.10732 seconds\n"
        "W1126 12:01:10.941000 2121 torch/distributed/elastic/rendezvous/dynamic_rendezvous.py:1341] The node 'gpu-12_2121_0' has failed to shutdown the rendezvous 'job42' due to an error of type RendezvousConnectionError.\n"
        "torch.distributed.elastic.rendezvous.api.RendezvousConnectionError: The connection to the C10d store has failed. See inner exception for details.",
        {'none', 'inconclusive'}, None),
    "torch_gloo_connect_full_mesh_timeout_2_6": (
        "[rank3]: Traceback (most recent call last):\n"
        "[rank3]:   File \"/app/train.py\", line 22, in <module>\n"
        "[rank3]:     dist.init_process_group(\"gloo\", timeout=timedelta(seconds=60))\n"
        "[rank3]: RuntimeError: Gloo connectFullMesh failed with [/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:144] no error",
        {'network_error'}, None),
    "torch_pgnccl_watchdog_remote_error_2_7": (
        "[rank5]:[E1126 03:12:41.557012 ProcessGroupNCCL.cpp:1934] [PG ID 0 PG GUID 0(default_pg) Rank 5] Process group watchdog thread terminated with exception: NCCL error: remote process exited or there was a network error, NCCL version 2.26.2\n"
        "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.\n"
        "Last error:\n"
        "socketProgress: Connection closed by remote peer gpu-21.cluster<41952>\n"
        "Exception raised from checkForNCCLErrorsInternal at /pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:2236 (most recent call first):\n"
        "terminate called after throwing an instance of 'c10::DistBackendError'",
        {'dropped_rank', 'network_error', 'inconclusive'}, None),
    "torch_rocm_accelerator_error_hip": (
        "[rank4]: Traceback (most recent call last):\n"
        "[rank4]:   File \"/workspace/train.py\", line 240, in <module>\n"
        "[rank4]:     optimizer.step()\n"
        "[rank4]: torch.AcceleratorError: HIP error: an illegal memory access was encountered\n"
        "[rank4]: Search for `hipErrorIllegalAddress' in https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__TYPES.html for more information.\n"
        "[rank4]: HIP kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\n"
        "[rank4]: For debugging consider passing AMD_SERIALIZE_KERNEL=3",
        {'dropped_rank'}, [4]),
    "torch_store_recv0_after_success": (
        "[rank1]:[W1126 10:20:41.210338401 ProcessGroupNCCL.cpp:1496] Warning: WARNING: destroy_process_group() was not called before program exit, which can leak resources. For more info, please see https://pytorch.org/docs/stable/distributed.html#shutdown (function operator())\n"
        "[rank2]:[W1126 10:20:41.464204351 TCPStore.cpp:125] [c10d] recvValue failed on SocketImpl(fd=68, addr=[localhost]:49590, remote=[localhost]:29500): Failed to recv, got 0 bytes. Connection was likely closed. Did the remote server shutdown or crash?\n"
        "Exception raised from recvBytes at /pytorch/torch/csrc/distributed/c10d/Utils.hpp:682 (most recent call first):\n"
        "frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x98 (0x7f610297cb80 in /usr/lib/python3/dist-packages/torch/lib/libc10.so)\n"
        "[rank2]:[W1126 10:20:41.466030222 ProcessGroupNCCL.cpp:1802] [PG ID 0 PG GUID 0 Rank 2] Failed to check the \"should dump\" flag on TCPStore, (maybe TCPStore server has shut down too early), with error: Failed to recv, got 0 bytes. Connection was likely closed. Did the remote server shutdown or crash?",
        {'none', 'inconclusive'}, None),
    "torch_store_recv0_init_master_gone": (
        "[W1126 08:03:11.000112 socket.cpp:752] [c10d] The client socket has failed to connect to [master-0]:29500 (errno: 111 - Connection refused).\n"
        "Traceback (most recent call last):\n"
        "  File \"/workspace/train.py\", line 38, in <module>\n"
        "    dist.init_process_group(\"nccl\")\n"
        "  File \"/usr/local/lib/python3.11/site-packages/torch/distributed/distributed_c10d.py\", line 1710, in init_process_group\n"
        "    store, rank, world_size = next(rendezvous_iterator)\n"
        "torch.distributed.DistNetworkError: Failed to recv, got 0 bytes. Connection was likely closed. Did the remote server shutdown or crash?",
        {'network_error', 'dropped_rank', 'inconclusive', 'unclassified_failure'}, None),
    "torchrun_multinode_agent_line_only": (
        "gpu-a:3001:3001 [0] NCCL INFO comm 0x5600 rank 0 nranks 16 cudaDev 0 nvmlDev 0 busId 18000 commId 0x9d1 - Init COMPLETE\n"
        "gpu-a:3002:3002 [1] NCCL INFO comm 0x5608 rank 1 nranks 16 cudaDev 1 nvmlDev 1 busId 2a000 commId 0x9d1 - Init COMPLETE\n"
        "gpu-b:7105:7105 [3] NCCL INFO comm 0x5618 rank 11 nranks 16 cudaDev 3 nvmlDev 3 busId 5d000 commId 0x9d1 - Init COMPLETE\n"
        "gpu-b:7105:7105 [3] NCCL INFO comm 0x5618 rank 11 nranks 16 - Init COMPLETE\n"
        "step 200 loss 1.93\n"
        "E1126 14:22:03.401000 7090 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: -9) local_rank: 3 (pid: 7105) of binary: /usr/bin/python3",
        {'dropped_rank', 'oom'}, [11]),
    "torchrun_multinode_root_cause_table": (
        "gpu-a:3001:3001 [0] NCCL INFO comm 0x5600 rank 0 nranks 16 cudaDev 0 nvmlDev 0 busId 18000 commId 0x9d1 - Init COMPLETE\n"
        "gpu-b:7102:7102 [1] NCCL INFO comm 0x5610 rank 9 nranks 16 cudaDev 1 nvmlDev 1 busId 2a000 commId 0x9d1 - Init COMPLETE\n"
        "E1126 14:22:03.401000 7090 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: -11) local_rank: 1 (pid: 7102) of binary: /usr/bin/python3\n"
        "Traceback (most recent call last):\n"
        "  File \"/usr/local/bin/torchrun\", line 8, in <module>\n"
        "    sys.exit(main())\n"
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n"
        "============================================================\n"
        "train.py FAILED\n"
        "------------------------------------------------------------\n"
        "Failures:\n"
        "  <NO_OTHER_FAILURES>\n"
        "------------------------------------------------------------\n"
        "Root Cause (first observed failure):\n"
        "[0]:\n"
        "  time      : 2026-11-26_14:22:03\n"
        "  host      : gpu-b\n"
        "  rank      : 9 (local_rank: 1)\n"
        "  exitcode  : -11 (pid: 7102)\n"
        "  error_file: <N/A>\n"
        "  traceback : Signal 11 (SIGSEGV) received by PID 7102\n"
        "============================================================",
        {'dropped_rank'}, [9]),
    "ucx_no_active_messages_transport": (
        "[1736788625.693157] [gpu-n01:521140:0]          select.c:630  UCX  ERROR   no active messages transport to <no debug data>: self/memory - Destination is unreachable, sysv/memory - different host id, cma/memory - no am bcopy\n"
        "[gpu-n01:521140] pml_ucx.c:419  Error: ucp_ep_create(proc=1) failed: Destination is unreachable\n"
        "[gpu-n01:521140] pml_ucx.c:472  Error: Failed to resolve UCX endpoint for rank 1\n"
        "[gpu-n01:521140] *** An error occurred in MPI_Init",
        {'network_error', 'unclassified_failure', 'nic_misselection'}, None),
    "ucx_remote_access_error": (
        "[1716201123.511421] [node17:60212:0]   ib_mlx5_log.c:177  UCX  ERROR Remote access error on mlx5_0:1/IB (synd 0x13 vend 0x88 hw_synd 0/0)\n"
        "[1716201123.511421] [node17:60212:0]   ib_mlx5_log.c:177  UCX  ERROR RC QP 0x2a1c wqe[1181]: RDMA_READ s-- [rva 0x7f12a4c00000 rkey 0x2c2100] [va 0x7f0c10000000 len 1048576 lkey 0x27f600]\n"
        "[node17:60212:0:60212] Caught signal 6 (Aborted)",
        {'dropped_rank', 'network_error'}, None),
    "ucx_transport_retry_exceeded_rc_verbs": (
        "[1701112233.100200] [hpc-gpu-4:9911:0]        ib_log.c:177  UCX  ERROR   Transport retry count exceeded on mlx5_1:1/IB (synd 0x15 vend 0x81 hw_synd 0/0)\n"
        "[1701112233.100220] [hpc-gpu-4:9911:0]        ib_log.c:177  UCX  ERROR   RC QP 0x1e9 wqe[33]: SEND s-e [inl len 18]\n"
        "[hpc-gpu-4:9911] *** Process received signal ***",
        {'network_error'}, None),
    "vllm_pynccl_internal_error": (
        "(VllmWorker rank=0 pid=77) ERROR 07-02 13:44:10 [multiproc_executor.py:546]     raise RuntimeError(f\"NCCL error: {error_str}\")\n"
        "(VllmWorker rank=0 pid=77) ERROR 07-02 13:44:10 [multiproc_executor.py:546] RuntimeError: NCCL error: internal error - please report this issue to the NCCL developers\n"
        "ERROR 07-02 13:44:12 [core.py:586] EngineCore failed to start.",
        {'inconclusive', 'unclassified_failure'}, None),
    "vllm_pynccl_remote_error_ib_retry": (
        "gpu-b7:2231:2563 [0] NCCL INFO Channel 00/0 : 8[0] -> 0[0] [receive] via NET/IB/0\n"
        "gpu-b7:2231:2563 [0] NCCL INFO Connected all rings\n"
        "gpu-b7:2231:2570 [0] transport/net_ib.cc:1696 NCCL WARN NET/IB: Got completion from peer 10.20.1.7<60211> with status=IBV_WC_RETRY_EXC_ERR(12) opcode=IBV_WC_RDMA_WRITE(1) vendor_err=129 localGid ::ffff:10.20.1.9 remoteGids::ffff:10.20.1.7 hca mlx5_0\n"
        "gpu-b7:2231:2570 [0] NCCL INFO transport/net.cc:1298 -> 6\n"
        "gpu-b7:2231:2570 [0] NCCL INFO proxy.cc:698 -> 6\n"
        "(RayWorkerWrapper pid=2231, ip=10.20.1.9) ERROR 05-21 04:31:12 [worker_base.py:620] Error executing method 'execute_model'. This might cause deadlock in distributed execution.\n"
        "(RayWorkerWrapper pid=2231, ip=10.20.1.9) ERROR 05-21 04:31:12 [worker_base.py:620]   File \"/usr/local/lib/python3.12/dist-packages/vllm/distributed/device_communicators/pynccl_wrapper.py\", line 256, in NCCL_CHECK\n"
        "(RayWorkerWrapper pid=2231, ip=10.20.1.9) ERROR 05-21 04:31:12 [worker_base.py:620]     raise RuntimeError(f\"NCCL error: {error_str}\")\n"
        "(RayWorkerWrapper pid=2231, ip=10.20.1.9) ERROR 05-21 04:31:12 [worker_base.py:620] RuntimeError: NCCL error: remote process exited or there was a network error",
        {'network_error'}, None),
    "vllm_pynccl_remote_error_init": (
        "(VllmWorker rank=1 pid=4412) ERROR 05-20 10:11:12 [multiproc_executor.py:546] WorkerProc failed to start.\n"
        "(VllmWorker rank=1 pid=4412) ERROR 05-20 10:11:12 [multiproc_executor.py:546] Traceback (most recent call last):\n"
        "(VllmWorker rank=1 pid=4412) ERROR 05-20 10:11:12 [multiproc_executor.py:546]   File \"/usr/local/lib/python3.12/dist-packages/vllm/v1/executor/multiproc_executor.py\", line 520, in worker_main\n"
        "(VllmWorker rank=1 pid=4412) ERROR 05-20 10:11:12 [multiproc_executor.py:546]     worker = WorkerProc(*args, **kwargs)\n"
        "(VllmWorker rank=1 pid=4412) ERROR 05-20 10:11:12 [multiproc_executor.py:546]   File \"/usr/local/lib/python3.12/dist-packages/vllm/distributed/device_communicators/pynccl.py\", line 99, in __init__\n"
        "(VllmWorker rank=1 pid=4412) ERROR 05-20 10:11:12 [multiproc_executor.py:546]     self.comm: ncclComm_t = self.nccl.ncclCommInitRank(\n"
        "(VllmWorker rank=1 pid=4412) ERROR 05-20 10:11:12 [multiproc_executor.py:546]   File \"/usr/local/lib/python3.12/dist-packages/vllm/distributed/device_communicators/pynccl_wrapper.py\", line 277, in ncclCommInitRank\n"
        "(VllmWorker rank=1 pid=4412) ERROR 05-20 10:11:12 [multiproc_executor.py:546]     self.NCCL_CHECK(self._funcs[\"ncclCommInitRank\"](ctypes.byref(comm),\n"
        "(VllmWorker rank=1 pid=4412) ERROR 05-20 10:11:12 [multiproc_executor.py:546]   File \"/usr/local/lib/python3.12/dist-packages/vllm/distributed/device_communicators/pynccl_wrapper.py\", line 256, in NCCL_CHECK\n"
        "(VllmWorker rank=1 pid=4412) ERROR 05-20 10:11:12 [multiproc_executor.py:546]     raise RuntimeError(f\"NCCL error: {error_str}\")\n"
        "(VllmWorker rank=1 pid=4412) ERROR 05-20 10:11:12 [multiproc_executor.py:546] RuntimeError: NCCL error: remote process exited or there was a network error\n"
        "ERROR 05-20 10:11:15 [core.py:586] EngineCore failed to start.\n"
        "RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}",
        {'dropped_rank', 'network_error', 'inconclusive'}, None),
    "vllm_pynccl_unhandled_cuda_nvls": (
        "INFO 01-14 18:22:03 pynccl.py:69] vLLM is using nccl==2.21.5\n"
        "h100-3:901:901 [0] transport/nvls.cc:158 NCCL WARN Cuda failure 1 'invalid argument'\n"
        "h100-3:901:901 [0] NCCL INFO transport/nvls.cc:328 -> 1\n"
        "h100-3:901:901 [0] NCCL INFO init.cc:1349 -> 1\n"
        "ERROR 01-14 18:22:05 engine.py:366]     raise RuntimeError(f\"NCCL error: {error_str}\")\n"
        "ERROR 01-14 18:22:05 engine.py:366] RuntimeError: NCCL error: unhandled cuda error (run with NCCL_DEBUG=INFO for details)",
        {'inconclusive', 'unclassified_failure'}, None),
    "vllm_pynccl_unhandled_system_shm": (
        "node0:812:812 [2] NCCL INFO Using network IB\n"
        "node0:812:1330 [2] include/shmutils.h:35 NCCL WARN Error: failed to extend /dev/shm/nccl-7QfRz2 to 9637892 bytes, error: No space left on device (28)\n"
        "node0:812:1330 [2] NCCL INFO transport/shm.cc:114 -> 2\n"
        "node0:812:812 [2] NCCL INFO init.cc:1263 -> 2\n"
        "(VllmWorkerProcess pid=812) ERROR 03-11 09:02:51 multiproc_worker_utils.py:226] Exception in worker VllmWorkerProcess while processing method init_device.\n"
        "(VllmWorkerProcess pid=812) ERROR 03-11 09:02:51 multiproc_worker_utils.py:226]     raise RuntimeError(f\"NCCL error: {error_str}\")\n"
        "(VllmWorkerProcess pid=812) ERROR 03-11 09:02:51 multiproc_worker_utils.py:226] RuntimeError: NCCL error: unhandled system error (run with NCCL_DEBUG=INFO for details)",
        {'oom'}, None),
}
# the cases that end in health: their consoles show no progress lines of a run that failed
_ENDED_WELL = {"ofi_plugin_init_failed_fallback_ok", "torch_store_recv0_after_success",
               "torch_elastic_rdzv_shutdown_error_after_success"}


@pytest.mark.parametrize("name", sorted(CASES))
def test_srcmined8_verdict(tmp_path, name):
    text, accept, culprits = CASES[name]
    verdict = console_verdict(tmp_path, text, progress="" if name in _ENDED_WELL else PROGRESS)
    assert verdict.cls in accept, verdict.summary
    if culprits is not None:
        assert verdict.culprit_ranks == culprits, verdict.summary


def test_local_rank_of_another_node_is_no_global_rank(tmp_path):
    """torchrun's agent names the failed worker by its local rank; a line under both `[default1]:` (torchrun --tee,
    local) and `[rank9]:` (c10d, global) says local rank 1 is rank 9 here: the agent's local rank 1 is not rank 1."""
    verdict = console_verdict(tmp_path, (
        "[default1]:[rank9]: Traceback (most recent call last):\n"
        "[default1]:[rank9]: RuntimeError: CUDA error: an illegal memory access was encountered\n"
        "E1126 14:22:03.401000 7090 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) "
        "local_rank: 1 (pid: 7102) of binary: /usr/bin/python3"))
    assert verdict.cls == "dropped_rank" and verdict.culprit_ranks == [9], verdict.summary
    assert 1 not in verdict.cascade_ranks, verdict.summary


def test_single_node_local_rank_is_the_rank(tmp_path):
    """On one node (nothing says otherwise) torchrun's local rank is the global rank."""
    verdict = console_verdict(tmp_path, (
        "E1126 14:22:03.401000 7090 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: -11) "
        "local_rank: 3 (pid: 7102) of binary: /usr/bin/python3"))
    assert verdict.cls == "dropped_rank" and verdict.culprit_ranks == [3], verdict.summary


def test_an_anchor_that_begins_inside_another_is_found():
    """`Failed to ` (an anchor) and `ailed to recv, got 0 bytes` overlap: the second is still looked for."""
    hits = catalogue.match("torch.distributed.DistNetworkError: Failed to recv, got 0 bytes. Connection was likely "
                           "closed. Did the remote server shutdown or crash?")
    assert [h.message.id for h in hits] == ["pytorch.store_peer_closed"]


@pytest.mark.parametrize("text, code", [
    ("unhandled cuda error (run with NCCL_DEBUG=INFO for details)", "ncclUnhandledCudaError"),
    ("remote process exited or there was a network error", "ncclRemoteError"),
    ("internal error - please report this issue to the NCCL developers", "ncclInternalError"),
    ("unhandled system error", "ncclSystemError"), ("no error", None)])
def test_result_code_of_a_printed_text(text, code):
    assert result_code(text) == code


def test_pynccl_text_carries_its_code():
    hit, = catalogue.match("RuntimeError: NCCL error: unhandled cuda error (run with NCCL_DEBUG=INFO for details)")
    assert hit.message.id == "pytorch.nccl_error_text" and hit.fields["code"] == "ncclUnhandledCudaError"
