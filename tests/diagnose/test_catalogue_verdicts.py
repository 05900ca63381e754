"""Generated from the message catalogue: every entry, as the decisive line of a small console (a few lines of
progress, then the message), leads `diagnose` to the verdict its class says, and to the rank the line names.

This is the shape of a pasted snippet: the message is all the evidence there is, so the verdict rests on the
catalogue's meaning and on the detectors that read it.
"""
from __future__ import annotations

import pytest

from nccl_forensics.sources import catalogue
from nccl_forensics.sources.catalogue import cuda

from .consoles import console_verdict

ENTRIES = catalogue.messages()
MISMATCH = {"op_mismatch", "shape_mismatch", "dtype_mismatch", "collective_skipped"}
# The verdict classes right for a line that implies a class. One line that says ranks never arrived (a store or a
# monitored barrier counting them) names them, but cannot tell a stuck rank from a dead or late one: T601's
# `timeout_unknown` with those ranks is as right as `stuck_rank`. A watchdog's own stall (the heartbeat monitor)
# says the same of its rank.
VERDICT_OF = {"missing_rank": {"stuck_rank", "timeout_unknown"}, "collective_mismatch": MISMATCH,
              "stuck_rank": {"stuck_rank", "timeout_unknown"}}
NOT_A_VERDICT = ("none", "inconclusive")


@pytest.mark.parametrize("msg", ENTRIES, ids=[m.id for m in ENTRIES])
def test_the_line_alone_leads_to_its_class(msg, tmp_path):
    verdict = console_verdict(tmp_path, msg.example)
    if msg.meaning in ("benign", "healthy"):
        # one line of health is no all-clear for a job (the health rule needs every rank), and a benign line no failure
        assert verdict.cls in NOT_A_VERDICT, verdict.summary
        return
    assert verdict.cls not in NOT_A_VERDICT, verdict.summary
    if msg.implies:
        wanted = set(VERDICT_OF.get(msg.implies, {msg.implies}))
        if msg.meaning == "consequence":       # alone, the failure it follows is unseen: the fallback may answer
            wanted.add("unclassified_failure")
        assert verdict.cls in wanted, verdict.summary
    [hit] = [h for h in catalogue.match(msg.example) if h.message.id == msg.id] or [None]
    rank = hit.fields.get("rank") if hit is not None else None
    if verdict.cls == "dropped_rank" and isinstance(rank, int) and msg.kind in ("worker_failed", "child_failed"):
        assert verdict.culprit_ranks == [rank], verdict.summary


# Launcher and kernel lines that report a process's death by a crash signal (or a lost GPU): the job's failure
# is that process, whether or not the line names its rank.
DIED = ("torchrun.worker_failed", "torchrun.worker_failed_located", "torchrun.signal_received", "mpspawn.terminated_signal",
        "launch.subprocess_error", "deepspeed.exit_code", "composer.rank_crashed", "ompi.noticed_signal",
        "ompi.signal_line", "hydra.killed_by_signal", "hydra.exit_code", "hydra.exit_string", "horovod.process_failed",
        "kernel.xid_gpu_lost", "kernel.xid_memory_error", "kernel.xid_nvlink", "kernel.xid_app_fault",
        "kernel.segfault", "ray.actor_died", "ray.worker_died", "nccl.cuda_failure", "nccl.rccl_hip_failure",
        "cuda.device_assert", "slurm.node_failure", "ucx.caught_signal", "kernel.xid_nvlink5_fatal",
        "kernel.xid_after_fatal", "cuda.check_macro", "paddle.container_failed")


@pytest.mark.parametrize("message_id", DIED)
def test_a_reported_death_is_a_dropped_rank(message_id, tmp_path):
    msg = catalogue.by_id(message_id)
    assert msg is not None
    assert console_verdict(tmp_path, msg.example).cls == "dropped_rank"


@pytest.mark.parametrize("line,rank", [
    ("process 3 terminated with exit code 1", 3),
    ("failed (exitcode: 1) local_rank: 2 (pid: 5120) of fn: main (start_method: spawn)", 2),
    ("srun: error: gpu-07: task 3: Exited with exit code 1", None),     # a task id is no rank under torchrun
])
def test_a_lone_non_zero_exit_is_the_failure(line, rank, tmp_path):
    verdict = console_verdict(tmp_path, line)
    assert verdict.cls == "dropped_rank"
    assert verdict.culprit_ranks == ([rank] if rank is not None else [])


