"""Load one flight-recorder dump (pickle or JSON, optionally gzipped) into plain Python data, safely.

Dumps are untrusted input: a pickle can name any importable callable and have the unpickler call it. Real dumps
(torch::jit::Pickler, protocol 2) hold only dicts, lists, tuples, str, int, float, bool and None, so:
- `_SafeUnpickler.find_class` refuses every global and `persistent_load` every persistent id, raising
  `UnsafeDump` with the refused name: nothing in the dump can run;
- a memo index far beyond the file's size is a memory bomb (the C unpickler allocates 16 bytes per index:
  one LONG_BINPUT could ask for 32 GiB; our fuzz test found this). In a one-thread process (the worker
  processes) the load runs under an address-space cap that turns such a request into MemoryError;
  elsewhere, or when the cap is hit, `_check_opcodes` first walks the opcodes and refuses any that plain
  data does not need, and any memo index beyond 2**20;
- a truncated or corrupt file raises `BadInput` with a one-line reason; files over MAX_DUMP_BYTES are refused.
The C unpickler does the decoding, so loading stays as fast as `pickle.load` (plus the walk, when it runs).
"""
from __future__ import annotations

import contextlib
import io
import json
import os
import pickle
import re
import sys
import threading
import zlib
from operator import itemgetter
from typing import TYPE_CHECKING, Any, Iterator

try:
    import resource
except ImportError:  # pragma: no cover - not a Unix
    resource = None  # type: ignore[assignment]

from ..errors import BadInput, NcclfError, UnsafeDump
from .lines import open_binary

if TYPE_CHECKING:        # numpy is imported where a dump's tail is cut: `ncclf parse` of text never loads it
    import numpy as np

MAX_DUMP_BYTES = 256 << 20   # also bounds a gzip bomb


class _Buffer:
    """A minimal file over bytes. Unlike BytesIO it has `peek`, which lets the C unpickler prefetch 128 KiB at a
    time instead of calling `read` per opcode (2.5x faster on protocol-2 dumps, which have no frames); reads
    never allocate more than what is left."""

    __slots__ = ("data", "pos")

    def __init__(self, data: bytes):
        self.data, self.pos = data, 0

    def peek(self, n: int = 1) -> bytes:
        return self.data[self.pos:self.pos + max(n, 1)]

    def read(self, n: int = -1) -> bytes:
        start = self.pos
        self.pos = len(self.data) if n is None or n < 0 else min(len(self.data), start + n)
        return self.data[start:self.pos]

    def readline(self) -> bytes:
        end = self.data.find(b"\n", self.pos)
        return self.read(-1 if end < 0 else end + 1 - self.pos)

    def readinto(self, buf) -> int:
        chunk = self.read(len(buf))
        buf[:len(chunk)] = chunk
        return len(chunk)


class _SafeUnpickler(pickle.Unpickler):
    """The C unpickler with every global and persistent id refused: only builtin containers and scalars load."""

    def find_class(self, module: str, name: str) -> Any:
        raise UnsafeDump(f"refused to unpickle global {module}.{name}: flight-recorder dumps hold only plain data")

    def persistent_load(self, pid: Any) -> Any:
        raise UnsafeDump(f"refused to unpickle persistent id {str(pid)[:60]!r}")


# Binary pickle opcodes with fixed-size arguments that plain-data dumps use (protocols 2-4). A LONG_BINPUT ('r')
# passes only with a memo index below 2**20: the C unpickler allocates 16 bytes per index up to the largest one
# it sees, so one 'r' with index 2**31 would ask for 32 GiB (a memory bomb that our fuzzing hit). A BINUNICODE
# ('X') shorter than 128 bytes is matched here too (one branch per length; sre skips a branch on its first byte),
# which keeps the walk in C for the many short strings of a dump: ~1.5x faster than leaving each to the loop.
_SHORT_STRINGS = b"|".join(re.escape(bytes([n, 0, 0, 0])) + b".{%d}" % n for n in range(128))
_PLAIN_OPS = re.compile(rb"(?:h.|r..[\x00-\x0f]\x00|[(}\]\)N\x88\x89useat\x85\x86\x87\x94012]|[qK\x80].|M..|[Jj]...."
                        rb"|G.{8}|\x95.{8}|\x8a(?:\x08.{8}|\x05.{5}|\x06.{6}|\x07.{7}|\x09.{9})"   # LONG1: ns timestamps
                        rb"|X(?:" + _SHORT_STRINGS + rb"))*+", re.S)
