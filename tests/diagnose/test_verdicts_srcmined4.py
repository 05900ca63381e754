"""Verdicts on messages mined from the sources in catalogue round srcmined4: the stack around torch and NCCL, each as
the decisive line(s) of a pasted console in the form its software prints it (catalogue/stack.py, nccl.py):

- DeepEP's kernel and host timeouts (`DeepEP timeout for dispatch receivers, rank N, ...` then trap(): the CUDA
  launch failure under it is the timeout's consequence) and TransformerEngine's userbuffers wait (`expecting N got M`);
- NVSHMEM's transport errors (`<file>: non-zero status: 7 connect EPS failed`) and the network plugins' post and setup
  failures (aws-ofi-nccl `NET/OFI Error posting RDMA ... request`, `Error in call to fi_send`; UCX `ibv_reg_mr`,
  an endpoint error no callback handles; Open MPI's TCP `readv failed` and UCX PML endpoint errors);
- Megatron-core's NaN gradient check and parallel-layout check and DeepSpeed's loss scale at its minimum: failures no
  rank's death explains; the resiliency extension's straggler report, with the ranks it names;
- vLLM's executors (`Worker proc ... died unexpectedly`, `RayWorkerProc rank=[N] ...`, the worker error it carries),
  SGLang's scheduler exception, Ray's node marked dead, vLLM's custom all-reduce fallback;
- the SHARP plugin's `SHARP coll init error` and NCCL's `Cannot initialize CollNet, using point-to-point network
  instead`: a fallback, and the error trace right above it the path NCCL left by it.
"""
from __future__ import annotations

import pytest

from .consoles import check_case, console_verdict

