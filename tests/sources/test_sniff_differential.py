"""The sniffers of sources/discover.py (regexes over a file's first kilobytes) agree with the parsers, whose
grammars are the reference for every line shape: a line a grammar reads as NCCL, kernel or py-spy output is
one the matching sniffer sees, and the NCCL sniffer sees no line of another program."""
from __future__ import annotations

import re
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from test_nccl_differential import SAMPLE_LINES, TABLE_LINES

from nccl_forensics.model import SourceKind
from nccl_forensics.sources import iter_events
from nccl_forensics.sources.discover import discover
from nccl_forensics.sources.formats import (
    _KERNEL,
    _NCCL_LINE,
    _NCCL_WHOLE_LINE,
    _PYSPY_HEAD,
    _PYSPY_THREAD,
    nccl_lines,
)
from nccl_forensics.sources.lines import iter_lines, read_head
from nccl_forensics.sources.nccl import grammar_parse

EVIDENCE = Path(__file__).resolve().parents[2] / "sample_logs" / "evidence"
SAMPLES = EVIDENCE.parent


def _prefixed_nccl(text: str) -> bool:
    """The grammar read a host:pid:tid-prefixed NCCL line (the shape the sniffer counts)."""
    parsed = grammar_parse(text)
    return parsed is not None and parsed[0][1] is not None and " NCCL " in text


NCCL_LINES = sorted({text for _, _, text in SAMPLE_LINES} | set(TABLE_LINES))


def test_every_prefixed_nccl_line_the_grammar_reads_is_sniffed():
    lines = [t for t in NCCL_LINES if _prefixed_nccl(t)]
    assert len(lines) > 100
    missed = [t for t in lines if not (_NCCL_LINE.search(t.encode()) and _NCCL_WHOLE_LINE.search(t.encode()))]
    assert missed == []


def _lines_with_events(folder: Path, kind: SourceKind, source: str) -> list[str]:
    out = []
    for src in discover([str(folder)]):
        if src.kind is not kind:
            continue
        texts = {line.no: line.text for line in iter_lines(src.path)}
        out += [texts[ev.line] for ev in iter_events(src) if ev.source == source and ev.kind != "unparsed"
                and ev.line in texts]
    return out


def test_kernel_lines_the_parser_reads_are_sniffed_as_kernel():
    lines = _lines_with_events(EVIDENCE / "kernel", SourceKind.KERNEL, "kernel")
    assert len(lines) >= 10
    for text in lines:
        assert _KERNEL.search(text.encode()), text


def test_pyspy_dumps_the_parser_reads_are_sniffed_as_pyspy():
    for src in discover([str(EVIDENCE / "pyspy")]):
        if src.kind is not SourceKind.PYSPY:
            continue
        head = Path(src.path).read_bytes()[:65536]
        events = [ev for ev in iter_events(src) if ev.kind != "unparsed"]
        if any(ev.kind == "stack" or ev.data.get("frames") for ev in events):
            assert _PYSPY_HEAD.search(head) and _PYSPY_THREAD.search(head), src.path


def test_no_line_of_another_program_is_sniffed_as_nccl():
    for folder in ("kernel", "pyspy", "faulthandler", "slurm"):
        for path in (EVIDENCE / folder).glob("*"):
            if path.is_dir() or path.suffix in (".md", ".json"):
                continue
            for line in iter_lines(str(path)):
                assert not _NCCL_LINE.search(line.text.encode()), (path.name, line.text)


_PIECES = ["node-1:4100:4107 [3] NCCL INFO ", "h:1:1 NCCL WARN ", "h [0] NCCL TRACE ", "NCCL CALL ", "NCCL INFO",
           "NCCL ", "enqueue.cc:12 ", "(ncclCommInit) ", "(nil) ", "[0] ", "12.345 ", ":7 (", ")", "\n", "\r\n", " ",
           "x:1:2 ", "[rank0]:", "AllReduce: opCount 1 sendbuff (nil)", "INFO ", "host:12:13 [1] 0.5 f.cc:9 "]


@given(st.lists(st.one_of(st.sampled_from(_PIECES), st.text(alphabet=" :[]()\nNCLIFOabc019", max_size=6)),
                max_size=60))
@settings(max_examples=400, deadline=None)
def test_the_nccl_line_count_equals_the_plain_findall(pieces):
    data = "".join(pieces).encode()
    assert nccl_lines(data)[0] == len(_NCCL_LINE.findall(data))


_ONE_TAG_PIECES = ["node-1:4100:4107 [3] NCCL INFO ", "h:1:1 NCCL WARN ", "h [0] NCCL TRACE ", "NCCL CALL ", "x:NCCL INFO ",
                   "Init START\n", "\n", "\r\n", " ", "  ", "NCCL", "INFO ", "[0]", "a b", "NCCL version 2.21\n"]


