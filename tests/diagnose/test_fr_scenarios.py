"""Flight-recorder scenarios modelled on PyTorch's analyzer tests (test_fr_analysis.py), its builder's cases and its
known failures: each gives its class, culprit, group and seq. Dumps are in torch 2.13's exact schema (fr_jobs.py)."""
from __future__ import annotations

import pytest

from nccl_forensics.pipeline.reduce import diagnose

from .fr_jobs import Job

AR = [[1024]]


def steps(job: Job, n: int = 5, state: str = "completed") -> None:
    for _ in range(n):
        job.all("coll", "all_reduce", AR, state=state)


def healthy(tmp):
    job = Job(4)
    steps(job)
    return job


def hang_at_last(job: Job, culprit: int | None = None, culprit_state: str | None = None, **last) -> None:
    """Every rank enqueues one more all_reduce that does not complete (the hang)."""
    for r in job.ranks:
        kw = dict(last) if r.rank == culprit else {}
        state = culprit_state if (r.rank == culprit and culprit_state) else "started"
        r.coll(kw.pop("name", "all_reduce"), kw.pop("ins", AR), state=state, **kw)


def sc_dtype(tmp):
    job = Job(4)
    steps(job)
    hang_at_last(job, 2, dtype="Double")
    return job


def sc_dtype_rank0(tmp):
    job = Job(4)
    steps(job)
    hang_at_last(job, 0, dtype="Half")
    return job


def sc_shape(tmp):
    job = Job(4)
    steps(job)
    hang_at_last(job, 1, ins=[[1000]])
    return job


def sc_op(tmp):
    job = Job(4)
    steps(job)
    hang_at_last(job, 3, name="all_gather", ins=[[256]])
    return job


def sc_started_scheduled(tmp):
    job = Job(4)
    steps(job)
    hang_at_last(job, 1, culprit_state="scheduled")
    return job


def sc_pipeline(tmp):
    job = Job(4)
    for _ in range(3):
        for r in job.ranks:
            if r.rank > 0:
                r.p2p("recv", r.rank - 1, [64, 32])
            if r.rank < 3:
                r.p2p("send", r.rank + 1, [64, 32])
        job.all("coll", "all_reduce", AR)
    return job


def sc_batched_p2p(tmp):
    job = Job(4)
    steps(job, 2)
    for r in job.ranks:                       # batch_isend_irecv ring: a send and a recv, then the batch marker
        r.p2p("send", (r.rank + 1) % 4, [128], state="scheduled")
        r.p2p("recv", (r.rank - 1) % 4, [128], state="scheduled")
        r.coll("coalesced", [], [], state="scheduled", same_seq=True)["is_p2p"] = True
    steps(job, 2)
    return job


def sc_recv_never_posted(tmp):
    job = Job(2)
    steps(job, 3)
    job.rank(0).p2p("send", 1, [64], state="started")
    job.rank(1).coll("all_reduce", AR, state="started")      # rank 1 went on to an all_reduce instead
    job.rank(0)
    return job


