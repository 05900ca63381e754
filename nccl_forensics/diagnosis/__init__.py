"""Evidence → verdict, in two steps that can run in different places.

- map (`map.py`): one evidence file → a `Digest` (its timeline rows as columns, its few other events);
  runs in a worker process, next to the logs.
- reduce (`reduce.py`): every Digest → ranks → timelines (`timeline.py`) → divergence (`divergence.py`) →
  rank states (`rank_state.py`) → detectors → one `Verdict` (`verdict.py`).

`diagnose(paths)` runs both. The names below load `reduce` on first use: the detectors import this
package's timeline types, and `reduce` imports the detectors.
"""
from __future__ import annotations

import importlib

_API = ("diagnose", "diagnose_events", "analyse", "Diagnosis")
__all__ = list(_API)


def __getattr__(name: str):
    if name in _API:
        return getattr(importlib.import_module(f"{__name__}.reduce"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
