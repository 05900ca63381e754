"""The README's pasted output is current (cog), and every command and detector is documented."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_readme_output_is_current():
    pytest.importorskip("cogapp")
    proc = subprocess.run([sys.executable, "-m", "cogapp", "--check", "README.md"], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, "README.md is stale: run `cog -r README.md`\\n" + proc.stdout + proc.stderr


def test_every_command_is_in_the_readme():
    from nccl_forensics.cli import COMMANDS
    readme = (ROOT / "README.md").read_text()
    for name in COMMANDS:
        assert f"ncclf {name}" in readme, name


def test_every_detector_is_in_the_readme():
    from nccl_forensics.detectors import REGISTRY
    readme = (ROOT / "README.md").read_text()
    for entry in REGISTRY:
        code = getattr(entry, "code", None) or entry[0]
        assert code in readme, code
