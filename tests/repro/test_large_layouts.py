"""The large-model layouts (reproducers/train_megatron.py), run for real: 8 gloo processes each, TP 2 x PP 2 x DP 2
and EP 4 x DP 2 with uneven all_to_all, faults injected mid-step. Each is diagnosed with the injected class and
exactly the injected rank, and the flight recorder names the groups by their Megatron description (gloo's
pg_config is keyed '' with no ranks on torch 2.13: the memberships are what the entries show)."""
from __future__ import annotations

import pickle

import pytest

from nccl_forensics.repro import large_scenarios, run_scenario

from .conftest import needs_torch

pytestmark = [pytest.mark.repro, pytest.mark.slow, needs_torch]

RANKS = {"megatron-dead": 2, "megatron-gil": 5, "megatron-wedged": 5, "megatron-skip": 3, "megatron-slow": 1,
         "moe-dead": 1, "moe-gil": 6, "moe-wedged": 2}
STEPS = {"megatron-skip": 3}     # two earlier steps show what the skipping rank issues there (its own history)


@pytest.mark.parametrize("scenario", [s.name for s in large_scenarios()])
def test_large_layout_is_diagnosed_with_the_injected_rank(scenario, tmp_path):
    rank = RANKS.get(scenario, 3)
    result = run_scenario(scenario, step=STEPS.get(scenario, 2), rank=rank, out=tmp_path / scenario)
    outcome = result.outcome
    story = (f"job {outcome.how} (torchrun rc {outcome.torchrun_rc}, last step {outcome.last_step}); "
             f"notes {outcome.notes}; bundle kept at {result.out}")
    assert result.nproc == 8 and outcome.leftovers == [], story
    assert result.diagnose_error is None, story
    assert (result.verdict_class, result.verdict_culprits) == (result.expected_class, [rank]), story
    dumps = [dump for dump in map(_loaded, outcome.fr) if dump is not None]
    assert dumps, story
    descs = {e["process_group"][1] for dump in dumps for e in dump["entries"]}
    assert descs & {"TENSOR_MODEL_PARALLEL_GROUP", "EXPERT_MODEL_PARALLEL_GROUP"}, descs


def _loaded(path):
    """A dump's contents, or None for one cut short: a rank the launcher killed while torch wrote it (on a loaded
    machine torchrun's SIGTERM can meet a rank mid-dump). Its verdict is checked above all the same."""
    try:
        return pickle.loads(path.read_bytes())
    except (EOFError, pickle.UnpicklingError):
        return None
