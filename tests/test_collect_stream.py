"""`collect.spool_events`: a serial run writes straight to the output while it can; the result is the same,
byte for byte, as the spooled parallel run, re-scans for cross-file ranks included."""
from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from nccl_forensics.collect import parse_paths, spool_events
from nccl_forensics.render.events import writer_for

SAMPLES = Path(__file__).resolve().parents[1] / "sample_logs"
FOLDERS = sorted(str(p) for p in (SAMPLES / "bundles").iterdir() if p.is_dir()) + [str(SAMPLES / "nccl")]


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
    coll = ("{h}:{p}:{p} [0] NCCL INFO AllReduce: opCount {n:x} sendbuff 0x7f00 recvbuff 0x7f00 count 4 "
            "datatype 7 op 0 root 0 comm 0x{p} [nranks=2] stream 0x66")
    init = ("{h}:{p}:{p} [0] NCCL INFO ncclCommInitRank comm 0x{p} rank {r} nranks 2 cudaDev 0 nvmlDev 0 "
            "busId 1a000 commId 0xabc - Init START")
    a = [init.format(h="n1", p=100, r=0)] + [coll.format(h="n1", p=100, n=n) for n in range(5000)]
    a += [coll.format(h="n2", p=200, n=n) for n in range(50)]
    (tmp_path / "a.log").write_text("\n".join(a) + "\n")
    (tmp_path / "b.log").write_text(init.format(h="n2", p=200, r=1) + "\n")


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


@pytest.mark.parametrize("fmt", ["jsonl", "csv"])
def test_a_parallel_run_into_a_real_file_copies_the_spools_byte_for_byte(tmp_path, fmt):
    """A file output has a descriptor, so spools go over by sendfile(2) (csv: after the header line)."""
    folder = str(SAMPLES / "nccl")
    target = tmp_path / f"out.{fmt}"
    with open(target, "w", encoding="utf-8", newline="") as out:
        spool_events([folder], fmt, writer_for, out, 2)
    same = target.read_bytes().decode("utf-8") == spooled([folder], fmt, 1)[0]    # csv rows end in \r\n
    assert same


def test_copy_bytes_goes_on_from_the_offset_into_any_binary_output(tmp_path):
    from nccl_forensics.collect import _copy_bytes
    src = tmp_path / "spool"
    src.write_bytes(b"header\n" + b"x" * 300_000 + b"\nend\n")
    for dst in (io.BytesIO(), open(tmp_path / "copy", "w+b")):      # no descriptor; a descriptor
        with open(src, "rb") as fh, dst:
            fh.readline()
            dst.write(b">")
            _copy_bytes(fh, dst)
            dst.flush()
            dst.seek(0)
            assert dst.read() == b">" + src.read_bytes()[len(b"header\n"):]
