"""`ncclf repro` wiring that needs no job: the list, usage errors (exit 2, one line)."""
from __future__ import annotations

from click.testing import CliRunner

from nccl_forensics.cli import cli
from nccl_forensics.scenarios import SCENARIOS


def invoke(*args):
    return CliRunner().invoke(cli, ["repro", *args], standalone_mode=False)


def test_list_shows_every_scenario_on_one_line():
    result = invoke("--list")
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert [line.split()[0] for line in lines] == list(SCENARIOS)
    assert "GPU only" in next(line for line in lines if line.startswith("cuda-oom"))


def test_scenario_or_all_is_required():
    result = CliRunner().invoke(cli, ["repro"])
    assert result.exit_code == 2
    assert "give one SCENARIO, or --all" in result.output


def test_rank_outside_the_job_is_a_one_line_error():
    from nccl_forensics.errors import ReproError
    from nccl_forensics.repro import run_scenario

    try:
        run_scenario("shape-mismatch", nproc=2, rank=2)
    except ReproError as exc:
        assert str(exc) == "--rank 2 is not a rank of a 2-rank job"
    else:
        raise AssertionError("expected ReproError")


def test_unknown_scenario_is_rejected():
    from nccl_forensics.errors import ReproError
    from nccl_forensics.repro import run_scenario

    try:
        run_scenario("no-such-thing")
    except ReproError as exc:
        assert "unknown scenario 'no-such-thing'" in str(exc)
    else:
        raise AssertionError("expected ReproError")
