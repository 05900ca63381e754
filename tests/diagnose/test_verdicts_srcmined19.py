"""Verdicts on the store's, the rendezvous' and NCCL's bootstrap lines of catalogue round srcmined19; each message
read in its source and put in a console written around it (torch 2.1 - 2.10, NCCL 2.18 - 2.30).

- NCCL's socket.cc, as each release words a bootstrap connect that failed: `Connect to <addr> returned <n>(<why>)
  errno ...` (socketPollConnect 2.20 - 2.23), `<function>: connect returned <why>, exceeded error retry count (N)`
  (2.24 - 2.26, no address), socketProgressOpt's `Call to recv from <addr> failed : <why>` (2.18 - 2.23).
- NCCL's bootstrap.cc: a malformed NCCL_COMM_ID (the same words since 2.4: a setting, no rank's failure), no socket
  interface under the NCCL_SOCKET_IFNAME given, the root's `mismatch in rank count from procs` (to 2.22).
- torch's store: the libuv server's listen failure (`port: N, useIpv6: false, code: -98, name: EADDRINUSE`, 2.4+),
  recvBytes' end of stream (the store's host ended; no class of its own), _store_based_barrier's DistStoreError
  (2.1+: the count of arrivals names the rank that never came when every arrival reported), the c10d rendezvous
  backend's RendezvousConnectionError, TCPStore.cpp's connect/validate retries (2.3+), use_libuv on a build without.
"""
from __future__ import annotations

import pytest

from .consoles import check_case, console_verdict, failure_table, per_rank

_TERM = "W1127 03:14:51.861000 4411 torch/distributed/elastic/multiprocessing/api.py:897] Sending process {} closing " \
        "signal SIGTERM\n"
_BARRIER = ('Traceback (most recent call last):\n  File "/workspace/train.py", line 74, in main\n    dist.barrier()\n')
_REMOTE = "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely."
_SYSTEM = "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. "
_COMM_ID = "Invalid NCCL_COMM_ID, please use format: <ipv4>:<port> or [<ipv6>]:<port> or <hostname>:<port>"
_PEER_CLOSED = ("torch.distributed.DistNetworkError: Failed to recv, got 0 bytes. Connection was likely closed. Did the "
                "remote server shutdown or crash?")
_AGENT_TB = ('Traceback (most recent call last):\n  File "/opt/conda/bin/torchrun", line 8, in <module>\n'
             "    sys.exit(main())\n")


def _ended(rank: int, others=(), host: str = "gpu-node-07") -> str:
    return ("".join(_TERM.format(5000 + r) for r in others)
            + failure_table("train.py", "2026-11-27_03:14:51", host, rank, rank, 1, 5000 + rank,
                            "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html") + "\n")


def _warn(rank: int, where: str, message: str, host: str = "gpu-n1-04") -> str:
    return f"{host}:{5000 + rank}:{5093 + rank} [{rank % 8}] {where} NCCL WARN {message}\n"


def _nccl_failed(ranks, where: str, warn: str, what: str, version: str, code: str) -> str:
    warns = "".join(_warn(r, where, warn) for r in ranks)
    return warns + per_rank(_BARRIER + f"torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/"
                                       f"distributed/c10d/ProcessGroupNCCL.cpp:3353, {what}, NCCL version {version}\n"
                                       f"{code}\nLast error:\n{warn}\n", list(ranks))


def _barrier_timeout(ranks, world: int) -> str:
    return "".join(per_rank(_BARRIER + "torch.distributed.DistStoreError: Timed out initializing process group in store "
                            f"based barrier on rank {r}, for key: store_based_barrier_key:2 (world_size={world}, "
                            f"num_workers_joined={len(ranks)}, timeout=0:30:00 error=DistStoreError('wait timeout after "
                            "1800000ms, keys: /store_based_barrier_key:2'))\n", [r]) for r in ranks)


