"""The kernel: the OOM killer, hung tasks, NVIDIA driver Xid lines; and the host allocators' out-of-memory lines.

Read in torvalds/linux mm/oom_kill.c (dump_header, __oom_kill_process), kernel/hung_task.c, and NVIDIA's
open-gpu-kernel-modules (src/nvidia/src/kernel/... `NVRM: Xid (PCI:...): N, ...`) with the Xid catalogue in the
NVIDIA GPU deployment guide; the Rust standard library's alloc error (library/std/src/alloc.rs) that tokenizers and
other Rust extensions print.
"""
from __future__ import annotations

from . import Message as M

# Xids that end the GPU's work (the process on it dies or hangs); 13/31/43 are usually the application's own fault.
_FATAL_XID = "(?:48|62|63|64|74|79|92|94|95|119|120|13|31|43|45|61|69|140)"

MESSAGES = [
    M("kernel.oom_killed_process",
      r"(?:Out of memory|Memory cgroup out of memory): Kill(?:ed)? process (?P<pid>\d+) \((?P<task>[^)]*)\)",
      "oom_kill", "failure", "oom", "Linux 2.6 - 6.x", "linux:mm/oom_kill.c:__oom_kill_process",
      "Out of memory: Killed process 812917 (python) total-vm:95135512kB, anon-rss:62341252kB, file-rss:0kB",
      "Out of memory: Killed process 812917 (python)", anchor="out of memory: Kill|Out of memory: Kill"),
    M("kernel.oom_invoked",
      r"(?P<task>\S+) invoked oom-killer: gfp_mask=(?P<gfp_mask>0x[0-9a-f]+)",
      "oom_invoked", "failure", "oom", "Linux 2.6 - 6.x", "linux:mm/oom_kill.c:dump_header",
      "python invoked oom-killer: gfp_mask=0x100cca(GFP_HIGHUSER_MOVABLE), order=0, oom_score_adj=0",
      "python invoked oom-killer: gfp_mask=0x100cca", anchor="invoked oom-killer"),
    M("kernel.hung_task",
      (r"INFO: task (?P<task>\S+):(?P<pid>\d+) blocked for more than", r" (?P<seconds>\d+) seconds"),
      "hung_task", "failure", None, "Linux 2.6 - 6.x", "linux:kernel/hung_task.c:check_hung_task",
      "INFO: task python:4021 blocked for more than 120 seconds.", "INFO: task python:4021 blocked for more than",
      anchor="blocked for more than"),
    M("kernel.nvidia_xid",
      r"NVRM: Xid \((?P<bus_id>[^)]*)\): (?P<xid>\d+),(?: pid=(?P<pid>\d+|'<unknown>'),)?(?: name=(?P<task>\S+),)?\s*"
      r"(?P<reason>.*)",
      "xid", "failure", None, "NVIDIA driver 3xx - 5xx", "nvidia:open-gpu-kernel-modules (Xid reporting)",
      "NVRM: Xid (PCI:0000:3b:00): 79, pid=4021, GPU has fallen off the bus.", "NVRM: Xid (PCI:0000:3b:00): 79,",
      anchor="NVRM: Xid"),
    M("host.alloc_failed",
      r"memory allocation of (?P<requested_bytes>\d+) bytes failed",
      "oom", "failure", "oom", "Rust std 1.x (tokenizers, safetensors, ...)", "rust:library/std/src/alloc.rs:"
      "default_alloc_error_hook", "memory allocation of 34359738368 bytes failed",
      "memory allocation of 34359738368 bytes failed", data={"oom_kind": "host"}, anchor="memory allocation of"),
    M("host.cannot_allocate",
      r"(?:std::bad_alloc|Cannot allocate memory \(errno 12\)|OSError: \[Errno 12\] Cannot allocate memory)",
      "oom", "failure", "oom", "libstdc++ / glibc", "gcc:libstdc++-v3/libsupc++/new_op.cc",
      "terminate called after throwing an instance of 'std::bad_alloc'", "std::bad_alloc",
      data={"oom_kind": "host"}, anchor="std::bad_alloc|Cannot allocate memory"),
]
FATAL_XIDS = frozenset(int(x) for x in _FATAL_XID.strip("(?:)").split("|"))
