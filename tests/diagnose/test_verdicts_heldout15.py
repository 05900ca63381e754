"""Families missed on held-out set 15 (real console pastes of multi-node and cluster failures: Kubernetes
PyTorchJobs, Slurm, Ray, MPI/UCX), each in the forms it arrives in:

- A console that opens with a bracketed tag (`[INFO] 2021-12-08 ... run: ...`, `[rank0]:`) and prints torchelastic's
  error_handler JSON further down was sniffed as a torchelastic error.json (its head "opened" with `[`), failed to
  parse and was dropped whole. A JSON head must open a JSON document; the error file is an object.
- torchelastic's `The node '...' has failed to shutdown the rendezvous '...' due to an error of type X`
  (DynamicRendezvousHandler.shutdown, torch 1.9 - 2.13): the agent's teardown, a consequence pointing at the
  rendezvous store being unreachable.
- UCX's IB transports on a work completion the remote side never acknowledged (mlx5: `Transport retry count
  exceeded on mlx5_0:1/IB`, 1.3 - 1.5 `Error on QP ... wqe[N]: ...`; verbs DC: `Send completion with error on qp
  ...: transport retry counter exceeded`): a network error. Its other syndromes (protection, access) are not.
- NCCL's error-return trace from its IB transport (`transport/net_ib.cc:N -> 2`, `transport/net_ib/*.cc`,
  `misc/ibvwrap.cc`) with ncclSystemError: a verbs call failed, as `misc/socket.cc:N -> 2` is a socket call.
- Untimed network errors in one console are ordered as printed, not by rank number.
"""
from __future__ import annotations

import pytest

from nccl_forensics.sources import catalogue
from nccl_forensics.sources.formats import Head

from .consoles import console_verdict

# ---- a console quoting the error file is read as a console
ERROR_HANDLER = "\n".join([
    "[ERROR] 2021-12-08 12:28:26,423 error_handler: {",
    '  "message": {',
    '    "message": "RendezvousConnectionError: The connection to the C10d store has failed. See inner exception '
    'for details.",',
    '    "extraInfo": {',
    '      "py_callstack": "Traceback (most recent call last):\\n  File \\"/opt/conda/lib/python3.7/site-packages/'
    'torch/distributed/elastic/rendezvous/c10d_rendezvous_backend.py\\", line 146, in _create_tcp_store\\n"',
])


@pytest.mark.parametrize("first", [
    "[INFO] 2021-12-08 12:28:26,303 run: Running torch.distributed.run with args: ['run.py', 'train.py']",
    "[rank0]: Starting elastic_operator with launch configs:",
    "[1,0]<stderr>:INFO:torch.distributed.launcher.api:Starting elastic_operator with launch configs:",
])
def test_a_console_printing_the_error_file_is_read_as_a_console(first, tmp_path):
    verdict = console_verdict(tmp_path, first + "\n" + ERROR_HANDLER, progress="")
    assert verdict.cls == "network_error", verdict.summary
    assert "C10d store" in verdict.summary


@pytest.mark.parametrize("head,json", [
    (b'{"message": {"message": "boom", "extraInfo": {}}, "timestamp": "1"}', True),
    (b'  \n[\n  {"frames": []}]', True),
    (b"[]", True),
    (b"[INFO] 2021-12-08 run: x", False),
    (b"[rank3]: Traceback (most recent call last):", False),
    (b"[E ProcessGroupNCCL.cpp:563] [Rank 1] Watchdog caught", False),
])
def test_a_json_head_opens_a_json_document(head, json):
    assert Head("x.log", head).json is json


def test_an_error_file_is_an_object_not_an_mpirun_tagged_console(tmp_path):
    # `[1,0]<stderr>:` opens like an array of numbers; the error file is always one object
    from nccl_forensics.sources.formats import _error_json
    assert _error_json(Head("x.log", b'[1,0]<stderr>:{"message": "x", "extraInfo": {}}')) is None
    assert _error_json(Head("error.json", b'{"message": "x", "extraInfo": {}}')) is not None


