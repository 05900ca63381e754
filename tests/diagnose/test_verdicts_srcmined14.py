"""Verdicts on the newest torch.distributed APIs' words (PyTorch 2.1 - 2.9), mined from their sources in catalogue round
srcmined14, each as the lines of a console written around the message:

- DeviceMesh: init_device_mesh's argument checks (dim names of another length, a repeated name - `uqique` in 2.2 -, a
  device type with an index), a submesh sliced from a submesh (2.4 - 2.6), 2.1 - 2.4's check that every rank passed
  the same mesh, a mesh bigger than the world;
- DTensor: a plain tensor among DTensor arguments, an operator with no sharding strategy, placements of another length;
- FSDP2's parameters left on the meta device; FSDP1's FlatParamHandle refusing mixed or integer dtypes, and its
  forward-order check across ranks;
- pipelining: a schedule given another number of microbatches; a stage's input of another shape or dtype;
- DCP: a checkpoint without a key the state dict asks for or with another size (re-raised on every rank as a
  CheckpointException), a rank whose write failed, and its single-process UserWarning on a run that finished;
- the autograd-fallback warning of c10d and functional collectives on runs that finished;
- torch.distributed.elastic.timer: the timer server reaping a worker whose `expires()` block overran (that rank was
  stuck; its SIGKILL is the timer's), and its start/stop lines on a healthy run;
- symmetric memory's NVLink clique check; fully_shard given a 3D mesh; DCP's save planner refusing the ranks' plans
  (raised by the coordinator only); ProcessGroupNCCL's `Guessing device ID based on global rank` (benign).
"""
from __future__ import annotations

import pytest

from nccl_forensics.sources import catalogue

from .consoles import (
    NO_TRACEBACK,
    check_case,
    checkpoint_exception,
    console_verdict,
    failure_table,
    per_rank,
    torchrun_traceback,
)

_DCP = "/opt/conda/lib/python3.11/site-packages/torch/distributed/checkpoint"
# dcp.load's traceback on each rank, down to the coordinator's re-raise of the ranks' planning failures
_DCP_LOAD = ('Traceback (most recent call last):\n  File "/ckpt/resume.py", line 71, in <module>\n'
             '    dcp.load(state, checkpoint_id=args.ckpt)\n'
             f'  File "{_DCP}/logger.py", line 87, in wrapper\n    result = func(*args, **kwargs)\n'
             f'  File "{_DCP}/state_dict_loader.py", line 175, in load\n    _load_state_dict(\n'
             f'  File "{_DCP}/state_dict_loader.py", line 234, in _load_state_dict\n'
             '    central_plan: LoadPlan = distW.reduce_scatter("plan", local_step, global_step)\n'
             f'  File "{_DCP}/utils.py", line 219, in reduce_scatter\n    raise result\n')


def _planner_failure(line: int, raised: str, error: str) -> str:
    """One rank's failure in DCP's load planner (default_planner.create_default_local_load_plan at `line`)."""
    return (f'  File "{_DCP}/utils.py", line 192, in reduce_scatter\n    local_data = map_fun()\n'
            f'  File "{_DCP}/logger.py", line 87, in wrapper\n    result = func(*args, **kwargs)\n'
            f'  File "{_DCP}/state_dict_loader.py", line 223, in local_step\n    local_plan = planner.create_local_plan()\n'
            f'  File "{_DCP}/default_planner.py", line 321, in create_local_plan\n'
            '    return create_default_local_load_plan(\n'
            f'  File "{_DCP}/default_planner.py", line {line}, in create_default_local_load_plan\n    {raised}\n{error}\n')


def _missing_key(error: str) -> str:
    return _planner_failure(428, 'raise RuntimeError(f"Missing key in checkpoint state_dict: {fqn}.")', error)


