"""Held-out set 36: real pastes of multi-GPU jobs the hardware or the node failed (NVIDIA Xid lines, uncorrectable ECC
and unspecified launch failures in the training console, a GPU fallen off the bus or lost to NVML, PCIe AER, NVLink,
the NIC's async events, the host OOM killer) and two false alarms (IB client re-registration after init, corrected
PCIe errors). 23 of 25 were read right at first sight. What changed after, from the sources:

- Slurm's gpu/nvml plugin (src/plugins/gpu/nvml/gpu_nvml.c) reports an NVML call that failed as `NVML: Failed to
  get usage(%d): %s` (and `... %s running process count(%d): %s`, `... device handle for GPU %d: %s`) with
  nvmlErrorString's text; NVML_ERROR_GPU_IS_LOST (15) is `GPU is lost` (nvml.h: the GPU fell off the bus or became
  inaccessible). Such a line from slurmstepd is the GPU lost under the job, as nvidia-smi's `Unable to determine the
  device handle ... GPU is lost` is.
- Linux's PCIe error recovery (drivers/pci/pcie/err.c report_error_detected) prints `AER: can't recover (no
  error_detected callback)` under a device whose driver has no PCI error handlers; the NVIDIA driver has none, so
  under `nvidia <bdf>` the line says the GPU's recovery failed after an uncorrectable error, whether the error itself
  was logged under the GPU or under its root port. (aerdrv_core.c's older `device has no AER-aware driver` is not
  read: 2.6-era kernels recovered past it.)
"""
from __future__ import annotations

import pytest

from .consoles import check_case, console_verdict

