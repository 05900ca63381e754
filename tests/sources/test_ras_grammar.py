"""grammars/ras.lark and sources/ras.py: the `ncclras` client report of NCCL's RAS client output (`ncclras`, src/ras/)."""
from __future__ import annotations

from pathlib import Path

import pytest

from nccl_forensics.model import Line, Source, SourceKind
from nccl_forensics.sources import parse_source
from nccl_forensics.sources.ras import RasParser, parse_ras_line, rank_list

RAS = Path(__file__).resolve().parents[2] / "sample_logs" / "evidence" / "ras"




@pytest.mark.parametrize(("text", "what", "fields"), [
    ("CUDA runtime version 12060, driver version 12060", "version", {"cuda_runtime": 12060}),
    ("NCCL version 2.26.2 compiled with CUDA 12.6", "version", {"nccl_version": "2.26.2", "cuda": "12.6"}),
    ("Communicators... (0.00s)", "section", {"section": "communicators"}),
    ("0         1         4         8        32        32   RUNNING  MISMATCH", "row",
     {"ints": [0, 1, 4, 8, 32, 32], "words": ["RUNNING", "MISMATCH"]}),
    ("#0-0 (fa93daea854b060b) MISMATCH", "issue", {"comm_hash": "fa93daea854b060b", "state": "MISMATCH"}),
    ("#1-3 (00000000deadbeef) INCOMPLETE,ERROR", "issue", {"state": "INCOMPLETE,ERROR"}),
    ("Rank 12 -- GPU 4 managed by process 323032 on node 10.137.190.124", "detail",
     {"ranks": [12], "pid": 323032, "node": "10.137.190.124"}),
    ("The missing ranks: 1, 3-5", "detail", {"ranks": [1, 3, 4, 5]}),
    ("30 ranks have launched up to operation 640", "detail", {"rank_count": 30, "opcount": 640}),
    # the wording of every version, client_support.cc v2.24.3 - v2.30.7
    ("The missing ranks: 3,12", "detail", {"ranks": [3, 12]}),                                   # 2.24 - 2.25
    ("1 job process is considered dead (unreachable via the RAS network)", "dead", {"count": 1}),
    ("8 job processes are considered dead (unreachable via the RAS network)", "dead", {"count": 8}),
    ("Missing communicator data from 2 job processes", "silent", {"count": 2}),
    ("Missing communicator data from 1 rank", "detail", {"missing_count": 1, "ranks": []}),
    ("Process 777 on node 10.1.4.7 managing GPU 5", "process", {"pid": 777, "node": "10.1.4.7", "gpu": "5"}),
    ("Process 12 on node gpu-a managing GPUs 0,1 (NVML 2,3)", "process", {"pid": 12, "gpu": "0,1 (NVML 2,3)"}),
    ("Rank 7 -- [process information not found]", "detail", {"ranks": [7], "claim": None}),
    ("Rank 3 -- GPU 2 (NVML 6) managed by process 41 on node n1", "detail", {"ranks": [3], "gpu": "2 (NVML 6)"}),
    ("Rank 17 has launched up to operation 1201 -- GPU 1 managed by process 60117 on node 10.8.0.3", "detail",
     {"ranks": [17], "claim": "has launched up to operation 1201", "pid": 60117}),
    ("Rank 4 has status ABORT -- GPU 4 managed by process 9 on node n2", "detail", {"claim": "has status ABORT"}),
    ("Rank 2 reported Remote process error -- [process information not found]", "detail",
     {"ranks": [2], "claim": "reported Remote process error"}),
    ("6 ranks have not launched any operations", "detail", {"rank_count": 6, "opcount": 0}),      # 2.26+
    ("Gathering data about the RAS network (timeout 5s)... obtained a result in 0.003s", "noise", {}),
    ("The outlier node:", "noise", {}),
    ("[could not find information on 2 processes]", "noise", {}),
    ("[2025-12-19 13:07:07] PEER_DEAD: Process 1524345 on node 172.16.64.245 managing GPU 1", "monitor",
     {"event": "PEER_DEAD", "pid": 1524345, "node": "172.16.64.245"}),                         # 2.29+ monitor mode
    ("[2025-12-19 13:07:07] PEER_DEAD: 172.16.64.245<41233>", "monitor", {"event": "PEER_DEAD"}),
    ("    0         1         4       1-2        32        32   UNKNOWN  MISMATCH", "row", {"words": ["UNKNOWN", "MISMATCH"]}),
    ("    0         1       128       0-8      1024      1016   RUNNING  INCOMPLETE", "row",
     {"ints": [0, 1, 128, 0, 1024, 1016], "words": ["RUNNING", "INCOMPLETE"]}),
])
def test_lines(text, what, fields):
    got, data = parse_ras_line(text)
    assert got == what
    for key, value in fields.items():
        assert data[key] == value


def test_rank_list_caps_huge_ranges():
    assert rank_list("7") == [7] and len(rank_list("0-99999999")) == 65537


def _ras(name):
    result = parse_source(Source(str(RAS / name), SourceKind.CONSOLE))
    assert result.error is None and result.unparsed == 0
    return [e for e in result.events if e.source == "ras"]


