"""NCCL's RAS client report (`ncclras`, `echo STATUS | nc localhost 28028`; NCCL 2.24+) in a console: the verdict
reads it. Reports written from the format strings of NVIDIA/nccl src/ras/client_support.cc (v2.24.3 - v2.30.7),
with the lines a user pastes around them. What the report says, from the sources:

- `DEAD` / `N job process(es) is|are considered dead (unreachable via the RAS network)`: peers.cc declares a peer dead
  when its RAS keep-alives stop; the communicators' `INCOMPLETE` issues then name its ranks (2.24-2.25: `The missing
  rank(s): 1,3`; 2.26+: one `Rank R -- GPU G managed by process P on node H` each): `dropped_rank`, those ranks.
- the job's `INCOMPLETE` / `Missing communicator data from N job process(es)`: live processes that sent no data in
  time (not responding): `stuck_rank` (R203's class), the ranks of those processes.
- `#g-c (hash) MISMATCH` of operation counts or status: the client samples each rank's counts while the job runs,
  so a lone MISMATCH is no failure (NCCL's RAS docs); it reads inconclusive, also when pasted without its header.
- a sub-communicator's rank numbers are its own: only group 0 as large as the job names the job's ranks.
"""
from __future__ import annotations

from .consoles import PROGRESS, console_verdict

_HEAD = ("NCCL version {version} compiled with CUDA 12.8\nCUDA runtime version 12080, driver version 12080\n\n"
         "Job summary\n===========\n\n")
_ONE_TABLE = ("  Nodes  Processes         GPUs  Processes     GPUs\n(total)   per node  per process    (total)  (total)\n"
              "{nodes:7d}  {ppn:9d}  {gpp:11d}  {procs:9d}  {gpus:7d}\n\n")            # 2.24 - 2.26
_TWO_TABLES = ("  Nodes  Processes         GPUs\n(total)   per node  per process\n{nodes:7d}  {ppn:9d}  {gpp:11d}\n\n"
               "  Nodes  Processes         GPUs\n(total)    (total)      (total)\n{nodes:7d}  {procs:9d}  {gpus:11d}\n\n")
_COMMS = ("Communicators... ({took})\n=============\n\n"
          "Group     Comms     Nodes     Ranks     Ranks     Ranks    Status  Errors\n"
          "    #  in group  per comm  per node  per comm  in group\n")
_WATCHDOG = ("[rank{r}]:[E1127 02:10:11.000123 700{r} ProcessGroupNCCL.cpp:632] [Rank {r}] Watchdog caught collective "
             "operation timeout: WorkNCCL(SeqNum=771, OpType=ALLREDUCE, NumelIn=4194304, NumelOut=4194304, "
             "Timeout(ms)=600000) ran for 600018 milliseconds before timing out.\n")


def report(version: str, nodes: int, ppn: int, rows: str, errors: str, warnings: str = "", took: str = "2.00s") -> str:
    """One `ncclras` text report; 2.27+ prints the job summary as two tables."""
    gpus = nodes * ppn
    table = _TWO_TABLES if version >= "2.27" else _ONE_TABLE
    return (_HEAD.format(version=version) + table.format(nodes=nodes, ppn=ppn, gpp=1, procs=gpus, gpus=gpus)
            + _COMMS.format(took=took) + rows + "\nErrors\n======\n\n" + errors + "Warnings\n========\n\n" + warnings)


def row(group: int, comms: int, nodes: int, per_node: str, size: int, in_group: int, errors: str) -> str:
    return f"{group:5d}  {comms:8d}  {nodes:8d}  {per_node:>8s}  {size:8d}  {in_group:8d}  {'RUNNING':>8s}  {errors:>6s}\n"


def dead(processes: list[tuple[int, str, int]]) -> str:
    n = len(processes)
    head = f"DEAD\n  {n} job process{'es are' if n > 1 else ' is'} considered dead (unreachable via the RAS network)\n"
    return head + "".join(f"  Process {pid} on node {node} managing GPU {gpu}\n" for pid, node, gpu in processes) + "\n"


def missing(comm: str, ranks: list[tuple[int, int, str, int]]) -> str:
    """A communicator's INCOMPLETE issue as 2.26+ prints it: one line per missing rank (rank, pid, node, GPU)."""
    n = len(ranks)
    return (f"#{comm} INCOMPLETE\n  Missing communicator data from {n} rank{'s' if n > 1 else ''}\n"
            + "".join(f"  Rank {r} -- GPU {gpu} managed by process {pid} on node {node}\n" for r, pid, node, gpu in ranks)
            + "\n")


