"""Held-out set 52: jobs on other stacks than torch's (JAX/XLA, TensorFlow with Horovod or its own strategies), SGLang and
vLLM tensor-parallel starts, vLLM under a vGPU shim on Kubernetes (HAMi), Lightning timeouts and a KubeRay pod evicted
for memory. One verdict test per case, then what the set showed:

- XLA's rendezvous (xla/service/rendezvous.cc): a thread that waited past the warning time says how many threads it
  expected; `not all of them arrived` is a participant missing at the collective, `All N threads joined ... however
  the leader` a hang inside the collective or clique init itself.
- apache/tvm-ffi's SIGSEGV handler (loaded with FlashInfer and xgrammar) prints `!!!!!!! Segfault encountered
  !!!!!!!`, then re-raises the signal: the process crashed.
- A process group's watchdog stops at the first work it finds timed out, and a later work cannot have run longer than
  an earlier one: one rank's timeouts at two seqs of one unnamed group, the later one older, are two groups' (or two
  runs'), and the seq no other rank shares is no sign of a rank ahead.
- Two writers' lines glued where one ended without a newline (`frame #8: ... libc.so.6)[rank1]:[W... ] ...`): the
  message after the glued `[rankN]:` is that rank's.
"""
from __future__ import annotations

import pytest

from .consoles import PROGRESS, check_case, console_verdict

_XLA_REMOTE = ("2024-01-11 05:43:11.726254: E external/xla/xla/service/gpu/nccl_utils.cc:211] Aborting communicator: "
               "0x7f3e427e55b0 due to async NCCL error: remote process exited or there was a network error\n"
               "2024-01-11 05:43:11.726330: E external/xla/xla/service/gpu/nccl_utils.cc:219] INTERNAL: "
               "external/xla/xla/service/gpu/nccl_utils.cc:216: NCCL operation async_err failed: remote process "
               "exited or there was a network error\n")
_XLA_WAIT = ("2024-07-29 17:14:59.920189: E external/xla/xla/service/rendezvous.cc:38] This thread has been waiting "
             "for `initialize clique for rank 6; clique=devices=[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15]; stream=0; "
             "run_id=724296073` for 10 seconds and may be stuck. Expected 8 threads to join the rendezvous, but not "
             "all of them arrived on time.\n")
_SEGV = ("[HAMI-core ERROR (pid:565 thread=140267266266944 multiprocess_memory_limit.c:831)]: Illegal device id: "
         "850725928\n!!!!!!! Segfault encountered !!!!!!!\n"
         '  File "/libvgpu/src/cuda/memory.c", line 582, in cuMemCreate\n'
         '  File "misc/cudawrap.cc", line 92, in ncclCuMemHostEnable()\n'
         '  File "/dvs/p4/build/sw/gpgpu/nccl/gitfusion/stable/src/init.cc", line 1852, in ncclCommInitRank\n')
_STORE_GONE = (
    "frame #8: <unknown function> + 0x126850 (0x7bf0d2a79850 in /usr/lib/x86_64-linux-gnu/libc.so.6)[rank1]:[W1101 "
    "02:10:33.411531203 ProcessGroupNCCL.cpp:1783] [PG ID 0 PG GUID 0 Rank 1] Failed to check the \"should dump\" "
    "flag on TCPStore, (maybe TCPStore server has shut down too early), with error: Broken pipe\n"
    "[rank1]:[W1101 02:10:34.411642380 TCPStore.cpp:106] [c10d] sendBytes failed on SocketImpl(fd=79, "
    "addr=localhost:40912, remote=localhost:36055): Broken pipe\n")


def _timeout(rank: int, seq: int, ran_ms: int) -> str:
    return (f"[E ProcessGroupNCCL.cpp:458] [Rank {rank}] Watchdog caught collective operation timeout: "
            f"WorkNCCL(SeqNum={seq}, OpType=ALLREDUCE, Timeout(ms)=1800000) ran for {ran_ms} milliseconds before "
            "timing out.\n")


