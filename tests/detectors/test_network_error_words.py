"""N401 quotes the line that says what failed: NCCL's `Last error:` below a generic result code names the call and
the peer."""
from __future__ import annotations

TEXT = ("torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1333, "
        "unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.18.6\n"
        "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. \n"
        "Last error:\n"
        "socketStartConnect: Connect to 192.168.19.14<52822> failed : No route to host\n")


def test_the_last_error_below_a_result_code_is_the_line_quoted(diagnose_text):
    d = diagnose_text(TEXT)
    assert d.verdict.cls == "network_error", d.verdict.summary
    assert "(peer 192.168.19.14:52822): socketStartConnect: Connect to" in d.verdict.summary, d.verdict.summary
