"""Open, decode and clean evidence lines: gzip, CRLF, ANSI colours, wrapper prefixes.

`iter_lines(path)` streams `Line`s; it never reads a whole file. Wrapper prefixes (what launchers add in
front of a program's own output) are stripped here and what they say (rank, host, local rank) is kept on the
`Line`. `grammars/wrappers.lark` is the reference for the wrapper shapes; `WRAPPER_RE` below is its fast
path and `tests/sources/test_wrappers_grammar.py` checks that the two agree.
"""
from __future__ import annotations

import gzip
import os
import re
import stat
import sys
import zlib
from typing import IO, Iterable, Iterator

from ..errors import BadInput
from ..files import NotRegular, open_regular
from ..hygiene import strip_escapes
from ..model import Line, split_block

MAX_LINE = 64 * 1024          # longer lines are cut here (the rest of the physical line is skipped)
_MIDDLE_CHUNK = 1 << 20       # the skipped middle of a windowed file, scanned for a failure line (middle_blocks)
_CHUNK = 1 << 18              # 256 KiB blocks: a block's text and match tuples stay near a core's L2 cache;
                              # 1 MiB blocks parsed ~15% slower, and more so with both cores busy


# One wrapper at the start of a line. Wrappers can stack (`[default0]:[rank0]:`), so this is applied in a loop.
# `[job,rank]<stderr>:` is Open MPI's --tag-output; `[rank]<stderr>:` is Horovod's own launcher (gloo, Spark, Ray:
# runner/common/util/safe_shell_exec.py forward_stream, `{asctime}[{rank}]<{stream}>:{line}`). Neither adds a space
# after the tag (orte/prrte iof_base_output.c), so an indented line (a traceback frame) keeps its indent.
# Ray's driver forwards each worker's lines under `(Actor pid=N, ip=A) ` (log_monitor; no ip for a worker on the
# driver's node): a wrapper (WRAPPER_RE) and, anywhere near a line's start, the process that printed it (ray_prefix)
RAY_TAG = r"\((?P<ray_actor>[\w.:<>-]+)\ pid=(?P<ray_pid>\d+)(?:,\ ip=(?P<ray_ip>[\w.:-]+))?\)\ "
WRAPPER_RE = re.compile(
    r"""
    (?:(?P<ompi_ts>[A-Z][a-z]{2}\ [A-Z][a-z]{2}\ [ \d]\d\ \d\d:\d\d:\d\d\ \d{4})?
        \[(?:(?P<ompi_job>\d+),)?(?P<ompi_rank>\d+)\]<(?:stdout|stderr)>:(?:\ (?!\ ))?)
    | (?:\[rank(?P<rank>\d+)\]:\ ?)
    | (?:\[RANK\ (?P<app_rank>\d+)\]\ )
    | (?:rank:\ *(?P<bar_rank>\d+)\ *\|\ ?)
    | (?:\[(?P<role>[A-Za-z_][A-Za-z_-]*?)(?P<local_rank>\d+)\]:\ ?)
    | (?:\[[A-Za-z_][\w-]*?\d+\|(?P<bar_local>\d+)\]:\ ?)
    | (?:(?P<stream_host>[A-Za-z0-9][\w.-]*)\ \[(?:stdout|stderr)\]\ )
    | (?:(?:stdout|stderr):\ |>\ ?(?=\S))
    | (?:\[(?P<plain_rank>\d+)\]\ )
    | (?:""" + RAY_TAG + r""")
    | (?:\ +(?=\[rank\d+\]:|\[[A-Za-z_][A-Za-z_-]*?\d+\]:))
    """,
    re.X,
)

# A host prefix (`pdsh`/`clush`: `node7: `, `srun --label`: `3: `) is only stripped when what follows is
# recognisably a program line, because `RuntimeError: boom` has the same shape (DeepSpeed's logger, which its pdsh
# runner's lines carry: `[2024-03-01 10:00:02,000] [INFO] [launch.py:163:main] `). A C++ abort's lines are program
# lines too: libstdc++'s verbose terminate handler (`terminate called after throwing an instance of 'X'`, then
# `  what():  ` and the message), c10::Error's backtrace (`Exception raised from f at file:line`, `frame #N: `) and
# abseil's failure signal handler (`*** SIGSEGV received at time=N on cpu C ***`, then `PC: @ 0x...`).
_ABORT_LINE = (r"terminate called after throwing | *what\(\): |frame #\d+: |Exception raised from "
               r"|\*\*\* SIG[A-Z]+ received at time=|PC: @ ")
