"""X901 unclassified-failure: the evidence shows the job failed, but no detector can say why.

What it detects:
    A rank that ended abnormally (a signal, a non-zero exit, an exception, an abort, torchrun's SIGTERM),
    or an error that stops a job (a CUDA or NCCL error, ``DistBackendError``, a communicator abort), when
    no more specific detector explains it. It is the floor under every other class: a log that visibly
    shows a failure is never answered with "no failure found". (A timeout with no cause is T601's.)

Why it hangs or dies:
    Whatever ended the first rank is outside the evidence: often the rank that failed first left no
    output in the excerpt, and what remains are its peers' consequences (SIGTERM from torchrun, SIGABRT
    from the NCCL watchdog, "connection closed").

Evidence it needs:
    Any line that shows a failure (`model.shows_failure`: the message catalogue's failure and consequence
    lines, tracebacks, C++ ``terminate``, signal reports, NCCL error traces, launcher exits, CUDA/NCCL errors).

Example:
    torchrun's ``Failures:`` table listing ranks 1 and 2 with ``exitcode: -15`` (SIGTERM) and no root cause
    → ``unclassified_failure: ranks 1, 2 were terminated by torchrun after another rank failed; the first
    failure is not in the evidence``.

    A CUDA call NCCL made that the runtime refused for its arguments (``Cuda failure 'invalid argument'``) or
    for the state of a resource it needs (``Cuda failure 401 'the operation cannot be performed in the present
    state'``: NVLS on a node whose Fabric Manager is not ready) is said as such: every rank with that setup makes
    the same call, so it names no rank, and its fix is the setup's (driver, NCCL build, NCCL's memory settings; the
    Fabric Manager for a call of NCCL's NVLS transport). So is a usage or setup error of the distributed API
    (``Default process group has not been initialized``, ``No backend type associated with device type cpu``, an
    env:// rendezvous with no ``MASTER_ADDR``, a DeviceMesh larger than the world): every rank raises it, no rank is
    its cause.
    So is one exception that two or more ranks raised word for word while no rank ended otherwise (a Dynamo or
    Inductor error of the compiled program, ``FailOnRecompileLimitHit`` with fullgraph=True).
    So are an MPI library's fatal error in its own start (MPICH/Intel MPI ``Fatal error in PMPI_Init: ...``: the
    launch, before the program ran) and NCCL's /dev/shm call refused for access (``Call to shm_open failed :
    Permission denied``: the directory's mode or another user's stale segment, no memory that ran out), or a
    segment to attach to that is not there (``Error while attaching to shared memory segment ... error: No such
    file or directory (2)``, NCCL 2.22+).
    CUDA's ``system not yet initialized`` (cudaErrorSystemNotReady, 802) names the ranks that printed it: their node's
    Fabric Manager (NVSwitch systems) has not set the fabric up, and the fix is that node's.
    A rank's check of its own values before any communication (Megatron-core's local grad norm before the
    data-parallel all-reduce, ``found NaN in local grad norm``) names that rank: its data or its GPU made them.

Known limits:
    It names culprits only where a rank's end is itself a cause; otherwise it lists what it saw and says
    which evidence would tell more.

Suggested fix:
    Collect the first failing rank's own output (torchrun ``--log-dir``, ``--tee 3``), its exit code and
    ``dmesg`` on its node; with ``TORCH_NCCL_DUMP_ON_TIMEOUT=1`` and the flight recorder on, the next
    failure leaves a per-collective record.
"""
from __future__ import annotations

from ..diagnosis.rank_state import refused_nccl_calls
from ..model import Confidence, ranks_phrase, shows_failure
from ..sources.catalogue.cuda import refused_check_macro, refused_for_state, refused_nccl_call
from ..sources.traceback import USAGE_ERROR
from .base import BaseDetector, Context, is_timeout, own_value_check, said
from .oom import shm_access_refused, shm_not_room

_TIMEOUTS = frozenset({"watchdog_timeout", "heartbeat", "slurm_cancelled", "monitored_barrier", "desync_report",
                       "hung_task", "wait_timeout", "work_status", "frtrace_report"})   # T601's
