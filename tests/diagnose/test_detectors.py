"""Each detector: a bad case that fires with the right culprit, a good case that stays silent."""
from __future__ import annotations

import pytest

from nccl_forensics.pipeline.reduce import diagnose_events

from . import factories as F

ALL = lambda n: list(range(n))  # noqa: E731


def _pyspy(inside, outside_frames=None, outside=(), state="idle"):
    return [F.pyspy_thread(r, F.IN_ALLREDUCE) for r in inside] + \
        [F.pyspy_thread(r, outside_frames, state=state) for r in outside]


BAD = {
    "C101": (F.fr_job(diverge_rank=1, field="shape", value=(2048,)), [1]),
    "C101-nccl": (F.nccl_job(diverge_rank=2, field="count", value=4096), [2]),
    "C101-watchdog": ([F.watchdog_timeout(r, 7, numel=512 if r == 2 else 1024) for r in range(4)], [2]),
    "C101-gloo-only": ([F.gloo_error(0, "size_mismatch", expected=512, received=1024),
                        F.child_failed(0, -6, "SIGABRT"), F.child_failed(1, 1)], [1]),
    "C102": (F.fr_job(diverge_rank=2, field="dtype", value="float64"), [2]),
    "C102-fingerprint": ([F.fingerprint_mismatch(0, 1), F.fingerprint_mismatch(1, 0, dtype="float64",
                                                                              other_dtype="float32")], [1]),
    "C103": (F.fr_job(diverge_rank=3, field="op", value="allgather"), [3]),
    "C104": ([F.fr_entry(r, s, op="allgather" if s % 3 == 0 else "allreduce") for r in range(3) for s in range(1, 16)]
             + [F.fr_entry(3, s, op="allgather" if (s + (s >= 6)) % 3 == 0 else "allreduce") for s in range(1, 15)],
             [3]),
    "C104-alive": (F.fr_job(diverge_rank=3, stop_at=19) + _pyspy([0, 1, 2, 3]), [3]),
    "R201": ([F.child_failed(2, -9, "SIGKILL")] + [F.child_failed(r, 1, root_cause=r == 0) for r in (0, 1, 3)]
             + [F.gloo_error(r, "connection_closed", peer="127.0.0.1:29500") for r in (0, 1, 3)], [2]),
    "R201-exception": ([F.traceback(1, "ValueError", "bad batch"), F.child_failed(1, 1),
                        F.child_failed(0, -15, "SIGTERM"), F.sigterm_sent(1000)], [1]),
    "R202": (F.fr_job(diverge_rank=3, stop_at=19) + _pyspy([0, 1, 2], F.BUSY_LOADING, [3], "active"), [3]),
    "R202-pyspy-only": (_pyspy([0, 1, 2], F.SLEEPING, [3])
                        + [F.gloo_error(r, "timeout", timeout_ms=30000, op="recv") for r in range(3)], [3]),
    "R202-timeline-only": (F.nccl_job(diverge_rank=1, stop_at=12), [1]),
    "R202-watchdog-behind": ([F.watchdog_timeout(r, 7 if r == 2 else 8) for r in range(4)], [2]),
    "M301": ([F.child_failed(1, -9, "SIGKILL"), F.oom_kill(1001), F.child_failed(0, -15, "SIGTERM"),
              F.sigterm_sent(1000)], [1]),
    "M301-cuda": ([F.cuda_oom(2), F.child_failed(2, 1)] + [F.watchdog_timeout(r, 7) for r in (0, 1, 3)], [2]),
    "N401": ([F.nccl_warn(5, "NET/IB : Got completion from peer 10.0.0.2<52104> with status=12 opcode=0 len=0 "
                             "vendor err 129 (Recv)", category="ib", time=100.0),
              F.nccl_warn(2, "socketProgress: Connection closed by remote peer node1<45678>", time=101.0)], [5]),
    "N402": ([F.bootstrap(r, "eth0", "10.0.0.1", host="node1") for r in range(2)]
             + [F.bootstrap(r, "docker0", "172.17.0.1", host="node2") for r in range(2, 4)], [2, 3]),
    "V501": ([F.nccl_version(r, "2.21.5" if r < 3 else "2.18.1") for r in range(4)], [3]),
    "T601": ([F.gloo_error(r, "timeout", timeout_ms=30000, op="recv") for r in range(4)], []),
}
CLASSES = {"C101": "shape_mismatch", "C102": "dtype_mismatch", "C103": "op_mismatch", "C104": "collective_skipped",
           "R201": "dropped_rank", "R202": "stuck_rank", "M301": "oom", "N401": "network_error",
           "N402": "nic_misselection", "V501": "version_mismatch", "T601": "timeout_unknown"}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_case_gives_the_class_and_the_culprit(case):
    events, culprits = BAD[case]
    d = diagnose_events(events)
    code = case.split("-")[0]
    assert code in {f.id for f in d.findings}
    assert d.verdict.cls == CLASSES[code]
    assert d.verdict.culprit_ranks == culprits
    for f in d.findings:
        assert all(e.file and e.line >= 0 and isinstance(e.text, str) for e in f.evidence)
    if d.verdict.primary:
        assert d.verdict.primary.evidence, "every claim carries evidence"


