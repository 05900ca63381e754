"""Synthetic data: each sequence follows one fixed permutation of the vocabulary from a random start,
so next-token prediction is learnable in a few steps.

`load_batch` is also where a data-loading bug lives: a rank that spins decoding a record, one that reads its
shard slowly at every step, or one whose reads slow down step after step until one outlasts the timeout.
"""
from __future__ import annotations

import time

import torch

from .plan import FaultPlan

SLOW_READ_S = 0.3


def pattern(vocab: int) -> torch.Tensor:
    return torch.randperm(vocab, generator=torch.Generator().manual_seed(1234))


def load_batch(plan: FaultPlan, rank: int, step: int, batch: int, seq: int, vocab: int,
               late_s: float = 0.0) -> torch.Tensor:
    if plan.at(rank, step) == "stuck-rank":
        _decode_records(step)
    if plan.from_step_on(rank, step) == "slow-rank":
        _read_shard(step)
    if plan.from_step_on(rank, step) == "slow-rank-timeout":
        _read_failing_shard(step - plan.step, late_s)
    gen = torch.Generator().manual_seed(rank * 100003 + step)
    perm = pattern(vocab)
    tokens = torch.empty(batch, seq + 1, dtype=torch.long)
    tokens[:, 0] = torch.randint(vocab, (batch,), generator=gen)
    for t in range(seq):
        tokens[:, t + 1] = perm[tokens[:, t]]
    return tokens


def _decode_records(step: int) -> int:
    """A decoder that never finds the end of its record: a busy loop outside any collective."""
    offset, checksum = 0, step
    while offset >= 0:
        checksum = (checksum * 31 + offset) % 1000003
        offset = (offset + 7) % 4096
    return checksum


def _read_shard(step: int) -> None:
    """A shard on a slow disk: this rank is late at every step, but the job completes."""
    time.sleep(SLOW_READ_S)


def _read_failing_shard(steps_since: int, late_s: float) -> None:
    """A disk that degrades: each read takes twice as long as the one before, the fourth outlasts the timeout."""
    time.sleep(late_s if steps_since >= 3 else SLOW_READ_S * 2 ** steps_since)
