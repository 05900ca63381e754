"""Verdicts on host-side runtime messages mined from their sources (issue 25, round srcmined6): torch.utils.data's
DataLoader (torch/csrc/DataLoader.cpp, dataloader.py, ATen's MapAllocator), CPython's MemoryError and resource
tracker, NumPy's allocation error, the NVSwitch driver's and fabric manager's SXid lines, the NVIDIA container
toolkit's prestart hook, and filesystem errors while checkpointing, each as a console would show it.
"""
from __future__ import annotations

import pytest

from .consoles import PROGRESS, console_verdict


def _raised(rank: int, *lines: str) -> str:
    """A rank's lines behind torchrun's `[rankN]: ` prefix."""
    return "\n".join(f"[rank{rank}]: {line}" for line in lines)


# ---- the rank's own input pipeline failed (its loader workers, pin-memory thread, shared memory): that rank died of
# its own, whatever the words (`timed out`) sound like
@pytest.mark.parametrize("rank, text", [
    (2, _raised(2, "RuntimeError: DataLoader worker (pid 48211) is killed by signal: Killed. ")),
    (1, "ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm).\n"
        + _raised(1, "RuntimeError: DataLoader worker (pid 9121) is killed by signal: Bus error. It is possible that "
                     "dataloader's workers are out of shared memory. Please try to raise your shared memory limit.")),
    (4, "ERROR: Unexpected segmentation fault encountered in worker.\n"
        + _raised(4, "RuntimeError: DataLoader worker (pid 77120) is killed by signal: Segmentation fault. ")),
    (0, _raised(0, "RuntimeError: DataLoader worker (pid(s) 3311, 3312) exited unexpectedly")),
    (7, _raised(7, "RuntimeError: DataLoader worker (pid 5123) exited unexpectedly with exit code 1. Details are lost "
                   "due to multiprocessing. Rerunning with num_workers=0 may give better error trace.")),
    (1, _raised(1, "RuntimeError: Pin memory thread exited unexpectedly")),
    (5, _raised(5, '  File "/usr/local/lib/python3.10/dist-packages/torch/utils/data/dataloader.py", line 1279, in '
                   "_get_data", '    raise RuntimeError(f"DataLoader timed out after {self._timeout} seconds")',
                "RuntimeError: DataLoader timed out after 600 seconds")),
    (5, _raised(5, "RuntimeError: DataLoader timed out after 120 seconds")),
    (6, _raised(6, "RuntimeError: Too many open files. Communication with the workers is no longer possible. Please "
                   "increase the limit using `ulimit -n` in the shell or change the sharing strategy by calling "
                   "`torch.multiprocessing.set_sharing_strategy('file_system')` at the beginning of your code")),
    (2, _raised(2, "RuntimeError: received 0 items of ancdata")),
    (3, _raised(3, "RuntimeError: unable to open shared memory object </torch_5521_2093384011_2> in read-write mode: "
                   "Too many open files (24)")),
    (3, _raised(3, "RuntimeError: unable to open shared memory object </torch_5521_2093384011_2> in read-write mode")),
])
def test_a_failed_data_loader_is_its_rank_dropping(tmp_path, rank, text):
    verdict = console_verdict(tmp_path, text)
    assert (verdict.cls, verdict.culprit_ranks) == ("dropped_rank", [rank]), verdict.summary


# ---- host memory: CPython's MemoryError has no message, its type is all a traceback prints; NumPy's says the size
@pytest.mark.parametrize("rank, text", [
    (0, _raised(0, "Traceback (most recent call last):", '  File "/workspace/train.py", line 88, in <module>',
                "    state = torch.load(path)", "MemoryError")),
    (4, _raised(4, "numpy.core._exceptions._ArrayMemoryError: Unable to allocate 37.3 GiB for an array with shape "
                   "(100000, 100000) and data type float32")),
    (4, _raised(4, "numpy._core._exceptions._ArrayMemoryError: Unable to allocate 123. GiB for an array with shape "
                   "(180000, 180000) and data type float32")),
    (1, _raised(1, "MemoryError: Unable to allocate array with shape (100000, 100000) and data type float64")),
])
def test_a_host_allocation_failure_is_oom(tmp_path, rank, text):
    verdict = console_verdict(tmp_path, text)
    assert (verdict.cls, verdict.culprit_ranks) == ("oom", [rank]), verdict.summary


def test_a_memory_error_under_mp_spawn_is_oom(tmp_path):
    text = ("torch.multiprocessing.spawn.ProcessRaisedException: \n\n-- Process 1 terminated with the following error:\n"
            "Traceback (most recent call last):\n"
            '  File "/opt/conda/lib/python3.10/site-packages/torch/multiprocessing/spawn.py", line 69, in _wrap\n'
            "    fn(i, *args)\n"
            '  File "/workspace/data.py", line 44, in load_shard\n'
            "    return pickle.load(f)\n"
            "MemoryError")
    assert console_verdict(tmp_path, text).cls == "oom"