GOOD = {
    "healthy-fr": F.fr_job(nranks=8),
    "healthy-nccl": F.nccl_job(nranks=4),
    "healthy-pyspy-all-inside": F.fr_job() + _pyspy([0, 1, 2, 3]),
    "slow-rank-finished": [e if e.kind != "fr_entry" else F.fr_entry(e.rank, e.data["seq"]) for e in F.fr_job()]
    + _pyspy([0, 1, 2], F.SLEEPING, [3]),
    "single-host-lo": [F.bootstrap(r, "lo", "127.0.0.1") for r in range(4)],
    "same-versions": [F.nccl_version(r) for r in range(4)],
}


# Nothing shows these jobs finished or completed their last collective: no finding, and no all-clear either (ranks
# in step at an enqueued collective, or all inside one in py-spy, is what a hang looks like too).
NO_HEALTH = {"single-host-lo", "same-versions", "healthy-nccl", "healthy-fr", "healthy-pyspy-all-inside"}


@pytest.mark.parametrize("case", sorted(GOOD))
def test_good_case_gives_no_failure_and_none_only_with_health(case):
    d = diagnose_events(GOOD[case])
    assert d.findings == [] and not d.failed
    if case in NO_HEALTH:
        assert d.verdict.cls == "inconclusive" and "why not none:" in d.verdict.summary
    else:
        assert d.verdict.cls == "none"


def test_cascade_is_not_the_culprit_and_torchrun_root_cause_is_called_out():
    d = diagnose_events(BAD["R201"][0])
    assert d.verdict.cascade_ranks == [0, 1, 3]
    assert "Root Cause" in d.verdict.summary
    network = [f for f in d.findings if f.id == "N401"]
    assert network and not network[0].cause


def test_oom_kill_wins_over_dropped_rank_and_names_memory():
    d = diagnose_events(BAD["M301"][0])
    assert d.verdict.cls == "oom" and "199.4 MiB" in d.verdict.summary


def test_dtype_fix_names_the_frame():
    d = diagnose_events(BAD["C102"][0])
    assert "/work/train.py:42" in d.verdict.fix and "float32" in d.verdict.fix


def test_wrong_nic_fix_names_the_env_var():
    d = diagnose_events(BAD["N402"][0])
    assert "NCCL_SOCKET_IFNAME=eth0" in d.verdict.fix


def test_select_and_ignore():
    events = BAD["C102"][0] + BAD["V501"][0]
    assert {f.id for f in diagnose_events(events, select=["V5"]).findings} == {"V501"}
    assert "C102" not in {f.id for f in diagnose_events(events, ignore=["dtype-mismatch"]).findings}


def test_timeout_unknown_lists_what_to_collect():
    d = diagnose_events(BAD["T601"][0])
    assert "py-spy" in d.verdict.fix and "TORCH_FR_BUFFER_SIZE" in d.verdict.fix


def test_gloo_abort_on_a_rank_without_dump_and_a_normal_peer_is_an_extra_collective():
    """rank 1 repeated the small all-reduce: it aborted (expected 4, got 106240); rank 0's dump is normal."""
    events = [F.fr_dump(0, 2, "gloo")]
    for seq in range(1, 13):
        events.append(F.fr_entry(0, seq, shape=(4,) if seq % 2 else (106240,), backend="gloo"))
    events += [F.gloo_error(1, "size_mismatch", expected=4, received=106240), F.child_failed(1, -6, "SIGABRT"),
               F.gloo_error(0, "connection_reset", peer="127.0.0.1:20890"), F.child_failed(0, 1)]
    d = diagnose_events(events)
    assert d.verdict.cls == "collective_skipped" and d.verdict.culprit_ranks == [1]
