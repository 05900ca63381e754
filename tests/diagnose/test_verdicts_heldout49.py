"""Held-out set 49: launchers and platforms around the job (mpirun's `[1,N]<stderr>:` prefix under Horovod, Kubeflow
pods, Ray workers, torchrun and the DeepSpeed runner across nodes, pytest's `E` lines), NCCL INFO interface lines, CUDA
installs that do not fit the machine, and two healthy runs. One verdict test per case, then what the set showed:

- cudaErrorStubLibrary is no old driver: the process loaded the toolkit's link-time libcuda, so the fix is the
  library path, not a driver upgrade (still V501: the software does not fit the machine).
- cudaErrorSymbolNotFound from NCCL's kernel attribute calls at init (enqueue.cc, 2.9 - 2.27.6) says the NCCL
  build has no code for this GPU (NVIDIA/nccl#1372), as `no kernel image is available` does.
- Google's FastSocket plugin WARNs `Cannot get incoming CPU.` and `Maximum retry reached for connect|accept N.` and
  goes on with the first free socket (net_fastsocket.cc): no failure.
- Open MPI's fatal-signal handler prints its frames behind the same `[host:pid] ` prefix (`[ 1] object(...)[addr]`,
  opal_backtrace_print): frames alone, their header cut off, still show a process that died.
"""
from __future__ import annotations

import pytest

from .consoles import PROGRESS, check_case, console_verdict

_OMPI_FRAMES = "".join(
    f"[1,0]<stderr>:[chifflot-7:11200] [ {n}] [1,0]<stderr>:/mnt/view/lib/python3.10/site-packages/horovod/torch/"
    f"mpi_lib_v2.cpython-310-x86_64-linux-gnu.so(+0x{off})[0x7fa3b4e{off}]\n" for n, off in ((1, "16c435"),
                                                                                           (2, "180a89")))
_FASTSOCKET = ("full-debug2-test-1:4024:4048 [0] net_fastsocket.cc:765 NCCL WARN Cannot get incoming CPU.\n\n"
               "full-debug2-test-0:4300:4325 [0] net_fastsocket.cc:785 NCCL WARN Maximum retry reached for accept 3.\n\n"
               "full-debug2-test-1:4024:4055 [0] net_fastsocket.cc:674 NCCL WARN Maximum retry reached for connect 3.\n"
               "full-debug2-test-0:4300:4325 [0] NCCL INFO NET/FastSocket : Connected after 1000 retries.\n"
               "full-debug2-test-1:4024:4055 [0] NCCL INFO NET/FastSocket : Connected after 1000 retries.\n")
_HOST = "NvYt-dcf441d17e21-1bdf2bc9-79ce82ee-3fe03e8-c2959af0"
_IFACES = "[0]ip6tnl0:fe80::e866:19ff:fe1e:a688%ip6tnl0<0> [1]veth0:2a02:6b8:fc1d:3606:0:4457:edef:600a<0>"

