"""`diagnose --ray` without the ray extra: one line, exit 2, no traceback."""
from __future__ import annotations

import sys

import pytest

from nccl_forensics.cli import main


def test_ray_without_the_extra_is_a_one_line_error(monkeypatch, tmp_path, capsys):
    monkeypatch.setitem(sys.modules, "ray", None)          # import ray then raises ImportError
    with pytest.raises(SystemExit) as ended:
        main(["diagnose", "--ray", "127.0.0.1:6379", str(tmp_path)])
    err = capsys.readouterr().err
    assert ended.value.code == 2
    assert err.startswith("Error: --ray needs Ray") and len(err.strip().splitlines()) == 1