# ---- the agent failing to close the rendezvous
SHUTDOWN = ("The node 'elastic-example-imagenet-worker-1_17_0' has failed to shutdown the rendezvous 'none' due to an "
            "error of type RendezvousConnectionError.")


@pytest.mark.parametrize("prefix", ["", "WARNING:torch.distributed.elastic.rendezvous.dynamic_rendezvous:",
                                    "[W1128 07:42:14.609000 17676 torch/distributed/elastic/rendezvous/"
                                    "dynamic_rendezvous.py:1330] "])
def test_the_agent_failing_to_shutdown_the_rendezvous_points_at_the_store(prefix, tmp_path):
    assert "torchrun.rendezvous_shutdown_failed" in [h.message.id for h in catalogue.match(prefix + SHUTDOWN)]
    verdict = console_verdict(tmp_path, prefix + SHUTDOWN)
    assert verdict.cls == "network_error", verdict.summary


def test_a_shutdown_failure_after_a_worker_died_is_its_consequence(tmp_path):
    text = "\n".join([
        "[rank1]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 1 has a total "
        "capacity of 79.15 GiB of which 1.06 GiB is free.",
        "E0101 00:00:00.000000 100 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) "
        "local_rank: 1 (pid: 4242) of binary: /usr/bin/python3",
        "WARNING:torch.distributed.elastic.rendezvous.dynamic_rendezvous:" + SHUTDOWN,
    ])
    assert console_verdict(tmp_path, text).cls == "oom"


# ---- UCX completions the remote side never acknowledged
UCX_TIMEOUT = [
    "[g07r1n14:27251:0:27251] ib_mlx5_log.c:143  Transport retry count exceeded on mlx5_0:1/IB (synd 0x15 vend 0x81 "
    "hw_synd 0/0)",
    "[gpu-3:812:0:812] ib_mlx5_log.c:139  Receive-no-ready retry count exceeded on mlx5_2:1/RoCE (synd 0x16 vend "
    "0x82 hw_synd 0/0)",
    "[gpu-3:812:0:812] ib_mlx5_log.c:139  Remote side aborted on mlx5_1:1/IB (synd 0x22 vend 0x0 hw_synd 0/0)",
    "[1506866470.744682] [gpu-3:812  :0]     ib_mlx5_log.c:126  UCX  ERROR Error on QP 0x10f3a wqe[446]: Transport "
    "retry count exceeded (synd 0x15 vend 0x81) opcode SEND",
    "[1506866470.744682] [clx-hercules-065:1411 :0]       dc_verbs.c:633  UCX  ERROR Send completion with error on qp "
    "0x10e55: transport retry counter exceeded syndrome 0x81",
    "[1506866470.744682] [clx-hercules-065:1411 :0]       dc_verbs.c:633  UCX  ERROR Send completion with error on qp "
    "0x10e55: RNR retry counter exceeded syndrome 0x0",
]


@pytest.mark.parametrize("prefix", ["", "[1,30]<stdout>:", "Sun Oct  1 17:01:10 2017[1,30]<stdout>:"])
@pytest.mark.parametrize("line", UCX_TIMEOUT)
def test_a_ucx_completion_never_acknowledged_is_a_network_error(line, prefix, tmp_path):
    assert {h.message.id for h in catalogue.match(line)} & {"ucx.ib_completion_timeout",
                                                           "ucx.verbs_send_completion_error"}
    verdict = console_verdict(tmp_path, prefix + line)
    assert verdict.cls == "network_error", verdict.summary


@pytest.mark.parametrize("line", [
    "[gpu-3:812:0:812] ib_mlx5_log.c:139  Local protection on mlx5_0:1/IB (synd 0x4 vend 0x56 hw_synd 0/0)",
    "[gpu-3:812:0:812] ib_mlx5_log.c:139  Remote access on mlx5_0:1/IB (synd 0x13 vend 0x88 hw_synd 0/0)",
    "UCX  ERROR Send completion with error on qp 0x10e55: local protection error syndrome 0x0",
])
def test_ucx_syndromes_of_a_program_fault_are_no_network_error(line):
    assert not {h.message.id for h in catalogue.match(line)} & {"ucx.ib_completion_timeout",
                                                               "ucx.verbs_send_completion_error"}


