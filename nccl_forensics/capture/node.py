"""This node's context: kernel messages about the job, GPU state, network interfaces, an allow-listed environment.

Kernel messages come from `dmesg` (or `journalctl -k` where dmesg is restricted). Only lines logged since
the job started are kept, and of those only what concerns the job: an OOM report that killed one of its
processes (or hit a cgroup we name), a line naming one of its pids, and hardware/network trouble that
hits every process on the node (`NVRM: Xid`, link down, NETDEV WATCHDOG, hung tasks). Other jobs' OOM
kills on a shared node stay out, so they cannot be blamed on this one.
"""
from __future__ import annotations

import re
import socket
import subprocess
from pathlib import Path

from .redact import redact_argv  # noqa: F401  (the one redaction; kept importable from here)
from .tools import find_tool

TOOL_TIMEOUT_S = 10.0
_STAMP = re.compile(r"\[\s*(\d+\.\d+)\]")          # dmesg's "[22163.588510] " (seconds since boot)
_KILLED = re.compile(r"Killed process (\d+) ")
_NODE_WIDE = re.compile(r"NVRM: Xid|Xid \(|NETDEV WATCHDOG|[Ll]ink is [Dd]own|link down|blocked for more than \d+ "
                        r"seconds|Machine check|mce: |EDAC |PCIe Bus Error|AER: ")
ENV_PREFIXES = ("NCCL_", "TORCH_", "TORCHELASTIC_", "GLOO_", "RCCL_", "HIP_", "ROCR_", "CUDA_", "SLURM_")
ENV_NAMES = {"MASTER_ADDR", "MASTER_PORT", "RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "GROUP_RANK",
             "GROUP_WORLD_SIZE", "ROLE_RANK", "ROLE_WORLD_SIZE", "ROLE_NAME", "OMP_NUM_THREADS", "HOSTNAME"}
_SECRET = re.compile(r"TOKEN|KEY|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH|COOKIE|SESSION", re.I)


def host_label(label: str | None = None) -> str:
    """This node's name as a folder name: the short host name unless the user gave one."""
    name = label or socket.gethostname().split(".")[0] or "host"
    return re.sub(r"[^\w.-]+", "_", name)


def env_snapshot(env: dict[str, str]) -> dict[str, str]:
    """The variables that matter to a collective job, never one that looks like a secret."""
    return {k: v for k, v in sorted(env.items())
            if (k in ENV_NAMES or k.startswith(ENV_PREFIXES)) and not _SECRET.search(k)}


def kernel_log() -> tuple[list[str], str]:
    """(lines, where from). dmesg first; the journal where dmesg is refused (kernel.dmesg_restrict)."""
    lines, why = _run(["dmesg"])
    if lines is not None:
        return lines, "dmesg"
    journal, jwhy = _run(["journalctl", "-k", "--no-pager", "-o", "short-monotonic", "-b"])
    if journal is not None:
        return [_monotonic_to_dmesg(line) for line in journal], "journalctl -k"
    return [], f"dmesg: {why}; journalctl: {jwhy}"


def job_kernel_lines(lines: list[str], since_s: float, pids: set[int], cgroup: str | None = None) -> list[str]:
    """The kernel lines stamped after `since_s` (seconds since boot) that concern the job (see module doc)."""
    kept: list[str] = []
    block: list[str] = []
    pid_words = re.compile(r"\b(?:%s)\b" % "|".join(map(str, sorted(pids)))) if pids else None
    for line in lines:
        m = _STAMP.match(line)
        if m and float(m.group(1)) <= since_s:
            continue
        if "invoked oom-killer" in line:
            block = []
        killed = _KILLED.search(line)
        if block or "invoked oom-killer" in line or "oom-kill:" in line:
            block.append(line)
            if killed:
                if int(killed.group(1)) in pids or (cgroup and any(cgroup in b for b in block)):
                    kept.extend(block)
                block = []
            continue
        if _NODE_WIDE.search(line) or (pid_words and pid_words.search(line)):
            kept.append(line)
    return kept


def kernel_log_mark() -> float:
    """The stamp of the kernel log's last line now (seconds since boot): a start mark for job_kernel_lines.

    A time, not a line count: once the ring buffer is full, old lines drop out as new ones come in.
    """
    for line in reversed(kernel_log()[0]):
        m = _STAMP.match(line)
        if m:
            return float(m.group(1))
    return -1.0


def gpu_reports() -> dict[str, tuple[str | None, str]]:
    """{file name: (text or None, how it went)} for `nvidia-smi -q` and `rocm-smi --showallinfo`, when present."""
    out = {}
    for name, args in (("nvidia-smi-q.txt", ["nvidia-smi", "-q"]), ("rocm-smi.txt", ["rocm-smi", "--showallinfo"])):
        if find_tool(args[0]) is None:
            continue
        lines, why = _run(args)
        out[name] = ("\n".join(lines) + "\n" if lines is not None else None, why)
    return out


def interfaces() -> str:
    """Network interfaces and their addresses (`ip -o addr`, else what /sys and the socket module say)."""
    lines, _ = _run(["ip", "-o", "addr", "show"])
    if lines:
        return "\n".join(lines) + "\n"
    rows = []
    for _, name in socket.if_nameindex():
        state = _read(Path("/sys/class/net") / name / "operstate")
        mtu = _read(Path("/sys/class/net") / name / "mtu")
        rows.append(f"{name} state {state or '?'} mtu {mtu or '?'}")
    return "\n".join(rows) + "\n"


def _run(args: list[str]) -> tuple[list[str] | None, str]:
    exe = find_tool(args[0])
    if exe is None:
        return None, "not installed"
    try:
        done = subprocess.run([exe, *args[1:]], capture_output=True, text=True, timeout=TOOL_TIMEOUT_S,
                              errors="replace", stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return None, f"timed out after {TOOL_TIMEOUT_S:.0f} s"
    except OSError as exc:
        return None, exc.strerror or str(exc)
    if done.returncode != 0:
        return None, (done.stderr.strip().splitlines() or [f"exit code {done.returncode}"])[0]
    return done.stdout.splitlines(), "ok"


def _monotonic_to_dmesg(line: str) -> str:
    """journalctl's short-monotonic `[ 1234.567890] host kernel: msg` → dmesg's `[ 1234.567890] msg`."""
    m = re.match(r"(\[\s*\d+\.\d+\]) \S+ kernel: ?(.*)$", line)
    return f"{m.group(1)} {m.group(2)}" if m else line


def _read(path: Path) -> str | None:
    try:
        return path.read_text().strip()
    except OSError:
        return None