CASES = [
    ("horovod/horovod#3569", ("unclassified_failure",), None,
     "[1,6]<stdout>:0601-182219-q4uu569j-10-68-186-195:1374:1448 [0] init.cc:497 NCCL WARN Duplicate GPU detected : "
     "rank 6 and rank 0 both on CUDA device 170\n"
     "[1,6]<stdout>:0601-182219-q4uu569j-10-68-186-195:1374:1448 [0] NCCL INFO init.cc:867 -> 5\n"
     "[1,6]<stdout>:0601-182219-q4uu569j-10-68-186-195:1374:1448 [0] misc/argcheck.cc:30 NCCL WARN ncclGetAsyncError "
     ": comm argument is NULL\n"
     "[1,6]<stderr>:Traceback (most recent call last):\n"),
    ("horovod/horovod#3831", ("unclassified_failure", "dropped_rank"), None, _OMPI_FRAMES),
    ("deepmodeling/deepmd-kit#1774", ("version_mismatch", "unclassified_failure"), None,
     "hp-HP-Z8-G4-Workstation:779166:779172 [0] init.cc:255 NCCL WARN Cuda failure 'CUDA driver is a stub library'\n"
     "hp-HP-Z8-G4-Workstation:779166:779172 [0] NCCL INFO init.cc:913 -> 1\n"),
    ("NVIDIA/nccl#529", ("nic_misselection", "inconclusive"), None,
     f"{_HOST}:97:221 [0] NCCL INFO Bootstrap : Using {_IFACES}\n"
     f"{_HOST}:97:221 [0] NCCL INFO NET/Socket : Using {_IFACES}\nNCCL version 2.5.6+cuda10.0\n"
     f"{_HOST}:98:220 [1] NCCL INFO Bootstrap : Using {_IFACES}\n"),
    ("google/nccl-fastsocket#4", ("none", "inconclusive"), None, _FASTSOCKET),
    ("facebookresearch/fairseq#1096", ("network_error", "nic_misselection"), None,
     "pytorch-fairseq-worker-0:16:63 [0] NCCL INFO Call to connect returned Connection refused, retrying\n"
     "pytorch-fairseq-worker-0:18:64 [2] NCCL INFO Call to connect returned Connection refused, retrying\n" * 3),
    ("kubeflow/pytorch-operator#202", ("nic_misselection", "network_error", "inconclusive"), None,
     "Using distributed PyTorch with nccl backend\n"
     "kubeflow-pytorch-gpu-dist-job-master-0:1:1 [0] NCCL INFO NET/Socket : Using [0]lo:127.0.0.1<0> "
     "[1]eth0:192.168.4.230<0>\n"),
    ("ray-project/ray#33290", ("network_error", "nic_misselection"), None,
     "ncclInternalError: Internal check failed. Proxy Call to rank 0 failed (Connect)\n"
     "(RayExecutor pid=423719, ip=172.16.0.2) Initializing distributed: GLOBAL_RANK: 1, MEMBER: 2/2\n"
     "(RayExecutor pid=508760) hostssh:508760:508760 [0] NCCL INFO Bootstrap : Using enp3s0:172.16.96.59<0>\n"),
    ("espnet/espnet#1940", ("none", "inconclusive"), None,
     "451 tj1-asr-train-v100-11:41449:41449 [6] NCCL INFO Bootstrap : Using [0]eth0:10.38.10.4<0>\n"
     "454 tj1-asr-train-v100-11:41449:41449 [6] NCCL INFO NET/Socket : Using [0]eth0:10.38.10.4<0>\n"
     "455 NCCL version 2.4.8+cuda10.0\n"
     "459 tj1-asr-train-v100-11:41449:43711 [6] NCCL INFO Ring 00 : 1 -> 0 [receive] via NET/Socket/0\n"
     "461 tj1-asr-train-v100-11:41449:43711 [6] NCCL INFO Ring 00 : 0 -> 1 [send] via NET/Socket/0\n"),
    ("pytorch/pytorch#23534", ("unclassified_failure", "dropped_rank"), None,
     "ip-172-31-44-237:52617:53046 [4] NCCL INFO Ring 03 : 4[4] -> 1[1] via direct shared memory \n\n"
     "ip-172-31-44-237:52617:53046 [4] include/shm.h:42 NCCL WARN Cuda failure 'invalid argument' \n"),
    ("pytorch/pytorch#152077", ("version_mismatch", "unclassified_failure"), None,
     "RuntimeError: NCCL Error 1: unhandled cuda error\n"
     "4d1a2ae696c8:50555:50555 [0] NCCL WARN Cuda failure 'named symbol not found'\n"
     "NCCL version 2.14.3+cuda11.8\n"),
    ("pytorch/pytorch#74146", ("network_error", "nic_misselection"), None,
     '  File "/root/miniconda3/envs/vision/lib/python3.9/site-packages/torch/distributed/distributed_c10d.py", line '
     "611, in init_process_group\n    default_pg._set_sequence_number_for_group()\n"
     "RuntimeError: Connection reset by peer\n"),
    ("hiyouga/LlamaFactory#2470", ("dropped_rank", "network_error"), None,
     "gpu004:     work = default_pg.barrier(opts=opts)\n"
     "gpu004: RuntimeError: [14] is setting up NCCL communicator and retrieving ncclUniqueId from [0] via c10d "
     "key-value store by key '0', but store->get('0') got error: Connection reset by peer. This may indicate a possible "
     "application crash on rank 0 or a network set up issue.\n"),
    ("bytedance/HLLM#20", ("stuck_rank", "timeout_unknown", "network_error"), None,
     "[rank3]:[W1111 16:02:57.226522542 socket.cpp:428] [c10d] While waitForInput, poolFD failed with (errno: 0 - "
     "Success).\n[rank3]: torch.distributed.DistBackendError: [3] is setting up NCCL communicator and retrieving "
     "ncclUniqueId from [0] via c10d key-value store by key '0', but store->get('0') got error: Socket Timeout\n"),
    ("InternLM/InternEvo#285", ("stuck_rank", "timeout_unknown", "network_error"), None,
     "  E       RuntimeError: [3] is setting up NCCL communicator and retrieving ncclUniqueId from [0] via c10d "
     "key-value store by key '0', but store->get('0') got error: Socket Timeout\n"
     "  E       Exception raised from doWait at ../torch/csrc/distributed/c10d/TCPStore.cpp:445 (most recent call "
     "first):\n"),
    ("ai4d-iasc/trixie#77", ("dropped_rank", "network_error"), None,
     "cn135:30932:30932 [0] NCCL INFO Bootstrap : Using ib0:10.11.0.135<0>\nNCCL version 2.10.3+cuda10.2\n"
     "cn135:30932:30993 [0] include/socket.h:423 NCCL WARN Net : Connection closed by remote peer "
     "10.11.0.136<20368>\n"),
]


