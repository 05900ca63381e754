"""NCCL and RCCL: the WARN lines (`host:pid:tid [dev] file.cc:N NCCL WARN <msg>`, 2.5+; `file.cc:N WARN <msg>` and
`NCCL WARN <msg>` before 2.5) and the messages torch quotes after `Last error:`.

Read in NVIDIA/nccl (src/transport/net_ib.cc, net_socket.cc, src/misc/socket.cc, src/bootstrap.cc, src/init.cc,
src/enqueue.cc, src/include/alloc.h, src/include/checks.h, src/misc/shmutils.cc, src/proxy.cc; 2.3 - 2.28 through
its history) and ROCm/rccl (same files, plus its own wording of the IB completion error).
"""
from __future__ import annotations

from . import Message as M

_PEER = r"(?P<peer>[\w.:%-]+<\d+>|[\w.:%-]+:\d+|\[[\w.:%-]+\]:\d+)"

MESSAGES = [
    # ---- the IB verbs transport: a work completion with an error (the link or the peer failed)
    M("nccl.ib_completion_error",
      r"NET/IB ?: Got completion (?:from peer " + _PEER + r" )?with (?:error (?P<status>\d+)|status=(?P<status2>\d+))"
      r"(?:,? opcode[ =](?P<opcode>\d+))?(?:,? len[ =](?P<len>\d+))?(?:,? vendor err (?P<vendor_err>\d+))?",
      "warn", "failure", "network_error", "2.3 - 2.28, RCCL", "nccl:src/transport/net_ib.cc:ncclIbTest",
      "NCCL WARN NET/IB : Got completion from peer 10.0.35.1<49189> with error 4, opcode 5327, len 5327, vendor err 81 "
      "(Send)", "NET/IB : Got completion from peer 10.0.35.1<49189> with error 4",
      data={"category": "ib"}, anchor="Got completion"),
    M("nccl.ib_async_event",
      r"NET/IB ?: (?:Got async event|IB event) ?: (?P<reason>.+)",
      "warn", "failure", "network_error", "2.4 - 2.28", "nccl:src/transport/net_ib.cc:ncclIbAsyncThreadMain",
      "NCCL WARN NET/IB : Got async event : port error", "NET/IB : Got async event : port error",
      data={"category": "ib"}, anchor="NET/IB"),
    M("nccl.ib_verbs_call_failed",
      r"Call to (?P<call>ibv_\w+) failed(?: with error (?P<reason>[^,\n]+))?",
      "warn", "failure", "network_error", "2.4 - 2.28", "nccl:src/misc/ibvwrap.cc",
      "NCCL WARN Call to ibv_modify_qp failed with error Connection timed out", "Call to ibv_modify_qp failed",
      data={"category": "ib"}, anchor="Call to ibv_"),
    # ---- sockets (bootstrap, NET/Socket, the proxy): a peer closed, reset or refused
    M("nccl.socket_closed",
      r"(?:socketProgress(?:Opt)?: |Net : |NET/Socket : )?Connection closed by (?:remote )?peer(?: " + _PEER + ")?",
      "warn", "consequence", "network_error", "2.5 - 2.28", "nccl:src/misc/socket.cc:socketProgressOpt",
      "NCCL WARN socketProgress: Connection closed by remote peer node-2<52104>",
      "socketProgress: Connection closed by remote peer", data={"category": "socket"}, anchor="Connection closed by"),
    M("nccl.socket_call_failed",
      r"(?:socketProgressOpt: )?Call to (?P<call>recv|send|connect|accept) (?:from|to) " + _PEER +
      r" failed ?: (?P<reason>Connection reset by peer|Connection refused|Broken pipe|Connection timed out|No route to host"
      r"|[A-Z][\w ]+)",
      "warn", "failure", "network_error", "2.12 - 2.28", "nccl:src/misc/socket.cc:socketProgressOpt",
      "NCCL WARN socketProgressOpt: Call to recv from 10.0.0.2<33759> failed : Connection reset by peer",
      "socketProgressOpt: Call to recv from 10.0.0.2<33759> failed : Connection reset",
      data={"category": "socket"}, anchor="Call to recv|Call to send|Call to connect|Call to accept"),
    M("nccl.socket_connect_failed",
      r"(?:Connect to " + _PEER + r" failed ?: (?P<reason>[\w ]+)|Call to connect (?:timeout|returned) ?:? ?(?P<reason2>[\w ]+))",
      "warn", "failure", "network_error", "2.4 - 2.28", "nccl:src/misc/socket.cc:socketConnect",
      "NCCL WARN Call to connect timeout : Connection refused", "Call to connect timeout : Connection refused",
      data={"category": "socket"}, anchor="Connect to |Call to connect"),
    M("nccl.socket_family",
      r"ncclSocketInit: connecting to address (?P<peer>\S*) ?with family (?P<family>\d+) is neither AF_INET",
      "warn", "failure", "nic_misselection", "2.12 - 2.28", "nccl:src/misc/socket.cc:ncclSocketInit",
      "NCCL WARN ncclSocketInit: connecting to address  with family 59936 is neither AF_INET(2) nor AF_INET6(10)",
      "ncclSocketInit: connecting to address  with family 59936 is neither AF_INET", data={"category": "socket"},
      anchor="ncclSocketInit: connecting"),
    # ---- no interface NCCL may use (NCCL_SOCKET_IFNAME names none that is up)
    M("nccl.no_socket_interface",
      r"(?:Bootstrap|NET/Socket) ?: (?:no socket interface found|[Nn]o interface found|No usable listening interface found)"
      r"|No interface found in the same subnet",
      "warn", "failure", "nic_misselection", "2.3 - 2.28", "nccl:src/bootstrap.cc:bootstrapNetInit",
      "bootstrap.cc:37 NCCL WARN Bootstrap : no socket interface found", "Bootstrap : no socket interface found",
      data={"category": "init"}, anchor="interface found|Interface found|No usable listening interface"),
    # ---- NCCL's own collective check (2.4 - 2.6): ranks called different collectives
    M("nccl.mismatched_collective",
      (r"Mismatched collective detected", r", please check your collective calls at and around rank (?P<rank>\d+)"),
      "warn", "failure", "collective_mismatch", "2.4 - 2.6", "nccl:src/init.cc:ncclCommCheck",
      "init.cc:1247 NCCL WARN Mismatched collective detected, please check your collective calls at and around rank "
      "39. You can use NCCL_DEBUG=INFO and NCCL_DEBUG_SUBSYS=COLL to see the collective logs",
      "Mismatched collective detected", data={"category": "other"}),
    M("nccl.message_truncated",
      (r"Message truncated ?: received (?P<received_bytes>\d+) bytes", r" instead of (?P<expected_bytes>\d+)"),
      "warn", "failure", "shape_mismatch", "2.5 - 2.28", "nccl:src/transport/net_socket.cc / net_ib.cc",
      "NCCL WARN Message truncated : received 4096 bytes instead of 2048", "Message truncated : received 4096 bytes",
      data={"category": "other"}, anchor="Message truncated"),
    # ---- device memory
    M("nccl.cuda_oom",
      r"Cuda failure(?: \d+)? 'out of memory'",
      "warn", "failure", "oom", "2.3 - 2.28", "nccl:src/include/checks.h:CUDACHECK",
      "enqueue.cc:1085 NCCL WARN Cuda failure 'out of memory'", "Cuda failure 'out of memory'",
      data={"category": "cuda", "oom_kind": "nccl_cuda"}, anchor="'out of memory'"),
    M("nccl.calloc_failed",
      r"Failed to CUDA (?:calloc|malloc|host alloc) (?P<requested_bytes>\d+) bytes|cudaMalloc\w* failed",
      "warn", "failure", "oom", "2.4 - 2.28", "nccl:src/include/alloc.h:ncclCudaCalloc",
      "include/alloc.h:178 NCCL WARN Failed to CUDA calloc 6291456 bytes", "Failed to CUDA calloc 6291456 bytes",
      data={"category": "cuda", "oom_kind": "nccl_cuda"}, anchor="Failed to CUDA|cudaMalloc"),
    M("nccl.shm_failed",
      (r"Error while creating shared memory segment", r" (?P<path>\S+)", r" \(size (?P<requested_bytes>\d+)\)"),
      "warn", "failure", None, "2.7 - 2.19", "nccl:src/misc/shmutils.cc:ncclShmOpen",
      "NCCL WARN Error while creating shared memory segment /dev/shm/nccl-QkEMTp (size 9637888)",
      "Error while creating shared memory segment", data={"category": "init"}),
    M("nccl.cuda_failure",
      r"Cuda failure(?: \d+)? '(?!out of memory)(?P<reason>[^']+)'?",
      "warn", "failure", None, "2.3 - 2.28", "nccl:src/include/checks.h:CUDACHECK",
      "NCCL WARN Cuda failure 'an illegal memory access was encountered'", "Cuda failure 'an illegal",
      data={"category": "cuda"}, anchor="Cuda failure"),
    M("nccl.duplicate_gpu",
      (r"Duplicate GPU detected ?: rank (?P<rank>\d+) and rank (?P<other_rank>\d+)",
       r" both on CUDA device (?P<device>\w+)"),
      "warn", "failure", None, "2.6 - 2.28", "nccl:src/init.cc:initTransportsRank",
      "NCCL WARN Duplicate GPU detected : rank 1 and rank 0 both on CUDA device 1000",
      "Duplicate GPU detected : rank 1 and rank 0", data={"category": "init"}, anchor="Duplicate GPU detected"),
    M("nccl.proxy_call_failed",
      (r"Proxy Call to rank (?P<peer>\d+) failed", r" \((?P<reason>[^)]*)\)"),
      "warn", "consequence", "network_error", "2.12 - 2.28", "nccl:src/proxy.cc:ncclProxyCallBlocking",
      "NCCL WARN Proxy Call to rank 5 failed (Connect)", "Proxy Call to rank 5 failed", data={"category": "proxy"},
      anchor="Proxy Call to rank"),
    # ---- falls back, does not fail
    M("nccl.no_ibverbs",
      r"Failed to open libibverbs\.so|NET/IB ?: No device found|Could not get speed|NET/Plugin ?: (?:No plugin found|"
      r"Plugin load \(\S+\) returned)",
      "warn", "benign", None, "2.3 - 2.28", "nccl:src/misc/ibvwrap.cc / src/net.cc",
      "NCCL INFO NET/IB : No device found.", "NET/IB : No device found", data={"category": "ib"}, anchor="libibverbs|No device found|Could not get speed|NET/Plugin"),
    # ---- error-return traces: `file.cc:N -> R` (R = ncclResult_t), the path an error took back to the API
    M("nccl.error_trace",
      r"(?P<src_file>[\w/.-]+\.(?:cc|h|cu|cpp)):(?P<src_line>\d+) -> (?P<code>\d+)(?: \((?P<errno>[^)]*)\))?",
      "error_trace", "consequence", None, "2.3 - 2.28", "nccl:src/include/checks.h:NCCLCHECK",
      "transport/net.cc:562 -> 2", "transport/net.cc:562 -> 2", anchor=" -> "),
    # ---- the result codes' texts (ncclGetErrorString) when a program prints them
    # ---- before 2.5 a WARN had no `host:pid:tid [dev]` prefix: `include/socket.h:390 WARN <msg>`
    M("nccl.warn_pre25",
      r"(?<![\w/.-])(?P<src_file>[\w/.-]+\.(?:cc|h|cu|cpp)):(?P<src_line>\d+) (?:NCCL )?WARN (?P<message>\S.*)",
      "warn", "failure", None, "2.0 - 2.4", "nccl:src/include/debug.h:WARN",
      "include/socket.h:390 WARN Socket creation failed : Address family not supported by protocol",
      "include/socket.h:390 WARN S", anchor=" WARN "),
    M("nccl.socket_create_failed",
      r"(?:Socket creation|Could not create socket|socket\(\) call) failed(?: ?: (?P<reason>[\w ]+))?",
      "warn", "failure", "network_error", "2.3 - 2.28", "nccl:src/misc/socket.cc / include/socket.h:createListenSocket",
      "NCCL WARN Socket creation failed : Address family not supported by protocol", "Socket creation failed",
      data={"category": "socket"}, anchor="Socket creation failed|Could not create socket|socket() call failed"),
    M("nccl.remote_error",
      r"(?P<code>ncclRemoteError)(?::[^\n]*?Last error:\s*(?P<last_error>.+))?",
      "nccl_error", "failure", "network_error", "2.13 - 2.28", "nccl:src/misc/utils.cc:ncclGetErrorString",
      "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.",
      "ncclRemoteError", anchor="ncclRemoteError"),
    M("nccl.system_error",
      r"(?P<code>ncclSystemError)(?::[^\n]*?Last error:\s*(?P<last_error>.+))?",
      "nccl_error", "failure", "network_error", "2.3 - 2.28", "nccl:src/misc/utils.cc:ncclGetErrorString",
      "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error.",
      "ncclSystemError", anchor="ncclSystemError"),
    M("nccl.result_code",
      r"(?P<code>nccl(?:UnhandledCudaError|InternalError|InvalidArgument|InvalidUsage))"
      r"(?::[^\n]*?Last error:\s*(?P<last_error>.+))?",
      "nccl_error", "failure", None, "2.3 - 2.28", "nccl:src/misc/utils.cc:ncclGetErrorString",
      "ncclInternalError: Internal check failed. Last error: Bootstrap : no socket interface found",
      "ncclInternalError", anchor="ncclUnhandledCudaError|ncclInternalError|ncclInvalidArgument|ncclInvalidUsage"),
    # ---- torch quotes ncclGetLastError() after the result code: the cause, as NCCL last WARNed it
    M("nccl.last_error",
      r"Last error:\s*(?P<last_error>\S.*)",
      "nccl_error", "failure", None, "2.13 - 2.28 (torch 2.0 - 2.13)", "pytorch:torch/csrc/distributed/c10d/NCCLUtils.cpp:"
      "getNcclErrorDetailStr", "Last error: socketProgress: Connection closed by remote peer node-2<52104>",
      "Last error: s", anchor="Last error:"),
    M("nccl.socket_errno",
      r"(?P<reason>No route to host|Network is unreachable)",
      "warn", "failure", "network_error", "2.3 - 2.28 (strerror after a socket call)", "nccl:src/misc/socket.cc",
      "NCCL WARN Net : Connect to 10.0.0.2<43127> failed : No route to host", "No route to host",
      data={"category": "socket"}, anchor="No route to host|Network is unreachable"),
]
