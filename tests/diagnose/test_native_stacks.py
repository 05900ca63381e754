"""gdb backtraces place a rank inside a collective (diagnosis/native_stacks.py), as py-spy does: R202 then names
the rank a py-spy dump shows elsewhere."""
from __future__ import annotations

from nccl_forensics.diagnosis.native_stacks import communication_call
from nccl_forensics.pipeline.reduce import diagnose

_IN_GROUP_END = """(gdb) thread apply all bt

Thread 2 (Thread 0x7f2a1cbff640 (LWP 4121) "python"):
#0  0x00007f2a5e491117 in pthread_cond_wait () from /lib/x86_64-linux-gnu/libc.so.6
#1  0x00007f2a0c6a1b2e in ncclProxyProgress (proxyState_=0x55d0c1a2e0c0) at proxy.cc:920

Thread 1 (Thread 0x7f2a5e7c4740 (LWP 4097) "python"):
#0  0x00007f2a5e4e57f8 in sched_yield () from /lib/x86_64-linux-gnu/libc.so.6
#1  0x00007f2a0c66d4a2 in ncclGroupEndInternal () at group.cc:406
#2  0x00007f2a0c66e0f1 in ncclGroupEnd () at group.cc:110
#3  0x00007f2a2a3f5c17 in c10d::ProcessGroupNCCL::allreduce_impl(at::Tensor&, c10d::AllreduceOptions const&) ()
   from /usr/local/lib/python3.10/dist-packages/torch/lib/libtorch_cuda.so
"""
_LOADING = """Process 4300: python train.py
Python v3.10.12 (/usr/bin/python3.10)

Thread 4300 (idle): "MainThread"
    wait (threading.py:320)
    get (queue.py:171)
    _next_data (torch/utils/data/dataloader.py:1328)
    train (train.py:88)
"""


def test_the_outermost_communication_call_names_the_wait_and_helper_threads_name_none():
    frames = [{"function": f} for f in ("sched_yield", "ncclGroupEndInternal", "ncclGroupEnd",
                                        "c10d::ProcessGroupNCCL::allreduce_impl(at::Tensor&)", "??")]
    assert communication_call(frames) == "c10d::ProcessGroupNCCL::allreduce_impl"
    assert communication_call([{"function": "pthread_cond_wait"}, {"function": "ncclProxyProgress"},
                               {"function": "cudaStreamSynchronize"}]) is None


def test_gdb_ranks_inside_and_a_py_spy_rank_loading_data_make_that_rank_stuck(tmp_path):
    for rank in (0, 1, 2):
        (tmp_path / f"bt_rank{rank}.txt").write_text(_IN_GROUP_END)
    (tmp_path / "pyspy_rank3.txt").write_text(_LOADING)
    v = diagnose([str(tmp_path)], jobs=1).verdict
    assert (v.cls, v.culprit_ranks) == ("stuck_rank", [3])
    assert "allreduce_impl" in v.summary
