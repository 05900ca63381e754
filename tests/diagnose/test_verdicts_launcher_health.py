"""A healthy run read from its launcher's output alone: the world it stated and every worker's success.

- DeepSpeed's launcher (deepspeed/launcher/launch.py) states the whole world on every node (`dist_world_size=N`,
  0.1+) and logs each of its processes that exits 0 (`Process P exits successfully.`, 0.5.7+). One exit line per
  process of that world is the run's success; fewer, or a failure beside them, is not.
- torch elastic's agent logs its rendezvous result in one record (`Result:` then `  global_world_sizes=[...]`): where
  the logger prefixes only its first line (Python logging's `INFO:torch.distributed.elastic...:`), the fields still
  state the world.
"""
from __future__ import annotations

from .consoles import PROGRESS, console_verdict

_DS = "[2024-03-01 10:00:02,000] [INFO] [launch.py:{line}:main] "


def _deepspeed(world: int, pids: list[int], host: str = "") -> str:
    text = [f"{host}{_DS.format(line=163)}dist_world_size={world}"]
    text += [f"{host}{_DS.format(line=253)}process {pid} spawned with command: ['/usr/bin/python', '-u', 'train.py', "
             f"'--local_rank={i}', '--deepspeed']" for i, pid in enumerate(pids)]
    return "\n".join(text) + "\n"


def _exits(pids: list[int], host: str = "") -> str:
    return "".join(f"{host}{_DS.format(line=351)}Process {pid} exits successfully.\n" for pid in pids)


def test_every_process_of_the_deepspeed_world_exiting_0_is_a_healthy_run(tmp_path):
    text = _deepspeed(2, [1234, 1235]) + PROGRESS + _exits([1234, 1235])
    verdict = console_verdict(tmp_path, text)
    assert verdict.cls == "none", verdict.summary
    assert "0-1 finished" in verdict.summary


def test_one_process_of_two_exiting_0_is_no_all_clear(tmp_path):
    verdict = console_verdict(tmp_path, _deepspeed(2, [1234, 1235]) + PROGRESS + _exits([1234]))
    assert verdict.cls == "inconclusive", verdict.summary


def test_exit_lines_without_a_stated_world_are_no_all_clear(tmp_path):
    verdict = console_verdict(tmp_path, PROGRESS + _exits([1234, 1235]))
    assert verdict.cls == "inconclusive", verdict.summary


def test_a_failure_beside_the_exit_lines_is_still_found(tmp_path):
    text = (_deepspeed(2, [1234, 1235]) + PROGRESS + _exits([1234]) + "[2024-03-01 10:30:00,000] [ERROR] "
            "[launch.py:321:sigkill_handler] ['/usr/bin/python', '-u', 'train.py', '--local_rank=1', '--deepspeed'] "
            "exits with return code = -9\n")
    verdict = console_verdict(tmp_path, text)
    assert verdict.cls not in ("none", "inconclusive"), verdict.summary


def test_two_nodes_under_pdsh_each_logging_their_own_exits_are_the_whole_world(tmp_path):
    text = (_deepspeed(4, [501, 502], "worker-0: ") + _deepspeed(4, [501, 502], "worker-1: ") + PROGRESS
            + _exits([501, 502], "worker-0: ") + _exits([501, 502], "worker-1: "))
    assert console_verdict(tmp_path, text).cls == "none"
    half = _deepspeed(4, [501, 502], "worker-0: ") + PROGRESS + _exits([501, 502], "worker-0: ")
    assert console_verdict(tmp_path, half).cls == "inconclusive"


def test_the_agent_s_unprefixed_rendezvous_result_states_the_world(tmp_path):
    agent = "INFO:torch.distributed.elastic.agent.server.api:"
    text = (f"{agent}[default] Rendezvous complete for workers. Result:\n  restart_count=0\n  master_addr=127.0.0.1\n"
            "  group_rank=0\n  group_world_size=1\n  local_ranks=[0, 1, 2, 3]\n  global_ranks=[0, 1, 2, 3]\n"
            "  global_world_sizes=[4, 4, 4, 4]\n\n" + PROGRESS
            + f"{agent}[default] Local worker group finished (WorkerState.SUCCEEDED). Waiting 300 seconds for other "
            "agents to finish\n")
    verdict = console_verdict(tmp_path, text)
    assert verdict.cls == "none" and "0-3 finished" in verdict.summary, verdict.summary
