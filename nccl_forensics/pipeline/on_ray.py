"""The map step on every node of a running Ray cluster, the reduce on the driver (`ncclf diagnose --ray ADDRESS`).

Logs often stay on each node's local disk. One Ray task per alive node, pinned there (node affinity, not
soft), runs `summarize` on the node's own copy of the paths and sends back the summary file's bytes; the
driver reads them as it reads any `ncclf summarize` output (pipeline/summary.py). A path may hold
`{node_id}` (Ray's node id) or `{host}`, for logs kept per node under one shared folder.

A node where no path exists sends nothing; a node whose paths hold no evidence says so, and that is reported.
Ray is optional (`pip install -e '<checkout>[ray]'`): it is imported only here, only when asked for.
"""
from __future__ import annotations

import logging
import os
import socket
import tempfile
from dataclasses import dataclass

from ..errors import BadInput, NcclfError, NoEvidence
from .map import WINDOW_MB
from .read import summarize
from .reduce import RayNode, diagnose


@dataclass
class NodeSummary:
    node_id: str
    host: str
    summary: bytes | None          # the `ncclf summarize` file, or None when the node had nothing to send
    note: str = ""                 # why not


def node_paths(paths: list[str], node_id: str, host: str) -> list[str]:
    """`paths` as they read on one node: `{node_id}` and `{host}` filled in."""
    return [p.replace("{node_id}", node_id).replace("{host}", host) for p in paths]


def summarize_here(paths: list[str], window_mb: float | None, jobs: int) -> NodeSummary:
    """The map step on the node this runs on (a Ray task body; also callable directly)."""
    import ray

    node_id, host = ray.get_runtime_context().get_node_id(), socket.gethostname()
    mine = [p for p in node_paths(paths, node_id, host) if os.path.exists(p)]
    if not mine:
        return NodeSummary(node_id, host, None, "none of the paths exists there")
    with tempfile.TemporaryDirectory(prefix="ncclf-ray-") as tmp:
        out = os.path.join(tmp, "node.ncclf")
        try:
            summarize(mine, out, jobs=jobs, window_mb=window_mb)
        except NcclfError as exc:
            return NodeSummary(node_id, host, None, str(exc))
        with open(out, "rb") as fh:
            return NodeSummary(node_id, host, fh.read())


def map_on_ray(address: str, paths: list[str], window_mb: float | None, jobs: int = 0) -> list[NodeSummary]:
    """Run `summarize_here` once on every alive node of the cluster at `address`; the nodes' answers."""
    try:
        import ray
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy
    except ImportError:
        raise BadInput("--ray needs Ray: pip install -e '<checkout>[ray]'") from None
    started_here = not ray.is_initialized()
    if started_here:
        try:
            ray.init(address=address, log_to_driver=False, logging_level=logging.ERROR, include_dashboard=False)
        except Exception as exc:  # noqa: BLE001 - Ray raises ConnectionError, RuntimeError, ValueError … for a bad address
            raise BadInput(f"--ray {address}: cannot join the Ray cluster ({type(exc).__name__}: {exc})") from None
    try:
        nodes = sorted(n["NodeID"] for n in ray.nodes() if n.get("Alive"))
        task = ray.remote(num_cpus=1, max_retries=0)(summarize_here)
        refs = [task.options(scheduling_strategy=NodeAffinitySchedulingStrategy(node, soft=False)).remote(
            paths, window_mb, jobs) for node in nodes]
        return ray.get(refs)
    finally:
        if started_here:
            ray.shutdown()


def diagnose_on_ray(address: str, paths: list[str], window_mb: float | None = WINDOW_MB, jobs: int = 0,
                    **options):
    """`diagnose` of the logs on every node of a Ray cluster: the nodes' summaries reduced here. Raises
    NoEvidence when no node had any."""
    answers = map_on_ray(address, paths, window_mb, jobs)
    with tempfile.TemporaryDirectory(prefix="ncclf-ray-") as tmp:
        written = []
        for i, node in enumerate(answers):
            if node.summary is not None:
                written.append(os.path.join(tmp, f"{i:05d}-{node.host}-{node.node_id[:12]}.ncclf"))
                with open(written[-1], "wb") as fh:
                    fh.write(node.summary)
        if not written:
            why = "; ".join(f"node {n.node_id[:12]} ({n.host}): {n.note}" for n in answers) or "no alive node"
            raise NoEvidence(f"--ray {address}: no node had evidence under {', '.join(paths)} ({why})")
        result = diagnose([tmp], jobs=jobs, window_mb=window_mb, **options)
    result.ray_nodes = [RayNode(n.node_id, n.host, n.summary is not None, n.note) for n in answers]
    return result
