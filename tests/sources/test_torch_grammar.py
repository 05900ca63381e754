"""grammars/torch.lark and sources/torch_log.py: one table row per line shape of c10d's ProcessGroupWrapper, ProcessGroupNCCL and ProcessGroupGloo messages."""
from __future__ import annotations

from pathlib import Path

import pytest

from nccl_forensics.model import Line, Source, SourceKind
from nccl_forensics.sources import parse_source, torch_log
from nccl_forensics.sources.grammars import parse_with
from nccl_forensics.sources.torch_log import (
    TorchLogParser,
    looks_like_torch,
    parse_torch_message,
)

SAMPLES = Path(__file__).resolve().parents[2] / "sample_logs" / "evidence"
FP_OPTS = ("TensorOptions(dtype=float (default), device=cuda, layout=Strided (default), requires_grad=false (default), "
           "pinned_memory=false (default), memory_format=(nullopt))")

VALID = [
    # legacy watchdog, 2.7–2.15 (the `[rankN]:` wrapper is stripped by lines.py before this point)
    ("[E1218 20:27:21.426415540 ProcessGroupNCCL.cpp:629] [Rank 1] Watchdog caught collective operation timeout: "
     "WorkNCCL(SeqNum=5, OpType=ALLREDUCE, NumelIn=512, NumelOut=512, Timeout(ms)=600000) ran for 600015 milliseconds "
     "before timing out.",
     "watchdog_timeout", {"seq": 5, "op": "allreduce", "numel_in": 512, "numel_out": 512, "timeout_ms": 600000,
                          "elapsed_ms": 600015, "backend": "nccl", "group_rank": 1, "severity": "E"}),
    # ≤2.1: no Numel, no timestamp
    ("[E ProcessGroupNCCL.cpp:475] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=10, "
     "OpType=BROADCAST, Timeout(ms)=1800000) ran for 1800531 milliseconds before timing out.",
     "watchdog_timeout", {"seq": 10, "op": "broadcast", "numel_in": None, "timeout_ms": 1800000}),
    ("[Rank 2] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=3, OpType=_ALLGATHER_BASE, "
     "TensorShape=[4, 8], Timeout(ms)=60000) ran for 60012 milliseconds before timing out.",
     "watchdog_timeout", {"op": "allgather", "op_raw": "_ALLGATHER_BASE", "shape": [4, 8]}),
    ("what():  [PG ID 0 PG GUID 0(default_pg) Rank 3] Process group watchdog thread terminated with exception: "
     "[Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=5, OpType=ALLREDUCE, NumelIn=512, "
     "NumelOut=512, Timeout(ms)=600000) ran for 600123 milliseconds before timing out.",
     "watchdog_timeout", {"context": "terminated", "pg_id": 0, "pg_name": "default_pg", "group_rank": 3}),
    ("E0927 12:07:22.643702 1012209 ProcessGroupNCCL.cpp:1356] [Rank 1] Work WorkNCCL(SeqNum=7, OpType=ALLREDUCE, "
     "NumelIn=10, NumelOut=10, Timeout(ms)=60000) timed out in blocking wait.",
     "watchdog_timeout", {"context": "blocking_wait", "seq": 7, "elapsed_ms": None}),
    # nccl2 (torch 2.15)
    ("[TC][rank=3][name=0] Aborting process on rank 3 due to timeout - timeout watchdog detected operation timeout",
     "watchdog_timeout", {"backend": "nccl2", "seq": None, "group_rank": 3}),
    ("torch.distributed.DistBackendError: Watchdog caught collective operation timeout: NCCL operation timed out",
     "watchdog_timeout", {"backend": "nccl2"}),
    # PG status, in each era's wording
    ("[PG ID 0 PG GUID 0(default_pg) Rank 1]  failure detected by watchdog at work sequence id: 5 PG status: "
     "last enqueued work: 5, last completed work: 4",
     "work_status", {"seq": 5, "last_enqueued": 5, "last_completed": 4, "pg_id": 0, "pg_name": "default_pg"}),
    ("[E321 02:07:08.408271257 ProcessGroupNCCL.cpp:607] [PG 1 Rank 0] Timeout at NCCL work: 40, last enqueued "
     "NCCL work: 41, last completed NCCL work: 39.",
     "work_status", {"seq": 40, "last_enqueued": 41, "last_completed": 39, "pg_id": 1, "pg_name": None}),
    ("[PG 0 (default_pg) Rank 12] Exception (either an error or timeout) detected by watchdog at work: 40, last "
     "enqueued NCCL work: 41, last completed NCCL work: 39.",
     "work_status", {"pg_name": "default_pg", "group_rank": 12, "trigger": "failure_detected"}),
    # the late-2024 main (2.6.0.dev nightlies): the line names the failure, a timeout or an NCCL error
    ("[E1127 03:24:51.101224 ProcessGroupNCCL.cpp:1763] [PG ID 2 PG GUID 5(TENSOR_PARALLEL) Rank 3] Work timeout is "
     "detected by watchdog at work: 41, last enqueued NCCL work: 42, last completed NCCL work: 40.",
     "work_status", {"seq": 41, "last_enqueued": 42, "last_completed": 40, "pg_id": 2, "pg_name": "TENSOR_PARALLEL",
                     "group_rank": 3, "trigger": "timeout"}),
    ("[PG ID 0 PG GUID 0(default_pg) Rank 2] NCCL error is detected by watchdog at work: 1203, last enqueued NCCL "
     "work: 1204, last completed NCCL work: 1202.",
     "work_status", {"seq": 1203, "last_enqueued": 1204, "last_completed": 1202, "trigger": "nccl_error"}),
    ("[PG ID 0 PG GUID 0(default_pg) Rank 0] Received a dump signal due to a collective timeout from  rank 1 and we "
     "will try our best to dump the debug info. Last enqueued NCCL work: 5, last completed NCCL work: 5.This is most "
     "likely caused by incorrect usages of collectives.",
     "work_status", {"signal_from_rank": 1, "last_enqueued": 5, "last_completed": 5, "trigger": "dump_signal"}),
    ("NCCL Work update periodically: last enqueued NCCL work: 12, last completed NCCL work: -1.",
     "work_status", {"last_completed": -1, "trigger": "periodic"}),
    # heartbeat monitor
    ("[PG ID 0 PG GUID 0(default_pg) Rank 1] ProcessGroupNCCL's watchdog got stuck for 480 seconds without making "
     "progress in monitoring enqueued collectives. This typically indicates a NCCL/CUDA API hang.",
     "heartbeat", {"timeout_s": 480}),
    ("[F1218 20:35:21.611502170 ProcessGroupNCCL.cpp:1576] [PG ID 0 PG GUID 0(default_pg) Rank 1] [PG ID 0 PG GUID "
     "0(default_pg) Rank 1] Terminating the process after attempting to dump debug info, due to ProcessGroupNCCL "
     "watchdog hang.", "heartbeat", {"reason": "ProcessGroupNCCL watchdog hang", "severity": "F"}),
    # desync report
    ("\t - [0] Timeout at collective: ALLREDUCE, #5", "desync_report",
     {"state": "timeout", "ranks": [0], "seq": 5, "op": "allreduce"}),
    ("\t - To our best knowledge, ranks [1, 3] are the lagging ranks that caused this timeout. They never joined any "
     "collectives", "desync_report", {"state": "never_joined", "ranks": [1, 3]}),
    ("\t   - [1] joined but didn't finish collective #5 (count from 1)", "desync_report",
     {"state": "joined_not_finished", "ranks": [1], "seq": 5}),
    ("\t     [2, 3] finished collective #4, but didn't join collective #5 (count from 1)", "desync_report",
     {"state": "finished_not_joined", "ranks": [2, 3], "seq": 4}),
    ("\t     [0, 1] started ALLREDUCE", "desync_report", {"state": "started", "ranks": [0, 1], "op": "allreduce"}),
    ("Failed to retrieve TORCH_NCCL_DESYNC_DEBUG report.", "desync_report", {"state": "report_failed"}),
    # gloo monitoredBarrier
    ("RuntimeError: [Rank 0]: Ranks 6 failed to pass monitoredBarrier in 180000000000 ms", "monitored_barrier",
     {"missing_ranks": [6], "timeout_ms": 180000000000}),
    ("[Rank 0]: Ranks 2, 5 failed to pass monitoredBarrier in 30000 ms", "monitored_barrier",
     {"missing_ranks": [2, 5], "timeout_ms": 30000}),
    ("Rank 0 timed out in monitoredBarrier after 30000 ms. Successfully processed ranks: 1, 3", "monitored_barrier",
     {"missing_ranks": [], "timeout_ms": 30000}),
    # DETAIL fingerprint, incl. the num_tensors==0 `SequenceNumber=NOpType=` quirk and the ≤2022 form
    ("RuntimeError: Detected mismatch between collectives on ranks. Rank 1 is running collective: "
     f"CollectiveFingerPrint(SequenceNumber=12OpType=BARRIER), but Rank 0 is running collective: "
     f"CollectiveFingerPrint(SequenceNumber=12, OpType=ALLREDUCE, TensorShape=[2, 3], TensorDtypes=BFloat16, "
     f"TensorDeviceTypes={FP_OPTS}).Collectives differ in the following aspects: \t Op type: BARRIERvs ALLREDUCE",
     "fingerprint_mismatch", {"rank": 1, "seq": 12, "op": "barrier", "shapes": None, "other_rank": 0,
                              "other_op": "allreduce", "other_shapes": [[2, 3]], "other_dtypes": ["bfloat16"],
                              "other_device_types": ["cuda"]}),
    (f"Rank 0 is running inconsistent collective: CollectiveFingerPrint(OpType=BROADCAST, TensorShape=[10], "
     f"TensorDtypes=Float, TensorDeviceTypes={FP_OPTS})",
     "fingerprint_mismatch", {"rank": 0, "seq": None, "op": "broadcast", "dtypes": ["float32"], "other_rank": None}),
    # 1.10 - 1.11: the first sentence before it, and `CollectiveFingerPrint(` left open
    ("RuntimeError: Detected mismatch between collectives on ranks. Rank 1 is running inconsistent collective: "
     f"CollectiveFingerPrint(OpType=ALLGATHER, TensorShape=[40, 256], TensorDtypes=Float, TensorDeviceTypes={FP_OPTS}",
     "fingerprint_mismatch", {"rank": 1, "op": "allgather", "shapes": [[40, 256]], "other_rank": None}),
    # a paste cut inside compute_collective_diff's head words keeps both fingerprints
    ("Detected mismatch between collectives on ranks. Rank 7 is running collective: CollectiveFingerPrint("
     f"SequenceNumber=5, OpType=_ALLGATHER_BASE, TensorShape=[1], TensorDtypes=BFloat16, TensorDeviceTypes={FP_OPTS}), "
     "but Rank 4 is running collective: CollectiveFingerPrint(SequenceNumber=5, OpType=_ALLGATHER_BASE, "
     f"TensorShape=[1], TensorDtypes=Float, TensorDeviceTypes={FP_OPTS}).Collectives differ in the fol",
     "fingerprint_mismatch", {"rank": 7, "dtypes": ["bfloat16"], "other_rank": 4, "other_dtypes": ["float32"],
                              "differences": None}),
    # any other prefixed c10d line
    ("[E1218 20:27:21.426415540 ProcessGroupNCCL.cpp:1664] [PG ID 0 PG GUID 0(default_pg) Rank 1] First PG on this "
     "rank to signal dumping.", "c10d_log", {"severity": "E", "src_file": "ProcessGroupNCCL.cpp", "src_line": 1664,
                                             "message": "First PG on this rank to signal dumping.", "pg_id": 0}),
]

