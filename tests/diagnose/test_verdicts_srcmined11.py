"""Verdicts on the words AMD's stack and DeepSpeed's and accelerate's launchers print, mined from their sources in
catalogue round srcmined11, each as the lines of a pasted console:

- RCCL (ROCm/rccl): CUDACHECK's `HIP failure '%s'` (before hipify moved to the build, Nov 2022) and `Cuda failure '%s'`
  after it, rocmwrap.h's `ROCr failure '%s'`, the `RCCL version : x-HEAD` banner with its HIP/ROCm block (2.20+), and
  the init WARNs that are no failure (MSCCL's missing algorithm files and NCCL_MAX_NCHANNELS, the host advisories);
- the HIP runtime: clr's `hipErrorNoBinaryForGpu` and `No compatible code objects found for: gfxN`, ROCR's
  `Memory access fault by GPU node-N` (with and without the Agent handle) and `HW Exception ... GPU Hang`, ROCclr's
  queue callback (`Callback: Queue` and `Device::callbackQueue` behind ClPrint's `[pid:N ...]` prefix), torch's
  hipified `HIP error: ...` with its HIP_LAUNCH_BLOCKING / AMD_SERIALIZE_KERNEL hint and `HIP out of memory`;
- amdgpu: amdgpu_job_timedout in its DRM_ERROR and dev_err forms, the soft recovery, gmc_v6-v8's `GPU fault detected`,
  RAS's `uncorrectable hardware errors detected in <block> block` (and MI300's per socket/die form) and its fatal
  `uncorrectable hardware error(ERREVENT_ATHUB_INTERRUPT)`, amdkfd's HWS hang (`The cp might be in an unrecoverable
  state due to an unsuccessful queues preemption`), a reset that failed (`GPU reset(N) failed`);
- DeepSpeed's launch.py (`Killing subprocess`, `exits with return code = N` of the last spawned command, 0.3 - 0.5.7's
  CalledProcessError), its pdsh runner's `host: ` prefix, ZeRO's DP world size check on resume; accelerate's
  simple_launcher / deepspeed_launcher CalledProcessError (`returned non-zero exit status`, `died with <Signals..>`),
  its multi-GPU elastic table and its kernel-version warning (advice, no hang).
"""
from __future__ import annotations

import pytest

from .consoles import NO_TRACEBACK, check_case, console_verdict, failure_table

