"""Every evidence format ncclf reads, one `Format` object each: its kind, how its head is recognised, how it is read.

A format is either whole-file (`reader(source)` yields its events: flight-recorder dumps, py-spy --json,
error.json) or line-based (`parsers`: the `LineParser` classes a line is offered to, in order). `FORMATS` is the
registry, in sniffing order: the first format whose `sniff` names the head wins. To add a format: write its
module (a reader or a LineParser), add one `Format` here, and a sample under `sample_logs/evidence/`
(docs/architecture.md, "Add an evidence format").

The sniffers are regexes over a file's first 16 KiB. The line shapes they look for are the grammars' (the
reference); tests/sources/test_sniff_differential.py checks the two agree.
"""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from functools import cached_property, partial
from typing import Callable, Iterator

from ..model import Event, Source, SourceKind
from .base import LineParser
from .debug_server import read_debug_server_dump
from .faulthandler import FaulthandlerParser
from .flight_recorder import read_flight_recorder
from .frtrace import FrtraceParser
from .gdb import GdbParser
from .inspector import read_inspector
from .kernel import KernelParser
from .lines import count_newlines, drop_nuls, packed_as
from .messages import MessageParser
from .nccl import NcclParser
from .nccltests import NccltestsParser
from .pyspy import PyspyParser
from .pyspy_json import read_pyspy_json
from .ras import RasParser
from .ras_json import RasJsonParser
from .slurm import SlurmParser
from .torch_log import TorchLogParser
from .torchrun import TorchrunParser, read_error_json
from .traceback import TracebackParser

# The NCCL prefix as grammars/nccl.lark reads it: host:pid:tid [dev], or "host [dev]" (no pid:tid), then an
# optional TRACE time and file:line (function).
_NCCL_HEAD = rb"(?:\S+:\d+:\d+ (?:\[-?\d+\] )?|[^\s:\[\]]+ \[-?\d+\] )(?:\d+\.\d+ )?(?:\S+:\d+ (?:\([^)]*\) )?)?"
# Unanchored (counted anywhere in the head). The lookbehind changes no match: where a match starts after some
# other character, one starts a character earlier too (the head's first part takes it), so findall's leftmost
# matches all start at a line start, a space or after `:[]`; it spares retrying every inner word (2.5x faster).
_NCCL_LINE = re.compile(rb"(?<![^\s:\[\]])" + _NCCL_HEAD + rb"NCCL (?:INFO|WARN|TRACE|CALL) ")
_NCCL_WHOLE_LINE = re.compile(rb"^(?:\[[^\]]+\] )?" + _NCCL_HEAD + rb"NCCL (?:INFO|WARN|TRACE|CALL) .*$", re.M)
# What _NCCL_WHOLE_LINE matches of a line before its `.*$`, matched from the line's start.
_NCCL_WHOLE_HEAD = re.compile(rb"(?:\[[^\]]+\] )?" + _NCCL_HEAD + rb"NCCL (?:INFO|WARN|TRACE|CALL) ")
_PYSPY_HEAD = re.compile(rb"^(?:\x1b\[[0-9;]*m)*Process (?:\x1b\[[0-9;]*m)*\d+(?:\x1b\[[0-9;]*m)*: ", re.M)
_PYSPY_THREAD = re.compile(rb"^(?:\x1b\[[0-9;]*m)*Thread (?:0x[0-9A-Fa-f]+|\d+) \(", re.M)
_KERNEL = re.compile(
    rb"^(?:\[\s*\d+\.\d+\] |\w{3} [ \d]\d \d\d:\d\d:\d\d \S+ kernel: |\S+T\S+ \S+ kernel: "
    rb"|\[[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \d{4}\] "            # dmesg -T
    rb"|\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[,.]\d+[+-]\d\d:?\d\d )", re.M)   # dmesg --time-format iso
_SLURM = re.compile(rb"slurmstepd(?:-\S+)?: |^srun: |^sbatch: |JobId=\d+|OOMKilled|Reason:\s+OOMKilled", re.M)
# Marks of launcher/console output that a py-spy dump never holds (its frames may say "gloo" or "ProcessGroup").
_LAUNCHER = re.compile(rb"\[rank\d+\]:|\[default\d+\]:|Traceback \(most recent call last\)|ChildFailedError|torchrun")
_CONSOLE = re.compile(
    rb"Traceback \(most recent call last\)|torch\.distributed|\[rank\d+\]:|\[default\d+\]:|ProcessGroup"
    rb"|torchrun|ChildFailedError|Fatal Python error|Current thread 0x|NCCL version|gloo"
)
# A literal that every match of _CONSOLE holds, one per alternative: where none is in a head, no match is.
_CONSOLE_WORDS = (b"Traceback (most recent call last)", b"torch.distributed", b"[rank", b"[default", b"ProcessGroup",
                  b"torchrun", b"ChildFailedError", b"Fatal Python error", b"Current thread 0x", b"NCCL version",
                  b"gloo")
