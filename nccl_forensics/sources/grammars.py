"""The one place that finds `grammars/*.lark` and builds each Lark parser once per process."""
from __future__ import annotations

import functools
from importlib import resources
from pathlib import Path

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
    """An LALR parser for `grammars/<name>.lark` (imports resolved relative to the grammar folder).

    `cache=True` keeps the built parser in the temp folder, keyed by the grammar's hash, so later runs
    (and worker processes) load it instead of rebuilding it, which also skips Lark's terminal-collision
    check (slow when `interegular` is installed; the grammar tests run that check with strict=True).
    """
    path = grammar_path(name)
    return Lark(
        path.read_text(encoding="utf-8"),
        parser="lalr",
        start=start,
        import_paths=[str(path.parent)],
        propagate_positions=False,
        maybe_placeholders=False,
        cache=True,
    )


def parse_with(name: str, transformer, text: str, start: str = "start", errors: tuple = ()):
    """Parse one line with grammars/<name>.lark and transform it; None when no rule matches."""
    try:
        return transformer.transform(lalr(name, start).parse(text))
    except (LarkError, *errors):
        return None
