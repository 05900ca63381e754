"""What the harness asked this job to break, read from the environment (never from the command line).

The plan travels in `NCCLF_REPRO_FAULT` as `<scenario>@<step>:<rank>` so that nothing in the evidence
(py-spy shows the command line, torchrun prints the entry point) gives the injected fault away.
"""
from __future__ import annotations

import os
from typing import NamedTuple

PLAN_ENV = "NCCLF_REPRO_FAULT"
CONTROL_ENV = "NCCLF_REPRO_CONTROL"     # a harness-private directory for hand-shakes (outside the bundle)


class FaultPlan(NamedTuple):
    scenario: str = "healthy"
    step: int = 0
    rank: int = -1

    @classmethod
    def from_env(cls) -> "FaultPlan":
        value = os.environ.get(PLAN_ENV, "")
        if not value:
            return cls()
        scenario, _, where = value.partition("@")
        step, _, rank = where.partition(":")
        return cls(scenario, int(step), int(rank))

    def to_env(self) -> str:
        return f"{self.scenario}@{self.step}:{self.rank}"

    def at(self, rank: int, step: int) -> str | None:
        """The scenario when this rank must misbehave at this step, else None."""
        return self.scenario if rank == self.rank and step == self.step else None

    def from_step_on(self, rank: int, step: int) -> str | None:
        """The scenario when this rank misbehaves at this step or any later one (stragglers)."""
        return self.scenario if rank == self.rank and step >= self.step else None