CASES = [
    # (issue, pasted excerpt, right classes, culprit ranks or None)
    ('3dem_relion_436_journal-xid13-illegal-instruction-encoding',
     'Feb 15 17:37:45 Gipfeli kernel: [82659.755847] NVRM: Xid (PCI:0000:41:00): 13, Graphics Exception: ESR 0x5067b0=0x9 0x5067b4=0x24 0x5067a8=0x4c1eb72 0x5067ac=0x174\nFeb 15 17:37:45 Gipfeli kernel: [82659.755933] NVRM: Xid (PCI:0000:41:00): 13, Graphics SM Warp Exception on (GPC 1, TPC 0, SM 0): Illegal Instruction Encoding\nFeb 15 17:37:45 Gipfeli kernel: [82659.755940] NVRM: Xid (PCI:0000:41:00): 13, Graphics SM Global Exception on (GPC 1, TPC 0, SM 0): Multiple Warp Errors\nFeb 15 17:37:45 Gipfeli kernel: [82659.755946] NVRM: Xid (PCI:0000:41:00): 13, Graphics Exception: ESR 0x50c730=0x30009 0x50c734=0x24 0x50c728=0x4c1eb72 0x50c72c=0x174\nFeb 15 17:37:45 Gipfeli kernel: [82659.756011] NVRM: Xid (PCI:0000:41:00): 13, Graphics SM Warp Exception on (GPC 1, TPC 0, SM 1): Illegal Instruction Encoding\n',
     ['dropped_rank'], None),
    ('JosephKJ_OWOD_81_nvidia-smi-gpu-is-lost-4gpu',
     'Unable to determine the device handle for GPU 0000:02:00.0: GPU is lost. Reboot the system to recover this GPU\n',
     ['dropped_rank'], None),
    ('LSSI-ETH_plmfit_40_slurmstepd-nvml-gpu-is-lost',
     'slurmstepd: error: NVML: Failed to get usage(15): GPU is lost\n',
     ['dropped_rank'], None),
    ('Lightning-AI_lit-llama_380_ib-port-error-then-error12',
     'iter 83592: loss 1.5455, time: 4401.19ms, speed: - toks/s/device\niter 83593: loss 2.6294, time: 6669.64ms, speed: - toks/s/device\niter 83594: loss 1.9491, time: 6235.95ms, speed: 1771 toks/s/device\n...-48:34050:34121 [0] transport/net_ib.cc:93 NCCL WARN NET/IB : Got async event : port error\n\n...-48:34052:34141 [0] transport/net_ib.cc:93 NCCL WARN NET/IB : Got async event : port error\n\n...-48:34055:34140 [0] transport/net_ib.cc:93 NCCL WARN NET/IB : Got async event : port error\n\n...-48:34051:34143 [0] transport/net_ib.cc:93 NCCL WARN NET/IB : Got async event : port error\n\n...-48:34054:34130 [0] transport/net_ib.cc:93 NCCL WARN NET/IB : Got async event : port error\n',
     ['network_error'], None),
    ('NVIDIA-NeMo_Megatron-Bridge_836_tp-group-unspecified-launch-failure-rank29',
     ' [2025-10-02 12:20:48] iteration       48/      50 | consumed samples:         3072 | elapsed time per iteration (ms): 7138.7 | learning rate: 7.200000E-06 | global batch size:    64 | lm loss: 8.3171\n[rank29]:[E1002 12:20:55.123831168 ProcessGroupNCCL.cpp:1923] [PG ID 5 PG GUID 83(TENSOR_MODEL_PARALLEL_GROUP) Rank 1] Process group watchdog thread terminated with exception: CUDA error: unspecified \nCUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1\nCompile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\n\nException raised from c10_cuda_check_implementation at /opt/pytorch/pytorch/c10/cuda/CUDAException.cpp:43 (most recent call first):\n',
     ['dropped_rank'], [29]),
    ('NVIDIA_TensorRT-LLM_15610_xid13-sm-warp-mmu-fault-b200',
     '[Wed Jun 24 15:44:20 2026] NVRM: Xid (PCI:0000:70:00): 13, Graphics SM Warp Exception on (GPC 1, TPC 1, SM 1): MMU Fault\n[Wed Jun 24 15:44:20 2026] NVRM: Xid (PCI:0000:70:00): 13, Graphics Exception: ESR 0x5167b0=0x80f0017 0x5167b4=0x20 0x5167a8=0x1f81fb60 0x5167ac=0x1174\n[Wed Jun 24 15:44:20 2026] NVRM: Xid (PCI:0000:70:00): 13, Graphics SM Warp Exception on (GPC 2, TPC 7, SM 1): MMU Fault\n[Wed Jun 24 15:44:20 2026] NVRM: Xid (PCI:0000:70:00): 13, Graphics Exception: ESR 0x52c7b0=0x80f0017 0x52c7b4=0x20 0x52c7a8=0x1f81fb60 0x52c7ac=0x1174\n[Wed Jun 24 15:44:20 2026] NVRM: Xid (PCI:0000:70:00): 13, Graphics SM Warp Exception on (GPC 6, TPC 8, SM 0): MMU Fault\n[Wed Jun 24 15:44:20 2026] NVRM: Xid (PCI:0000:70:00): 13, Graphics Exception: ESR 0x56d730=0x80f0017 0x56d734=0x20 0x56d728=0x1f81fb60 0x56d72c=0x1174\n',
     ['dropped_rank'], None),
    ('NVIDIA_nccl_1905_ib-qp-local-access-violation-status4',
     '2025-11-09 15:39:31.043 +08:00 [2025-11-09 07:39:30] h100-28:238:1313 [0] transport/net_ib.cc:139 NCCL WARN communicator encountered a fatal error (detected in ncclIbTest)\n2025-11-09 15:39:31.043 +08:00 [2025-11-09 07:39:30] h100-28:238:1219 [0] transport/net_ib.cc:180 NCCL WARN NET/IB : mlx5_ib0:1 async fatal event on QP (0x7f69f01519a8): local access violation work qu\n2025-11-09 15:39:31.043 +08:00 [2025-11-09 07:39:30] h100-28:238:1313 [0] transport/net_ib.cc:2451 NCCL WARN NET/IB: Got completion from peer 172.16.12.34<38081> with status=4 opcode=0 len=0 vendor er\n',
     ['network_error'], None),
    ('NVIDIA_nccl_230_ib-local-catastrophic-error-mpirun',
     '2019-06-02T16:13:44.884Z: [1,12]<stdout>:container-e275-1553839402050-12124-01-000057:815:864 [0] transport/net_ib.cu:80 NCCL WARN NET/IB : Got async event : local catastrophic error\n2019-06-02T16:13:44.884Z: [1,12]<stdout>:\n2019-06-02T16:13:44.884Z: [1,12]<stdout>:container-e275-1553839402050-12124-01-000057:815:864 [0] misc/ibvwrap.cu:220 NCCL WARN Call to ibv_get_async_event failed\n2019-06-02T16:13:44.888Z: [1,14]<stdout>:\n2019-06-02T16:13:44.888Z: [1,14]<stdout>:container-e275-1553839402050-12124-01-000057:814:868 [0] transport/net_ib.cu:80 NCCL WARN NET/IB : Got async event : local catastrophic error\n2019-06-02T16:13:44.888Z: [1,14]<stdout>:\n2019-06-02T16:13:44.888Z: [1,14]<stdout>:container-e275-1553839402050-12124-01-000057:814:868 [0] misc/ibvwrap.cu:220 NCCL WARN Call to ibv_get_async_event failed\n2019-06-02T16:13:44.888Z: [1,13]<stdout>:\n2019-06-02T16:13:44.888Z: [1,13]<stdout>:container-e275-1553839402050-12124-01-000057:812:866 [0] transport/net_ib.cu:80 NCCL WARN NET/IB : Got async event : local catastrophic error\n2019-06-02T16:13:44.888Z: [1,13]<stdout>:\n2019-06-02T16:13:44.888Z: [1,13]<stdout>:container-e275-1553839402050-12124-01-000057:812:866 [0] misc/ibvwrap.cu:220 NCCL WARN Call to ibv_get_async_event failed\n',
     ['network_error'], None),
    ('NVIDIA_nccl_905_ib-async-port-error-flapping',
     'NCCL WARN NET/IB : Got async event : port error\n',
     ['network_error'], None),
    ('NVIDIA_nvidia-docker_1553_xid79-fallen-off-bus-dmesg',
     '[1084456.074554] NVRM: GPU at PCI:0000:09:00: GPU-26fba6b2-9e52-006e-68db-4ce18382a5ea\n[1084456.074559] NVRM: GPU Board Serial Number:\n[1084456.074562] NVRM: Xid (PCI:0000:09:00): 79, pid=0, GPU has fallen off the bus.\n[1084456.074566] NVRM: GPU 0000:09:00.0: GPU has fallen off the bus.\n[1084456.074567] NVRM: GPU 0000:09:00.0: GPU is on Board .\n[1084456.074591] NVRM: A GPU crash dump has been created. If possible, please run\n                 NVRM: nvidia-bug-report.sh as root to collect this data before\n                 NVRM: the NVIDIA kernel module is unloaded.\n[1084456.746765] nvidia-gpu 0000:09:00.3: Refused to change power state, currently in D3\n[1084456.807851] xhci_hcd 0000:09:00.2: Refused to change power state, currently in D3\n[1084456.886514] xhci_hcd 0000:09:00.2: Refused to change power state, currently in D3\n[1084456.886523] xhci_hcd 0000:09:00.2: Controller not ready at resume -19\n',
     ['dropped_rank'], None),
    ('NVIDIA_semantic-segmentation_33_thc-runtime-error-39-ecc-8gpu',
     'RuntimeError: cuda runtime error (39) : uncorrectable ECC error encountered at /pytorch/aten/src/THC/THCCachingHostAllocator.cpp:265\nterminate called without an active exception\n',
     ['dropped_rank'], None),
    ('deepseek-ai_DeepSeek-MoE_47_watchdog-unspecified-launch-failure-rank1',
     '[rank1]:[E410 01:50:33.889423318 ProcessGroupNCCL.cpp:1895] [PG ID 0 PG GUID 0(default_pg) Rank 1] Process group watchdog thread terminated with exception: CUDA error: unspecified launch failure\nCUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1\nCompile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\n\nException raised from c10_cuda_check_implementation at /pytorch/c10/cuda/CUDAException.cpp:43 (most recent call first):\nframe #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x96 (0x7ef4bb3161b6 in /home/amd00/anaconda3/envs/DeepSeek-MoE/lib/python3.10/site-packages/torch/lib/libc10.so)\nframe #1: c10::detail::torchCheckFail(char const*, char const*, unsigned int, std::string const&) + 0x64 (0x7ef4bb2bfa76 in /home/amd00/anaconda3/envs/DeepSeek-MoE/lib/python3.10/site-packages/torch/l\nframe #2: c10::cuda::c10_cuda_check_implementation(int, char const*, char const*, int, bool) + 0x118 (0x7ef4bb404918 in /home/amd00/anaconda3/envs/DeepSeek-MoE/lib/python3.10/site-packages/torch/lib/l\nframe #3: c10d::ProcessGroupNCCL::WorkNCCL::finishedGPUExecutionInternal() const + 0x56 (0x7ef4687f1556 in /home/amd00/anaconda3/envs/DeepSeek-MoE/lib/python3.10/site-packages/torch/lib/libtorch_cuda.\n',
     ['dropped_rank'], [1]),
    ('deepseek-ai_DeepSeek-VL2_90_global-oom-killer-dmesg',
     'Loading checkpoint shards:  75%|███████▌  | 3/4 [00:08<00:02,  2.83s/it]Killed\n\nsudo dmesg | tail -n 20\n\n[26002.108918] oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=user.slice,mems_allowed=0,global_oom,task_memcg=/user.slice/user-1000.slice/user@1000.service/app.slice/app-org.gnome.Terminal\n[26002.109061] Out of memory: Killed process 576419 (python) total-vm:78521468kB, anon-rss:54398260kB, file-rss:2628kB, shmem-rss:0kB, UID:1000 pgtables:119448kB oom_score_adj:0\n',
     ['oom'], None),
    ('deepspeedai_DeepSpeedExamples_310_ib-client-reregistration-after-init',
     'gpu1:5025:5384 [4] NCCL INFO 2 coll channels, 2 p2p channels, 2 p2p channels per peer\ngpu1:5022:5377 [1] NCCL INFO comm 0x4438f540 rank 1 nranks 8 cudaDev 1 busId 52000 - Init COMPLETE\ngpu1:5024:5388 [3] NCCL INFO comm 0x4495bb80 rank 3 nranks 8 cudaDev 3 busId 57000 - Init COMPLETE\ngpu1:5021:5376 [0] NCCL INFO comm 0x453b9880 rank 0 nranks 8 cudaDev 0 busId 4f000 - Init COMPLETE\ngpu1:5023:5381 [2] NCCL INFO comm 0x44c39ee0 rank 2 nranks 8 cudaDev 2 busId 56000 - Init COMPLETE\ngpu1:5025:5384 [4] NCCL INFO comm 0x43b40770 rank 4 nranks 8 cudaDev 4 busId ce000 - Init COMPLETE\ngpu1:5027:5380 [6] NCCL INFO comm 0x44103030 rank 6 nranks 8 cudaDev 6 busId d5000 - Init COMPLETE\ngpu1:5026:5379 [5] NCCL INFO comm 0x452d84a0 rank 5 nranks 8 cudaDev 5 busId d1000 - Init COMPLETE\ngpu1:5028:5378 [7] NCCL INFO comm 0x443814b0 rank 7 nranks 8 cudaDev 7 busId d6000 - Init COMPLETE\n\ngpu1:5021:5386 [0] transport/net_ib.cc:93 NCCL WARN NET/IB : Got async event : client reregistration\n\n',
     ['inconclusive', 'none'], None),
    ('hao-ai-lab_FastVideo_1008_subgroup-unspecified-launch-failure-rank9',
     'Steps:  25%|██▌       | 382/1500 [5:29:27<15:48:09, 50.89s/it, loss=0.0841, step_time=50.94s, grad_norm=0.378]\n[rank9]:[E113 11:43:02.241131296 ProcessGroupNCCL.cpp:1899] [PG ID 5 PG GUID 55(mesh_replicate) Rank 1] Process group watchdog thread terminated with exception: CUDA error: unspecified launch failure\nCUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1\nCompile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\n\nException raised from c10_cuda_check_implementation at /pytorch/c10/cuda/CUDAException.cpp:43 (most recent call first):\nframe #0: c10::Error::Error(c10::SourceLocation, std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >) + 0x98 (0x7f7dbc3785e8 in miniconda3/envs/fastvideo/lib/python3.12/sit\n',
     ['dropped_rank'], [9]),
    ('hirschmann_nbfc_181_aer-corrected-receiver-error-only',
     'jan. 29 20:50:17 kevin kernel: pcieport 0000:00:1c.5: AER: Corrected error received: id=00e5\njan. 29 20:50:17 kevin kernel: pcieport 0000:00:1c.5: PCIe Bus Error: severity=Corrected, type=Physical Layer, id=00e5(Receiver ID)\njan. 29 20:50:17 kevin kernel: pcieport 0000:00:1c.5:   device [8086:9d15] error status/mask=00000001/00002000\njan. 29 20:50:17 kevin kernel: pcieport 0000:00:1c.5:    [ 0] Receiver Error \n',
     ['inconclusive', 'none'], None),
    ('hiyouga_LlamaFactory_8871_multinode-unspecified-launch-failure-rank19',
     "192.168.12.21: {'loss': 0.2411, 'grad_norm': 0.3060550590848015, 'learning_rate': 9.846034296341644e-06, 'epoch': 0.4}\n192.168.12.21: {'loss': 0.2286, 'grad_norm': 0.2749779785870359, 'learning_rate': 9.845673262306643e-06, 'epoch': 0.4}\n192.168.12.21: {'loss': 0.2329, 'grad_norm': 0.27532953852808206, 'learning_rate': 9.845311812107845e-06, 'epoch': 0.4}\n192.168.13.81: [rank19]:[E808 10:31:07.406255799 ProcessGroupNCCL.cpp:1895] [PG ID 1 PG GUID 1 Rank 19] Process group watchdog thread terminated with exception: CUDA error: unspecified launch failure\n192.168.13.81: CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\n",
     ['dropped_rank'], [19]),
    ('huggingface_accelerate_1192_ecc-then-sigterm-rich',
     '│    988 │   │                                                                                     │\n│    989 │   │   return self._apply(convert)                                                       │\n│    990                                                                                           │\n╰──────────────────────────────────────────────────────────────────────────────────────────────╯\nRuntimeError: CUDA error: uncorrectable ECC error encountered\nCUDA kernel errors might be asynchronously reported at some other API call,so the stacktrace below might be incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1.\n[15:58:29] WARNING  Sending process 197 closing signal SIGTERM                                                                                                                 api.py:699\n           WARNING  Sending process 198 closing signal SIGTERM                                                                                                                 api.py:699\n           WARNING  Sending process 199 closing signal SIGTERM                                                                                                                 api.py:699\n           WARNING  Sending process 200 closing signal SIGTERM\n',
     ['dropped_rank'], None),
    ('jade-hpc-gpu_jade-hpc-gpu.github.io_194_ecc-bad-node',
     'RuntimeError: CUDA error: uncorrectable ECC error encountered\nCUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1.\nCompile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\n',
     ['dropped_rank'], None),
    ('kohya-ss_sd-scripts_1434_ecc-watchdog-rank1',
     '  File "/home/Ubuntu/Desktop/kohya_ss/sd-scripts/library/sdxl_original_unet.py", line 257, in get_timestep_embedding\n    exponent = exponent / (half_dim - downscale_freq_shift)\nRuntimeError: CUDA error: uncorrectable ECC error encountered\nCUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1.\nCompile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\n\n[E ProcessGroupNCCL.cpp:916] [Rank 1] NCCL watchdog thread terminated with exception: CUDA error: uncorrectable ECC error encountered\nCUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1.\nCompile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\n\n',
     ['dropped_rank'], [1]),
    ('meta-llama_llama-cookbook_290_terminate-watchdog-unspecified-launch-failure-rank0',
     "frame #9: clone + 0x43 (0x7fbcde295133 in /lib/x86_64-linux-gnu/libc.so.6)\n\nterminate called after throwing an instance of 'std::runtime_error'\n  what():  [Rank 0] NCCL watchdog thread terminated with exception: CUDA error: unspecified launch failure\nCUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1.\nCompile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\n\nException raised from c10_cuda_check_implementation at ../c10/cuda/CUDAException.cpp:44 (most recent call first):\nframe #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x57 (0x7fbc51fac617 in /apps/.conda/envs/llama-cu21/lib/python3.10/site-packages/torch/lib/libc10.so)\nframe #3: c10d::ProcessGroupNCCL::WorkNCCL::finishedGPUExecutionInternal() const + 0x80 (0x7fbc5339ad40 in /apps/.conda/envs/llama-cu21/lib/python3.10/site-packages/torch/lib/libtorch_cuda.so)\n",
     ['dropped_rank'], [0]),
    ('pytorch_pytorch_51382_xid43-then-xid31-mmu-fault-faulty-device',
     '[Wed Jan 27 23:04:35 2021] NVRM: GPU Board Serial Number:\n[Wed Jan 27 23:04:35 2021] NVRM: Xid (PCI:0000:3d:00): 43, pid=35521, Ch 00000008\n[Wed Jan 27 23:12:27 2021] NVRM: Xid (PCI:0000:3d:00): 43, pid=36178, Ch 00000008\n[Thu Jan 28 00:16:35 2021] NVRM: Xid (PCI:0000:3d:00): 43, pid=1405, Ch 00000008\n[Thu Jan 28 02:13:33 2021] NVRM: Xid (PCI:0000:3d:00): 43, pid=11101, Ch 00000008\n[Fri Jan 29 23:42:34 2021] NVRM: GPU at PCI:0000:db:00: GPU-4a28de72-2645-de9a-eb35-a394cef3f4da\n[Fri Jan 29 23:42:34 2021] NVRM: GPU Board Serial Number:\n[Fri Jan 29 23:42:34 2021] NVRM: Xid (PCI:0000:db:00): 31, pid=13641, Ch 00000008, intr 00000000. MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_10 faulted @ 0x7fd7_90743000. Fault is of type FAULT_PDE ACCES\n[Sat Jan 30 00:05:20 2021] NVRM: Xid (PCI:0000:db:00): 31, pid=14323, Ch 00000008, intr 00000000. MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_10 faulted @ 0x7efe_ba290000. Fault is of type FAULT_PDE ACCES\n[Sat Jan 30 00:32:48 2021] NVRM: Xid (PCI:0000:db:00): 31, pid=33275, Ch 00000008, intr 00000000. MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_10 faulted @ 0x7f57_2c9e8000. Fault is of type FAULT_PDE ACCES\n',
     ['dropped_rank'], None),
    ('pytorch_pytorch_58155_uncorrectable-nvlink-error-a100-tests',
     "test_nccl_blocking_wait_with_barrier (__main__.NcclErrorHandlingTest) ... terminate called after throwing an instance of 'c10::Error'\n  what():  CUDA error: uncorrectable NVLink error detected during the execution\n",
     ['dropped_rank'], None),
    ('rwth-i6_returnn_1500_aer-uncorrected-fatal-cmpltto-hang',
     "[  +0.000844] nvidia 0000:03:00.0: AER: can't recover (no error_detected callback)\n[  +0.000001] snd_hda_intel 0000:03:00.1: AER: can't recover (no error_detected callback)\n[  +0.000008] pcieport 0000:00:03.0: AER: device recovery failed\n[  +0.000001] pcieport 0000:00:03.0: AER: Multiple Uncorrected (Fatal) error received: 0000:00:03.0\n[  +0.000004] pcieport 0000:00:03.0: PCIe Bus Error: severity=Uncorrected (Fatal), type=Transaction Layer, (Requester ID)\n[  +0.000898] pcieport 0000:00:03.0:   device [8086:6f08] error status/mask=00004020/00000000\n[  +0.000889] pcieport 0000:00:03.0:    [ 5] SDES                  \n[  +0.000894] pcieport 0000:00:03.0:    [14] CmpltTO                (First)\n[  +0.000921] nvidia 0000:03:00.0: AER: can't recover (no error_detected callback)\n[  +0.000002] snd_hda_intel 0000:03:00.1: AER: can't recover (no error_detected callback)\n[  +1.050439] pcieport 0000:00:03.0: AER: Root Port link has been reset (0)\n[  +0.000041] pcieport 0000:00:03.0: AER: device recovery failed\n",
     ['dropped_rank', 'stuck_rank'], None),
    ('vllm-project_vllm_5901_xid13-unknown-pid-graphics-exception-a800',
     "[93297.027938] NVRM: Xid (PCI:0000:43:00): 13, pid='<unknown>', name=<unknown>, Graphics Exception: ESR 0x52e7b0=0x101000e 0x52e7b4=0x4 0x52e7a8=0xc81eb60 0x52e7ac=0x1174\n[93297.029837] NVRM: Xid (PCI:0000:43:00): 13, pid='<unknown>', name=<unknown>, Graphics Exception: ESR 0x52ef30=0x0 0x52ef34=0x20 0x52ef28=0xc81eb60 0x52ef2c=0x1174\n[93297.031618] NVRM: Xid (PCI:0000:43:00): 13, pid='<unknown>', name=<unknown>, Graphics Exception: ESR 0x52efb0=0x0 0x52efb4=0x20 0x52efa8=0xc81eb60 0x52efac=0x1174\n[93297.040286] NVRM: Xid (PCI:0000:43:00): 13, pid='<unknown>', name=<unknown>, Graphics Exception: ESR 0x52f730=0x0 0x52f734=0x20 0x52f728=0xc81eb60 0x52f72c=0x1174\n[93297.042086] NVRM: Xid (PCI:0000:43:00): 13, pid='<unknown>', name=<unknown>, Graphics Exception: ESR 0x52f7b0=0x0 0x52f7b4=0x20 0x52f7a8=0xc81eb60 0x52f7ac=0x1174\n[93297.043905] NVRM: Xid (PCI:0000:43:00): 13, pid='<unknown>', name=<unknown>, Graphics Exception: ESR 0x52ff30=0x0 0x52ff34=0x20 0x52ff28=0xc81eb60 0x52ff2c=0x1174\n",
     ['dropped_rank'], None),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_heldout36_case(tmp_path, case):
    check_case(tmp_path, (case[1], set(case[2]), case[3]))


@pytest.mark.parametrize("line", [
    "slurmstepd: error: NVML: Failed to get usage(15): GPU is lost",
    "slurmstepd-node07: error: NVML: Failed to get Compute running process count(15): GPU is lost",
    "slurmstepd: error: NVML: Failed to get device handle for GPU 3: GPU is lost",
])
def test_an_nvml_call_answered_gpu_is_lost_is_the_gpu_gone(tmp_path, line):
    assert console_verdict(tmp_path, line).cls == "dropped_rank"


def test_an_nvml_call_that_failed_otherwise_is_no_lost_gpu(tmp_path):
    verdict = console_verdict(tmp_path, "slurmstepd: error: NVML: Failed to get usage(3): Not Supported")
    assert verdict.cls != "dropped_rank", verdict.summary


@pytest.mark.parametrize("line", [
    "[  420.2] nvidia 0000:3b:00.0: AER: can't recover (no error_detected callback)",
    "[  420.2] nvidia 0000:3b:00.0: AER: Can't recover (no error_detected callback)",
])
def test_pcie_recovery_the_gpu_driver_cannot_join_loses_the_gpu(tmp_path, line):
    assert console_verdict(tmp_path, line).cls == "dropped_rank"


@pytest.mark.parametrize("line", [
    "[   30.1] xhci_hcd 0000:3e:00.0: AER: can't recover (no error_detected callback)",
    "nvidia 0000:02:00.0: device has no AER-aware driver",
])
def test_another_devices_recovery_or_the_old_debug_line_loses_no_gpu(tmp_path, line):
    verdict = console_verdict(tmp_path, line)
    assert verdict.cls != "dropped_rank", verdict.summary
