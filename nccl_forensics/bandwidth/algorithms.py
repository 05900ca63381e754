"""What each backend's algorithm makes a rank do for one collective: the bytes it sends and receives, and the
bytes it copies in its own memory. `cost` and `probe --link` price NCCL's; a measured gloo run is predicted
from gloo's (the sizes are nccl-tests': the whole buffer, S = count × element size; n ranks).

NCCL (ring; nccl-tests' PERFORMANCE.md): allreduce sends and receives 2(n−1)/n·S per rank; allgather and
reduce-scatter (n−1)/n·S; broadcast S (a pipelined chain).

gloo, as torch's ProcessGroupGloo calls it on CPU tensors (read from gloo/allreduce.cc, allgather.cc,
broadcast.cc and torch/csrc/distributed/c10d/ProcessGroupGloo.cpp):
- allreduce: gloo's ring (the default algorithm): reduce-scatter then allgather over 1 MB segments, 2(n−1)/n·S
  each way, the reduction folded in.
- allgather (`all_gather_into_tensor` → `_allgather_base` → `allgather`): a new flat output of S bytes each
  call, the rank's S/n copied into it, a ring of (n−1)/n·S each way, then the S bytes copied out to the
  caller's tensor.
- reduce-scatter (`reduce_scatter_tensor` → `reduce_scatter_tensor_coalesced`): a clone of the whole S-byte
  input (a new buffer), an allreduce of it (the ring above, 2(n−1)/n·S each way), then its S/n chunk copied
  out: twice the bytes on the wire of NCCL's reduce-scatter, and a copy more.
- broadcast: a binomial tree, ⌈log2 n⌉ rounds of the whole S; the root sends S in each round, unpipelined.
  No rank sends and receives at once: every transfer is one way (a ring's ranks all send and receive at once).

Where the bytes go decides the time per byte: a network link carries each direction on its own (a rank's time
follows the larger of what it sends and receives); ranks on one host (gloo over TCP loopback) pay a kernel copy
for each byte sent and each byte received, so the time follows their sum. There a ring's exchange, every
rank sending and receiving at once, keeps a sender and a receiver per rank copying at the same time; a one-way
transfer keeps one pair busy. On a host with fewer free cores than that (a 2-core host, or a loaded one) a byte
of an exchange costs more than a byte sent one way, so a measured one-host run prices the two apart (probe.py).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from .cost import bus_factor

BACKENDS = ("nccl", "gloo")
GLOO_OPS = ("allreduce", "allgather", "reducescatter", "broadcast")


@dataclass(frozen=True)
class Volume:
    """Bytes the busiest rank moves in one collective."""
    sent: float
    received: float
    copied: float = 0.0        # memcpy within the rank's memory
    fresh: float = 0.0         # a buffer allocated per call and written for the first time (page faults)
    duplex: bool = True        # every rank sends and receives at once (a ring); False: each transfer one way

    def wire_bytes(self, one_host: bool) -> float:
        """The bytes that set the transfer time: both directions' sum on one host (each is a copy by the
        host's CPUs), the larger direction on a full-duplex link."""
        return self.sent + self.received if one_host else max(self.sent, self.received)


def volume(backend: str, op: str, size: float, n: int) -> Volume:
    """The bytes of `op` on `size` bytes over `n` ranks under `backend`'s algorithm (NCCL's for other ops)."""
    if n <= 1:
        return Volume(0.0, 0.0)
    if backend == "gloo" and op in GLOO_OPS:
        return _gloo(op, size, n)
    moved = bus_factor(op, n) * size
    return Volume(moved, moved)


def _gloo(op: str, size: float, n: int) -> Volume:
    ring = (n - 1) / n * size
    if op == "allreduce":
        return Volume(2 * ring, 2 * ring)
    if op == "allgather":
        return Volume(ring, ring, copied=size / n + size, fresh=size)
    if op == "reducescatter":
        return Volume(2 * ring, 2 * ring, copied=size + size / n, fresh=size)
    rounds = math.ceil(math.log2(n))             # broadcast: the root sends the whole buffer each round
    return Volume(rounds * size, 0.0, duplex=False)


def describe(backend: str, op: str) -> str:
    """One line naming the algorithm `op` runs under `backend`, for a table's caption."""
    if backend != "gloo" or op not in GLOO_OPS:
        return f"NCCL's ring: {_NCCL_TEXT.get(op, 'bus factor × S')} each way per rank"
    return _GLOO_TEXT[op]


_NCCL_TEXT = {"allreduce": "2(n-1)/n·S", "allgather": "(n-1)/n·S", "reducescatter": "(n-1)/n·S",
              "alltoall": "(n-1)/n·S", "broadcast": "S", "reduce": "S", "sendrecv": "S"}
_GLOO_TEXT = {
    "allreduce": "gloo's ring allreduce: 2(n-1)/n·S sent and received per rank",
    "allgather": "gloo's ring allgather: (n-1)/n·S sent and received per rank, plus a new S-byte buffer per "
                 "call and S + S/n bytes copied",
    "reducescatter": "gloo's reduce-scatter is an allreduce of a clone: 2(n-1)/n·S sent and received per rank, "
                     "plus a new S-byte buffer per call and S + S/n bytes copied",
    "broadcast": "gloo's binomial-tree broadcast: ⌈log2 n⌉ rounds of S, sent by the root",
}
