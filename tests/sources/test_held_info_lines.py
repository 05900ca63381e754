"""The block scanner's shortcuts for a rank log's init block give exactly the line dispatcher's events.

`PLAIN_INFO_HEAD_RE`: a printable ASCII line behind a plain `host:pid:tid [dev] NCCL INFO ` head is a `Line` as
it is, without `make_line`'s cleaning and unwrapping (which would leave it unchanged: checked here).

`MessageParser.skip_held_info_line`: a plain NCCL INFO line that its parser read but holds (its process's rank
is not known yet) is not scanned by the message catalogue on the block path. Checked against the line-by-line
dispatcher (the reference, which scans every line) on files where such lines hold catalogue words, begin a
message that a terminal wrapped onto the next line, sit beside held `unparsed` lines (whose voiding reads what
the catalogue found), beside catalogue messages, torchrun table rows and COLL lines; and on the per-rank logs
that `benchmarks/bench_log_shapes.py small` generates.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_block_scanner import COLL, INIT, both
from test_nccl_fuzz import mutated

from nccl_forensics.model import Line
from nccl_forensics.sources import catalogue, messages
from nccl_forensics.sources import lines as lines_mod
from nccl_forensics.sources.lines import MAX_LINE, make_line
from nccl_forensics.sources.nccl_fast import PLAIN_INFO_HEAD_RE

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
from bench_log_shapes import init_block, write_rank_log  # noqa: E402

HEAD = "node-1:4100:4107 [3] NCCL INFO "
OTHER_HEAD = "node-2:4200:4200 [0] NCCL INFO "
# the INFO lines a process prints before its init line (bench_log_shapes.init_block's), with catalogue words
PLAIN = [line.split(" NCCL INFO ", 1)[1] for line in init_block(1, 16)[:5]] + [
    "NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB [RO]; OOB ib0:10.0.0.1<0>", "NET/IB : Using [0]mlx5_0:1/IB",
    "Setting affinity for GPU 3 to ffffffff", "Got completion from peer 10.0.0.1<1> with error 4, opcode 1"]
EXAMPLES = [m.example for m in catalogue.messages()]

# HELD_N=2000 for a longer hunt (the default keeps the file a fast test)
settings.register_profile("held", deadline=None, max_examples=int(os.environ.get("HELD_N", 150)),
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                                 HealthCheck.function_scoped_fixture])


@st.composite
def held_lines(draw) -> list[str]:
    """Lines of a process before (and after) its init line, mixed with catalogue messages, wrapped messages,
    mutated NCCL lines and another process's lines."""
    out: list[str] = []
    for n in range(draw(st.integers(1, 40))):
        pick = draw(st.integers(0, 9))
        if pick < 3:
            out.append(draw(st.sampled_from([HEAD, OTHER_HEAD])) + draw(st.sampled_from(PLAIN)))
        elif pick == 3:                              # a catalogue message inside an INFO line, perhaps wrapped
            text, cut = HEAD + draw(st.sampled_from(EXAMPLES)), draw(st.integers(30, 200))
            out.extend([text[:cut], text[cut:]] if cut < len(text) and draw(st.booleans()) else [text])
        elif pick == 4:
            out.append(draw(st.sampled_from(EXAMPLES)))
        elif pick == 5:
            out.append(draw(mutated()))
        elif pick == 6:
            out.append(INIT)
        elif pick == 7:
            out.append(COLL[draw(st.integers(0, 3))].format(n=n, s=n % 10))
        else:                                        # a long held line, then a message's tail on the next
            text = draw(st.sampled_from(EXAMPLES))
            cut = draw(st.integers(0, len(text)))
            out.extend([HEAD + "Setting affinity for GPU 3 to ffffffff " + text[:cut], text[cut:]])
    return out


@settings(settings.get_profile("held"))
@given(lines=held_lines(), chunk=st.sampled_from([300, 4096]))
def test_held_info_lines_give_the_line_dispatchers_events(tmp_path, monkeypatch, lines, chunk):
    monkeypatch.setattr(lines_mod, "_CHUNK", chunk)
    path = tmp_path / "nccl.node-1.4100.log"
    path.write_bytes(("\n".join(lines) + "\n").encode("utf-8", "surrogatepass"))
    slow, fast, _ = both(path)
    assert fast == slow


def test_generated_rank_logs_give_the_line_dispatchers_events_and_skip_the_held_lines(tmp_path, monkeypatch):
    """The benchmark's rank logs (rank 0's longer init block among them): the same events both ways, and the block
    path does skip the catalogue on their held lines (the shortcut is taken, not only harmless)."""
    skipped = []
    skip = messages.MessageParser.skip_held_info_line
    monkeypatch.setattr(messages.MessageParser, "skip_held_info_line",
                        lambda self, line, unparsed: skip(self, line, unparsed) and not skipped.append(line.no))
    for rank in (0, 1, 7, 8, 15):
        path = tmp_path / f"nccl.rank{rank}.log"
        write_rank_log(path, rank, 16, 20_000, 3 if rank == 15 else 0)
        skipped.clear()
        slow, fast, _ = both(path)
        assert fast == slow, path
        assert len(skipped) >= 5, path


def sample_raw_lines() -> list[str]:
    found = []
    for path in sorted((ROOT / "sample_logs").rglob("*")):
        if path.is_file() and path.suffix in ("", ".log", ".txt", ".out", ".err"):
            found.extend(path.read_bytes().decode("utf-8", "replace").splitlines())
    return found + [line for rank in (0, 1, 8) for line in init_block(rank, 16)]


def test_make_line_leaves_a_plain_info_line_as_it_is():
    """`PLAIN_INFO_HEAD_RE`: the block scanner's `Line(no, raw)` for such a printable ASCII line is `make_line`'s."""
    taken = 0
    for raw in sample_raw_lines():
        if PLAIN_INFO_HEAD_RE.match(raw) and raw.isascii() and raw.isprintable() and len(raw) <= MAX_LINE:
            assert make_line(7, raw) == Line(7, raw), raw
            taken += 1
    assert taken > 100


@settings(settings.get_profile("held"))
@given(host=st.from_regex(r"[\w.-]{1,24}", fullmatch=True).filter(str.isascii),
       pid=st.from_regex(r"\d{1,6}", fullmatch=True), rest=st.text(st.characters(min_codepoint=32, max_codepoint=126)))
def test_make_line_leaves_any_plain_info_head_as_it_is(host, pid, rest):
    raw = f"{host}:{pid}:{pid} [0] NCCL INFO {rest}"
    assert make_line(1, raw) == Line(1, raw)


def test_a_coll_line_of_unknown_rank_is_read_by_the_catalogue_as_the_line_dispatcher_reads_it(tmp_path, monkeypatch):
    """A held COLL line is the catalogue's previous line: the line dispatcher tries a message wrapped onto the next
    line joined to it, and so does the block path (it once gave the next line's event alone)."""
    monkeypatch.setattr(lines_mod, "_CHUNK", 300)
    path = tmp_path / "nccl.node-1.4100.log"
    path.write_text("\n".join([COLL[0].format(n=0, s=0), "/usr/bin/python3: can't open file '/opt/train.py': "
                               "[Errno 2] No such file or directory"]) + "\n")
    slow, fast, _ = both(path)
    assert fast == slow and len(slow) == 2
