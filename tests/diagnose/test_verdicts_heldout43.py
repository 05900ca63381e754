"""Held-out set 43: ROCm jobs and rccl-tests, accelerate and DeepSpeed launcher exits, torchelastic rendezvous failures
(k8s etcd, c10d), and completed nccl-tests/rccl-tests runs that must read `none`. One verdict test per case, then what
the set showed:

- nccl-tests' footer (`# Out of bounds values : 0 OK`, `# Avg bus bandwidth : B`) covers the whole run: rank 0 prints
  it after every thread joined and, built with MPI, after an MPI_Allreduce of the error count over MPI_COMM_WORLD
  (src/common.cu since 2017; rccl-tests the same). A paste that starts mid-table, without the `# nThread` and
  `#  Rank` header, was inconclusive (no world stated); the footer is now read alone and says the whole job
  succeeded. `Avg bus bandwidth : B FAILED` (below NCCL_TESTS_MIN_BW) is no all-clear.
- rccl-tests' HIPCHECK (`Test HIP failure common.cu:N '<hip error>'`, 2019 - March 2024) was not read, and the HIP
  of those years printed the error's name (`hipErrorInvalidDevice`), not its text: a name now classifies as the CUDA
  runtime's text hipify maps it to (no usable GPU, no code for the GPU, ...).
- Lightning's line before each process's init_process_group (`initializing ddp: GLOBAL_RANK: R, MEMBER: R+1/W`,
  0.7 - 1.4; `Initializing distributed: ...` 1.5+ and Lightning 2.x) was not read: it now states the world and the
  rank that printed it, so a 2-node init hang whose nodes both took ranks 0-3 names ranks 4-7 as never seen.
- clr's `Cannot retrieve Static function, error: 218` (hip_platform.cpp, with HIP_ENABLE_DEFERRED_LOADING=0) is a
  binary without code for this GPU, then abort.
"""
from __future__ import annotations

import pytest

from nccl_forensics.sources.catalogue.cuda import reason_class

from .consoles import check_case, console_verdict

_LAUNCH_AGENT = ('  File "/usr/local/lib/python3.12/dist-packages/torch/distributed/launcher/api.py", line 269, '
                 "in launch_agent\n    raise ChildFailedError(\n"
                 "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:\n")
_FOOTER = "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : {bw}\n#\n"
_ROCM_ROWS = ("  4294967296    1073741824     float     sum      -1    22410  191.65  359.35      0    22414  191.62  "
              "359.28      0\n 17179869184    4294967296     float     sum      -1    89235  192.52  360.98      0    "
              "89189  192.62  361.17      0\n# Errors with asterisks indicate errors that have exceeded the maximum "
              "threshold.\n")
_DS_CMD = "['/opt/conda/envs/ftchat/bin/python3.9', '-u', 'main.py', '--local_rank=1', '--zero_stage', '0', '--deepspeed']"

