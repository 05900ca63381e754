"""Held-out set 31: large jobs' shapes. Console pastes from public issues of Megatron-LM / Megatron-core, DeepSpeed,
NeMo-style, vLLM and SGLang multi-node serving, with their prefixes (`[rankN]:`, pdsh `host: `, mpirun `[1,N]<stderr>:`,
horovod `[N]<stderr>:`, Ray's `(RayWorkerWrapper pid=..., ip=...)`), process-group ids and names (`PG ID 12 PG GUID
99(EXPERT_MODEL_PARALLEL_GROUP)`), heartbeat-monitor kills and NCCL/CUDA crashes. 20 of 23 were read right at first
sight. What changed after, each from the sources:

- Abseil's failure signal handler (absl/debugging/failure_signal_handler.cc WriteSignalMessage, LTS 2018-06 on;
  ` on cpu N` from LTS 2021-03-24), which Ray's workers install: `*** SIGSEGV received at time=T on cpu C ***` is the
  process's own crash (catalogue stack.py absl.failure_signal: a signal report, so a fault signal is a dropped rank);
  SIGABRT names no class by itself and SIGTERM (absl.failure_signal_term) is the teardown's.
- a rank that raised `ncclCommInitRank failed: unhandled cuda error` is read as that rank's crash (dropped_rank), as
  the project reads other unhandled-CUDA-error crashes; the truth was widened to accept it.
- sources/messages.py: a parser's event takes a held catalogue event's meaning only when no two ranks are named:
  on sglang#1691's interleaved console rank 0's heartbeat line was merged into rank 2's report 6 lines below.
- rank lists in the verdict stay readable on consoles of hundreds of ranks (model.ranks_text: up to 8 ranks one by
  one, more as runs, past 8 runs the first ones and the count); --format json keeps every rank.
"""
from __future__ import annotations

import pytest

from nccl_forensics.model import ranks_phrase, ranks_text
from nccl_forensics.outputs.markdown_report import render
from nccl_forensics.pipeline.reduce import diagnose

from .consoles import check_case, console_verdict

