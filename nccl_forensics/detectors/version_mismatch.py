"""V501 version-mismatch: ranks run different NCCL (or flight-recorder/torch) versions, or the CUDA driver and the
job's build do not fit the GPU.

What it detects:
    ``NCCL version X`` lines that differ across ranks or hosts, and flight-recorder dumps whose schema
    version (which follows the torch release) differs across ranks. And the CUDA runtime's own verdict that the
    software does not fit the machine, however it is printed (torch's ``CUDA error: ...``, NCCL's ``Cuda failure
    '...'``, nccl-tests' and vLLM's CUDACHECK, torch < 1.0's THCudaCheck): ``CUDA driver version is insufficient for
    CUDA runtime version`` and its kin (a driver older than the build; the toolkit's stub libcuda loaded instead
    of the driver's) or ``no kernel image is available for execution on the device`` / ``the provided PTX was
    compiled with an unsupported toolchain`` / NCCL's ``named symbol not found`` (a build without code for this
    GPU), read by the message catalogue (sources/catalogue/cuda.py ``reason_class``). And hosts whose
    NCCL runs another network stack than the others': ``Using network IB`` on some and ``Using network Socket`` on
    others, or an external net plugin loaded on some (``Loaded net plugin ...``, HPC-X's ``Plugin Path : ...``) and
    NCCL's own on others (``Using internal network plugin``), the rule of topology check G008.

Why it hangs or dies:
    NCCL's wire protocol and algorithm choices change between releases: mixed versions can fail at init,
    pick incompatible protocols and hang, or corrupt data. Mixed torch versions change c10d behaviour
    (sequence numbers, timeouts, FR schema).

Evidence it needs:
    The NCCL version line of each rank (``NCCL_DEBUG=VERSION`` or higher), or FR dumps from each rank. For a build
    without code for the GPU: the runtime's or a library's own line (HIP's missing code object, rocBLAS's missing
    Tensile library for the gfx target; hipBLASLt's, which it survives, only once a GPU call of the job then fails).

Example:
    ``ncclf diagnose logs/`` →
    ``version_mismatch: ranks 4-7 (node2) run NCCL 2.18.1, ranks 0-3 run 2.21.5``.

The rule (majority first, the rest odd) is `diagnosis/versions.py`, shared with topology check G007.

Known limits:
    The torch version itself is not printed in these logs; only the FR schema version stands in for it.

Suggested fix:
    Use one container image / environment on every node; pin ``nvidia-nccl-cu12`` and torch. For the CUDA
    mismatches: a driver that supports the build's CUDA version, or a build for this GPU's architecture.
"""
from __future__ import annotations

from ..diagnosis.versions import by_version, net_plugins, networks
from ..model import Confidence, clip, ranks_phrase
from .base import BaseDetector, Context, event_order


class VersionMismatch(BaseDetector):
    code, name, cls = "V501", "version-mismatch", "version_mismatch"
    needs = ("versions", "errors")

    def check(self, ctx: Context):
        yield from self._cuda_mismatch(ctx)
        for kind, label in (("nccl_version", "NCCL"), ("fr_dump", "flight-recorder schema")):
            groups = by_version((ev.data.get("version"), ev) for ev in ctx.of(kind))
            if len(groups) < 2:
                continue
            seen = dict(groups)
            versions = [v for v, _ in groups]
            odd = [ev for _, evs in groups[1:] for ev in evs]
            ranks = sorted({ev.rank for ev in odd if ev.rank is not None})
            parts = [f"{len(seen[v])} run {v}" for v in versions]
            msg = f"{label} versions differ across ranks: " + ", ".join(parts)
            if ranks:
                msg += f" (odd ones: {ranks_phrase(ranks)})"
            evidence = [seen[v][0] for v in versions]
            conf = Confidence.HIGH if kind == "nccl_version" else Confidence.MEDIUM
            yield self.finding(ranks, msg, conf, evidence, f"run one {label} version everywhere: use one image/"
                               f"environment on every node (most ranks run {versions[0]}).")
        yield from self._net_stack(ctx)

    def _net_stack(self, ctx: Context):
        """Hosts whose NCCL talks another network, or through another net plugin, than the others': their ranks
        cannot connect to the rest (init or the first collective hangs), the same as a version apart."""
        for label, pairs in (("networks", networks(ctx.of("net_using"))),
                             ("net plugins", net_plugins(_plugin_lines(ctx)))):
            groups = by_version(pairs)
            if len(groups) < 2 or len({ev.host for _, evs in groups for ev in evs}) < 2:
                continue
            odd = [ev for _, evs in groups[1:] for ev in evs]
            ranks = sorted({ev.rank for ev in odd if ev.rank is not None})
            parts = [f"{value} on {', '.join(sorted({str(ev.host) for ev in evs}))}" for value, evs in groups]
            yield self.finding(ranks, f"NCCL {label} differ across hosts: " + "; ".join(parts), Confidence.MEDIUM,
                               [evs[0] for _, evs in groups], "give every node the same NCCL network stack: the same "
                               "NCCL_NET / NCCL_NET_PLUGIN and the same plugin library (one image, one "
                               "LD_LIBRARY_PATH) on every host.")
            return

    def _cuda_mismatch(self, ctx: Context):
        """The CUDA runtime said the driver is older than the build, or the build has no code for this GPU: every
        process on that machine fails at its first CUDA call, whichever rank it is."""
        said_so = [ev for ev in ctx.events if ev.data.get("implies") == "version_mismatch"   # one pass over the
                   and ev.data.get("meaning") == "failure"]                                 # events, not one a category
        if not said_so:
            said_so = _hints_before_gpu_failure(ctx)
        for category, (what, fix) in _CUDA.items():
            events = [ev for ev in said_so if ev.data.get("category") == category]
            if not events:
                continue
            ranks = sorted({ev.rank for ev in events if ev.rank is not None})
            said = events[0].data.get("reason") or events[0].data.get("message") or events[0].text.strip()
            where = f" (rank {', '.join(map(str, ranks[:8]))})" if ranks else ""
            yield self.finding(ranks, f"{what}{where}: {clip(str(said), 160)}", Confidence.MEDIUM, events[:3], fix)


