"""`ncclf capture` on real hung torchrun gloo jobs (4 ranks on localhost): everything found, the job left as it
was, the diagnosis right — with py-spy, with torch's debug server (rank 0 the hung one), without ptrace rights.

The capture runs with NCCLF_CAPTURE_ENV naming the test job's own marker variable, so that on a shared
machine it never attaches to somebody else's job; otherwise it runs with no arguments.
"""
from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time

import pytest

from nccl_forensics.capture.node import host_label
from nccl_forensics.capture.procs import is_alive
from nccl_forensics.capture.tools import find_tool
from nccl_forensics.pipeline.reduce import diagnose

from .conftest import needs_torch
from .jobs import MATCH_VAR, HangingJob, ncclf

pytestmark = [pytest.mark.repro, pytest.mark.slow, needs_torch]
HOST = host_label()
# Another user whose interpreter can still be started here: the venv's python lives under /root (0700), so the
# test lends it CAP_DAC_READ_SEARCH to read files — which gives no right to read another user's /proc/PID/environ
# or to ptrace it.
AS_NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--inh-caps=+dac_read_search",
             "--ambient-caps=+dac_read_search"]


@pytest.fixture(scope="module")
def sleeping_job(tmp_path_factory):
    """4 ranks; rank 3 waits for data outside any collective at step 3, the others wait in all_reduce."""
    job = HangingJob.start(tmp_path_factory.mktemp("sleep"), mode="sleep", culprit=3)
    yield job
    assert job.stop() == []


@pytest.fixture(scope="module")
def barrier_job(tmp_path_factory):
    """4 ranks under torch's debug server; rank 0 calls barrier() where the others call all_reduce."""
    pytest.importorskip("tabulate", reason="torch's debug server frontend needs tabulate (the [repro] extra)")
    job = HangingJob.start(tmp_path_factory.mktemp("barrier"), mode="barrier", culprit=0, debug_server=True)
    yield job
    assert job.stop() == []


def capture_env(job: HangingJob) -> dict:
    return {"NCCLF_CAPTURE_ENV": f"{MATCH_VAR}={job.marker}"}


def verdict(path) -> tuple[str, list[int]]:
    v = diagnose([str(path)]).verdict
    return str(getattr(v.cls, "value", v.cls)), sorted(v.culprit_ranks or [])


def test_capture_with_no_arguments_finds_every_rank_and_leaves_the_job_as_it_was(sleeping_job, tmp_path):
    before = {p.pid: p for p in sleeping_job.seen.values()}
    steps = sleeping_job.last_steps()
    done = ncclf("capture", env={**capture_env(sleeping_job), "XDG_STATE_HOME": str(tmp_path)}, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "ranks 0-3 here" in done.stdout and "Traceback" not in done.stderr
    [out] = list((tmp_path / "ncclf").glob("capture-*"))          # never the working directory
    bundle = out / HOST
    doc = json.loads((bundle / "manifest.json").read_text())
    workers = {p.pid for p in sleeping_job.workers()}
    assert {r["pid"] for r in doc["ranks"]} == workers and [r["rank"] for r in doc["ranks"]] == [0, 1, 2, 3]
    assert len(list((bundle / "pyspy").glob("rank*.py-spy-*.txt"))) == 4 and doc["failed"] == []
    assert all(is_alive(p) for p in before.values()), "the job must still run, every process of it"
    time.sleep(1.0)
    assert sleeping_job.last_steps() == steps, "the hung job must stay exactly where it was"
    assert verdict(out) == ("stuck_rank", [3])


def test_torchs_debug_server_gives_fr_and_stacks_even_when_rank_0_hangs(barrier_job, tmp_path):
    done = ncclf("capture", "--out", str(tmp_path / "cap"), env=capture_env(barrier_job))
    assert done.returncode == 0, done.stdout + done.stderr
    bundle = tmp_path / "cap" / HOST
    assert sorted(p.name for p in (bundle / "fr").glob("fr_trace_json_rank_*.json")) == \
        [f"fr_trace_json_rank_{r}.json" for r in range(4)]
    assert len(list((bundle / "stacks").glob("rank*.stack-*.txt"))) == 4
    assert "Thread 0x" in (bundle / "stacks").glob("rank0.stack-*.txt").__next__().read_text()
    assert verdict(tmp_path / "cap") == ("op_mismatch", [0])
    shutil.rmtree(bundle / "pyspy")                  # the debug server's evidence alone says the same
    assert verdict(tmp_path / "cap") == ("op_mismatch", [0])


@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("setpriv"), reason="needs root and setpriv")
def test_another_user_gets_a_one_line_reason_and_a_partial_bundle(sleeping_job, shared_tmp):
    tmp_path = shared_tmp
    out = tmp_path / "open"
    out.mkdir()
    out.chmod(0o777)
    rank1 = sleeping_job.workers()[1].pid
    pyspy = find_tool("py-spy")                      # that user's own copy (root's bin/ is out of its reach)
    (tmp_path / "bin").mkdir()
    shutil.copy2(pyspy, tmp_path / "bin" / "py-spy")
    env = {**os.environ, "PATH": f"{tmp_path / 'bin'}:/usr/bin:/bin"}
    cmd = [*AS_NOBODY, sys.executable, "-m", "nccl_forensics", "capture", "--pid", str(rank1), "--out", str(out)]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120, cwd=tmp_path, env=env)
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("Error: no stack of any rank could be taken")
    doc = json.loads((out / HOST / "manifest.json").read_text())
    reasons = {(f["kind"], f.get("pid")): f["reason"] for f in doc["failed"]}
    assert "permission denied" in reasons[("find", rank1)]
    assert reasons[("py-spy", rank1)].startswith("ptrace refused")
    assert is_alive(next(p for p in sleeping_job.seen.values() if p.pid == rank1))

    closed = tmp_path / "closed"                     # root's folder: not writable for that user
    closed.mkdir()
    cmd[-1] = str(closed / "cap")
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120, cwd=tmp_path, env=env)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == f"Error: --out {closed / 'cap'} is not writable: Permission denied\n"


