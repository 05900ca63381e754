"""Held-out set 41: consoles of big multi-node jobs (a 2048-rank store barrier, Megatron/DeepSpeed/LLaMA-Factory on
slurm, k8s and MPIJob launchers, XLA at 32+ nodes). One verdict test per case, then what the set showed about
reading such consoles:

- checkTimeout's line (`[Rank N] Watchdog caught ... WorkNCCL(SeqNum=S, ...)`) names the rank inside its process
  group but not the group; the watchdog's next line for the same work names it (`[PG ID 3 PG GUID 30(desc) Rank N]
  Exception (either an error or timeout) detected by watchdog at work: S`, 2.2+; `failure detected by watchdog at
  work sequence id: S`, 2.4+; ProcessGroupNCCL::watchdogHandler). Without it every tensor-parallel group's sequence
  numbers were compared as the default group's, and a group a step behind the others read as stuck ranks.
- A host prefix (`pdsh`, an MPIJob launcher's `name: `) or an `srun -l` label before a C++ abort's lines
  (`terminate called after throwing`, `  what():  `, c10::Error's `Exception raised from` and `frame #N:`) is a
  wrapper like the one before a traceback.
- A launcher's ChildFailedError is no rank's own line (a paste of one table entry gave it that entry's rank), and an
  exception line with no message of its own is said once (`ChildFailedError`, not `ChildFailedError: ChildFailedError`).
- A Ray actor's prefix names its node by host name as well as by address (`(WorkerDict pid=1230,
  ip=train-...-worker-0) `), and a log collector's bracketed time may stand before it or before `[rankN]:`.
- A rank that received another's flight-recorder dump signal (`Received a dump signal due to a collective timeout
  from rank N`, c10d 2.4+) did not time out itself: rank N did.
- A store that counted the ranks says how many came: `1792 of 2048 arrived, 256 never did` stands before the quoted
  line, which at that size is cut before its counts.
"""
from __future__ import annotations

import pytest

from nccl_forensics.model import Source, SourceKind
from nccl_forensics.sources import parse_source

from .consoles import PROGRESS, check_case, console_verdict, failure_table

_DUMP_SIGNAL = ("[rank{rank}]:[E804 23:05:54.816499929 ProcessGroupNCCL.cpp:1849] [PG ID 0 PG GUID 0(default_pg) Rank {rank}] "
                "Observed flight recorder dump signal from another rank via TCPStore.\n"
                "[rank{rank}]:[E804 23:05:54.817424543 ProcessGroupNCCL.cpp:1914] [PG ID 0 PG GUID 0(default_pg) Rank {rank}] "
                "Received a dump signal due to a collective timeout from  rank 13 and we will try our best to dump the "
                "debug info. Last enqueued NCCL work: 1261, last completed NCCL work: 1259.This is most likely caused "
                "by incorrect usages of collectives, e.g., wrong sizes used across ranks, the order of collectives is "
                "not same for all ranks or the scheduled collective, for some reason, didn't run.")

_RAY_MESH_TP = (
    "[2025-05-10 00:18:21] (WorkerDict pid=1230, ip=train-1316148307689748608-9zzm714v3bpc-worker-0) [rank15]:[E510 "
    "00:18:19.328053719 ProcessGroupNCCL.cpp:629] [Rank 1] Watchdog caught collective operation timeout: "
    "WorkNCCL(SeqNum=3, OpType=BROADCAST, NumelIn=1, NumelOut=1, Timeout(ms)=1800000) ran for 1800041 milliseconds "
    "before timing out.\n"
    "[2025-05-10 00:18:21] (WorkerDict pid=1230, ip=train-1316148307689748608-9zzm714v3bpc-worker-0) [rank15]:[E510 "
    "00:18:19.328151517 ProcessGroupNCCL.cpp:2168] [PG ID 4 PG GUID 20(mesh_tp) Rank 1]  failure detected by watchdog "
    "at work sequence id: 3 PG status: last enqueued work: 3, last completed work: 2")

