"""The shared training loop of the reproducer trainers (run under torchrun, one process per rank).

Each step: load a batch, forward, backward (DDP all-reduces or FSDP2 reduce-scatters the gradients),
average the metrics with one explicit all_reduce (timed), optimizer step, then one progress line:
`step 3 | loss 3.2145 | tokens/s 4096 | allreduce 0.81 ms`.
The fault named by the plan (see plan.py) is injected by the trainer itself at its step and rank.
"""
from __future__ import annotations

import argparse
import datetime
import os
import signal
import time

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.distributed.elastic.multiprocessing.errors import record

from . import frdump
from .data import load_batch
from .memory import cache_batches_forever, cache_on_gpu_forever
from .metrics import sync_metrics
from .plan import FaultPlan


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description="tiny reproducer trainer (run with torchrun)")
    p.add_argument("--steps", type=int, default=8)
    p.add_argument("--batch", type=int, default=8)
    p.add_argument("--seq", type=int, default=32)
    p.add_argument("--vocab", type=int, default=32)
    p.add_argument("--lr", type=float, default=1e-2)
    p.add_argument("--pg-timeout", type=float, default=30.0, help="process-group timeout (s)")
    p.add_argument("--backend", choices=["gloo", "nccl"], default="gloo")
    return p.parse_args(argv)


def run(build_model, wrap, argv=None) -> None:
    """Entry point shared by train_gpt_ddp.py and train_llama_fsdp2.py."""
    record(_train)(build_model, wrap, parse_args(argv))


def _train(build_model, wrap, args: argparse.Namespace) -> None:
    dist.init_process_group(args.backend, timeout=datetime.timedelta(seconds=args.pg_timeout))
    try:
        _loop(build_model, wrap, args)
    except Exception:
        frdump.dump()
        raise
    frdump.dump()
    dist.barrier()               # no rank tears gloo down while a peer's work is in flight: CI saw rank 0 of a
    dist.destroy_process_group()  # healthy 4-rank run abort at exit ("terminate called without an active exception")


def _loop(build_model, wrap, args: argparse.Namespace) -> None:
    rank, world = dist.get_rank(), dist.get_world_size()
    device = torch.device(f"cuda:{os.environ['LOCAL_RANK']}" if args.backend == "nccl" else "cpu")
    torch.manual_seed(0)
    model = wrap(build_model(args.vocab, args.seq).to(device), device)
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    plan = FaultPlan.from_env()
    for step in range(1, args.steps + 1):
        start = time.perf_counter()
        tokens = load_batch(plan, rank, step, args.batch, args.seq, args.vocab, late_s=args.pg_timeout + 3).to(device)
        logits = model(tokens[:, :-1])
        loss = F.cross_entropy(logits.reshape(-1, args.vocab), tokens[:, 1:].reshape(-1))
        if plan.at(rank, step) == "dropped-rank":
            os.kill(os.getpid(), signal.SIGKILL)            # dies mid-step, between forward and backward
        loss.backward()
        if plan.at(rank, step) == "cgroup-oom":
            cache_batches_forever()
        if plan.at(rank, step) == "cuda-oom":
            cache_on_gpu_forever(device)
        stats = torch.tensor([loss.item(), tokens[:, 1:].numel(), 0.0, 0.0], device=device)
        stats, allreduce_ms = sync_metrics(stats, plan, rank, step, late_s=args.pg_timeout + 3)
        opt.step()
        opt.zero_grad(set_to_none=True)
        elapsed = time.perf_counter() - start
        print(f"step {step} | loss {stats[0].item() / world:.4f} | tokens/s {stats[1].item() / elapsed:.0f}"
              f" | allreduce {allreduce_ms:.2f} ms", flush=True)
