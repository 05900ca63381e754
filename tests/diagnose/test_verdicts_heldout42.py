"""Held-out set 42: hang evidence that is not a console error: py-spy dumps (with and without --native, pasted
without their header), faulthandler stacks and gdb/cuda-gdb backtraces of hung NCCL processes. One verdict test per
case, then the families it missed:

- A stack snapshot alone (every rank inside a collective, a gdb thread in `ncclGroupEnd`) is no finding and no
  all-clear: inconclusive, the project's rule for a live snapshot (a job caught between steps looks the same).
- gdb's `thread apply all bt` and `bt` (gdb/stack.c print_frame, gdb/thread.c) were not read at all: they are now
  `native_thread` events, and a thread inside NCCL's API, a c10d process-group call or a gloo wait places its rank
  inside a collective, as a py-spy dump does (R202 names the rank a dump shows elsewhere).
- py-spy frames pasted without their `Thread ... (idle): "MainThread"` header were dropped: they are one thread.
- A py-spy file's other lines never reached the message catalogue, so SGLang's watchdog line around its own py-spy
  dump was unparsed; and SGLang's ProcessWatchdog (srt/utils/watchdog.py) prints `Scheduler watchdog timeout
  (self.watchdog_timeout=300, self.soft=False)`, which the older entry's pattern did not match.
"""
from __future__ import annotations

import pytest

from nccl_forensics.pipeline.reduce import diagnose

from .consoles import PROGRESS, check_case, console_verdict

SNAPSHOT = ("inconclusive", "timeout_unknown")

CASES = [
    ("pytorch/pytorch#87995", ("inconclusive",), None,      # rank0 is named only in the prose around the dump
     "The stack for rank0:\n"
     'Thread 0x7FA6E7C01740 (idle): "MainThread"\n'
     "    wait (threading.py:302)\n"
     "    get (queue.py:170)\n"
     "    __next__ (fairseq/data/iterators.py:648)\n"
     "    train (fairseq_cli/train.py:274)\n"),
    ("Lightning-AI/pytorch-lightning#18857", SNAPSHOT, None,
     "Some processes stuck at\n"
     "    synchronize (torch/cuda/__init__.py:721)\n"
     "    stop (nemo/utils/timers.py:115)\n"
     "    _on_batch_end (nemo/utils/exp_manager.py:195)\n"
     'Thread 0x1502C1907640 (idle): "Thread-2 (_pin_memory_loop)"\n'
     "    select (selectors.py:415)\n"),
    ("sgl-project/sglang#3709", ("unclassified_failure", "timeout_unknown"), None,
     "frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x96 (0x7f164c56c446 in "
     "/usr/local/lib/python3.10/dist-packages/torch/lib/libc10.so)\n\n"
     "Fatal Python error: Aborted\n\n"
     "Thread 0x00007efd936fb640 (most recent call first):\n"
     '  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 462 in watchdog_thread\n\n'
     "Thread 0x00007fe403b964c0 (most recent call first):\n"
     '  File "/usr/local/lib/python3.10/dist-packages/torch/distributed/distributed_c10d.py", line 2425 in broadcast\n'
     '  File "/sgl-workspace/sglang/python/sglang/srt/utils.py", line 693 in broadcast_pyobj\n'),
    ("NVIDIA/nccl#1774", SNAPSHOT, None,
     'Thread 1 "python" received signal SIGINT, Interrupt.\n'
     "(cuda-gdb) bt\n"
     "#0  0x00007f68194a8adf in clock_nanosleep () from /lib/x86_64-linux-gnu/libc.so.6\n"
     "#6  0x00007f67471be402 in pncclCommInitRankConfig () from /lib/x86_64-linux-gnu/libnccl.so.2\n"
     "#9  0x00007f67aa04d7ca in c10d::ProcessGroupNCCL::recv(std::vector<at::Tensor, std::allocator<at::Tensor> >&, "
     "int, int) ()\n   from /usr/local/lib/python3.12/dist-packages/torch/lib/libtorch_cuda.so\n"),
    ("NVIDIA/nccl#901", SNAPSHOT, None,
     "========rank0=================\n(gdb) thread apply all bt\n\n"
     "Thread 1 (Thread 0x7f31a6ea7000 (LWP 496116)):\n"
     "#12 0x00007f31a777cfe6 in cudaLaunchKernel () from /usr/local/lib/libnccl.so.2\n"
     "#13 0x00007f31a76877bd in ncclLaunchKernel (comm=comm@entry=0x555a34139b10, plan=plan@entry=0x555a79a14c30) "
     "at enqueue.cc:1092\n"
     "#16 0x00007f31a768d908 in ncclGroupEndInternal () at group.cc:406\n"),
    ("pytorch/pytorch#95944", SNAPSHOT, None,
     'All the ranks are waiting for "cudaDeviceSynchronize ()" except the last one on the second node.\n'
     "#0  0x000014cd955ebdbc in ?? () from /lib64/libcuda.so.1\n"
     "#14 0x000014cdd8a6cf36 in cudaMemcpyAsync () from /g/data/z00/yxs900/installation/cuda/11.3.0/lib64/"
     "libcudart.so.11.0\n"),
    ("NVIDIA/TensorRT-LLM#2560", SNAPSHOT, None,
     "rank1\n(cuda-gdb) info cuda kernels \nNo CUDA kernels.\n"
     'Thread 16 (Thread 0x7f997d9fa000 (LWP 1705706) "executionLoop"):\n'
     "#0  0x00007fa4e83c841d in syscall () from /lib64/libc.so.6\n"
     "#6  0x00007fa56762974d in cudaStreamQuery () from /home/a/libnvinfer_plugin_tensorrt_llm.so\n"),
    ("sgl-project/sglang#17941", ("timeout_unknown", "stuck_rank"), None,
     "[2026-01-29 13:12:37 PP1 TP1] Scheduler watchdog timeout (self.watchdog_timeout=300, self.soft=False)\n\n\n"
     "[2026-01-29 13:12:37 PP2 TP1] Pyspy dump for PID 88693:\n"
     "Process 88693: sglang::scheduler_PP2_TP1\nPython v3.12.3 (/usr/bin/python3.12)\n\n"
     'Thread 88693 (idle): "MainThread"\n'
     "    pthread_cond_timedwait (libc.so.6)\n"
     "    gloo::transport::tcp::UnboundBuffer::waitRecv (libtorch_cpu.so)\n"),
    ("NVIDIA/nccl#899", SNAPSHOT, None,
     "(gdb) thread apply all bt\n\nThread 18 (Thread 0x7f0498ffd700 (LWP 135332)):\n"
     "#0  0x00007f05daa8fe8b in pthread_rwlock_wrlock () from /usr/lib/x86_64-linux-gnu/libpthread.so.0\n"
     "#8  0x00007f04fc98d6e6 in ncclGroupEnd () from /usr/lib/x86_64-linux-gnu/libnccl.so.2\n"),
    ("NVIDIA/nccl#719", SNAPSHOT, None,
     "(gdb) thread apply all bt\n\nThread 10 (Thread 0x7fd0a1ffd700 (LWP 103)):\n"
     "#0  0x00007fd31dfd7474 in __libc_read (fd=36, buf=0x7fd0a1ffce70, nbytes=16) at "
     "../sysdeps/unix/sysv/linux/read.c:27\n"
     "#1  0x00007fd24ceb415f in ibv_get_async_event () from /usr/lib/x86_64-linux-gnu/libibverbs.so.1\n"
     "#3  0x00007fd2e7127003 in ncclIbAsyncThreadMain (args=0x559abaf04850) at transport/net_ib.cc:70\n"),
]


