"""Verdicts on NCCL 2.24 - 2.30 lines ncclf read wrong before source-mined set srcmined31, each read in NVIDIA/nccl:

- rank 0's check of the local NIC counts it allgathered at init (src/init.cc initTransportsRank, 2.30.3+): the WARN
  `Detected mixed local Net device counts across ranks (min a, max b). Set NCCL_IGNORE_NET_MISMATCH=1 to continue.`
  fails init (ncclSystemError); the INFO lines before it (`Rank r has n local Net devices (max b).`) name the hosts
  short of a NIC, which are the culprits, not rank 0 that compared. With NCCL_IGNORE_NET_MISMATCH=1 the same check
  ends `Ignoring due to ...` at INFO and the job goes on;
- RAS's `declaring peer <addr> as DEAD` (src/ras/peers.cc, 2.24+) names the dead peer by address: the rank that
  printed it is alive, and no rank is named for the dead one.
"""
from __future__ import annotations

import pytest

from nccl_forensics.sources import catalogue

from .consoles import console_verdict

HEAD = "node-a01:5188:5230 [0] NCCL INFO "
_TORCH = ("[rank0]: torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/"
          "ProcessGroupNCCL.cpp:3356, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version "
          "2.30.7\n[rank0]: ncclSystemError: System call (e.g. socket, malloc) or external library call failed or "
          "device error. \n[rank0]: Last error:\n[rank0]: {warn}\n")


def _nic_check(net: str, short: dict[int, int], top: int, ignored: bool = False) -> str:
    """rank 0's NIC count check as init.cc prints it: the short ranks at INFO, then the WARN (or the INFO that
    ignores it) and torch's error."""
    low = min(short.values())
    lines = [f"{HEAD}comm 0x5581c2a0 rank 0 nRanks 8 nNodes 2 localRanks 4 localRank 0 MNNVL 0",
             f"{HEAD}Local {net} device counts across ranks: min {low} max {top}"]
    lines += [f"{HEAD}Rank {r} has {n} local {net} devices (max {top})." for r, n in short.items()]
    if ignored:
        env = "NCCL_IGNORE_NET_MISMATCH" if net == "Net" else "NCCL_IGNORE_COLLNET_MISMATCH"
        lines.append(f"{HEAD}Detected mixed local {net} device counts across ranks (min {low}, max {top}). Ignoring "
                     f"due to {env}.")
        return "\n".join(lines) + "\n[rank0]: step 5000 loss 1.874 - training finished\n"
    env = "NCCL_IGNORE_NET_MISMATCH" if net == "Net" else "NCCL_IGNORE_COLLNET_MISMATCH"
    warn = f"Detected mixed local {net} device counts across ranks (min {low}, max {top}). Set {env}=1 to continue."
    lines += [f"node-a01:5188:5230 [0] NCCL WARN {warn}", f"{HEAD}init.cc:1671 -> 2"]
    return "\n".join(lines) + "\n" + _TORCH.format(warn=warn)


@pytest.mark.parametrize("net,short", [("Net", {5: 3}), ("Net", {4: 2, 6: 3}), ("CollNet", {7: 0})])
def test_nic_count_check_blames_the_short_ranks(net, short, tmp_path):
    verdict = console_verdict(tmp_path, _nic_check(net, short, 4))
    assert verdict.cls == "network_error", verdict.summary
    assert verdict.culprit_ranks == sorted(short), verdict.summary


def test_nic_count_check_without_the_info_lines_names_the_checker(tmp_path):
    text = "\n".join(line for line in _nic_check("Net", {5: 3}, 4).splitlines() if " has 3 local " not in line)
    verdict = console_verdict(tmp_path, text)
    assert verdict.cls == "network_error", verdict.summary
    assert verdict.culprit_ranks == [0], verdict.summary


def test_nic_count_check_ignored_is_no_failure(tmp_path):
    verdict = console_verdict(tmp_path, _nic_check("Net", {5: 3}, 4, ignored=True))
    assert verdict.cls in ("none", "inconclusive"), verdict.summary


def test_ras_dead_peer_is_not_the_rank_that_reports_it(tmp_path):
    text = ("[rank0]:node-a01:5188:5301 [0] NCCL INFO RAS keep-alive timeout error (20s) on socket connection with "
            "10.0.0.2<44113>\n[rank0]:node-a01:5188:5301 [0] NCCL INFO RAS declaring peer 10.0.0.2<44113> as DEAD; "
            "rasDeadPeersHash 0x5e1c9a04b27d3f16\n[rank0]:[E1127 16:40:10.113847297 ProcessGroupNCCL.cpp:632] "
            "[Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=88214, OpType=ALLREDUCE, "
            "NumelIn=26214400, NumelOut=26214400, Timeout(ms)=600000) ran for 600012 milliseconds before timing out.\n")
    verdict = console_verdict(tmp_path, text)
    assert verdict.cls == "dropped_rank", verdict.summary
    assert 0 not in verdict.culprit_ranks, verdict.summary


def test_nic_count_words_as_each_form_prints_them():
    fail = "Detected mixed local CollNet device counts across ranks (min 0, max 1). Set NCCL_IGNORE_COLLNET_MISMATCH=1"
    ignore = "Detected mixed local Net device counts across ranks (min 3, max 4). Ignoring due to NCCL_IGNORE_NET_MISMATCH."
    assert [(h.message.id, h.fields["net"]) for h in catalogue.match(fail)] == [("nccl.net_count_mixed", "CollNet")]
    assert not [h for h in catalogue.match(ignore) if h.message.id == "nccl.net_count_mixed"]
    short = [h.fields for h in catalogue.match("Rank 12 has 1 local Net devices (max 2).")]
    assert [(f["short_rank"], f["count"], f["other_count"]) for f in short] == [(12, 1, 2)]
