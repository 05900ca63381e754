"""The block scanner (nccl_fast.BlockScanner) gives exactly the line-by-line dispatcher's events.

Small blocks (`lines._CHUNK` patched) put the whole-block path (a block made only of COLL lines, decoded
column-wise) and the mixed path side by side in short files; hypothesis mixes in mutated COLL lines (refused
heads/tails, CR, missing fields, huge numbers), lines of unknown rank, other programs' lines and blank lines.
"""
from __future__ import annotations

import gzip
import json
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_nccl_differential import key
from test_nccl_fuzz import mutated

from nccl_forensics.errors import BadInput
from nccl_forensics.model import CollRun, Event
from nccl_forensics.outputs.events import JsonlEncoder, expand
from nccl_forensics.sources import FORMATS, _dispatch, _fill, dispatch_lines, line_parsers, nccl_fast
from nccl_forensics.sources import lines as lines_mod
from nccl_forensics.sources.discover import discover
from nccl_forensics.sources.nccl_fast import (
    COLL_LINE_RE,
    COLL_RE,
    HEAD_RE,
    PREFIX_RE,
    TAIL_RE,
    dispatch_blocks,
)

HEAD = "node-1:4100:4107 [3] NCCL INFO "
INIT = (f"{HEAD}ncclCommInitRank comm 0x55d4a0 rank 11 nranks 16 cudaDev 3 nvmlDev 3 busId 1d000 "
        "commId 0x7c2a1f0e5b3d9e41 - Init START")
COLL = [f"{HEAD}AllReduce: opCount {{n:x}} sendbuff 0x7f0{{n}} recvbuff 0x7f1{{n}} count {{n}} datatype 7 op 0 root 0 "
        "comm 0x55d4a0 [nranks=16] stream 0x55d4b0",
        f"[2025-03-01 12:00:0{{s}}.123] {HEAD}Send: opCount {{n:x}} sendbuff 0x7f0{{n}} recvbuff (nil) count {{n}} "
        "datatype 9 op 0 root 5 comm 0x55d4a0 [nranks=16] stream 0x55d4b0",
        f"{HEAD}Broadcast: opCount {{n:x}} sendbuff 0x7f0{{n}} recvbuff 0x7f1{{n}} count {{n}} datatype 0 op 0 "
        "root 2 comm 0x55d4a0 [nranks=16] stream 0x55d4b0 task 1 globalrank 11",
        "other-host:77:77 [0] NCCL INFO AllGather: opCount {n:x} sendbuff 0x1 recvbuff 0x2 count {n} datatype 7 "
        "op 0 root 0 comm 0x99 [nranks=2] stream 0x3"]        # a process whose rank is never learnt
OTHER = ["", "Traceback (most recent call last):", '  File "t.py", line 1, in <module>', "RuntimeError: x",
         "[rank3]:" + COLL[0].format(n=1, s=1), COLL[0].format(n=2, s=2) + "\r", "\x1b[31m" + INIT + "\x1b[0m"]

settings.register_profile("blocks", deadline=None, max_examples=150,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                                 HealthCheck.function_scoped_fixture])


def both(path, bulk=False, buffers=True):
    src = discover([str(path)])[0]
    slow = [key(e) for e in _fill(dispatch_lines(src.path, line_parsers(src), {}), src)]
    items = list(_dispatch(src, {}, bulk, True, buffers))     # as iter_records: the chain's middle built lazily
    expanded = (e for item in items for e in (item.events() if isinstance(item, CollRun) else [item]))
    fast = [key(e) for e in _fill(expanded, src)]
    return slow, fast, items


@st.composite
def log_lines(draw):
    out = [] if draw(st.booleans()) else [INIT]
    for n in range(draw(st.integers(1, 120))):
        pick = draw(st.integers(0, 9))
        if pick < 6:
            out.append(COLL[draw(st.integers(0, 3))].format(n=n, s=n % 10))
        elif pick < 8:
            out.append(draw(mutated()))
        elif pick == 8:
            out.append(draw(st.sampled_from(OTHER + [INIT])))
        else:
            out.append(draw(st.sampled_from(COLL)).format(n=draw(st.integers(0, 10**30)), s=1))
    return out