_DEBUG_SECTION = re.compile(rb"^=== Rank \d+: \S+ ===$", re.M)   # torch.distributed.debug's dump_dir files
_PICKLE_STARTS = {b"\x80" + bytes([protocol]) for protocol in range(2, 6)}   # PROTO opcode, protocol 2-5


# NCCL RAS's JSON client output (ras_json.py): a report's first keys, or a monitor event's
_RAS_JSON = re.compile(rb'\A\s*\{\s*"nccl_version":\s*"[^"]*",\s*"cuda_runtime_version"'
                       rb'|"group":\s*"(?:LIFECYCLE|TRACE)",\s*"event":')
# a JSON document's first bytes: an object's first key (or its end), an array's first value (or its end)
_JSON_OPEN = re.compile(rb'\{\s*["}]|\[\s*(?:[\[{"\]\d-]|true\b|false\b|null\b)')
_SPANS_LINES = re.compile(rb":\d+ \(")      # where `_NCCL_HEAD`'s `(function)` part may open (it may cross a newline)
_TAG = re.compile(rb"NCCL (?:INFO|WARN|TRACE|CALL) ")


def nccl_lines(data: bytes, newlines: Callable[[], int] | None = None) -> tuple[int, bool]:
    """(`len(_NCCL_LINE.findall(data))`, whether every line of `data` is one `_NCCL_WHOLE_LINE` matches).
    `newlines`: what gives `data.count(b"\\n")` (Head.newlines: the sniffers share it).

    A match ends with its level tag and, where no `(function)` part can open, stays inside its line; so each line is
    cut after its last tag (lines without one dropped) and only those heads are searched, each distinct head once (a
    process repeats its prefix line after line; tests/sources/test_sniff_differential.py). A line is whole when its
    head matches from the line's start (`.*$` takes the rest)."""
    if b"NCCL " not in data:
        return 0, False
    if b"(" in data and _SPANS_LINES.search(data):     # (the one-byte search first: a rank log has no "(")
        return len(_NCCL_LINE.findall(data)), False
    one_tag = line_heads_one_tag(data)
    heads: dict[bytes, int] = one_tag if one_tag is not None else line_heads(data)
    count = sum(len(_NCCL_LINE.findall(head)) * n for head, n in heads.items())
    lines = (newlines or partial(count_newlines, data))() + (not data.endswith(b"\n"))
    return count, sum(heads.values()) == lines and all(_NCCL_WHOLE_HEAD.match(head) for head in heads)


def line_heads(data: bytes) -> dict[bytes, int]:
    """How many lines have each head: a line's text up to the end of its last level tag (lines without one left
    out)."""
    ends: dict[int, int] = {}                           # line start -> the end of its last tag
    for m in _TAG.finditer(data):
        end = m.end()
        ends[data.rfind(b"\n", 0, end) + 1] = end
    heads: dict[bytes, int] = {}
    for start, end in ends.items():
        head = data[start:end]
        heads[head] = heads.get(head, 0) + 1
    return heads


# A line's text up to its first level tag that begins a space-separated word (matched after the newline before it).
_FIRST_TAG_HEAD = re.compile(rb"\n((?:[^\n ]*+ )*?NCCL (?:INFO|WARN|TRACE|CALL) )")


def line_heads_one_tag(data: bytes) -> Counter[bytes] | None:
    """`line_heads(data)` where no line holds "NCCL " but in one tag (a per-rank log's head), found by one regex
    pass instead of a step per tag; None elsewhere. Each head holds one "NCCL " (its tag): as many heads as
    "NCCL " in `data` means that no line holds another, so each head is its line's last tag too."""
    heads = _FIRST_TAG_HEAD.findall(b"\n" + data)
    return Counter(heads) if len(heads) == data.count(b"NCCL ") else None