def test_two_nodes_captured_apart_merge_into_one_diagnosis(tmp_path):
    """A 2-node job (two torchrun agents on localhost, 2 ranks each); rank 3, on the second node, hangs."""
    job = HangingJob.start(tmp_path / "job", mode="sleep", culprit=3, nproc=2, nnodes=2)
    try:
        for node, label in ((0, "node-a"), (1, "node-b")):
            done = ncclf("capture", "--pid", str(job.popens[node].pid), "--host", label, "--out", str(tmp_path / "cap"))
            assert done.returncode == 0, done.stdout + done.stderr
    finally:
        assert job.stop() == []
    ranks = {label: [r["rank"] for r in json.loads((tmp_path / "cap" / label / "manifest.json").read_text())["ranks"]]
             for label in ("node-a", "node-b")}
    assert ranks == {"node-a": [0, 1], "node-b": [2, 3]}
    result = diagnose([str(tmp_path / "cap")])
    v = result.verdict
    assert (str(getattr(v.cls, "value", v.cls)), sorted(v.culprit_ranks)) == ("stuck_rank", [3])
    logs = [s for s in result.sources if "node-b/torchrun_logs" in s.path and s.path.endswith("stdout.log")]
    assert sorted(s.rank for s in logs) == [2, 3] and {s.host for s in logs} == {"node-b"}


def test_the_host_label_defaults_to_this_machines_name():
    assert HOST == socket.gethostname().split(".")[0].replace(" ", "_")


@pytest.mark.parametrize("nproc", [2, 4])
def test_a_gloo_hang_without_flight_recorder_is_diagnosed_from_py_spy_alone(tmp_path, nproc):
    """FR off, the culprit sleeping outside any collective: the py-spy stacks alone name it (issue 30), with 2
    ranks as with 4, and the capture is limited to the job's launcher with --pid."""
    job = HangingJob.start(tmp_path / "job", mode="sleep", culprit=nproc - 1, nproc=nproc, flight_recorder=False)
    try:
        done = ncclf("capture", "--pid", str(job.popens[0].pid), "--out", str(tmp_path / "cap"))
        assert done.returncode == 0, done.stdout + done.stderr
        pyspy = list((tmp_path / "cap" / HOST / "pyspy").glob("rank*.py-spy-*.txt"))
        assert len(pyspy) == nproc and not list((tmp_path / "cap" / HOST).glob("fr/*"))
        assert verdict(tmp_path / "cap" / HOST / "pyspy") == ("stuck_rank", [nproc - 1])
        assert verdict(tmp_path / "cap") == ("stuck_rank", [nproc - 1])
    finally:
        assert job.stop() == []
