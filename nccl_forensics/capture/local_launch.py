"""`python -m nccl_forensics.capture.local_launch TORCHRUN-ARGS`: torchrun for the jobs ncclf starts itself on
this machine (probe, repro), with its rendezvous store listening on 127.0.0.1 only.

torch's TCPStore server listens on every interface whatever address it is given; a store on all interfaces
lets anyone on the network read and write a local job's keys. The agent's store (static rendezvous: the
`--master_addr 127.0.0.1 --master_port P` that ncclf passes) is handed a socket bound to 127.0.0.1:P instead
(`master_listen_fd`); the workers use the agent's store. User jobs (`ncclf run`) are launched as they are.
"""
from __future__ import annotations

import socket
import sys

LOOPBACK = "127.0.0.1"


def loopback_store(original):
    """`original` (TCPStore) whose server, when this process hosts it, listens on 127.0.0.1 only."""
    def store(host_name, port, world_size=None, is_master=False, *args, **kwargs):
        if is_master and kwargs.get("master_listen_fd") is None:
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind((LOOPBACK, int(port)))
            sock.listen(2048)
            kwargs["master_listen_fd"] = sock.detach()         # the store owns the descriptor from here on
            port = int(port) or 0
        return original(host_name, port, world_size, is_master, *args, **kwargs)
    return store


def main(argv: list[str]) -> int:
    from torch.distributed import run
    from torch.distributed.elastic.rendezvous import static_tcp_rendezvous

    static_tcp_rendezvous.TCPStore = loopback_store(static_tcp_rendezvous.TCPStore)  # type: ignore[misc]  # patched on purpose
    sys.argv = ["torchrun", *argv]
    run.main(argv)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
