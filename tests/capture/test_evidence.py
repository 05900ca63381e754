"""The files a job writes, located from its ranks' environment and copied (never moved) into the bundle."""
from __future__ import annotations

import os
import socket
import subprocess
import sys
import time

from nccl_forensics.capture.evidence import (
    copy_fr_dumps,
    copy_job_files,
    fr_dump_candidates,
    nccl_debug_pattern,
)
from nccl_forensics.capture.find import Job, RankProc
from nccl_forensics.capture.procs import read_proc


def rank(env: dict, r: int = 1, pid: int | None = None) -> RankProc:
    pid = pid or os.getpid()
    return RankProc(pid, read_proc(pid), r, 4, r, env, ["python", "train.py"])


def test_nccl_debug_file_expands_host_pid_and_percent(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    r = rank({"NCCL_DEBUG_FILE": "logs/nccl.%h.%p.100%%.log"})
    assert nccl_debug_pattern(r) == f"{tmp_path}/logs/nccl.\0h.{os.getpid()}.100%.log"
    host = socket.gethostname().split(".")[0]
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / f"nccl.{host}.{os.getpid()}.100%.log").write_text("x NCCL INFO y\n")
    bundle = tmp_path / "bundle"
    items = copy_job_files(Job("j", None, None, 4, [r]), bundle, 0.0)
    assert [(i.kind, i.status, i.path) for i in items] == \
        [("nccl_log", "copied", f"nccl/nccl.{host}.{os.getpid()}.100%.log")]
    assert (tmp_path / "logs" / f"nccl.{host}.{os.getpid()}.100%.log").exists(), "copied, not moved"


def test_a_debug_file_not_written_yet_is_recorded_as_missing(tmp_path):
    items = copy_job_files(Job("j", None, None, 4, [rank({"NCCL_DEBUG_FILE": f"{tmp_path}/n.%p"})]), tmp_path / "b", 0.0)
    assert [(i.status, i.rank) for i in items] == [("missing", 1)]


def test_torchruns_run_folder_comes_from_the_error_file_variable(tmp_path):
    run = tmp_path / "logs" / "none_ab12cd" / "attempt_0"
    for local in ("0", "1"):
        (run / local).mkdir(parents=True)
        (run / local / "stderr.log").write_text(f"[default{local}]:boom\n")
    env = {"TORCHELASTIC_ERROR_FILE": str(run / "1" / "error.json")}
    items = copy_job_files(Job("j", None, "none", 2, [rank(env)]), tmp_path / "b", 0.0)
    assert sorted(i.path for i in items) == ["torchrun_logs/none_ab12cd/attempt_0/0/stderr.log",
                                             "torchrun_logs/none_ab12cd/attempt_0/1/stderr.log"]


def test_flight_recorder_dump_names_follow_torch(tmp_path):
    assert fr_dump_candidates(rank({"TORCH_FR_DUMP_TEMP_FILE": "/d/trace_"}, r=3)) == ["/d/trace_3"]
    assert fr_dump_candidates(rank({"TORCH_NCCL_DEBUG_INFO_TEMP_FILE": "/d/t_"}, r=3)) == ["/d/t_3"]
    assert fr_dump_candidates(rank({"TORCH_FR_DUMP_TEMP_FILE": "/d/exact", "TORCH_FR_DUMP_DYNAMIC_FILE_NAME": "1"})) \
        == ["/d/exact"]
    assert fr_dump_candidates(rank({"HOME": "/h", "XDG_CACHE_HOME": "/c"}, r=2)) == \
        ["/c/torch/comm_lib_trace_rank_2", "/h/.cache/torch/nccl_trace_rank_2"]


def test_a_dump_older_than_the_job_is_left_out_and_one_inside_the_bundle_stays_in_place(tmp_path):
    old = tmp_path / "trace_1"
    old.write_bytes(b"\x80\x02}.")
    os.utime(old, (1000, 1000))
    r = rank({"TORCH_FR_DUMP_TEMP_FILE": str(tmp_path / "trace_")})
    [item] = copy_fr_dumps(r, tmp_path / "b", job_started_epoch=time.time() - 60)
    assert (item.status, item.path) == ("stale", None)
    os.utime(old, None)
    [item] = copy_fr_dumps(r, tmp_path / "b", job_started_epoch=time.time() - 60)
    assert (item.status, item.path) == ("copied", "fr/nccl_trace_rank_1")
    inside = tmp_path / "b" / "fr"
    r = rank({"TORCH_FR_DUMP_TEMP_FILE": str(inside / "nccl_trace_rank_")})
    [item] = copy_fr_dumps(r, tmp_path / "b", job_started_epoch=0.0)
    assert (item.status, item.path) == ("in_place", "fr/nccl_trace_rank_1")


def test_the_file_a_rank_prints_to_is_copied(tmp_path):
    out = tmp_path / "slurm-42.out"
    with open(out, "w") as fh:
        child = subprocess.Popen([sys.executable, "-c", "print('hello', flush=True); import time; time.sleep(30)"],
                                 stdout=fh, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 20
        while out.read_text() != "hello\n" and time.monotonic() < deadline:
            time.sleep(0.05)
        items = copy_job_files(Job("j", None, None, 1, [rank({}, pid=child.pid)]), tmp_path / "b", 0.0)
    finally:
        child.kill()
        child.wait()
    assert [(i.kind, i.path) for i in items] == [("console", "console/slurm-42.out")]
    assert (tmp_path / "b" / "console" / "slurm-42.out").read_text() == "hello\n"