@settings(settings.get_profile("blocks"))
@given(lines=log_lines(), chunk=st.sampled_from([64, 700, 4096]), newline=st.booleans())
def test_block_scanner_equals_line_dispatch(tmp_path, monkeypatch, lines, chunk, newline):
    monkeypatch.setattr(lines_mod, "_CHUNK", chunk)
    path = tmp_path / "nccl.node-1.4100.log"
    path.write_bytes(("\n".join(lines) + ("\n" if newline else "")).encode("utf-8", "surrogatepass"))
    slow, fast, _ = both(path)
    assert fast == slow


@settings(settings.get_profile("blocks"))
@given(lines=log_lines(), chunk=st.sampled_from([700, 4096]), prefix=st.sampled_from(["[default{r}]:", "[worker{r}]: ",
                                                                                       "[rank{r}]:", ""]),
       unprefixed=st.integers(-1, 200))
def test_prefixed_blocks_and_coll_stretches_equal_line_dispatch(tmp_path, monkeypatch, lines, chunk, prefix,
                                                                 unprefixed):
    """A torchrun console (`[defaultN]:` on every line: stripped per block) and COLL stretches inside mixed
    blocks (RUN_MIN lowered so short files have them) give the line dispatcher's events; one line may lack
    the prefix (its block goes line by line)."""
    monkeypatch.setattr(lines_mod, "_CHUNK", chunk)
    monkeypatch.setattr(nccl_fast, "RUN_MIN", 2)
    lines = [line if i == unprefixed else prefix.format(r=i % 3) + line for i, line in enumerate(lines)]
    path = tmp_path / "nccl.node-1.4100.log"
    path.write_bytes(("\n".join(lines) + "\n").encode("utf-8", "surrogatepass"))
    slow, fast, _ = both(path)
    assert fast == slow


@settings(settings.get_profile("blocks"))
@given(lines=log_lines(), chunk=st.sampled_from([700, 4096]), prefix=st.sampled_from(["", "[default{r}]:"]))
def test_runs_without_buffers_give_the_line_dispatchers_events(tmp_path, monkeypatch, lines, chunk, prefix):
    """`buffers=False` (diagnose): a whole block's run reads its sendbuff/recvbuff columns only when they are
    asked for (nccl_fast.BlockBuffers, the block matched again); its events are the line dispatcher's."""
    monkeypatch.setattr(lines_mod, "_CHUNK", chunk)
    monkeypatch.setattr(nccl_fast, "RUN_MIN", 2)
    path = tmp_path / "nccl.node-1.4100.log"
    text = "\n".join(prefix.format(r=i % 3) + line for i, line in enumerate(lines)) + "\n"
    path.write_bytes(text.encode("utf-8", "surrogatepass"))
    slow, fast, _ = both(path, bulk=True, buffers=False)
    assert fast == slow


@pytest.mark.parametrize("odd", [COLL[3].replace("other-host", "n\x97de1"),          # a C1 control in the host
                                 COLL[0].replace("stream 0x55d4b0", "stream 0x55d4b0\x07"),   # BEL in the tail
                                 COLL[1].replace(".123]", ".123\x1b]")])                  # ESC in the stamp
@pytest.mark.parametrize("bulk, buffers", [(False, True), (True, False)])
def test_coll_lines_with_control_characters_read_as_the_line_dispatcher_reads_them(tmp_path, monkeypatch, odd, bulk,
                                                                                   buffers):
    """A COLL line the dispatcher cleans (lines.clean drops control characters) goes through it on the block path
    too: no control character reaches an event, in a whole block or one among other lines (found by Hypothesis)."""
    monkeypatch.setattr(nccl_fast, "RUN_MIN", 2)
    for lines in ([INIT, *(COLL[0].format(n=n, s=n) for n in range(3)), odd.format(n=3, s=3)],
                  [INIT, COLL[0].format(n=0, s=0), "RuntimeError: x", odd.format(n=1, s=1), "Traceback"]):
        path = tmp_path / "nccl.node-1.4100.log"
        path.write_bytes(("\n".join(lines) + "\n").encode("utf-8", "surrogatepass"))
        slow, fast, _ = both(path, bulk=bulk, buffers=buffers)
        assert fast == slow
        assert not any(ch in str(ev) for ev in fast for ch in "\x97\x07\x1b")