_SIZED_OPS = {ord("X"): 4, 0x8C: 1, 0x8D: 8, ord("B"): 4, ord("C"): 1, 0x8E: 8, 0x8A: 1, 0x8B: 4, ord("T"): 4, ord("U"): 1}
_GLOBAL_OPS = frozenset(b"c\x93io\x82\x83\x84PQ")   # globals, persistent ids: refused by name in the unpickler


def _check_opcodes(data: bytes, path: str) -> None:
    """Walk the opcodes (regex for fixed-size ones, a jump per string) before the C unpickler sees them."""
    pos, end, match = 0, len(data), _PLAIN_OPS.match
    while True:
        pos = match(data, pos).end()   # type: ignore[union-attr]  # the pattern matches the empty string
        if pos >= end:
            raise BadInput(f"{path}: truncated or corrupt pickle (no STOP opcode)")
        op = data[pos]
        width = _SIZED_OPS.get(op)
        if width:
            pos += 1 + width + int.from_bytes(data[pos + 1:pos + 1 + width], "little")
        elif op == 0x2E or op in _GLOBAL_OPS:   # STOP, or what _SafeUnpickler refuses by name
            return
        else:
            what = "a memo index too large for the file" if op == ord("r") else f"opcode {bytes([op])!r}"
            raise UnsafeDump(f"{path}: refused pickle: {what} at byte {pos}; flight-recorder dumps hold only plain data")


def load_dump(path: str) -> dict:
    """Read one dump (pickle or JSON, optionally gzipped) into plain data. Raises UnsafeDump/BadInput."""
    data = _read_bytes(path)
    if not _is_json(data):   # torch writes pickle protocol 2; anything else is refused too
        dump = _load_pickle(data, path)
    else:
        try:
            dump = json.loads(data)
        except (ValueError, RecursionError) as exc:
            raise BadInput(f"{path}: truncated or corrupt JSON ({exc})") from None
    if not isinstance(dump, dict) or not ({"entries", "pg_config", "pg_status", "version"} & dump.keys()):
        raise BadInput(f"{path}: not a flight-recorder dump (no version/pg_config/entries)")
    return dump


def _is_json(data: bytes) -> bool:
    return data.lstrip()[:1] in (b"{", b"[")


def _load_pickle(data: bytes, path: str, memo: Any = None) -> Any:
    """The C unpickler under an address-space cap when this process can take one (the cap stops a memo-index
    bomb); otherwise, or when the cap is hit, only after the opcode walk."""
    with _memory_cap(len(data)) as capped:
        if capped:
            try:
                return _unpickle(data, path, memo)
            except MemoryError:
                pass   # a bomb, or a dump that needs more: the walk decides, then nothing caps the load
    _check_opcodes(data, path)
    return _unpickle(data, path, memo)


def _unpickle(data: bytes, path: str, memo: Any = None) -> Any:
    try:
        unpickler = _SafeUnpickler(_Buffer(data))
        if memo:
            unpickler.memo = memo
        return unpickler.load()
    except UnsafeDump as exc:
        raise UnsafeDump(f"{path}: {exc}") from None
    except (NcclfError, MemoryError):
        raise
    except Exception as exc:  # noqa: BLE001 - the unpickler raises many types on corrupt input; all mean the same
        raise BadInput(f"{path}: truncated or corrupt pickle ({type(exc).__name__}: {exc})") from None


