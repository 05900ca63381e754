"""Topology checks: common NCCL misconfigurations, each reported as a `TopoWarning` with its evidence.

Every check is a plain function `check_<name>(comms) -> list[TopoWarning]` over the communicators that
`build_topology` returned (each communicator carries its processes), so `diagnose` can call one alone.
Ids (G for graph) are stable and never reused. Each check is one function in checks_rings.py or checks_net.py;
process-level checks (G005–G008) compare the processes of one communicator at a time.

G001 ring-not-closed         a GRAPH `next` chain does not come back to where it started, a rank's
                             `next` disagrees with its peer's `prev`, or a rank repeats in a ring
G002 ring-differs-across-ranks  rank 0's `Channel NN/MM :` order disagrees with a rank's own
                             `Ring NN : prev -> r -> next` line, or two order lines of a channel differ
G003 rank-missing-from-ring  a complete ring (not a list cut at 20 ranks or `...`) lacks ranks
G004 extra-inter-node-hops   a ring crosses between nodes more often than its number of nodes needs
G005 socket-despite-ib       NET/Socket in use although IB devices were listed (`NET/IB : Using
                             [0]mlx5_0…`) or NCCL_IB_DISABLE=1 was set         [nic_misselection]
G006 virtual-interface       a multi-node job bootstraps or runs sockets over lo/docker*/veth*/virbr*/
                             tun* (or 127.x)                                    [nic_misselection]
G007 version-mismatch        processes print different NCCL versions            [version_mismatch]
G008 net-plugin-mismatch     processes use different networks (`Using network X`) or net plugins
                                                                                [version_mismatch]
G009 gdr-disabled            NET/IB connections without GDRDMA while others use it, or NCCL printed
                             `GPU Direct RDMA Disabled for HCA … (no module)`, or NCCL_NET_GDR_LEVEL=LOC
G010 single-channel          a communicator with several GPUs on one node runs a single channel

[brackets]: the verdict class `TopoWarning.as_finding()` gives diagnose; the others give "none".
"""
from __future__ import annotations

from typing import Callable, Iterable

from .checks_net import (
    check_gdr_disabled,
    check_net_plugin_mismatch,
    check_socket_despite_ib,
    check_version_mismatch,
    check_virtual_interface,
)
from .checks_rings import (
    check_extra_inter_node_hops,
    check_rank_missing,
    check_ring_differs,
    check_ring_not_closed,
    check_single_channel,
)
from .model import Communicator, TopoWarning

__all__ = ["CHECKS", "check_topology", "check_ring_not_closed", "check_ring_differs", "check_rank_missing",
           "check_extra_inter_node_hops", "check_socket_despite_ib", "check_virtual_interface",
           "check_version_mismatch", "check_net_plugin_mismatch", "check_gdr_disabled", "check_single_channel"]

CHECKS: list[tuple[str, str, Callable[[list[Communicator]], list[TopoWarning]]]] = [
    ("G001", "ring-not-closed", check_ring_not_closed),
    ("G002", "ring-differs-across-ranks", check_ring_differs),
    ("G003", "rank-missing-from-ring", check_rank_missing),
    ("G004", "extra-inter-node-hops", check_extra_inter_node_hops),
    ("G005", "socket-despite-ib", check_socket_despite_ib),
    ("G006", "virtual-interface", check_virtual_interface),
    ("G007", "version-mismatch", check_version_mismatch),
    ("G008", "net-plugin-mismatch", check_net_plugin_mismatch),
    ("G009", "gdr-disabled", check_gdr_disabled),
    ("G010", "single-channel", check_single_channel),
]


def check_topology(comms: list[Communicator], select: Iterable[str] | None = None) -> list[TopoWarning]:
    """Run every check (or those whose id/name is in `select`), in id order."""
    wanted = set(select) if select is not None else None
    out: list[TopoWarning] = []
    for id_, name, fn in CHECKS:
        if wanted is None or id_ in wanted or name in wanted:
            out.extend(fn(comms))
    return out
