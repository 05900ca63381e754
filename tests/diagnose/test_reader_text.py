"""What a user reads at 3 a.m.: the verdict's sentences end at a word, counts read as words, ranks in one line."""
from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console

from nccl_forensics.model import Event, clip
from nccl_forensics.outputs.diagnosis_terminal import verdict_panel
from nccl_forensics.outputs.display import fr_entry
from nccl_forensics.pipeline.reduce import diagnose, diagnose_events

from .consoles import PROGRESS, console_verdict

# a Python traceback's last line (PyTorch's DistBackendError, NCCL 2.28's revoked communicator): cut at a fixed
# length the summary ended "(run with NCCL_DEBUG=WARN for d; ..."
_LONG_NCCL_ERROR = """\
svc-1:771:771 [0] NCCL INFO NCCL version 2.28.3+cuda12.9
svc-1:771:771 [0] NCCL INFO ncclCommRevoke comm 0x55f0 rank 0 nRanks 4
svc-1:771:771 [0] enqueue.cc:2625 NCCL WARN AllReduce: communicator was revoked
[rank0]: Traceback (most recent call last):
[rank0]:   File "/workspace/train.py", line 141, in <module>
[rank0]:     dist.all_reduce(t)
[rank0]: torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:3356, \
invalid usage (run with NCCL_DEBUG=WARN for details), NCCL version 2.28.3
[rank0]: ncclInvalidUsage: This usually reflects invalid usage of NCCL library.
[rank0]: Last error:
[rank0]: AllReduce: communicator was revoked"""


def test_clip_ends_at_a_word_and_shows_the_cut():
    text = "invalid usage (run with NCCL_DEBUG=WARN for details)"
    assert clip(text, 100) == text
    assert clip(text, 44) == "invalid usage (run with NCCL_DEBUG=WARN…"
    assert clip("x" * 50, 10) == "x" * 9 + "…"          # no space to end at: cut, still marked


def test_a_quoted_error_in_the_summary_is_not_cut_mid_word(tmp_path):
    verdict = console_verdict(tmp_path, _LONG_NCCL_ERROR, PROGRESS)
    assert "WARN for d;" not in verdict.summary
    assert "NCCL_DEBUG=WARN for…;" in verdict.summary


# NCCL 2.30's IB fatal-error count on one rank of a 16-rank world (net_ib.cc): the other 15 ranks left no line
_ONE_RANK_OF_SIXTEEN = """\
gpu-r07:88121:88121 [3] NCCL INFO NCCL version 2.30.3+cuda12.9
gpu-r07:88121:88121 [3] NCCL INFO comm 0x5603 rank 3 nranks 16 cudaDev 3 nvmlDev 3 busId 1b000 commId 0x9a - Init COMPLETE
gpu-r07:88121:88299 [3] transport/net_ib.cc:119 NCCL WARN communicator encountered a fatal error (detected in ncclIbIsend)"""


def _panel(tmp_path, text: str) -> str:
    (tmp_path / "console.log").write_text(PROGRESS + text + "\n", encoding="utf-8")
    buf = io.StringIO()
    Console(file=buf, width=400, color_system=None).print(verdict_panel(diagnose([str(tmp_path)], jobs=1)))
    return buf.getvalue()


def test_ranks_missing_for_one_reason_share_one_line(tmp_path):
    missing = [line for line in _panel(tmp_path, _ONE_RANK_OF_SIXTEEN).splitlines() if "missing: rank" in line]
    assert len(missing) == 1, missing
    assert "missing: ranks 0-2, 4-15: no evidence (the world has 16 ranks" in missing[0]


# DeepSpeed on MI300X (deepspeedai/DeepSpeed#6725): one rank's watchdog timeout, the group seen from that rank alone
_ONE_RANK_TIMED_OUT = """\
[rank4]:[E1107 22:03:59.159782320 ProcessGroupNCCL.cpp:692] [Rank 4] Watchdog caught collective operation timeout: \
WorkNCCL(SeqNum=473096, OpType=_ALLGATHER_BASE, NumelIn=360448, NumelOut=2883584, Timeout(ms)=1800000) ran for \
1800004 milliseconds before timing out.
[rank4]:[E1107 22:03:59.160250339 ProcessGroupNCCL.cpp:1996] [PG ID 0 PG GUID 0(default_pg) Rank 4] Work timeout \
is detected by watchdog"""


def test_a_group_of_one_and_a_cascade_of_one_read_as_words(tmp_path):
    panel = _panel(tmp_path, _ONE_RANK_TIMED_OUT)
    assert "group 0 (1 rank): seq 473096" in panel
    assert "cascade (consequences): rank 4" in panel


def test_a_group_seen_in_part_says_the_size_its_evidence_states(tmp_path):
    # one rank of an 8-rank job left its console: the world it states (nranks 8) is torch's default group, group 0
    stated = ("gpu-r07:88121:88121 [4] NCCL INFO comm 0x5603 rank 4 nranks 8 cudaDev 4 nvmlDev 4 busId 1b000 commId "
              "0x9a - Init COMPLETE\n")
    panel = _panel(tmp_path, stated + _ONE_RANK_TIMED_OUT)
    assert "group 0 (1 of 8 ranks seen): seq 473096" in panel


