"""Held-out set 34: real pastes from 2025-2026 issues on the newest stack (torch 2.5 - 2.9 watchdog wording, NCCL
2.21 - 2.27, CUDA 12.8/13): vLLM v1, SGLang, verl, ms-swift and trl GRPO, LLaMA-Factory, Kubeflow's SDK, FlagScale,
Ray Train, llm-d, ROCm aiter, a Megatron zero-bubble fork; three false alarms among them. 17 of 21 were read right
at first sight. What changed after, from the sources:

- NCCL's IB async thread (src/transport/net_ib.cc ncclIbAsyncThreadMain) named the device and port from 2.20
  (`NET/IB : mlx5_0:1 Got async event : ...`) and, 2.23 - 2.28.3, printed the non-fatal events as `Got async error
  event: <name>` (2.28.7+ `Got non-fatal async event: <name>(n)`). The catalogue reads every form, and the event's
  name (libibverbs ibv_event_type_str) decides: a fault (`port error`, `CQ error`, `... catastrophic error`,
  `WQ fatal`) is the network's failure, a change of state (`port active`, `LID change`, `SM change`) is benign.
- torch's SocketConnectOp::throwTimeoutError formats the connect timeout with fmt's chrono, `900s` or `600000ms`;
  the catalogue took seconds only, and now also a paste that stops before the store's address.
- ProcessGroupNCCL::broadcastUniqueNCCLID appends `. This may indicate a possible application crash on rank 0 or
  a network set up issue.` to the store's exception text; where that text carries a C++ backtrace the sentence
  stands alone after the frames, and is read alone (pytorch.unique_id_store_error_tail).
- A CalledProcessError that names a launcher's command line (`Command '['torchrun', ...`, `-m deepspeed.launcher`,
  `-m accelerate.commands.launch`) is a wrapper telling the launcher's exit again (LLaMA-Factory's CLI runs torchrun
  with subprocess.run(check=True)): no rank's own end, even where a rank's cut traceback precedes its frames.
"""
from __future__ import annotations

import pytest

from .consoles import PROGRESS, check_case, console_verdict

