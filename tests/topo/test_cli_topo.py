"""`ncclf topo`: wiring, formats, exit codes; and the factory lines read back through the real NCCL parser."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from nccl_forensics.cli import cli
from nccl_forensics.outputs.topo_render import render
from nccl_forensics.topo import build_topology, topology_from_paths

from .factories import all_events, job_logs

ROOT = Path(__file__).resolve().parents[2]
IB16 = ROOT / "sample_logs" / "nccl" / "ib-16rank-2node-2.21"


def write_logs(tmp_path: Path, logs) -> Path:
    for name, log in logs.items():
        (tmp_path / name).write_text("\n".join(log.lines) + "\n", encoding="utf-8")
    return tmp_path


def invoke(*args):
    return CliRunner().invoke(cli, ["topo", *map(str, args)], catch_exceptions=False)


def test_factory_lines_parse_to_the_same_topology(tmp_path):
    """The factories' events are what the real parser makes of their lines (keeps the unit tests honest)."""
    logs = job_logs(no_gdr_ranks=(3,), graph=True)
    from_parser = topology_from_paths([str(write_logs(tmp_path, logs))])
    from_factory = build_topology(all_events(logs))
    strip = lambda text: text.replace(str(tmp_path) + "/", "")   # noqa: E731
    assert strip(render("json", from_parser, [])) == render("json", from_factory, [])


def test_rich_default(tmp_path):
    result = invoke(write_logs(tmp_path, job_logs(network="Socket")))
    assert result.exit_code == 0
    assert "G005 socket-despite-ib" in result.output and "ch  0: 0 ─P2P→ 1" in result.output


def test_json_on_a_sample():
    if not IB16.is_dir():
        pytest.skip("sample not written yet")
    result = invoke(IB16, "--format", "json")
    assert result.exit_code == 0
    [comm] = json.loads(result.output)["communicators"]
    assert comm["nranks"] == 16 and len(comm["rings"]) == 8 and len(comm["edges"]) == 144


@pytest.mark.parametrize("fmt,start", [("dot", "digraph"), ("mermaid", "flowchart LR"), ("svg", "<svg")])
def test_other_formats_to_a_file(tmp_path, fmt, start):
    out = tmp_path / f"topo.{fmt}"
    result = invoke(write_logs(tmp_path, job_logs()), "--format", fmt, "--highlight", "3", "--all", "-o", out)
    assert result.exit_code == 0 and result.output == f"wrote the topology ({fmt}) to {out}\n"    # on stderr
    assert out.read_text(encoding="utf-8").startswith(start)


def test_channel_and_all_conflict(tmp_path):
    result = CliRunner().invoke(cli, ["topo", str(write_logs(tmp_path, job_logs())), "--channel", "1", "--all"])
    assert result.exit_code == 2 and "cannot be used together" in result.output


def test_missing_path_is_one_line_bad_input(tmp_path):
    from nccl_forensics.errors import BadInput

    with pytest.raises(BadInput, match="no such file"):
        CliRunner().invoke(cli, ["topo", str(tmp_path / "nope.log")], catch_exceptions=False)


def test_no_nccl_lines_is_no_evidence(tmp_path):
    from nccl_forensics.errors import NoEvidence

    (tmp_path / "train.log").write_text("epoch 1 loss 0.5\nepoch 2 loss 0.4\n", encoding="utf-8")
    with pytest.raises(NoEvidence, match="NCCL_DEBUG=INFO"):
        topology_from_paths([str(tmp_path)])


def test_help_has_examples():
    result = CliRunner().invoke(cli, ["topo", "--help"])
    assert result.exit_code == 0 and "Examples:" in result.output and "--highlight RANK" in result.output


@pytest.mark.parametrize("folder, code", [("socket-fallback", 1), ("ib-16rank-2node-2.21", 0)])
def test_topo_exits_1_when_a_check_warns_like_a_linter(folder, code):
    import subprocess
    import sys
    sample = Path(__file__).resolve().parents[2] / "sample_logs" / "nccl" / folder
    for fmt in ("text", "json"):
        done = subprocess.run([sys.executable, "-m", "nccl_forensics", "topo", str(sample), "--format", fmt],
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == code, done.stderr
