"""The multi-node layout: the same `ncclf capture --out /shared/cap` on every node (srun, pdsh, kubectl exec) writes
`<out>/<host>/` per node, named by each node's own host name. Simulated with one UTS namespace per "node"
(`unshare -u`, its own host name), as srun runs one task per node."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

FAKE_RANK = "import time; time.sleep(60)"
pytestmark = pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("unshare"), reason="needs root and unshare")


def on_node(host: str, *args: str) -> subprocess.CompletedProcess:
    """Run `python -m nccl_forensics ARGS` as if on node `host` (its own host name)."""
    command = " ".join([f"hostname {host} &&", sys.executable, "-m", "nccl_forensics", *args])
    return subprocess.run(["unshare", "-u", "sh", "-c", command], capture_output=True, text=True, timeout=120)


def test_each_node_writes_its_own_folder_named_by_its_host(tmp_path):
    env = {**os.environ, "WORLD_SIZE": "2", "MASTER_ADDR": "10.0.0.1", "MASTER_PORT": "29500"}
    ranks = [subprocess.Popen([sys.executable, "-c", FAKE_RANK], env={**env, "RANK": str(r), "LOCAL_RANK": "0"})
             for r in (0, 1)]
    try:
        for host, proc in zip(("node-a", "node-b"), ranks, strict=True):
            done = on_node(host, "capture", "--pid", str(proc.pid), "--out", str(tmp_path / "cap"), "--no-debug-server")
            assert done.returncode == 0, done.stdout + done.stderr
    finally:
        for proc in ranks:
            proc.kill()
            proc.wait()
    assert sorted(p.name for p in (tmp_path / "cap").iterdir()) == ["node-a", "node-b"]
    docs = {h: json.loads((tmp_path / "cap" / h / "manifest.json").read_text()) for h in ("node-a", "node-b")}
    assert {h: (d["host"], d["hostname"], [r["rank"] for r in d["ranks"]]) for h, d in docs.items()} == \
        {"node-a": ("node-a", "node-a", [0]), "node-b": ("node-b", "node-b", [1])}
    assert docs["node-a"]["job"]["label"] == docs["node-b"]["job"]["label"] == "job-10.0.0.1-29500"