CASES = {
    "deepep_combine_receive_masked_rank": (
        'Warning: DeepEP timeout for combine receive, rank 2, local_expert_idx 5, src_rank 6\n'
        'Warning: DeepEP timeout for combine receive, rank 2, local_expert_idx 13, src_rank 6\n'
        'Warning: DeepEP timeout for combine receive, rank 3, local_expert_idx 5, src_rank 6\n',
        {'stuck_rank', 'dropped_rank', 'timeout_unknown'}, None),
    "deepep_dispatch_cpu_timeout": (
        'Global rank: 9, num_recv_tokens: -1, num_rdma_recv_tokens: -1\n'
        'moe_recv_expert_counter[0]: -1\n'
        'moe_recv_expert_counter[1]: -1\n'
        '[rank9]: Traceback (most recent call last):\n'
        '[rank9]:   File "/sgl-workspace/DeepEP/deep_ep/buffer.py", line 396, in internode_dispatch\n'
        '[rank9]:     recv_src_meta, send_rdma_head, send_nvl_head, event = self.runtime.internode_dispatch(\n'
        '[rank9]:                                                           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n'
        '[rank9]: RuntimeError: DeepEP error: timeout (dispatch CPU)\n',
        {'timeout_unknown', 'stuck_rank', 'network_error'}, None),
    "deepep_dispatch_receivers_timeout": (
        '[rank5]:[W1126 10:21:44.102331 ProcessGroupNCCL.cpp:4751] Warning:'
        ' TORCH_NCCL_AVOID_RECORD_STREAMS=1 has no effect for point-to-point collectives.\n'
        'DeepEP timeout for dispatch receivers, rank 5, responsible_channel = 3, tokens remained: 112\n'
        'DeepEP timeout for dispatch receivers, rank 5, responsible_channel = 7, tokens remained: 96\n'
        'DeepEP timeout for dispatch receivers, rank 5, responsible_channel = 11, tokens remained: 128\n'
        '[rank5]: Traceback (most recent call last):\n'
        '[rank5]:   File "/workspace/train_moe.py", line 211, in <module>\n'
        '[rank5]:     recv_x, recv_topk_idx, recv_topk_weights, num_recv_tokens_per_expert_list, handle,'
        ' event = buffer.dispatch(\n'
        '[rank5]:   File "/usr/local/lib/python3.10/dist-packages/deep_ep/buffer.py", line 396, in'
        ' internode_dispatch\n'
        '[rank5]:     recv_src_meta, send_rdma_head, send_nvl_head, event = self.runtime.internode_dispatch(\n'
        '[rank5]: RuntimeError: CUDA error: unspecified launch failure\n',
        {'timeout_unknown', 'stuck_rank', 'network_error'}, None),
    "deepspeed_loss_scale_at_minimum": (
        '[2026-11-26 11:02:40,556] [INFO] [loss_scaler.py:183:update_scale] [deepspeed] OVERFLOW! Rank 0'
        ' Skipping step. Attempted loss scale: 2, reducing to 1\n'
        '[2026-11-26 11:02:41,870] [INFO] [loss_scaler.py:183:update_scale] [deepspeed] OVERFLOW! Rank 0'
        ' Skipping step. Attempted loss scale: 1, reducing to 1\n'
        'Traceback (most recent call last):\n'
        '  File "/home/user/train.py", line 402, in <module>\n'
        '    model_engine.step()\n'
        '  File "/usr/local/lib/python3.10/dist-packages/deepspeed/runtime/fp16/loss_scaler.py", line 175,'
        ' in update_scale\n'
        '    raise Exception(\n'
        'Exception: Current loss scale already at minimum - cannot decrease scale anymore. Exiting run.\n',
        {'unclassified_failure'}, None),
    "deepspeed_zero3_inflight_params": (
        '[2026-11-26 09:40:01,210] [INFO] [logging.py:96:log_dist] [Rank 0] step=12, skipped=0, lr=[1e-05],'
        ' mom=[(0.9, 0.999)]\n'
        '[rank0]: Traceback (most recent call last):\n'
        '[rank0]:   File "/usr/local/lib/python3.10/dist-packages/deepspeed/runtime/zero/parameter_offload.py'
        '", line 270, in _end_of_forward_hook\n'
        '[rank0]:     self.get_param_coordinator().reset_step()\n'
        '[rank0]:   File "/usr/local/lib/python3.10/dist-packages/deepspeed/runtime/zero/partitioned_param_co'
        'ordinator.py", line 206, in reset_step\n'
        '[rank0]:     raise RuntimeError(f"still have inflight params "\n'
        "[rank0]: RuntimeError: still have inflight params [{'id': 211, 'status': 'AVAILABLE', 'numel':"
        " 4096, 'ds_numel': 4096, 'shape': (4096,), 'ds_shape': (4096,), 'requires_grad': True,"
        " 'grad_shape': None, 'persist': True, 'active_sub_modules': set(), 'ds_tensor.shape':"
        ' torch.Size([512])}]\n',
        {'unclassified_failure', 'dropped_rank'}, None),
    "megatron_nan_grad_norm_assert": (
        ' [2026-11-26 07:40:11] iteration      858/  100000 | consumed samples:       439296 | elapsed time'
        ' per iteration (ms): 2310.4 | learning rate: 2.999E-04 | global batch size:   512 | lm loss:'
        ' 2.609532E+00 | loss scale: 1.0 | grad norm: 0.038 |\n'
        'Traceback (most recent call last):\n'
        '  File "/workspace/Megatron-LM/pretrain_gpt.py", line 243, in <module>\n'
        '    pretrain(train_valid_test_datasets_provider,\n'
        '  File "/workspace/Megatron-LM/megatron/core/distributed/param_and_grad_buffer.py", line 151, in'
        ' finish_grad_sync\n'
        '    self.start_grad_sync()\n'
        '  File "/workspace/Megatron-LM/megatron/core/distributed/param_and_grad_buffer.py", line 114, in'
        ' start_grad_sync\n'
        '    assert not norm.isnan(), (\n'
        'AssertionError: Rank 13: found NaN in local grad norm in backward pass before data-parallel'
        ' communication collective. Device: 5, node: node-15-11\n',
        {'unclassified_failure'}, None),
    "megatron_rerun_nan_grad_bucket": (
        ' [2026-11-26 14:02:31] iteration       12/    5000 | consumed samples:         1536 | elapsed time'
        ' per iteration (ms): 8421.0 | lm loss: 1.102931E+00 | grad norm: 0.412 |\n'
        '[rank3]: Traceback (most recent call last):\n'
        '[rank3]:   File "/opt/Megatron-LM/megatron/core/distributed/param_and_grad_buffer.py", line 225, in'
        ' check_grads\n'
        '[rank3]:     rerun_state_machine.validate_result(\n'
        '[rank3]:   File "/opt/Megatron-LM/megatron/core/rerun_state_machine.py", line 512, in'
        ' validate_result\n'
        '[rank3]:     raise RuntimeError(full_message)\n'
        '[rank3]: RuntimeError: Rank 3, node gpu-node-02, device 3, iteration 13: Unexpected result nan'
        " (message='found NaN in local grad norm for bucket #0 in backward pass before data-parallel"
        " communication collective')\n",
        {'unclassified_failure'}, None),
    "megatron_world_size_not_divisible": (
        '> initializing torch distributed ...\n'
        '> initialized tensor model parallel with size 8\n'
        '[rank3]: Traceback (most recent call last):\n'
        '[rank3]:   File "/workspace/Megatron-LM/megatron/training/initialize.py", line 367, in'
        ' _initialize_distributed\n'
        '[rank3]:     mpu.initialize_model_parallel(\n'
        '[rank3]:   File "/workspace/Megatron-LM/megatron/core/parallel_state.py", line 562, in'
        ' initialize_model_parallel\n'
        '[rank3]:     raise RuntimeError(\n'
        '[rank3]: RuntimeError: world_size (12) is not divisible by tensor_model_parallel_size (8) x'
        ' pipeline_model_parallel_size (1) x context_parallel_size (1)\n',
        {'unclassified_failure'}, None),
    "nvrx_straggler_relative_perf": (
        ' [2026-11-26 08:00:01] iteration     3000/  100000 | consumed samples:      1536000 | elapsed time'
        ' per iteration (ms): 1912.7 | learning rate: 2.990E-04 | lm loss: 2.201953E+00 | grad norm: 0.221 |\n'
        'GPU relative performance:\n'
        ' Worst performing 3/8 ranks:\n'
        '  Rank=5 Node=h100-003-011 Score=0.61\n'
        '  Rank=2 Node=h100-003-010 Score=0.98\n'
        '  Rank=0 Node=h100-003-010 Score=1.00\n'
        ' Straggler report processing time: 0.041 sec.\n'
        '[NeMo W 2026-11-26 08:00:01 straggler_det_callback:217] STRAGGLER DETECTION WARNING: Some GPUs have'
        ' worse relative performance. Affected ranks: [5]\n'
        ' [2026-11-26 08:00:05] iteration     3001/  100000 | consumed samples:      1536512 | elapsed time'
        ' per iteration (ms): 2801.3 | learning rate: 2.990E-04 | lm loss: 2.198801E+00 | grad norm: 0.219 |\n',
        {'straggler'}, [5]),
    "nvshmem_init_connect_eps_failed": (
        '[2026-11-26 09:02:11 TP3] Init torch distributed ends. mem usage=0.00 GB\n'
        '/dvs/p4/build/sw/rel/gpgpu/toolkit/r12.8/main_nvshmem/src/modules/transport/ibgda/ibgda.cpp:2916:'
        ' non-zero status: 7 create DCT share err.\n'
        '/dvs/p4/build/sw/rel/gpgpu/toolkit/r12.8/main_nvshmem/src/host/transport/transport.cpp:420:'
        ' non-zero status: 7 connect EPS failed\n'
        '/dvs/p4/build/sw/rel/gpgpu/toolkit/r12.8/main_nvshmem/src/host/init/init.cu:1007: non-zero status:'
        ' 7 nvshmem setup connections failed\n'
        'nvshmem initialization failed, exiting\n',
        {'network_error'}, None),
    "ofi_cm_fi_send_failed": (
        'ip-10-1-9-44:8812:8990 [5] nccl_ofi_cm_resources.cpp:284 NCCL WARN NET/OFI Error in call to'
        ' fi_send. RC: -110, Error: Connection timed out\n'
        'ip-10-1-9-44:8812:8990 [5] NCCL INFO transport/net.cc:862 -> 6\n'
        'ip-10-1-9-44:8812:8990 [5] NCCL INFO init.cc:1477 -> 6\n'
        'RuntimeError: NCCL error in: /opt/pytorch/pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:2'
        '010, remote process exited or there was a network error, NCCL version 2.22.3\n',
        {'network_error'}, None),
    "ofi_error_posting_rdma_write": (
        'ip-10-1-2-3:41022:41191 [3] NCCL INFO NET/OFI Selected provider is efa, fabric is efa-direct (found'
        ' 4 nics)\n'
        'ip-10-1-2-3:41022:41191 [3] nccl_ofi_rdma.cpp:5501 NCCL WARN NET/OFI Error posting RDMA write'
        ' request. RC: -113, Error: No route to host\n'
        'ip-10-1-2-3:41022:41191 [3] NCCL INFO transport/net.cc:1298 -> 6\n'
        'ip-10-1-2-3:41022:41191 [3] NCCL INFO proxy.cc:700 -> 6\n'
        '[rank3]:[E1126 06:12:40.318200 ProcessGroupNCCL.cpp:1895] [PG ID 0 PG GUID 0(default_pg) Rank 3]'
        ' Process group watchdog thread terminated with exception: NCCL error: remote process exited or'
        ' there was a network error, NCCL version 2.21.5\n',
        {'network_error'}, None),
    "ompi_btl_tcp_readv_reset": (
        '[1,11]<stdout>:Epoch 3/10 - step 410 - loss 0.8821\n'
        '[node05][[58522,1],11][btl_tcp_frag.c:237:mca_btl_tcp_frag_recv] mca_btl_tcp_frag_recv: readv'
        ' failed: Connection reset by peer (104)\n'
        '[node05][[58522,1],10][btl_tcp_frag.c:237:mca_btl_tcp_frag_recv] mca_btl_tcp_frag_recv: readv'
        ' failed: Connection reset by peer (104)\n',
        {'dropped_rank', 'network_error'}, None),
    "ompi_oob_tcp_readv_reset": (
        '[1,0]<stderr>:2026-11-26 04:11:09.100: step 900 loss 1.2011\n'
        '[node7106:06503] [[51922,0],0]-[[51922,1],0] mca_oob_tcp_msg_recv: readv failed: Connection reset'
        ' by peer (104)\n',
        {'dropped_rank', 'network_error'}, None),
    "ompi_pml_ucx_resolve_endpoint": (
        '[1764150001.118] [gpu1:1581048:0]     sock.c:334  UCX  ERROR   connect(fd=87,'
        ' dest_addr=172.17.0.1:47133) failed: Connection refused\n'
        '[gpu1:1581048] pml_ucx.c:419 Error: ucp_ep_create(proc=9) failed: Destination is unreachable\n'
        '[gpu1:1581048] pml_ucx.c:472 Error: Failed to resolve UCX endpoint for rank 9\n'
        '[gpu1:1581048] *** An error occurred in MPI_Allgather\n'
        '[gpu1:1581048] *** reported by process [1012334593,1]\n'
        '[gpu1:1581048] *** on communicator MPI_COMM_WORLD\n'
        '[gpu1:1581048] *** MPI_ERR_OTHER: known error not in list\n',
        {'network_error', 'nic_misselection'}, None),
    "ray_node_marked_dead": (
        '(RayTrainWorker pid=20811, ip=10.130.0.113) [rank4] step 1400 loss 1.9921\n'
        '2026-11-26 05:15:30,774 WARNING worker.py:1866 -- The node with node id:'
        ' 9426f44574cce4866be798cfed308f2d3e21ba69487d422872cdd6e3 and address: 10.130.0.113 and node name:'
        ' 10.130.0.113 has been marked dead because the detector has missed too many heartbeats from it.'
        ' This can happen when a \t(1) raylet crashes unexpectedly (OOM, preempted node, etc.) \n'
        '\t(2) raylet has lagging heartbeats due to slow network or busy workload.\n',
        {'dropped_rank', 'network_error'}, None),
    "sglang_scheduler_exception_oom": (
        '[2026-11-26 13:01:22 TP1] Load weight end. type=Qwen2ForCausalLM, dtype=torch.bfloat16, avail'
        ' mem=12.31 GB, mem usage=66.12 GB.\n'
        '[2026-11-26 13:01:24 TP1] Scheduler hit an exception: Traceback (most recent call last):\n'
        '  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 2412, in'
        ' run_scheduler_process\n'
        '    scheduler = Scheduler(server_args, port_args, gpu_id, tp_rank, pp_rank, dp_rank)\n'
        '  File "/sgl-workspace/sglang/python/sglang/srt/mem_cache/memory_pool.py", line 341, in'
        ' _create_buffers\n'
        '    torch.zeros((self.size + self.page_size, self.head_num, self.head_dim), dtype=self.store_dtype,'
        ' device=self.device)\n'
        'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 13.50 GiB. GPU 1 has a total capacity'
        ' of 79.19 GiB of which 12.01 GiB is free.\n'
        '\n'
        '[2026-11-26 13:01:24] Received sigquit from a child process. It usually means the child failed.\n',
        {'oom'}, None),
    "te_userbuffers_reduce_scatter_timeout": (
        '[UB] Timeout is set to 110 sec, 217800000000 cycles, freq: 1980000 kHz\n'
        '[userbuffers.cu:userbuffers_fp16_sum_inplace_gpu_rw:212] [2] Allreduce reduce-scatter: SM 0 [0]:'
        ' expecting 4217 got 4216\n'
        '[userbuffers.cu:userbuffers_fp16_sum_inplace_gpu_rw:212] [2] Allreduce reduce-scatter: SM 1 [0]:'
        ' expecting 4217 got 4216\n',
        {'timeout_unknown', 'stuck_rank'}, None),
    "ucx_ep_error_not_handled": (
        '[1764151212.836497] [gpu-node-07:162239:0]          ucp_ep.c:1508 UCX  ERROR ep 0x7f1eac0b5108:'
        " error 'Connection reset by remote peer' on rc_mlx5/mlx5_0:1 will not be handled since no error"
        ' callback is installed\n'
        '[gpu-node-07:162239:0:162239] Caught signal 6 (Aborted)\n',
        {'network_error', 'dropped_rank'}, None),
    "ucx_ibv_reg_mr_cannot_allocate": (
        '[1764151128.440695] [gpu-node-12:11838:0]          ib_md.c:325  UCX  ERROR'
        ' ibv_reg_mr(address=0xabcf12c0, length=26400, access=0xf) failed: Cannot allocate memory\n'
        '[1764151128.440768] [gpu-node-12:11838:0]         ucp_mm.c:137  UCX  ERROR failed to register'
        ' address 0xabcf12c0 mem_type bit 0x1 length 26400 on md[4]=mlx5_0: Input/output error (md'
        ' reg_mem_types 0x15)\n'
        '[1764151128.440775] [gpu-node-12:11838:0]     ucp_request.c:356  UCX  ERROR failed to register user'
        ' buffer datatype 0x8 address 0xabcf12c0 len 26400: Input/output error\n',
        {'network_error', 'unclassified_failure'}, None),
    "vllm_custom_allreduce_disabled_healthy": (
        '(VllmWorker rank=1 pid=1410768) INFO 11-26 07:54:18 [pynccl.py:69] vLLM is using nccl==2.26.2\n'
        '(VllmWorker rank=1 pid=1410768) WARNING 11-26 07:54:19 [custom_all_reduce.py:136] Custom allreduce'
        " is disabled because it's not supported on more than two PCIe-only GPUs. To silence this warning,"
        ' specify disable_custom_all_reduce=True explicitly.\n'
        '(VllmWorker rank=0 pid=1410767) WARNING 11-26 07:54:19 [custom_all_reduce.py:136] Custom allreduce'
        " is disabled because it's not supported on more than two PCIe-only GPUs. To silence this warning,"
        ' specify disable_custom_all_reduce=True explicitly.\n'
        'INFO 11-26 07:55:02 [api_server.py:1351] Starting vLLM API server 0 on http://0.0.0.0:8000\n'
        'INFO 11-26 07:55:40 [loggers.py:116] Engine 000: Avg prompt throughput: 512.3 tokens/s, Avg'
        ' generation throughput: 220.1 tokens/s, Running: 3 reqs\n',
        {'none', 'inconclusive'}, None),
    "vllm_pynccl_unhandled_system_error": (
        '(VllmWorker rank=1 pid=2730) ERROR 11-26 08:11:02 [multiproc_executor.py:546]   File'
        ' "/usr/local/lib/python3.12/dist-packages/vllm/distributed/device_communicators/pynccl.py", line'
        ' 99, in __init__\n'
        '(VllmWorker rank=1 pid=2730) ERROR 11-26 08:11:02 [multiproc_executor.py:546]     self.comm:'
        ' ncclComm_t = self.nccl.ncclCommInitRank(\n'
        '(VllmWorker rank=1 pid=2730) ERROR 11-26 08:11:02 [multiproc_executor.py:546]   File'
        ' "/usr/local/lib/python3.12/dist-packages/vllm/distributed/device_communicators/pynccl_wrapper.py",'
        ' line 277, in ncclCommInitRank\n'
        '(VllmWorker rank=1 pid=2730) ERROR 11-26 08:11:02 [multiproc_executor.py:546]    '
        ' self.NCCL_CHECK(self._funcs["ncclCommInitRank"](ctypes.byref(comm),\n'
        '(VllmWorker rank=1 pid=2730) ERROR 11-26 08:11:02 [multiproc_executor.py:546]     raise'
        ' RuntimeError(f"NCCL error: {error_str}")\n'
        '(VllmWorker rank=1 pid=2730) ERROR 11-26 08:11:02 [multiproc_executor.py:546] RuntimeError: NCCL'
        ' error: unhandled system error (run with NCCL_DEBUG=INFO for details)\n',
        {'unclassified_failure', 'network_error'}, None),
    "vllm_ray_v2_worker_died": (
        'INFO 11-26 12:10:11 [ray_executor_v2.py:301] Started 4 RayWorkerProc actors\n'
        'INFO 11-26 12:12:40 [loggers.py:116] Engine 000: Avg prompt throughput: 120.0 tokens/s, Running: 4'
        ' reqs\n'
        'ERROR 11-26 12:13:02 [ray_executor_v2.py:464] RayWorkerProc rank=[3] died unexpectedly, shutting'
        ' down executor.\n'
        'vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue. See stack trace (above)'
        ' for the root cause.\n',
        {'dropped_rank'}, [3]),
    "vllm_worker_failed_cuda_oom": (
        '(EngineCore_DP0 pid=4956) ERROR 11-26 11:56:52 [core.py:708] EngineCore failed to start.\n'
        '(EngineCore_DP0 pid=4956) ERROR 11-26 11:56:52 [core.py:708]   File'
        ' "/usr/local/lib/python3.12/dist-packages/vllm/v1/executor/multiproc_executor.py", line 243, in'
        ' collective_rpc\n'
        '(EngineCore_DP0 pid=4956) ERROR 11-26 11:56:52 [core.py:708]     raise RuntimeError(\n'
        '(EngineCore_DP0 pid=4956) ERROR 11-26 11:56:52 [core.py:708] RuntimeError: Worker failed with error'
        " 'CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.10 GiB of which"
        " 1.12 GiB is free. Including non-PyTorch memory, this process has 77.97 GiB memory in use.', please"
        ' check the stack trace above for the root cause\n'
        '(APIServer pid=4801) RuntimeError: Engine core initialization failed. See root cause above. Failed'
        ' core proc(s): {}\n',
        {'oom'}, None),
    "vllm_worker_proc_died": (
        '(VllmWorker rank=0 pid=55723) INFO 11-26 16:54:01 [gpu_model_runner.py:1595] Model loading took'
        ' 31.0 GiB and 12.1 seconds\n'
        'INFO 11-26 16:54:30 [loggers.py:116] Engine 000: Avg prompt throughput: 812.4 tokens/s, Avg'
        ' generation throughput: 301.7 tokens/s, Running: 12 reqs\n'
        'ERROR 11-26 16:54:45 [multiproc_executor.py:123] Worker proc VllmWorker-1 died unexpectedly,'
        ' shutting down executor.\n'
        'Process EngineCore_0:\n'
        'Traceback (most recent call last):\n'
        '  File "/usr/lib/python3.10/multiprocessing/process.py", line 314, in _bootstrap\n'
        '    self.run()\n'
        'vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue. See stack trace (above)'
        ' for the root cause.\n',
        {'dropped_rank'}, None),
    "sharp_coll_init_error_fallback": (
        "gpu36:20775:20825 [0] sharp_plugin.c:365 NCCL WARN NET/IB : SHARP coll init error: Cannot create SHARP "
        "job(-11)\n"
        "gpu36:20775:20807 [0] NCCL INFO transport.cc:356 -> 2\n"
        "gpu36:20775:20807 [0] transport.cc:384 NCCL WARN Cannot initialize CollNet, using point-to-point network "
        "instead\n"
        "gpu36:20775:20807 [0] NCCL INFO comm 0x55d1c0 rank 0 nranks 16 cudaDev 0 nvmlDev 0 busId 18000 commId "
        "0x7a1b4c2d - Init COMPLETE",
        {"none", "inconclusive"}, None),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_source_mined_message_verdict(name, tmp_path):
    check_case(tmp_path, CASES[name])


def test_a_launch_failure_after_the_kernels_own_timeout_is_its_consequence(tmp_path):
    verdict = console_verdict(tmp_path, "DeepEP timeout for combine senders, rank 2, responsible_channel = 1\n"
                                        "[rank2]: RuntimeError: CUDA error: unspecified launch failure")
    assert verdict.cls == "timeout_unknown", verdict.summary


def test_a_launch_failure_of_another_rank_stays_its_own_crash(tmp_path):
    verdict = console_verdict(tmp_path, "DeepEP timeout for combine senders, rank 2, responsible_channel = 1\n"
                                        "[rank6]: RuntimeError: CUDA error: unspecified launch failure")
    assert verdict.cls == "dropped_rank" and verdict.culprit_ranks == [6], verdict.summary


def test_a_numerics_check_on_one_rank_is_no_death_of_that_rank(tmp_path):
    verdict = console_verdict(tmp_path, "[rank4]: Traceback (most recent call last):\n"
                                        "[rank4]:   File \"train.py\", line 9, in <module>\n"
                                        "[rank4]: RuntimeError: Current loss scale already at minimum - cannot "
                                        "decrease scale anymore. Exiting run.")
    assert verdict.cls == "unclassified_failure", verdict.summary


def test_a_straggler_report_names_every_rank_it_lists(tmp_path):
    verdict = console_verdict(tmp_path, "STRAGGLER DETECTION WARNING: Some GPUs performance dropped. Affected ranks: "
                                        "{3, 11}")
    assert verdict.cls == "straggler" and verdict.culprit_ranks == [3, 11], verdict.summary


def test_an_error_trace_no_fallback_follows_stays_a_failure(tmp_path):
    verdict = console_verdict(tmp_path, "gpu36:20775:20807 [0] NCCL INFO transport.cc:356 -> 2\n"
                                        "gpu36:20775:20807 [0] NCCL INFO init.cc:1477 -> 2")
    assert verdict.cls == "unclassified_failure", verdict.summary