@pytest.mark.parametrize("issue,want,culprits,text", CASES, ids=[case[0] for case in CASES])
def test_each_case_of_the_set(issue, want, culprits, text, tmp_path):
    check_case(tmp_path, (text, want, culprits), progress="")


def test_sglang_process_watchdog_in_a_console_is_a_timeout(tmp_path):
    v = console_verdict(tmp_path, "[2026-01-29 13:12:37 TP0] Scheduler watchdog timeout "
                                  "(self.watchdog_timeout=300, self.soft=False)")
    assert v.cls in ("timeout_unknown", "stuck_rank")


def test_a_soft_watchdog_only_reports_and_is_no_failure(tmp_path):
    v = console_verdict(tmp_path, "[2026-01-29 13:12:37 TP0] Scheduler watchdog timeout "
                                  "(self.watchdog_timeout=300, self.soft=True)", PROGRESS)
    assert v.cls == "inconclusive"


def test_the_watchdog_line_inside_a_py_spy_file_is_read(tmp_path):
    text = ('Thread 90522 (idle): "Thread-2 (_watchdog_thread)"\n    poll (libc.so.6)\n    select (selectors.py:415)\n'
            "[2026-01-29 13:12:37 PP1 TP1] Scheduler watchdog timeout (self.watchdog_timeout=300, self.soft=False)\n"
            "Process 88693: sglang::scheduler_PP2_TP1\nPython v3.12.3 (/usr/bin/python3.12)\n\n"
            'Thread 88693 (idle): "MainThread"\n    wait (threading.py:359)\n')
    (tmp_path / "dump.txt").write_text(text)
    assert diagnose([str(tmp_path)], jobs=1).verdict.cls in ("timeout_unknown", "stuck_rank")