# The cap: what the process maps now, plus 512 MiB, plus 64 bytes per byte of pickle (no valid pickle
# needs more: its cheapest opcodes, one byte each, make a 56-64 byte list or dict). A bigger request (the
# memo bomb asks for 16 bytes per index) fails with MemoryError. Only for dumps up to 32 MiB, and only in
# a process with one thread (the workers), since the limit covers every thread of the process.
CAP_HEADROOM = 512 << 20
CAP_PER_BYTE = 64
CAP_MAX_DUMP = 32 << 20


@contextlib.contextmanager
def _memory_cap(size: int) -> Iterator[bool]:
    limit, old = _cap_for(size), None
    if limit is not None:
        try:
            old = resource.getrlimit(resource.RLIMIT_AS)
            resource.setrlimit(resource.RLIMIT_AS, (limit, old[1]))
        except (ValueError, OSError):
            old = None
    try:
        yield old is not None
    finally:
        if old is not None:
            resource.setrlimit(resource.RLIMIT_AS, old)


def _cap_for(size: int) -> int | None:
    if resource is None or size > CAP_MAX_DUMP or threading.active_count() != 1:
        return None
    try:
        with open("/proc/self/statm", "rb") as fh:
            mapped = int(fh.read().split()[0]) * resource.getpagesize()
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    except (OSError, ValueError, IndexError):
        return None
    limit = mapped + CAP_HEADROOM + CAP_PER_BYTE * size
    unlimited = resource.RLIM_INFINITY
    if (soft != unlimited and soft <= limit) or (hard != unlimited and hard < limit):
        return None   # already capped (or tighter): leave it be and walk
    return limit


def _read_bytes(path: str) -> bytes:
    try:
        with open_binary(path) as fh:     # a plain file: read its size (a read of the cap would allocate the cap)
            size = os.fstat(fh.fileno()).st_size if isinstance(fh, io.BufferedReader) else MAX_DUMP_BYTES
            data = fh.read(min(size, MAX_DUMP_BYTES) + 1)
    except (OSError, EOFError, zlib.error) as exc:
        raise BadInput(f"{path}: unreadable or corrupt ({exc})") from None
    if len(data) > MAX_DUMP_BYTES:
        raise BadInput(f"{path}: larger than {MAX_DUMP_BYTES >> 20} MiB, not a flight-recorder dump")
    if not data:
        raise BadInput(f"{path}: empty file")
    return data


# ---- the tail of a dump ----
# A hang is decided by each rank's last collectives; unpickling all of a ring buffer costs ~2 us an entry, 4.5 s
# for 1,024 ranks x 2,000 entries. `load_dump_tail` unpickles the dump's head (the top-level keys and the first
# HEAD_ENTRIES entries: they define the strings and frames later entries point to) spliced onto its last `tail`
# entries. Entry starts are found by their bytes (an EMPTY_DICT, a MARK, the reference to the first key); the
# splice is kept only if it proves itself: every entry a dict, their record ids consecutive over the head, the
# skipped middle and the tail (the fast path then checks each field it reads).
# What the skipped middle defined and the tail points to (a pipeline job's step-end op, first issued after the
# head) is found by its memo index: a pickler numbers its memo puts in the order it writes them, so the head is
# extended up to the entry that holds the put of the largest index the tail still misses, and loaded again. An
# index it cannot find in time loads as UNKNOWN, a tuple no field of an entry can be, so a reader that needs it
# reads the whole dump.

HEAD_ENTRIES = 64      # the first training step's collectives: what defines the op names and dtypes
HEAD_EXTENSIONS = 3    # how often the head is extended to a definition the tail misses before giving up


def splice_pays_from(head: int, tail: int) -> int:
    """The entry count from which splicing head + tail costs less than loading the whole dump: when the middle it
    skips is longer than the head. Measured per dump (fr_synth, tail 256, head 64, load + fast path; 2 cores):
    350 entries splice/whole 1.07, 450: 0.82, 500: 0.77, 700: 0.56, 1,000: 0.34, 2,000: 0.20."""
    return 2 * head + tail

MAX_MEMO_INDEX = 1 << 20


