"""Verdicts on messages mined from the sources in catalogue round srcmined27: the lower stack under NCCL and torch as a
failed multi-node job prints it (catalogue/stack.py, pytorch.py):

- UCX's transports under Open MPI and torch's UCC backend: the UD endpoint's unhandled timeout (a ucs_fatal), RC over
  plain verbs (`send completion with error: transport retry counter exceeded`), the socket layer's failed connect and
  the tcp transport's failed recv, wireup's `no active messages transport to <peer>`; the abort or the launcher's
  report of the rank that follows its own network failure is that failure's consequence (rank_state);
- UCC's tl/ucp completion with UCX's status and torch's ProcessGroupUCC progress failure, whose work then raises the
  bare status text (`RuntimeError: Timeout expired`, `Unhandled error`): that traceback is the collective's failure;
- CUDA's `system not yet initialized` (cudaErrorSystemNotReady: the node's Fabric Manager) names the ranks that
  printed it, with the Fabric Manager's fix; NVSwitch's fatal SXid stays a lost process.
"""
from __future__ import annotations

import pytest

from nccl_forensics.sources import catalogue

from .consoles import check_case, console_verdict

_UD = "[gpu-n07:48211:0:48230]     ud_ep.c:278  Fatal: UD endpoint 0x55e7c3a1f300 to <no debug data>: unhandled " \
      "timeout error\n"
_UCP_EP = "[1732703301.000917] [dgx-17:88123:0]        ucp_ep.c:1508 UCX  ERROR ep 0x7f8e5c035000: error 'Endpoint " \
          "timeout' on rc_mlx5/mlx5_2:1 will not be handled since no error callback is installed\n"
_PG_UCC = "ProcessGroupUCC.cpp:671] [Rank {rank}][ProcessGroupUCC-0][COLL_PROGRESS][ERROR] Failed to progress " \
          "communication{status}\n"
_MPIRUN_IMPROPER = ("--------------------------------------------------------------------------\n"
                    "mpirun has exited due to process rank {rank} with PID 7711 on\n"
                    "node worker-3 exiting improperly.\n")

