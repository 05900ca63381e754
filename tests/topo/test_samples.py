"""Rings, trees and transports of the multi-rank sample logs, against expectations read off the files by hand
(`grep "Channel ../.. :\\|Trees\\|via"` in each sample)."""
from __future__ import annotations

from pathlib import Path

import pytest

from nccl_forensics.topo import topology_from_paths
from nccl_forensics.topo.model import NET_IB, NET_SOCKET, P2P, SHM

NCCL = Path(__file__).resolve().parents[2] / "sample_logs" / "nccl"


def load(rel: str):
    path = NCCL / rel
    if not path.exists():
        pytest.skip(f"{path} not written yet")
    return topology_from_paths([str(path)])


def one(rel: str):
    [comm] = load(rel)
    return comm


def edges(comm) -> list[str]:
    return sorted(f"{e.channel}:{e.src}>{e.dst} {e.transport}{'/' + e.detail if e.detail else ''}"
                  for e in comm.edges.values())


def rings(comm) -> dict[int, list[int]]:
    return {c: comm.ring_order(c).order for c in comm.channels() if comm.ring_order(c)}


def trees_of(comm, rank: int) -> list[tuple[int, int, list[int]]]:
    return [(t.channel, t.parent, t.children) for (c, r), t in sorted(comm.trees.items()) if r == rank]


IB16_RINGS = {
    0: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15],
    1: [0, 7, 6, 5, 4, 3, 2, 1, 8, 15, 14, 13, 12, 11, 10, 9],
    2: [0, 9, 10, 11, 12, 13, 14, 15, 8, 1, 2, 3, 4, 5, 6, 7],
    3: [0, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1],
    4: [0, 1, 10, 11, 12, 13, 14, 15, 8, 9, 2, 3, 4, 5, 6, 7],
    5: [0, 7, 14, 13, 12, 11, 10, 9, 8, 15, 6, 5, 4, 3, 2, 1],
    6: [0, 1, 2, 11, 12, 13, 14, 15, 8, 9, 10, 3, 4, 5, 6, 7],
    7: [0, 7, 6, 13, 12, 11, 10, 9, 8, 15, 14, 5, 4, 3, 2, 1],
}


def test_ib_16rank_2node():
    comm = one("ib-16rank-2node-2.21")
    assert (comm.comm_id, comm.nranks, comm.nnodes, comm.nchannels) == ("0x6ce38d733ed6ff1a", 16, 2, 8)
    assert comm.nodes() == [("a100-node-03", list(range(8))), ("a100-node-04", list(range(8, 16)))]
    assert rings(comm) == IB16_RINGS
    assert trees_of(comm, 0) == [(c, -1, [1, 8]) if c % 2 == 0 else (c, 8, [1]) for c in range(8)]
    assert trees_of(comm, 8) == [(c, 0, [9]) if c % 2 == 0 else (c, -1, [9, 0]) for c in range(8)]
    assert trees_of(comm, 15) == [(c, 14, []) for c in range(8)]
    assert len(comm.trees) == 128 and len(comm.edges) == 144
    for channel in range(8):          # every ring hop has its transport: NET/IB between nodes, P2P inside
        for src, dst in comm.ring_hops(channel):
            edge = comm.edge(channel, src, dst)
            between = (src < 8) != (dst < 8)
            assert edge.cls == (NET_IB if between else P2P), (channel, src, dst)
            assert edge.detail == ("GDRDMA" if between else "read")
    assert not comm.nvls and not comm.collnet


def test_ib_16rank_one_rank_file_gives_exactly_its_lines():
    comm = one("ib-16rank-2node-2.21/nccl.a100-node-03.301538.log")
    assert list(comm.ranks) == [7] and comm.ranks[7].bus_id is not None
    assert edges(comm) == sorted([
        "0:7>8 NET/IB/GDRDMA", "1:7>6 P2P/CUMEM/read", "2:7>0 P2P/CUMEM/read", "3:8>7 NET/IB/GDRDMA",
        "3:7>6 P2P/CUMEM/read", "4:7>0 P2P/CUMEM/read", "5:7>14 NET/IB/GDRDMA", "6:7>0 P2P/CUMEM/read",
        "7:7>6 P2P/CUMEM/read"])
    assert comm.edge(5, 7, 14).device == 7
    assert comm.rings == {}             # only rank 0 prints the ring order