UNPARSED = [
    "[Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=",
    "[Rank 0]: Ranks six failed to pass monitoredBarrier in 1 ms",
    "Detected mismatch between collectives on ranks. Rank 1 is running collective: CollectiveFingerPrint(",
]

NOT_TORCH = [
    "W1121 13:38:08.523000 5392 site-packages/torch/distributed/elastic/multiprocessing/api.py:1028] Sending process 5494 closing signal SIGTERM",
    "node1:12345:12345 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>",
    "Traceback (most recent call last):",
    "[  123.456789] Out of memory: Killed process 1 (python)",
    "step 10 loss 2.31",
]


def test_truncated_prefixed_line_falls_back_to_c10d_log():
    msg = parse_torch_message("[E1218 20:27:21.426415540 ProcessGroupNCCL.cpp:629] [Rank 1] Watchdog caught "
                              "collective operation timeout: WorkNCCL(SeqNum=")
    assert msg.kind == "c10d_log" and msg.data["group_rank"] == 1 and msg.data["src_line"] == 629




@pytest.mark.parametrize(("text", "kind", "fields"), VALID, ids=[v[1] + str(i) for i, v in enumerate(VALID)])
def test_valid_lines(text, kind, fields):
    msg = parse_torch_message(text.strip())
    assert msg is not None and msg.kind == kind
    for key, value in fields.items():
        assert msg.data[key] == value, key


