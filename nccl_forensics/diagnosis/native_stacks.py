"""Native stacks (gdb and cuda-gdb backtraces, `native_thread` events): the communication call a thread is
blocked in, which places a rank inside a collective as a py-spy dump does.

Only calls that wait for peers count: NCCL's API (and its profiling aliases, `pnccl*`; NCCL src/nccl.h.in),
torch's process-group calls and work waits (torch/csrc/distributed/c10d) and gloo's buffer waits
(gloo/transport/unbound_buffer.h). NCCL's own helper threads (the proxy, the IB async thread) and CUDA's sit in
their waits in every healthy process, and a device synchronisation may wait for any kernel: neither places a rank.
"""
from __future__ import annotations

import re

_COMM = re.compile(
    r"^p?nccl(?:GroupEnd\w*|CommInit\w*|CommSplit|CommFinalize|CommDestroy|CommAbort|AllReduce|AllGather|"
    r"ReduceScatter|Broadcast|Bcast|Reduce|Send|Recv|AllToAll\w*)\b"
    r"|^c10d::ProcessGroup\w*::(?:\w*Work::wait|allreduce\w*|allgather\w*|_allgather_base|broadcast|reduce_scatter\w*"
    r"|_reduce_scatter_base|barrier|send|recv\w*|alltoall\w*|initNCCLComm|getNCCLComm)\b"
    r"|^gloo::\S*::wait(?:Recv|Send)\b")


def communication_call(frames: list[dict]) -> str | None:
    """The outermost communication call of a native stack (innermost first), without its parameter list; None
    when the thread is not inside one."""
    found = None
    for frame in frames:
        name = frame.get("function") or ""
        if _COMM.search(name):
            found = name.split("(")[0]
    return found