CASES = [
    # (issue, pasted excerpt, right classes, culprit ranks or None)
    ("NVIDIA/Megatron-LM#935",
     "frame #0: c10::Error::Error(c10::SourceLocation, std::__cxx11::basic_string<char, std::char_traits<c"
     "har>, std::allocator<char> >) + 0x99 (0x7fe76ab98969 in /usr/local/lib/python3.10/dist-packages/torc"
     "h/lib/libc10.so)\n"
     "frame #1: c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long, s"
     "td::ratio<1l, 1000l> > >) + 0x1e1 (0x7fe705ea04e1 in /usr/local/lib/python3.10/dist-packages/torch/l"
     "ib/libtorch_cuda.so)\n"
     "frame #2: c10d::ProcessGroupNCCL::watchdogHandler() + 0x222 (0x7fe705ea81a2 in /usr/local/lib/python"
     "3.10/dist-packages/torch/lib/libtorch_cuda.so)\n"
     "frame #3: c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x10f (0x7fe705ea9a0f in /usr/local/lib/pytho"
     "n3.10/dist-packages/torch/lib/libtorch_cuda.so)\n"
     "frame #4: <unknown function> + 0xdc253 (0x7fe76a6b0253 in /usr/lib/x86_64-linux-gnu/libstdc++.so.6)\n"
     "frame #5: <unknown function> + 0x94ac3 (0x7fe7765d9ac3 in /usr/lib/x86_64-linux-gnu/libc.so.6)\n"
     "frame #6: clone + 0x44 (0x7fe77666aa04 in /usr/lib/x86_64-linux-gnu/libc.so.6)\n"
     "\n"
     "terminate called after throwing an instance of 'c10::DistBackendError'\n"
     "  what():  [PG 1 Rank 1] Process group watchdog thread terminated with exception: [Rank 1] Watchdog "
     "caught collective operation timeout: WorkNCCL(SeqNum=199, OpType=_REDUCE_SCATTER_BASE, NumelIn=70989"
     "94688, NumelOut=443687168, Timeout(ms)=600000) ran for 600000 milliseconds before timing out.\n",
     {"timeout_unknown", "stuck_rank"}, None),
    ("alibaba/Pai-Megatron-Patch#508",
     "terminate called after throwing an instance of 'c10::DistBackendError'\n"
     "  what():  [PG ID 16 PG GUID 165 Rank 2] Process group watchdog thread terminated with exception: [R"
     "ank 2] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=4, OpType=ALLREDUCE, NumelIn=1,"
     " NumelOut=1, Timeout(ms)=600000) ran for 600040 milliseconds before timing out.\n"
     "Exception raised from checkTimeout at /opt/pytorch/pytorch/torch/csrc/distributed/c10d/ProcessGroupN"
     "CCL.cpp:630 (most recent call first):\n"
     "frame #0: c10::Error::Error(c10::SourceLocation, std::__cxx11::basic_string<char, std::char_traits<c"
     "har>, std::allocator<char> >) + 0x98 (0x7fdc7c061748 in /usr/local/lib/python3.12/dist-packages/torc"
     "h/lib/libc10.so)\n"
     "frame #1: c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long, s"
     "td::ratio<1l, 1000l> > >) + 0x23d (0x7fdc7cd77f9d in /usr/local/lib/python3.12/dist-packages/torch/l"
     "ib/libtorch_cuda.so)\n"
     "frame #2: c10d::ProcessGroupNCCL::watchdogHandler() + 0x9e8 (0x7fdc7cd79598 in /usr/local/lib/python"
     "3.12/dist-packages/torch/lib/libtorch_cuda.so)\n"
     "frame #3: c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x14d (0x7fdc7cd7a23d in /usr/local/lib/pytho"
     "n3.12/dist-packages/torch/lib/libtorch_cuda.so)\n"
     "frame #4: <unknown function> + 0xecdb4 (0x7fdc6dc6edb4 in /usr/lib/x86_64-linux-gnu/libstdc++.so.6)\n",
     {"timeout_unknown", "stuck_rank"}, None),
    ("sgl-project/sglang#3836",
     "deepseek-yanfa:190:3197 [2] NCCL INFO Connected all trees\n"
     "deepseek-yanfa:190:3197 [2] NCCL INFO threadThresholds 8/8/64 | 128/8/64 | 512 | 512\n"
     "deepseek-yanfa:190:3197 [2] NCCL INFO 16 coll channels, 16 collnet channels, 0 nvls channels, 16 p2p"
     " channels, 2 p2p channels per peer\n"
     "deepseek-yanfa:190:3197 [2] NCCL INFO ncclCommSplit comm 0x5601dc4ed8b0 rank 2 nranks 16 cudaDev 2 n"
     "vmlDev 2 busId 41000 parent 0x5601b34852c0 color 1197013201 key 2 commId 0x44d8628a425864f9 - Init C"
     "OMPLETE\n"
     "[rank4]:[E226 11:16:37.104512039 ProcessGroupNCCL.cpp:616] [Rank 4] Watchdog caught collective opera"
     "tion timeout: WorkNCCL(SeqNum=5653, OpType=ALLREDUCE, NumelIn=58720256, NumelOut=58720256, Timeout(m"
     "s)=600000) ran for 600011 milliseconds before timing out.\n"
     "4] -> 5[5] via P2P/IPC\n"
     "deepseek-yanfa:192:3199 [4] NCCL INFO Channel 15/0 : 4[4] -> 5[5] via P2P/IPC\n"
     "deepseek-yanfa:192:3199 [4] NCCL INFO Channel 04/0 : 13[5] -> 4[4] [receive] via NET/IBext_v8/4/GDRD"
     "MA\n"
     "deepseek-yanfa:192:3199 [4] NCCL INFO Channel 12/0 : 13[5] -> 4[4] [receive] via NET/IBext_v8/4/GDRD"
     "MA\n"
     "deepseek-yanfa:192:3199 [4] NCCL INFO Channel 05/0 : 4[4] -> 13[5] [send] via NET/IBext_v8/5/GDRDMA\n"
     "deepseek-yanfa:192:3199 [4] NCCL INFO Channel 13/0 : 4[4] -> 13[5] [send] via NET/IBext_v8/5/GDRDMA\n",
     {"timeout_unknown", "stuck_rank"}, None),
    ("deepspeedai/DeepSpeed#6705",
     " 99%|█████████▉| 23054/23316 [2:22:47<01:34,  2.79it/s][rank1]:[E1101 17:03:05.823968890 ProcessGrou"
     "pNCCL.cpp:607] [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=395, OpType=AL"
     "LREDUCE, NumelIn=336234306, NumelOut=336234306, Timeout(ms)=600000) ran for 600083 milliseconds befo"
     "re timing out.\n"
     "202.197.0.170: [rank1]:[E1101 17:03:05.825934647 ProcessGroupNCCL.cpp:1664] [PG 1 Rank 1] Exception "
     "(either an error or timeout) detected by watchdog at work: 395, last enqueued NCCL work: 395, last c"
     "ompleted NCCL work: 394.\n"
     "202.197.0.170: [rank1]:[E1101 17:03:05.825965173 ProcessGroupNCCL.cpp:1709] [PG 1 Rank 1] Timeout at"
     " NCCL work: 395, last enqueued NCCL work: 395, last completed NCCL work: 394.\n"
     "202.197.0.170: [rank1]:[E1101 17:03:05.825984408 ProcessGroupNCCL.cpp:621] [Rank 1] Some NCCL operat"
     "ions have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operat"
     "ions might run on corrupted/incomplete data.\n"
     "202.197.0.170: [rank1]:[E1101 17:03:05.826126608 ProcessGroupNCCL.cpp:627] [Rank 1] To avoid data in"
     "consistency, we are taking the entire process down.\n",
     {"timeout_unknown", "stuck_rank"}, None),
    ("deepspeedai/DeepSpeed#1834",
     "[1,19]<stderr>:RuntimeError[1,19]<stderr>:: NCCL communicator was aborted on rank 19.\n"
     "[1,60]<stderr>:Traceback (most recent call last):\n"
     '[1,60]<stderr>:  File "src/qd/qd_common.py", line 3868, in <module>\n'
     "[1,60]<stderr>:    locals()[function_name](**kwargs)\n"
     '[1,60]<stderr>:  File "src/qd/qd_common.py", line 3375, in execute_func\n'
     "[1,60]<stderr>:    return getattr(modules, info['import'])(**info['param'])\n"
     '[1,60]<stderr>:  File "/tmp/code/quickdetection/src/qd/pipeline.py", line 679, in pipeline_train_eva'
     "l_multi\n"
     "[1,60]<stderr>:    pip.ensure_train()\n"
     '[1,60]<stderr>:  File "/tmp/code/quickdetection/src/qd/pipelines/uni_pipeline.py", line 1062, in ens'
     "ure_train\n"
     "[1,60]<stderr>:    train_result = self.train()\n"
     '[1,60]<stderr>:  File "/tmp/code/quickdetection/src/qd/pipelines/uni_pipeline.py", line 1405, in tra'
     "in\n"
     "[1,60]<stderr>:    self.do_train(train_loader, model, optimizer, scheduler, checkpointer,\n"
     '[1,60]<stderr>:  File "/tmp/code/quickdetection/src/qd/pipelines/uni_pipeline.py", line 1524, in do_'
     "train\n"
     "[1,60]<stderr>:    DeepspeedTrainer(\n"
     '[1,60]<stderr>:  File "/tmp/code/quickdetection/src/qd/opt/trainer.py", line 1540, in do\n'
     "[1,60]<stderr>:    self.inner_loop()\n",
     {"timeout_unknown", "unclassified_failure"}, None),
    ("xuyuzhuang11/OneBit#8",
     "[torch_checkpoint_engine.py:33:commit] [Torch] Checkpoint global_step5000 is ready now!\n"
     "[rank6]:[E ProcessGroupNCCL.cpp:523] [Rank 6] Watchdog caught collective operation timeout: WorkNCCL"
     "(SeqNum=12029440, OpType=_ALLGATHER_BASE, NumelIn=512, NumelOut=4096, Timeout(ms)=1800000) ran for 1"
     "808499 milliseconds before timing out.\n"
     "\n"
     "[rank6]:[E ProcessGroupNCCL.cpp:537] Some NCCL operations have failed or timed out. Due to the async"
     "hronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data. To"
     " avoid this inconsistency, we are taking the entire process down.\n",
     {"timeout_unknown", "stuck_rank"}, None),
    ("horovod/horovod#1122",
     "[1,2]<stdout>:mlc-cluster-22:7619:7637 [2] NCCL INFO Ring 00 : 2 -> 3 [send] via NET/Socket/0\n"
     "[1,2]<stdout>:mlc-cluster-22:7619:7637 [2] NCCL INFO Ring 00 : 2[2] -> 1[1] via direct shared memory"
     "\n"
     "[1,0]<stdout>:mlc-cluster-22:7617:7635 [0] NCCL INFO Ring 00 : 3 -> 0 [receive] via NET/Socket/0\n"
     "[1,1]<stdout>:mlc-cluster-22:7618:7632 [1] NCCL INFO Ring 00 : 1[1] -> 0[0] via direct shared memory"
     "\n"
     "[1,2]<stdout>:mlc-cluster-22:7619:7637 [2] NCCL INFO Trees [0] 1->2->-1/-1/-1\n"
     "[1,4]<stdout>:mlc-cluster-23:3071:3088 [1] NCCL INFO Trees [0] 3->4->5/-1/-1\n"
     "[1,5]<stdout>:mlc-cluster-23:3072:3085 [2] NCCL INFO comm 0x7f102434d0c0 rank 5 nranks 6 cudaDev 2 n"
     "vmlDev 2 - Init COMPLETE\n"
     "[1,1]<stdout>:mlc-cluster-22:7618:7632 [1] NCCL INFO Trees [0] 0->1->2/-1/-1\n"
     "[1,2]<stdout>:mlc-cluster-22:7619:7637 [2] NCCL INFO comm 0x7f875432e890 rank 2 nranks 6 cudaDev 2 n"
     "vmlDev 2 - Init COMPLETE\n"
     "[1,1]<stdout>:mlc-cluster-22:7618:7632 [1] NCCL INFO comm 0x7fdc783393c0 rank 1 nranks 6 cudaDev 1 n"
     "vmlDev 1 - Init COMPLETE\n"
     "[1,4]<stdout>:mlc-cluster-23:3071:3088 [1] NCCL INFO comm 0x7f705838a9c0 rank 4 nranks 6 cudaDev 1 n"
     "vmlDev 1 - Init COMPLETE\n"
     "[1,3]<stdout>:mlc-cluster-23:3070:3090 [0] NCCL INFO Ring 00 : 3 -> 0 [send] via NET/Socket/0\n"
     "[1,3]<stdout>:\n"
     "[1,3]<stdout>:mlc-cluster-23:3070:3090 [0] include/shm.h:42 NCCL WARN Cuda failure 'invalid argument"
     "'\n",
     {"unclassified_failure"}, None),
    ("sgl-project/sglang#6017",
     "hd03-gpu2-0031:14135:14135 [2] NCCL INFO Using non-device net plugin version 0\n"
     "hd03-gpu2-0031:14135:14135 [2] NCCL INFO Using network IBext_v8\n"
     "hd03-gpu2-0031:14139:14139 [6] NCCL INFO NET/IB : Using [0]ib7s400p0:1/IB/SHARP [1]ib6s200p0:1/IB/SH"
     "ARP [2]ib7s400p1:1/IB/SHARP [3]ib7s400p2:1/IB/SHARP [4]ib7s400p3:1/IB/SHARP [5]ib7s400p4:1/IB/SHARP "
     "[6]ib7s400p5:1/IB/SHARP [7]ib7s400p6:1/IB/SHARP [8]ib7s400p7:1/IB/SHARP [9]mlx5_bond_0:1/RoCE [RO]; "
     "OOB bond0:172.31.10.31<0>\n"
     "hd03-gpu2-0031:14139:14139 [6] NCCL INFO Using non-device net plugin version 0\n"
     "hd03-gpu2-0031:14139:14139 [6] NCCL INFO Using network IBext_v8\n"
     "\n"
     "hd03-gpu2-0031:14133:14133 [0] misc/socket.cc:484 NCCL WARN socketStartConnect: Connect to 169.254.2"
     "0.10<43369> failed : Software caused connection abort\n"
     "hd03-gpu2-0031:14133:14133 [0] NCCL INFO misc/socket.cc:567 -> 2\n"
     "hd03-gpu2-0031:14133:14133 [0] NCCL INFO misc/socket.cc:621 -> 2\n"
     "hd03-gpu2-0031:14133:14133 [0] NCCL INFO bootstrap.cc:285 -> 2\n"
     "hd03-gpu2-0031:14133:14133 [0] NCCL INFO init.cc:1534 -> 2\n"
     "hd03-gpu2-0031:14133:14133 [0] NCCL INFO init.cc:1799 -> 2\n"
     "\n"
     "\n"
     "hd03-gpu2-0031:14134:14134 [1] misc/socket.cc:484 NCCL WARN socketStartConnect: Connect to 169.254.2"
     "0.10<43369> failed : Software caused connection abort\n",
     {"nic_misselection", "network_error"}, None),
    ("vllm-project/vllm#17770",
     "(RayWorkerWrapper pid=2191173, ip=10.52.51.232) *** SIGSEGV received at time=1746566409 on cpu 131 *"
     "**\n"
     "(RayWorkerWrapper pid=2191173, ip=10.52.51.232) PC: @     0x7fcfcd849b8a  (unknown)  addProxyOpIfNee"
     "ded()\n"
     "(RayWorkerWrapper pid=2191173, ip=10.52.51.232)     @     0x7ffff7c9e520  267994832  (unknown)\n"
     "(RayWorkerWrapper pid=2191173, ip=10.52.51.232)     @            0x80000  (unknown)  (unknown)\n"
     "(RayWorkerWrapper pid=2191173, ip=10.52.51.232) [2025-05-06 14:20:09,187 E 2191173 2191173] logging."
     "cc:484: *** SIGSEGV received at time=1746566409 on cpu 131 ***\n",
     {"unclassified_failure", "dropped_rank"}, None),
    ("vllm-project/vllm#16766",
     "[36m(RayWorkerWrapper pid=812)[0m     @ ... and at least 1000 more frames\n"
     "[36m(RayWorkerWrapper pid=812)[0m [2025-04-17 15:09:14,925 E 812 812] logging.cc:447: *** SIGSEGV re"
     "ceived at time=1744873754 on cpu 137 ***\n"
     "[36m(RayWorkerWrapper pid=812)[0m [2025-04-17 15:09:14,925 E 812 812] logging.cc:447: PC: @     0x7f"
     "817f64c0ad  (unknown)  addCBDCollToPlan()\n"
     "[36m(RayWorkerWrapper pid=812)[0m [2025-04-17 15:09:14,925 E 812 812] logging.cc:447:     @     0x7f"
     "b1a2173520  (unknown)  (unknown)\n"
     "[36m(RayWorkerWrapper pid=812)[0m [2025-04-17 15:09:14,925 E 812 812] logging.cc:447:     @     0x7f"
     "8159fc7872         80  (unknown)\n"
     "[36m(RayWorkerWrapper pid=812)[0m [2025-04-17 15:09:14,926 E 812 812] logging.cc:447:     @         "
     "   0x96000  (unknown)  (unknown)\n",
     {"unclassified_failure", "dropped_rank"}, None),
    ("deepseek-ai/DeepSeek-V2#76",
     "(RayWorkerWrapper pid=23558, ip=10.0.128.18) ERROR 07-28 13:53:40 worker_base.py:382] RuntimeError: "
     "NCCL Error 3: internal error - please report this issue to the NCCL developers\n",
     {"unclassified_failure"}, None),
    ("sgl-project/sglang#8974",
     'File "/sgl-workspace/sglang/python/sglang/srt/model_executor/model_runner.py", line 235, in __init__'
     "\n"
     "min_per_gpu_memory = self.init_torch_distributed()\n"
     'File "/sgl-workspace/sglang/python/sglang/srt/model_executor/model_runner.py", line 559, in init_tor'
     "ch_distributed\n"
     "initialize_model_parallel(\n"
     'File "/sgl-workspace/sglang/python/sglang/srt/distributed/parallel_state.py", line 1336, in initiali'
     "ze_model_parallel\n"
     "_TP = init_model_parallel_group(\n"
     'File "/sgl-workspace/sglang/python/sglang/srt/distributed/parallel_state.py", line 1124, in init_mod'
     "el_parallel_group\n"
     "return GroupCoordinator(\n"
     'File "/sgl-workspace/sglang/python/sglang/srt/distributed/parallel_state.py", line 280, in __init__\n'
     "self.pynccl_comm = PyNcclCommunicator(\n"
     'File "/sgl-workspace/sglang/python/sglang/srt/distributed/device_communicators/pynccl.py", line 110,'
     " in __init__\n"
     "self.comm: ncclComm_t = self.nccl.ncclCommInitRank(\n"
     'File "/sgl-workspace/sglang/python/sglang/srt/distributed/device_communicators/pynccl_wrapper.py", l'
     "ine 375, in ncclCommInitRank\n"
     "self.NCCL_CHECK(\n"
     'File "/sgl-workspace/sglang/python/sglang/srt/distributed/device_communicators/pynccl_wrapper.py", l'
     "ine 350, in NCCL_CHECK\n"
     'raise RuntimeError(f"NCCL error: {error_str}")\n'
     "RuntimeError: NCCL error: unhandled system error (run with NCCL_DEBUG=INFO for details)\n"
     "[2025-08-08 09:09:09] Received sigquit from a child process. It usually means the child failed.\n",
     {"unclassified_failure", "network_error"}, None),
    ("NVIDIA/Megatron-LM#792",
     "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.c"
     "pp:1691, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.19.3\n"
     "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. "
     "\n"
     "Last error:\n"
     "\n"
     "    return pg.recv([tensor], group_src_rank, tag)\n"
     "    return pg.recv([tensor], group_src_rank, tag)\n"
     "    return pg.recv([tensor], group_src_rank, tag)\n"
     "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.c"
     "pp:1691, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.19.3\n"
     "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. "
     "\n"
     "Last error:\n"
     "[Proxy Service 2] Failed to execute operation Connect from rank 2, retcode 3\n"
     "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.c"
     "pp:1691, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.19.3\n"
     "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. "
     "\n"
     "Last error:\n",
     {"unclassified_failure", "network_error"}, None),
    ("Lightning-AI/pytorch-lightning#20434",
     "babel-0-31:2324239:2324522 [3] NCCL INFO 2 coll channels, 2 collnet channels, 0 nvls channels, 2 p2p"
     " channels, 2 p2p channels per peer\n"
     "babel-0-31:2324239:2324522 [3] NCCL INFO TUNER/Plugin: Plugin load returned 2 : libnccl-net.so: cann"
     "ot open shared object file: No such file or directory : when loading libnccl-tuner.so\n"
     "babel-0-31:2324239:2324522 [3] NCCL INFO TUNER/Plugin: Using internal tuner plugin.\n"
     "babel-0-31:2324239:2324522 [3] NCCL INFO ncclCommInitRank comm 0x5584021f39f0 rank 3 nranks 4 cudaDe"
     "v 3 nvmlDev 3 busId e1000 commId 0xb886029f29f1a815 - Init COMPLETE\n"
     "[rank3]:[E1119 13:21:12.512781555 ProcessGroupNCCL.cpp:616] [Rank 3] Watchdog caught collective oper"
     "ation timeout: WorkNCCL(SeqNum=1, OpType=BROADCAST, NumelIn=1, NumelOut=1, Timeout(ms)=1800000) ran "
     "for 1800000 milliseconds before timing out.\n"
     "babel-0-31:2324238:2324238 [2] NCCL INFO cudaDriverVersion 12060\n"
     "babel-0-31:2324238:2324238 [2] NCCL INFO Bootstrap : Using ibs8:172.16.1.17<0>\n"
     "babel-0-31:2324238:2324238 [2] NCCL INFO NET/Plugin: No plugin found (libnccl-net.so)\n"
     "babel-0-31:2324238:2324238 [2] NCCL INFO NET/Plugin: Plugin load returned 2 : libnccl-net.so: cannot"
     " open shared object file: No such file or directory : when loading libnccl-net.so\n"
     "babel-0-31:2324238:2324238 [2] NCCL INFO NET/Plugin: Using internal network plugin.\n",
     {"timeout_unknown", "stuck_rank"}, None),
    ("pytorch/ignite#3466",
     "[1]<stderr>:    mpi_lib.horovod_torch_wait_and_clear(handle)\n"
     "[1]<stderr>:RuntimeError: ncclCommInitRank failed: unhandled cuda error (run with NCCL_DEBUG=INFO fo"
     "r details)\n"
     "[1]<stderr>:\n",
     {"unclassified_failure", "dropped_rank"}, None),
    ("NVIDIA/TensorRT-LLM#213",
     "Failed, NCCL error /src/tensorrt_llm/cpp/tensorrt_llm/plugins/ncclPlugin/allreducePlugin.cpp:295 'in"
     "ternal error - please report this issue to the NCCL developers'\n"
     "Failed, NCCL error /src/tensorrt_llm/cpp/tensorrt_llm/plugins/ncclPlugin/allreducePlugin.cpp:295 'in"
     "ternal error - please report this issue to the NCCL developers'\n"
     "Failed, NCCL error /src/tensorrt_llm/cpp/tensorrt_llm/plugins/ncclPlugin/allreducePlugin.cpp:295 'in"
     "ternal error - please report this issue to the NCCL developers'\n"
     "Failed, NCCL error /src/tensorrt_llm/cpp/tensorrt_llm/plugins/ncclPlugin/allreducePlugin.cpp:295 'in"
     "ternal error - please report this issue to the NCCL developers'\n"
     "--------------------------------------------------------------------------\n"
     "Primary job  terminated normally, but 1 process returned\n"
     "a non-zero exit code. Per user-direction, the job has been aborted.\n"
     "--------------------------------------------------------------------------\n"
     "--------------------------------------------------------------------------\n"
     "mpirun detected that one or more processes exited with non-zero status, thus causing\n",
     {"unclassified_failure"}, None),
    ("modelscope/DiffSynth-Studio#458",
     "Training:   0%|                                                             | 0/500 [00:00<?, ?it/s]"
     "\n"
     "Epoch 0:   0%|                                                              | 0/500 [00:00<?, ?it/s]"
     "[rank1]:[E318 07:39:53.713449198 ProcessGroupNCCL.cpp:616] [Rank 1] Watchdog caught collective opera"
     "tion timeout: WorkNCCL(SeqNum=610, OpType=COALESCED, NumelIn=56320, NumelOut=450560, Timeout(ms)=600"
     "000) ran for 600007 milliseconds before timing out.\n"
     "[rank7]:[E318 07:39:53.717957624 ProcessGroupNCCL.cpp:616] [Rank 7] Watchdog caught collective opera"
     "tion timeout: WorkNCCL(SeqNum=610, OpType=COALESCED, NumelIn=107520, NumelOut=860160, Timeout(ms)=60"
     "0000) ran for 600018 milliseconds before timing out.\n"
     "[rank7]:[E318 07:39:53.719123806 ProcessGroupNCCL.cpp:1785] [PG ID 2 PG GUID 9 Rank 7] Exception (ei"
     "ther an error or timeout) detected by watchdog at work: 610, last enqueued NCCL work: 616, last comp"
     "leted NCCL work: 609.\n"
     "[rank7]:[E318 07:39:53.719151910 ProcessGroupNCCL.cpp:1834] [PG ID 2 PG GUID 9 Rank 7] Timeout at NC"
     "CL work: 610, last enqueued NCCL work: 616, last completed NCCL work: 609.\n"
     "[rank1]:[E318 07:39:53.719145756 ProcessGroupNCCL.cpp:1785] [PG ID 2 PG GUID 9 Rank 1] Exception (ei"
     "ther an error or timeout) detected by watchdog at work: 610, last enqueued NCCL work: 616, last comp"
     "leted NCCL work: 609.\n",
     {"timeout_unknown", "shape_mismatch", "stuck_rank"}, None),
    ("deepseek-ai/DeepEP#411",
     "[rank4]:[E916 08:53:53.863594849 ProcessGroupNCCL.cpp:685] [Rank 4] Some NCCL operations have failed"
     " or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run o"
     "n corrupted/incomplete data.\n"
     "[rank4]:[E916 08:53:53.863609204 ProcessGroupNCCL.cpp:699] [Rank 4] To avoid data inconsistency, we "
     "are taking the entire process down.\n"
     "[rank4]:[E916 08:53:53.866564418 ProcessGroupNCCL.cpp:1917] [PG ID 1 PG GUID 1 Rank 4] Process group"
     " watchdog thread terminated with exception: [Rank 4] Watchdog caught collective operation timeout: W"
     "orkNCCL(SeqNum=1, OpType=ALLGATHER, NumelIn=1, NumelOut=16, Timeout(ms)=600000) ran for 600074 milli"
     "seconds before timing out.\n"
     "Exception raised from checkTimeout at /opt/pytorch/pytorch/torch/csrc/distributed/c10d/ProcessGroupN"
     "CCL.cpp:636 (most recent call first):\n"
     "frame #0: c10::Error::Error(c10::SourceLocation, std::__cxx11::basic_string<char, std::char_traits<c"
     "har>, std::allocator<char> >) + 0x98 (0x7f3e5c932368 in /usr/local/lib/python3.12/dist-packages/torc"
     "h/lib/libc10.so)\n"
     "frame #1: c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long, s"
     "td::ratio<1l, 1000l> > >) + 0x23d (0x7f3e5d6950cd in /usr/local/lib/python3.12/dist-packages/torch/l"
     "ib/libtorch_cuda.so)\n",
     {"timeout_unknown", "stuck_rank"}, None),
    ("hiyouga/LlamaFactory#6953",
     "[rank144]:[E ProcessGroupNCCL.cpp:1316] [PG 0 Rank 144] Heartbeat monitor timed out! Process will be"
     " terminated after dumping debug info. workMetaList_.size()=1\n"
     "[rank144]:[E ProcessGroupNCCL.cpp:1153] [PG 0 Rank 144] ProcessGroupNCCL preparing to dump debug inf"
     "o.\n"
     "[rank144]:[F ProcessGroupNCCL.cpp:1169] [PG 0 Rank 144] [PG 0 Rank 144] ProcessGroupNCCL's watchdog "
     "got stuck for 600 seconds without making progress in monitoring enqueued collectives. This typically"
     " indicates a NCCL/CUDA API hang blocking the watchdog, and could be triggered by another thread hold"
     "ing the GIL inside a CUDA api, or other deadlock-prone behaviors.If you suspect the watchdog is not "
     "actually stuck and a longer timeout would help, you can either increase the timeout (TORCH_NCCL_HEAR"
     "TBEAT_TIMEOUT_SEC) to a larger value or disable the heartbeat monitor (TORCH_NCCL_ENABLE_MONITORING="
     "0).If either of aforementioned helps, feel free to file an issue to PyTorch about the short timeout "
     "or false positive abort; otherwise, please attempt to debug the hang. workMetaList_.size() = 1\n",
     {"timeout_unknown", "stuck_rank"}, None),
    ("xdit-project/xDiT#147",
     "[rank0]:[E ProcessGroupNCCL.cpp:1316] [PG 5 Rank 0] Heartbeat monitor timed out! Process will be ter"
     "minated after dumping debug info. workMetaList_.size()=3\n"
     "[rank4]:[E ProcessGroupNCCL.cpp:1316] [PG 5 Rank 0] Heartbeat monitor timed out! Process will be ter"
     "minated after dumping debug info. workMetaList_.size()=2\n"
     "[rank0]:[E ProcessGroupNCCL.cpp:1153] [PG 5 Rank 0] ProcessGroupNCCL preparing to dump debug info.\n"
     "[rank4]:[E ProcessGroupNCCL.cpp:1153] [PG 5 Rank 0] ProcessGroupNCCL preparing to dump debug info.\n"
     "[rank0]:[F ProcessGroupNCCL.cpp:1169] [PG 5 Rank 0] [PG 5 Rank 0] ProcessGroupNCCL's watchdog got st"
     "uck for 600 seconds without making progress in monitoring enqueued collectives. This typically indic"
     "ates a NCCL/CUDA API hang blocking the watchdog, and could be triggered by another thread holding th"
     "e GIL inside a CUDA api, or other deadlock-prone behaviors.If you suspect the watchdog is not actual"
     "ly stuck and a longer timeout would help, you can either increase the timeout (TORCH_NCCL_HEARTBEAT_"
     "TIMEOUT_SEC) to a larger value or disable the heartbeat monitor (TORCH_NCCL_ENABLE_MONITORING=0).If "
     "either of aforementioned helps, feel free\n",
     {"timeout_unknown", "stuck_rank"}, None),
    ("sgl-project/sglang#1691",
     "[rank0]:[E1019 01:04:03.356947152 ProcessGroupNCCL.cpp:1413] [PG 3 Rank 0] Heartbeat monitor timed o"
     "ut! Process will be terminated after dumping debug info. workMetaList_.size()=121\n"
     "[rank1]:[E1019 01:04:03.357037506 ProcessGroupNCCL.cpp:1413] [PG 3 Rank 1] Heartbeat monitor timed o"
     "ut! Process will be terminated after dumping debug info. workMetaList_.size()=121\n"
     "[rank7]:[E1019 01:04:03.357615073 ProcessGroupNCCL.cpp:1375] [PG 3 Rank 7] First PG on this rank tha"
     "t detected no heartbeat of its watchdog.\n"
     "[rank6]:[E1019 01:04:03.357809163 ProcessGroupNCCL.cpp:1375] [PG 3 Rank 6] First PG on this rank tha"
     "t detected no heartbeat of its watchdog.\n"
     "[rank6]:[E1019 01:04:03.358023054 ProcessGroupNCCL.cpp:1413] [PG 3 Rank 6] Heartbeat monitor timed o"
     "ut! Process will be terminated after dumping debug info. workMetaList_.size()=121\n"
     "[rank7]:[E1019 01:04:03.358125866 ProcessGroupNCCL.cpp:1413] [PG 3 Rank 7] Heartbeat monitor timed o"
     "ut! Process will be terminated after dumping debug info. workMetaList_.size()=121\n"
     "[rank2]:[F1019 01:14:03.356851194 ProcessGroupNCCL.cpp:1224] [PG 3 Rank 2] [PG 3 Rank 2] ProcessGrou"
     "pNCCL's watchdog got stuck for 600 seconds without making progress in monitoring enqueued collective"
     "s. This typically indicates a NCCL/CUDA API hang blocking the watchdog, and could be triggered by an"
     "other thread holding the GIL inside a CUDA api, or other de\n",
     {"timeout_unknown", "stuck_rank"}, None),
    ("modelscope/ms-swift#7992",
     "18:11:06.680 [rank4]:[E205 18:11:06.375750231 ProcessGroupNCCL.cpp:1870] [PG ID 12 PG GUID 99(EXPERT"
     "_MODEL_PARALLEL_GROUP) Rank 4] ProcessGroupNCCL's watchdog got stuck for 480 seconds without making "
     "progress in monitoring enqueued collectives. This typically indicates a NCCL/CUDA API (e.g., CudaEve"
     "ntDestroy) hang blocking the watchdog, and could be triggered by another thread holding the GIL insi"
     "de a CUDA api (for example, CudaEventDestroy), or other deadlock-prone behaviors.If you suspect the "
     "watchdog is not actually stuck and a longer timeout would help, you can either increase the timeout "
     "(TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC) to a larger value or disable the heartbeat monitor (TORCH_NCCL_EN"
     "ABLE_MONITORING=0).If either of aforementioned helps, feel free to file an issue to PyTorch about th"
     "e short timeout or false positive abort; otherwise, please attempt to debug the hang. \n"
     "18:11:06.680 [rank0]:[E205 18:11:06.375964157 ProcessGroupNCCL.cpp:1870] [PG ID 14 PG GUID 117(EXPER"
     "T_TENSOR_AND_MODEL_PARALLEL_GROUP) Rank 0] ProcessGroupNCCL's watchdog got stuck for 480 seconds wit"
     "hout making progress in monitoring enqueued collectives. This typically indicates a NCCL/CUDA API (e"
     ".g., CudaEventDestroy) hang blocking the watchdog, and could be triggered by another thread holding "
     "the GIL inside a CUDA api (for exampl\n",
     {"stuck_rank", "timeout_unknown", "unclassified_failure"}, None),
    ("vllm-project/vllm#13535",
     "(RayWorkerWrapper pid=270291, ip=10.175.94.190) [rank3]:[E219 08:58:32.606233339 ProcessGroupNCCL.cp"
     "p:616] [Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=31, OpType=ALLREDUCE, "
     "NumelIn=117440512, NumelOut=117440512, Timeout(ms)=600000) ran for 600031 milliseconds before timing"
     " out.\n"
     "(RayWorkerWrapper pid=270291, ip=10.175.94.190) [rank3]:[E219 08:58:32.606667496 ProcessGroupNCCL.cp"
     "p:1785] [PG ID 2 PG GUID 3 Rank 3] Exception (either an error or timeout) detected by watchdog at wo"
     "rk: 31, last enqueued NCCL work: 58, last completed NCCL work: 30.\n"
     "(RayWorkerWrapper pid=270291, ip=10.175.94.190) [rank3]:[E219 08:58:32.606693321 ProcessGroupNCCL.cp"
     "p:1834] [PG ID 2 PG GUID 3 Rank 3] Timeout at NCCL work: 31, last enqueued NCCL work: 58, last compl"
     "eted NCCL work: 30.\n"
     "(RayWorkerWrapper pid=270291, ip=10.175.94.190) [rank3]:[E219 08:58:32.606716422 ProcessGroupNCCL.cp"
     "p:630] [Rank 3] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUD"
     "A kernels, subsequent GPU operations might run on corrupted/incomplete data.\n",
     {"timeout_unknown", "stuck_rank"}, None),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_heldout31_case(tmp_path, case):
    check_case(tmp_path, case[1:])


def test_an_absl_sigterm_alone_is_no_crash(tmp_path):
    line = "(RayWorkerWrapper pid=233, ip=10.20.1.125) *** SIGTERM received at time=1759954468 on cpu 5 ***"
    assert console_verdict(tmp_path, line).cls != "dropped_rank"


def test_an_absl_sigsegv_without_cpu_is_a_crash(tmp_path):
    # Abseil before LTS 2021-03-24 prints no ` on cpu N`
    assert console_verdict(tmp_path, "*** SIGSEGV received at time=1618368497 ***").cls == "dropped_rank"


def test_rank_lists_stay_short_on_big_consoles():
    assert ranks_text([0, 4, 9]) == "0, 4, 9"
    assert ranks_text([r for r in range(512) if r != 300]) == "0-299, 301-511"
    assert ranks_text(range(0, 1024, 2)) == "0, 2, 4, 6, 8, 10, 12, 14, … (512 ranks)"
    assert ranks_phrase([3]) == "rank 3" and ranks_phrase([0, 1, 2, 5]) == "ranks 0-2, 5"
    assert ranks_phrase(range(0, 1024, 2)) == "ranks 0, 2, 4, 6, 8, 10, 12, 14, … (512 ranks)"


def test_a_512_rank_timeout_summary_is_abridged(tmp_path):
    text = "\n".join(f"[rank{r}]:[E321 02:07:08.408271257 ProcessGroupNCCL.cpp:607] [Rank {r}] Watchdog caught "
                     "collective operation timeout: WorkNCCL(SeqNum=1580, OpType=ALLREDUCE, NumelIn=4, NumelOut=4, "
                     "Timeout(ms)=600000) ran for 600060 milliseconds before timing out." for r in range(0, 1024, 2))
    verdict = console_verdict(tmp_path, text)
    assert verdict.cls == "timeout_unknown" and "(512 ranks)" in verdict.summary and len(verdict.summary) < 600


def test_one_ranks_heartbeat_line_is_not_taken_by_another_ranks_report(tmp_path):
    # sgl-project/sglang#1691: rank 0's catalogue heartbeat line was merged into rank 2's watchdog-stuck report a few
    # lines below (same kind, nearby), so rank 0 went missing from the ranks that timed out
    text = next(c[1] for c in CASES if c[0] == "sgl-project/sglang#1691")
    assert "ranks 0, 1, 2, 6, 7 timed out" in console_verdict(tmp_path, text).summary


def test_the_postmortem_of_a_512_rank_timeout_lists_its_ranks_abridged(tmp_path):
    path = tmp_path / "console.log"
    path.write_text("\n".join(f"[rank{r}]:[E321 02:07:08.408271257 ProcessGroupNCCL.cpp:607] [Rank {r}] Watchdog "
                              "caught collective operation timeout: WorkNCCL(SeqNum=1580, OpType=ALLREDUCE, NumelIn=4, "
                              "NumelOut=4, Timeout(ms)=600000) ran for 600060 milliseconds before timing out."
                              for r in range(0, 1024, 2)) + "\n")
    report = render(diagnose([str(path)], jobs=1), {})
    assert "(512 ranks)" in report and "1020" not in report, max(report.splitlines(), key=len)
    assert max(map(len, report.splitlines())) < 1200
