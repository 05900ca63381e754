"""Hypothesis fuzzing for the torch, torchrun, kernel, slurm and ras parsers and the error.json reader.

Properties: any line sequence parses without an exception (bad input never raises), claimed lines give only
contract kinds, and values written into real-format lines are read back exactly.
"""
from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nccl_forensics.errors import BadInput
from nccl_forensics.model import Line, Source, SourceKind
from nccl_forensics.sources import parse_source
from nccl_forensics.sources.kernel import KernelParser
from nccl_forensics.sources.ras import RasParser
from nccl_forensics.sources.slurm import SlurmParser
from nccl_forensics.sources.torch_log import TorchLogParser, parse_torch_message
from nccl_forensics.sources.torchrun import TorchrunParser, read_error_json

FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
KINDS = {
    "torch": {"watchdog_timeout", "work_status", "heartbeat", "desync_report", "monitored_barrier",
              "fingerprint_mismatch", "c10d_log", "unparsed"},
    "torchrun": {"child_failed", "sigterm_sent", "worker_failed", "agent_log", "error_json", "unparsed"},
    "kernel": {"oom_kill", "oom_invoked", "hung_task", "unparsed"},
    "slurm": {"slurm_cancelled", "slurm_oom", "slurm_exit", "k8s_oomkilled", "unparsed"},
    "ras": {"ras", "unparsed"},
}
PARSERS = [TorchLogParser, TorchrunParser, KernelParser, SlurmParser, RasParser]
FRAGMENTS = [
    "[E1218 20:27:21.426415540 ProcessGroupNCCL.cpp:629] ", "[Rank 1] ", "[PG ID 0 PG GUID 0(default_pg) Rank 1] ",
    "Watchdog caught collective operation timeout: ", "WorkNCCL(SeqNum=5, OpType=ALLREDUCE, NumelIn=512, NumelOut=512, Timeout(ms)=600000)",
    " ran for 600015 milliseconds before timing out.", "\t - [0] Timeout at collective: ALLREDUCE, #5",
    "\t     [2, 3] finished collective #4, but didn't join collective #5 (count from 1)",
    "RuntimeError: Detected mismatch between collectives on ranks. Rank 1 is running collective: ",
    "CollectiveFingerPrint(SequenceNumber=3, OpType=ALLREDUCE, TensorShape=[1024], TensorDtypes=Float, "
    "TensorDeviceTypes=TensorOptions(dtype=float (default), device=cpu))", ".Collectives differ in the following aspects: ",
    "[Rank 0]: Ranks 6 failed to pass monitoredBarrier in 180 ms", "[TC][rank=3][name=0] ",
    "W1121 13:38:08.523000 5392 site-packages/torch/distributed/elastic/multiprocessing/api.py:1028] ",
    "Sending process 5494 closing signal SIGTERM", "failed (exitcode: -9) local_rank: 1 (pid: 3437) of binary: /usr/bin/python3",
    "=" * 60, "-" * 60, "train.py FAILED", "Failures:", "Root Cause (first observed failure):", "[0]:",
    "  time      : 2024-04-01_05:16:50", "  rank      : 1 (local_rank: 1)", "  exitcode  : -9 (pid: 3437)  (SIGKILL)",
    "  traceback : Signal 9 (SIGKILL) received by PID 3437", "  <NO_OTHER_FAILURES>", "  error_file: <N/A>",
    "[  23.346680] ", "[Sat Mar  4 04:10:52 2023] ", "oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/",
    ",global_oom,task_memcg=/,task=firewalld,pid=5096,uid=0", "Out of memory: Killed process 5096 (firewalld) ",
    "total-vm:412124kB, anon-rss:28416kB", "python invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0, oom_score_adj=0",
    "INFO: task python:280058 blocked for more than 120 seconds.", "slurmstepd: error: ",
    "*** STEP 1999616.0 ON r6i4n5 CANCELLED AT 2021-05-27T21:42:11 DUE TO TIME LIMIT ***",
    "srun: error: node107: task 0: Out Of Memory", "Detected 2 oom_kill events in StepId=7311.0.", "      Reason:       OOMKilled",
    "      Exit Code:    137", "CUDA runtime version 12060, driver version 12060", "Job summary", "===========",
    "#0-0 (fa93daea854b060b) MISMATCH", "  Rank 12 -- GPU 4 managed by process 323032 on node 10.0.0.1",
    "    0         1         4         8        32        32   RUNNING  MISMATCH", "[rank3]:", "[default1]:", "step 10 loss 2.31",
]
line_text = st.one_of(
    st.sampled_from(FRAGMENTS),
    st.builds(lambda a, b: a + b, st.sampled_from(FRAGMENTS), st.sampled_from(FRAGMENTS)),
    st.builds(lambda a, n: a[:n], st.sampled_from(FRAGMENTS), st.integers(0, 80)),
    st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\n\r"), max_size=80),
)


