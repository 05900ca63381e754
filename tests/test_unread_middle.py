"""An all-clear reads what the window skipped: a failure in the middle of a large log, after which the job went on
to a healthy end, is found (pipeline/unread.py, sources.lines.middle_blocks)."""
from __future__ import annotations

import gzip
import json

import pytest

from nccl_forensics.model import Source, SourceKind
from nccl_forensics.pipeline import map as map_step
from nccl_forensics.pipeline.reduce import diagnose
from nccl_forensics.pipeline.unread import suspect_middles
from nccl_forensics.sources.lines import MAX_LINE, middle_blocks

_INIT = ("node-a:{pid}:{pid} [{r}] NCCL INFO ncclCommInitRank comm 0x{pid}0 rank {r} nranks 2 cudaDev {r} busId {r}000 "
         "commId 0xabc - Init START\n"
         "node-a:{pid}:{pid} [{r}] NCCL INFO comm 0x{pid}0 rank {r} nRanks 2 nNodes 1 localRanks 2 localRank {r} "
         "MNNVL 0\n")
_COLL = ("node-a:{pid}:{pid} [{r}] NCCL INFO AllReduce: opCount {op:x} sendbuff 0x7f0000000000 recvbuff 0x7f0000000000 "
         "count 1024 datatype 7 op 0 root 0 comm 0x{pid}0 [nranks=2] stream 0x55\n")
_END = "node-a:{pid}:{pid} [{r}] NCCL INFO comm 0x{pid}0 rank {r} nranks 2 cudaDev {r} busId {r}000 - Destroy COMPLETE\n"
_WARN = ("node-a:{pid}:{tid} [{r}] NCCL WARN NET/IB : Got completion from peer 10.0.0.2<54321> with error 12, opcode 0, "
         "len 0, vendor err 129 (Recv)\n")


def _rank_log(r: int, middle: str = "", colls: int = 3000) -> str:
    pid = 1000 + r
    half = "".join(_COLL.format(pid=pid, r=r, op=op) for op in range(colls))
    rest = "".join(_COLL.format(pid=pid, r=r, op=op) for op in range(colls, 2 * colls))
    return _INIT.format(pid=pid, r=r) + half + middle.format(pid=pid, tid=pid + 7, r=r) + rest + _END.format(pid=pid, r=r)


@pytest.fixture
def small_window(monkeypatch):
    """A head of 20 KB and a tail of 20 KB: files of a few hundred KB are windowed as 20 GB ones are."""
    monkeypatch.setattr(map_step, "HEAD_MB", 0.02)
    return 0.02


def test_a_failure_in_the_unread_middle_is_no_all_clear(tmp_path, small_window):
    (tmp_path / "rank0.log").write_text(_rank_log(0))
    (tmp_path / "rank1.log").write_text(_rank_log(1, _WARN))
    d = diagnose([str(tmp_path)], jobs=1, window_mb=small_window)
    assert d.verdict.cls == "network_error" and d.verdict.culprit_ranks == [1], d.verdict.summary
    assert [s.path for s in d.windowed] == [str(tmp_path / "rank0.log")]       # only rank 1's read again in full


def test_a_healthy_middle_keeps_the_window(tmp_path, small_window):
    for r in (0, 1):
        (tmp_path / f"rank{r}.log").write_text(_rank_log(r, "[default{r}]:iteration 1200 | lm loss: 2.31E+00 |\n"))
    d = diagnose([str(tmp_path)], jobs=1, window_mb=small_window)
    assert d.verdict.cls == "none" and d.windowed, d.verdict.summary


def test_the_middle_starts_after_the_head_and_ends_before_the_tail(tmp_path):
    path = tmp_path / "x.log"
    path.write_bytes(b"".join(b"line %d\n" % n for n in range(1, 1001)))
    blocks = list(middle_blocks(str(path), 10, 100))
    first, _, _ = blocks[0]
    lines = b"".join(block for _, block, _ in blocks).splitlines()
    assert first == 11 and lines[0] == b"line 11" and sum(n for _, _, n in blocks) == len(lines)
    tail_start = path.read_bytes().index(b"\n", path.stat().st_size - 100) + 1
    assert lines[-1] == path.read_bytes()[:tail_start].splitlines()[-1]


