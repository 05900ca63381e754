"""Tests generated from the message catalogue: every entry, in every way a log delivers it (as printed, behind a
launcher's or a logger's prefix, in ANSI colour, cut after its decisive words, glued between two other messages,
wrapped by a terminal), read by the whole parser chain into an event of the entry's kind with its meaning."""
from __future__ import annotations

import pytest

from nccl_forensics.model import (
    MEANINGS,
    Source,
    SourceKind,
    shows_failure,
    shows_health,
)
from nccl_forensics.sources import catalogue, parse_source
from nccl_forensics.sources.catalogue.cuda import from_amd_runtime

ENTRIES = catalogue.messages()
IDS = [m.id for m in ENTRIES]
OTHER = "Some unrelated progress text 37%|███▋      | 37/100"


def _wrap(text: str, width: int) -> str:
    return "\n".join(text[i:i + width] for i in range(0, len(text), width))


FORMS = {
    "as_printed": lambda m: m.example,
    "rank_prefix": lambda m: f"[rank3]:{m.example}",
    "ompi_tag": lambda m: f"[1,3]<stderr>:{m.example}",
    "any_prefix": lambda m: f"worker-7 | 2024-05-01 10:00:00,123 ERROR | {m.example}",
    "ansi": lambda m: f"\x1b[31m{m.example}\x1b[0m",
    "cut": lambda m: m.decisive,
    "glued": lambda m: f"{OTHER} {m.example} {OTHER}",
    "wrapped_80": lambda m: _wrap(m.example, 80),
    "wrapped_120": lambda m: _wrap(m.example, 120),
}
# A message that starts a line by definition (a table row, `what():`) has no glued or prefixed form.
_LINE_START = {"torchrun.rc_time", "torchrun.rc_rank", "torchrun.rc_exitcode", "pytorch.cpp_what", "python.bare_exception",
               "host.python_memory_error", "lsf.successfully_completed"}


def _events(tmp_path, text: str):
    path = tmp_path / "console.log"
    path.write_text(text + "\n", encoding="utf-8")
    return parse_source(Source(str(path), SourceKind.CONSOLE)).events


@pytest.mark.parametrize("form", sorted(FORMS))
@pytest.mark.parametrize("msg", ENTRIES, ids=IDS)
def test_every_entry_in_every_arrival_form(msg, form, tmp_path):
    if msg.id in _LINE_START and form in ("glued", "any_prefix"):
        pytest.skip("begins a line by definition")
    text = FORMS[form](msg)
    if form.startswith("wrapped") and "\n" not in text:
        pytest.skip("shorter than the terminal")
    events = _events(tmp_path, text)
    kinds = [ev.kind for ev in events]
    if msg.meaning == "benign":          # read or not, it must never show a failure
        assert not any(shows_failure(ev) for ev in events), kinds
        return
    assert msg.kind in kinds, (form, text, kinds)
    assert "unparsed" not in kinds or form.startswith("wrapped"), kinds
    same = [ev for ev in events if ev.kind == msg.kind]
    if msg.meaning in ("failure", "consequence"):
        assert any(shows_failure(ev) for ev in same)
    if msg.meaning == "healthy":
        assert any(shows_health(ev) for ev in same)


@pytest.mark.parametrize("msg", ENTRIES, ids=IDS)
def test_every_entry_says_what_it_is_and_where_it_comes_from(msg):
    assert msg.meaning in MEANINGS
    assert msg.versions and msg.source and ":" in msg.source
    assert msg.example.find(msg.decisive.strip()) >= 0 or msg.decisive in msg.example
    assert msg.family in catalogue.FAMILIES + ("python", "torchrun", "launch", "deepspeed", "composer", "ompi",
                                               "hydra", "slurm", "horovod", "ray", "host", "mpspawn", "ucx", "ucc",
                                               "colossalai", "vllm", "ssh", "mpich", "sglang", "bash", "lightning",
                                               "accelerate", "submitit", "kubeflow", "k8s", "dcgm", "deepep", "nvshmem",
                                               "megatron", "nvrx", "te", "absl", "pbs", "lsf", "skypilot", "trtllm", "paddle",
                                               "torchx", "xla", "tvm_ffi", "pdsh", "tgi", "rdma_core", "cann")
    hits = catalogue.match(msg.example)
    # a frame (`file.cc:N WARN …`) or a wider message of the same kind may read the example in its place
    assert any(h.message.id == msg.id for h in hits) or any(h.message.kind == msg.kind for h in hits), msg.id


def test_ids_are_unique():
    assert len(IDS) == len(set(IDS))