@FUZZ
@given(st.lists(line_text, max_size=40), st.sampled_from([SourceKind.CONSOLE, SourceKind.KERNEL, SourceKind.SLURM]))
def test_any_line_sequence_parses_without_error(tmp_path, lines, kind):
    path = tmp_path / "fuzz.log"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = parse_source(Source(str(path), kind))
    assert result.error is None
    for ev in result.events:
        if ev.source in KINDS:
            assert ev.kind in KINDS[ev.source] and 1 <= ev.line <= len(lines) + 1


@FUZZ
@given(st.lists(line_text, max_size=30))
def test_each_parser_alone_never_raises(lines):
    for cls in PARSERS:
        parser = cls(Source("f.log", SourceKind.SLURM))
        for no, text in enumerate(lines, 1):
            assert parser.feed(Line(no, text)) in (True, False)
        parser.finish()
        assert all(e.kind in KINDS[parser.source] for e in parser.out)


@FUZZ
@given(st.integers(0, 10**9), st.sampled_from(["ALLREDUCE", "BROADCAST", "_REDUCE_SCATTER_BASE", "SEND"]),
       st.integers(0, 10**12), st.integers(0, 10**12), st.integers(1, 10**8), st.integers(0, 10**9), st.integers(0, 4096))
def test_watchdog_values_round_trip(seq, op, numel_in, numel_out, timeout, ran, rank):
    text = (f"[E1218 20:27:21.426415540 ProcessGroupNCCL.cpp:629] [Rank {rank}] Watchdog caught collective operation "
            f"timeout: WorkNCCL(SeqNum={seq}, OpType={op}, NumelIn={numel_in}, NumelOut={numel_out}, "
            f"Timeout(ms)={timeout}) ran for {ran} milliseconds before timing out.")
    data = parse_torch_message(text).data
    assert (data["seq"], data["op_raw"], data["numel_in"], data["numel_out"], data["timeout_ms"], data["elapsed_ms"],
            data["group_rank"]) == (seq, op, numel_in, numel_out, timeout, ran, rank)


@FUZZ
@given(st.lists(st.integers(1, 10**7), min_size=1, max_size=4), st.sampled_from(["Float", "Double", "BFloat16", "Half"]),
       st.integers(0, 10**6), st.integers(0, 4095), st.integers(0, 4095))
def test_fingerprint_values_round_trip(dims, dtype, seq, me, other):
    fp = (f"CollectiveFingerPrint(SequenceNumber={seq}, OpType=ALLGATHER, TensorShape=[{', '.join(map(str, dims))}], "
          f"TensorDtypes={dtype}, TensorDeviceTypes=TensorOptions(dtype=float (default), device=cuda, layout=Strided "
          f"(default), requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt)))")
    text = (f"Detected mismatch between collectives on ranks. Rank {me} is running collective: {fp}, but Rank {other} "
            f"is running collective: {fp.replace('OpType=ALLGATHER', 'OpType=BROADCAST')}.Collectives differ in the "
            f"following aspects:   Op type: ALLGATHERvs BROADCAST")
    data = parse_torch_message(text).data
    assert (data["rank"], data["other_rank"], data["seq"], data["shapes"], data["op"], data["other_op"]) == (
        me, other, seq, [dims], "allgather", "broadcast")


