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

Known limits:
    It names culprits only where a rank's end is itself a cause; otherwise it lists what it saw and says
    which evidence would tell more.

Suggested fix:
    Collect the first failing rank's own output (torchrun ``--log-dir``, ``--tee 3``), its exit code and
    ``dmesg`` on its node; with ``TORCH_NCCL_DUMP_ON_TIMEOUT=1`` and the flight recorder on, the next
    failure leaves a per-collective record.
"""
from __future__ import annotations

from ..model import Confidence, shows_failure
from .base import BaseDetector, Context

_TIMEOUTS = frozenset({"watchdog_timeout", "heartbeat", "slurm_cancelled", "monitored_barrier", "desync_report",
                       "hung_task", "work_status", "frtrace_report"})   # T601's
_FIX = ("collect the first failing rank's own output (torchrun --log-dir and --tee 3), every rank's exit code and "
        "dmesg on its node; enable the flight recorder (TORCH_FR_BUFFER_SIZE=2000, TORCH_NCCL_DUMP_ON_TIMEOUT=1).")


class UnclassifiedFailure(BaseDetector):
    code, name, cls = "X901", "unclassified-failure", "unclassified_failure"
    needs = ("process_end", "failures")

    def check(self, ctx: Context):
        ended = [st for st in ctx.ranks.values() if st.end]
        errors = [ev for ev in ctx.events if shows_failure(ev) and ev.kind not in _TIMEOUTS]
        if not ended and not errors:
            return
        causes = sorted(st.rank for st in ended if st.cause)
        parts = [f"rank {st.rank} {st.end_detail}" for st in sorted(ended, key=lambda s: (not s.cause, s.rank))[:4]]
        if not parts:
            parts = [f"{ev.kind.replace('_', ' ')}: {_said(ev)}" for ev in errors[:2]]
        msg = "; ".join(parts)
        if not causes:
            msg += "; the first failure is not in the evidence"
        evidence = [e for st in ended[:4] for e in st.evidence[:1]] + errors[:2]
        conf = Confidence.MEDIUM if causes else Confidence.LOW
        yield self.finding(causes, msg, conf, evidence, _FIX)


def _said(ev) -> str:
    """What the line says: its parsed message where there is one (an NCCL WARN's words, not its prefix)."""
    said = ev.data.get("message") if isinstance(ev.data.get("message"), str) else None
    return (said or ev.text).strip()[:120]