UNKNOWN_TEXT = "ncclf: defined in the skipped middle of the dump"
UNKNOWN = (UNKNOWN_TEXT,)          # what a value the tail points to but the splice never defined is like: (text, index)
_MEMO_PUT = rb"(?:q.|r....)?"
_ENTRIES_KEY = b"X\x07\x00\x00\x00entries"
_ENTRIES_OPEN = re.compile(re.escape(_ENTRIES_KEY) + _MEMO_PUT + rb"\]" + _MEMO_PUT + rb"\(", re.S)
_FIRST_KEY = re.compile(rb"\}" + _MEMO_PUT + rb"\((?:X(....)|h(.)|j(....))", re.S)


def is_unknown(value: Any) -> bool:
    """Is `value` what `load_dump_tail` leaves where the skipped middle defined something?"""
    return type(value) is tuple and len(value) == 2 and value[0] == UNKNOWN_TEXT


def load_dump_tail(path: str, tail: int, head: int = HEAD_ENTRIES) -> tuple[dict, int, int] | None:
    """(dump whose `entries` are its last `tail`, the entry number (1-based) of the first of them, the dump's
    entry count), or None when the dump is small, JSON, or not in the shape torch writes (read it whole).
    `head`: how many first entries are unpickled with the tail at least (the strings they define)."""
    data = _read_bytes(path)
    if _is_json(data):
        return None
    bounds = _entry_bounds(data, tail, head)
    if bounds is None:
        return None
    splice = _Splice(data, *bounds)
    for extended in range(splice.extend_before_load(), HEAD_EXTENSIONS + 1):
        try:
            dump, missing = splice.load(path)
        except (NcclfError, MemoryError):
            return None
        if not missing or extended == HEAD_EXTENSIONS or not splice.extend_to(max(missing)):
            break
    entries = dump.get("entries") if type(dump) is dict else None
    if entries is None or not _spliced_right(entries, tail, splice.total, splice.head):
        return None
    dump["entries"] = entries[splice.head:]
    return dump, splice.total - tail + 1, splice.total


class _Splice:
    """A dump's head (its first `head` entries, ending at `head_end`) and its tail (from `cut`), which `load`
    unpickles as one; `extend_to` moves the head's end past the put of a memo index the tail misses."""

    def __init__(self, data: bytes, marker: bytes, at: int, head: int, head_end: int, cut: int, total: int):
        self.data, self.marker, self.at, self.head, self.head_end, self.cut, self.total = \
            data, marker, at, head, head_end, cut, total
        self.refs = _tail_refs(data, cut)

    def undefined_refs(self) -> list[int]:
        """The memo indices that the tail's BINGETs and LONG_BINGETs reach and no BINPUT or LONG_BINPUT of the head
        or the tail defines, by their bytes: look-alikes can add or hide one, which only moves the head's end (a
        hidden one still loads as UNKNOWN, and `load` reports it)."""
        import numpy as np
        view = np.frombuffer(self.data, np.uint8)
        head, tail = view[:self.head_end], view[self.cut:]
        far = self.refs[self.refs >= 256]          # a set of indices as a bitmap: no Python int per index
        wanted = np.zeros(int(far[-1]) + 1 if len(far) else 256, bool)
        wanted[far] = True
        wanted[_byte_args(tail, ord("h"))] = True
        wanted[_byte_args(head, ord("q"))] = False
        wanted[_byte_args(tail, ord("q"))] = False
        if wanted[256:].any():
            for defined in (_long_args(head, ord("r")), _long_args(tail, ord("r"))):
                wanted[defined[defined < len(wanted)]] = False
        return np.flatnonzero(wanted).tolist()

    def extend_before_load(self) -> int:
        """Extend the head to the largest index the tail misses (of the last few), found by bytes before any load:
        one load instead of two. 1 if it was (one of the HEAD_EXTENSIONS), else 0."""
        if not HEAD_EXTENSIONS:
            return 0
        return int(any(self.extend_to(index) for index in self.undefined_refs()[:-9:-1]))

    def load(self, path: str) -> tuple[Any, list[int]]:
        """(the spliced dump, the memo indices its values point to that neither head nor tail defined). Each
        index the tail may point to starts as its own UNKNOWN, `(UNKNOWN_TEXT, index)`, in the memo; those the
        loaded dump holds, once the unpickler is gone, are the ones it points to (CPython counts references)."""
        unknowns, memo = _unknowns(self.refs)
        dump = _load_pickle(self.data[:self.head_end] + self.data[self.cut:], path, memo)
        del memo                      # and with it the unpickler that built it
        held = 3                      # `unknowns`, the loop variable and getrefcount's argument
        return dump, [u[1] for u in unknowns if sys.getrefcount(u) > held]

    def extend_to(self, index: int) -> bool:
        """Extend the head to the end of the entry holding the memo put of `index`; False when it is not found
        in the skipped middle (a put's bytes may look alike elsewhere: the next load then still misses it)."""
        put = b"q" + bytes([index]) if index < 256 else b"r" + index.to_bytes(4, "little")
        found = self.data.find(put, self.head_end, self.cut)
        after = self.data.find(self.marker, found + len(put), self.cut) if found >= 0 else -1
        start = _dict_start(self.data, after) if after > 0 else None
        if start is None or start <= self.head_end:
            return False
        self.head += self.data.count(self.marker, self.at, after)
        self.at, self.head_end = after, start
        return True