@pytest.mark.parametrize("text", UNPARSED)
def test_claimed_but_unknown_lines_are_unparsed(text):
    parser = TorchLogParser(Source("x.log", SourceKind.CONSOLE))
    assert parser.feed(Line(1, text)) is True
    parser.finish()                      # (it waited for a possible continuation of a hard-wrapped message)
    assert [e.kind for e in parser.out] == ["unparsed"]


@pytest.mark.parametrize("text", NOT_TORCH)
def test_other_sources_are_not_claimed(text):
    assert not looks_like_torch(text)
    assert TorchLogParser(Source("x.log", SourceKind.CONSOLE)).feed(Line(1, text)) is False


def _events(path: Path, kind=SourceKind.CONSOLE):
    result = parse_source(Source(str(path), kind))
    assert result.error is None
    return [e for e in result.events if e.source == "torch"]


def test_legacy_timeout_sample_keeps_global_rank_and_pg():
    events = _events(SAMPLES / "torch" / "legacy_watchdog_timeout_rank1.log")
    timeouts = [e for e in events if e.kind == "watchdog_timeout"]
    assert [(e.line, e.rank, e.data["seq"]) for e in timeouts][:2] == [(1, 1, 5), (9, 1, 5)]
    status = next(e for e in events if e.kind == "work_status")
    assert (status.data["last_enqueued"], status.data["last_completed"], status.data["pg_name"]) == (5, 4, "default_pg")
    assert not [e for e in events if e.kind == "unparsed"]


