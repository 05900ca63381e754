"""Skip every corpus test, with the reason, where `../shared/corpus` is absent (a user's own clone)."""
from __future__ import annotations

import pytest

from .corpus import CORPUS


def pytest_collection_modifyitems(config, items):
    if CORPUS.is_dir():
        return
    skip = pytest.mark.skip(reason=f"the real-world corpus is not at {CORPUS} (it sits beside the project in CI)")
    for item in items:
        if "tests/corpus/" in str(item.fspath).replace("\\", "/"):
            item.add_marker(skip)
