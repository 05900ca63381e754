"""Kernel log lines (dmesg, dmesg -T/--time-format iso, journalctl -k) → `kernel` events (grammars/kernel.lark).

One OOM kill prints several lines: the `invoked oom-killer` header, the `oom-kill:` summary (possibly torn
into a `,`-led pr_cont fragment), then `… Killed process …`. The summary's constraint/memcg are held until
the `Killed process` line for the same pid, so one kill gives one `oom_kill` event. Kernel lines that are
neither OOM nor hung-task reports are claimed but give no event; ones that mention OOM but fit no rule are
`unparsed`.
"""
from __future__ import annotations

import calendar
import re
import time
from datetime import datetime
from typing import Any

from lark import Transformer, v_args

from ..model import Line, Source
from .base import LineParser
from .grammars import parse_with

_STAMP_START = re.compile(r"\[\s*\d+\.\d+\] |\[[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \d{4}\] "
                          r"|\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[,.]\d+(?:Z|[+-]\d\d:?\d\d) "
                          r"|[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \S+ kernel: ")
_OOM_WORDS = ("invoked oom-killer", "oom-kill:", "Out of memory", "Out of Memory", "Killed process", "Kill process",
              "blocked for more than", "Memory cgroup out of memory", "oom_reaper", "memory.oom.group")
_BARE_STARTS = ("oom-kill:", "Out of memory", "Memory cgroup out of memory", "Out of Memory", "Killed process",
                "INFO: task ", "Task in /", "Tasks in /", "oom_reaper:")
_STAT_NAMES = {"total-vm": "total_vm_kb", "anon-rss": "anon_rss_kb", "file-rss": "file_rss_kb",
               "shmem-rss": "shmem_rss_kb", "oom_score_adj": "oom_score_adj", "pgtables": "pgtables_kb",
               "UID": "uid"}


@v_args(inline=True)
class KernelTransformer(Transformer):
    """Parse tree → (stamps, (kind, data)); no I/O."""

    INT = int
    SIGNED_INT = int

    def start(self, *items: Any) -> tuple[dict[str, Any], Any]:
        stamps: dict[str, Any] = {}
        for item in items[:-1]:
            stamps.update(item)
        return stamps, items[-1]

    def uptime_stamp(self, tok): return {"uptime_s": float(str(tok).strip("[] "))}

    def human_stamp(self, tok):
        parsed = time.strptime(" ".join(str(tok).strip("[]").split()), "%a %b %d %H:%M:%S %Y")
        return {"time": float(calendar.timegm(parsed))}

    def iso_stamp(self, tok):
        return {"time": datetime.fromisoformat(str(tok).replace(",", ".")).timestamp()}

    def syslog_stamp(self, tok): return {"host": str(tok).split()[-2]}

    def gfp_flags(self, *flags): return ("flags", str(flags[0]) if flags else None)

    def oom_invoked(self, task, gfp, *rest):
        flags = next((r[1] for r in rest if isinstance(r, tuple)), None)
        order, adj = [r for r in rest if isinstance(r, int)]
        task = str(task).removesuffix(" invoked oom-killer:").strip()
        return "oom_invoked", {"task": task, "pid": None, "gfp_mask": str(gfp), "gfp_flags": flags,
                               "order": order, "oom_score_adj": adj}

    def oom_summary(self, *items): return "summary", _summary_fields(items)
    def summary_continuation(self, *items): return "summary_more", _summary_fields(items)

    def oom_reason(self, reason, *allocating): return str(reason)

    def kill_stats(self, *stats: Any) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for stat in stats:
            name, _, value = str(stat).partition(":")
            if name in _STAT_NAMES:
                out[_STAT_NAMES[name]] = int(value.removesuffix("kB"))
        return out

    def killed_process(self, *items):
        reason, rest = (None, items) if isinstance(items[0], int) else (items[0], items[1:])
        stats = rest[2] if len(rest) > 2 else {}
        return "killed", {"reason": reason, "victim_pid": rest[0], "task": str(rest[1]), **stats}

    def selection_tail(self, *_): return None

    def kill_selected(self, reason, pid, comm, score, _tail):
        return "selected", {"reason": reason, "victim_pid": pid, "task": str(comm), "score": score}

    def memcg_task_in(self, task_cg, limit_cg): return "memcg", {"memcg": str(limit_cg), "task_memcg": str(task_cg)}
    def memcg_limit_reached(self, cg): return "memcg", {"memcg": str(cg)}
    def oom_group(self, cg): return "memcg", {"memcg": str(cg), "oom_group": True}
    def oom_reaper(self, _text): return "noise", {}

    def hung_task(self, head, seconds):
        task_pid = str(head).removeprefix("INFO: task ").removesuffix(" blocked for more than")
        task, _, pid = task_pid.rpartition(":")
        return "hung_task", {"task": task, "pid": int(pid), "seconds": seconds}

    def hung_task_detail(self, _text): return "noise", {}
    def hung_task_hint(self): return "noise", {}