def test_an_exit_after_a_network_error_is_its_consequence(tmp_path):
    verdict = console_verdict(tmp_path, "node1:4021:4100 [3] NCCL INFO NET/IB : Got completion from peer 10.0.0.2<5312> with "
                                 "status=12 opcode=0 len=0 vendor err 129 (Recv)\n"
                                 "host-1:4021:4100 [3] transport/net_ib.cc:1700 NCCL WARN NET/IB : Got completion from "
                                 "peer 10.0.0.2<5312> with status=12 opcode=0 len=0 vendor err 129 (Recv)\n"
                                 "srun: error: gpu-07: task 3: Exited with exit code 1")
    assert verdict.cls == "network_error", verdict.summary


def test_the_oom_killer_s_header_alone_is_an_oom(tmp_path):
    verdict = console_verdict(tmp_path, "[12345.678] python invoked oom-killer: gfp_mask=0x100cca(GFP_HIGHUSER_MOVABLE), "
                                 "order=0, oom_score_adj=0")
    assert verdict.cls == "oom", verdict.summary


def test_a_benign_xid_consequence_does_not_blame_the_gpu(tmp_path):
    verdict = console_verdict(tmp_path, "NVRM: Xid (PCI:0000:3b:00): 43, pid=4021, Ch 00000008")
    assert verdict.cls != "dropped_rank", verdict.summary


# Messages as they arrive in pastes: Open MPI's help text broken after `returned` (help-errmgr-base.txt), a pid and
# host redacted by the poster, Horovod's 0.11 - 0.15 wording wrapped by a terminal, the strerror text c10d's socket
# helpers raise bare, nccl-tests' NCCLCHECK. Each is a failed job: never `none` or `inconclusive`.
@pytest.mark.parametrize("text,cls,ranks", [
    ("Primary job  terminated normally, but 2 processes returned\na non-zero exit code. Per user-direction, the job "
     "has been aborted.", "unclassified_failure", []),
    ("mpirun noticed that process rank 5 with PID xxxx on node yyyy exited on signal 9 (Killed).", "dropped_rank", [5]),
    ("AbortedError: Horovod has been shut down. This has been ca\nused by an exception on one of the rank or an",
     "unclassified_failure", []),
    ("  File \"train.py\", line 3, in <module>\n    dist.init_process_group('nccl')\nRuntimeError: Connection refused",
     "network_error", []),
    ("torch.distributed.DistStoreError: 3/4 clients joined", "stuck_rank", []),
    ("torch.distributed.DistStoreError: Timed out after 30 seconds waiting for workers. 1/2 workers joined.",
     "stuck_rank", []),
    ("node-3: Test NCCL failure common.cu:958 'unhandled system error / Socket recv failed'", "unclassified_failure", []),
    # a Root Cause table whose cells were pasted glued, with `local rank` and a lower-case `signal`
    ("Root Cause (first observed failure) :\n[0]:\nrank2 (local rank: 2)exitcode: -9 (pid: 36071)error file: <N/A>\n"
     "traceback : signal 9 (SIGKILL) received by PID 36071", "dropped_rank", [2]),
    # a net plugin's IB transport naming itself after NET/IB, without the space before the colon
    ("NET/IBP:Got completion from peer 7.6.13.83<36315> with status=12 opcode=32698 len=32696 vendor err 129 (Send)",
     "network_error", []),
    ("ncclGroupEnd() : 0002 unhandled system error", "unclassified_failure", []),
])
def test_pasted_forms_of_failure_messages(text, cls, ranks, tmp_path):
    verdict = console_verdict(tmp_path, text)
    assert verdict.cls == cls, verdict.summary
    assert verdict.culprit_ranks == ranks, verdict.summary