# ---- NCCL's IB transport returning a system error
@pytest.mark.parametrize("src", ["transport/net_ib.cc:282", "transport/net_ib/connect.cc:611", "misc/ibvwrap.cc:182"])
def test_a_system_error_from_the_ib_transport_is_a_network_error(src, tmp_path):
    head = "busybox2-68df6c586-ntvlv:11537:11571 [3] NCCL INFO "
    text = "\n".join([f"{head}{src} -> 2", f"{head}transport/net.cc:687 -> 2", f"{head}init.cc:1263 -> 2",
                      "busybox2-68df6c586-ntvlv: Test NCCL failure common.cu:961 'unhandled system error (run with "
                      "NCCL_DEBUG=INFO for details) / '"])
    verdict = console_verdict(tmp_path, text)
    assert verdict.cls == "network_error", verdict.summary
    assert src in verdict.summary


def test_an_internal_error_from_the_ib_transport_is_not_read_as_one(tmp_path):
    head = "node-1:11537:11571 [3] NCCL INFO "
    verdict = console_verdict(tmp_path, f"{head}transport/net_ib.cc:282 -> 3\n{head}init.cc:1263 -> 3")
    assert verdict.cls != "network_error", verdict.summary


def test_untimed_network_errors_of_one_console_keep_their_printed_order(tmp_path):
    text = "\n".join([
        "Sun Oct  1 17:01:10 2017[1,30]<stdout>:[1506866470.744682] [clx-hercules-065:1411 :0]       dc_verbs.c:633  "
        "UCX  ERROR Send completion with error on qp 0x10e55: transport retry counter exceeded syndrome 0x81",
        "Sun Oct  1 17:01:55 2017[1,7]<stdout>:[1506866515.984779] [clx-hercules-012:26319:0]       dc_verbs.c:633  "
        "UCX  ERROR Send completion with error on qp 0xef18: transport retry counter exceeded syndrome 0x81",
    ])
    verdict = console_verdict(tmp_path, text)
    assert verdict.cls == "network_error"
    assert "rank 30 first reported" in verdict.summary, verdict.summary


# ---- a crash in NCCL's error path after its own process reported the failure (NVIDIA/nccl#1538: a proxy `Connect`
# failed with ncclSystemError, then UCX's handler caught SIGSEGV in the same pid): the failure is the process's first,
# the crash its consequence. A crash with no NCCL failure of its own before it is still a dropped rank.
NCCL_FAILED = ("gpu-7:5665:5811 [2] NCCL INFO transport.cc:166 -> 2\n"
               "gpu-7:5665:5801 [2] proxy.cc:1487 NCCL WARN [Service thread] Error encountered progressing "
               "operation=Connect, res=3, closing connection\n")
CRASH = {"ucx": "[gpu-7:5665 :0:5665] Caught signal 11 (Segmentation fault: address not mapped to object at address "
                "(nil))\n"}


def test_a_crash_after_its_own_nccl_failure_is_not_the_first_failure(tmp_path):
    verdict = console_verdict(tmp_path, NCCL_FAILED + CRASH["ucx"])
    assert verdict.cls == "network_error", verdict.summary


@pytest.mark.parametrize("order", ["crash_first", "other_pid"])
def test_a_crash_before_or_beside_an_nccl_failure_stays_a_dropped_rank(tmp_path, order):
    crash = CRASH["ucx"] if order == "crash_first" else CRASH["ucx"].replace(":5665 ", ":7777 ")
    text = crash + NCCL_FAILED if order == "crash_first" else NCCL_FAILED + crash
    verdict = console_verdict(tmp_path, text)
    assert verdict.cls == "dropped_rank", verdict.summary
