"""grammars/nccl.lark, rule by rule: real-format lines (NCCL's src/debug.cc and the sources each line is printed from) that must parse, and lines that must not."""
from __future__ import annotations

import pytest

from nccl_forensics.model import Line, Source, SourceKind
from nccl_forensics.sources.grammars import lalr
from nccl_forensics.sources.nccl import NcclParser, grammar_parse

P = "node1:12345:12400 [3] NCCL INFO "          # the ≤2.25 INFO prefix
P0 = "dgx-017:48211:48211 [0] NCCL INFO "

# (line, kind, a subset of the expected data)
VALID = {
    "prefix": [
        (P + "Bootstrap : Using eth0:10.0.0.1<0>", "bootstrap", {}),
        ("[2025-03-01 12:00:00] " + P + "Using network IB", "net_using", {"network": "IB"}),
        ("[2025-03-01 12:00:00.123456] " + P + "Using network IB", "net_using", {}),
        ("node1:12345:12345 NCCL CALL ncclAllReduce(0x7f, 0x7f, 1024, 7, 0, 0x55, 0x56)", "nccl_call", {}),
        ("node1:12345:12400 [3] 1234.567890 ncclProxyConnect:412 NCCL TRACE connect rank 3", "nccl_trace",
         {"function": "ncclProxyConnect", "src_line": 412}),
        (P + "host:1:3 [6] NCCL INFO Ring 04 : 6[6] -> 5[5] via P2P/IPC", "transport", {"from_rank": 6, "to_rank": 5}),
    ],
    "warn": [
        ("node1:12345:12400 [3] misc/socket.cc:50 NCCL WARN socketProgress: Connection closed by remote peer node2<45678>",
         "warn", {"src_file": "misc/socket.cc", "src_line": 50, "function": None, "category": "socket"}),
        ("[2025-03-01 12:00:00] node1:12345:12400 [3] transport/net_ib.cc:1696 NCCL WARN NET/IB : Got completion from "
         "peer 10.1.1.2<55062> with status=12 opcode=0 len=0 vendor err 129 (Send) localGid ::ffff:10.1.1.1 "
         "remoteGid ::ffff:10.1.1.2 hca mlx5_0", "warn", {"category": "ib"}),
        ("[2026-05-01 12:00:00] node1:12345:12400 [3] misc/socket.cc:58 (socketProgress) NCCL WARN socketProgress: "
         "Connection closed by remote peer node2<45678>", "warn", {"function": "socketProgress"}),
        ("node1:12345:12400 [3] include/alloc.h:48 NCCL WARN Cuda failure 'out of memory'", "warn", {"category": "cuda"}),
        ("node1:12345:12400 [3] proxy.cc:1526 NCCL WARN [Proxy Service 3] Failed to execute operation Connect from "
         "rank 9, retcode 6", "warn", {"category": "proxy"}),
        ("node1:12345:12400 [3] init.cc:1012 NCCL WARN Duplicate GPU detected : rank 1 and rank 0 both on CUDA "
         "device 1a000", "warn", {"category": "init"}),
    ],
    "version": [
        ("NCCL version 2.18.3+cuda12.1", "nccl_version", {"version": "2.18.3", "cuda": "12.1", "rccl": False}),
        ("NCCL version 2.5.7+cudaCUDA_MAJOR.CUDA_MINOR", "nccl_version", {"version": "2.5.7", "cuda": None}),
        (P + "NCCL version 2.22.3+cuda12.6", "nccl_version", {"version": "2.22.3", "cuda": "12.6"}),
        (P + "RCCL version 2.18.3+hip6.0 5c4b3e1", "nccl_version", {"rccl": True, "rccl_version": "5c4b3e1"}),
        ("RCCL version : 2.22.3-HEAD:271856d", "nccl_version", {"version": "2.22.3", "rccl_version": "HEAD:271856d"}),
        (P + "NCCL git version master v2.30.7-1", "nccl_info", {"topic": "git_version"}),
    ],
    "setup": [
        (P + "cudaDriverVersion 12040", "cuda_driver", {"driver_version": 12040}),
        (P + "NCCL_IB_DISABLE set by environment to 1.", "env", {"name": "NCCL_IB_DISABLE", "value": "1"}),
        (P + "NCCL_SOCKET_IFNAME set by environment to eth0", "env", {"name": "NCCL_SOCKET_IFNAME", "value": "eth0"}),
        (P + "NCCL_IB_HCA set to mlx5_0,mlx5_1", "env", {"name": "NCCL_IB_HCA", "value": "mlx5_0,mlx5_1"}),
        (P + "Comm config Blocking set to 1", "env", {"name": "config.Blocking", "value": "1"}),
        (P + "Bootstrap : Using [0]eth0:10.0.0.1<0> [1]virbr0:192.168.122.1<0>", "bootstrap",
         {"interfaces": [{"index": 0, "name": "eth0", "addr": "10.0.0.1<0>"},
                         {"index": 1, "name": "virbr0", "addr": "192.168.122.1<0>"}]}),
        (P + "Bootstrap: Using ib0:fe80::1%ib0<0>", "bootstrap", {"interfaces": [{"index": None, "name": "ib0",
                                                                                 "addr": "fe80::1%ib0<0>"}]}),
        (P + "NET : Using interface eth0:10.0.0.5<0>", "bootstrap", {}),
        (P + "NET/Plugin : No plugin found (libnccl-net.so), using internal implementation", "net_plugin", {"plugin": None}),
        (P + "NET/Plugin: Loaded net plugin NCCL RDMA Plugin v8 (v8)", "net_plugin", {"plugin": "NCCL"}),
        (P + "Initialized NET plugin IB", "net_plugin", {"plugin": "IB"}),
        (P + "Using non-device net plugin version 0", "net_plugin", {}),
        (P + "NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB ; OOB ib0:10.1.1.1<0>", "net_ib",
         {"devices": [{"index": 0, "name": "mlx5_0", "port": 1, "link_layer": "IB"},
                      {"index": 1, "name": "mlx5_1", "port": 1, "link_layer": "IB"}],
          "oob_if": "ib0", "oob_addr": "10.1.1.1<0>"}),
        (P + "NET/IB : Using [3]mlx5_3:1/RoCE [RO]; OOB eth0:10.1.1.1<0>", "net_ib", {"relaxed_ordering": True}),
        (P + "NET/IB : Using [0]mlx5_0:1/IB/SHARP ; OOB ib0:10.1.1.1<0>", "net_ib", {}),
        (P + "NET/IB : No device found.", "net_ib", {"devices": []}),
        (P + "NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0' (no module)", "nccl_info", {"topic": "net_ib"}),
        (P + "NET/Socket : Using [0]eth0:10.0.0.1<0> [1]docker0:172.17.0.1<0>", "net_socket",
         {"devices": [{"index": 0, "name": "eth0", "addr": "10.0.0.1<0>"},
                      {"index": 1, "name": "docker0", "addr": "172.17.0.1<0>"}]}),
        (P + "NET/Socket : 1 interfaces found", "net_socket", {"devices": []}),
        (P + "NET/Socket: Using 2 threads and 8 sockets per thread", "nccl_info", {}),
        (P + "Using network Socket", "net_using", {"network": "Socket"}),
        (P + "Using network AWS Libfabric", "net_using", {"network": "AWS Libfabric"}),
        (P + "Using internal Network Socket", "net_using", {"network": "Socket"}),
    ],
    "comm": [
        (P + "comm 0x5636c7ab5c90 rank 1 nranks 4", "comm_init", {"phase": "start", "rank": 1, "nranks": 4}),
        (P + "comm 0x5636c7ab5c90 rank 1 nranks 4 - COMPLETE", "comm_init", {"phase": "complete"}),
        (P + "comm 0x7f rank 0 nranks 8 cudaDev 0 nvmlDev 0 - Init COMPLETE", "comm_init", {"nvml_dev": 0}),
        (P + "comm 0x7f rank 0 nranks 8 cudaDev 0 busId 1a000 commId 0x9e4c2b1a5d3f7e60 - Init COMPLETE",
         "comm_init", {"bus_id": "1a000", "comm_id": "0x9e4c2b1a5d3f7e60"}),
        (P + "ncclCommInitRank comm 0x55d4 rank 3 nranks 16 cudaDev 3 nvmlDev 3 busId 4f000 commId 0xabc - Init START",
         "comm_init", {"phase": "start", "rank": 3, "nranks": 16, "cuda_dev": 3, "function": "ncclCommInitRank"}),
        (P + "[Rank 3] ncclCommInitRankConfig comm 0x55 rank 3 nranks 16 cudaDev 3 nvmlDev 3 busId 4f000 commId 0xab - "
         "Init START", "comm_init", {"rank": 3}),
        (P + "ncclCommSplit comm 0x55 rank 0 nranks 4 cudaDev 0 nvmlDev 0 busId 1a000 parent 0x11 splitCount 1 color 3 "
         "key 0- Init START", "comm_init", {"parent": "0x11"}),
        (P + "ncclCommSplit comm 0x55 rank 0 nranks 4 cudaDev 0 nvmlDev 0 busId 1a000 parent 0x11 color -1 key 0 "
         "commId 0x1 - Init COMPLETE", "comm_init", {"comm_id": "0x1"}),
        (P + "comm 0x55 rank 3 nRanks 16 nNodes 2 localRanks 8 localRank 3 MNNVL 0", "comm_init",
         {"phase": "info", "nnodes": 2, "local_ranks": 8, "local_rank": 3}),
        (P + "ncclCommInitRank comm 0x5 rank 0 nranks 8 cudaDev 0 nvmlDev 0 busId 1a000 commId 0x7 localSize 8 used "
         "1024 bytes on core 5 - Init COMPLETE", "comm_init", {"local_ranks": 8}),
        (P + "comm 0x55 rank 3 nranks 16 cudaDev 3 busId 4f000 - Abort COMPLETE", "comm_abort", {"phase": "complete"}),
        (P + "comm 0x55 rank 3 nRanks 16 cudaDev 3 busId 4f000 - Abort START", "comm_abort", {"phase": "start"}),
        (P + "comm 0x55 rank 3 nranks 16 cudaDev 3 busId 4f000 - Destroy COMPLETE", "comm_destroy", {"rank": 3}),
    ],
    "ring": [
        (P + "Channel 00/02 :    0   1   2   3   4   5   6   7", "ring",
         {"channel": 0, "nchannels": 2, "order": [0, 1, 2, 3, 4, 5, 6, 7]}),
        (P + "Channel 01/24 : 0 7 6 5 4 3 2 1 8 15", "ring", {"channel": 1, "nchannels": 24}),
        (P + "Channel 00 :    0   1   2   3", "ring", {"nchannels": None}),
        (P + "Ring 00 :    0   1   2   3", "ring", {"order": [0, 1, 2, 3]}),
        (P + "Channel 00/32 :  0  1  2  3  4  5  6  7  8  9 10 11 12 13 14 15 16 17...", "ring", {"truncated": True}),
        (P + "Ring 00 : 7 -> 0 -> 1", "graph_ring", {"prev": 7, "rank": 0, "next": 1}),
        (P + "Tree 0 : -1 -> 0 -> 1/-1/-1", "graph_tree", {"parent": -1, "rank": 0, "children": [1, -1, -1]}),
    ],
    "trees": [
        (P + "Trees [0] 1/-1/-1->0->-1 [1] -1/-1/-1->0->7", "tree",
         {"trees": [{"channel": 0, "children": [1], "rank": 0, "parent": -1},
                    {"channel": 1, "children": [], "rank": 0, "parent": 7}]}),
        (P + "Trees [0] -1->0->1/-1/-1", "tree", {"trees": [{"channel": 0, "children": [1], "rank": 0, "parent": -1}]}),
        (P + "Trees [0] 1/-1/-1->0->-1|-1->0->1/-1/-1", "tree", {}),
        (P + "Trees [0] 1/-1/-1->0->-1 [1] 1/-", "tree", {"truncated": True}),
        (P + "Trees [0] 1/-1/-1->0->-1 comm 0x5 nRanks 08 busId 1a000", "tree", {"comm_ptr": "0x5"}),
    ],
    "transport": [
        (P + "Channel 00/0 : 3[3] -> 4[4] via P2P/IPC/read", "transport",
         {"channel": 0, "conn_index": 0, "from_rank": 3, "to_rank": 4, "transport": "P2P/IPC", "detail": "read"}),
        (P + "Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read", "transport", {"transport": "P2P/CUMEM"}),
        (P + "Channel 02 : 2[3d000] -> 3[3e000] via P2P/IPC", "transport", {"from_bus": "3d000", "conn_index": None}),
        (P + "Channel 00 : 0[1a000] -> 1[1b000] via P2P/direct pointer/read", "transport",
         {"transport": "P2P/direct pointer"}),
        (P + "Channel 00 : 0[1a000] -> 1[1b000] via direct shared memory", "transport", {"transport": "SHM"}),
        (P + "Channel 01 : 1[1] -> 2[2] via SHM/direct/direct", "transport", {"transport": "SHM", "detail": "direct/direct"}),
        (P + "Channel 00/0 : 3[3] -> 4[0] [receive] via NET/IBext_v8/0/GDRDMA", "transport",
         {"direction": "recv", "transport": "NET/IBext_v8", "net_device": "0", "detail": "GDRDMA", "pxn": False}),
        (P + "Channel 00/0 : 7[7] -> 8[0] [send] via NET/IB/3(6)/GDRDMA", "transport",
         {"direction": "send", "pxn": True, "proxy_rank": 6, "net_device": "3"}),
        (P + "Channel 01/0 : 0[0] -> 1[0] [send] via NET/Socket/0", "transport", {"transport": "NET/Socket"}),
        (P + "Channel 00/0 : 0[0] -> 1[0] [send] via NET/AWS Libfabric/0/GDRDMA", "transport",
         {"transport": "NET/AWS Libfabric"}),
        (P + "Ring 00 : 0 -> 1 via NET/IB/0", "transport", {"from_bus": None}),
        (P + "Ring 00 : 1[90] -> 2[c0] via direct shared memory", "transport", {"to_bus": "c0"}),
        (P + "Channel 00/0 : 0[1a000] -> 1[1b000] via P2P/IPC comm 0x5 nRanks 08", "transport",
         {"comm_ptr": "0x5", "transport": "P2P/IPC"}),
        (P + "CollNet 00/0 : 3 [send] via COLLNET/IBext/0/GDRDMA", "transport", {"transport": "COLLNET/IBext"}),
    ],
    "connected": [
        (P + "Connected all rings", "connected", {"what": "all rings"}),
        (P + "Connected all trees", "connected", {"what": "all trees"}),
        (P + "Connected all rings, use ring PXN 0 GDR 1", "connected", {"pxn": 0, "gdr": 1}),
        (P + "Connected NVLS tree", "connected", {"what": "NVLS"}),
        (P + "Connected collnet + chain", "connected", {"what": "CollNet"}),
        (P + "32 coll channels, 32 collnet channels, 0 nvls channels, 32 p2p channels, 32 p2p channels per peer",
         "channels_summary", {"coll_channels": 32, "collnet_channels": 32, "nvls_channels": 0, "p2p_per_peer": 32}),
        (P + "24 coll channels, 16 nvls channels, 32 p2p channels, 2 p2p channels per peer", "channels_summary",
         {"nvls_channels": 16, "collnet_channels": None}),
        (P + "2 coll channels, 2 p2p channels, 2 p2p channels per peer", "channels_summary", {"p2p_channels": 2}),
    ],
    "coll": [
        (P + "AllReduce: opCount 139d sendbuff 0x78d056200000 recvbuff 0x78d056200000 count 7382228 datatype 7 op 0 "
         "root 0 comm 0x78cfda045840 [nranks=128] stream 0x78d07125e5e0", "coll",
         {"op": "allreduce", "op_raw": "AllReduce", "opcount": 0x139D, "count": 7382228, "dtype_code": 7,
          "comm_ptr": "0x78cfda045840", "nranks": 128, "stream": "0x78d07125e5e0"}),
        (P + "Send: opCount 1a sendbuff 0x7f00 recvbuff (nil) count 4096 datatype 9 op 0 root 5 comm 0x55 [nranks=8] "
         "stream 0x56", "coll", {"op": "send", "recvbuff": "(nil)", "opcount": 26}),
        (P + "AllGather: opCount 2 sendbuff 0x1 recvbuff 0x1 count 13107200 datatype 9 op 0 root 0 comm 0x5 [nranks=8] "
         "stream 0x5 task 0 globalrank 3", "coll", {"global_rank": 3}),
        (P + "AlltoAll: opCount 3 sendbuff 0x1 recvbuff 0x2 count 16 datatype 4 op 0 root 0 comm 0x5 [nranks=8] "
         "stream 0x5", "coll", {"op": "alltoall"}),
    ],
    "failures": [
        (P + "misc/socket.cc:749 -> 6", "error_trace", {"src_file": "misc/socket.cc", "src_line": 749, "code": 6}),
        (P + "misc/socket.cc:7 -> 2 (Connection refused)", "error_trace", {"errno": "Connection refused"}),
        (P + "group.cc:75 (ncclAsyncJobMain) -> 6 [Async thread]", "error_trace",
         {"function": "ncclAsyncJobMain", "thread": "Async thread"}),
        (P + "transport/net.cc:1040 -> 3 [Proxy Thread]", "error_trace", {"thread": "Proxy Thread"}),
        (P + "enqueue.cc:123 Cuda failure 'invalid argument'", "error_trace", {"code": None}),
        (P + "RAS client listening socket at ::1<28028>", "ras", {}),
        (P + "RAS declaring peer 10.0.0.2<40000> as DEAD; rasDeadPeersHash 0x1f", "ras", {}),
        (P + "[Service thread] Connection closed by localRank 2", "nccl_info", {}),
    ],
    "misc": [
        (P + "Setting affinity for GPU 0 to ff,ffff0000,00ffffff", "nccl_info", {"topic": "setting_affinity_for_gpu"}),
        (P + "P2P Chunksize set to 524288", "nccl_info", {}),
        (P + "threadThresholds 8/8/64 | 64/8/512 | 512 | 512", "nccl_info", {}),
        (P + "NVLS multicast support is not available on dev 0", "nccl_info", {"topic": "nvls"}),
        (P + "Init timings - ncclCommInitRank: rank 0 nranks 8 total 0.52 (kernels 0.14, alloc 0.01, bootstrap 0.02, "
         "allgathers 0.00, topo 0.20, graphs 0.01, connections 0.12, rest 0.02)", "nccl_info", {}),
        (P + "[Proxy Service] Device 3 CPU core 17", "nccl_info", {}),
        (P + "PXN Disabled as plugin is v4", "nccl_info", {}),
        # a connect no one answers, before NCCL retries it (2.4 - 2.23; 2.24 - 2.26; 2.27+): the catalogue's meaning
        (P + "Call to connect returned Connection refused, retrying", "nccl_info",
         {"topic": "call_to_connect_returned", "meaning": "consequence", "implies": "network_error"}),
        (P + "socketStartConnect: connect returned Connection refused, retrying (1/34) after sleep for 100 msec",
         "nccl_info", {"topic": "socketstartconnect_connect", "meaning": "consequence", "implies": "network_error"}),
        (P + "socketPollConnect: connect to 10.0.0.2<52333> returned No route to host, retrying (3/34) after sleep "
         "for 300 msec", "nccl_info", {"peer": "10.0.0.2<52333>", "reason": "No route to host",
                                       "message_id": "nccl.socket_connect_retry"}),
        # the kernel's EINTR/EAGAIN retries are no peer's: no meaning
        (P + "Call to connect returned Interrupted system call, retrying", "nccl_info", {"meaning": "<missing>"}),
    ],
    "rccl": [
        ("HIP version  : 6.4.43482-0f2d60242", "nccl_info", {"topic": "hip_version"}),
        ("Librccl path : /opt/rocm/lib/librccl.so.1", "nccl_info", {"message": "/opt/rocm/lib/librccl.so.1"}),
    ],
}