def _entry_bounds(data: bytes, tail: int, head: int = HEAD_ENTRIES) -> tuple | None:
    """(the entry-start marker, where entry `head`'s marker is, `head`, where that entry starts, where the last
    `tail` entries start, how many entries), or None for a dump too small to be worth it. An entry after the
    first starts with an EMPTY_DICT, maybe a memo put, then a MARK and a reference to the first entry's first
    key; the reference (with its MARK) is counted and found with bytes methods. A look-alike elsewhere makes the
    count wrong, which the record ids then show."""
    opened = _entries_open(data)
    first = _FIRST_KEY.match(data, opened.end()) if opened else None
    index = _first_key_index(data, first) if first else None
    if index is None or first is None:
        return None
    marker = b"(" + (b"h" + bytes([index]) if index < 256 else b"j" + index.to_bytes(4, "little"))
    starts = _marks(data, marker, first.end())
    total = 1 + len(starts)
    if total <= splice_pays_from(head, tail):
        return None
    at, cut = int(starts[head - 1]), int(starts[-tail])
    head_end, cut_start = _dict_start(data, at), _dict_start(data, cut)
    if head_end is None or cut_start is None:
        return None
    return marker, at, head, head_end, cut_start, total


def _entries_open(data: bytes) -> re.Match | None:
    """`_ENTRIES_OPEN.search(data)`, its literal found by bytes.find (the pg_config before it can be 100 KB of ranks
    text: 5x faster than the regex's own scan)."""
    at = data.find(_ENTRIES_KEY)
    while at >= 0:
        opened = _ENTRIES_OPEN.match(data, at)
        if opened:
            return opened
        at = data.find(_ENTRIES_KEY, at + 1)
    return None


def _marks(data: bytes, marker: bytes, start: int) -> np.ndarray:
    """Where `marker` occurs from `start` on, without overlaps (as bytes.count counts): numpy compares every byte
    with its first byte, then the candidates with the rest (3x faster than a find per entry)."""
    import numpy as np
    if marker[:1] in marker[1:]:                  # it could overlap itself: one find after another
        each, at = [], data.find(marker, start)
        while at >= 0:
            each.append(at)
            at = data.find(marker, at + len(marker))
        return np.array(each, np.int64)
    view = np.frombuffer(data, np.uint8)
    found = np.flatnonzero(view[start:len(data) - len(marker) + 1] == marker[0]) + start
    for offset, byte in enumerate(marker[1:], 1):
        found = found[view[found + offset] == byte]
    return found


def _first_key_index(data: bytes, first: re.Match) -> int | None:
    """The memo index of the first entry's first key: its definition's put, or the reference itself."""
    if first.group(1) is None:
        return first.group(2)[0] if first.group(2) is not None else int.from_bytes(first.group(3), "little")
    end = first.end() + int.from_bytes(first.group(1), "little")
    put = data[end:end + 5]
    return put[1] if put[:1] == b"q" and len(put) > 1 else \
        int.from_bytes(put[1:5], "little") if put[:1] == b"r" and len(put) == 5 else None