CASES = [
    ("jax-ml/jax#19307", ("network_error", "dropped_rank"), None, _XLA_REMOTE),
    ("jax-ml/jax#22740", ("collective_skipped", "stuck_rank", "timeout_unknown"), None, _XLA_WAIT),
    ("tensorflow/tensorflow#34375", ("shape_mismatch", "collective_skipped"), None,
     "host2:14508:15205 [0] external/nccl_archive/src/transport/net_ib.cc:651 NCCL WARN NET/IB : collective mismatch "
     "error local size 348160 remote 32768 addr 7fb47b011000 rkey baa8 seq 5a/5a\n"
     "host2:14508:15205 [0] NCCL INFO external/nccl_archive/src/transport/net.cc:470 -> 3\n"),
    ("tensorflow/tensorflow#51760", ("network_error",), None,
     "hai-a100-3:376586:377443 [4] ibvwrap.c:130 NCCL WARN Call to ibv_create_qp failed\n"
     "hai-a100-3:376586:377442 [3] ibvwrap.c:118 NCCL WARN Call to ibv_create_cq failed\n"
     "hai-a100-3:376586:377442 [3] NCCL INFO ib_plugin.c:174 -> 2\n"
     "hai-a100-3:376586:377442 [3] NCCL INFO external/nccl_archive/src/init.cc:878 -> 2\n"),
    ("horovod/horovod#1195", ("network_error", "unclassified_failure"), None,
     "UnknownError (see above for traceback): ncclCommInitRank failed: unhandled system error\n"
     "        [[node DistributedMomentumOptimizer_Allreduce/HorovodAllreduce_gradients_dense_1_BiasAdd_grad_tuple_"
     "control_dependency_1_0 (defined at <string>:51)  = HorovodAllreduce[T=DT_DOUBLE]]]\n"),
    ("sgl-project/sglang#3398", ("stuck_rank", "timeout_unknown", "network_error", "dropped_rank"), None,
     "[rank3]:[W208 00:55:32.444220068 socket.cpp:487] [c10d] waitForInput: socket SocketImpl(fd=103, "
     "addr=[::ffff:11.130.1.53]:52362, remote=[::ffff:11.130.1.53]:5000) timed out after 1800000ms\n"
     "[2025-02-08 00:55:32 TP5] Scheduler hit an exception: Traceback (most recent call last):\n"
     '  File "/usr/local/lib/python3.10/dist-packages/sglang/srt/model_executor/model_runner.py", line 178, in '
     "__init__\n    min_per_gpu_memory = self.init_torch_distributed()\n"),
    ("sgl-project/sglang#3460", ("network_error", "unclassified_failure"), None,
     "[2025-02-09 21:23:00] Received sigquit from a child proces. It usually means the child failed.\n"
     "[2025-02-09 21:23:00 TP2] Scheduler hit an exception: Traceback (most recent call last):\n"
     'File "/sgl-workspace/sglang/python/sglang/srt/distributed/parallel_state.py", line 1055, in '
     "initialize_model_parallel\n"
     "RuntimeError: NCCL error: unhandled system error (run with NCCL_DEBUG=INFO for details)\n"),
    ("Project-HAMi/HAMi-core#169", ("unclassified_failure", "dropped_rank"), None, _SEGV),
    ("Project-HAMi/HAMi#1853", ("unclassified_failure", "dropped_rank"), None,
     "(Worker pid=2245) INFO 05-11 15:34:02 [parallel_state.py:1402] world_size=2 rank=1 local_rank=1 "
     "distributed_init_method=tcp://127.0.0.1:51949 backend=nccl\n"
     "(Worker pid=2244) INFO 05-11 15:34:02 [parallel_state.py:1402] world_size=2 rank=0 local_rank=0 "
     "distributed_init_method=tcp://127.0.0.1:51949 backend=nccl\n"
     "[HAMI-core ERROR (pid:2244 thread=133445224001088 multiprocess_memory_limit.c:1255)]: Illegal device id: 31069\n"
     "!!!!!!! Segfault encountered !!!!!!!\n"
     '  File "/libvgpu/src/multiprocess/multiprocess_memory_limit.c", line 469, in add_gpu_device_memory_usage\n'),
    ("Project-HAMi/HAMi#1479", ("unclassified_failure", "dropped_rank"), None,
     _STORE_GONE + "(EngineCore_DP0 pid=379) ERROR 11-01 02:10:36 [core.py:708] Exception: WorkerProc initialization "
     "failed due to an exception in a background process. See stack trace for root cause.\n"
     "(EngineCore_DP0 pid=379) Traceback (most recent call last):\n"
     '(EngineCore_DP0 pid=379)   File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 712, in '
     "run_engine_core\n(EngineCore_DP0 pid=379)     raise e\n"),
    ("Lightning-AI/pytorch-lightning#19487", ("timeout_unknown", "stuck_rank"), None,
     "  what():  [Rank 0] NCCL watchdog thread terminated with exception: [Rank 0] Watchdog caught collective "
     "operation timeout: WorkNCCL(SeqNum=96117, OpType=ALLREDUCE, Timeout(ms)=1800000) ran for 25625613 milliseconds "
     "before timing out.\n" + "".join(_timeout(r, 64090, ms) for r, ms in
                                      ((4, 1800741), (5, 1800733), (1, 1800769), (6, 1800781), (0, 1800847)))),
    ("meteofrance/py4cast#116", ("timeout_unknown", "stuck_rank"), None,
     "[rank2]:[E1212 17:21:29.139598465 ProcessGroupNCCL.cpp:1515] [PG 0 (default_pg) Rank 2] Process group watchdog "
     "thread terminated with exception: [Rank 2] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1890, "
     "OpType=ALLGATHER, NumelIn=1, NumelOut=4, Timeout(ms)=1800000) ran for 1800022 milliseconds before timing out.\n"),
    ("ray-project/kuberay#2125", ("oom", "dropped_rank"), None,
     "Name:             raycluster-kuberay-head-ldg9f\nNamespace:        default\n"
     "Status:           Failed\nReason:           Evicted\n"
     "Message:          The node was low on resource: memory. Threshold quantity: 1Gi, available: 991045Ki. \n"),
    ("facebookresearch/fairseq#2329", ("none", "inconclusive"), None,
     "| distributed init (rank 4): tcp://master_ip:9000\n| initialized host <2nd node server> as rank 4\n"
     "| distributed init (rank 0): tcp://master_ip:9000\n| initialized host <2nd node server> as rank 0\n"
     "<2nd node server>:5359:5359 [0] NCCL INFO Bootstrap : Using [0]eth0:node2_ip<0> [1]docker0:172.17.0.1<0>\n"
     "<2nd node server>:5359:5359 [0] misc/ibvwrap.cc:63 NCCL WARN Failed to open libibverbs.so[.1]\n"
     "NCCL version 2.4.8+cuda10.1\n"),
]


