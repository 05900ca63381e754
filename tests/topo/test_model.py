"""build_topology from factory events: communicator assignment, rings, trees, edges, nodes."""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from nccl_forensics.topo import build_topology
from nccl_forensics.topo.build import assign_communicators
from nccl_forensics.topo.model import transport_class

from .factories import COMM_ID, RankLog, all_events, job_logs


def edge_strings(comm):
    return sorted(f"{e.channel}:{e.src}>{e.dst} {e.transport}{'/' + e.detail if e.detail else ''}"
                  for e in comm.edges.values())


def test_healthy_two_node_job():
    [comm] = build_topology(all_events(job_logs()))
    assert comm.comm_id == COMM_ID
    assert (comm.nranks, comm.nnodes, comm.nchannels) == (8, 2, 2)
    assert [(r, comm.ranks[r].host, comm.ranks[r].device, comm.ranks[r].bus_id) for r in (0, 5)] == [
        (0, "nodeA", 0, "1a000"), (5, "nodeB", 1, "1b000")]
    assert comm.ring_order(0).order == list(range(8))
    assert comm.ring_hops(1)[-1] == (7, 0)
    assert comm.nodes() == [("nodeA", [0, 1, 2, 3]), ("nodeB", [4, 5, 6, 7])]
    edges = edge_strings(comm)
    assert "0:3>4 NET/IB/GDRDMA" in edges and "1:0>1 P2P/IPC/read" in edges
    assert len(edges) == 16
    assert comm.is_inter_node(0, 3, 4) is True and comm.is_inter_node(0, 0, 1) is False
    assert comm.trees[(0, 3)].parent == 2 and comm.trees[(0, 3)].children == [4]


def test_send_side_wins_over_receive_side():
    log = RankLog("r4.log", "nodeB", 4, 0)
    log.init("start", 4, 8, COMM_ID)
    log.transport(0, 3, 4, "NET/IB", None, "receive", device=1)
    other = RankLog("r3.log", "nodeA", 3, 3)
    other.init("start", 3, 8, COMM_ID)
    other.transport(0, 3, 4, "NET/IB", "GDRDMA", "send", device=0, pxn_rank=6)
    [comm] = build_topology(log.events + other.events)
    edge = comm.edge(0, 3, 4)
    assert (edge.detail, edge.device, edge.pxn) == ("GDRDMA", 0, True)
    assert [e.file for e in edge.evidence] == ["r3.log", "r4.log"]


def test_single_rank0_log_gives_its_rings():
    logs = job_logs()
    [comm] = build_topology(logs["nccl.nodeA.1000.log"].events)
    assert comm.nranks == 8 and list(comm.ranks) == [0]
    assert comm.ring_order(0).order == list(range(8)) and comm.ring_order(1).order == list(range(8))
    assert comm.all_ranks == list(range(8))
    assert comm.nodes()[0] == ("nodeA", [0])  # the other ranks' hosts were never printed
    assert comm.nodes()[1] == (None, list(range(1, 8)))


def test_old_versions_tie_lines_to_the_next_init_complete():
    """≤2.15: no Init START and no commId; topology lines precede `Init COMPLETE`."""
    log = RankLog("old.log", "h", 1, 0)
    log.ring(0, 1, [0, 1])
    log.transport(0, 0, 1, "P2P/IPC")
    log.init("complete", 0, 2, None, comm_ptr="0xaaa")
    log.ring(0, 1, [0, 2, 1])                 # a second communicator of 3 ranks
    log.init("complete", 0, 3, None, comm_ptr="0xbbb")
    comms = build_topology(log.events)
    assert [(c.comm_id, c.nranks, c.rings[0].order) for c in comms] == [
        ("nranks2#0", 2, [0, 1]), ("nranks3#0", 3, [0, 2, 1])]


def test_runtime_connect_lines_after_complete_stay_with_their_communicator():
    log = RankLog("new.log", "h", 1, 0)
    log.init("start", 0, 2, "0x1", comm_ptr="0xa")
    log.init("complete", 0, 2, "0x1", comm_ptr="0xa")
    log.transport(0, 0, 1, "P2P/CUMEM", "read")       # 2.22+ connects at the first collective
    log.init("start", 0, 4, "0x2", comm_ptr="0xb")
    log.transport(0, 0, 3, "SHM")
    pairs = [(k, ev.kind) for k, ev in assign_communicators(log.events)]
    assert pairs == [("0x1", "comm_init"), ("0x1", "comm_init"), ("0x1", "transport"),
                     ("0x2", "comm_init"), ("0x2", "transport")]


def test_init_that_never_completes_goes_to_the_unidentified_communicator():
    log = RankLog("hung.log", "h", 1, 0)
    log.ring(0, 1, [0, 1])
    [comm] = build_topology(log.events)
    assert comm.comm_id is None and comm.rings[0].order == [0, 1]


def test_truncated_order_line_is_completed_from_graph_lines():
    logs = job_logs(hosts=("a",), gpus=24, nchannels=1, graph=True)
    rank0 = logs["nccl.a.1000.log"]
    ring_ev = next(ev for ev in rank0.events if ev.kind == "ring")
    ring_ev.data["order"] = list(range(20))           # ≤2.22 prints at most 20 ranks
    [comm] = build_topology(all_events(logs))
    assert comm.rings[0].truncated
    best = comm.ring_order(0)
    assert best.source == "graph" and best.order == list(range(24))


def test_nnodes_prefers_real_hosts_over_nccl_host_hashes():
    logs = job_logs()
    for log in logs.values():
        for ev in log.events:
            if ev.kind == "comm_init" and ev.data["phase"] == "info":
                ev.data["nnodes"] = 8                 # one host hash per process (containers)
    [comm] = build_topology(all_events(logs))
    assert comm.nnodes_reported == 8 and comm.nnodes == 2


def test_transport_class():
    assert [transport_class(t) for t in ("P2P/CUMEM", "P2P/direct pointer", "SHM", "NET/IB", "NET/IBext_v8",
                                         "NET/Socket", "NET/AWS Libfabric", "COLLNET/IB", None)] == [
        "p2p", "p2p", "shm", "net_ib", "net_ib", "net_socket", "net", "collnet", "unknown"]


@settings(max_examples=60, deadline=None)
@given(st.permutations(list(range(6))), st.integers(min_value=1, max_value=3))
def test_any_ring_order_round_trips(order, nchannels):
    order = [0] + [r for r in order if r != 0]
    [comm] = build_topology(all_events(job_logs(hosts=("a", "b"), gpus=3, nchannels=nchannels, order=order)))
    for channel in range(nchannels):
        assert comm.ring_order(channel).order == order
        assert len(comm.ring_hops(channel)) == 6
    assert set(comm.all_ranks) == set(range(6))


@settings(max_examples=25, deadline=None)
@given(st.data())
def test_any_subset_of_lines_builds_checks_and_renders(data):
    """Logs are often partial (one rank, a grep, a cut file): nothing may crash on any subset of lines."""
    from nccl_forensics.outputs.topo_render import render
    from nccl_forensics.topo import check_topology

    events = all_events(job_logs(hosts=("a", "b"), gpus=2, graph=True, no_gdr_ranks=(1,)))
    keep = data.draw(st.lists(st.sampled_from(range(len(events))), max_size=len(events), unique=True))
    comms = build_topology([events[i] for i in sorted(keep)])
    warnings = check_topology(comms)
    for fmt in ("rich", "json", "dot", "mermaid", "svg"):
        text = render(fmt, comms, warnings, highlight=1)
        assert isinstance(text, str) and (text or not comms)
