"""Capture tests: the same guard as the reproducer tests — nothing a test started may outlive it.

(`repro.conftest` is tests/repro/conftest.py: pytest puts tests/ on sys.path for these packages.)
"""
from __future__ import annotations

from repro.conftest import needs_torch, nothing_left_behind  # noqa: F401 - re-exported: the fixture and mark