# cudaGetErrorString texts that name a class of their own (catalogue/cuda.py reason_class), in every way the stack
# prints them: torch's `CUDA error:` (with its hint lines under it), NCCL's CUDACHECK WARN (2.19+ with the number),
# nccl-tests' and vLLM's CUDACHECK, the bare `Cuda failure file:line` of nccl-tests < 2.0 and NCCL's examples, torch
# < 1.0's THC check.
def _printings(text: str) -> list[str]:
    return [f"RuntimeError: CUDA error: {text}\nCUDA kernel errors might be asynchronously reported at some other API "
            "call, so the stacktrace below might be incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1",
            f"gpu1:3021:3021 [0] init.cc:1234 NCCL WARN Cuda failure '{text}'",
            f"gpu1:3021:3021 [0] init.cc:1234 NCCL WARN Cuda failure 35 '{text}'",
            f"gpu1: Test CUDA failure common.cu:1045 '{text}'",
            f"Failed: Cuda error /workspace/csrc/custom_all_reduce.cuh:307 '{text}'",
            f"Failed: /workspace/csrc/custom_all_reduce.cuh:368 '{text}'",
            f"Cuda failure common.cu:891 '{text}'",
            f"THCudaCheck FAIL file=/pytorch/aten/src/THC/THCGeneral.cpp line=50 error=35 : {text}"]


_REASONS = [(t, "version_mismatch", "driver") for t in cuda.DRIVER_TOO_OLD + cuda.STUB_DRIVER] \
    + [(t, "version_mismatch", "arch") for t in cuda.NO_CODE_FOR_GPU] \
    + [(t, "network_error", "NCCL_P2P_DISABLE") for t in cuda.PEER_UNSUPPORTED]


@pytest.mark.parametrize("text,cls,fix", _REASONS)
@pytest.mark.parametrize("form", range(8))
def test_a_cuda_text_of_the_machine_leads_to_its_class(text, cls, fix, form, tmp_path):
    verdict = console_verdict(tmp_path, _printings(text)[form])
    assert verdict.cls == cls, verdict.summary
    assert fix in verdict.fix, verdict.fix


def test_a_cuda_fault_stays_a_crash(tmp_path):
    for line in _printings("an illegal memory access was encountered"):
        verdict = console_verdict(tmp_path, line)
        assert verdict.cls == "dropped_rank", verdict.summary


def test_nccl_cannot_peer_two_gpus(tmp_path):
    verdict = console_verdict(tmp_path, "n1:881:902 [1] transport/p2p.cc:281 NCCL WARN failed to peer with device 0(=41000): "
                                 "217 peer access is not supported between these two devices")
    assert verdict.cls == "network_error" and "NCCL_P2P_DISABLE" in verdict.fix, verdict.summary


@pytest.mark.parametrize("text", [
    "RuntimeError: The NVIDIA driver on your system is too old (found version 11040). Please update your GPU driver",
    # torch's hint lines under the error: that error's tail, not a crash of their own
    "[rank1]: RuntimeError: CUDA error: no kernel image is available for execution on the device\n[rank1]: CUDA "
    "kernel errors might be asynchronously reported at some other API call\n[rank1]: Compile with "
    "`TORCH_USE_CUDA_DSA` to enable device-side assertions.",
])
def test_the_driver_or_build_does_not_fit(text, tmp_path):
    verdict = console_verdict(tmp_path, text)
    assert verdict.cls == "version_mismatch", verdict.summary


@pytest.mark.parametrize("text", [
    # the agent's teardown glued after a progress bar and cut inside the signal's name
    "[Epoch 0 / Train]:   1%| 20/2839 [15:02<33:31:36, 42.82s/it]WARNING:torch.distributed.elastic.multiprocessing.api:"
    "Sending process 2860767 closing signal SIG",
    # a vLLM worker's traceback, prefixed on every line by the worker-process module's ERROR record, cut before
    # its exception line (0.5's multiproc_worker_utils, 0.8+'s v1 multiproc_executor)
    "(VllmWorkerProcess pid=759) ERROR 07-24 08:26:01 multiproc_worker_utils.py:226]   File \"/usr/lib/vllm/worker/"
    "worker.py\", line 132, in init_device\n(VllmWorkerProcess pid=759) ERROR 07-24 08:26:01 "
    "multiproc_worker_utils.py:226]     init_worker_distributed_environment(self.parallel_config, self.rank,",
    "(Worker_TP1 pid=899) ERROR 03-31 10:11:24 [multiproc_executor.py:880] Traceback (most recent call last):",
    # ColossalAI's `colossalai run`: the torchrun it started on a host exited non-zero
    "Error: failed to run torchrun --nproc_per_node=8 train.py on 127.0.0.1, is localhost: True, exception: "
    "Encountered a bad command exit code!",
])
def test_launcher_lines_of_a_failed_job_are_no_all_clear(text, tmp_path):
    verdict = console_verdict(tmp_path, text)
    assert verdict.cls in ("dropped_rank", "unclassified_failure"), verdict.summary