def sc_split_groups_healthy(tmp):
    job = Job(4, {"1": ("undefined", [0, 1]), "1b": ("undefined", [2, 3])})
    steps(job, 2)
    for r in job.ranks:
        pg = ("1", "undefined")
        r.groups = {"0": job.groups["0"], "1": ("undefined", [0, 1] if r.rank < 2 else [2, 3])}
        r.coll("all_reduce", [[16 * (r.rank // 2 + 1)]], pg=pg)   # subgroup 0-1 sends 16, 2-3 sends 32
    steps(job, 2)
    return job


def sc_split_groups_dtype(tmp):
    job = sc_split_groups_healthy(tmp)
    pg = ("1", "undefined")
    for r in job.ranks:
        r.coll("all_reduce", [[8]], pg=pg, dtype="Double" if r.rank == 3 else "Float", state="started")
    return job


def sc_coalesced_healthy(tmp):
    job = Job(2)
    steps(job, 2)
    job.all("coalesced", [("broadcast", [[4, 4]]), ("broadcast", [[5, 5]])])
    steps(job, 2)
    return job


def sc_coalesced_member(tmp):
    job = Job(4)
    steps(job, 2)
    for r in job.ranks:
        second = [[5, 5]] if r.rank != 2 else [[4, 4]]
        r.coalesced([("broadcast", [[4, 4]]), ("broadcast", second)], state="started")
    return job


def sc_alltoall_uneven(tmp):
    job = Job(4)
    steps(job, 2)
    sends = {0: 10, 1: 20, 2: 30, 3: 40}
    recvs = {0: 40, 1: 30, 2: 20, 3: 10}           # totals balance: 100 sent, 100 received
    for r in job.ranks:
        r.coll("all_to_all", [[sends[r.rank]]], [[recvs[r.rank]]])
    steps(job, 2)
    return job


def sc_alltoall_wrong_total(tmp):
    job = Job(4)
    steps(job, 2)
    for r in job.ranks:
        n = 40 if r.rank != 1 else 44
        r.coll("all_to_all", [[n]], [[40]], state="started")
    return job


def sc_allgather_output(tmp):
    job = Job(4)
    steps(job, 2)
    for r in job.ranks:
        out = [[4 * 256]] if r.rank != 3 else [[3 * 256]]
        r.coll("_all_gather_base", [[256]], out, state="started")
    return job


def sc_reducescatter_output(tmp):
    job = Job(4)
    steps(job, 2)
    for r in job.ranks:
        out = [[256]] if r.rank != 0 else [[200]]
        r.coll("_reduce_scatter_base", [[1024]], out, state="started")
    return job


def sc_wrapped_uneven(tmp):
    job = Job(4)
    steps(job, 30)
    for r in job.ranks:                              # ring buffers that wrapped at different points
        r.entries = r.entries[r.rank * 3:]
    return job


def sc_private_group(tmp):
    job = Job(4, {"7": ("private", [1])})
    for i in range(6):
        job.all("coll", "all_reduce", AR)
        if i % 2:
            job.rank(1).coll("all_reduce", [[8]], pg=("7", "private"))     # record ids drift on rank 1 only
    return job


def sc_desc_differs(tmp):
    job = Job(2)
    for r in job.ranks:
        r.groups = {"0": ("default_pg" if r.rank == 0 else "DEFAULT", [0, 1])}
        for _ in range(3):
            r.coll("all_reduce", AR, pg=("0", r.groups["0"][0]))
    return job


def sc_subgroup_shape(tmp):
    job = Job(4, {"1": ("tp", [0, 1, 2, 3])})
    steps(job, 3)
    for r in job.ranks:
        r.coll("all_reduce", [[64]] if r.rank != 2 else [[32]], pg=("1", "tp"), state="started")
    return job


def sc_extra_collective(tmp):
    job = Job(4)
    steps(job, 3)
    job.rank(2).coll("broadcast", [[10]])              # only rank 2 calls a broadcast here
    for r in job.ranks:
        for _ in range(3):
            r.coll("all_reduce", AR, state="completed" if r.rank != 2 else "started")
    return job


def sc_stopped_rank(tmp):
    job = Job(4)
    steps(job, 3)
    for r in job.ranks:
        if r.rank != 3:
            r.coll("all_reduce", AR, state="started")
    return job


def sc_gather_healthy(tmp):
    """Only the root gathers: the other ranks record an empty output (torchfrtrace's gather case)."""
    job = Job(4)
    steps(job, 2)
    for r in job.ranks:
        r.coll("gather", [[4, 4]], [[4, 4]] * 4 if r.rank == 0 else [[]])
    steps(job, 2)
    return job


def sc_gather_shape(tmp):
    job = Job(4)
    steps(job, 2)
    for r in job.ranks:
        r.coll("gather", [[4, 4]] if r.rank != 2 else [[5, 4]], [[4, 4]] * 4 if r.rank == 0 else [[]], state="started")
    return job


def sc_scatter_healthy(tmp):
    job = Job(4)
    steps(job, 2)
    for r in job.ranks:
        r.coll("scatter", [[4, 4]] * 4 if r.rank == 0 else [[]], [[4, 4]])
    steps(job, 2)
    return job


def sc_recv_anysource_healthy(tmp):
    job = Job(4)
    steps(job, 2)
    for _ in range(2):
        job.rank(1).p2p("send", 3, [64])
        job.rank(3).p2p("recv", None, [64])
    steps(job, 2)
    return job


def sc_recv_anysource_size(tmp):
    job = Job(4)
    steps(job, 2)
    job.rank(1).p2p("send", 3, [64])
    job.rank(3).p2p("recv", None, [64])
    job.rank(1).p2p("send", 3, [64], state="started")
    job.rank(3).p2p("recv", None, [32], state="started")          # rank 3 now expects 32 elements from anyone
    return job


def sc_alltoall_variants(tmp):
    """all_to_all (a list of tensors) on three ranks, all_to_all_single on one: an op mismatch, not a dtype one."""
    job = Job(4)
    steps(job, 2)
    for r in job.ranks:
        if r.rank == 2:
            r.coll("all_to_all_single", [[16]], [[16]], state="started")
        else:
            r.coll("all_to_all", [[4]] * 4, [[4]] * 4, state="started")
    return job


def sc_allgather_variants(tmp):
    job = Job(4)
    steps(job, 2)
    for r in job.ranks:
        if r.rank == 1:
            r.coll("all_gather", [[256]], [[256]] * 4, state="started")
        else:
            r.coll("_all_gather_base", [[256]], [[1024]], state="started")
    return job


def sc_alltoall_list_healthy(tmp):
    job = Job(4)
    steps(job, 2)
    job.all("coll", "all_to_all", [[4]] * 4, [[4]] * 4)
    steps(job, 2)
    return job


def sc_noise_lag(tmp):
    """A healthy run where rank 2 enqueues every collective 2 ms after the others: noise, not a straggler."""
    job = Job(4)
    for step in range(80):
        for r in job.ranks:
            e = r.coll("all_reduce", AR)
            e["time_created_ns"] = 1_750_000_000_000_000_000 + step * 50_000_000 + (2_000_000 if r.rank == 2 else 0)
    return job


SCENARIOS = {   # name → (builder, class, culprits, group, seq, dumps to leave out)
    "gather-root-asymmetry": (sc_gather_healthy, "none", [], None, None, ()),
    "scatter-root-asymmetry": (sc_scatter_healthy, "none", [], None, None, ()),
    "recv-any-source": (sc_recv_anysource_healthy, "none", [], None, None, ()),
    "all-to-all-list": (sc_alltoall_list_healthy, "none", [], None, None, ()),
    "noise-lag-2ms": (sc_noise_lag, "none", [], None, None, ()),
    "gather-shape": (sc_gather_shape, "shape_mismatch", [2], "0", 3, ()),
    "recv-any-source-size": (sc_recv_anysource_size, "shape_mismatch", [3], "0", 2, ()),
    "all-to-all-single-vs-list": (sc_alltoall_variants, "op_mismatch", [2], "0", 3, ()),
    "all-gather-base-vs-list": (sc_allgather_variants, "op_mismatch", [1], "0", 3, ()),
    "healthy": (healthy, "none", [], None, None, ()),
    "pipeline-p2p": (sc_pipeline, "none", [], None, None, ()),
    "batched-p2p": (sc_batched_p2p, "none", [], None, None, ()),
    "split-groups-sharing-a-name": (sc_split_groups_healthy, "none", [], None, None, ()),
    "coalesced-healthy": (sc_coalesced_healthy, "none", [], None, None, ()),
    "uneven-all-to-all": (sc_alltoall_uneven, "none", [], None, None, ()),
    "wrapped-unevenly": (sc_wrapped_uneven, "none", [], None, None, ()),
    "private-group-drift": (sc_private_group, "none", [], None, None, ()),
    "desc-differs": (sc_desc_differs, "none", [], None, None, ()),
    "dtype": (sc_dtype, "dtype_mismatch", [2], "0", 6, ()),
    "dtype-rank0": (sc_dtype_rank0, "dtype_mismatch", [0], "0", 6, ()),
    "shape": (sc_shape, "shape_mismatch", [1], "0", 6, ()),
    "op": (sc_op, "op_mismatch", [3], "0", 6, ()),
    "started-scheduled": (sc_started_scheduled, "stuck_rank", [1], "0", 6, ()),
    "recv-never-posted": (sc_recv_never_posted, "collective_skipped", [1], "0", 3, ()),
    "split-groups-dtype": (sc_split_groups_dtype, "dtype_mismatch", [3], "1:2-3", 2, ()),
    "coalesced-member": (sc_coalesced_member, "shape_mismatch", [2], "0", 3, ()),
    "all-to-all-wrong-total": (sc_alltoall_wrong_total, "shape_mismatch", [1], "0", 3, ()),
    "all-gather-output": (sc_allgather_output, "shape_mismatch", [3], "0", 3, ()),
    "reduce-scatter-output": (sc_reducescatter_output, "shape_mismatch", [0], "0", 3, ()),
    "subgroup-shape": (sc_subgroup_shape, "shape_mismatch", [2], "1", 1, ()),
    # a rank whose dump is missing while the others dumped during the hang: the watchdog thread of every live
    # rank writes its dump, so it is most likely dead
    "missing-dump": (sc_stopped_rank, "dropped_rank", [3], "0", 4, (3,)),
    "stopped-rank": (sc_stopped_rank, "stuck_rank", [3], "0", 4, ()),
    "missing-dump-others-waiting": (lambda t: hang_at_last_job(), "dropped_rank", [1], "0", 4, (1,)),
}


def hang_at_last_job() -> Job:
    job = Job(4)
    steps(job, 3)
    hang_at_last(job)
    return job


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_scenario(name, tmp_path):
    build, cls, culprits, group, seq, skip = SCENARIOS[name]
    folder = build(tmp_path).write(tmp_path / "fr", skip=skip)
    v = diagnose([str(folder)], jobs=1).verdict
    assert (v.cls, v.culprit_ranks) == (cls, culprits), v.summary
    if group is not None:
        assert (v.primary.group, v.primary.seq) == (group, seq), v.summary


def test_host_named_dumps_keep_their_rank(tmp_path):
    folder = sc_dtype(tmp_path).write(tmp_path / "fr", name="nccl_trace_rank_node-a_{rank}")
    v = diagnose([str(folder)], jobs=1).verdict
    assert (v.cls, v.culprit_ranks) == ("dtype_mismatch", [2])


def test_dumps_whose_names_hold_no_rank_are_inconclusive_and_say_why(tmp_path):
    folder = sc_dtype(tmp_path).write(tmp_path / "fr", name="dump_{letter}")
    d = diagnose([str(folder)], jobs=1)
    assert d.verdict.cls == "inconclusive"
    assert len(d.errors) == 4 and all("names no rank" in e for e in d.errors)


def test_a_dtype_mismatch_names_both_element_sizes(tmp_path):
    folder = sc_dtype(tmp_path).write(tmp_path / "fr")
    summary = diagnose([str(folder)], jobs=1).verdict.summary
    assert "float64 is 8 bytes per element, float32 4" in summary, summary
