"""Families missed on held-out set 20 (console pastes from pytorch/pytorch, NVIDIA/nccl, ROCm issues), each in the
forms it arrives in:

- gloo's asynchronous connect failure `[.../tcp/pair.cc:N] connect [<addr>]:<port>: <strerror>`
  (Pair::handleConnecting, 2017-04 until pytorch/gloo#361 of 2023-05), raised as a RuntimeError by
  init_process_group / new_group or, escaping a C++ thread, as `gloo::IoException`'s `what():` line: a network error
  with the peer's address. Only the newer `connect: <strerror>` (no address) was read.
- c10d's socket std::system_error escaping a C++ thread: `terminate called after throwing an instance of
  'std::system_error'` / `what():  Connection reset by peer` (the strerror text alone on terminate's line); only the
  Python form `RuntimeError: Connection reset by peer` was read.
- ROCm's runtime (ROCR-Runtime core/runtime/runtime.cpp) aborting on a GPU fault: `HW Exception by GPU node-N
  (Agent handle: 0x..) reason :GPU Hang` and `Memory access fault by GPU node-N (Agent handle: 0x..) on address 0x...
  Reason: <reason>.` (no handle in older runtimes): a process that died of a device fault, as CUDA's `an illegal
  memory access` is; the log was answered `inconclusive`.
"""
from __future__ import annotations

import pytest

from .consoles import PROGRESS, console_verdict


@pytest.mark.parametrize("text", [
    "RuntimeError: [/opt/conda/conda-bld/pytorch_1682343967769/work/third_party/gloo/gloo/transport/tcp/pair.cc:799] "
    "connect [172.31.71.170]:13195: Connection refused",
    "[rank3]: RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:799] connect [10.0.0.7]:40123: No route "
    "to host",
])
def test_gloo_connect_to_a_peer_failed_is_a_network_error(text, tmp_path):
    verdict = console_verdict(tmp_path, text)
    assert verdict.cls == "network_error", verdict.summary


def test_gloo_connect_to_a_loopback_peer_is_the_interface_choice(tmp_path):
    """The same refusal from a peer at 127.0.1.1 (its hostname mapped there in /etc/hosts; the thread's fix was
    GLOO_SOCKET_IFNAME): N402 since held-out set 62."""
    text = ("terminate called after throwing an instance of 'gloo::IoException'\n"
            "  what():  [/opt/conda/conda-bld/pytorch_1544084119927/work/third_party/gloo/gloo/transport/tcp/pair.cc:724] "
            "connect [127.0.1.1]:3210: Connection refused\nAborted (core dumped)")
    verdict = console_verdict(tmp_path, text)
    assert verdict.cls == "nic_misselection", verdict.summary


def test_gloo_connect_error_cut_after_its_decisive_words(tmp_path):
    verdict = console_verdict(tmp_path, "RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:799] connect "
                              "[172.31.71.170]:13195: Conn", progress="")
    assert verdict.cls == "network_error", verdict.summary


@pytest.mark.parametrize("reason", ["Connection reset by peer", "Connection refused", "Broken pipe"])
def test_socket_system_error_escaping_a_thread_is_a_network_error(reason, tmp_path):
    text = ("[W socket.cpp:634] The server socket on [localhost]:32967 is not yet listening (generic error: 111 - "
            "Connection refused).\nterminate called after throwing an instance of 'std::system_error'\n"
            f"  what():  {reason}\n")
    verdict = console_verdict(tmp_path, text)
    assert verdict.cls == "network_error", verdict.summary


def test_a_what_line_with_other_words_is_not_a_socket_error(tmp_path):
    verdict = console_verdict(tmp_path, "terminate called after throwing an instance of 'std::runtime_error'\n"
                              "  what():  Connection reset by peers are not counted here, bad config value\n")
    assert verdict.cls != "network_error", verdict.summary


@pytest.mark.parametrize("text", [
    " 41%|████▌     | 366/903 [5:15:39<6:53:09, 46.16s/it]HW Exception by GPU node-9 (Agent handle: 0x631351bb5a20) "
    "reason :GPU Hang\nHW Exception by GPU node-9 (Agent handle: 0x64ff272d8ab0) reason :GPU Hang\n"
    "Aborted (core dumped)",
    "HW Exception by GPU node-1 reason :GPU Hang",
    "Memory access fault by GPU node-2 (Agent handle: 0x5640a8bb1980) on address 0x7feea09c5000. Reason: Page not "
    "present or supervisor privilege.\nAborted (core dumped)",
    "Memory access fault by GPU node-4 on address 0x7551d8402000",
])
def test_rocm_runtime_gpu_fault_is_a_process_death(text, tmp_path):
    verdict = console_verdict(tmp_path, text)
    assert verdict.cls == "dropped_rank", verdict.summary
    assert not verdict.culprit_ranks            # no line says which rank printed it
    assert "AMD_SERIALIZE_KERNEL=3" in verdict.primary.fix and "CUDA_LAUNCH" not in verdict.primary.fix


@pytest.mark.parametrize("hint, fix", [
    ("For debugging consider passing AMD_SERIALIZE_KERNEL=3", "AMD_SERIALIZE_KERNEL=3"),
    ("For debugging consider passing HIP_LAUNCH_BLOCKING=1", "AMD_SERIALIZE_KERNEL=3"),
])
def test_a_hip_error_s_fix_names_amd_s_serialising_setting(hint, fix, tmp_path):
    """torch's hipified CUDA check ends in HIP_LAUNCH_BLOCKING=1, or AMD_SERIALIZE_KERNEL=3 on ROCm 6 builds
    (ROCm/TheRock#2707): the hint is the error's tail, and the fix names AMD's setting, not CUDA's."""
    text = ("RuntimeError: HIP error: an illegal memory access was encountered\nHIP kernel errors might be "
            f"asynchronously reported at some other API call, so the stacktrace below might be incorrect.\n{hint}\n")
    verdict = console_verdict(tmp_path, text)
    assert verdict.cls == "dropped_rank", verdict.summary
    assert len(verdict.primary.evidence) == 1, verdict.primary.evidence
    assert fix in verdict.primary.fix and "CUDA_LAUNCH" not in verdict.primary.fix


def test_rocm_gpu_fault_under_a_rank_prefix_names_that_rank(tmp_path):
    text = ("[rank0]: step 10 loss 1.2\n[rank1]: step 10 loss 1.2\n"
            "[rank1]: Memory access fault by GPU node-3 (Agent handle: 0x55b017570c40) on address 0x7fcd499e6000. "
            "Reason: Page not present or supervisor privilege.\n")
    verdict = console_verdict(tmp_path, text, progress=PROGRESS)
    assert verdict.cls == "dropped_rank", verdict.summary
    assert verdict.culprit_ranks == [1]