@pytest.mark.parametrize("issue,want,culprits,text", CASES, ids=[c[0] for c in CASES])
def test_each_case_of_the_set(issue, want, culprits, text, tmp_path):
    check_case(tmp_path, (text, want, culprits), progress="")


def test_an_xla_rendezvous_whose_threads_all_joined_is_a_hang_inside_it(tmp_path):
    text = ("E0218 03:50:19.000000 1 rendezvous.cc:100] [id=1] This thread has been waiting for `acquire clique for "
            "rank 3; clique=devices=[4,5,6,7]; is_p2p=0; run_id=-1558191007` for 10 seconds and may be stuck. All 4 "
            "threads joined the rendezvous, however the leader has not marked the rendezvous as completed. Leader "
            "can be deadlocked inside the rendezvous callback.")
    verdict = console_verdict(tmp_path, text, PROGRESS)
    assert verdict.cls == "timeout_unknown", verdict.summary


def test_an_xla_termination_timeout_is_a_missing_participant_too(tmp_path):
    text = ("F0729 17:44:59.000000 1 rendezvous.cc:80] [id=0] Termination timeout for `first call to collective "
            "operation 190; run_id=-851342065` of 40 seconds exceeded. Exiting to ensure a consistent program state. "
            "Expected 2 threads to join the rendezvous, but not all of them arrived on time.")
    assert console_verdict(tmp_path, text, PROGRESS).cls == "stuck_rank"


def test_a_rank_whose_later_timeout_ran_longer_is_not_ahead(tmp_path):
    text = _timeout(0, 96117, 25625613) + "".join(_timeout(r, 64090, 1800700 + r) for r in range(4))
    verdict = console_verdict(tmp_path, text, PROGRESS)
    assert verdict.cls == "timeout_unknown", verdict.summary


def test_a_rank_whose_later_timeout_ran_shorter_keeps_its_row(tmp_path):
    # the same rank's next work, enqueued after the stuck one, timed out after it (a watchdog that went on):
    # consistent with one group, so nothing is left out of the timeline and the rank is read as ahead as before
    text = _timeout(0, 64091, 1800001) + "".join(_timeout(r, 64090, 1800700 + r) for r in range(4))
    verdict = console_verdict(tmp_path, text, PROGRESS)
    assert verdict.cls == "collective_skipped", verdict.summary


def test_a_store_gone_warning_glued_behind_a_frame_line_is_the_ranks(tmp_path):
    verdict = console_verdict(tmp_path, _STORE_GONE, PROGRESS)
    assert verdict.cls != "network_error", verdict.summary


def test_the_tvm_ffi_segfault_banner_is_a_crash(tmp_path):
    verdict = console_verdict(tmp_path, "!!!!!!! Segfault encountered !!!!!!!\n"
                                        '  File "<unknown>", line 0, in nvmlSystemGetConfComputeSettings\n', PROGRESS)
    assert verdict.cls == "dropped_rank", verdict.summary
