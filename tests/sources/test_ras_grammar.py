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
    dead = next(e for e in events if e.data["state"] == "DEAD" and e.data["ranks"])
    assert dead.rank == 9 and dead.pid == 88123
    missing = next(e for e in events if e.data["comm_hash"] == "5c1e0d2b9a874f31" and e.data["ranks"])
    assert missing.data["ranks"] == [9] and missing.data["state"] == "INCOMPLETE"


def test_report_ends_at_a_foreign_line_and_is_not_started_by_others():
    parser = RasParser(Source("c.log", SourceKind.CONSOLE))
    assert parser.feed(Line(1, "Errors")) is False                 # only a report head starts a report
    assert parser.feed(Line(2, "Job summary")) is True and parser.busy
    assert parser.feed(Line(3, "step 10 loss 2.0")) is False and not parser.busy
    assert parser.feed(Line(4, "  weird indented thing ### !")) is False
