"""`collect.spool_events`: a serial run writes straight to the output while it can; the result is the same,
byte for byte, as the spooled parallel run, re-scans for cross-file ranks included."""
from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from nccl_forensics.outputs.events import writer_for
from nccl_forensics.pipeline.collect import parse_paths, spool_events
from nccl_forensics.pipeline.spool import copy_bytes

SAMPLES = Path(__file__).resolve().parents[1] / "sample_logs"
FOLDERS = sorted(str(p) for p in (SAMPLES / "bundles").iterdir() if p.is_dir()) + [str(SAMPLES / "nccl")]
COLL = ("{h}:{p}:{p} [0] NCCL INFO AllReduce: opCount {n:x} sendbuff 0x7f00 recvbuff 0x7f00 count 4 "
        "datatype 7 op 0 root 0 comm 0x{p} [nranks=2] stream 0x66")
INIT = ("{h}:{p}:{p} [0] NCCL INFO ncclCommInitRank comm 0x{p} rank {r} nranks 2 cudaDev 0 nvmlDev 0 "
        "busId 1a000 commId 0xabc - Init START")


def spooled(paths, fmt, jobs):
    out = io.StringIO()
    summaries = spool_events(paths, fmt, writer_for, out, jobs)
    return out.getvalue(), summaries


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda p: Path(p).name)
@pytest.mark.parametrize("fmt", ["jsonl", "csv"])
def test_serial_output_equals_the_spooled_parallel_output(folder, fmt):
    serial, _ = spooled([folder], fmt, 1)
    parallel, _ = spooled([folder], fmt, 2)
    assert serial == parallel
    assert serial.count("\n") > 1


def write_pair(tmp_path):
    """a.log: a ranked process, then one whose rank only b.log names; b.log: that process's init line."""
    a = [INIT.format(h="n1", p=100, r=0)] + [COLL.format(h="n1", p=100, n=n) for n in range(5000)]
    a += [COLL.format(h="n2", p=200, n=n) for n in range(50)]
    (tmp_path / "a.log").write_text("\n".join(a) + "\n")
    (tmp_path / "b.log").write_text(INIT.format(h="n2", p=200, r=1) + "\n")


@pytest.mark.parametrize("fmt", ["jsonl", "csv"])
def test_a_file_whose_ranks_another_file_names_is_rewritten_after_the_direct_part(tmp_path, fmt):
    write_pair(tmp_path)
    serial, summaries = spooled([str(tmp_path)], fmt, 1)
    parallel, _ = spooled([str(tmp_path)], fmt, 2)
    assert serial == parallel
    assert summaries[0].direct == 5001 and summaries[0].missing_rank == 0      # re-scanned after its direct part
    if fmt == "jsonl":
        events = [json.loads(line) for line in serial.splitlines()]
        assert len(events) == 5052
        assert {e["rank"] for e in events if e["host"] == "n2"} == {1}
        assert [e["line"] for e in events[:5051]] == list(range(1, 5052))
        expected = [ev.to_dict() for ev in parse_paths([str(tmp_path)], jobs=1).events]
        assert events == json.loads(json.dumps(expected))
    else:
        assert serial.count("kind,source,file,line") == 1


def into_file(tmp_path, paths, fmt, jobs):
    """spool_events into a real file (a descriptor: sendfile, and jsonl workers that take over the output)."""
    target = tmp_path / f"out-{jobs}.{fmt}"
    with open(target, "w", encoding="utf-8", newline="") as out:
        summaries = spool_events(paths, fmt, writer_for, out, jobs)
    return target.read_bytes().decode("utf-8"), summaries        # not read_text: csv rows end in \r\n


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda p: Path(p).name)
@pytest.mark.parametrize("fmt", ["jsonl", "csv"])
def test_a_parallel_run_into_a_real_file_writes_what_a_serial_run_writes(tmp_path, folder, fmt):
    parallel, summaries = into_file(tmp_path, [folder], fmt, 2)
    same = parallel == spooled([folder], fmt, 1)[0]
    assert same
    if fmt == "csv":                            # a worker's csv writer would begin with a second header
        assert not any(s.direct for s in summaries)


def test_jsonl_workers_take_over_the_output_on_their_turn(tmp_path):
    """A later file's worker writes straight to the output once every earlier file is in it: b.log is long, so
    its worker is still busy when a.log (short) is done."""
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "a.log").write_text(INIT.format(h="n0", p=50, r=0) + "\n" + COLL.format(h="n0", p=50, n=0) + "\n")
    b = [INIT.format(h="n1", p=60, r=1)] + [COLL.format(h="n1", p=60, n=n) for n in range(300_000)]
    (folder / "b.log").write_text("\n".join(b) + "\n")
    parallel, summaries = into_file(tmp_path, [str(folder)], "jsonl", 2)
    assert summaries[1].direct > 0
    assert all(s.spool is None for s in summaries)
    assert parallel == spooled([str(folder)], "jsonl", 1)[0]
    assert parallel.count("\n") == sum(s.events for s in summaries)


@pytest.mark.parametrize("fmt", ["jsonl", "csv"])
def test_no_file_takes_over_after_an_event_only_a_re_scan_can_rank(tmp_path, fmt):
    """a.log writes straight up to its first rankless event, as a serial run does; b.log then waits."""
    (tmp_path / "in").mkdir()
    write_pair(tmp_path / "in")
    parallel, summaries = into_file(tmp_path, [str(tmp_path / "in")], fmt, 2)
    assert parallel == spooled([str(tmp_path / "in")], fmt, 1)[0]
    assert summaries[0].missing_rank == 0 and summaries[1].direct == 0
    assert summaries[0].direct == (5001 if fmt == "jsonl" else 0)


def test_copy_bytes_goes_on_from_the_offset_into_any_binary_output(tmp_path):
    src = tmp_path / "spool"
    src.write_bytes(b"header\n" + b"x" * 300_000 + b"\nend\n")
    for dst in (io.BytesIO(), open(tmp_path / "copy", "w+b")):      # no descriptor; a descriptor
        with open(src, "rb") as fh, dst:
            fh.readline()
            dst.write(b">")
            copy_bytes(fh, dst)
            dst.flush()
            dst.seek(0)
            assert dst.read() == b">" + src.read_bytes()[len(b"header\n"):]


def test_a_file_that_spooled_a_rankless_event_before_its_turn_keeps_spooling(tmp_path):
    """b.log meets a process only c.log ranks while a.log is still parsing, then runs long: when its turn
    comes, it must not copy that event out (the re-scan writes it, with the rank)."""
    folder = tmp_path / "in"
    folder.mkdir()
    a = [INIT.format(h="n0", p=50, r=0)] + [COLL.format(h="n0", p=50, n=n) for n in range(100_000)]
    (folder / "a.log").write_text("\n".join(a) + "\n")
    b = [INIT.format(h="n1", p=100, r=0), COLL.format(h="n2", p=200, n=0)]
    b += [COLL.format(h="n1", p=100, n=n) for n in range(150_000)]
    (folder / "b.log").write_text("\n".join(b) + "\n")
    (folder / "c.log").write_text(INIT.format(h="n2", p=200, r=1) + "\n")
    parallel, summaries = into_file(tmp_path, [str(folder)], "jsonl", 2)
    same = parallel == spooled([str(folder)], "jsonl", 1)[0]
    assert same
    assert summaries[0].direct == 100_001
    assert summaries[1].direct <= 1             # at most its first (ranked) line, if its turn came that early
    assert '"host": "n2", "pid": 200' in parallel and '"rank": null' not in parallel