def test_224_dead_process_and_the_missing_rank_list(tmp_path):
    text = "$ ncclras\n" + report("2.24.3", 2, 8, row(0, 1, 2, "7-8", 16, 15, "INCOMPLETE"),
                                  dead([(88123, "10.0.0.12", 1)]) + "#0-0 (5c1e0d2b9a874f31) INCOMPLETE\n"
                                  "  Missing communicator data from 1 rank\n  The missing rank: 9\n\n", took="0.01s")
    v = console_verdict(tmp_path, text)
    assert (v.cls, v.culprit_ranks) == ("dropped_rank", [9]), v.summary


def test_227_dead_rank_named_by_the_world_communicator_not_a_sub_communicator(tmp_path):
    node = "192.168.10.2"
    rows = row(0, 1, 2, "7-8", 16, 15, "INCOMPLETE") + row(1, 2, 1, "7-8", 8, 15, "INCOMPLETE")
    errors = (dead([(4242, node, 3)]) + missing("0-0 (a1b2c3d4e5f60718)", [(11, 4242, node, 3)])
              + missing("1-1 (0f1e2d3c4b5a6978)", [(3, 4242, node, 3)]))
    v = console_verdict(tmp_path, "user@node-a:~$ ncclras\n" + report("2.27.3", 2, 8, rows, errors))
    assert (v.cls, v.culprit_ranks) == ("dropped_rank", [11]), v.summary


def test_watchdog_timeouts_then_the_report_names_the_dead_rank(tmp_path):
    errors = dead([(7007, "10.0.9.9", 7)]) + missing("0-0 (c0ffee0011223344)", [(7, 7007, "10.0.9.9", 7)])
    warnings = ("#0-0 (c0ffee0011223344) MISMATCH\n  Communicator ranks have different AllReduce operation counts\n"
                "  6 ranks have launched up to operation 771\n  Rank 2 has launched up to operation 770 -- GPU 2 "
                "managed by process 7002 on node 10.0.9.9\n\n")
    text = (_WATCHDOG.format(r=3) + _WATCHDOG.format(r=0) + "$ ncclras\n"
            + report("2.28.9", 1, 8, row(0, 1, 1, "7", 8, 7, "INCOMPLETE,MISMATCH"), errors, warnings, "5.002s"))
    v = console_verdict(tmp_path, text)
    assert (v.cls, v.culprit_ranks) == ("dropped_rank", [7]), v.summary


def test_a_live_process_that_sent_no_data_is_not_responding(tmp_path):
    errors = ("INCOMPLETE\n  Missing communicator data from 1 job process\n  Process 777 on node 10.1.4.7 managing GPU 5"
              "\n\n" + missing("0-0 (77aa88bb99cc0011)", [(5, 777, "10.1.4.7", 5)]))
    warnings = "TIMEOUT\n  Encountered 1 communication timeout while gathering communicator data\n\n"
    text = _WATCHDOG.format(r=0) + "$ echo STATUS | nc localhost 28028\n" + report(
        "2.26.6", 1, 8, row(0, 1, 1, "7", 8, 7, "INCOMPLETE"), errors, warnings, "5.01s")
    v = console_verdict(tmp_path, text)
    assert (v.cls, v.culprit_ranks) == ("stuck_rank", [5]), v.summary


def test_a_lone_mismatch_of_operation_counts_is_no_failure(tmp_path):
    warnings = ("#0-0 (3e4f5a6b7c8d9e0f) MISMATCH\n  Communicator ranks have different AllReduce operation counts\n"
                "  63 ranks have launched up to operation 1200\n  Rank 17 has launched up to operation 1201 -- GPU 1 "
                "managed by process 60117 on node 10.8.0.3\n\n")
    text = report("2.28.3", 8, 8, row(0, 1, 8, "8", 64, 64, "MISMATCH") + row(1, 8, 1, "8", 8, 64, "OK"), "", warnings)
    v = console_verdict(tmp_path, text)
    assert v.cls == "inconclusive" and not v.culprit_ranks, v.summary


def test_a_paste_from_the_mismatch_head_is_read_and_is_no_failure(tmp_path):
    text = ("#0-0 (fa93daea854b060b) MISMATCH\n  Communicator ranks have different AllGather operation counts\n"
            "  30 ranks have launched up to operation 640\n  2 ranks have launched up to operation 641\n"
            "  Rank 12 -- GPU 4 managed by process 323032 on node 10.137.190.124\n"
            "  Rank 13 -- GPU 5 managed by process 323033 on node 10.137.190.124\n")
    v = console_verdict(tmp_path, text, progress="")
    assert v.cls == "inconclusive" and "unparsed" not in v.summary, v.summary


