"""Data flows one way: sources → engines → diagnosis (map, timelines) → detectors → verdict → reduce → outputs.

A module may import from its own stage and earlier stages only; `model`/`errors` are shared by all. No
module-level import cycle anywhere in the package, and `import nccl_forensics` loads no pandas.
"""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[1] / "nccl_forensics"

# module-name prefix → stage; the longest matching prefix decides. A module may only import modules of a
# stage ≤ its own.
STAGES = {
    "model": 0, "errors": 0, "scenarios": 0, "limits": 0, "hygiene": 0, "files": 0,
    "sources": 1,
    "engines": 2,
    "diagnosis.timeline": 3, "diagnosis.divergence": 3, "diagnosis.map": 3, "diagnosis.rank_state": 3,
    "diagnosis.world": 3, "diagnosis.fr_semantics": 3, "diagnosis.groups": 3, "diagnosis.arrivals": 3,
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


def test_no_import_cycle_between_modules():
    known = {_module_name(p) for p in MODULES}
    graph = {}
    for path in MODULES:
        name = _module_name(path)
        graph[name] = {m for m in _imports(path, top_level_only=True) if m in known and m != name}
    cycle = _find_cycle(graph)
    assert cycle is None, "import cycle: " + " → ".join(cycle)


def _find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def test_the_cycle_finder_finds_a_cycle():
    assert _find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _find_cycle({"a": {"b"}, "b": set()}) is None


def test_importing_the_package_loads_no_pandas():
    code = "import sys, nccl_forensics; print(sorted(m for m in sys.modules if m.split('.')[0] in ('pandas', 'numpy')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_the_public_api_loads_on_first_use():
    import nccl_forensics
    from nccl_forensics.diagnosis.reduce import diagnose
    assert nccl_forensics.diagnose is diagnose
    assert callable(nccl_forensics.parse_paths) and callable(nccl_forensics.topology_from_paths)


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PKG)))
def test_only_the_reproducer_side_imports_torch(path):
    parts = set(path.relative_to(PKG).with_suffix("").parts)
    if parts & TORCH_ALLOWED:
        return
    top_level = [n for n in ast.parse(path.read_text()).body if isinstance(n, (ast.Import, ast.ImportFrom))]
    names = [a.name for n in top_level if isinstance(n, ast.Import) for a in n.names]
    names += [n.module or "" for n in top_level if isinstance(n, ast.ImportFrom)]
    assert not any(name == "torch" or name.startswith("torch.") for name in names), path
