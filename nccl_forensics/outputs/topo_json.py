"""The `--format json` contract (issue 6).

    {"schema_version": 1,
     "communicators": [{"comm_id", "nranks", "nnodes",
                        "ranks": [{rank, host, pid, device, bus_id}],
                        "rings": [{channel, order: [ints]}],
                        "trees": [{channel, rank, parent, children}],
                        "edges": [{channel, from, to, transport, detail}],
                        "warnings": [{id, message, evidence: [{file, line}]}], …}],
     "warnings": [every warning once]}

Extra keys beyond the contract (never removed, only added): per communicator `nchannels`, `nvls`,
`collnet`, `network`; per ring `source` and `truncated`; per edge `device`, `pxn`, `inter_node`; per
warning `name`, `ranks` and the evidence `text`. Output is deterministic (sorted, fixed key order).
"""
from __future__ import annotations

import json
from typing import Any

from ..topo.model import Communicator, Ring, TopoWarning

SCHEMA_VERSION = 1


def topology_dict(comms: list[Communicator], warnings: list[TopoWarning], **_options) -> dict[str, Any]:
    return {
        "schema_version": SCHEMA_VERSION,
        "communicators": [_comm_dict(c, [w for w in warnings if c.comm_id in w.comm_ids]) for c in comms],
        "warnings": [w.to_dict() for w in warnings],
    }


def render_json(comms: list[Communicator], warnings: list[TopoWarning], **options) -> str:
    return json.dumps(topology_dict(comms, warnings, **options), indent=2) + "\n"


def _comm_dict(comm: Communicator, warnings: list[TopoWarning]) -> dict[str, Any]:
    return {
        "comm_id": comm.comm_id,
        "nranks": comm.nranks,
        "nnodes": comm.nnodes,
        "nchannels": comm.nchannels,
        "nvls": comm.nvls,
        "collnet": comm.collnet,
        "ranks": [_rank_dict(comm, r) for r in comm.all_ranks],
        "rings": [_ring_dict(c, ring) for c in comm.channels() if (ring := comm.ring_order(c))],
        "trees": [{"channel": t.channel, "rank": t.rank, "parent": t.parent, "children": list(t.children)}
                  for _, t in sorted(comm.trees.items())],
        "edges": [_edge_dict(comm, e) for _, e in sorted(comm.edges.items())],
        "warnings": [w.to_dict() for w in warnings],
    }


def _rank_dict(comm: Communicator, rank: int) -> dict[str, Any]:
    info = comm.ranks.get(rank)
    proc = info.process if info else None
    return {
        "rank": rank,
        "host": info.host if info else None,
        "pid": info.pid if info else None,
        "device": info.device if info else None,
        "bus_id": info.bus_id if info else None,
        "network": proc.network if proc else None,
        "bootstrap": [f"{n}:{a}" for n, a in proc.bootstrap_ifs] if proc else [],
    }


def _ring_dict(channel: int, ring: Ring) -> dict[str, Any]:
    return {"channel": channel, "order": list(ring.order), "source": ring.source, "truncated": ring.truncated}


def _edge_dict(comm: Communicator, edge) -> dict[str, Any]:
    return {
        "channel": edge.channel, "from": edge.src, "to": edge.dst, "transport": edge.transport,
        "detail": edge.detail, "device": edge.device, "pxn": edge.pxn,
        "inter_node": comm.is_inter_node(edge.channel, edge.src, edge.dst),
    }
