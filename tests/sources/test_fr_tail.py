"""fr_load.load_dump_tail: the last entries of a dump, decoded without the middle, or None (then the whole dump
is read). Whenever it answers, it answers what the whole dump says; both pickle shapes are checked: Python's
(benchmarks/fr_synth.py: a memo put after every container) and torch's (strings memoized by value, MARK and
APPENDS even for one item, no put on an entry)."""
from __future__ import annotations

import importlib.util
import json
import pickle
import pickletools
import struct
from pathlib import Path

import pytest

from nccl_forensics.pipeline.reduce import diagnose
from nccl_forensics.sources import fr_load
from nccl_forensics.sources.fr_load import HEAD_ENTRIES, is_unknown, load_dump, load_dump_tail, splice_pays_from

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("fr_synth", ROOT / "benchmarks" / "fr_synth.py")
fr_synth = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fr_synth)


class TorchStylePickler:
    """Protocol 2 as torch::jit::Pickler writes a dump: each distinct string once (BINUNICODE, then a put) and a
    BINGET after; lists and dicts as EMPTY_x MARK ... APPENDS/SETITEMS with no put; tuples of two as TUPLE2."""

    def __init__(self):
        self.out, self.memo = [b"\x80\x02"], {}

    def dumps(self, obj) -> bytes:
        self.save(obj)
        return b"".join(self.out) + b"."

    def save(self, obj) -> None:
        w = self.out.append
        if obj is None:
            w(b"N")
        elif obj is True or obj is False:
            w(b"\x88" if obj else b"\x89")
        elif isinstance(obj, int):
            w(b"J" + struct.pack("<i", obj) if -2**31 <= obj < 2**31 else b"\x8a\x08" + struct.pack("<q", obj))
        elif isinstance(obj, str):
            self.save_str(obj)
        elif isinstance(obj, tuple) and len(obj) == 2:
            self.save(obj[0]), self.save(obj[1]), w(b"\x86")
        elif isinstance(obj, (list, tuple)):
            w(b"](")
            for item in obj:
                self.save(item)
            w(b"e")
        elif isinstance(obj, dict):
            w(b"}(")
            for key, value in obj.items():
                self.save(key), self.save(value)
            w(b"u")
        else:
            raise TypeError(type(obj))

    def save_str(self, s: str) -> None:
        if s in self.memo:
            i = self.memo[s]
            self.out.append(b"h" + bytes([i]) if i < 256 else b"j" + struct.pack("<I", i))
            return
        raw = s.encode()
        i = self.memo[s] = len(self.memo)
        self.out.append(b"X" + struct.pack("<I", len(raw)) + raw + (b"q" + bytes([i]) if i < 256 else
                                                                     b"r" + struct.pack("<I", i)))


def _synth(tmp_path: Path, entries: int, ranks: int = 1, **kw) -> list[Path]:
    return fr_synth.make_dumps(tmp_path, ranks=ranks, entries=entries, diverge_rank=kw.pop("diverge_rank", None), **kw)


def _rewrite_torch_style(path: Path, change=None) -> dict:
    dump = load_dump(str(path))
    if change:
        change(dump)
    path.write_bytes(TorchStylePickler().dumps(dump))
    return dump


def _assert_tail_matches(path: Path, tail: int) -> None:
    whole = load_dump(str(path))
    got = load_dump_tail(str(path), tail)
    assert got is not None
    dump, first, total = got
    assert total == len(whole["entries"]) and first == total - tail + 1
    assert dump["entries"] == whole["entries"][-tail:]
    assert {k: v for k, v in dump.items() if k != "entries"} == {k: v for k, v in whole.items() if k != "entries"}


@pytest.mark.parametrize("tail", [16, 100, 256])
def test_the_tail_of_a_python_pickled_dump_is_the_whole_dumps_tail(tmp_path, tail):
    (path,) = _synth(tmp_path, entries=600)
    _assert_tail_matches(path, tail)


