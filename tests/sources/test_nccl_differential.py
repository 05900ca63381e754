"""The fast paths give exactly what the grammar gives.

- `fast_parse` (per-line regexes) == `grammar_parse` on every NCCL line of sample_logs/ and of the rule tables;
- `dispatch_blocks` (COLL lines straight from 256 KiB blocks) == the line-by-line dispatcher, event for event;
- a NcclParser without its fast path == one with it;
- `nccl.network_message` (a node's Bootstrap / NET/IB line) == the grammar, on hypothesis-made messages too;
- `write_jsonl`'s hand-built COLL objects == `json.dumps(event.to_dict())`.
Also: every NCCL line in sample_logs/ parses to a known kind, and every event of the NCCL samples has a rank.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from test_nccl_grammar import VALID

from nccl_forensics.model import Line, SourceKind
from nccl_forensics.outputs.events import jsonl_lines
from nccl_forensics.sources import _dispatch, _fill, dispatch_lines, iter_events, line_parsers
from nccl_forensics.sources.discover import discover
from nccl_forensics.sources.grammars import lalr
from nccl_forensics.sources.lines import iter_lines
from nccl_forensics.sources.nccl import (
    _CANON,
    IB_DEV_TOKEN,
    IFACE_TOKEN,
    NCCL_LEVEL_RE,
    NcclParser,
    fast_parse,
    grammar_parse,
    lines_inside,
    message_parse,
    network_message,
)
from nccl_forensics.sources.nccl_fast import PREFIX_RE, dispatch_blocks

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_logs"
TEXT_KINDS = {SourceKind.NCCL, SourceKind.CONSOLE, SourceKind.SLURM}


def text_sources():
    """The NCCL samples plus the console logs beside them (NCCL lines mixed with other programs' output)."""
    folders = [SAMPLES / "nccl", SAMPLES / "nccl-tests", SAMPLES / "topo", SAMPLES / "evidence" / "prefixed-nccl"]
    found = [str(f) for f in folders if f.is_dir()]
    return [s for s in discover(found) if s.kind in TEXT_KINDS] if found else []


def nccl_sample_lines():
    lines = []
    for src in text_sources():
        for line in iter_lines(src.path):
            if NCCL_LEVEL_RE.search(line.text) or line.text.startswith(("NCCL version", "RCCL version")):
                lines.append((src.path, line.no, line.text))
    return lines


SAMPLE_LINES = nccl_sample_lines()
TABLE_LINES = [line for cases in VALID.values() for line, _, _ in cases]


def key(ev):
    return (ev.kind, ev.source, ev.file, ev.line, ev.rank, ev.host, ev.pid, ev.tid, ev.device, ev.comm, ev.time,
            ev.text, ev.data)


def fast_path_lines():
    """Table lines + sample lines, at most 30 per sample file of each shape the fast path takes (COLL, transport)."""
    seen: dict = {}
    out = list(TABLE_LINES)
    for path, _, text in SAMPLE_LINES:
        shape = (path, "opCount" in text, "via" in text)
        seen[shape] = seen.get(shape, 0) + 1
        if seen[shape] <= 30:
            out.append(text)
    return out


def test_fast_path_agrees_with_the_grammar():
    lines = fast_path_lines()
    handled = 0
    for text in lines:
        fast = fast_parse(text)
        if fast is not None:
            handled += 1
            assert fast == grammar_parse(text), text
    assert handled > 0


def test_every_nccl_sample_line_parses_to_a_known_kind():
    if not SAMPLE_LINES:
        pytest.skip("no NCCL sample logs yet")
    # fast_parse only takes lines it is sure of, and agrees with the grammar (test above); a line behind a prefix
    # nobody stripped is read where its NCCL head starts
    bad = [(path, no, text) for path, no, text in SAMPLE_LINES
           if (fast_parse(text) or grammar_parse(text) or lines_inside(text)) in (None, [])]
    assert bad == []


@pytest.mark.parametrize("src", text_sources(), ids=lambda s: str(Path(s.path).relative_to(ROOT)))
def test_block_dispatch_equals_line_dispatch(src):
    slow = [key(e) for e in _fill(dispatch_lines(src.path, line_parsers(src), {}), src)]
    fast = [key(e) for e in _fill(_dispatch(src, {}), src)]   # the chain's middle built on first need
    assert fast == slow
    eager = [key(e) for e in _fill(dispatch_blocks(src.path, line_parsers(src), {}), src)]   # the chain built whole
    assert eager == slow


def test_block_dispatch_on_a_coll_heavy_file_with_gaps(tmp_path):
    head = "h:1:1 [0] NCCL INFO "
    lines = ["NCCL version 2.21.5+cuda12.4", head + "cudaDriverVersion 12040"]
    for i in range(3000):
        lines.append(f"{head}AllReduce: opCount {i:x} sendbuff 0x7f00 recvbuff 0x7f00 count {i} datatype 7 op 0 root 0 "
                     f"comm 0x55 [nranks=2] stream 0x66")
        if i == 100:
            lines.append("h:1:1 [0] NCCL INFO ncclCommInitRank comm 0x55 rank 1 nranks 2 cudaDev 0 nvmlDev 0 "
                         "busId 1a000 commId 0xabc - Init START")
        if i % 700 == 0:
            lines += ["Traceback (most recent call last):", '  File "t.py", line 1, in <module>', "RuntimeError: x", ""]
    lines.append("\x1b[31m" + lines[2] + "\x1b[0m\r")
    path = tmp_path / "nccl.h.1.log"
    path.write_text("\n".join(lines))          # no newline at the end
    src = discover([str(path)])[0]
    slow = [key(e) for e in _fill(dispatch_lines(src.path, line_parsers(src), {}), src)]
    fast = [key(e) for e in _fill(_dispatch(src, {}), src)]
    assert fast == slow
    assert sum(1 for k in slow if k[0] == "coll") == 3001


@pytest.mark.parametrize("src", [s for s in text_sources() if "nccl" in s.path][:40],
                         ids=lambda s: str(Path(s.path).relative_to(ROOT)))
def test_parser_without_fast_path_gives_the_same_events(src):
    def run(use_fast):
        parser = NcclParser(src, use_fast=use_fast)
        events = []
        for line in iter_lines(src.path):
            if line.text and parser.feed(line):
                events += parser.out
                parser.out.clear()
        parser.finish()
        return [key(e) for e in events + parser.out]
    assert run(True) == run(False)


def test_hand_built_jsonl_equals_json_dumps():
    sources = [s for s in text_sources() if "nccl" in s.path][:30]
    n = 0
    for src in sources:
        events = list(iter_events(src))
        for ev, line in zip(events, jsonl_lines(events), strict=True):
            assert line == json.dumps(ev.to_dict()) + "\n"
            n += ev.kind == "coll"
    if sources:
        assert n > 0



def _coll_event(tmp_path, **changes):
    """An RCCL-shaped COLL event (timestamped, with task/globalrank), then fields swapped for odd values."""
    path = tmp_path / "nccl.node-1.4100.log"
    path.write_text("[2025-03-01 12:00:00] node-1:4100:4107 [3] NCCL INFO AllReduce: opCount 1f sendbuff 0x7f00 "
                    "recvbuff 0x7f10 count 1024 datatype 7 op 0 root 0 comm 0x55d4a0 [nranks=8] stream 0x55d4b0 "
                    "task 2 globalrank 11\n")
    src = discover([str(path)])[0]
    ev = next(e for e in _fill(dispatch_blocks(src.path, line_parsers(src), {}), src) if e.kind == "coll")
    assert ev.data["global_rank"] == 11 and ev.time is not None
    for name, value in changes.items():
        if name in ev.data:
            ev.data[name] = value
        else:
            setattr(ev, name, value)
    return ev


@pytest.mark.parametrize("changes", [
    {}, {"rank": None, "device": None, "time": None}, {"rank": True}, {"count": 2.0}, {"nranks": False},
    {"time": float("nan")}, {"time": float("inf")}, {"root": None, "peer": 5}, {"global_rank": None},
    {"sendbuff": 'quote " and \\ back', "text": "caf\u00e9 \x01"}, {"dtype": None, "redop": None},
    {"host": None, "comm": None},
])
def test_hand_built_coll_json_equals_json_dumps_for_odd_values(tmp_path, changes):
    ev = _coll_event(tmp_path, **changes)
    twice = list(jsonl_lines([ev, ev]))   # the second line comes from the memoised parts
    assert twice == [json.dumps(ev.to_dict()) + "\n"] * 2


NCCL_SAMPLE_DIRS = ["nccl/nvlink-8rank-2.18", "nccl/ib-16rank-2node-2.21", "nccl/interleaved-4rank",
                    "nccl/timestamps-2.26", "nccl/rccl", "nccl/socket-fallback", "nccl/v2.3-old",
                    "nccl/v2.30.7-function-names", "nccl/ansi-colour", "nccl/crlf", "nccl/gzipped",
                    "nccl/truncated-line"]


@pytest.mark.parametrize("folder", NCCL_SAMPLE_DIRS)
def test_ranks_are_recovered_for_every_event_of_the_multi_rank_samples(folder):
    path = SAMPLES / folder
    if not path.is_dir():
        pytest.skip(f"{folder} not written yet")
    events = [e for s in discover([str(path)]) if s.kind in TEXT_KINDS for e in iter_events(s) if e.source == "nccl"]
    assert events
    assert [(e.file, e.line, e.kind) for e in events if e.rank is None] == []
    assert [(e.file, e.line) for e in events if e.kind == "unparsed"] == []


def test_interleaved_ranks_come_from_the_lines_not_the_wrappers():
    path = SAMPLES / "nccl/interleaved-4rank/torchrun-console.log"
    if not path.exists():
        pytest.skip("interleaved sample not written yet")
    src = discover([str(path)])[0]
    parser = NcclParser(src)
    truth, events = {}, []
    for line in iter_lines(str(path)):
        if line.text:
            truth[line.no] = line.rank
            parser.feed(Line(line.no, line.text))     # the [rankN]: wrapper's rank withheld
            events += parser.out
            parser.out.clear()
    parser.finish()
    events += parser.out
    assert events and all(e.rank == truth[e.line] for e in events)
    assert [e.line for e in events] == sorted(e.line for e in events)


# ---- the network init lines read without the grammar (nccl.network_message) ----
_WORD_CHARS = st.sampled_from(list("ab09_.-:;[]<>/%") + ["[0]", "[12]", "[RO]", "mlx5_0", ":1", "/IB", "<0>", "10.4.0.1"])
_WORD = st.lists(_WORD_CHARS, min_size=0, max_size=6).map("".join)
_GAP = st.sampled_from([" ", " ", " ", "  ", ""])


@st.composite
def network_messages(draw):
    """Bootstrap and NET/IB messages: their plain shape, and words, spaces and separators that stray from it."""
    words = draw(st.lists(st.tuples(_GAP, _WORD), max_size=5))
    body = "".join(gap + word for gap, word in words)
    if draw(st.booleans()):
        return draw(st.sampled_from(["Bootstrap : Using", "Bootstrap: Using", "Bootstrap :Using"])) + body
    ro = draw(st.sampled_from(["", " [RO]", "[RO]", " [RO] "]))
    sep = draw(st.sampled_from(["; OOB ", " ; OOB ", ";OOB ", "; OOB  ", "; OOB"]))
    return "NET/IB : Using" + body + ro + sep + draw(_WORD)


@settings(max_examples=600, deadline=None)
@given(network_messages())
@example("NET/IB : Using [0]/; OOB a")       # a device token without a name (the fast path asserted on it)
def test_network_messages_read_as_the_grammar_reads_them(msg):
    fast = network_message(msg)
    if fast is not None:
        assert fast == grammar_parse(_CANON + msg)[1:]


@pytest.mark.parametrize("msg", [
    "Bootstrap : Using bond0:10.42.0.1<0>", "Bootstrap: Using ib0:192.168.1.5<0> eth0:10.0.0.2<0>",
    "Bootstrap : Using [0]eth0:fe80::1%eth0<0>",
    "NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB [2]mlx5_2:1/IB [3]mlx5_3:1/IB [RO]; OOB bond0:10.42.0.1<0>",
    "NET/IB : Using [0]mlx5_0:1/RoCE ; OOB eth0:10.0.0.1<0>", "NET/IB : Using [0]mlx5_bond_0:1/RoCE [RO]; OOB ens1f0np0"])
def test_plain_network_messages_skip_the_grammar(msg):
    assert network_message(msg) == grammar_parse(_CANON + msg)[1:]


def test_network_tokens_are_the_grammars_terminals():
    terminals = {t.name: t.pattern.value for t in lalr("nccl").terminals}
    assert (terminals["IFACE"], terminals["IB_DEV"]) == (IFACE_TOKEN.pattern, IB_DEV_TOKEN.pattern)


def test_network_sample_lines_agree_with_the_grammar():
    read = 0
    for _, _, text in SAMPLE_LINES:
        m = PREFIX_RE.fullmatch(text)
        if m is not None and network_message(m.group("msg")) is not None:
            read += 1
            assert message_parse(text) == grammar_parse(text), text
    assert read > 0
