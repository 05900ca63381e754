"""Held-out set 47: real pastes found through stored public pages (a blog on an NVIDIA/nccl thread, a project's docs,
axolotl's NCCL notes, a gloo issue, a blog's 2-node run) about multi-node jobs that failed in NCCL, gloo or
torch.distributed, and one healthy gloo run: an IB queue pair that could not be set up, a store port already in use,
a watchdog timeout alone, a gloo recv timeout that names no peer. One verdict test per case; all read right at first
sight, so the set changes no code.
"""
from __future__ import annotations

import pytest

from .consoles import check_case

CASES = [
    ("blog.gitcode.com/86e4dc9e (NVIDIA/nccl, vLLM on 2 IB nodes)", ("network_error",), None,
     "Call to ibv_modify_qp failed with error No such device errno 19\n"
     "Call to ibv_set_ece failed with error Operation not supported errno 95\n"
     "NCCL error: unhandled system error\n"),
    ("nano-vllm docs/torch_distributed_port_issue.md", ("unclassified_failure",), None,
     "torch.distributed.DistNetworkError: The server socket has failed to listen on any local network address.\n"
     "port: 2333, useIpv6: false, code: -98, name: EADDRINUSE, message: address already in use\n"),
    ("axolotl docs/nccl.qmd", ("timeout_unknown",), None,
     "Watchdog caught collective operation timeout: WorkNCCL(SeqNum=42, OpType=ALLGATHER, Timeout(ms)=1800000) ran "
     "for 1806948 milliseconds before timing out.\n"),
    ("pytorch/gloo#511", ("timeout_unknown",), None,
     "[trainer22|6]:RuntimeError: [gloo/transport/tcp/unbound_buffer.cc:81] Timed out waiting 1800000ms for recv "
     "operation to complete\n"),
    ("lzwjava blog: 2-node CPU gloo DDP", ("none", "inconclusive"), None,
     "TRAINING RESULTS (2 nodes, CPU, Gloo backend)\nStep | Loss | tok/sec | Validation bpb\n"
     + "".join(f"{s} | {loss} | {tok} |\n" for s, loss, tok in ((0, 10.397789, 72), (5, 10.394717, 125),
                                                               (9, 10.388018, 134)))
     + "Checkpoint saved: model_000010.pt (both ranks)\n"),
]


@pytest.mark.parametrize("source,want,culprits,text", CASES, ids=[case[0] for case in CASES])
def test_each_case_of_the_set(source, want, culprits, text, tmp_path):
    check_case(tmp_path, (text, want, culprits), progress="")
