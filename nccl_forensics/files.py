"""Opening evidence and writing outputs safely on a node other users share.

Reading: `open_regular(path)` opens without blocking (`O_NONBLOCK`) and checks on the opened descriptor that it
is a regular file, so a file swapped for a FIFO or a device after discovery is refused at once instead of
blocking the run forever or reading /dev/zero without end.

Writing: `atomic_output(path)` writes into a new temporary file beside `path` (created with `O_EXCL|O_NOFOLLOW`:
nothing planted there is opened) and renames it over `path` with `os.replace`, which replaces a planted
symbolic link itself, never the file it points to, and which leaves readers either the old file or the whole
new one (two runs writing one path: the last complete file wins, never a mix). An existing device or pipe
(`--report /dev/stdout`) is written to in place: nothing is created or renamed there.
"""
from __future__ import annotations

import contextlib
import errno
import fcntl
import io
import os
import secrets
import stat
from typing import IO, Iterator


class NotRegular(OSError):
    """The path is a FIFO, a device, a socket or a folder, not a regular file."""


def open_regular(path: str, follow: bool = True) -> io.BufferedReader:
    """`path` opened for reading, without blocking on a FIFO; NotRegular unless it is a regular file."""
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | (0 if follow else os.O_NOFOLLOW)
    fd = os.open(path, flags)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise NotRegular(errno.EINVAL, f"not a regular file ({_kind(mode)})", path)
        fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


@contextlib.contextmanager
def atomic_output(path: str | os.PathLike, binary: bool = False, encoding: str = "utf-8") -> Iterator[IO]:
    """A file object whose content becomes `path` when the block ends without an exception (see module doc)."""
    path = os.fspath(path)
    try:
        existing = os.stat(path)
    except OSError:
        existing = None
    if existing is not None and not stat.S_ISREG(existing.st_mode) and not stat.S_ISDIR(existing.st_mode):
        fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC)               # a device or a pipe: write into it
        with os.fdopen(fd, "wb" if binary else "w", encoding=None if binary else encoding) as fh:
            yield fh
        return
    folder, name = os.path.split(os.path.abspath(path))
    tmp = os.path.join(folder, f".{name}.{secrets.token_hex(6)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o666)
    try:
        with os.fdopen(fd, "wb" if binary else "w", encoding=None if binary else encoding) as fh:
            yield fh
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def write_atomic(path: str | os.PathLike, data: str | bytes) -> None:
    with atomic_output(path, binary=isinstance(data, bytes)) as fh:
        fh.write(data)


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a folder")):
        if test(mode):
            return name
    return "not a file"
