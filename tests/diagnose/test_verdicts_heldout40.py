"""Held-out set 40: real pastes of the classes the rounds saw least: the interface NCCL or MPI picked (docker0, veth,
lo, an address in no shared subnet), RoCE GID trouble, sizes the two ends disagree on, /dev/shm too small in a
container, P2P not enabled, and logs that show no failure. One verdict test per case, then the families it missed:

- NCCL's `Message truncated : received N bytes instead of M` is the bootstrap's (bootstrap.cc socketRecv and
  socketSendRecv from 2.4; 2.3's ncclSocketIrecv, which the bootstrap used too; `%d,%d` from 2.29): the sizes are
  NCCL's own messages, so ranks disagree on NCCL itself (builds, a stray peer, a bug), not on a tensor. It names no
  class by itself; the data path's truncations (`NET/Socket : ... message truncated : receiving`, `NET/IB : ...
  collective mismatch error`) still name a size mismatch.
- Open MPI's TCP BTL before 3.0 printed a failed connect() with its errno (`[host][[j,v],r][btl_tcp_endpoint.c:L:
  mca_btl_tcp_endpoint_complete_connect] connect() to A failed: Connection refused (111)`): the network's. Its
  `received unexpected process identifier` (1.2 - 5.x) means another process answered at the peer's address, an
  address several hosts carry (docker0's 172.17.0.1): the interface choice (N402).
- Hosts whose NCCL loads an external net plugin (HPC-X's `Plugin Path : .../libnccl-net.so`, `Loaded net plugin X`)
  while others run NCCL's own (`Using internal network plugin`), or that use another network (`Using network IB` on
  some, `Socket` on others), cannot connect: V501 reads it in diagnose, as topology check G008 did alone.
"""
from __future__ import annotations

import pytest

from nccl_forensics.sources import catalogue

from .consoles import PROGRESS, check_case, console_verdict

NIC = ("nic_misselection", "network_error")
NO_FAILURE = ("none", "inconclusive")

