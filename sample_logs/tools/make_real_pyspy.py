"""Make real py-spy dumps of a 2-rank gloo job where rank 1 never enters the collective.

Rank 0 blocks in `all_reduce`; rank 1 sleeps outside it. For each rank this runs `py-spy dump --pid P`
(plain, `--locals`, `--json`) and writes the output to sample_logs/evidence/pyspy/real/. Afterwards it
kills exactly the two worker processes it started and checks that neither is left.

Usage: python sample_logs/tools/make_real_pyspy.py [OUT_DIR]
Needs torch (gloo) and py-spy, and permission to ptrace the workers (root, or ptrace_scope 0).
"""
from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_OUT = HERE.parent / "evidence" / "pyspy" / "real"
DUMPS = [("pyspy.txt", []), ("pyspy-locals.txt", ["--locals"]), ("pyspy.json", ["--json"])]


def worker(rank: int, port: str) -> None:
    """One rank: rank 0 blocks in all_reduce, rank 1 never joins (sleeps outside the collective)."""
    import datetime

    import torch
    import torch.distributed as dist

    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=2,
                            timeout=datetime.timedelta(seconds=600))
    print(f"rank {rank} initialised", flush=True)
    if rank == 0:
        dist.all_reduce(torch.ones(1024))   # blocks: rank 1 never joins
    else:
        time.sleep(600)                     # the straggler, outside any collective


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def py_spy(pid: int, *extra: str) -> str:
    done = subprocess.run(["py-spy", "dump", "--pid", str(pid), *extra],
                          capture_output=True, text=True, timeout=60)
    return done.stdout + done.stderr


def wait_until_blocked(pid: int, frame: str, deadline: float) -> None:
    """Poll py-spy until the main thread shows `frame` (a `name (file:line)` prefix)."""
    while time.monotonic() < deadline:
        if f"\n    {frame}" in py_spy(pid):
            return
        time.sleep(1)
    raise SystemExit(f"pid {pid} never reached {frame!r}")


def stop(procs: list[subprocess.Popen]) -> None:
    """Kill exactly the processes this script started, then prove they are gone."""
    for proc in procs:
        if proc.poll() is None:
            proc.kill()
    for proc in procs:
        proc.wait(timeout=30)
    left = [p.pid for p in procs if Path(f"/proc/{p.pid}").exists()]
    if left:
        raise SystemExit(f"worker processes still present: {left}")


def main(out_dir: Path) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    port = str(free_port())
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    procs = [subprocess.Popen([sys.executable, __file__, "--worker", str(rank), port], env=env)
             for rank in (0, 1)]
    try:
        deadline = time.monotonic() + 120
        wait_until_blocked(procs[0].pid, "all_reduce (", deadline)
        wait_until_blocked(procs[1].pid, "worker (make_real_pyspy.py", deadline)
        time.sleep(2)
        for rank, proc in enumerate(procs):
            for suffix, extra in DUMPS:
                path = out_dir / f"rank{rank}.{suffix}"
                path.write_text(py_spy(proc.pid, *extra))
                print(f"wrote {path}")
    finally:
        stop(procs)
    print("workers stopped:", ", ".join(str(p.pid) for p in procs))


if __name__ == "__main__":
    if sys.argv[1:2] == ["--worker"]:
        worker(int(sys.argv[2]), sys.argv[3])
        sys.exit(0)
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_OUT)
