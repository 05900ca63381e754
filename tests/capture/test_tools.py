"""Helper programs are found beside the running interpreter before PATH; a missing one is a one-line error
with an install command that works (ncclf is not on PyPI)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from nccl_forensics.capture import tools
from nccl_forensics.errors import MissingTool


def fake_tool(folder: Path, name: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text("#!/bin/sh\necho fake\n")
    path.chmod(0o755)
    return path


def test_the_interpreters_folder_wins_over_path(tmp_path, monkeypatch):
    beside = fake_tool(tmp_path / "venv" / "bin", "ncclf-fake-tool")
    on_path = fake_tool(tmp_path / "elsewhere", "ncclf-fake-tool")
    monkeypatch.setattr(sys, "executable", str(tmp_path / "venv" / "bin" / "python"))
    monkeypatch.setenv("PATH", str(on_path.parent))
    assert tools.find_tool("ncclf-fake-tool") == str(beside)


def test_path_is_the_last_resort(tmp_path, monkeypatch):
    on_path = fake_tool(tmp_path / "elsewhere", "ncclf-fake-tool")
    monkeypatch.setenv("PATH", str(on_path.parent))
    assert tools.find_tool("ncclf-fake-tool") == str(on_path)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    assert tools.find_tool("ncclf-fake-tool") is None


def test_the_base_interpreters_scripts_are_searched():
    """A venv made with --system-site-packages: py-spy may live in the base interpreter's bin/."""
    base_scripts = tools._scripts(vars={"base": sys.base_prefix, "platbase": sys.base_exec_prefix})
    assert base_scripts in tools.tool_dirs()
    assert tools.tool_dirs()[0] == Path(sys.executable).parent


def test_a_missing_tool_is_one_line_naming_a_real_install_command(monkeypatch, tmp_path):
    monkeypatch.setattr(tools, "tool_dirs", list)
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(MissingTool) as err:
        tools.require_tool("py-spy", "to dump stacks")
    message = str(err.value)
    assert "\n" not in message
    assert f"{sys.executable} -m pip install py-spy" in message
    assert "[repro]" in message and "nccl-forensics[" not in message


def test_py_spy_is_found_with_a_minimal_path():
    """What `env -i PATH=/usr/bin:/bin /path/venv/bin/ncclf` sees: the lookup must not need PATH."""
    if tools.find_tool("py-spy") is None:
        pytest.skip("py-spy is not installed for this interpreter")
    code = "from nccl_forensics.capture.tools import find_tool; print(find_tool('py-spy'))"
    done = subprocess.run([sys.executable, "-c", code], env={"PATH": "/usr/bin:/bin"}, capture_output=True,
                          text=True, check=True, cwd="/")
    found = done.stdout.strip()
    assert found != "None" and os.access(found, os.X_OK)


def test_torchrun_runs_with_the_interpreter_ncclf_runs_on(monkeypatch, tmp_path):
    monkeypatch.setattr(sys, "executable", str(tmp_path / "bin" / "python"))
    command = tools.torchrun_command()
    if command[0] != sys.executable:          # torch not importable here: a torchrun found elsewhere
        assert Path(command[0]).name == "torchrun"
    else:
        assert command == [sys.executable, "-m", "torch.distributed.run"]
    own = fake_tool(tmp_path / "bin", "torchrun")
    assert tools.torchrun_command() == [str(own)]
