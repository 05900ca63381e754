"""Verdicts on consoles written around messages read in the sources (catalogue round srcmined25): aws-ofi-nccl finding
no provider (NCCL goes on over sockets: no failure) and an RDMA write the EFA fabric refused; the SHARP plugin unable
to create its group (CollNet falls back: no failure) and its IBext completion error with `reqSize=`/`vendor_err=`;
NCCL 2.14 rejecting a 2.17+ caller's NCCL_CONFIG_UNDEF_INT config; RCCL's MSCCL algorithm limit; gloo's uv transport
unable to connect; NVIDIA Xid 61 (a GPU that hangs), 92 (corrected ECC rate: no failure) and 94 (contained ECC);
srun's `task N: Bus error` and Open MPI's non-zero exit report as all the text there is.
"""
from __future__ import annotations

import pytest

from .consoles import PROGRESS, check_case, console_verdict

CASES = {
    'aws_ofi_fi_writedata_eio_r9': (
        'ip-10-1-30-4:5511:5511 [0] NCCL INFO NET/OFI Initializing aws-ofi-nccl 1.16.0-aws\n'
        'ip-10-1-30-4:5511:5511 [0] NCCL INFO NET/OFI Using Libfabric version 1.22\n'
        'ip-10-1-30-4:5511:5511 [0] NCCL INFO NET/OFI Selected Provider is efa (found 4 nics)\n'
        'ip-10-1-30-4:5511:5511 [0] NCCL INFO NET/OFI Using transport protocol RDMA\n'
        'ip-10-1-30-4:5511:5511 [0] NCCL INFO Using network Libfabric\n'
        'ip-10-1-30-4:5511:5760 [0] NCCL INFO comm 0x5601f0a2c880 rank 8 nranks 16 cudaDev 0 nvmlDev 0 busId 101c0 commId 0x2ac4d1e09b7f3a55 - Init COMPLETE\n'
        'ip-10-1-30-4:5512:5761 [1] NCCL INFO comm 0x55f3a1d0e7c0 rank 9 nranks 16 cudaDev 1 nvmlDev 1 busId 101d0 commId 0x2ac4d1e09b7f3a55 - Init COMPLETE\n'
        '[rank8]: epoch 0 step 1200 loss 2.8713\n'
        '[rank9]: epoch 0 step 1200 loss 2.8713\n'
        '\n'
        'ip-10-1-30-4:5512:5890 [1] post_rdma_write:1862 NCCL WARN NET/OFI fi_writedata failed; RC: -5, Error: Input/output error\n'
        'ip-10-1-30-4:5512:5890 [1] NCCL INFO transport/net.cc:1190 -> 2\n'
        'ip-10-1-30-4:5512:5890 [1] NCCL INFO proxy.cc:816 -> 2\n'
        'ip-10-1-30-4:5512:5890 [1] NCCL INFO proxy.cc:935 -> 2\n'
        '\n'
        'ip-10-1-30-4:5512:5890 [1] proxy.cc:1102 NCCL WARN [Proxy Thread] Error encountered progressing operation with res=2, closing comm\n'
        '[rank9]:[E611 05:17:42.331902214 ProcessGroupNCCL.cpp:1515] [PG 0 (default_pg) Rank 9] Process group watchdog thread terminated with exception: NCCL error: unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.21.5\n'
        '[rank9]: ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. \n'
        '[rank9]: Last error:\n'
        '[rank9]: NET/OFI fi_writedata failed; RC: -5, Error: Input/output error\n'
        '[rank9]: Exception raised from checkForNCCLErrorsInternal at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1958 (most recent call first):\n'
        '[rank9]: frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x96 (0x7f6a1c4f1f86 in /opt/conda/lib/python3.10/site-packages/torch/lib/libc10.so)\n'
        '[rank9]: frame #1: c10d::ProcessGroupNCCL::checkForNCCLErrorsInternal(std::shared_ptr<c10d::NCCLComm>&) + 0x220 (0x7f6a1d7e1c70 in /opt/conda/lib/python3.10/site-packages/torch/lib/libtorch_cuda.so)\n'
        "terminate called after throwing an instance of 'c10::DistBackendError'\n"
        '  what():  [PG 0 (default_pg) Rank 9] Process group watchdog thread terminated with exception: NCCL error: unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.21.5\n'
        'ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. \n'
        'Last error:\n'
        'NET/OFI fi_writedata failed; RC: -5, Error: Input/output error\n'
        'W0611 05:17:44.208000 139911 torch/distributed/elastic/multiprocessing/api.py:858] Sending process 5511 closing signal SIGTERM\n'
        'W0611 05:17:44.209000 139911 torch/distributed/elastic/multiprocessing/api.py:858] Sending process 5513 closing signal SIGTERM\n'
        'E0611 05:17:46.902000 139911 torch/distributed/elastic/multiprocessing/api.py:833] failed (exitcode: -6) local_rank: 1 (pid: 5512) of binary: /opt/conda/bin/python3.10\n'
        'torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n'
        '============================================================\n'
        'train.py FAILED\n'
        '------------------------------------------------------------\n'
        'Failures:\n'
        '  <NO_OTHER_FAILURES>\n'
        '------------------------------------------------------------\n'
        'Root Cause (first observed failure):\n'
        '[0]:\n'
        '  time      : 2025-06-11_05:17:44\n'
        '  host      : ip-10-1-30-4.ec2.internal\n'
        '  rank      : 9 (local_rank: 1)\n'
        '  exitcode  : -6 (pid: 5512)\n'
        '  error_file: <N/A>\n'
        '  traceback : Signal 6 (SIGABRT) received by PID 5512\n'
        '============================================================\n',
        ['network_error'], None),
    'aws_ofi_no_provider_socket_fallback_benign': (
        '+ torchrun --nnodes=2 --nproc_per_node=8 --rdzv_backend=c10d --rdzv_endpoint=ip-10-1-22-17:29500 train.py --config cfg/llama7b.yaml\n'
        '[2025-06-11 04:02:11,402] torch.distributed.run: [WARNING] \n'
        '[2025-06-11 04:02:11,402] torch.distributed.run: [WARNING] *****************************************\n'
        '[2025-06-11 04:02:11,402] torch.distributed.run: [WARNING] Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. \n'
        '[2025-06-11 04:02:11,402] torch.distributed.run: [WARNING] *****************************************\n'
        'ip-10-1-22-17:41021:41021 [0] NCCL INFO Bootstrap : Using ens32:10.1.22.17<0>\n'
        'ip-10-1-22-17:41021:41021 [0] NCCL INFO cudaDriverVersion 12020\n'
        'NCCL version 2.20.5+cuda12.4\n'
        'ip-10-1-22-17:41021:41117 [0] NCCL INFO NET/Plugin : dlerror=libnccl-net.so: cannot open shared object file: No such file or directory No plugin found (libnccl-net.so), using internal implementation\n'
        'ip-10-1-22-17:41021:41117 [0] NCCL INFO NET/Plugin: Loaded net plugin Libfabric (v7)\n'
        'ip-10-1-22-17:41021:41117 [0] NCCL INFO NET/OFI Initializing aws-ofi-nccl 1.15.0-aws\n'
        'ip-10-1-22-17:41021:41117 [0] NCCL INFO NET/OFI Using Libfabric version 1.22\n'
        'ip-10-1-22-17:41021:41117 [0] NCCL INFO NET/OFI Using CUDA driver version 12020 with runtime 12040\n'
        'ip-10-1-22-17:41021:41117 [0] NCCL INFO NET/OFI Configuring AWS-specific options\n'
        'ip-10-1-22-17:41021:41117 [0] NCCL INFO NET/OFI Setting provider_filter to efa\n'
        'ip-10-1-22-17:41021:41117 [0] NCCL INFO NET/OFI Internode latency set at 75.0 us\n'
        'ip-10-1-22-17:41021:41117 [0] NCCL INFO NET/OFI No eligible providers were found\n'
        '\n'
        '[2025-06-11 04:02:19] ip-10-1-22-17:41021:41117 [0] int nccl_net_ofi_create_plugin(nccl_net_ofi_plugin_t**):259 NCCL WARN NET/OFI Unable to find a protocol that worked.  Failing initialization.\n'
        '\n'
        '[2025-06-11 04:02:19] ip-10-1-22-17:41021:41117 [0] int nccl_net_ofi_create_plugin(nccl_net_ofi_plugin_t**):352 NCCL WARN NET/OFI aws-ofi-nccl initialization failed\n'
        '\n'
        '[2025-06-11 04:02:19] ip-10-1-22-17:41021:41117 [0] ncclResult_t nccl_net_ofi_init_v6(ncclDebugLogger_t):140 NCCL WARN NET/OFI Initializing plugin failed\n'
        'ip-10-1-22-17:41021:41117 [0] NCCL INFO NET/IB : No device found.\n'
        'ip-10-1-22-17:41021:41117 [0] NCCL INFO NET/Socket : Using [0]ens32:10.1.22.17<0>\n'
        'ip-10-1-22-17:41021:41117 [0] NCCL INFO Using non-device net plugin version 0\n'
        'ip-10-1-22-17:41021:41117 [0] NCCL INFO Using network Socket\n'
        'ip-10-1-22-17:41021:41117 [0] NCCL INFO comm 0x55d0a2b1c3e0 rank 0 nranks 16 cudaDev 0 nvmlDev 0 busId 101c0 commId 0x6b1f0e2a9d3c4b11 - Init START\n'
        'ip-10-1-22-17:41021:41117 [0] NCCL INFO Channel 00/02 :    0   1   2   3   4   5   6   7   8   9  10  11  12  13  14  15\n'
        'ip-10-1-22-17:41021:41117 [0] NCCL INFO Channel 00/0 : 15[7] -> 0[0] [receive] via NET/Socket/0\n'
        'ip-10-1-22-17:41021:41117 [0] NCCL INFO Channel 00/0 : 7[7] -> 8[0] [send] via NET/Socket/0\n'
        'ip-10-1-22-17:41021:41117 [0] NCCL INFO comm 0x55d0a2b1c3e0 rank 0 nranks 16 cudaDev 0 nvmlDev 0 busId 101c0 commId 0x6b1f0e2a9d3c4b11 - Init COMPLETE\n'
        '[rank0]: step 10/300 loss 7.412 tokens/s 1802\n'
        '[rank0]: step 100/300 loss 4.105 tokens/s 1811\n'
        '[rank0]: step 200/300 loss 3.512 tokens/s 1809\n'
        '[rank0]: step 300/300 loss 3.201 tokens/s 1806\n'
        '[rank0]: training finished, saving checkpoint to /fsx/ckpt/llama7b/step300\n'
        'ip-10-1-22-17:41021:41021 [0] NCCL INFO comm 0x55d0a2b1c3e0 rank 0 nranks 16 cudaDev 0 busId 101c0 - Destroy COMPLETE\n'
        '[2025-06-11 06:41:53,118] torch.distributed.elastic.agent.server.api: [INFO] [default] worker group successfully finished. Waiting 300 seconds for other agents to finish.\n'
        '[2025-06-11 06:41:55,004] torch.distributed.elastic.agent.server.api: [INFO] Local worker group finished (WorkerState.SUCCEEDED). Waiting 300 seconds for other agents to finish\n'
        '[2025-06-11 06:41:57,227] torch.distributed.elastic.agent.server.api: [INFO] Done waiting for other agents. Elapsed: 2.2218 seconds\n',
        ['none', 'inconclusive', 'nic_misselection'], None),
    'gloo_uv_error_connecting_refused': (
        '(ddp) C:\\work\\ddp>python -m torch.distributed.launch --nproc_per_node=1 --nnodes=2 --node_rank=1 --master_addr=192.168.1.20 --master_port=29500 train.py --backend gloo\n'
        'torch 1.8.1+cu111\n'
        'Traceback (most recent call last):\n'
        '  File "train.py", line 61, in <module>\n'
        '    main()\n'
        '  File "train.py", line 24, in main\n'
        '    dist.init_process_group(backend=args.backend, init_method="env://")\n'
        '  File "C:\\Users\\lab\\anaconda3\\envs\\ddp\\lib\\site-packages\\torch\\distributed\\distributed_c10d.py", line 500, in init_process_group\n'
        '    timeout=timeout)\n'
        '  File "C:\\Users\\lab\\anaconda3\\envs\\ddp\\lib\\site-packages\\torch\\distributed\\distributed_c10d.py", line 588, in _new_process_group_helper\n'
        '    timeout=timeout)\n'
        'RuntimeError: [C:\\cb\\pytorch_1000000000000\\work\\third_party\\gloo\\gloo\\transport\\uv\\pair.cc:102] Error connecting to [192.168.1.20]:54923: connection refused\n'
        'Killing subprocess 6212\n'
        'Traceback (most recent call last):\n'
        '  File "C:\\Users\\lab\\anaconda3\\envs\\ddp\\lib\\runpy.py", line 194, in _run_module_as_main\n'
        '    return _run_code(code, main_globals, None,\n'
        '  File "C:\\Users\\lab\\anaconda3\\envs\\ddp\\lib\\site-packages\\torch\\distributed\\launch.py", line 340, in <module>\n'
        '    main()\n'
        '  File "C:\\Users\\lab\\anaconda3\\envs\\ddp\\lib\\site-packages\\torch\\distributed\\launch.py", line 326, in main\n'
        '    sigkill_handler(signal.SIGTERM, None)  # not coming back\n'
        '  File "C:\\Users\\lab\\anaconda3\\envs\\ddp\\lib\\site-packages\\torch\\distributed\\launch.py", line 301, in sigkill_handler\n'
        '    raise subprocess.CalledProcessError(returncode=last_return_code, cmd=cmd)\n'
        "subprocess.CalledProcessError: Command '['C:\\\\Users\\\\lab\\\\anaconda3\\\\envs\\\\ddp\\\\python.exe', '-u', 'train.py', '--local_rank=0', '--backend', 'gloo']' returned non-zero exit status 1.\n",
        ['network_error'], None),
    'ibext_completion_reqsize_retry_exc': (
        'dgx-b12:402118:402118 [3] NCCL INFO NET/Plugin: Loaded net plugin NCCL RDMA Plugin v10 (v10)\n'
        'dgx-b12:402118:402118 [3] NCCL INFO P2P plugin v10 IBext_v10\n'
        'dgx-b12:402118:402118 [3] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [1]mlx5_3:1/RoCE [2]mlx5_4:1/RoCE [3]mlx5_5:1/RoCE [RO]; OOB bond0:10.4.1.11<0>\n'
        'dgx-b12:402118:402118 [3] NCCL INFO Using network IBext_v10\n'
        'dgx-b12:402118:402251 [3] NCCL INFO comm 0x5608c0f1e2a0 rank 3 nranks 16 cudaDev 3 nvmlDev 3 busId 4f000 commId 0x5d1e7c2a90b3f644 - Init COMPLETE\n'
        '[rank3]: [2026-03-02 11:40:05] iter 4100 loss 2.114 lr 2.9e-4\n'
        '\n'
        'dgx-b12:402118:402299 [3] ib_plugin.c:2033 NCCL WARN NET/IB: Got completion from peer 10.4.1.12<36012> with status=IBV_WC_RETRY_EXC_ERR(12) opcode=IBV_WC_RDMA_WRITE(1) reqSize=524288 vendor_err=129 req_type=Send localGid ::ffff:10.4.1.11 remoteGids::ffff:10.4.1.12 hca mlx5_3\n'
        'dgx-b12:402118:402299 [3] NCCL INFO transport/net.cc:1298 -> 6\n'
        'dgx-b12:402118:402299 [3] NCCL INFO proxy.cc:698 -> 6\n'
        'dgx-b12:402118:402299 [3] NCCL INFO proxy.cc:880 -> 6 [Progress Thread]\n'
        '[rank3]:[E302 11:41:12.402887461 ProcessGroupNCCL.cpp:1895] [PG ID 0 PG GUID 0(default_pg) Rank 3] Process group watchdog thread terminated with exception: NCCL error: remote process exited or there was a network error, NCCL version 2.26.2\n'
        '[rank3]: ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.\n'
        '[rank3]: Last error:\n'
        '[rank3]: NET/IB: Got completion from peer 10.4.1.12<36012> with status=IBV_WC_RETRY_EXC_ERR(12) opcode=IBV_WC_RDMA_WRITE(1) reqSize=524288 vendor_err=129 req_type=Send localGid ::ffff:10.4.1.11 remoteGids::ffff:10.4.1.12 hca mlx5_3\n'
        '[rank3]: Exception raised from checkForNCCLErrorsInternal at /pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:2385 (most recent call first):\n'
        "terminate called after throwing an instance of 'c10::DistBackendError'\n"
        '  what():  [PG ID 0 PG GUID 0(default_pg) Rank 3] Process group watchdog thread terminated with exception: NCCL error: remote process exited or there was a network error, NCCL version 2.26.2\n'
        'W0302 11:41:13.551000 402101 torch/distributed/elastic/multiprocessing/api.py:900] Sending process 402115 closing signal SIGTERM\n'
        'E0302 11:41:15.003000 402101 torch/distributed/elastic/multiprocessing/api.py:874] failed (exitcode: -6) local_rank: 3 (pid: 402118) of binary: /usr/bin/python3\n',
        ['network_error'], None),
    'mpirun_ucx_unused_env_nonzero_little_text': (
        '$ mpirun -np 16 -H node1:8,node2:8 -bind-to none -map-by slot -x NCCL_DEBUG=WARN -x UCX_HOME -x LD_LIBRARY_PATH -mca pml ucx python train_hvd.py\n'
        '[1721773249.945634] [node1:999323:0]          parser.c:2033 UCX  WARN  unused environment variable: UCX_HOME\n'
        '[1721773249.945634] [node1:999323:0]          parser.c:2033 UCX  WARN  (set UCX_WARN_UNUSED_ENV_VARS=n to suppress this warning)\n'
        '[1721773249.951208] [node2:41877:0]          parser.c:2033 UCX  WARN  unused environment variable: UCX_HOME\n'
        '[1721773249.951208] [node2:41877:0]          parser.c:2033 UCX  WARN  (set UCX_WARN_UNUSED_ENV_VARS=n to suppress this warning)\n'
        '[1,0]<stdout>:Epoch 1 batch 200 loss 0.8813\n'
        '[1,0]<stdout>:Epoch 1 batch 400 loss 0.6021\n'
        '--------------------------------------------------------------------------\n'
        'Primary job  terminated normally, but 1 process returned\n'
        'a non-zero exit code. Per user-direction, the job has been aborted.\n'
        '--------------------------------------------------------------------------\n'
        '--------------------------------------------------------------------------\n'
        'mpirun detected that one or more processes exited with non-zero status, thus causing\n'
        'the job to be terminated. The first process to do so was:\n'
        '\n'
        '  Process name: [[41230,1],5]\n'
        '  Exit code:    1\n'
        '--------------------------------------------------------------------------\n',
        ['unclassified_failure', 'dropped_rank'], None),
    'nccl214_config_blocking_int_min': (
        '$ LD_LIBRARY_PATH=/opt/nccl-2.14.3/lib:$LD_LIBRARY_PATH torchrun --nproc_per_node=2 finetune.py\n'
        'WARNING:torch.distributed.run:\n'
        '*****************************************\n'
        'Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. \n'
        '*****************************************\n'
        'torch 2.1.2+cu121\n'
        'gpu3:1771:1771 [0] NCCL INFO Bootstrap : Using eno1:192.168.10.13<0>\n'
        'gpu3:1771:1771 [0] NCCL INFO NET/Plugin : No plugin found (libnccl-net.so), using internal implementation\n'
        'gpu3:1771:1771 [0] NCCL INFO cudaDriverVersion 12020\n'
        'NCCL version 2.14.3+cuda11.7\n'
        '\n'
        'gpu3:1771:1771 [0] init.cc:1584 NCCL WARN Invalid config blocking attribute value -2147483648\n'
        '\n'
        'gpu3:1772:1772 [1] init.cc:1584 NCCL WARN Invalid config blocking attribute value -2147483648\n'
        'Traceback (most recent call last):\n'
        '  File "/home/u/ft/finetune.py", line 88, in <module>\n'
        '    main()\n'
        '  File "/home/u/ft/finetune.py", line 41, in main\n'
        '    dist.barrier()\n'
        '  File "/home/u/.venv/lib/python3.10/site-packages/torch/distributed/c10d_logger.py", line 47, in wrapper\n'
        '    return func(*args, **kwargs)\n'
        '  File "/home/u/.venv/lib/python3.10/site-packages/torch/distributed/distributed_c10d.py", line 3696, in barrier\n'
        '    work = default_pg.barrier(opts=opts)\n'
        'torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:219, invalid argument, NCCL version 2.14.3\n'
        'ncclInvalidArgument: Invalid value for an argument.\n'
        'Last error:\n'
        'Invalid config blocking attribute value -2147483648\n'
        'Traceback (most recent call last):\n'
        '  File "/home/u/ft/finetune.py", line 88, in <module>\n'
        '    main()\n'
        '  File "/home/u/ft/finetune.py", line 41, in main\n'
        '    dist.barrier()\n'
        '  File "/home/u/.venv/lib/python3.10/site-packages/torch/distributed/distributed_c10d.py", line 3696, in barrier\n'
        '    work = default_pg.barrier(opts=opts)\n'
        'torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:219, invalid argument, NCCL version 2.14.3\n'
        'ncclInvalidArgument: Invalid value for an argument.\n'
        'Last error:\n'
        'Invalid config blocking attribute value -2147483648\n'
        'ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 0 (pid: 1771) of binary: /home/u/.venv/bin/python\n'
        'torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n'
        '============================================================\n'
        'finetune.py FAILED\n'
        '------------------------------------------------------------\n'
        'Failures:\n'
        '[1]:\n'
        '  time      : 2025-02-14_10:22:31\n'
        '  host      : gpu3\n'
        '  rank      : 1 (local_rank: 1)\n'
        '  exitcode  : 1 (pid: 1772)\n'
        '  error_file: <N/A>\n'
        '  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html\n'
        '------------------------------------------------------------\n'
        'Root Cause (first observed failure):\n'
        '[0]:\n'
        '  time      : 2025-02-14_10:22:31\n'
        '  host      : gpu3\n'
        '  rank      : 0 (local_rank: 0)\n'
        '  exitcode  : 1 (pid: 1771)\n'
        '  error_file: <N/A>\n'
        '  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html\n'
        '============================================================\n',
        ['version_mismatch', 'unclassified_failure'], None),
    'rccl_msccl_max_algos_limit': (
        'node01:2201:2201 [0] NCCL INFO ROCr version 1.13\n'
        'node01:2201:2201 [0] NCCL INFO Dmabuf feature disabled without NCCL_DMABUF_ENABLE=1\n'
        'RCCL version 2.18.6+hip6.1 HEAD:6aa4b1e\n'
        'node01:2201:2290 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [1]mlx5_1:1/RoCE ; OOB ens51f0:10.9.0.11<0>\n'
        'node01:2201:2290 [0] NCCL INFO Using network IB\n'
        'node01:2201:2290 [0] NCCL INFO comm 0x5590f2c41a00 rank 0 nranks 16 cudaDev 0 busId 15000 commId 0x3f7ea1b2c90d5e14 - Init COMPLETE\n'
        'node01:2201:2290 [0] NCCL INFO MSCCL: Initialization finished, localSize 8\n'
        '[rank0]: building pipeline groups: pp=4 tp=2 dp=2 (72 sub-groups)\n'
        'node01:2201:3105 [0] NCCL INFO comm 0x5590f4a91b20 rank 0 nranks 2 cudaDev 0 busId 15000 commId 0x8be2c401d17a6f90 - Init START\n'
        '\n'
        'node01:2201:3105 [0] msccl/msccl_lifecycle.cc:198 NCCL WARN MSCCL: MSCCL_MAX_NUM_ALGOS (64) limit reached\n'
        'node01:2201:3105 [0] NCCL INFO msccl/msccl_lifecycle.cc:230 -> 5\n'
        'node01:2201:3105 [0] NCCL INFO init.cc:1755 -> 5\n'
        'node01:2201:3105 [0] NCCL INFO init.cc:2072 -> 5\n'
        '[rank0]: Traceback (most recent call last):\n'
        '[rank0]:   File "/workspace/train_pp.py", line 144, in <module>\n'
        '[rank0]:     build_groups(args)\n'
        '[rank0]:   File "/workspace/train_pp.py", line 61, in build_groups\n'
        '[rank0]:     dist.all_reduce(probe, group=g)\n'
        '[rank0]:   File "/opt/conda/lib/python3.10/site-packages/torch/distributed/c10d_logger.py", line 79, in wrapper\n'
        '[rank0]:     return func(*args, **kwargs)\n'
        '[rank0]:   File "/opt/conda/lib/python3.10/site-packages/torch/distributed/distributed_c10d.py", line 2288, in all_reduce\n'
        '[rank0]:     work = group.allreduce([tensor], opts)\n'
        '[rank0]: torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, invalid usage (run with NCCL_DEBUG=WARN for details), NCCL version 2.18.6\n'
        '[rank0]: ncclInvalidUsage: This usually reflects invalid usage of NCCL library.\n'
        '[rank0]: Last error:\n'
        '[rank0]: MSCCL: MSCCL_MAX_NUM_ALGOS (64) limit reached\n'
        'E0409 14:02:55.118000 2190 torch/distributed/elastic/multiprocessing/api.py:826] failed (exitcode: 1) local_rank: 0 (pid: 2201) of binary: /opt/conda/bin/python\n',
        ['unclassified_failure'], None),
    'sharp_group_create_collnet_fallback_benign': (
        '+ export NCCL_COLLNET_ENABLE=1 NCCL_DEBUG=INFO\n'
        '+ srun --mpi=pmix python -u pretrain.py --tp 1 --dp 16\n'
        'gpu-n07:311402:311402 [0] NCCL INFO Bootstrap : Using ib0:10.20.7.7<0>\n'
        'gpu-n07:311402:311402 [0] NCCL INFO NET/Plugin : Plugin load (libnccl-net.so) returned 0 : success\n'
        'gpu-n07:311402:311402 [0] NCCL INFO cudaDriverVersion 12040\n'
        'NCCL version 2.18.5+cuda12.2\n'
        'gpu-n07:311402:311540 [0] NCCL INFO Plugin Path : /opt/hpcx/nccl_rdma_sharp_plugin/lib/libnccl-net.so\n'
        'gpu-n07:311402:311540 [0] NCCL INFO P2P plugin IBext\n'
        'gpu-n07:311402:311540 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB ; OOB ib0:10.20.7.7<0>\n'
        'gpu-n07:311402:311540 [0] NCCL INFO Using network IBext\n'
        'gpu-n07:311402:311540 [0] NCCL INFO Using CollNet SHARP\n'
        'gpu-n07:311402:311540 [0] NCCL INFO comm 0x563a1e4c07f0 rank 0 nranks 16 cudaDev 0 nvmlDev 0 busId 7000 commId 0x91c2d0e7aa34f1b2 - Init START\n'
        'gpu-n07:311402:311540 [0] NCCL INFO Channel 00/02 :    0   1   2   3   4   5   6   7   8   9  10  11  12  13  14  15\n'
        'gpu-n07:311402:311540 [0] NCCL INFO SHARP rank 0/2 initialized on mlx5_0:1\n'
        '\n'
        'gpu-n07:311402:311540 [0] sharp_plugin.c:318 NCCL WARN SHARP group create: Cannot create SHARP job(-11)\n'
        '\n'
        'gpu-n07:311402:311540 [0] transport.cc:384 NCCL WARN Cannot initialize CollNet, using point-to-point network instead\n'
        'gpu-n07:311402:311540 [0] NCCL INFO Connected all rings\n'
        'gpu-n07:311402:311540 [0] NCCL INFO Connected all trees\n'
        'gpu-n07:311402:311540 [0] NCCL INFO comm 0x563a1e4c07f0 rank 0 nranks 16 cudaDev 0 nvmlDev 0 busId 7000 commId 0x91c2d0e7aa34f1b2 - Init COMPLETE\n'
        '[rank 0] iteration      100/    2000 | lm loss 6.218E+00 | grad norm 1.402 | elapsed time per iteration (ms): 912.4\n'
        '[rank 0] iteration     1000/    2000 | lm loss 3.340E+00 | grad norm 0.611 | elapsed time per iteration (ms): 909.8\n'
        '[rank 0] iteration     2000/    2000 | lm loss 2.906E+00 | grad norm 0.523 | elapsed time per iteration (ms): 910.3\n'
        '[rank 0] saved checkpoint at iteration 2000 to /lustre/ckpt/gpt1b\n'
        'gpu-n07:311402:311402 [0] NCCL INFO comm 0x563a1e4c07f0 rank 0 nranks 16 cudaDev 0 busId 7000 - Destroy COMPLETE\n'
        'training complete: 2000 iterations, world size 16\n',
        ['none', 'inconclusive'], None),
    'srun_bus_error_little_text': (
        '+ srun --nodes=2 --ntasks-per-node=8 --gpus-per-task=1 python -u train.py --cfg configs/moe_8x1b.yaml\n'
        '[2026-02-03 21:10:44] job 88123 world_size=16 starting\n'
        '[2026-02-03 21:58:12] step 3000 loss 2.417\n'
        'srun: error: gpu-b-07: task 13: Bus error (core dumped)\n'
        'srun: launch/slurm: _step_signal: Terminating StepId=88123.0\n'
        'slurmstepd: error: *** STEP 88123.0 ON gpu-b-06 CANCELLED AT 2026-02-03T22:04:51 ***\n'
        'srun: error: gpu-b-06: tasks 0-7: Terminated\n'
        'srun: error: gpu-b-07: tasks 8-12,14-15: Terminated\n'
        'srun: Force Terminated StepId=88123.0\n',
        ['dropped_rank'], [13]),
    'xid61_microcontroller_hang_r3': (
        '+ torchrun --standalone --nproc_per_node=8 train.py --model vit_h --bs 64\n'
        'NCCL version 2.19.3+cuda12.3\n'
        'a100-n3:90211:90361 [0] NCCL INFO comm 0x550e1c2a400 rank 0 nranks 8 cudaDev 0 nvmlDev 0 busId 18000 commId 0x4ad2e1f9c07b3a61 - Init COMPLETE\n'
        'a100-n3:90212:90362 [1] NCCL INFO comm 0x551e1c2a401 rank 1 nranks 8 cudaDev 1 nvmlDev 1 busId 2a000 commId 0x4ad2e1f9c07b3a61 - Init COMPLETE\n'
        'a100-n3:90213:90363 [2] NCCL INFO comm 0x552e1c2a402 rank 2 nranks 8 cudaDev 2 nvmlDev 2 busId 3a000 commId 0x4ad2e1f9c07b3a61 - Init COMPLETE\n'
        'a100-n3:90214:90364 [3] NCCL INFO comm 0x553e1c2a403 rank 3 nranks 8 cudaDev 3 nvmlDev 3 busId 43000 commId 0x4ad2e1f9c07b3a61 - Init COMPLETE\n'
        'a100-n3:90215:90365 [4] NCCL INFO comm 0x554e1c2a404 rank 4 nranks 8 cudaDev 4 nvmlDev 4 busId 9a000 commId 0x4ad2e1f9c07b3a61 - Init COMPLETE\n'
        'a100-n3:90216:90366 [5] NCCL INFO comm 0x555e1c2a405 rank 5 nranks 8 cudaDev 5 nvmlDev 5 busId b3000 commId 0x4ad2e1f9c07b3a61 - Init COMPLETE\n'
        'a100-n3:90217:90367 [6] NCCL INFO comm 0x556e1c2a406 rank 6 nranks 8 cudaDev 6 nvmlDev 6 busId c1000 commId 0x4ad2e1f9c07b3a61 - Init COMPLETE\n'
        'a100-n3:90218:90368 [7] NCCL INFO comm 0x557e1c2a407 rank 7 nranks 8 cudaDev 7 nvmlDev 7 busId db000 commId 0x4ad2e1f9c07b3a61 - Init COMPLETE\n'
        '[rank0]: epoch 3 iter 1500/5000 loss 1.882\n'
        '[rank0]: epoch 3 iter 1600/5000 loss 1.874\n'
        '[rank0]:[E ProcessGroupNCCL.cpp:563] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=98211, OpType=ALLREDUCE, NumelIn=31850496, NumelOut=31850496, Timeout(ms)=1800000) ran for 1800412 milliseconds before timing out.\n'
        '[rank1]:[E ProcessGroupNCCL.cpp:563] [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=98211, OpType=ALLREDUCE, NumelIn=31850496, NumelOut=31850496, Timeout(ms)=1800000) ran for 1800412 milliseconds before timing out.\n'
        '[rank2]:[E ProcessGroupNCCL.cpp:563] [Rank 2] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=98211, OpType=ALLREDUCE, NumelIn=31850496, NumelOut=31850496, Timeout(ms)=1800000) ran for 1800412 milliseconds before timing out.\n'
        '[rank4]:[E ProcessGroupNCCL.cpp:563] [Rank 4] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=98211, OpType=ALLREDUCE, NumelIn=31850496, NumelOut=31850496, Timeout(ms)=1800000) ran for 1800412 milliseconds before timing out.\n'
        '[rank5]:[E ProcessGroupNCCL.cpp:563] [Rank 5] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=98211, OpType=ALLREDUCE, NumelIn=31850496, NumelOut=31850496, Timeout(ms)=1800000) ran for 1800412 milliseconds before timing out.\n'
        '[rank6]:[E ProcessGroupNCCL.cpp:563] [Rank 6] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=98211, OpType=ALLREDUCE, NumelIn=31850496, NumelOut=31850496, Timeout(ms)=1800000) ran for 1800412 milliseconds before timing out.\n'
        '[rank7]:[E ProcessGroupNCCL.cpp:563] [Rank 7] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=98211, OpType=ALLREDUCE, NumelIn=31850496, NumelOut=31850496, Timeout(ms)=1800000) ran for 1800412 milliseconds before timing out.\n'
        '[rank0]:[E ProcessGroupNCCL.cpp:577] [Rank 0] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.\n'
        '[rank0]:[E ProcessGroupNCCL.cpp:583] [Rank 0] To avoid data inconsistency, we are taking the entire process down.\n'
        '[2025-01-20 03:44:09,771] torch.distributed.elastic.multiprocessing.api: [WARNING] Sending process 90214 closing signal SIGTERM\n'
        '[2025-01-20 03:44:41,120] torch.distributed.elastic.multiprocessing.api: [WARNING] Unable to shutdown process 90214 via 15, forcefully exiting via 9\n'
        '[2025-01-20 03:44:42,902] torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: -6) local_rank: 0 (pid: 90211) of binary: /usr/bin/python\n'
        '$ sudo dmesg -T | grep -i nvrm\n'
        '[Mon Jan 20 03:13:55 2025] NVRM: Xid (PCI:0000:43:00): 61, pid=90214, name=python, 0cec(3098) 00000000 00000000\n'
        '[Mon Jan 20 03:14:01 2025] NVRM: Xid (PCI:0000:43:00): 61, pid=90214, name=python, 0cec(3098) 00000000 00000000\n',
        ['stuck_rank', 'dropped_rank'], [3]),
    'xid92_high_sbe_rate_benign': (
        '+ torchrun --standalone --nproc_per_node=8 run_sft.py --output_dir out/sft-v3\n'
        'NCCL version 2.20.5+cuda12.4\n'
        'h100-n2:51020:51170 [0] NCCL INFO comm 0x550e1c2a400 rank 0 nranks 8 cudaDev 0 nvmlDev 0 busId 19000 commId 0x4ad2e1f9c07b3a61 - Init COMPLETE\n'
        'h100-n2:51021:51171 [1] NCCL INFO comm 0x551e1c2a401 rank 1 nranks 8 cudaDev 1 nvmlDev 1 busId 3b000 commId 0x4ad2e1f9c07b3a61 - Init COMPLETE\n'
        'h100-n2:51022:51172 [2] NCCL INFO comm 0x552e1c2a402 rank 2 nranks 8 cudaDev 2 nvmlDev 2 busId 4c000 commId 0x4ad2e1f9c07b3a61 - Init COMPLETE\n'
        'h100-n2:51023:51173 [3] NCCL INFO comm 0x553e1c2a403 rank 3 nranks 8 cudaDev 3 nvmlDev 3 busId 5d000 commId 0x4ad2e1f9c07b3a61 - Init COMPLETE\n'
        'h100-n2:51024:51174 [4] NCCL INFO comm 0x554e1c2a404 rank 4 nranks 8 cudaDev 4 nvmlDev 4 busId 9b000 commId 0x4ad2e1f9c07b3a61 - Init COMPLETE\n'
        'h100-n2:51025:51175 [5] NCCL INFO comm 0x555e1c2a405 rank 5 nranks 8 cudaDev 5 nvmlDev 5 busId bb000 commId 0x4ad2e1f9c07b3a61 - Init COMPLETE\n'
        'h100-n2:51026:51176 [6] NCCL INFO comm 0x556e1c2a406 rank 6 nranks 8 cudaDev 6 nvmlDev 6 busId cb000 commId 0x4ad2e1f9c07b3a61 - Init COMPLETE\n'
        'h100-n2:51027:51177 [7] NCCL INFO comm 0x557e1c2a407 rank 7 nranks 8 cudaDev 7 nvmlDev 7 busId db000 commId 0x4ad2e1f9c07b3a61 - Init COMPLETE\n'
        "{'loss': 1.4211, 'grad_norm': 0.83, 'learning_rate': 1.9e-05, 'epoch': 0.5}\n"
        "{'loss': 1.1034, 'grad_norm': 0.61, 'learning_rate': 9.8e-06, 'epoch': 1.0}\n"
        "{'loss': 0.9876, 'grad_norm': 0.58, 'learning_rate': 1.1e-07, 'epoch': 2.0}\n"
        "{'train_runtime': 10412.33, 'train_samples_per_second': 23.6, 'train_steps_per_second': 0.184, 'train_loss': 1.1572, 'epoch': 2.0}\n"
        '100%|██████████| 1916/1916 [2:53:32<00:00,  5.43s/it]\n'
        'Saving model checkpoint to out/sft-v3\n'
        '[rank0]:[W1002 18:44:51.214824770 ProcessGroupNCCL.cpp:1250] Warning: WARNING: process group has NOT been destroyed before we destruct ProcessGroupNCCL. On normal program exit, the application should call destroy_process_group to ensure that any pending NCCL operations have finished in this process. In rare cases this process can exit before this point and block the progress of another member of the process group. This constraint has always been present,  but this warning has only been added since PyTorch 2.4 (function operator())\n'
        '[rank3]:[W1002 18:44:51.219004113 ProcessGroupNCCL.cpp:1250] Warning: WARNING: process group has NOT been destroyed before we destruct ProcessGroupNCCL. On normal program exit, the application should call destroy_process_group to ensure that any pending NCCL operations have finished in this process. In rare cases this process can exit before this point and block the progress of another member of the process group. This constraint has always been present,  but this warning has only been added since PyTorch 2.4 (function operator())\n'
        '$ dmesg -T | grep NVRM\n'
        "[Thu Oct  2 16:02:17 2025] NVRM: Xid (PCI:0000:5d:00): 92, pid='<unknown>', name=<unknown>, High single-bit ECC error rate\n"
        "[Thu Oct  2 17:12:40 2025] NVRM: Xid (PCI:0000:5d:00): 92, pid='<unknown>', name=<unknown>, High single-bit ECC error rate\n",
        ['none', 'inconclusive'], None),
    'xid94_contained_ecc_r5': (
        '+ torchrun --nproc_per_node=8 pretrain.py\n'
        'NCCL version 2.21.5+cuda12.4\n'
        'dgx-a7:88116:88266 [0] NCCL INFO comm 0x550e1c2a400 rank 0 nranks 8 cudaDev 0 nvmlDev 0 busId 18000 commId 0x4ad2e1f9c07b3a61 - Init COMPLETE\n'
        'dgx-a7:88117:88267 [1] NCCL INFO comm 0x551e1c2a401 rank 1 nranks 8 cudaDev 1 nvmlDev 1 busId 2a000 commId 0x4ad2e1f9c07b3a61 - Init COMPLETE\n'
        'dgx-a7:88118:88268 [2] NCCL INFO comm 0x552e1c2a402 rank 2 nranks 8 cudaDev 2 nvmlDev 2 busId 3a000 commId 0x4ad2e1f9c07b3a61 - Init COMPLETE\n'
        'dgx-a7:88119:88269 [3] NCCL INFO comm 0x553e1c2a403 rank 3 nranks 8 cudaDev 3 nvmlDev 3 busId 43000 commId 0x4ad2e1f9c07b3a61 - Init COMPLETE\n'
        'dgx-a7:88120:88270 [4] NCCL INFO comm 0x554e1c2a404 rank 4 nranks 8 cudaDev 4 nvmlDev 4 busId 9a000 commId 0x4ad2e1f9c07b3a61 - Init COMPLETE\n'
        'dgx-a7:88121:88271 [5] NCCL INFO comm 0x555e1c2a405 rank 5 nranks 8 cudaDev 5 nvmlDev 5 busId b3000 commId 0x4ad2e1f9c07b3a61 - Init COMPLETE\n'
        'dgx-a7:88122:88272 [6] NCCL INFO comm 0x556e1c2a406 rank 6 nranks 8 cudaDev 6 nvmlDev 6 busId c1000 commId 0x4ad2e1f9c07b3a61 - Init COMPLETE\n'
        'dgx-a7:88123:88273 [7] NCCL INFO comm 0x557e1c2a407 rank 7 nranks 8 cudaDev 7 nvmlDev 7 busId db000 commId 0x4ad2e1f9c07b3a61 - Init COMPLETE\n'
        '[rank0]: step 22100 | loss 2.381 | 412 TFLOPS\n'
        '[rank5]: Traceback (most recent call last):\n'
        '[rank5]:   File "/workspace/pretrain.py", line 212, in <module>\n'
        '[rank5]:     train(cfg)\n'
        '[rank5]:   File "/workspace/pretrain.py", line 176, in train\n'
        '[rank5]:     loss.backward()\n'
        '[rank5]:   File "/usr/local/lib/python3.10/dist-packages/torch/_tensor.py", line 521, in backward\n'
        '[rank5]:     torch.autograd.backward(\n'
        '[rank5]:   File "/usr/local/lib/python3.10/dist-packages/torch/autograd/graph.py", line 768, in _engine_run_backward\n'
        '[rank5]:     return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass\n'
        '[rank5]: RuntimeError: CUDA error: uncorrectable ECC error encountered\n'
        '[rank5]: CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\n'
        '[rank5]: For debugging consider passing CUDA_LAUNCH_BLOCKING=1\n'
        '[rank5]: Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\n'
        'W0812 09:31:07.455000 88101 torch/distributed/elastic/multiprocessing/api.py:890] Sending process 88116 closing signal SIGTERM\n'
        'W0812 09:31:07.456000 88101 torch/distributed/elastic/multiprocessing/api.py:890] Sending process 88117 closing signal SIGTERM\n'
        'E0812 09:31:09.301000 88101 torch/distributed/elastic/multiprocessing/api.py:862] failed (exitcode: 1) local_rank: 5 (pid: 88121) of binary: /usr/bin/python\n'
        '--- kern.log ---\n'
        'Aug 12 09:31:05 dgx-a7 kernel: NVRM: Xid (PCI:0000:b3:00): 94, pid=88121, name=python, Contained: SM (0x1). RST: No, D-RST: No\n'
        'Aug 12 09:31:05 dgx-a7 kernel: NVRM: Xid (PCI:0000:b3:00): 63, pid=88121, name=python, Row Remapper: New row marked for remapping, reset gpu to activate.\n',
        ['dropped_rank'], [5]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_verdict(name, tmp_path):
    check_case(tmp_path, CASES[name])


def test_a_config_of_int_min_is_a_build_mismatch(tmp_path):
    # any attribute NCCL 2.14 - 2.16 checks reads NCCL_CONFIG_UNDEF_INT as a bad value; 2.17+ never prints it
    text = ("gpu3:1771:1771 [0] init.cc:1584 NCCL WARN Invalid config blocking attribute value -2147483648\n"
            "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:219, "
            "invalid argument, NCCL version 2.14.3\n")
    verdict = console_verdict(tmp_path, text)
    assert verdict.cls == "version_mismatch" and "built against another NCCL" in verdict.summary, verdict.summary


def test_a_set_config_value_is_no_build_mismatch(tmp_path):
    # a value the program set itself (blocking = 2) is its own error, not NCCL_CONFIG_UNDEF_INT
    text = "gpu3:1771:1771 [0] init.cc:1584 NCCL WARN Invalid config blocking attribute value 2\n"
    assert console_verdict(tmp_path, text).cls != "version_mismatch"


def test_xid_92_alone_is_no_failure(tmp_path):
    text = "NVRM: Xid (PCI:0000:5d:00): 92, pid='<unknown>', name=<unknown>, High single-bit ECC error rate\n"
    assert console_verdict(tmp_path, text, PROGRESS + "training complete\n").cls in ("none", "inconclusive")


def test_srun_names_the_rank_of_a_lone_task(tmp_path):
    # srun started the ranks itself (no per-node launcher): task N is SLURM_PROCID, rank N
    text = ("srun: error: gpu-b-07: task 13: Segmentation fault (core dumped)\n"
            "srun: error: gpu-b-06: tasks 0-7: Terminated\n")
    verdict = console_verdict(tmp_path, text)
    assert verdict.cls == "dropped_rank" and verdict.culprit_ranks == [13], verdict.summary
