"""Verdicts on messages mined from the sources in catalogue round 19 (NCCL/RCCL WARNs 2.3 - 2.30, c10d, gloo, the
CUDA runtime, torchrun's failure table): each as the decisive line(s) of a pasted console, in the forms its
versions print it.
"""
from __future__ import annotations

import pytest

from nccl_forensics.sources import catalogue

from .consoles import console_verdict


def _warn(msg: str, where: str = "misc/socket.cc:525", dev: int = 0) -> str:
    return f"\nnode-4:3310:3377 [{dev}] {where} NCCL WARN {msg}\n"


# the store-based barrier of init_process_group, 1.9 - 2.0: `on rank: N` (RuntimeError) and `on rank N`
# (DistStoreError, num_workers_joined); the anchor of the entry no longer holds the optional colon
@pytest.mark.parametrize("text", [
    "RuntimeError: Timed out initializing process group in store based barrier on rank: 6, for key: "
    "store_based_barrier_key:2 (world_size=32, worker_count=24, timeout=0:30:00)",
    "torch.distributed.DistStoreError: Timed out initializing process group in store based barrier on rank 11, for "
    "key: store_based_barrier_key:1 (world_size=12, num_workers_joined=9, timeout=0:10:00)",
])
def test_store_based_barrier_timeout_in_both_wordings(text, tmp_path):
    assert console_verdict(tmp_path, text).cls == "stuck_rank"


def test_an_optional_character_is_not_part_of_an_anchor():
    hits = catalogue.match("Timed out initializing process group in store based barrier on rank 3, for key: k:1 "
                           "(world_size=4, num_workers_joined=2, timeout=0:30:00)")
    assert [h.message.id for h in hits] == ["pytorch.store_barrier_timeout"]
    assert hits[0].fields["count"] == 2


# gloo closes every pair of a process whose own recv/send timed out (unbound_buffer.cc signalException)
@pytest.mark.parametrize("text", [
    "RuntimeError: Application timeout caused pair closure",
    "[rank3]: Traceback (most recent call last):\n[rank3]:   File \"worker.py\", line 12, in <module>\n"
    "[rank3]:     dist.all_gather_object(out, obj)\n[rank3]: RuntimeError: Application timeout caused pair closure",
])
def test_gloo_pair_closure_is_a_timeout_not_a_crash(text, tmp_path):
    verdict = console_verdict(tmp_path, text)
    assert verdict.cls == "timeout_unknown", verdict.summary


def test_gloo_getpeername_failure_is_a_network_error(tmp_path):
    verdict = console_verdict(tmp_path, "RuntimeError: [enforce fail at /pytorch/third_party/gloo/gloo/transport/tcp/"
                                 "address.cc:92] rv != -1. -1 vs -1. getpeername: Transport endpoint is not connected")
    assert verdict.cls == "network_error", verdict.summary


# NCCL's socket connect (2.16 - 2.23) and RCCL/NCCL's ibv_poll_cq wrapper
@pytest.mark.parametrize("text", [
    _warn("socketStartConnect: exceeded timeouts (35)") + "node-4:3310:3377 [0] NCCL INFO misc/socket.cc:564 -> 6",
    _warn("Call to ibv_poll_cq() returned -1", "include/ibvwrap.h:60", 3)
    + "node-4:3310:3377 [3] NCCL INFO transport/net_ib.cc:1480 -> 2",
])
def test_connect_timeouts_and_a_failed_cq_poll_are_network_errors(text, tmp_path):
    assert console_verdict(tmp_path, text).cls == "network_error"


def test_ras_version_mismatch(tmp_path):
    text = _warn("NCCL version mismatch with remote peer 10.1.0.9<41233> (local: 22805, remote 22703)", "ras/ras.cc:428")
    assert console_verdict(tmp_path, text).cls == "version_mismatch"


