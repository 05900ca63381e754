"""A tiny gloo job that hangs for real, for the capture tests (run under torchrun; CPU-light: the hang sleeps).

    HANG_MODE=sleep|barrier HANG_RANK=R HANG_STEP=K [HANG_DEBUG_SERVER=1] torchrun ... hang_job.py

Every rank all-reduces a small tensor once per step and prints `step K`; at step K rank R either sleeps
outside any collective (`sleep`) or calls `barrier()` where the others call `all_reduce` (`barrier`: gloo
has no size check there, so both sides wait forever). With HANG_DEBUG_SERVER=1 every rank first starts
torch's debug server (worker servers on ephemeral ports, rank 0's frontend on HANG_FRONTEND_PORT).
"""
import datetime
import os
import time

import torch
import torch.distributed as dist


def main() -> None:
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=float(os.environ.get("HANG_PG_TIMEOUT", "300"))))
    if os.environ.get("HANG_DEBUG_SERVER") == "1":
        from torch.distributed.debug import start_debug_server

        start_debug_server(port=int(os.environ.get("HANG_FRONTEND_PORT", "0")),
                           dump_dir=os.environ.get("HANG_DUMP_DIR"), dump_interval=3600)
    rank, mode = dist.get_rank(), os.environ.get("HANG_MODE", "sleep")
    culprit, at_step = int(os.environ.get("HANG_RANK", "1")), int(os.environ.get("HANG_STEP", "3"))
    stats = torch.ones(4)
    for step in range(1, 10_000):
        if rank == culprit and step == at_step:
            if mode == "sleep":
                wait_for_data()
            else:
                dist.barrier()
        dist.all_reduce(stats)
        print(f"step {step}", flush=True)
        time.sleep(0.05)


def wait_for_data() -> None:
    """The culprit's bug: it waits for a file that never comes, outside any collective."""
    while True:
        time.sleep(1.0)


if __name__ == "__main__":
    main()
