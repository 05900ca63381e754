"""Built parsers are cached where only their user can write: a pickle planted by someone else is never loaded."""
from __future__ import annotations

import os
import pickle
from pathlib import Path

import pytest

from nccl_forensics.sources import grammars
from nccl_forensics.sources.grammars import build, cache_file, grammar_path


class Planted:
    """Unpickling this writes a marker file: proof that a cache file was loaded."""

    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return (Path.write_text, (self.marker, "loaded"))


def _plant(root: Path, marker: Path, name: str = "ras", start: str = "ras_line") -> Path:
    root.mkdir(mode=0o700, parents=True, exist_ok=True)
    path = cache_file(root, name, start, grammar_path(name).read_text(encoding="utf-8"))
    assert path is not None
    path.write_bytes(b"0" * 64 + b"\n" + pickle.dumps(Planted(marker)))   # what Lark reads: a hash line, a pickle
    return path


def test_the_cache_is_a_private_folder_of_the_user(tmp_path):
    root = tmp_path / "cache" / "ncclf"
    parser = build("ras", "ras_line", root)
    assert parser.parse("Job summary") is not None
    assert oct(os.stat(root).st_mode & 0o777) == oct(0o700)
    assert list(root.iterdir()), "the built parser is kept for the next run"
    assert build("ras", "ras_line", root).parse("Job summary") is not None     # and loads back


def test_the_shared_temp_folder_is_never_the_cache(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert grammars.cache_home() == tmp_path / "xdg" / "ncclf"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert grammars.cache_home() == Path(os.path.expanduser("~")) / ".cache" / "ncclf"


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to give the planted file to another user")
def test_a_cache_file_owned_by_another_user_is_not_loaded(tmp_path):
    marker = tmp_path / "marker"
    planted = _plant(tmp_path / "ncclf", marker)
    os.chown(planted, 65534, 65534)
    assert build("ras", "ras_line", tmp_path / "ncclf").parse("Job summary") is not None
    assert not marker.exists()


def test_a_cache_file_others_can_write_is_not_loaded(tmp_path):
    marker = tmp_path / "marker"
    planted = _plant(tmp_path / "ncclf", marker)
    os.chmod(planted, 0o666)
    assert build("ras", "ras_line", tmp_path / "ncclf").parse("Job summary") is not None
    assert not marker.exists()


def test_a_cache_folder_others_can_enter_is_not_used(tmp_path):
    marker = tmp_path / "marker"
    root = tmp_path / "ncclf"
    _plant(root, marker)
    os.chmod(root, 0o777)
    assert build("ras", "ras_line", root).parse("Job summary") is not None
    assert not marker.exists()


def test_a_symlinked_cache_file_is_not_followed(tmp_path):
    marker = tmp_path / "marker"
    elsewhere = tmp_path / "elsewhere.pickle"
    elsewhere.write_bytes(b"0" * 64 + b"\n" + pickle.dumps(Planted(marker)))
    root = tmp_path / "ncclf"
    root.mkdir(mode=0o700)
    path = cache_file(root, "ras", "ras_line", grammar_path("ras").read_text(encoding="utf-8"))
    path.symlink_to(elsewhere)
    assert build("ras", "ras_line", root).parse("Job summary") is not None
    assert not marker.exists()


def test_the_check_itself_loads_a_private_file(tmp_path):
    """The guard of the tests above: a planted file that passes the checks IS loaded (so they test something)."""
    marker = tmp_path / "marker"
    _plant(tmp_path / "ncclf", marker)
    try:
        build("ras", "ras_line", tmp_path / "ncclf")
    except Exception:                      # noqa: BLE001 - Lark finds no parser in it: fine, the point is that it was unpickled
        pass
    assert marker.exists()
