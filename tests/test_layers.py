"""Data flows one way: discover → parse → events → timelines → detectors → verdict → render.

A module may import from its own stage and earlier stages only. `model`/`errors` are shared by all.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[1] / "nccl_forensics"

# stage → rank; a module may only import modules of rank ≤ its own.
STAGES = {
    "model": 0, "errors": 0, "scenarios": 0, "gc_pause": 0, "columns": 0,
    "parse": 1, "discover": 1,
    "ranks": 2, "parallel": 2, "collect": 2, "spool": 2,
    "timeline": 3, "divergence": 3, "digest": 3,
    "detectors": 4, "topo": 4,
    "verdict": 5,
    "diagnosis": 6,
    "render": 7,
}
# Modules that must not import torch (only the reproducer side and the probe worker may).
TORCH_ALLOWED = {"repro", "probe_worker", "reproducers"}


def _stage(module: str) -> str | None:
    head = module.split(".")[0]
    return head if head in STAGES else None


def _imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(), str(path))
    rel = path.relative_to(PKG).with_suffix("")
    package = list(rel.parts[:-1])
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)]
                mod = ".".join(base + ([node.module] if node.module else []))
                names = [mod] if node.module else [".".join(base + [a.name]) for a in node.names]
                out.extend(names)
            elif node.module and node.module.startswith("nccl_forensics"):
                out.append(node.module.removeprefix("nccl_forensics").lstrip("."))
            elif node.module:
                out.append("!" + node.module)
        elif isinstance(node, ast.Import):
            out.extend("!" + a.name for a in node.names)
    return out


MODULES = sorted(p for p in PKG.rglob("*.py") if "__pycache__" not in p.parts)


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PKG)))
def test_imports_flow_one_way(path):
    own = _stage(".".join(path.relative_to(PKG).with_suffix("").parts))
    if own is None:
        return
    for imported in _imports(path):
        if imported.startswith("!"):
            continue
        target = _stage(imported)
        if target is not None:
            assert STAGES[target] <= STAGES[own], f"{path.name} ({own}) imports {imported} ({target})"


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PKG)))
def test_only_the_reproducer_side_imports_torch(path):
    parts = set(path.relative_to(PKG).with_suffix("").parts)
    if parts & TORCH_ALLOWED:
        return
    top_level = [n for n in ast.parse(path.read_text()).body if isinstance(n, (ast.Import, ast.ImportFrom))]
    names = [a.name for n in top_level if isinstance(n, ast.Import) for a in n.names]
    names += [n.module or "" for n in top_level if isinstance(n, ast.ImportFrom)]
    assert not any(name == "torch" or name.startswith("torch.") for name in names), path
