"""NCCL Inspector records (the plugin README's shape, one JSON object per collective, pretty-printed or one per
line) → coll events with their arrival time; a rank late at most collectives is a straggler (S701)."""
from __future__ import annotations

import json
import random

from nccl_forensics.pipeline.reduce import diagnose
from nccl_forensics.sources import iter_events
from nccl_forensics.sources.discover import sniff

BASE_US = 1_752_867_229_000_000


def record(rank: int, sn: int, start_us: int, verbose: bool = True) -> dict:
    perf = {"coll": "AllReduce", "coll_sn": sn, "coll_msg_size_bytes": 16384, "coll_exec_time_us": 41,
            "coll_timing_source": "kernel_gpu", "coll_algobw_gbs": 0.4, "coll_busbw_gbs": 0.7}
    if verbose:
        perf["event_trace_ts"] = {"coll_start_ts": start_us, "coll_stop_ts": start_us + 41, "kernel_events": []}
    return {"header": {"id": "0xe62dedaa97644a", "rank": rank, "n_ranks": 4, "nnodes": 1},
            "metadata": {"inspector_output_format_version": "v4.0", "git_rev": "", "rec_mechanism":
                         "nccl_profiler_interface", "dump_timestamp_us": start_us + 500, "hostname": "gpu-a",
                         "pid": 4000 + rank},
            "coll_perf": perf}


def write(folder, late: dict[int, int], n: int = 30, pretty: bool = True):
    folder.mkdir()
    rnd = random.Random(3)
    for rank in range(4):
        records = [record(rank, sn, BASE_US + sn * 50_000 + rnd.randrange(300) + (late.get(rank, 0) if sn % 5 else 0))
                   for sn in range(1, n + 1)]
        text = "\n".join(json.dumps(r, indent=2 if pretty else None) for r in records) + "\n"
        (folder / f"nccl-inspector-{rank}.log").write_text(text)
    return folder


def test_records_are_sniffed_and_become_coll_events_on_the_lines_they_start(tmp_path):
    folder = write(tmp_path / "in", {})
    src = sniff(str(folder / "nccl-inspector-2.log"))
    assert src.kind.value == "nccl_inspector"
    events = [e for e in iter_events(src) if e.kind == "coll"]
    assert [e.data["opcount"] for e in events] == list(range(1, 31))
    lines = (folder / "nccl-inspector-2.log").read_text().splitlines()
    assert all(lines[e.line - 1] == "{" and f'"coll_sn": {e.data["opcount"]},' in "\n".join(lines[e.line:e.line + 30])
               for e in events)
    assert (events[0].rank, events[0].host, events[0].pid, events[0].comm) == (2, "gpu-a", 4002, "0xe62dedaa97644a")
    assert abs(events[0].time - (BASE_US + 50_000) / 1e6) < 0.001       # coll_start_ts (µs), with jitter


def test_a_rank_late_in_the_inspector_records_is_the_straggler(tmp_path):
    d = diagnose([str(write(tmp_path / "in", {3: 8_000}, pretty=False))], jobs=1)
    assert (d.verdict.cls, d.verdict.culprit_ranks) == ("straggler", [3]), d.verdict.summary


def test_records_without_the_verbose_trace_have_no_time_and_raise_no_straggler(tmp_path):
    folder = tmp_path / "in"
    folder.mkdir()
    for rank in range(4):
        (folder / f"r{rank}.log").write_text("\n".join(json.dumps(record(rank, sn, BASE_US, verbose=False))
                                                      for sn in range(1, 20)))
    d = diagnose([str(folder)], jobs=1)
    assert "S701" not in {f.id for f in d.findings} and not d.failed, d.verdict.summary
