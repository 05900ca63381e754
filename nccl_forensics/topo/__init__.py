"""`ncclf topo`: the rings, trees and transports NCCL built, per communicator, and checks on them.

    comms = topology_from_paths(["logs/"])      # or build_topology(events)
    warnings = check_topology(comms)
    print(render("json", comms, warnings))     # nccl_forensics.outputs.topo_render.render
"""
from __future__ import annotations

import logging
from typing import Iterable, Iterator

from ..errors import BadInput, NoEvidence
from ..model import Event
from ..sources import iter_events
from ..sources.discover import discover, evidence_sources
from .build import build_topology, is_topology_event
from .checks import CHECKS, check_topology
from .model import Communicator, TopoWarning

__all__ = ["build_topology", "check_topology", "topology_from_paths", "CHECKS", "Communicator",
           "TopoWarning"]

log = logging.getLogger(__name__)

def topology_from_paths(paths: Iterable[str]) -> list[Communicator]:
    """discover → parse → the communicators. Raises NoEvidence when no NCCL topology line is found."""
    paths = list(paths)
    comms = build_topology(ev for src in evidence_sources(discover(paths)) for ev in _events(src))
    if not comms:
        raise NoEvidence(f"{', '.join(paths)}: no NCCL init or topology lines found "
                         "(run the job with NCCL_DEBUG=INFO)")
    return comms


def _events(source) -> Iterator[Event]:
    """The topology events of one source; a file that turns out unreadable or truncated keeps what it gave."""
    try:
        for ev in iter_events(source):
            if is_topology_event(ev):
                yield ev
    except BadInput as exc:
        log.warning("%s", exc)

