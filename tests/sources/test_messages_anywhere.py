"""The messages that decide a verdict, as real logs print them: anywhere in a line, cut, or spread over lines."""
from __future__ import annotations

import pytest

from nccl_forensics.sources import parse_source
from nccl_forensics.sources.discover import sniff


def _events(tmp_path, text: str, name: str = "console.log"):
    path = tmp_path / name
    path.write_text(text)
    return [ev for ev in parse_source(sniff(str(path))).events if ev.kind != "unparsed"]


@pytest.mark.parametrize("line,message", [
    ("[rank3]: RuntimeError: CUDA error: an illegal memory access was encountered", "an illegal memory access was "
     "encountered"),
    ("[PG ID 0 PG GUID 0(default_pg) Rank 3] Process group watchdog thread terminated with exception: CUDA error: "
     "an illegal memory access was encountered", "an illegal memory access was encountered"),
    ("2025-01-01 10:00:00 ERROR worker - RuntimeError: CUDA error: misaligned address", "misaligned address"),
    ("[rank4]: For debugging consider passing CUDA_LAUNCH_BLOCKING=1", None),
])
def test_a_cuda_error_anywhere_in_a_line(tmp_path, line, message):
    (ev,) = [e for e in _events(tmp_path, line + "\n") if e.kind == "cuda_error"]
    assert ev.data["message"] == message


def test_a_cuda_oom_is_an_oom_not_a_cuda_error(tmp_path):
    kinds = [e.kind for e in _events(tmp_path, "[rank1]: RuntimeError: CUDA error: out of memory\n")]
    assert "oom" in kinds and "cuda_error" not in kinds


def test_ncclerror_and_its_last_error_on_the_next_line_are_joined(tmp_path):
    text = ("Traceback (most recent call last):\n"
            '  File "train.py", line 3, in <module>\n'
            "torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1970, unhandled system error "
            "(run with NCCL_DEBUG=INFO for details), NCCL version 2.18.1\n"
            "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error.\n"
            "Last error:\n"
            "socketProgress: Connection reset by peer\n")
    errors = [e for e in _events(tmp_path, text) if e.kind == "nccl_error"]
    assert any(e.data["code"] == "ncclSystemError" for e in errors)
    assert any(e.data["last_error"] == "socketProgress: Connection reset by peer" for e in errors)


def test_a_torchfrtrace_report_is_read(tmp_path):
    text = ("Not all ranks joining collective, sequence number: 31117\n"
            "internal record id: 31116\n"
            "group info: 0:default_pg\n"
            "collective: nccl:all_reduce\n"
            "missing ranks: {3, 4}\n"
            "input sizes: [[1571911]]\n"
            "output sizes: [[1571911]]\n"
            "world size: 8\n"
            "expected ranks: {0, 1, 2, 3, 4, 5, 6, 7}\n"
            "collective state: scheduled\n"
            "collective stack trace: \n"
            " all_reduce at /x/torch/distributed/distributed_c10d.py:2707\n")
    (ev,) = [e for e in _events(tmp_path, text) if e.kind == "frtrace_report"]
    assert (ev.line, ev.data["problem"], ev.data["seq"], ev.data["missing_ranks"]) == (1, "not_joining", 31117, [3, 4])
    assert (ev.data["world_size"], ev.data["op"], ev.data["group"]) == (8, "allreduce", "0:default_pg")


def test_a_torchfrtrace_error_block_names_its_culprit(tmp_path):
    text = ("Collective sequence number: 12 has errors\n"
            "internal record id: 11\n"
            "group info: 0:default_pg\n"
            "collective: nccl:all_reduce\n"
            "error msg: Culprit rank 2; Error type: COLLECTIVE_DTYPE_MISMATCH, Expected dtypes: 'Float' does not "
            "match found dtype: 'Double'.\n"
            "collective stack trace: \n")
    (ev,) = [e for e in _events(tmp_path, text) if e.kind == "frtrace_report"]
    assert ev.data["culprits"] == [2] and ev.data["errors"] == ["COLLECTIVE_DTYPE_MISMATCH"]


@pytest.mark.parametrize("expected", ["expected ranks: {0, 1, 2, 3}", "expected ranks: 4"])
def test_torch_2_5_s_error_block_is_read_in_both_its_forms(expected, tmp_path):
    """torch 2.5's analyzer headed its error block `Collective N at entry M errors` (the sequence number, then the
    record id); its first form said `expected ranks: 4` (a count) and `error message:`, its later one the set and
    `error msg:`."""
    message = "error message:" if expected.endswith("4") else "error msg:"
    text = ("Collective 39 at entry 38 errors\n"
            "group info: 0:default_pg\n"
            "collective: nccl:all_reduce\n"
            "input sizes: [[1025]]\n"
            "output sizes: [[1025]]\n"
            f"{expected}\n"
            "collective state: scheduled\n"
            f"{message} Culprit rank 2; Error type: SIZE_OR_SYNTAX_MISMATCH, Expected input sizes: '[[1025]]' does "
            "not match found input sizes: '[[262144]]'\n")
    (ev,) = [e for e in _events(tmp_path, text) if e.kind == "frtrace_report"]
    assert (ev.line, ev.data["problem"], ev.data["seq"], ev.data["record_id"]) == (1, "errors", 39, 38)
    assert ev.data["culprits"] == [2] and ev.data["errors"] == ["SIZE_OR_SYNTAX_MISMATCH"]


def test_a_line_that_only_begins_like_a_report_is_no_report(tmp_path):
    text = "Collective communication warmed up in 3.2 s\nCollective 4 at entry 3 went fine\n"
    assert not [e for e in _events(tmp_path, text) if e.kind == "frtrace_report"]


def test_app_logger_rank_prefix_names_the_rank(tmp_path):
    line = ("[RANK 1] 2026-05-19 10:10:29,701 [ERROR] GPU circuit breaker OPEN: cuda_error - RuntimeError: CUDA error: "
            "an illegal memory access was encountered\n")
    (ev,) = [e for e in _events(tmp_path, line) if e.kind == "cuda_error"]
    assert ev.rank == 1