# ---- one verdict per case of the set (the decisive lines as pasted)
CASES = [
    ("NVIDIA/nccl#290", "oom", None,
     "gpu2-ru7:2142:2554 [0] NCCL INFO Ring 00 : 0[1a000] -> 1[1b000] via direct shared memory\n\n"
     "gpu2-ru7:2143:2561 [1] include/shm.h:28 NCCL WARN Call to posix_fallocate failed : No space left on device\n"
     "gpu2-ru7:2143:2561 [1] NCCL INFO include/shm.h:41 -> 2"),
    ("NVIDIA/nccl#525", "oom", None,
     "[3] include/shm.h:28 NCCL WARN Call to posix_fallocate failed : No space left on device\n"
     "[3] NCCL INFO include/shm.h:41 -> 2\n"
     "[3] include/shm.h:48 NCCL WARN Error while creating shared memory segment nccl-shm-recv-1462445a6f01cbfc-1-2-3 "
     "(size 9637888)"),
    ("dmlc/xgboost#5963", "oom", None,
     "7635c25c81cd:41588:41837 [0] include/shm.h:28 NCCL WARN Call to posix_fallocate failed : No space left on device\n"
     "7635c25c81cd:41588:41837 [0] include/shm.h:48 NCCL WARN Error while creating shared memory segment "
     "nccl-shm-recv-6c6b02bad5bfc129-0-1-0 (size 9637888)"),
    ("NVIDIA/nccl#342", "oom", None,
     "include/shm.h:28 NCCL WARN Call to posix_fallocate failed: No space left on device\n"
     "include/shm.h:48 NCCL WARN Error while creating shared memory segment nccl-shm-recv-250a7cc850ba9298-0-1-3 "
     "(size 9637888)"),
    ("NVIDIA/nccl#331", NIC, None,
     "e82c50601d13:213:213 [0] include/socket.h:197 NCCL WARN Net : No interface found in the same subnet as remote "
     "address 192.168.0.91<27030>\n"
     "e82c50601d13:213:213 [0] NCCL INFO Bootstrap : Using [0]eth0:172.17.0.3<0>\n"
     "e82c50601d13:213:213 [0] include/socket.h:333 NCCL WARN Call to bind failed : Cannot assign requested address"),
    ("Oneflow-Inc/oneflow#3586", NIC, None,
     "worker:101542:101542 [0] NCCL INFO NET/Socket : Using [0]eno1:172.18.40.41<0> "
     "[1]veth25f2e72:fe80::380d:bfff:fe5b:54d2%veth25f2e72<0>\n"
     "worker:101542:101542 [0] NCCL INFO Using network Socket\n"
     "worker:101542:101934 [0] NCCL INFO Channel 00 : 0[18000] -> 1[18000] [receive] via NET/Socket/1\n"
     "worker:101542:101934 [0] NCCL INFO Channel 00 : 1[18000] -> 0[18000] [send] via NET/Socket/1\n"
     "worker:101542:101934 [0] NCCL INFO Call to connect returned Connection timed out, retrying"),
    ("horovod/horovod#310", NIC, None,
     "[u10-154-66-206][[39817,1],2][btl_tcp_endpoint.c:638:mca_btl_tcp_endpoint_recv_connect_ack] received "
     "unexpected process identifier [[39817,1],3]\n"
     "[u10-154-66-206][[38971,1],2][btl_tcp_endpoint.c:796:mca_btl_tcp_endpoint_complete_connect] connect() to "
     "172.17.0.1 failed: Connection refused (111)"),
    ("NVIDIA/nccl#224", NIC, None,
     "[1,4]<stdout>:gpu7:4105:4372 [0] NCCL INFO Ring 00 : 1 -> 4 [receive] via NET/IB/1/GDRDMA\n"
     "[1,4]<stdout>:gpu7:4105:4372 [0] include/socket.h:318 NCCL WARN Net : Socket creation failed : Address family "
     "not supported by protocol\n"
     "[1,4]<stdout>:gpu7:4105:4372 [0] NCCL INFO transport/net_ib.cu:407 -> 2"),
    ("NVIDIA/nccl#210", NIC, None,
     "include/socket.h:344 WARN Socket creation failed : Address family not supported by protocol"),
    ("NVIDIA/nccl#426", ("network_error", "nic_misselection"), None,
     "-worker-1:946:988 [0] transport/net_ib.cc:839 NCCL WARN NET/IB : Got completion with error 12, opcode 1, len 0, "
     "vendor err 129"),
    ("NVIDIA/nccl#394", ("network_error", "nic_misselection"), None,
     "node01: VM-0-14-centos:106:196 [0] transport/net_ib.cc:73 NCCL WARN NET/IB : Got async event : GID table change\n"
     "node01: VM-0-14-centos:108:593 [0] transport/net_ib.cc:816 NCCL WARN NET/IB : Got completion with error 12, "
     "opcode 0, len 32633, vendor err 129"),
    ("NVIDIA/nccl#969", ("version_mismatch", "shape_mismatch", "collective_skipped"), None,
     "10.10.23.10: so-ucloud-10-10-23-10:1307367:1307586 [0] transport/net_ib.cc:1038 NCCL WARN NET/IB : req 0/1 tag 0 "
     "peer 10.10.23.6<58683> collective mismatch error, local size 496640 remote size 65536\n"
     "10.10.23.10: so-ucloud-10-10-23-10:1307367:1307586 [0] NCCL INFO proxy.cc:684 -> 5 [Proxy Thread]"),
    ("NVIDIA/nccl#1176", ("unclassified_failure", "network_error"), None,
     "0: compute-st-p4de24xlarge-1:34639:36718 [5] bootstrap.cc:77 NCCL WARN Message truncated : received 256 bytes "
     "instead of 4\n"
     "0: compute-st-p4de24xlarge-1:34639:36718 [5] NCCL INFO bootstrap.cc:554 -> 3\n"
     "0: compute-st-p4de24xlarge-1:34639:36718 [5] NCCL INFO group.cc:64 -> 3 [Async thread]"),
    ("horovod/horovod#639", NO_FAILURE, None,
     "c4140-01:147406:148900 [0] NCCL INFO NET/IB: [0] mlx5_0:1/IB\n"
     "c4140-01:147406:148900 [0] NCCL INFO Using internal Network IB\nNCCL version 2.3.5+cuda10.0\n"
     "c4140-01:147406:148900 [0] NCCL INFO rank 0 nranks 3\n"
     "c4140-02:226881:226933 [0] NCCL INFO NET : Using interface ib0:192.168.1.36<0>\n"
     "c4140-03:5345:5397 [0] NCCL INFO NET : Using interface ib0:192.168.1.37<0>"),
    ("Lightning-AI/pytorch-lightning#4420", NO_FAILURE, None,
     "cdr2584:98188:98188 [0] NCCL INFO NCCL_IB_DISABLE set by environment to 1.\n"
     "cdr2584:98188:98188 [0] NCCL INFO NET/Socket : Using [0]ib0:172.19.146.21<0>\n"
     "NCCL version 2.12.12+cuda11.7\n"
     "cdr2584:98188:98759 [0] NCCL INFO Channel 00 : 0[18000] -> 1[af000] via P2P/direct pointer"),
    ("NVIDIA/nccl-tests#373", NO_FAILURE, None,
     "bigo:1884:2298 [0] NCCL INFO Using network IBext_v8\n"
     "bigo:1884:2298 [0] NCCL INFO ncclCommInitRank comm 0x564531f27c80 rank 2 nranks 3 cudaDev 0 nvmlDev 0 busId "
     "31000 commId 0x9ca74fa6e40df7f4 - Init START\n"
     "bigo:1884:2298 [0] NCCL INFO Channel 00/0 : 2[0] -> 0[0] [send] via NET/IBext_v8/1"),
    ("horovod/horovod#789", NIC, None,
     "51ca79e04561:4880:5140 [1] NCCL INFO comm 0x7f19bc4046d0 rank 3 nranks 4\n"
     "51ca79e04561:4880:5140 [1] NCCL INFO NET : Using interface lo:127.0.0.1<0>\n"
     "51ca79e04561:4880:5140 [1] NCCL INFO NET : Using interface eth0:3.5.6.12<0>\n"
     "e53b7da88fea:2494:2756 [1] NCCL INFO comm 0x7f2bd8406d50 rank 1 nranks 4\n"
     "e53b7da88fea:2494:2756 [1] NCCL INFO NET : Using interface lo:127.0.0.1<0>\n"
     "e53b7da88fea:2494:2756 [1] NCCL INFO NET : Using interface eth0:3.10.11.7<0>"),
    ("NVIDIA/nccl#1634", "version_mismatch", None,
     "HGX-H100-11:18226:18274 [5] NCCL INFO NET/Plugin: Could not find: libnccl-net.so. Using internal network plugin.\n"
     "HGX-H100-04:589474:589541 [0] NCCL INFO Plugin Path : /opt/hpcx/nccl_rdma_sharp_plugin/lib/libnccl-net.so"),
    ("NVIDIA/nccl-tests#117", ("inconclusive",), None,
     "# nThread 1 nGpus 2 minBytes 8 maxBytes 134217728 step: 2(factor) warmup iters: 5 iters: 20 validation: 1 \n"
     "#   Rank  0 Pid 871210 on 4090-INSTALL device  0 [0x01] NVIDIA GeForce RTX 4090\n"
     "#   Rank  1 Pid 871210 on 4090-INSTALL device  1 [0x24] NVIDIA GeForce RTX 4090\n"
     "#       size         count      type   redop     time   algbw   busbw  error     time   algbw   busbw  error"),
    ("pytorch/pytorch#54232", ("inconclusive", "stuck_rank"), None,
     "ibis:13595:13676 [3] NCCL INFO Could not enable P2P between dev 3(=1d000) and dev 2(=1c000)\n"
     "ibis:13594:13679 [2] NCCL INFO comm 0x7fbff4001060 rank 2 nranks 4 cudaDev 2 busId 1c000 - Init COMPLETE\n"
     "ibis:13594:13594 [2] NCCL INFO AllReduce: opCount 0 sendbuff 0x7fbffb600000 recvbuff 0x7fbffb600000 count 1 "
     "datatype 1 op 0 root 0 comm 0x7fbff4001060 [nranks=4] stream 0x56489773d5f0\n"
     "ibis:13595:13676 [3] NCCL INFO comm 0x7fb274001060 rank 3 nranks 4 cudaDev 3 busId 1d000 - Init COMPLETE\n"
     "ibis:13595:13595 [3] NCCL INFO AllReduce: opCount 0 sendbuff 0x7fb27b600000 recvbuff 0x7fb27b600000 count 1 "
     "datatype 1 op 0 root 0 comm 0x7fb274001060 [nranks=4] stream 0x558474a5ebc0\nconstructing DDP(model) ..."),
]


