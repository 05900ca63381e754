"""The packages are the layers, and data flows one way through them:

    sources (read) → diagnosis (analysis) → detectors → pipeline (map/reduce, engines) → outputs → cli

with the side packages in their place: capture (live jobs) above sources, topo (the topology model and
checks) and bandwidth beside the analysis, repro and the reproducers above the pipeline. A module may import
from its own stage and earlier ones only (function-level imports too: no lazy-import exception), every module
of the package has a stage, no module-level import cycle anywhere, and `import nccl_forensics` loads no pandas.
"""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "nccl_forensics"
REPRODUCERS = ROOT / "reproducers"       # installed as nccl_forensics.reproducers (setup.cfg package_dir)

# module-name prefix → stage; the longest matching prefix decides. A module may only import modules of a
# stage ≤ its own.
STAGES = {
    "": 0, "model": 0, "errors": 0, "scenarios": 0, "codes": 0, "grammars": 0, "limits": 0, "hygiene": 0, "files": 0, "signals": 0, "libc": 0,
    "sources": 1,
    "capture": 2,
    "diagnosis": 3, "topo": 3, "bandwidth": 3,
    "detectors": 4,
    "pipeline": 5,
    "repro": 6, "reproducers": 6,
    "outputs": 7,
    "cli": 8, "__main__": 8,
}
# Modules that must not import torch (only the reproducer side and the probe worker may).
TORCH_ALLOWED = {"repro", "probe_worker", "reproducers"}


def _stage(module: str) -> str | None:
    parts = module.split(".") if module else []
    for i in range(len(parts), -1, -1):
        head = ".".join(parts[:i])
        if head in STAGES:
            return head
    return None


def _module_name(path: Path) -> str:
    if REPRODUCERS in path.parents:
        parts = ["reproducers"] + list(path.relative_to(REPRODUCERS).with_suffix("").parts)
    else:
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
                names = [f"{mod}.{a.name}".strip(".") for a in node.names]
                # `from . import submodule` depends on the submodule only (Python initialises a package before
                # any of its submodules); `from .mod import name` and `from . import attribute` on the module
                if node.module or not all(_is_module(n) for n in names):
                    out.append(mod)
                out.extend(names)
            elif node.module and node.module.startswith("nccl_forensics"):
                out.append(node.module.removeprefix("nccl_forensics").lstrip("."))
            elif node.module:
                out.append("!" + node.module)
        elif isinstance(node, ast.Import):
            out.extend("!" + a.name for a in node.names)
    return out


def _is_module(name: str) -> bool:
    parts = name.split(".")
    root = REPRODUCERS if parts[0] == "reproducers" else PKG
    rel = parts[1:] if parts[0] == "reproducers" else parts
    path = root.joinpath(*rel)
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


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


MODULES = sorted(p for folder in (PKG, REPRODUCERS) for p in folder.rglob("*.py") if "__pycache__" not in p.parts)


def _id(path: Path) -> str:
    return str(path.relative_to(ROOT))


def test_every_module_has_a_stage():
    assert [_id(p) for p in MODULES if _stage(_module_name(p)) is None] == []
    assert _stage("nccl_forensics.nothing") is not None        # the root prefix ("") is a stage: the
    assert _stage("pipeline.reduce") == "pipeline"              # longest prefix wins


@pytest.mark.parametrize("path", MODULES, ids=_id)
def test_imports_flow_one_way(path):
    own = _stage(_module_name(path))
    assert own is not None, f"{_id(path)} has no stage in STAGES"
    for imported in _imports(path):
        if imported.startswith("!"):
            continue
        target = _stage(imported)
        assert target is not None, f"{_id(path)} imports {imported}, which has no stage"
        assert STAGES[target] <= STAGES[own], f"{_id(path)} ({own}) imports {imported} ({target})"


def test_a_package_holds_no_lazy_import_dodge():
    """A package's __init__ that resolves names on first use (module __getattr__) hides an upward import from
    the checks above; only the root's public API (nccl_forensics.diagnose & co.) may, and it names modules."""
    for path in MODULES:
        if path.name == "__init__.py" and path.parent != PKG:
            assert "def __getattr__" not in path.read_text(), _id(path)


def test_the_root_api_names_modules_of_their_own_layer():
    import nccl_forensics
    for name, module in nccl_forensics._API.items():
        assert _stage(module.removeprefix("nccl_forensics.")) in ("pipeline", "topo"), (name, module)


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
    from nccl_forensics.pipeline.reduce import diagnose
    assert nccl_forensics.diagnose is diagnose
    assert callable(nccl_forensics.parse_paths) and callable(nccl_forensics.topology_from_paths)


@pytest.mark.parametrize("path", MODULES, ids=_id)
def test_only_the_reproducer_side_imports_torch(path):
    parts = set(_module_name(path).split(".")) | {path.stem}
    if parts & TORCH_ALLOWED:
        return
    top_level = [n for n in ast.parse(path.read_text()).body if isinstance(n, (ast.Import, ast.ImportFrom))]
    names = [a.name for n in top_level if isinstance(n, ast.Import) for a in n.names]
    names += [n.module or "" for n in top_level if isinstance(n, ast.ImportFrom)]
    assert not any(name == "torch" or name.startswith("torch.") for name in names), path


def test_parsing_text_loads_neither_numpy_nor_pandas(tmp_path):
    """`ncclf parse` of text logs runs without numpy (a flight-recorder dump's reader loads it when it runs), on
    blocks of COLL lines too."""
    log = tmp_path / "nccl.node-1.4100.log"
    coll = ("node-1:4100:4100 [0] NCCL INFO AllReduce: opCount {:x} sendbuff 0x7f00 recvbuff 0x7f00 count 1024 "
            "datatype 7 op 0 root 0 comm 0x55d0 [nranks=2] stream 0x55e0\n")
    log.write_text("node-1:4100:4100 [0] NCCL INFO NCCL version 2.21.5+cuda12.4\n"
                   + "".join(coll.format(n) for n in range(2000)))
    code = ("import sys\nfrom nccl_forensics.cli import main\ntry:\n    main(['parse', '-q', '--format', 'jsonl', "
            f"{str(log)!r}])\nexcept SystemExit:\n    pass\n"
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'pandas', 'numpy'}), file=sys.stderr)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert proc.stderr.strip().splitlines()[-1] == "[]" and '"nccl_version"' in proc.stdout


def test_the_map_side_loads_neither_pandas_nor_the_detectors():
    """What a worker runs (map.sniff_and_digest) and the map step (read.pool_for, read.summarize) import no pandas and
    no detector: `ncclf summarize` runs without them, and the CLI starts the
    workers, then loads those while they warm up, and a worker forked from it never imports them itself."""
    code = ("import sys\nfrom nccl_forensics.pipeline.map import sniff_and_digest\n"
            "from nccl_forensics.pipeline.read import pool_for, summarize\n"
            "print(sorted({m for m in sys.modules if m.split('.')[0] == 'pandas' or '.detectors' in m"
            " or m.endswith('pipeline.reduce')}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