def test_an_nccl_communicator_seen_in_part_says_its_nranks(tmp_path):
    bundle = Path(__file__).resolve().parents[2] / "sample_logs" / "bundles" / "healthy-nccl"
    (one,) = bundle.glob("nccl.rank0.*.log")
    (tmp_path / one.name).write_bytes(one.read_bytes())
    lines = [line for line in _lines(tmp_path) if "last common collective" in line]
    assert lines == ["last common collective: group nccl:0xd8dcb35f94c662cd (1 of 8 ranks seen): seq 143"], lines
    for log in bundle.glob("nccl.rank*.log"):
        (tmp_path / log.name).write_bytes(log.read_bytes())
    assert "group nccl:0xd8dcb35f94c662cd (8 ranks): seq 143" in "\n".join(_lines(tmp_path))


def _lines(path: Path) -> list[str]:
    buf = io.StringIO()
    Console(file=buf, width=400, color_system=None).print(verdict_panel(diagnose([str(path)], jobs=1)))
    return [line.strip("│ ") for line in buf.getvalue().splitlines()]


def test_what_to_collect_is_said_once_in_the_panel(tmp_path):
    panel = " ".join(line.strip("│ ") for line in _panel(tmp_path, _ONE_RANK_TIMED_OUT).splitlines())
    assert panel.count("py-spy dumps of every rank while it hangs") == 1, panel
    assert "timeout_unknown: rank 4 timed out" in panel and "fix: next time collect: py-spy dumps" in panel


def test_a_flight_recorder_entry_says_only_the_fields_it_records():
    row = "flight_recorder seq 11 allreduce numel=? dtype=? state=? at /work/reproducers/trainer.py:70 (_loop)"
    assert fr_entry(row) == "seq 11 allreduce at /work/reproducers/trainer.py:70 (_loop)"
    full = "record 3 pg 0(default_pg) seq 7 nccl:all_reduce in=[] [] out=[] state=completed"
    assert fr_entry(full) == "seq 7 allreduce state=completed"


def test_a_skipped_collective_says_what_the_usual_next_one_had():
    bundle = Path(__file__).parents[2] / "sample_logs" / "bundles" / "real-skipped-collective"
    verdict = diagnose([str(bundle)], jobs=1).verdict
    assert "after its previous one had 4 elements, this time" in verdict.summary, verdict.summary


# ROCm/legacy-rocm-build#5259 (gfx942 under torchrun): ROCR's fault lines, then torchrun saw local rank 0 abort
_AMD_GPU_HANG = """\
HW Exception by GPU node-4 (Agent handle: 0x1ebc04e0) reason :GPU Hang
HW Exception by GPU node-4 (Agent handle: 0x2df30600) reason :GPU Hang
W0902 15:10:48.626000 819010 torch/distributed/elastic/multiprocessing/api.py:900] Sending process 819027 closing \
signal SIGTERM
E0902 15:10:49.013000 819010 torch/distributed/elastic/multiprocessing/api.py:874] failed (exitcode: -6) \
local_rank: 0 (pid: 819025) of binary: /usr/bin/python"""


def test_an_amd_crash_gets_no_nvidia_advice(tmp_path):
    verdict = console_verdict(tmp_path, _AMD_GPU_HANG)
    assert verdict.cls == "dropped_rank" and "ROCm/HIP" in verdict.summary, verdict.summary
    assert "Xid" not in verdict.fix and "amdgpu" in verdict.fix, verdict.fix


def test_the_network_fix_names_the_peer_or_else_the_host_that_reported_it(tmp_path):
    """N401's fix said `the peer named above` on an IB port event that names no peer: it names what the line names."""
    port = console_verdict(tmp_path, "node7:1234:1240 [0] NCCL WARN NET/IB : Got async event : port error\n")
    assert port.cls == "network_error", port.summary
    assert "named above" not in port.fix and "node7" in port.fix, port.fix
    peer = console_verdict(tmp_path, "node2:88:90 [1] misc/socket.cc:484 NCCL WARN socketStartConnect: Connect to "
                                     "10.0.0.5<43211> failed : Connection refused\n")
    assert "10.0.0.5:43211" in peer.fix, peer.fix


def test_a_death_line_s_own_full_stop_does_not_meet_the_next_clause():
    """`…fallen off the bus.; no line says which rank` read as two stops: the quoted line's own is dropped."""
    ev = Event(kind="xid", source="kernel", file="dmesg.log", line=3, text="NVRM: GPU 0000:3b:00.0: GPU has fallen off "
               "the bus.", data={"meaning": "failure", "implies": "dropped_rank", "message_id": "kernel.gpu_off_bus"})
    summary = diagnose_events([ev]).verdict.summary
    assert ".;" not in summary, summary