# name -> (console lines, accepted classes, culprit ranks or None)
CASES: dict[str, tuple[str, set[str], list[int] | None]] = {
    'c10d_src_autograd_kernel_warning_healthy': (
        "{'loss': 1.8211, 'grad_norm': 3.02, 'learning_rate': 2e-05, 'epoch': 0.01}\n"
        '[rank1]:/usr/local/lib/python3.10/dist-packages/torch/autograd/graph.py:825: UserWarning: c10d::allreduce_: an autograd kernel was not registered to the Autograd key(s) but we are trying to backprop through it. This may lead to silently incorrect behavior. This behavior is deprecated and will be removed in a future version of PyTorch. If your operator is differentiable, please ensure you have registered an autograd kernel to the correct Autograd key (e.g. DispatchKey::Autograd, DispatchKey::CompositeImplicitAutograd). If your operator is not differentiable, or to squash this warning and use the previous behavior, please register torch::CppFunction::makeFallthrough() to DispatchKey::Autograd. (Triggered internally at /pytorch/torch/csrc/autograd/autograd_not_implemented_fallback.cpp:63.)\n'
        '[rank1]:  return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass\n'
        '[rank0]:/usr/local/lib/python3.10/dist-packages/torch/autograd/graph.py:825: UserWarning: c10d::allreduce_: an autograd kernel was not registered to the Autograd key(s) but we are trying to backprop through it. This may lead to silently incorrect behavior. This behavior is deprecated and will be removed in a future version of PyTorch. If your operator is differentiable, please ensure you have registered an autograd kernel to the correct Autograd key (e.g. DispatchKey::Autograd, DispatchKey::CompositeImplicitAutograd). If your operator is not differentiable, or to squash this warning and use the previous behavior, please register torch::CppFunction::makeFallthrough() to DispatchKey::Autograd. (Triggered internally at /pytorch/torch/csrc/autograd/autograd_not_implemented_fallback.cpp:63.)\n'
        '[rank0]:  return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass\n'
        "{'loss': 1.2077, 'grad_norm': 1.11, 'learning_rate': 1.9e-05, 'epoch': 0.5}\n"
        "{'train_runtime': 1822.5, 'train_samples_per_second': 35.1, 'train_steps_per_second': 0.55, 'train_loss': 1.31, 'epoch': 1.0}\n"
        '100%|██████████| 1000/1000 [30:22<00:00,  1.82s/it]\n'
        'Saving model checkpoint to ./out',
        {'none', 'inconclusive'}, None),
    'dcp_src_missing_key_all_ranks': (
        'Loading checkpoint from /ckpt/step-2000\n'
        + per_rank(
            _DCP_LOAD + checkpoint_exception(_missing_key('RuntimeError: Missing key in checkpoint state_dict: optimizer.state.tok_embeddings.weight.exp_avg.'), [0, 1, 2, 3]), [0, 1])
        + torchrun_traceback()
        + failure_table('resume.py', '2025-06-11_09:14:52', 'trn-4', 0, 0, 1, 50112, NO_TRACEBACK),
        {'unclassified_failure'}, None),
    'dcp_src_missing_key_one_rank': (
        per_rank(
            _DCP_LOAD + checkpoint_exception(_missing_key('RuntimeError: Missing key in checkpoint state_dict: model.layers.31.mlp.w3.weight.'), [3]), [0, 1])
        + torchrun_traceback()
        + failure_table('resume.py', '2025-06-11_09:14:52', 'trn-9', 0, 0, 1, 3301, NO_TRACEBACK),
        {'unclassified_failure'}, None),
    'dcp_src_one_rank_disk_full': (
        'step 5000 | loss 1.932 | saving checkpoint to /local/ckpt/step-5000\n'
        + per_rank(
            'Traceback (most recent call last):\n'
            '  File "/job/train.py", line 310, in save\n'
            '    dcp.save(state, checkpoint_id=path)\n'
            '  File "/opt/conda/lib/python3.11/site-packages/torch/distributed/checkpoint/state_dict_saver.py", line 156, in save\n'
            '    return _save_state_dict(\n'
            '  File "/opt/conda/lib/python3.11/site-packages/torch/distributed/checkpoint/state_dict_saver.py", line 337, in _save_state_dict\n'
            '    return distW.all_reduce("write", write_data, finish_checkpoint)\n'
            '  File "/opt/conda/lib/python3.11/site-packages/torch/distributed/checkpoint/utils.py", line 309, in all_reduce\n'
            '    raise CheckpointException(step, node_failures)\n'
            + checkpoint_exception(
                '  File "/opt/conda/lib/python3.11/site-packages/torch/distributed/checkpoint/utils.py", line 290, in all_reduce\n'
                '    local_data = map_fun()\n'
                '  File "/opt/conda/lib/python3.11/site-packages/torch/distributed/checkpoint/state_dict_saver.py", line 309, in write_data\n'
                '    all_writes.wait()\n'
                '  File "/opt/conda/lib/python3.11/site-packages/torch/futures/__init__.py", line 232, in wait\n'
                '    return super().wait()\n'
                '  File "/opt/conda/lib/python3.11/site-packages/torch/distributed/checkpoint/filesystem.py", line 189, in _write_files_from_queue\n'
                '    torch.save(tensor, stream)\n'
                '  File "/opt/conda/lib/python3.11/site-packages/torch/serialization.py", line 967, in save\n'
                '    _save(\n'
                'OSError: [Errno 28] No space left on device', [5]), [0, 3]),
        {'dropped_rank', 'unclassified_failure'}, [5]),
    'dcp_src_single_process_warning_healthy': (
        'Converting HF checkpoint to DCP...\n'
        '/usr/local/lib/python3.11/site-packages/torch/distributed/checkpoint/state_dict_loader.py:152: UserWarning: torch.distributed is disabled, unavailable or uninitialized, assuming the intent is to load in a single process.\n'
        '  return _load_state_dict(\n'
        '/usr/local/lib/python3.11/site-packages/torch/distributed/checkpoint/state_dict_saver.py:144: UserWarning: torch.distributed is disabled, unavailable or uninitialized, assuming the intent is to save in a single process.\n'
        '  warnings.warn(\n'
        'Saved 291 tensors to /out/llama-dcp\n'
        'Done in 41.2s',
        {'none', 'inconclusive'}, None),
    'dcp_src_size_mismatch': (
        per_rank(
            _DCP_LOAD + checkpoint_exception(
                _planner_failure(446, 'raise ValueError(', 'ValueError: Size mismatch between saved torch.Size([128256, 4096]) and current: '
                                 'torch.Size([128256, 2048]) for model.tok_embeddings.weight'), [0, 1]),
            [0, 1]),
        {'unclassified_failure'}, None),
    'devicemesh_src_bigger_than_world': (
        per_rank(
            'Traceback (most recent call last):\n'
            '  File "/x/train.py", line 12, in <module>\n'
            '    mesh = init_device_mesh("cuda", (2, 8))\n'
            '  File "/opt/conda/lib/python3.11/site-packages/torch/distributed/device_mesh.py", line 1041, in init_device_mesh\n'
            '    device_mesh = DeviceMesh(\n'
            '  File "/opt/conda/lib/python3.11/site-packages/torch/distributed/device_mesh.py", line 451, in __init__\n'
            '    self._setup_world_group_and_device()\n'
            '  File "/opt/conda/lib/python3.11/site-packages/torch/distributed/device_mesh.py", line 485, in _setup_world_group_and_device\n'
            '    raise RuntimeError(\n'
            'RuntimeError: Mesh should not be bigger than default world size 8, but found 16 ranks!\n', [0, 1])
        + torchrun_traceback()
        + failure_table('train.py', '2025-06-11_09:14:52', 'single-8gpu', 0, 0, 1, 2020, NO_TRACEBACK),
        {'unclassified_failure'}, None),
    'devicemesh_src_device_type_with_index': (
        '[rank0]: Traceback (most recent call last):\n'
        '[rank0]:   File "/w/main.py", line 20, in <module>\n'
        '[rank0]:     mesh = init_device_mesh(f"cuda:{local_rank}", (8,))\n'
        '[rank0]:   File "/opt/conda/lib/python3.11/site-packages/torch/distributed/device_mesh.py", line 1018, in init_device_mesh\n'
        '[rank0]:     raise RuntimeError(\n'
        '[rank0]: RuntimeError: (\'Device type with index is not supported but got cuda:0. \', "If you maintained a \'torch.device\' object, it\'s recommended to pass in \'device.type\'.")\n'
        '[rank1]: Traceback (most recent call last):\n'
        '[rank1]:   File "/w/main.py", line 20, in <module>\n'
        '[rank1]:     mesh = init_device_mesh(f"cuda:{local_rank}", (8,))\n'
        '[rank1]:   File "/opt/conda/lib/python3.11/site-packages/torch/distributed/device_mesh.py", line 1018, in init_device_mesh\n'
        '[rank1]:     raise RuntimeError(\n'
        '[rank1]: RuntimeError: (\'Device type with index is not supported but got cuda:1. \', "If you maintained a \'torch.device\' object, it\'s recommended to pass in \'device.type\'.")\n'
        + torchrun_traceback()
        + failure_table('main.py', '2025-06-11_09:14:52', 'n1', 0, 0, 1, 7777, NO_TRACEBACK),
        {'unclassified_failure'}, None),
    'devicemesh_src_different_mesh_across_ranks': (
        '[rank1]: Traceback (most recent call last):\n'
        '[rank1]:   File "/work/tp.py", line 60, in <module>\n'
        '[rank1]:     mesh = DeviceMesh("cuda", torch.arange(n).view(-1, 2) if rank else torch.arange(n))\n'
        '[rank1]:   File "/usr/lib/python3/dist-packages/torch/distributed/_tensor/device_mesh.py", line 172, in __init__\n'
        '[rank1]:     self._init_process_groups(_validate_mesh)\n'
        '[rank1]:   File "/usr/lib/python3/dist-packages/torch/distributed/_tensor/device_mesh.py", line 208, in _init_process_groups\n'
        '[rank1]:     self._validate_mesh()\n'
        '[rank1]:   File "/usr/lib/python3/dist-packages/torch/distributed/_tensor/device_mesh.py", line 196, in _validate_mesh\n'
        '[rank1]:     raise RuntimeError(\n'
        '[rank1]: RuntimeError: DeviceMesh initialization does not allow different mesh argument:rank 1 has mesh tensor([[0, 1],\n'
        "[rank1]:         [2, 3]], device='cuda:1', dtype=torch.int32) while rank 0has mesh tensor([[0, 1, 2, 3]], device='cuda:1', dtype=torch.int32)!\n"
        'Traceback (most recent call last):\n'
        '  File "/work/tp.py", line 60, in <module>\n'
        'RuntimeError: DeviceMesh initialization does not allow different mesh argument:rank 3 has mesh tensor([[0, 1],\n'
        '        [2, 3]]) while rank 0has mesh tensor([[0, 1, 2, 3]])!',
        {'unclassified_failure'}, None),
    'devicemesh_src_dim_name_not_unique': (
        per_rank(
            'Traceback (most recent call last):\n'
            '  File "/home/u/proj/launch.py", line 88, in <module>\n'
            '    setup()\n'
            '  File "/home/u/proj/launch.py", line 40, in setup\n'
            '    mesh = init_device_mesh("cuda", (2, 4), mesh_dim_names=("dp", "dp"))\n'
            '  File "/usr/local/lib/python3.10/dist-packages/torch/distributed/device_mesh.py", line 527, in init_device_mesh\n'
            '    raise RuntimeError(\n'
            'RuntimeError: (\'Each mesh_dim_name must be uqique.\', "Found repeated mesh_dim_name in mesh_dim_names (\'dp\', \'dp\')")\n', [0, 5])
        + '[2024-02-14 10:02:11,441] torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: 1) local_rank: 0 (pid: 91234) of binary: /usr/bin/python\n'
        + torchrun_traceback()
        + failure_table('launch.py', '2025-06-11_09:14:52', 'node-a', 0, 0, 1, 91234, NO_TRACEBACK),
        {'unclassified_failure'}, None),
    'devicemesh_src_dim_names_length': (
        per_rank(
            'Traceback (most recent call last):\n'
            '  File "/workspace/train.py", line 212, in <module>\n'
            '    main()\n'
            '  File "/workspace/train.py", line 141, in main\n'
            '    mesh = init_device_mesh("cuda", (world_size,), mesh_dim_names=("dp", "tp"))\n'
            '  File "/opt/conda/lib/python3.11/site-packages/torch/distributed/device_mesh.py", line 1012, in init_device_mesh\n'
            '    raise RuntimeError(\n'
            "RuntimeError: ('mesh_shape and mesh_dim_names should have same length!', 'Found len(mesh_dim_names): 2 and len(mesh_shape):1.')\n", [0, 1, 2, 3])
        + 'W0611 09:14:52.771000 2231 torch/distributed/elastic/multiprocessing/api.py:897] Sending process 2240 closing signal SIGTERM\n'
        'E0611 09:14:52.902000 2231 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) local_rank: 0 (pid: 2239) of binary: /opt/conda/bin/python\n'
        'Traceback (most recent call last):\n'
        '  File "/opt/conda/bin/torchrun", line 8, in <module>\n'
        '    sys.exit(main())\n'
        '  File "/opt/conda/lib/python3.11/site-packages/torch/distributed/elastic/multiprocessing/errors/__init__.py", line 355, in wrapper\n'
        '    return f(*args, **kwargs)\n'
        '  File "/opt/conda/lib/python3.11/site-packages/torch/distributed/launcher/api.py", line 263, in launch_agent\n'
        '    raise ChildFailedError(\n'
        'torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n'
        '============================================================\n'
        'train.py FAILED\n'
        '------------------------------------------------------------\n'
        'Failures:\n'
        '[1]:\n'
        '  time      : 2025-06-11_09:14:52\n'
        '  host      : gpu-node-07\n'
        '  rank      : 1 (local_rank: 1)\n'
        '  exitcode  : 1 (pid: 2240)\n'
        '  error_file: <N/A>\n'
        '  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html\n'
        '[2]:\n'
        '  time      : 2025-06-11_09:14:52\n'
        '  host      : gpu-node-07\n'
        '  rank      : 2 (local_rank: 2)\n'
        '  exitcode  : 1 (pid: 2241)\n'
        '  error_file: <N/A>\n'
        '  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html\n'
        '[3]:\n'
        '  time      : 2025-06-11_09:14:52\n'
        '  host      : gpu-node-07\n'
        '  rank      : 3 (local_rank: 3)\n'
        '  exitcode  : 1 (pid: 2242)\n'
        '  error_file: <N/A>\n'
        '  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html\n'
        '------------------------------------------------------------\n'
        'Root Cause (first observed failure):\n'
        '[0]:\n'
        '  time      : 2025-06-11_09:14:52\n'
        '  host      : gpu-node-07\n'
        '  rank      : 0 (local_rank: 0)\n'
        '  exitcode  : 1 (pid: 2239)\n'
        '  error_file: <N/A>\n'
        '  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html\n'
        '============================================================',
        {'unclassified_failure'}, None),
    'devicemesh_src_submesh_of_submesh': (
        'step 0: building model\n'
        + per_rank(
            'Traceback (most recent call last):\n'
            '  File "/app/titan/train.py", line 301, in main\n'
            '    model = parallelize(model, world_mesh["dp_shard_cp"])\n'
            '  File "/app/titan/parallelize.py", line 77, in parallelize\n'
            '    fully_shard(block, mesh=dp_mesh["dp_shard"])\n'
            '  File "/opt/conda/lib/python3.11/site-packages/torch/distributed/device_mesh.py", line 630, in __getitem__\n'
            '    submesh = _mesh_resources.create_sub_mesh(self, mesh_dim_names, slice_mesh_dims)\n'
            '  File "/opt/conda/lib/python3.11/site-packages/torch/distributed/device_mesh.py", line 196, in _get_slice_mesh_dims\n'
            '    raise RuntimeError("Cannot create a submesh from a submesh.")\n'
            'RuntimeError: Cannot create a submesh from a submesh.', [0, 1]),
        {'unclassified_failure'}, None),
    'dtensor_src_mixed_tensor_dtensor': (
        '[INFO] Applied FSDP2 to the model\n'
        '[INFO] step 1 starting\n'
        + per_rank(
            'Traceback (most recent call last):\n'
            '  File "/code/sft.py", line 402, in train_step\n'
            '    loss = model(**batch).loss\n'
            '  File "/opt/venv/lib/python3.12/site-packages/torch/nn/modules/module.py", line 1773, in _wrapped_call_impl\n'
            '    return self._call_impl(*args, **kwargs)\n'
            '  File "/code/model.py", line 95, in forward\n'
            '    h = h + self.pos_emb\n'
            '  File "/opt/venv/lib/python3.12/site-packages/torch/_compile.py", line 53, in inner\n'
            '    return disable_fn(*args, **kwargs)\n'
            '  File "/opt/venv/lib/python3.12/site-packages/torch/distributed/tensor/_dispatch.py", line 160, in dispatch\n'
            '    op_info = self.unwrap_to_op_info(op_call, args, kwargs)\n'
            '  File "/opt/venv/lib/python3.12/site-packages/torch/distributed/tensor/_dispatch.py", line 401, in unwrap_to_op_info\n'
            '    raise RuntimeError(\n'
            'RuntimeError: aten.add.Tensor: got mixed torch.Tensor and DTensor, need to convert all torch.Tensor to DTensor before calling distributed operators!\n', [0, 1])
        + 'E0903 17:41:08.006000 5511 site-packages/torch/distributed/elastic/multiprocessing/api.py:874] failed (exitcode: 1) local_rank: 0 (pid: 5529) of binary: /opt/venv/bin/python3\n'
        'Traceback (most recent call last):\n'
        '  File "/opt/conda/bin/torchrun", line 8, in <module>\n'
        '    sys.exit(main())\n'
        '  File "/opt/conda/lib/python3.11/site-packages/torch/distributed/elastic/multiprocessing/errors/__init__.py", line 355, in wrapper\n'
        '    return f(*args, **kwargs)\n'
        '  File "/opt/conda/lib/python3.11/site-packages/torch/distributed/launcher/api.py", line 263, in launch_agent\n'
        '    raise ChildFailedError(\n'
        'torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n'
        '============================================================\n'
        'sft.py FAILED\n'
        '------------------------------------------------------------\n'
        'Failures:\n'
        '[1]:\n'
        '  time      : 2025-06-11_09:14:52\n'
        '  host      : h100-3\n'
        '  rank      : 1 (local_rank: 1)\n'
        '  exitcode  : 1 (pid: 5530)\n'
        '  error_file: <N/A>\n'
        '  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html\n'
        '------------------------------------------------------------\n'
        'Root Cause (first observed failure):\n'
        '[0]:\n'
        '  time      : 2025-06-11_09:14:52\n'
        '  host      : h100-3\n'
        '  rank      : 0 (local_rank: 0)\n'
        '  exitcode  : 1 (pid: 5529)\n'
        '  error_file: <N/A>\n'
        '  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html\n'
        '============================================================',
        {'unclassified_failure'}, None),
    'dtensor_src_no_sharding_strategy': (
        per_rank(
            'Traceback (most recent call last):\n'
            '  File "/src/run.py", line 55, in step\n'
            '    x = torch.roll(x, shifts=1, dims=1)\n'
            '  File "/usr/local/lib/python3.11/site-packages/torch/distributed/tensor/_api.py", line 344, in __torch_dispatch__\n'
            '    return DTensor._op_dispatcher.dispatch(\n'
            '  File "/usr/local/lib/python3.11/site-packages/torch/distributed/tensor/_dispatch.py", line 167, in dispatch\n'
            '    self.sharding_propagator.propagate(op_info)\n'
            '  File "/usr/local/lib/python3.11/site-packages/torch/distributed/tensor/_sharding_prop.py", line 493, in propagate_op_sharding_non_cached\n'
            '    raise NotImplementedError(\n'
            'NotImplementedError: Operator aten.roll.default does not have a sharding strategy registered.\n', [0, 1])
        + 'E0121 08:00:41.553000 140 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) local_rank: 0 (pid: 160) of binary: /usr/local/bin/python\n'
        + torchrun_traceback()
        + failure_table('run.py', '2025-06-11_09:14:52', 'worker-0', 0, 0, 1, 160, NO_TRACEBACK),
        {'unclassified_failure'}, None),
    'dtensor_src_placements_length': (
        per_rank(
            'Traceback (most recent call last):\n'
            '  File "/exp/tp_demo.py", line 31, in <module>\n'
            '    w = distribute_tensor(w, mesh, [Shard(0), Replicate()])\n'
            '  File "/usr/local/lib/python3.11/site-packages/torch/distributed/tensor/_api.py", line 790, in distribute_tensor\n'
            '    raise ValueError(\n'
            'ValueError: `placements` must have the same length as `device_mesh.ndim`! Found placements length: 2, and device_mesh.ndim: 1.\n', [0, 1])
        + torchrun_traceback()
        + failure_table('tp_demo.py', '2025-06-11_09:14:52', 'ws1', 0, 0, 1, 4410, NO_TRACEBACK),
        {'unclassified_failure'}, None),
    'elastic_src_timer_reaped_worker': (
        'INFO:torch.distributed.elastic.timer.local_timer:Starting LocalTimerServer... max_interval=1, daemon=True\n'
        'INFO:torch.distributed.elastic.timer.local_timer:Starting watchdog thread...\n'
        'INFO:torch.distributed.elastic.timer.api:Timer client configured to: LocalTimerClient\n'
        'step 120 loss 3.11\n'
        'step 121 loss 3.10\n'
        "INFO:torch.distributed.elastic.timer.api:Reaping worker_id=[48213]. Expired timers: ['train.py#212']\n"
        'INFO:torch.distributed.elastic.timer.api:Successfully reaped worker=[48213]\n'
        'W0811 03:12:40.118000 48190 torch/distributed/elastic/multiprocessing/api.py:897] Sending process 48211 closing signal SIGTERM\n'
        'W0811 03:12:40.119000 48190 torch/distributed/elastic/multiprocessing/api.py:897] Sending process 48212 closing signal SIGTERM\n'
        'W0811 03:12:40.119000 48190 torch/distributed/elastic/multiprocessing/api.py:897] Sending process 48214 closing signal SIGTERM\n'
        'E0811 03:12:40.512000 48190 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: -9) local_rank: 2 (pid: 48213) of binary: /usr/bin/python3\n'
        + torchrun_traceback()
        + failure_table('train.py', '2025-06-11_09:14:52', 'dgx-02', 2, 2, -9, 48213),
        {'stuck_rank', 'timeout_unknown'}, [2]),
    'elastic_src_timer_server_healthy': (
        'INFO:torch.distributed.elastic.timer.file_based_local_timer:Starting FileTimerServer... max_interval=3, daemon=True\n'
        'INFO:torch.distributed.elastic.timer.file_based_local_timer:Starting a watchdog thread...\n'
        'step 1/200 loss 4.01\n'
        'step 200/200 loss 1.72\n'
        'finished training\n'
        'INFO:torch.distributed.elastic.timer.file_based_local_timer:Stopping FileTimerServer',
        {'none', 'inconclusive'}, None),
    'fsdp1_src_forward_order_differs': (
        'step 0 loss 2.31\n'
        + per_rank(
            'Traceback (most recent call last):\n'
            '  File "/t/train.py", line 99, in step\n'
            '    out = model(x)\n'
            '  File "/opt/conda/lib/python3.11/site-packages/torch/distributed/fsdp/_runtime_utils.py", line 582, in _pre_forward_unshard\n'
            '    _unshard(state, handle, state._unshard_stream, state._pre_unshard_stream)\n'
            '  File "/opt/conda/lib/python3.11/site-packages/torch/distributed/fsdp/_exec_order_utils.py", line 233, in record_pre_forward\n'
            '    self._check_order(handle, is_training)\n'
            '  File "/opt/conda/lib/python3.11/site-packages/torch/distributed/fsdp/_exec_order_utils.py", line 281, in _check_order\n'
            '    raise RuntimeError(\n'
            'RuntimeError: Forward order differs across ranks: rank 0 is all-gathering 4 parameters while rank 2 is all-gathering 2 parameters', [0, 1]),
        {'shape_mismatch', 'collective_skipped', 'op_mismatch'}, None),
    'fsdp1_src_integer_dtype': (
        per_rank(
            'Traceback (most recent call last):\n'
            '  File "/repo/finetune.py", line 230, in main\n'
            '    model = FSDP(model, auto_wrap_policy=policy, device_id=torch.cuda.current_device())\n'
            '  File "/opt/conda/lib/python3.11/site-packages/torch/distributed/fsdp/fully_sharded_data_parallel.py", line 509, in __init__\n'
            '    _init_param_handle_from_module(\n'
            '  File "/opt/conda/lib/python3.11/site-packages/torch/distributed/fsdp/_init_utils.py", line 636, in _init_param_handle_from_module\n'
            '    _init_param_handle_from_params(state, managed_params, fully_sharded_module)\n'
            '  File "/opt/conda/lib/python3.11/site-packages/torch/distributed/fsdp/_init_utils.py", line 648, in _init_param_handle_from_params\n'
            '    handle = FlatParamHandle(\n'
            '  File "/opt/conda/lib/python3.11/site-packages/torch/distributed/fsdp/_flat_param.py", line 588, in __init__\n'
            '    self._init_flat_param_and_metadata(\n'
            '  File "/opt/conda/lib/python3.11/site-packages/torch/distributed/fsdp/_flat_param.py", line 638, in _init_flat_param_and_metadata\n'
            '    ) = self._validate_tensors_to_flatten(params)\n'
            '  File "/opt/conda/lib/python3.11/site-packages/torch/distributed/fsdp/_flat_param.py", line 770, in _validate_tensors_to_flatten\n'
            '    raise ValueError("Cannot flatten integer dtype tensors")\n'
            'ValueError: Cannot flatten integer dtype tensors\n', [0, 1])
        + torchrun_traceback()
        + failure_table('finetune.py', '2025-06-11_09:14:52', 'box2', 1, 1, 1, 7001, NO_TRACEBACK),
        {'unclassified_failure'}, None),
    'fsdp1_src_uniform_dtype': (
        'trainable params: 4,194,304 || all params: 6,742,609,920 || trainable%: 0.0622\n'
        + per_rank(
            'Traceback (most recent call last):\n'
            '  File "/repo/finetune.py", line 230, in main\n'
            '    model = FSDP(model, auto_wrap_policy=policy, device_id=torch.cuda.current_device())\n'
            '  File "/opt/conda/lib/python3.11/site-packages/torch/distributed/fsdp/fully_sharded_data_parallel.py", line 509, in __init__\n'
            '    _init_param_handle_from_module(\n'
            '  File "/opt/conda/lib/python3.11/site-packages/torch/distributed/fsdp/_init_utils.py", line 636, in _init_param_handle_from_module\n'
            '    _init_param_handle_from_params(state, managed_params, fully_sharded_module)\n'
            '  File "/opt/conda/lib/python3.11/site-packages/torch/distributed/fsdp/_init_utils.py", line 648, in _init_param_handle_from_params\n'
            '    handle = FlatParamHandle(\n'
            '  File "/opt/conda/lib/python3.11/site-packages/torch/distributed/fsdp/_flat_param.py", line 588, in __init__\n'
            '    self._init_flat_param_and_metadata(\n'
            '  File "/opt/conda/lib/python3.11/site-packages/torch/distributed/fsdp/_flat_param.py", line 638, in _init_flat_param_and_metadata\n'
            '    ) = self._validate_tensors_to_flatten(params)\n'
            '  File "/opt/conda/lib/python3.11/site-packages/torch/distributed/fsdp/_flat_param.py", line 774, in _validate_tensors_to_flatten\n'
            '    raise ValueError(\n'
            'ValueError: Must flatten tensors with uniform dtype but got torch.bfloat16 and torch.float32\n', [0, 1])
        + 'E0312 11:20:05.617000 140211 torch/distributed/elastic/multiprocessing/api.py:826] failed (exitcode: 1) local_rank: 0 (pid: 140277) of binary: /usr/bin/python3\n'
        + torchrun_traceback()
        + failure_table('finetune.py', '2025-06-11_09:14:52', 'a100-box', 0, 0, 1, 140277, NO_TRACEBACK),
        {'unclassified_failure'}, None),
    'fsdp2_src_meta_params': (
        '[titan] Model llama3 8B size: 8,030,261,248 total parameters\n'
        '[titan] Applied FSDP to the model\n'
        + per_rank(
            'Traceback (most recent call last):\n'
            '  File "/job/pretrain.py", line 188, in train\n'
            '    logits = model(tokens)\n'
            '  File "/opt/conda/lib/python3.11/site-packages/torch/nn/modules/module.py", line 1762, in _call_impl\n'
            '    result = forward_call(*args, **kwargs)\n'
            '  File "/opt/conda/lib/python3.11/site-packages/torch/distributed/fsdp/_fully_shard/_fsdp_state.py", line 62, in fsdp_hook_wrapper\n'
            '    return torch._dynamo.disable(\n'
            '  File "/opt/conda/lib/python3.11/site-packages/torch/distributed/fsdp/_fully_shard/_fsdp_state.py", line 216, in _pre_forward\n'
            '    self._lazy_init()\n'
            '  File "/opt/conda/lib/python3.11/site-packages/torch/distributed/fsdp/_fully_shard/_fsdp_state.py", line 140, in _lazy_init\n'
            '    fsdp_param_group.lazy_init()\n'
            '  File "/opt/conda/lib/python3.11/site-packages/torch/distributed/fsdp/_fully_shard/_fsdp_param_group.py", line 248, in lazy_init\n'
            '    self._validate_no_meta_params()\n'
            '  File "/opt/conda/lib/python3.11/site-packages/torch/distributed/fsdp/_fully_shard/_fsdp_param_group.py", line 692, in _validate_no_meta_params\n'
            '    raise RuntimeError(\n'
            "RuntimeError: FSDP parameters should be materialized from meta device before training, but the following were still on meta device: ['layers.0.attention.wq.weight', 'layers.0.attention.wk.weight']\n"
            'For example, call module.to_empty(device) to materialize to device and call module.reset_parameters() on each module to initialize values.\n', [0, 1])
        + torchrun_traceback()
        + failure_table('pretrain.py', '2025-06-11_09:14:52', 'node-12', 0, 0, 1, 31877, NO_TRACEBACK),
        {'unclassified_failure'}, None),
    'funcol_src_autograd_warning_all_to_all_healthy': (
        '/opt/python3.12/lib/python3.12/site-packages/torch/autograd/graph.py:841: UserWarning: _c10d_functional::all_to_all_single: an autograd kernel was not registered to the Autograd key(s) but we are trying to backprop through it. This may lead to silently incorrect behavior. This behavior is deprecated and will be removed in a future version of PyTorch. If your operator is differentiable, please ensure you have registered an autograd kernel to the correct Autograd key (e.g. DispatchKey::Autograd, DispatchKey::CompositeImplicitAutograd). If your operator is not differentiable, or to squash this warning and use the previous behavior, please register torch::CppFunction::makeFallthrough() to DispatchKey::Autograd. (Triggered internally at /pytorch/torch/csrc/autograd/autograd_not_implemented_fallback.cpp:63.)\n'
        '  return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass\n'
        'step 4990 | loss 2.014 | tps 41,220\n'
        'step 5000 | loss 2.009 | tps 41,198\n'
        'Training completed\n'
        'I0704 22:10:31.004000 77 torch/distributed/elastic/agent/server/api.py:879] [default] worker group successfully finished. Waiting 300 seconds for other agents to finish.\n'
        'I0704 22:10:31.005000 77 torch/distributed/elastic/agent/server/api.py:932] Local worker group finished (WorkerState.SUCCEEDED). Waiting 300 seconds for other agents to finish\n'
        'I0704 22:10:31.009000 77 torch/distributed/elastic/agent/server/api.py:946] Done waiting for other agents. Elapsed: 0.0031 seconds',
        {'none', 'inconclusive'}, None),
    'pipelining_src_arg_mbs': (
        '[rank0]: Traceback (most recent call last):\n'
        '[rank0]:   File "/pp/train_pp.py", line 140, in train\n'
        '[rank0]:     schedule.step(x, target=y, losses=losses)\n'
        '[rank0]:   File "/opt/conda/lib/python3.11/site-packages/torch/distributed/pipelining/schedules.py", line 1239, in step\n'
        '[rank0]:     args_split, kwargs_split = self._split_inputs(args, kwargs)\n'
        '[rank0]:   File "/opt/conda/lib/python3.11/site-packages/torch/distributed/pipelining/schedules.py", line 1258, in _step_microbatches\n'
        '[rank0]:     arg_mbs, kwarg_mbs = self._check_inputs(arg_mbs, kwarg_mbs, target_mbs, losses)\n'
        '[rank0]:   File "/opt/conda/lib/python3.11/site-packages/torch/distributed/pipelining/schedules.py", line 362, in _check_inputs\n'
        '[rank0]:     raise ValueError(\n'
        '[rank0]: ValueError: Expecting 4 arg_mbs but got 1\n'
        'W0701 12:00:14.118000 900 torch/distributed/elastic/multiprocessing/api.py:900] Sending process 913 closing signal SIGTERM\n'
        'E0701 12:00:14.390000 900 torch/distributed/elastic/multiprocessing/api.py:874] failed (exitcode: 1) local_rank: 0 (pid: 912) of binary: /usr/bin/python\n'
        + torchrun_traceback()
        + failure_table('train_pp.py', '2025-06-11_09:14:52', 'pp-host', 0, 0, 1, 912, NO_TRACEBACK),
        {'unclassified_failure'}, None),
    'pipelining_src_stage_input_dtype': (
        '[rank2]: Traceback (most recent call last):\n'
        '[rank2]:   File "/pp/run.py", line 90, in main\n'
        '[rank2]:     schedule.step(target=y, losses=losses)\n'
        '[rank2]:   File "/opt/conda/lib/python3.11/site-packages/torch/distributed/pipelining/stage.py", line 693, in forward_one_chunk\n'
        '[rank2]:     self._validate_fwd_input(args, kwargs)\n'
        '[rank2]:   File "/opt/conda/lib/python3.11/site-packages/torch/distributed/pipelining/_utils.py", line 86, in validate_tensor_metadata\n'
        '[rank2]:     raise PipeliningShapeError(\n'
        '[rank2]: torch.distributed.pipelining._utils.PipeliningShapeError: Stage 2 forward inputs: value 0 has a dtype mismatch: expected torch.bfloat16 actual torch.float32\n'
        'E0702 09:00:01.000000 10 torch/distributed/elastic/multiprocessing/api.py:874] failed (exitcode: 1) local_rank: 2 (pid: 1203) of binary: /usr/bin/python\n'
        + torchrun_traceback()
        + failure_table('run.py', '2025-06-11_09:14:52', 'pp2', 2, 2, 1, 1203, NO_TRACEBACK),
        {'dtype_mismatch'}, None),
    'pipelining_src_stage_input_shape': (
        '[rank1]: Traceback (most recent call last):\n'
        '[rank1]:   File "/pp/train_pp.py", line 140, in train\n'
        '[rank1]:     schedule.step(target=y, losses=losses)\n'
        '[rank1]:   File "/opt/conda/lib/python3.11/site-packages/torch/distributed/pipelining/schedules.py", line 636, in _step_microbatches\n'
        '[rank1]:     output = self._stage.forward_one_chunk(i, arg_mbs[i], kwarg_mbs[i])\n'
        '[rank1]:   File "/opt/conda/lib/python3.11/site-packages/torch/distributed/pipelining/stage.py", line 693, in forward_one_chunk\n'
        '[rank1]:     self._validate_fwd_input(args, kwargs)\n'
        '[rank1]:   File "/opt/conda/lib/python3.11/site-packages/torch/distributed/pipelining/stage.py", line 1548, in _validate_fwd_input\n'
        '[rank1]:     validate_tensors_metadata(\n'
        '[rank1]:   File "/opt/conda/lib/python3.11/site-packages/torch/distributed/pipelining/_utils.py", line 99, in validate_tensors_metadata\n'
        '[rank1]:     validate_tensor_metadata(f"{desc}: value {i}", expected[i], actual[i])\n'
        '[rank1]:   File "/opt/conda/lib/python3.11/site-packages/torch/distributed/pipelining/_utils.py", line 86, in validate_tensor_metadata\n'
        '[rank1]:     raise PipeliningShapeError(\n'
        '[rank1]: torch.distributed.pipelining._utils.PipeliningShapeError: Stage 1 forward inputs: value 0 has a shape mismatch: expected torch.Size([2, 256, 1024]) actual torch.Size([2, 128, 1024])\n'
        '[rank0]:[E0701 12:10:44.301 ProcessGroupNCCL.cpp:629] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=12, OpType=RECV, NumelIn=524288, NumelOut=524288, Timeout(ms)=600000) ran for 600012 milliseconds before timing out.',
        {'shape_mismatch'}, None),
    'symm_src_clique_mismatch': (
        per_rank(
            'Traceback (most recent call last):\n'
            '  File "/bench/ag_mm.py", line 44, in <module>\n'
            '    symm_mem.rendezvous(buf, group.group_name)\n'
            '  File "/usr/local/lib/python3.12/site-packages/torch/distributed/_symmetric_memory/__init__.py", line 1689, in rendezvous\n'
            '    return _SymmetricMemory.rendezvous(tensor, group_name)\n'
            'RuntimeError: CUDASymmetricMemory::rendezvous: ranks have mismatched NVLink clique_ids', [0, 4]),
        {'unclassified_failure'}, None),
    'fsdp2_src_mesh_3d': (
        per_rank(
            'Traceback (most recent call last):\n'
            '  File "/srv/train.py", line 77, in build\n'
            '    fully_shard(block, mesh=world_mesh)\n'
            '  File "/opt/conda/lib/python3.11/site-packages/torch/distributed/_composable/contract.py", line 125, in wrapper\n'
            '    updated = func(inp_module, *args, **kwargs)\n'
            '  File "/opt/conda/lib/python3.11/site-packages/torch/distributed/fsdp/_fully_shard/_fully_shard.py", line 180, in fully_shard\n'
            '    raise ValueError(f"fully_shard expects a 1D or 2D DeviceMesh but got {mesh}")\n'
            "ValueError: fully_shard expects a 1D or 2D DeviceMesh but got DeviceMesh('cuda', [[[0, 1], [2, 3]], [[4, 5], [6, 7]]], mesh_dim_names=('pp', 'dp', 'tp'))\n", [0, 1])
        + torchrun_traceback()
        + failure_table('train.py', '2025-06-11_09:14:52', 'b200-1', 0, 0, 1, 88120, NO_TRACEBACK),
        {'unclassified_failure'}, None),
    'dcp_src_global_plan_invalid': (
        'iteration 1000 | saving checkpoint\n'
        + per_rank(
            'Traceback (most recent call last):\n'
            '  File "/job/train.py", line 512, in save_ckpt\n'
            '    dcp.save(sd, checkpoint_id=out)\n'
            '  File "/opt/conda/lib/python3.11/site-packages/torch/distributed/checkpoint/state_dict_saver.py", line 156, in save\n'
            '    return _save_state_dict(\n'
            '  File "/opt/conda/lib/python3.11/site-packages/torch/distributed/checkpoint/state_dict_saver.py", line 302, in _save_state_dict\n'
            '    central_plan: SavePlan = distW.reduce_scatter("plan", local_step, global_step)\n'
            '  File "/opt/conda/lib/python3.11/site-packages/torch/distributed/checkpoint/utils.py", line 219, in reduce_scatter\n'
            '    raise result\n'
            + checkpoint_exception(
                '  File "/opt/conda/lib/python3.11/site-packages/torch/distributed/checkpoint/utils.py", line 203, in reduce_scatter\n'
                '    all_results = reduce_fun(cast(list[T], all_data))\n'
                '  File "/opt/conda/lib/python3.11/site-packages/torch/distributed/checkpoint/state_dict_saver.py", line 291, in global_step\n'
                '    all_local_plans, global_metadata = planner.create_global_plan(all_local_plans)\n'
                '  File "/opt/conda/lib/python3.11/site-packages/torch/distributed/checkpoint/default_planner.py", line 156, in create_global_plan\n'
                '    raise ValueError("Failed to validate global plan")\n'
                'ValueError: Failed to validate global plan\n', [0]), [0, 1])
        + torchrun_traceback()
        + failure_table('train.py', '2025-06-11_09:14:52', 'mn-0', 0, 0, 1, 61001, NO_TRACEBACK),
        {'unclassified_failure'}, None),
    'c10d_src_guessing_device_id_healthy': (
        '[rank0]:[W1127 02:40:11.123456715 ProcessGroupNCCL.cpp:5138] Guessing device ID based on global rank. This can cause a hang if rank to GPU mapping is heterogeneous. You can specify device_id in init_process_group()\n'
        '[rank1]:[W1127 02:40:11.124017330 ProcessGroupNCCL.cpp:5138] Guessing device ID based on global rank. This can cause a hang if rank to GPU mapping is heterogeneous. You can specify device_id in init_process_group()\n'
        'epoch 0 step 50 loss 0.88\n'
        'epoch 2 step 600 loss 0.12\n'
        'training finished, saved to out/model.pt',
        {'none', 'inconclusive'}, None),
    'c10d_src_guessing_device_id_then_timeout': (
        '[rank1]:[W1127 02:40:11.124017330 ProcessGroupNCCL.cpp:5138] Guessing device ID based on global rank. This can cause a hang if rank to GPU mapping is heterogeneous. You can specify device_id in init_process_group()\n'
        '[rank1]:[E1127 02:50:11.300112204 ProcessGroupNCCL.cpp:632] [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600052 milliseconds before timing out.',
        {'timeout_unknown'}, None),
    'elastic_src_file_timer_reaped_multinode': (
        '[default5]:step 410 loss 2.2\n'
        "I1127 01:10:02.551000 7701 torch/distributed/elastic/timer/file_based_local_timer.py:350] Reaping worker_pid=[7781]. Expired timers: ['ckpt_save']\n"
        'I1127 01:10:02.552000 7701 torch/distributed/elastic/timer/file_based_local_timer.py:389] Successfully reaped worker=[7781] with signal=9\n'
        'W1127 01:10:03.101000 7701 torch/distributed/elastic/multiprocessing/api.py:897] Sending process 7776 closing signal SIGTERM\n'
        'W1127 01:10:03.101000 7701 torch/distributed/elastic/multiprocessing/api.py:897] Sending process 7777 closing signal SIGTERM\n'
        'E1127 01:10:03.610000 7701 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: -9) local_rank: 1 (pid: 7781) of binary: /usr/bin/python\n'
        + torchrun_traceback()
        + failure_table('train.py', '2025-06-11_09:14:52', 'node-b', 5, 1, -9, 7781),
        {'stuck_rank', 'timeout_unknown'}, [5]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_case(tmp_path, name):
    check_case(tmp_path, CASES[name])


@pytest.mark.parametrize("line", [
    "RuntimeError: ('Each mesh_dim_name must be unique.', \"Found repeated mesh_dim_name in mesh_dim_names ('dp', 'dp')\")",
    "RuntimeError: ('Device type with GPU index is not supported but got cuda:0. ', 'If you maintained ...')",
    "RuntimeError: DeviceMesh initialization does not allow different mesh arguments: rank 1 has mesh tensor([0, 1])",
    "ValueError: Size mismatch between saved torch.Size([8, 2048]) and current: torch.Size([32, 2048]) for opt.w",
    "ValueError: Cannot flatten integer dtype tensors",
])
def test_other_wordings_are_usage_errors(line):
    [hit] = catalogue.match(line)
    assert hit.message.data.get("category") == "usage_error", hit.message.id


@pytest.mark.parametrize("line", [
    "INFO:torch.distributed.elastic.timer.api:Reaping worker_id=[4821]. Expired timers: ['step']",
    "INFO:torch.distributed.elastic.timer.file_based_local_timer:Reaping worker_pid=[4821]. Expired timers: ['step']",
])
def test_both_timer_servers_name_the_reaped_pid(line):
    [hit] = catalogue.match(line)
    assert hit.message.id == "torchrun.timer_reaped" and hit.fields["worker_pid"] == "4821"


def test_a_timer_kill_without_the_timer_line_stays_a_dropped_rank(tmp_path):
    """The SIGKILL alone is a death of its own: only the timer server's line makes it the timer's."""
    text = CASES["elastic_src_timer_reaped_worker"][0]
    alone = "\n".join(ln for ln in text.splitlines() if "Reaping worker" not in ln and "reaped worker" not in ln)
    verdict = console_verdict(tmp_path, alone)
    assert verdict.cls == "dropped_rank" and verdict.culprit_ranks == [2], verdict.summary


def test_the_timer_names_no_rank_when_nothing_maps_its_pid(tmp_path):
    verdict = console_verdict(tmp_path, "step 3 loss 1.0\nINFO:torch.distributed.elastic.timer.api:Reaping "
                              "worker_id=[999]. Expired timers: ['step']\n")
    assert verdict.cls == "stuck_rank" and verdict.culprit_ranks == [], verdict.summary