CASES = {
    "ucx_ud_endpoint_timeout": (
        "[1,2]<stdout>:step 1180 loss 2.0433\n"
        f"[1,2]<stderr>:{_UD}"
        "[1,2]<stderr>:[gpu-n07:48211] *** Process received signal ***\n"
        "[1,2]<stderr>:[gpu-n07:48211] Signal: Aborted (6)\n"
        "mpirun noticed that process rank 2 with PID 48211 on node gpu-n07 exited on signal 6 (Aborted).\n",
        {"network_error"}, None),
    "ucx_rc_verbs_retry": (
        "[1,1]<stderr>:[1732702211.418822] [node-b03:23114:0]  rc_verbs_iface.c:124  UCX  ERROR send completion with "
        "error: transport retry counter exceeded [qpn 0x1d0a wrid 0x3f vendor_err 0x81]\n"
        "[1,1]<stderr>:[node-b03:23114] *** An error occurred in MPI_Allreduce\n",
        {"network_error"}, None),
    "ucx_tcp_connect_no_route": (
        "[1,3]<stderr>:[1716890021.110032] [worker-3:7711 :0]          sock.c:355  UCX  ERROR connect(fd=61, "
        "dest_addr=172.17.0.1:40713) failed: No route to host\n"
        "[1,3]<stderr>:[worker-3:7711 ] pml_ucx.c:472  Error: Failed to resolve UCX endpoint for rank 0\n"
        + _MPIRUN_IMPROPER.format(rank=3),
        {"network_error", "nic_misselection"}, None),
    "ucx_tcp_recv_reset": (
        "[1,0]<stderr>:[1716891100.201144] [host-a1:30188:0]        tcp_ep.c:1260 UCX  ERROR tcp_ep 0x1f3e9c0 "
        "(state=CONNECTED): recv(37) failed: Connection reset by remote peer\n"
        "[1,0]<stderr>:[host-a1:30188] *** Process received signal ***\n",
        {"network_error", "dropped_rank"}, None),
    "ucx_no_am_transport": (
        "[1,5]<stderr>:[1716893312.552310] [gpu-n12:51920:0]       select.c:629  UCX  ERROR   no active messages "
        "transport to <no debug data>: self/memory - Destination is unreachable, tcp/ib0 - Destination is unreachable\n"
        + _MPIRUN_IMPROPER.format(rank=5),
        {"network_error", "nic_misselection"}, None),
    "ucx_ep_timeout_then_ucx_abort": (
        f"[1,1]<stderr>:{_UCP_EP}"
        "[1,1]<stderr>:[dgx-17:88123:0:88123] Caught signal 6 (Aborted: tkill(2) or tgkill(2) at address 0x1583b)\n",
        {"network_error"}, None),
    "ucc_progress_after_endpoint_timeout": (
        "[rank0]:[1732702298.771201] [trn-a04:90112:1]   tl_ucp_sendrecv.c:91   TL_UCP ERROR failure in recv "
        "completion Endpoint timeout\n"
        "[rank0]:E1127 10:31:38.771300 90140 " + _PG_UCC.format(rank=0, status="Unhandled error") +
        "[rank0]:Traceback (most recent call last):\n"
        "[rank0]:  File \"/workspace/train.py\", line 141, in <module>\n"
        "[rank0]:    work.wait()\n"
        "[rank0]:RuntimeError: Unhandled error\n",
        {"network_error"}, None),
    "ucc_progress_timeout": (
        "[rank1]:E1127 11:10:12.801000 7740 " + _PG_UCC.format(rank=1, status="Timeout expired") +
        "[rank1]:Traceback (most recent call last):\n"
        "[rank1]:  File \"/workspace/train.py\", line 88, in <module>\n"
        "[rank1]:    work.wait()\n"
        "[rank1]:RuntimeError: Timeout expired\n",
        {"timeout_unknown"}, None),
    "fabric_manager_not_ready": (
        "[default4]:[rank4]: Traceback (most recent call last):\n"
        "[default4]:[rank4]:   File \"/workspace/train.py\", line 30, in <module>\n"
        "[default4]:[rank4]:     torch.cuda.set_device(local_rank)\n"
        "[default4]:[rank4]: RuntimeError: CUDA error: system not yet initialized\n"
        "E1127 13:01:05.220000 2211 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) "
        "local_rank: 4 (pid: 2234) of binary: /usr/bin/python\n",
        {"unclassified_failure"}, [4]),
    "nvswitch_fatal_sxid": (
        "[Wed Nov 27 14:02:11 2024] nvidia-nvswitch1: SXid (PCI:0000:07:00.0): 20034, Fatal, Link 12 LTSSM Fault Up\n",
        {"dropped_rank"}, None),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_verdict(name, tmp_path):
    check_case(tmp_path, CASES[name])


@pytest.mark.parametrize("text, entry", [
    ("Fatal: UD endpoint 0x7f3a to gpu-n03:4410: unhandled timeout error", "ucx.ud_endpoint_timeout"),
    ("UCX  ERROR send completion with error: RNR retry counter exceeded qpn 0x1d0a wrid 0x3f vendor_err 0x88",
     "ucx.rc_verbs_completion_error"),
    ("UCX  ERROR connect(fd=12, dest_addr=10.0.0.7:1234) failed: Connection refused", "ucx.socket_connect_failed"),
    ("UCX  ERROR tcp_ep 0x1f3 (state=CONNECTED): send(9) failed: Endpoint timeout", "ucx.tcp_ep_io_failed"),
    ("UCX  ERROR no auxiliary transport to node-4:1881: Unsupported operation", "ucx.no_transport_to_peer"),
    ("TL_UCP ERROR failure in rs ring completion Connection reset by remote peer", "ucc.tl_ucp_completion_failure"),
    ("[Rank 2][ProcessGroupUCC-1][COLL_PROGRESS][ERROR] Failed to progress communicationTimeout expired",
     "pytorch.ucc_progress_timeout"),
    ("[Rank 2][ProcessGroupUCC-1][COLL_PROGRESS][ERROR] Failed to progress communicationUnhandled error",
     "pytorch.ucc_progress_failed"),
])
def test_each_wording_is_read(text, entry):
    assert entry in {hit.message.id for hit in catalogue.match(text)}


@pytest.mark.parametrize("text", [
    "UCX  ERROR send completion with error: local protection error [qpn 0x1d0a wrid 0x3f vendor_err 0x56]",
    "UCX  ERROR tcp_ep 0x1f3 (state=CONNECTED): recv(9) failed: Message truncated",
    "TL_UCP ERROR failure in recv completion Message truncated",
    "UD endpoint 0x7f3a to gpu-n03:4410 created",
])
def test_near_misses_are_not_read(text):
    ids = {hit.message.id for hit in catalogue.match(text)}
    assert not ids & {"ucx.rc_verbs_completion_error", "ucx.tcp_ep_io_failed", "ucc.tl_ucp_completion_failure",
                      "ucx.ud_endpoint_timeout"}, ids


def test_another_ranks_abort_after_a_network_failure_stays_its_own_death(tmp_path):
    verdict = console_verdict(tmp_path, f"[1,1]<stderr>:{_UCP_EP}"
                                        "[1,4]<stderr>:[dgx-09:7123:0:7123] Caught signal 11 (Segmentation fault: "
                                        "address not mapped to object at address 0x10)\n")
    assert verdict.cls == "dropped_rank" and verdict.culprit_ranks == [4], verdict.summary


def test_an_abort_before_the_network_failure_stays_a_death(tmp_path):
    verdict = console_verdict(tmp_path, "[1,1]<stderr>:[dgx-17:88123:0:88123] Caught signal 11 (Segmentation fault: "
                                        "address not mapped to object at address 0x10)\n"
                                        f"[1,1]<stderr>:{_UCP_EP}")
    assert verdict.cls == "dropped_rank" and verdict.culprit_ranks == [1], verdict.summary


def test_another_ranks_exception_with_the_status_text_stays_its_own(tmp_path):
    verdict = console_verdict(tmp_path, "[rank1]:E1127 11:10:12.801000 7740 "
                                        + _PG_UCC.format(rank=1, status="Timeout expired") +
                                        "[rank3]:Traceback (most recent call last):\n"
                                        "[rank3]:  File \"/workspace/train.py\", line 88, in <module>\n"
                                        "[rank3]:RuntimeError: Timeout expired\n")
    assert verdict.cls == "dropped_rank" and verdict.culprit_ranks == [3], verdict.summary