# ---- one verdict per case of the set (the decisive lines as pasted)
CASES = [
    ("facebookresearch/metaseq#52", "stuck_rank", None,
     "    raise RuntimeError(\nRuntimeError: Timed out initializing process group in store based barrier on rank: "
     "4330, for key: store_based_barrier_key:522 (world_size=2048, worker_count=1792, timeout=0:30:00)"),
    ("deepspeedai/Megatron-DeepSpeed#338", ("stuck_rank", "timeout_unknown"), None,
     "RuntimeError: Timed out initializing process group in store based barrier on rank: 7, for key: "
     "store_based_barrier_key:32 (world_size=8, worker_count=4, timeout=0:00:30)\n"
     "RuntimeError: Timed out initializing process group in store based barrier on rank: 5, for key: "
     "store_based_barrier_key:32 (world_size=8, worker_count=4, timeout=0:00:30)"),
    ("NVIDIA/JAX-Toolbox#194", ("network_error", "dropped_rank"), None,
     "2023-08-25 11:06:39.330561: E external/xla/xla/service/gpu/nccl_utils.cc:191] Aborting communicator: "
     "0x5555a108ff90 due to async NCCL error: remote process exited or there was a network error"),
    ("thu-pacman/chitu#80", ("timeout_unknown", "stuck_rank"), None,
     "[rank1]:[E327 09:31:09.976973235 ProcessGroupNCCL.cpp:629] [Rank 1] Watchdog caught collective operation "
     "timeout: WorkNCCL(SeqNum=3313, OpType=RECV, NumelIn=18, NumelOut=18, Timeout(ms)=600000) ran for 600086 "
     "milliseconds before timing out.\n"
     "2025-03-27 17:31:09.952  sm228-a100-40g-23 [rank1]:[E327 09:31:09.977409258 ProcessGroupNCCL.cpp:2168] [PG ID 0 "
     "PG GUID 0(default_pg) Rank 1]  failure detected by watchdog at work sequence id: 3313 PG status: last enqueued "
     "work: 3313, last completed work: 3312"),
    ("huggingface/open-r1#160", ("unclassified_failure", "dropped_rank"), None,
     "DEBUG:filelock:Lock 23456219068112 released on /mnt/home/tyen/.triton/autotune/Fp16Matmul_4d_kernel.pickle.lock\n"
     "srun: error: alphagpu12: task 0: Exited with exit code 1\nsrun: Terminating StepId=16477.0"),
    ("NVIDIA/TransformerEngine#1692", ("unclassified_failure", "dropped_rank"), None,
     "[rank1]:     if not tex.device_supports_multicast():\n"
     "[rank1]: RuntimeError: /tmp/pip-req-build-iq_flo47/transformer_engine/common/util/cuda_runtime.cpp:118 in "
     "function operator(): CUDA Error: invalid argument"),
    ("hiyouga/LlamaFactory#5558", "timeout_unknown", None,
     "mpi-rc1ou1aw-launcher: terminate called after throwing an instance of 'c10::DistBackendError'\n"
     "mpi-rc1ou1aw-launcher:   what():  [PG 1 Rank 5] Process group watchdog thread terminated with exception: [Rank "
     "5] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=635, OpType=ALLREDUCE, NumelIn=576156928, "
     "NumelOut=576156928, Timeout(ms)=600000) ran for 600097 milliseconds before timing out.\n"
     "mpi-rc1ou1aw-launcher: Exception raised from checkTimeout at ../torch/csrc/distributed/c10d/"
     "ProcessGroupNCCL.cpp:565 (most recent call first):"),
    ("pytorch/ao#3841", "unclassified_failure", None,
     "  Failed to bind NVLink SHARP (NVLS) Multicast memory: CUDA error 401"),
    ("databricks/megablocks#62", ("dropped_rank", "unclassified_failure"), None,
     "  File \"/anaconda3/envs/moe/lib/python3.10/site-packages/megablocks/backend/kernels.py\", line 118, in "
     "padded_gather\n    output_rows = padded_bins[-1].cpu().item()\n"
     "RuntimeError: CUDA error: an illegal memory access was encountered"),
    ("bytedance/flux#40", ("dropped_rank", "unclassified_failure"), None,
     "[rank0]:[E907 22:34:22.823452114 ProcessGroupNCCL.cpp:1515] [PG 0 (default_pg) Rank 0] Process group watchdog "
     "thread terminated with exception: CUDA error: an illegal memory access was encountered\n"
     "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be "
     "incorrect."),
    ("PrimeIntellect-ai/prime-rl#3186", ("timeout_unknown", "stuck_rank"), None, _DUMP_SIGNAL.format(rank=0)),
    ("verl-project/verl#1309", ("timeout_unknown", "stuck_rank"), None, _RAY_MESH_TP),
]