def test_rank0_log_alone_still_gives_the_rings():
    comm = one("ib-16rank-2node-2.21/nccl.a100-node-03.301442.log")
    assert rings(comm) == IB16_RINGS
    assert comm.ranks[0].host == "a100-node-03" and comm.nranks == 16
    gz = one("gzipped")
    assert rings(gz) == IB16_RINGS


def test_nvlink_8rank_one_node_nvls():
    comm = one("nvlink-8rank-2.18")
    assert (comm.nranks, comm.nnodes, comm.nchannels, comm.nvls) == (8, 1, 16, True)
    assert rings(comm) == {c: [0, 1, 2, 3, 4, 5, 6, 7] if c % 2 == 0 else [0, 7, 6, 5, 4, 3, 2, 1]
                           for c in range(16)}
    assert trees_of(comm, 0) == [(c, -1, [1]) for c in range(16)]
    assert len(comm.edges) == 128 and {e.transport for e in comm.edges.values()} == {"P2P/CUMEM"}
    assert [s for s in edges(comm) if s.startswith("15:0>")] == ["15:0>7 P2P/CUMEM/read"]


def test_crlf_copy_matches_rank0_of_nvlink():
    assert rings(one("crlf")) == rings(one("nvlink-8rank-2.18"))


def test_interleaved_4rank_console():
    comm = one("interleaved-4rank")
    assert (comm.comm_id, comm.nranks, comm.nnodes) == ("0x9a439881d09cbb51", 4, 1)
    assert rings(comm) == {0: [0, 1, 2, 3], 1: [0, 3, 2, 1]}
    assert edges(comm) == sorted(["0:0>1 P2P/CUMEM/read", "0:1>2 P2P/CUMEM/read", "0:2>3 P2P/CUMEM/read",
                                  "0:3>0 P2P/CUMEM/read", "1:0>3 P2P/CUMEM/read", "1:1>0 P2P/CUMEM/read",
                                  "1:2>1 P2P/CUMEM/read", "1:3>2 P2P/CUMEM/read"])
    assert [trees_of(comm, r)[0] for r in range(4)] == [(0, -1, [1]), (0, 0, [2]), (0, 1, [3]), (0, 2, [])]
    assert [(r.rank, r.pid, r.device, r.bus_id) for r in comm.ranks.values()] == [
        (0, 8815, 0, "1000"), (1, 8830, 1, "25000"), (2, 8844, 2, "41000"), (3, 8855, 3, "61000")]


def test_v2_30_7_shm_and_socket():
    comm = one("v2.30.7-function-names")
    assert (comm.nranks, comm.nnodes) == (4, 2) and rings(comm) == {0: [0, 1, 2, 3], 1: [0, 1, 2, 3]}
    expected = []
    for c in (0, 1):
        expected += [f"{c}:0>1 SHM/direct", f"{c}:2>3 SHM/direct", f"{c}:0>2 NET/Socket", f"{c}:1>2 NET/Socket",
                     f"{c}:2>0 NET/Socket", f"{c}:3>0 NET/Socket"]
    assert edges(comm) == sorted(expected)
    assert trees_of(comm, 0) == [(0, -1, [1, 2]), (1, 2, [1])]
    assert trees_of(comm, 2) == [(0, 0, [3]), (1, -1, [3, 0])]
    assert [comm.edge(0, a, b).cls for a, b in comm.ring_hops(0)] == [SHM, NET_SOCKET, SHM, NET_SOCKET]