def _dict_start(data: bytes, mark: int) -> int | None:
    """Where the entry whose MARK is at `mark` starts: its EMPTY_DICT, then no memo put, a BINPUT or a LONG_BINPUT."""
    for back, put in ((1, b""), (3, b"q"), (6, b"r")):
        if mark >= back and data[mark - back] == 0x7D and data[mark - back + 1:mark - back + 1 + len(put)] == put:
            return mark - back
    return None


def _tail_refs(data: bytes, cut: int) -> np.ndarray:
    """Every memo index the tail may point to: all that a BINGET reaches (0-255), and each index after a byte `j`
    (LONG_BINGET) in the tail. Look-alikes in other opcodes' bytes cost nothing (a definition in the head or the
    tail replaces them); an index past any plain dump's is left out (a real one fails the load, and the whole
    dump is read)."""
    import numpy as np
    far = _long_args(np.frombuffer(data, np.uint8, offset=cut), ord("j"))
    far = far[far < min(MAX_MEMO_INDEX, len(data) // 2)]
    reached = np.zeros(max(256, int(far.max()) + 1 if len(far) else 0), bool)   # a sorted set, as a bitmap
    reached[:256] = True
    reached[far] = True
    return np.flatnonzero(reached)


def _byte_args(view: np.ndarray, op: int) -> np.ndarray:
    """The 1-byte argument after each byte `op` in `view` (of each opcode `op` there, and of its look-alikes)."""
    import numpy as np
    return view[np.flatnonzero(view[:-1] == op) + 1]


def _long_args(view: np.ndarray, op: int) -> np.ndarray:
    """The 4-byte little-endian argument after each byte `op` in `view` (that is, of each opcode `op` there, and
    of its look-alikes)."""
    import numpy as np
    at = np.flatnonzero(view[:-4] == op)
    return view[at + 1].astype(np.int64) | view[at + 2].astype(np.int64) << 8 \
        | view[at + 3].astype(np.int64) << 16 | view[at + 4].astype(np.int64) << 24


def _unknowns(refs: np.ndarray) -> tuple[list[tuple[str, int]], Any]:
    """(a fresh UNKNOWN for each index, a memo with each at its index), built by unpickling (the text, put past
    the last index; a MARK; per index a LONG_BINGET of the text, its int, TUPLE2 and a LONG_BINPUT; a LIST), since
    CPython (3.11-3.13) sizes a memo set from a dict by the dict's length, not its largest index."""
    import numpy as np
    text_at = (int(refs.max()) + 1).to_bytes(4, "little")
    ops = np.empty((len(refs), 16), np.uint8)
    ops[:, 0], ops[:, 1:5], ops[:, 5] = ord("j"), np.frombuffer(text_at, np.uint8), ord("J")
    ops[:, 6:10] = refs.astype("<u4").view(np.uint8).reshape(-1, 4)
    ops[:, 10], ops[:, 11] = 0x86, ord("r")
    ops[:, 12:16] = ops[:, 6:10]
    text = UNKNOWN_TEXT.encode()
    stream = b"\x80\x02X" + len(text).to_bytes(4, "little") + text + b"r" + text_at + b"0(" + ops.tobytes() + b"l."
    unpickler = _SafeUnpickler(_Buffer(stream))
    return unpickler.load(), unpickler.memo


def _spliced_right(entries: Any, tail: int, total: int, head: int = HEAD_ENTRIES) -> bool:
    """Are these the head's and the tail's entries, the record ids consecutive over the skipped middle?"""
    if type(entries) is not list or len(entries) != head + tail or set(map(type, entries)) != {dict}:
        return False
    try:
        ids = list(map(itemgetter("record_id"), entries))
    except KeyError:
        return False
    if set(map(type, ids)) != {int}:
        return False
    first = ids[0]
    return ids == list(range(first, first + head)) + list(range(first + total - tail, first + total))
