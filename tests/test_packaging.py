"""The grammars ship as package data; the README's commands are the ones CI runs; every command has help."""
from __future__ import annotations

import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from nccl_forensics.cli import COMMANDS, cli
from nccl_forensics.sources.grammars import grammar_dir

ROOT = Path(__file__).resolve().parents[1]


def test_the_package_is_a_regular_package():
    """An implicit namespace package would merge a second checkout's `nccl_forensics/` (say, the current
    directory) into the installed one, module by module."""
    import nccl_forensics
    assert nccl_forensics.__file__ and Path(nccl_forensics.__file__).name == "__init__.py"


def test_every_grammar_file_is_found_by_the_loader():
    names = {p.name for p in (ROOT / "grammars").glob("*.lark")}
    assert names, "no grammars found"
    assert names <= {p.name for p in grammar_dir().glob("*.lark")}


@pytest.mark.slow
def test_a_non_editable_wheel_contains_the_grammars_and_reproducers(tmp_path):
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                    "-w", str(tmp_path), str(ROOT)], check=True, timeout=300)
    wheel = next(tmp_path.glob("nccl_forensics-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    for grammar in (ROOT / "grammars").glob("*.lark"):
        assert f"nccl_forensics/grammars/{grammar.name}" in names
    assert any(n.startswith("nccl_forensics/reproducers/") and n.endswith(".py") for n in names)


def _readme_block(heading: str) -> list[str]:
    text = (ROOT / "README.md").read_text()
    section = text.split(f"## {heading}", 1)[1]
    block = re.search(r"```(?:bash|sh)\n(.*?)```", section, re.S).group(1)
    return [line for line in block.splitlines() if line.strip() and not line.startswith("#")]


def test_ci_runs_the_readme_install_and_test_commands():
    ci = (ROOT / ".ci" / "run").read_text()
    for heading in ("Install", "Test"):
        for command in _readme_block(heading):
            assert command in ci, f"README {heading} command not run by .ci/run: {command}"


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_command_has_help_with_an_example(name):
    if cli.get_command(None, name) is None:
        pytest.skip(f"{name} is not built yet")
    result = CliRunner().invoke(cli, [name, "--help"])
    assert result.exit_code == 0, result.output
    assert "Example" in result.output


def test_every_package_of_the_source_tree_is_listed_for_the_wheel():
    """setup.cfg names packages one by one: a new subpackage left out works in an editable install and breaks a
    plain `pip install .` (the logs-only install of the README)."""
    import configparser

    root = Path(__file__).resolve().parents[1]
    cfg = configparser.ConfigParser()
    cfg.read(root / "setup.cfg")
    listed = set(cfg["options"]["packages"].split())
    found = {".".join(p.parent.relative_to(root).parts) for p in (root / "nccl_forensics").rglob("__init__.py")}
    assert found <= listed, sorted(found - listed)
