"""grammars/gdb.lark rule tables and GdbParser threads (gdb's gdb/stack.c print_frame and gdb/thread.c)."""
from __future__ import annotations

from pathlib import Path

import pytest
from grammar_table import assert_invalid, assert_valid

from nccl_forensics.model import Source, SourceKind
from nccl_forensics.sources import parse_source
from nccl_forensics.sources.gdb import classify, split_call

SAMPLES = Path(__file__).resolve().parents[2] / "sample_logs" / "evidence" / "gdb"

VALID = [
    ('Thread 16 (Thread 0x7f997d9fa000 (LWP 1705706) "executionLoop"):', "thread",
     {"thread": 16, "lwp": 1705706, "name": "executionLoop"}),
    ("Thread 12 (Thread 0x7fd07dfff700 (LWP 112)):", "thread", {"thread": 12, "lwp": 112, "name": None}),
    ("Thread 2 (LWP 52574):", "thread", {"thread": 2, "lwp": 52574}),
    ("#6  0x00007f67471be402 in pncclCommInitRankConfig () from /lib/x86_64-linux-gnu/libnccl.so.2", "frame",
     {"level": 6, "function": "pncclCommInitRankConfig", "file": "/lib/x86_64-linux-gnu/libnccl.so.2", "line": None}),
    ("#3  0x00007f326f3d9740 in ncclProxyGetPostedOps (added=<synthetic pointer>, proxyState=0x5603cb96d1e0) at "
     "proxy.cc:713", "frame", {"function": "ncclProxyGetPostedOps", "file": "proxy.cc", "line": 713}),
    ("#4  ncclProxyProgress (proxyState_=0x5603cb96d1e0) at proxy.cc:868", "frame",
     {"level": 4, "function": "ncclProxyProgress", "line": 868}),
    ("#0  futex_wait_cancelable (private=<optimized out>, expected=0, futex_word=0x7f322e7fb158) at "
     "../sysdeps/nptl/futex-internal.h:183", "frame", {"level": 0, "function": "futex_wait_cancelable"}),
    ("#7  0x00007f67a9ff6236 in c10d::NCCLComm::create(int, int, ncclUniqueId, signed char, ncclConfig_v22700&) () "
     "from /usr/local/lib/python3.12/dist-packages/torch/lib/libtorch_cuda.so", "frame",
     {"function": "c10d::NCCLComm::create(int, int, ncclUniqueId, signed char, ncclConfig_v22700&)"}),
    ("#1  0x0000000000000000 in ?? ()", "frame", {"function": "??", "file": None}),
    ("    () from /usr/local/lib/python3.12/dist-packages/torch/lib/libtorch_cuda.so", "tail",
     {"file": "/usr/local/lib/python3.12/dist-packages/torch/lib/libtorch_cuda.so"}),
    ("   from /usr/local/lib/python3.12/dist-packages/torch/lib/libtorch_cuda.so", "tail", {"line": None}),
    ("--Type <RET> for more, q to quit, c to continue without paging--", "pager", {}),
    ("---Type <return> to continue, or q <return> to quit---", "pager", {}),
]
INVALID = ['Thread 1 "python" received signal SIGINT, Interrupt.', 'Thread 0x7FA6E7C01740 (idle): "MainThread"',
           "Thread 0x00007f76da71d6c0 (most recent call first):", "# nThread 1 nGpus 1", "#define X 1",
           "  Id   Target Id         Frame"]


@pytest.mark.parametrize("text, kind, fields", VALID)
def test_valid_lines(text, kind, fields):
    assert_valid(classify, text, kind, fields)


@pytest.mark.parametrize("text", INVALID)
def test_invalid_lines(text):
    assert_invalid(classify, text)


def test_a_function_keeps_its_parameter_list_and_loses_its_arguments():
    assert split_call("c10d::ProcessGroupNCCL::recv(std::vector<at::Tensor>&, int, int) ()")["function"] == \
        "c10d::ProcessGroupNCCL::recv(std::vector<at::Tensor>&, int, int)"
    assert split_call("ncclLaunchKernel (comm=comm@entry=0x555a, plan=plan@entry=0x555b) at enqueue.cc:1092") == \
        {"function": "ncclLaunchKernel", "file": "enqueue.cc", "line": 1092}


def threads(path):
    result = parse_source(Source(str(path), SourceKind.CONSOLE))
    assert result.error is None
    return [e for e in result.events if e.kind == "native_thread"]


def test_thread_apply_all_bt_gives_one_event_per_thread_with_wrapped_frames_and_pager():
    proxy, main = threads(SAMPLES / "thread_apply_all_bt.txt")
    assert (proxy.data["thread"], proxy.data["lwp"], proxy.data["name"]) == (3, 4121, "python")
    assert [f["function"] for f in proxy.data["frames"]][2] == "ncclProxyProgress"
    names = [f["function"] for f in main.data["frames"]]
    assert names[:3] == ["sched_yield", "ncclGroupEndInternal", "ncclGroupEnd"] and len(names) == 7
    assert main.data["frames"][3]["file"].endswith("libtorch_cuda.so")       # its `from LIB` on the next line


def test_a_bt_without_thread_headers_is_one_thread_and_a_new_frame_0_starts_another(tmp_path):
    log = tmp_path / "bt.log"
    log.write_text("(cuda-gdb) bt\n#0  0x1 in clock_nanosleep () from /lib/libc.so.6\n"
                   "#1  0x2 in pncclCommInitRankConfig () from /lib/libnccl.so.2\n"
                   "(cuda-gdb) bt\n#0  0x3 in poll () from /lib/libc.so.6\n")
    first, second = threads(log)
    assert first.data["thread"] is None and [f["function"] for f in first.data["frames"]] == \
        ["clock_nanosleep", "pncclCommInitRankConfig"]
    assert [f["function"] for f in second.data["frames"]] == ["poll"]
