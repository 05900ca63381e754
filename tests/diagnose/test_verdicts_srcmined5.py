"""Verdicts on messages mined from PyTorch 1.x - 2.13's Python-level distributed code in catalogue round srcmined5
(distributed_c10d.py and rendezvous.py usage errors, DeviceMesh/DTensor, FSDP/FSDP2, DDP, pipelining, distributed
checkpoint, rpc): each as the decisive line(s) of a pasted console, in the forms its versions print it.
"""
from __future__ import annotations

import pytest

from nccl_forensics.sources import catalogue

from .consoles import PROGRESS, console_verdict

_SITE = "/usr/local/lib/python3.10/dist-packages/torch/distributed"


def _traceback(exc: str, frame: tuple[str, int, str] = ("distributed_c10d.py", 1024, "get_rank"),
               prefix: str = "") -> str:
    """One rank's traceback (its lines behind `prefix`, torchrun's `[rankN]: `) ending in `exc`."""
    path, line, fn = frame
    lines = ["Traceback (most recent call last):", '  File "/workspace/train.py", line 97, in main',
             "    setup()", f'  File "{_SITE}/{path}", line {line}, in {fn}', "    raise ValueError("] + exc.split("\n")
    return "\n".join(prefix + text for text in lines)


# The distributed API refused the program or its launch: every rank that gets there raises the same error, so the
# rank that printed it is no dropped rank (1.x and 2.x wordings, exception types as each raised them)
_USAGE = [
    "ValueError: Default process group has not been initialized, please make sure to call init_process_group.",
    "RuntimeError: Default process group has not been initialized, please make sure to call init_process_group.",
    "TypeError: Invalid function argument. Expected parameter `tensor` of type torch.Tensor\n"
    "             but got <class 'list'> instead.",
    "RuntimeError: Invalid function argument. Expected parameter `tensor_list` to be of type List[torch.Tensor].",
    "ValueError: The new group's rank should be within the world_size set by init_process_group",
    "RuntimeError: The new group's rank should be within the the world_size set by init_process_group",
    "RuntimeError: No backend type associated with device type cpu",
    "ValueError: Tensors must be contiguous",
    "RuntimeError: Tensors must be CUDA and dense",
    "ValueError: trying to initialize the default process group twice!",
    "RuntimeError: Distributed package doesn't have NCCL built in",
    "ValueError: ProcessGroupNCCL is only supported with GPUs, no GPUs found!",
    "RuntimeError: Function argument device_ids not supported for the selected backend gloo",
    "AssertionError: Cannot specify both init_method and store.",
    "torch.distributed.DistStoreError: use_libuv was requested but PyTorch was build without libuv support, run with "
    "USE_LIBUV=0 to disable it.",
    "ValueError: Error initializing torch.distributed using env:// rendezvous: environment variable MASTER_ADDR "
    "expected, but not set",
    "ValueError: Error initializing torch.distributed using tcp:// rendezvous: port number missing",
    "RuntimeError: Mesh should not be bigger than default world size 4, but found 8 ranks!",
    "RuntimeError: DeviceMesh only support homogeneous hardware, but found 6 ranks and 4 cuda devices!",
    "ValueError: `placements` must have the same length as `device_mesh.ndim`! Found placements length: 2, and "
    "device_mesh.ndim: 1.",
    "AssertionError: Expects BACKWARD_PRE or BACKWARD_POST state but got HandleTrainingState.FORWARD",
    "ValueError: Inconsistent compute device and `device_id` on rank 1: cuda:0 vs cuda:1",
    "ValueError: fully_shard does not support containers that do not implement forward: <class "
    "'torch.nn.modules.container.ModuleList'>",
    "RuntimeError: DistributedDataParallel is not needed when a module doesn't have any parameter that requires a "
    "gradient.",
    "RuntimeError: Expected to mark a variable ready only once. This error is caused by one of the following reasons: "
    "1) Use of a module parameter outside the `forward` function.",
]


@pytest.mark.parametrize("prefix", ["", "[rank1]: "])
@pytest.mark.parametrize("exc", _USAGE)
def test_a_usage_error_of_the_distributed_api_blames_no_rank(exc, prefix, tmp_path):
    verdict = console_verdict(tmp_path, _traceback(exc, prefix=prefix))
    assert verdict.cls == "unclassified_failure", verdict.summary
    assert not verdict.culprit_ranks
    assert "usage or setup error" in verdict.summary, verdict.summary


def test_every_rank_raising_a_usage_error_is_still_no_dropped_rank(tmp_path):
    exc = "ValueError: Default process group has not been initialized, please make sure to call init_process_group."
    text = _traceback(exc, prefix="[rank0]: ") + "\n" + _traceback(exc, prefix="[rank1]: ")
    verdict = console_verdict(tmp_path, text)
    assert (verdict.cls, verdict.culprit_ranks) == ("unclassified_failure", []), verdict.summary


def test_a_plain_exception_of_one_rank_still_drops_it(tmp_path):
    verdict = console_verdict(tmp_path, _traceback("KeyError: 'labels'", ("data.py", 40, "collate"), "[rank2]: "))
    assert (verdict.cls, verdict.culprit_ranks) == ("dropped_rank", [2]), verdict.summary