VALID["graph_dump"] = [   # NCCL_DEBUG_SUBSYS=GRAPH (nccl.md §4.5), lines as real logs print them
    (P + "CPU/3 (1/2/-1)", "topo_dump", {"element": "node", "node": "CPU/3", "detail": "1/2/-1"}),
    (P + "CPU/0-0 (1/1/2)", "topo_dump", {"element": "node", "node": "CPU/0-0"}),
    (P + "CPU/FFFFFFFFFFFFFFFF", "topo_dump", {"element": "node", "node": "CPU/FFFFFFFFFFFFFFFF", "detail": None}),
    (P + "+ PCI[5000.0] - NIC/0", "topo_dump", {"element": "link", "link": "PCI", "bw": 5000.0, "node": "NIC/0"}),
    (P + "                + NET[1.2] - NET/0 (0/0/1.250000)", "topo_dump",
     {"element": "link", "link": "NET", "bw": 1.2, "node": "NET/0", "detail": "0/0/1.250000"}),
    (P + "              + PCI[48.0] - GPU/0-19000 (0)", "topo_dump", {"node": "GPU/0-19000", "detail": "0"}),
    (P + "                            + NVL[370.8] - NVS/0", "topo_dump", {"link": "NVL", "bw": 370.8}),
    (P + "+ PCI[12] - GPU/1000 (0)", "topo_dump", {"link": "PCI", "bw": 12.0}),
    (P + "==========================================", "topo_dump", {"element": "rule"}),
    (P + "=== System : maxBw 370.8 totalBw 370.8 ===", "nccl_info", {}),
    (P + "Intel CPU (PCI 12, InterCpu 8)", "topo_dump", {"element": "cpu", "detail": "PCI 12, InterCpu 8"}),
    (P + "/sys/devices/pci0000:00/0000:00:1f.6 -> 0/0/0/0", "topo_dump", {"element": "path", "detail": "0/0/0/0"}),
    (P + " 0 : GPU/0 GPU/1", "topo_dump", {"element": "channel", "channel": 0, "nodes": ["GPU/0", "GPU/1"]}),
    (P + "Pattern 4, crossNic 0, nChannels 1, bw 40.000000/40.000000, type NVL/PIX, sameChannels 1", "nccl_info",
     {"topic": "pattern_crossnic"}),
]
VALID["old_forms"] = [   # NCCL 2.2–2.8 lines
    (P + "rank 0 nranks 8", "comm_init", {"rank": 0, "nranks": 8, "comm_ptr": None}),
    (P + "CUDA Dev 0[0], Socket NIC distance :  PHB", "nccl_info", {}),
    (P + "CUDA Dev 0, IP Interfaces : lo(SOC) eth0(PXB) eth1(PXB)", "nccl_info", {}),
    (P + "Could not enable P2P between dev 2(=67000) and dev 3(=68000)", "nccl_info", {}),
    (P + "Could not find real path of /sys/class/net/lo/device", "nccl_info", {}),
    (P + "Could not get speed from /sys/class/net/lo/speed. Defaulting to 10 Gbps.", "nccl_info", {}),
]
VALID["proxy"] = [
    (P + "resp.opId=0x7fc26fb71e40 matches expected opId=0x7fc26fb71e40", "nccl_info", {}),
    (P + "New proxy recv connection 5 from local rank 0, transport 1", "nccl_info", {}),
    (P + "proxyProgressAsync opId=0x7fc26facee30 op.type=1 op.reqBuff=0x7fc24000c190 op.respSize=16 done",
     "nccl_info", {}),
    (P + "Received and initiated operation=Init res=0", "nccl_info", {}),
]
VALID["host_dev"] = [    # the "host [dev]" head without pid:tid, with or without a [date] stamp
    ("gpu-server320 [5] NCCL INFO misc/socket.cc:64 -> 6", "error_trace", {"src_line": 64, "code": 6}),
    ("[2025-11-24 11:20:21] gpu-server320 [5] misc/socket.cc:46 NCCL WARN socketProgressOpt: Call to send failed",
     "warn", {"src_file": "misc/socket.cc", "category": "socket"}),
    ("gpu-server320 [5] NCCL INFO misc/socket.cc:607 -> 6 socketWait(NCCL_SOCKET_SEND, sock, &sock->type)",
     "error_trace", {"code": 6, "message": "socketWait(NCCL_SOCKET_SEND, sock, &sock->type)"}),
]
VALID["ofi_rccl"] = [
    ("ip-10-36-29-253:84:2553 [0] nccl_net_ofi_create_plugin:335 NCCL WARN NET/OFI aws-ofi-nccl initialization failed",
     "warn", {"src_file": "nccl_net_ofi_create_plugin", "src_line": 335}),
    ("supllm:402:402 [0] /longer_pathname_so_that_rpms_can_support_packaging_the_debug_info_for_all_os_profiles/src/"
     "out/ubuntu-22.04/22.04/build/rccl/hipify/src/init.cc:179 NCCL WARN Missing \"iommu=pt\" from kernel command line",
     "warn", {"src_line": 179}),
]

