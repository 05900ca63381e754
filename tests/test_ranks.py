"""Rank recovery across files: hints, conflicts, local ranks."""
from __future__ import annotations

from nccl_forensics.model import Event, Source, SourceKind, SourceResult
from nccl_forensics.sources.ranks import RankHints, assign_ranks, hints_from_events


def ev(kind, rank=None, host=None, pid=None, **data):
    return Event(kind, "nccl", "f.log", 1, rank=rank, host=host, pid=pid, data=data)


def result(events, path="f.log", rank=None, local_rank=None):
    return SourceResult(Source(path, SourceKind.CONSOLE, rank=rank, local_rank=local_rank), events)


def test_comm_init_names_the_rank_of_a_pid_named_dump():
    nccl = result([ev("comm_init", rank=3, host="node1", pid=4242, nranks=4)], "nccl.node1.4242.log")
    dump = result([ev("pyspy_thread", host="node1", pid=4242)], "py-spy-node1-4242.txt")
    hints = assign_ranks([nccl, dump])
    assert dump.events[0].rank == 3
    assert not hints.conflicts


def test_a_pid_claimed_by_two_ranks_is_a_conflict_and_not_used():
    a = result([ev("comm_init", rank=1, host="n", pid=7, nranks=4)])
    b = result([ev("child_failed", rank=2, host="n", pid=7, local_rank=2)])
    c = result([ev("pyspy_thread", host="n", pid=7)])
    hints = assign_ranks([a, b, c])
    assert c.events[0].rank is None
    assert any("claimed by ranks 1 and 2" in msg for msg in hints.conflicts)


def test_single_rank_communicators_say_nothing_about_global_rank():
    hints = hints_from_events([ev("comm_init", rank=0, host="n", pid=9, nranks=1)])
    assert hints.rank_of("n", 9) is None


def test_local_rank_folders_become_ranks_on_a_single_node():
    r = result([ev("traceback", host=None, pid=None)], "run/attempt_0/1/stderr.log", local_rank=1)
    assign_ranks([r])
    assert r.events[0].rank == 1


def test_local_ranks_map_through_the_elastic_summary_on_multi_node():
    summary = result([ev("child_failed", rank=9, host="nodeB", pid=5, local_rank=1)])
    worker = result([ev("traceback", host="nodeB")], "nodeB/attempt_0/1/stderr.log", local_rank=1)
    other = result([ev("traceback", host="nodeA")], "nodeA/attempt_0/0/stderr.log", local_rank=0)
    assign_ranks([summary, worker, other])
    assert worker.events[0].rank == 9
    assert other.events[0].rank is None  # unknown stays unknown: never guessed


def test_merge_is_order_independent():
    one, two = RankHints(), RankHints()
    one.add(one.by_pid, 5, 1, "pid")
    two.add(two.by_pid, 5, 1, "pid")
    one.merge(two)
    assert one.by_pid == {5: 1} and not one.conflicts


def test_default_prefix_local_rank_is_the_rank_on_a_single_node():
    console = result([Event("traceback", "traceback", "console.log", 9, local_rank=2)], "console.log")
    assign_ranks([console])
    assert console.events[0].rank == 2


def test_log_dir_files_without_a_host_map_through_a_one_host_summary():
    summary = result([ev("child_failed", rank=5, host="nodeB", pid=9, local_rank=1)])
    worker = result([ev("traceback")], "attempt_0/1/stderr.log", local_rank=1)
    assign_ranks([summary, worker])
    assert worker.events[0].rank == 5


def test_two_hosts_reusing_a_pid_is_no_conflict_and_each_keeps_its_rank():
    from nccl_forensics.model import Event
    from nccl_forensics.sources.ranks import hints_from_events
    a = hints_from_events([Event("comm_init", "nccl", "a.log", 3, rank=10, host="node-a", pid=41232,
                                 data={"rank": 10, "nranks": 16})])
    b = hints_from_events([Event("comm_init", "nccl", "b.log", 3, rank=2, host="node-b", pid=41232,
                                 data={"rank": 2, "nranks": 16})])
    a.merge(b)
    assert a.conflicts == []
    assert (a.rank_of("node-a", 41232), a.rank_of("node-b", 41232)) == (10, 2)
    assert a.rank_of(None, 41232) is None                 # the pid alone is ambiguous now


def test_one_host_whose_pid_is_claimed_by_two_ranks_is_a_conflict():
    from nccl_forensics.model import Event
    from nccl_forensics.sources.ranks import hints_from_events
    hints = hints_from_events([Event("comm_init", "nccl", "a.log", 3, rank=r, host="node-a", pid=7,
                                     data={"rank": r, "nranks": 16}) for r in (1, 5)])
    assert any("(node-a, 7)" in c or "7 is claimed" in c for c in hints.conflicts)
    assert hints.rank_of("node-a", 7) is None


def test_a_conflict_inside_one_file_is_said_once_when_the_files_merge():
    a = result([ev("comm_init", rank=r, host="n", pid=7, nranks=4) for r in (1, 2)], "a.log")
    b = result([ev("comm_init", rank=1, host="n", pid=7, nranks=4)], "b.log")
    for order in ([a, b], [b, a]):
        hints = assign_ranks(order)
        assert all("-1" not in msg for msg in hints.conflicts)
        assert any("claimed by ranks 1 and 2" in msg for msg in hints.conflicts)
        assert hints.rank_of("n", 7) is None


def test_files_of_one_process_merge_as_their_own_hints_would():
    """assign_ranks adds a file that names one process (and one local rank) without hints of its own: the merged
    tables and conflicts are those of merging each file's hints, whatever the files hold."""
    import random
    rng = random.Random(7)

    def random_event():
        data = {name: rng.choice(values) for name, values in (("rank", [0, 1, 2, -1, None]), ("pid", [5, 6, 0]),
                ("host", ["a", "b", None, ""]), ("local_rank", [0, 1, None]), ("nranks", [1, 4]))
                if rng.random() < 0.4}
        return Event(rng.choice(["comm_init", "comm_init", "fr_dump", "child_failed", "nccl_info"]), "nccl", "f.log",
                     1, rank=rng.choice([None, 0, 1]), host=rng.choice(["a", "b", None]),
                     pid=rng.choice([5, 6, None]), data=data)

    for _ in range(3000):
        files = []
        for _ in range(rng.randint(1, 4)):
            events = [random_event() for _ in range(rng.randint(0, 4))]
            files.append(events + events[-1:] * rng.randint(0, 2))        # a fact said again, as init lines do
        expected = RankHints()
        for events in files:
            expected.merge(hints_from_events(events))
        merged = assign_ranks([result(events) for events in files])
        assert (merged.by_host_pid, merged.by_pid, merged.pid_hosts, merged.by_host_local, merged.conflicts) == (
            expected.by_host_pid, expected.by_pid, expected.pid_hosts, expected.by_host_local, expected.conflicts)