_NUMERICS_FIX = ("rerun the same step on that rank (Megatron's rerun state machine in its validating mode "
                 "tells a transient fault from a persistent one); if it repeats on that GPU only, run its GPU "
                 "diagnostics (dcgmi diag -r 3) and take the node out; if it follows the data, look at that batch.")
_FIX = ("collect the first failing rank's own output (torchrun --log-dir and --tee 3), every rank's exit code and "
        "dmesg on its node; enable the flight recorder (TORCH_FR_BUFFER_SIZE=2000, TORCH_NCCL_DUMP_ON_TIMEOUT=1).")
_USAGE_FIX = ("fix the call or the launch the message names (its traceback's innermost frame of your code): "
              "torch.distributed raised it before any collective ran, so no rank is behind another.")
_SHARED_FIX = ("fix what the exception names (the innermost frame of your code in its traceback; for torch.compile, "
               "TORCHDYNAMO_VERBOSE=1 and TORCH_LOGS=\"+dynamo\" show where): every rank fails the same way, so no "
               "rank is behind another.")
_REFUSED_FIX = ("a setup that every rank shares: check that the driver supports the CUDA runtime and the NCCL in use "
                "(nvidia-smi or rocm-smi; NCCL's `cudaDriverVersion` line), rerun with NCCL_DEBUG=INFO "
                "NCCL_DEBUG_SUBSYS=INIT,ALLOC to see the refused call, and try NCCL_CUMEM_ENABLE=0 (NCCL's cuMem "
                "allocation) or another NCCL build.")
# a collective kernel's own check macro (vLLM's/SGLang's custom all-reduce, nccl-tests) quoted a refused call
_CHECKED_FIX = ("the GPUs' peer-to-peer path that the collective kernel opens (CUDA IPC handles): check "
                "`nvidia-smi topo -m` and that the container or VM exposes P2P between the GPUs; turn off the "
                "custom all-reduce (vLLM/SGLang `--disable-custom-all-reduce`, TensorRT-LLM "
                "`--use_custom_all_reduce disable`) to use NCCL instead.")
# NCCL's refused call was in its NVLS transport (transport/nvls.cc: the cuMulticast* calls of NVLink SHARP)
_NVLS_FIX = ("the node's NVLink SHARP (NVLS) setup: check the Fabric Manager and the NVSwitches (nvidia-smi -q's "
             "Fabric state, the nvidia-fabricmanager service; reset the GPUs or reboot after a Fabric Manager "
             "restart), or run with NCCL_NVLS_ENABLE=0 to go on without NVLS.")

# NCCL's /dev/shm call refused for access (catalogue nccl.shm_access_refused, a segment line's EACCES/EPERM/EROFS)
_SHM_ACCESS_FIX = ("let this user create files in /dev/shm: mode 1777 and a writable mount (in a container, "
                   "--ipc=host or a tmpfs at /dev/shm), and remove stale /dev/shm/nccl-* segments another user's job "
                   "left; NCCL_SHM_DISABLE=1 avoids /dev/shm at some intra-node bandwidth cost.")
# NCCL's /dev/shm segment not there to attach to (ENOENT, printed by NCCL 2.22+)
_SHM_MISSING_FIX = ("give the node's processes one /dev/shm (one container, or --ipc=host / a shared tmpfs for "
                    "containers of one node), keep anything from removing /dev/shm/nccl-* under a running job "
                    "(systemd-logind's RemoveIPC=yes, a cleanup job), and try another NCCL release; "
                    "NCCL_SHM_DISABLE=1 avoids /dev/shm at some intra-node bandwidth cost.")
# cudaErrorSystemNotReady (802, `system not yet initialized`): the node's Fabric Manager (NVSwitch systems)
_FABRIC_FIX = ("drain that node and check its Fabric Manager: `systemctl status nvidia-fabricmanager` and its log "
               "(/var/log/fabricmanager.log; its version must match the driver's), nvidia-smi -q's Fabric State; "
               "restart it, or reset the GPUs, before the node runs jobs again.")