_REMOTE_ERR = "remote process exited or there was a network error"
_SYSTEM_ERR = "unhandled system error (run with NCCL_DEBUG=INFO for details)"
CASES = {
    "pollconnect_retry_count_without_address_225": (
        _nccl_failed((4, 5, 6, 7), "misc/socket.cc:484", "socketPollConnect: connect returned Connection refused, "
                     "exceeded error retry count (35)", _REMOTE_ERR, "2.25.1", _REMOTE) + _ended(4, (5, 6, 7)),
        ("network_error", "dropped_rank"), None),
    "pollconnect_no_route_to_host_221": (
        _nccl_failed((0, 1, 2, 3), "misc/socket.cc:484", "socketPollConnect: Connect to 10.18.4.23<41027> returned "
                     "113(No route to host) errno 115(Operation now in progress)", _SYSTEM_ERR, "2.21.5", _SYSTEM)
        + _ended(0, (1, 2, 3)), ("network_error", "nic_misselection"), None),
    "bootstrap_recv_reset_by_peer_223": (
        _nccl_failed((8, 9, 10, 11), "misc/socket.cc:50", "socketProgressOpt: Call to recv from 10.44.0.12<44917> "
                     "failed : Connection reset by peer", _REMOTE_ERR, "2.23.4", _REMOTE) + _ended(8, (9, 10, 11)),
        ("network_error", "dropped_rank"), None),
    "invalid_comm_id": (
        _nccl_failed((0, 1), "bootstrap.cc:236", _COMM_ID, "invalid argument (run with NCCL_DEBUG=WARN for details)",
                     "2.26.2", "ncclInvalidArgument: Invalid value for an argument.") + _ended(0, (1,)),
        ("unclassified_failure",), None),
    "no_socket_interface_under_ifname": (
        "".join(f"gpu-n1-04:{5000 + r}:{5000 + r} [{r}] NCCL INFO NCCL_SOCKET_IFNAME set by environment to ib0\n"
                for r in range(4))
        + _nccl_failed((0, 1, 2, 3), "bootstrap.cc:45", "Bootstrap : no socket interface found", "internal error - "
                       "please report this issue to the NCCL developers", "2.19.3",
                       "ncclInternalError: Internal check failed.") + _ended(0, (1, 2, 3)),
        ("nic_misselection", "network_error"), None),
    "root_rank_count_mismatch_218": (
        _nccl_failed((0,), "bootstrap.cc:150", "Bootstrap Root : mismatch in rank count from procs 8 : 16",
                     "invalid usage (run with NCCL_DEBUG=WARN for details)", "2.18.6",
                     "ncclInvalidUsage: This usually reflects invalid usage of NCCL library.") + _ended(0, (1, 2, 3)),
        ("unclassified_failure",), None),
    "libuv_store_listen_eaddrinuse": (
        "[E1127 05:02:11.402816513 socket.cpp:957] [c10d] The server socket has failed to listen on any local network "
        "address. port: 29500, useIpv6: false, code: -98, name: EADDRINUSE, message: address already in use\n"
        + _AGENT_TB + "torch.distributed.DistNetworkError: The server socket has failed to listen on any local network "
        "address. port: 29500, useIpv6: false, code: -98, name: EADDRINUSE, message: address already in use\n",
        ("unclassified_failure",), None),
    "store_end_of_stream_on_every_rank_of_a_node": (
        per_rank(_BARRIER + _PEER_CLOSED + "\n", [4, 5, 6, 7]) + _ended(4, (5, 6, 7)),
        ("dropped_rank", "network_error", "inconclusive", "unclassified_failure"), None),
    "store_based_barrier_three_of_four": (
        _barrier_timeout((0, 1, 2), 4) + _ended(0, (1, 2, 3)), ("stuck_rank", "timeout_unknown", "dropped_rank"), [3]),
    "c10d_rendezvous_store_connect_timeout": (
        "[W socket.cpp:601] [c10d] The client socket has failed to connect to [head-node]:29400 (errno: 110 - "
        "Connection timed out).\n" + _AGENT_TB + "torch.distributed.DistNetworkError: The client socket has timed out "
        "after 900000ms while trying to connect to (head-node, 29400).\n\nThe above exception was the direct cause of "
        "the following exception:\n\n" + _AGENT_TB + "torch.distributed.elastic.rendezvous.api.RendezvousConnectionError"
        ": The connection to the C10d store has failed. See inner exception for details.\n", ("network_error",), None),
    "tcpstore_connect_validate_reset_then_timeout": (
        "[W1127 06:10:12.884210771 TCPStore.cpp:347] [c10d] TCP client failed to connect/validate to host master-0:"
        "29500 - retrying (try=0, timeout=1800000ms, delay=1212ms): Connection reset by peer\n"
        "[E1127 06:40:12.885120390 TCPStore.cpp:335] [c10d] TCP client failed to connect/validate to host master-0:"
        "29500 - timed out (try=612, timeout=1800000ms): The client socket has timed out after 1800000ms while trying "
        "to connect to (master-0, 29500).\n", ("network_error",), None),
    "use_libuv_without_libuv": (
        per_rank('Traceback (most recent call last):\n    return TCPStore(\ntorch.distributed.DistStoreError: use_libuv '
                 "was requested but PyTorch was built without libuv support, run with USE_LIBUV=0 to disable it.\n",
                 [0, 1]) + _ended(0, (1,)), ("unclassified_failure",), None),
}


@pytest.mark.parametrize("name", CASES)
def test_verdict(name, tmp_path):
    check_case(tmp_path, CASES[name])


def test_a_count_short_of_its_reporters_names_no_one(tmp_path):
    # two ranks report, the count says three arrived: the third arrival is not in the console, so who is absent
    # cannot be told
    verdict = console_verdict(tmp_path, _barrier_timeout((0, 1), 4).replace("num_workers_joined=2",
                                                                              "num_workers_joined=3"))
    assert verdict.cls == "stuck_rank" and verdict.culprit_ranks == [], verdict.summary


def test_a_subgroup_count_beside_higher_ranks_names_no_one(tmp_path):
    # a barrier of 4 in a console that shows rank 6: the barrier is a subgroup's, its members are not 0..3
    text = _barrier_timeout((0, 2, 4), 4) + per_rank("step 3 loss 2.1\n", [6])
    verdict = console_verdict(tmp_path, text)
    assert verdict.culprit_ranks == [], verdict.summary