@FUZZ
@given(st.integers(1, 4 * 10**6), st.from_regex(r"[a-z_][a-z0-9_]{0,14}", fullmatch=True),
       st.integers(0, 10**10), st.integers(0, 10**10), st.integers(-1000, 1000), st.booleans())
def test_kernel_kill_values_round_trip(pid, comm, vm, rss, adj, memcg):
    reason = "Memory cgroup out of memory" if memcg else "Out of memory"
    parser = KernelParser(Source("d.log", SourceKind.KERNEL))
    parser.feed(Line(1, f"[ 123.456789] {reason}: Killed process {pid} ({comm}) total-vm:{vm}kB, anon-rss:{rss}kB, "
                        f"file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:4kB oom_score_adj:{adj}"))
    (ev,) = parser.out
    assert (ev.pid, ev.data["task"], ev.data["total_vm_kb"], ev.data["anon_rss_kb"], ev.data["oom_score_adj"],
            ev.data["cgroup_oom"]) == (pid, comm, vm, rss, adj, memcg)


@FUZZ
@given(st.integers(1, 10**8), st.sampled_from(["0", "batch", "extern", "12"]), st.from_regex(r"[a-z][a-z0-9-]{0,20}", fullmatch=True),
       st.sampled_from(["TIME LIMIT", "PREEMPTION", "JOB REQUEUE", "NODE FAILURE, SEE SLURMCTLD LOG FOR DETAILS"]))
def test_slurm_cancel_values_round_trip(job, step, node, reason):
    parser = SlurmParser(Source("j.out", SourceKind.SLURM))
    parser.feed(Line(1, f"slurmstepd: error: *** STEP {job}.{step} ON {node} CANCELLED AT 2021-05-27T21:42:11 DUE TO {reason} ***"))
    (ev,) = parser.out
    assert (ev.data["job_id"], ev.data["step"], ev.host, ev.data["reason"]) == (str(job), step, node, reason)


@FUZZ
@given(st.integers(0, 10**5), st.integers(0, 10**5), st.integers(-64, 255), st.integers(1, 4 * 10**6))
def test_child_failed_values_round_trip(rank, local_rank, exitcode, pid):
    parser = TorchrunParser(Source("c.log", SourceKind.CONSOLE))
    lines = ["Root Cause (first observed failure):", "[0]:", "  time      : 2024-04-01_05:16:50", "  host      : n1",
             f"  rank      : {rank} (local_rank: {local_rank})", f"  exitcode  : {exitcode} (pid: {pid})",
             "  error_file: <N/A>", "=" * 60]
    for no, text in enumerate(lines, 1):
        assert parser.feed(Line(no, text))
    (ev,) = parser.out
    assert (ev.rank, ev.data["local_rank"], ev.data["exitcode"], ev.pid, ev.data["root_cause"]) == (
        rank, local_rank, exitcode, pid, True)


@FUZZ
@given(st.one_of(st.binary(max_size=200), st.builds(lambda v: json.dumps(v).encode(), st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(["message", "extraInfo", "timestamp", "py_callstack", "x"]), inner, max_size=3),
    max_leaves=8))))
def test_error_json_reader_gives_events_or_one_line_bad_input(tmp_path, content):
    path = tmp_path / "error.json"
    path.write_bytes(content)
    try:
        events = list(read_error_json(Source(str(path), SourceKind.ERROR_JSON, size=len(content))))
    except BadInput as exc:
        assert "\n" not in str(exc)
    else:
        assert events[0].kind == "error_json"
