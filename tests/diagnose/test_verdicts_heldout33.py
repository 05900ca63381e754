"""Held-out set 33: pastes of jobs that hung or timed out, from public issues of many projects (LLM trainers, RL and
serving stacks, vision and speech repos, PyTorch and NCCL themselves): watchdog timeouts in the wordings of torch 1.x to
2.7 (bare, `[rankN]:`, Ray actor, bracketed-date and terminal-wrapped), gloo monitoredBarrier from both sides,
TORCH_DISTRIBUTED_DEBUG=DETAIL mismatch reports of every form, a TORCH_NCCL_DESYNC_DEBUG report, a heartbeat-monitor
kill, and jobs that did not hang (a finished run's exit warning, DETAIL progress lines only, a SIGKILLed worker).
18 of 22 were read right at first sight. What changed after, each from the sources:

- ProcessGroupWrapper 1.10 - 1.11 (CollectiveFingerPrint::verify_tensors) raises `Detected mismatch between
  collectives on ranks. Rank N is running inconsistent collective: ` and its operator<< never closes
  `CollectiveFingerPrint(`: the grammar reads that whole form, so two ranks' reports compare (shape, dtype, op).
- compute_collective_diff (2.1+) appends `Collectives differ in the following aspects: …`: the grammar keeps it as
  text, so a paste cut inside those words still gives both fingerprints (dtypes, shapes) to the detectors.
- Two whole fingerprints that differ only in SequenceNumber (the wrapper counts each rank's collectives on the group):
  the ranks issued a different number of collectives before it, a skip (C107, collective_skipped).
- ProcessGroupNCCL's desync report (TORCH_NCCL_DESYNC_DEBUG, one LOG message over many lines under a `Rank N` head):
  its lines are messages of their own, never the continuation of a hard-wrapped head, so `[7] finished collective
  #182, but didn't join collective #183` names rank 7 (C105).
"""
from __future__ import annotations

import pytest
from rich.console import Console

from nccl_forensics.outputs.diagnosis_terminal import render
from nccl_forensics.outputs.display import seq_text
from nccl_forensics.pipeline.reduce import diagnose

from .consoles import check_case, console_verdict