def _summary_fields(items) -> dict[str, Any]:
    """`constraint=X,nodemask=(null),…,global_oom,…` → dict; a bare item after `mems_allowed=0-1,3` joins it."""
    out: dict[str, Any] = {}
    last = None
    for item in items:
        if item is None:
            continue
        key, sep, value = str(item).partition("=")
        if sep:
            out[key], last = value, key
        elif last is not None and re.fullmatch(r"[0-9-]+", key):
            out[last] += "," + key
        else:
            out[key] = True
    return out


_TRANSFORMER = KernelTransformer()


def parse_kernel_line(text: str) -> tuple[dict[str, Any], tuple[str, dict[str, Any]]] | None:
    return parse_with("kernel", _TRANSFORMER, text, errors=(ValueError,))


def looks_like_kernel(text: str) -> bool:
    first = text[:1]
    if first == "[" or first.isdigit() or (first.isupper() and text[3:4] == " "):
        if _STAMP_START.match(text):
            return True
    return text.startswith(_BARE_STARTS) or ("invoked oom-killer:" in text)


class KernelParser(LineParser):
    source = "kernel"

    def __init__(self, src: Source):
        super().__init__(src)
        self._summary: tuple[Line, dict[str, Any], dict[str, Any]] | None = None   # line, stamps, fields
        self._selected: dict[str, Any] | None = None
        self._memcg: dict[str, Any] = {}

    def feed(self, line: Line) -> bool:
        text = line.text
        if not looks_like_kernel(text):
            return False
        parsed = parse_kernel_line(text.strip())
        if parsed is None:
            if any(w in text for w in _OOM_WORDS) and not _STAMP_START.fullmatch(text + " "):
                self.unparsed(line)
            return True
        stamps, (kind, data) = parsed
        getattr(self, f"_on_{kind}", self._on_event)(line, stamps, kind, data)
        return True

    def _emit(self, kind: str, line: Line, stamps: dict[str, Any], data: dict[str, Any], pid=None):
        ev = self.emit(kind, line, **data)
        ev.time = stamps.get("time")
        ev.host = ev.host or stamps.get("host")
        ev.pid = pid
        if "uptime_s" in stamps:
            ev.data["uptime_s"] = stamps["uptime_s"]
        return ev

    def _on_event(self, line, stamps, kind, data):
        if kind == "noise":
            return
        pid = data.get("pid")
        if kind == "oom_invoked":
            self._flush_summary()
            self._memcg, self._selected = {}, None
        self._emit(kind, line, stamps, data, pid)

    def _on_summary(self, line, stamps, kind, data):
        self._flush_summary()
        self._memcg = {}
        self._summary = (line, stamps, data)

    def _on_summary_more(self, line, stamps, kind, data):
        if self._summary is None:
            self.unparsed(line)
            return
        self._summary[2].update(data)

    def _on_memcg(self, line, stamps, kind, data):
        self._memcg.update(data)

    def _on_selected(self, line, stamps, kind, data):
        self._selected = data

    def _on_killed(self, line, stamps, kind, data):
        summary = self._summary[2] if self._summary else {}
        if summary and str(summary.get("pid")) != str(data["victim_pid"]):
            self._flush_summary()
            summary = {}
        self._summary = None
        reason = data.pop("reason") or (self._selected or {}).get("reason")
        self._selected = None
        self._emit("oom_kill", line, stamps, self._oom_fields(data, summary, reason), data["victim_pid"])
        if not self._memcg.get("oom_group"):
            self._memcg = {}

    def _oom_fields(self, kill: dict[str, Any], summary: dict[str, Any], reason: str | None) -> dict[str, Any]:
        memcg = summary.get("oom_memcg") or self._memcg.get("memcg") or summary.get("task_memcg")
        constraint = summary.get("constraint")
        cgroup = reason == "Memory cgroup out of memory" or constraint == "CONSTRAINT_MEMCG" or bool(self._memcg)
        fields = {"victim_pid": kill.get("victim_pid"), "task": kill.get("task") or summary.get("task"),
                  "memcg": memcg, "constraint": constraint}
        for key in ("total_vm_kb", "anon_rss_kb", "file_rss_kb", "shmem_rss_kb", "oom_score_adj"):
            fields[key] = kill.get(key)
        fields["cgroup_oom"] = cgroup
        fields["task_memcg"] = summary.get("task_memcg") or self._memcg.get("task_memcg")
        return fields

    def _flush_summary(self) -> None:
        """A summary whose `Killed process` line never came still names the victim."""
        if self._summary is None:
            return
        line, stamps, summary = self._summary
        self._summary = None
        pid = int(summary["pid"]) if str(summary.get("pid", "")).isdigit() else None
        self._emit("oom_kill", line, stamps, self._oom_fields({"victim_pid": pid}, summary, None), pid)

    def finish(self) -> None:
        self._flush_summary()
