"""Reproducer trainer: a tiny GPT under DistributedDataParallel. Run with torchrun (see README.md)."""
from nccl_forensics.reproducers import frdump

frdump.install()   # before torch starts any thread

from torch.nn.parallel import DistributedDataParallel  # noqa: E402

from nccl_forensics.reproducers.models import TinyGPT  # noqa: E402
from nccl_forensics.reproducers.trainer import run  # noqa: E402


def build_model(vocab: int, seq: int) -> TinyGPT:
    return TinyGPT(vocab=vocab, seq=seq)


def wrap(model, device):
    return DistributedDataParallel(model, device_ids=[device.index] if device.type == "cuda" else None)


if __name__ == "__main__":
    run(build_model, wrap)
