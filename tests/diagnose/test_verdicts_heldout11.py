"""Message family missed on held-out set 11 (real console pastes), in the forms it arrives in:

- The TCPStore wait that ran out, in the words of the socket under it (torch socket.cpp SocketImpl::waitForInput,
  called by TCPStore::doWait): `waitForInput: poll for socket ... returned 0, likely a timeout` and
  `waitForInput: socket ... timed out after Nms`, C10D_WARNING lines behind torch's `[rankN]:[W... socket.cpp:N]
  [c10d] ` prefix, with the rank's Python traceback and no DistStoreError. A key a peer never set: the same
  meaning as the store's own `wait timeout after` (a rank that never arrived), not an unexplained failure.
"""
from __future__ import annotations

import pytest

from nccl_forensics.sources import catalogue
from nccl_forensics.sources.catalogue import cuda

from .consoles import console_verdict

SOCK = "SocketImpl(fd=71, addr=[localhost]:43246, remote=[localhost]:29500)"
POLL = f"waitForInput: poll for socket {SOCK} returned 0, likely a timeout"
DEADLINE = f"waitForInput: socket {SOCK} timed out after 600000ms"
TRACEBACK = """[rank2]: Traceback (most recent call last):
[rank2]:   File "/w/train.py", line 663, in <module>
[rank2]:     main(args)
[rank2]:   File "/w/train.py", line 111, in train_one_step
[rank2]:     ) = next(loader)
[rank2]:         ^^^^^^^^^^^^
"""


@pytest.mark.parametrize("line", [POLL, DEADLINE, "waitForInput: socket timed out after 300000ms",
                                  "waitForInput: poll for socket addr=[n4]:39582, remote=[n1]:45361 returned 0, "
                                  "likely a timeout"])
def test_the_socket_wait_warnings_are_the_store_wait_timeout(line):
    [hit] = catalogue.match("[rank2]:[W303 08:23:41.024955281 socket.cpp:462] [c10d] " + line)
    assert hit.message.id == "pytorch.store_socket_wait_timeout"
    assert hit.message.implies == catalogue.by_id("pytorch.store_timeout").implies
    if "remote=[localhost]:29500" in line:
        assert hit.fields["peer"] == "[localhost]:29500"


@pytest.mark.parametrize("lines", [[POLL, DEADLINE], [POLL], [DEADLINE]], ids=["both", "poll", "deadline"])
@pytest.mark.parametrize("prefix", ["[rank2]:[W303 08:23:41.024955281 socket.cpp:462] [c10d] ",
                                    "[W805 01:44:10.000000000 socket.cpp:460] [c10d] ", ""])
def test_a_store_wait_that_ran_out_is_a_rank_that_never_arrived(lines, prefix, tmp_path):
    text = "".join(prefix + line + "\n" for line in lines) + TRACEBACK
    verdict = console_verdict(tmp_path, text)
    assert verdict.cls in {"stuck_rank", "timeout_unknown"}, verdict.summary
    assert not verdict.culprit_ranks                    # the rank that waited is not the one that never came


def test_other_wait_for_input_warnings_are_not_timeouts():
    # waitForInput's `returned operation_in_progress before a timeout` is a retry, not the deadline
    text = f"waitForInput: poll for socket {SOCK} returned operation_in_progress before a timeout"
    assert not [h for h in catalogue.match(text) if h.message.id == "pytorch.store_socket_wait_timeout"]


# ---- a CUDA call NCCL made that the runtime refused for its arguments (question raised on held-out set 10:
# InternLM/xtuner#314, meta-llama/llama-models#352)
#
# NCCL's CUDACHECK (src/include/checks.h; RCCL's hipified copy) WARNs `Cuda failure [N] '<cudaGetErrorString>'` and
# returns ncclUnhandledCudaError, which torch raises as DistBackendError with `Last error:` and that WARN under it. A
# refused call (cudaErrorInvalidValue `invalid argument`, ...) is returned by the call and leaves the device's work
# intact; NCCL built its arguments from the setup every rank shares, so it is no rank's death of its own: the failure
# is shown, its class and culprit are not. A sticky device fault (`an illegal memory access`) stays that rank's crash.

REFUSED = list(cuda.CALL_REJECTED)
NCCL_ERR = ("torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/NCCLUtils.hpp:268, "
            "unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.21.5\n"
            "ncclUnhandledCudaError: Call to CUDA function failed.\nLast error:\nCuda failure {num}'{text}'\n")


@pytest.mark.parametrize("text", REFUSED)
def test_a_refused_call_quoted_by_nccl_implies_no_class_of_its_own(text):
    for line in (f"transport.cc:154 NCCL WARN Cuda failure '{text}'", f"include/alloc.h:102 NCCL WARN Cuda failure 1 "
                 f"'{text}'", f"proxy.cc:1234 NCCL WARN HIP failure '{text}' at /rccl/src/proxy.cc:1234"):
        hits = [h for h in catalogue.match(line) if h.message.id in cuda.NCCL_CUDA_CHECKS]
        assert hits and hits[0].fields.get("implies") == "unclassified_failure", line


@pytest.mark.parametrize("line", ["RuntimeError: CUDA error: invalid argument",      # torch's own call: the rank's error
                                  "NCCL WARN Cuda failure 'an illegal memory access was encountered'",
                                  "NCCL WARN Cuda failure 'unspecified launch failure'"])
def test_other_cuda_texts_keep_their_class(line):
    [hit] = [h for h in catalogue.match(line) if h.message.meaning == "failure"][:1]
    assert (hit.fields.get("implies") or hit.message.implies) == "dropped_rank"


@pytest.mark.parametrize("text", ["invalid argument", "invalid resource handle", "operation not supported"])
@pytest.mark.parametrize("num", ["", "1 "])
@pytest.mark.parametrize("ranks", [[0], [0, 3], []], ids=["one-rank", "two-ranks", "no-prefix"])
def test_an_nccl_call_refused_alike_names_no_culprit(text, num, ranks, tmp_path):
    block = NCCL_ERR.format(num=num, text=text)
    if ranks:
        body = "".join("".join(f"[rank{r}]: {ln}\n" for ln in block.splitlines()) for r in ranks)
    else:
        body = block + block                       # two processes printed it, no prefix to tell them apart
    verdict = console_verdict(tmp_path, body)
    assert verdict.cls == "unclassified_failure", verdict.summary
    assert not verdict.culprit_ranks
    assert f"refused for its arguments ('{text}')" in verdict.summary, verdict.summary
    assert "first failure is not in the evidence" not in verdict.summary
    assert "NCCL_CUMEM_ENABLE=0" in verdict.fix and "--log-dir" not in verdict.fix


def test_a_device_fault_under_the_same_words_is_still_that_ranks_crash(tmp_path):
    block = NCCL_ERR.format(num="", text="an illegal memory access was encountered")
    body = "".join(f"[rank2]: {ln}\n" for ln in block.splitlines())
    verdict = console_verdict(tmp_path, body)
    assert verdict.cls == "dropped_rank" and verdict.culprit_ranks == [2], verdict.summary


def test_nccl_warns_of_a_refused_call_on_two_ranks_name_no_dead_rank(tmp_path):
    body = "".join(f"node1:{1850301 + r}:1881341 [{r}] transport.cc:154 NCCL WARN Cuda failure 'invalid argument'\n"
                   for r in (0, 3))
    verdict = console_verdict(tmp_path, body)
    assert verdict.cls != "dropped_rank" and not verdict.culprit_ranks, verdict.summary
    assert "refused for its arguments ('invalid argument')" in verdict.summary, verdict.summary