@pytest.mark.parametrize("tail", [16, 100])
def test_the_tail_of_a_torch_style_dump_is_the_whole_dumps_tail(tmp_path, tail):
    (path,) = _synth(tmp_path, entries=600)
    _rewrite_torch_style(path)
    ops = [op.name for op, _, _ in pickletools.genops(path.read_bytes())]
    after_empty = {b for a, b in zip(ops, ops[1:], strict=False) if a in ("EMPTY_LIST", "EMPTY_DICT")}
    assert after_empty == {"MARK"}                                        # really the other shape
    _assert_tail_matches(path, tail)


def test_small_json_and_non_dump_files_are_read_whole(tmp_path):
    (path,) = _synth(tmp_path, entries=splice_pays_from(HEAD_ENTRIES, 100))
    assert load_dump_tail(str(path), 100) is None                 # not worth it: nothing to skip
    as_json = tmp_path / "rank_0.json"
    as_json.write_text(json.dumps(load_dump(str(path)), default=list))
    assert load_dump_tail(str(as_json), 10) is None
    other = tmp_path / "rank_1"
    other.write_bytes(pickle.dumps({"version": "2.10", "entries": []}, protocol=2))
    assert load_dump_tail(str(other), 10) is None


def test_record_ids_that_skip_in_the_middle_make_it_read_the_whole_dump(tmp_path):
    (path,) = _synth(tmp_path, entries=600)

    def gap(dump):
        for e in dump["entries"][300:]:
            e["record_id"] += 5
    _rewrite_torch_style(path, gap)
    assert load_dump_tail(str(path), 100) is None


def test_look_alike_markers_in_strings_never_give_a_wrong_tail(tmp_path):
    """A frame name holding the bytes that mark an entry's start: the count is then off, the record ids show it."""
    (path,) = _synth(tmp_path, entries=600)
    marker_name = {}

    def plant(dump):
        first_key = next(iter(dump["entries"][0]))
        marker_name["key"] = first_key
        for e in dump["entries"][100:400:7]:
            e["frames"] = [{"name": "}(h\x00odd", "filename": "x.py", "line": 1}]
    _rewrite_torch_style(path, plant)
    got = load_dump_tail(str(path), 100)
    whole = load_dump(str(path))
    assert got is None or got[0]["entries"] == whole["entries"][-100:]


def _late_ops(dump):
    """Two ops first issued in the middle of the ring buffer (a pipeline job's step end), and again in its tail."""
    for at, name in ((250, "nccl:rare_op"), (300, "nccl:rarer_op")):
        dump["entries"][at]["profiling_name"] = name
        dump["entries"][at]["frames"] = [{"name": name, "filename": "late.py", "line": at}]
    dump["entries"][-5]["profiling_name"] = "nccl:rare_op"
    dump["entries"][-3]["profiling_name"] = "nccl:rarer_op"
    dump["entries"][-3]["frames"] = dump["entries"][300]["frames"]


def _late_ops_dump(tmp_path, style: str):
    """A 600-entry dump whose tail uses ops first defined in the skipped middle, pickled as torch or Python does."""
    (path,) = _synth(tmp_path, entries=600)
    if style == "torch":
        _rewrite_torch_style(path, _late_ops)
    else:
        dump = load_dump(str(path))
        _late_ops(dump)
        path.write_bytes(pickle.dumps(fr_synth._same_strings(dump, {}, set()), protocol=2))
    return path


@pytest.mark.parametrize("style", ["torch", "python"])
def test_what_the_skipped_middle_defines_for_the_tail_is_read_by_extending_the_head(tmp_path, style):
    """The head is extended to the entry that defines the last thing the tail needs: the tail is the whole one's."""
    path = _late_ops_dump(tmp_path, style)
    _assert_tail_matches(path, 100)


