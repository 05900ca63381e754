"""Held-out set 57: pastes of launcher-level failures: torchrun's c10d rendezvous and agent store timeouts on two
nodes, DeepSpeed's launch.py teardown (one of 16 pdsh-prefixed nodes, and a lone `exits with return code = 1`), torch
elastic failure tables with nothing but an exit code, accelerate in a container (SIGBUS), an agent stopped by a
signal from outside, mpirun nccl-tests out of GPU memory in alltoall, rccl-tests on two MI50s, an uncorrectable ECC
error under a multi-node `[default0]:[rank12]:` wrapper. One verdict test per case, then what the set showed:

- pdsh, DeepSpeed's default multi-node runner, reports a node whose remote command ended non-zero as
  `pdsh@<local>: <node>: ssh exited with exit code N` (chaos/pdsh src/common/pipecmd.c pipecmd_wait 2.15+, the ssh
  module 2.5 - 2.14; `killed by signal N` 2.34+; dsh.c `process on host <node> killed by signal N` 2.0+). The line
  was no message at all, so a console holding only it read inconclusive: catalogue pdsh.remote_exit.
- An exit a launcher reports after its own line named a cause (ssh could not connect, so pdsh's code is ssh's 255)
  is that cause's consequence, no process's failure of its own: dropped_rank's lone-exit rule leaves it to the
  cause's class (detectors/dropped_rank.py _launcher_named_a_cause).
- A node whose workers succeeded and whose agent then timed out at torch elastic's exit barrier (another node failed,
  or finished later) read inconclusive where each traceback line carries the logger's prefix (torch 2.4+), but
  stuck_rank or unclassified_failure under the plain traceback log.exception prints (`ERROR:torch.distributed.elastic.
  agent.server.api:Error waiting on exit barrier`, then `Traceback ...` and `RuntimeError: Socket Timeout` or
  `DistStoreError: ...`): the store error's event was held while the traceback parser read the lines, out of the
  message parser's reach (sources/messages.py `_read_exit_barrier` now reads the held ones too), and the traceback
  was a failure of its own (sources/traceback.py reads a traceback through `_exit_barrier` as that barrier's wait).
"""
from __future__ import annotations

import pytest

from nccl_forensics.sources.catalogue import match

from .consoles import PROGRESS, check_case, console_verdict

_DS_KILL = "192.169.83.120: [2023-10-13 11:3{m}:{s},593] [INFO] [launch.py:315:sigkill_handler] Killing subprocess {p}\n"
_FAILED_TABLE = ("torch.distributed.elastic.multiprocessing.errors.ChildFailedError:\n"
                 "============================================================\n"
                 "{script} FAILED\n"
                 "------------------------------------------------------------\n"
                 "Failures:\n{others}"
                 "------------------------------------------------------------\n"
                 "Root Cause (first observed failure):\n"
                 "[0]:\n"
                 "  time      : {time}\n"
                 "  host      : {host}\n"
                 "  rank      : {rank} (local_rank: {rank})\n"
                 "  exitcode  : {code} (pid: {pid})\n"
                 "  error_file: <N/A>\n"
                 "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html\n")
_RDZV_CONFIG = ("  min_nodes        : 2\n  max_nodes        : 2\n  rdzv_backend     : c10d\n"
                "  rdzv_configs     : {'timeout': 900}\n")