@pytest.mark.parametrize("issue,want,culprits,text", CASES, ids=[case[0] for case in CASES])
def test_each_case_of_the_set(issue, want, culprits, text, tmp_path):
    check_case(tmp_path, (text, (want,) if isinstance(want, str) else want, culprits), progress="")


# ---- NCCL's bootstrap truncation: NCCL's own message sizes, no tensor's
@pytest.mark.parametrize("line,received,expected", [
    ("bootstrap.cc:77 NCCL WARN Message truncated : received 256 bytes instead of 4", 256, 4),          # 2.19
    ("bootstrap.cc:141 NCCL WARN Message truncated : received 1024 bytes instead of 256\n", 1024, 256),  # 2.4 - 2.11
    ("bootstrap.cc:249 NCCL WARN Message truncated : received 8,4 bytes instead of 4,4", 8, 4),         # 2.29+
    ("transport/net_socket.cu:188 WARN Message truncated : received 4096 bytes instead of 2048", 4096, 2048),  # 2.3
])
def test_bootstrap_truncation_names_no_class(line, received, expected):
    hit = next(h for h in catalogue.match(line.strip()) if h.message.id == "nccl.message_truncated")
    assert (hit.fields["received_bytes"], hit.fields["expected_bytes"]) == (received, expected)
    assert hit.message.implies is None and hit.message.meaning == "failure"