class Head:
    """A file's first bytes and name, with the counts several sniffers share computed once."""

    def __init__(self, name: str, data: bytes):
        self.name = name.lower()
        self.data = data
        self.stripped = data.lstrip()

    @cached_property
    def newlines(self) -> int:
        return count_newlines(self.data)

    @cached_property
    def _nccl(self) -> tuple[int, bool]:
        return nccl_lines(self.data, lambda: self.newlines)

    @property
    def nccl_lines(self) -> int:
        return self._nccl[0]

    @cached_property
    def console(self) -> bool:
        """Console marks outside NCCL's own lines (an NCCL line may name gloo or a ProcessGroup). A head made only of
        NCCL lines has none; removing NCCL's lines leaves the other lines whole, so a head without any of _CONSOLE's
        words has no mark (a per-rank NCCL log: the removal costs more than the rest of its sniff)."""
        if self._nccl[1] or not any(word in self.data for word in _CONSOLE_WORDS):
            return False
        return _CONSOLE.search(_NCCL_WHOLE_LINE.sub(b"", self.data)) is not None

    @cached_property
    def pyspy_head(self) -> bool:
        return b"Process " in self.data and _PYSPY_HEAD.search(self.data) is not None   # its words, found first

    @cached_property
    def binary(self) -> bool:
        return b"\x00" in self.data

    @property
    def json(self) -> bool:
        """The head opens a JSON document: `{` then a key or `}`, or `[` then a value or `]`. A console log whose
        first line opens with a bracketed tag (`[INFO] ...`, `[rank0]:`, `[E ProcessGroupNCCL.cpp:...]`) is not
        one, even where it quotes a JSON document further down (torchelastic's error_handler prints its error
        file's JSON into the console)."""
        return _JSON_OPEN.match(self.stripped) is not None

    def has(self, *keys: bytes) -> bool:
        return any(key in self.data for key in keys)


@dataclass(frozen=True)
class Format:
    """One evidence format. `sniff(head)` returns why the head is this format (shown by `parse --inventory`),
    or None. Exactly one of `reader` (whole file) and `parsers` (line by line) is set, except for formats read
    elsewhere (summaries: pipeline/summary.py)."""

    kind: SourceKind
    sniff: Callable[[Head], str | None]
    reader: Callable[[Source], Iterator[Event]] | None = None
    parsers: tuple[type[LineParser], ...] = ()
    text: bool = False          # a text format: a head with NUL bytes is never one

    def line_parsers(self, source: Source) -> list[LineParser]:
        return [cls(source) for cls in self.parsers]


def _summary(head: Head) -> str | None:
    return "ncclf summary" if head.data[:4] == b"PK\x03\x04" and head.name.endswith(".ncclf") else None


def _flight_recorder(head: Head) -> str | None:
    pickle_named = head.name.endswith((".pkl", ".pickle")) and head.data[:1] in (b"\x80", b"(")
    if head.data[:2] in _PICKLE_STARTS or pickle_named:
        return "pickle"
    if head.json and head.has(b'"entries"', b'"pg_config"', b'"pg_status"'):
        return "flight-recorder JSON"
    return None


def _error_json(head: Head) -> str | None:
    # the error file is one object (torchelastic's ErrorHandler json.dump()s a dict): a head opening with an array
    # (an mpirun `[1,0]<stderr>:` tag reads as one) is a console that may print that object, not the file
    if head.stripped[:1] == b"{" and head.json and b'"message"' in head.data \
            and head.has(b'"timestamp"', b'"errorTraits"', b'"extraInfo"'):
        return "torchelastic error.json"
    return None


def _inspector(head: Head) -> str | None:
    if head.json and b'"coll_perf"' in head.data and b'"header"' in head.data:
        return "NCCL Inspector records"
    return None


def _pyspy_json(head: Head) -> str | None:
    if head.json and b'"frames"' in head.data and head.has(b'"thread_id"', b'"thread_name"'):
        return "py-spy --json"
    return None


def _debug_server(head: Head) -> str | None:
    if b"=== Rank " in head.data and _DEBUG_SECTION.search(head.data):   # its words first: a search from every
        return "torch debug-server dump (per-rank sections)"              # line start costs 0.2 ms a head
    return None


def _pyspy(head: Head) -> str | None:
    if (head.pyspy_head and _PYSPY_THREAD.search(head.data) and not head.nccl_lines
            and not _LAUNCHER.search(head.data)):
        return "py-spy dump"
    return None


def _nccl(head: Head) -> str | None:
    lines = head.nccl_lines
    if lines and lines >= 0.5 * max(1, head.newlines) and not head.console:
        return "NCCL debug log"
    return None


def _kernel(head: Head) -> str | None:
    return "kernel log" if _KERNEL.search(head.data) and not head.nccl_lines else None


def _slurm(head: Head) -> str | None:
    return "scheduler log" if _SLURM.search(head.data) and not head.nccl_lines else None