def test_fields_are_read_from_the_words():
    [hit] = [h for h in catalogue.match("[launch.py:321:sigkill_handler] ['python', '-u', 'main.py', '--local_rank=7'] "
                                        "exits with return code = -9") if h.message.kind == "worker_failed"]
    assert hit.fields["exitcode"] == -9 and hit.fields["signal"] == "SIGKILL"
    assert "local_rank" not in hit.fields       # the last rank DeepSpeed spawned, not the one that failed
    [alone] = [h for h in catalogue.match("['python', '-u', 'main.py', '--local_rank=0'] exits with return code = -9")
               if h.message.kind == "worker_failed"]
    assert alone.fields["local_rank"] == 0      # one process on the node: the last one spawned is the one
    [hit] = catalogue.match("mpirun noticed that process rank 3 with PID 4021 on node gpu-07 exited on signal 11 "
                            "(Segmentation fault).")
    assert (hit.fields["rank"], hit.fields["pid"], hit.fields["node"], hit.fields["signal"]) == (3, 4021, "gpu-07",
                                                                                                 "SIGSEGV")


def test_a_headerless_root_cause_table_is_one_child_failed(tmp_path):
    events = _events(tmp_path, "  rank      : 0 (local_rank: 0)\n  exitcode  : -11 (pid: 6421)\n  error_file: <N/A>\n"
                               "  traceback : Signal 11 (SIGSEGV) received by PID 6421")
    [ev] = [ev for ev in events if ev.kind == "child_failed"]
    assert (ev.rank, ev.data["exitcode"], ev.data["pid"], ev.data["signal"]) == (0, -11, 6421, "SIGSEGV")


def test_a_run_on_line_yields_each_message(tmp_path):
    line = ("[E ProcessGroupNCCL.cpp:455] Some NCCL operations have failed or timed out. Due to the asynchronous nature "
            "of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data. terminate called after "
            "throwing an instance of 'std::runtime_error' what(): NCCL error: remote process exited or there was a "
            "network error, NCCL version 2.14.3 ncclRemoteError: A call failed possibly due to a network error or a "
            "remote process exiting prematurely. Last error: NET/IB : Got completion from peer 11.214.147.122<39138> "
            "with error 12, opcode 0, len 0, vendor err 129")
    events = _events(tmp_path, line)
    ib = [ev for ev in events if ev.data.get("message_id") == "nccl.ib_completion_error"]
    assert ib and ib[0].data["peer"] == "11.214.147.122<39138>" and ib[0].data["implies"] == "network_error"
    assert {"cpp_terminate", "comm_abort", "nccl_error"} <= {ev.kind for ev in events}


def test_benign_warnings_do_not_show_a_failure(tmp_path):
    events = _events(tmp_path, "node1:123:456 [0] NCCL INFO NET/IB : No device found.")
    assert events and not any(shows_failure(ev) for ev in events)


