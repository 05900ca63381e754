"""ncclf: post-mortem forensics for hung or crashed multi-GPU PyTorch/NCCL jobs.

The library behind the `ncclf` command. Data flows one way, and the subpackages are its layers
(docs/architecture.md; tests/test_layers.py checks that nothing imports upward):

    sources/    read: paths → Sources → events (discover, one parser per evidence format, cross-file ranks)
    diagnosis/  analysis: timelines, world, divergence, arrivals, groups, rank states, the verdict
    detectors/  one failure class per module; codes.py is the one registry of codes (detectors, G checks)
    pipeline/   map (one file → a Digest, in worker processes or on Ray nodes), reduce (Digests → Diagnosis),
                summaries, and `ncclf parse`'s collection
    outputs/    every renderer: terminal, JSON, Markdown, Perfetto, parse tables and streams, topology
    cli/        click commands
    beside them: capture/ (live jobs), topo/ (the rings and trees NCCL built, and their checks),
                bandwidth/ (predicted and measured communication cost), repro (faults on purpose)

The entry points, importable from here (each loads its stage on first use, so `import nccl_forensics` stays
light): `diagnose(paths)`, `parse_paths(paths)`, `topology_from_paths(paths)`.

A regular package, not an implicit namespace one: a second checkout's `nccl_forensics/` folder on sys.path
(the current directory, say) must not merge its modules into this one.
"""
from __future__ import annotations

import importlib

_API = {
    "diagnose": "nccl_forensics.pipeline.reduce",
    "Diagnosis": "nccl_forensics.pipeline.reduce",
    "parse_paths": "nccl_forensics.pipeline.collect",
    "topology_from_paths": "nccl_forensics.topo",
}
__all__ = sorted(_API)


def __getattr__(name: str):
    if name in _API:
        return getattr(importlib.import_module(_API[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