CASES = [
    # (issue, pasted excerpt, right classes, culprit ranks or None)
    ('vllm-project/vllm#23448',
     '[rank0]:[E822 16:31:16.131931664 ProcessGroupNCCL.cpp:632] [Rank 0] Watchdog caught collective opera'
     'tion timeout: WorkNCCL(SeqNum=5730, OpType=BROADCAST, NumelIn=3612672, NumelOut=3612672, Timeout(ms)'
     '=600000) ran for 600009 milliseconds before timing out.\n[rank0]:[E822 16:31:16.132547721 ProcessGrou'
     'pNCCL.cpp:2271] [PG ID 4 PG GUID 67 Rank 0]  failure detected by watchdog at work sequence id: 5730 '
     'PG status: last enqueued work: 6464, last completed work: 5729\n[rank3]:[E822 16:31:16.135435629 Proc'
     'essGroupNCCL.cpp:632] [Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=5729, O'
     'pType=BROADCAST, NumelIn=3612672, NumelOut=3612672, Timeout(ms)=600000) ran for 600008 milliseconds '
     'before timing out.\n[rank3]:[E822 16:31:16.137270546 ProcessGroupNCCL.cpp:2271] [PG ID 4 PG GUID 67 R'
     'ank 3]  failure detected by watchdog at work sequence id: 5729 PG status: last enqueued work: 6464, '
     'last completed work: 5728\n',
     {'collective_skipped', 'stuck_rank', 'timeout_unknown'}, None),
    ('verl-project/verl#3908',
     'rank37]:[E1025 23:57:36.314335807 ProcessGroupNCCL.cpp:632] [Rank 37] Watchdog caught collective ope'
     'ration timeout: WorkNCCL(SeqNum=141365, OpType=ALLGATHER, NumelIn=1, NumelOut=64, Timeout(ms)=600000'
     ') ran for 600017 milliseconds before timing out.\n[rank37]:[E1025 23:57:36.314554288 ProcessGroupNCCL'
     '.cpp:2271] [PG ID 0 PG GUID 0(default_pg\n',
     {'straggler', 'stuck_rank', 'timeout_unknown'}, None),
    ('verl-project/verl#5414',
     '(WorkerDict pid=3934735) [rank7]:[E226 16:00:37.342220332 ProcessGroupNCCL.cpp:685] [Rank 1] Watchdo'
     'g caught collective operation timeout: WorkNCCL(SeqNum=262, OpType=ALLTOALL, NumelIn=4493312, NumelO'
     'ut=4493312, Timeout(ms)=1800000) ran for 1800082 milliseconds before timing out.\n(WorkerDict pid=393'
     '4735) [rank7]:[E226 16:00:37.342550291 ProcessGroupNCCL.cpp:2252] [PG ID 2 PG GUID 6(mesh_sp) Rank 1'
     ']  failure detected by watchdog at work sequence id: 262 PG status: last enqueued work: 265, last co'
     'mpleted work: 261\n(WorkerDict pid=3934728) [rank0]:[E226 16:00:37.807344500 ProcessGroupNCCL.cpp:180'
     '6] [PG ID 0 PG GUID 0(default_pg) Rank 0] Observed flight recorder dump signal from another rank via'
     ' TCPStore.\n(WorkerDict pid=3934728) [rank0]:[E226 16:00:37.807442311 ProcessGroupNCCL.cpp:1870] [PG '
     'ID 0 PG GUID 0(default_pg) Rank 0] Received a dump signal due to a collective timeout from  rank 7 a'
     'nd we will try our best to dump the debug info. Last enq\n',
     {'stuck_rank', 'timeout_unknown'}, None),
    ('modelscope/ms-swift#6927',
     '[rank0]:[E1206 21:12:01.852621435 ProcessGroupNCCL.cpp:685] [Rank 0] Watchdog caught collective oper'
     'ation timeout: WorkNCCL(SeqNum=434159, OpType=ALLREDUCE, NumelIn=2, NumelOut=2, Timeout(ms)=600000) '
     'ran for 600013 milliseconds before timing out.\n[rank0]:[E1206 21:12:01.858423203 ProcessGroupNCCL.cp'
     'p:2252] [PG ID 5 PG GUID 15 Rank 0]  failure detected by watchdog at work sequence id: 434159 PG sta'
     'tus: last enqueued work: 434159, last completed work: 434158\n[rank0]:[E1206 21:12:01.858509006 Proce'
     'ssGroupNCCL.cpp:2584] [PG ID 5 PG GUID 15 Rank 0] First PG on this rank to signal dumping.\n',
     {'stuck_rank', 'timeout_unknown'}, None),
    ('MCG-NJU/MOTIP#52',
     '[rank0]:[E421 01:04:30.934157590 ProcessGroupNCCL.cpp:616] [Rank 0] Watchdog caught collective opera'
     'tion timeout: WorkNCCL(SeqNum=93202, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ra'
     'n for 600041 milliseconds before timing out.\n[rank0]:[E421 01:04:30.934629241 ProcessGroupNCCL.cpp:1'
     '785] [PG ID 0 PG GUID 0(default_pg) Rank 0] Exception (either an error or timeout) detected by watch'
     'dog at work: 93202, last enqueued NCCL work: 93202, last completed NCCL work: 93201.\n[rank2]:[E421 0'
     '1:04:30.128876174 ProcessGroupNCCL.cpp:1834] [PG ID 0 PG GUID 0(default_pg) Rank 2] Timeout at NCCL '
     'work: 93201, last enqueued NCCL work: 93201, last completed NCCL work: 93200.\n[rank2]:[E421 01:04:30'
     '.130984228 ProcessGroupNCCL.cpp:1595] [PG ID 0 PG GUID 0(default_pg) Rank 2] Process group watchdog '
     'thread terminated with exception: [Rank 2] Watchdog caught collective operation timeout: WorkNCCL(Se'
     'qNum=93201, OpType=BROADCAST,\n[rank6]:[E421 01:04:29.998765386 ProcessGroupNCCL.cpp:1595] [PG ID 0 P'
     'G GUID 0(default_pg) Rank 6] Process group watchdog thread terminated with exception: [Rank 6] Watch'
     'dog caught collective operation timeout: WorkNCCL(SeqNum=93201, OpType=BROADCAST, NumelIn=106240, Nu'
     'melOut=106240, Timeout(ms)=600000) ran for 600080 milliseconds before timing out.\n',
     {'collective_skipped', 'stuck_rank', 'timeout_unknown'}, None),
    ('hiyouga/LlamaFactory#8968',
     '[rank0]:   File "/usr/local/lib/python3.11/dist-packages/torch/distributed/distributed_c10d.py", lin'
     'e 4687, in barrier\n[rank0]:     work = group.barrier(opts=opts)\n[rank0]: torch.distributed.DistBacke'
     'ndError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/NCCLUtils.cpp:77, unhandled cuda error '
     '(run with NCCL_DEBUG=INFO for details), NCCL version 2.25.1\n[rank0]: ncclUnhandledCudaError: Call to'
     " CUDA function failed.\n[rank0]: Last error:\n[rank0]: Cuda failure 802 'system not yet initialized'\n["
     'rank2]: Traceback (most recent call last):\n[rank2]:   File "/workspace/LLaMA-Factory/src/llamafactor'
     'y/launcher.py", line 23, in <module>\n[rank2]:     launch()\n  File "/usr/lib/python3.11/subprocess.py'
     '", line 571, in run\n    raise CalledProcessError(retcode, process.args,\nsubprocess.CalledProcessErro'
     "r: Command '['torchrun', '--nnodes', '1', '--node_rank', '0', '--nproc_per_node', '8', '--master_add"
     "r', '127.0.0.1', '--master_port', '46265', '/workspace/LLaMA-Factory/src/llamafactory/launcher.py', "
     "'saves/Llama-3.1-70B/full/train_2025-08-19-07-33-47/training_args.yaml']' returned non-zero exit sta"
     'tus 1.\n',
     {'unclassified_failure'}, None),
    ('NVIDIA/nccl#1769',
     '[rank2]:   File "/sharedfs/mihir/micromamba/envs/pho4/lib/python3.12/site-packages/torch/distributed'
     '/distributed_c10d.py", line 2810, in all_reduce\n[rank2]:     work = group.allreduce([tensor], opts)\n'
     '[rank2]: torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/NCC'
     'LUtils.cpp:77, unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.26.2\n[ran'
     'k2]: ncclUnhandledCudaError: Call to CUDA function failed.\n[rank2]: Last error:\n[rank2]: Cuda failur'
     "e 802 'system not yet initialized'\n",
     {'unclassified_failure'}, None),
    ('CaraJ7/T2I-R1#17',
     'torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:317,'
     ' unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.21.5\n',
     {'unclassified_failure'}, None),
    ('kubeflow/sdk#142',
     '   [W socket.cpp:755] [c10d] The IPv6 network addresses cannot be retrieved\n   [E socket.cpp:1019] T'
     'he client socket has timed out after 900000ms while trying to connect\n',
     {'dropped_rank', 'network_error', 'unclassified_failure'}, None),
    ('flagos-ai/FlagScale#314',
     'torch.distributed.DistNetworkError: The client socket has timed out after 60s while trying to connec'
     't to (主节点IP，主节点port）\n',
     {'dropped_rank', 'network_error', 'unclassified_failure'}, None),
    ('sgl-project/sglang#5594',
     'h100-15:136:136 [4] NCCL INFO Channel 00/0 : 1[1] -> 4[4] [receive] via NET/IBext_v8/4/GDRDMA\nh100-1'
     '5:139:1092 [7] socket.c:485 NCCL WARN socketStartConnect: Connect to 10.0.0.82<38455> failed : Softw'
     'are caused connection abort\nh100-15:139:1092 [7] NCCL INFO transport/net.cc:687 -> 2\nh100-15:132:132'
     ' [0] NCCL INFO transport/net.cc:405 -> 2\nh100-15:132:132 [0] NCCL INFO transport.cc:183 -> 2\nh100-15'
     ':132:132 [0] NCCL INFO init.cc:1263 -> 2\n[2025-04-21 07:28:41 TP0] Scheduler hit an exception: Trace'
     'back (most recent call last):\n',
     {'network_error', 'nic_misselection'}, None),
    ('llm-d/llm-d#191',
     'ms-pd-llm-d-modelservice-prefill-2.log:[2025-09-17 15:16:23] ms-pd-llm-d-modelservice-prefill-2:311:'
     '405 [0] transport/net_ib.cc:199 NCCL WARN NET/IB : mlx5_32:1 Got async error event: port error\nms-pd'
     '-llm-d-modelservice-prefill-2.log:[2025-09-17 15:16:31] ms-pd-llm-d-modelservice-prefill-2:311:405 ['
     '0] transport/net_ib.cc:199 NCCL WARN NET/IB : mlx5_32:1 Got async error event: port active\nms-pd-llm'
     '-d-modelservice-prefill-2.log:[2025-09-17 15:23:34] ms-pd-llm-d-modelservice-prefill-2:311:405 [0] t'
     'ransport/net_ib.cc:199 NCCL WARN NET/IB : mlx5_32:1 Got async error event: port error\n WorkerProc hi'
     't an exception.\n Traceback (most recent call last):\n   File "/opt/vllm-source/vllm/v1/executor/multi'
     'proc_executor.py", line 597, in worker_busy_loop\n     output = func(*args, **kwargs)\n',
     {'network_error'}, None),
    ('modelscope/ms-swift#6107',
     '[rank10]:   File "/home/shared/conda/lib/python3.11/site-packages/torch/distributed/distributed_c10d'
     '.py", line 2634, in _coalescing_manager\n[rank10]:     work = group.reduce_scatter_tensor_coalesced(o'
     'utputs, inputs, reduce_opts)\n[rank10]: RuntimeError: NCCL Error 2: unhandled system error (run with '
     'NCCL_DEBUG=INFO for details)\n[2025-10-13 10:12:54] iv-ydin754tmoxjd1twgixh:1458548:1480527 [0] misc/'
     'ibvwrap.cc:182 NCCL WARN Call to ibv_reg_mr_iova2 failed with error Invalid argument\niv-ydin754tmoxj'
     'd1twgixh:1458548:1480527 [0] NCCL INFO transport/net_ib.cc:1872 -> 2\niv-ydin754tmoxjd1twgixh:1458548'
     ':1480527 [0] NCCL INFO transport/net_ib.cc:1920 -> 2\niv-ydin754tmoxjd1twgixh:1458548:1480527 [0] NCC'
     'L INFO transport/net.cc:853 -> 2\n',
     {'network_error', 'unclassified_failure'}, None),
    ('modelscope/ms-swift#4906',
     '[rank0]:   File "/opt/tiger/vlm/ms-swift/swift/trainers/rlhf_trainer/vllm_client.py", line 200, in u'
     'pdate_named_param\n[rank0]:     self.pynccl_comm.group.barrier()\n[rank0]:   File "/home/tiger/.local/'
     'lib/python3.11/site-packages/vllm/distributed/utils.py", line 216, in barrier\n[rank0]:     self.broa'
     'dcast_obj(None, src=i)\n[rank0]:   File "/home/tiger/.local/lib/python3.11/site-packages/vllm/distrib'
     'uted/utils.py", line 197, in broadcast_obj\n[rank0]: torch.distributed.DistStoreError: wait timeout a'
     'fter 300000ms, keys: /broadcast_from/0/75465\n',
     {'dropped_rank', 'stuck_rank', 'timeout_unknown'}, None),
    ('ROCm/aiter#1162',
     '[rank38]:[W1011 03:21:49.215271872 ProcessGroupNCCL.cpp:3996] Warning: An unbatched P2P op (send/rec'
     'v) was called on this ProcessGroup with size 4.  In lazy initialization mode, this will result in a '
     'new 2-rank NCCL communicator to be created. (function operator())\n[rank30]:[W1011 03:21:49.425788437'
     ' ProcessGroupNCCL.cpp:3996] Warning: An unbatched P2P op (send/recv) was called on this ProcessGroup'
     ' with size 4.  In lazy initialization mode, this will result in a new 2-rank NCCL communicator to be'
     ' created. (function operator())\n[rank31]:[W1011 03:21:49.425795728 ProcessGroupNCCL.cpp:3996] Warnin'
     'g: An unbatched P2P op (send/recv) was called on this ProcessGroup with size 4.  In lazy initializat'
     'ion mode, this will result in a new 2-rank NCCL communicator to be created. (function operator())\n',
     {'inconclusive', 'none'}, None),
    ('vllm-project/vllm#18567',
     '❯ NCCL_DEBUG=TRACE torchrun --nproc-per-node=4 test.py\nW0522 22:44:21.175000 2029917 site-packages/t'
     'orch/distributed/run.py:766] Setting OMP_NUM_THREADS environment variable for each process to be 1 i'
     'n default, to avoid your system being overloaded, please further tune the variable for optimal perfo'
     'rmance in your application as needed. \nh14-01:2029998:2029998 [0] NCCL INFO Bootstrap: Using ibp35s0'
     ':10.28.98.73<0>\nh14-01:2029998:2029998 [0] NCCL INFO cudaDriverVersion 12080\nh14-01:2029998:2029998 '
     '[0] NCCL INFO NCCL version 2.26.2+cuda12.2\nh14-01:2029998:2029998 [0] NCCL INFO Comm config Blocking'
     ' set to 1\n',
     {'inconclusive', 'none'}, None),
    ('huggingface/open-r1#568',
     '[rank3]:[W417 13:09:25.006076938 ProcessGroupNCCL.cpp:4561] [PG ID 0 PG GUID 0 Rank 3]  using GPU 3 '
     'to perform barrier as devices used by this process are currently unknown. This can potentially cause'
     ' a hang if this rank to GPU mapping is incorrect. Specify device_ids in barrier() to force use of a '
     'particular device, or call init_process_group() with a device_id.\n[rank4]:[W417 13:09:25.159185162 P'
     'rocessGroupNCCL.cpp:4561] [PG ID 0 PG GUID 0 Rank 4]  using GPU 4 to perform barrier as devices used'
     ' by this process are currently unknown. This can potentially cause a hang if this rank to GPU mappin'
     'g is incorrect. Specify device_ids in barrier() to force use of a particular device, or call init_pr'
     'ocess_group() with a device_id.\n2025-04-17 13:09:25 - INFO - trl.extras.vllm_client - Server is not '
     'up yet. Retrying in 2.0 seconds...\n',
     {'inconclusive', 'none'}, None),
    ('ray-project/ray#47759',
     '  File "/Users/mdenadai/.local/share/virtualenvs/mine-ec3snymA/lib/python3.12/site-packages/ray/trai'
     'n/_internal/utils.py", line 53, in check_for_failure\n    ray.get(object_ref)\nray.exceptions.ActorDie'
     'dError: The actor died unexpectedly before finishing this task.\n\tclass_name: RayTrainWorker\nThe acto'
     'r is dead because its worker process has died. Worker exit type: SYSTEM_ERROR Worker exit detail: Wo'
     'rker unexpectedly exits with a connection error code 2. End of file. There are some potential root c'
     'auses. (1) The process is killed by SIGKILL by OOM killer due to high memory usage. (2) ray stop --f'
     'orce is called. (3) The worker is crashed unexpectedly due to SIGSEGV or other unexpected errors.\n',
     {'dropped_rank', 'oom'}, None),
    ('hiyouga/LlamaFactory#5769',
     '[rank2]: frame #55: __libc_start_main + 0x80 (0x7fdffbfb9e40 in /lib/x86_64-linux-gnu/libc.so.6)\n[ra'
     'nk2]: frame #56: /home/user/enter/envs/train/bin/python() [0x5854be]\n[rank2]: . This may indicate a '
     'possible application crash on rank 0 or a network set up issue.\n[rank3]: Traceback (most recent call'
     ' last):\n[rank3]:   File "/home/user/LLaMA-Factory/src/llamafactory/launcher.py", line 23, in <module'
     '>\n[rank3]:     launch()\n',
     {'dropped_rank', 'network_error', 'stuck_rank'}, None),
    ('sail-sg/zero-bubble-pipeline-parallelism#60',
     'lzm-h200-10:74737:75914 [1] transport/net_socket.cc:488 NCCL WARN NET/Socket : peer 10.0.5.194<41988'
     '> message truncated : receiving 4 bytes instead of 2. If you believe your socket network is in healt'
     'hy state,           there may be a mismatch in collective sizes or environment settings (e.g. NCCL_P'
     'ROTO, NCCL_ALGO) between ranks\n\nlzm-h200-10:74737:74737 [1] init.cc:290 NCCL WARN Attempt to use com'
     'municator before the previous operation returned ncclSuccess\n[rank9]: Traceback (most recent call la'
     'st):\n[rank9]:   File "/sharedata/zimoliu/code/zbpp_v010/examples/../pretrain_gpt.py", line 301, in <'
     'module>\n[rank9]:     pretrain(train_valid_test_datasets_provider,\n',
     {'collective_skipped', 'dtype_mismatch', 'shape_mismatch', 'unclassified_failure'}, None),
    ('sgl-project/sglang#4289',
     '  File "/home/clouduser/miniconda3/envs/sglang/lib/python3.10/site-packages/sglang/srt/distributed/d'
     'evice_communicators/pynccl_wrapper.py", line 350, in ncclCommInitRank\n    self.NCCL_CHECK(\n  File "/'
     'home/clouduser/miniconda3/envs/sglang/lib/python3.10/site-packages/sglang/srt/distributed/device_com'
     'municators/pynccl_wrapper.py", line 329, in NCCL_CHECK\n    raise RuntimeError(f"NCCL error: {error_s'
     'tr}")\nRuntimeError: NCCL error: unhandled system error (run with NCCL_DEBUG=INFO for details)\n[2025-'
     '03-11 15:02:53] Received sigquit from a child process. It usually means the child fa\n',
     {'network_error', 'unclassified_failure'}, None),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_heldout34_case(tmp_path, case):
    check_case(tmp_path, case[1:])


@pytest.mark.parametrize("line", [
    "node1:311:405 [0] transport/net_ib.cc:199 NCCL WARN NET/IB : mlx5_32:1 Got async error event: port error",
    "node1:311:405 [0] transport/net_ib.cc:103 NCCL WARN NET/IB : mlx5_0:1 Got async event : port error",
    "node1:311:405 [0] transport/net_ib/common.cc:179 NCCL WARN NET/IB : mlx5_0:1 Got non-fatal async event: port "
    "error(10)",
    "node1:311:405 [0] transport/net_ib.cc:199 NCCL WARN NET/IB : mlx5_0:1 Got async error event: path migration "
    "request error",
])
def test_an_ib_async_event_that_names_a_fault_is_the_networks_failure(tmp_path, line):
    assert console_verdict(tmp_path, line).cls == "network_error"


@pytest.mark.parametrize("line", [
    "node1:311:405 [0] transport/net_ib.cc:199 NCCL WARN NET/IB : mlx5_32:1 Got async error event: port active",
    "node1:311:405 [0] transport/net_ib.cc:103 NCCL WARN NET/IB : mlx5_0:1 Got async event : SM change",
    "node1:311:405 [0] transport/net_ib.cc:199 NCCL WARN NET/IB : mlx5_0:1 Got async error event: client "
    "reregistration",
])
def test_an_ib_async_event_that_names_a_change_of_state_fails_nothing(tmp_path, line):
    assert console_verdict(tmp_path, line).cls in ("none", "inconclusive")


@pytest.mark.parametrize("line", [
    "[E socket.cpp:1019] [c10d] The client socket has timed out after 600000ms while trying to connect to "
    "(10.4.0.12, 29500).",
    "[E socket.cpp:1019] The client socket has timed out after 900000ms while trying to connect",
])
def test_a_store_connect_timeout_in_milliseconds_is_read(tmp_path, line):
    assert console_verdict(tmp_path, line).cls == "network_error"


def test_the_unique_id_sentence_alone_after_the_store_errors_frames_is_read(tmp_path):
    text = ("[rank5]: frame #56: /usr/bin/python() [0x5854be]\n"
            "[rank5]: . This may indicate a possible application crash on rank 0 or a network set up issue.\n")
    assert console_verdict(tmp_path, text).cls in ("network_error", "dropped_rank", "stuck_rank")


def test_the_sentence_inside_a_whole_unique_id_error_is_one_message(tmp_path):
    # the whole message on one line: the head entry holds the sentence, no second event of the tail
    text = ("torch.distributed.DistBackendError: [3] is setting up NCCL communicator and retrieving ncclUniqueId from "
            "[0] via c10d key-value store by key '0', but store->get('0') got error: wait timeout after 600000ms, "
            "keys: /default_pg//cuda//0. This may indicate a possible application crash on rank 0 or a network set "
            "up issue.")
    assert console_verdict(tmp_path, text).cls in ("stuck_rank", "dropped_rank")


@pytest.mark.parametrize("cmd", [
    "['torchrun', '--nnodes', '1', '--nproc_per_node', '8', 'launcher.py', 'args.yaml']",
    "['/usr/bin/python3', '-u', '-m', 'deepspeed.launcher.launch', '--world_info=eyJsb2NhbGhvc3QiOiBbMF19', 'train.py']",
])
def test_a_wrapper_reporting_its_launchers_exit_is_no_ranks_end(tmp_path, cmd):
    text = ("[rank0]: torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/"
            "NCCLUtils.cpp:77, unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.25.1\n"
            "[rank0]: ncclUnhandledCudaError: Call to CUDA function failed.\n[rank0]: Last error:\n"
            "[rank0]: Cuda failure 802 'system not yet initialized'\n"
            "[rank1]: Traceback (most recent call last):\n"
            "[rank1]:   File \"/workspace/app/launcher.py\", line 23, in <module>\n"
            "  File \"/usr/lib/python3.11/subprocess.py\", line 571, in run\n"
            "    raise CalledProcessError(retcode, process.args,\n"
            f"subprocess.CalledProcessError: Command '{cmd}' returned non-zero exit status 1.\n")
    verdict = console_verdict(tmp_path, text, progress=PROGRESS)
    assert verdict.cls == "unclassified_failure", verdict.summary
    assert 1 not in verdict.culprit_ranks
