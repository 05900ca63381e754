"""`ncclf run` SIGKILLed leaves no job behind; `probe --nccl-tests` and evidence opens refuse FIFOs and devices
without blocking; stores ncclf starts listen on 127.0.0.1 only."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from nccl_forensics.capture.procs import read_proc
from nccl_forensics.files import NotRegular, atomic_output, open_regular, write_atomic

from .conftest import capped, run_ncclf

# A launcher whose child starts a grandchild in a session of its own (as torchrun does with its workers);
# each writes its pid where the test can find it, then sleeps.
JOB = r"""
import os, subprocess, sys, time
out = sys.argv[1]
if len(sys.argv) > 2:
    open(os.path.join(out, f"pid-{os.getpid()}"), "w").close()
    if sys.argv[2] == "child":
        subprocess.Popen([sys.executable, __file__, out, "grandchild"], start_new_session=True)
    time.sleep(300)
else:
    subprocess.Popen([sys.executable, __file__, out, "child"])
    open(os.path.join(out, f"pid-{os.getpid()}"), "w").close()
    time.sleep(300)
"""


def _alive(pid: int) -> bool:
    proc = read_proc(pid)
    return proc is not None


def test_a_sigkilled_ncclf_run_takes_its_job_with_it(tmp_path):
    script = tmp_path / "job.py"
    script.write_text(JOB)
    pids_dir = tmp_path / "pids"
    pids_dir.mkdir()
    run = subprocess.Popen(capped([sys.executable, "-m", "nccl_forensics", "run", "--out", str(tmp_path / "r"),
                                   "--", sys.executable, str(script), str(pids_dir)]),
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while len(list(pids_dir.iterdir())) < 3 and time.monotonic() < deadline:
            time.sleep(0.1)
        pids = [int(p.name.split("-")[1]) for p in pids_dir.iterdir()]
        assert len(pids) == 3 and all(_alive(p) for p in pids)
        run.send_signal(signal.SIGKILL)
        run.wait()
        deadline = time.monotonic() + 30
        while any(_alive(p) for p in pids) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert [p for p in pids if _alive(p)] == [], "the job outlived its ncclf run"
    finally:
        for p in pids_dir.iterdir():
            try:
                os.kill(int(p.name.split("-")[1]), signal.SIGKILL)
            except (ProcessLookupError, ValueError):
                pass
        if run.poll() is None:
            run.kill()
            run.wait()


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_probe_nccl_tests_refuses_a_fifo_or_a_device_at_once(tmp_path, kind):
    path = tmp_path / "all_reduce_perf.log"
    if kind == "fifo":
        os.mkfifo(path)
    else:
        path = Path("/dev/zero")
    done = run_ncclf("probe", "--nccl-tests", str(path), timeout=60)
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert "regular file" in done.stderr


def test_an_evidence_file_swapped_for_a_fifo_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "nccl.rank0.log"
    os.mkfifo(fifo)
    with pytest.raises(NotRegular):
        open_regular(str(fifo))                       # a blocking open would never return: no writer
    from nccl_forensics.errors import BadInput
    from nccl_forensics.sources.lines import iter_lines
    with pytest.raises(BadInput, match="regular file"):
        list(iter_lines(str(fifo)))


def test_outputs_replace_a_planted_symlink_instead_of_following_it(tmp_path):
    victim = tmp_path / "victim"
    victim.write_text("precious\n")
    planted = tmp_path / "report.md"
    planted.symlink_to(victim)
    write_atomic(planted, "the report\n")
    assert victim.read_text() == "precious\n"
    assert not planted.is_symlink() and planted.read_text() == "the report\n"
    with pytest.raises(RuntimeError):
        with atomic_output(tmp_path / "half.json") as fh:
            fh.write("{")
            raise RuntimeError("interrupted")
    assert not (tmp_path / "half.json").exists() and not list(tmp_path.glob(".half.json.*"))


@pytest.mark.parametrize("option", ["--report", "--trace"])
def test_diagnose_outputs_through_a_planted_symlink_leave_its_target_alone(tmp_path, option):
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "nccl.rank0.log").write_text("h:2:2 [0] NCCL INFO NCCL version 2.21.5+cuda12.4\n")
    victim = tmp_path / "victim"
    victim.write_text("precious\n")
    (tmp_path / "out").symlink_to(victim)
    done = run_ncclf("diagnose", str(logs), option, str(tmp_path / "out"), timeout=120)
    assert done.returncode in (0, 1, 4), done.stderr
    assert victim.read_text() == "precious\n"


def test_two_summaries_to_one_path_leave_one_whole_zip(tmp_path):
    import zipfile
    logs = tmp_path / "logs"
    logs.mkdir()
    for rank in range(2):
        (logs / f"nccl.rank{rank}.log").write_text(
            f"h:{rank}:{rank} [{rank}] NCCL INFO NCCL version 2.21.5+cuda12.4\n" * 20000)
    out = tmp_path / "s.ncclf"
    cmd = capped([sys.executable, "-m", "nccl_forensics", "summarize", "-o", str(out), str(logs)])
    runs = [subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE) for _ in range(2)]
    assert [r.wait(timeout=300) for r in runs] == [0, 0]
    with zipfile.ZipFile(out) as zf:
        assert zf.testzip() is None
    assert sorted(p.name for p in tmp_path.iterdir()) == ["logs", "s.ncclf"]


def test_the_probe_store_listens_on_loopback_only():
    pytest.importorskip("torch")
    code = ("import datetime, sys, torch.distributed as dist\n"
            "from nccl_forensics.capture.local_launch import loopback_store\n"
            "store = loopback_store(dist.TCPStore)('127.0.0.1', 0, None, True, datetime.timedelta(seconds=5), "
            "wait_for_workers=False)\n"
            "import subprocess; print(subprocess.run(['ss', '-ltnH', 'sport', '=', str(store.port)], "
            "capture_output=True, text=True).stdout)")
    done = subprocess.run(capped([sys.executable, "-c", code]), capture_output=True, text=True, timeout=120)
    listening = [line.split()[3] for line in done.stdout.splitlines() if line.strip()]
    if not listening:
        pytest.skip("ss shows no listening socket here: " + done.stderr[-300:])
    assert all(addr.startswith("127.0.0.1:") for addr in listening), listening