def test_a_paste_from_an_incomplete_head_names_its_ranks(tmp_path):
    text = missing("0-0 (2468ace013579bdf)", [(6, 90116, "10.3.3.1", 6), (7, 90117, "10.3.3.1", 7)])
    v = console_verdict(tmp_path, text, progress="")
    assert v.cls in ("stuck_rank", "dropped_rank") and v.culprit_ranks == [6, 7], v.summary


def test_a_status_with_no_issue_is_no_failure(tmp_path):
    v = console_verdict(tmp_path, "$ ncclras\n" + report("2.29.2", 2, 4, row(0, 1, 2, "4", 8, 8, "OK"), "", took="0.004s"))
    assert v.cls == "inconclusive", v.summary


def test_a_thousand_rank_job_that_lost_twelve_nodes_stays_readable(tmp_path):
    """A verbose report (`verbose status` lists every missing rank) of a 1,024-rank job that lost every other node of
    its first 24: the verdict names the runs, abridged, and keeps every rank."""
    lost = [n for n in range(0, 24, 2)]
    procs = [(30000 + 8 * n + g, f"10.20.{n}.1", g) for n in lost for g in range(8)]
    ranks = [(8 * n + g, 30000 + 8 * n + g, f"10.20.{n}.1", g) for n in lost for g in range(8)]
    errors = dead(procs) + missing("0-0 (0badc0ffee123456)", ranks)
    text = report("2.28.9", 128, 8, row(0, 1, 128, "0-8", 1024, 928, "INCOMPLETE"), errors, took="5.003s")
    v = console_verdict(tmp_path, text)
    assert v.cls == "dropped_rank" and v.culprit_ranks == [r for r, *_ in ranks], v.summary
    assert "(96 ranks)" in v.summary and len(v.summary) < 400, v.summary


def test_progress_before_the_report_changes_nothing(tmp_path):
    errors = dead([(88123, "10.0.0.12", 1)]) + missing("0-0 (5c1e0d2b9a874f31)", [(9, 88123, "10.0.0.12", 1)])
    text = report("2.26.2", 2, 8, row(0, 1, 2, "7-8", 16, 15, "INCOMPLETE"), errors)
    assert console_verdict(tmp_path, PROGRESS + text).culprit_ranks == [9]


def test_monitor_mode_peer_dead_is_a_death_without_a_rank(tmp_path):
    """2.29+ `ncclras -m`: rasClientsNotifyEvent prints `[time] EVENT: <peer>`; PEER_DEAD names a process, not a rank."""
    text = ("RAS Monitor Mode - watching for peer changes (Ctrl+C to exit)...\n" + "=" * 64 + "\n"
            "[2025-12-19 13:01:02] PEER_NEW: Process 1524345 on node 172.16.64.245 managing GPU 1 \n"
            "[2025-12-19 13:07:07] PEER_DEAD: Process 1524345 on node 172.16.64.245 managing GPU 1 \n")
    v = console_verdict(tmp_path, text)
    assert v.cls == "dropped_rank" and not v.culprit_ranks, v.summary


def _mismatch(behind: int) -> str:
    warnings = ("#0-0 (c0ffee0011223344) MISMATCH\n  Communicator ranks have different AllReduce operation counts\n"
                "  7 ranks have launched up to operation 771\n  Rank 5 has launched up to operation "
                f"{behind} -- GPU 5 managed by process 7005 on node 10.0.9.9\n\n")
    return "$ ncclras\n" + report("2.27.5", 1, 8, row(0, 1, 1, "8", 8, 8, "MISMATCH"), "", warnings)


def test_the_same_counts_in_a_later_report_name_the_rank_behind(tmp_path):
    """NCCL's RAS guide: counts that do not change across queries may mean the communicator is stuck."""
    v = console_verdict(tmp_path, _WATCHDOG.format(r=0) + _mismatch(770) + "$ sleep 60; ncclras\n" + _mismatch(770))
    assert (v.cls, v.culprit_ranks) == ("stuck_rank", [5]), v.summary


def test_counts_that_moved_between_reports_are_no_failure(tmp_path):
    v = console_verdict(tmp_path, _mismatch(769) + "$ ncclras\n" + _mismatch(770))
    assert v.cls == "inconclusive", v.summary
