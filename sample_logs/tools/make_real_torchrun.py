"""Produce REAL torchrun/elastic output on this machine (gloo, CPU) for sample_logs/evidence/real/.

Two runs, each `torchrun --nproc_per_node 2 --master_addr 127.0.0.1 --master_port <free> --log-dir <dir>
--tee 3 --monitor-interval <n>` over a tiny script:

- `raise`: rank 1 raises inside an `@record`-decorated main, so torchelastic writes error.json and prints
  the ChildFailedError summary with a traceback.
- `fingerprint`: with TORCH_DISTRIBUTED_DEBUG=DETAIL, rank 1 all_reduces a float64 tensor while rank 0
  uses float32, which raises the real "Detected mismatch between collectives on ranks" message.

Console output goes to `<out>/<name>/console.log`, the --log-dir tree to `<out>/<name>/logs/`.
Every process started here runs in its own session and the whole group is killed on the way out.

Usage: python sample_logs/tools/make_real_torchrun.py [OUT_DIR]   (default sample_logs/evidence/real/torchrun)
"""
from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

WORKER = r'''
import os, sys
import torch
import torch.distributed as dist
from torch.distributed.elastic.multiprocessing.errors import record

@record
def main():
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    mode = sys.argv[1]
    x = torch.ones(8)
    dist.all_reduce(x)
    if mode == "raise" and rank == 1:
        raise ValueError("rank 1 failed on purpose (ncclf sample)")
    if mode == "fingerprint":
        y = torch.ones(1024, dtype=torch.float64 if rank == 1 else torch.float32)
        dist.all_reduce(y)
    dist.barrier()
    dist.destroy_process_group()

if __name__ == "__main__":
    main()
'''

RUNS = {
    "raise": {"env": {}, "monitor": "1"},
    "fingerprint": {"env": {"TORCH_DISTRIBUTED_DEBUG": "DETAIL"}, "monitor": "1"},
}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_one(name: str, out: Path, script: Path, timeout: float = 120) -> int:
    target = out / name
    shutil.rmtree(target, ignore_errors=True)
    (target / "logs").mkdir(parents=True)
    cmd = [
        "torchrun", "--nproc_per_node", "2", "--master_addr", "127.0.0.1",
        "--master_port", str(free_port()), "--log-dir", str(target / "logs"),
        "--tee", "3", "--monitor-interval", RUNS[name]["monitor"], str(script), name,
    ]
    env = {**os.environ, **RUNS[name]["env"], "OMP_NUM_THREADS": "1"}
    with open(target / "console.log", "wb") as console:
        proc = subprocess.Popen(cmd, stdout=console, stderr=subprocess.STDOUT, env=env,
                                cwd=script.parent, start_new_session=True)
        try:
            return proc.wait(timeout=timeout)
        finally:
            kill_group(proc)


def kill_group(proc: subprocess.Popen) -> None:
    """Kill the session this run started (torchrun and its workers), and only that."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait()


def main() -> None:
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "sample_logs/evidence/real/torchrun").resolve()
    with tempfile.TemporaryDirectory(prefix="ncclf_real_") as tmp:
        script = Path(tmp) / "worker.py"
        script.write_text(WORKER)
        for name in RUNS:
            rc = run_one(name, out, script)
            print(f"{name}: torchrun exit code {rc} -> {out / name}")


if __name__ == "__main__":
    main()
