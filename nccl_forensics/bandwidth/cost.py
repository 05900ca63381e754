"""First-principles communication cost: predict, then verify (with `ncclf probe`).

A collective over n ranks moves `bus_factor(n) × S` bytes through each rank's link (nccl-tests'
bus-bandwidth factors, see PERFORMANCE.md in nccl-tests):

    allreduce                        2(n−1)/n
    reducescatter, allgather, alltoall (n−1)/n
    broadcast, reduce, sendrecv      1

so T = bus_factor(n) × S / (link bandwidth × efficiency). Link bandwidths are per direction, per rank.
Example: GPT-2 760M, bf16 gradients (S = 1.52 GB), 2 ranks, 1GbE at 85%:
2·1/2 · 1.52e9 B · 8 / (1e9 · 0.85) = 14.3 s per step.

With nodes × GPUs per node and an intra-node link, the estimate is hierarchical: a ring over the g GPUs of a
node on the intra-node link, plus a ring over the N nodes on the inter-node link carrying S/g per GPU (one NIC
rail per GPU, as on rail-optimised clusters).
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

# Per-direction bandwidth per rank, in Gbit/s.
LINKS: dict[str, float] = {
    "1GbE": 1, "2.5GbE": 2.5, "10GbE": 10, "25GbE": 25, "100GbE": 100, "200GbE": 200, "400GbE": 400,
    "RoCE-25": 25, "RoCE-100": 100, "RoCE-200": 200, "RoCE-400": 400,
    "IB-EDR": 100, "IB-HDR": 200, "IB-NDR": 400, "IB-XDR": 800,
    "PCIe-gen4": 256, "PCIe-gen5": 512,            # x16: 32 / 64 GB/s per direction
    "NVLink3": 2400, "NVLink4": 3600, "NVLink5": 7200,   # A100 300, H100 450, B200 900 GB/s per direction
    "xGMI": 3584,                                  # MI300X: 448 GB/s per direction (7 links)
}
_LINK_ALIASES = {name.lower().replace("-", "").replace("_", ""): name for name in LINKS}
_LINK_ALIASES.update({"400groce": "RoCE-400", "400gib": "IB-NDR", "200gib": "IB-HDR", "100gib": "IB-EDR",
                      "400g": "400GbE", "200g": "200GbE", "100g": "100GbE", "25g": "25GbE", "10g": "10GbE"})

DTYPE_BYTES = {"fp32": 4, "float32": 4, "tf32": 4, "bf16": 2, "bfloat16": 2, "fp16": 2, "float16": 2,
               "fp8": 1, "int8": 1, "fp64": 8, "float64": 8}

COLLECTIVES = ("allreduce", "allgather", "reducescatter", "broadcast", "reduce", "alltoall", "sendrecv")


def bus_factor(collective: str, n: int) -> float:
    """Bytes through each rank's link per byte of payload (nccl-tests' busBw factor)."""
    if n < 1:
        raise ValueError("ranks must be ≥ 1")
    if collective == "allreduce":
        return 2 * (n - 1) / n
    if collective in ("allgather", "reducescatter", "alltoall"):
        return (n - 1) / n
    if collective in ("broadcast", "reduce", "sendrecv"):
        return 1.0
    raise ValueError(f"unknown collective {collective!r}; one of {', '.join(COLLECTIVES)}")


def resolve_link(name: str) -> str:
    key = name.lower().replace("-", "").replace("_", "").replace(" ", "")
    if key in _LINK_ALIASES:
        return _LINK_ALIASES[key]
    raise ValueError(f"unknown link {name!r}; presets: {', '.join(LINKS)} (or give --link-gbps)")


def dtype_bytes(dtype: str) -> int:
    try:
        return DTYPE_BYTES[dtype.lower()]
    except KeyError:
        raise ValueError(f"unknown dtype {dtype!r}; one of {', '.join(sorted(DTYPE_BYTES))}") from None


def transfer_seconds(payload_bytes: float, collective: str, n: int, gbps: float, efficiency: float) -> float:
    if n <= 1:
        return 0.0
    return bus_factor(collective, n) * payload_bytes * 8 / (gbps * 1e9 * efficiency)


@dataclass
class CostQuery:
    params: float
    bytes_per_elem: int
    ranks: int
    collective: str = "allreduce"
    efficiency: float = 0.85
    gpus_per_node: int | None = None
    intra_gbps: float | None = None
    compute_s: float | None = None
    accum_steps: int = 1
    bucket_mb: float = 25.0
    powersgd_rank: int = 4

    @property
    def payload_bytes(self) -> float:
        return self.params * self.bytes_per_elem


@dataclass
class LinkCost:
    link: str
    gbps: float
    t_comm_s: float
    ratio: float | None                        # T_comm / T_compute
    levers: dict[str, float] = field(default_factory=dict)   # lever → exposed comm seconds per step

    def to_dict(self) -> dict:
        return asdict(self)


def comm_time(q: CostQuery, gbps: float, payload: float | None = None, collective: str | None = None) -> float:
    payload = q.payload_bytes if payload is None else payload
    collective = collective or q.collective
    g = q.gpus_per_node
    if g and g > 1 and q.ranks > g and q.intra_gbps:
        nodes = math.ceil(q.ranks / g)
        return (transfer_seconds(payload, collective, g, q.intra_gbps, q.efficiency)
                + transfer_seconds(payload / g, collective, nodes, gbps, q.efficiency))
    return transfer_seconds(payload, collective, q.ranks, gbps, q.efficiency)


def levers(q: CostQuery, gbps: float, t_comm: float) -> dict[str, float]:
    """Exposed communication time per optimizer step under each standard lever."""
    out = {"baseline": t_comm,
           f"grad_accum_x{q.accum_steps}_per_microstep": t_comm / max(q.accum_steps, 1)}
    bucket = comm_time(q, gbps, payload=q.bucket_mb * 1e6)
    if q.compute_s is not None:
        backward = q.compute_s * 2 / 3       # backward ≈ 2/3 of a step's compute
        out[f"overlap_bucket_{q.bucket_mb:g}MB"] = max(t_comm - backward, 0.0) + min(bucket, t_comm)
    else:
        out[f"overlap_bucket_{q.bucket_mb:g}MB_last_bucket"] = min(bucket, t_comm)
    if q.bytes_per_elem > 2:
        out["bf16_compress_hook"] = t_comm * 2 / q.bytes_per_elem
    out[f"powersgd_rank{q.powersgd_rank}"] = t_comm * powersgd_ratio(q.params, q.powersgd_rank)
    out["fsdp_allgather_plus_reducescatter"] = (comm_time(q, gbps, collective="allgather")
                                                + comm_time(q, gbps, collective="reducescatter"))
    return out


def powersgd_ratio(params: float, rank: int) -> float:
    """PowerSGD sends r(m+n) instead of m·n per matrix. Without layer shapes we assume square d×d matrices
    of a GPT-like model whose depth is d/128 (12·L·d² parameters), so the ratio is 2r/d."""
    d = (params * 128 / 12) ** (1 / 3)
    return min(1.0, 2 * rank / d)


def estimate(q: CostQuery, links: dict[str, float]) -> list[LinkCost]:
    rows = []
    for name, gbps in links.items():
        t = comm_time(q, gbps)
        ratio = t / q.compute_s if q.compute_s else None
        rows.append(LinkCost(name, gbps, t, ratio, levers(q, gbps, t)))
    return rows
