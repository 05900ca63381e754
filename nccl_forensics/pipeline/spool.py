"""Where `ncclf parse --format jsonl|csv` writes each file's events: straight to the output, or a spool file.

The output must list the files' events in path order, whatever order the workers finish in:
- `Sink` is the final output. The parent fills it in file order: a serial scan writes to it directly, a
  parallel one copies each finished spool to it (by sendfile(2) where it can).
- `Output` is one file's side. It writes straight to the sink while it may, and spools otherwise.
- `Turn` lets a forked worker take over the output once every earlier file is in it. What it spooled so
  far goes first, and the rest of its events go straight on, so they never touch the disk. This is jsonl
  only: a csv writer would start with a second header.
Writing straight stops at the first event without a rank. From there on this file and every later one
spool, because a re-scan with other files' hints may still rewrite them.
"""
from __future__ import annotations

import codecs
import io
import multiprocessing
import os
import shutil
import tempfile
from typing import IO, AnyStr, Callable

from ..model import CollRun
from .scan_job import FileSummary, ScanJob, WriterFactory


class Sink:
    """The final output, filled in file order while every event so far had a rank: straight from a serial
    scan (`write`), or by copying each finished spool (`append`). `open` turns False for good at the first
    event without a rank; what follows waits for the re-scan and is appended at the end."""

    def __init__(self, out: IO[str], fmt: str, writer_for: WriterFactory):
        self.out, self.fmt, self.writer_for = out, fmt, writer_for
        self.open, self.header_done = True, False
        self._write: Callable[[list], None] | None = None

    def write(self, items: list) -> None:
        if self._write is None:
            self._write, self.header_done = self.writer_for(self.fmt, self.out), True   # csv: the header
        self._write(items)

    def append(self, summary: FileSummary) -> None:
        """Copy a finished spool to the output and delete it. Bytes are copied as they are when the output is a
        UTF-8 text stream with a binary buffer and plain newlines (no decoding and re-encoding), by the kernel
        when that buffer has a file descriptor."""
        spool = summary.spool
        if spool is None:                 # nothing was spooled
            return
        binary = utf8_buffer(self.out)
        self.out.flush()
        if binary is None:
            with open(spool, encoding="utf-8", newline="") as text:
                if self.fmt == "csv":
                    self._header(text.readline(), self.out)
                shutil.copyfileobj(text, self.out, 1 << 20)
        else:
            with open(spool, "rb") as raw:
                if self.fmt == "csv":
                    self._header(raw.readline(), binary)
                copy_bytes(raw, binary)
            binary.flush()
        os.unlink(spool)
        summary.spool = None

    def _header(self, header: AnyStr, out: IO[AnyStr]) -> None:
        """A csv spool's header line: to the output once, before the first rows."""
        if header and not self.header_done:
            out.write(header)
            self.header_done = True

    def finish(self) -> None:
        if self.fmt == "csv" and not self.header_done:   # no events at all: still a header
            self.write([])


class Turn:
    """Whose turn it is to write straight to the output: the index of the first file not yet in it, in memory
    the parent shares with the workers it forks (-1: nobody's, since an event without a rank)."""

    def __init__(self, fd: int):
        self.fd, self.parent = fd, os.getpid()
        self.head = multiprocessing.RawValue("i", 0)

    @classmethod
    def for_sink(cls, sink: Sink) -> Turn | None:
        """A Turn when forked workers can write to the sink's file descriptor themselves: a jsonl output that
        takes bytes as they are, and workers that inherit the descriptor (the fork start method)."""
        binary = utf8_buffer(sink.out)
        if sink.fmt != "jsonl" or binary is None or multiprocessing.get_start_method(allow_none=False) != "fork":
            return None
        try:
            fd = binary.fileno()
        except (OSError, AttributeError, ValueError, io.UnsupportedOperation):
            return None
        sink.out.flush()
        return cls(fd)

    def passed(self, done: int, still_open: bool) -> None:
        """The parent has put files 0..done-1 in the output (and flushed it)."""
        self.head.value = done if still_open else -1


forked_turn: Turn | None = None     # set by the parent around a parallel scan; forked workers inherit it