@given(st.lists(st.sampled_from(_ONE_TAG_PIECES), max_size=60))
@settings(max_examples=400, deadline=None)
def test_heads_found_in_one_pass_are_those_found_tag_by_tag(pieces):
    """formats.line_heads_one_tag (one regex pass, where no line holds a second "NCCL ") counts the heads that
    line_heads (a step per tag) counts, or declines."""
    from nccl_forensics.sources.formats import line_heads, line_heads_one_tag
    data = "".join(pieces).encode()
    fast = line_heads_one_tag(data)
    assert fast is None or dict(fast) == line_heads(data)


def test_a_rank_log_head_takes_the_one_pass():
    from nccl_forensics.sources.formats import line_heads, line_heads_one_tag
    data = b"".join(b"node-1:4100:%d [3] NCCL INFO Init %d\n" % (4100 + i % 2, i) for i in range(50)) + b"node-1:41"
    assert line_heads_one_tag(data) == line_heads(data) == {b"node-1:4100:4100 [3] NCCL INFO ": 25,
                                                            b"node-1:4100:4101 [3] NCCL INFO ": 25}
    assert nccl_lines(data) == (50, False)


def test_the_nccl_line_count_equals_the_plain_findall_on_every_sample_head():
    heads = [read_head(str(p), 16384) for p in sorted(SAMPLES.rglob("*")) if p.is_file()]
    assert len(heads) > 50
    for data in heads:
        assert nccl_lines(data)[0] == len(_NCCL_LINE.findall(data))


@given(st.lists(st.sampled_from(_PIECES + ["\n", "NCCL INFO NCCL WARN ", "a NCCL CALL b NCCL TRACE "]), max_size=80))
@settings(max_examples=300, deadline=None)
def test_repeated_heads_are_counted_as_often_as_they_occur(pieces):
    """nccl_lines searches each distinct line head once and counts it as many times as it occurs."""
    data = "".join(pieces).encode()
    assert nccl_lines(data)[0] == len(_NCCL_LINE.findall(data))


def test_console_mark_words_prefilter_agrees_with_the_regex():
    """Head.console's word check (_CONSOLE_WORDS) decides as the regex over the head without NCCL's lines does: on
    every sample and corpus file's head, and every word holds in its alternative's matches."""
    from nccl_forensics.sources.formats import _CONSOLE, _CONSOLE_WORDS, Head
    alternatives = _CONSOLE.pattern.split(b"|")
    assert len(alternatives) == len(_CONSOLE_WORDS)
    for alt, word in zip(alternatives, _CONSOLE_WORDS, strict=True):
        example = re.sub(rb"\\d\+", b"7", alt).replace(b"\\", b"")
        assert _CONSOLE.fullmatch(example) and word in example
    heads = [p.read_bytes()[:16384] for folder in (SAMPLES, SAMPLES.parent.parent / "shared" / "corpus")
             if folder.is_dir() for p in sorted(folder.rglob("*")) if p.is_file()]
    assert len(heads) > 100
    for data in heads:
        assert Head("x.log", data).console == (_CONSOLE.search(_NCCL_WHOLE_LINE.sub(b"", data)) is not None)


_CONSOLE_PIECES = [*_PIECES, "gloo", "torchrun", "[default1]:", "[12] ", "[x] ", "ProcessGroup", "NCCL version 2.21",
                   "Traceback (most recent call last)", "ab:1:2 [0] NCCL INFO gloo\n"]


@given(st.lists(st.one_of(st.sampled_from(_CONSOLE_PIECES), st.text(alphabet=" :[]()\nNCLIFOgl019", max_size=6)),
                max_size=60))
@settings(max_examples=400, deadline=None)
def test_a_head_of_nccl_lines_only_has_no_console_mark_as_the_regex_says(pieces):
    """Head.console's shortcut (every line a whole NCCL line: none is left to hold a mark) decides as the regex over
    the head without NCCL's lines does; so do the counts."""
    from nccl_forensics.sources.formats import _CONSOLE, Head
    data = "".join(pieces).encode()
    count, whole = nccl_lines(data)
    assert count == len(_NCCL_LINE.findall(data))
    rest = _NCCL_WHOLE_LINE.sub(b"", data)
    if whole:
        assert rest.strip(b"\n") == b""
    assert Head("x.log", data).console == (_CONSOLE.search(rest) is not None)


def test_marks_inside_nccl_lines_are_no_console_but_one_line_outside_them_is():
    from nccl_forensics.sources.formats import Head
    rank_log = b"".join(b"node-1:4100:4107 [3] NCCL INFO NET/Socket : gloo ProcessGroup %d\n" % i for i in range(50))
    assert nccl_lines(rank_log) == (50, True) and not Head("x.log", rank_log).console
    cut = rank_log + b"node-1:4100:4107 [3] NCCL INFO torchrun"         # a head cut inside its last line
    assert nccl_lines(cut) == (51, True) and not Head("x.log", cut).console
    mixed = rank_log + b"[rank3]: torch.distributed.DistBackendError\n"
    assert nccl_lines(mixed) == (50, False) and Head("x.log", mixed).console
