"""A JAX job's task in XLA's coordination service is its process index: the task the service set to ERROR is the
culprit rank. Another job's task numbers (TensorFlow's `worker`, apart from its `chief`) name no rank."""
from __future__ import annotations

import pytest

from .consoles import console_verdict

_ERROR = ("E1115 16:03:15.140058 12 coordination_service.cc:954] /job:{job}/replica:0/task:37 has been set to ERROR in "
          "coordination service: UNAVAILABLE: Task /job:{job}/replica:0/task:37 heartbeat timeout. This indicates that "
          "the remote task has failed, got preempted, or crashed unexpectedly.\n")


@pytest.mark.parametrize("job,culprits", [("jax_worker", [37]), ("worker", [])])
def test_the_task_the_service_set_to_error_is_a_jax_rank(job, culprits, tmp_path):
    verdict = console_verdict(tmp_path, _ERROR.format(job=job))
    assert verdict.cls == "dropped_rank" and verdict.culprit_ranks == culprits, verdict.summary
