"""Message family missed on held-out set 11 (real console pastes), in the forms it arrives in:

- The TCPStore wait that ran out, in the words of the socket under it (torch socket.cpp SocketImpl::waitForInput,
  called by TCPStore::doWait): `waitForInput: poll for socket ... returned 0, likely a timeout` and
  `waitForInput: socket ... timed out after Nms`, C10D_WARNING lines behind torch's `[rankN]:[W... socket.cpp:N]
  [c10d] ` prefix, with the rank's Python traceback and no DistStoreError. A key a peer never set: the same
  meaning as the store's own `wait timeout after` (a rank that never arrived), not an unexplained failure.
"""
from __future__ import annotations

import pytest

from nccl_forensics.pipeline.reduce import diagnose
from nccl_forensics.sources import catalogue

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


def _verdict(tmp_path, text: str):
    (tmp_path / "console.log").write_text("step 10/100 loss 0.41\n" + text + "\n", encoding="utf-8")
    return diagnose([str(tmp_path)], jobs=1).verdict


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
    verdict = _verdict(tmp_path, text)
    assert verdict.cls in {"stuck_rank", "timeout_unknown"}, verdict.summary
    assert not verdict.culprit_ranks                    # the rank that waited is not the one that never came


def test_other_wait_for_input_warnings_are_not_timeouts():
    # waitForInput's `returned operation_in_progress before a timeout` is a retry, not the deadline
    text = f"waitForInput: poll for socket {SOCK} returned operation_in_progress before a timeout"
    assert not [h for h in catalogue.match(text) if h.message.id == "pytorch.store_socket_wait_timeout"]