# the object collectives pickle each rank's object before any communication (_object_to_tensor): pickle's own error
# there is a usage error; a CUDA error in the same function (the copy to the device) is not
def test_an_object_collective_that_cannot_pickle_its_object_is_a_usage_error(tmp_path):
    text = _traceback("AttributeError: Can't pickle local object 'build_metrics.<locals>.<lambda>'",
                      ("distributed_c10d.py", 2562, "_object_to_tensor"), "[rank0]: ")
    verdict = console_verdict(tmp_path, text)
    assert (verdict.cls, verdict.culprit_ranks) == ("unclassified_failure", []), verdict.summary


def test_a_cuda_error_inside_an_object_collective_is_no_usage_error(tmp_path):
    text = _traceback("RuntimeError: CUDA error: an illegal memory access was encountered",
                      ("distributed_c10d.py", 2562, "_object_to_tensor"), "[rank0]: ")
    assert console_verdict(tmp_path, text).cls != "unclassified_failure"


# 1.9 - 1.10 printed `store basedbarrier` (no space); 2.1+ raises DistStoreError with `num_workers_joined`
@pytest.mark.parametrize("exc", [
    "RuntimeError: Timed out initializing process group in store basedbarrier on rank: 0, for key: "
    "store_based_barrier_key:1 (world_size=4, worker_count=2, timeout=0:30:00)",
    "torch.distributed.DistStoreError: Timed out initializing process group in store based barrier on rank 5, for "
    "key: store_based_barrier_key:2 (world_size=8, num_workers_joined=7, timeout=0:10:00 error=Wait timeout)",
])
def test_a_store_based_barrier_timeout_is_a_rank_that_never_joined(exc, tmp_path):
    verdict = console_verdict(tmp_path, _traceback(exc, ("distributed_c10d.py", 219, "_store_based_barrier")))
    assert verdict.cls == "stuck_rank", verdict.summary


def test_the_store_barrier_counts_are_read_in_both_wordings():
    [old] = catalogue.match("Timed out initializing process group in store basedbarrier on rank: 0, for key: k "
                            "(world_size=4, worker_count=2, timeout=0:30:00)")
    assert (old.fields["rank"], old.fields["nranks"], old.fields["count"]) == (0, 4, 2)


def test_ddp_static_graph_change_is_a_skipped_collective(tmp_path):
    text = _traceback("RuntimeError: Your training graph has changed in this iteration, e.g., one parameter is unused "
                      "in first iteration, but then got used in the second iteration. this is not compatible with "
                      "static_graph set to True.", ("../../torch/autograd/__init__.py", 347, "backward"), "[rank2]: ")
    verdict = console_verdict(tmp_path, text)
    assert verdict.cls == "collective_skipped", verdict.summary
    assert "Your training graph has changed" in verdict.summary


@pytest.mark.parametrize("exc, cls", [
    ("torch.distributed.pipelining._utils.PipeliningShapeError: Stage 1 forward inputs has a shape mismatch: expected "
     "torch.Size([4, 512, 1024]) actual torch.Size([2, 512, 1024])", "shape_mismatch"),
    ("torch.distributed.pipelining._utils.PipeliningShapeError: Stage 2 forward inputs has a dtype mismatch: expected "
     "torch.bfloat16 actual torch.float32", "dtype_mismatch"),
])
def test_a_pipeline_stage_that_received_another_shape_or_dtype(exc, cls, tmp_path):
    text = _traceback(exc, ("pipelining/_utils.py", 101, "validate_tensor_metadata"), "[rank1]: ")
    assert console_verdict(tmp_path, text).cls == cls


# DCP re-raises every failed rank's exception on every rank: the failed rank's traceback (`(RANK 3)`) names it
def test_a_checkpoint_exception_blames_the_rank_whose_traceback_it_carries(tmp_path):
    text = _traceback("torch.distributed.checkpoint.api.CheckpointException: CheckpointException "
                      "ranks:dict_keys([3])\nTraceback (most recent call last): (RANK 3)\n"
                      f'  File "{_SITE}/checkpoint/filesystem.py", line 410, in _write_files_from_queue\n'
                      "    stream.write(data)\nOSError: [Errno 28] No space left on device",
                      ("checkpoint/utils.py", 201, "all_reduce"), "[rank0]: ")
    verdict = console_verdict(tmp_path, text)
    assert (verdict.cls, verdict.culprit_ranks) == ("dropped_rank", [3]), verdict.summary


def test_an_rpc_timeout_is_a_timeout(tmp_path):
    text = _traceback("RuntimeError: RPC ran for more than set timeout (60000 ms) and will now be marked with an error",
                      ("rpc/api.py", 809, "rpc_sync"), "[rank0]: ")
    verdict = console_verdict(tmp_path, text)
    assert verdict.cls == "timeout_unknown" and not verdict.culprit_ranks, verdict.summary


def test_an_rpc_timeout_carries_its_milliseconds():
    [hit] = [h for h in catalogue.match("RPC ran for more than set timeout (60000 ms) and will now be marked with an "
                                        "error") if h.message.id == "pytorch.rpc_timeout"]
    assert hit.fields["timeout_ms"] == 60000


@pytest.mark.parametrize("text", [
    "ValueError: Tensors must be contiguously laid out",          # not ProcessGroupNCCL's words
    "the new group's ranks are 0-3",
    "RPC ran for 3 ms",
])
def test_near_misses_are_no_usage_error(text):
    assert not any(h.message.data.get("category") == "usage_error" or h.message.id == "pytorch.rpc_timeout"
                   for h in catalogue.match(text))


def test_progress_alone_is_no_failure(tmp_path):
    assert console_verdict(tmp_path, "", progress=PROGRESS).cls != "unclassified_failure"