@pytest.mark.parametrize("bulk, buffers", [(False, True), (True, False)])
def test_a_coll_run_ends_an_rccl_version_block_as_its_lines_would(tmp_path, monkeypatch, bulk, buffers):
    """RCCL's version block (`RCCL version`, then `HIP version : ...`) ends at an NCCL line: a run of COLL lines taken
    on the block path ends it too, so a `HIP version` line after them is no part of it (found by Hypothesis)."""
    monkeypatch.setattr(nccl_fast, "RUN_MIN", 2)
    lines = [INIT, "RCCL version : 2.22.3-HEAD:271856d", COLL[0].format(n=1, s=1), COLL[0].format(n=2, s=2),
             "HIP version  : 6.4.43482-0f2d60242"]
    path = tmp_path / "nccl.node-1.4100.log"
    path.write_text("\n".join(lines) + "\n")
    slow, fast, _ = both(path, bulk=bulk, buffers=buffers)
    assert fast == slow


@pytest.mark.parametrize("prefix", ["", "[default0]:"])
def test_a_run_without_buffers_reads_them_from_its_block(tmp_path, prefix):
    """The buffer columns of a run read without them are the eager run's, once asked for."""
    path = tmp_path / "nccl.node-1.4100.log"
    body = [COLL[n % 3].format(n=n, s=n % 10) for n in range(300)]
    path.write_text("\n".join(prefix + line for line in [INIT, *body]) + "\n")
    src = discover([str(path)])[0]
    eager, lazy = ([item for item in dispatch_blocks(src.path, line_parsers(src), {}, bulk=True, buffers=buffers)
                    if isinstance(item, CollRun)] for buffers in (True, False))
    assert [len(run) for run in lazy] == [len(run) for run in eager] == [300]
    assert all(isinstance(run.sendbuffs, nccl_fast.BlockBuffers) for run in lazy)
    for field in ("sendbuffs", "recvbuffs"):
        assert list(getattr(lazy[0], field)) == list(getattr(eager[0], field))
        assert getattr(lazy[0], field)[-1] == getattr(eager[0], field)[-1]
        assert len(getattr(lazy[0], field)) == 300
    assert eager[0].recvbuffs[1] == "(nil)"                    # the Send lines' recvbuff


