"""`ncclf capture` run by root next to another user's fake rank: it acts on it only when asked, executes nothing
the rank's argv or environment names, copies none of root's files the rank points at, writes into no pipe of
root's, and keeps its bundle private."""
from __future__ import annotations

import json
import os
import socket
import stat
import subprocess
import time
from pathlib import Path

import pytest

from nccl_forensics.capture.node import host_label

from .conftest import AS_NOBODY, NOBODY, can_switch_user, run_ncclf

pytestmark = can_switch_user
SECRET = "ROOT-ONLY-SECRET-b1f3"


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def planted(shared_tmp):
    """Root's secrets, and nobody's fake rank whose argv[0], PYTHONPATH and file variables point at them."""
    markers = shared_tmp / "markers"
    markers.mkdir(mode=0o777)
    markers.chmod(0o777)
    root_only = shared_tmp / "root-only"
    root_only.mkdir(mode=0o700)
    (root_only / "secret.txt").write_text(SECRET + "\n")
    (root_only / "trace_0").write_text(SECRET + "\n")
    (root_only / "run" / "attempt_0" / "0").mkdir(parents=True)
    (root_only / "run" / "attempt_0" / "0" / "stderr.log").write_text(SECRET + "\n")
    pipes = shared_tmp / "pipes"
    pipes.mkdir()
    os.mkfifo(pipes / "p_0.pipe", 0o666)                 # root's pipe, writable by anyone
    reader = os.open(pipes / "p_0.pipe", os.O_RDONLY | os.O_NONBLOCK)

    evil = shared_tmp / "x"
    (evil / "bin").mkdir(parents=True)
    (evil / "pp").mkdir()
    (evil / "logs").mkdir()
    (evil / "bin" / "python3").write_text(f"#!/bin/sh\n[ \"$(id -u)\" = 0 ] && touch {markers}/ran-argv0\nexit 0\n")
    (evil / "bin" / "python3").chmod(0o755)
    (evil / "pp" / "sitecustomize.py").write_text(
        f"import os\nif os.geteuid() == 0:\n    open('{markers}/ran-sitecustomize', 'w').close()\n")
    (evil / "logs" / "link").symlink_to(root_only / "run")
    for path in [evil, *evil.rglob("*")]:
        os.lchown(path, NOBODY, NOBODY)
    env = {"PATH": f"{evil / 'bin'}:/usr/bin:/bin", "PYTHONPATH": str(evil / "pp"), "HOME": str(evil),
           "RANK": "0", "WORLD_SIZE": "1", "LOCAL_RANK": "0", "MASTER_ADDR": "127.0.0.1",
           "MASTER_PORT": str(_closed_port()), "NCCL_DEBUG_FILE": str(root_only / "secret.txt"),
           "TORCHELASTIC_ERROR_FILE": str(evil / "logs" / "link" / "attempt_0" / "0" / "error.json"),
           "TORCH_FR_DUMP_TEMP_FILE": str(root_only / "trace_"),
           "TORCH_NCCL_DEBUG_INFO_PIPE_FILE": str(pipes / "p_"), "NCCLF_TEST_TOKEN": os.environ.get("NCCLF_TEST_TOKEN", "")}
    rank = subprocess.Popen([*AS_NOBODY, "/bin/bash", "-c",
                             'exec -a "$0" /usr/bin/python3 -c "import time; time.sleep(120)"',
                             str(evil / "bin" / "python3")], env=env, cwd=evil, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            if b"RANK=0" in Path(f"/proc/{rank.pid}/environ").read_bytes() and \
                    Path(f"/proc/{rank.pid}/cmdline").read_bytes().startswith(str(evil).encode()):
                break
        except OSError:
            pass
        time.sleep(0.05)
    try:
        yield {"rank": rank, "markers": markers, "reader": reader, "out": shared_tmp / "cap"}
    finally:
        rank.kill()
        rank.wait()
        os.close(reader)


def _nothing_leaked(planted) -> None:
    assert sorted(p.name for p in planted["markers"].iterdir()) == [], "root executed the other user's code"
    try:
        assert os.read(planted["reader"], 1) == b"", "a byte was written into root's pipe"
    except BlockingIOError:
        pass
    for path in planted["out"].rglob("*"):
        if path.is_file():
            assert SECRET not in path.read_text(errors="replace"), f"root's secret copied into {path}"


def test_root_leaves_another_users_job_alone_unless_asked(planted):
    done = run_ncclf("capture", "--out", str(planted["out"]), "--no-debug-server", timeout=120)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "left alone" in done.stdout and "uid 65534" in done.stdout
    doc = json.loads((planted["out"] / host_label() / "manifest.json").read_text())
    assert doc["job"] is None
    assert any("uid 65534" in n for n in doc["notes"])
    _nothing_leaked(planted)


@pytest.mark.parametrize("how", ["--pid", "--user"])
def test_named_it_is_captured_without_running_or_copying_anything_of_roots(planted, how):
    target = str(planted["rank"].pid) if how == "--pid" else "nobody"
    done = run_ncclf("capture", how, target, "--out", str(planted["out"]), "--timeout", "20", timeout=180)
    bundle = planted["out"] / host_label()
    doc = json.loads((bundle / "manifest.json").read_text())
    assert doc["job"] is not None and [r["pid"] for r in doc["ranks"]] == [planted["rank"].pid], done.stdout
    failed = {(f["kind"], f.get("source", "")): f.get("reason", "") for f in doc["failed"]}
    assert any(kind == "nccl_log" and "not by the job's user" in why for (kind, _), why in failed.items()), failed
    assert any(kind == "flight_recorder" and "not by the job's user" in why for (kind, _), why in failed.items())
    assert any(kind == "torchrun_logs" and "symbolic link" in why for (kind, _), why in failed.items()), failed
    assert any(kind == "fr_pipe" and "not by the rank's user" in why for (kind, _), why in failed.items()), failed
    _nothing_leaked(planted)
    assert stat.S_IMODE(bundle.stat().st_mode) == 0o700
    for path in bundle.rglob("*"):
        mode = stat.S_IMODE(path.lstat().st_mode)
        assert mode & 0o077 == 0, f"{path} is {oct(mode)}"
