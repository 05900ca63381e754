"""Held-out set 65: failed multi-GPU inference and RL jobs (vLLM on Ray and multiproc, LMDeploy TurboMind, TGI, TRL,
verl, NeMo-RL, GPUStack, dynamo). One verdict test per case, then what the set showed:

- vLLM's custom all-reduce CUDACHECK (csrc/custom_all_reduce.cuh) printed `Failed: <file>:<line> '<text>'` in the
  builds of mid-2024 to spring 2025 (vLLM's own issue titles quote it from its wheels), `Failed: Cuda error ...` before
  and after: both read as cuda.check_macro. A call that macro's code made and the runtime refused for its arguments
  (`invalid argument` opening the peers' IPC handles) is the communicator's setup on every rank, as NCCL's own refused
  calls are: no rank died of its own (catalogue/cuda.py COLLECTIVE_CUDA_CHECKS).
"""
from __future__ import annotations

import pytest

from .consoles import check_case, console_verdict

_AR = "2025-04-23T03:35:43.39{}Z  INFO dynamo_engine_vllm::worker: VLLM: Failed: /workspace/csrc/custom_all_reduce.cuh:368 "

CASES = [
    ("ai-dynamo/dynamo#787", ("unclassified_failure",), [],
     "".join(_AR.format(i) + "'invalid argument'\n" for i in range(4))
     + "Capturing CUDA graph shapes: 100%|##########| 35/35 [01:17<00:00,  2.20s/it]\n"),
    ("InternLM/lmdeploy#1108", ("version_mismatch",), None,
     "NCCL INFO cudaDriverVersion 11070\n\ninit.cc:1582 NCCL WARN Cuda failure 'CUDA driver version is insufficient for "
     "CUDA runtime version'\nFailed, NCCL error /lmdeploy/src/turbomind/utils/nccl_utils.cc:296 'unhandled cuda error "
     "(run with NCCL_DEBUG=INFO for details)'\nIllegal instruction (core dumped)\n"),
    ("huggingface/trl#3158", ("unclassified_failure",), None,
     "NCCL WARN Duplicate GPU detected : rank 1 and rank 0 both on CUDA device 40\n"
     "RuntimeError: NCCL error: invalid usage (run with NCCL_DEBUG=WARN for details)\n"),
    ("vllm-project/vllm#27405", ("dropped_rank", "unclassified_failure"), None,
     "[rank1]:[W1023 09:29:42.993390455 ProcessGroupNCCL.cpp:1783] [PG ID 0 PG GUID 0 Rank 1] Failed to check the "
     "\"should dump\" flag on TCPStore, (maybe TCPStore server has shut down too early), with error: Failed to recv, got "
     "0 bytes. Connection was likely closed. Did the remote server shutdown or crash?\n(EngineCore_DP0 pid=43418) ERROR "
     "10-23 09:29:42 [multiproc_executor.py:154] Worker proc VllmWorker-0 died unexpectedly, shutting down executor.\n"),
]


@pytest.mark.parametrize("issue,want,culprits,text", CASES, ids=[case[0] for case in CASES])
def test_each_case_of_the_set(issue, want, culprits, text, tmp_path):
    check_case(tmp_path, (text, want, culprits), progress="")


@pytest.mark.parametrize("front", ["Failed: ", "Failed: Cuda error "])
def test_a_refused_call_in_a_custom_all_reduce_names_no_rank(front, tmp_path):
    """Either printing of vLLM's CUDACHECK quoting a refused call: the communicator's setup, with the P2P fix."""
    text = f"[rank3]: {front}/workspace/csrc/custom_all_reduce.cuh:455 'invalid argument'\n"
    verdict = console_verdict(tmp_path, text, progress="")
    assert verdict.cls == "unclassified_failure", verdict.summary
    assert verdict.culprit_ranks == [], verdict.summary
    assert "--disable-custom-all-reduce" in verdict.fix, verdict.fix


def test_a_fault_in_a_custom_all_reduce_is_still_a_crash(tmp_path):
    """A sticky fault (an illegal memory access) under the same macro is the process's own death."""
    text = "Failed: /home/runner/work/vllm/vllm/csrc/custom_all_reduce.cuh:310 'an illegal memory access was encountered'\n"
    assert console_verdict(tmp_path, text, progress="").cls == "dropped_rank"


def test_a_bare_failed_line_of_another_file_is_not_the_macro():
    """The bare form is the CUDA header's only: `Failed: x.cc:12 '...'` is no CUDA check."""
    from nccl_forensics.sources import catalogue
    assert not [h for h in catalogue.match("Failed: /src/loader.cc:12 'bad header'")
                if h.message.id == "cuda.check_macro"]