class Output:
    """One file's events: straight to the output while it may (see the module docstring), else to a spool."""

    def __init__(self, job: ScanJob, summary: FileSummary, direct: Sink | None = None, turn: Turn | None = None):
        if job.fmt is None or job.writer_for is None:
            raise ValueError("Output: the scan job names no output format")
        self.job, self.summary, self.direct = job, summary, direct if direct is not None and direct.open else None
        self.fmt, self.writer_for = job.fmt, job.writer_for
        self.fh: io.TextIOWrapper | None = None
        self.write: Callable[[list], None] | None = None
        self.skip = job.skip
        self.turn = turn if turn is not None and job.index is not None and os.getpid() != turn.parent else None
        self.spooled = 0                   # events spooled while waiting for this file's turn
        self.own: io.TextIOWrapper | None = None   # the output, once this worker writes to it itself

    def put(self, items: list) -> None:
        if self.turn is not None:
            self._maybe_take_over(items)
        if self.direct is not None:
            cut = _first_rankless(items)
            if cut is None:
                self.direct.write(items)
                self.summary.direct += count_events(items)
                return
            self.direct.write(items[:cut])
            self.summary.direct += count_events(items[:cut])
            self.direct.open, self.direct = False, None
            items = items[cut:]
        if self.skip:
            n = count_events(items)
            items, self.skip = drop_events(items, self.skip), max(0, self.skip - n)
        if self.write is None:
            fd, self.summary.spool = tempfile.mkstemp(prefix="ncclf-", suffix=f".{self.fmt}",
                                                      dir=self.job.spool_dir)
            self.fh = os.fdopen(fd, "w", encoding="utf-8", newline="")
            self.write = self.writer_for(self.fmt, self.fh)
        self.write(items)
        if self.turn is not None:          # what a take-over would count as written straight
            self.spooled += count_events(items)

    def _maybe_take_over(self, items: list) -> None:
        """On this file's turn, send what it spooled to the output and write the rest straight to it. A file
        that spools an event without a rank before its turn never takes over (the spool awaits the re-scan)."""
        turn = self.turn
        if turn is None:
            return
        if turn.head.value != self.job.index:
            if _first_rankless(items) is not None:
                self.turn = None
            return
        self.turn = None
        raw = os.fdopen(turn.fd, "wb", closefd=False)
        self.own = io.TextIOWrapper(raw, encoding="utf-8", newline="")
        if self.fh is not None and self.summary.spool is not None:
            self.fh.close()
            with open(self.summary.spool, "rb") as fh:
                copy_bytes(fh, raw)
            os.unlink(self.summary.spool)
            self.summary.spool, self.fh, self.write = None, None, None
            self.summary.direct += self.spooled
        self.direct = Sink(self.own, self.fmt, self.writer_for)

    def close(self) -> None:
        if self.fh is not None:
            self.fh.close()
        if self.own is not None:
            self.own.flush()               # all of it out before the parent hears this file is done


def _first_rankless(items: list) -> int | None:
    return next((i for i, ev in enumerate(items) if type(ev) is not CollRun and ev.rank is None), None)


def copy_bytes(src: IO[bytes], dst: IO[bytes]) -> None:
    """The rest of `src` (a file) onto `dst`: with sendfile(2), without passing through this process, when
    `dst` has a file descriptor that takes it; otherwise by reads and writes."""
    offset = src.tell()
    dst.flush()                 # what `dst` buffers goes first
    try:
        out_fd, size = dst.fileno(), os.fstat(src.fileno()).st_size
        while offset < size:
            sent = os.sendfile(out_fd, src.fileno(), offset, size - offset)
            if sent == 0:
                break
            offset += sent
    except (OSError, AttributeError, ValueError, io.UnsupportedOperation):
        pass                    # no fd, or one sendfile refuses: copy what is left the plain way
    src.seek(offset)
    shutil.copyfileobj(src, dst, 1 << 20)


def count_events(items: list) -> int:
    return sum(len(ev) if type(ev) is CollRun else 1 for ev in items)


def drop_events(items: list, n: int) -> list:
    """`items` without their first `n` events (a CollRun cut in two is expanded)."""
    out = []
    for item in items:
        size = len(item) if type(item) is CollRun else 1
        if n >= size:
            n -= size
        elif n:
            out.extend(list(item.events())[n:])
            n = 0
        else:
            out.append(item)
    return out


def utf8_buffer(out: IO[str]) -> IO[bytes] | None:
    """`out`'s binary buffer when bytes can go to it as they are (UTF-8, plain newlines); else None."""
    buffer, encoding = getattr(out, "buffer", None), getattr(out, "encoding", None)
    if buffer is None or not encoding or os.linesep != "\n":
        return None
    try:
        return buffer if codecs.lookup(encoding).name == "utf-8" else None
    except LookupError:
        return None
