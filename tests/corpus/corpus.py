"""The real-world corpus (`../shared/corpus`, beside the project root): files users pasted in public issues.

Each file opens with `# source:`, `# what:` and an optional `# note:` line, and `# [gap: ...]` lines mark
cuts; they are the corpus's own, not the log's, so `stripped` drops them before ncclf reads a file. Without
`../shared` (a user's own clone) every corpus test is skipped, with that reason.
"""
from __future__ import annotations

from pathlib import Path

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus"
_HEADER = ("# source:", "# what:", "# note:")


def corpus_files(sub: str, pattern: str = "*") -> list[Path]:
    folder = CORPUS / sub
    return sorted(p for p in folder.glob(pattern) if p.is_file() and p.name != "truth.json") if folder.is_dir() else []


def header(path: Path) -> dict[str, str]:
    """The corpus header: {"source": ..., "what": ..., "note": ...}."""
    out = {}
    with open(path, encoding="utf-8", errors="replace") as fh:
        for _ in range(3):
            line = fh.readline()
            for key in _HEADER:
                if line.startswith(key):
                    out[key[2:-1]] = line[len(key):].strip()
    return out


def stripped_lines(path: Path) -> list[str]:
    """The file's own lines (line ends kept), without the corpus header and gap markers."""
    with open(path, encoding="utf-8", errors="surrogateescape", newline="") as fh:
        lines = fh.readlines()
    body = [line for i, line in enumerate(lines) if not (i < 3 and line.startswith(_HEADER))]
    return [line for line in body if not line.startswith("# [gap:")]


def stripped(path: Path, folder: Path) -> Path:
    """A copy of a corpus file in `folder` without the corpus's own lines (same name)."""
    folder.mkdir(parents=True, exist_ok=True)
    out = folder / path.name
    with open(out, "w", encoding="utf-8", errors="surrogateescape", newline="") as fh:
        fh.writelines(stripped_lines(path))
    return out

