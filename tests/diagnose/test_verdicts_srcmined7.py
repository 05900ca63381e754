"""Verdicts on messages mined from c10d's pieces beside ProcessGroupNCCL in catalogue round srcmined7: FileStore,
ProcessGroupMPI and ProcessGroupUCC, monitoredBarrier's out-of-time form, DDP/Join's uneven inputs, TensorPipe RPC,
symmetric memory (CUDA and NVSHMEM backends) and gloo's unbound buffers; each as the lines of a pasted console.
"""
from __future__ import annotations

import pytest

from .consoles import check_case

CASES: dict[str, tuple[str, set[str], list[int] | None]] = {
    "ddp_join_detected_only": (
        '[rank3]:[W reducer.cpp:1400] Warning: find_unused_parameters=True was specified in DDP constructor\n'
        '[rank3]: Traceback (most recent call last):\n'
        '[rank3]:   File "/workspace/train.py", line 150, in <module>\n'
        '[rank3]:     loss = model(batch).sum()\n'
        '[rank3]: RuntimeError: Detected at least one rank that exhausted inputs. Throwing across all ranks.',
        {'unclassified_failure', 'collective_skipped'}, None),
    "ddp_join_exhausted_rank0": (
        '[rank1]: Traceback (most recent call last):\n'
        '[rank1]:   File "/workspace/train.py", line 150, in <module>\n'
        '[rank1]:     loss = model(batch).sum()\n'
        '[rank1]:   File "/usr/local/lib/python3.10/dist-packages/torch/nn/parallel/distributed.py", line 1632, in forward\n'
        '[rank1]:     inputs, kwargs = self._pre_forward(*inputs, **kwargs)\n'
        '[rank1]: RuntimeError: Detected at least one rank that exhausted inputs. Throwing across all ranks.\n'
        '[rank0]: Traceback (most recent call last):\n'
        '[rank0]:   File "/usr/local/lib/python3.10/dist-packages/torch/distributed/algorithms/join.py", line 274, in __exit__\n'
        '[rank0]:     join_hook.main_hook()\n'
        '[rank0]: RuntimeError: Rank 0 exhausted all inputs.',
        {'unclassified_failure', 'collective_skipped'}, None),
    "filestore_flock_nfs": (
        '[rank0]: Traceback (most recent call last):\n'
        '[rank0]:   File "/home/user/proj/train.py", line 58, in <module>\n'
        '[rank0]:     dist.init_process_group(backend="gloo", init_method="file:///lustre/scratch/user/sharedfile", world_size=8, rank=rank)\n'
        '[rank0]:   File "/usr/lib/python3/dist-packages/torch/distributed/distributed_c10d.py", line 1305, in init_process_group\n'
        '[rank0]:     store, rank, world_size = next(rendezvous_iterator)\n'
        '[rank0]:   File "/usr/lib/python3/dist-packages/torch/distributed/rendezvous.py", line 139, in _file_rendezvous_handler\n'
        '[rank0]:     store = FileStore(path, world_size)\n'
        '[rank0]: RuntimeError: flock: Function not implemented',
        {'unclassified_failure'}, None),
    "filestore_get_timeout": (
        '[rank1]: Traceback (most recent call last):\n'
        '[rank1]:   File "/workspace/train.py", line 41, in <module>\n'
        '[rank1]:     dist.init_process_group("nccl", init_method="file:///mnt/shared/ddp_init", rank=rank, world_size=4)\n'
        '[rank1]:   File "/opt/conda/lib/python3.10/site-packages/torch/distributed/c10d_logger.py", line 79, in wrapper\n'
        '[rank1]:     return func(*args, **kwargs)\n'
        '[rank1]:   File "/opt/conda/lib/python3.10/site-packages/torch/distributed/distributed_c10d.py", line 1520, in init_process_group\n'
        '[rank1]:     _store_based_barrier(rank, store, group_name, world_size, timeout)\n'
        '[rank1]:     value = store.get(key)\n'
        '[rank1]: RuntimeError: Timeout waiting for key: /default_pg/0//cuda//0 after 1800000 ms',
        {'timeout_unknown', 'stuck_rank'}, None),
    "gloo_unbound_send_timeout": (
        '[rank1]: Traceback (most recent call last):\n'
        '[rank1]:   File "/workspace/pp.py", line 77, in <module>\n'
        '[rank1]:     dist.send(t, dst=2)\n'
        '[rank1]: RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:136] Timed out waiting 1800000ms for send operation to complete',
        {'timeout_unknown', 'stuck_rank'}, None),
    "monitored_barrier_none_processed": (
        '[rank0]: RuntimeError: Rank 0 timed out in monitoredBarrier after 1800000 ms. No ranks successfully processed in monitoredBarrier.',
        {'timeout_unknown', 'stuck_rank'}, None),
    "monitored_barrier_rank0_prefix": (
        '[E ProcessGroupGloo.cpp:138] [Rank 0]: Rank 3 failed to pass monitoredBarrier in 30000 ms\n'
        '[rank0]: RuntimeError: [Rank 0]: Rank 3 failed to pass monitoredBarrier in 30000 ms\n'
        '[rank0]:  Original exception: \n'
        '[rank0]: [../third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:81] Timed out waiting 30000ms for recv operation to complete',
        {'dropped_rank', 'stuck_rank'}, [3]),
    "monitored_barrier_timed_out_processed": (
        '[rank0]: Traceback (most recent call last):\n'
        '[rank0]:   File "/workspace/train.py", line 201, in <module>\n'
        '[rank0]:     dist.monitored_barrier(group=gloo_group, timeout=timedelta(seconds=60))\n'
        '[rank0]:   File "/usr/local/lib/python3.10/dist-packages/torch/distributed/distributed_c10d.py", line 4399, in monitored_barrier\n'
        '[rank0]:     return group_to_use.monitored_barrier(timeout, wait_all_ranks=wait_all_ranks)\n'
        '[rank0]: RuntimeError: Rank 0 timed out in monitoredBarrier after 60000 ms. Successfully processed ranks: 1, 2',
        {'timeout_unknown', 'stuck_rank'}, None),
    "mpi_err_truncate": (
        '+ mpirun -np 4 --bind-to none python train_mpi.py\n'
        '[1,0]<stdout>:step 120 loss 2.31\n'
        '[1,2]<stderr>:Traceback (most recent call last):\n'
        '[1,2]<stderr>:  File "train_mpi.py", line 77, in <module>\n'
        '[1,2]<stderr>:    req.wait()\n'
        '[1,2]<stderr>:RuntimeError: MPI_ERR_TRUNCATE: message truncated\n'
        '--------------------------------------------------------------------------\n'
        'Primary job  terminated normally, but 1 process returned\n'
        'a non-zero exit code. Per user-direction, the job has been aborted.\n'
        '--------------------------------------------------------------------------',
        {'shape_mismatch', 'unclassified_failure'}, None),
    "mpi_error_code": (
        '[1,3]<stderr>:Traceback (most recent call last):\n'
        '[1,3]<stderr>:  File "main.py", line 112, in <module>\n'
        '[1,3]<stderr>:    dist.new_group(ranks=[0, 1])\n'
        '[1,3]<stderr>:RuntimeError: MPI error in: /opt/pytorch/pytorch/torch/csrc/distributed/c10d/ProcessGroupMPI.cpp:276, with error code: 1',
        {'unclassified_failure'}, None),
    "mpi_not_cuda_aware": (
        '[1,0]<stderr>:Traceback (most recent call last):\n'
        '[1,0]<stderr>:  File "bench_allreduce.py", line 30, in <module>\n'
        '[1,0]<stderr>:    dist.all_reduce(t)\n'
        '[1,0]<stderr>:  File "/opt/pytorch/torch/distributed/distributed_c10d.py", line 2050, in all_reduce\n'
        '[1,0]<stderr>:    work = default_pg.allreduce([tensor], opts)\n'
        "[1,0]<stderr>:RuntimeError: CUDA tensor detected and the MPI used doesn't have CUDA-aware MPI support\n"
        "[1,1]<stderr>:RuntimeError: CUDA tensor detected and the MPI used doesn't have CUDA-aware MPI support",
        {'unclassified_failure'}, None),
    "mpi_thread_level": (
        '[1,0]<stderr>:Traceback (most recent call last):\n'
        '[1,0]<stderr>:  File "run.py", line 9, in <module>\n'
        '[1,0]<stderr>:    dist.init_process_group(backend="mpi")\n'
        "[1,0]<stderr>:RuntimeError: Used MPI implementation doesn't have the minimum level of threading support: MPI_THREAD_SERIALIZED. This is required by c10d package",
        {'unclassified_failure'}, None),
    "nvshmem_get_buffer_size": (
        '[rank2]: Traceback (most recent call last):\n'
        '[rank2]:   File "/workspace/moe_a2a.py", line 71, in <module>\n'
        '[rank2]:     out = hdl.get_buffer(peer, (8192, 7168), torch.bfloat16)\n'
        '[rank2]: RuntimeError: NVSHMEMSymmetricMemory::get_buffer: the requested size (117440512 bytes) exceeds the allocated size (67108864 bytes)',
        {'unclassified_failure'}, None),
    "nvshmem_init_attr_failed": (
        '[rank6]: Traceback (most recent call last):\n'
        '[rank6]:   File "/workspace/moe_a2a.py", line 52, in <module>\n'
        '[rank6]:     buf = symm_mem.empty(n, dtype=torch.bfloat16, device=dev)\n'
        '[rank6]: RuntimeError: /pytorch/torch/csrc/distributed/c10d/symm_mem/NVSHMEMSymmetricMemory.cu:286 nvshmemx_init_attr failed. Error code: 7',
        {'network_error', 'unclassified_failure'}, None),
    "rpc_shutdown_proceed": (
        "[E api.py:301] Failed to respond to 'Shutdown Proceed' in time, got error RPC ran for more than set timeout (5000 ms) and will now be marked with an error\n"
        'Traceback (most recent call last):\n'
        '  File "rpc_train.py", line 140, in <module>\n'
        '    rpc.shutdown()\n'
        'RuntimeError: RPC ran for more than set timeout (5000 ms) and will now be marked with an error',
        {'timeout_unknown', 'stuck_rank'}, None),
    "symm_mem_clique_mismatch": (
        '[rank5]: Traceback (most recent call last):\n'
        '[rank5]:   File "/workspace/bench_symm.py", line 44, in <module>\n'
        '[rank5]:     hdl = symm_mem.rendezvous(buf, group=dist.group.WORLD)\n'
        '[rank5]: RuntimeError: CUDASymmetricMemory::rendezvous: ranks have mismatched NVLink clique_ids. All ranks using fabric handles must be in the same NVLink domain. Per-rank info: rank 0: clique_id=1, rank 1: clique_id=1, rank 4: clique_id=2, rank 5: clique_id=2',
        {'unclassified_failure'}, None),
    "symm_mem_group_name": (
        '[rank0]: Traceback (most recent call last):\n'
        '[rank0]:   File "/workspace/test_symm.py", line 21, in <module>\n'
        '[rank0]:     symm_mem.rendezvous(t)\n'
        '[rank0]:   File "/usr/local/lib/python3.12/dist-packages/torch/distributed/_symmetric_memory/__init__.py", line 1701, in rendezvous\n'
        '[rank0]:     return _SymmetricMemory.rendezvous(tensor, group_name)\n'
        '[rank0]: RuntimeError: CUDASymmetricMemory::rendezvous: `group_name` is neither specified during allocation nor passed to rendezvous().',
        {'unclassified_failure'}, None),
    "tensorpipe_eof_reading": (
        '[rank2]:epoch 3 batch 410\n'
        '[W tensorpipe_agent.cpp:726] RPC agent for trainer2 encountered error when reading incoming request from ps0: EOF: end of file (this error originated at tensorpipe/transport/uv/connection_impl.cc:132)\n'
        '[W tensorpipe_agent.cpp:940] RPC agent for trainer2 encountered error when reading incoming response from ps0: EOF: end of file (this error originated at tensorpipe/transport/uv/connection_impl.cc:132)\n'
        '[rank2]: RuntimeError: EOF: end of file (this error originated at tensorpipe/transport/uv/connection_impl.cc:132)',
        {'dropped_rank', 'network_error'}, None),
    "tensorpipe_pipe_closed": (
        '[W tensorpipe_agent.cpp:940] RPC agent for worker0 encountered error when reading incoming response from worker3: pipe closed (this error originated at tensorpipe/core/pipe_impl.cc:356)\n'
        'Traceback (most recent call last):\n'
        '  File "rpc_main.py", line 64, in run_master\n'
        '    fut.wait()\n'
        'RuntimeError: pipe closed (this error originated at tensorpipe/core/pipe_impl.cc:356)',
        {'dropped_rank', 'network_error'}, None),
    "ucc_post_failed": (
        'I1126 10:02:11.118210 2231 ProcessGroupUCC.cpp:607] [Rank 3][ProcessGroupUCC-0][INIT][INFO] Created ProcessGroupUCC with 8 ranks, with timeout 1800 secs\n'
        '[rank3]: Traceback (most recent call last):\n'
        '[rank3]:   File "/workspace/train.py", line 88, in <module>\n'
        '[rank3]:     dist.all_reduce(grad)\n'
        '[rank3]: RuntimeError: [/opt/pytorch/torch/csrc/distributed/c10d/ProcessGroupUCC.cpp:475] [Rank 3][ProcessGroupUCC-0][COLL_POST]failed to post collective, error code -1: Operation is not supported, system error code 0',
        {'unclassified_failure'}, None),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_source_mined_message_verdict(name, tmp_path):
    check_case(tmp_path, CASES[name])
