"""Slurm job output and Kubernetes container status → `slurm` events (grammars/slurm.lark).

Kinds and fields: docs/events.md "source = kernel / slurm". Kubernetes prints the reason and the exit code on
separate lines (`Reason: OOMKilled` then `Exit Code: 137` in `kubectl describe`, the other way round in
`-o yaml`), so an OOMKilled reason is held for a few lines until its exit code is seen.
"""
from __future__ import annotations

import calendar
import re
import time

from lark import Transformer, v_args

from .. import signals
from ..model import Line, Source, SourceKind
from .base import LineParser
from .grammars import parse_with

_SLURM_PROGS = ("slurmstepd", "srun:", "sbatch:", "salloc:")
_K8S_STARTS = ("Reason:", "reason:", '"reason":', "Exit Code:", "exitCode:", '"exitCode":')
_CONTAINER_HEAD = re.compile(r"  [a-z0-9][-a-z0-9.]*:$")
_CONTAINER_ID = re.compile(r"[0-9a-f]{12,64}")
_K8S_WINDOW = 4          # lines an OOMKilled reason waits for its exit code


def slurm_epoch(stamp: str) -> float:
    """`2021-05-27T21:42:11` (the controller's local time; read as UTC for determinism)."""
    return float(calendar.timegm(time.strptime(stamp, "%Y-%m-%dT%H:%M:%S")))


def _split_step(job_step: str) -> tuple[str, str | None]:
    job, _, step = str(job_step).partition(".")
    return job, step or None


@v_args(inline=True)
class SlurmTransformer(Transformer):
    """Parse tree → (kind, data, host, time); no I/O."""

    INT = int

    def slurm_line(self, _prog, message):
        return message

    def _cancel(self, job_step, node, stamp, reason):
        job, step = _split_step(job_step)
        return ("slurm_cancelled", {"job_id": job, "step": step, "reason": reason, "time": stamp},
                str(node), slurm_epoch(str(stamp)) if stamp else None)

    def cancelled(self, _entity, job_step, node, stamp, *reason):
        return self._cancel(job_step, node, stamp, reason[0] if reason else "CANCELLED")

    def cancel_reason(self, text): return " ".join(str(text).split())
    def signal_reason(self, text): return f"SIGNAL {' '.join(str(text).split())}"

    def step_failed(self, _entity, job_step, node):
        return self._cancel(job_step, node, None, "FAILED")

    def memory_error(self, _entity, job_step, node, stamp):
        return self._cancel(job_step, node, stamp, "UNCORRECTABLE MEMORY ERROR")

    def banner_reason(self, text):
        return "slurm_reason", {"message": str(text)}, None, None

    def step_ref(self, job_step): return _split_step(job_step)

    def oom_detected(self, count, _words, step_ref, *_text):
        return "slurm_oom", {"job_id": step_ref[0], "step": step_ref[1], "count": count, "message": None}, None, None

    def memory_limit_hit(self, step_ref, _words, *_text):
        return "slurm_oom", {"job_id": step_ref[0], "step": step_ref[1], "count": None, "message": None}, None, None

    def memory_limit_exceeded(self, step_ref, used, limit):
        data = {"job_id": step_ref[0], "step": step_ref[1], "count": None, "message": None,
                "used_bytes": used, "limit_bytes": limit}
        return "slurm_oom", data, None, None

    def task_report(self, node, _word, ids, outcome):
        host = str(node).rstrip(":")
        kind, data = outcome
        data = {"task": str(ids), "host": host, "message": None, **data}
        if kind == "slurm_oom":
            data.update(job_id=None, step=None, count=None)
        return kind, data, host, None

    def out_of_memory(self): return "slurm_oom", {}
    def exited(self, code): return "slurm_exit", {"exitcode": code, "signal": None}

    def signalled(self, text):
        name = str(text).removesuffix(" (core dumped)").strip()
        return "slurm_exit", {"exitcode": None, "signal": signals.WORDS.get(name, name)}

    def node_failure(self, node):
        return "slurm_exit", {"task": None, "exitcode": None, "signal": None, "host": str(node), "message": None}, str(node), None

    def _step_note(self):
        return "slurm_exit", {"task": None, "exitcode": None, "signal": None, "host": None, "message": None}, None, None

    def step_aborted(self, *_t): return self._step_note()
    def force_terminated(self, _ref): return self._step_note()
    def terminating(self, *_ref): return self._step_note()
    def forcing_termination(self): return self._step_note()
    def step_wait_timeout(self): return self._step_note()

    # ---- Kubernetes
    def k8s_reason(self, *items): return "k8s_reason", {"reason": str(items[-1])}, None, None

    def k8s_exit(self, *items):
        return "k8s_exit", {"exitcode": next(i for i in items if isinstance(i, int))}, None, None
    def k8s_container(self, head): return "k8s_container", {"container": str(head).rstrip(":")}, None, None

    def k8s_task_oom(self, text):
        m = _CONTAINER_ID.search(str(text).split("TaskOOM event", 1)[1])
        return "k8s_oomkilled", {"container": m[0] if m else None, "exitcode": None, "message": None}, None, None