@pytest.mark.parametrize("text", [
    _raised(1, "Traceback (most recent call last):", '  File "/workspace/a.py", line 3, in f', "    raise MemoryError",
            "ValueError: bad shape"),
    "INFO checking for MemoryError handling: ok",
])
def test_memory_error_as_a_word_is_no_oom(tmp_path, text):
    assert console_verdict(tmp_path, text).cls != "oom"


def test_torch_cuda_out_of_memory_is_not_read_as_a_host_memory_error(tmp_path):
    text = _raised(3, "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 3 has a total "
                      "capacity of 79.10 GiB of which 1.06 GiB is free.")
    verdict = console_verdict(tmp_path, text)
    assert (verdict.cls, verdict.culprit_ranks) == ("oom", [3])


# ---- harmless: the resource tracker's cleanup note, a corrected (non-fatal) NVSwitch error
@pytest.mark.parametrize("text", [
    "/usr/lib/python3.10/multiprocessing/resource_tracker.py:224: UserWarning: resource_tracker: There appear to be 1 "
    "leaked semaphore objects to clean up at shutdown\n  warnings.warn('resource_tracker: There appear to be %d '",
    "/usr/lib/python3.12/multiprocessing/resource_tracker.py:254: UserWarning: resource_tracker: There appear to be 4 "
    "leaked shared_memory objects to clean up at shutdown",
    "[Tue Jul 09 18:14:07 2024] nvidia-nvswitch3: SXid (PCI:0000:05:00.0): 12028, Non-fatal, Link 32 egress non-posted "
    "PRIV error (First)",
    "[Jul 09 2024 18:14:07] [ERROR] [tid 12727] detected NVSwitch non-fatal error 12028 on fid 0 on NVSwitch pci bus id "
    "00000000:86:00.0 physical id 3 port 61",
])
def test_a_harmless_runtime_note_is_no_failure(tmp_path, text):
    verdict = console_verdict(tmp_path, text + "\nEpoch 9: 100% 1980/1980 loss=1.022\nTraining finished.")
    assert verdict.cls in ("none", "inconclusive"), verdict.summary


# ---- a fatal NVSwitch error: the NVLink traffic through that switch stops, as after Xid 74
@pytest.mark.parametrize("text", [
    "[Tue Jul 23 07:53:55 2024] nvidia-nvswitch2: SXid (PCI:0000:87:00.0): 20034, Fatal, Link 33 LTSSM Fault Up\n"
    "[Tue Jul 23 07:53:55 2024] nvidia-nvswitch2: SXid (PCI:0000:87:00.0): 20034, Severity 5 Engine instance 33 "
    "Sub-engine instance 00",
    "[Jul 23 2024 07:53:55] [ERROR] [tid 841] detected NVSwitch fatal error 20034 on fid 0 on NVSwitch pci bus id "
    "00000000:86:00.0 physical id 3 port 33",
])
def test_a_fatal_nvswitch_error_drops_the_gpus_behind_it(tmp_path, text):
    assert console_verdict(tmp_path, text).cls == "dropped_rank"


# ---- the container toolkit's prestart hook: the container never started
_HOOK = ("docker: Error response from daemon: failed to create task for container: failed to create shim task: OCI "
         "runtime create failed: runc create failed: unable to start container process: error during container init: "
         "error running hook #0: error running hook: exit status 1, stdout: , stderr: Auto-detected mode as 'legacy'\n")


def test_a_driver_older_than_the_images_cuda_is_a_version_mismatch(tmp_path):
    text = _HOOK + ("nvidia-container-cli: requirement error: unsatisfied condition: cuda>=12.4, please update your "
                    "driver to a newer version, or use an earlier cuda container: unknown.")
    assert console_verdict(tmp_path, text, progress="").cls == "version_mismatch"


@pytest.mark.parametrize("reason", [
    "nvml error: driver/library version mismatch: unknown.",
    "load library failed: libnvidia-ml.so.1: cannot open shared object file: no such file or directory: unknown.",
    "WSL environment detected but no adapters were found: unknown.",
])
def test_a_driver_the_container_cannot_use_is_a_failure_of_no_class(tmp_path, reason):
    text = _HOOK + f"nvidia-container-cli: initialization error: {reason}"
    verdict = console_verdict(tmp_path, text, progress="")
    assert (verdict.cls, verdict.culprit_ranks) == ("unclassified_failure", []), verdict.summary


# ---- a filesystem error while a rank saves or loads its checkpoint: that rank's own end
@pytest.mark.parametrize("rank, text", [
    (0, _raised(0, "RuntimeError: [enforce fail at inline_container.cc:778] . PytorchStreamWriter failed writing file "
                   "data/12: file write failed", "OSError: [Errno 28] No space left on device")),
    (2, _raised(2, "OSError: [Errno 116] Stale file handle: '/nfs/ckpt/step_4000/__2_0.distcp'")),
    (6, _raised(6, "OSError: [Errno 5] Input/output error")),
])
def test_a_rank_local_filesystem_error_is_its_rank_dropping(tmp_path, rank, text):
    verdict = console_verdict(tmp_path, PROGRESS + text)
    assert (verdict.cls, verdict.culprit_ranks) == ("dropped_rank", [rank]), verdict.summary
