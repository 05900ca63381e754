"""Topology checks: common NCCL misconfigurations, each reported as a `TopoWarning` with its evidence.

Every check is a plain function `check_<name>(comms) -> list[TopoWarning]` over the communicators that
`build_topology` returned (each communicator carries its processes). Their codes (G001–G010) and names are
rows of the one registry of codes, `nccl_forensics/codes.py`; each function's docstring is what
`ncclf explain G001` prints. Ring and channel checks live in checks_rings.py, process-level ones (compared
over the processes of one communicator at a time) in checks_net.py.
"""
from __future__ import annotations

from typing import Callable, Iterable

from ..codes import TOPOLOGY, of_kind, resolve
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
    (c.code, c.name, resolve(c)) for c in of_kind(TOPOLOGY) if c.status != "removed"
]


def check_topology(comms: list[Communicator], select: Iterable[str] | None = None) -> list[TopoWarning]:
    """Run every check (or those whose id/name is in `select`), in id order."""
    wanted = set(select) if select is not None else None
    out: list[TopoWarning] = []
    for id_, name, fn in CHECKS:
        if wanted is None or id_ in wanted or name in wanted:
            out.extend(fn(comms))
    return out
