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


def test_ci_installs_with_the_readme_lines():
    readme = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text()
    for line in ("pip install torch==2.13.0 && pip install -e '.[repro,test,ray]'", "python -m pytest -q -p no:cacheprovider"):
        assert line in readme and line in ci
    assert "\npip install .\n" in readme and "\npip install .\n" in ci


def test_no_hint_names_a_package_that_is_not_published():
    offenders = [str(p.relative_to(ROOT)) for p in (ROOT / "nccl_forensics").rglob("*.py")
                 if "pip install nccl-forensics" in p.read_text()]
    assert offenders == []


def test_every_sample_path_named_in_help_or_docstrings_exists():
    import re
    named = {m.rstrip("/.") for p in (ROOT / "nccl_forensics").rglob("*.py")
             for m in re.findall(r"sample_logs/[A-Za-z0-9_./-]*[A-Za-z0-9_]", p.read_text())}
    missing = sorted(n for n in named if not (ROOT / n).exists() and n != "sample_logs/bundles/real")   # real-*/
    assert missing == []
