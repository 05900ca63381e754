"""The pasted output of the README and docs/tour.md is current (cog), and every command and detector is documented."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("doc", ["README.md", "docs/tour.md"])
def test_pasted_output_is_current(doc):
    pytest.importorskip("cogapp")
    proc = subprocess.run([sys.executable, "-m", "cogapp", "--check", doc], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"{doc} is stale: run `cog -r {doc}`\n" + proc.stdout + proc.stderr


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
    for line in ("pip install torch==2.13.0 && pip install -e '.[repro,test,ray]'", "python -m pytest -q -p no:cacheprovider -n auto"):
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


def _quick_start() -> list[str]:
    readme = (ROOT / "README.md").read_text()
    block = readme.split("## Quick start", 1)[1].split("```bash\n", 1)[1].split("```", 1)[0]
    return [line.split("  #", 1)[0].strip() for line in block.splitlines() if line.strip()]


def test_every_quick_start_path_exists_in_a_clone():
    import shlex
    for line in _quick_start():
        for word in shlex.split(line):
            if "/" in word and not word.startswith(("/tmp/", "-")):
                assert (ROOT / word).exists(), (line, word)


@pytest.mark.parametrize("line", [q for q in _quick_start() if q.split()[1] in ("diagnose", "parse", "topo",
                                                                                 "explain", "cost")])
def test_quick_start_lines_run_as_written_from_a_clone(line, tmp_path):
    """Run from a folder laid out as a clone (its sample_logs), so the files a line writes land there."""
    import shlex
    (tmp_path / "sample_logs").symlink_to(ROOT / "sample_logs")
    args = shlex.split(line)[1:]
    proc = subprocess.run([sys.executable, "-m", "nccl_forensics", *args], cwd=tmp_path, capture_output=True,
                          text=True, timeout=300, env={**__import__("os").environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode in (0, 1), proc.stderr
    assert "Traceback" not in proc.stderr and proc.stdout


def test_explain_examples_are_current():
    pytest.importorskip("cogapp")
    proc = subprocess.run([sys.executable, "-m", "cogapp", "--check", "nccl_forensics/cli/explain_examples.py"],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, ("explain_examples.py is stale: run `cog -r nccl_forensics/cli/explain_examples.py`"
                                  + proc.stdout + proc.stderr)


def test_every_explain_example_is_a_real_run():
    import inspect

    from nccl_forensics.cli.explain import with_real_example
    from nccl_forensics.cli.explain_examples import EXAMPLES
    from nccl_forensics.detectors import REGISTRY, detector_class
    for entry in REGISTRY:
        doc = with_real_example(inspect.cleandoc(inspect.getmodule(detector_class(entry)).__doc__ or ""), entry.code)
        for paragraph in doc.split("\n\n"):
            if paragraph.startswith("Example"):
                assert entry.code in EXAMPLES or "illustration, not a run" in paragraph, (entry.code, paragraph)
                assert "ncclf diagnose" not in paragraph or entry.code in EXAMPLES, entry.code
        if entry.code in EXAMPLES:
            sample = EXAMPLES[entry.code][0]
            assert (ROOT / sample).exists() and f"$ ncclf diagnose {sample}" in doc


def test_the_cpu_torch_line_is_a_command_not_an_ellipsis():
    readme = (ROOT / "README.md").read_text()
    assert "…/whl/cpu" not in readme
    assert "pip install torch==2.13.0 --index-url \"$TORCH_CPU_INDEX\"" in readme
