"""Reproducer trainer: a tiny Llama sharded with FSDP2 (`fully_shard`). Run with torchrun (see README.md)."""
import signal

from nccl_forensics.libc import die_with_parent
from nccl_forensics.reproducers import frdump

die_with_parent(signal.SIGTERM)  # a rank ends with its launcher (frdump: after its dump)
frdump.install()   # before torch starts any thread

from torch.distributed.fsdp import fully_shard  # noqa: E402

from nccl_forensics.reproducers.models import TinyLlama  # noqa: E402
from nccl_forensics.reproducers.trainer import run  # noqa: E402


def build_model(vocab: int, seq: int) -> TinyLlama:
    return TinyLlama(vocab=vocab)


def wrap(model, device):
    for layer in model.layers:
        fully_shard(layer)
    return fully_shard(model)


if __name__ == "__main__":
    run(build_model, wrap)
