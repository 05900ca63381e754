"""Held-out set 60: pastes from FSDP2 and Lightning/accelerate/Trainer jobs, ROCm/RCCL, Windows and WSL, single-node
P2P hangs and jobs that failed with little text. One verdict test per case, then what the set showed:

- torch.cuda.nccl's own check (`NCCL Error 1: unhandled cuda error`, torch/csrc/cuda/nccl.cpp throw_nccl_error, the
  error nn.DataParallel's broadcast_coalesced raises; C++ extensions copy it) printed nothing ncclf knew: a DataParallel
  job on ROCm read inconclusive. It is catalogue entry pytorch.cuda_nccl_error now, its number read as the ncclResult_t.
- The older socket.cpp printed a store wait that ran out as `While waitForInput, poolFD failed with (errno: 0 -
  Success)` (poll returned 0 and left errno alone; 2.4+ words it `waitForInput: poll ... returned 0`): a rank left
  waiting in accelerate's main_process_first barrier read as an unclassified traceback. Catalogue
  pytorch.store_socket_wait_timeout_old reads errno 0 alone as that timeout.
- Kept: a paste that ends without any failure line (a Lightning job stuck after init, an all_reduce_perf run that
  stops after its P2P connect lines) reads inconclusive, never healthy; the client socket's per-address
  `failed to connect ... (system error: 10049 ...)` is the warning connect retries after (errno 99/10049 is the usual
  IPv6-localhost noise), so three of those lines alone are no failure either.
"""
from __future__ import annotations

import pytest

from nccl_forensics.sources.catalogue import match

from .consoles import PROGRESS, console_verdict

CASES = [
    ('VLR-CVC/vlm-training#26', ('timeout_unknown', 'stuck_rank'),
     '[rank9]:[E607 23:46:59.257715643 ProcessGroupNCCL.cpp:689] [Rank 9] Watchdog caught collective operation timeo'
     'ut: WorkNCCL(SeqNum=190346, OpType=_ALLGATHER_BASE, NumelIn=19447808, NumelOut=311164928, Timeout(ms)=600000) r'
     'an for 600010 milliseconds before timing out.\n'
     '[rank9]:[E607 23:46:59.259109772 ProcessGroupNCCL.cpp:2303] [PG ID 0 PG GUID 0(default_pg) Rank 9]  failure det'
     'ected by watchdog at work sequence id: 190346 PG status: last enqueued work: 190346, last completed work: 190345\n'
     '#3 foreach_all_gather from /gpfs/envs/lib/python3.12/site-packages/torch/distributed/fsdp/_fully_shard/_fsdp_co'
     'llectives.py:276\n'),
    ('NVIDIA/nccl#442', ('unclassified_failure', 'version_mismatch'),
     'DESKTOP: Test NCCL failure common.cu:777 \'unhandled system error\'\n'
     'DESKTOP:36629:36635 [0] graph/xml.cc:332 NCCL WARN Could not find real path of /sys/class/pci_bus/0000:21/../..'
     '/0000:21:00.0\n'
     'DESKTOP:36629:36635 [0] NCCL INFO graph/xml.cc:469 -> 2\n'),
    ('cocktailpeanut/fluxgym#41', ('version_mismatch', 'unclassified_failure'),
     '[2024-09-09 19:22:16] [INFO] self._store = TCPStore(  # type: ignore[call-arg]\n'
     '[2024-09-09 19:22:16] [INFO] RuntimeError: use_libuv was requested but PyTorch was build without libuv support\n'),
    ('lamikr/rocm_sdk_builder#8', ('unclassified_failure', 'version_mismatch'),
     '      File "/opt/rocm_sdk_611/lib/python3.9/site-packages/torch/nn/parallel/comm.py", line 57, in broadcast_coale'
     'sced\n'
     '        return torch._C._broadcast_coalesced(tensors, devices, buffer_size)\n'
     '    RuntimeError: NCCL Error 1: unhandled cuda error (run with NCCL_DEBUG=INFO for details)\n'),
    ('huggingface/trl#1902', ('timeout_unknown', 'stuck_rank', 'straggler'),
     'Map:  17%|███████        | 281398/1652614 [09:56<53:07, 430.16 examples/s][rank1]:[W socket.cpp:432] [c10d] Whil'
     'e waitForInput, poolFD failed with (errno: 0 - Success).\n'
     'Traceback (most recent call last):\n'
     '  File "/home/djl/.conda/envs/dpo/lib/python3.11/site-packages/accelerate/state.py", line 523, in local_main_pr'
     'ocess_first\n'
     '    yield from self._goes_first(self.is_local_main_process)\n'),
    ('ultralytics/yolov5#4400', ('timeout_unknown', 'straggler', 'stuck_rank'),
     '[E ProcessGroupNCCL.cpp:567] [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(OpType=BROADCAST, '
     'Timeout(ms)=60000) ran for 69479 milliseconds before timing out.\n'
     "terminate called after throwing an instance of 'std::runtime_error'\n"
     '  what():  [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(OpType=BROADCAST, Timeout(ms)=60000)'
     ' ran for 69479 milliseconds before timing out.\n'),
    ('mit-han-lab/distrifuser#13', ('unclassified_failure', 'dropped_rank'),
     '[rank0]:[W CUDAGraph.cpp:145] Warning: Waiting for pending NCCL work to finish before starting graph capture. ('
     'function operator())\n'
     "  what():  NCCL Error 5: invalid usage (run with NCCL_DEBUG=WARN for details)\n"
     '[2024-06-12 03:45:51,447] torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: -6) local_ra'
     'nk: 0 (pid: 10453) of binary: /root/anaconda3/envs/distrifuser/bin/python\n'),
    ('ROCm/legacy-rocm-build#3956', ('dropped_rank', 'unclassified_failure'),
     'ERROR 10-30 13:46:27 multiproc_worker_utils.py:120] Worker VllmWorkerProcess pid 6855 died, exit code: -15\n'
     'INFO 10-30 13:46:27 multiproc_worker_utils.py:123] Killing local vLLM worker processes\n'),
    ('huggingface/accelerate#314', ('timeout_unknown', 'straggler', 'stuck_rank'),
     ' 35%|████████       | 73811210851/208140108456 [30:01<57:14, 39115047.81MB/s]\n'
     '[E ProcessGroupNCCL.cpp:485] [Rank 6] Watchdog caught collective operation timeout: WorkNCCL(OpType=ALLREDUCE, '
     'Timeout(ms)=1800000) ran for 1802246 milliseconds before timing \n'
     'out.\n'),
]