# an NCCL result code whose `Last error:` is the machine's or the job's setup (the same on every rank): neither the
# rank's own crash (ncclUnhandledCudaError) nor a network failure (ncclSystemError)
@pytest.mark.parametrize("code, text", [
    ("unhandled cuda error", "Failed to bind NVLink SHARP (NVLS) Multicast memory of size 536870912 : CUDA error 801 "
                             "'operation not supported'."),
    ("unhandled system error", "Could not find real path of /sys/class/pci_bus/0000:3b/../../0000:3b:00.0"),
    ("invalid usage", "Error: network IB not found."),
])
def test_a_setup_failure_quoted_after_last_error_names_no_rank(code, text, tmp_path):
    name = {"unhandled cuda error": "ncclUnhandledCudaError: Call to CUDA function failed.",
            "unhandled system error": "ncclSystemError: System call (e.g. socket, malloc) or external library call "
                                      "failed or device error. ",
            "invalid usage": "ncclInvalidUsage: This usually reflects invalid usage of NCCL library."}[code]
    verdict = console_verdict(tmp_path, f"[rank1]: torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/"
                                 f"distributed/c10d/ProcessGroupNCCL.cpp:2006, {code} (run with NCCL_DEBUG=INFO for "
                                 f"details), NCCL version 2.27.3\n[rank1]: {name}\n[rank1]: Last error:\n[rank1]: {text}")
    assert verdict.cls == "unclassified_failure", verdict.summary
    assert not verdict.culprit_ranks


# CUDA's texts of a process that got no GPU: how the job was placed on the machine, not a crash of its own
@pytest.mark.parametrize("text", [
    "[rank6]: Traceback (most recent call last):\n[rank6]:   File \"train.py\", line 9, in <module>\n"
    "[rank6]:     torch.cuda.set_device(local_rank)\n[rank6]: RuntimeError: CUDA error: invalid device ordinal\n"
    "[rank6]: CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below "
    "might be incorrect.\n[rank6]: For debugging consider passing CUDA_LAUNCH_BLOCKING=1.",
    "RuntimeError: CUDA error: all CUDA-capable devices are busy or unavailable",
    "RuntimeError: CUDA error: CUDA-capable device(s) is/are busy or unavailable\nCUDA kernel errors might be "
    "asynchronously reported at some other API call, so the stacktrace below might be incorrect.",
    "RuntimeError: HIP error: no ROCm-capable device is detected",
])
def test_no_usable_gpu_is_no_dropped_rank(text, tmp_path):
    verdict = console_verdict(tmp_path, text)
    assert verdict.cls == "unclassified_failure", verdict.summary
    assert not verdict.culprit_ranks


def test_a_device_fault_still_drops_its_rank(tmp_path):
    verdict = console_verdict(tmp_path, "[rank2]: RuntimeError: CUDA error: an illegal memory access was encountered\n"
                                 "[rank2]: For debugging consider passing CUDA_LAUNCH_BLOCKING=1.")
    assert verdict.cls == "dropped_rank" and verdict.culprit_ranks == [2], verdict.summary


# torch 1.0 - 1.10 tcputil::connect past its deadline; other programs' `x.connect() timed out` are not it
def test_old_store_connect_timeout_is_a_network_error(tmp_path):
    verdict = console_verdict(tmp_path, "Traceback (most recent call last):\n  File \"run.py\", line 4, in <module>\n"
                                 "    dist.init_process_group('nccl')\nRuntimeError: connect() timed out.")
    assert verdict.cls == "network_error", verdict.summary
    assert not [h for h in catalogue.match("Error: room.connect() timed out.")
                if h.message.id == "pytorch.store_connect_timeout_1x"]


# the failure table quotes the child's error file: its traceback's lines are that entry's rank
def test_failure_table_traceback_lines_take_the_entry_rank(tmp_path):
    text = ("torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n" + "=" * 60 + "\ntrain.py FAILED\n"
            + "-" * 60 + "\nFailures:\n  <NO_OTHER_FAILURES>\n" + "-" * 60 + "\nRoot Cause (first observed failure):\n"
            "[0]:\n  time      : 2026-11-26_07:44:10\n  host      : node-c\n  rank      : 13 (local_rank: 5)\n"
            "  exitcode  : 1 (pid: 771)\n  error_file: /tmp/torchelastic_q/attempt_0/5/error.json\n"
            "  traceback : Traceback (most recent call last):\n    File \"train.py\", line 88, in step\n"
            "      out = model(x)\n  torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 5 "
            "has a total capacity of 79.10 GiB of which 1.18 GiB is free.\n  \n" + "=" * 60)
    verdict = console_verdict(tmp_path, text)
    assert verdict.cls == "oom" and verdict.culprit_ranks == [13], verdict.summary


def test_rocr_failure_out_of_resources_is_oom(tmp_path):
    text = _warn("ROCr failure 'HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime failed to allocate the necessary "
                 "resources.'", "alloc.h:201", 2)
    assert console_verdict(tmp_path, text).cls == "oom"