@pytest.mark.parametrize("line,message_id,fields", [
    # every Xid the driver prints is read; the ones that end the GPU's work say so
    # nccl-tests' NCCLCHECK before its 2019 resync with NCCL 2.4: no host and no `Test` before the words
    ("NCCL failure all_reduce.cu:95 'unhandled cuda error'", "nccl.check_macro",
     {"src_file": "all_reduce.cu", "src_line": 95}),
    # an IB completion error keeps its status, request size and vendor error in every wording (2.27+: `reqSize=`)
    ("NCCL WARN NET/IB: Got completion from peer 172.16.4.31<51872> with status=IBV_WC_RETRY_EXC_ERR(12) "
     "opcode=IBV_WC_SEND(0) reqSize=524288 vendor_err=129 req_type=Send", "nccl.ib_completion_error",
     {"status": 12, "len": "524288", "vendor_err": 129}),
    ("NCCL WARN NET/IB : Got completion from peer 10.0.35.1<49189> with error 12, opcode 0, len 0, vendor err 129",
     "nccl.ib_completion_error", {"status": 12, "len": "0", "vendor_err": 129}),
    ("NVRM: Xid (PCI:0000:3b:00): 79, pid=4021, GPU has fallen off the bus.", "kernel.xid_gpu_lost",
     {"xid": 79, "pid": 4021, "bus_id": "PCI:0000:3b:00"}),
    ("[ 812.3] NVRM: Xid (PCI:0000:b7:00): 48, pid='<unknown>', name=<unknown>, An uncorrectable double bit error",
     "kernel.xid_memory_error", {"xid": 48}),
    ("NVRM: Xid (PCI:0000:3b:00): 61, pid=1, Internal micro-controller breakpoint/warning",
     "kernel.xid_microcontroller_breakpoint",
     {"xid": 61}),
    # MPICH before 3 printed no `YOUR `; macOS's strsignal adds `: 11`
    ("APPLICATION TERMINATED WITH THE EXIT STRING: Hangup (signal 1)", "hydra.exit_string", {"signal": "SIGHUP"}),
    ("YOUR APPLICATION TERMINATED WITH THE EXIT STRING: Segmentation fault: 11 (signal 11)", "hydra.exit_string",
     {"signal": "SIGSEGV", "signum": 11}),
    # Slurm before 17 put the node after the reason
    ("slurmstepd: error: *** JOB 14309850 CANCELLED AT 2015-06-30T04:08:07 DUE TO TIME LIMIT on compute-b1-051 ***",
     "slurm.step_cancelled", {"job_id": "14309850", "reason": "TIME LIMIT"}),
    # RCCL: old HIP printed the error's name, new RCCL says HIP and where
    ("node:1:2 [0] NCCL WARN Cuda failure 'hipErrorOutOfMemory'", "nccl.cuda_oom", {"oom_kind": "nccl_cuda"}),
    ("NCCL WARN HIP failure 'invalid device ordinal' at /rccl/src/init.cc:1660", "nccl.rccl_hip_failure",
     {"reason": "invalid device ordinal", "where": "/rccl/src/init.cc:1660"}),
    # gloo: the reset wording keeps its own entry though a longer anchor (`Read error [`) covers it
    ("RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:589] Read error [10.0.0.2]:5312: Connection reset "
     "by peer", "gloo.read_reset", {"peer": "10.0.0.2:5312"}),
    ("Read error [10.0.0.2]:5312: No route to host", "gloo.read_error", {"reason": "No route to host"}),
    # a broken link is the network's failure; a peer that closed its end (EPIPE) keeps the entry's own meaning
    # (a consequence)
    ("Read error [10.8.0.21]:45112: Connection timed out", "gloo.read_error", {"meaning": "failure"}),
    ("writev [10.0.0.2]:5312: Broken pipe", "gloo.write_error", {"reason": "Broken pipe", "meaning": None}),
    ("RuntimeError: [enforce fail at ../third_party/gloo/gloo/transport/tcp/pair.cc:787] state_ >= CONNECTED. 1 vs 2. "
     "Pair is not connected ([10.0.3.12]:40217 <--> [10.0.3.14]:35561)", "gloo.pair_not_connected",
     {"local": "[10.0.3.12]:40217", "peer": "10.0.3.14:35561"}),
    # NCCL 2.28+'s symmetric-window space prints its sizes in hex
    ("allocator.cc:218 NCCL WARN Allocation failed. No suitable space found to accommodate size=0x200000 within "
     "limit=0x2000000000", "nccl.window_space_exhausted", {"requested_bytes": 2097152, "oom_kind": "nccl_window"}),
    ("  what():  [enforce fail at C:\\actions-runner\\_work\\pytorch\\pytorch\\third_party\\gloo\\gloo\\transport\\uv\\"
     "pair.cc:242] op.buf. Cannot lock pointer to unbound buffer", "gloo.unbound_buffer_gone", {"category": "unbound_buffer"}),
    ("init.cc:1863 NCCL WARN commReclaim: cleanup comm 0x7f00aa0 rank 5 failed in destroy/abort, error 6",
     "nccl.comm_reclaim_failed", {"rank": 5, "code": 6, "category": "abort"}),
    ("RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:523] Write timeout [10.0.0.2]:5312",
     "gloo.io_timeout", {"op": "Write", "peer": "10.0.0.2:5312"}),
    # NCCL before 2.12.10 printed its IB size check without request, tag or peer
    ("NCCL WARN NET/IB : collective mismatch error local size 131072 remote 0 addr 7f083e630000 rkey 83000 seq 2/2",
     "nccl.ib_size_mismatch_pre212", {"expected_bytes": 131072, "received_bytes": 0}),
    # a peer the poster redacted is still a failed connect
    ("misc/socket.cc:483 NCCL WARN socketStartConnect: Connect to xxx failed : Software caused connection abort",
     "nccl.socket_connect_failed", {"peer": "xxx", "reason": "Software caused connection abort"}),
    # Open MPI with no node name resolved: `on node %s` with an empty string
    ("mpirun noticed that process rank 0 with PID 0 on node exited on signal 4 (Illegal instruction).",
     "ompi.noticed_signal", {"rank": 0, "signal": "SIGILL", "node": None}),
    # UCX before 1.9 (strsignal only) and after (`: cause`), the pid padded to five columns
    ("[gpu-07:4021 :0:4100] Caught signal 11 (Segmentation fault)", "ucx.caught_signal",
     {"pid": 4021, "signal": "SIGSEGV"}),
    ("[09677202c889:5283 :0:5704] Caught signal 7 (Bus error: nonexistent physical address)", "ucx.caught_signal",
     {"host": "09677202c889", "pid": 5283, "signal": "SIGBUS"}),
    # NVLink 5: the severity is the driver's own word, before and after R575's info format
    ("NVRM: Xid (PCI:0000:00:1e): 149, NETIR_LINK_EVT Fatal XC 1 i 2 Link 01 [0x0000000a]", "kernel.xid_nvlink5_fatal",
     {"xid": 149, "unit": "NETIR_LINK_EVT"}),
    ("NVRM: Xid (PCI:0018:01:00): 145, RLW_RXPIPE Nonfatal XC0 i0 Link 13 (0x0409a0c2 0x00000008)",
     "kernel.xid_nvlink5_nonfatal", {"xid": 145}),
    # Xid 45 with its root cause means what the cause means; without one it is the cleanup only
    ("kernel: NVRM: Xid (PCI:0000:ed:00): 45, pid=1818992, name=python3, Ch 0000000c caused by previous Xid 145",
     "kernel.xid_after_fatal", {"xid": 45, "cause_xid": 145, "pid": 1818992}),
    ("kernel: NVRM: Xid (PCI:0000:ed:00): 45, pid=1818992, name=python3, Ch 0000000c", "kernel.xid_consequence",
     {"xid": 45}),
    # the older spelling of ProcessGroupNCCL's ncclUniqueId error, with the old store's timeout
    ("RuntimeError: [1] is setting up NCCL communicator and retreiving ncclUniqueId from [0] via c10d key-value store "
     "by key '0', but store->get('0') got error: Timeout waiting for key: default_pg/0/0 after 1800000 ms",
     "pytorch.unique_id_store_timeout", {"rank": 1, "other_rank": 0}),
    # ... and when the store's host went away instead, a consequence of that
    ("[3] is setting up NCCL communicator and retrieving ncclUniqueId from [0] via c10d key-value store by key '0', "
     "but store->get('0') got error: Connection reset by peer", "pytorch.unique_id_store_get",
     {"rank": 3, "reason": "Connection reset by peer"}),
    # NCCL's refused connect before a retry: 2.4 - 2.23 name nothing, 2.24 - 2.26 the function, 2.27+ the address
    ("gpu-3:4010:4113 [1] NCCL INFO Call to connect returned Connection refused, retrying",
     "nccl.socket_connect_retry", {"reason": "Connection refused", "peer": None}),
    ("gpu-3:4010:4113 [1] NCCL INFO socketStartConnect: connect returned Connection timed out, retrying (2/34) after "
     "sleep for 200 msec", "nccl.socket_connect_retry", {"func": "socketStartConnect", "reason": "Connection timed out"}),
    # ncclIbInit skips a device or a port it cannot open or query: 2.3 - 2.19 `port %d`, 2.20+ `port_num %d`
    ("node:1:2 [1] transport/net_ib.cc:149 NCCL WARN NET/IB : Unable to open device mlx5_58", "nccl.ib_device_skipped",
     {"device": "mlx5_58"}),
    ("NCCL WARN NET/IB : Unable to query port 1", "nccl.ib_device_skipped", {"port": "1"}),
    ("NCCL WARN NET/IB : Unable to query port_num 2", "nccl.ib_device_skipped", {"port": "2"}),
    ("node:1:2 [1] misc/ibvwrap.cc:212 NCCL WARN Call to ibv_open_device failed", "nccl.ib_open_device_failed", {}),
    # a NIC without a PCI path: the socket NIC at INFO (2.4 - 2.6), the IB device with its name (2.12+)
    ("h:1:2 [0] NCCL INFO Could not find real path of /sys/class/net/eth0/device", "nccl.nic_pci_path_missing",
     {"path": "/sys/class/net/eth0/device"}),
    ("NCCL WARN Could not find real path of mlx5_0 (/sys/class/infiniband/mlx5_0/device)", "nccl.nic_pci_path_missing",
     {"device": "mlx5_0", "path": "/sys/class/infiniband/mlx5_0/device"}),
    # c10d's per-address connect note: an IPv6 address in brackets, an IPv4 one (or its name) without
    ("[W socket.cpp:697] [c10d] The client socket has failed to connect to 0.104.99.143:47389 (errno: 110 - Connection "
     "timed out).", "pytorch.client_connect_retry", {"host": "0.104.99.143", "store_port": "47389", "errno": "110"}),
    ("[W socket.cpp:663] [c10d] The client socket has failed to connect to node-1.cluster:29500 (errno: 113 - No route "
     "to host).", "pytorch.client_connect_retry", {"host": "node-1.cluster", "reason": "No route to host"}),
    # the socket transport's other cap; MPICH 4.1+ names the NIC where 3.3 - 4.0 (and Intel MPI) name the source line
    ("NCCL WARN NET/Socket : the total number of sockets is greater than the maximum allowed, setting "
     "NCCL_NSOCKS_PERTHREAD to 4", "nccl.socket_setting_capped", {"count": 4}),
    ("MPIDI_OFI_handle_cq_error(593): OFI poll failed (default nic=en5: Input/output error)", "mpich.ofi_poll_failed",
     {"reason": "default nic=en5: Input/output error", "category": "fabric"}),
    # i_hydra: a proxy killed by a signal (its node's processes with it), or one that exited with their status
    ("[mpiexec@n02p076.gvr.local] wait_proxies_to_terminate (../../../../../src/pm/i_hydra/mpiexec/intel/"
     "i_mpiexec.c:393): downstream from host n02p076 was killed by signal 8 (Floating point exception)",
     "hydra.downstream_killed", {"node": "n02p076", "signal": "SIGFPE"}),
    ("[mpiexec@b1373] wait_proxies_to_terminate (../i_mpiexec.c:527): downstream from host b1373 exited with status 141",
     "hydra.downstream_exited", {"node": "b1373", "exitcode": 141}),
    ("srun: error: Unable to create step for job 4359715: More processors requested than permitted",
     "slurm.step_create_failed", {"job_id": "4359715", "reason": "More processors requested than permitted"}),
    ("[  612.004113] Kernel panic - not syncing: Hard LOCKUP", "kernel.panic", {"reason": "Hard LOCKUP"}),
    # elastic's etcd-v2 backend words its unreachable store as the c10d backend does
    ("torch.distributed.elastic.rendezvous.api.RendezvousConnectionError: The connection to etcd has failed. See inner "
     "exception for details.", "pytorch.store_connection_failed", {}),
    # XLA's NCCL status quotes the call with its arguments: TF 1.x (no last warning), 2021 - 2024 with `file:line: `
    # (the last warning from 2024), 2024+ without `file:line`
    ("RuntimeError: Internal: external/org_tensorflow/tensorflow/compiler/xla/service/gpu/nccl_all_reduce_thunk.cc:162: "
     "NCCL operation ncclAllReduce(send_buffer, recv_buffer, buffer.element_count, datatype, reduce_op, comm, "
     "*cu_stream) failed: invalid usage: while running replica 0", "xla.nccl_operation_failed",
     {"call": "ncclAllReduce", "code": "ncclInvalidUsage", "last_error": None}),
    ("INTERNAL: external/xla/xla/service/gpu/nccl_utils.cc:305: NCCL operation ncclCommInitRank(&comm, nranks, id, "
     "rank) failed: unhandled system error (run with NCCL_DEBUG=INFO for details). Last NCCL warning(error) log entry "
     "(may be unrelated) 'socketTryAccept: Accept failed: Bad file descriptor'.", "xla.nccl_operation_failed",
     {"call": "ncclCommInitRank", "code": "ncclSystemError",
      "last_error": "socketTryAccept: Accept failed: Bad file descriptor"}),
    ("INTERNAL: NCCL operation ncclGroupEnd() failed: internal error - please report this issue to the NCCL developers. "
     "Last NCCL warning(error) log entry (may be unrelated) 'Attribute busid of node nic not found'.",
     "xla.nccl_operation_failed", {"call": "ncclGroupEnd", "code": "ncclInternalError"}),
    # the AMD stack: HIP's device assert, clr's allocation log (the VMM calls' `free :N| total`), amdgpu's MES in
    # both wordings, amdkfd's poison consumption in its three wordings, the reset that lost VRAM as DRM_INFO prints it
    ("/src/k.hip:12: kern: Device-side assertion `idx < n' failed.", "cuda.hip_device_assert", {"assertion": "idx < n"}),
    (":1:hip_vm.cpp :77 : 1 us: [pid:9 tid:0x7f] Allocation failed : Device memory : required :4096 | free :0| total "
     ":1024", "cuda.hip_allocation_failed", {"requested_bytes": 4096, "free_bytes": 0, "total_bytes": 1024}),
    ("amdgpu 0000:83:00.0: amdgpu: MES(1) failed to respond to msg=MISC (WAIT_REG_MEM)", "kernel.amdgpu_mes_no_response",
     {"mes_msg": "MISC"}),
    ("[drm:mes_v11_0_submit_pkt_and_poll_completion.constprop.0 [amdgpu]] *ERROR* MES failed to response msg=3",
     "kernel.amdgpu_mes_no_response", {"mes_msg": "3"}),
    ("amdgpu 0000:c6:00.0: amdgpu: MES might be in unrecoverable state, issue a GPU reset",
     "kernel.amdgpu_mes_no_response", {}),
    ("amdgpu 0000:0c:00.0: amdgpu: poison is consumed by source 3, kick off gpu reset flow",
     "kernel.amdgpu_poison_consumed", {"client": "3"}),
    ("amdgpu 0000:0c:00.0: RAS poison consumption, fall back to gpu reset flow: client id 12",
     "kernel.amdgpu_poison_consumed", {}),
    ("[ 9035.014420] [drm] VRAM is lost due to GPU reset!", "kernel.amdgpu_vram_lost", {}),
    # the exit barrier's traceback frame, as Python 3.7 and 3.11 print it
    ('  File "/opt/conda/lib/python3.7/site-packages/torch/distributed/elastic/agent/server/api.py", line 904, in '
     "_exit_barrier", "torchrun.exit_barrier_frame", {}),
    ('  File "/usr/local/lib/python3.11/dist-packages/torch/distributed/elastic/agent/server/api.py", line 1241, in '
     "_exit_barrier", "torchrun.exit_barrier_frame", {}),
    # the libuv store server's bind, as the releases with and without the port print it, and socket.cpp's per address
    ("torch.distributed.DistNetworkError: The server socket has failed to bind. port: 29500, useIpv6: 0, code: -98, "
     "name: EADDRINUSE, message: address already in use", "pytorch.store_addr_in_use", {"category": "store_listen"}),
    ("RuntimeError: The server socket has failed to bind. useIpv6: 0, code: -98, name: EADDRINUSE, message: address "
     "already in use", "pytorch.store_addr_in_use", {"category": "store_listen"}),
    ("[W socket.cpp:436] [c10d] The server socket has failed to bind to [::]:29500 (errno: 98 - Address already in "
     "use).", "pytorch.store_addr_in_use", {}),
    # TORCH_NCCL_PROPAGATE_ERROR's remote error names the rank that failed first
    ("[rank1]:[E1127 14:20:41.570339201 ProcessGroupNCCL.cpp:1864] [PG ID 0 PG GUID 0(default_pg) Rank 1]  remote "
     "error detected from rank: 5", "pytorch.remote_error_detected", {"error_from_rank": 5}),
    # the scalable init's all-gather of the roots' ids: a store wait that ran out, another store error
    ("torch.distributed.DistBackendError: [17] is setting up NCCL communicators and retrieving ncclUniqueId from roots "
     "via TCPStore by key '[\"UniqueNCCLID:0\",\"UniqueNCCLID:1\"]', but got error: wait timeout after 600000ms, "
     "keys: /default_pg//0//cuda//0/UniqueNCCLID:1. This may indicate a possible application crash on rank 0 or a "
     "network set up issue.", "pytorch.unique_ids_roots_store_timeout", {"rank": 17}),
    ("[131] is setting up NCCL communicators and retrieving ncclUniqueId from roots via TCPStore by key "
     "'[\"UniqueNCCLID:0\"]', but got error: Failed to recv, got 0 bytes. Connection was likely closed. Did the remote "
     "server shutdown or crash?. This may indicate a possible application crash on rank 0 or a network set up issue.",
     "pytorch.unique_ids_roots_store_get", {"rank": 131}),
    ("[rank3]:[E813 12:26:00.651268916 ProcessGroupNCCL.cpp:1321] [PG ID 1 PG GUID 1 Rank 3] Future for ProcessGroup "
     "abort timed out after 600000 ms", "pytorch.abort_future_timeout", {"wait_ms": 600000}),
    # nvidia-resiliency-ext's rank monitor: the monitored rank is in its logger's name, 0.1 - 0.2 and 0.3+
    ("[2025-01-14 17:44:50,118] [WARNING] [RankMonitorServer:21] Did not get subsequent heartbeat. Waited 2100.00 "
     "seconds.", "nvrx.rank_monitor_timeout", {"rank": 21, "timeout_s": 2100}),
    ("[2026-11-21 09:10:14,880] [WARNING] [RankMonServer55120@gpu-a013:3] [Cycle 1] Did not get initial heartbeat. "
     "Waited 600.00 seconds.", "nvrx.rank_monitor_timeout", {"rank": 3, "timeout_s": 600}),
    ("[2025-03-20 11:00:00,001] [WARNING] [RankMonServer40112@dgx-b07.cluster:5] Section 'step' has been open for "
     "612.35 seconds. Timeout is 600.00 seconds.", "nvrx.rank_monitor_timeout", {"rank": 5, "timeout_s": 600}),
    ("[2026-11-23 01:52:10,815] [WARNING] [RankMonServer9921@node-02:9] [Cycle 2] Was out of section for 900.41 "
     "seconds. Timeout is 900.00 seconds.", "nvrx.rank_monitor_timeout", {"rank": 9, "timeout_s": 900}),
    # Paddle's launcher names its failed container by its index in the node's pod: the worker's local rank
    ("Container rank 0 status failed cmd ['/usr/bin/python3', '-u', 'tools/train.py', '-c', 'a.yml'] code -9 log "
     "./debug/workerlog.0", "paddle.container_failed", {"local_rank": 0, "exitcode": -9, "log": "./debug/workerlog.0"}),
])
def test_source_wordings_and_their_fields(line, message_id, fields):
    [hit] = [h for h in catalogue.match(line) if h.message.id == message_id]
    assert {k: hit.fields.get(k) for k in fields} == fields


