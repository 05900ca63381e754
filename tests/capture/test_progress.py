"""`ncclf run`'s progress signal: NCCL COLL lines once there are any, log growth before; FR dumps are news."""
from __future__ import annotations

from nccl_forensics.capture.progress import ProgressWatch

# A COLL line as NCCL 2.21 prints it (formats/nccl.md).
COLL = ("vm:4242:4242 [0] NCCL INFO AllReduce: opCount 1f sendbuff 0x7f5690000000 recvbuff 0x7f5690000000 "
        "count 1024 datatype 7 op 0 root 0 comm 0x563a7820e120 [nranks=4] stream 0x56b760f17080\n")
WARN = "[rank0]:[W1124 22:30:23.350920176 ProcessGroupNCCL.cpp:1234] still waiting\n"


def append(path, text: str) -> None:
    with open(path, "a") as fh:
        fh.write(text)


def test_log_growth_is_progress_until_coll_lines_flow(tmp_path):
    (tmp_path / "nccl").mkdir()
    console, nccl = tmp_path / "console.log", tmp_path / "nccl" / "nccl.vm.4242.log"
    watch = ProgressWatch(tmp_path)
    assert not watch.poll().progressed
    append(console, "step 1\n")
    assert watch.poll().progressed
    append(nccl, COLL)
    assert watch.poll().progressed and watch.coll_seen
    append(console, WARN)
    assert not watch.poll().progressed, "once COLL lines flow, other output is no progress"
    append(nccl, COLL.replace("opCount 1f", "opCount 20"))
    assert watch.poll().progressed
    assert not watch.poll().progressed


def test_a_new_flight_recorder_dump_is_reported_once(tmp_path):
    (tmp_path / "fr").mkdir()
    watch = ProgressWatch(tmp_path)
    (tmp_path / "fr" / "nccl_trace_rank_2").write_bytes(b"\x80\x02}q\x00.")
    poll = watch.poll()
    assert [p.name for p in poll.new_fr_dumps] == ["nccl_trace_rank_2"] and not poll.progressed
    assert watch.poll().new_fr_dumps == []


def test_what_capture_writes_is_not_mistaken_for_progress(tmp_path):
    watch = ProgressWatch(tmp_path)
    for sub in ("pyspy", "node", ".fr-pipes"):
        (tmp_path / sub).mkdir()
        (tmp_path / sub / "x.txt").write_text("Thread 1 (idle)\n")
    assert not watch.poll().progressed


def test_under_torchrun_only_the_ranks_echoed_lines_are_progress(tmp_path):
    """torchrun's own lines (rendezvous, worker start) say nothing of the ranks: before they run, the startup
    grace must not end; a line torchrun echoes from a rank (`[default0]:`, its `--tee` prefix) is progress."""
    console = tmp_path / "console.log"
    watch = ProgressWatch(tmp_path, console=console)
    append(console, "INFO:torch.distributed.launcher.api:Starting elastic_operator with launch configs:\n"
                    "[2024-06-12 10:19:03,164] torch.distributed.elastic.agent.server.api: [INFO] "
                    "[default] Starting worker group\n")
    assert not watch.poll().progressed
    append(console, "[default1]:step 1 loss 2.3\n")
    assert watch.poll().progressed
    append(console, "[rank0]:[W1124 22:30:23.350920176 ProcessGroupNCCL.cpp:1234] warn\n")
    assert watch.poll().progressed
    other = tmp_path / "torchrun_logs" / "attempt_0" / "0"
    other.mkdir(parents=True)
    append(other / "stdout.log", "step 2\n")
    assert watch.poll().progressed, "a rank's own log file is its output"
