"""paths → Sources. The kind is sniffed from each file's first kilobytes; the name is only a hint.

Discovery never reads a whole file. Rank, host and pid hints come from the name and the torchrun
`--log-dir` layout (`<run>/attempt_N/<local_rank>/{stdout,stderr}.log`); content-based recovery happens
after parsing (ranks.py).
"""
from __future__ import annotations

import os
import re
import stat
from typing import Callable, Iterable, Iterator

from ..errors import BadInput, NoEvidence
from ..model import Source, SourceKind
from .capture_manifest import apply_capture_manifests
from .formats import kind_of
from .lines import packed_as, read_head_gzip

_RANK_IN_NAME = [   # at most 9 digits: a longer number is no rank (and would overflow the timeline's int64)
    re.compile(r"(?:^|[^a-z])rank[_\-.]?(\d{1,9})(?!\d)", re.I),   # rank3.log, nccl_trace_rank_3, fr_rank-3
    re.compile(r"(?:^|[^a-z])r(\d{1,9})\.(?:log|txt|out|err)$", re.I),
]
_PID_IN_NAME = re.compile(r"(?:stack|pyspy|py-spy|dump|pid)[_\-.](?:(?P<host>[A-Za-z][\w.]*?)-)?(?P<pid>\d{2,8})(?!\d)", re.I)
_NCCL_FILE_NAME = re.compile(r"nccl[\w.-]*?\.(?P<host>[A-Za-z][\w-]*)\.(?P<pid>\d+)", re.I)
# torch's own dump names (TORCH_NCCL_DEBUG_INFO_TEMP_FILE's default prefix; TORCH_FR_DUMP_TEMP_FILE's from 2.9):
# torch writes a dump in one write, so an empty one is a rank stopped between opening and writing it.
_FR_DUMP_NAME = re.compile(r"(?:nccl|comm_lib)_trace_rank_")
_LOGDIR_LOCAL = re.compile(r"attempt_\d+[/\\](\d{1,9})[/\\](?:stdout|stderr)\.log$|attempt_\d+[/\\](\d{1,9})[/\\]error\.json$")
# never evidence, whatever they hold (a checkpoint is a zip archive, a wheel too)
_SKIP_SUFFIXES = {".png", ".jpg", ".svg", ".so", ".pt", ".pth", ".ckpt", ".safetensors", ".npz", ".bin", ".whl",
                  ".md", ".py", ".html"}

def discover(paths: Iterable[str], sniff_all: Callable[[list[str]], Iterable[Source]] | None = None,
             files: list[str] | None = None) -> list[Source]:
    """Expand files and directories (recursively) into sniffed Sources, sorted by path. `sniff_all` maps `sniff`
    over a list of files, in order (the pipeline's process pool for thousands of files); by default one by one.
    `files`: `list_files(paths)` when the caller has it already.

    Raises BadInput for a missing path and NoEvidence when nothing readable was found.
    """
    sources = list((sniff_all or _sniff_each)(list_files(paths) if files is None else files))
    apply_capture_manifests(sources)      # an `ncclf capture` bundle: host and ranks its files cannot name
    return sorted(sources, key=lambda s: s.path)


def list_files(paths: Iterable[str]) -> list[str]:
    """Every file under `paths` (discover's first step): BadInput for a missing path, NoEvidence for none."""
    paths = list(paths)
    gone = next((path for path in paths if not os.path.exists(path)), None)
    if gone is not None:
        raise BadInput(f"{gone}: no such file or directory")
    files = list(iter_files(paths))
    if not files:
        raise NoEvidence(f"{', '.join(map(str, paths))}: no files found")
    return files


def iter_files(paths: Iterable[str]) -> Iterator[str]:
    """The files under `paths` as list_files finds them, lazily (a missing path gives none: list_files says so)."""
    for path in paths:
        if os.path.exists(path):
            yield from _expand(path)


def _sniff_each(files: list[str]) -> list[Source]:
    return list(map(sniff, files))


def evidence_sources(sources: list[Source]) -> list[Source]:
    return [s for s in sources if s.kind is not SourceKind.UNKNOWN]


def _expand(path: str) -> Iterator[str]:
    """Files under `path`, sorted, following symlinked folders (the usual way to gather nodes' logs) but never
    the same real folder twice (a link back up the tree would loop)."""
    if not os.path.isdir(path):
        yield path
        return
    seen: set[str] = set()
    for root, dirs, files in os.walk(path, followlinks=True):
        real = os.path.realpath(root)
        if real in seen:
            dirs[:] = []
            continue
        seen.add(real)
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "__pycache__")
        for name in sorted(files):
            if not name.startswith("."):
                yield os.path.join(root, name)


def sniff(path: str) -> Source:
    """Decide one file's kind from its head; non-evidence files become UNKNOWN. A file that exists but cannot
    be read keeps its `error`: it is an evidence gap of its rank, not silence."""
    src = Source(path=path, kind=SourceKind.UNKNOWN)
    _hints_from_name(src)
    try:
        st = os.stat(path)
    except OSError as exc:
        src.reason = src.error = f"{path}: cannot read ({exc.strerror or exc})"
        return src
    if not stat.S_ISREG(st.st_mode):                 # a FIFO would block the read; a device is no log
        src.reason = "not a regular file"
        return src
    src.size = st.st_size
    if os.path.splitext(path)[1].lower() in _SKIP_SUFFIXES:
        src.reason = "not evidence (file type)"
        return src
    if src.size == 0:
        src.reason = "empty file"
        if _FR_DUMP_NAME.match(os.path.basename(path)):
            src.error = f"{path}: truncated: an empty flight-recorder dump (its rank stopped while writing it)"
        return src
    try:
        head, src.compressed = read_head_gzip(path, 16384)
    except BadInput as exc:
        src.reason = src.error = str(exc)
        return src
    src.kind, src.reason = kind_of(os.path.basename(path), head)
    packed = packed_as(head) if src.kind is SourceKind.UNKNOWN else None    # a summary is a zip ncclf reads
    if packed is not None:          # it may hold any rank's log: a gap, not silence
        src.reason = src.error = f"{path}: {packed}, which ncclf does not read (unpack it and give its files)"
    return src


def _hints_from_name(src: Source) -> None:
    norm = src.path.replace("\\", "/")
    m = _LOGDIR_LOCAL.search(norm)
    if m:
        src.local_rank = int(m.group(1) or m.group(2))
    base = os.path.basename(norm)
    for pattern in _RANK_IN_NAME:
        m = pattern.search(base)
        if m:
            src.rank = int(m.group(1))
            break
    m = _NCCL_FILE_NAME.search(base)
    if m:
        src.host, src.pid = m.group("host"), int(m.group("pid"))
    else:
        m = _PID_IN_NAME.search(base)
        if m:
            src.pid = int(m.group("pid"))
            src.host = m.group("host") or src.host