def test_the_data_paths_truncation_still_names_a_size_mismatch(tmp_path):
    line = ("NCCL WARN NET/Socket : peer 10.0.0.2<44817> message truncated : receiving 8192 bytes instead of 4096. If "
            "you believe your socket network is in a healthy state, there may be a mismatch in collective sizes")
    assert [h.message.id for h in catalogue.match(line) if h.message.family == "nccl"] == ["nccl.socket_message_truncated"]
    assert console_verdict(tmp_path, line, progress="").cls == "shape_mismatch"


def test_bootstrap_truncation_is_a_failure_of_its_own(tmp_path):
    text = "node-1:4827:6900 [4] bootstrap.cc:77 NCCL WARN Message truncated : received 256 bytes instead of 4"
    verdict = console_verdict(tmp_path, text, progress=PROGRESS)
    assert verdict.cls == "unclassified_failure" and "Message truncated" in verdict.summary


# ---- Open MPI's TCP BTL: a connect()'s errno before 3.0, and another process at the peer's address
@pytest.mark.parametrize("line,peer,reason", [
    ("[u10-154-66-206][[38971,1],2][btl_tcp_endpoint.c:796:mca_btl_tcp_endpoint_complete_connect] connect() to "
     "172.17.0.1 failed: Connection refused (111)", "172.17.0.1", "Connection refused"),
    ("[gpu-3][[5120,1],7][../../../../../opal/mca/btl/tcp/btl_tcp_endpoint.c:801:mca_btl_tcp_endpoint_complete_connect]"
     " connect() to 10.1.0.4 failed: No route to host (113)", "10.1.0.4", "No route to host"),
])
def test_btl_tcp_connect_errno_is_the_networks(line, peer, reason, tmp_path):
    hit = next(h for h in catalogue.match(line) if h.message.id == "ompi.btl_tcp_connect_errno")
    assert (hit.fields["peer"], hit.fields["reason"]) == (peer, reason)
    assert console_verdict(tmp_path, line, progress="").cls == "network_error"