# an MPI library's fatal error inside MPI_Init / MPI_Init_thread (catalogue mpich.fatal_error)
_MPI_INIT_FIX = ("launch with the launcher of the MPI the program was built against (its own mpirun/mpiexec, or srun "
                 "--mpi=pmix/pmi2 under Slurm) on every node, and check its transport (UCX/OFI: ucx_info -d, "
                 "fi_info): an MPI hello world with the same launch line fails the same way while it is broken.")


class UnclassifiedFailure(BaseDetector):
    code, name, cls = "X901", "unclassified-failure", "unclassified_failure"
    needs = ("process_end", "failures")

    def check(self, ctx: Context):
        ended = [st for st in ctx.ranks.values() if st.end]
        # an error path NCCL recovered from, the store that went away at the job's end
        recovered = ctx.recovered_traces | ctx.store_teardown
        errors = [ev for ev in ctx.events if shows_failure(ev) and not _timeout_kind(ev) and not _live_dump(ev)
                  and id(ev) not in recovered]
        errors.sort(key=lambda ev: ev.data.get("meaning") == "consequence")    # a failure before its consequences
        if not ended and not errors:
            return
        causes = sorted(st.rank for st in ended if st.cause)
        parts = [f"rank {st.rank} {st.end_detail}" for st in sorted(ended, key=lambda s: (not s.cause, s.rank))[:4]]
        if not parts:
            parts = [f"{ev.kind.replace('_', ' ')}: {said(ev)}" for ev in errors[:2]]
        unhandled = refused_nccl_calls(ctx.events)
        refused = [ev for ev in ctx.events if id(ev) in unhandled or refused_nccl_call(ev.data)]
        msg, fix = "; ".join(parts), _FIX
        if not causes and refused:
            words = _refused_words(refused)
            why = "for the state of a resource it needs" if refused_for_state(words) else "for its arguments"
            refusal = (f"NCCL's own CUDA call was refused {why} ({words}), as it is on every rank of this setup: no "
                       "rank is its cause")
            msg = f"{msg}; {refusal}" if ended else refusal
            fix = _NVLS_FIX if any(map(_in_nvls, refused)) else _REFUSED_FIX
            errors = refused[:1] + [ev for ev in errors if ev is not refused[0]]
        elif not causes and (checked := [ev for ev in errors if refused_check_macro(ev.data)]):
            msg += (f"; a collective kernel's own CUDA check ({checked[0].data.get('src_file')}) quoted a call the "
                    f"runtime refused for its arguments ({_refused_words(checked)}), as every rank that runs it "
                    "makes it: no rank is its cause")
            fix = _CHECKED_FIX
            errors = checked[:1] + [ev for ev in errors if ev is not checked[0]]
        elif not causes and (usage := [ev for ev in errors if ev.data.get("category") == USAGE_ERROR]):
            msg += ("; the distributed API refused the program or its launch (a usage or setup error that every rank "
                    "makes the same way): no rank is its cause")
            fix = _USAGE_FIX
            errors = usage[:1] + [ev for ev in errors if ev is not usage[0]]
        elif not causes and (shared := [st for st in ctx.ranks.values() if st.shared]):
            msg = (f"{ranks_phrase([st.rank for st in shared])} raised the same exception ({shared[0].end_detail}): "
                   "the program or its setup fails alike on every rank that gets there, so no rank is its cause")
            fix = _SHARED_FIX
        elif not causes and (mpi := [ev for ev in errors if _mpi_init_failed(ev)]):
            msg += (f"; the MPI library failed in its own start ({said(mpi[0])}): the launch (its PMI, its fabric) "
                    "broke before any rank ran the program, so no rank is its cause")
            fix = _MPI_INIT_FIX
            errors = mpi[:1] + [ev for ev in errors if ev is not mpi[0]]
        elif not causes and (denied := [ev for ev in errors if shm_access_refused(ev)]):
            msg += (f"; NCCL was refused access to /dev/shm ({said(denied[0])}), not room in it: every process of "
                    "this node that uses the SHM transport meets it")
            fix = _SHM_ACCESS_FIX
            errors = denied[:1] + [ev for ev in errors if ev is not denied[0]]
        elif not causes and (missing := [ev for ev in errors if shm_not_room(ev)]):
            msg += (f"; NCCL's /dev/shm segment was not there ({said(missing[0])}): a segment a peer process of this "
                    "node made was gone, or in another /dev/shm, when this process came to attach to it")
            fix = _SHM_MISSING_FIX
            errors = missing[:1] + [ev for ev in errors if ev is not missing[0]]
        elif not causes and (setup := [ev for ev in errors if ev.kind == "warn" and ev.data.get("category") == "init"]):
            msg += f"; NCCL's communicator setup failed ({said(setup[0])}) before any collective could run"
            fix = _NVLS_FIX if _in_nvls(setup[0]) else fix
            errors = setup[:1] + [ev for ev in errors if ev is not setup[0]]
        elif not causes and (unready := [ev for ev in errors if _system_not_ready(ev)]):
            causes = sorted({ev.rank for ev in unready if ev.rank is not None})
            msg += (f"; CUDA said the system is not yet initialized ({said(unready[0])}): on an NVSwitch machine its "
                    "Fabric Manager is not running or has not set the NVLink fabric up, so every process of that node "
                    "fails its first CUDA call; the node, not the program, is the cause")
            fix = _FABRIC_FIX
            errors = unready[:1] + [ev for ev in errors if ev is not unready[0]]
        elif not causes and (local := [ev for ev in errors if own_value_check(ev)]):
            causes = sorted({ev.rank for ev in local if ev.rank is not None})
            msg += (f"; a check of the rank's own values before any communication found them not finite "
                    f"({said(local[0])}): its input data or its GPU, not a peer's, made them")
            fix = _NUMERICS_FIX
            errors = local[:1] + [ev for ev in errors if ev is not local[0]]
        elif not causes:
            msg += "; the first failure is not in the evidence"
        evidence = [e for st in ended[:4] for e in st.evidence[:1]] + errors[:2]
        conf = Confidence.MEDIUM if causes else Confidence.LOW
        yield self.finding(causes, msg, conf, evidence, fix)


