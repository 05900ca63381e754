"""What a windowed read skipped, looked at before an all-clear.

A large text file is read at its head and its tail (map.set_windows): a hang or a crash is at the end of a log.
A job that failed in the middle and then went on (a torchrun restart, a retried step, an NCCL error another rank's
recovery hid) shows its failure only there. `diagnose` says `none` only after `suspect_middles` found no line
there that may show a failure; the files where it finds one are read in full, and the verdict comes from that.

The scan is a pre-filter, not a verdict: a block whose every line is an NCCL INFO line (the bulk of a large log)
is passed over at memory speed, once none of them holds the words of the failures NCCL prints at INFO level (its
error trace `net.cc:1386 -> 6`, catalogue.nccl.INFO_LEVEL); the other lines are looked at for an NCCL WARN, the
start of a traceback or a fatal Python error, or a catalogue message that means a failure. A line it wrongly
suspects costs a full read, never a verdict.
"""
from __future__ import annotations

import re
from functools import lru_cache

from ..errors import NcclfError
from ..model import Evidence, Source
from ..sources import catalogue
from ..sources.catalogue.nccl import INFO_LEVEL
from ..sources.faulthandler import STARTS as FAULTHANDLER_STARTS
from ..sources.lines import middle_blocks
from ..sources.traceback import STARTS as TRACEBACK_STARTS

_INFO = b" NCCL INFO "
_COLL = b": opCount "             # an INFO COLL line's words (nccl_fast.COLL_LINE_RE): no failure is one of them
_MARKERS = ("NCCL WARN", *TRACEBACK_STARTS, FAULTHANDLER_STARTS[0])
_DIGITS = b"0123456789"


def suspect_middles(windowed: list[Source], head_lines: dict[str, int]) -> dict[str, Evidence]:
    """Each windowed file whose unread middle holds a line that may show a failure, and its first such line.
    `head_lines`: each file's lines read at its head (SourceResult.head_lines)."""
    found = {}
    for src in windowed:
        if src.window is not None:
            line = _first_suspect(src, head_lines.get(src.path, 0))
            if line is not None:
                found[src.path] = line
    return found


def _first_suspect(src: Source, head_lines: int) -> Evidence | None:
    try:
        for first, block, lines in middle_blocks(src.path, head_lines, src.window[1] if src.window else 0):
            found = _suspect(block, lines)
            if found is not None:
                at, text = found
                return Evidence(src.path, first + block.count(b"\n", 0, at), text)
    except (NcclfError, OSError) as exc:               # gone or changed since it was read: the full read says how
        return Evidence(src.path, 0, str(exc))
    return None


def _suspect(block: bytes, lines: int) -> tuple[int, str] | None:
    """(offset, text) of the first line of `block` (of `lines` lines) that may show a failure.

    Lines are first looked at without their digits (their shapes), each distinct shape once: a training log's
    progress lines differ only in their numbers. A word that holds no digit stays whole in a line's shape, so a
    shape without any catalogue anchor or marker is a line without one; the real lines of the other shapes are then
    read in full. The few anchors with a digit are looked for in the block as they are."""
    if lines == block.count(_COLL):                        # every line a COLL line (most blocks of a large log)
        return None
    info_failure = _info_failure(block)
    if info_failure is not None:
        return info_failure
    if lines == block.count(_INFO):                        # every line an INFO line
        return None
    digit_words = [word for word in _digit_anchors() if word in block]
    suspect = {shape for shape in set(block.translate(None, _DIGITS).split(b"\n"))
               if shape and _INFO not in shape and _may_hold(shape.decode("utf-8", "replace"))}
    if not suspect and not digit_words:
        return None
    end = 0
    for line in block.split(b"\n"):
        start, end = end, end + len(line) + 1
        if line and _INFO not in line and (line.translate(None, _DIGITS) in suspect
                                            or any(word in line for word in digit_words)):
            text = line.decode("utf-8", "replace")
            if may_show_failure(text):
                return start, text
    return None


# NCCL's error trace, printed at INFO level as NCCLCHECK unwinds (`transport/net.cc:1386 -> 6`, `proxy.cc:1520
# (proxyProgress) -> 3 [Progress thread]`, `net.cc:100 Cuda failure 'out of memory'`): grammars/nccl.lark error_trace
_ERROR_TRACE = re.compile(rb" NCCL INFO [^\s():]+:\d+ (?:\([^)\n]*\) )?(?:-> -?\d|Cuda failure)")


def _info_failure(block: bytes) -> tuple[int, str] | None:
    """(offset, text) of the first NCCL INFO line that shows a failure: an error trace, or a catalogue message NCCL
    prints at INFO level (catalogue.nccl.INFO_LEVEL) whose meaning is a failure. Each is looked for by its words
    first, at memory speed."""
    words = [word for word in _info_anchors() if word in block]
    if not words:
        return None
    found = []
    trace = _ERROR_TRACE.search(block)
    if trace is not None:
        found.append(_line_at(block, trace.start()))
    for word in set(words) & set(_info_anchors()[2:]):     # a catalogue message's words: is its line one?
        at = block.find(word)
        while at >= 0:
            line = _line_at(block, at)
            if may_show_failure(line[1]):
                found.append(line)
                break
            at = block.find(word, at + 1)
    return min(found, default=None)


def _line_at(block: bytes, at: int) -> tuple[int, str]:
    start = block.rfind(b"\n", 0, at) + 1
    end = block.find(b"\n", at)
    return start, block[start:end if end >= 0 else len(block)].decode("utf-8", "replace")


@lru_cache(maxsize=1)
def _info_anchors() -> tuple[bytes, ...]:
    """The words an INFO-level failure line holds: the error trace's two forms, then the anchors of the catalogue's
    INFO-level failure and consequence messages."""
    words = {word.encode() for msg in catalogue.messages() if msg.id in INFO_LEVEL
             and msg.meaning in ("failure", "consequence") for word in catalogue.anchors(msg)}
    return (b" -> ", b" Cuda failure", *sorted(words))


def _may_hold(shape: str) -> bool:
    """Does a line's shape hold a marker or a catalogue anchor (what any failure line holds)?"""
    return any(marker in shape for marker in _MARKERS) or catalogue.might_match(shape)


def may_show_failure(text: str) -> bool:
    """Could this line be one that the parsers read as a failure?"""
    return any(marker in text for marker in _MARKERS) or any(
        hit.message.meaning in ("failure", "consequence") for hit in catalogue.match(text))


@lru_cache(maxsize=1)
def _digit_anchors() -> tuple[bytes, ...]:
    """The catalogue's anchors that hold a digit (`AMD_SERIALIZE_KERNEL=3`): a line's shape has none of them."""
    return tuple(sorted({word.encode() for msg in catalogue.messages() for word in catalogue.anchors(msg)
                         if any(ch.isdigit() for ch in word)}))