CASES = [
    # (issue, pasted excerpt, right classes, culprit ranks or None)
    ("HKUDS/GraphGPT#44",
     '[E ProcessGroupNCCL.cpp:488] Some NCCL operations have failed or timed out.\n'
     ' Due to the asynchronous nature of CUDA kernels, subsequent GPU operations \n'
     'might run on corrupted/incomplete data.                                    \n'
     '[E ProcessGroupNCCL.cpp:494] To avoid data inconsistency, we are taking the\n'
     ' entire process down.                \n'
     '[E ProcessGroupNCCL.cpp:915] [Rank 1] NCCL watchdog thread terminated with \n'
     'exception: [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(\n'
     'SeqNum=778778, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=1800000\n'
     ') ran for 1800413 milliseconds before timing out.                          \n'
     "terminate called after throwing an instance of 'std::runtime_error'\n"
     '  what():  [Rank 1] NCCL watchdog thread terminated with exception: [Rank 1\n'
     '] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=778778, OpT\n'
     'ype=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=1800000) ran for 1800413 \n'
     'milliseconds before timing out.   ',
     {'stuck_rank', 'timeout_unknown'}, None),
    ("NVIDIA/nccl#849",
     ' 30%|███       | 166M/548M [00:03<00:09, 43.9MB/s]\n'
     ' 31%|███       | 171M/548M [00:03<00:11, 33.9MB/s]\n'
     ' 32%|███▏      | 176M/548M [00:03<00:11, 34.3MB/s]\n'
     ' 34%|███▎      | 184M/548M [00:03<00:09, 41.3MB/s]\n'
     'RuntimeError: [Rank 0]: Ranks 4, 5, 6, 7 failed to pass monitoredBarrier in 2000000 ms',
     {'stuck_rank'}, [4, 5, 6, 7]),
    ("NVIDIA/physicsnemo#691",
     '[rank3]:[E1016 03:33:45.317536384 ProcessGroupNCCL.cpp:568] [Rank 3] Watchdog caught collective oper'
     'ation timeout: WorkNCCL(SeqNum=50, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran '
     'for 600011 milliseconds before timing out.\n'
     '[rank3]:[E1016 03:33:45.319844411 ProcessGroupNCCL.cpp:1583] [PG 0 Rank 3] Exception (either an erro'
     'r or timeout) detected by watchdog at work: 50, last enqueued NCCL work: 50, last completed NCCL wor'
     'k: 49.\n'
     '[rank3]:[E1016 03:33:45.319862434 ProcessGroupNCCL.cpp:1628] [PG 0 Rank 3] Timeout at NCCL work: 50,'
     ' last enqueued NCCL work: 50, last completed NCCL work: 49.\n'
     '[rank3]:[E1016 03:33:45.319870659 ProcessGroupNCCL.cpp:582] [Rank 3] Some NCCL operations have faile'
     'd or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run '
     'on corrupted/incomplete data.\n'
     '[rank2]:[E1016 03:33:45.380539738 ProcessGroupNCCL.cpp:568] [Rank 2] Watchdog caught collective oper'
     'ation timeout: WorkNCCL(SeqNum=50, OpType=ALLREDUCE, NumelIn=1, Nume',
     {'stuck_rank', 'timeout_unknown'}, None),
    ("OpenRLHF/OpenRLHF#624",
     '(ActorModelRayActor pid=3946, ip=10.164.43.243) [2024-12-24 23:47:14,381 E 3946 4620] logging.cc:101'
     ': Unhandled exception: N3c1016DistBackendErrorE. what(): [PG ID 0 PG GUID 0(default_pg) Rank 6] Proc'
     'ess group watchdog thread terminated with exception: [Rank 6] Watchdog caught collective operation t'
     'imeout: WorkNCCL(SeqNum=970, OpType=_ALLGATHER_BASE, NumelIn=524288, NumelOut=8388608, Timeout(ms)=7'
     '200000) ran for 7200017 milliseconds before timing out.\n'
     '(ActorModelRayActor pid=3946, ip=10.164.43.243) Exception raised from checkTimeout at ../torch/csrc/'
     'distributed/c10d/ProcessGroupNCCL.cpp:618 (most recent call first):\n'
     '(ActorModelRayActor pid=3946, ip=10.164.43.243) frame #0: c10::Error::Error(c10::SourceLocation, std'
     '::string) + 0x96 (0x7fa0600d9446 in /usr/local/lib/python3.10/lib/python3.10/site-packages/torch/lib'
     '/libc10.so)\n'
     '(ActorModelRayActor pid=3946, ip=10.164.43.243) frame #1: c10d::ProcessGroupNCCL::WorkNCCL::checkTim'
     'eout(std::optional<std::chrono::duration<long, std::ratio<1l, 1000l> > >) + 0x282 (0x7f70ae7aa772 in'
     ' /usr/local/lib/python3.10/lib/python3.10/site-packages/torch/lib/libtorch_cuda.so)',
     {'stuck_rank', 'timeout_unknown'}, None),
    ("QwenAudio/CosyVoice#1727",
     '[rank1]:[E ProcessGroupGloo.cpp:144] Rank 1 successfully reached monitoredBarrier, but received erro'
     'rs while waiting for send/recv from rank 0. Please check rank 0 logs for faulty rank.\n'
     '2025-12-19 09:03:13,924 WARNING Rank 1 model.join() exit failed, some ranks may have exited early: R'
     'ank 1 successfully reached monitoredBarrier, but received errors while waiting for send/recv from ra'
     'nk 0. Please check rank 0 logs for faulty rank.\n'
     ' Original exception:\n'
     '[../third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:133] Timed out waiting 1800000ms for send '
     'operation to complete\n'
     '[rank1]: Traceback (most recent call last):\n'
     '[rank1]:   File "/src/users/chsong/cosyvoice2/flow_sft_debug2/train.py", line 226, in <module>\n'
     '[rank1]:     main()\n'
     '[rank1]:   File "/home1/irteam/.venv/lib/python3.11/site-packages/torch/distributed/elastic/multipro'
     'cessing/errors/__init__.py", line 347, in wrapper\n'
     '[rank1]:     return f(*args, **kwargs)\n'
     '[rank1]:            ^^^^^^^^^^^^^^^^^^\n'
     '[rank1]:   File "/src/users/chsong/cosyvoice2/flow_sft_debug2/train.py", line 210, in main\n'
     '[rank1]:     executor.train_one_epoc(\n'
     '[rank1]:   File "/src/users/chsong/cosyvoice2/flow_sft_debug2/cosyvoice/utils/executor.py", line 138'
     ', in train_one_epoc\n'
     '[rank1]:     dist.barrier()',
     {'stuck_rank', 'timeout_unknown'}, None),
    ("VITA-MLLM/VITA-Audio#34",
     '[Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1892, OpType=ALLREDUCE, Numel'
     'In=574105888, NumelOut=574105888, Timeout(ms)=600000) ran for 600016 milliseconds before timing out.'
     '\n'
     '【2025-09-25 14:27:49】[rank2]:[E ProcessGroupNCCL.cpp:563] [Rank 2] Watchdog caught collective operat'
     'ion timeout: WorkNCCL(SeqNum=1892, OpType=ALLREDUCE, NumelIn=574105888, NumelOut=574105888, Timeout('
     'ms)=600000) ran for 600034 milliseconds before timing out.\n'
     '【2025-09-25 14:27:49】[rank3]:[E ProcessGroupNCCL.cpp:563] [Rank 3] Watchdog caught collective operat'
     'ion timeout: WorkNCCL(SeqNum=1892, OpType=ALLREDUCE, NumelIn=574105888, NumelOut=574105888, Timeout('
     'ms)=600000) ran for 600025 milliseconds before timing out.\n'
     '【2025-09-25 14:27:49】[rank5]:[E ProcessGroupNCCL.cpp:563] [Rank 5] Watchdog caught collective operat'
     'ion timeout: WorkNCCL(SeqNum=1892, OpType=ALLREDUCE, NumelIn=574105888, NumelOut=574105888, Timeout('
     'ms)=600000) ran for 600045 milliseconds before timing out.',
     {'stuck_rank', 'timeout_unknown'}, None),
    ("agiresearch/InstructGLM#3",
     'Watchdog caught collective operation timeout: WorkNCCL(SeqNum=49, OpType=ALLREDUCE, Timeout(ms)=1800'
     '0000) ran for 18005607 milliseconds before timing out.',
     {'timeout_unknown'}, None),
    ("ai2cm/ace#348",
     '2024-05-07 15:51:09,140 - root - INFO - Starting training step on epoch 3\n'
     '[E ProcessGroupNCCL.cpp:457] [Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum='
     '1132079, OpType=ALLREDUCE, NumelIn=304640, NumelOut=304640, Timeout(ms)=1800000) ran for 1800035 mil'
     'liseconds before timing out.\n'
     '[E ProcessGroupNCCL.cpp:457] [Rank 2] Watchdog caught collective operation timeout: WorkNCCL(SeqNum='
     '1132079, OpType=ALLREDUCE, NumelIn=304640, NumelOut=304640, Timeout(ms)=1800000) ran for 1800558 mil'
     'liseconds before timing out.\n'
     '[E ProcessGroupNCCL.cpp:457] [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum='
     '1132079, OpType=ALLREDUCE, NumelIn=304640, NumelOut=304640, Timeout(ms)=1800000) ran for 1800946 mil'
     'liseconds before timing out.\n'
     '[E ProcessGroupNCCL.cpp:471] Some NCCL operations have failed or timed out. Due to the asynchronous '
     'nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.',
     {'stuck_rank', 'timeout_unknown'}, None),
    ("deepspeedai/DeepSpeed#4488",
     'The argument `trust_remote_code` is to be used with Auto classes. It has no effect here and is ignor'
     'ed.\n'
     'Loading checkpoint shards: 100%|██████████| 2/2 [00:27<00:00, 13.69s/it]\n'
     'Using pad_token, but it is not set yet.\n'
     'Loading checkpoint shards: 100%|██████████| 2/2 [00:28<00:00, 14.35s/it]\n'
     'Using pad_token, but it is not set yet.\n'
     'Loading checkpoint shards: 100%|██████████| 2/2 [00:30<00:00, 15.12s/it]\n'
     'Using pad_token, but it is not set yet.\n'
     'Loading checkpoint shards: 100%|██████████| 2/2 [00:30<00:00, 15.45s/it]\n'
     'Using pad_token, but it is not set yet.\n'
     'Map (num_proc=14):  70%|██████▌   | 652383/930514 [6:39:53<4:31:33, 17.07 examples/s][E ProcessGroup'
     'Gloo.cpp:138] Rank 3 successfully reached monitoredBarrier, but received errors while waiting for se'
     'nd/recv from rank 0. Please check rank 0 logs for faulty rank.',
     {'straggler', 'stuck_rank', 'timeout_unknown'}, None),
    ("deepspeedai/DeepSpeed#4890",
     '[ERROR] [launch.py:321:sigkill_handler [xxx] exits with return code = -9\n'
     '[I ProcessGroupWrapper.cpp:562] [Rank 0] Running collective: CollectiveFingerPrint(SequenceNumber=12'
     '77, OpType=ALLREDUCE, TensorShape=[], TensorDtypes=Float, TensorDeviceTypes=TensorOptions(dtype=floa'
     't (default), device=cuda, layout=Strided (default), requires_grad=false (default), pinned_memory=fal'
     'se (default), memory_format=(nullopt)))\n'
     '[I ProcessGroupWrapper.cpp:562] [Rank 1] Running collective: CollectiveFingerPrint(SequenceNumber=12'
     '75, OpType=ALLREDUCE, TensorShape=[], TensorDtypes=Float, TensorDeviceTypes=TensorOptions(dtype=floa'
     't (default), device=cuda, layout=Strided (default), requires_grad=false (default), pinned_memory=fal'
     'se (default), memory_format=(nullopt)))',
     {'oom', 'dropped_rank'}, None),
    ("huggingface/accelerate#2174",
     '[E ProcessGroupNCCL.cpp:495] To avoid data inconsistency, we are taking the entire process down.\n'
     '[E ProcessGroupNCCL.cpp:489] Some NCCL operations have failed or timed out. Due to the asynchronous '
     'nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.\n'
     '[E ProcessGroupNCCL.cpp:495] To avoid data inconsistency, we are taking the entire process down.\n'
     '[E ProcessGroupNCCL.cpp:916] [Rank 2] NCCL watchdog thread terminated with exception: [Rank 2] Watch'
     'dog caught collective operation timeout: WorkNCCL(SeqNum=48490, OpType=ALLREDUCE, NumelIn=1, NumelOu'
     't=1, Timeout(ms)=1800000) ran for 1800781 milliseconds before timing out.\n'
     "terminate called after throwing an instance of 'std::runtime_error'\n"
     '  what():  [Rank 2] NCCL watchdog thread terminated with exception: [Rank 2] Watchdog caught collect'
     'ive operation timeout: WorkNCCL(SeqNum=48490, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=1'
     '800000) ran for 1800781 milliseconds before timing out.\n'
     '[E ProcessGroupNCCL.cpp:916] [Rank 7] NCCL watchdog thread terminated with exception: [Rank 7] Watch'
     'dog caught collective operation timeout: WorkNCCL(SeqNum=48490, OpType=ALLREDUCE, NumelIn=1, NumelOu'
     't=1, Timeout(ms)=1800000) ran for 1800368 milliseconds before timing out.\n'
     "terminate called after throwing an instance of 'std::runtime_error'",
     {'stuck_rank', 'timeout_unknown'}, None),
    ("instructlab/instructlab#3323",
     '2025-04-30T02:29:49.7808085Z [rank3]:[I430 02:29:49.037676094 ProcessGroupWrapper.cpp:586] [Rank 3] '
     'Running collective: CollectiveFingerPrint(SequenceNumber=5502, OpType=_ALLGATHER_BASE, TensorShape=['
     '65553408], TensorDtypes=BFloat16, TensorDeviceTypes=TensorOptions(dtype=float (default), device=cuda'
     ', layout=Strided (default), requires_grad=false (default), pinned_memory=false (default), memory_for'
     'mat=(nullopt)))\n'
     '2025-04-30T02:29:49.7818825Z  total length: 7255 num samples 6 - rank: 2 num_loss_counted_tokens: 53'
     '8\n'
     '2025-04-30T02:29:49.7828881Z  total length: 7267 num samples 16 - rank: 3 num_loss_counted_tokens: 6'
     '227\n'
     '2025-04-30T02:29:49.7840076Z  total length: 7078 num samples 5 - rank: 2 num_loss_counted_tokens: 18'
     '9\n'
     '2025-04-30T02:29:49.7843290Z  total length: 7263 num samples 6 - rank: 2 num_loss_counted_tokens: 77'
     '4',
     {'inconclusive'}, None),
    ("instructlab/training#520",
     "terminate called after throwing an instance of 'c10::DistBackendError'\n"
     '  what():  [PG ID 0 PG GUID 0(default_pg) Rank 3] Process group watchdog thread terminated with exce'
     'ption: [Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE, N'
     'umelIn=1, NumelOut=1, Timeout(ms)=1) ran for 90 milliseconds before timing out.\n'
     'Exception raised from checkTimeout at /pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:632 '
     '(most recent call first):\n'
     'frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x96 (0x7f83f296c1b6 in /actions-run'
     'ner/_work/training/training/instructlab/venv/lib64/python3.11/site-packages/torch/lib/libc10.so)\n'
     'frame #1: c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long, s'
     'td::ratio<1l, 1000l> > >) + 0x2b4 (0x7f83a09fec74 in /actions-runner/_work/training/training/instruc'
     'tlab/venv/lib64/python3.11/site-packages/torch/lib/libtorch_cuda.so)\n'
     'frame #2: c10d::ProcessGroupNCCL::watchdogHandler() + 0x890 (0x7f83a0a007d0 in /actions-runner/_work'
     '/training/training/instructlab/venv/lib64/python3.11/site-packages/torch/lib/libtorch_cuda.so)',
     {'timeout_unknown'}, None),
    ("modelscope/ms-swift#3830",
     '[rank7]: RuntimeError: Detected mismatch between collectives on ranks. Rank 7 is running collective:'
     ' CollectiveFingerPrint(SequenceNumber=5, OpType=_ALLGATHER_BASE, TensorShape=[1], TensorDtypes=BFloa'
     't16, TensorDeviceTypes=TensorOptions(dtype=float (default), device=cuda, layout=Strided (default), r'
     'equires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt))), but Rank 4 i'
     's running collective: CollectiveFingerPrint(SequenceNumber=5, OpType=_ALLGATHER_BASE, TensorShape=[1'
     '], TensorDtypes=Float, TensorDeviceTypes=TensorOptions(dtype=float (default), device=cuda, layout=St'
     'rided (default), requires_grad=false (default), pinned_memory=false (default), memory_format=(nullop'
     't))).Collectives differ in the fol',
     {'dtype_mismatch'}, None),
    ("opendatalab/DocLayout-YOLO#22",
     '[E ProcessGroupNCCL.cpp:488] Some NCCL operations have failed or timed out. Due to the asynchronous '
     'nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.\n'
     '[E ProcessGroupNCCL.cpp:494] To avoid data inconsistency, we are taking the entire process down.\n'
     '[E ProcessGroupNCCL.cpp:488] Some NCCL operations have failed or timed out. Due to the asynchronous '
     'nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.',
     {'unclassified_failure', 'timeout_unknown'}, None),
    ("pytorch/pytorch#148976",
     '============================================================\n'
     'bug.py FAILED\n'
     '------------------------------------------------------------\n'
     'Failures:\n'
     '[1]:\n'
     '  time      : 2025-03-11_18:33:20\n'
     '  host      : lenovo\n'
     '  rank      : 1 (local_rank: 1)\n'
     '  exitcode  : 1 (pid: 340055)\n'
     '  error_file: /tmp/torchelastic_ih8xk_wi/5240416c-e326-45c8-a708-c3ec0cc3d51b_sfj1zute/attempt_0/1/e'
     'rror.json\n'
     '  traceback : Traceback (most recent call last):\n'
     '    File "/home/lisergey/.local/lib/python3.12/site-packages/torch/distributed/elastic/multiprocessi'
     'ng/errors/__init__.py", line 355, in wrapper\n'
     '      return f(*args, **kwargs)\n'
     '             ^^^^^^^^^^^^^^^^^^\n'
     '    File "/home/lisergey/deepseek/bug.py", line 16, in main\n'
     '      dist.barrier()\n'
     '    File "/home/lisergey/.local/lib/python3.12/site-packages/torch/distributed/c10d_logger.py", line'
     ' 81, in wrapper\n'
     '      return func(*args, **kwargs)\n'
     '             ^^^^^^^^^^^^^^^^^^^^^\n'
     '    File "/home/lisergey/.local/lib/python3.12/site-packages/torch/distributed/distributed_c10d.py",'
     ' line 4551, in barrier\n'
     '      work = group.barrier(opts=opts)\n'
     '             ^^^^^^^^^^^^^^^^^^^^^^^^\n'
     '  RuntimeError: Detected mismatch between collectives on ranks. Rank 1 is running collective: Collec'
     'tiveFingerPrint(SequenceNumber=1OpType=BARRIER), but Rank 2 is running collective: CollectiveFingerP'
     'rint(SequenceNumber=0OpType=BARRIER).',
     {'collective_skipped'}, None),
    ("pytorch/pytorch#152623",
     '[rank0]:[E515 18:36:47.341808597 ProcessGroupNCCL.cpp:632] [Rank 0] Watchdog caught collective opera'
     'tion timeout: WorkNCCL(SeqNum=241, OpType=ALLREDUCE, NumelIn=6, NumelOut=6, Timeout(ms)=600000) ran '
     'for 600086 milliseconds before timing out.\n'
     '[rank0]:[E515 18:36:47.343377708 ProcessGroupNCCL.cpp:1937] Rank 0\n'
     '         - [0] Timeout at collective: ALLREDUCE, #315\n'
     '         - To our best knowledge, the lagging/dead/mismatched ranks that caused the desync are:\n'
     "             [7] finished collective #182, but didn't join collective #183 (count from 1)\n"
     "         - Snapshot of ranks' latest states:\n"
     '           #182 finished ranks:\n'
     '             [7] finished ALLREDUCE\n'
     '           #315 started ranks:\n'
     '             [0, 1, 2] started ALLREDUCE\n'
     '           #317 started ranks:\n'
     '             [3, 4, 5, 6] started _ALLGATHER_BASE\n'
     '[rank0]:[E515 18:36:47.343391940 ProcessGroupNCCL.cpp:2268] [PG ID 0 PG GUID 0(default_pg) Rank 0]  '
     'failure detected by watchdog at work sequence id: 241 PG status: last enqueued work: 315, last compl'
     'eted work: 183',
     {'collective_skipped', 'stuck_rank'}, [7]),
    ("sgl-project/sglang#3368",
     'Loading safetensors checkpoint shards:  99% Completed | 162/163 [01:15<00:00,  2.62it/s]\n'
     'Loading safetensors checkpoint shards: 100% Completed | 163/163 [01:15<00:00,  2.44it/s]\n'
     'Loading safetensors checkpoint shards: 100% Completed | 163/163 [01:15<00:00,  2.15it/s]\n'
     '\n'
     '[2025-02-07 01:19:40 TP0] Load weight end. type=DeepseekV3ForCausalLM, dtype=torch.bfloat16, avail m'
     'em=38.13 GB\n'
     '[2025-02-07 01:19:42 TP3] Load weight end. type=DeepseekV3ForCausalLM, dtype=torch.bfloat16, avail m'
     'em=38.11 GB\n'
     '[2025-02-07 01:19:47 TP7] Load weight end. type=DeepseekV3ForCausalLM, dtype=torch.bfloat16, avail m'
     'em=38.13 GB\n'
     '[2025-02-07 01:19:47 TP5] Load weight end. type=DeepseekV3ForCausalLM, dtype=torch.bfloat16, avail m'
     'em=38.11 GB\n'
     '[2025-02-07 01:19:47 TP1] Load weight end. type=DeepseekV3ForCausalLM, dtype=torch.bfloat16, avail m'
     'em=38.11 GB\n'
     '\n'
     '\n'
     '[rank6]:[E207 01:29:36.730311765 ProcessGroupNCCL.cpp:616] [Rank 6] Watchdog caught collective opera'
     'tion timeout: WorkNCCL(SeqNum=2, OpType=ALLREDUCE, NumelIn=1, Nume\n'
     'lOut=1, Timeout(ms)=600000) ran for 600050 milliseconds before timing out.',
     {'stuck_rank', 'timeout_unknown'}, None),
    ("snap-research/discoscene#5",
     "terminate called after throwing an instance of 'std::runtime_error'\n"
     '  what():  [Rank 7] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=806, OpType=BROADC'
     'AST, Timeout(ms)=1800000) ran for 1801027 milliseconds before timing out.\n'
     'WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 561635 closing signal SIGTERM\n'
     'WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 561636 closing signal SIGTERM\n'
     'WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 561637 closing signal SIGTERM\n'
     'WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 561638 closing signal SIGTERM\n'
     'WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 561639 closing signal SIGTERM\n'
     'WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 561640 closing signal SIGTERM\n'
     'WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 561641 closing signal SIGTERM\n'
     'ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -6) local_rank: 7 (pid: 561642'
     ') of binary: ',
     {'stuck_rank', 'timeout_unknown'}, None),
    ("unslothai/unsloth#1959",
     'Processed prompts: 100%|████████████████████████████████████████████████████| 1/1 [00:00<00:00,  5.9'
     '1it/s, est. speed input: 218.76 toks/s, output: 88.68 toks/s]\n'
     'Processed prompts: 100%|████████████████████████████████████████████████████| 1/1 [00:00<00:00,  1.0'
     '2it/s, est. speed input: 44.02 toks/s, output: 119.76 toks/s]\n'
     '[rank0]:[W310 01:07:17.234745149 ProcessGroupNCCL.cpp:1250] Warning: WARNING: process group has NOT '
     'been destroyed before we destruct ProcessGroupNCCL. On normal program exit, the application should c'
     'all destroy_process_group to ensure that any pending NCCL operations have finished in this process. '
     'In rare cases this process can exit before this point and block the progress of another member of th'
     'e process group. This constraint has always been present,  but this warning has only been added sinc'
     'e PyTorch 2.4 (function operator())',
     {'none', 'inconclusive'}, None),
    ("warpem/miss-alignment#105",
     '[rank1]:[E513 12:38:14.493976596 ProcessGroupNCCL.cpp:1870] [PG ID 0 PG GUID 0(default_pg) Rank 1] P'
     "rocessGroupNCCL's watchdog got stuck for 480 seconds without making progress in monitoring enqueued "
     'collectives. This typically indicates a NCCL/CUDA API (e.g., CudaEventDestroy) hang blocking the wat'
     'chdog, and could be triggered by another thread holding the GIL inside a CUDA api (for example, Cuda'
     'EventDestroy), or other deadlock-prone behaviors.If you suspect the watchdog is not actually stuck a'
     'nd a longer timeout would help, you can either increase the timeout (TORCH_NCCL_HEARTBEAT_TIMEOUT_SE'
     'C) to a larger value or disable the heartbeat monitor (TORCH_NCCL_ENABLE_MONITORING=0).If either of '
     'aforementioned helps, feel free to file an issue to PyTorch about the short timeout or false positiv'
     'e abort; otherwise, please attempt to debug the hang.\n'
     '[rank1]:[E513 12:38:14.494343247 ProcessGroupNCCL.cpp:1589] [PG ID 0 PG GUID 0(default_pg) Rank 1] P'
     'rocessGroupNCCL preparing to dump debug info. Include stack trace: 1\n'
     '[rank1]:[F513 12:46:14.495035780 ProcessGroupNCCL.cpp:1614] [PG ID 0 PG GUID 0(default_pg) Rank 1] ['
     'PG ID 0 PG GUID 0(default_pg) Rank 1] Terminating th',
     {'unclassified_failure', 'stuck_rank', 'timeout_unknown'}, None),
    ("xljh0520/JOTR#4",
     'RuntimeError: Detected mismatch between collectives on ranks. Rank 0 is running inconsistent collect'
     'ive: CollectiveFingerPrint(OpType=ALLGATHER, TensorShape\n'
     '=[41, 256, 8, 8, 8], TensorDtypes=Float, TensorDeviceTypes=TensorOptions(dtype=float (default), devi'
     'ce=cuda, layout=Strided (default), requires_grad=false (\n'
     'default), pinned_memory=false (default), memory_format=(nullopt))\n'
     'RuntimeError: Detected mismatch between collectives on ranks. Rank 1 is running inconsistent collect'
     'ive: CollectiveFingerPrint(OpType=ALLGATHER, TensorShape\n'
     '=[40, 256, 8, 8, 8], TensorDtypes=Float, TensorDeviceTypes=TensorOptions(dtype=float (default), devi'
     'ce=cuda, layout=Strided (default), requires_grad=false (\n'
     'default), pinned_memory=false (default), memory_format=(nullopt))',
     {'shape_mismatch'}, None),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_heldout33_case(tmp_path, case):
    check_case(tmp_path, case[1:])


def test_a_cut_diff_still_compares_both_fingerprints(tmp_path):
    opts = "TensorDeviceTypes=TensorOptions(dtype=float (default), device=cuda))"
    text = ("RuntimeError: Detected mismatch between collectives on ranks. Rank 1 is running collective: "
            f"CollectiveFingerPrint(SequenceNumber=9, OpType=ALLREDUCE, TensorShape=[4], TensorDtypes=Half, {opts}, "
            f"but Rank 0 is running collective: CollectiveFingerPrint(SequenceNumber=9, OpType=ALLREDUCE, "
            f"TensorShape=[4], TensorDtypes=Float, {opts}.Collectives di")
    assert console_verdict(tmp_path, text).cls == "dtype_mismatch"


def test_fingerprints_equal_but_for_the_sequence_number_are_a_skip(tmp_path):
    text = ("RuntimeError: Detected mismatch between collectives on ranks. Rank 0 is running collective: "
            "CollectiveFingerPrint(SequenceNumber=1649OpType=BARRIER), but Rank 1 is running collective: "
            "CollectiveFingerPrint(SequenceNumber=1648OpType=BARRIER).")
    assert console_verdict(tmp_path, text).cls == "collective_skipped"


def test_a_desync_report_under_its_head_line_names_the_lagging_rank(tmp_path):
    text = ("[rank0]:[E515 18:36:47.343377708 ProcessGroupNCCL.cpp:1937] Rank 0\n"
            "         - [0] Timeout at collective: ALLREDUCE, #315\n"
            "         - To our best knowledge, the lagging/dead/mismatched ranks that caused the desync are:\n"
            "             [2] finished collective #40, but didn't join collective #41 (count from 1)\n"
            "         - Snapshot of ranks' latest states:\n"
            "           #40 finished ranks:\n"
            "             [2] finished ALLREDUCE")
    verdict = console_verdict(tmp_path, text)
    assert verdict.cls == "stuck_rank" and verdict.culprit_ranks == [2]


def test_counts_print_as_integers_and_a_check_without_a_sequence_number_says_so(tmp_path):
    """A count column with missing values is a float column: the verdict and the rank table print 5373952, not
    5373952.0; a torch 1.10 fingerprint has no sequence number, shown as `(no seq)`, not the -1 that stands for it."""
    path = tmp_path / "console.log"
    path.write_text(dict((c[0], c[1]) for c in CASES)["xljh0520/JOTR#4"] + "\n")
    d = diagnose([str(path)], jobs=1)
    assert "5373952 " in d.verdict.summary and ".0" not in d.verdict.summary
    assert seq_text(-1) == "(no seq)" and seq_text(7) == "seq 7"
    console = Console(record=True, width=200)
    render(d, console=console)
    text = console.export_text()
    assert "(no seq)" in text and "seq -1" not in text and "5373952.0" not in text