def test_a_connect_failure_of_other_software_is_not_open_mpis():
    assert not [h for h in catalogue.match("connect() to 10.0.0.1 failed: Connection refused (111)")
                if h.message.id == "ompi.btl_tcp_connect_errno"]


@pytest.mark.parametrize("line,got", [
    ("[node-1][[39817,1],2][btl_tcp_endpoint.c:638:mca_btl_tcp_endpoint_recv_connect_ack] received unexpected process "
     "identifier [[39817,1],3]", "[[39817,1],3]"),                                                  # 1.2 - 4.x
    ("[node-1:01234] [[4501,1],0] btl_tcp_endpoint.c:667:mca_btl_tcp_endpoint_recv_connect_ack] received unexpected "
     "process identifier: got [prterun-node-1-1234@1,3] expected [prterun-node-1-1234@1,2]",
     "[prterun-node-1-1234@1,3]"),                                                                   # 5.x
])
def test_another_process_at_the_peers_address_is_the_interface_choice(line, got, tmp_path):
    hit = next(h for h in catalogue.match(line) if h.message.id == "ompi.btl_tcp_unexpected_peer")
    assert hit.fields["got"] == got
    verdict = console_verdict(tmp_path, line, progress=PROGRESS)
    assert verdict.cls == "nic_misselection" and "docker0" in verdict.summary


# ---- the network stack NCCL runs differs across hosts
def _two_hosts(first: str, second: str) -> str:
    return f"node-a:101:101 [0] NCCL INFO {first}\nnode-b:202:202 [0] NCCL INFO {second}\n"


@pytest.mark.parametrize("first,second,words", [
    ("NET/Plugin: Could not find: libnccl-net.so. Using internal network plugin.",
     "NET/Plugin: Loaded net plugin NCCL RDMA Plugin v8 (v8)", "net plugins differ"),
    ("NET/Plugin : No plugin found (libnccl-net.so), using internal implementation",
     "Plugin Path : /opt/hpcx/nccl_rdma_sharp_plugin/lib/libnccl-net.so", "net plugins differ"),
    ("Using network IB", "Using network Socket", "networks differ"),
])
def test_hosts_on_different_network_stacks_are_a_mismatch(first, second, words, tmp_path):
    verdict = console_verdict(tmp_path, _two_hosts(first, second), progress="")
    assert verdict.cls == "version_mismatch" and words in verdict.summary


@pytest.mark.parametrize("first,second", [
    ("Initialized NET plugin IB", "NET/Plugin: Could not find: libnccl-net.so. Using internal net plugin."),
    ("Using network IB", "Using network IB"),
])
def test_one_network_stack_on_every_host_is_no_mismatch(first, second, tmp_path):
    assert console_verdict(tmp_path, _two_hosts(first, second), progress="").cls != "version_mismatch"


def test_one_host_with_two_networks_is_no_mismatch(tmp_path):
    text = "node-a:101:101 [0] NCCL INFO Using network IB\nnode-a:102:102 [1] NCCL INFO Using network Socket\n"
    assert console_verdict(tmp_path, text, progress="").cls != "version_mismatch"