CASES = [
    ("aws/aws-k8s-tester#690", ("oom",), None,
     "        [1,6]<stdout>:multi-node-alltoall-perf-worker-0: Test NCCL failure alltoall.cu:62 'unhandled cuda error "
     "(run with NCCL_DEBUG=INFO for details) / '\n"
     "        [1,6]<stdout>: .. multi-node-alltoall-perf-worker-0 pid 411: Test failure common.cu:381\n"
     "        [1,0]<stdout>:multi-node-alltoall-perf-worker-0:402:458 [0] NCCL INFO [Service thread] Connection closed "
     "by localRank 6\n"
     "        [1,0]<stdout>:multi-node-alltoall-perf-worker-0:402:402 [0] enqueue.cc:1451 NCCL WARN Cuda failure 2 "
     "'out of memory'\n"),
    ("pytorch/pytorch#113128", ("dropped_rank", "unclassified_failure"), [12],
     "[default0]:[rank12]:[E817 17:40:34.227531918 ProcessGroupNCCL.cpp:1515] [PG 0 (default_pg) Rank 12] Process "
     "group watchdog thread terminated with exception: CUDA error: uncorrectable ECC error encountered\n"
     "[default0]:Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\n"),
    ("PrimeIntellect-ai/prime-rl#1360", ("unclassified_failure", "inconclusive"), None,
     "[default0]:12:13:46    INFO Waiting for training batch to arrive\n"
     "W1130 12:13:49.388000 124326 torch/distributed/elastic/agent/server/api.py:723] Received 15 death signal, "
     "shutting down workers\n"
     "W1130 12:13:49.389000 124326 torch/distributed/elastic/multiprocessing/api.py:900] Sending process 124533 "
     "closing signal SIGTERM\n"),
    ("NVIDIA-NeMo/Speech#14399", ("stuck_rank", "timeout_unknown", "network_error"), None,
     "B-nemo-ft3/0 [default1]:[rank1]: torch.distributed.DistBackendError: [1] is setting up NCCL communicator and "
     "retrieving ncclUniqueId from [0] via c10d key-value store by key '0', but store->get('0') got error: wait "
     "timeout after 600000ms, keys: /default_pg/0//cuda//0\n"),
    ("deepspeedai/DeepSpeed#4510", ("dropped_rank", "unclassified_failure", "timeout_unknown"), None,
     "".join(_DS_KILL.format(m=m, s=s, p=p) for m, s, p in ((1, 28, 249), (1, 58, 250), (2, 28, 252), (3, 58, 256)))),
    ("deepspeedai/DeepSpeed#5302", ("unclassified_failure", "dropped_rank"), None,
     "[2024-03-20 20:31:29,210] [INFO] [launch.py:315:sigkill_handler] Killing subprocess 3353707\n"
     "[2024-03-20 20:31:29,269] [ERROR] [launch.py:321:sigkill_handler] ['/data/anaconda3/envs/llama/bin/python', "
     "'-u', 'src/train_bash.py', '--local_rank=4', '--stage', 'sft', '--flash_attn'] exits with return code = 1\n"),
    ("pytorch/examples#1279", ("unclassified_failure", "dropped_rank"), None,
     _FAILED_TABLE.format(script="/home/gridsan/rmehta/potential_function/multi_tutorial.py",
                          others="  <NO_OTHER_FAILURES>\n", time="2024-07-24_11:39:43",
                          host="d-9-11-1.supercloud.mit.edu", rank=0, code=1, pid=2870757)),
    ("zai-org/GLM-130B#100", ("unclassified_failure", "dropped_rank"), None,
     _FAILED_TABLE.format(script="/home/edcuser/models/glm/GLM-130B-main/generate.py",
                          others="[1]:\n  time      : 2023-03-14_11:22:52\n  host      : localhost.localdomain\n"
                                 "  rank      : 7 (local_rank: 7)\n  exitcode  : 1 (pid: 160925)\n",
                          time="2023-03-14_11:22:52", host="localhost.localdomain", rank=6, code=1, pid=160924)),
    ("mxxm-t/mx-llama.cpp#7", ("unclassified_failure", "dropped_rank"), None,
     "#  Rank  0 Group  0 Pid      1 on e20a3f6a8c03 device  0 [0000:03:00] AMD Radeon Graphics\n"
     "#  Rank  1 Group  0 Pid      1 on e20a3f6a8c03 device  1 [0000:09:00] AMD Radeon Graphics\n"
     "NCCL INFO ncclCommInitRankConfig_impl comm 0x5a3ea68dbe40 rank 0 nranks 2 cudaDev 0 busId 3000 - Init COMPLETE\n"
     "e20a3f6a8c03: Test NCCL failure .../rccl-tests/build/src/hipify/common.cu.cpp:775 'unhandled cuda error (run "
     "with NCCL_\n"),
    ("MCG-NJU/RTD-Action#31", ("stuck_rank", "timeout_unknown", "inconclusive", "unclassified_failure"), None,
     "[2024-02-22 19:20:22,163][torch.nn.parallel.distributed][INFO] - Reducer buckets have been rebuilt in this "
     "iteration.\n\n"
     "WARNING:torch.distributed.elastic.agent.server.api:Received 2 death signal, shutting down workers\n"
     "WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 4797 closing signal SIGINT\n"
     "Traceback (most recent call last):\n  File \"main.py\", line 84, in <module>\n    main()\n"),
    ("modelscope/ms-swift#4924", ("network_error", "timeout_unknown", "stuck_rank", "dropped_rank"), None,
     "torch.distributed.DistStoreError: wait timeout after 900000ms, keys: /none/torchelastic/role_info/0, "
     "/none/torchelastic/role_info/1\n"),
    ("modelscope/ms-swift#3343", ("network_error", "timeout_unknown", "stuck_rank"), None,
     "[W228 18:45:15.738941174 socket.cpp:462] [c10d] waitForInput: poll for socket SocketImpl(fd=11, "
     "addr=[xxxxx.com]:38674, remote=[::ffff:33.148.62.162]:23456) returned 0, likely a timeout\n"
     "[W228 18:45:15.741177013 socket.cpp:487] [c10d] waitForInput: socket SocketImpl(fd=11, addr=[xxxxxx.com]:38674, "
     "remote=[::ffff:33.148.62.162]:23456) timed out after 900000ms\n"
     "Traceback (most recent call last):\n"
     "File \"/opt/conda/lib/python3.10/site-packages/torch/distributed/run.py\", line 910, in run\n"
     "elastic_lau\n"),
    ("pytorch/pytorch#79388", ("network_error",), None,
     _RDZV_CONFIG + "\n[E socket.cpp:793] [c10d] The client socket has timed out after 60s while trying to connect to "
     "(IP1, 2222).\n"
     "ERROR:torch.distributed.elastic.multiprocessing.errors.error_handler:{\n  \"message\": {\n"
     "    \"message\": \"RendezvousConnectionError: The connection to the C10d store has failed. See inner exception "
     "for details.\",\n"),
    ("pytorch/pytorch#64926", ("network_error", "nic_misselection"), None,
     _RDZV_CONFIG + "\n[ERROR] 2021-09-13 22:18:26,678 error_handler: {\n  \"message\": {\n"
     "    \"message\": \"RendezvousConnectionError: The connection to the C10d store has failed. See inner exception "
     "for details.\",\n    \"extraIn\n"),
    ("huggingface/accelerate#1254", ("dropped_rank", "oom"), [1],
     "stderr: torch.distributed.elastic.multiprocessing.errors.ChildFailedError:\n"
     "stderr: ============================================================\n"
     "stderr: /env/lib/python3.8/site-packages/accelerate/test_utils/scripts/test_script.py FAILED\n"
     "stderr: ------------------------------------------------------------\n"
     "stderr: Failures:\n"
     "stderr: [1]:\n"
     "stderr:   time      : 2023-03-27_01:52:20\n"
     "stderr:   host      : cnsz22plaoy9\n"
     "stderr:   rank      : 1 (local_rank: 1)\n"
     "stderr:   exitcode  : -7 (pid: 211)\n"),
]


