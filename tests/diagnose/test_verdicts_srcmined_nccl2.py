"""NCCL and RCCL message families missed on the source-mined set srcmined_nccl2, each in the wordings its versions
print and in the console forms it arrives in (the WARN with its error-return trace, then torch's backend error:
2.x with `Last error:`, 1.x without):

- host memory NCCL could not get: `Failed to malloc N bytes` (include/alloc.h 2.3+), `Unrecoverable error detected:
  malloc(size=N) returned null` (misc/utils.cc 2.13+), the SHM transport's `Call to posix_fallocate failed : No space
  left on device` (include/shm.h 2.3 - 2.11); device memory through `Failed to CUDA calloc async N bytes` (2.14+);
- NET/IB's `Can't merge net devices with different link_layer` (2.20 - 2.25, the older words of `Attempted to connect
  incompatible devices`): NICs of two link types, not a broken link;
- the machine's or the job's setup under ncclSystemError, not the network: NVML that cannot start or answer
  (`nvmlInit_v2() failed: Driver/library version mismatch`), MNNVL without its fabric (2.20 - 2.30 wordings),
  NCCL_GRAPH_FILE / RCCL's MSCCL algorithm file that cannot be opened, RCCL without its ROCm runtime library.
"""
from __future__ import annotations

import pytest

from nccl_forensics.model import Source, SourceKind
from nccl_forensics.sources import parse_source

from .consoles import PROGRESS, console_verdict

HEAD = "gpu-node-07:48211:48290 [1] "
RESULTS = {
    "sys": ("unhandled system error", "ncclSystemError: System call (e.g. socket, malloc) or external library call "
            "failed or device error. "),
    "cuda": ("unhandled cuda error", "ncclUnhandledCudaError: Call to CUDA function failed."),
    "int": ("internal error", "ncclInternalError: Internal check failed."),
}


def _console(where: str, warn: str, code: str, torch: str, nccl: str = "2.18.3") -> str:
    words, text = RESULTS[code]
    lines = [f"{HEAD}{where} NCCL WARN {warn}", f"{HEAD}NCCL INFO init.cc:1358 -> 2",
             "Traceback (most recent call last):", '  File "train.py", line 41, in <module>', "    dist.barrier()"]
    if torch == "2":
        lines += [f"torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/"
                  f"ProcessGroupNCCL.cpp:1275, {words} (run with NCCL_DEBUG=INFO for details), NCCL version {nccl}",
                  text, "Last error:", warn]
    else:
        lines += [f"RuntimeError: NCCL error in: /opt/conda/conda-bld/pytorch_1646755903507/work/torch/csrc/"
                  f"distributed/c10d/ProcessGroupNCCL.cpp:1169, {words}, NCCL version {nccl}", text.strip()]
    return "\n".join(lines)


HOST_OOM = [("include/alloc.h:43", "Failed to malloc 2147483648 bytes", "sys", "2.8.4"),
            ("include/alloc.h:136", "Failed to malloc 16777216 bytes", "sys", "2.28.9"),
            ("include/shm.h:28", "Call to posix_fallocate failed : No space left on device", "sys", "2.9.9"),
            ("include/shm.h:29", "Call to mmap failed : Cannot allocate memory", "sys", "2.7.8"),
            ("include/alloc.h:346", "Failed to CUDA calloc async 268435456 bytes", "cuda", "2.28.9")]


@pytest.mark.parametrize("where,warn,code,nccl", HOST_OOM)
@pytest.mark.parametrize("torch", ["1", "2"])
def test_memory_nccl_could_not_get_is_oom(where, warn, code, nccl, torch, tmp_path):
    verdict = console_verdict(tmp_path, _console(where, warn, code, torch, nccl))
    assert verdict.cls == "oom", verdict.summary


def test_a_null_malloc_that_aborts_the_process_is_oom(tmp_path):
    text = (f"{HEAD}misc/utils.cc:271 NCCL WARN misc/utils.cc:271 Unrecoverable error detected: malloc(size=1073741824)"
            " returned null.\nFatal Python error: Aborted\n"
            "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -6) local_rank: 1 (pid: 48211) of "
            "binary: /usr/bin/python3")
    assert console_verdict(tmp_path, text).cls == "oom"


@pytest.mark.parametrize("torch", ["1", "2"])
def test_nics_of_two_link_layers_are_a_nic_selection(torch, tmp_path):
    warn = ("NET/IB : Can't merge net devices with different link_layer. i=0 remMeta.ndevs=2 link_layer=1 "
            "rem_link_layer=2")
    verdict = console_verdict(tmp_path, _console("transport/net_ib.cc:1108", warn, "int", torch, "2.21.5"))
    assert verdict.cls == "nic_misselection", verdict.summary


SETUP = [("misc/nvmlwrap.cc:100", "nvmlInit_v2() failed: Driver/library version mismatch", "2.18.3"),
         ("misc/nvmlwrap.cc:85", "nvmlInit() failed: Driver/library version mismatch", "2.10.3"),
         ("misc/nvmlwrap.cc:127", "nvmlDeviceGetHandleByIndex(0) failed: Unknown Error", "2.21.5"),
         ("init.cc:749", "MNNVL is not supported on this system", "2.22.3"),
         ("mnnvl.cc:74", "MNNVL (cliqueSize 72) is available but not working on this system. Check the IMEX channel "
          "configuration (/dev/nvidia-caps-imex-channels). Set NCCL_MNNVL_ENABLE=0 to ignore this issue.", "2.28.9"),
         ("graph/xml.cc:843", "Could not open XML graph file /opt/graph.xml : No such file or directory", "2.18.3"),
         ("misc/msccl/msccl_parser.cc:246", "Could not open MSCCL XML algorithm file /opt/rocm/lib/msccl-algorithms/"
          "a.xml : No such file or directory", "2.20.5"),
         ("misc/rocmwrap.cc:56", "Failed to find ROCm runtime library in /opt/rocm/lib (RCCL_ROCR_PATH=/opt/rocm/lib)",
          "2.20.5")]


@pytest.mark.parametrize("where,warn,nccl", SETUP)
def test_a_system_error_of_the_setup_is_not_the_network(where, warn, nccl, tmp_path):
    verdict = console_verdict(tmp_path, _console(where, warn, "sys", "2", nccl))
    assert verdict.cls == "unclassified_failure", verdict.summary


def test_a_merged_nic_count_that_differs_is_benign(tmp_path):
    path = tmp_path / "console.log"
    path.write_text(PROGRESS + HEAD + "transport/net_ib.cc:1100 NCCL WARN NET/IB : Local mergedDev=mlx5_0+mlx5_1 has a "
                    "different number of devices=2 as remoteDev=mlx5_0 nRemDevs=1\n", encoding="utf-8")
    events = parse_source(Source(str(path), SourceKind.CONSOLE)).events
    [warn] = [ev for ev in events if ev.kind == "warn"]
    assert warn.data.get("meaning") == "benign"
