"""Every CPU scenario, run for real with 2 and 4 ranks: the evidence is captured, nothing is left running,
and the diagnosis names the injected class (and the culprit rank where the scenario has one)."""
from __future__ import annotations

import json
import re

import pytest

from nccl_forensics.repro import cpu_scenarios, run_scenario

from .conftest import needs_torch

pytestmark = [pytest.mark.repro, needs_torch]


def check_evidence(result) -> None:
    """Assertions on the bundle that hold whatever the diagnosis says."""
    o, out, name = result.outcome, result.out, result.scenario
    console = (out / "console.log").read_text(errors="replace")
    assert o.leftovers == []
    assert result.repro_json.parent == out.parent and result.repro_json.exists()
    assert not list(out.rglob("*.repro.json")) and "NCCLF_REPRO" not in console
    assert json.loads(result.repro_json.read_text())["fault_rank"] == result.rank
    assert list((out / "torchrun_logs").glob("*/attempt_0/0/stdout.log"))
    if name in ("healthy", "slow-rank"):
        assert (o.how, o.torchrun_rc) == ("exited", 0)
        assert len(o.fr) == result.nproc
        return
    assert o.torchrun_rc != 0
    if o.how == "hung":
        assert len(o.pyspy) == result.nproc and o.fr
    if name == "stuck-rank":
        assert o.how == "hung"
        culprit = next(p for p in o.pyspy if p.name.startswith(f"rank{result.rank}."))
        assert "load_batch" in culprit.read_text()
    if name == "dropped-rank" and "Failed to parse reply file" not in console:
        # (torchrun prints its failure table unless it read a surviving rank's error file while that rank was still
        # writing it: elastic's ProcessFailure json.loads a half-written file and the agent raises, a race in torch)
        assert re.search(rf"rank\s+: {result.rank} .*\n\s+exitcode\s+: -9 ", console)
    if name == "cgroup-oom" and o.oom_mode == "cgroup":
        assert "Memory cgroup out of memory: Killed process" in (out / "dmesg.txt").read_text()
    if name in ("timeout", "slow-rank-timeout"):
        assert "Timed out waiting" in console


@pytest.mark.parametrize("nproc", [2, 4])
@pytest.mark.parametrize("scenario", [s.name for s in cpu_scenarios()])
def test_scenario_is_captured_and_diagnosed(scenario, nproc, tmp_path):
    rank = nproc - 1 if nproc > 2 else 1
    result = run_scenario(scenario, nproc=nproc, step=2, rank=rank, out=tmp_path / f"{scenario}-n{nproc}")
    check_evidence(result)
    assert result.diagnose_error is None
    got = (result.verdict_class, result.verdict_culprits if result.expected_culprits else [])
    if scenario == "timeout" and got[0] == "stuck_rank":    # the late rank's dump caught its late entry: named
        got = (result.expected_class, []) if result.verdict_culprits == [rank] else got
    assert got == (result.expected_class, result.expected_culprits), f"bundle kept at {result.out}"