def _console(head: Head) -> str | None:
    if head.json and _RAS_JSON.search(head.data):
        return "NCCL RAS client JSON (ncclras -f json)"
    if head.nccl_lines or head.console or head.pyspy_head:
        return "console output"
    if head.name.endswith((".log", ".txt", ".out", ".err")) and _is_text(head.data):
        return "text log (no known lines in its head)"
    return None


def _is_text(data: bytes) -> bool:
    """UTF-8 text (real logs quote names and prose in any script); the head may end inside a character."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return exc.start >= len(data) - 3
    return True


# What a console can hold, in the order a line is offered (the message catalogue last: it sees what the
# others emitted).
_TEXT_CHAIN: tuple[type[LineParser], ...] = (
    TracebackParser, TorchLogParser, TorchrunParser, FaulthandlerParser, PyspyParser, GdbParser, KernelParser,
    SlurmParser, RasParser, RasJsonParser, FrtraceParser, NccltestsParser, MessageParser,
)

FORMATS: tuple[Format, ...] = (
    Format(SourceKind.SUMMARY, _summary),
    Format(SourceKind.FLIGHT_RECORDER, _flight_recorder, reader=read_flight_recorder),
    Format(SourceKind.ERROR_JSON, _error_json, reader=read_error_json),
    Format(SourceKind.NCCL_INSPECTOR, _inspector, reader=read_inspector),
    Format(SourceKind.PYSPY_JSON, _pyspy_json, reader=read_pyspy_json),
    Format(SourceKind.DEBUG_SERVER, _debug_server, reader=read_debug_server_dump, text=True),
    Format(SourceKind.PYSPY, _pyspy, parsers=(PyspyParser, TracebackParser, FaulthandlerParser, MessageParser),
           text=True),
    Format(SourceKind.NCCL, _nccl, parsers=(NcclParser, *_TEXT_CHAIN), text=True),
    Format(SourceKind.KERNEL, _kernel, parsers=(KernelParser, SlurmParser, MessageParser), text=True),
    Format(SourceKind.SLURM, _slurm, parsers=(SlurmParser, KernelParser, NcclParser, *_TEXT_CHAIN[:3],
                                               MessageParser), text=True),
    Format(SourceKind.CONSOLE, _console, parsers=(NcclParser, *_TEXT_CHAIN), text=True),
)
BY_KIND: dict[SourceKind, Format] = {fmt.kind: fmt for fmt in FORMATS}

# control bytes no text log holds (tab, line ends, form feed and ESC, which starts a colour, are text's)
_BINARY_CONTROLS = re.compile(rb"[\x01-\x08\x0e-\x1a\x1c-\x1f\x7f]")


def _as_text(head: Head) -> Head | None:
    """The head as a text format sniffs it; None for binary data, and for a packed file (lines.packed_as), whose
    header a text sniffer could take for lines (a tar header is names and octal digits between NUL bytes)."""
    if packed_as(head.data) is not None:
        return None
    if not head.binary:
        return head
    nul_free = text_with_nuls(head.data)
    return Head(head.name, nul_free) if nul_free is not None else None


def text_with_nuls(data: bytes) -> bytes | None:
    """A head with NUL bytes that is text all the same, as the line reader reads it (lines.drop_nuls): a log whose
    blocks a crash left zero-filled, or UTF-16 text (a Windows redirect, PowerShell's `Out-File`) whose ASCII
    characters each carry a NUL. None for binary data: other control bytes, or bytes that are no UTF-8."""
    text = drop_nuls(data)
    if not text.strip() or len(_BINARY_CONTROLS.findall(text)) * 100 > len(text):
        return None
    if text.decode("utf-8", "replace").count("\ufffd") * 100 > len(text):
        return None
    return text


def whole_file(kind: SourceKind) -> bool:
    """A format read by one reader over the whole file (no line windows apply)."""
    fmt = BY_KIND.get(kind)
    return fmt is not None and fmt.reader is not None


def kind_of(name: str, data: bytes) -> tuple[SourceKind, str]:
    """The first registered format that recognises this head, and why; UNKNOWN with a reason otherwise. A text
    format sniffs the head as `_as_text` gives it, or not at all."""
    head = Head(name, data)
    text, worked_out = None, False
    for fmt in FORMATS:
        if fmt.text and not worked_out:              # at the first text format only: a dump never pays for it
            text, worked_out = _as_text(head), True
        sniffed = text if fmt.text else head
        if sniffed is None:
            return SourceKind.UNKNOWN, "binary file"
        reason = fmt.sniff(sniffed)
        if reason is not None:
            return fmt.kind, reason
    return SourceKind.UNKNOWN, "no known evidence in its first 16 KiB"
