"""Hypothesis: random mutations of real-format NCCL lines never raise, and the fast path never disagrees
with the grammar on a line it takes."""
from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_nccl_grammar import INVALID, VALID

from nccl_forensics.model import Line, Source, SourceKind
from nccl_forensics.sources.lines import make_line
from nccl_forensics.sources.nccl import NcclParser, fast_parse, grammar_parse

SEEDS = [line for cases in VALID.values() for line, _, _ in cases] + INVALID
PIECES = [" ", "  ", ":", "[", "]", "->", "0x", "(nil)", "-1", "/", "\r", "\x1b[0m", "NCCL INFO ", "NCCL WARN ",
          "opCount ", "comm ", "9" * 30, "é", "\t", "|", ";", "<0>", "...", "[rank3]:", "[1,0]<stdout>:"]

settings.register_profile("nccl", deadline=None, max_examples=300,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@st.composite
def mutated(draw):
    line = draw(st.sampled_from(SEEDS))
    for _ in range(draw(st.integers(0, 4))):
        pos = draw(st.integers(0, len(line)))
        op = draw(st.sampled_from(["insert", "delete", "replace", "cut", "dup"]))
        if op == "insert":
            line = line[:pos] + draw(st.sampled_from(PIECES) | st.text(max_size=4)) + line[pos:]
        elif op == "delete":
            line = line[:pos] + line[pos + draw(st.integers(1, 8)):]
        elif op == "replace" and pos < len(line):
            line = line[:pos] + draw(st.characters()) + line[pos + 1:]
        elif op == "cut":
            line = line[:pos]
        else:
            line = line[:pos] + line[pos:pos + 40] + line[pos:]
    return line


@settings(settings.get_profile("nccl"))
@given(mutated())
def test_grammar_and_fast_path_never_raise_and_agree(text):
    slow = grammar_parse(text)
    fast = fast_parse(text)
    if fast is not None:
        assert fast == slow


@settings(settings.get_profile("nccl"))
@given(st.lists(mutated(), min_size=1, max_size=12))
def test_parser_never_raises_and_claims_every_tagged_line(lines):
    parser = NcclParser(Source("fuzz.log", SourceKind.NCCL))
    for no, text in enumerate(lines, 1):
        line = make_line(no, text.replace("\n", " "))
        if line.text:
            claimed = parser.feed(line)
            if " NCCL INFO " in f" {line.text} " or " NCCL WARN " in f" {line.text} ":
                assert claimed
    parser.finish()
    for ev in parser.out:
        assert ev.kind and ev.source == "nccl" and ev.text


@settings(settings.get_profile("nccl"))
@given(st.text(max_size=300))
def test_arbitrary_text_never_raises(text):
    grammar_parse(text)
    fast_parse(text)
    NcclParser(Source("x", SourceKind.NCCL)).feed(Line(1, text))
