"""`ncclf run` sets what is missing and keeps what the user set; torchrun gets --log-dir/--tee."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from nccl_forensics.capture.supervise import DEFAULT_SUBSYS, job_env, launcher_command
from nccl_forensics.cli import cli

B = Path("/out/vm")


def test_missing_variables_are_set_and_the_users_are_kept():
    env, lines = job_env({"NCCL_DEBUG": "WARN", "TORCH_NCCL_TRACE_BUFFER_SIZE": "100", "PATH": "/bin"}, B, DEFAULT_SUBSYS)
    assert env["NCCL_DEBUG"] == "WARN" and "TORCH_FR_BUFFER_SIZE" not in env
    assert env["NCCL_DEBUG_SUBSYS"] == "INIT,COLL,P2P,NET"
    assert env["NCCL_DEBUG_FILE"] == "/out/vm/nccl/nccl.%h.%p.log"
    assert env["TORCH_FR_DUMP_TEMP_FILE"] == "/out/vm/fr/nccl_trace_rank_"
    assert env["TORCH_NCCL_DUMP_ON_TIMEOUT"] == "1"
    assert env["TORCH_NCCL_DEBUG_INFO_PIPE_FILE"] == "/out/vm/.fr-pipes/rank_"
    assert "kept NCCL_DEBUG=WARN" in lines and "kept TORCH_NCCL_TRACE_BUFFER_SIZE=100" in lines


def test_torchrun_gets_a_log_dir_and_tee_unless_it_has_them():
    argv, _ = launcher_command(["/x/torchrun", "--nproc-per-node", "4", "train.py", "--lr", "1"], B)
    assert argv == ["/x/torchrun", "--log-dir", "/out/vm/torchrun_logs", "--tee", "3", "--nproc-per-node", "4",
                    "train.py", "--lr", "1"]
    argv, _ = launcher_command(["python", "-m", "torch.distributed.run", "--log_dir=/mine", "-r", "3", "t.py"], B)
    assert argv == ["python", "-m", "torch.distributed.run", "--log_dir=/mine", "-r", "3", "t.py"]
    argv, lines = launcher_command(["srun", "bash", "job.sh"], B)
    assert argv == ["srun", "bash", "job.sh"] and lines == []


def test_a_bare_torchrun_runs_on_our_interpreter_first():
    argv, _ = launcher_command(["torchrun", "--standalone", "t.py"], B)
    assert argv[-2:] == ["--standalone", "t.py"] and "--log-dir" in argv
    assert argv[0] != "torchrun" and (argv[0] == sys.executable or argv[0].endswith("torchrun"))


def test_run_without_a_command_or_with_a_bad_out_is_a_one_line_error(tmp_path):
    result = CliRunner().invoke(cli, ["run"])
    assert result.exit_code == 2 and "Missing argument" in result.output
    (tmp_path / "file").write_text("")
    from nccl_forensics.capture.supervise import RunOptions, Supervisor
    from nccl_forensics.errors import CaptureError
    try:
        Supervisor(["true"], RunOptions(out=tmp_path / "file" / "sub")).run()
    except CaptureError as exc:
        assert str(exc).startswith(f"--out {tmp_path / 'file' / 'sub'} is not writable")
    else:
        raise AssertionError("expected CaptureError")


def test_the_launchers_exit_code_and_output_come_through(tmp_path):
    code = "import os, sys; print('debug', os.environ['NCCL_DEBUG'], os.environ['TORCH_FR_BUFFER_SIZE']); sys.exit(3)"
    result = subprocess.run([sys.executable, "-m", "nccl_forensics", "run", "--out", str(tmp_path / "r"), "--host",
                             "n1", "--", sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 3, result.stderr
    bundle = tmp_path / "r" / "n1"
    assert (bundle / "console.log").read_text() == "debug INFO 2000\n"
    assert result.stdout.startswith("debug INFO 2000\n")
    assert (bundle / "manifest.json").exists()
    assert "launcher exit code 3" in result.stderr and "Traceback" not in result.stderr
