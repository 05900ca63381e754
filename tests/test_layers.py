"""Data flows one way: sources → engines → diagnosis (map, timelines) → detectors → verdict → reduce → outputs.

A module may import from its own stage and earlier stages only; `model`/`errors` are shared by all.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[1] / "nccl_forensics"

# module-name prefix → stage; the longest matching prefix decides. A module may only import modules of a
# stage ≤ its own.
STAGES = {
    "model": 0, "errors": 0, "scenarios": 0,
    "sources": 1,
    "engines": 2,
    "diagnosis.timeline": 3, "diagnosis.divergence": 3, "diagnosis.map": 3, "diagnosis.rank_state": 3,
    "detectors": 4, "topo": 4,
    "diagnosis.verdict": 5,
    "diagnosis.reduce": 6, "diagnosis": 6,
    "outputs": 7,
}
# Modules that must not import torch (only the reproducer side and the probe worker may).
TORCH_ALLOWED = {"repro", "probe_worker", "reproducers"}


def _stage(module: str) -> str | None:
    parts = module.split(".")
    for i in range(len(parts), 0, -1):
        head = ".".join(parts[:i])
        if head in STAGES:
            return head
    return None


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PKG).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path, top_level_only: bool = False) -> list[str]:
    """Package-relative names of what `path` imports ("!name" for outside modules)."""
    tree = ast.parse(path.read_text(), str(path))
    package = _module_name(path).split(".") if path.name == "__init__.py" else \
        _module_name(path).split(".")[:-1]
    package = [p for p in package if p]
    nodes = _top_level(tree) if top_level_only else ast.walk(tree)
    out = []
    for node in nodes:
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)]
                mod = ".".join(base + ([node.module] if node.module else []))
                out.append(mod)
                out.extend(f"{mod}.{a.name}".strip(".") for a in node.names)   # `from . import x`
            elif node.module and node.module.startswith("nccl_forensics"):
                out.append(node.module.removeprefix("nccl_forensics").lstrip("."))
            elif node.module:
                out.append("!" + node.module)
        elif isinstance(node, ast.Import):
            out.extend("!" + a.name for a in node.names)
    return out


def _top_level(tree: ast.Module):
    """Import statements that run when the module is imported (TYPE_CHECKING blocks included: a cycle there
    is still a cycle in the design)."""
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        elif isinstance(node, (ast.If, ast.Try)):
            for child in ast.walk(node):
                if isinstance(child, (ast.Import, ast.ImportFrom)):
                    yield child


MODULES = sorted(p for p in PKG.rglob("*.py") if "__pycache__" not in p.parts)


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PKG)))
def test_imports_flow_one_way(path):
    own = _stage(_module_name(path))
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
