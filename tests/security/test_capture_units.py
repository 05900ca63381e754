"""Capture's rules, unit by unit: the store lookup runs ncclf's own interpreter with an environment of ours; the
debug server is asked only at this node's addresses; files and pipes the job names are taken only when the
job's user owns them and no symbolic link is followed."""
from __future__ import annotations

import os
import sys

from nccl_forensics.capture import debug_server
from nccl_forensics.capture.evidence import copy_owned
from nccl_forensics.capture.find import RankProc
from nccl_forensics.capture.fr_pipe import _poke
from nccl_forensics.capture.procs import read_proc


def test_the_lookup_runs_our_interpreter_with_our_environment(monkeypatch):
    monkeypatch.setenv("PYTHONPATH", "/tmp/evil")
    python, env = debug_server.lookup_interpreter()
    assert python == sys.executable
    assert set(env) <= {"PATH", "LANG", "OMP_NUM_THREADS", "PYTHONUNBUFFERED", "HOME"}
    assert env["PATH"] == os.defpath


def test_the_lookup_never_uses_what_the_rank_names(monkeypatch, tmp_path):
    ran = []

    def fake_run(cmd, **kwargs):
        ran.append((cmd, kwargs))
        raise OSError("not really")
    monkeypatch.setattr(debug_server.subprocess, "run", fake_run)
    evil = RankProc(os.getpid(), read_proc(os.getpid()), 0, 1, 0,
                    {"PATH": str(tmp_path), "PYTHONPATH": str(tmp_path), "LD_LIBRARY_PATH": str(tmp_path)},
                    [str(tmp_path / "python3"), "-c", "x"])
    debug_server.worker_urls([evil], "127.0.0.1", 1)
    (cmd, kwargs), = ran
    assert cmd[:2] == [sys.executable, "-I"] and str(tmp_path) not in " ".join(cmd)
    assert str(tmp_path) not in " ".join(kwargs["env"].values()) and kwargs["cwd"] == "/"


def test_only_this_nodes_addresses_are_contacted():
    assert debug_server.on_this_node("127.0.0.1") and debug_server.on_this_node("localhost")
    assert not debug_server.on_this_node("192.0.2.7")            # TEST-NET-1: never this node
    assert not debug_server.on_this_node("name.invalid")


def test_a_file_of_another_owner_or_through_a_symlink_is_not_copied(tmp_path):
    src = tmp_path / "log"
    src.write_text("x\n")
    link = tmp_path / "link"
    link.symlink_to(src)
    copy_owned(src, tmp_path / "copy", os.geteuid())
    assert (tmp_path / "copy").read_text() == "x\n" and (tmp_path / "copy").stat().st_mode & 0o777 == 0o600
    for bad, owner in ((link, os.geteuid()), (src, os.geteuid() + 1)):
        try:
            copy_owned(bad, tmp_path / "copy2", owner)
        except OSError:
            pass
        else:
            raise AssertionError(f"{bad} was copied")
    assert not (tmp_path / "copy2").exists()


def test_a_pipe_of_another_owner_is_not_written(tmp_path):
    fifo = tmp_path / "p_0.pipe"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        assert "not by the rank's user" in _poke(str(fifo), os.geteuid() + 1)
        assert _poke(str(fifo), os.geteuid()) == "asked"
        assert os.read(reader, 1) == b"1"
        (tmp_path / "l_0.pipe").symlink_to(fifo)
        assert "symbolic link" in _poke(str(tmp_path / "l_0.pipe"), os.geteuid()) or \
            "not a pipe" in _poke(str(tmp_path / "l_0.pipe"), os.geteuid())
    finally:
        os.close(reader)
