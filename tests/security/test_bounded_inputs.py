"""Inputs that claim to be huge stay numbers: a 2^31-rank init line, a 2^24-rank summary, a summary member that
decompresses to gigabytes, 500 MB of COLL lines in a small .gz. Each ends with a verdict or a one-line error
(exit 2), in bounded memory (peak RSS measured on the child, which also runs under a 4 GB cap)."""
from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from diagnose.test_tail_window import write_rank

from nccl_forensics.errors import BadInput
from nccl_forensics.pipeline.read import summarize
from nccl_forensics.pipeline.reduce import diagnose
from nccl_forensics.sources.lines import TAIL_BASE, iter_lines, resolve_tail_line

from .conftest import AS_NOBODY_READING, capped

GB = 1 << 30
HUGE_INIT = ("h:2:2 [0] NCCL INFO comm 0x1 rank 0 nranks 2147483647 cudaDev 0 busId 1000 commId 0x1 - "
             "Init COMPLETE\n")


_MEASURE = ("import resource, subprocess, sys; rc = subprocess.call(sys.argv[1:]); "
            "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr); sys.exit(rc)")


def ncclf_measured(*args: str, as_nobody: bool = False, timeout: float = 300) -> tuple[subprocess.CompletedProcess, int]:
    """(the finished `ncclf ARGS`, its peak resident memory in bytes, its worker processes included), under
    the 4 GB cap."""
    cmd = capped([sys.executable, "-m", "nccl_forensics", *args])
    if as_nobody:
        cmd = AS_NOBODY_READING + cmd
    env = {**os.environ, "COLUMNS": "120", "NO_COLOR": "1"}
    done = subprocess.run([sys.executable, "-c", _MEASURE, *cmd], capture_output=True, text=True, env=env,
                          timeout=timeout)
    err, _, peak_kb = done.stderr.rstrip("\n").rpartition("\n")
    return subprocess.CompletedProcess(cmd, done.returncode, done.stdout, err + "\n" if err else ""), \
        int(peak_kb) * 1024


@pytest.fixture
def readable_tmp(shared_tmp):
    return shared_tmp


@pytest.mark.parametrize("command", ["diagnose", "topo"])
def test_a_two_billion_rank_world_stays_a_number(readable_tmp, command):
    log = readable_tmp / "nccl.rank0.log"
    log.write_text(HUGE_INIT)
    done, peak = ncclf_measured(command, str(log), as_nobody=os.geteuid() == 0)
    assert done.returncode in (0, 1, 4), done.stdout + done.stderr          # a verdict, not a crash or a kill
    assert "Traceback" not in done.stderr
    assert peak < GB


def test_the_world_counts_what_it_cannot_list():
    from nccl_forensics.diagnosis.world import expected_world
    from nccl_forensics.model import Event
    init = Event(kind="comm_init", source="nccl", rank=0, file="a.log", line=1, text="init",
                 data={"nranks": 2147483647})
    world = expected_world([init], [0])
    assert world.size == 2147483647 and world.expected == [0] and world.unlisted == 2147483646
    assert world.unlisted


def _summary(tmp_path: Path) -> Path:
    logs = tmp_path / "logs"
    logs.mkdir()
    for rank in range(2):
        write_rank(logs / f"nccl.rank{rank}.log", rank, 2, 20)
    out = tmp_path / "node.ncclf"
    summarize([str(logs)], str(out), jobs=1)
    return out


def _rewrite(src: Path, dst: Path, change) -> Path:
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            data = change(info.filename, zin.read(info.filename))
            if data is not None:
                zout.writestr(info.filename, data)
    return dst


def test_a_summary_declaring_two_to_the_24_ranks_is_refused(tmp_path):
    good = _summary(tmp_path)

    def declare_huge(name, data):
        if name != "digests":                                  # every digest of the node (schema 5)
            return data
        size = int.from_bytes(data[:8], "little")
        header = json.loads(data[8:8 + size])
        header["digests"][0]["declared"] = {"0": {"__range__": [0, 1 << 24, 1]}}
        head = json.dumps(header).encode()
        return len(head).to_bytes(8, "little") + head + b"\0" * ((-len(head)) % 8) + data[8 + size + (-size) % 8:]
    bad = _rewrite(good, tmp_path / "huge.ncclf", declare_huge)
    with pytest.raises(BadInput, match="damaged ncclf summary"):
        diagnose([str(bad)], jobs=1)
    done, peak = ncclf_measured("diagnose", str(bad))
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert peak < GB