@pytest.mark.parametrize("line", [
    # near misses: a worker that left on purpose, a store client that will retry
    "The actor is dead because its worker process has died. Worker exit type: INTENDED_USER_EXIT",
    # a Paddle container in any state but failed (the same words, printed for a container that finished)
    "Container rank 1 status completed cmd ['/usr/bin/python', '-u', 'train.py'] code 0 log log/workerlog.1",
    # a corrected NVLink 5 error, and UCX told to catch SIGTERM (UCX_ERROR_SIGNALS): no crash
    "NVRM: Xid (PCI:0018:01:00): 145, RLW_RXPIPE Nonfatal XC0 i0 Link 13 (0x0409a0c2 0x00000008 0x00000001)",
    "[gpu-07:4021 :0:4021] Caught signal 15 (Terminated)",
    "[W1206 19:45:43.892069000 TCPStore.cpp:347] [c10d] TCP client failed to connect/validate to host "
    "10.0.0.1:29500 - retrying (try=0, timeout=1800000ms, delay=487ms)",
    # a connect the kernel interrupted (EINTR/EAGAIN), which NCCL retries: no peer's doing
    "gpu-3:4010:4113 [1] NCCL INFO Call to connect returned Interrupted system call, retrying",
    "gpu-3:4010:4113 [1] NCCL INFO socketStartConnect: connect returned Resource temporarily unavailable, retrying (1/34) "
    "after sleep for 100 msec",
    # a device or NIC NCCL skips at discovery, and c10d's note on one address of the store (it tries the next)
    "node:1:2 [1] misc/ibvwrap.cc:212 NCCL WARN Call to ibv_open_device failed",
    "node:1:2 [3] transport/net_ib.cc:149 NCCL WARN NET/IB : Unable to open device mlx5_59",
    "node:1:2 [3] NCCL WARN Could not find real path of mlx5_3 (/sys/class/infiniband/mlx5_3/device)",
    "[W socket.cpp:663] [c10d] The client socket has failed to connect to 10.0.0.1:29500 (errno: 113 - No route to host).",
    # a RoCE port's GID table changed, a remote FLID of 0 (NCCL uses the LID), RCCL's clique kernels turned off
    "roce-3:23400:23455 [0] transport/net_ib.cc:239 NCCL WARN NET/IB : mlx5_1:1 GID table changed",
    "ib-5:41200:41290 [0] transport/net_ib.cc:1012 NCCL WARN Warning: remote FLID configured as zero even when endpoints "
    "are on different subnets, using dlid as fallback",
    "mi250-2:9900:9940 [0] src/clique/CliqueManager.cc:156 NCCL WARN Unable to allocated pinned host memory for clique "
    "pointers.  Disabling clique-based kernels",
    # the socket transport capping a thread count it goes on with
    "cpu-gw-01:41200:41295 [0] transport/net_socket.cc:268 NCCL WARN NET/Socket : NCCL_SOCKET_NTHREADS is greater than "
    "the maximum allowed, setting to 16",
    # amdgpu's debug note that it sent the MES a message (not its failure to answer)
    "amdgpu 0000:83:00.0: amdgpu: MES(0) msg=14 was emitted",
    # XLA's CUDA twin of its NCCL status
    "INTERNAL: external/xla/xla/service/gpu/nccl_utils.cc:280: CUDA operation cudaSetDevice(device) failed: no error",
    # heartbeat words without nvidia-resiliency-ext's rank-monitor logger: another program's
    "[2026-11-20 04:12:51,330] [WARNING] [worker] Did not get subsequent heartbeat. Waited 1800.00 seconds.",
    # the libuv store's IPv6 attempt on a host without IPv6: it binds IPv4 next
    "[I1127 09:12:01.530218311 TCPStoreLibUvBackend.cpp:1177] [c10d] Failed to bind to ipv6 address, trying ipv4. "
    "Error: The server socket has failed to bind. port: 29500, useIpv6: 1, code: -97, name: EAFNOSUPPORT, message: "
    "address family not supported",
])

