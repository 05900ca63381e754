"""Helper programs (py-spy, torchrun, nvidia-smi…): looked up beside the running interpreter first, then on PATH.

`ncclf` is often run as `/path/to/venv/bin/ncclf` from a shell whose PATH does not hold that venv, and in a
venv made with `--system-site-packages` py-spy may live in the base interpreter's `bin/`. So the places
are, in order: the folder of `sys.executable`, the interpreter's scripts folder, the user scripts folder,
the base interpreter's scripts folder, the folder `sys.executable` resolves to, then PATH.
"""
from __future__ import annotations

import importlib.util
import os
import shutil
import site
import sys
import sysconfig
from pathlib import Path

from ..errors import MissingTool


def tool_dirs() -> list[Path]:
    """The folders searched before PATH, most specific first, without repeats."""
    base = {"base": sys.base_prefix, "platbase": sys.base_exec_prefix}
    candidates = [
        Path(sys.executable).parent,
        _scripts(),
        _scripts(scheme=f"{os.name}_user", vars={"userbase": site.getuserbase()}),
        _scripts(vars=base),
        Path(os.path.realpath(sys.executable)).parent,
    ]
    seen, dirs = set(), []
    for d in candidates:
        if d is not None and str(d) not in seen:
            seen.add(str(d))
            dirs.append(d)
    return dirs


def find_tool(name: str) -> str | None:
    """The absolute path of executable `name` (beside the interpreter first, then PATH), or None."""
    for folder in tool_dirs():
        path = folder / name
        if path.is_file() and os.access(path, os.X_OK):
            return str(path)
    return shutil.which(name)


def require_tool(name: str, purpose: str) -> str:
    """Like find_tool, but a missing tool is a one-line MissingTool error that says how to install it."""
    path = find_tool(name)
    if path is None:
        raise MissingTool(f"{name} is needed {purpose} but was found neither beside {sys.executable} nor on "
                          f"PATH; install it with: {install_hint(name)}")
    return path


def torchrun_command() -> list[str]:
    """How to start torchrun with the interpreter ncclf runs on (its workers inherit that interpreter)."""
    own = Path(sys.executable).parent / "torchrun"
    if own.is_file() and os.access(own, os.X_OK):
        return [str(own)]
    if importlib.util.find_spec("torch") is not None:
        return [sys.executable, "-m", "torch.distributed.run"]
    return [require_tool("torchrun", "to launch the job")]


def local_torchrun_command() -> list[str]:
    """torchrun for a job ncclf starts on this machine alone (probe, repro): its store listens on 127.0.0.1
    only (local_launch.py)."""
    return [sys.executable, "-m", "nccl_forensics.capture.local_launch"]


def install_hint(name: str) -> str:
    """The command that installs `name` into the interpreter ncclf runs on (ncclf itself is not on PyPI)."""
    python = sys.executable
    checkout = checkout_dir()
    extra = f"pip install -e '{checkout}[repro]'" if checkout else "pip install -e '<your ncclf checkout>[repro]'"
    if name in ("torchrun", "torch"):
        return f"`{python} -m pip install torch==2.13.0` (then `{extra}`)"
    if name == "py-spy":
        return f"`{python} -m pip install py-spy` (or `{extra}`)"
    return f"your system's package manager (`{name}` is not a Python package)"


def checkout_dir() -> str | None:
    """The source checkout ncclf is installed from (an editable install), or None."""
    root = Path(__file__).resolve().parents[2]
    return str(root) if (root / "setup.cfg").is_file() else None


def _scripts(scheme: str | None = None, vars: dict | None = None) -> Path | None:
    try:
        path = sysconfig.get_path("scripts", scheme, vars) if scheme else sysconfig.get_path("scripts", vars=vars)
    except (KeyError, AttributeError):      # a scheme this interpreter does not know
        return None
    return Path(path) if path else None
