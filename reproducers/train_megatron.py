"""Reproducer trainer shaped like a large-model job: Megatron-style process groups on 8 processes (run with
torchrun; gloo on CPU, nccl on GPUs).

--layout megatron: TP 2 x PP 2 x DP 2 (rank = tp + 2 * (dp + 2 * pp), Megatron's order). Each step runs two
micro-batches through two pipeline stages with real send/recv in the pipeline group, a tensor-parallel
all_reduce per layer, a backward pass that sends the gradient back, then the data-parallel gradient
reduce_scatter, grad-norm all_reduce and parameter all_gather.
--layout moe: EP 4 x DP 2 (rank = ep + 4 * dp). Each layer routes tokens to experts with all_to_all_single
of uneven splits (counts exchanged first, then the tokens, then the combine back), then expert-data-parallel
all_reduce of the expert gradients and a world all_reduce of the loss.

Every group is created on every rank, in the same order, with Megatron's group_desc (so the dumps carry
TENSOR_MODEL_PARALLEL_GROUP, EXPERT_MODEL_PARALLEL_GROUP, ...). Faults (plan.py, `NCCLF_REPRO_FAULT`), at
their step and rank:
  mp-dead      the process dies mid-step (SIGKILL, as an accelerator error or the OOM killer would end it);
  mp-gil       the main thread blocks in a C call that holds the GIL (ctypes.PyDLL sleep): no Python runs,
               not even the dump thread; SIGKILL still ends it;
  mp-wedged    the main thread blocks in a C call outside Python (ctypes.CDLL sleep releases the GIL);
  mp-slow      before its data-parallel collectives, from that step on, the rank sleeps 0.4 s (a straggler
               in one group: the others in that group wait for it, the job completes);
  mp-skip      the rank skips its grad-norm all_reduce in the data-parallel group once.
"""
import signal

from nccl_forensics.libc import die_with_parent
from nccl_forensics.reproducers import frdump

die_with_parent(signal.SIGTERM)  # a rank ends with its launcher (frdump: after its dump)
frdump.install()   # before torch starts any thread

import argparse  # noqa: E402
import ctypes  # noqa: E402
import ctypes.util  # noqa: E402
import datetime  # noqa: E402
import os  # noqa: E402
import signal  # noqa: E402
import time  # noqa: E402

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
from torch.distributed.elastic.multiprocessing.errors import record  # noqa: E402

from nccl_forensics.reproducers.plan import FaultPlan  # noqa: E402

HIDDEN = 32
WEDGE_S = 3600          # a wedged rank's C call; the harness ends it long before (SIGKILL)


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description="Megatron-shaped reproducer trainer (run with torchrun, 8 processes)")
    p.add_argument("--steps", type=int, default=6)
    p.add_argument("--pg-timeout", type=float, default=30.0)
    p.add_argument("--backend", choices=["gloo", "nccl"], default="gloo")
    p.add_argument("--layout", choices=["megatron", "moe"], default="megatron")
    return p.parse_args(argv)


class Layout:
    """The rank's groups: kind -> (group, its global ranks)."""

    def __init__(self, layout: str, world: int, rank: int):
        self.kind = layout
        self.groups: dict[str, tuple] = {}
        if layout == "megatron":
            if world != 8:
                raise SystemExit("--layout megatron needs 8 processes (TP 2 x PP 2 x DP 2)")
            at = lambda t, d, p: t + 2 * (d + 2 * p)          # noqa: E731
            self._make("tp", "TENSOR_MODEL_PARALLEL_GROUP", [[at(t, d, p) for t in range(2)]
                                                              for p in range(2) for d in range(2)], rank)
            self._make("pp", "PIPELINE_MODEL_PARALLEL_GROUP", [[at(t, d, p) for p in range(2)]
                                                                for t in range(2) for d in range(2)], rank)
            self._make("dp", "DATA_PARALLEL_GROUP", [[at(t, d, p) for d in range(2)]
                                                      for p in range(2) for t in range(2)], rank)
            self.stage = rank // 4
        else:
            if world != 8:
                raise SystemExit("--layout moe needs 8 processes (EP 4 x DP 2)")
            self._make("ep", "EXPERT_MODEL_PARALLEL_GROUP", [[e + 4 * d for e in range(4)] for d in range(2)], rank)
            self._make("dp", "EXPERT_DATA_PARALLEL_GROUP", [[e + 4 * d for d in range(2)] for e in range(4)], rank)

    def _make(self, kind: str, desc: str, all_ranks: list[list[int]], rank: int) -> None:
        for ranks in all_ranks:                  # every rank creates every group, in the same order
            group = dist.new_group(ranks, group_desc=desc)
            if rank in ranks:
                self.groups[kind] = (group, ranks)

    def group(self, kind: str):
        return self.groups[kind][0]

    def peer(self, kind: str, offset: int, rank: int) -> int:
        ranks = self.groups[kind][1]
        return ranks[(ranks.index(rank) + offset) % len(ranks)]


def fault(plan: FaultPlan, rank: int, step: int, name: str) -> bool:
    return plan.at(rank, step) == name


def wedge(plan: FaultPlan, rank: int, step: int) -> None:
    """mp-dead / mp-gil / mp-wedged happen here, in the middle of the step."""
    if fault(plan, rank, step, "mp-dead"):
        os.kill(os.getpid(), signal.SIGKILL)
    libc = ctypes.util.find_library("c") or "libc.so.6"
    if fault(plan, rank, step, "mp-gil"):
        ctypes.PyDLL(libc).sleep(WEDGE_S)        # PyDLL: the GIL stays held for the whole call
    if fault(plan, rank, step, "mp-wedged"):
        ctypes.CDLL(libc).sleep(WEDGE_S)         # CDLL: released; the main thread is stuck outside Python