# failures that print no failure line: they read inconclusive (a kept rule), never healthy
KEPT_INCONCLUSIVE = [
    ('hiyouga/LlamaFactory#7806',
     '[W423 16:02:17.000000000 socket.cpp:752] [c10d] The client socket has failed to connect to [kubernetes.docker.'
     'internal]:55980 (system error: 10049 - The requested address is not valid in its context.).\n'
     '[W423 16:02:23.000000000 socket.cpp:752] [c10d] The client socket has failed to connect to [kubernetes.docker.'
     'internal]:55980 (system error: 10049 - The requested address is not valid in its context.).\n'),
    ('NVIDIA/nccl#606',
     'NCCL version 2.8.2+cuda11.1\n'
     'nccl-tests:225:239 [0] NCCL INFO Channel 01/02 :    0   1\n'
     'nccl-tests:225:240 [1] NCCL INFO Channel 00 : 1[c2000] -> 0[c1000] via P2P/direct pointer\n'),
    ('Lightning-AI/pytorch-lightning#19606',
     '[rank: 0] Seed set to 42\n'
     'Initializing distributed: GLOBAL_RANK: 0, MEMBER: 1/5\n'),
    ('Lightning-AI/pytorch-lightning#9641',
     'initializing ddp: GLOBAL_RANK: 3, MEMBER: 4/4\n'
     'distributed_backend=nccl\n'
     'All DDP processes registered. Starting ddp with 4 processes\n'),
]


@pytest.mark.parametrize("issue,want,text", CASES, ids=[case[0] for case in CASES])
def test_each_case_of_the_set(issue, want, text, tmp_path):
    assert console_verdict(tmp_path, text, progress="").cls in want


@pytest.mark.parametrize("issue,want,text", CASES, ids=[case[0] for case in CASES])
def test_no_case_reads_healthy_or_inconclusive_behind_progress(issue, want, text, tmp_path):
    """Each case is a job that failed: progress before the failure changes nothing of that."""
    assert console_verdict(tmp_path, text, PROGRESS).cls not in ("none", "inconclusive")