def test_near_misses_show_no_failure(line, tmp_path):
    assert not any(shows_failure(ev) for ev in _events(tmp_path, line))


@pytest.mark.parametrize("line", [
    # what the entries above must not take: another verbs call, a GPU's own PCI path, the store's final failure
    "misc/ibvwrap.cc:280 NCCL WARN Call to ibv_create_qp failed",
    "misc/topo.cc:22 NCCL WARN Could not find real path of /sys/class/pci_bus/0000:00/../../0000:00:05.0",
    "NCCL WARN NET/IB : No IP interface found.",
    "torch.distributed.DistNetworkError: The client socket has failed to connect to any network address of (node-1, "
    "29500). The client socket has failed to connect to node-1:29500 (errno: 113 - No route to host).",
    # the async events that are faults, beside the GID change; the device API's other version refusal
    "roce-3:23400:23455 [0] transport/net_ib.cc:214 NCCL WARN NET/IB : mlx5_1:1 async fatal event: port error",
    "h:1:1 [0] dev_runtime.cc:1410 NCCL WARN NCCL library is not backwards compatible. This application was compiled "
    "with NCCL version 2.28.3, but is running with NCCL library version 2.30.3.",
    # the socket transport's failures beside its caps
    "NCCL WARN NET/Socket : peer 10.0.0.2<40213> message truncated : receiving 4096 bytes instead of 1024.",
])
def test_their_near_misses_still_show_a_failure(line, tmp_path):
    assert any(shows_failure(ev) for ev in _events(tmp_path, line))