# name -> (console lines, accepted classes, culprit ranks or None)
CASES: dict[str, tuple[str, set[str], list[int] | None]] = {
    'accelerate_deepspeed_launcher_hip_error': (
        '[rank6]: RuntimeError: HIP error: an illegal memory access was encountered\n'
        '[rank6]: HIP kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\n'
        '[rank6]: For debugging consider passing AMD_SERIALIZE_KERNEL=3\n'
        'Traceback (most recent call last):\n'
        '  File "/opt/venv/bin/accelerate", line 8, in <module>\n'
        '    sys.exit(main())\n'
        '  File "/opt/venv/lib/python3.10/site-packages/accelerate/commands/launch.py", line 1154, in launch_command\n'
        '    deepspeed_launcher(args)\n'
        '  File "/opt/venv/lib/python3.10/site-packages/accelerate/commands/launch.py", line 852, in deepspeed_launcher\n'
        '    raise subprocess.CalledProcessError(returncode=process.returncode, cmd=cmd)\n'
        "subprocess.CalledProcessError: Command '['deepspeed', '--no_local_rank', '--hostfile', 'hostfile', '--launcher', 'pdsh', '--num_gpus', '8', 'sft.py']' returned non-zero exit status 1.",
        {'dropped_rank'}, [6]),
    'accelerate_multi_gpu_sigkill_childfailed': (
        'The following values were not passed to `accelerate launch` and had defaults used instead:\n'
        '\t`--num_machines` was set to a value of `1`\n'
        "\t`--dynamo_backend` was set to a value of `'no'`\n"
        'To avoid this warning pass in values for each of the problematic parameters or run `accelerate config`.\n'
        '[2024-07-19 08:41:50,711] torch.distributed.elastic.multiprocessing.api: [WARNING] Sending process 17211 closing signal SIGTERM\n'
        '[2024-07-19 08:41:50,712] torch.distributed.elastic.multiprocessing.api: [WARNING] Sending process 17213 closing signal SIGTERM\n'
        '[2024-07-19 08:41:51,102] torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: -9) local_rank: 1 (pid: 17212) of binary: /opt/venv/bin/python\n'
        'Traceback (most recent call last):\n'
        '  File "/opt/venv/bin/accelerate", line 8, in <module>\n'
        '    sys.exit(main())\n'
        '  File "/opt/venv/lib/python3.10/site-packages/accelerate/commands/accelerate_cli.py", line 46, in main\n'
        '    args.func(args)\n'
        '  File "/opt/venv/lib/python3.10/site-packages/accelerate/commands/launch.py", line 1073, in launch_command\n'
        '    multi_gpu_launcher(args)\n'
        '  File "/opt/venv/lib/python3.10/site-packages/accelerate/commands/launch.py", line 718, in multi_gpu_launcher\n'
        '    distrib_run.run(args)\n'
        '  File "/opt/venv/lib/python3.10/site-packages/torch/distributed/run.py", line 803, in run\n'
        '    elastic_launch(\n'
        + failure_table('sft.py', '2024-07-19_08:41:50', 'gpu-box', 1, 1, -9, 17212, width=55),
        {'dropped_rank'}, [1]),
    'accelerate_simple_launcher_oom': (
        'Traceback (most recent call last):\n'
        '  File "/home/u/train_lora.py", line 212, in <module>\n'
        '    accelerator.backward(loss)\n'
        'torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 256.00 MiB (GPU 0; 23.65 GiB total capacity; 22.61 GiB already allocated; 201.06 MiB free; 22.96 GiB reserved in total by PyTorch) If reserved memory is >> allocated memory try setting max_split_size_mb to avoid fragmentation.  See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF\n'
        'Traceback (most recent call last):\n'
        '  File "/home/u/.venv/bin/accelerate", line 8, in <module>\n'
        '    sys.exit(main())\n'
        '  File "/home/u/.venv/lib/python3.10/site-packages/accelerate/commands/accelerate_cli.py", line 47, in main\n'
        '    args.func(args)\n'
        '  File "/home/u/.venv/lib/python3.10/site-packages/accelerate/commands/launch.py", line 994, in launch_command\n'
        '    simple_launcher(args)\n'
        '  File "/home/u/.venv/lib/python3.10/site-packages/accelerate/commands/launch.py", line 636, in simple_launcher\n'
        '    raise subprocess.CalledProcessError(returncode=process.returncode, cmd=cmd)\n'
        "subprocess.CalledProcessError: Command '['/home/u/.venv/bin/python', 'train_lora.py', '--rank', '16']' returned non-zero exit status 1.",
        {'oom'}, None),
    'amdgpu_gpu_fault_detected_gmc': (
        '[52123.881024] amdgpu 0000:03:00.0: GPU fault detected: 146 0x0c880c0c\n'
        '[52123.881027] amdgpu 0000:03:00.0:  for process python pid 3321 thread python pid 3321\n'
        '[52123.881030] amdgpu 0000:03:00.0:   VM_CONTEXT1_PROTECTION_FAULT_ADDR   0x00105a8c\n'
        '[52123.881033] amdgpu 0000:03:00.0:   VM_CONTEXT1_PROTECTION_FAULT_STATUS 0x0c0c8000\n'
        "[52123.881036] amdgpu 0000:03:00.0: VM fault (0x0c, vmid 6, pasid 32771) at page 1071756, read from 'TC7' (0x54433700) (140)\n"
        'Aborted (core dumped)',
        {'dropped_rank'}, None),
    'amdgpu_job_timedout_drm_error_gfx': (
        '[Tue Mar 12 04:11:53 2024] [drm:amdgpu_job_timedout [amdgpu]] *ERROR* ring gfx timeout, signaled seq=2214519, emitted seq=2214521\n'
        '[Tue Mar 12 04:11:53 2024] [drm:amdgpu_job_timedout [amdgpu]] *ERROR* Process information: process python3 pid 18821 thread python3 pid 18821\n'
        '[Tue Mar 12 04:11:53 2024] amdgpu 0000:63:00.0: amdgpu: GPU reset begin!\n'
        '[Tue Mar 12 04:11:55 2024] amdgpu 0000:63:00.0: amdgpu: GPU reset(2) succeeded!\n'
        '---- job console ----\n'
        '[E ProcessGroupNCCL.cpp:475] [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=9981, OpType=ALLREDUCE, NumelIn=4194304, NumelOut=4194304, Timeout(ms)=600000) ran for 600520 milliseconds before timing out.',
        {'timeout_unknown', 'dropped_rank'}, None),
    'amdgpu_ras_mi300_socket_die': (
        '[1201.662001] amdgpu 0000:05:00.0: amdgpu: {3}socket: 0, die: 1, 2 new uncorrectable hardware errors detected in UMC block\n'
        '[1201.662010] amdgpu 0000:05:00.0: amdgpu: {3}socket: 0, die: 1, 2 uncorrectable hardware errors detected in total in UMC block\n'
        '[1201.662300] amdgpu 0000:05:00.0: amdgpu: GPU reset begin!',
        {'dropped_rank'}, None),
    'amdgpu_ras_uncorrectable_umc': (
        '[301122.118820] amdgpu 0000:29:00.0: amdgpu: 1 uncorrectable hardware errors detected in umc block\n'
        '[301122.118901] amdgpu 0000:29:00.0: amdgpu: GPU reset begin!\n'
        '[301122.119001] amdgpu 0000:29:00.0: amdgpu: Bad page retirement: 1 pages\n'
        '---- job console ----\n'
        'HW Exception by GPU node-3 (Agent handle: 0x5602c3e0) reason :GPU Hang\n'
        '[2024-06-02 22:14:09,331] torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: -6) local_rank: 2 (pid: 22871) of binary: /usr/bin/python3',
        {'dropped_rank'}, None),
    'amdgpu_ring_timeout_dev_err_comp': (
        '[ 8812.331201] amdgpu 0000:c1:00.0: amdgpu: ring comp_1.2.0 timeout, signaled seq=88121, emitted seq=88123\n'
        '[ 8812.331210] amdgpu 0000:c1:00.0: amdgpu: Process information: process pt_main_thread pid 40112 thread pt_main_thread pid 40112\n'
        '[ 8812.331215] amdgpu 0000:c1:00.0: amdgpu: GPU reset begin!\n'
        '[ 8813.002118] amdgpu 0000:c1:00.0: amdgpu: MODE1 reset\n'
        '[ 8813.002131] amdgpu 0000:c1:00.0: amdgpu: GPU mode1 reset\n'
        '[ 8814.512880] amdgpu 0000:c1:00.0: amdgpu: GPU reset(1) succeeded!',
        {'dropped_rank'}, None),
    'amdgpu_soft_recovered_healthy': (
        '[ 4412.221001] [drm:amdgpu_job_timedout [amdgpu]] *ERROR* ring gfx_0.0.0 timeout, but soft recovered\n'
        'step 900/1000 loss 1.612\n'
        'step 1000/1000 loss 1.598\n'
        '[2024-05-01 10:00:12,000] torch.distributed.elastic.agent.server.api: [INFO] [default] worker group successfully finished. Waiting 300 seconds for other agents to finish.\n'
        '[2024-05-01 10:00:12,001] torch.distributed.elastic.agent.server.api: [INFO] Local worker group finished (WorkerState.SUCCEEDED). Waiting 300 seconds for other agents to finish',
        {'none', 'inconclusive'}, None),
    'b_amdgpu_ras_athub_interrupt': (
        '[76914.152141] amdgpu 0000:dd:00.0: {1}uncorrectable hardware error(ERREVENT_ATHUB_INTERRUPT) detected!\n'
        '[76914.152926] amdgpu 0000:dd:00.0: {1}[Hardware Error]: Accelerator Check Architecture events logged\n'
        '[76915.001100] amdgpu 0000:dd:00.0: amdgpu: GPU reset begin!',
        {'dropped_rank'}, None),
    'b_ds_pdsh_ssh_no_route': (
        '[2024-08-01 10:00:01,001] [INFO] [runner.py:568:main] cmd = pdsh -S -f 1024 -w node0,node1,node2,node3 export PYTHONPATH=/work; cd /work; /usr/bin/python -u -m deepspeed.launcher.launch --world_info=eyJub2RlMCI6IFswXX0= --node_rank=%n --master_addr=10.1.0.10 --master_port=29500 train.py --deepspeed ds.json\n'
        'node3: ssh: connect to host node3 port 22: No route to host\n'
        'pdsh@node0: node3: ssh exited with exit code 255\n'
        'node0: [2024-08-01 10:00:03,118] [INFO] [launch.py:164:main] dist_world_size=32',
        {'network_error'}, None),
    'b_ds_sigbus_minus7': (
        '[2024-02-20 17:03:01,111] [INFO] [launch.py:164:main] dist_world_size=8\n'
        '  3%|3         | 150/5000 [04:11<2:15:40,  1.68s/it]\n'
        '[2024-02-20 17:07:44,200] [INFO] [launch.py:319:sigkill_handler] Killing subprocess 40211\n'
        '[2024-02-20 17:07:44,201] [INFO] [launch.py:319:sigkill_handler] Killing subprocess 40212\n'
        "[2024-02-20 17:07:44,400] [ERROR] [launch.py:325:sigkill_handler] ['/usr/bin/python3', '-u', 'train.py', '--local_rank=7'] exits with return code = -7",
        {'dropped_rank'}, None),
    'b_ds_stage3_cache_flush_healthy': (
        '[2024-05-20 09:00:01,100] [INFO] [launch.py:164:main] dist_world_size=4\n'
        "[2024-05-20 09:00:01,100] [INFO] [launch.py:256:main] process 7001 spawned with command: ['/usr/bin/python', '-u', 'train.py', '--local_rank=0', '--deepspeed', 'z3.json']\n"
        '[2024-05-20 09:14:31,035] [WARNING] [stage3.py:2069:step] 3 pytorch allocator cache flushes since last step. this happens when there is high memory pressure and is detrimental to performance. if this is happening frequently consider adjusting settings to reduce memory consumption. If you are unable to make the cache flushes go away consider adding get_accelerator().empty_cache() calls in your training loop to ensure that all ranks flush their caches at the same time\n'
        "{'loss': 1.2911, 'learning_rate': 1e-05, 'epoch': 2.0}\n"
        "{'train_runtime': 870.2, 'train_samples_per_second': 18.4, 'epoch': 3.0}\n"
        '[2024-05-20 09:15:02,331] [INFO] [launch.py:351:main] Process 7001 exits successfully.\n'
        '[2024-05-20 09:15:02,331] [INFO] [launch.py:351:main] Process 7002 exits successfully.\n'
        '[2024-05-20 09:15:03,332] [INFO] [launch.py:351:main] Process 7003 exits successfully.\n'
        '[2024-05-20 09:15:03,332] [INFO] [launch.py:351:main] Process 7004 exits successfully.',
        {'none', 'inconclusive'}, None),
    'b_hip_fatbin_no_compatible_code_objects': (
        'Loading checkpoint shards: 100%|##########| 4/4 [00:09<00:00,  2.31s/it]\n'
        ':1:hip_fatbin.cpp           :109 : 2231871023 us: [pid:52210 tid:0x7f90f1e3b740] No compatible code objects found for: gfx1100, value of HIP_FORCE_SPIRV_CODEOBJECT: 0\n'
        'Segmentation fault (core dumped)',
        {'unclassified_failure', 'version_mismatch'}, None),
    'b_kfd_cp_unrecoverable_preemption': (
        '[88121.001122] amdgpu 0000:3d:00.0: amdgpu: qcm fence wait loop timeout expired\n'
        '[88121.001130] amdgpu 0000:3d:00.0: amdgpu: The cp might be in an unrecoverable state due to an unsuccessful queues preemption\n'
        '[88121.001301] amdgpu 0000:3d:00.0: amdgpu: Failed to evict process queues\n'
        '[88121.001450] amdgpu 0000:3d:00.0: amdgpu: GPU reset begin!\n'
        '---- job console ----\n'
        '[rank0]:[E1002 07:41:18.220131 ProcessGroupNCCL.cpp:616] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=40110, OpType=ALLREDUCE, NumelIn=2097152, NumelOut=2097152, Timeout(ms)=600000) ran for 600093 milliseconds before timing out.',
        {'timeout_unknown', 'stuck_rank', 'dropped_rank'}, None),
    'b_rocr_hw_exception_gpu_hang_rank1': (
        'step 4410 | loss 1.882 | 212 TFLOPS\n'
        'HW Exception by GPU node-3 (Agent handle: 0x5580ea0c41d0) reason :GPU Hang\n'
        '[2024-03-11 10:41:06,990] torch.distributed.elastic.multiprocessing.api: [WARNING] Sending process 9120 closing signal SIGTERM\n'
        '[2024-03-11 10:41:06,991] torch.distributed.elastic.multiprocessing.api: [WARNING] Sending process 9122 closing signal SIGTERM\n'
        '[2024-03-11 10:41:07,902] torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: -6) local_rank: 1 (pid: 9121) of binary: /usr/bin/python',
        {'dropped_rank'}, [1]),
    'b_torch_hip_out_of_memory_rank3': (
        '[rank3]: Traceback (most recent call last):\n'
        '[rank3]:   File "/workspace/train.py", line 155, in <module>\n'
        '[rank3]:     logits = model(input_ids)\n'
        '[rank3]: torch.OutOfMemoryError: HIP out of memory. Tried to allocate 2.00 GiB. GPU 3 has a total capacity of 191.98 GiB of which 1.20 GiB is free. Of the allocated memory 186.31 GiB is allocated by PyTorch, and 3.02 GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_HIP_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)\n'
        'W0601 11:02:10.331000 140001 torch/distributed/elastic/multiprocessing/api.py:897] Sending process 1101 closing signal SIGTERM\n'
        'E0601 11:02:11.002000 140001 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) local_rank: 3 (pid: 1104) of binary: /usr/bin/python3',
        {'oom'}, [3]),
    'c_accelerate_kernel_warning_healthy': (
        '11/26/2024 10:00:01 - WARNING - accelerate.utils.other - Detected kernel version 5.4.0, which is below the recommended minimum of 5.5.0; this can cause the process to hang. It is recommended to upgrade the kernel to the minimum version or higher.\n'
        '\n'
        '11/26/2024 10:00:05 - INFO - __main__ - ***** Running training *****\n'
        "{'loss': 0.8112, 'grad_norm': 1.02, 'learning_rate': 2e-05, 'epoch': 1.0}\n"
        "{'train_runtime': 3120.5, 'train_samples_per_second': 9.1, 'train_steps_per_second': 0.29, 'train_loss': 0.9121, 'epoch': 3.0}\n"
        '100%|##########| 900/900 [52:00<00:00,  3.47s/it]',
        {'none', 'inconclusive'}, None),
    'c_accelerate_kernel_warning_then_oom': (
        '11/26/2024 10:00:01 - WARNING - accelerate.utils.other - Detected kernel version 5.4.0, which is below the recommended minimum of 5.5.0; this can cause the process to hang. It is recommended to upgrade the kernel to the minimum version or higher.\n'
        '\n'
        '11/26/2024 10:00:05 - INFO - __main__ - ***** Running training *****\n'
        '[rank1]: Traceback (most recent call last):\n'
        '[rank1]:   File "/srv/sft.py", line 420, in <module>\n'
        '[rank1]:     accelerator.backward(loss)\n'
        '[rank1]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.82 GiB. GPU 1 has a total capacity of 79.14 GiB of which 2.11 GiB is free. Including non-PyTorch memory, this process has 77.02 GiB memory in use. Of the allocated memory 73.40 GiB is allocated by PyTorch, and 2.71 GiB is reserved by PyTorch but unallocated.\n'
        'W1126 10:11:31.880000 4411 torch/distributed/elastic/multiprocessing/api.py:897] Sending process 4420 closing signal SIGTERM\n'
        'E1126 10:11:32.301000 4411 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) local_rank: 1 (pid: 4421) of binary: /srv/venv/bin/python',
        {'oom'}, [1]),
    'c_accelerate_simple_launcher_sigsegv': (
        'Generating: 12%|#2        | 61/500 [00:42<05:01,  1.46it/s]\n'
        'Traceback (most recent call last):\n'
        '  File "/usr/local/bin/accelerate", line 8, in <module>\n'
        '    sys.exit(main())\n'
        '  File "/usr/local/lib/python3.10/dist-packages/accelerate/commands/accelerate_cli.py", line 48, in main\n'
        '    args.func(args)\n'
        '  File "/usr/local/lib/python3.10/dist-packages/accelerate/commands/launch.py", line 1174, in launch_command\n'
        '    simple_launcher(args)\n'
        '  File "/usr/local/lib/python3.10/dist-packages/accelerate/commands/launch.py", line 769, in simple_launcher\n'
        '    raise subprocess.CalledProcessError(returncode=process.returncode, cmd=cmd)\n'
        "subprocess.CalledProcessError: Command '['/usr/bin/python', 'generate.py', '--model', 'llama']' died with <Signals.SIGSEGV: 11>.",
        {'dropped_rank', 'unclassified_failure'}, None),
    'c_amdgpu_reset_failed': (
        '[ 9912.001100] amdgpu 0000:a1:00.0: amdgpu: GPU reset begin!\n'
        '[ 9912.880213] amdgpu 0000:a1:00.0: amdgpu: MODE1 reset\n'
        '[ 9914.002390] amdgpu 0000:a1:00.0: amdgpu: GPU reset(3) failed\n'
        '[ 9914.002410] amdgpu 0000:a1:00.0: amdgpu: GPU reset end with ret = -110',
        {'dropped_rank'}, None),
    'c_ds_watchdog_abort_minus6': (
        '[2024-02-20 17:03:01,111] [INFO] [launch.py:164:main] dist_world_size=8\n'
        ' 45%|####5     | 2250/5000 [1:02:11<1:16:00,  1.66s/it]\n'
        '[rank4]:[E220 18:35:12.110231 ProcessGroupNCCL.cpp:616] [Rank 4] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=90112, OpType=_ALLGATHER_BASE, NumelIn=4194304, NumelOut=33554432, Timeout(ms)=1800000) ran for 1800311 milliseconds before timing out.\n'
        '[rank4]:[E220 18:35:12.111020 ProcessGroupNCCL.cpp:1834] [PG 0 Rank 4] Timeout at NCCL work: 90112, last enqueued NCCL work: 90112, last completed NCCL work: 90111.\n'
        '[rank4]:[E220 18:35:12.111031 ProcessGroupNCCL.cpp:630] [Rank 4] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.\n'
        '[rank4]:[E220 18:35:12.111040 ProcessGroupNCCL.cpp:636] [Rank 4] To avoid data inconsistency, we are taking the entire process down.\n'
        '[2024-02-20 18:35:14,200] [INFO] [launch.py:319:sigkill_handler] Killing subprocess 40211\n'
        '[2024-02-20 18:35:14,201] [INFO] [launch.py:319:sigkill_handler] Killing subprocess 40212\n'
        "[2024-02-20 18:35:14,400] [ERROR] [launch.py:325:sigkill_handler] ['/usr/bin/python3', '-u', 'train.py', '--local_rank=7'] exits with return code = -6",
        {'stuck_rank', 'timeout_unknown'}, None),
    'ds_launch_old_calledprocesserror_v04': (
        '[2021-06-14 11:20:01,004] [INFO] [launch.py:100:main] dist_world_size=4\n'
        '[2021-06-14 11:20:01,004] [INFO] [launch.py:102:main] Setting CUDA_VISIBLE_DEVICES=0,1,2,3\n'
        '[2021-06-14 12:02:41,337] [INFO] [launch.py:131:sigkill_handler] Killing subprocess 8811\n'
        '[2021-06-14 12:02:41,338] [INFO] [launch.py:131:sigkill_handler] Killing subprocess 8812\n'
        '[2021-06-14 12:02:41,338] [INFO] [launch.py:131:sigkill_handler] Killing subprocess 8813\n'
        '[2021-06-14 12:02:41,339] [INFO] [launch.py:131:sigkill_handler] Killing subprocess 8814\n'
        'Traceback (most recent call last):\n'
        '  File "/usr/lib/python3.8/runpy.py", line 194, in _run_module_as_main\n'
        '    return _run_code(code, main_globals, None,\n'
        '  File "/usr/local/lib/python3.8/dist-packages/deepspeed/launcher/launch.py", line 171, in <module>\n'
        '    main()\n'
        '  File "/usr/local/lib/python3.8/dist-packages/deepspeed/launcher/launch.py", line 161, in main\n'
        '    sigkill_handler(signal.SIGTERM, None)  # not coming back\n'
        '  File "/usr/local/lib/python3.8/dist-packages/deepspeed/launcher/launch.py", line 137, in sigkill_handler\n'
        '    raise subprocess.CalledProcessError(returncode=last_return_code, cmd=cmd)\n'
        "subprocess.CalledProcessError: Command '['/usr/bin/python3', '-u', 'pretrain_gpt2.py', '--local_rank=3', '--deepspeed_config', 'ds.json']' died with <Signals.SIGKILL: 9>.",
        {'dropped_rank', 'unclassified_failure'}, None),
    'ds_launch_oom_exit_code': (
        "[2024-02-20 17:03:01,111] [INFO] [launch.py:146:main] WORLD INFO DICT: {'localhost': [0, 1, 2, 3, 4, 5, 6, 7]}\n"
        '[2024-02-20 17:03:01,111] [INFO] [launch.py:152:main] nnodes=1, num_local_procs=8, node_rank=0\n'
        '[2024-02-20 17:03:01,111] [INFO] [launch.py:164:main] dist_world_size=8\n'
        "[2024-02-20 17:03:01,111] [INFO] [launch.py:256:main] process 40211 spawned with command: ['/usr/bin/python3', '-u', 'train.py', '--local_rank=0', '--deepspeed', '--deepspeed_config', 'ds_config.json']\n"
        '\n'
        '[2024-02-20 17:03:20,001] [INFO] [comm.py:637:init_distributed] cdb=None\n'
        '[2024-02-20 17:03:20,002] [INFO] [comm.py:668:init_distributed] Initializing TorchBackend in DeepSpeed with backend nccl\n'
        'Traceback (most recent call last):\n'
        '  File "train.py", line 140, in <module>\n'
        '    engine.backward(loss)\n'
        '  File "/usr/local/lib/python3.10/dist-packages/deepspeed/runtime/engine.py", line 1976, in backward\n'
        '    self.optimizer.backward(loss, retain_graph=retain_graph)\n'
        'torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.53 GiB. GPU 3 has a total capacty of 79.15 GiB of which 912.81 MiB is free. Including non-PyTorch memory, this process has 78.24 GiB memory in use. Of the allocated memory 74.02 GiB is allocated by PyTorch, and 2.88 GiB is reserved by PyTorch but unallocated.\n'
        '[2024-02-20 17:03:44,200] [INFO] [launch.py:319:sigkill_handler] Killing subprocess 40211\n'
        '[2024-02-20 17:03:44,201] [INFO] [launch.py:319:sigkill_handler] Killing subprocess 40212\n'
        '[2024-02-20 17:03:44,202] [INFO] [launch.py:319:sigkill_handler] Killing subprocess 40213\n'
        '[2024-02-20 17:03:44,203] [INFO] [launch.py:319:sigkill_handler] Killing subprocess 40214\n'
        '[2024-02-20 17:03:44,204] [INFO] [launch.py:319:sigkill_handler] Killing subprocess 40215\n'
        '[2024-02-20 17:03:44,205] [INFO] [launch.py:319:sigkill_handler] Killing subprocess 40216\n'
        '[2024-02-20 17:03:44,206] [INFO] [launch.py:319:sigkill_handler] Killing subprocess 40217\n'
        '[2024-02-20 17:03:44,207] [INFO] [launch.py:319:sigkill_handler] Killing subprocess 40218\n'
        "[2024-02-20 17:03:44,400] [ERROR] [launch.py:325:sigkill_handler] ['/usr/bin/python3', '-u', 'train.py', '--local_rank=7', '--deepspeed', '--deepspeed_config', 'ds_config.json'] exits with return code = 1",
        {'oom'}, None),
    'ds_launch_segv_minus11': (
        "[2024-02-20 17:03:01,111] [INFO] [launch.py:146:main] WORLD INFO DICT: {'localhost': [0, 1, 2, 3, 4, 5, 6, 7]}\n"
        '[2024-02-20 17:03:01,111] [INFO] [launch.py:152:main] nnodes=1, num_local_procs=8, node_rank=0\n'
        '[2024-02-20 17:03:01,111] [INFO] [launch.py:164:main] dist_world_size=8\n'
        "[2024-02-20 17:03:01,111] [INFO] [launch.py:256:main] process 40211 spawned with command: ['/usr/bin/python3', '-u', 'train.py', '--local_rank=0', '--deepspeed', '--deepspeed_config', 'ds_config.json']\n"
        '\n'
        '[2024-02-20 17:03:22,410] [INFO] [engine.py:1116:_configure_optimizer] Using DeepSpeed Optimizer param name adamw as basic optimizer\n'
        '  0%|          | 12/5000 [00:21<2:31:12,  1.82s/it]\n'
        '[2024-02-20 17:03:44,200] [INFO] [launch.py:319:sigkill_handler] Killing subprocess 40211\n'
        '[2024-02-20 17:03:44,201] [INFO] [launch.py:319:sigkill_handler] Killing subprocess 40212\n'
        '[2024-02-20 17:03:44,202] [INFO] [launch.py:319:sigkill_handler] Killing subprocess 40213\n'
        '[2024-02-20 17:03:44,203] [INFO] [launch.py:319:sigkill_handler] Killing subprocess 40214\n'
        '[2024-02-20 17:03:44,204] [INFO] [launch.py:319:sigkill_handler] Killing subprocess 40215\n'
        '[2024-02-20 17:03:44,205] [INFO] [launch.py:319:sigkill_handler] Killing subprocess 40216\n'
        '[2024-02-20 17:03:44,206] [INFO] [launch.py:319:sigkill_handler] Killing subprocess 40217\n'
        '[2024-02-20 17:03:44,207] [INFO] [launch.py:319:sigkill_handler] Killing subprocess 40218\n'
        "[2024-02-20 17:03:44,400] [ERROR] [launch.py:325:sigkill_handler] ['/usr/bin/python3', '-u', 'train.py', '--local_rank=7', '--deepspeed', '--deepspeed_config', 'ds_config.json'] exits with return code = -11",
        {'dropped_rank', 'unclassified_failure'}, None),
    'ds_pdsh_remote_node_killed': (
        'worker-1: [2024-04-09 02:11:04,112] [INFO] [launch.py:164:main] dist_world_size=16\n'
        'worker-2: [2024-04-09 02:11:04,118] [INFO] [launch.py:164:main] dist_world_size=16\n'
        "worker-1: [2024-04-09 02:11:04,120] [INFO] [launch.py:256:main] process 5510 spawned with command: ['/usr/bin/python', '-u', 'run_clm.py', '--local_rank=0', '--deepspeed', 'zero3.json']\n"
        "worker-2: [2024-04-09 02:11:04,125] [INFO] [launch.py:256:main] process 6120 spawned with command: ['/usr/bin/python', '-u', 'run_clm.py', '--local_rank=0', '--deepspeed', 'zero3.json']\n"
        "worker-1: {'loss': 2.1162, 'learning_rate': 1.98e-05, 'epoch': 0.12}\n"
        'worker-2: [2024-04-09 03:40:19,550] [INFO] [launch.py:319:sigkill_handler] Killing subprocess 6120\n'
        'worker-2: [2024-04-09 03:40:19,551] [INFO] [launch.py:319:sigkill_handler] Killing subprocess 6121\n'
        "worker-2: [2024-04-09 03:40:19,800] [ERROR] [launch.py:325:sigkill_handler] ['/usr/bin/python', '-u', 'run_clm.py', '--local_rank=7', '--deepspeed', 'zero3.json'] exits with return code = -9\n"
        'pdsh@worker-1: worker-2: ssh exited with exit code 247\n'
        'worker-1: [rank3]:[E409 03:40:20.118223 ProcessGroupNCCL.cpp:1515] [PG 0 Rank 3] Process group watchdog thread terminated with exception: NCCL error: remote process exited or there was a network error, NCCL version 2.19.3\n'
        'worker-1: ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.\n'
        'worker-1: Last error:\n'
        'worker-1: NET/IB : Got completion from peer 10.0.0.12<41221> with status=12 opcode=0 len=0 vendor err 129 (Recv) localGid ::ffff:10.0.0.11 remoteGid ::ffff:10.0.0.12 hca mlx5_0',
        {'dropped_rank', 'network_error'}, None),
    'ds_rocm_memory_access_fault_minus6': (
        "[2024-02-20 17:03:01,111] [INFO] [launch.py:146:main] WORLD INFO DICT: {'localhost': [0, 1, 2, 3, 4, 5, 6, 7]}\n"
        '[2024-02-20 17:03:01,111] [INFO] [launch.py:152:main] nnodes=1, num_local_procs=8, node_rank=0\n'
        '[2024-02-20 17:03:01,111] [INFO] [launch.py:164:main] dist_world_size=8\n'
        "[2024-02-20 17:03:01,111] [INFO] [launch.py:256:main] process 40211 spawned with command: ['/usr/bin/python3', '-u', 'train.py', '--local_rank=0', '--deepspeed', '--deepspeed_config', 'ds_config.json']\n"
        '\n'
        'Memory access fault by GPU node-9 (Agent handle: 0x5595e0a1c2b0) on address 0x7efd41a00000. Reason: Page not present or supervisor privilege.\n'
        '[2024-02-20 17:03:44,200] [INFO] [launch.py:319:sigkill_handler] Killing subprocess 40211\n'
        '[2024-02-20 17:03:44,201] [INFO] [launch.py:319:sigkill_handler] Killing subprocess 40212\n'
        '[2024-02-20 17:03:44,202] [INFO] [launch.py:319:sigkill_handler] Killing subprocess 40213\n'
        '[2024-02-20 17:03:44,203] [INFO] [launch.py:319:sigkill_handler] Killing subprocess 40214\n'
        '[2024-02-20 17:03:44,204] [INFO] [launch.py:319:sigkill_handler] Killing subprocess 40215\n'
        '[2024-02-20 17:03:44,205] [INFO] [launch.py:319:sigkill_handler] Killing subprocess 40216\n'
        '[2024-02-20 17:03:44,206] [INFO] [launch.py:319:sigkill_handler] Killing subprocess 40217\n'
        '[2024-02-20 17:03:44,207] [INFO] [launch.py:319:sigkill_handler] Killing subprocess 40218\n'
        "[2024-02-20 17:03:44,400] [ERROR] [launch.py:325:sigkill_handler] ['/usr/bin/python3', '-u', 'train.py', '--local_rank=7', '--deepspeed', '--deepspeed_config', 'ds_config.json'] exits with return code = -6",
        {'dropped_rank'}, None),
    'ds_zero_checkpoint_dp_world_size': (
        "[2024-02-20 17:03:01,111] [INFO] [launch.py:146:main] WORLD INFO DICT: {'localhost': [0, 1, 2, 3, 4, 5, 6, 7]}\n"
        '[2024-02-20 17:03:01,111] [INFO] [launch.py:152:main] nnodes=1, num_local_procs=8, node_rank=0\n'
        '[2024-02-20 17:03:01,111] [INFO] [launch.py:164:main] dist_world_size=8\n'
        "[2024-02-20 17:03:01,111] [INFO] [launch.py:256:main] process 40211 spawned with command: ['/usr/bin/python3', '-u', 'train.py', '--local_rank=0', '--deepspeed', '--deepspeed_config', 'ds_config.json']\n"
        '\n'
        '[2024-02-20 17:03:31,220] [INFO] [engine.py:2895:_get_all_zero_checkpoint_state_dicts] successfully read 8 ZeRO state_dicts for rank 0\n'
        'Traceback (most recent call last):\n'
        '  File "train.py", line 98, in <module>\n'
        '    engine.load_checkpoint(args.resume)\n'
        '  File "/usr/local/lib/python3.10/dist-packages/deepspeed/runtime/engine.py", line 2742, in load_checkpoint\n'
        '    success = self._load_zero_checkpoint(load_dir, tag, load_optimizer_states=load_optimizer_states)\n'
        "deepspeed.runtime.zero.utils.ZeRORuntimeException: The checkpoint being loaded used a DP world size of 8 but the current world size is 16. Automatic adjustment of ZeRO's optimizer state partitioning with a new world size is not currently supported.\n"
        '[2024-02-20 17:03:44,200] [INFO] [launch.py:319:sigkill_handler] Killing subprocess 40211\n'
        '[2024-02-20 17:03:44,201] [INFO] [launch.py:319:sigkill_handler] Killing subprocess 40212\n'
        '[2024-02-20 17:03:44,202] [INFO] [launch.py:319:sigkill_handler] Killing subprocess 40213\n'
        '[2024-02-20 17:03:44,203] [INFO] [launch.py:319:sigkill_handler] Killing subprocess 40214\n'
        '[2024-02-20 17:03:44,204] [INFO] [launch.py:319:sigkill_handler] Killing subprocess 40215\n'
        '[2024-02-20 17:03:44,205] [INFO] [launch.py:319:sigkill_handler] Killing subprocess 40216\n'
        '[2024-02-20 17:03:44,206] [INFO] [launch.py:319:sigkill_handler] Killing subprocess 40217\n'
        '[2024-02-20 17:03:44,207] [INFO] [launch.py:319:sigkill_handler] Killing subprocess 40218\n'
        "[2024-02-20 17:03:44,400] [ERROR] [launch.py:325:sigkill_handler] ['/usr/bin/python3', '-u', 'train.py', '--local_rank=7', '--deepspeed', '--deepspeed_config', 'ds_config.json'] exits with return code = 1",
        {'unclassified_failure'}, None),
    'hip_no_binary_for_gpu_torchrun': (
        '[2024-03-11 10:02:11,455] torch.distributed.run: [WARNING] \n'
        '[2024-03-11 10:02:11,455] torch.distributed.run: [WARNING] *****************************************\n'
        '\n'
        '"hipErrorNoBinaryForGpu: Unable to find code object for all current devices!"\n'
        '"hipErrorNoBinaryForGpu: Unable to find code object for all current devices!"\n'
        '[2024-03-11 10:02:14,118] torch.distributed.elastic.multiprocessing.api: [WARNING] Sending process 9121 closing signal SIGTERM\n'
        '[2024-03-11 10:41:07,902] torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: -6) local_rank: 0 (pid: 9120) of binary: /opt/conda/envs/py_3.10/bin/python\n'
        'Traceback (most recent call last):\n'
        '  File "/opt/conda/envs/py_3.10/bin/torchrun", line 33, in <module>\n'
        "    sys.exit(load_entry_point('torch', 'console_scripts', 'torchrun')())\n"
        + failure_table('train.py', '2024-03-11_10:41:07', 'mi250-n3', 0, 0, -6, 9120),
        {'unclassified_failure', 'version_mismatch'}, None),
    'rccl_cuda_failure_hipified_v218_launch': (
        '[rank5]: step 2200 | loss 1.7781\n'
        'RCCL version 2.18.3+hip6.0 HEAD:9a5d5b7\n'
        "node07:7120:7188 [5] NCCL WARN Cuda failure 'unspecified launch failure'\n"
        'node07:7120:7188 [5] NCCL INFO transport/p2p.cc:312 -> 1\n'
        'Traceback (most recent call last):\n'
        '  File "/workspace/pretrain.py", line 412, in <module>\n'
        '    main()\n'
        '  File "/workspace/pretrain.py", line 377, in main\n'
        '    torch.distributed.all_reduce(grad_norm)\n'
        "torch.distributed.DistBackendError: [5] is setting up NCCL communicator and retrieving ncclUniqueId from [0] via c10d key-value store by key '0', but store->get('0') got error: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:219, unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.18.3\n"
        'ncclUnhandledCudaError: Call to CUDA function failed.\n'
        'Last error:\n'
        "Cuda failure 'unspecified launch failure'\n"
        '[2024-03-11 10:41:07,902] torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: 1) local_rank: 5 (pid: 7120) of binary: /opt/conda/envs/py_3.10/bin/python\n'
        'Traceback (most recent call last):\n'
        '  File "/opt/conda/envs/py_3.10/bin/torchrun", line 33, in <module>\n'
        "    sys.exit(load_entry_point('torch', 'console_scripts', 'torchrun')())\n"
        + failure_table('train.py', '2024-03-11_10:41:07', 'node07', 5, 5, 1, 7120, traceback=NO_TRACEBACK),
        {'dropped_rank', 'unclassified_failure'}, [5]),
    'rccl_hip_failure_v212_illegal': (
        'mi100-a:2231:2231 [0] NCCL INFO Bootstrap : Using eth0:10.10.2.11<0>\n'
        'mi100-a:2231:2231 [0] NCCL INFO NET/Plugin : No plugin found (librccl-net.so), using internal implementation\n'
        'RCCL version 2.12.12+hip5.2 HEAD:e1c1ca8\n'
        'mi100-a:2231:2300 [0] NCCL INFO Channel 00/16 :    0   1   2   3\n'
        'mi100-a:2231:2300 [0] NCCL INFO comm 0x5571a8e0 rank 0 nranks 4 cudaDev 0 busId 3000 - Init COMPLETE\n'
        'epoch 0 step 120 loss 2.9121\n'
        'epoch 0 step 140 loss 2.8710\n'
        "mi100-a:2233:2341 [2] NCCL WARN HIP failure 'an illegal memory access was encountered'\n"
        'mi100-a:2233:2341 [2] NCCL INFO enqueue.cc:1004 -> 1\n'
        'mi100-a:2233:2341 [2] NCCL INFO group.cc:335 -> 1\n'
        'Traceback (most recent call last):\n'
        '  File "train.py", line 188, in <module>\n'
        '    dist.all_reduce(loss_t)\n'
        '  File "/opt/conda/lib/python3.8/site-packages/torch/distributed/distributed_c10d.py", line 1322, in all_reduce\n'
        '    work = group.allreduce([tensor], opts)\n'
        'RuntimeError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1191, unhandled cuda error, NCCL version 2.12.12',
        {'dropped_rank', 'unclassified_failure'}, None),
    'rccl_msccl_max_nchannels_healthy': (
        'RCCL version 2.20.5+hip6.2 HEAD:7a0c2e4\n'
        'gfx942-n2:8870:8941 [1] NCCL WARN NCCL_MAX_NCHANNELS:16 is lesser than number of channels required by MSCCL:32, so disabling MSCCL for allreduce between minBytes:0 and maxBytes:1048576 from file: /opt/rocm/lib/msccl-algorithms/allreduce-allpairs-8n-32c.xml\n'
        'gfx942-n2:8870:8941 [1] NCCL INFO comm 0x5612d900 rank 1 nranks 8 cudaDev 1 busId 29000 commId 0x1c2d3e4f5a6b7c8d - Init COMPLETE\n'
        'iteration 50: throughput 412.3 samples/s\n'
        'iteration 100: throughput 415.8 samples/s\n'
        '[2024-09-02 13:11:45,001] torch.distributed.elastic.agent.server.api: [INFO] [default] worker group successfully finished. Waiting 300 seconds for other agents to finish.\n'
        '[2024-09-02 13:11:45,002] torch.distributed.elastic.agent.server.api: [INFO] Local worker group finished (WorkerState.SUCCEEDED). Waiting 300 seconds for other agents to finish\n'
        '[2024-09-02 13:11:45,210] torch.distributed.elastic.agent.server.api: [INFO] Done waiting for other agents. Elapsed: 0.2076120376586914 seconds',
        {'none'}, None),
    'rccl_msccl_missing_algos_healthy': (
        'RCCL version 2.18.3+hip6.1 HEAD:2b9d4c1\n'
        'mi300-01:5511:5511 [0] NCCL INFO Bootstrap : Using eth0:10.2.0.5<0>\n'
        'mi300-01:5511:5580 [0] NCCL WARN MSCCL Internal Scheduler:  Unable to find algorithm files in /opt/rocm/lib/msccl-algorithms. Please ensure that RCCL has been installed properly\n'
        'mi300-01:5511:5580 [0] NCCL INFO MSCCL: No external scheduler found, using internal implementation\n'
        'mi300-01:5511:5580 [0] NCCL INFO comm 0x55f1e0c0 rank 0 nranks 8 cudaDev 0 busId 11000 commId 0x8e1f2c3d4b5a6978 - Init COMPLETE\n'
        'step 100/1000 loss 3.21\n'
        'step 500/1000 loss 2.14\n'
        'step 1000/1000 loss 1.87\n'
        'mi300-01:5511:5511 [0] NCCL INFO comm 0x55f1e0c0 rank 0 nranks 8 cudaDev 0 busId 11000 - Destroy COMPLETE\n'
        'Training finished.',
        {'none', 'inconclusive'}, None),
    'rccl_numa_balancing_then_peer_timeout': (
        'RCCL version 2.17.1+hip5.7 HEAD:cbbb3d8\n'
        'node3:4410:4410 [0] NCCL WARN NUMA auto balancing enabled which can lead to variability in the RCCL performance! Disable by "sudo sysctl kernel.numa_balancing=0"\n'
        'node3:4410:4410 [0] NCCL WARN Missing "iommu=pt" from kernel command line which can lead to system instablity or hang!\n'
        'node3:4410:4489 [0] NCCL INFO comm 0x56003f10 rank 0 nranks 16 cudaDev 0 busId c1000 - Init COMPLETE\n'
        'step 3400 loss 2.0182\n'
        '[E ProcessGroupNCCL.cpp:475] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=51822, OpType=ALLREDUCE, NumelIn=1048576, NumelOut=1048576, Timeout(ms)=1800000) ran for 1800412 milliseconds before timing out.\n'
        '[E ProcessGroupNCCL.cpp:489] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.\n'
        '[E ProcessGroupNCCL.cpp:495] To avoid data inconsistency, we are taking the entire process down.\n'
        "terminate called after throwing an instance of 'std::runtime_error'\n"
        '  what():  [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=51822, OpType=ALLREDUCE, NumelIn=1048576, NumelOut=1048576, Timeout(ms)=1800000) ran for 1800412 milliseconds before timing out.',
        {'stuck_rank', 'timeout_unknown', 'dropped_rank'}, None),
    'rccl_rocr_oom_v220_banner': (
        'RCCL version : 2.20.5-HEAD:8a8d1d5\n'
        'HIP version  : 6.2.41133-dd7f95766\n'
        'ROCm version : 6.2.0.0-66-68ecf8f\n'
        'Hostname     : gpu-node-14\n'
        'Librccl path : /opt/rocm/lib/librccl.so.1\n'
        'gpu-node-14:31102:31102 [3] NCCL INFO Bootstrap : Using ens51f0:10.4.0.14<0>\n'
        "gpu-node-14:31102:31220 [3] NCCL WARN ROCr failure 'HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime failed to allocate the necessary resources. This error may also occur when the core runtime library needs to spawn threads or create internal OS-specific events.'\n"
        'gpu-node-14:31102:31220 [3] NCCL INFO transport/p2p.cc:198 -> 1\n'
        'gpu-node-14:31102:31220 [3] NCCL INFO init.cc:1203 -> 1\n'
        'RuntimeError: NCCL Error 1: unhandled cuda error (run with NCCL_DEBUG=INFO for details)',
        {'oom'}, None),
    'rocclr_callback_queue_aperture_old': (
        '[2023-02-14 09:11:02] iter 4100 loss 1.902\n'
        ':0:rocdevice.cpp            :2614: 4871266123 us: 2231 : [tid:0x7f2bd9ffb700] Callback: Queue 0x7f2301400000 aborting with error : HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION: The agent attempted to access memory beyond the largest legal address. code: 0x29\n'
        'Aborted (core dumped)',
        {'dropped_rank'}, None),
    'rocclr_callbackqueue_hsa_exception': (
        '[2024-03-11 10:02:11,455] torch.distributed.run: [WARNING] \n'
        '[2024-03-11 10:02:11,455] torch.distributed.run: [WARNING] *****************************************\n'
        '\n'
        ':0:rocdevice.cpp            :2881: 2318824117 us: [pid:9121  tid:0x7f3a0bfff640] Device::callbackQueue aborting with error : HSA_STATUS_ERROR_EXCEPTION: An HSAIL operation resulted in a hardware exception. code: 0x1016\n'
        '[2024-03-11 10:41:07,902] torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: -6) local_rank: 1 (pid: 9121) of binary: /opt/conda/envs/py_3.10/bin/python\n'
        'Traceback (most recent call last):\n'
        '  File "/opt/conda/envs/py_3.10/bin/torchrun", line 33, in <module>\n'
        "    sys.exit(load_entry_point('torch', 'console_scripts', 'torchrun')())\n"
        + failure_table('train.py', '2024-03-11_10:41:07', 'mi250-n3', 1, 1, -6, 9121),
        {'dropped_rank'}, [1]),
    'rocr_memory_access_fault_agent_handle': (
        '[2024-03-11 10:02:11,455] torch.distributed.run: [WARNING] \n'
        '[2024-03-11 10:02:11,455] torch.distributed.run: [WARNING] *****************************************\n'
        '\n'
        'epoch 1 | iter 880 | lr 2.9e-4 | loss 2.331\n'
        'Memory access fault by GPU node-5 (Agent handle: 0x55d1c3a0f7e0) on address 0x7f1b2c001000. Reason: Page not present or supervisor privilege.\n'
        '[2024-03-11 10:41:06,990] torch.distributed.elastic.multiprocessing.api: [WARNING] Sending process 9120 closing signal SIGTERM\n'
        '[2024-03-11 10:41:06,991] torch.distributed.elastic.multiprocessing.api: [WARNING] Sending process 9121 closing signal SIGTERM\n'
        '[2024-03-11 10:41:06,991] torch.distributed.elastic.multiprocessing.api: [WARNING] Sending process 9122 closing signal SIGTERM\n'
        '[2024-03-11 10:41:07,902] torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: -6) local_rank: 3 (pid: 9123) of binary: /opt/conda/envs/py_3.10/bin/python\n'
        'Traceback (most recent call last):\n'
        '  File "/opt/conda/envs/py_3.10/bin/torchrun", line 33, in <module>\n'
        "    sys.exit(load_entry_point('torch', 'console_scripts', 'torchrun')())\n"
        + failure_table('train.py', '2024-03-11_10:41:07', 'mi250-n3', 3, 3, -6, 9123),
        {'dropped_rank'}, [3]),
    'rocr_memory_access_fault_old_imprecise': (
        'Epoch: [3][ 120/1251]  Time  0.412 ( 0.420)  Loss 3.1221e+00 (3.2001e+00)\n'
        'Epoch: [3][ 130/1251]  Time  0.409 ( 0.419)  Loss 3.0871e+00 (3.1945e+00)\n'
        'Memory access fault by GPU node-2 on address 0x7fa4c8800000(may not be exact address). Reason: Unknown.\n'
        'Aborted (core dumped)',
        {'dropped_rank'}, None),
    'torch_hip_error_illegal_rank2': (
        '[2024-03-11 10:02:11,455] torch.distributed.run: [WARNING] \n'
        '[2024-03-11 10:02:11,455] torch.distributed.run: [WARNING] *****************************************\n'
        '\n'
        '[rank2]: Traceback (most recent call last):\n'
        '[rank2]:   File "/work/train.py", line 233, in <module>\n'
        '[rank2]:     loss.backward()\n'
        '[rank2]:   File "/opt/conda/lib/python3.10/site-packages/torch/_tensor.py", line 521, in backward\n'
        '[rank2]:     torch.autograd.backward(\n'
        '[rank2]: RuntimeError: HIP error: an illegal memory access was encountered\n'
        '[rank2]: HIP kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\n'
        '[rank2]: For debugging consider passing HIP_LAUNCH_BLOCKING=1\n'
        '[rank2]: Compile with `TORCH_USE_HIP_DSA` to enable device-side assertions.\n'
        '[2024-03-11 10:41:07,101] torch.distributed.elastic.multiprocessing.api: [WARNING] Sending process 9120 closing signal SIGTERM\n'
        '[2024-03-11 10:41:07,102] torch.distributed.elastic.multiprocessing.api: [WARNING] Sending process 9121 closing signal SIGTERM\n'
        '[2024-03-11 10:41:07,102] torch.distributed.elastic.multiprocessing.api: [WARNING] Sending process 9123 closing signal SIGTERM\n'
        '[2024-03-11 10:41:07,902] torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: 1) local_rank: 2 (pid: 9122) of binary: /opt/conda/envs/py_3.10/bin/python\n'
        'Traceback (most recent call last):\n'
        '  File "/opt/conda/envs/py_3.10/bin/torchrun", line 33, in <module>\n'
        "    sys.exit(load_entry_point('torch', 'console_scripts', 'torchrun')())\n"
        + failure_table('train.py', '2024-03-11_10:41:07', 'mi250-n3', 2, 2, 1, 9122, traceback=NO_TRACEBACK),
        {'dropped_rank'}, [2]),
    'torch_hip_error_launch_failure_rocm6': (
        '[rank5]:[W911 08:12:44.118] Warning: some nodes failed to compile (function operator())\n'
        '[rank5]: Traceback (most recent call last):\n'
        '[rank5]:   File "/app/finetune.py", line 301, in train_step\n'
        '[rank5]:     out = model(batch)\n'
        '[rank5]: RuntimeError: HIP error: unspecified launch failure\n'
        '[rank5]: HIP kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\n'
        '[rank5]: For debugging consider passing AMD_SERIALIZE_KERNEL=3\n'
        '[rank5]: Compile with `TORCH_USE_HIP_DSA` to enable device-side assertions.\n'
        'W0911 08:12:45.332000 140211 torch/distributed/elastic/multiprocessing/api.py:897] Sending process 30118 closing signal SIGTERM\n'
        'W0911 08:12:45.333000 140211 torch/distributed/elastic/multiprocessing/api.py:897] Sending process 30119 closing signal SIGTERM\n'
        'E0911 08:12:46.101000 140211 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) local_rank: 5 (pid: 30123) of binary: /usr/bin/python3',
        {'dropped_rank'}, [5]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_srcmined11_verdicts(tmp_path, name):
    check_case(tmp_path, CASES[name])


def test_a_ras_poll_that_counts_no_error_is_no_failure():
    """amdgpu's RAS query prints the count even when it is none: `no`/`0 uncorrectable ...` is no GPU lost."""
    from nccl_forensics.sources.catalogue import match
    for line in ("amdgpu 0000:c3:00.0: amdgpu: no uncorrectable hardware errors detected in umc block",
                 "amdgpu 0000:c3:00.0: amdgpu: 0 uncorrectable hardware errors detected in umc block"):
        assert not [h for h in match(line) if h.message.id == "kernel.amdgpu_ras_uncorrectable"], line


def test_a_rocm_fault_is_not_given_to_one_of_two_aborted_ranks(tmp_path):
    """The runtime's fault line names no process: with two ranks ended by SIGABRT, neither is named."""
    text = ("Memory access fault by GPU node-5 (Agent handle: 0x55d1c3a0f7e0) on address 0x7f1b2c001000. Reason: Page "
            "not present or supervisor privilege.\n"
            "[2024-03-11 10:41:07,902] torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: -6) "
            "local_rank: 3 (pid: 9123) of binary: /usr/bin/python\n"
            "[2024-03-11 10:41:07,903] torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: -6) "
            "local_rank: 1 (pid: 9121) of binary: /usr/bin/python")
    verdict = console_verdict(tmp_path, text)
    assert verdict.cls == "dropped_rank" and verdict.culprit_ranks == [], verdict.summary


def test_an_amd_runtime_fault_is_called_a_hip_error(tmp_path):
    """torch's hipified text and ROCR's fault line are HIP's, not CUDA's, in what the verdict says."""
    verdict = console_verdict(tmp_path, "[rank2]: RuntimeError: HIP error: an illegal memory access was encountered")
    assert verdict.culprit_ranks == [2] and "HIP error: an illegal memory access" in verdict.summary, verdict.summary

