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


_UNHEALTHY = ("{label}F0926 17:26:32.075587  157988 client.h:77] Terminating process because the JAX distributed service "
              "detected fatal errors. absl::Status: UNAVAILABLE: The following tasks are unhealthy (stopped sending "
              "heartbeats):\n{tasks}{label}The tasks have crashed. Check the task logs for an earlier error, or scheduler "
              "events (e.g. preemption, eviction) to debug further.\n")


@pytest.mark.parametrize("label", ["", "0: "])
def test_the_tasks_listed_below_the_unhealthy_report_are_its_ranks(label, tmp_path):
    tasks = "".join(f"{label}/job:jax_worker/replica:0/task:{n}\n" for n in (8, 10))
    verdict = console_verdict(tmp_path, _UNHEALTHY.format(label=label, tasks=tasks))
    assert verdict.cls == "dropped_rank" and verdict.culprit_ranks == [8, 10], verdict.summary
    assert "ranks 8, 10 died" in verdict.summary


def test_a_task_joined_to_the_unhealthy_report_s_line_is_its_rank(tmp_path):
    text = ("Use error polling to propagate the following error to all tasks: UNAVAILABLE: The following tasks are "
            "unhealthy (stopped sending heartbeats): /job:jax_worker/replica:0/task:0\n")
    verdict = console_verdict(tmp_path, text)
    assert verdict.cls == "dropped_rank" and verdict.culprit_ranks == [0], verdict.summary


def test_the_list_ends_at_the_first_line_that_is_no_task(tmp_path):
    tasks = "/job:jax_worker/replica:0/task:8\nI0926 17:26:33.000000 1 train.py:9] /job:jax_worker/replica:0/task:9\n"
    verdict = console_verdict(tmp_path, _UNHEALTHY.format(label="", tasks=tasks))
    assert verdict.culprit_ranks == [8], verdict.summary
