"""paths → Sources. The kind is sniffed from each file's first kilobytes; the name is only a hint.

Discovery never reads a whole file. Rank, host and pid hints come from the name and the torchrun
`--log-dir` layout (`<run>/attempt_N/<local_rank>/{stdout,stderr}.log`); content-based recovery happens
after parsing (ranks.py).
"""
from __future__ import annotations

import os
import re
import stat
from pathlib import Path
from typing import Iterable, Iterator

from ..errors import BadInput, NoEvidence
from ..files import open_regular
from ..model import Source, SourceKind
from .capture_manifest import apply_capture_manifests
from .lines import read_head

_RANK_IN_NAME = [   # at most 9 digits: a longer number is no rank (and would overflow the timeline's int64)
    re.compile(r"(?:^|[^a-z])rank[_\-.]?(\d{1,9})(?!\d)", re.I),   # rank3.log, nccl_trace_rank_3, fr_rank-3
    re.compile(r"(?:^|[^a-z])r(\d{1,9})\.(?:log|txt|out|err)$", re.I),
]
_PID_IN_NAME = re.compile(r"(?:stack|pyspy|py-spy|dump|pid)[_\-.](?:(?P<host>[A-Za-z][\w.]*?)-)?(?P<pid>\d{2,8})(?!\d)", re.I)
_NCCL_FILE_NAME = re.compile(r"nccl[\w.-]*?\.(?P<host>[A-Za-z][\w-]*)\.(?P<pid>\d+)", re.I)
_LOGDIR_LOCAL = re.compile(r"attempt_\d+[/\\](\d{1,9})[/\\](?:stdout|stderr)\.log$|attempt_\d+[/\\](\d{1,9})[/\\]error\.json$")
_SKIP_SUFFIXES = {".png", ".jpg", ".svg", ".so", ".pt", ".bin", ".whl", ".zip", ".tar", ".md", ".py", ".html"}

# The NCCL prefix as grammars/nccl.lark reads it: host:pid:tid [dev], or "host [dev]" (no pid:tid), then an
# optional TRACE time and file:line (function); tests/sources/test_sniff_differential.py checks the two agree.
_NCCL_HEAD = rb"(?:\S+:\d+:\d+ (?:\[-?\d+\] )?|[^\s:\[\]]+ \[-?\d+\] )(?:\d+\.\d+ )?(?:\S+:\d+ (?:\([^)]*\) )?)?"
# Unanchored (counted anywhere in the head). The lookbehind changes no match: where a match starts after some
# other character, one starts a character earlier too (the head's first part takes it), so findall's leftmost
# matches all start at a line start, a space or after `:[]`; it spares retrying every inner word (2.5x faster).
_NCCL_LINE = re.compile(rb"(?<![^\s:\[\]])" + _NCCL_HEAD + rb"NCCL (?:INFO|WARN|TRACE|CALL) ")
_NCCL_WHOLE_LINE = re.compile(rb"^(?:\[[^\]]+\] )?" + _NCCL_HEAD + rb"NCCL (?:INFO|WARN|TRACE|CALL) .*$", re.M)
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


def discover(paths: Iterable[str]) -> list[Source]:
    """Expand files and directories (recursively) into sniffed Sources, sorted by path.

    Raises BadInput for a missing path and NoEvidence when nothing readable was found.
    """
    sources: list[Source] = []
    seen_any_file = False
    for path in paths:
        if not os.path.exists(path):
            raise BadInput(f"{path}: no such file or directory")
        for file in _expand(path):
            seen_any_file = True
            sources.append(sniff(file))
    if not seen_any_file:
        raise NoEvidence(f"{', '.join(map(str, paths))}: no files found")
    apply_capture_manifests(sources)      # an `ncclf capture` bundle: host and ranks its files cannot name
    return sorted(sources, key=lambda s: s.path)


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
    if Path(path).suffix.lower() in _SKIP_SUFFIXES:
        src.reason = "not evidence (file type)"
        return src
    if src.size == 0:
        src.reason = "empty file"
        return src
    try:
        head = read_head(path, 16384)
    except BadInput as exc:
        src.reason = src.error = str(exc)
        return src
    src.compressed = _is_gzip(path)
    src.kind, src.reason = _kind_from_head(path, head)
    return src


_DEBUG_SECTION = re.compile(rb"^=== Rank \d+: \S+ ===$", re.M)   # torch.distributed.debug's dump_dir files
_PICKLE_STARTS = {b"\x80" + bytes([protocol]) for protocol in range(2, 6)}   # PROTO opcode, protocol 2-5


def _kind_from_head(path: str, head: bytes) -> tuple[SourceKind, str]:
    name = os.path.basename(path).lower()
    stripped = head.lstrip()
    if head[:4] == b"PK\x03\x04" and name.endswith(".ncclf"):
        return SourceKind.SUMMARY, "ncclf summary"
    if head[:2] in _PICKLE_STARTS or (name.endswith((".pkl", ".pickle")) and head[:1] in (b"\x80", b"(")):
        return SourceKind.FLIGHT_RECORDER, "pickle"
    if stripped[:1] in (b"{", b"["):
        if b'"entries"' in head or b'"pg_config"' in head or b'"pg_status"' in head:
            return SourceKind.FLIGHT_RECORDER, "flight-recorder JSON"
        if b'"message"' in head and (b'"timestamp"' in head or b'"errorTraits"' in head or b'"extraInfo"' in head):
            return SourceKind.ERROR_JSON, "torchelastic error.json"
        if b'"coll_perf"' in head and b'"header"' in head:
            return SourceKind.NCCL_INSPECTOR, "NCCL Inspector records"
        if b'"frames"' in head and (b'"thread_id"' in head or b'"thread_name"' in head):
            return SourceKind.PYSPY_JSON, "py-spy --json"
    if b"\x00" in head:
        return SourceKind.UNKNOWN, "binary file"
    if _DEBUG_SECTION.search(head):
        return SourceKind.DEBUG_SERVER, "torch debug-server dump (per-rank sections)"
    nccl_lines = len(_NCCL_LINE.findall(head))
    console = _CONSOLE.search(_NCCL_WHOLE_LINE.sub(b"", head)) is not None   # NCCL's own lines don't count
    if _PYSPY_HEAD.search(head) and _PYSPY_THREAD.search(head) and not nccl_lines and not _LAUNCHER.search(head):
        return SourceKind.PYSPY, "py-spy dump"
    if nccl_lines and nccl_lines >= 0.5 * max(1, head.count(b"\n")) and not console:
        return SourceKind.NCCL, "NCCL debug log"
    if _KERNEL.search(head) and not nccl_lines:
        return SourceKind.KERNEL, "kernel log"
    if _SLURM.search(head) and not nccl_lines:
        return SourceKind.SLURM, "scheduler log"
    if nccl_lines or console or _PYSPY_HEAD.search(head):
        return SourceKind.CONSOLE, "console output"
    if name.endswith((".log", ".txt", ".out", ".err")) and _is_text(head):
        return SourceKind.CONSOLE, "text log (no known lines in its head)"
    return SourceKind.UNKNOWN, "no known evidence in its first 16 KiB"


def _is_text(head: bytes) -> bool:
    """UTF-8 text (real logs quote names and prose in any script); the head may end inside a character."""
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        return exc.start >= len(head) - 3
    return True


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


def _is_gzip(path: str) -> bool:
    try:
        with open_regular(path) as fh:
            return fh.read(2) == b"\x1f\x8b"
    except OSError:
        return False
