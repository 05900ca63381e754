"""Evidence -> verdict, in two steps that can run in different places; and `ncclf parse`'s collection.

- map (`map.py`): one evidence file -> a `Digest` (its timeline rows as columns, its few other events);
  runs in a worker process (`pipeline/engines/local.py`) or on a Ray node (`on_ray.py`), next to the logs.
- reduce (`reduce.py`): every Digest -> ranks -> timelines -> divergence -> rank states -> detectors ->
  one `Verdict`; `summary.py` writes and reads a node's Digests as one file.
- `collect.py` (+ `spool.py`, `scan_job.py`): discover -> parse -> rank recovery for `ncclf parse` and
  `parse_paths(paths)`.

Public names: `nccl_forensics.diagnose`, `nccl_forensics.parse_paths`.
"""