@pytest.mark.parametrize("issue,text", KEPT_INCONCLUSIVE, ids=[case[0] for case in KEPT_INCONCLUSIVE])
def test_a_paste_without_a_failure_line_is_never_read_healthy(issue, text, tmp_path):
    assert console_verdict(tmp_path, text, progress="").cls == "inconclusive"


@pytest.mark.parametrize("line,entry,fields", [
    ("RuntimeError: NCCL Error 1: unhandled cuda error (run with NCCL_DEBUG=INFO for details)",
     "pytorch.cuda_nccl_error", {"code": "ncclUnhandledCudaError"}),
    ("  what():  NCCL Error 5: invalid usage (run with NCCL_DEBUG=WARN for details)", "pytorch.cuda_nccl_error",
     {"code": "ncclInvalidUsage"}),
    ("RuntimeError: NCCL Error 2: unhandled system error", "pytorch.cuda_nccl_error", {"code": "ncclSystemError"}),
    ("[rank1]:[W socket.cpp:432] [c10d] While waitForInput, poolFD failed with (errno: 0 - Success).",
     "pytorch.store_socket_wait_timeout_old", {}),
])
def test_the_new_entries_as_torch_prints_them(line, entry, fields):
    [hit] = [h for h in match(line) if h.message.id == entry]
    assert {k: hit.fields.get(k) for k in fields} == fields


@pytest.mark.parametrize("line", [
    "[W socket.cpp:432] [c10d] While waitForInput, poolFD failed with (errno: 4 - Interrupted system call).",
    "NCCL Error: see above",
    "NCCL version 2.8.2+cuda11.1",
])
def test_near_misses_of_the_new_entries(line):
    assert not [h for h in match(line) if h.message.id in ("pytorch.cuda_nccl_error",
                                                           "pytorch.store_socket_wait_timeout_old")]


_BARRIER = (
    "I1126 13:40:35.102000 139795 torch/distributed/elastic/agent/server/api.py:879] [default] worker group "
    "successfully finished. Waiting 300 seconds for other agents to finish.\n"
    "I1126 13:40:35.103000 139795 torch/distributed/elastic/agent/server/api.py:932] Local worker group finished "
    "(WorkerState.SUCCEEDED). Waiting 300 seconds for other agents to finish\n"
    "{wait}\n"
    "E1126 13:45:35.118955 139795 torch/distributed/elastic/agent/server/api.py:951] Error waiting on exit barrier. "
    "Elapsed: 300.10335206985474 seconds\n"
    "E1126 13:45:35.118955 139795 torch/distributed/elastic/agent/server/api.py:951] Traceback (most recent call last):\n"
    "E1126 13:45:35.118955 139795 torch/distributed/elastic/agent/server/api.py:951]   File \"/usr/lib/python3.10/"
    "site-packages/torch/distributed/elastic/agent/server/api.py\", line 935, in _exit_barrier\n"
    "E1126 13:45:35.118955 139795 torch/distributed/elastic/agent/server/api.py:951]     store_util.barrier(\n"
    "E1126 13:45:35.118955 139795 torch/distributed/elastic/agent/server/api.py:951] torch.distributed.DistStoreError: "
    "Socket Timeout\n")


@pytest.mark.parametrize("wait", [
    "[W1126 13:45:35.118955 socket.cpp:432] [c10d] While waitForInput, poolFD failed with (errno: 0 - Success).",
    "[W1126 13:45:35.118955 socket.cpp:487] [c10d] waitForInput: socket SocketImpl(fd=71, addr=[localhost]:43246, "
    "remote=[localhost]:29500) timed out after 300000ms"], ids=["2.2-2.3", "2.4+"])
def test_the_socket_warning_above_an_exit_barrier_error_is_the_barriers_wait(wait, tmp_path):
    """c10d's socket warning that the store's wait ran out, printed just before torch elastic's exit-barrier error:
    the barrier waited for another node's agent after this node's workers SUCCEEDED, no rank of this node failed."""
    verdict = console_verdict(tmp_path, _BARRIER.format(wait=wait), progress="")
    assert verdict.cls in ("inconclusive", "none"), verdict.summary
