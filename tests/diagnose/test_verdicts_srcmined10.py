"""Verdicts on one c10d/elastic failure in the wording of distant PyTorch versions (1.10 - 2.5), mined from their
sources in catalogue round srcmined10, each as the lines of a pasted console:

- the watchdog's timeout record (`WorkNCCL(OpType=...)` of 1.10 with `std::runtime_error`, the 2.2 `[rankN]:` form with
  `Timeout at NCCL work`, 2.5's `[PG ID 0 PG GUID 0(default_pg) Rank N]` tag and `c10::DistBackendError`);
- TraceUtils.h's desync report (`finished collective #N, but didn't join` and `never joined any collectives`);
- NCCLUtils' `NCCL communicator was aborted on rank N.  Original reason for failure was: ...` (1.12 - 2.1);
- the heartbeat monitor (2.3's `[PG 0 Rank N]`, 2.5's `First PG on this rank that detected no heartbeat`);
- the watchdog thread's end (`NCCL watchdog thread terminated` of 1.11 - 2.1, `Process group watchdog thread` after);
- TCPStore/socket (`connect() timed out` of 1.10, `The client socket has timed out after`, ECONNREFUSED, EADDRINUSE)
  and the store based barrier (1.10's `worker_count`, 2.1's `N/M clients joined`);
- the elastic agent's `failed (exitcode: N)` (1.10's logging prefix, 2.0's bracketed one, 2.4's glog one) and its
  ChildFailedError table;
- the DETAIL fingerprints (1.10's `inconsistent collective`, 1.11 - 2.0's pair with no SequenceNumber and no diff,
  2.1+'s `Collectives differ in the following aspects`) and monitoredBarrier (1.10's one rank, 2.2's `Ranks 1, 5`),
  whose text gloo prints on rank 0 without a `[rankN]:` prefix of the console's own.
"""
from __future__ import annotations

import pytest

from .consoles import NO_TRACEBACK, check_case, failure_table

