"""COLL rows without text (diagnose's digests): the line a finding cites is re-read and equals the text kept."""
from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

import pytest

from nccl_forensics.cli import main as cli_main
from nccl_forensics.diagnosis.rows import SPARSE, pack_columns
from nccl_forensics.diagnosis.timeline import row_text
from nccl_forensics.pipeline.map import digest_source
from nccl_forensics.sources.discover import discover
from nccl_forensics.sources.lines import read_line

ROOT = Path(__file__).resolve().parents[2]
LOGS = sorted(p for p in (ROOT / "sample_logs" / "nccl").rglob("*") if p.is_file() and p.name != "README.md")
HEAD = "node-1:4100:4100 [3] NCCL INFO "
INIT = (f"{HEAD}ncclCommInitRank comm 0x55d4a0 rank {{r}} nranks 2 cudaDev 3 nvmlDev 3 busId 1d000 "
        "commId 0x7c2a1f0e5b3d9e41 - Init START")
COLL = (f"{HEAD}AllReduce: opCount {{n:x}} sendbuff 0x7f0{{n}} recvbuff 0x7f1{{n}} count {{c}} datatype 7 op 0 root 0 "
        "comm 0x55d4a0 [nranks=2] stream 0x55d4b0")


def _texts(rows: dict) -> list:
    kind, *part = rows["text"]
    return [None] * part[0] if kind == "none" else list(part[0]) if kind == "obj" else None


@pytest.mark.parametrize("path", LOGS, ids=lambda p: str(p.relative_to(ROOT / "sample_logs" / "nccl")))
def test_every_row_without_text_re_reads_the_text_the_digest_keeps(path):
    for src in discover([str(path)]):
        kept, bare = digest_source(src), digest_source(src, keep_text=False)
        if not kept.rows:
            continue
        files, lines = kept.rows["file"], kept.rows["line"][1]
        names = [files[1][c] for c in files[2]] if files[0] == "cat" else list(files[1])
        sources = ["nccl"] * len(lines)
        for text, bare_text, file, line, source in zip(_texts(kept.rows), _texts(bare.rows), names, lines, sources,
                                                       strict=True):
            assert row_text(source, file, int(line), bare_text) == text


def test_read_line_reads_plain_gzip_and_refuses_what_is_not_there(tmp_path):
    lines = [INIT.format(r=0)] + [COLL.format(n=n, c=n + 1) for n in range(50)]
    plain, packed = tmp_path / "a.log", tmp_path / "b.log.gz"
    plain.write_text("\n".join(lines) + "\n")
    packed.write_bytes(gzip.compress(plain.read_bytes()))
    for path in (plain, packed):
        assert read_line(str(path), 1) == lines[0]
        assert read_line(str(path), 51) == lines[50]
        assert read_line(str(path), 52) is None and read_line(str(path), 0) is None
    assert read_line(str(tmp_path / "gone.log"), 1) is None


def test_all_empty_sparse_columns_travel_as_none_parts():
    cols = {name: [None, None] for name in SPARSE} | {"rank": [0, 0], "line": [1, 2], "text": [None, None]}
    packed = pack_columns(cols)
    assert all(packed[name] == ("none", 2) for name in SPARSE)
    assert pack_columns({"text": ["a", None]})["text"][0] == "obj"


def test_a_hang_cites_the_last_coll_line_of_the_stopped_rank(tmp_path, capsys):
    folder = tmp_path / "job"
    folder.mkdir()
    for rank, ops in ((0, 40), (1, 37)):
        (folder / f"nccl.rank{rank}.log").write_text(
            "\n".join([INIT.format(r=rank).replace("4100", str(4100 + rank))]
                      + [COLL.format(n=n, c=1024).replace("4100", str(4100 + rank)) for n in range(ops)]) + "\n")
    with pytest.raises(SystemExit):
        cli_main(["diagnose", "--format", "json", "-j", "1", str(folder)])
    out = json.loads(capsys.readouterr().out)
    cited = [e["text"] for f in out["findings"] for e in f["evidence"] if "opCount" in (e["text"] or "")]
    assert cited and all(t.startswith("node-1:4101:4101 [3] NCCL INFO AllReduce: opCount ") for t in cited if "4101" in t)
    shutil.rmtree(folder)