@pytest.mark.parametrize("rel,transport", [("ansi-colour", "NET/IB/GDRDMA"), ("truncated-line", "NET/Socket")])
def test_two_rank_two_node(rel, transport):
    comm = one(rel)
    assert (comm.nranks, comm.nnodes) == (2, 2) and rings(comm) == {0: [0, 1], 1: [0, 1]}
    assert edges(comm) == [f"0:0>1 {transport}", f"0:1>0 {transport}", f"1:0>1 {transport}",
                           f"1:1>0 {transport}"]
    assert trees_of(comm, 0) == [(0, -1, [1]), (1, 1, [])]
    assert trees_of(comm, 1) == [(0, 0, []), (1, -1, [0])]


def test_rccl_keeps_bus_ids():
    comm = one("rccl")
    assert (comm.nranks, comm.nnodes, comm.nchannels) == (8, 1, 8)
    assert rings(comm) == {c: [0, 1, 2, 3, 4, 5, 6, 7] if c % 2 == 0 else [0, 7, 6, 5, 4, 3, 2, 1]
                           for c in range(8)}
    assert len(comm.edges) == 64 and {e.transport for e in comm.edges.values()} == {"P2P/IPC"}
    assert trees_of(comm, 3) == [(c, 2, [4]) for c in range(8)]


def test_socket_fallback_two_jobs():
    by_size = {c.nranks: c for c in load("socket-fallback")}
    ibverbs, docker = by_size[8], by_size[4]
    assert rings(ibverbs) == {0: [0, 1, 2, 3, 4, 5, 6, 7], 1: [0, 3, 2, 1, 4, 7, 6, 5]}
    assert len(ibverbs.edges) == 20
    assert {e.cls for e in ibverbs.edges.values() if ibverbs.is_inter_node(e.channel, e.src, e.dst)} == {NET_SOCKET}
    assert trees_of(ibverbs, 0) == [(0, -1, [1, 4]), (1, 4, [1])]
    assert docker.nnodes == 2 and not docker.edges and not docker.rings    # stuck in bootstrap


def test_timestamps_2_26_two_communicators():
    by_size = {c.nranks: c for c in load("timestamps-2.26")}
    job, single = by_size[8], by_size[4]
    assert rings(job) == {0: [0, 1, 2, 3, 4, 5, 6, 7], 1: [0, 3, 2, 1, 4, 7, 6, 5], 2: [0, 5, 6, 7, 4, 1, 2, 3],
                          3: [0, 7, 6, 5, 4, 3, 2, 1]}
    assert len(job.edges) == 40
    assert trees_of(job, 0) == [(0, -1, [1, 4]), (1, 4, [1]), (2, -1, [1, 4]), (3, 4, [1])]
    assert trees_of(job, 7) == [(c, 6, []) for c in range(4)]
    assert rings(single) == {0: [0, 1, 2, 3], 1: [0, 3, 2, 1]}
    assert edges(single) == sorted(f"{c}:{a}>{b} SHM/direct/direct" for c, hops in
                                   ((0, [(0, 1), (1, 2), (2, 3), (3, 0)]), (1, [(0, 3), (1, 0), (2, 1), (3, 2)]))
                                   for a, b in hops)
    assert single.nodes() == [("ws-l40s-02", [0, 1, 2, 3])]     # one process driving 4 GPUs


def test_v2_3_old_ring_lines_and_torn_line():
    [comm] = load("v2.3-old")
    assert comm.comm_id == "nranks4#0" and rings(comm) == {0: [0, 1, 2, 3], 1: [0, 3, 2, 1]}
    assert edges(comm) == sorted(f"{c}:{a}>{b} P2P/IPC" for c, hops in
                                 ((0, [(0, 1), (1, 2), (2, 3), (3, 0)]), (1, [(0, 3), (1, 0), (2, 1), (3, 2)]))
                                 for a, b in hops)      # 1:3>2 is the orphan half of the torn line
    assert [comm.ranks[r].device for r in range(4)] == [0, 1, 2, 3]