@pytest.mark.parametrize("issue,want,culprits,text", CASES, ids=[case[0] for case in CASES])
def test_each_case_of_the_set(issue, want, culprits, text, tmp_path):
    check_case(tmp_path, (text, want, culprits), progress="")


@pytest.mark.parametrize("line,fields", [
    # pipecmd_wait (2.15+) and the ssh module before it (2.5 - 2.14): the remote command's own exit code
    ("pdsh@gpu-01: gpu-02: ssh exited with exit code 1", {"host": "gpu-02", "rcmd": "ssh", "exitcode": 1}),
    ("pdsh@10.0.0.1: 10.0.0.2: ssh exited with exit code 255", {"host": "10.0.0.2", "exitcode": 255}),
    # 2.34+: a signal no longer reads as `exit code 0`
    ("pdsh@gpu-01: gpu-02: ssh killed by signal 9", {"host": "gpu-02", "signal": "SIGKILL"}),
    # dsh.c _die_if_signalled (2.0+)
    ("pdsh@gpu-01: process on host gpu-02 killed by signal 11", {"host": "gpu-02", "signal": "SIGSEGV"}),
])
def test_pdsh_reports_each_node_whose_command_failed(line, fields):
    (hit,) = [h for h in match(line) if h.message.id == "pdsh.remote_exit"]
    assert fields.items() <= hit.fields.items()


