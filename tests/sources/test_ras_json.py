"""sources/ras_json.py: NCCL RAS's JSON client output (`ncclras -f json` 2.28.7+, `-m -f json` 2.29+), read line by
line as NCCL writes it (src/ras/client_support.cc), checked against `json.loads` of the same document."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from nccl_forensics.model import Source, SourceKind
from nccl_forensics.sources import parse_source
from nccl_forensics.sources.formats import kind_of

RAS = Path(__file__).resolve().parents[2] / "sample_logs" / "evidence" / "ras"


def _rank(rank: int, error: int = 0) -> dict:
    return {"rank": rank, "host": f"10.0.0.{rank // 8 + 1}", "pid": 5000 + rank, "cuda_dev": rank % 8,
            "nvml_dev": rank % 8, "status": {"init_state": 0, "async_error": error, "finalize_called": False,
                                             "destroy_flag": False, "abort_flag": error != 0},
            "collective_counts": {"AllReduce": 40, "AllGather": 8}}


def _missing(rank: int, dead: bool) -> dict:
    return {"rank": rank, "host": f"10.0.0.{rank // 8 + 1}", "pid": 5000 + rank, "cuda_dev": rank % 8,
            "nvml_dev": rank % 8, "status": {"unresponsive": True, "considered_dead": dead}}


def _report(comms: list[tuple[int, list[dict], list[dict]]]) -> dict:
    return {"nccl_version": "2.28.7", "cuda_runtime_version": 12080, "cuda_driver_version": 12080,
            "timestamp": "2026-03-02 11:42:17", "communicators_count": len(comms),
            "communicators": [{"hash": f"0x{0xabc0 + i:x}", "secondary_hash": "0x1:0x2", "size": size,
                               "ranks_count": len(ranks), "missing_ranks_count": len(missing), "ranks": ranks,
                               "missing_ranks": missing} for i, (size, ranks, missing) in enumerate(comms)],
            "ras": {"collection_time_sec": 5.012, "timeouts_count": 0}}


def _events(tmp_path, text: str, name: str = "console.log"):
    path = tmp_path / name
    path.write_text(text)
    kind, _ = kind_of(name, text.encode()[:16384])
    return [ev for ev in parse_source(Source(str(path), kind)).events if ev.kind == "ras"]


REPORTS = [
    _report([(16, [_rank(r) for r in range(16) if r != 13], [_missing(13, True)])]),
    _report([(16, [_rank(r) for r in range(16) if r not in (2, 5)], [_missing(2, False), _missing(5, True)]),
             (8, [_rank(r) for r in range(8) if r != 5], [_missing(5, True)])]),
    _report([(8, [_rank(r, error=2 if r == 3 else 6) for r in range(8)], [])]),
    _report([(4, [_rank(r) for r in range(4)], [])]),
]


@pytest.mark.parametrize("doc", REPORTS)
def test_every_failure_the_document_holds_is_read(doc, tmp_path):
    # NCCL's layout (one key a line, two-space indents) is json.dumps(indent=2)'s
    events = _events(tmp_path, "$ ncclras -f json\n" + json.dumps(doc, indent=2) + "\nafter the report\n")
    largest = max(c["size"] for c in doc["communicators"])
    want_missing = sorted((c["hash"][2:], m["rank"], m["status"]["considered_dead"], c["size"] == largest)
                          for c in doc["communicators"] for m in c["missing_ranks"])
    got_missing = sorted((ev.data["comm_hash"], ev.data["ranks"][0], ev.data["implies"] == "dropped_rank",
                          ev.data["ranks_at_fault"] == ev.data["ranks"]) for ev in events
                         if ev.data["section"] == "missing_ranks")
    assert got_missing == want_missing
    want_errors = sorted((r["rank"], r["status"]["async_error"]) for c in doc["communicators"] for r in c["ranks"]
                         if r["status"]["async_error"])
    assert sorted((ev.data["ranks"][0], ev.data["async_error"]) for ev in events
                  if ev.data["section"] == "ranks") == want_errors
    assert [ev.data["nccl_version"] for ev in events if ev.data["section"] == "version"] == ["2.28.7"]


def test_a_remote_error_is_a_consequence_and_another_error_a_failure(tmp_path):
    events = _events(tmp_path, json.dumps(REPORTS[2], indent=2) + "\n")
    meaning = {ev.data["ranks"][0]: ev.data["meaning"] for ev in events if ev.data["section"] == "ranks"}
    assert meaning == {3: "failure", **{r: "consequence" for r in range(8) if r != 3}}
    [failed] = [ev for ev in events if ev.data.get("meaning") == "failure"]
    assert (failed.rank, failed.pid, failed.host, failed.data["ranks_at_fault"]) == (3, 5003, "10.0.0.1", [3])


def test_the_sample_file_alone_is_sniffed_and_read(tmp_path):
    path = RAS / "ncclras_2.28.7_missing_dead.json"
    assert kind_of(path.name, path.read_bytes()[:16384])[0] == SourceKind.CONSOLE
    [dead] = [ev for ev in parse_source(Source(str(path), SourceKind.CONSOLE)).events
              if ev.kind == "ras" and ev.data.get("meaning") == "failure"]
    assert (dead.rank, dead.pid, dead.data["implies"]) == (13, 41013, "dropped_rank")


def test_a_monitor_event_peer_dead_is_a_death_and_others_are_not(tmp_path):
    def event(name: str) -> str:
        return json.dumps({"timestamp": "2026-03-02 12:04:46", "group": "LIFECYCLE", "event": name,
                           "peer": {"host": "10.0.0.2", "pid": 88231, "cuda_devs": [3], "nvml_devs": [3]},
                           "details": ""}, indent=2)
    events = _events(tmp_path, "$ ncclras -m -f json\n" + event("PEER_NEW") + "\n" + event("PEER_DEAD") + "\n")
    assert [(ev.data["state"], ev.data.get("meaning"), ev.pid, ev.host) for ev in events] == [
        ("PEER_NEW", None, 88231, "10.0.0.2"), ("PEER_DEAD", "failure", 88231, "10.0.0.2")]


@pytest.mark.parametrize("text", [
    # other JSON a console prints: torchelastic's error file, a metrics line
    '{\n  "message": {\n    "message": "RuntimeError: boom",\n    "extraInfo": {"timestamp": "1"}\n  }\n}\n',
    '{"loss": 1.82, "grad_norm": 3.02, "epoch": 0.01}\n',
    # a cut document: the report ends where the JSON does
    '{\n  "nccl_version": "2.29.3",\n  "cuda_runtime_version": 12080,\nTraceback (most recent call last):\n',
])
def test_other_json_and_cut_documents_give_no_failure(text, tmp_path):
    assert not [ev for ev in _events(tmp_path, text) if ev.data.get("meaning")]