def test_desync_continuation_lines_inherit_the_rank_of_their_message():
    events = _events(SAMPLES / "torch" / "desync_report_rank0.log")
    desync = [e for e in events if e.kind == "desync_report"]
    assert len(desync) == 9 and {e.rank for e in desync} == {0}
    assert ("joined_not_finished", [1]) in [(e.data["state"], e.data["ranks"]) for e in desync]


def test_real_fingerprint_mismatch_from_this_machine():
    """torch 2.13 + gloo + TORCH_DISTRIBUTED_DEBUG=DETAIL: float32 on rank 0 vs float64 on rank 1."""
    real = SAMPLES / "real" / "torchrun" / "fingerprint" / "console.log"
    text = next(l for l in real.read_text().splitlines() if "[rank0]: RuntimeError: Detected mismatch" in l)
    msg = parse_torch_message(text.split("[rank0]: ", 1)[1])
    assert msg.kind == "fingerprint_mismatch"
    assert (msg.data["rank"], msg.data["dtypes"], msg.data["other_rank"], msg.data["other_dtypes"]) == (
        0, ["float32"], 1, ["float64"])
    assert msg.data["shapes"] == msg.data["other_shapes"] == [[1024]]
    assert msg.data["device_types"] == ["cpu"] and msg.data["seq"] == 1


