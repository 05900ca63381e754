"""A real capture of a small Python "rank" started with planted secrets on its command line and in its
environment: no secret is anywhere in the bundle (manifest, py-spy's `Process N: <command line>` header, notes)."""
from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from nccl_forensics.capture.redact import redact_argv
from nccl_forensics.capture.tools import find_tool

from .conftest import run_ncclf

SECRETS = ["hunter2-pw", "tok-y-7788", "short-p-value", "urlpass-99", "envtoken-42", "hf_" + "A" * 34,
           "querykey-5", "attached-p"]
ARGV = ["--password", SECRETS[0], "--token=" + SECRETS[1], "--use-auth", "-p", SECRETS[2],
        f"https://bob:{SECRETS[3]}@example.invalid/repo", f"HF_TOKEN={SECRETS[4]}", SECRETS[5],
        f"http://h/x?api_key={SECRETS[6]}&page=2", "-p" + SECRETS[7], "--lr", "0.1"]


def test_every_form_is_redacted():
    out = redact_argv(["python", "train.py", *ARGV])
    assert not any(s in " ".join(out) for s in SECRETS), out
    assert out[-2:] == ["--lr", "0.1"] and out[:2] == ["python", "train.py"]


@pytest.mark.skipif(find_tool("py-spy") is None, reason="py-spy is not installed")
def test_a_captured_bundle_holds_no_planted_secret(tmp_path):
    script = tmp_path / "train.py"
    script.write_text("import time\ntime.sleep(120)\n")
    env = {**os.environ, "RANK": "0", "WORLD_SIZE": "1", "LOCAL_RANK": "0", "MASTER_ADDR": "127.0.0.1",
           "MASTER_PORT": "1", "WANDB_API_KEY": "wandb-secret-31", "NCCL_IB_SECRET_THING": "nccl-secret-32",
           "NCCLF_SECRET_JOB": "marker"}
    rank = subprocess.Popen([sys.executable, str(script), *ARGV], env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 20
        while b"RANK=0" not in Path(f"/proc/{rank.pid}/environ").read_bytes() and time.monotonic() < deadline:
            time.sleep(0.05)
        done = run_ncclf("capture", "--pid", str(rank.pid), "--out", str(tmp_path / "cap"), "--no-debug-server",
                         timeout=120)
    finally:
        rank.kill()
        rank.wait()
    files = [p for p in (tmp_path / "cap").rglob("*") if p.is_file()]
    assert any(p.parent.name == "pyspy" for p in files), done.stdout + done.stderr
    header = next(p for p in files if p.parent.name == "pyspy").read_text().splitlines()[0]
    assert header.startswith(f"Process {rank.pid}:") and "--lr 0.1" in header, header
    for path in files:
        data = path.read_bytes()
        for secret in [*SECRETS, "wandb-secret-31", "nccl-secret-32"]:
            assert secret.encode() not in data, f"{secret} in {path}"
    assert not any(s in done.stdout + done.stderr for s in SECRETS)