def test_a_vllm_workers_info_line_is_no_failure(tmp_path):
    verdict = console_verdict(tmp_path, "(VllmWorkerProcess pid=81682) INFO 06-12 13:10:35 multiproc_worker_utils.py:215] "
                                 "Worker ready; awaiting tasks")
    assert verdict.cls in NOT_A_VERDICT, verdict.summary


@pytest.mark.parametrize("text", [
    # CPython refused to run the script it was given (every worker of a multi-node launch, pdsh-prefixed): exit 2
    "10.141.250.227: /usr/bin/python3: can't open file 'train_mpu.py': [Errno 2] No such file or directory\n"
    "10.141.113.189: /usr/bin/python3: can't open file 'train_mpu.py': [Errno 2] No such file or directory",
    "python: can't open file '/opt/run/train.py': [Errno 13] Permission denied",
    # Ray's driver logging a remote task's exception, its traceback cut before the exception line
    "(main_task pid=1748945) Unhandled error (suppress with 'RAY_IGNORE_UNHANDLED_ERRORS=1'): "
    "ray::WorkerDict.actor_rollout_generate_sequences() (pid=1751030, ip=10.65.194.91, actor_id=d2209bc2)\n"
    "(main_task pid=1748945)   File \"/verl/verl/workers/fsdp_workers.py\", line 463, in generate_sequences",
    "2021-06-11 01:14:28,123 ERROR worker.py:77 -- Unhandled error (suppress with RAY_IGNORE_UNHANDLED_ERRORS=1): "
    "ray::PS.send_params() (pid=41878, ip=172.18.167.27)",
])
def test_an_interpreter_or_ray_driver_failure_line_is_a_failure(text, tmp_path):
    verdict = console_verdict(tmp_path, text)
    assert verdict.cls == "unclassified_failure", verdict.summary


# pasted with a markdown or quote character before the exception's type (`...`, "...", **...**): still the
# exception line, so still a failure
@pytest.mark.parametrize("text", [
    "`RuntimeError: No rendezvous handler for env://`",
    "\"CalledProcessError: Command '['/opt/conda/bin/python3.10', '-m', 'torch.distributed.run', '--nproc_per_node', "
    "'2', '--master_port', '40605', \"",
    "**ValueError: DistributedDataParallel device_ids and output_device arguments only work with single-device**",
])
def test_a_quoted_bare_exception_is_a_failure(text, tmp_path):
    verdict = console_verdict(tmp_path, text)
    assert verdict.cls == "unclassified_failure", verdict.summary


# argparse refusing the command line (`prog: error: <argparse's message>`, exit status 2) is a failed start
@pytest.mark.parametrize("text", [
    "train.py: error: unrecognized arguments: --local-rank=0",
    "main.py: error: the following arguments are required: --data-path",
    "run.py: error: argument --model: invalid choice: 'vit' (choose from 'resnet', 'bert')",
])
def test_argparse_refusing_the_command_line_is_a_failure(text, tmp_path):
    verdict = console_verdict(tmp_path, text)
    assert verdict.cls == "unclassified_failure", verdict.summary


def test_a_prose_error_colon_is_no_argparse_failure(tmp_path):
    verdict = console_verdict(tmp_path, "docs: error: handling is described in errors.md")
    assert verdict.cls != "unclassified_failure", verdict.summary


# the watchdog's exception cut right after `[Rank N] Watchdog`: only checkTimeout's message begins so
@pytest.mark.parametrize("prefix", ["[PG ID 1 PG GUID 1 Rank 4] Process group", "[Rank 4] NCCL"])
def test_a_watchdog_exception_cut_after_watchdog_is_a_timeout(prefix, tmp_path):
    verdict = console_verdict(tmp_path, f"[rank4]:[E602 11:18:52.536602063 ProcessGroupNCCL.cpp:1896] {prefix} watchdog "
                                 "thread terminated with exception: [Rank 4] Watchdog")
    assert verdict.cls == "timeout_unknown", verdict.summary