@pytest.mark.parametrize("name", sorted(p.name for p in (SAMPLES / "torch").glob("*.log")))
def test_every_hand_written_sample_parses_fully(name):
    events = _events(SAMPLES / "torch" / name)
    assert events and not [e for e in events if e.kind == "unparsed"]


WRAPPED = [   # real shapes: a message hard-wrapped at a fixed width (mid-word), or soft-wrapped at a space
    (["[rank1]:[E909 09:55:29.307 ProcessGroupNCCL.cpp:607] [Rank 1] Watchdog caught collective opera",
      "tion timeout: WorkNCCL(SeqNum=4, OpType=BROADCAST, NumelIn=112, NumelOut=112, Timeout(ms)=1800000) ran for 18",
      "00010 milliseconds before timing out."], "watchdog_timeout", {"seq": 4, "elapsed_ms": 1800010}),
    (["[rank12]:[E909 09:55:29.313 ProcessGroupNCCL.cpp:1664] [PG 0 (default_pg) Rank 12] Exception (either an error "
      "or timeout) detected", "by watchdog at work: 2070, last enqueued NCCL work: 2070, last completed NCCL work: 2069."],
     "work_status", {"seq": 2070, "last_completed": 2069}),
]


@pytest.mark.parametrize(("lines", "kind", "fields"), WRAPPED)
def test_a_wrapped_message_is_joined_and_cited_at_its_first_line(lines, kind, fields):
    from nccl_forensics.sources.lines import make_line
    parser = TorchLogParser(Source("x.log", SourceKind.CONSOLE))
    for no, text in enumerate(lines, 1):
        assert parser.feed(make_line(no, text))
    parser.finish()
    (ev,) = parser.out
    assert ev.kind == kind and ev.line == 1 and ev.data["end_line"] == len(lines)
    for key, value in fields.items():
        assert ev.data[key] == value, key


def test_a_message_behind_an_application_s_own_prefix_is_found():
    text = ("[RANK 1] 2026-05-19 10:10:29,701 [ERROR] GPU circuit breaker OPEN: cuda_error - Detected mismatch between "
            "collectives on ranks. Rank 1 is running collective: CollectiveFingerPrint(SequenceNumber=101, "
            "OpType=ALLGATHER, TensorShape=[1], TensorDtypes=Long, TensorDeviceTypes=TensorOptions(dtype=float (default), "
            "device=cuda, layout=Strided (default), requires_grad=false (default), pinned_memory=false (default), "
            "memory_format=(nullopt))), but Rank 7 is "
            "running collective: CollectiveFingerPrint(SequenceNumber=0OpType=REDUCE).Collectives differ in the "
            "following aspects:   Sequence number: 101vs 0  Op type: ALLGATHERvs REDUCE")
    from nccl_forensics.sources.lines import make_line
    parser = TorchLogParser(Source("x.log", SourceKind.CONSOLE))
    assert parser.feed(make_line(1, text))
    parser.finish()
    (ev,) = parser.out
    assert ev.kind == "fingerprint_mismatch" and ev.rank == 1 and ev.data["other_rank"] == 7
    assert (ev.data["op"], ev.data["other_op"]) == ("allgather", "reduce")


def _every_known_line() -> list[str]:
    """Every line of this module's cases and of the hand-written samples that grammars/torch.lark's `start` reads."""
    texts = [v[0] for v in VALID] + ["".join(lines) for lines, _, _ in WRAPPED]
    texts += [line for p in sorted((SAMPLES / "torch").glob("*.log")) for line in p.read_text().splitlines()]
    return [t for t in texts if parse_with("torch", torch_log._TRANSFORMER, t.strip(), "start") is not None]


def test_the_quick_word_check_passes_every_line_the_grammar_knows():
    # the check that spares Lark most c10d lines (torch_log._KNOWN_WORDS) must never turn away a known message
    known = _every_known_line()
    assert len(known) > 40
    assert [t for t in known if torch_log._KNOWN_WORDS.search(t) is None] == []