def test_a_summary_member_of_gigabytes_is_not_read_whole(tmp_path):
    good = _summary(tmp_path)
    bad = tmp_path / "bomb.ncclf"
    with zipfile.ZipFile(good) as zin, zipfile.ZipFile(bad, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            if info.filename != "digests":
                zout.writestr(info.filename, zin.read(info.filename))
        with zout.open("digests", "w", force_zip64=True) as member:        # 2 GiB of newlines
            block = b"\n" * (1 << 24)
            for _ in range(128):
                member.write(block)
    assert bad.stat().st_size < 8 << 20
    done, peak = ncclf_measured("diagnose", str(bad))
    assert done.returncode == 2 and "MiB" in done.stderr and done.stderr.count("\n") == 1, done.stderr
    assert peak < GB


@pytest.mark.parametrize("damage", ["not json", "[1, 2]", '{"format": "ncclf-summary", "schema_version": 2}'])
def test_a_corrupt_summary_is_bad_input_not_an_internal_error(tmp_path, damage):
    good = _summary(tmp_path)
    bad = _rewrite(good, tmp_path / "bad.ncclf", lambda n, d: damage.encode() if n == "manifest.json" else d)
    done, _ = ncclf_measured("diagnose", str(bad))
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr


def test_a_gzip_file_gets_the_head_and_tail_window_of_a_plain_one(tmp_path):
    text = "".join(f"line {n}\n" for n in range(1, 20001))
    plain, packed = tmp_path / "numbered.log", tmp_path / "numbered.log.gz"
    plain.write_text(text)
    packed.write_bytes(gzip.compress(text.encode()))
    from_gz = [(ln.no, ln.text) for ln in iter_lines(str(packed), window=(1000, 5000))]
    assert from_gz == [(ln.no, ln.text) for ln in iter_lines(str(plain), window=(1000, 5000))]
    assert len(from_gz) < 2000
    tail = [(no, t) for no, t in from_gz if no >= TAIL_BASE]
    assert tail and all(t == f"line {resolve_tail_line(str(packed), 5000, no)}" for no, t in tail)
    small = tmp_path / "small.log.gz"
    small.write_bytes(gzip.compress(b"a\nb\nc"))
    assert [(ln.no, ln.text) for ln in iter_lines(str(small), window=(2, 3))] == [(1, "a"), (2, "b"), (3, "c")]


def test_gzipped_logs_give_the_verdict_and_lines_of_the_plain_ones(tmp_path, monkeypatch):
    from nccl_forensics.pipeline import map as map_step
    monkeypatch.setattr(map_step, "HEAD_MB", 0.05)
    plain, packed = tmp_path / "plain", tmp_path / "packed"
    plain.mkdir()
    packed.mkdir()
    for rank in range(4):
        write_rank(plain / f"nccl.rank{rank}.log", rank, 4, 30000, last_count=4097 if rank == 2 else None)
        (packed / f"nccl.rank{rank}.log.gz").write_bytes(gzip.compress((plain / f"nccl.rank{rank}.log").read_bytes()))
    a = diagnose([str(plain)], jobs=1, window_mb=0.2)
    b = diagnose([str(packed)], jobs=1, window_mb=0.2)
    assert (b.verdict.cls, b.verdict.culprit_ranks) == (a.verdict.cls, a.verdict.culprit_ranks) == ("shape_mismatch", [2])
    assert [(Path(f).name, line) for f, line, _ in sorted((e.file, e.line, e.text) for f_ in b.findings
                                                          for e in f_.evidence)] == \
        [(Path(f).name + ".gz", line) for f, line, _ in sorted((e.file, e.line, e.text) for f_ in a.findings
                                                               for e in f_.evidence)]


@pytest.mark.slow
def test_500_mb_of_coll_lines_in_a_gzip_are_read_in_a_window(tmp_path):
    head = "node0:3000:3000 [0] NCCL INFO "
    line = (f"{head}AllReduce: opCount {{:x}} sendbuff 0x7f3a00000000 recvbuff 0x7f3b00000000 count 4096 datatype 7 "
            f"op 0 root 0 comm 0x55d0c0000000 [nranks=2] stream 0x55d0d1000000\n")
    path = tmp_path / "nccl.rank0.log.gz"
    with gzip.open(path, "wt", compresslevel=1) as fh:
        fh.write(f"{head}NCCL version 2.21.5+cuda12.4\n{head}ncclCommInitRank comm 0x55d0c0000000 rank 0 nranks 2 "
                 f"cudaDev 0 nvmlDev 0 busId 18000 commId 0x7a11c0ffee5eed01 - Init COMPLETE\n")
        written, op = 0, 0
        while written < 500_000_000:
            block = "".join(line.format(op + i) for i in range(10000))
            fh.write(block)
            written += len(block)
            op += 10000
    done, peak = ncclf_measured("diagnose", "-j", "1", str(path), timeout=600)
    assert done.returncode in (0, 1, 4), done.stderr
    assert peak < GB