@pytest.mark.parametrize("line", [
    "pdsh@gpu-01: gpu-02: connect: Connection refused",      # pdsh's own connect error (no command ran)
    "pdsh@gpu-01: interrupt (one more within 1 sec to abort)",
    "gpu-02: [INFO] [launch.py:351:main] Process 4242 exits successfully.",
])
def test_other_pdsh_lines_are_no_node_exit(line):
    assert not [h for h in match(line) if h.message.id == "pdsh.remote_exit"]


def test_a_lone_pdsh_exit_is_a_failure_not_an_inconclusive_end(tmp_path):
    verdict = console_verdict(tmp_path, "pdsh@gpu-01: gpu-02: ssh exited with exit code 1")
    assert verdict.cls == "dropped_rank", verdict.summary


def test_a_pdsh_exit_after_ssh_could_not_connect_is_the_network(tmp_path):
    text = ("gpu-02: ssh: connect to host gpu-02 port 22: No route to host\n"
            "pdsh@gpu-01: gpu-02: ssh exited with exit code 255")
    verdict = console_verdict(tmp_path, text)
    assert verdict.cls == "network_error", verdict.summary


def test_a_pdsh_exit_after_the_nodes_own_error_is_that_error(tmp_path):
    text = ("gpu-02: torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 3 has a total "
            "capacity of 79.15 GiB of which 1.06 GiB is free.\n"
            "gpu-02: [2024-05-01 10:05:00,100] [ERROR] [launch.py:321:sigkill_handler] ['/usr/bin/python', '-u', "
            "'train.py', '--local_rank=7'] exits with return code = 1\n"
            "pdsh@gpu-01: gpu-02: ssh exited with exit code 1")
    verdict = console_verdict(tmp_path, text)
    assert verdict.cls == "oom", verdict.summary


def test_a_progressing_job_then_a_pdsh_exit_is_no_all_clear(tmp_path):
    verdict = console_verdict(tmp_path, "gpu-02: step 200/1000 loss 0.38\npdsh@gpu-01: gpu-02: ssh killed by signal 9",
                              progress=PROGRESS)
    assert verdict.cls not in ("none", "inconclusive"), verdict.summary


_AGENT_API = "/opt/conda/lib/python3.10/site-packages/torch/distributed/elastic/"
_EXIT_BARRIER_PLAIN = (
    "INFO:torch.distributed.elastic.agent.server.api:[default] worker group successfully finished. Waiting 300 seconds "
    "for other agents to finish.\n"
    "ERROR:torch.distributed.elastic.agent.server.api:Error waiting on exit barrier. Elapsed: 300.0863606929779 seconds\n"
    "Traceback (most recent call last):\n"
    f'  File "{_AGENT_API}agent/server/api.py", line 920, in _exit_barrier\n'
    "    store_util.barrier(\n"
    f'  File "{_AGENT_API}utils/store.py", line 78, in barrier\n'
    "    synchronize(store, data, rank, world_size, key_prefix, barrier_timeout)\n"
    f'  File "{_AGENT_API}utils/store.py", line 34, in get_all\n'
    '    data = store.get(f"{{prefix}}{{idx}}")\n'
    "{error}\n")


@pytest.mark.parametrize("error", ["RuntimeError: Socket Timeout",                      # 1.9 - 1.13
                                   "torch.distributed.DistStoreError: Socket Timeout"])  # 2.0+
def test_the_exit_barriers_plain_traceback_is_no_failure_of_this_node(error, tmp_path):
    verdict = console_verdict(tmp_path, _EXIT_BARRIER_PLAIN.format(error=error), progress="")
    assert verdict.cls == "inconclusive", verdict.summary


def test_the_same_store_timeout_outside_the_exit_barrier_stays_a_missing_rank(tmp_path):
    text = _EXIT_BARRIER_PLAIN.format(error="RuntimeError: Socket Timeout").replace(
        "in _exit_barrier", "in _rendezvous").replace("Error waiting on exit barrier.", "Rendezvous failed.")
    verdict = console_verdict(tmp_path, text, progress="")
    assert verdict.cls not in ("none", "inconclusive"), verdict.summary