CASES = [
    ("huggingface/accelerate#3206", ("unclassified_failure", "dropped_rank"), None,
     _LAUNCH_AGENT + "============================================================\ncomplete_nlp_example.py FAILED\n"
     "------------------------------------------------------------\nFailures:\n  <NO_OTHER_FAILURES>\n"
     "------------------------------------------------------------\nRoot Cause (first observed failure):\n[0]:\n"
     "  time      : 2024-11-02_21:03:02\n  host      : as01r1b03.bsc.mn\n  rank      : 0 (local_rank: 0)\n"
     "  exitcode  : 1 (pid: 2414397)\n  error_file: <N/A>\n"
     "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html\n"),
    ("xiuqhou/Salience-DETR#4", ("unclassified_failure", "dropped_rank"), None,
     "[2024-05-08 08:47:31,261] torch.distributed.elastic.multiprocessing.api: [WARNING] Sending process 5938 closing "
     "signal SIGTERM\n[2024-05-08 08:47:31,877] torch.distributed.elastic.multiprocessing.api: [ERROR] failed "
     "(exitcode: 1) local_rank: 2 (pid: 5939) of binary: /home/ubuntu/anaconda3/envs/salience_detr/bin/python\n"),
    ("tianweiy/DMD2#18", ("dropped_rank", "oom"), None,
     "WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 26827 closing signal SIGTERM\n"
     "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -9) local_rank: 2 (pid: 26829) of "
     "binary: /home/work/miniconda3/envs/dmd2/bin/python\n"),
    ("Lightning-AI/pytorch-lightning#3029", ("unclassified_failure",), None,
     "    dist._broadcast_coalesced(self.process_group, tensors, buffer_size)\nRuntimeError: NCCL error in: "
     "/opt/conda/conda-bld/pytorch_1595629403081/work/torch/lib/c10d/../c10d/NCCLUtils.hpp:82, invalid argument, "
     "NCCL version 2.4.8\n[default] Worker group failed\n"),
    ("kubeflow/trainer#1638", ("dropped_rank", "unclassified_failure"), None,
     "INFO:torch.distributed.elastic.agent.server.api:[default] Rendezvous'ing worker group\n"
     "ERROR:torch.distributed.elastic.multiprocessing.errors.error_handler:{\n  \"message\": {\n"
     "    \"message\": \"RendezvousClosedError: \",\n"),
    ("pytorch/pytorch#76367", ("network_error",), None,
     "[E socket.cpp:793] [c10d] The client socket has timed out after 60s while trying to connect to (IP1, 2222).\n"
     "ERROR:torch.distributed.elastic.multiprocessing.errors.error_handler:{\n  \"message\": {\n    \"message\": "
     "\"RendezvousConnectionError: The connection to the C10d store has failed. See inner exception for details.\",\n"),
    ("ROCm/rccl-tests#16", ("unclassified_failure",), None,
     "Test HIP failure common.cu:1129 'hipErrorInvalidDevice'\n"),
    ("vllm-project/vllm#17170", ("unclassified_failure", "version_mismatch"), None,
     "(VllmWorkerProcess pid=204) ERROR 04-25 10:25:35 [multiproc_worker_utils.py:238] RuntimeError: NCCL error: "
     "unhandled cuda error (run with NCCL_DEBUG=INFO for details)\n"),
    ("ROCm/rocm-systems#2805", ("version_mismatch", "unclassified_failure"), None,
     ":0:/longer_pathname.../hipamd/src/hip_platform.cpp:110 : 3010170007 us:\n"
     "Cannot retrieve Static function, error: 218\nAborted (core dumped)\n"),
    ("modelscope/ms-swift#3934", ("inconclusive", "timeout_unknown"), None,
     "g183:161264:161695 [7] NCCL INFO Channel 07/0 : 7[7] -> 15[7] [send] via NET/IB/8/GDRDMA\n"
     "g183:161258:161696 [1] NCCL INFO Connected all rings\n"
     "g183:161258:161696 [1] NCCL INFO Channel 00/0 : 1[1] -> 0[0] via P2P/CUMEM\n"),
    ("NVIDIA/nccl#644", ("none",), None,
     "   536870912      16777216     float    87797    6.11    5.35  0e+00    88758    6.05    5.29  0e+00\n"
     "  1073741824      33554432     float   172290    6.23    5.45  0e+00   177817    6.04    5.28  0e+00\n"
     + _FOOTER.format(bw="2.34598")),
    ("NVIDIA/nccl-tests#182", ("none",), None,
     "   268435456      67108864     float     sum      -1    55270    4.86    4.86      0    55213    4.86    4.86  "
     "    0\ntestgpu1:2832:2832 [1] NCCL INFO comm 0x55c6f1c65b50 rank 0 nranks 2 cudaDev 0 busId 3000 - Destroy "
     "COMPLETE\ntestgpu1:2832:2832 [1] NCCL INFO comm 0x55c6f1c6a6c0 rank 1 nranks 2 cudaDev 1 busId 3020 - Destroy "
     "COMPLETE\n" + _FOOTER.format(bw="1.7535")),
    ("ROCm/rccl#2078", ("none",), None,
     _ROCM_ROWS + _FOOTER.format(bw="142.652 ") + "# Collective test concluded: all_reduce_perf\n"),
    ("ROCm/rccl#2075", ("none",), None,
     "   134217728      33554432     float    none       0    18781    7.15    7.15      0    18756    7.16    7.16  "
     "    0\n" + _FOOTER.format(bw="3.41227") + "# Collective test concluded: broadcast_perf\n"),
    ("hiyouga/LlamaFactory#2061", ("dropped_rank", "unclassified_failure"), None,
     "  0%|          | 0/17165 [00:00<?, ?it/s][2024-01-03 14:05:36,090] [INFO] [launch.py:315:sigkill_handler] "
     "Killing subprocess 2726715\n[2024-01-03 14:05:36,090] [INFO] [launch.py:315:sigkill_handler] Killing subprocess "
     "2726716\n[2024-01-03 14:05:36,716] [ERROR] [launch.py:321:sigkill_handler] ['/home/u/.conda/envs/myLLM/bin/"
     "python', '-u', 'src/train_bash.py', '--local_rank=3', '--deepspeed', 'ds_config.json', '--gradient_check\n"),
    ("deepspeedai/DeepSpeedExamples#380", ("unclassified_failure", "dropped_rank"), None,
     "[2023-04-21 03:07:23,960] [INFO] [launch.py:428:sigkill_handler] Killing subprocess 22610\n"
     f"[2023-04-21 03:07:25,713] [ERROR] [launch.py:434:sigkill_handler] {_DS_CMD} exits with return code = 1\n"),
    ("ByteDance-Seed/VeOmni#131", ("network_error",), None,
     "[rank9]: torch.distributed.DistBackendError: NCCL error in /root/source/pytorch/torch/csrc/distributed/c10d/"
     "NCCLUtils.cpp:77, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.26.6\n"
     "[rank9]: ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error.\n"
     "[rank9]: Last error:\n[rank9]: socketPollConnect poll() returned 1, no POLLOUT events\n"),
    ("pytorch/examples#1257", ("unclassified_failure",), None,
     "as07r1b31:3011779:3012101 [0] init.cc:871 NCCL WARN Duplicate GPU detected : rank 0 and rank 1 both on CUDA "
     "device 1b000\nas07r1b31:3011783:3012102 [0] init.cc:871 NCCL WARN Duplicate GPU detected : rank 1 and rank 0 "
     "both on CUDA device 1b000\n"),
    ("Lightning-AI/pytorch-lightning#4389", ("stuck_rank", "inconclusive"), None,
     "".join(f"LOCAL_RANK: {r} - CUDA_VISIBLE_DEVICES: [0,1,2,3]\ninitializing ddp: GLOBAL_RANK: {r}, MEMBER: {r + 1}/8\n"
             for r in (1, 1, 2, 2, 3, 3, 0, 0))),
    ("deepspeedai/DeepSpeed#4907", ("unclassified_failure", "network_error"), None,
     '  File "/root/anaconda3/envs/DS/lib/python3.9/subprocess.py", line 373, in check_call\n'
     "    raise CalledProcessError(retcode, cmd)\nsubprocess.CalledProcessError: Command 'ssh -o "
     "PasswordAuthentication=no 192.168.3.100 hostname' returned non-zero exit status 255.\n"),
]