def test_mismatch_report():
    events = _ras("ncclras_mismatch_2.26.txt")
    comm = next(e for e in events if e.data["section"] == "communicators")
    assert (comm.data["state"], comm.data["errors"], comm.data["ranks_per_comm"]) == ("RUNNING", "MISMATCH", 32)
    issue = [e for e in events if e.data["comm_hash"] == "fa93daea854b060b"]
    assert len(issue) == 5 and {e.data["state"] for e in issue} == {"MISMATCH"}
    located = issue[-1]
    assert (located.rank, located.pid, located.host) == (12, 323032, "10.137.190.124")
    assert [e.data.get("opcount") for e in issue[2:4]] == [640, 641]


def test_incomplete_and_dead_report():
    events = _ras("ncclras_incomplete_dead.txt")
    dead = next(e for e in events if e.data["state"] == "DEAD" and e.pid)
    assert (dead.pid, dead.host, dead.rank, dead.data["implies"]) == (88123, "10.0.0.12", None, "dropped_rank")
    missing = next(e for e in events if e.data["comm_hash"] == "5c1e0d2b9a874f31" and e.data["ranks"])
    assert missing.data["ranks"] == [9] and missing.data["state"] == "INCOMPLETE" and missing.rank == 9
    assert (missing.data["implies"], missing.data["ranks_at_fault"]) == ("dropped_rank", [9])
    comm = next(e for e in events if e.data["section"] == "communicators")
    assert (comm.data["ranks_per_node"], comm.data["ranks_in_group"]) == (7, 15)     # `7-8`: its low end


def test_report_ends_at_a_foreign_line_and_is_not_started_by_others():
    parser = RasParser(Source("c.log", SourceKind.CONSOLE))
    assert parser.feed(Line(1, "Errors")) is False                 # only a report head starts a report
    assert parser.feed(Line(2, "Job summary")) is True and parser.busy
    assert parser.feed(Line(3, "step 10 loss 2.0")) is False and not parser.busy
    assert parser.feed(Line(4, "  weird indented thing ### !")) is False


def _feed(lines: list[str]):
    parser = RasParser(Source("c.log", SourceKind.CONSOLE))
    taken = [parser.feed(Line(n, text)) for n, text in enumerate(lines, 1)]
    return taken, [e for e in parser.out if e.kind == "ras"]


def test_a_paste_that_starts_at_an_issue_head_is_a_report():
    taken, events = _feed(["#0-0 (fa93daea854b060b) MISMATCH", "  Communicator ranks have different AllGather "
                           "operation counts", "  30 ranks have launched up to operation 640", "step 11 loss 1.9"])
    assert taken == [True, True, True, False]
    assert [e.data.get("opcount") for e in events] == [None, None, 640]
    assert not any(e.data.get("meaning") for e in events)           # a MISMATCH is no failure
    assert _feed(["#0-0 (xyz) MISMATCH"])[0] == [False]             # not a 16-hex hash: not NCCL's head


def test_dead_and_silent_processes_decide_what_each_missing_rank_is():
    _, events = _feed(["Communicators... (5.00s)", "=============", "", "Errors", "======", "", "INCOMPLETE",
                       "  Missing communicator data from 1 job process", "  Process 7 on node a managing GPU 1", "",
                       "DEAD", "  1 job process is considered dead (unreachable via the RAS network)",
                       "  Process 9 on node b managing GPU 3", "", "#0-0 (00000000000000aa) INCOMPLETE",
                       "  Missing communicator data from 2 ranks", "  Rank 1 -- GPU 1 managed by process 7 on node a",
                       "  Rank 11 -- GPU 3 managed by process 9 on node b", "", "#1-0 (00000000000000bb) INCOMPLETE",
                       "  Missing communicator data from 1 rank", "  Rank 3 -- GPU 3 managed by process 9 on node b"])
    named = {(e.rank, e.data["comm_hash"]): e.data for e in events if e.data["ranks"]}
    assert named[(1, "00000000000000aa")]["implies"] == "missing_rank"
    assert named[(11, "00000000000000aa")]["ranks_at_fault"] == [11]
    assert named[(11, "00000000000000aa")]["implies"] == "dropped_rank"
    sub = named[(None, "00000000000000bb")]                         # a sub-communicator's rank 3: not the job's
    assert (sub["implies"], sub["ranks_at_fault"]) == ("dropped_rank", [])


def _counts(behind: int) -> list[str]:
    return ["#0-0 (00000000000000cc) MISMATCH", "  Communicator ranks have different AllReduce operation counts",
            "  7 ranks have launched up to operation 771",
            f"  Rank 5 has launched up to operation {behind} -- GPU 5 managed by process 75 on node n", "step 12"]


def test_counts_unchanged_in_a_later_report_name_the_ranks_behind():
    _, events = _feed(_counts(770) + _counts(770))
    blamed = [e.data for e in events if e.data.get("meaning")]
    assert [(d["ranks_at_fault"], d["stuck_at"], d["implies"]) for d in blamed] == [([5], 770, "missing_rank")]
    _, events = _feed(_counts(769) + _counts(770))
    assert not any(e.data.get("meaning") for e in events)
