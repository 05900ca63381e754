"""Verdicts on consoles written around messages read in the sources (catalogue round srcmined22): NCCL 2.14+
init.cc's `ncclConfig_t argument not initialized via NCCL_CONFIG_INITIALIZER` and 2.29+ ncclCommGrow's argument
checks (usage errors that name no rank), openxla/xla rendezvous.cc's stuck warnings and their `Thread is unstuck`
/ `This thread is unstuck waiting for` (the warning was a false positive: no failure) against a termination timeout,
torch ProcessGroupGloo.cpp's `Cannot use ReduceOp.AVG with Gloo`, `does not support reduce_scatter`, `Gloo
connectFullMesh failed` after the loopback fallback (2.5+ prefix) and monitoredBarrier's `timed out ... Successfully
processed ranks`, a libtorch_cuda `undefined symbol: ncclCommShrink` at import, and DeepSpeed launch.py's
`process P spawned with command` placing a pid the kernel's OOM killer names.
"""
from __future__ import annotations

import pytest

from .consoles import PROGRESS, check_case, console_verdict

CASES = {
    'nccl_config_not_via_initializer_every_rank': (
        'node-a:7100:7100 [0] NCCL INFO NCCL version 2.27.5+cuda12.9\n'
        'node-a:7100:7100 [0] init.cc:1921 NCCL WARN ncclConfig_t argument not initialized via NCCL_CONFIG_INITIALIZER\n'
        'node-a:7100:7100 [0] NCCL INFO init.cc:2467 -> 4\n'
        'node-a:7101:7101 [1] init.cc:1921 NCCL WARN ncclConfig_t argument not initialized via NCCL_CONFIG_INITIALIZER\n'
        'node-a:7101:7101 [1] NCCL INFO init.cc:2467 -> 4\n'
        'node-a:7102:7102 [2] init.cc:1921 NCCL WARN ncclConfig_t argument not initialized via NCCL_CONFIG_INITIALIZER\n'
        'node-a:7102:7102 [2] NCCL INFO init.cc:2467 -> 4\n'
        'node-a:7103:7103 [3] init.cc:1921 NCCL WARN ncclConfig_t argument not initialized via NCCL_CONFIG_INITIALIZER\n'
        'node-a:7103:7103 [3] NCCL INFO init.cc:2467 -> 4\n'
        '[rank0]: Traceback (most recent call last):\n'
        '[rank0]:   File "/workspace/ext/comm.py", line 41, in make_comm\n'
        '[rank0]:     comm = _C.init_comm_with_config(uid, world, rank, cfg)\n'
        '[rank0]: RuntimeError: ncclCommInitRankConfig failed: invalid argument (run with NCCL_DEBUG=WARN for details)\n'
        '[rank1]: Traceback (most recent call last):\n'
        '[rank1]:   File "/workspace/ext/comm.py", line 41, in make_comm\n'
        '[rank1]:     comm = _C.init_comm_with_config(uid, world, rank, cfg)\n'
        '[rank1]: RuntimeError: ncclCommInitRankConfig failed: invalid argument (run with NCCL_DEBUG=WARN for details)\n'
        '[rank2]: Traceback (most recent call last):\n'
        '[rank2]:   File "/workspace/ext/comm.py", line 41, in make_comm\n'
        '[rank2]:     comm = _C.init_comm_with_config(uid, world, rank, cfg)\n'
        '[rank2]: RuntimeError: ncclCommInitRankConfig failed: invalid argument (run with NCCL_DEBUG=WARN for details)\n'
        '[rank3]: Traceback (most recent call last):\n'
        '[rank3]:   File "/workspace/ext/comm.py", line 41, in make_comm\n'
        '[rank3]:     comm = _C.init_comm_with_config(uid, world, rank, cfg)\n'
        '[rank3]: RuntimeError: ncclCommInitRankConfig failed: invalid argument (run with NCCL_DEBUG=WARN for details)\n'
        'W1127 07:15:40.552000 900 torch/distributed/elastic/multiprocessing/api.py:897] Sending process 7101 closing signal SIGTERM\n'
        'W1127 07:15:40.552000 900 torch/distributed/elastic/multiprocessing/api.py:897] Sending process 7102 closing signal SIGTERM\n'
        'W1127 07:15:40.552000 900 torch/distributed/elastic/multiprocessing/api.py:897] Sending process 7103 closing signal SIGTERM\n'
        'E1127 07:15:40.911000 900 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) local_rank: 0 (pid: 7100) of binary: /usr/bin/python3\n'
        'Traceback (most recent call last):\n'
        '  File "/usr/local/bin/torchrun", line 8, in <module>\n'
        '    sys.exit(main())\n'
        '  File "/usr/local/lib/python3.10/dist-packages/torch/distributed/launcher/api.py", line 263, in launch_agent\n'
        '    raise ChildFailedError(\n'
        'torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n'
        '============================================================\n'
        'train.py FAILED\n'
        '------------------------------------------------------------\n'
        'Failures:\n'
        '  <NO_OTHER_FAILURES>\n'
        '------------------------------------------------------------\n'
        'Root Cause (first observed failure):\n'
        '[0]:\n'
        '  time      : 2026-11-27_07:15:40\n'
        '  host      : node-a\n'
        '  rank      : 0 (local_rank: 0)\n'
        '  exitcode  : 1 (pid: 7100)\n'
        '  error_file: <N/A>\n'
        '  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html\n'
        '============================================================\n',
        ['unclassified_failure'], None),
    'nccl226_config_not_via_initializer_one_rank': (
        'gpu-c-07:33200:33200 [0] NCCL INFO NCCL version 2.26.2+cuda12.8\n'
        'gpu-c-07:33202:33202 [2] init.cc:1904 NCCL WARN ncclConfig_t argument not initialized via NCCL_CONFIG_INITIALIZER\n'
        'gpu-c-07:33202:33202 [2] NCCL INFO init.cc:2430 -> 4\n'
        '[rank2]: Traceback (most recent call last):\n'
        '[rank2]:   File "/workspace/train.py", line 77, in <module>\n'
        '[rank2]:     dist.barrier()\n'
        '[rank2]: torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/NCCLUtils.cpp:77, invalid argument (run with NCCL_DEBUG=WARN for details), NCCL version 2.26.2\n'
        '[rank2]: ncclInvalidArgument: Invalid value for an argument.\n'
        '[rank2]: Last error:\n'
        '[rank2]: ncclConfig_t argument not initialized via NCCL_CONFIG_INITIALIZER\n'
        'W1127 07:15:40.552000 900 torch/distributed/elastic/multiprocessing/api.py:897] Sending process 33200 closing signal SIGTERM\n'
        'W1127 07:15:40.552000 900 torch/distributed/elastic/multiprocessing/api.py:897] Sending process 33201 closing signal SIGTERM\n'
        'W1127 07:15:40.552000 900 torch/distributed/elastic/multiprocessing/api.py:897] Sending process 33203 closing signal SIGTERM\n'
        'E1127 07:15:40.911000 900 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) local_rank: 2 (pid: 33202) of binary: /usr/bin/python3\n'
        'Traceback (most recent call last):\n'
        '  File "/usr/local/bin/torchrun", line 8, in <module>\n'
        '    sys.exit(main())\n'
        '  File "/usr/local/lib/python3.10/dist-packages/torch/distributed/launcher/api.py", line 263, in launch_agent\n'
        '    raise ChildFailedError(\n'
        'torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n'
        '============================================================\n'
        'train.py FAILED\n'
        '------------------------------------------------------------\n'
        'Failures:\n'
        '  <NO_OTHER_FAILURES>\n'
        '------------------------------------------------------------\n'
        'Root Cause (first observed failure):\n'
        '[0]:\n'
        '  time      : 2026-11-27_07:15:40\n'
        '  host      : gpu-c-07\n'
        '  rank      : 2 (local_rank: 2)\n'
        '  exitcode  : 1 (pid: 33202)\n'
        '  error_file: <N/A>\n'
        '  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html\n'
        '============================================================\n',
        ['unclassified_failure'], None),
    'nccl229_commgrow_total_not_above_current': (
        'srv-1:9100:9100 [0] NCCL INFO NCCL version 2.29.3+cuda13.0\n'
        'srv-1:9100:9100 [0] init.cc:3234 NCCL WARN ncclCommGrow: total ranks 4 is less than current ranks 4\n'
        'srv-1:9101:9101 [1] init.cc:3234 NCCL WARN ncclCommGrow: total ranks 4 is less than current ranks 4\n'
        'srv-1:9102:9102 [2] init.cc:3234 NCCL WARN ncclCommGrow: total ranks 4 is less than current ranks 4\n'
        'srv-1:9103:9103 [3] init.cc:3234 NCCL WARN ncclCommGrow: total ranks 4 is less than current ranks 4\n'
        "[worker 0] Failed, NCCL error /src/serving/elastic_comm.cc:212 'invalid argument'\n"
        "[worker 1] Failed, NCCL error /src/serving/elastic_comm.cc:212 'invalid argument'\n"
        "[worker 2] Failed, NCCL error /src/serving/elastic_comm.cc:212 'invalid argument'\n"
        "[worker 3] Failed, NCCL error /src/serving/elastic_comm.cc:212 'invalid argument'\n"
        "terminate called after throwing an instance of 'std::runtime_error'\n"
        '  what():  NCCL grow failed\n',
        ['unclassified_failure'], None),
    'nccl230_commgrow_magic_mismatch': (
        'srv-1:9100:9100 [0] NCCL INFO NCCL version 2.30.3+cuda13.0\n'
        'srv-1:9100:9100 [0] init.cc:3234 NCCL WARN ncclCommGrow: magic mismatch computed by the root, got 8e1d2c0a77b3f411 expected 51c0ffee0d3a9b27\n'
        'srv-1:9103:9103 [3] init.cc:3234 NCCL WARN ncclCommGrow: magic mismatch computed by the root, got 8e1d2c0a77b3f411 expected 51c0ffee0d3a9b27\n'
        "[worker 0] Failed, NCCL error /src/serving/elastic_comm.cc:212 'invalid argument'\n"
        "[worker 3] Failed, NCCL error /src/serving/elastic_comm.cc:212 'invalid argument'\n"
        "terminate called after throwing an instance of 'std::runtime_error'\n"
        '  what():  NCCL grow failed\n',
        ['unclassified_failure'], None),
    'nccl229_commgrow_new_rank_exceeds_total': (
        'srv-2:9300:9300 [0] NCCL INFO NCCL version 2.29.7+cuda13.0\n'
        'srv-2:9304:9304 [4] init.cc:3286 NCCL WARN ncclCommGrow: new rank 4 exceeds total ranks 4\n'
        "[joiner 4] Failed, NCCL error /src/serving/elastic_comm.cc:240 'invalid argument'\n"
        "terminate called after throwing an instance of 'std::runtime_error'\n"
        '  what():  NCCL grow failed\n',
        ['unclassified_failure'], None),
    'xla_rendezvous_unstuck_after_warning_2024': (
        "I1127 10:01:02.118211 140221 xla_bridge.py:889] Unable to initialize backend 'rocm'\n"
        'step 100 loss 3.2174\n'
        'E1127 10:01:22.440193  140377 rendezvous.cc:38] This thread has been waiting for `initialize clique for rank 2; clique=devices=[0,1,2,3]; stream=0; run_id=1188` for 10 seconds and may be stuck. Expected 4 threads to join the rendezvous, but not all of them arrived on time.\n'
        'E1127 10:01:24.905512  140377 rendezvous.cc:43] Thread is unstuck! Warning above was a false-positive. Perhaps the timeout is too short.\n'
        'step 200 loss 3.0000\n'
        'step 300 loss 2.9000\n'
        'step 400 loss 2.8000\n'
        'step 500 loss 2.7000\n'
        'step 600 loss 2.6000\n'
        'step 700 loss 2.5000\n'
        'step 800 loss 2.4000\n'
        'step 900 loss 2.3000\n'
        'step 1000 loss 2.2000\n'
        'Training finished: 1000 steps, checkpoint saved to /ckpt/step_1000\n',
        ['inconclusive', 'none'], None),
    'xla_rendezvous_leader_unstuck_2025': (
        'I1127 11:20:01.000000 8812 main.py:144] compiling train_step\n'
        'E1127 11:20:21.100201  8820 rendezvous.cc:108] [id=0] This thread has been waiting for `[1] [rank=1] [run_id=1944] Initialize clique: devices=8:[0,1,2,3,4,5,6,7]; local_participants=8; communication_id=0; incarnations=[]` for 10 seconds and may be stuck. All 8 threads joined the rendezvous, however the leader has not marked the rendezvous as completed. Leader can be deadlocked inside the rendezvous callback.\n'
        'E1127 11:20:21.101201  8821 rendezvous.cc:108] [id=1] This thread has been waiting for `[1] [rank=1] [run_id=1944] Initialize clique: devices=8:[0,1,2,3,4,5,6,7]; local_participants=8; communication_id=0; incarnations=[]` for 10 seconds and may be stuck. All 8 threads joined the rendezvous, however the leader has not marked the rendezvous as completed. Leader can be deadlocked inside the rendezvous callback.\n'
        'E1127 11:20:21.102201  8822 rendezvous.cc:108] [id=2] This thread has been waiting for `[1] [rank=1] [run_id=1944] Initialize clique: devices=8:[0,1,2,3,4,5,6,7]; local_participants=8; communication_id=0; incarnations=[]` for 10 seconds and may be stuck. All 8 threads joined the rendezvous, however the leader has not marked the rendezvous as completed. Leader can be deadlocked inside the rendezvous callback.\n'
        'E1127 11:20:43.220311  8820 rendezvous.cc:130] [id=0] This thread is unstuck waiting for `[1] [rank=1] [run_id=1944] Initialize clique: devices=8:[0,1,2,3,4,5,6,7]; local_participants=8; communication_id=0; incarnations=[]` after 32.94s. All threads joined the rendezvous on time however the leader took long time to complete it. Warning above was a false-positive. Perhaps the timeout is too short.\n'
        'E1127 11:20:43.221311  8821 rendezvous.cc:130] [id=1] This thread is unstuck waiting for `[1] [rank=1] [run_id=1944] Initialize clique: devices=8:[0,1,2,3,4,5,6,7]; local_participants=8; communication_id=0; incarnations=[]` after 32.94s. All threads joined the rendezvous on time however the leader took long time to complete it. Warning above was a false-positive. Perhaps the timeout is too short.\n'
        'E1127 11:20:43.222311  8822 rendezvous.cc:130] [id=2] This thread is unstuck waiting for `[1] [rank=1] [run_id=1944] Initialize clique: devices=8:[0,1,2,3,4,5,6,7]; local_participants=8; communication_id=0; incarnations=[]` after 32.94s. All threads joined the rendezvous on time however the leader took long time to complete it. Warning above was a false-positive. Perhaps the timeout is too short.\n'
        'I1127 11:21:00.000000 8812 main.py:201] step 0: loss=2.9000\n'
        'I1127 11:21:00.000000 8812 main.py:201] step 200: loss=2.8000\n'
        'I1127 11:22:00.000000 8812 main.py:201] step 400: loss=2.7000\n'
        'I1127 11:22:00.000000 8812 main.py:201] step 600: loss=2.6000\n'
        'I1127 11:23:00.000000 8812 main.py:201] step 800: loss=2.5000\n'
        'I1127 11:23:00.000000 8812 main.py:201] step 1000: loss=2.4000\n'
        'I1127 11:24:00.000000 8812 main.py:230] Done. Final eval loss 2.41\n',
        ['inconclusive', 'none'], None),
    'xla_rendezvous_termination_timeout_no_unstuck': (
        'step 300 loss 2.90\n'
        'E1127 12:00:10.000100  5512 rendezvous.cc:38] This thread has been waiting for `collective permute; run_id=7` for 10 seconds and may be stuck. Expected 8 threads to join the rendezvous, but not all of them arrived on time.\n'
        'E1127 12:00:40.000200  5512 rendezvous.cc:53] Termination timeout for `collective permute; run_id=7` of 40 seconds exceeded. Exiting to ensure a consistent program state. Expected 8 threads to join the rendezvous, but not all of them arrived on time.\n',
        ['stuck_rank', 'timeout_unknown'], None),
    'torch_gloo_reduceop_avg_unsupported': (
        '[rank0]: Traceback (most recent call last):\n'
        '[rank0]:   File "/app/eval.py", line 52, in <module>\n'
        '[rank0]:     dist.all_reduce(metric, op=dist.ReduceOp.AVG)\n'
        '[rank0]:   File "/usr/local/lib/python3.10/dist-packages/torch/distributed/c10d_logger.py", line 81, in wrapper\n'
        '[rank0]:     return func(*args, **kwargs)\n'
        '[rank0]:   File "/usr/local/lib/python3.10/dist-packages/torch/distributed/distributed_c10d.py", line 2810, in all_reduce\n'
        '[rank0]:     work.wait()\n'
        '[rank0]: RuntimeError: Cannot use ReduceOp.AVG with Gloo\n'
        '[rank1]: Traceback (most recent call last):\n'
        '[rank1]:   File "/app/eval.py", line 52, in <module>\n'
        '[rank1]:     dist.all_reduce(metric, op=dist.ReduceOp.AVG)\n'
        '[rank1]:   File "/usr/local/lib/python3.10/dist-packages/torch/distributed/c10d_logger.py", line 81, in wrapper\n'
        '[rank1]:     return func(*args, **kwargs)\n'
        '[rank1]:   File "/usr/local/lib/python3.10/dist-packages/torch/distributed/distributed_c10d.py", line 2810, in all_reduce\n'
        '[rank1]:     work.wait()\n'
        '[rank1]: RuntimeError: Cannot use ReduceOp.AVG with Gloo\n'
        'W1127 07:15:40.552000 900 torch/distributed/elastic/multiprocessing/api.py:897] Sending process 4411 closing signal SIGTERM\n'
        'E1127 07:15:40.911000 900 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) local_rank: 0 (pid: 4410) of binary: /usr/bin/python3\n'
        'Traceback (most recent call last):\n'
        '  File "/usr/local/bin/torchrun", line 8, in <module>\n'
        '    sys.exit(main())\n'
        '  File "/usr/local/lib/python3.10/dist-packages/torch/distributed/launcher/api.py", line 263, in launch_agent\n'
        '    raise ChildFailedError(\n'
        'torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n'
        '============================================================\n'
        'train.py FAILED\n'
        '------------------------------------------------------------\n'
        'Failures:\n'
        '  <NO_OTHER_FAILURES>\n'
        '------------------------------------------------------------\n'
        'Root Cause (first observed failure):\n'
        '[0]:\n'
        '  time      : 2026-11-27_07:15:40\n'
        '  host      : cpu-node-3\n'
        '  rank      : 0 (local_rank: 0)\n'
        '  exitcode  : 1 (pid: 4410)\n'
        '  error_file: <N/A>\n'
        '  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html\n'
        '============================================================\n',
        ['unclassified_failure'], None),
    'torch_gloo_monitored_barrier_rank0_out_of_time': (
        '[rank0]:[E1127 09:30:01.442000 7001 ProcessGroupGloo.cpp:154] Rank 0 timed out in monitoredBarrier after 30000 ms.\n'
        '[rank0]:Successfully processed ranks: 1, 2\n'
        '[rank0]: Traceback (most recent call last):\n'
        '[rank0]:   File "/app/train.py", line 130, in <module>\n'
        '[rank0]:     dist.monitored_barrier(group=gloo_pg, timeout=timedelta(seconds=30))\n'
        '[rank0]: RuntimeError: Rank 0 timed out in monitoredBarrier after 30000 ms.\n'
        '[rank0]: Successfully processed ranks: 1, 2\n'
        'W1127 07:15:40.552000 900 torch/distributed/elastic/multiprocessing/api.py:897] Sending process 7002 closing signal SIGTERM\n'
        'W1127 07:15:40.552000 900 torch/distributed/elastic/multiprocessing/api.py:897] Sending process 7003 closing signal SIGTERM\n'
        'W1127 07:15:40.552000 900 torch/distributed/elastic/multiprocessing/api.py:897] Sending process 7004 closing signal SIGTERM\n'
        'E1127 07:15:40.911000 900 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) local_rank: 0 (pid: 7001) of binary: /usr/bin/python3\n'
        'Traceback (most recent call last):\n'
        '  File "/usr/local/bin/torchrun", line 8, in <module>\n'
        '    sys.exit(main())\n'
        '  File "/usr/local/lib/python3.10/dist-packages/torch/distributed/launcher/api.py", line 263, in launch_agent\n'
        '    raise ChildFailedError(\n'
        'torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n'
        '============================================================\n'
        'train.py FAILED\n'
        '------------------------------------------------------------\n'
        'Failures:\n'
        '  <NO_OTHER_FAILURES>\n'
        '------------------------------------------------------------\n'
        'Root Cause (first observed failure):\n'
        '[0]:\n'
        '  time      : 2026-11-27_07:15:40\n'
        '  host      : node-b\n'
        '  rank      : 0 (local_rank: 0)\n'
        '  exitcode  : 1 (pid: 7001)\n'
        '  error_file: <N/A>\n'
        '  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html\n'
        '============================================================\n',
        ['stuck_rank', 'timeout_unknown'], None),
    'torch_import_undefined_symbol_ncclcommshrink': (
        'Traceback (most recent call last):\n'
        '  File "/workspace/train.py", line 3, in <module>\n'
        '    import torch\n'
        '  File "/usr/local/lib/python3.10/dist-packages/torch/__init__.py", line 409, in <module>\n'
        '    from torch._C import *  # noqa: F403\n'
        'ImportError: /usr/local/lib/python3.10/dist-packages/torch/lib/libtorch_cuda.so: undefined symbol: ncclCommShrink\n',
        ['unclassified_failure', 'version_mismatch'], None),
    'deepspeed_spawned_pid_oom_killed': (
        "[2026-11-27 08:00:01,100] [INFO] [launch.py:256:main] process 5120 spawned with command: ['/usr/bin/python3', '-u', 'train.py', '--local_rank=0', '--deepspeed']\n"
        "[2026-11-27 08:00:01,101] [INFO] [launch.py:256:main] process 5121 spawned with command: ['/usr/bin/python3', '-u', 'train.py', '--local_rank=1', '--deepspeed']\n"
        "[2026-11-27 08:00:01,102] [INFO] [launch.py:256:main] process 5122 spawned with command: ['/usr/bin/python3', '-u', 'train.py', '--local_rank=2', '--deepspeed']\n"
        "[2026-11-27 08:00:01,103] [INFO] [launch.py:256:main] process 5123 spawned with command: ['/usr/bin/python3', '-u', 'train.py', '--local_rank=3', '--deepspeed']\n"
        '[2026-11-27 08:00:02,000] [INFO] [launch.py:163:main] dist_world_size=4\n'
        '[ 9921.114502] Out of memory: Killed process 5122 (python3) total-vm:182204412kB, anon-rss:118204416kB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:240112kB oom_score_adj:0\n'
        '[2026-11-27 08:41:10,220] [INFO] [launch.py:335:sigkill_handler] Killing subprocess 5120\n'
        '[2026-11-27 08:41:10,221] [INFO] [launch.py:335:sigkill_handler] Killing subprocess 5121\n'
        '[2026-11-27 08:41:10,222] [INFO] [launch.py:335:sigkill_handler] Killing subprocess 5122\n'
        '[2026-11-27 08:41:10,223] [INFO] [launch.py:335:sigkill_handler] Killing subprocess 5123\n'
        "[2026-11-27 08:41:10,300] [ERROR] [launch.py:341:sigkill_handler] ['/usr/bin/python3', '-u', 'train.py', '--local_rank=3', '--deepspeed'] exits with return code = -9\n",
        ['dropped_rank', 'oom'], [2]),
    'torch_gloo_reduce_scatter_unsupported': (
        '[rank0]: Traceback (most recent call last):\n'
        '[rank0]:   File "/app/zero_cpu.py", line 88, in step\n'
        '[rank0]:     dist.reduce_scatter(shard, list(grad.chunk(world)), op=dist.ReduceOp.SUM)\n'
        '[rank0]:   File "/usr/local/lib/python3.10/dist-packages/torch/distributed/c10d_logger.py", line 81, in wrapper\n'
        '[rank0]:     return func(*args, **kwargs)\n'
        '[rank0]:   File "/usr/local/lib/python3.10/dist-packages/torch/distributed/distributed_c10d.py", line 4211, in reduce_scatter\n'
        '[rank0]:     work = group.reduce_scatter([output], [input_list], opts)\n'
        '[rank0]: RuntimeError: ProcessGroupGloo does not support reduce_scatter\n'
        '[rank1]: Traceback (most recent call last):\n'
        '[rank1]:   File "/app/zero_cpu.py", line 88, in step\n'
        '[rank1]:     dist.reduce_scatter(shard, list(grad.chunk(world)), op=dist.ReduceOp.SUM)\n'
        '[rank1]:   File "/usr/local/lib/python3.10/dist-packages/torch/distributed/c10d_logger.py", line 81, in wrapper\n'
        '[rank1]:     return func(*args, **kwargs)\n'
        '[rank1]:   File "/usr/local/lib/python3.10/dist-packages/torch/distributed/distributed_c10d.py", line 4211, in reduce_scatter\n'
        '[rank1]:     work = group.reduce_scatter([output], [input_list], opts)\n'
        '[rank1]: RuntimeError: ProcessGroupGloo does not support reduce_scatter\n'
        'W1127 07:15:40.552000 900 torch/distributed/elastic/multiprocessing/api.py:897] Sending process 6611 closing signal SIGTERM\n'
        'E1127 07:15:40.911000 900 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) local_rank: 0 (pid: 6610) of binary: /usr/bin/python3\n'
        'Traceback (most recent call last):\n'
        '  File "/usr/local/bin/torchrun", line 8, in <module>\n'
        '    sys.exit(main())\n'
        '  File "/usr/local/lib/python3.10/dist-packages/torch/distributed/launcher/api.py", line 263, in launch_agent\n'
        '    raise ChildFailedError(\n'
        'torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n'
        '============================================================\n'
        'train.py FAILED\n'
        '------------------------------------------------------------\n'
        'Failures:\n'
        '  <NO_OTHER_FAILURES>\n'
        '------------------------------------------------------------\n'
        'Root Cause (first observed failure):\n'
        '[0]:\n'
        '  time      : 2026-11-27_07:15:40\n'
        '  host      : cpu-node-1\n'
        '  rank      : 0 (local_rank: 0)\n'
        '  exitcode  : 1 (pid: 6610)\n'
        '  error_file: <N/A>\n'
        '  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html\n'
        '============================================================\n',
        ['unclassified_failure'], None),
    'torch25_gloo_connect_full_mesh_loopback': (
        '[rank8]:[W1127 08:49:01.118123456 ProcessGroupGloo.cpp:721] Warning: Unable to resolve hostname to a (local) address. Using the loopback address as fallback. Manually set the network interface to bind to with GLOO_SOCKET_IFNAME. (function operator())\n'
        '[rank8]:[E1127 08:50:03.441210377 ProcessGroupGloo.cpp:144] Gloo connectFullMesh failed with [../third_party/gloo/gloo/transport/tcp/pair.cc:144] no error\n'
        '[rank8]: Traceback (most recent call last):\n'
        '[rank8]:   File "/app/worker.py", line 31, in init_device\n'
        '[rank8]:     dist.init_process_group(backend="gloo", rank=8, world_size=16)\n'
        '[rank8]: RuntimeError: Gloo connectFullMesh failed with [../third_party/gloo/gloo/transport/tcp/pair.cc:144] no error\n',
        ['network_error', 'nic_misselection'], None),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_verdict(name, tmp_path):
    check_case(tmp_path, CASES[name])


def test_unstuck_thread_clears_only_its_own_warning(tmp_path):
    # thread 0 got unstuck, thread 1 never did and the process hit the termination timeout: still a hang
    wait = ("E1127 11:20:21.10{i}201  {tid} rendezvous.cc:108] [id={i}] This thread has been waiting for `clique` for 10 "
            "seconds and may be stuck. Expected 8 threads to join the rendezvous, but not all of them arrived on time.\n")
    text = wait.format(i=0, tid=8820) + wait.format(i=1, tid=8821) + (
        "E1127 11:20:43.220311  8820 rendezvous.cc:130] [id=0] This thread is unstuck waiting for `clique` after 3s. "
        "Warning above was a false-positive. Perhaps the timeout is too short.\n")
    verdict = console_verdict(tmp_path, text)
    assert verdict.cls in ("stuck_rank", "timeout_unknown"), verdict.summary


def test_unstuck_warnings_then_steps_are_no_failure(tmp_path):
    text = CASES["xla_rendezvous_unstuck_after_warning_2024"][0] + PROGRESS
    verdict = console_verdict(tmp_path, text)
    assert verdict.cls in ("none", "inconclusive"), verdict.summary
