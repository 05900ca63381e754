"""The dump pipe torch's ProcessGroupNCCL watches: one byte per rank, never a blocking open."""
from __future__ import annotations

import os
import threading

from nccl_forensics.capture.find import RankProc
from nccl_forensics.capture.fr_pipe import trigger_dumps
from nccl_forensics.capture.procs import read_proc


def rank(env: dict, r: int = 0) -> RankProc:
    return RankProc(os.getpid(), read_proc(os.getpid()), r, 2, r, env, ["python"])


def test_a_byte_in_the_pipe_makes_the_rank_dump(tmp_path):
    """Plays the rank's side as torch does: mkfifo, open O_RDONLY|O_NONBLOCK, dump when a read returns data."""
    pipe = tmp_path / "pipe_0.pipe"
    os.mkfifo(pipe)
    reader = os.open(pipe, os.O_RDONLY | os.O_NONBLOCK)
    dump = tmp_path / "trace_0"
    stop = threading.Event()

    def rank_side():
        while not stop.is_set():
            try:
                if os.read(reader, 128):
                    dump.write_bytes(b"\x80\x02}.")
                    return
            except BlockingIOError:
                pass
            stop.wait(0.05)

    thread = threading.Thread(target=rank_side)
    thread.start()
    try:
        env = {"TORCH_NCCL_DEBUG_INFO_PIPE_FILE": str(tmp_path / "pipe_"), "TORCH_FR_DUMP_TEMP_FILE": str(tmp_path / "trace_")}
        assert trigger_dumps([rank(env)], wait_s=10) == {0: "dumped"}
    finally:
        stop.set()
        thread.join()
        os.close(reader)
    assert dump.exists()


def test_a_pipe_nobody_reads_and_a_plain_file_are_reported_not_waited_on(tmp_path):
    os.mkfifo(tmp_path / "p_0.pipe")
    (tmp_path / "q_1.pipe").write_text("")
    outcome = trigger_dumps([rank({"TORCH_FR_DEBUG_INFO_PIPE_FILE": str(tmp_path / "p_")}, 0),
                             rank({"TORCH_NCCL_DEBUG_INFO_PIPE_FILE": str(tmp_path / "q_")}, 1),
                             rank({}, 2)], wait_s=1)
    assert outcome == {0: f"{tmp_path}/p_0.pipe: no reader (the rank does not watch its pipe)",
                       1: f"{tmp_path}/q_1.pipe is not a pipe"}