def _plugin_lines(ctx: Context) -> list:
    """What `net_plugins` reads, in the events' order: the net_plugin lines and the `Plugin Path` INFO lines (sorting
    every INFO line of a 4,096-rank job with them cost more than the rest of the check)."""
    paths = [ev for ev in ctx.of("nccl_info") if ev.data.get("topic") == "plugin_path"]
    return sorted([*ctx.of("net_plugin"), *paths], key=event_order) if paths else ctx.of("net_plugin")


def _hints_before_gpu_failure(ctx: Context) -> list:
    """A library's benign report that it has no kernels for this GPU (hipBLASLt's `Cannot read` of its Tensile
    library: it goes on) names the cause once the job then fails in a GPU call (a CUDA/HIP or BLAS error)."""
    if not any(ev.data.get("meaning") == "failure" for ev in ctx.of("cuda_error")):
        return []
    return [ev for ev in ctx.events
            if ev.data.get("meaning") == "benign" and ev.data.get("implies") == "version_mismatch"]


_CUDA = {
    "cuda_driver": ("the NVIDIA driver is older than the CUDA runtime the job was built with",
                    "install a driver that supports the build's CUDA version (`nvidia-smi` prints the newest CUDA the "
                    "driver supports, `torch.version.cuda` the build's), or a torch/NCCL build for the driver's CUDA; "
                    "in a container, use an image whose CUDA the host driver supports (or the CUDA forward-"
                    "compatibility package on data-center GPUs), on every node."),
    "cuda_stub": ("the process loaded CUDA's stub driver library (the toolkit's link-time libcuda), not the NVIDIA "
                  "driver's",
                  "take the toolkit's `stubs` directory out of LD_LIBRARY_PATH (and the loader's configuration) so the "
                  "driver's libcuda.so.1 is found; in a container, start it with the NVIDIA container runtime so the "
                  "host driver's libraries are mounted; on every node."),
    "cuda_arch": ("the build has no code this GPU can run (its architecture is missing from the build, or its PTX "
                  "is newer than the driver)",
                  "install a torch (and extension) build whose architecture list covers this GPU "
                  "(`torch.cuda.get_arch_list()` against `torch.cuda.get_device_capability()`), rebuild custom "
                  "CUDA extensions with TORCH_CUDA_ARCH_LIST set to it, or update the driver when PTX is the cause."),
    "blas_arch": ("the GPU math library (rocBLAS, hipBLASLt) has no kernels for this GPU's architecture",
                  "install the ROCm math libraries (or a torch ROCm build) that ship Tensile kernels for this GPU's "
                  "gfx target (rocBLAS lists the files it found) and point ROCBLAS_TENSILE_LIBPATH / "
                  "HIPBLASLT_TENSILE_LIBPATH at them if they live elsewhere; for hipBLASLt alone, torch can use "
                  "hipBLAS instead (TORCH_BLAS_PREFER_HIPBLASLT=0)."),
}
