"""The kernel: the OOM killer, hung tasks, hard lockups and RCU stalls, a panic, the NIC's link and health (mlx5, the
network stack's transmit watchdog), fatal PCIe errors on the GPU, NVIDIA driver Xid lines (and the GPU health monitors
that repeat them: DCGM, the Kubernetes device plugin), AMD amdgpu GPU hangs and page faults; and the host allocators'
out-of-memory lines.

Read in torvalds/linux mm/oom_kill.c (dump_header, __oom_kill_process), kernel/hung_task.c, kernel/watchdog*.c,
kernel/rcu/tree_stall.h, kernel/panic.c (and arch/x86/kernel/cpu/mce/core.c's mce_panic),
drivers/net/ethernet/mellanox/mlx5/core (en_main.c, events.c, health.c), net/sched/sch_generic.c, drivers/pci/pcie/aer.c, and NVIDIA's
open-gpu-kernel-modules (src/nvidia/src/kernel/... `NVRM: Xid (PCI:...): N, ...`) with the Xid catalogue in the
NVIDIA GPU deployment guide; linux drivers/gpu/drm/amd/amdgpu (amdgpu_job.c, gmc_v9_0.c); the Rust standard
library's alloc error (library/std/src/alloc.rs) that tokenizers and other Rust extensions print; NVIDIA/DCGM
dcgmlib/dcgm_errors.h and NVIDIA/k8s-device-plugin internal/rm/health.go.
"""
from __future__ import annotations

from . import Message as M

# Xids after which the process on that GPU is gone or its NVLink traffic is (the entries below say which and why)
_DIES = "(?:79|119|120|62|61|48|63|64|94|95|140|74|13|31|109|14[4-9]|150)"
_XID = r"NVRM: Xid \((?P<bus_id>[^)]*)\): (?P<xid>{codes}),"