HOST_PREFIX_RE = re.compile(r"(?P<host>[A-Za-z0-9][\w.-]*): (?=\S+:\d+:\d+ |\[rank\d+\]:|\[default\d+\]:|Traceback |\[E\d{4} |\[W\d{4} |\[I\d{4} "
                            r"|\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+\] \[[A-Z]+\] \[\w+\.py:\d+:|" + _ABORT_LINE + ")")
SRUN_LABEL_RE = re.compile(r"(?P<label>\d{1,6}): (?=\S+:\d+:\d+ |Traceback |\[rank\d+\]:|\[E\d{4} |\[W\d{4} |"
                           + _ABORT_LINE + ")")
# A leading log timestamp (Python logging, ISO) is stripped only before an NCCL prefix or a rank wrapper; one in
# brackets (a log collector's `[2025-05-10 00:18:21] `) only before a rank wrapper or a Ray actor's prefix, since NCCL
# 2.2x prints its own timestamp in brackets before its prefix (NCCL_DEBUG_TIMESTAMP_FORMAT).
LEADING_TS_RE = re.compile(
    r" *(?:(?P<ts>\d{4}-\d\d-\d\d[T ]\d\d:\d\d(?::\d\d(?:[.,]\d+)?)?(?:Z|[+-]\d\d:?\d\d)?)"
    r"(?:\s+-\s+[A-Z]+\s+-)?\s+(?=\S+:\d+:\d+ (?:\[\d+\] )?(?:\S+:\d+ )?NCCL |\[rank\d+\]:|\[default\d+\]:)"
    r"|\[(?P<bracket_ts>\d{4}-\d\d-\d\d[T ]\d\d:\d\d(?::\d\d(?:[.,]\d+)?)?)\]\s+"
    r"(?=\[rank\d+\]:|\[default\d+\]:|\([\w.:<>-]+ pid=\d+[,)]))"
)


# Ray's tag after a line's start, a space, a bracket or a colour code's `m`
_RAY_PREFIX_RE = re.compile(r"(?:^|[\s\]m])" + RAY_TAG)


def ray_prefix(text: str) -> tuple[int, str | None] | None:
    """The process id and node ip Ray's log prefix gives a line a Ray worker printed (no ip for a worker on the
    driver's own node); None for a line without one."""
    m = _RAY_PREFIX_RE.search(text, 0, 160)
    return (int(m.group("ray_pid")), m.group("ray_ip")) if m is not None else None


def open_binary(path: str) -> IO[bytes]:
    """Open a file for streaming, transparently gunzipping `.gz` (sniffed by magic, not name). Only a regular
    file is read (a FIFO or a device swapped in after discovery is refused at once, files.open_regular)."""
    try:
        raw = open_regular(path)
    except NotRegular as exc:
        raise BadInput(f"{path}: {exc.strerror}") from None
    except FileNotFoundError:
        raise BadInput(f"{path}: no such file") from None
    except IsADirectoryError:
        raise BadInput(f"{path}: is a directory") from None
    except OSError as exc:
        raise BadInput(f"{path}: cannot read ({exc.strerror or exc})") from None
    head = raw.peek(2)[:2] if hasattr(raw, "peek") else b""
    if head == GZIP_MAGIC:
        return gzip.GzipFile(fileobj=raw)  # type: ignore[return-value]
    return raw


GZIP_MAGIC = b"\x1f\x8b"
# packed files ncclf cannot open (their formats' magic numbers): any of them may hold a rank's log
_PACKED = re.compile(rb"(?P<bzip2>BZh[1-9](?:1AY&SY|\x17rE8P))|(?P<xz>\xfd7zXZ\x00)|(?P<zstd>\x28\xb5\x2f\xfd)"
                     rb"|(?P<lz4>\x04\x22\x4d\x18)|(?P<zip>PK\x03\x04|PK\x05\x06)|(?P<sevenzip>7z\xbc\xaf\x27\x1c)"
                     rb"|(?P<rar>Rar!\x1a\x07)|.{257}(?P<tar>ustar)", re.S)
_PACKED_AS = {"bzip2": "bzip2-compressed", "xz": "xz-compressed", "zstd": "zstd-compressed", "lz4": "lz4-compressed",
              "zip": "a zip archive", "sevenzip": "a 7-Zip archive", "rar": "a RAR archive", "tar": "a tar archive"}