def megatron_step(lay: Layout, rank: int, step: int, plan: FaultPlan, weight: torch.Tensor) -> float:
    tp, pp = lay.group("tp"), lay.group("pp")
    other = lay.peer("pp", 1, rank)
    grads = torch.zeros_like(weight)
    loss = 0.0
    for micro in range(2):                       # forward
        if lay.stage == 0:
            h = torch.randn(8, HIDDEN, generator=torch.Generator().manual_seed(step * 10 + micro)) @ weight
        else:
            h = torch.empty(8, HIDDEN)
            dist.recv(h, src=other, group=pp)
            h = h @ weight
        dist.all_reduce(h, group=tp)             # row-parallel output
        if micro == 1:
            wedge(plan, rank, step)
        if lay.stage == 0:
            dist.send(h.contiguous(), dst=other, group=pp)
        else:
            loss += float(h.pow(2).mean())
    for _ in range(2):                           # backward
        g = torch.empty(8, HIDDEN)
        if lay.stage == 1:
            g = torch.ones(8, HIDDEN) * 0.01
        else:
            dist.recv(g, src=other, group=pp)
        dist.all_reduce(g, group=tp)
        grads += g.t() @ torch.ones(8, HIDDEN) / 8
        if lay.stage == 1:
            dist.send(g.contiguous(), dst=other, group=pp)
    data_parallel(lay, rank, step, plan, grads)
    weight -= 1e-3 * grads
    return loss


def data_parallel(lay: Layout, rank: int, step: int, plan: FaultPlan, grads: torch.Tensor) -> None:
    dp = lay.group("dp")
    n = len(lay.groups["dp"][1])
    if plan.from_step_on(rank, step) == "mp-slow":
        time.sleep(0.4)
    flat = grads.reshape(-1)
    shard = torch.empty(flat.numel() // n)
    dist.reduce_scatter_tensor(shard, flat, group=dp)
    norm = shard.pow(2).sum().reshape(1)
    if not fault(plan, rank, step, "mp-skip"):
        dist.all_reduce(norm, group=dp)          # grad norm
    out = torch.empty(flat.numel())
    dist.all_gather_into_tensor(out, shard, group=dp)
    grads.copy_(out.reshape(grads.shape) / n)


def moe_step(lay: Layout, rank: int, step: int, plan: FaultPlan, weight: torch.Tensor, world) -> float:
    ep = lay.group("ep")
    members = lay.groups["ep"][1]
    n = len(members)
    me = members.index(rank)
    loss = 0.0
    grads = torch.zeros_like(weight)
    for layer in range(2):
        tokens = 8 + (me + step + layer) % 5     # uneven: each rank routes a different number of tokens
        x = torch.randn(tokens, HIDDEN, generator=torch.Generator().manual_seed(step * 100 + rank * 10 + layer))
        expert = torch.tensor([(i * 3 + me + layer) % n for i in range(tokens)])
        order = torch.argsort(expert, stable=True)
        send_counts = torch.bincount(expert, minlength=n)
        recv_counts = torch.empty(n, dtype=torch.long)
        dist.all_to_all_single(recv_counts, send_counts, group=ep)          # the counts, one per peer
        if layer == 1:
            wedge(plan, rank, step)
        sends, recvs = send_counts.tolist(), recv_counts.tolist()
        received = torch.empty(sum(recvs), HIDDEN)
        dist.all_to_all_single(received, x[order].contiguous(), output_split_sizes=recvs, input_split_sizes=sends,
                               group=ep)                                    # dispatch
        out = received @ weight
        grads += received.t() @ out / max(1, out.shape[0])
        back = torch.empty(tokens, HIDDEN)
        dist.all_to_all_single(back, out.contiguous(), output_split_sizes=sends, input_split_sizes=recvs,
                               group=ep)                                    # combine
        loss += float(back.pow(2).mean())
    data_parallel(lay, rank, step, plan, grads)
    total = torch.tensor([loss])
    dist.all_reduce(total)                       # the loss, over the world
    weight -= 1e-4 * grads
    return float(total) / world


@record
def main() -> None:
    args = parse_args()
    dist.init_process_group(args.backend, timeout=datetime.timedelta(seconds=args.pg_timeout))
    try:
        train(args)
    except Exception:
        frdump.dump()
        raise
    frdump.dump()
    dist.barrier()
    dist.destroy_process_group()


def train(args) -> None:
    rank, world = dist.get_rank(), dist.get_world_size()
    lay = Layout(args.layout, world, rank)
    plan = FaultPlan.from_env()
    weight = torch.eye(HIDDEN) + 0.01 * torch.randn(HIDDEN, HIDDEN, generator=torch.Generator().manual_seed(0))
    for step in range(1, args.steps + 1):
        start = time.perf_counter()
        loss = (megatron_step(lay, rank, step, plan, weight) if lay.kind == "megatron"
                else moe_step(lay, rank, step, plan, weight, world))
        elapsed = time.perf_counter() - start
        print(f"step {step} | loss {loss:.4f} | tokens/s {16 / elapsed:.0f} | allreduce 0.00 ms", flush=True)


if __name__ == "__main__":
    main()
