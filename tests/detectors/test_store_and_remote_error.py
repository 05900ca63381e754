"""c10d's words that say who failed first where other lines blame the network or no one: a store server that could not
take its port (its clients' connect timeouts follow from it), and TORCH_NCCL_PROPAGATE_ERROR's remote error signal."""
from __future__ import annotations

_CLIENTS = (
    "[rank2]:[E1127 11:42:18.551203217 socket.cpp:1019] [c10d] The client socket has timed out after 1800000ms while "
    "trying to connect to (node-0, 29500).\n"
    "[rank2]: torch.distributed.DistNetworkError: The client socket has timed out after 1800000ms while trying to "
    "connect to (node-0, 29500).\n"
    "[rank1]: torch.distributed.DistNetworkError: The client socket has timed out after 1800000ms while trying to "
    "connect to (node-0, 29500).\n")
_SERVER = ("[rank0]: torch.distributed.DistNetworkError: The server socket has failed to bind. port: 29500, useIpv6: 0, "
           "code: -98, name: EADDRINUSE, message: address already in use\n")


def test_clients_of_a_store_that_never_listened_are_no_network_error(diagnose_text):
    d = diagnose_text(_SERVER + _CLIENTS)
    assert d.verdict.cls == "unclassified_failure", d.verdict.summary
    assert "failed to bind" in d.verdict.summary, d.verdict.summary


def test_clients_that_time_out_alone_still_read_as_the_network(diagnose_text):
    d = diagnose_text(_CLIENTS)
    assert d.verdict.cls == "network_error", d.verdict.summary


def test_the_libuv_store_s_ipv6_attempt_is_no_failure(diagnose_text):
    d = diagnose_text(
        "[I1127 16:00:02.131884201 TCPStoreLibUvBackend.cpp:1177] [c10d] Failed to bind to ipv6 address, trying ipv4. "
        "Error: The server socket has failed to bind. port: 29500, useIpv6: 1, code: -97, name: EAFNOSUPPORT, message: "
        "address family not supported\nepoch 0 step 100 loss 0.41\n")
    assert d.verdict.cls in ("none", "inconclusive"), d.verdict.summary


_TIMEOUTS = "".join(
    f"[rank{r}]:[E1127 14:30:41.60411524{r} ProcessGroupNCCL.cpp:632] [Rank {r}] Watchdog caught collective operation "
    "timeout: WorkNCCL(SeqNum=24461, OpType=ALLREDUCE, NumelIn=50331648, NumelOut=50331648, Timeout(ms)=600000) ran "
    "for 600036 milliseconds before timing out.\n" for r in range(4))


def test_the_rank_a_remote_error_signal_names_is_the_suspect(diagnose_text):
    signals = "".join(f"[rank{r}]:[E1127 14:20:41.57033920{r} ProcessGroupNCCL.cpp:1864] [PG ID 0 PG GUID 0(default_pg) "
                      f"Rank {r}]  remote error detected from rank: 5\n" for r in range(4))
    d = diagnose_text(signals + _TIMEOUTS)
    assert d.verdict.culprit_ranks == [5], d.verdict.summary
    assert "rank 5 failed first in its group" in d.verdict.summary, d.verdict.summary


def test_timeouts_without_the_signal_name_no_rank(diagnose_text):
    d = diagnose_text(_TIMEOUTS)
    assert d.verdict.cls == "timeout_unknown" and d.verdict.culprit_ranks == [], d.verdict.summary
