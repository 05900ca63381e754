"""`ncclf probe --scaling`: tokens/s of the DDP reproducer trainer with 1, 2 and 4 local processes.

Scaling efficiency at n processes = throughput(n) / (n × throughput(1)). On one CPU machine the ranks share
cores, so this measures the machine as much as the interconnect; on a GPU node it is the classic weak-scaling
check (the per-rank batch is fixed).
"""
from __future__ import annotations

import re
import statistics
import tempfile
from dataclasses import dataclass
from pathlib import Path

from ..capture.tools import local_torchrun_command
from ..errors import ReproError
from .probe import free_port, run_job

_STEP_RE = re.compile(r"step (\d+) \| loss [\d.]+ \| tokens/s (\d+)")


@dataclass
class ScalingRow:
    nproc: int
    tokens_per_s: float
    efficiency: float


def trainer_path() -> Path:
    from importlib import resources

    return Path(str(resources.files("nccl_forensics.reproducers") / "train_gpt_ddp.py"))


def tokens_per_second(console_text: str, skip: int = 3) -> float:
    """The median global tokens/s over the steps after the first `skip` (warm-up)."""
    values = [int(m.group(2)) for m in _STEP_RE.finditer(console_text) if int(m.group(1)) >= skip]
    if not values:
        raise ReproError("the trainer printed no step lines after warm-up")
    return float(statistics.median(values))


def measure_scaling(nprocs: tuple[int, ...] = (1, 2, 4), steps: int = 12, timeout_s: float = 300) -> list[ScalingRow]:
    rows: list[ScalingRow] = []
    for n in nprocs:
        with tempfile.TemporaryDirectory(prefix="ncclf-scaling-") as tmp:
            log = Path(tmp) / "console.log"
            run_job([*local_torchrun_command(), "--nproc_per_node", str(n),
                     "--master_addr", "127.0.0.1", "--master_port", str(free_port()), str(trainer_path()),
                     "--steps", str(steps)], timeout_s, log)
            tps = tokens_per_second(log.read_text(errors="replace"))
        base = rows[0].tokens_per_s / rows[0].nproc if rows else tps / n
        rows.append(ScalingRow(n, tps, tps / (n * base)))
    return rows