@pytest.mark.parametrize("issue,want,culprits,text", CASES, ids=[case[0] for case in CASES])
def test_each_case_of_the_set(issue, want, culprits, text, tmp_path):
    check_case(tmp_path, (text, (want,) if isinstance(want, str) else want, culprits), progress="")


def test_k8s_root_cause_that_only_says_sigabrt(tmp_path):
    """hiyouga/LlamaFactory#6849: the launcher's cut traceback and one table entry, nothing of the rank's own."""
    text = ("    raise ChildFailedError(\ntorch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n"
            + failure_table("src/train.py", "2025-02-07_19:37:20", "pt-gbcg65vy-worker-0.pt-gbcg65vy.svc.cluster.local",
                            5, 1, -6, 4288))
    verdict = console_verdict(tmp_path, text, progress="")
    assert verdict.cls in ("dropped_rank", "unclassified_failure"), verdict.summary
    assert "SIGABRT" in verdict.summary
    assert "ChildFailedError: torch" not in verdict.summary


# ---- the watchdog's timeout line takes its group from the watchdog's next line for the same work
def _tp_group_timeouts(behind: int) -> str:
    """Four tensor-parallel groups of two ranks each time out; group `behind` one collective earlier."""
    lines = []
    for rank in range(8):
        group, seq = 10 + rank // 2, 899 if rank // 2 == behind else 900
        lines.append(f"[rank{rank}]:[E1010 11:50:05.315197062 ProcessGroupNCCL.cpp:632] [Rank {rank % 2}] Watchdog "
                     f"caught collective operation timeout: WorkNCCL(SeqNum={seq}, OpType=ALLREDUCE, NumelIn=1, "
                     "NumelOut=1, Timeout(ms)=600000) ran for 600013 milliseconds before timing out.")
        lines.append(f"[rank{rank}]:[E1010 11:50:05.316197062 ProcessGroupNCCL.cpp:1664] [PG ID {group} PG GUID "
                     f"{group * 7}(TENSOR_MODEL_PARALLEL_GROUP) Rank {rank % 2}] Exception (either an error or timeout) "
                     f"detected by watchdog at work: {seq}, last enqueued NCCL work: {seq + 2}, last completed NCCL "
                     f"work: {seq - 1}.")
    return "\n".join(lines)


def test_groups_numbered_apart_are_not_compared(tmp_path):
    verdict = console_verdict(tmp_path, _tp_group_timeouts(behind=2))
    assert verdict.cls == "timeout_unknown", verdict.summary
    assert not verdict.culprit_ranks


def test_the_timeout_line_takes_the_group_of_the_next_one(tmp_path):
    path = tmp_path / "console.log"
    path.write_text(_tp_group_timeouts(behind=2) + "\n")
    timeouts = [ev for ev in parse_source(Source(str(path), SourceKind.CONSOLE)).events
                if ev.kind == "watchdog_timeout"]
    assert len(timeouts) == 8
    assert {(ev.rank, ev.data["pg_id"], ev.data["pg_uid"]) for ev in timeouts[4:6]} == {(4, 12, "84"), (5, 12, "84")}