# name -> (console lines, accepted classes, culprit ranks or None)
CASES: dict[str, tuple[str, set[str], list[int] | None]] = {
    'childfailed_v20_sigabrt_all_ranks': (
        '[2023-05-02 11:20:01,112] torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: -6) local_rank: 0 (pid: 40120) of binary: /usr/bin/python3\n'
        'torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n'
        '============================================================\n'
        'train.py FAILED\n'
        '------------------------------------------------------------\n'
        'Failures:\n'
        '[1]:\n'
        '  time      : 2023-05-02_11:20:01\n'
        '  host      : n1\n'
        '  rank      : 1 (local_rank: 1)\n'
        '  exitcode  : -6 (pid: 40121)\n'
        '  error_file: <N/A>\n'
        '  traceback : Signal 6 (SIGABRT) received by PID 40121\n'
        '------------------------------------------------------------\n'
        'Root Cause (first observed failure):\n'
        '[0]:\n'
        '  time      : 2023-05-02_11:20:01\n'
        '  host      : n1\n'
        '  rank      : 0 (local_rank: 0)\n'
        '  exitcode  : -6 (pid: 40120)\n'
        '  error_file: <N/A>\n'
        '  traceback : Signal 6 (SIGABRT) received by PID 40120\n'
        '============================================================',
        {'inconclusive', 'timeout_unknown', 'unclassified_failure'}, None),
    'comm_aborted_v112_system_error': (
        'Traceback (most recent call last):\n'
        '  File "train.py", line 211, in <module>\n'
        '    dist.barrier()\n'
        'RuntimeError: NCCL communicator was aborted on rank 1.  Original reason for failure was: NCCL error: unhandled system error, NCCL version 2.10.3\n'
        'ncclSystemError: System call (socket, malloc, munmap, etc) failed.',
        {'network_error', 'unclassified_failure'}, None),
    'comm_aborted_v113_remote_error': (
        'RuntimeError: NCCL communicator was aborted on rank 5.  Original reason for failure was: NCCL error: remote process exited or there was a network error, NCCL version 2.14.3\n'
        'ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.\n'
        'Last error:\n'
        'NET/IB : Got completion from peer 10.20.1.17<40562> with error 12, opcode 0, len 0, vendor err 129',
        {'network_error'}, None),
    'comm_aborted_v21_watchdog_reason': (
        'Traceback (most recent call last):\n'
        '  File "/workspace/train.py", line 98, in train_step\n'
        '    dist.all_reduce(loss)\n'
        'torch.distributed.DistBackendError: NCCL communicator was aborted on rank 2.  Original reason for failure was: [Rank 2] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=88, OpType=BROADCAST, NumelIn=262144, NumelOut=262144, Timeout(ms)=1800000) ran for 1800329 milliseconds before timing out.',
        {'timeout_unknown'}, None),
    'desync_v20_finished_not_joined': (
        '[E ProcessGroupNCCL.cpp:455] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=41208, OpType=ALLREDUCE, Timeout(ms)=1800000) ran for 1800329 milliseconds before timing out.\n'
        '[E ProcessGroupNCCL.cpp:474] \n'
        '\t - [0] Timeout at collective: ALLREDUCE, #41208\n'
        '\t - To our best knowledge, the lagging/dead/mismatched ranks that caused the desync are:\n'
        "\t     [6] finished collective #41207, but didn't join collective #41208 (count from 1)\n"
        "\t - Snapshot of ranks' latest states:\n"
        '\t   #41207 finished ranks:\n'
        '\t     [6] finished ALLREDUCE\n'
        '\t   #41208 started ranks:\n'
        '\t     [0, 1, 2, 3, 4, 5, 7] started ALLREDUCE',
        {'stuck_rank', 'straggler', 'dropped_rank'}, [6]),
    'desync_v22_never_joined': (
        '[rank1]:[E ProcessGroupNCCL.cpp:563] [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=BROADCAST, NumelIn=12, NumelOut=12, Timeout(ms)=600000) ran for 600054 milliseconds before timing out.\n'
        '[rank1]:[E ProcessGroupNCCL.cpp:1537] [PG 0 Rank 1] Timeout at NCCL work: 1, last enqueued NCCL work: 1, last completed NCCL work: 0.\n'
        '[rank1]:[E ProcessGroupNCCL.cpp:1555] [PG 0 Rank 1] \n'
        '\t - [1] Timeout at collective: BROADCAST, #1\n'
        '\t - To our best knowledge, ranks [5] are the lagging ranks that caused this timeout. They never joined any collectives',
        {'stuck_rank', 'dropped_rank'}, [5]),
    'elastic_failed_v110_sigkill_table': (
        'WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 21874 closing signal SIGTERM\n'
        'ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -9) local_rank: 3 (pid: 21877) of binary: /opt/conda/bin/python\n'
        + failure_table('train.py', '2022-03-14_08:41:22', 'gpu-node-07', 3, 3, -9, 21877),
        {'oom', 'dropped_rank'}, [3]),
    'elastic_failed_v24_glog_exitcode1': (
        'Traceback (most recent call last):\n'
        '  File "/workspace/train.py", line 77, in <module>\n'
        '    batch = next(it)\n'
        "KeyError: 'input_ids'\n"
        'E1121 11:40:02.118000 2231 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) local_rank: 1 (pid: 2290) of binary: /usr/bin/python3\n'
        + failure_table('train.py', '2024-11-21_11:40:02', 'worker-2', 1, 1, 1, 2290, traceback=NO_TRACEBACK),
        {'unclassified_failure'}, None),
    'fingerprint_v110_inconsistent': (
        'RuntimeError: Detected mismatch between collectives on ranks. Rank 1 is running inconsistent collective: CollectiveFingerPrint(OpType=ALLGATHER, TensorShape=[1024], TensorDtypes=Float, TensorDeviceTypes=TensorOptions(dtype=float (default), device=cuda, layout=Strided (default), requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt)))',
        {'shape_mismatch', 'dtype_mismatch', 'collective_skipped', 'op_mismatch'}, None),
    'fingerprint_v113_op_pair': (
        'RuntimeError: Detected mismatch between collectives on ranks. Rank 0 is running collective: CollectiveFingerPrint(OpType=ALLREDUCE, TensorShape=[1024], TensorDtypes=Float, TensorDeviceTypes=TensorOptions(dtype=float (default), device=cuda, layout=Strided (default), requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt))), but Rank 1 is running collective: CollectiveFingerPrint(OpType=BARRIER).',
        {'collective_skipped', 'op_mismatch'}, None),
    'fingerprint_v21_shape_diff': (
        'torch.distributed.DistBackendError: Detected mismatch between collectives on ranks. Rank 0 is running collective: CollectiveFingerPrint(SequenceNumber=37, OpType=ALLREDUCE, TensorShape=[4096], TensorDtypes=Float, TensorDeviceTypes=cuda), but Rank 3 is running collective: CollectiveFingerPrint(SequenceNumber=37, OpType=ALLREDUCE, TensorShape=[2048], TensorDtypes=Float, TensorDeviceTypes=cuda).Collectives differ in the following aspects:   Tensor Tensor shapes: [4096]vs [2048]',
        {'shape_mismatch'}, None),
    'fingerprint_v23_dtype_diff': (
        'RuntimeError: Detected mismatch between collectives on ranks. Rank 2 is running collective: CollectiveFingerPrint(SequenceNumber=9, OpType=BROADCAST, TensorShape=[768, 768], TensorDtypes=Half, TensorDeviceTypes=cuda), but Rank 0 is running collective: CollectiveFingerPrint(SequenceNumber=9, OpType=BROADCAST, TensorShape=[768, 768], TensorDtypes=Float, TensorDeviceTypes=cuda).Collectives differ in the following aspects:   Tensor Tensor dtypes: [Half]vs [Float]',
        {'dtype_mismatch'}, None),
    'heartbeat_v23_watchdog_stuck': (
        '[rank0]:[E ProcessGroupNCCL.cpp:1316] [PG 0 Rank 0] Heartbeat monitor timed out! Process will be terminated after dumping debug info. workMetaList_.size()=1\n'
        '[rank0]:[E ProcessGroupNCCL.cpp:1153] [PG 0 Rank 0] ProcessGroupNCCL preparing to dump debug info.\n'
        "[rank0]:[F ProcessGroupNCCL.cpp:1169] [PG 0 Rank 0] [PG 0 Rank 0] ProcessGroupNCCL's watchdog got stuck for 600 seconds without making progress in monitoring enqueued collectives. This typically indicates a NCCL/CUDA API hang blocking the watchdog, and could be triggered by another thread holding the GIL inside a CUDA api, or other deadlock-prone behaviors.If you suspect the watchdog is not actually stuck and a longer timeout would help, you can either increase the timeout (TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC) to a larger value or disable the heartbeat monitor (TORCH_NCCL_ENABLE_MONITORING=0).If either of aforementioned helps, feel free to file an issue to PyTorch about the short timeout or false positive abort; otherwise, please attempt to debug the hang. workMetaList_.size() = 1\n"
        'Fatal Python error: Aborted',
        {'stuck_rank', 'timeout_unknown'}, None),
    'heartbeat_v25_pg_guid_first_pg': (
        '[rank5]:[E1102 03:11:40.118724803 ProcessGroupNCCL.cpp:1352] [PG ID 0 PG GUID 0(default_pg) Rank 5] First PG on this rank that detected no heartbeat of its watchdog.\n'
        '[rank5]:[E1102 03:11:40.118811032 ProcessGroupNCCL.cpp:1390] [PG ID 0 PG GUID 0(default_pg) Rank 5] Heartbeat monitor timed out! Process will be terminated after dumping debug info. workMetaList_.size()=3\n'
        "[rank5]:[F1102 03:19:40.119020388 ProcessGroupNCCL.cpp:1224] [PG ID 0 PG GUID 0(default_pg) Rank 5] [PG ID 0 PG GUID 0(default_pg) Rank 5] ProcessGroupNCCL's watchdog got stuck for 480 seconds without making progress in monitoring enqueued collectives. This typically indicates a NCCL/CUDA API (e.g., CudaEventDestroy) hang blocking the watchdog, and could be triggered by another thread holding the GIL inside a CUDA api (for example, CudaEventDestroy), or other deadlock-prone behaviors.If you suspect the watchdog is not actually stuck and a longer timeout would help, you can either increase the timeout (TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC) to a larger value or disable the heartbeat monitor (TORCH_NCCL_ENABLE_MONITORING=0).If either of aforementioned helps, feel free to file an issue to PyTorch about the short timeout or false positive abort; otherwise, please attempt to debug the hang.",
        {'stuck_rank', 'timeout_unknown'}, None),
    'monitored_barrier_v110_one_rank': (
        'RuntimeError: [Rank 0]: Rank 3 failed to pass monitoredBarrier in 1800000 ms\n'
        ' Original exception: \n'
        '[../third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:81] Timed out waiting 1800000ms for recv operation to complete',
        {'stuck_rank', 'dropped_rank'}, [3]),
    'monitored_barrier_v22_wait_all': (
        '[E ProcessGroupGloo.cpp:144] [Rank 0]: Rank 1 failed to pass monitoredBarrier in 600000 ms\n'
        '[E ProcessGroupGloo.cpp:144] [Rank 0]: Rank 5 failed to pass monitoredBarrier in 600000 ms\n'
        'RuntimeError: [Rank 0]: Ranks 1, 5 failed to pass monitoredBarrier in 600000 ms',
        {'stuck_rank', 'dropped_rank'}, [1, 5]),
    'store_barrier_timeout_v110': (
        'RuntimeError: Timed out initializing process group in store based barrier on rank: 3, for key: store_based_barrier_key:1 (world_size=8, worker_count=4, timeout=0:30:00)',
        {'stuck_rank', 'timeout_unknown', 'dropped_rank'}, None),
    'store_barrier_timeout_v21_clients': (
        'torch.distributed.DistStoreError: Timed out after 1801 seconds waiting for clients. 4/8 clients joined.',
        {'stuck_rank', 'timeout_unknown', 'dropped_rank'}, None),
    'tcpstore_address_in_use_v113': (
        'RuntimeError: The server socket has failed to listen on any local network address. The server socket has failed to bind to [::]:29500 (errno: 98 - Address already in use). The server socket has failed to bind to 0.0.0.0:29500 (errno: 98 - Address already in use).',
        {'unclassified_failure'}, None),
    'tcpstore_client_timeout_v24': (
        '[W1121 10:02:11.552003012 socket.cpp:752] [c10d] The client socket has timed out after 600000ms while trying to connect to (10.4.0.12, 29500).\n'
        'Traceback (most recent call last):\n'
        '  File "/usr/local/bin/torchrun", line 8, in <module>\n'
        'torch.distributed.DistNetworkError: The client socket has timed out after 600000ms while trying to connect to (10.4.0.12, 29500).',
        {'network_error', 'unclassified_failure', 'dropped_rank'}, None),
    'tcpstore_connect_timeout_v110': (
        'Traceback (most recent call last):\n'
        '  File "train.py", line 30, in <module>\n'
        '    dist.init_process_group(backend="nccl", init_method="env://")\n'
        '  File "/opt/conda/lib/python3.8/site-packages/torch/distributed/rendezvous.py", line 157, in _create_c10d_store\n'
        '    return TCPStore(\n'
        'RuntimeError: connect() timed out. Original timeout was 1800000 ms.',
        {'network_error', 'unclassified_failure', 'dropped_rank'}, None),
    'tcpstore_refused_v20': (
        '[W socket.cpp:601] [c10d] The client socket has failed to connect to [node-0.cluster]:29500 (errno: 111 - Connection refused).\n'
        '[W socket.cpp:601] [c10d] The client socket has failed to connect to [node-0.cluster]:29500 (errno: 111 - Connection refused).\n'
        'torch.distributed.DistNetworkError: The client socket has timed out after 900s while trying to connect to (node-0.cluster, 29500).',
        {'network_error', 'unclassified_failure', 'dropped_rank'}, None),
    'watchdog_terminated_v111_unhandled_cuda': (
        "terminate called after throwing an instance of 'std::runtime_error'\n"
        '  what():  NCCL error: unhandled cuda error, NCCL version 21.0.3\n'
        '[E ProcessGroupNCCL.cpp:737] [Rank 1] NCCL watchdog thread terminated with exception: NCCL error: unhandled cuda error, NCCL version 21.0.3',
        {'unclassified_failure', 'dropped_rank'}, None),
    'watchdog_terminated_v20_remote_error': (
        '[E ProcessGroupNCCL.cpp:828] [Rank 3] NCCL watchdog thread terminated with exception: NCCL error: remote process exited or there was a network error, NCCL version 2.14.3\n'
        'ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.\n'
        'Last error:\n'
        'NET/IB : Got completion from peer 10.20.1.9<52011> with error 5, opcode 0, len 0, vendor err 249\n'
        "terminate called after throwing an instance of 'std::runtime_error'\n"
        '  what():  [Rank 3] NCCL watchdog thread terminated with exception: NCCL error: remote process exited or there was a network error, NCCL version 2.14.3',
        {'network_error'}, None),
    'watchdog_terminated_v22_cuda_illegal_address': (
        '[rank4]:[E ProcessGroupNCCL.cpp:1182] [PG 0 Rank 4] Process group watchdog thread terminated with exception: CUDA error: an illegal memory access was encountered\n'
        'CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\n'
        'For debugging consider passing CUDA_LAUNCH_BLOCKING=1.\n'
        'Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\n'
        '\n'
        'Exception raised from c10_cuda_check_implementation at ../c10/cuda/CUDAException.cpp:44 (most recent call first):\n'
        "terminate called after throwing an instance of 'c10::DistBackendError'\n"
        '  what():  [PG 0 Rank 4] Process group watchdog thread terminated with exception: CUDA error: an illegal memory access was encountered',
        {'unclassified_failure', 'dropped_rank'}, None),
    'wd_timeout_v110_runtime_error': (
        'Epoch 3 step 420 loss 0.81\n'
        '[E ProcessGroupNCCL.cpp:587] [Rank 2] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=4117, OpType=ALLREDUCE, Timeout(ms)=1800000) ran for 1806034 milliseconds before timing out.\n'
        '[E ProcessGroupNCCL.cpp:341] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data. To avoid this inconsistency, we are taking the entire process down.\n'
        "terminate called after throwing an instance of 'std::runtime_error'\n"
        '  what():  [Rank 2] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=4117, OpType=ALLREDUCE, Timeout(ms)=1800000) ran for 1806034 milliseconds before timing out.\n'
        'Fatal Python error: Aborted',
        {'timeout_unknown'}, None),
    'wd_timeout_v22_one_rank_behind': (
        '[rank0]:[E ProcessGroupNCCL.cpp:563] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=733, OpType=ALLREDUCE, NumelIn=8388608, NumelOut=8388608, Timeout(ms)=600000) ran for 600112 milliseconds before timing out.\n'
        '[rank0]:[E ProcessGroupNCCL.cpp:1537] [PG 0 Rank 0] Timeout at NCCL work: 733, last enqueued NCCL work: 733, last completed NCCL work: 732.\n'
        '[rank2]:[E ProcessGroupNCCL.cpp:563] [Rank 2] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=733, OpType=ALLREDUCE, NumelIn=8388608, NumelOut=8388608, Timeout(ms)=600000) ran for 600098 milliseconds before timing out.\n'
        '[rank2]:[E ProcessGroupNCCL.cpp:1537] [PG 0 Rank 2] Timeout at NCCL work: 733, last enqueued NCCL work: 733, last completed NCCL work: 732.\n'
        '[rank3]:[E ProcessGroupNCCL.cpp:563] [Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=733, OpType=ALLREDUCE, NumelIn=8388608, NumelOut=8388608, Timeout(ms)=600000) ran for 600121 milliseconds before timing out.\n'
        '[rank3]:[E ProcessGroupNCCL.cpp:1537] [PG 0 Rank 3] Timeout at NCCL work: 733, last enqueued NCCL work: 733, last completed NCCL work: 732.\n'
        '[rank1]:[E ProcessGroupNCCL.cpp:563] [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=731, OpType=BROADCAST, NumelIn=8388608, NumelOut=8388608, Timeout(ms)=600000) ran for 600340 milliseconds before timing out.\n'
        '[rank1]:[E ProcessGroupNCCL.cpp:1537] [PG 0 Rank 1] Timeout at NCCL work: 731, last enqueued NCCL work: 731, last completed NCCL work: 730.\n'
        '',
        {'stuck_rank', 'collective_skipped', 'op_mismatch'}, None),
    'wd_timeout_v25_pg_guid_prefix': (
        '[rank3]:[E1121 09:14:02.331287051 ProcessGroupNCCL.cpp:616] [PG ID 0 PG GUID 0(default_pg) Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=2188, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600087 milliseconds before timing out.\n'
        '[rank3]:[E1121 09:14:02.331502910 ProcessGroupNCCL.cpp:1785] [PG ID 0 PG GUID 0(default_pg) Rank 3] Exception (either an error or timeout) detected by watchdog at work: 2188, last enqueued NCCL work: 2188, last completed NCCL work: 2187.\n'
        '[rank3]:[E1121 09:14:02.331521614 ProcessGroupNCCL.cpp:1834] [PG ID 0 PG GUID 0(default_pg) Rank 3] Timeout at NCCL work: 2188, last enqueued NCCL work: 2188, last completed NCCL work: 2187.\n'
        '[rank3]:[E1121 09:14:02.331533102 ProcessGroupNCCL.cpp:630] [Rank 3] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.\n'
        '[rank3]:[E1121 09:14:02.331541771 ProcessGroupNCCL.cpp:636] [Rank 3] To avoid data inconsistency, we are taking the entire process down.\n'
        '[rank3]:[E1121 09:14:02.333018410 ProcessGroupNCCL.cpp:1595] [PG ID 0 PG GUID 0(default_pg) Rank 3] Process group watchdog thread terminated with exception: [Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=2188, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600087 milliseconds before timing out.\n'
        "terminate called after throwing an instance of 'c10::DistBackendError'\n"
        '  what():  [PG ID 0 PG GUID 0(default_pg) Rank 3] Process group watchdog thread terminated with exception: [Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=2188, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600087 milliseconds before timing out.',
        {'timeout_unknown'}, None),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_srcmined10_verdicts(tmp_path, name):
    check_case(tmp_path, CASES[name])


def test_a_fingerprint_pair_without_sequence_numbers_names_both_ranks():
    """1.11 - 2.0 print the two fingerprints with no SequenceNumber and no `Collectives differ` tail."""
    from nccl_forensics.sources.torch_log import parse_torch_message
    msg = parse_torch_message("Detected mismatch between collectives on ranks. Rank 0 is running collective: "
                              "CollectiveFingerPrint(OpType=ALLREDUCE, TensorShape=[8], TensorDtypes=Float, "
                              "TensorDeviceTypes=cuda), but Rank 2 is running collective: "
                              "CollectiveFingerPrint(OpType=BARRIER).")
    assert msg is not None and msg.kind == "fingerprint_mismatch"
    assert (msg.data["rank"], msg.data["other_rank"], msg.data["op"], msg.data["other_op"]) == (0, 2, "allreduce",
                                                                                                "barrier")
    assert msg.data["seq"] is None and msg.data["differences"] is None


def test_a_failed_monitored_barrier_is_reported_by_rank_0():
    from nccl_forensics.sources.torch_log import parse_torch_message
    msg = parse_torch_message("[Rank 0]: Ranks 1, 5 failed to pass monitoredBarrier in 600000 ms")
    assert msg is not None and msg.data["reporter_rank"] == 0 and msg.data["missing_ranks"] == [1, 5]