_TRANSFORMER = SlurmTransformer()


def parse_scheduler_line(text: str, start: str):
    return parse_with("slurm", _TRANSFORMER, text, start)


class SlurmParser(LineParser):
    source = "slurm"

    def __init__(self, src: Source):
        super().__init__(src)
        self._container: str | None = None
        self._oom_reason: tuple[Line, int] | None = None     # (reason line, lines waited)
        self._last_exit: tuple[int, int] | None = None       # (exit code, line no) for yaml order

    def feed(self, line: Line) -> bool:
        text = line.text
        if text.startswith(_SLURM_PROGS):
            return self._feed_slurm(line)
        stripped = text.strip()
        if stripped.startswith(_K8S_STARTS) or "TaskOOM event" in text:
            return self._feed_k8s(line, parse_scheduler_line(stripped, "k8s_line"))
        if self.src.kind is SourceKind.SLURM and _CONTAINER_HEAD.fullmatch(text):
            self._container = stripped.rstrip(":")
            return True
        self._age_reason()
        return False

    def _feed_slurm(self, line: Line) -> bool:
        parsed = parse_scheduler_line(line.text.strip(), "slurm_line")
        if parsed is None:
            if "error:" in line.text:
                self.unparsed(line)
            return True
        kind, data, host, stamp = parsed
        if kind == "slurm_exit" or kind == "slurm_oom":
            data["message"] = line.text.split(": ", 1)[-1].removeprefix("error: ").strip()
        if kind == "slurm_reason":
            return True
        ev = self.emit(kind, line, **data)
        ev.host = host or ev.host
        ev.time = stamp
        return True

    def _feed_k8s(self, line: Line, parsed) -> bool:
        if parsed is None:
            self.unparsed(line)
            return True
        kind, data, _host, _stamp = parsed
        if kind == "k8s_reason" and data["reason"] == "OOMKilled":
            recent = self._last_exit if self._last_exit and line.no - self._last_exit[1] <= _K8S_WINDOW else None
            if recent is not None:
                self._emit_oomkilled(line, recent[0])
            else:
                self._oom_reason = (line, 0)
        elif kind == "k8s_exit":
            self._last_exit = (data["exitcode"], line.no)
            if self._oom_reason is not None:
                self._emit_oomkilled(self._oom_reason[0], data["exitcode"])
        elif kind == "k8s_oomkilled":
            self.emit(kind, line, **data)
        return True

    def _emit_oomkilled(self, line: Line, exitcode: int | None) -> None:
        self._oom_reason = None
        self.emit("k8s_oomkilled", line, container=self._container, exitcode=exitcode,
                  message=line.text.strip())

    def _age_reason(self) -> None:
        if self._oom_reason is not None:
            line, waited = self._oom_reason
            if waited + 1 >= _K8S_WINDOW:
                self._emit_oomkilled(line, None)
            else:
                self._oom_reason = (line, waited + 1)

    def finish(self) -> None:
        if self._oom_reason is not None:
            self._emit_oomkilled(self._oom_reason[0], None)