def packed_as(head: bytes) -> str | None:
    """What packs a file whose (gunzipped) head this is, where ncclf cannot read it: an archive or a compression
    other than gzip. None for anything else."""
    m = _PACKED.match(head)
    return _PACKED_AS[m.lastgroup] if m is not None and m.lastgroup else None


def read_raw_head(path: str, size: int) -> bytes | None:
    """The first `size` bytes of a regular file as stored (one open and one read: discovery sniffs every file of
    a 16,384-rank job); None where it is not a regular file. OSError as os.open raises it."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)     # never blocks on a FIFO swapped in
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        parts, left = [], size
        while left > 0:
            piece = os.read(fd, left)
            if not piece:
                break
            parts.append(piece)
            left -= len(piece)
        return b"".join(parts)
    finally:
        os.close(fd)


def read_head(path: str, size: int = 8192) -> bytes:
    """The first `size` decompressed bytes (for sniffing); of a truncated gzip, what it holds before the cut.
    Errors before any byte could be read become BadInput."""
    return read_head_gzip(path, size)[0]


def read_head_gzip(path: str, size: int = 8192) -> tuple[bytes, bool]:
    """`read_head` and whether the file is a gzip (`is_gzip`), from one read of its first bytes."""
    try:
        raw = read_raw_head(path, size)
    except OSError:
        raw = None                 # the stream below says why, in its words
    if raw is not None and raw[:2] != GZIP_MAGIC:
        return raw, False
    head = b""
    try:
        with open_binary(path) as fh:
            read = _reader(fh)
            while len(head) < size:
                piece = read(size - len(head))
                if not piece:
                    break
                head += piece
    except (OSError, EOFError, zlib.error) as exc:
        if not head:
            raise BadInput(f"{path}: unreadable or corrupt ({exc})") from None
    return head, raw is not None and raw[:2] == GZIP_MAGIC


def _reader(fh: IO[bytes]):
    """`fh.read`, or for a gzip `read1`: one decompressed piece at a time. read(n) gathers several and drops
    them all when the stream turns out to be cut, which lost every line of a small truncated log."""
    return fh.read1 if isinstance(fh, gzip.GzipFile) else fh.read


def unwrap(text: str) -> tuple[str, int | None, str | None, int | None]:
    """Strip stacked wrapper prefixes. Returns (text, rank, host, local_rank)."""
    rank = host = local_rank = None
    for _ in range(6):
        first = text[:1]
        if first == "[" or first == "(" or first == " " or first == ">" or first.isalnum():
            m = WRAPPER_RE.match(text)
            if m is not None:
                g = m.group
                if g("rank") is not None:
                    rank = int(g("rank"))
                elif g("app_rank") is not None or g("bar_rank") is not None:
                    rank = int(g("app_rank") or g("bar_rank"))
                elif g("bar_local") is not None:
                    local_rank = int(g("bar_local"))
                elif g("stream_host") is not None and host is None:
                    host = g("stream_host")
                elif g("ompi_rank") is not None:
                    rank = int(g("ompi_rank"))
                elif g("local_rank") is not None:
                    local_rank = int(g("local_rank"))
                elif g("plain_rank") is not None:
                    rank = int(g("plain_rank"))
                elif g("ray_ip") is not None and host is None:
                    host = g("ray_ip")
                text = text[m.end():]
                continue
            m = SRUN_LABEL_RE.match(text) or HOST_PREFIX_RE.match(text) or LEADING_TS_RE.match(text)
            if m is not None:
                if m.lastgroup == "host" and host is None:
                    host = m.group("host")
                elif m.lastgroup == "label" and rank is None:
                    rank = int(m.group("label"))
                text = text[m.end():]
                continue
        break
    return text, rank, host, local_rank


def clean(raw: str) -> str:
    """Drop the line end, stray CRs, and every escape sequence and control character (hygiene.strip_escapes:
    colours, and what a hostile line could do to a terminal)."""
    text = raw.rstrip("\r\n")
    if "\r" in text:
        text = text.rsplit("\r", 1)[-1] or text.replace("\r", "")
    if not (text.isascii() and text.isprintable()):
        text = strip_escapes(text)
    return text


class _Gap(str):
    """The block `iter_blocks` yields between a windowed file's head and its tail: the lines after it are
    numbered from TAIL_BASE (their true numbers are counted only for the lines a report cites)."""


GAP = _Gap("")
TAIL_BASE = 10 ** 12          # line numbers from here on are "line N of the tail" (resolve_tail_line)


class HeadDone:
    """Set by a reader of a windowed file once it has what it needs from the head (the init lines are over:
    a block of nothing but COLL lines came), so that `iter_blocks` jumps to the tail at once."""
    __slots__ = ("done",)

    def __init__(self) -> None:
        self.done = False


def count_newlines(text: str | bytes) -> int:
    """`text.count("\\n")` (or b"\\n"); past a few KiB by numpy over its UTF-8 bytes (about 3x faster: the newline
    byte is never part of another character's encoding) where numpy is loaded already: `ncclf parse` of text
    never loads it (0.1 s and 12 MB at startup, for less than it saves on a 200 MB console)."""
    np = sys.modules.get("numpy")
    if len(text) < 4096 or np is None:
        return text.count("\n") if isinstance(text, str) else text.count(b"\n")
    data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    return int(np.count_nonzero(np.frombuffer(data, np.uint8) == 10))


def iter_blocks(path: str, window: tuple[int, int] | None = None, head: HeadDone | None = None) -> Iterator[str]:
    """Stream `path` (plain or gzip) as decoded blocks of whole lines, about 256 KiB each.

    Every block ends with a newline except perhaps the file's last. An unterminated run longer than
    MAX_LINE bytes is cut there (the rest of that physical line is skipped). A truncated gzip ends the
    stream with BadInput, after every whole line that could be decompressed.

    With `window` = (head bytes, tail bytes), a plain file larger than both only has its head and its tail
    read: the whole lines of the first `head` bytes, then GAP, then every line that starts in the last
    `tail` bytes. A gzip file gets the same window over its decompressed text: the stream is decompressed
    once, the middle dropped as it passes, only the last `tail` bytes kept.
    """
    fh = open_binary(path)
    read = _reader(fh)
    try:
        if window and isinstance(fh, gzip.GzipFile):
            yield from _gzip_window(read, path, window, head)
            return
        if window and _size(fh) > sum(window):
            for block in _blocks(read, path, limit=window[0]):
                yield block
                if head is not None and head.done:
                    break
            yield GAP
            fh.seek(tail_offset(fh, window[1]))
        yield from _blocks(read, path)
    finally:
        fh.close()


def _gzip_window(read, path: str, window: tuple[int, int], head: HeadDone | None) -> Iterator[str]:
    """A decompressed stream's head blocks, then (when more than `tail` bytes followed) GAP and its tail."""
    head_bytes, tail_bytes = window
    carry, taken = b"", 0
    while taken < head_bytes and not (head is not None and head.done):
        chunk = _read_chunk(read, path, min(_CHUNK, head_bytes - taken))
        if not chunk:
            break
        taken += len(chunk)
        buf = carry + chunk
        cut = buf.rfind(b"\n") + 1
        if cut == 0 and len(buf) >= MAX_LINE:
            cut = len(buf)                     # one overlong run: pass it on, _blocks cuts it at MAX_LINE
        carry = buf[cut:]
        if cut:
            yield from _blocks(_reads_once(buf[:cut]), path)
    kept, size, dropped = [carry] if carry else [], len(carry), False
    error: Exception | None = None
    try:
        while True:
            chunk = read(_CHUNK)
            if not chunk:
                break
            kept.append(chunk)
            size += len(chunk)
            while kept and size - len(kept[0]) >= tail_bytes:
                size -= len(kept.pop(0))
                dropped = True
    except (EOFError, zlib.error, OSError) as exc:
        error = exc
    data = b"".join(kept)
    if dropped and len(data) > tail_bytes:
        start = len(data) - tail_bytes
        nl = data.find(b"\n", start)
        data = data[nl + 1:] if nl >= 0 else data[start:]
    if dropped:
        yield GAP
    yield from _blocks(_reads_once(data), path)
    if error is not None:
        raise BadInput(f"{path}: truncated or corrupt ({error})") from None


def _reads_once(data: bytes):
    """A `read` over `data` in _CHUNK pieces (the shape _blocks reads)."""
    view, pos = memoryview(data), [0]

    def read(n: int) -> bytes:
        piece = bytes(view[pos[0]:pos[0] + n])
        pos[0] += len(piece)
        return piece
    return read


def _read_chunk(read, path: str, n: int) -> bytes:
    try:
        return read(n)
    except (EOFError, zlib.error, OSError) as exc:
        raise BadInput(f"{path}: truncated or corrupt ({exc})") from None


def gzip_lines_before_tail(path: str, tail: int) -> int | None:
    """Of a gzip file read with a tail window of `tail` bytes: how many lines come before its tail (the
    stream decompressed once more, counting newlines, in bounded memory)."""
    try:
        with open_binary(path) as fh:
            read = _reader(fh)
            kept, size, before = [], 0, 0
            while chunk := read(_CHUNK):
                kept.append(chunk)
                size += len(chunk)
                while kept and size - len(kept[0]) >= tail:
                    gone = kept.pop(0)
                    size -= len(gone)
                    before += gone.count(b"\n")
    except (OSError, EOFError, zlib.error, BadInput):
        return None
    data = b"".join(kept)
    if len(data) > tail:
        nl = data.find(b"\n", len(data) - tail)
        before += data[: nl + 1 if nl >= 0 else len(data) - tail].count(b"\n")
    return before


def _size(fh: IO[bytes]) -> int:
    try:
        return os.fstat(fh.fileno()).st_size
    except (OSError, AttributeError, ValueError):
        return 0


def tail_offset(fh: IO[bytes], tail: int) -> int:
    """Where the lines of the last `tail` bytes start: just after the first newline in them."""
    start = max(0, _size(fh) - tail)
    fh.seek(start)
    while True:
        chunk = fh.read(_CHUNK)
        nl = chunk.find(b"\n")
        if nl >= 0:
            return start + nl + 1
        if not chunk:
            return start
        start += len(chunk)


def middle_blocks(path: str, head_lines: int, tail: int) -> Iterator[tuple[int, bytes, int]]:
    """The lines a windowed read skipped: those after the file's first `head_lines` lines and before the lines of
    its last `tail` bytes (of a gzip: up to its end, whose size is unknown until then). Yields (the number of the
    block's first line, whole lines as bytes, how many) in blocks of about 1 MiB; a line longer than that is cut to
    MAX_LINE. A cut gzip ends the stream quietly (its read already said so)."""
    with open_binary(path) as fh:
        end = None if isinstance(fh, gzip.GzipFile) else tail_offset(fh, tail)
        fh.seek(0)
        no = 0
        for block in _whole_line_blocks(fh, end):
            lines = count_newlines(block)
            if no + lines <= head_lines:
                no += lines
                continue
            at, skipped = 0, 0
            while no + skipped < head_lines:           # the block that holds the head's end
                at = block.index(b"\n", at) + 1
                skipped += 1
            yield no + skipped + 1, block[at:], lines - skipped
            no += lines


def _whole_line_blocks(fh, end: int | None) -> Iterator[bytes]:
    """The first `end` bytes of `fh` (None: all), as blocks of whole lines of about _MIDDLE_CHUNK bytes, read into one
    reused buffer (1.9 GB/s, where a read per block into new bytes, joined to the carried partial line and cut
    again, copied each block three times: 0.9 GB/s). A partial line is carried to the next block; one longer than
    _MIDDLE_CHUNK is cut to MAX_LINE and the rest of it dropped."""
    buf = bytearray(2 * _MIDDLE_CHUNK)
    view = memoryview(buf)
    have, taken = 0, 0                                  # have: the carried bytes at the buffer's start
    while end is None or taken < end:
        want = _MIDDLE_CHUNK if end is None else min(_MIDDLE_CHUNK, end - taken)
        try:
            got = fh.readinto(view[have:have + want])
        except (EOFError, zlib.error, OSError):
            return
        if not got:
            break
        taken += got
        size = have + got
        cut = buf.rfind(b"\n", 0, size) + 1
        if size - cut >= _MIDDLE_CHUNK:                 # one overlong line: its start is enough to judge it
            yield bytes(view[:cut]) + bytes(view[cut:cut + MAX_LINE]) + b"\n"
            have = 0
            continue
        if cut:
            yield bytes(view[:cut])
        have = size - cut
        buf[:have] = bytes(view[cut:size])              # (a copy: the two ranges may overlap)


def resolve_tail_line(path: str, tail: int, line: int) -> int | None:
    """The true number of line `line` (>= TAIL_BASE) of a file read with a tail window of `tail` bytes: the
    newlines before the tail are counted (about 4 GB/s in 4 MiB reads with numpy, in bounded memory and outside
    the GIL; a file that has grown since may shift it)."""
    if is_gzip(path):
        before_tail = gzip_lines_before_tail(path, tail)
        return None if before_tail is None else before_tail + (line - TAIL_BASE)
    import numpy as np
    buf = bytearray(1 << 22)
    counts = np.frombuffer(buf, np.uint8)
    try:
        with open_regular(path) as fh:
            end = tail_offset(fh, tail)
            fh.seek(0)
            before, done = 0, 0
            while done < end:
                got = fh.readinto(memoryview(buf)[: min(len(buf), end - done)])
                if not got:
                    break
                before += int(np.count_nonzero(counts[:got] == 10))
                done += got
    except OSError:
        return None
    return before + (line - TAIL_BASE)


def read_lines(path: str, numbers: Iterable[int]) -> dict[int, str]:
    """Lines `numbers` (1-based, as the block scanner numbers them) of `path`, each as it was read (decoded the
    same way, without its newline): what a finding quotes of a file whose rows were kept without their text.
    Streams the file up to the last one asked for; a line the file no longer has (or a file that cannot be
    read) is left out."""
    wanted = sorted(n for n in set(numbers) if 1 <= n < TAIL_BASE)      # a tail window's numbers are no file's
    found: dict[int, str] = {}
    if not wanted:
        return found
    first, at = 1, 0                               # the number of the block's first line; the next one wanted
    try:
        for block in iter_blocks(path):
            count = block.count("\n") + (block[-1:] != "\n")
            if wanted[at] < first + count:
                lines = split_block(block)
                while at < len(wanted) and wanted[at] < first + count:
                    found[wanted[at]] = lines[wanted[at] - first]
                    at += 1
                if at == len(wanted):
                    break
            first += count
    except (BadInput, OSError):
        pass
    return found


def is_gzip(path: str) -> bool:
    """Is `path` a regular file that starts with gzip's magic bytes (one open, one read)?"""
    try:
        return read_raw_head(path, 2) == GZIP_MAGIC
    except OSError:
        return False


_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")


def drop_nuls(data: bytes) -> bytes:
    """`data` without its NUL bytes, which no text line holds: the zero-filled blocks a crash leaves in a log, and
    the other half of each ASCII character of UTF-16 text (whose byte-order mark goes with them)."""
    if b"\0" not in data:
        return data
    data = data.replace(b"\0", b"")
    return data[2:] if data[:2] in _UTF16_BOMS else data


def _blocks(read, path: str, limit: int | None = None) -> Iterator[str]:
    """Whole-line blocks from `read` until EOF, or until `limit` bytes (the partial line there is dropped); NUL
    bytes dropped (`drop_nuls`)."""
    carry, skipping, taken = b"", False, 0
    while limit is None or taken < limit:
        try:
            chunk = read(_CHUNK if limit is None else min(_CHUNK, limit - taken))
        except (EOFError, zlib.error, OSError) as exc:
            raise BadInput(f"{path}: truncated or corrupt ({exc})") from None
        if not chunk:
            break
        taken += len(chunk)
        if skipping:
            nl = chunk.find(b"\n")
            if nl < 0:
                continue
            chunk, skipping = chunk[nl + 1:], False
        buf = carry + chunk if carry else chunk
        cut = buf.rfind(b"\n") + 1
        block, carry = buf[:cut], buf[cut:]
        if len(carry) >= MAX_LINE:
            block, carry, skipping = block + carry[:MAX_LINE] + b"\n", b"", True
        if block:
            yield drop_nuls(block).decode("utf-8", "replace")
    if carry and limit is None:
        yield drop_nuls(carry).decode("utf-8", "replace")


def make_line(no: int, raw: str, strip_wrappers: bool = True) -> Line:
    """One physical line (without its newline) → a cleaned, unwrapped `Line`."""
    if len(raw) > MAX_LINE:
        raw = raw[:MAX_LINE]
    text = clean(raw)
    if strip_wrappers and text:
        stripped, rank, host, local_rank = unwrap(text)
        if stripped is not text:
            return Line(no, stripped, rank, host, local_rank, text)
    return Line(no, text)


def iter_lines(path: str, *, strip_wrappers: bool = True, window: tuple[int, int] | None = None) -> Iterator[Line]:
    """Stream the cleaned lines of `path` (plain or gzip); never reads the whole file.

    A truncated gzip ends the stream with BadInput; lines already yielded stay valid.
    """
    no = 0
    for block in iter_blocks(path, window):
        if block is GAP:
            no = TAIL_BASE
            continue
        for raw in split_block(block):
            no += 1
            yield make_line(no, raw, strip_wrappers)


def read_line(path: str, no: int) -> str | None:
    """Line `no` of a whole file as `read_lines` reads it; None when the file is gone, unreadable or shorter."""
    return read_lines(path, (no,)).get(no)
