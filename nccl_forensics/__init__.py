"""ncclf: post-mortem forensics for hung or crashed multi-GPU PyTorch/NCCL jobs.

The library behind the `ncclf` command. Data flows one way, and the subpackages are its stages:

    sources/    paths → Sources → events (discover, one parser per evidence format, cross-file ranks)
    diagnosis/  map: one file → a Digest; reduce: Digests → timelines → divergence → detectors → Verdict
    detectors/  one failure class per module, in one registry of stable codes
    engines/    where the map step runs (local worker processes)
    outputs/    terminal, JSON, Markdown and Perfetto renderers; `ncclf parse` tables and streams
    topo/       the rings and trees NCCL built;  bandwidth/  predicted and measured communication cost

The entry points, importable from here (each loads its stage on first use, so `import nccl_forensics` stays
light): `diagnose(paths)`, `parse_paths(paths)`, `topology_from_paths(paths)`.

A regular package, not an implicit namespace one: a second checkout's `nccl_forensics/` folder on sys.path
(the current directory, say) must not merge its modules into this one.
"""
from __future__ import annotations

import importlib

_API = {
    "diagnose": "nccl_forensics.diagnosis.reduce",
    "Diagnosis": "nccl_forensics.diagnosis.reduce",
    "parse_paths": "nccl_forensics.outputs.collect",
    "topology_from_paths": "nccl_forensics.topo",
}
__all__ = sorted(_API)


def __getattr__(name: str):
    if name in _API:
        return getattr(importlib.import_module(_API[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
