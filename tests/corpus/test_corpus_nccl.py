"""The real NCCL/RCCL logs of the corpus: how many of their lines ncclf understands.

A line counts as understood when it yields an event other than `unparsed` (a multi-line event covers its lines),
or when it is text ncclf knowingly leaves alone: it is not NCCL's (no `NCCL INFO|WARN|TRACE|CALL` tag, no
`host:pid:tid [dev]` head, no `NET/IB|Socket|OFI`) and no parser in the chain claimed it as broken. An NCCL-looking
line that yields nothing is NOT understood, even when no parser emitted `unparsed` for it. Blank lines do not count.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from nccl_forensics.sources import parse_source
from nccl_forensics.sources.discover import sniff

from .corpus import corpus_files, stripped

NCCL_LOOKING = re.compile(r"NCCL (?:INFO|WARN|TRACE|CALL)|\S+:\d+:\d+ \[-?\d+\] |NET/(?:IB|Socket|OFI)")
FLOOR = 0.97


def misunderstood(path: Path, folder: Path) -> tuple[int, list[tuple[int, str]]]:
    """(non-blank lines, the lines not understood) of one corpus file."""
    copy = stripped(path, folder)
    result = parse_source(sniff(str(copy)))
    assert result.error is None, result.error
    good, broken = set(), set()
    for ev in result.events:
        if ev.kind == "unparsed":
            broken.add(ev.line)
            continue
        start = ev.data.get("start_line")
        good.update(range(start, ev.line + 1) if isinstance(start, int) else (ev.line,))
    lines = copy.read_text(encoding="utf-8", errors="replace").splitlines()
    bad = [(no, text) for no, text in enumerate(lines, 1) if text.strip() and
           (no in broken or (no not in good and NCCL_LOOKING.search(text)))]
    return sum(1 for text in lines if text.strip()), bad


def test_nearly_every_real_nccl_line_is_understood(tmp_path, capsys):
    files = corpus_files("nccl")
    assert files
    total, misses = 0, {}
    for i, path in enumerate(files):
        n, bad = misunderstood(path, tmp_path / str(i))
        total += n
        if bad:
            misses[path.name] = bad
    lost = sum(len(b) for b in misses.values())
    share = 1 - lost / total
    with capsys.disabled():
        print(f"\ncorpus/nccl: {total - lost} of {total} lines understood ({share:.2%}); not understood:")
        for name, bad in sorted(misses.items()):
            for no, text in bad[:3]:
                print(f"  {name}:{no}: {text[:120]}")
    assert share >= FLOOR


@pytest.mark.parametrize("path", corpus_files("nccl"), ids=lambda p: p.name)
def test_every_real_nccl_file_gives_nccl_events(path, tmp_path):
    copy = stripped(path, tmp_path)
    kinds = {ev.kind for ev in parse_source(sniff(str(copy))).events}
    assert kinds - {"unparsed"}, "no event at all"
