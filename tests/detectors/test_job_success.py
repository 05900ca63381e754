"""Context.launcher_success is the one answer to "did the whole job succeed?": Context.completed(), the health rule
(H001's unstated world and its finished ranks) and the straggler's clean exit all ask it."""
from __future__ import annotations

import pandas as pd

from nccl_forensics.detectors.base import Context
from nccl_forensics.detectors.healthy import job_success
from nccl_forensics.diagnosis.timeline import COLUMNS, Timelines
from nccl_forensics.model import Event
from nccl_forensics.pipeline.collect import parse_paths


def _context(events: list[Event], world: list[int] = ()) -> Context:
    return Context(events, Timelines(pd.DataFrame(columns=COLUMNS)), pd.DataFrame(), {}, list(world))


def _line(kind: str, line: int, rank: int | None = None, **data) -> Event:
    return Event(kind, "console", "job.out", line, rank=rank, data=data)


def _parsed(tmp_path, text: str) -> list[Event]:
    (tmp_path / "job.out").write_text(text)
    return list(parse_paths([str(tmp_path)], jobs=1).events)


def test_a_job_scope_success_is_the_jobs_completion_whatever_its_message_says():
    # the rule is the line's scope, not a word of its message
    lsf = _line("agent_log", 4, meaning="healthy", scope="job", message="Successfully completed.")
    ctx = _context([lsf], world=[0, 1])
    assert ctx.launcher_success() == [lsf]
    assert ctx.completed()
    assert job_success(ctx) is lsf


def test_the_health_rule_and_completed_ask_the_same_question(tmp_path):
    for text in ("Sender: LSF System\n\nSuccessfully completed.\n",
                 "torchx 2024-05-10 10:05:40 INFO     Job finished: SUCCEEDED\n",
                 "SKY INFO: Job finished (status: SUCCEEDED).\n"):
        ctx = _context(_parsed(tmp_path, text))
        whole = job_success(ctx)
        assert whole is not None and whole.data["scope"] == "job", text
        assert ctx.launcher_success()[0] is whole and ctx.completed(), text


def test_torchrun_s_success_in_either_wording_is_the_jobs(tmp_path):
    for text in ("INFO:torch.distributed.elastic.agent.server.api:[default] worker group successfully finished. "
                 "Waiting 300 seconds for other agents to finish.\n",
                 "I1126 13:40:35.118955 139795 torch/distributed/elastic/agent/server/api.py:879] [default] Local "
                 "worker group finished (WorkerState.SUCCEEDED). Waiting 300 seconds for other agents to finish\n"):
        ctx = _context(_parsed(tmp_path, text))
        assert ctx.completed(), text
        assert job_success(ctx) is None, text              # one node's agent: no whole job whose world is unknown


def test_one_process_s_exit_is_not_the_jobs_success():
    one = _line("worker_exit", 3, meaning="healthy", scope="process", pid=24905)
    world = _line("launcher_world", 1, meaning="benign", nranks=2)
    ctx = _context([world, one])
    assert ctx.launcher_success() == [] and not ctx.completed() and job_success(ctx) is None
    both = _line("worker_exit", 4, meaning="healthy", scope="process", pid=24906)
    assert _context([world, one, both]).launcher_success() == [one]        # every process of the stated world


_INIT = ("{host}:{pid}:{pid} [{local}] NCCL INFO comm 0x{pid} rank {rank} nRanks 8 nNodes 2 localRanks 4 "
         "localRank {local} MNNVL 0\n")
_NODE_DONE = ("INFO:torch.distributed.elastic.agent.server.api:[default] worker group successfully finished. "
              "Waiting 300 seconds for other agents to finish.\n")
_ALL_DONE = "INFO:torch.distributed.elastic.agent.server.api:Done waiting for other agents. Elapsed: 0.0011 seconds\n"


def _node(host: str, first: int, *ends: str) -> str:
    return "".join(_INIT.format(host=host, pid=1000 + r, local=r - first, rank=r)
                   for r in range(first, first + 4)) + "".join(ends)


def _verdict(tmp_path, **files: str):
    from nccl_forensics.pipeline.reduce import diagnose
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    d = diagnose([str(tmp_path)], jobs=1)
    return d.verdict.cls, d.verdict.summary


def test_one_node_s_success_covers_only_its_ranks_where_the_job_spans_nodes(tmp_path):
    """nNodes 2 and only node a's console: its agent's success says nothing of ranks 4-7 (no all-clear)."""
    cls, why = _verdict(tmp_path, **{"node-a.out": _node("node-a", 0, _NODE_DONE)})
    assert cls == "inconclusive" and "4-7" in why


def test_every_node_s_success_covers_the_job(tmp_path):
    cls, _ = _verdict(tmp_path, **{"node-a.out": _node("node-a", 0, _NODE_DONE),
                                   "node-b.out": _node("node-b", 4, _NODE_DONE)})
    assert cls == "none"


def test_the_exit_barrier_passed_covers_every_node(tmp_path):
    """`Done waiting for other agents`: every agent reached the exit barrier, which each does only after its own
    workers succeeded."""
    cls, _ = _verdict(tmp_path, **{"node-a.out": _node("node-a", 0, _NODE_DONE, _ALL_DONE)})
    assert cls == "none"


def test_an_empty_flight_recorder_dump_is_a_gap_not_an_all_clear(tmp_path):
    """torch writes a dump in one write: an empty `nccl_trace_rank_5` is rank 5 stopped while writing it, a dump
    that was asked for (a timeout or a signal). Every node's success beside it is no all-clear."""
    (tmp_path / "nccl_trace_rank_5").write_bytes(b"")
    cls, why = _verdict(tmp_path, **{"node-a.out": _node("node-a", 0, _NODE_DONE),
                                   "node-b.out": _node("node-b", 4, _NODE_DONE)})
    assert cls == "inconclusive" and "5" in why, why


def test_an_empty_log_is_no_gap(tmp_path):
    """An empty log is a rank that printed nothing there (NCCL_DEBUG=WARN opens its file and writes no line)."""
    (tmp_path / "nccl.node-b.1005.log").write_bytes(b"")
    cls, _ = _verdict(tmp_path, **{"node-a.out": _node("node-a", 0, _NODE_DONE),
                                   "node-b.out": _node("node-b", 4, _NODE_DONE)})
    assert cls == "none"


def _comm(kind: str, rank: int, ptr: str) -> Event:
    return Event(kind, "nccl", f"rank{rank}.log", 1, rank=rank, pid=100 + rank, data={"comm_ptr": ptr})


def test_a_destroyed_subgroup_communicator_is_no_completion():
    """Every rank destroyed a subgroup's communicator but none its world one, which it may hang in: the job did not
    end (the rule H001 applies to a rank's health: every communicator its process opened is closed)."""
    events = [ev for rank in range(4) for ev in (_comm("comm_init", rank, f"0x55{rank}"),
                                                 _comm("comm_init", rank, f"0x66{rank}"),
                                                 _comm("comm_destroy", rank, f"0x66{rank}"))]
    assert not _context(events, world=range(4)).completed()
    closed = events + [_comm("comm_destroy", rank, f"0x55{rank}") for rank in range(4)]
    assert _context(closed, world=range(4)).completed()