def test_a_timeout_without_wrapper_in_a_subgroup_names_no_global_rank(tmp_path):
    """`[Rank 0]` is the rank inside the group: read as the global rank only while the group may be the default."""
    path = tmp_path / "console.log"
    path.write_text("[E1010 11:50:05.315 ProcessGroupNCCL.cpp:632] [Rank 0] Watchdog caught collective operation "
                    "timeout: WorkNCCL(SeqNum=5, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for "
                    "600013 milliseconds before timing out.\n"
                    "[E1010 11:50:05.316 ProcessGroupNCCL.cpp:1664] [PG ID 3 PG GUID 21(DATA_PARALLEL_GROUP) Rank 0] "
                    "Exception (either an error or timeout) detected by watchdog at work: 5, last enqueued NCCL work: "
                    "5, last completed NCCL work: 4.\n")
    timeout = next(ev for ev in parse_source(Source(str(path), SourceKind.CONSOLE)).events
                   if ev.kind == "watchdog_timeout")
    assert timeout.rank is None and timeout.data["pg_id"] == 3


def test_a_default_group_timeout_keeps_its_rank(tmp_path):
    verdict = console_verdict(tmp_path, CASES[3][3])
    assert verdict.cls == "timeout_unknown" and "rank 1" in verdict.summary


# ---- a store's count of who came
@pytest.mark.parametrize("line,said", [
    ("RuntimeError: Timed out initializing process group in store based barrier on rank: 4330, for key: "
     "store_based_barrier_key:522 (world_size=2048, worker_count=1792, timeout=0:30:00)",
     "1792 of 2048 arrived, 256 never did"),
    ("torch.distributed.DistStoreError: Timed out after 901 seconds waiting for clients. 7/8 clients joined.",
     "7 of 8 arrived, 1 never did"),
])
def test_a_store_barrier_says_how_many_came(line, said, tmp_path):
    verdict = console_verdict(tmp_path, line, PROGRESS)
    assert verdict.cls == "stuck_rank" and said in verdict.summary, verdict.summary


def test_a_count_above_the_world_is_not_said(tmp_path):
    """`worker_count=16` for a world of 8 (a store two jobs share): no `of` tally."""
    verdict = console_verdict(tmp_path, "RuntimeError: Timed out initializing process group in store based barrier on "
                              "rank: 6, for key: store_based_barrier_key:1 (world_size=8, worker_count=16, "
                              "timeout=0:30:00)")
    assert "never did" not in verdict.summary


def test_an_exception_without_a_message_is_said_once(tmp_path):
    verdict = console_verdict(tmp_path, "[rank2]: Traceback (most recent call last):\n"
                              "[rank2]:   File \"train.py\", line 3, in <module>\n[rank2]:     raise EOFError\n"
                              "[rank2]: EOFError")
    assert verdict.cls == "dropped_rank" and verdict.summary.endswith("rank 2 raised EOFError"), verdict.summary


# ---- a rank that received another's dump signal did not time out itself
def test_the_rank_that_timed_out_is_the_one_the_dump_signal_names(tmp_path):
    verdict = console_verdict(tmp_path, "\n".join(_DUMP_SIGNAL.format(rank=r) for r in (0, 3, 5)))
    assert verdict.cls == "timeout_unknown" and "rank 13 timed out" in verdict.summary, verdict.summary


def test_a_ray_actor_on_a_named_host_behind_a_collectors_time_keeps_its_rank(tmp_path):
    """verl-project/verl#1309: `[time] (Actor pid=N, ip=<host name>) [rank15]:` ... `[Rank 1]` is the rank in mesh_tp."""
    verdict = console_verdict(tmp_path, _RAY_MESH_TP)
    assert "rank 15 timed out" in verdict.summary, verdict.summary