def test_a_gzip_middle_runs_to_its_end(tmp_path):
    path = tmp_path / "x.log.gz"
    path.write_bytes(gzip.compress(b"".join(b"line %d\n" % n for n in range(1, 101))))
    lines = b"".join(block for _, block, _ in middle_blocks(str(path), 10, 100)).splitlines()
    assert lines[0] == b"line 11" and lines[-1] == b"line 100"


def test_a_middle_of_several_blocks_keeps_every_line_and_its_number(tmp_path):
    """Lines of every length, some across the reused buffer's edges: each comes once, whole, in order, numbered."""
    path = tmp_path / "x.log"
    lines = [b"%d:" % n + b"x" * (n * 7919 % 3000) for n in range(1, 3001)]
    path.write_bytes(b"\n".join(lines) + b"\n")
    blocks = list(middle_blocks(str(path), 5, 100))
    got = b"".join(block for _, block, _ in blocks).split(b"\n")[:-1]
    assert got == lines[5:len(got) + 5] and len(got) > len(lines) - 60
    for first, block, n in blocks:
        assert block.endswith(b"\n") and block.count(b"\n") == n and block.startswith(b"%d:" % first)


def test_a_line_longer_than_a_block_is_cut(tmp_path):
    path = tmp_path / "x.log"
    path.write_bytes(b"a\nb\n" + b"y" * (3 << 20) + b"\nc\n" + b"z" * 1000 + b"\n")
    lines = b"".join(block for _, block, _ in middle_blocks(str(path), 1, 100)).split(b"\n")
    assert lines[0] == b"b" and lines[1] == b"y" * MAX_LINE and b"c" in lines


@pytest.mark.parametrize("line, found", [
    ("[default1]:iteration 1200 | lm loss: 2.31E+00 | grad norm: 0.8 |", False),
    ("node-a:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC", False),
    ("[default1]:Traceback (most recent call last):", True),
    ("node-a:1:2 [0] NCCL WARN Cuda failure 'out of memory'", True),
    ("[rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 3 has a total capacity "
     "of 79.11 GiB of which 1.2 GiB is free.", True),
    ("Fatal Python error: Segmentation fault", True),
])
def test_which_lines_of_the_middle_are_suspects(tmp_path, line, found):
    path = tmp_path / "x.log"
    progress = "".join(f"[default0]:iteration {n} | lm loss: 2.{n}E+00 |\n" for n in range(2000))
    path.write_text("head\n" + progress + line + "\n" + progress + "tail\n")
    src = Source(path=str(path), kind=SourceKind.CONSOLE, window=(5, 5))
    hit = suspect_middles([src], {str(path): 1}).get(str(path))
    assert (hit is not None) == found
    if found:
        assert hit.line == 2002 and hit.text == line


def test_a_summary_holds_a_suspect_middle_in_full(tmp_path, small_window):
    """The reducing node cannot go back to a node's files: `summarize` reads a suspect middle in full there."""
    from nccl_forensics.pipeline.read import summarize
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "rank0.log").write_text(_rank_log(0, "[default0]:iteration 1200 | lm loss: 2.31E+00 |\n"))
    (logs / "rank1.log").write_text(_rank_log(1, _WARN))
    out = str(tmp_path / "node.ncclf")
    summarize([str(logs)], out, jobs=1, window_mb=small_window)
    d = diagnose([out], jobs=1)
    assert d.verdict.cls == "network_error" and d.verdict.culprit_ranks == [1], d.verdict.summary


def test_the_cli_says_which_file_it_read_whole_and_why(tmp_path, small_window):
    from click.testing import CliRunner

    from nccl_forensics.cli import cli
    (tmp_path / "rank0.log").write_text(_rank_log(0))
    (tmp_path / "rank1.log").write_text(_rank_log(1, _WARN))
    result = CliRunner().invoke(cli, ["diagnose", "-j", "1", "--window", str(small_window), "--format", "json",
                                      str(tmp_path)])
    assert f"read 1 large file whole: a line in the middle may show a failure ({tmp_path / 'rank1.log'}:3003)" \
        in result.stderr
    [whole] = json.loads(result.stdout)["read_whole"]
    assert whole["path"] == str(tmp_path / "rank1.log") and whole["line"] == 3003 and "NCCL WARN" in whole["text"]