def test_only_the_exit_barrier_s_own_frame_names_the_barrier():
    """The agent's other frames (its run loop, a worker's monitor) are no exit barrier's."""
    for function in ("run", "_invoke_run", "_monitor_workers", "_exit_barrier_timeout"):
        line = f'  File "/opt/torch/distributed/elastic/agent/server/api.py", line 736, in {function}'
        assert not any(h.message.id == "torchrun.exit_barrier_frame" for h in catalogue.match(line)), function


def test_the_anchor_trie_finds_what_the_longest_first_alternation_finds():
    """`_compiled().quick` is a trie of the anchors: at every position the same (longest) anchor as the plain
    alternation of the anchors sorted longest first, on every entry's example, cut, glued and inside NCCL lines."""
    import random
    import re
    comp = catalogue._compiled()
    plain = re.compile("|".join(re.escape(a) for a in sorted(comp.by_anchor, key=len, reverse=True)))
    rng = random.Random(7)
    examples = [m.example for m in catalogue.messages()]
    texts = [*examples, *(e[: rng.randrange(len(e) + 1)] for e in examples),
             *(" ".join(rng.sample(examples, 3)) for _ in range(200)),
             *(f"node0:1:1 [0] NCCL INFO {a}{a[:-1]} x{a}" for a in comp.by_anchor)]
    for text in texts:
        assert ([(m.span(), m.group()) for m in comp.quick.finditer(text)]
                == [(m.span(), m.group()) for m in plain.finditer(text)]), text


@pytest.mark.parametrize("message_id, text, amd", [
    ("cuda.rocr_memory_access_fault", "Memory access fault by GPU node-2", True),
    ("cuda.rocclr_queue_fault", "Callback: Queue 0x7f aborting with error", True),
    ("cuda.hip_no_compatible_code_objects", "No compatible code objects found for: gfx1100", True),
    ("cuda.runtime_error", "RuntimeError: HIP error: an illegal memory access was encountered", True),
    ("nccl.rccl_hip_failure", "HIP failure 'hipErrorInvalidValue'", True),
    ("cuda.runtime_error", "RuntimeError: CUDA error: an illegal memory access was encountered", False),
    (None, None, False),
])
def test_one_predicate_says_which_gpu_errors_are_amd_s(message_id, text, amd):
    """The verdict's `HIP error` label and its AMD_SERIALIZE_KERNEL hint both ask catalogue.cuda.from_amd_runtime."""
    assert from_amd_runtime(message_id, text) is amd