INVALID = [
    P + "this is not a line NCCL prints",
    P + "AllReduce: opCount zz sendbuff 0x1 recvbuff 0x1 count 1 datatype 7 op 0 root 0 comm 0x5 [nranks=8] stream 0x5",
    P + "Channel 00/0 : 3[3] -> 4[4] via",
    P + "comm 0x55 rank three nranks 4",
    P + "NET/IB : Using [0]mlx5_0:1/IB",
    "node1:12345 [3] NCCL INFO Using network IB",
    "node1:12345:12400 [3] NCCL DEBUG Using network IB",
    P + "+ PCI[12] GPU/1000 (0)",
    P + "CPU/ (1/2/-1)",
    "",
    "Traceback (most recent call last):",
]

CASES = [(rule, *case) for rule, cases in VALID.items() for case in cases]


@pytest.mark.parametrize("name", ["nccl", "wrappers"])
def test_grammar_builds(name):
    assert lalr(name).parser is not None


@pytest.mark.parametrize("rule,line,kind,expected", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_valid_lines(rule, line, kind, expected):
    parsed = grammar_parse(line)
    assert parsed is not None, line
    _, got_kind, data = parsed
    assert got_kind == kind
    assert {k: data.get(k, "<missing>") for k in expected} == expected


@pytest.mark.parametrize("line", INVALID)
def test_invalid_lines(line):
    assert grammar_parse(line) is None


def test_prefix_fields():
    (ts, host, pid, tid, dev), _, _ = grammar_parse("[2025-03-01 12:00:00] " + P + "Using network IB")
    assert (ts, host, pid, tid, dev) == ("[2025-03-01 12:00:00]", "node1", 12345, 12400, 3)


def feed(lines, name="mixed.log"):
    parser = NcclParser(Source(name, SourceKind.NCCL))
    events = []
    for no, text in enumerate(lines, 1):
        parser.feed(Line(no, text))
        events += parser.out
        parser.out.clear()
    parser.finish()
    return events + parser.out


def test_unknown_nccl_line_is_unparsed_with_its_prefix_fields():
    [ev] = feed([P + "this is not a line NCCL prints"])
    assert (ev.kind, ev.host, ev.pid, ev.tid, ev.device) == ("unparsed", "node1", 12345, 12400, 3)


def test_lines_without_an_nccl_tag_are_not_claimed():
    parser = NcclParser(Source("x.log", SourceKind.CONSOLE))
    assert not parser.feed(Line(1, "RuntimeError: NCCL error in: ProcessGroupNCCL.cpp:1691, unhandled system error"))


def init(host, pid, dev, rank, nranks, ptr, comm_id, phase="START"):
    return (f"{host}:{pid}:{pid} [{dev}] NCCL INFO ncclCommInitRank comm {ptr} rank {rank} nranks {nranks} "
            f"cudaDev {dev} nvmlDev {dev} busId {dev}a000 commId {comm_id} - Init {phase}")


def coll(host, pid, dev, ptr, opcount, dtype=7, op="AllReduce", redop=0, root=0):
    return (f"{host}:{pid}:{pid} [{dev}] NCCL INFO {op}: opCount {opcount:x} sendbuff 0x7f00 recvbuff 0x7f00 "
            f"count 1024 datatype {dtype} op {redop} root {root} comm {ptr} [nranks=4] stream 0x99")


def test_ranks_and_comm_recovered_in_an_interleaved_file_with_back_fill():
    lines = [
        "hostA:11:11 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>",    # before its init line
        "hostA:22:22 [1] NCCL INFO cudaDriverVersion 12040",
        init("hostA", 22, 1, 3, 4, "0x222", "0xfeed"),
        init("hostA", 11, 0, 2, 4, "0x111", "0xfeed"),
        coll("hostA", 11, 0, "0x111", 5),
        coll("hostA", 22, 1, "0x222", 5),
    ]
    events = feed(lines)
    assert [e.line for e in events] == [1, 2, 3, 4, 5, 6]
    assert [e.rank for e in events] == [2, 3, 3, 2, 2, 3]
    assert [e.comm for e in events if e.kind == "coll"] == ["0xfeed", "0xfeed"]


def test_rank_from_transport_line_when_init_comes_late():
    lines = ["h:7:7 [5] NCCL INFO Channel 00 : 5[5] -> 6[6] via P2P/IPC", "h:7:7 [5] NCCL INFO Connected all rings"]
    assert [e.rank for e in feed(lines)] == [5, 5]


@pytest.mark.parametrize("version,code,dtype", [
    ("2.9.9", 9, None), ("2.12.12", 9, "bfloat16"), ("2.21.5", 10, None), ("2.24.3", 10, "float8_e4m3"),
    ("2.24.3", 11, "float8_e5m2"), ("2.18.3", 7, "float32"), ("2.18.3", 6, "float16"), ("2.18.3", 12, None),
])
def test_dtype_is_decoded_by_version(version, code, dtype):
    events = feed([f"h:1:1 [0] NCCL INFO NCCL version {version}+cuda12.1", init("h", 1, 0, 0, 4, "0x1", "0x2"),
                   coll("h", 1, 0, "0x1", 1, dtype=code)])
    assert events[-1].data["dtype"] == dtype


@pytest.mark.parametrize("version,code,redop", [("2.9.9", 4, None), ("2.10.3", 4, "avg"), ("2.18.3", 2, "max"),
                                                ("2.18.3", 5, "premulsum"), ("2.10.3", 5, None)])
def test_redop_is_decoded_by_version(version, code, redop):
    events = feed([f"h:1:1 [0] NCCL INFO NCCL version {version}+cuda12.1", coll("h", 1, 0, "0x1", 1, redop=code)])
    assert events[-1].data["redop"] == redop


def test_send_recv_root_is_the_peer_and_allreduce_has_no_root():
    events = feed([coll("h", 1, 0, "0x1", 1, op="Send", root=5), coll("h", 1, 0, "0x1", 2, root=0),
                   coll("h", 1, 0, "0x1", 3, op="Broadcast", root=2)])
    assert [(e.data["root"], e.data["peer"], e.data["redop"]) for e in events] == [
        (None, 5, None), (None, None, "sum"), (2, None, None)]


def test_bare_banner_belongs_to_rank_0_before_2_22():
    events = feed(["NCCL version 2.18.3+cuda12.1", init("h", 1, 0, 0, 2, "0x1", "0x2")])
    assert events[0].kind == "nccl_version" and events[0].rank == 0


def test_torch_error_text_is_no_version_banner():
    # c10d's ncclGetErrorWithVersion (`<error>, NCCL version X`): any rank prints it, the banner only rank 0 (< 2.22)
    events = feed(["RuntimeError: NCCL error in: ProcessGroupNCCL.cpp:1331, unhandled system error, NCCL version 2.18.5",
                   "[1,3]<stdout>:NCCL version 2.7.8+cuda11.0"])
    assert [(e.kind, e.data["version"]) for e in events if e.kind == "nccl_version"] == [("nccl_version", "2.7.8")]


def test_orphan_half_of_a_torn_line():
    [ev] = feed(["Ring 01 : 3[3] -> 2[2] via P2P/IPC"])
    assert (ev.kind, ev.data["from_rank"], ev.rank) == ("transport", 3, 3)
