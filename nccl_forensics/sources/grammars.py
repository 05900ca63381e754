"""The one place that finds `grammars/*.lark` and builds each Lark parser once per process."""
from __future__ import annotations

import functools
import hashlib
import os
import stat
import sys
from importlib import resources
from pathlib import Path

import lark
from lark import Lark, LarkError

_REPO_GRAMMARS = Path(__file__).resolve().parents[2] / "grammars"


def grammar_dir() -> Path:
    """Installed package data first (`nccl_forensics.grammars`), then the source tree's `grammars/`."""
    try:
        pkg = resources.files("nccl_forensics.grammars")
        if pkg.joinpath("nccl.lark").is_file():
            return Path(str(pkg))
    except ModuleNotFoundError:
        pass
    return _REPO_GRAMMARS


def grammar_path(name: str) -> Path:
    return grammar_dir() / f"{name}.lark"


@functools.lru_cache(maxsize=None)
def lalr(name: str, start: str = "start") -> Lark:
    """An LALR parser for `grammars/<name>.lark` (imports resolved relative to the grammar folder), built once per
    process.

    The built parser is kept in the user's own cache folder (see `cache_file`), so later runs and worker processes
    load it instead of rebuilding it (which also skips Lark's terminal-collision check, slow when `interegular` is
    installed; the grammar tests run that check with strict=True). Lark loads that file with pickle, so it is only
    used where nobody else can write it; otherwise the parser is built without a cache.
    """
    return build(name, start, cache_home())


def build(name: str, start: str, cache_root: Path | None) -> Lark:
    path = grammar_path(name)
    text = path.read_text(encoding="utf-8")
    cached = cache_file(cache_root, name, start, text) if cache_root is not None else None
    return Lark(text, parser="lalr", start=start, import_paths=[str(path.parent)], propagate_positions=False,
                maybe_placeholders=False, cache=str(cached) if cached is not None else False)


def cache_home() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "ncclf"


def cache_file(root: Path, name: str, start: str, text: str) -> Path | None:
    """Where the built parser of this grammar text may be cached, or None when no safe place exists.

    Never the shared temp folder (Lark's default): anyone who can write there could plant a pickle that runs as the
    next user of ncclf. The folder must be a real directory owned by this user with no access for others (made so
    when created), and an existing cache file must be a regular file owned by this user that nobody else can write.
    """
    try:
        root.mkdir(mode=0o700, parents=True, exist_ok=True)
        if not _private(os.lstat(root), directory=True):
            return None
        # the grammar folder is part of the key: Lark's own check of a cache file covers its import paths, so two
        # installs (or checkouts) under one HOME sharing a file would each rebuild what the other wrote, every run
        key = hashlib.sha256(f"{grammar_dir()}\0{text}\0{start}\0{lark.__version__}\0{sys.version}".encode()
                             ).hexdigest()[:24]
        path = root / f"{name}-{start}-{key}.lark-cache"
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            return path
        return path if _private(st, directory=False) else None
    except OSError:
        return None


def _private(st: os.stat_result, directory: bool) -> bool:
    kind_ok = stat.S_ISDIR(st.st_mode) if directory else stat.S_ISREG(st.st_mode)
    others = 0o077 if directory else 0o022
    return kind_ok and st.st_uid == os.getuid() and not st.st_mode & others


def parse_with(name: str, transformer, text: str, start: str = "start", errors: tuple = ()):
    """Parse one line with grammars/<name>.lark and transform it; None when no rule matches."""
    try:
        return transformer.transform(lalr(name, start).parse(text))
    except (LarkError, *errors):
        return None
