"""py-spy dumps side by side, each rank's outcome recorded: dumped, exited, refused, timed out."""
from __future__ import annotations

import subprocess
import sys
import time

import pytest

from nccl_forensics.capture.find import RankProc
from nccl_forensics.capture.procs import Proc, read_proc
from nccl_forensics.capture.pyspy import _failure, dump_file_name, dump_stacks
from nccl_forensics.capture.tools import find_tool

PYSPY = find_tool("py-spy")


def test_dump_names_carry_rank_host_and_pid_for_discovery():
    assert dump_file_name(3, "gpu-node-1", 4242) == "rank3.py-spy-gpu_node_1-4242.txt"
    assert dump_file_name(None, "n1", 7) == "py-spy-n1-7.txt"


def test_py_spys_own_words_say_why_a_dump_failed():
    gone = RankProc(1, Proc(1, 0, 0, -1), 0, 1, 0, {}, [])        # a start time no live process has
    assert _failure("Permission Denied: Try running again with elevated permissions", gone)[0] == "refused"
    assert _failure("Error: Failed to get process executable name. Check that the process is running.", gone)[0] \
        == "exited"


@pytest.mark.skipif(PYSPY is None, reason="py-spy is not installed")
def test_live_ranks_are_dumped_at_once_and_a_dead_one_is_not_attached_to(tmp_path):
    sleepers = [subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"]) for _ in range(3)]
    try:
        time.sleep(0.5)
        ranks = [RankProc(p.pid, read_proc(p.pid), r, 4, r, {}, []) for r, p in enumerate(sleepers)]
        sleepers[2].kill()
        sleepers[2].wait()
        ranks.append(RankProc(99, Proc(99, 0, 0, -1), 3, 4, 3, {}, []))
        dumps = dump_stacks(ranks, tmp_path, "n1", PYSPY, timeout_s=20)
    finally:
        for p in sleepers:
            p.kill()
            p.wait()
    assert [d.status for d in dumps] == ["ok", "ok", "exited", "exited"]
    assert "(idle)" in dumps[0].path.read_text() and dumps[2].path is None
