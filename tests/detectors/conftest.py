from __future__ import annotations

import pytest

from nccl_forensics.pipeline.reduce import diagnose


@pytest.fixture
def diagnose_text(tmp_path):
    """diagnose() over one console log written from `text` (and any extra files: name → text)."""
    def run(text: str, **files: str):
        (tmp_path / "console.log").write_text(text)
        for name, body in files.items():
            (tmp_path / name).write_text(body)
        return diagnose([str(tmp_path)], jobs=1)
    return run
