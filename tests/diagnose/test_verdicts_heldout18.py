"""Families missed on held-out set 18 (console pastes from GitHub issues of training stacks: NeMo/Megatron, nccl-tests,
Azure VMs, ...), each in the forms it arrives in:

- NCCL's WARN for an address of no IP family it is to connect to, in all three wordings: `Error : connecting to
  address with family N ...` (2.8 - 2.9), `Net : connecting to address A with family N ...` (2.10 - 2.15) and
  `ncclSocketInit: connecting to address A ...` (2.16+). Only the last was read, and as a wrong NIC: the address is
  one a peer sent (NCCL's own interfaces are always AF_INET/AF_INET6), so the connection cannot be made.
- c10::Error's backtrace of the watchdog's timeout with the message itself cut off above it: `Exception raised from
  checkTimeout at .../ProcessGroupNCCL.cpp:N` and the frame that built it (`frame #1: c10d::ProcessGroupNCCL::
  WorkNCCL::checkTimeout(`): WorkNCCL::checkTimeout builds no other error.
- torchrun's failure table pasted without its `Failures:` head: each entry's `time` row was not read, so entries that
  torchrun saw fail at the same second read as one rank dropping out ahead of the others.
"""
from __future__ import annotations

import pytest

from .consoles import console_verdict


@pytest.mark.parametrize("line", [
    "node-1:4121:4180 [0] include/socket.h:370 NCCL WARN Error : connecting to address with family 0 is neither "
    "AF_INET(2) nor AF_INET6(10)",
    "h100-4:739790:739878 [4] misc/socket.cc:397 NCCL WARN Net : connecting to address  with family 33621 is neither "
    "AF_INET(2) nor AF_INET6(10)\nh100-4:739790:739878 [4] NCCL INFO bootstrap.cc:256 -> 3",
    "gpu-2:88:91 [1] misc/socket.cc:713 NCCL WARN ncclSocketInit: connecting to address  with family 59936 is neither "
    "AF_INET(2) nor AF_INET6(10)",
    "[1,3]<stdout>:gpu-2:88:91 [1] NCCL WARN Net : connecting to address 10.1.2.3<4000> with family 0 is neither",
])
def test_an_address_of_no_ip_family_is_a_connection_that_cannot_be_made(line, tmp_path):
    verdict = console_verdict(tmp_path, line)
    assert verdict.cls == "network_error", verdict.summary


FRAME_0 = ("frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x96 (0x7faa8a16c1b6 in "
           "/usr/lib/python3.10/site-packages/torch/lib/libc10.so)")
FRAME_1 = ("frame #1: c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long, "
           "std::ratio<1l, 1000l> > >) + 0x23d (0x1554e5d1030d in /usr/lib/python3.10/site-packages/torch/lib/"
           "libtorch_cuda.so)")
FRAME_2 = ("frame #2: c10d::ProcessGroupNCCL::watchdogHandler() + 0xdb8 (0x1554e5d11c98 in "
           "/usr/lib/python3.10/site-packages/torch/lib/libtorch_cuda.so)")


@pytest.mark.parametrize("text", [
    f"{FRAME_0}\n{FRAME_1}\n{FRAME_2}\n\nterminate called after throwing an instance of 'c10::DistBackendError'\n"
    "  what():  [PG ID 6 PG GUID 102(PIPELINE_MOD",
    f"{FRAME_0}\n{FRAME_1}\n{FRAME_2}",
    "Exception raised from checkTimeout at /pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:632 (most recent "
    f"call first):\n{FRAME_0}",
    "[rank3]: Exception raised from checkTimeout at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:565 (most "
    "recent call first):",
])
def test_the_backtrace_of_the_watchdogs_timeout_is_a_timeout(text, tmp_path):
    verdict = console_verdict(tmp_path, text)
    assert verdict.cls in ("timeout_unknown", "stuck_rank"), verdict.summary


def test_a_frame_of_checktimeout_below_another_thrower_is_no_timeout(tmp_path):
    # checkTimeout at frame #2 is a caller of whatever threw: that error is not the watchdog's timeout
    text = ("frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x96 (0x7f in libc10.so)\n"
            "frame #1: c10::cuda::c10_cuda_check_implementation(int, char const*, char const*, int, bool) + 0x64 "
            "(0x7f in libc10_cuda.so)\n"
            "frame #2: c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long, "
            "std::ratio<1l, 1000l> > >) + 0x1d2 (0x7f in libtorch_cuda.so)")
    verdict = console_verdict(tmp_path, text)
    assert verdict.cls not in ("timeout_unknown", "stuck_rank"), verdict.summary


def _table(entries, head: str = "") -> str:
    rows = []
    for i, (rank, code, stamp) in enumerate(entries):
        rows += [f"[{i}]:", f"  time      : {stamp}", "  host      : vm-1.internal.cloudapp.net",
                 f"  rank      : {rank} (local_rank: {rank})", f"  exitcode  : {code} (pid: {6981 + rank})",
                 "  error_file: <N/A>",
                 "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html"]
    return head + "\n".join(rows)


def test_headerless_table_rows_carry_the_time_torchrun_saw_each_failure(tmp_path):
    from nccl_forensics.model import Source, SourceKind
    from nccl_forensics.sources import parse_source
    path = tmp_path / "console.log"
    path.write_text(_table([(1, 1, "2024-03-05_07:01:51"), (2, 1, "2024-03-05_07:01:53")]) + "\n", encoding="utf-8")
    failed = [ev for ev in parse_source(Source(str(path), SourceKind.CONSOLE)).events if ev.kind == "child_failed"]
    assert [(ev.rank, ev.data.get("exitcode")) for ev in failed] == [(1, 1), (2, 1)]
    assert failed[1].time - failed[0].time == 2
    assert all("rank" in ev.text for ev in failed)          # cited by the row that names the process


def test_ranks_that_failed_at_the_same_second_are_no_dropped_rank(tmp_path):
    # every rank exited with 1 in the same second (torchrun's own times): none ended ahead of the others
    text = _table([(1, 1, "2024-03-05_07:01:51"), (2, 1, "2024-03-05_07:01:51"), (3, 1, "2024-03-05_07:01:51")])
    verdict = console_verdict(tmp_path, text)
    assert verdict.cls == "unclassified_failure", verdict.summary
    assert verdict.culprit_ranks == []


def test_a_rank_that_failed_first_by_torchruns_times_is_still_the_dropped_rank(tmp_path):
    text = _table([(2, 1, "2024-03-05_07:01:51"), (1, 1, "2024-03-05_07:02:30"), (3, 1, "2024-03-05_07:02:30")])
    verdict = console_verdict(tmp_path, text)
    assert verdict.cls == "dropped_rank", verdict.summary
    assert verdict.culprit_ranks == [2]