def _timeout_kind(ev) -> bool:
    """T601's: a line of a timeout kind, save a watchdog status line written for an NCCL error (not a timeout)."""
    return ev.kind in _TIMEOUTS and (ev.kind != "work_status" or is_timeout(ev))


def _live_dump(ev) -> bool:
    """A faulthandler dump with no `Fatal Python error`/`Timeout` header: a stack snapshot (dump_traceback, torch's
    debug dump), where a rank stood, not how it ended (rank_state reads its position)."""
    return ev.kind == "faulthandler" and ev.data.get("reason") is None


def _system_not_ready(ev) -> bool:
    """Is this the CUDA runtime's cudaErrorSystemNotReady (`system not yet initialized`): the node not set up yet?"""
    return "system not yet initialized" in str(ev.data.get("reason") or ev.data.get("message") or "")


def _in_nvls(ev) -> bool:
    """Is this NCCL line from its NVLS transport (transport/nvls.cc, or a catalogue entry of it)?"""
    return "nvls" in str(ev.data.get("src_file") or "") or str(ev.data.get("message_id") or "").startswith("nccl.nvls")


def _mpi_init_failed(ev) -> bool:
    """Is this an MPI library's fatal error in MPI_Init (the launch's setup, before the program ran)?"""
    return ev.data.get("message_id") == "mpich.fatal_error" and "MPI_Init" in str(ev.data.get("call") or "")


def _refused_words(events) -> str:
    """The runtime's words for the refused call (`'invalid argument'`), from the first event that quotes them."""
    for ev in events:
        text = ev.data.get("reason") or ev.data.get("last_error") or ev.data.get("message") or ""
        if "'" in text:
            return "'" + text.split("'")[1] + "'"
        if text:
            return f"'{text.strip()}'"
    return "its text is below the NCCL error"

