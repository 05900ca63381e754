"""sources/lines.py: decoding, CRLF, ANSI, gzip (whole and truncated), long lines, blocks, wrappers on `Line`s."""
from __future__ import annotations

import gzip
import zlib

import numpy  # noqa: F401 - loaded, as in a diagnosis: count_newlines takes its numpy path
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nccl_forensics.errors import BadInput
from nccl_forensics.sources import lines as L

NCCL = "node1:12345:12400 [3] NCCL INFO Using network IB"


def texts(path):
    return [(ln.no, ln.text) for ln in L.iter_lines(str(path))]


def test_crlf_ansi_and_progress_bar_carriage_returns(tmp_path):
    p = tmp_path / "a.log"
    p.write_bytes(b"one\r\n\x1b[36mtwo\x1b[0m\r\n 10%\r 50%\r100%\nlast")
    assert texts(p) == [(1, "one"), (2, "two"), (3, "100%"), (4, "last")]


def test_wrapper_fields_land_on_the_line(tmp_path):
    p = tmp_path / "a.log"
    p.write_text(f"[rank3]:{NCCL}\nnode7: {NCCL}\n{NCCL}\n")
    got = list(L.iter_lines(str(p)))
    assert [(ln.text, ln.rank, ln.host, ln.raw) for ln in got] == [
        (NCCL, 3, None, f"[rank3]:{NCCL}"), (NCCL, None, "node7", f"node7: {NCCL}"), (NCCL, None, None, None)]


def test_strip_wrappers_can_be_turned_off(tmp_path):
    p = tmp_path / "a.log"
    p.write_text(f"[rank3]:{NCCL}\n")
    assert [ln.text for ln in L.iter_lines(str(p), strip_wrappers=False)] == [f"[rank3]:{NCCL}"]


def test_gzip_is_read_by_magic_not_name(tmp_path):
    p = tmp_path / "rank0.log"            # no .gz suffix
    p.write_bytes(gzip.compress(b"a\nb\n"))
    assert texts(p) == [(1, "a"), (2, "b")]


def test_truncated_gzip_is_a_one_line_bad_input(tmp_path):
    data = gzip.compress(("x" * 50 + "\n").encode() * 200000)
    p = tmp_path / "cut.log.gz"
    p.write_bytes(data[: len(data) // 2])
    with pytest.raises(BadInput) as err:
        list(L.iter_lines(str(p)))
    assert "\n" not in str(err.value) and "truncated" in str(err.value)


@pytest.mark.parametrize("lines", [300, 200000])
def test_a_truncated_gzip_keeps_every_whole_line_before_the_cut(tmp_path, lines):
    """A log gzipped while the job died: every line that decompresses whole comes out, in order, before the
    error (small files included, whose only block used to be lost with the error)."""
    text = "".join(f"line {i} " + "x" * 40 + "\n" for i in range(lines))
    data = gzip.compress(text.encode())
    p = tmp_path / "cut.log.gz"
    p.write_bytes(data[: len(data) * 2 // 3])
    got = []
    with pytest.raises(BadInput):
        got.extend(ln.text for ln in L.iter_lines(str(p)))
    whole = zlib.decompressobj(31).decompress(data[: len(data) * 2 // 3]).decode()
    expected = whole[: whole.rfind("\n")].split("\n")
    assert got == expected and len(got) > lines // 2


def test_missing_file_and_directory_are_bad_input(tmp_path):
    with pytest.raises(BadInput):
        list(L.iter_lines(str(tmp_path / "nope.log")))
    with pytest.raises(BadInput):
        list(L.iter_lines(str(tmp_path)))


def test_a_5mb_single_line_is_cut_and_the_next_line_survives(tmp_path):
    p = tmp_path / "big.log"
    p.write_bytes(b"y" * 5_000_000 + b"\nafter\n")
    got = texts(p)
    assert [no for no, _ in got] == [1, 2]
    assert len(got[0][1]) == L.MAX_LINE and got[1][1] == "after"


def test_invalid_utf8_is_replaced_not_fatal(tmp_path):
    p = tmp_path / "bad.log"
    p.write_bytes(b"ok \xff\xfe\n")
    assert texts(p) == [(1, "ok \ufffd\ufffd")]


def test_nul_bytes_are_dropped_and_lines_kept(tmp_path):
    """A crash's zero-filled blocks, and UTF-16's other half of each ASCII character (its byte-order mark too)."""
    p = tmp_path / "x.log"
    p.write_bytes(b"one\n\0\0\0two\n" + b"\0" * 100)
    assert texts(p) == [(1, "one"), (2, "two")]
    p.write_bytes("one\ntwo\n".encode("utf-16"))
    assert texts(p) == [(1, "one"), (2, "two")]


def test_empty_file_has_no_lines(tmp_path):
    p = tmp_path / "empty.log"
    p.write_bytes(b"")
    assert texts(p) == []


@settings(max_examples=150, deadline=None)
@given(st.lists(st.text(alphabet=st.characters(blacklist_characters="\n"), max_size=60), max_size=40),
       st.booleans())
def test_blocks_hold_exactly_the_lines(tmp_path_factory, lines, final_newline):
    p = tmp_path_factory.mktemp("b") / "x.log"
    body = "\n".join(lines) + ("\n" if final_newline and lines else "")
    p.write_bytes(body.encode("utf-8", "surrogatepass"))
    joined = "".join(L.iter_blocks(str(p)))
    decoded = body.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
    assert L.split_block(joined) == L.split_block(decoded.replace("\0", ""))      # no text line holds a NUL byte


def test_read_head_and_unwrap_are_public():
    assert L.unwrap("[rank1]:x") == ("x", 1, None, None)
    assert L.clean("a\r\n") == "a"
    assert L.WRAPPER_RE.match("[rank1]:") is not None


@given(text=st.text(alphabet=st.sampled_from(["\n", "a", " ", "é", "\u2028", "\x85", "\r", "\ud800", "😀"]),
                    max_size=300), repeat=st.sampled_from([1, 20, 200]))
@settings(max_examples=200, deadline=None)
def test_count_newlines_is_str_count(text, repeat):
    """count_newlines counts "\\n" as str.count does, short or long (numpy over UTF-8 bytes), whatever the text
    holds (other line breaks, lone surrogates, 4-byte characters)."""
    text = text * repeat
    assert L.count_newlines(text) == text.count("\n")
