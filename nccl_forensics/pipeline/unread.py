"""What a windowed read skipped, looked at before an all-clear.

A large text file is read at its head and its tail (map.set_windows): a hang or a crash is at the end of a log.
A job that failed in the middle and then went on (a torchrun restart, a retried step, an NCCL error another rank's
recovery hid) shows its failure only there. `diagnose` says `none` only after `suspect_middles` found no line
there that may show a failure; the files where it finds one are read in full, and the verdict comes from that.

The scan is a pre-filter, not a verdict: a block whose every line is an NCCL INFO line (the bulk of a large log)
is passed over at memory speed; the other lines are looked at for an NCCL WARN, the start of a traceback or a fatal
Python error, or a catalogue message that means a failure. A line it wrongly suspects costs a full read, never a
verdict.
"""
from __future__ import annotations

from functools import lru_cache

from ..errors import NcclfError
from ..model import Evidence, Source
from ..sources import catalogue
from ..sources.faulthandler import STARTS as FAULTHANDLER_STARTS
from ..sources.lines import middle_blocks
from ..sources.traceback import STARTS as TRACEBACK_STARTS

_INFO = b" NCCL INFO "
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
    if lines == block.count(_INFO):                        # every line an INFO line (most blocks of a large log)
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
