"""Held-out set 63: real pastes of XLA's NCCL status in JAX jobs, an accelerate run whose paste kept torch elastic's
exit-barrier traceback without the log line above it, Horovod's stall reports (both formats), the HSA runtime's GPU
hang on MI300X, DeepSpeed's IB completion error, a Ray/vLLM store timeout and an uneven final epoch. One verdict test
per case, then what the set showed:

- XLA quotes a failed NCCL call with its arguments (`NCCL operation ncclCommInitRank(&comm, nranks, id, rank) failed:
  unhandled cuda error`): catalogue xla.nccl_operation_failed; it read as no failure at all before.
- torch 2.5's flight-recorder analyzer headed its error block `Collective 39 at entry 38 errors` (grammars/frtrace.lark):
  its culprits and SIZE_OR_SYNTAX_MISMATCH now decide, where nothing was read before.
- The exit barrier's traceback, pasted without `Error waiting on exit barrier`, still shows the barrier in its frame
  (`in _exit_barrier`, catalogue torchrun.exit_barrier_frame): the store's `Socket Timeout` under it is the barrier's
  wait, not a rank that never arrived, and the NCCL socket error beside it decides.
"""
from __future__ import annotations

import pytest

from .consoles import check_case, console_verdict

_XLA_INIT = ("INTERNAL: external/xla/xla/service/gpu/nccl_utils.cc:{line}: NCCL operation ncclCommInitRank(&comm, "
             "nranks, id, rank) failed: {reason}")
_EXIT_BARRIER_TRACEBACK = (
    "Traceback (most recent call last):\n"
    '  File "/opt/conda/lib/python3.7/site-packages/torch/distributed/elastic/agent/server/api.py", line 904, in '
    "_exit_barrier\n"
    "    barrier_timeout=self._exit_barrier_timeout,\n"
    '  File "/opt/conda/lib/python3.7/site-packages/torch/distributed/elastic/utils/store.py", line 67, in barrier\n'
    "    synchronize(store, data, rank, world_size, key_prefix, barrier_timeout)\n"
    '  File "/opt/conda/lib/python3.7/site-packages/torch/distributed/elastic/utils/store.py", line 31, in get_all\n'
    '    data = store.get(f"{prefix}{idx}")\n'
    "RuntimeError: Socket Timeout\n")

CASES = [
    ("jax-ml/jax#17399", ("unclassified_failure",), None,
     "W external/xla/xla/service/gpu/runtime/support.cc:58] Intercepted XLA runtime error:\n"
     + _XLA_INIT.format(line=275, reason="unhandled cuda error") + "\n"
     "2023-09-01 10:20:11.257981: E external/xla/xla/pjrt/pjrt_stream_executor_client.cc:2593] Execution of replica 3 "
     "failed: INTERNAL: Failed to execute XLA Runtime executable: run time error: custom call 'xla.gpu.all_reduce' "
     "failed: " + _XLA_INIT.format(line=275, reason="unhandled cuda error")[10:] + "; current tracing scope: "
     "all-reduce-start.163\n"),
    ("jax-ml/jax#22747", ("network_error",), None,
     "user-G493:275204:275658 [4] NCCL INFO bootstrap.cc:280 -> 2\n"
     + _XLA_INIT.format(line=305, reason="unhandled system error (run with NCCL_DEBUG=INFO for details). Last NCCL "
                        "warning(error) log entry (may be unrelated) 'socketTryAccept: Accept failed: Bad file "
                        "descriptor'.") + "\n"),
    ("NVIDIA/nccl#1105", ("network_error",), None,
     _EXIT_BARRIER_TRACEBACK
     + "ps-8:796:796 [1] NCCL INFO Using network Socket\n"
     "ps-8:795:822 [0] include/socket.h:409 NCCL WARN Net : Connect to 192.168.1.9<54263> failed : No route to host\n"),
    ("ROCm/legacy-rocm-build#4021", ("dropped_rank", "stuck_rank"), None,
     " 41%|████▌     | 366/903 [5:15:39<6:53:09, 46.16s/it]HW Exception by GPU node-9 (Agent handle: 0x631351bb5a20) "
     "reason :GPU Hang\n"
     "HW Exception by GPU node-9 (Agent handle: 0x64ff272d8ab0) reason :GPU Hang\nAborted (core dumped)\n"),
    ("pytorch/pytorch#140563", ("shape_mismatch",), [22, 110],
     "Collective 39 at entry 38 errors\ngroup info: 0:default_pg\ncollective: nccl:all_reduce\n"
     "input sizes: [[1025]]\noutput sizes: [[1025]]\nworld size: 128\ncollective state: scheduled\n"
     "error msg: Culprit rank 22; Error type: SIZE_OR_SYNTAX_MISMATCH, Expected input sizes: '[[1025]]' does not match "
     "found input sizes: '[[262144]]', Culprit rank 110; Error type: SIZE_OR_SYNTAX_MISMATCH, Expected input sizes: "
     "'[[1025]]' does not match found\n"),
    ("horovod/horovod#2565", ("stuck_rank", "collective_skipped"), [1],
     "[2020-12-30 16:35:15.181832: W /tmp/pip-req-build-12flcl_u/horovod/common/stall_inspector.cc:105] One or more "
     "tensors were submitted to be reduced, gathered or broadcasted by subset of ranks and are waiting for remainder "
     "of ranks for more than 60 seconds. This may indicate that different ranks are trying to submit different "
     "tensors or that only subset of ranks is submitting tensors, which will cause deadlock.\nMissing ranks:\n"
     "1: [DistributedGradientTape_Allreduce/cond_163/then/_1304/DistributedGradientTape_Allreduce/cond_163/"
     "HorovodAllreduce_AddN_103_0]\n"),
]


@pytest.mark.parametrize("issue,want,culprits,text", CASES, ids=[case[0] for case in CASES])
def test_each_case_of_the_set(issue, want, culprits, text, tmp_path):
    check_case(tmp_path, (text, want, culprits), progress="")


def test_an_exit_barrier_traceback_alone_blames_no_rank(tmp_path):
    """Its store timeout is the barrier's wait for slower agents: no rank is named stuck or missing by it."""
    verdict = console_verdict(tmp_path, _EXIT_BARRIER_TRACEBACK, progress="")
    assert verdict.cls not in ("stuck_rank", "dropped_rank"), verdict.summary
