"""Held-out set 67: pytorch-centred pastes (torchrun/elastic, FSDP, pipelining, the c10d store, vLLM tensor
parallel, NCCL system errors). One verdict test per case, then what the set showed:

- a torch built against an NCCL older than 2.7 compiles alltoall, send and recv as stubs that raise
  `ProcessGroupNCCL only supports alltoall*|send|recv for NCCL lib version >= 2.7.0` (ProcessGroupNCCL.cpp, #else of
  ENABLE_NCCL_P2P_SUPPORT, 1.6 - 2.x), whatever NCCL the job loads: the build and the library disagree
  (catalogue pytorch.p2p_needs_nccl_2_7, version_mismatch).
"""
from __future__ import annotations

import pytest

from nccl_forensics.sources.catalogue import match

from .consoles import PROGRESS, console_verdict

_TORCHRUN = "torch.distributed.elastic.multiprocessing.api"

CASES = [
    ("pytorch/pytorch#47291", ("version_mismatch",),
     "  File \"/usr/local/lib/python3.6/dist-packages/torch/distributed/distributed_c10d.py\", line 1827, in "
     "all_to_all_single\n"
     "    work = group.alltoall_base(output, input, output_split_sizes, input_split_sizes, opts)\n"
     "RuntimeError: ProcessGroupNCCL only supports alltoall* for NCCL lib version >= 2.7.0\n"
     "ip-172-31-76-46:66763:66763 [0] NCCL INFO Using network AWS Libfabric\n"
     "NCCL version 2.7.8+cuda11.0\n"),
    ("meta-llama/llama-cookbook#182", ("dropped_rank", "oom"),
     f"{_TORCHRUN}: [WARNING] Sending process 203613 closing signal SIGTERM\n"
     f"[2023-09-08 10:21:20,650] {_TORCHRUN}: [WARNING] Sending process 203616 closing signal SIGTERM\n"
     f"[2023-09-08 10:21:22,992] {_TORCHRUN}: [ERROR] failed (exitcode: -9) local_rank: 0 (pid: 203612) of binary: "
     "/home/u/llama_fsdp/bin/python3.9\n"),
    ("pytorch/pytorch#67547", ("network_error",),
     "RuntimeError: connect() timed out. Original timeout was 60000 ms.\n"
     "torch.distributed.elastic.rendezvous.api.RendezvousConnectionError: The connection to the C10d store has "
     "failed. See inner exception for details.\n"),
]


@pytest.mark.parametrize("issue,want,text", CASES, ids=[case[0] for case in CASES])
def test_each_case_of_the_set(issue, want, text, tmp_path):
    assert console_verdict(tmp_path, text, progress="").cls in want


@pytest.mark.parametrize("issue,want,text", CASES, ids=[case[0] for case in CASES])
def test_progress_before_the_failure_changes_nothing(issue, want, text, tmp_path):
    assert console_verdict(tmp_path, text, PROGRESS).cls in want


@pytest.mark.parametrize("line,op", [
    # 1.6 - 1.10 throw std::runtime_error, later builds TORCH_CHECK: Python shows a RuntimeError either way
    ("RuntimeError: ProcessGroupNCCL only supports alltoall* for NCCL lib version >= 2.7.0", "alltoall*"),
    ("RuntimeError: ProcessGroupNCCL only supports send for NCCL lib version >= 2.7.0", "send"),
    ("[rank1]: RuntimeError: ProcessGroupNCCL only supports recv for NCCL lib version >= 2.7.0", "recv"),
])
def test_p2p_stub_of_an_old_nccl_build_as_each_call_prints_it(line, op):
    [hit] = [h for h in match(line) if h.message.id == "pytorch.p2p_needs_nccl_2_7"]
    assert hit.fields["op"] == op
    assert (hit.message.implies, hit.message.data["category"]) == ("version_mismatch", "nccl_caller_build")


@pytest.mark.parametrize("line", [
    "NCCL version 2.7.8+cuda11.0",
    "RuntimeError: ProcessGroupNCCL does not support alltoall",
    "ProcessGroupNCCL only supports alltoall* for NCCL lib version >= 2.28.0",
])
def test_near_misses_of_the_p2p_stub(line):
    assert not [h for h in match(line) if h.message.id == "pytorch.p2p_needs_nccl_2_7"]


def test_the_p2p_stub_says_the_build_and_the_library_differ(tmp_path):
    verdict = console_verdict(tmp_path, CASES[0][2])
    assert verdict.cls == "version_mismatch"
    assert "built against another NCCL" in verdict.summary