MESSAGES = [
    M("kernel.oom_killed_process",
      # 2.6.2x - 2.6.35 chose the victim with a lowercase `kill process N (comm) score S or a child`, 2.6.36 - 4.18
      # with `Kill process … or sacrifice child`, each followed by `Killed process`; 4.19+ prints only `Killed process`
      r"(?:Out of memory|Memory cgroup out of memory)(?: \(oom_kill_allocating_task\))?: "
      r"(?:Kill(?:ed)?|kill) process (?P<pid>\d+) \((?P<task>[^)]*)\)",
      "oom_kill", "failure", "oom", "Linux 2.6 - 6.x", "linux:mm/oom_kill.c:__oom_kill_process",
      "Out of memory: Killed process 812917 (python) total-vm:95135512kB, anon-rss:62341252kB, file-rss:0kB",
      "Out of memory: Killed process 812917 (python)",
      anchor="out of memory: Kill|Out of memory: Kill|Out of memory: kill|_task): Kill"),
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
    # the soft-lockup watchdog (kernel/watchdog.c watchdog_timer_fn; `watchdog: ` / `NMI watchdog: ` is its pr_fmt):
    # a CPU ran kernel code for longer than 2 x watchdog_thresh without scheduling; the task named is the one on it
    M("kernel.soft_lockup",
      (r"BUG: soft lockup - CPU#(?P<cpu>\d+) stuck for", r" (?P<seconds>\d+)s! \[(?P<task>[^\]:]+):(?P<pid>\d+)\]"),
      "hung_task", "failure", None, "Linux 2.6 - 6.x", "linux:kernel/watchdog.c:watchdog_timer_fn",
      "watchdog: BUG: soft lockup - CPU#12 stuck for 22s! [python:4021]", "watchdog: BUG: soft lockup - CPU#12 stuck for",
      anchor="BUG: soft lockup"),
    M("kernel.nvidia_xid",
      r"NVRM: Xid \((?P<bus_id>[^)]*)\): (?P<xid>\d+),(?: pid=(?P<pid>\d+|'<unknown>'),)?(?: name=(?P<task>\S+),)?\s*"
      r"(?P<reason>.*)",
      "xid", "failure", None, "NVIDIA driver 3xx - 5xx", "nvidia:open-gpu-kernel-modules (Xid reporting)",
      "NVRM: Xid (PCI:0000:3b:00): 61, pid=4021, Internal micro-controller breakpoint/warning (GPU-1)",
      "NVRM: Xid (PCI:0000:3b:00): 61,", anchor="NVRM: Xid"),
    # Xids by what they mean for the process on that GPU (NVIDIA's Xid catalogue in the GPU deployment guide); the
    # generic entry above frames them and lends its fields (bus id, pid, the driver's text).
    M("kernel.xid_gpu_lost",
      _XID.format(codes="79|119|120|62"),
      "xid", "failure", "dropped_rank", "NVIDIA driver 3xx - 5xx (119/120: GSP firmware, R510+)",
      "nvidia:open-gpu-kernel-modules (Xid reporting)",
      "NVRM: Xid (PCI:0000:3b:00): 79, pid=4021, GPU has fallen off the bus.", "NVRM: Xid (PCI:0000:3b:00): 79,",
      data={"category": "gpu_lost"}, anchor="NVRM: Xid"),
    M("kernel.xid_memory_error",
      _XID.format(codes="48|94|95|140"),
      "xid", "failure", "dropped_rank", "NVIDIA driver 3xx - 5xx (63/64 row remapping: A100+, 94/95: A100+)",
      "nvidia:open-gpu-kernel-modules (Xid reporting)",
      "NVRM: Xid (PCI:0000:3b:00): 95, pid=4021, Uncontained: FBHUB. RST: Yes, D-RST: No",
      "NVRM: Xid (PCI:0000:3b:00): 95,", data={"category": "ecc"}, anchor="NVRM: Xid"),
    M("kernel.xid_nvlink",
      _XID.format(codes="74"),
      "xid", "failure", "dropped_rank", "NVIDIA driver 3xx - 5xx",
      "nvidia:open-gpu-kernel-modules (Xid reporting)",
      "NVRM: Xid (PCI:0000:3b:00): 74, pid=4021, NVLink: fatal error detected on link 2(0x0, 0x0, 0x10000, 0x0, 0x0, "
      "0x0, 0x0)", "NVRM: Xid (PCI:0000:3b:00): 74,", data={"category": "nvlink"}, anchor="NVRM: Xid"),
    M("kernel.xid_app_fault",
      _XID.format(codes="13|31"),
      "xid", "failure", "dropped_rank", "NVIDIA driver 3xx - 5xx", "nvidia:open-gpu-kernel-modules (Xid reporting)",
      "NVRM: Xid (PCI:0000:3b:00): 31, pid=4021, name=python, Ch 00000010, intr 10000000. MMU Fault: ENGINE GRAPHICS "
      "GPCCLIENT_T1_0 faulted @ 0x7f3a_3f200000. Fault is of type FAULT_PDE ACCESS_TYPE_READ",
      "NVRM: Xid (PCI:0000:3b:00): 31,", data={"category": "app_fault"}, anchor="NVRM: Xid"),
    # Xid 109 (`errorString CTX SWITCH TIMEOUT`): the GPU did not switch away from a context in time; the driver
    # tears that context's channels down (the process sees `unspecified launch failure` or hangs in its next call);
    # a hung kernel, the driver or the GPU itself. The process on that GPU is the one that stopped
    M("kernel.xid_ctx_switch_timeout",
      _XID.format(codes="109"),
      "xid", "failure", "dropped_rank", "NVIDIA driver R470+ (`errorString` R525+)",
      "nvidia:open-gpu-kernel-modules (Xid reporting); NVIDIA Xid catalogue 109",
      "NVRM: Xid (PCI:0000:01:00): 109, pid=763199, name=python3, channel 0x0000001f, errorString CTX SWITCH TIMEOUT, "
      "Info 0x1bc028", "NVRM: Xid (PCI:0000:01:00): 109,", data={"category": "gpu_hang"}, anchor="NVRM: Xid"),
    # Xid 61 (`Internal micro-controller breakpoint/warning`, the PMU's firmware stopped at a breakpoint): the GPU stops
    # answering the work on it (NVIDIA's catalogue: reset the GPU), often before 62 (the halt). The process on that
    # GPU stalls in its next kernel or driver call: its peers wait on it
    M("kernel.xid_microcontroller_breakpoint",
      _XID.format(codes="61"),
      "xid", "failure", "dropped_rank", "NVIDIA driver 3xx - 5xx", "nvidia:open-gpu-kernel-modules (Xid reporting); "
      "NVIDIA Xid catalogue 61",
      "NVRM: Xid (PCI:0000:43:00): 61, pid=90214, name=python, 0cec(3098) 00000000 00000000",
      "NVRM: Xid (PCI:0000:43:00): 61,", data={"category": "gpu_hang"}, anchor="NVRM: Xid"),
    # Xid 92 (`High single-bit ECC error rate`): corrected errors came often; ECC corrected every one, no process is
    # touched (NVIDIA's catalogue: no action, watch the counts). A health notice, not the job's failure
    M("kernel.xid_sbe_rate",
      _XID.format(codes="92"),
      "xid", "benign", None, "NVIDIA driver 3xx - 5xx", "nvidia:open-gpu-kernel-modules (Xid reporting); NVIDIA Xid "
      "catalogue 92",
      "NVRM: Xid (PCI:0000:5d:00): 92, pid='<unknown>', name=<unknown>, High single-bit ECC error rate",
      "NVRM: Xid (PCI:0000:5d:00): 92,", data={"category": "ecc"}, anchor="NVRM: Xid"),
    # Xid 63/64: the driver recorded (63) or failed to record (64) a page retirement / row remapping in the InfoROM
    # (`Row Remapper: New row marked for remapping, reset gpu to activate.`): the bookkeeping after a memory error, not
    # the error itself: an uncorrectable one is its own Xid beside it (48/94/95, which decides), and rows with
    # correctable errors are remapped too, with no process lost. Alone the line says only that the GPU wants a reset
    M("kernel.xid_ecc_recorded",
      _XID.format(codes="63|64"),
      "xid", "benign", None, "NVIDIA driver 3xx - 5xx (row remapping: A100+; page retirement before)",
      "nvidia:open-gpu-kernel-modules (Xid reporting); NVIDIA Xid catalogue 63/64",
      "NVRM: Xid (PCI:0000:10:1c): 63, pid=1896, Row Remapper: New row marked for remapping, reset gpu to activate.",
      "NVRM: Xid (PCI:0000:10:1c): 63,", data={"category": "ecc"}, anchor="NVRM: Xid"),
    # Xid 154 (R550+): the driver's recovery action for the GPU changed, `from 0x%x (%s) to 0x%x (%s)` (None, GPU Reset
    # Required, Node Reboot Required, Drain P2P, Drain and Reset): any action but None means the GPU takes no more work
    # until it is reset or the node rebooted, after the fatal error that set it. (Back to None is the reset done, but a
    # terminal wraps that line before its last words: it stays the generic entry's.)
    M("kernel.xid_recovery_action",
      _XID.format(codes="154") + r"(?: pid=[^,]*,)?(?: name=[^,]*,)? GPU recovery action changed from 0x[0-9a-fA-F]+ "
      r"\([^)]*\) to 0x(?P<action_code>[0-9a-fA-F]*[1-9a-fA-F][0-9a-fA-F]*) \((?P<recovery_action>[^)]+)\)",
      "xid", "failure", "dropped_rank", "NVIDIA driver R550 - R580 (GSP: Hopper, Blackwell)",
      "nvidia:open-gpu-kernel-modules (Xid 154 report); NVIDIA Xid catalogue 154",
      "NVRM: Xid (PCI:0000:b3:00): 154, GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)",
      "NVRM: Xid (PCI:0000:b3:00): 154, GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)",
      data={"category": "gpu_lost"}, anchor="NVRM: Xid"),
    # NVLink 5 (Blackwell) errors: the unit, then the driver's own severity; a fatal one ends the GPU's NVLink traffic
    M("kernel.xid_nvlink5_fatal",
      r"NVRM: Xid \((?P<bus_id>[^)]*)\): (?P<xid>14[4-9]|150),? (?P<unit>[A-Z][A-Z0-9_]+)\s+Fatal\b",
      "xid", "failure", "dropped_rank", "NVIDIA driver R570+ (NVLink 5; `[0x...]` info before R575, `(0x... x6)` after)",
      "nvidia:open-gpu-kernel-modules (Xid reporting); NVIDIA Xid catalogue 144-150",
      "NVRM: Xid (PCI:0018:01:00): 149, NETIR_LINK_EVT  Fatal   XC0 i0 Link 09 (0x025525c6 0x00000000 0x00000000 "
      "0x00000000 0x00000000 0x00000000)", "NVRM: Xid (PCI:0018:01:00): 149, NETIR_LINK_EVT  Fatal",
      data={"category": "nvlink"}, anchor="NVRM: Xid"),
    M("kernel.xid_nvlink5_nonfatal",
      r"NVRM: Xid \((?P<bus_id>[^)]*)\): (?P<xid>14[4-9]|150),? (?P<unit>[A-Z][A-Z0-9_]+)\s+Nonfatal\b",
      "xid", "benign", None, "NVIDIA driver R570+ (NVLink 5)",
      "nvidia:open-gpu-kernel-modules (Xid reporting); NVIDIA Xid catalogue 144-150",
      "NVRM: Xid (PCI:0018:01:00): 145, RLW_RXPIPE Nonfatal XC0 i0 Link 13 (0x0409a0c2 0x00000008 0x00000001 "
      "0x00000000 0x00100000 0x00000004)", "NVRM: Xid (PCI:0018:01:00): 145, RLW_RXPIPE Nonfatal",
      data={"category": "nvlink"}, anchor="NVRM: Xid"),
    # The preemptive cleanup (Xid 45) the driver ties to the Xid that caused it (` caused by previous Xid %d`, added
    # when it knows the root cause): it ends the channels of that fault, so it means what that fault means; a cleanup
    # without the suffix (below) is a consequence.
    M("kernel.xid_after_fatal",
      _XID.format(codes="45") + r".*? caused by previous Xid (?P<cause_xid>" + _DIES.strip("(?:)") + r")\b",
      "xid", "failure", "dropped_rank", "NVIDIA driver R570+ (the root-cause suffix)",
      "nvidia:open-gpu-kernel-modules src/nvidia/src/kernel/gpu/rc/kernel_rc.c (krc Xid report: rootCauseXidStr)",
      "NVRM: Xid (PCI:0000:dc:00): 45, pid=1818990, name=python3, Ch 00000001 caused by previous Xid 149",
      "NVRM: Xid (PCI:0000:dc:00): 45, pid=1818990, name=python3, Ch 00000001 caused by previous Xid 149",
      data={"category": "after_fatal_xid"}, anchor="NVRM: Xid"),
    M("kernel.xid_consequence",
      _XID.format(codes="43|45"),
      "xid", "consequence", None, "NVIDIA driver 3xx - 5xx", "nvidia:open-gpu-kernel-modules (Xid reporting)",
      "NVRM: Xid (PCI:0000:3b:00): 43, pid=4021, Ch 00000008", "NVRM: Xid (PCI:0000:3b:00): 43,",
      data={"category": "stopped"}, anchor="NVRM: Xid"),
    # ---- other kernel lines about the job's processes
    M("kernel.oom_summary",
      (r"oom-kill:constraint=(?P<constraint>CONSTRAINT_\w+),", r".*?task=(?P<task>[^,]+),pid=(?P<pid>\d+)"),
      "oom_invoked", "failure", "oom", "Linux 4.19 - 6.x", "linux:mm/oom_kill.c:dump_oom_summary",
      "oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,mems_allowed=0-1,oom_memcg=/slurm/uid_1000/job_42,"
      "task_memcg=/slurm/uid_1000/job_42/step_0,task=python,pid=812917,uid=1000",
      "oom-kill:constraint=CONSTRAINT_MEMCG,", anchor="oom-kill:constraint="),
    M("kernel.segfault",
      r"(?P<task>[^\s\[]+)\[(?P<pid>\d+)\]:? (?:segfault at |general protection fault ip:)",
      "signal_report", "failure", "dropped_rank", "Linux 2.6 - 6.x", "linux:arch/x86/mm/fault.c:show_signal_msg; "
      "arch/x86/kernel/traps.c:do_general_protection", "python[4021]: segfault at 0 ip 00007f3a1c2b4e10 sp "
      "00007ffd2a3b1f08 error 4 in libc.so.6[7f3a1c200000+195000]", "python[4021]: segfault at ",
      data={"signal": "SIGSEGV"}, anchor="segfault at |general protection fault ip:"),
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
    # NVSwitch errors (SXid) on NVSwitch systems (HGX/DGX), from the nvswitch kernel driver (NVSWITCH_PRINT_SXID:
    # `nvidia-nvswitchN: SXid (PCI:bus): NNNNN, Fatal|Non-fatal, <what>`, then `Severity`/`Data` lines with the same
    # head) and from nvidia-fabricmanager's log (`detected NVSwitch fatal error N on fid F on NVSwitch pci bus id ...`).
    # A fatal one stops the NVLink traffic through that switch port: the GPUs behind it lose their peers until
    # reset, like Xid 74; a non-fatal one is corrected and the job runs on
    M("kernel.nvswitch_sxid_fatal",
      r"nvidia-nvswitch(?P<switch>\d+): SXid \(PCI:(?P<bus_id>[0-9A-Fa-f:.]+)\): (?P<sxid>\d+), Fatal",
      "xid", "failure", "dropped_rank", "NVIDIA driver R418 - R580 (NVSwitch systems)",
      "nvidia:open-gpu-kernel-modules src/common/nvswitch/kernel/inc/error_nvswitch.h:NVSWITCH_PRINT_SXID",
      "nvidia-nvswitch2: SXid (PCI:0000:87:00.0): 20034, Fatal, Link 33 LTSSM Fault Up",
      "nvidia-nvswitch2: SXid (PCI:0000:87:00.0): 20034, Fatal", data={"category": "nvlink"}, anchor="SXid (PCI:"),
    M("kernel.nvswitch_sxid_nonfatal",
      r"nvidia-nvswitch(?P<switch>\d+): SXid \(PCI:(?P<bus_id>[0-9A-Fa-f:.]+)\): (?P<sxid>\d+), Non-fatal",
      "xid", "benign", None, "NVIDIA driver R418 - R580 (NVSwitch systems)",
      "nvidia:open-gpu-kernel-modules src/common/nvswitch/kernel/inc/error_nvswitch.h:NVSWITCH_PRINT_SXID",
      "nvidia-nvswitch3: SXid (PCI:0000:05:00.0): 12028, Non-fatal, Link 32 egress non-posted PRIV error (First)",
      "nvidia-nvswitch3: SXid (PCI:0000:05:00.0): 12028, Non-fatal", data={"category": "nvlink"}, anchor="SXid (PCI:"),
    M("kernel.fabricmanager_nvswitch_fatal",
      (r"detected NVSwitch fatal error (?P<sxid>\d+) on fid (?P<fid>\d+)",
       r" on NVSwitch pci bus id (?P<bus_id>\S+) physical id (?P<switch>\d+) port (?P<switch_port>\d+)"),
      "xid", "failure", "dropped_rank", "nvidia-fabricmanager R450 - R580",
      "nvidia:fabricmanager (closed source; /var/log/fabricmanager.log, Fabric Manager user guide)",
      "[ERROR] [tid 841] detected NVSwitch fatal error 20034 on fid 0 on NVSwitch pci bus id 00000000:86:00.0 physical "
      "id 3 port 33", "detected NVSwitch fatal error 20034 on fid 0", data={"category": "nvlink"},
      anchor="detected NVSwitch fatal error"),
    M("kernel.fabricmanager_nvswitch_nonfatal",
      r"detected NVSwitch non-fatal error (?P<sxid>\d+) on fid (?P<fid>\d+)",
      "xid", "benign", None, "nvidia-fabricmanager R450 - R580",
      "nvidia:fabricmanager (closed source; /var/log/fabricmanager.log, Fabric Manager user guide)",
      "[ERROR] [tid 12727] detected NVSwitch non-fatal error 12028 on fid 0 on NVSwitch pci bus id 00000000:86:00.0 "
      "physical id 3 port 61", "detected NVSwitch non-fatal error 12028 on fid 0", data={"category": "nvlink"},
      anchor="detected NVSwitch non-fatal error"),
    # CPython's MemoryError (PyErr_NoMemory: malloc failed in the interpreter or an extension), raised with no
    # message, so its type is all a traceback prints (the exception line itself, never a word in prose or a frame's
    # `raise MemoryError`); `OutOfMemoryError` (torch's CUDA one) is another entry's
    M("host.python_memory_error",
      r"(?:^|(?<=: )|(?<=\]:))(?:[a-z_]\w*\.)*MemoryError(?=\s*$|: )",
      "oom", "failure", "oom", "CPython 2.x - 3.14", "cpython:Objects/exceptions.c:PyErr_NoMemory",
      "MemoryError", "MemoryError", data={"oom_kind": "host"}, anchor="MemoryError"),
    # NumPy's _ArrayMemoryError (numpy/core/_exceptions.py, 1.17+; numpy/_core 2.x) prints the array's size;
    # 1.16 raised a plain MemoryError `Unable to allocate array with shape ...`
    M("host.numpy_alloc_failed",
      r"Unable to allocate (?:(?P<requested_bytes>\d+(?:\.\d*)? (?:bytes|[KMGTP]iB)) for an )?array with shape",
      "oom", "failure", "oom", "NumPy 1.16 - 2.x (the size 1.17+)",
      "numpy:numpy/_core/_exceptions.py:_ArrayMemoryError.__str__",
      "numpy.core._exceptions._ArrayMemoryError: Unable to allocate 37.3 GiB for an array with shape (100000, 100000) "
      "and data type float32", "Unable to allocate 37.3 GiB for an array with shape", data={"oom_kind": "host"},
      anchor="array with shape"),
    # the driver's own words when it loses a GPU without an Xid line (nv.c; split over three NVRM lines)
    M("kernel.gpu_fallen_off_bus",
      r"fallen off the bus and is not responding",
      "xid", "failure", "dropped_rank", "NVIDIA driver 3xx - 5xx", "nvidia:open-gpu-kernel-modules kernel-open/nvidia/nv.c",
      "NVRM: fallen off the bus and is not responding to commands.", "fallen off the bus and is not responding",
      data={"category": "gpu_lost"}, anchor="fallen off the bus"),
    # the driver's own line beside Xid 79 (NV_DEV_PRINTF in RmCheckForGpuLost / osHandleGpuLost, open-gpu-kernel-modules
    # src/nvidia/arch/nvalloc/unix/src/osinit.c): `NVRM: GPU 0000:3b:00.0: GPU has fallen off the bus.`
    M("kernel.gpu_lost_device_line",
      r"NVRM: GPU (?P<bus_id>[0-9A-Fa-f]{0,8}:?[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-9A-Fa-f]): GPU has fallen off the bus",
      "xid", "failure", "dropped_rank", "NVIDIA driver 3xx - 5xx", "nvidia:open-gpu-kernel-modules osinit.c (osHandleGpuLost)",
      "NVRM: GPU 0000:3b:00.0: GPU has fallen off the bus.", "NVRM: GPU 0000:3b:00.0: GPU has fallen off the bus",
      data={"category": "gpu_lost", "xid": 79}, anchor="GPU has fallen off the bus"),
    M("kernel.nvml_device_lost",
      r"Unable to determine the device handle for (?:GPU|gpu) ?(?P<bus_id>[0-9A-Fa-f:.]+): (?P<reason>Unknown Error|GPU is lost)",
      "xid", "failure", "dropped_rank", "nvidia-smi (NVML) 3xx - 5xx", "nvidia:nvidia-smi (nvmlDeviceGetHandleByIndex)",
      "Unable to determine the device handle for GPU0000:03:00.0: Unknown Error",
      "Unable to determine the device handle for GPU0000:03:00.0: Unknown Error", data={"category": "gpu_lost"},
      anchor="Unable to determine the device handle"),
    # any other NVML client's report of a call that NVML answered NVML_ERROR_GPU_IS_LOST (15; nvmlErrorString: `GPU is
    # lost`, nvml.h: "the GPU has fallen off the bus or has otherwise become inaccessible"). Slurm's gpu/nvml plugin
    # (src/plugins/gpu/nvml/gpu_nvml.c, in slurmstepd's accounting) prints `NVML: Failed to get usage(%d): %s`,
    # `NVML: Failed to get %s running process count(%d): %s`, `NVML: Failed to get device handle for GPU %d: %s`
    M("kernel.nvml_call_gpu_lost",
      r"NVML: Failed to (?P<nvml_call>[^:()]+?)(?:\((?P<code>\d+)\))?: GPU is lost",
      "xid", "failure", "dropped_rank", "Slurm 19.05 - 25.x (gpu/nvml plugin); NVML 3xx - 5xx",
      "slurm:src/plugins/gpu/nvml/gpu_nvml.c; nvidia:nvml.h (NVML_ERROR_GPU_IS_LOST)",
      "slurmstepd: error: NVML: Failed to get usage(15): GPU is lost",
      "NVML: Failed to get usage(15): GPU is lost", data={"category": "gpu_lost"}, anchor="GPU is lost"),

    # ---- the GPU health monitors' words for an Xid the driver reported. DCGM's health watches and diagnostics
    # (dcgmlib/dcgm_errors.h: DCGM_FR_XID_ERROR_MSG `Detected XID %u for GPU %u`, DCGM_FR_NVLINK_DOWN_MSG `GPU %u's
    # NvLink link %d is currently down`), in `dcgmi health -c` / `dcgmi diag` tables and dcgm-exporter's logs; the GPU
    # is DCGM's index, not a rank. NVIDIA's Kubernetes device plugin (internal/rm/health.go, nvidia.go before 0.10)
    # reports the critical Xids NVML sends it, after skipping the application ones (13, 31, 43, 45, 68, 109), and
    # takes the GPU out of the node's allocatable set
    M("dcgm.xid_fatal",
      r"Detected XID (?P<xid>(?!6[34]\b)(?:" + _DIES.strip("(?:)") + r")) for GPU (?P<gpu>\d+)\b",
      "xid", "failure", "dropped_rank", "DCGM (dcgm_errors.h as read at ffde4e5; earlier releases not read)",
      "dcgm:dcgmlib/dcgm_errors.h:DCGM_FR_XID_ERROR_MSG (health watch DCGM_HEALTH_WATCH_*)",
      "|                           | Detected XID 79 for GPU 2                                |",
      "Detected XID 79 for GPU 2", data={"category": "gpu_lost"}, anchor="Detected XID "),
    M("dcgm.nvlink_down",
      r"GPU (?P<gpu>\d+)'s NvLink link (?P<link>\d+) is currently down",
      "xid", "failure", "dropped_rank", "DCGM (dcgm_errors.h as read at ffde4e5; earlier releases not read)",
      "dcgm:dcgmlib/dcgm_errors.h:DCGM_FR_NVLINK_DOWN_MSG",
      "| Warning                   | GPU 1's NvLink link 3 is currently down        |",
      "GPU 1's NvLink link 3 is currently down", data={"category": "nvlink"}, anchor="s NvLink link "),
    M("k8s.device_plugin_xid",
      r"XidCriticalError: Xid=(?P<xid>\d+) on Device=(?P<device>[^;\s]+); marking device as unhealthy",
      "xid", "failure", "dropped_rank", "NVIDIA k8s-device-plugin (the same words in nvidia.go and, later, internal/rm/health.go)",
      "k8s-device-plugin:internal/rm/health.go:checkHealth (nvidia.go before 0.10)",
      "I0810 15:36:05.551834       1 health.go:169] XidCriticalError: Xid=79 on Device=GPU-455e672a-1c3e-9f0a-2b17-"
      "7a1d2e4c9f01; marking device as unhealthy.", "XidCriticalError: Xid=79 on Device=GPU-455e672a-1c3e-9f0a-2b17-"
      "7a1d2e4c9f01; marking device as unhealthy", data={"category": "gpu_lost"}, anchor="marking device as unhealthy"),
    # ---- AMD's amdgpu driver (drivers/gpu/drm/amd/amdgpu): its counterparts of the fatal Xids, for the process on
    # that GPU. A job on a ring that stopped signalling its fences (amdgpu_job.c amdgpu_job_timedout: DRM_ERROR
    # `[drm:amdgpu_job_timedout [amdgpu]] *ERROR* ring %s timeout, signaled seq=%u, emitted seq=%u`, dev_err
    # `amdgpu 0000:..: amdgpu: ring ...` since 2024); the driver then resets the GPU (`GPU reset begin!`) unless the
    # ring soft-recovered (`ring %s timeout, but soft recovered`, another wording: no process lost its work).
    M("kernel.amdgpu_ring_timeout",
      (r"ring (?P<ring>\S+) timeout, signaled seq=", r"(?P<signaled_seq>\d+)", r", emitted seq=(?P<emitted_seq>\d+)"),
      "xid", "failure", "dropped_rank", "Linux 4.15 - 6.x (amdgpu; DRM_ERROR before 2024, dev_err after)",
      "linux:drivers/gpu/drm/amd/amdgpu/amdgpu_job.c:amdgpu_job_timedout",
      "amdgpu 0000:c1:00.0: amdgpu: ring comp_1.1.0 timeout, signaled seq=1187, emitted seq=1189",
      "amdgpu 0000:c1:00.0: amdgpu: ring comp_1.1.0 timeout, signaled seq=", data={"category": "gpu_hang"},
      anchor=" timeout, signaled seq="),
    # a GPU page fault the driver cannot retry (gmc_v9_0.c / gmc_v10_0.c / gmc_v11_0.c process_interrupt:
    # `[gfxhub0] no-retry page fault (src_id:%u ring:%u vmid:%u pasid:%u, for process %s pid %d thread %s pid %d)`;
    # the process part since 5.x, `[mmhub0]` for the other hub): the process on that GPU touched memory it has not
    # mapped, the kernel's view of ROCr's `Memory access fault by GPU node-N`
    M("kernel.amdgpu_page_fault",
      (r"\[(?P<hub>(?:gfx|mm)hub\d*)\] no-retry page fault \(src_id:\d+",
       r" ring:\d+ vmid:\d+ pasid:\d+(?:, for process (?P<task>\S*) pid (?P<pid>\d+))?"),
      "xid", "failure", "dropped_rank", "Linux 5.x - 6.x (amdgpu gmc_v9_0.c+; `for process` from 5.x)",
      "linux:drivers/gpu/drm/amd/amdgpu/gmc_v9_0.c:gmc_v9_0_process_interrupt",
      "amdgpu 0000:83:00.0: amdgpu: [gfxhub0] no-retry page fault (src_id:0 ring:40 vmid:8 pasid:32776, for process "
      "python pid 4277 thread python pid 4277)", "[gfxhub0] no-retry page fault (src_id:0",
      data={"category": "gpu_fault"}, anchor="] no-retry page fault (src_id:"),
    # the older memory controllers' fault interrupt (gmc_v6_0.c / gmc_v7_0.c / gmc_v8_0.c process_interrupt, and an
    # SR-IOV VF on gmc_v8+, which cannot decode the fault: `GPU fault detected: %d 0x%08x`, then the
    # VM_CONTEXT1_PROTECTION_FAULT_ADDR/STATUS lines; radeon's evergreen/cayman/si/cik print the same words): the
    # process on that GPU touched memory it has not mapped, as the no-retry page fault of gmc_v9+
    M("kernel.amdgpu_gpu_fault",
      r"GPU fault detected: (?P<src_id>\d+) 0x(?P<src_data>[0-9a-fA-F]{8})",
      "xid", "failure", "dropped_rank", "Linux 3.x - 6.x (radeon, amdgpu gmc_v6/v7/v8; SR-IOV VFs on later gmc)",
      "linux:drivers/gpu/drm/amd/amdgpu/gmc_v8_0.c:gmc_v8_0_process_interrupt (gmc_v6_0.c, gmc_v7_0.c; "
      "radeon evergreen.c/cik.c/si.c)", "amdgpu 0000:03:00.0: GPU fault detected: 146 0x0c880c0c",
      "GPU fault detected: 146 0x0c880c0c", data={"category": "gpu_fault"}, anchor="GPU fault detected: "),
    # RAS: an uncorrectable (ECC, poison) error counted in one of the GPU's blocks (amdgpu_ras.c: `%ld uncorrectable
    # hardware errors detected in %s block` (dev_info) since 5.x, per die on multi-die parts as `socket: %d, die: %d,
    # %u new uncorrectable hardware errors detected in %s block` and the running total `... detected in total in
    # %s block`; amdgpu_umc.c's page retirement `%ld uncorrectable hardware errors detected in UMC block`). The GPU
    # is reset and the process on it loses its context; a count of 0 (`no uncorrectable ...`) is no error
    M("kernel.amdgpu_ras_uncorrectable",
      r"\b(?P<count>[1-9]\d*) (?:new )?uncorrectable hardware errors detected in (?:total in )?(?P<block>\w+) block",
      "xid", "failure", "dropped_rank", "Linux 5.x - 6.x (amdgpu_ras.c, amdgpu_umc.c; per socket/die on MI300)",
      "linux:drivers/gpu/drm/amd/amdgpu/amdgpu_ras.c:amdgpu_ras_error_print_error_data",
      "amdgpu 0000:29:00.0: amdgpu: 1 uncorrectable hardware errors detected in umc block",
      "1 uncorrectable hardware errors detected in umc block", data={"category": "gpu_ecc"},
      anchor="uncorrectable hardware errors detected in"),
    # RAS's fatal interrupt (amdgpu_ras.c amdgpu_ras_global_ras_isr: `uncorrectable hardware error(ERREVENT_ATHUB_
    # INTERRUPT) detected!` since 5.x, `{N}` event number first from 6.x, capitalised in the ras_mgr rewrite; 4.x-5.x
    # printed `[drm] RAS event of type ERREVENT_ATHUB_INTERRUPT detected!`): the GPU must be reset, every process on
    # it loses its context
    M("kernel.amdgpu_ras_fatal",
      r"[Uu]ncorrectable hardware error\((?P<event>ERREVENT_\w+)\) detected|RAS event of type (?P<event2>ERREVENT_\w+) "
      r"detected",
      "xid", "failure", "dropped_rank", "Linux 4.19 - 6.x (amdgpu_ras.c, ras_mgr)",
      "linux:drivers/gpu/drm/amd/amdgpu/amdgpu_ras.c:amdgpu_ras_global_ras_isr",
      "amdgpu 0000:dd:00.0: {1}uncorrectable hardware error(ERREVENT_ATHUB_INTERRUPT) detected!",
      "uncorrectable hardware error(ERREVENT_ATHUB_INTERRUPT) detected", data={"category": "gpu_ecc"},
      anchor="ncorrectable hardware error(ERREVENT_|RAS event of type ERREVENT_"),
    # amdkfd's scheduler hang (kfd_device_queue_manager.c unmap_queues_cpsch: pr_err/dev_err `The cp might be in an
    # unrecoverable state due to an unsuccessful queues preemption`, `kfd: the cp ...` in 4.x): the compute queues of
    # a GPU did not stop when told; the driver marks the HWS hung and resets the GPU, so the processes on it are lost
    M("kernel.amdkfd_hws_hang",
      r"[Tt]he cp might be in an unrecoverable state due to an unsuccessful queues preemption",
      "xid", "failure", "dropped_rank", "Linux 4.x - 6.x (amdkfd)",
      "linux:drivers/gpu/drm/amd/amdkfd/kfd_device_queue_manager.c:unmap_queues_cpsch",
      "amdgpu 0000:3d:00.0: amdgpu: The cp might be in an unrecoverable state due to an unsuccessful queues preemption",
      "The cp might be in an unrecoverable state due to an unsuccessful queues preemption",
      data={"category": "gpu_hang"}, anchor="he cp might be in an unrecoverable state"),
    # a reset that did not bring the GPU back (amdgpu_device.c amdgpu_device_gpu_recover: dev_info `GPU reset(%d)
    # failed` and, only for a non-zero result, `GPU reset end with ret = %d`): the GPU is unusable until the node is
    # reset, every process on it is lost (a reset that succeeds prints `GPU reset(%d) succeeded!`, not read here)
    M("kernel.amdgpu_reset_failed",
      r"GPU reset(?:\(\d+\))? failed|GPU reset end with ret = (?P<ret>-\d+)",
      "xid", "failure", "dropped_rank", "Linux 5.x - 6.x (amdgpu)",
      "linux:drivers/gpu/drm/amd/amdgpu/amdgpu_device.c:amdgpu_device_gpu_recover",
      "amdgpu 0000:a1:00.0: amdgpu: GPU reset(3) failed", "GPU reset(3) failed",
      data={"category": "gpu_lost"}, anchor="GPU reset(|GPU reset failed|GPU reset end with ret = "),
    # the MES (the scheduler firmware of gfx11+ GPUs) did not answer the driver (mes_v11_0.c / mes_v12_0.c
    # submit_pkt_and_poll_completion: DRM_ERROR `MES failed to response msg=%d` in the first driver, then dev_err `MES
    # failed to respond to msg=%s` with ` (%s)` for a misc op, `MES(%d) failed ...` naming the pipe later), and amdkfd's
    # queue removal that gives up on it (kfd_device_queue_manager.c remove_queue_mes: `MES might be in unrecoverable
    # state, issue a GPU reset`): the queues of that GPU cannot be removed, the driver resets the GPU and the process
    # on it loses its work
    M("kernel.amdgpu_mes_no_response",
      (r"(?:MES(?:\(\d+(?:,\d+)?\))? failed to respon(?:d to|se) msg=|MES might be in unrecoverable state)",
       r"(?P<mes_msg>\w+)"),
      "xid", "failure", "dropped_rank", "Linux 6.x (amdgpu mes_v11_0.c, mes_v12_0.c: `to response msg=%d` in the first "
      "driver, `MES(%d)` in the later; amdkfd kfd_device_queue_manager.c)",
      "linux:drivers/gpu/drm/amd/amdgpu/mes_v11_0.c:mes_v11_0_submit_pkt_and_poll_completion; "
      "drivers/gpu/drm/amd/amdkfd/kfd_device_queue_manager.c:remove_queue_mes",
      "amdgpu 0000:c3:00.0: amdgpu: MES failed to respond to msg=REMOVE_QUEUE", "MES failed to respond to msg=",
      data={"category": "gpu_hang"}, anchor="failed to respond to msg=|failed to response msg=|MES might be in unrecoverable"),
    # a compute process read poisoned memory (an uncorrectable ECC error left in VRAM): amdkfd's interrupt handler
    # (kfd_int_process_v9.c event_interrupt_poison_consumption_v9, v10/v11/v12 alike: `poison is consumed by client
    # %d, kick off gpu reset flow`, `by source %d` in the ras_mgr handlers, `{N}` event number first from 6.10; before:
    # `RAS poison consumption, fall back to gpu reset flow: client id %d`) signals the process and resets the GPU
    M("kernel.amdgpu_poison_consumed",
      r"poison is consumed by (?:client|source) (?P<client>\d+), kick off gpu reset flow"
      r"|RAS poison consumption, fall back to gpu reset flow",
      "xid", "failure", "dropped_rank", "Linux 6.x (amdkfd kfd_int_process_v9.c and its v10-v12 siblings)",
      "linux:drivers/gpu/drm/amd/amdkfd/kfd_int_process_v9.c:event_interrupt_poison_consumption_v9",
      "amdgpu 0000:0c:00.0: amdgpu: {3}poison is consumed by client 12, kick off gpu reset flow",
      "poison is consumed by client 12, kick off gpu reset flow", data={"category": "gpu_ecc"},
      anchor=", kick off gpu reset flow|RAS poison consumption, fall back to gpu reset flow"),
    # a GPU reset that came back without its memory (amdgpu_device.c after the reset: DRM_INFO `VRAM is lost due to
    # GPU reset!`, dev_info later): every context on that GPU, each process's buffers and queues, is gone
    M("kernel.amdgpu_vram_lost",
      r"VRAM is lost due to GPU reset",
      "xid", "failure", "dropped_rank", "Linux 4.16 - 6.x (amdgpu)",
      "linux:drivers/gpu/drm/amd/amdgpu/amdgpu_device.c:amdgpu_device_reinit_after_reset (amdgpu_device_gpu_recover "
      "before)", "amdgpu 0000:03:00.0: amdgpu: VRAM is lost due to GPU reset!", "VRAM is lost due to GPU reset",
      data={"category": "gpu_lost"}),
    # ---- the host stalled: the hard-lockup (NMI) watchdog and RCU's stall detector; the processes on that CPU hang
    M("kernel.hard_lockup",
      # watchdog_overflow_callback (kernel/watchdog.c 2.6.36 - 4.12, watchdog_hld.c 4.13 - 6.5, watchdog_perf.c /
      # watchdog_hardlockup_check 6.6+): a CPU took no timer interrupt for watchdog_thresh seconds
      r"Watchdog detected hard LOCKUP on cpu (?P<cpu>\d+)",
      "hung_task", "failure", None, "Linux 2.6.36 - 6.x", "linux:kernel/watchdog_hld.c:watchdog_overflow_callback "
      "(watchdog.c before 4.13, watchdog_perf.c / watchdog.c 6.6+)",
      "NMI watchdog: Watchdog detected hard LOCKUP on cpu 13", "Watchdog detected hard LOCKUP on cpu 13",
      anchor="detected hard LOCKUP on cpu"),
    # panic() (kernel/panic.c: `Kernel panic - not syncing: <reason>`): the node stops; every process on it is gone
    # without a word of its own (a fatal machine check: arch/x86/kernel/cpu/mce/core.c mce_panic `Fatal machine
    # check`; an oops under panic_on_oops; the hard-lockup watchdog with hardlockup_panic)
    M("kernel.panic",
      (r"Kernel panic - not syncing: ", r"(?P<reason>\S[^\n]*?)\s*\]?\s*$"),
      "warn", "failure", "dropped_rank", "Linux 2.6 - 6.x", "linux:kernel/panic.c:panic",
      "Kernel panic - not syncing: Fatal machine check", "Kernel panic - not syncing: ",
      data={"category": "node_lost"}, anchor="Kernel panic - not syncing"),
    M("kernel.rcu_stall",
      # print_cpu_stall / print_other_cpu_stall (kernel/rcu/tree_stall.h 5.6+, tree_plugin.h / tree.c before): a CPU
      # did not pass through a quiescent state for rcu_cpu_stall_timeout (21 s)
      r"INFO: (?P<flavor>rcu_\w+|rcu_preempt) (?:self-detected stall on CPU|detected stalls? on CPUs/tasks)",
      "hung_task", "failure", None, "Linux 2.6.3x - 6.x", "linux:kernel/rcu/tree_stall.h:print_cpu_stall",
      "rcu: INFO: rcu_sched self-detected stall on CPU", "INFO: rcu_sched self-detected stall on CPU",
      anchor="self-detected stall on CPU|detected stalls on CPUs|detected stall on CPUs"),
    # ---- the NIC (mlx5, the ConnectX driver NCCL's IB/RoCE traffic runs on) and the network stack
    M("kernel.mlx5_link_down",
      # mlx5e_update_carrier (en_main.c, netdev_info): the port's carrier went away (cable, switch port, peer)
      r"mlx5_core (?P<bus_id>[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.\d) (?P<iface>\S+): Link down",
      "warn", "failure", "network_error", "Linux 4.x - 6.x (mlx5e)", "linux:drivers/net/ethernet/mellanox/mlx5/core/"
      "en_main.c:mlx5e_update_carrier", "mlx5_core 0000:3b:00.0 ens1f0np0: Link down",
      "mlx5_core 0000:3b:00.0 ens1f0np0: Link down", data={"category": "link_down"}, anchor=": Link down"),
    M("kernel.mlx5_module_event",
      # the port module (transceiver) events (events.c port_module, port.c before 5.2): `Port module event: module
      # %u, %s` for plugged/unplugged/error, `Port module event[error]: module %u, %s, %s` with the error's name
      r"Port module event(?:\[error\])?: module (?P<module>\d+), (?P<status>Cable unplugged|Cable error)",
      "warn", "failure", "network_error", "Linux 4.x - 6.x (mlx5_core)",
      "linux:drivers/net/ethernet/mellanox/mlx5/core/events.c:port_module",
      "mlx5_core 0000:3b:00.0: mlx5_port_module_event:1157:(pid 0): Port module event: module 0, Cable unplugged",
      "Port module event: module 0, Cable unplugged", data={"category": "link_down"}, anchor="Port module event"),
    M("kernel.mlx5_health",
      # poll_health (health.c): the firmware's health counter stopped; the driver then enters its error state
      r"device's health compromised - reached miss count",
      "warn", "failure", "network_error", "Linux 3.x - 6.x (mlx5_core)",
      "linux:drivers/net/ethernet/mellanox/mlx5/core/health.c:poll_health",
      "mlx5_core 0000:3b:00.0: poll_health:800:(pid 0): device's health compromised - reached miss count",
      "device's health compromised - reached miss count", data={"category": "nic_fatal"},
      anchor="device's health compromised"),
    M("kernel.netdev_tx_timeout",
      # dev_watchdog (net/sched/sch_generic.c): a transmit queue made no progress for the device's watchdog_timeo
      # (` %u ms` added in 6.x)
      r"NETDEV WATCHDOG: (?P<iface>\S+) \((?P<driver>[^)]+)\): transmit queue (?P<queue>\d+) timed out",
      "warn", "failure", "network_error", "Linux 2.6 - 6.x", "linux:net/sched/sch_generic.c:dev_watchdog",
      "NETDEV WATCHDOG: ens1f0np0 (mlx5_core): transmit queue 3 timed out 5376 ms",
      "NETDEV WATCHDOG: ens1f0np0 (mlx5_core): transmit queue 3 timed out", anchor="NETDEV WATCHDOG:"),
    # ---- PCIe: an uncorrectable fatal error reported against the NVIDIA device (aer.c aer_print_error: `PCIe Bus
    # Error: severity=Uncorrected (Fatal), ...` under the device's driver name): the GPU is lost to its process
    M("kernel.pcie_fatal_gpu",
      r"nvidia (?P<bus_id>[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.\d): PCIe Bus Error: severity=Uncorrected \(Fatal\)",
      "xid", "failure", "dropped_rank", "Linux 2.6.19 - 6.x", "linux:drivers/pci/pcie/aer.c:aer_print_error",
      "nvidia 0000:3b:00.0: PCIe Bus Error: severity=Uncorrected (Fatal), type=Inaccessible, (Unregistered Agent ID)",
      "nvidia 0000:3b:00.0: PCIe Bus Error: severity=Uncorrected (Fatal)", data={"category": "gpu_lost"},
      anchor="PCIe Bus Error: severity=Uncorrected (Fatal)"),
    # PCIe error recovery reached the NVIDIA device, whose driver registers no PCI error handlers (err.c
    # report_error_detected, 5.x - 6.x: pci_info `AER: Can't recover (no error_detected callback)`, `can't` in later
    # versions): that vote (PCI_ERS_RESULT_NO_AER_DRIVER) fails the recovery (`AER: Device recovery failed`) and the GPU
    # stays unusable to its process. Printed for an uncorrectable error only (fatal or non-fatal), often with the
    # error itself under the root port's name, so the GPU's own line is the one read. (Before, aerdrv_core.c's
    # KERN_DEBUG `device has no AER-aware driver` did not say the recovery failed: 2.6-era kernels recovered past it.)
    M("kernel.pcie_gpu_unrecoverable",
      r"nvidia (?P<bus_id>[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.\d): (?:AER: )?[Cc]an't recover \(no error_detected "
      r"callback\)",
      "xid", "failure", "dropped_rank", "Linux 5.x - 6.x",
      "linux:drivers/pci/pcie/err.c:report_error_detected",
      "nvidia 0000:03:00.0: AER: can't recover (no error_detected callback)",
      "nvidia 0000:03:00.0: AER: can't recover (no error_detected callback)", data={"category": "gpu_lost"},
      anchor="an't recover (no error_detected callback)"),
]