@pytest.mark.parametrize("style", ["torch", "python"])
def test_what_the_tail_needs_from_the_middle_is_found_before_loading(tmp_path, style, monkeypatch):
    """The head is extended to what the tail misses before the first load: the dump is unpickled once, not twice."""
    path = _late_ops_dump(tmp_path, style)
    loads = []
    real = fr_load._load_pickle
    monkeypatch.setattr(fr_load, "_load_pickle", lambda data, *a: loads.append(len(data)) or real(data, *a))
    _assert_tail_matches(path, 100)
    assert len(loads) == 2                                # load_dump's whole load, then the tail's
    assert loads[1] < loads[0] * 0.9                      # a splice


def test_look_alike_memo_references_in_the_tail_never_give_a_wrong_tail(tmp_path):
    """Strings in the tail holding the bytes of memo gets and puts (h, j, q, r with any index): the head may be
    extended further than needed, the answer is the whole dump's."""
    (path,) = _synth(tmp_path, entries=600)

    def plant(dump):
        _late_ops(dump)
        for i, e in enumerate(dump["entries"][-80:]):
            e["thread_name"] = "h" + chr(i + 1) + "j" + chr(i) + "\x01\x00\x00q" + chr(200 - i) + "r\x00\x01\x00\x00"
    _rewrite_torch_style(path, plant)
    _assert_tail_matches(path, 100)


def test_a_definition_not_reached_in_time_loads_as_unknown(tmp_path, monkeypatch):
    """With no extension allowed, what the tail needs from the middle is UNKNOWN (the fast path then refuses the
    tail: UNKNOWN is no str, and the whole dump is read)."""
    monkeypatch.setattr(fr_load, "HEAD_EXTENSIONS", 0)
    (path,) = _synth(tmp_path, entries=600)
    _rewrite_torch_style(path, _late_ops)
    dump, _, _ = load_dump_tail(str(path), 100)
    assert is_unknown(dump["entries"][-5]["profiling_name"]) and is_unknown(dump["entries"][-3]["frames"][0]["filename"])
    assert dump["entries"][-6]["profiling_name"] == load_dump(str(path))["entries"][-6]["profiling_name"]


def _diagnose_json(paths, window_mb):
    d = diagnose([str(p) for p in paths], jobs=1, window_mb=window_mb)
    return d, (d.verdict.cls, sorted(d.verdict.culprit_ranks), [(f.id, f.message) for f in d.findings])


@pytest.mark.parametrize("mode", ["dtype", "skip", "shape"])
def test_windowed_dumps_give_the_verdict_of_whole_ones(tmp_path, mode):
    paths = _synth(tmp_path, entries=1200, ranks=4, diverge_rank=2, mode=mode)
    windowed, got = _diagnose_json(paths, 2.0)
    whole, expected = _diagnose_json(paths, None)
    assert got == expected and got[0] != "none"
    assert set(windowed.windowed_dumps) == {str(p) for p in paths} and not whole.windowed_dumps
    assert all(first > 1 for first in windowed.windowed_dumps.values())


def test_a_collective_skipped_before_the_window_widens_it(tmp_path):
    """Rank 1 skipped a collective far before the window: every later seq of it is shifted, so the window starts
    inside the divergence and the dumps are read again wider, then whole: the verdict is --full's."""
    paths = _synth(tmp_path, entries=1200, ranks=4)

    def skip_one(dump):
        entries = dump["entries"]
        del entries[200]
        for e in entries[200:]:
            e["collective_seq_id"] -= 1
            e["record_id"] -= 1
    _rewrite_torch_style(paths[1], skip_one)
    windowed, got = _diagnose_json(paths, 0.5)
    _, expected = _diagnose_json(paths, None)
    assert got == expected and got[0] == "collective_skipped"
    assert all(first <= 200 for first in windowed.windowed_dumps.values())   # read again, wide enough to hold it
    assert windowed.window_mb == 0.5 * 16
    from click.testing import CliRunner

    from nccl_forensics.cli import cli
    res = CliRunner().invoke(cli, ["diagnose", "-j", "1", "--window", "0.5", *map(str, paths)])
    assert "decoded the last 1024 entries of 4 flight-recorder dumps" in res.output, res.output   # not 64