@pytest.mark.parametrize("issue,want,culprits,text", CASES, ids=[case[0] for case in CASES])
def test_each_case_of_the_set(issue, want, culprits, text, tmp_path):
    check_case(tmp_path, (text, want, culprits), progress="")


def test_a_stub_driver_library_asks_for_the_library_path_not_a_newer_driver(tmp_path):
    verdict = console_verdict(tmp_path, "n1:77:79 [0] init.cc:255 NCCL WARN Cuda failure 'CUDA driver is a stub library'")
    assert verdict.cls == "version_mismatch", verdict.summary
    assert "stub" in verdict.summary and "older" not in verdict.summary, verdict.summary
    assert "LD_LIBRARY_PATH" in verdict.fix, verdict.fix


def test_a_missing_kernel_symbol_names_a_build_without_code_for_this_gpu(tmp_path):
    verdict = console_verdict(tmp_path, "gcn75:2336636:2336906 [0] enqueue.cc:58 NCCL WARN Cuda failure "
                                        "'named symbol not found'")
    assert verdict.cls == "version_mismatch", verdict.summary
    assert "no code this GPU can run" in verdict.summary, verdict.summary


def test_fastsocket_pairing_fallbacks_are_no_failure_behind_progress(tmp_path):
    verdict = console_verdict(tmp_path, _FASTSOCKET, progress=PROGRESS)
    assert verdict.cls in ("none", "inconclusive"), verdict.summary


def test_fastsocket_running_out_of_sockets_still_fails(tmp_path):
    verdict = console_verdict(tmp_path, "full-debug2-test-1:4024:4055 [0] net_fastsocket.cc:730 NCCL WARN Cannot find "
                                        "empty socket for 3.")
    assert verdict.cls not in ("none", "inconclusive"), verdict.summary


def test_open_mpi_frames_without_their_header_end_the_process(tmp_path):
    verdict = console_verdict(tmp_path, _OMPI_FRAMES.replace("[1,0]<stderr>:", ""))
    assert verdict.cls in ("unclassified_failure", "dropped_rank"), verdict.summary
