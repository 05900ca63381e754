"""Reproducer trainer: a tiny GPT under DistributedDataParallel. Run with torchrun (see README.md)."""
import signal

from nccl_forensics.libc import die_with_parent
from nccl_forensics.reproducers import frdump

die_with_parent(signal.SIGTERM)  # a rank ends with its launcher (frdump: after its dump)
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