@pytest.mark.parametrize("issue,want,culprits,text", CASES, ids=[case[0] for case in CASES])
def test_each_case_of_the_set(issue, want, culprits, text, tmp_path):
    check_case(tmp_path, (text, want, culprits), progress="")


# ---- nccl-tests' footer covers the whole run, header or not
def test_a_footer_without_header_says_the_whole_run_succeeded(tmp_path):
    verdict = console_verdict(tmp_path, _ROCM_ROWS + _FOOTER.format(bw="142.652"), progress="")
    assert verdict.cls == "none", verdict.summary
    assert "whole job succeeded" in verdict.summary


@pytest.mark.parametrize("footer", [
    "# Out of bounds values : 3 FAILED\n# Avg bus bandwidth    : 142.652 \n",   # wrong values on some rank
    "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 1.75 FAILED\n",    # below NCCL_TESTS_MIN_BW
])
def test_a_failed_footer_is_no_all_clear(footer, tmp_path):
    verdict = console_verdict(tmp_path, _ROCM_ROWS + footer, progress="")
    assert verdict.cls != "none", verdict.summary


def test_a_footer_beside_a_failure_is_no_all_clear(tmp_path):
    text = "gpu5: Test NCCL failure common.cu:343 'unhandled cuda error'\n" + _FOOTER.format(bw="1.0")
    assert console_verdict(tmp_path, text, progress="").cls != "none"


# ---- HIP's error names classify as the CUDA texts hipify maps them to
@pytest.mark.parametrize("name,implies", [
    ("hipErrorInvalidDevice", "unclassified_failure"),           # no usable GPU (a container without /dev/kfd)
    ("hipErrorNoDevice", "unclassified_failure"),
    ("hipErrorInvalidDeviceFunction", "version_mismatch"),       # no code for this GPU
    ("hipErrorNoBinaryForGpu", "version_mismatch"),
])
def test_a_hip_error_name_classifies_as_its_text(name, implies):
    assert reason_class(name).get("implies") == implies


def test_a_name_that_only_begins_like_another_is_not_taken_for_it():
    # hipErrorInvalidDevicePointer is a refused argument, not a missing GPU (hipErrorInvalidDevice)
    assert reason_class("hipErrorInvalidDevicePointer").get("category") != "cuda_setup"


def test_test_hip_failure_with_its_host_names_no_class_of_a_fault(tmp_path):
    verdict = console_verdict(tmp_path, "node7: Test HIP failure common.cu:1129 'hipErrorNoDevice'\n", progress="")
    assert verdict.cls == "unclassified_failure", verdict.summary


def test_the_older_static_function_wording_without_a_code(tmp_path):
    verdict = console_verdict(tmp_path, "Cannot Retrieve Static function\nAborted (core dumped)\n", progress="")
    assert verdict.cls in ("version_mismatch", "unclassified_failure"), verdict.summary
    assert verdict.cls != "none"


# ---- Lightning's init line states the world and the rank that printed it
@pytest.mark.parametrize("line", ["initializing ddp: GLOBAL_RANK: {r}, MEMBER: {m}/8",
                                  "initializing ddp (SLURM): GLOBAL_RANK: {r}, MEMBER: {m}/8",
                                  "[rank: {r}] Initializing distributed: GLOBAL_RANK: {r}, MEMBER: {m}/8"])
def test_lightning_init_lines_name_the_ranks_never_seen(line, tmp_path):
    text = "".join(line.format(r=r, m=r + 1) + "\n" for r in range(4))
    verdict = console_verdict(tmp_path, text, progress="")
    assert verdict.cls == "inconclusive", verdict.summary
    assert "ranks 4-7" in verdict.summary
