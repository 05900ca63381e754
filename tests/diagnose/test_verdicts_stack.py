"""Verdicts on the lower stack's messages added from the sources (catalogue round 13: c10d, gloo, CUDA/HIP, the
kernel): each as the decisive line(s) of a pasted console, as the software prints it, in the forms its versions
print it.
"""
from __future__ import annotations

import pytest

from .consoles import console_verdict


# cuBLAS/cuDNN's ALLOC_FAILED status: the library's cudaMalloc failed (the device is out of memory)
@pytest.mark.parametrize("text", [
    "RuntimeError: CUDA error: CUBLAS_STATUS_ALLOC_FAILED when calling `cublasCreate(handle)`",
    "[rank2]: RuntimeError: CUDA error: CUBLAS_STATUS_ALLOC_FAILED when calling `cublasLtMatmul( ltHandle, "
    "computeDesc.descriptor(), &alpha_val, mat1_ptr, Adesc.descriptor(),",
    "RuntimeError: cuDNN error: CUDNN_STATUS_ALLOC_FAILED",
])
def test_a_library_allocation_failure_is_oom(text, tmp_path):
    assert console_verdict(tmp_path, text).cls == "oom"


def test_cublas_execution_failure_stays_a_crash(tmp_path):
    verdict = console_verdict(tmp_path, "RuntimeError: CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasSgemm( "
                                 "handle, opa, opb, m, n, k, &alpha, a, lda, b, ldb, &beta, c, ldc)`")
    assert verdict.cls not in ("oom", "none", "inconclusive"), verdict.summary


# a build without code for the GPU: CUDA's/HIP's `invalid device function`, HIP's missing code object
@pytest.mark.parametrize("text", [
    "RuntimeError: HIP error: invalid device function\nHIP kernel errors might be asynchronously reported at some "
    "other API call, so the stacktrace below might be incorrect.\nFor debugging consider passing AMD_SERIALIZE_KERNEL=3",
    "RuntimeError: CUDA error: invalid device function",
    "hipErrorNoBinaryForGpu: Unable to find code object for all current devices!\nAborted (core dumped)",
])
def test_no_code_for_this_gpu_is_a_version_mismatch(text, tmp_path):
    assert console_verdict(tmp_path, text).cls == "version_mismatch"


# gloo's tcp/ibverbs transport errors, in each version's wording
@pytest.mark.parametrize("text", [
    "RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:206] connect: Connection refused",
    "RuntimeError: [enforce fail at ../third_party/gloo/gloo/transport/tcp/socket.cc:142] rv != -1. -1 vs -1. "
    "connect: No route to host",
    "[rank0]: RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:201] Socket unexpectedly closed "
    "[10.0.0.5]:61234",
    "terminate called after throwing an instance of 'gloo::EnforceNotMet'\n  what():  [enforce fail at "
    "/opt/pytorch/third_party/gloo/gloo/transport/ibverbs/pair.cc:592] wc->status == IBV_WC_SUCCESS. 12 vs 0. "
    "Memory region send for slot 0: transport retry counter exceeded",
    "RuntimeError: [enforce fail at gloo/transport/ibverbs/pair.cc:498] wc->status == IBV_WC_SUCCESS. 5 vs 0. Recv "
    "for slot 3: Work Request Flushed Error",
])
def test_gloo_transport_errors_are_network_errors(text, tmp_path):
    assert console_verdict(tmp_path, text).cls == "network_error"


def test_a_prose_connect_colon_is_no_gloo_error(tmp_path):
    verdict = console_verdict(tmp_path, "INFO: will retry connect: Connection refused is expected while the server starts")
    assert verdict.cls != "network_error", verdict.summary


# the driver's own `GPU has fallen off the bus` line (beside Xid 79), without the Xid line
@pytest.mark.parametrize("text", [
    "[ 4512.991038] NVRM: GPU 0000:3b:00.0: GPU has fallen off the bus.",
    "kernel: NVRM: GPU 0000:b7:00.0: GPU has fallen off the bus.",
])
def test_the_driver_losing_a_gpu_is_a_dropped_rank(text, tmp_path):
    assert console_verdict(tmp_path, text).cls == "dropped_rank"


# monitoredBarrier on a non-zero rank: its send/recv with rank 0 failed, and it names rank 0
def test_a_monitored_barrier_peer_error_names_rank_0(tmp_path):
    verdict = console_verdict(tmp_path, "[rank1]:[E325 17:13:23.163175227 ProcessGroupGloo.cpp:145] Rank 1 successfully "
                                 "reached monitoredBarrier, but received errors while waiting for send/recv from rank 0. "
                                 "Please check rank 0 logs for faulty rank.")
    assert verdict.cls in ("stuck_rank", "timeout_unknown", "dropped_rank"), verdict.summary
    assert verdict.culprit_ranks == [0], verdict.summary


# DDP's parameter checks across ranks: the raising rank reports a disagreement, it did not fail on its own
@pytest.mark.parametrize("text", [
    "[rank1]: RuntimeError: DDP expects same model across all ranks, but Rank 1 has 338 params, while rank 0 has "
    "inconsistent 0 params.",
    "[rank1]: RuntimeError: [1]: params[0] in this process with sizes [96, 32] appears not to match sizes of the same "
    "param in process 0.",
    "RuntimeError: replicas[0][0] in this process with sizes [64, 3, 7, 7] appears not to match sizes of the same "
    "param in process 0.",
])
def test_ddp_parameter_checks_are_shape_mismatches(text, tmp_path):
    verdict = console_verdict(tmp_path, text)
    assert verdict.cls == "shape_mismatch", verdict.summary


# the kernel's soft-lockup watchdog on the training process: a hang, as a blocked task is
@pytest.mark.parametrize("text", [
    "[ 5012.123456] watchdog: BUG: soft lockup - CPU#12 stuck for 22s! [python:4021]",
    "kernel: NMI watchdog: BUG: soft lockup - CPU#3 stuck for 23s! [pt_main_thread:77]",
])
def test_a_soft_lockup_is_a_hang(text, tmp_path):
    verdict = console_verdict(tmp_path, text)
    assert verdict.cls in ("timeout_unknown", "stuck_rank"), verdict.summary
