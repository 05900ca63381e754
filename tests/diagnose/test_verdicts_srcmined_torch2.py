"""Verdicts on messages mined from PyTorch 1.8 - 2.13's distributed stack in catalogue round 27 (ProcessGroupNCCL's
blocking wait, FSDP's first-iteration order check, socket.cpp's name lookups): each as the decisive line(s) of a
pasted console, in the forms its versions print it.
"""
from __future__ import annotations

import pytest

from nccl_forensics.sources import catalogue

from .consoles import PROGRESS, console_verdict

_WORK = "WorkNCCL(SeqNum=57, OpType=ALLREDUCE, NumelIn=4096, NumelOut=4096, Timeout(ms)=300000)"


# TORCH_NCCL_BLOCKING_WAIT=1: the caller's wait() catches the timeout (WorkNCCL::synchronizeInternal), not the watchdog;
# 1.x named the env var NCCL_BLOCKING_WAIT, the newest print no env var, 1.x aborted with `timed out in call to wait()`
@pytest.mark.parametrize("text", [
    f"[rank2]:[E ProcessGroupNCCL.cpp:1010] [PG 0 Rank 2] Work {_WORK} timed out in blocking wait "
    "(TORCH_NCCL_BLOCKING_WAIT=1).",
    f"[rank2]: torch.distributed.DistBackendError: [PG 0 Rank 2] Work {_WORK} timed out in blocking wait.",
    "[E ProcessGroupNCCL.cpp:566] [Rank 1] Work WorkNCCL(SeqNum=12, OpType=BROADCAST, Timeout(ms)=1800000) timed out "
    "in blocking wait (NCCL_BLOCKING_WAIT=1).",
    "Traceback (most recent call last):\n  File \"main.py\", line 88, in <module>\n    dist.broadcast(t, src=0)\n"
    "RuntimeError: [Rank 1] Work WorkNCCL(SeqNum=12, OpType=BROADCAST, Timeout(ms)=1800000) timed out in blocking "
    "wait (NCCL_BLOCKING_WAIT=1).",
])
def test_a_blocking_wait_timeout_is_a_timeout_not_a_crash(text, tmp_path):
    verdict = console_verdict(tmp_path, text)
    assert verdict.cls in ("timeout_unknown", "stuck_rank"), verdict.summary


def test_a_blocking_wait_timeout_carries_the_work_record():
    [hit] = [h for h in catalogue.match(f"[PG 0 Rank 2] Work {_WORK} timed out in blocking wait.")
             if h.message.id == "pytorch.blocking_wait_timeout"]
    assert (hit.fields["seq"], hit.fields["op"], hit.fields["numel_in"], hit.fields["timeout_ms"]) == \
        (57, "ALLREDUCE", 4096, 300000)
    [old] = [h for h in catalogue.match("Work WorkNCCL(SeqNum=9, OpType=ALLGATHER, Timeout(ms)=60000) timed out in "
                                        "call to wait().") if h.message.id == "pytorch.blocking_wait_timeout"]
    assert old.fields["seq"] == 9


# FSDP's first-iteration order check (_exec_order_utils.py): every rank raises it, naming two ranks whose counts or
# parameter lists differ; the rank that raised it reports the others and is no culprit
@pytest.mark.parametrize("prefix", ["", "[rank1228]: "])
@pytest.mark.parametrize("message", [
    "Forward order differs across ranks: rank 0 is all-gathering 43 parameters while rank 1228 is all-gathering 1 "
    "parameters",
    "Forward order differs across ranks: rank 0 is all-gathering parameters for ['enc.0.weight'] while rank 1 is "
    "all-gathering parameters for ['dec.0.weight']",
    "Forward order differs across ranks: rank 0 is all-gathering",          # cut after the decisive words
])
def test_fsdp_forward_order_mismatch_is_a_collective_mismatch(prefix, message, tmp_path):
    text = (f"{prefix}Traceback (most recent call last):\n{prefix}  File \"train.py\", line 9, in step\n"
            f"{prefix}    out = model(x)\n{prefix}RuntimeError: {message}")
    verdict = console_verdict(tmp_path, text)
    assert verdict.cls in ("collective_skipped", "op_mismatch"), verdict.summary
    assert not verdict.culprit_ranks


def test_fsdp_forward_order_counts_reach_the_finding(tmp_path):
    verdict = console_verdict(tmp_path, "[rank3]: RuntimeError: Forward order differs across ranks: rank 0 is "
                                        "all-gathering 43 parameters while rank 3 is all-gathering 1 parameters")
    assert "43" in verdict.summary and "rank 3" in verdict.summary, verdict.summary


# socket.cpp's getaddrinfo failure: a retry warning that healthy jobs print too (a DNS record that appears late), so
# it is no failure by itself; the failure is the connect timeout that ends the retries
_GAI = ("[W socket.cpp:601] [c10d] The IPv6 network addresses of (master-0.svc, 29500) cannot be retrieved (gai error: "
        "-2 - Name or service not known).")


def test_a_name_lookup_retry_is_benign_and_read():
    [hit] = catalogue.match(_GAI)
    assert hit.message.id == "pytorch.store_resolve_retry" and hit.message.meaning == "benign"
    assert hit.fields["errno"] == "-2" and hit.fields["peer"] == "master-0.svc, 29500"


def test_name_lookup_retries_then_the_connect_timeout_is_a_network_error(tmp_path):
    text = _GAI + "\n" + _GAI + "\ntorch.distributed.DistNetworkError: The client socket has timed out after 900s " \
                                "while trying to connect to (master-0.svc, 29500)."
    assert console_verdict(tmp_path, text).cls == "network_error"


def test_name_lookup_retries_then_training_progress_are_no_failure(tmp_path):
    verdict = console_verdict(tmp_path, PROGRESS, progress=_GAI + "\n" + _GAI + "\n")
    assert verdict.cls not in ("network_error", "unclassified_failure"), verdict.summary
