"""Capture tests: the same guard as the reproducer tests — nothing a test started may outlive it.

(`repro.conftest` is tests/repro/conftest.py: pytest puts tests/ on sys.path for these packages.)
"""
from __future__ import annotations