def test_a_prefixed_console_and_a_per_rank_log_take_the_block_path(tmp_path):
    """Interleaved `[defaultN]:` COLL lines become runs whose text is the line as read; the COLL lines after a
    per-rank log's init lines, in the same block, become a run too."""
    console = tmp_path / "console.log"
    other = "node-2:4200:4200 [0] NCCL INFO "
    init2 = INIT.replace(HEAD, other).replace("rank 11", "rank 12").replace("0x55d4a0", "0x66d4a0")
    body = [f"[default{n % 2}]:" + (COLL[0] if n % 2 == 0 else COLL[0].replace(HEAD, other).replace(
        "0x55d4a0", "0x66d4a0")).format(n=n // 2, s=0) for n in range(400)]
    console.write_text("\n".join(["[default0]:" + INIT, "[default1]:" + init2, *body]) + "\n")
    slow, fast, items = both(console, bulk=True)
    assert fast == slow
    runs = [item for item in items if isinstance(item, CollRun)]
    assert sum(map(len, runs)) == 400 and {ctx.rank for run in runs for ctx in run.contexts} == {11, 12}
    assert runs[0].texts[0] == body[0]
    per_rank = tmp_path / "nccl.node-1.4100.log"
    per_rank.write_text("\n".join([INIT, *(COLL[0].format(n=n, s=0) for n in range(100))]) + "\n")
    slow, fast, items = both(per_rank, bulk=True)
    assert fast == slow
    assert [len(item) for item in items if isinstance(item, CollRun)] == [100]


def test_whole_blocks_become_runs_and_equal_line_dispatch(tmp_path, monkeypatch):
    monkeypatch.setattr(lines_mod, "_CHUNK", 4096)
    body = [COLL[n % 3].format(n=n, s=n % 10) for n in range(2000)]
    body[1500] = body[1500].replace("datatype 7", "datatype x")      # refused tail: the grammar's turn
    path = tmp_path / "nccl.node-1.4100.log"
    path.write_text("\n".join([INIT, *body, "RuntimeError: x"]) + "\n")
    slow, fast, items = both(path, bulk=True)
    assert fast == slow
    runs = [item for item in items if isinstance(item, CollRun)]
    assert len(runs) > 20 and sum(map(len, runs)) == 1999
    # the last line is a bare exception line (no Traceback header): the message catalogue reads it
    assert [e.kind for e in items if isinstance(e, Event)] == ["comm_init", "unparsed", "traceback"]
    assert {ctx.rank for run in runs for ctx in run.contexts} == {11}
    events = list(expand(items))
    expected = [json.dumps(ev.to_dict()) + "\n" for ev in events]
    assert list(JsonlEncoder().lines(items)) == expected
    assert "".join(JsonlEncoder().chunks(items)) == "".join(expected)


def test_lines_before_the_rank_is_known_are_held_not_batched(tmp_path, monkeypatch):
    monkeypatch.setattr(lines_mod, "_CHUNK", 2048)
    body = [COLL[0].format(n=n, s=0) for n in range(300)]
    path = tmp_path / "nccl.node-1.4100.log"
    path.write_text("\n".join([*body, INIT, *body]) + "\n")
    slow, fast, items = both(path, bulk=True)
    assert fast == slow
    assert all(k[4] == 11 for k in slow)
    assert sum(1 for k in slow if k[0] == "coll") == 600
    assert sum(len(i) for i in items if isinstance(i, CollRun)) == 300     # the 300 after the init line


def test_a_cut_gzip_gives_the_same_events_from_both_paths_then_bad_input(tmp_path, monkeypatch):
    """Cut in the middle of an open traceback, with COLL lines still held for a rank the log never names:
    both dispatchers close what their parsers hold, in the same way, before the error."""
    monkeypatch.setattr(lines_mod, "_CHUNK", 2048)
    body = [COLL[n % 3].format(n=n, s=0) for n in range(400)] + OTHER[1:3] + ['  File "u.py", line 9, in f'] * 500
    data = gzip.compress(("\n".join(body) + "\n").encode())
    path = tmp_path / "nccl.node-1.4100.log.gz"
    path.write_bytes(data[: len(data) - 20])
    src = discover([str(path)])[0]

    def until_bad_input(events):
        out = []
        with pytest.raises(BadInput):
            out.extend(key(e) for e in _fill(events, src))
        return out
    slow = until_bad_input(dispatch_lines(src.path, line_parsers(src), {}))
    fast = until_bad_input(dispatch_blocks(src.path, line_parsers(src), {}))
    assert fast == slow
    assert sum(1 for k in slow if k[0] == "coll") == 400 and slow[-1][0] != "coll"


@settings(settings.get_profile("blocks"))
@given(line=mutated() | st.sampled_from(COLL).map(lambda s: s.format(n=12, s=3)))
def test_loose_line_regex_plus_head_and_tail_checks_equal_the_exact_regexes(line):
    """COLL_LINE_RE with HEAD_RE/TAIL_RE accepts a line iff PREFIX_RE + COLL_RE do, with the same fields."""
    m = COLL_LINE_RE.fullmatch(line)
    loose = m is not None and HEAD_RE.fullmatch(m.group(2)) and TAIL_RE.fullmatch(m.group(7))
    p = PREFIX_RE.fullmatch(line)
    exact = p is not None and COLL_RE.fullmatch(p.group("msg"))
    if loose:
        assert exact
        g = exact.groups()
        assert (m.group(3), m.group(4), m.group(5), m.group(6)) == (g[1], g[2], g[3], g[4])
        assert TAIL_RE.fullmatch(m.group(7)).groups()[:6] == (g[5], g[6], g[7], g[8], g[9], g[10])
    elif exact and len(line) < 400 and "\n" not in line:
        # the exact regexes take numbers of any length; the block scanner leaves long ones to the grammar
        assert re.search(r"\d{11,}|[0-9a-fA-F]{17,}", line)


def test_a_whole_block_sets_off_no_garbage_collection(tmp_path):
    """The block's match tuples are freed while the collector is paused: left until after, they would count
    as new objects and set off a collection the moment it is re-enabled (one per block, 7% of the parse)."""
    import gc
    path = tmp_path / "nccl.node-1.4100.log"       # 256 KiB blocks (the default) of ~1,800 lines each
    path.write_text("\n".join([INIT] + [COLL[0].format(n=n, s=0) for n in range(60000)]) + "\n")
    src = discover([str(path)])[0]
    list(dispatch_blocks(src.path, line_parsers(src), {}, bulk=True))     # first use: grammar, caches
    started = []
    callback = lambda phase, info: started.append(info["generation"]) if phase == "start" else None  # noqa: E731
    gc.collect()
    gc.callbacks.append(callback)
    try:
        items = list(dispatch_blocks(src.path, line_parsers(src), {}, bulk=True))
    finally:
        gc.callbacks.remove(callback)
    runs = sum(isinstance(item, CollRun) for item in items)
    assert runs >= 6 and len(started) <= runs // 3    # a few stray ones, not one per block


@settings(settings.get_profile("blocks"))
@given(lines=log_lines(), wrapped=st.booleans(),
       noise=st.lists(st.sampled_from([": opCount ", ": opCount 1 sendbuff", "\n", "x:1:2 ", "[default0]:"]),
                      max_size=8))
def test_the_first_coll_line_is_the_regex_search(lines, wrapped, noise):
    """first_coll_line (tried only where a line holds ': opCount ') finds what the regex search finds."""
    block = "\n".join(("[default1]:" if wrapped and i % 2 else "") + line for i, line in enumerate(noise + lines))
    pattern = nccl_fast.WRAPPED_COLL_LINE_RE if wrapped else COLL_LINE_RE
    fast, slow = nccl_fast.first_coll_line(block, wrapped), pattern.search(block)
    assert (fast and (fast.span(), fast.groups())) == (slow and (slow.span(), slow.groups()))


def test_a_run_whose_lines_json_must_escape_is_quoted_line_by_line(tmp_path):
    """A run's text goes into jsonl as it stands only when its block holds nothing JSON escapes."""
    path = tmp_path / "nccl.node-1.4100.log"
    body = [COLL[0].format(n=n, s=0) for n in range(100)]
    path.write_text("\n".join([INIT, *body]).replace("node-1", "nodé-1") + "\n")
    _, _, items = both(path, bulk=True)
    runs = [item for item in items if isinstance(item, CollRun)]
    assert runs and "é" in runs[0].texts[0]
    assert list(JsonlEncoder().lines(items)) == [json.dumps(ev.to_dict()) + "\n" for ev in expand(items)]


def test_a_parser_never_offered_a_line_adds_nothing(tmp_path):
    """The block scanner builds the parsers between its chain's ends only when a line first reaches them
    (BlockScanner._chain): that leaves every event as it was only while a fresh parser is not busy and emits
    nothing at `finish`."""
    path = tmp_path / "nccl.log"
    path.write_text(INIT + "\n")
    src = discover([str(path)])[0]
    for fmt in FORMATS:
        for cls in fmt.parsers:
            parser = cls(src)
            assert not parser.busy
            parser.finish()
            assert (cls.__name__, parser.out, parser.busy) == (cls.__name__, [], False)
