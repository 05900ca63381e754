"""NCCL RAS client reports (`ncclras` text output) → `ras` events (grammars/ras.lark).

A report starts at its `NCCL version … compiled with CUDA …`, `CUDA runtime version …`, `Job summary` or
`Communicators...` line, or at a communicator's issue head (`#0-0 (<16 hex>) MISMATCH`: a paste that starts
mid-report); the parser is `busy` until a line that cannot belong to a report (an unindented line the grammar does
not know). Each table row, issue head and issue detail becomes one `ras` event carrying the section, the
communicator hash of the issue it belongs to, its state and the ranks it names. The wording of every version
(2.24-2.30, src/ras/client_support.cc) is listed in grammars/ras.lark.

What the report means for the job (`meaning`, `implies`, `ranks_at_fault`): the DEAD section's processes are
unreachable through the RAS network (peers.cc declares a peer dead once its keep-alives stop), so they died
(`dropped_rank`); the job's INCOMPLETE section lists live processes that sent no data in time (not responding:
`missing_rank`). A communicator's INCOMPLETE names the ranks of those processes: the largest communicator's (group
#0, as large as the job) ranks are the job's ranks and become `ranks_at_fault`, each `dropped_rank` when its process
is one of the dead. A MISMATCH is no failure (the client samples each rank's counts while the job runs), and
ERROR lines are a failure of no named class.
"""
from __future__ import annotations

import re
from typing import Any

from lark import Transformer, v_args

from ..model import Event, Line, Source
from .base import LineParser
from .grammars import parse_with

_REPORT_STARTS = ("CUDA runtime version ", "Job summary", "Communicators...")
_MONITOR = re.compile(r"\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\] PEER_[A-Z]+: ")     # 2.29+ `ncclras -m`
_ISSUE_HEAD = re.compile(r"#\d+-\d+ \([0-9a-f]{16}\) (?:INCOMPLETE|ERROR|MISMATCH)\s*$")
_RANK_ITEM = re.compile(r"(\d+)(?:\s*-\s*(\d+))?")
_JOB_COLUMNS = ("nodes", "processes_per_node", "gpus_per_process", "processes", "gpus")   # one table (2.24–2.26)
# 2.27+ prints two: "Nodes / Processes per node / GPUs per process", then "(total)" nodes / processes / GPUs
_JOB_TABLES = {"per_node": ("nodes", "processes_per_node", "gpus_per_process"), "totals": ("nodes", "processes", "gpus")}
_COMM_COLUMNS = ("group", "comms", "nodes_per_comm", "ranks_per_node", "ranks_per_comm", "ranks_in_group")


def rank_list(text: str) -> list[int]:
    """`1, 3-5` → [1, 3, 4, 5] (ranges capped at 65536 ranks)."""
    ranks: list[int] = []
    for m in _RANK_ITEM.finditer(text):
        lo = int(m[1])
        hi = int(m[2]) if m[2] else lo
        ranks.extend(range(lo, min(hi, lo + 65536) + 1))
    return ranks


@v_args(inline=True)
class RasTransformer(Transformer):
    """Parse tree → (what, data); no I/O."""

    INT = int

    def version_line(self, nccl, cuda): return "version", {"nccl_version": str(nccl), "cuda": str(cuda)}
    def cuda_line(self, runtime, driver): return "version", {"cuda_runtime": runtime, "cuda_driver": driver}
    def job_summary_head(self): return "section", {"section": "job_summary"}
    def communicators_head(self, *_t): return "section", {"section": "communicators"}
    def section_head(self, word): return "section", {"section": str(word).lower()}
    def underline(self, _tok): return "noise", {}
    def table_header(self, *_t): return "noise", {}
    def per_node_header(self, *_t): return "table", {"table": "per_node"}
    def totals_header(self, *_t): return "table", {"table": "totals"}

    def number_row(self, *items):
        # `Ranks per node` is a range (`7-8`) when the communicator's nodes hold different numbers: its low end
        ints = [i if isinstance(i, int) else int(i.split("-")[0]) for i in items if getattr(i, "type", "") != "STATUS"
                and getattr(i, "type", "") != "ERRORS"]
        words = [str(i) for i in items if getattr(i, "type", "") in ("STATUS", "ERRORS")]
        return "row", {"ints": ints, "words": words}

    def issue_head(self, group_comm, comm_hash, state):
        return "issue", {"group": str(group_comm), "comm_hash": str(comm_hash).lower(), "state": str(state)}

    def issue_state_head(self, state): return "issue", {"group": None, "comm_hash": None, "state": str(state)}

    def rank_location(self, rank, *rest):
        claim, (gpu, pid, node) = _claim(rest)
        return "detail", {"ranks": [rank], "gpu": str(gpu), "pid": pid, "node": str(node), "claim": claim}

    def rank_unlocated(self, rank, *rest): return "detail", {"ranks": [rank], "claim": _claim(rest)[0]}
    def dead_count(self, count, *_t): return "dead", {"count": count}
    def missing_processes(self, count, _noun): return "silent", {"count": count}
    def missing_rank_count(self, count, _noun): return "detail", {"ranks": [], "missing_count": count}

    def process_location(self, pid, node, _noun, gpus):
        return "process", {"pid": pid, "node": str(node), "gpu": str(gpus)}

    def ops_not_launched(self, count, *_t): return "detail", {"ranks": [], "rank_count": count, "opcount": 0}
    def gathering(self, _text): return "noise", {}
    def no_process_info(self, *_t): return "noise", {}

    def monitor_process(self, _stamp, event, pid, node, _noun, gpus):
        return "monitor", {"event": str(event), "pid": pid, "node": str(node), "gpu": str(gpus).strip()}

    def monitor_event(self, _stamp, event, *_text): return "monitor", {"event": str(event)}
    def outlier_nodes(self, _words): return "noise", {}
    def no_comm_data(self): return "noise", {}

    def ops_launched(self, count, _noun, _have, opcount):
        return "detail", {"ranks": [], "rank_count": count, "opcount": opcount}

    def missing_ranks(self, _words, text): return "detail", {"ranks": rank_list(str(text))}
    def detail(self, _text): return "detail", {"ranks": []}


def _claim(rest: tuple) -> tuple[str | None, tuple]:
    """A rank line's optional claim (`has status ABORT`, `reported Remote process error`) and its other fields."""
    if rest and getattr(rest[0], "type", None) == "CLAIM":
        return str(rest[0]).strip(), rest[1:]
    return None, rest


_TRANSFORMER = RasTransformer()


def parse_ras_line(text: str) -> tuple[str, dict[str, Any]] | None:
    return parse_with("ras", _TRANSFORMER, text, "ras_line")


class RasParser(LineParser):
    source = "ras"

    def __init__(self, src: Source):
        super().__init__(src)
        self._section: str | None = None
        self._issue: dict[str, Any] = {}
        self._table: str | None = None          # the Job summary's sub-table (2.27+ prints two)
        self._job = _JobFacts()
        self._counts = _OpCounts()             # the MISMATCH counts of each communicator, report after report

    def feed(self, line: Line) -> bool:
        text = line.text
        if not self.busy and text[:1] == "[" and _MONITOR.match(text):
            return self._monitor(line)
        if not self.busy:
            if not (text.startswith(_REPORT_STARTS) or text[:1] == "#" and _ISSUE_HEAD.match(text) or
                    (text.startswith("NCCL version ") and " compiled with CUDA " in text)):
                return False
            self.busy = True
            self._section, self._issue, self._job = "version", {}, _JobFacts()
        if not text.strip():
            return True                 # the blank lines between sections
        parsed = parse_ras_line(text.strip())
        indented = text[:1] in (" ", "\t")
        if parsed is None or (parsed[0] == "detail" and not indented and not parsed[1]["ranks"]):
            if indented:
                self.unparsed(line)
                return True
            self._counts.close()
            self.busy = False           # the report is over; this line belongs to someone else
            return False
        self._take(line, *parsed)
        return True

    def _monitor(self, line: Line) -> bool:
        """One monitor-mode event: PEER_DEAD says a process died (which rank it ran is not printed)."""
        parsed = parse_ras_line(line.text.strip())
        if parsed is None:
            return False
        data = parsed[1]
        dead = data["event"] == "PEER_DEAD"
        ev = self._emit(line, message=line.text.strip(), section="monitor", state=data["event"],
                        **(_fault("dropped_rank") if dead else {}))
        if "pid" in data:
            ev.pid, ev.host, ev.data["gpu"] = data["pid"], data["node"], data["gpu"]
        return True

    def _take(self, line: Line, what: str, data: dict[str, Any]) -> None:
        if what in ("section", "issue"):
            self._counts.close()
        if what == "section":
            self._section, self._issue, self._table = data["section"], {}, None
        elif what == "table":
            self._table = data["table"]
        elif what == "version":
            self._emit(line, message=line.text.strip(), state=None, **data)
        elif what == "row":
            self._row(line, data)
        elif what == "issue":
            self._issue = {"comm_hash": data["comm_hash"], "state": data["state"], "group": data["group"]}
            self._emit(line, message=line.text.strip(), ranks=[])
        elif what in ("dead", "silent"):
            self._job.count(what, data["count"])
            self._emit(line, message=line.text.strip(), count=data["count"], **_fault(_IMPLIES[what]))
        elif what == "process":
            implies = self._job.process(self._issue.get("state"), data["pid"], data["node"])
            ev = self._emit(line, message=line.text.strip(), **(_fault(implies) if implies else {}))
            ev.pid, ev.host, ev.data["gpu"] = data["pid"], data["node"], data["gpu"]
        elif what == "detail":
            self._detail(line, data)

    def _detail(self, line: Line, data: dict[str, Any]) -> None:
        ranks = data["ranks"]
        ev = self._emit(line, message=line.text.strip(), ranks=ranks)
        for key in ("rank_count", "opcount", "missing_count", "claim"):
            if data.get(key) is not None:
                ev.data[key] = data[key]
        if "pid" in data:
            ev.pid, ev.host, ev.data["gpu"] = data["pid"], data["node"], data["gpu"]
        in_job = self._job.job_wide(self._issue.get("group"))
        if in_job and len(ranks) == 1:
            ev.rank = ranks[0]
        state = self._issue.get("state") or ""
        if ranks and self._issue.get("comm_hash") and state.startswith("INCOMPLETE"):
            ev.data.update(_fault(self._job.fault_of(data.get("pid"), data.get("node")), ranks if in_job else []))
        elif state == "ERROR" and (ranks or "rank" in line.text):
            ev.data.update(meaning="failure", ranks_at_fault=ranks if in_job else [])
        elif state == "MISMATCH":
            self._counts.take(self._issue, ev, data, self._job)

    def _row(self, line: Line, data: dict[str, Any]) -> None:
        ints, words = data["ints"], data["words"]
        if self._section == "communicators" and len(ints) == len(_COMM_COLUMNS):
            extra = dict(zip(_COMM_COLUMNS, ints, strict=False))   # a short row: the columns it has
            self._job.comm_sizes.setdefault(ints[0], ints[4])
            self._emit(line, message=" ".join(words) or None, state=words[0] if words else None,
                       errors=words[1] if len(words) > 1 else None, ranks=[], **extra)
        elif self._section == "job_summary" and len(ints) == len(_JOB_COLUMNS):
            self._job.gpus = ints[-1]
            self._emit(line, message=line.text.strip(), state=None, ranks=[], **dict(zip(_JOB_COLUMNS, ints, strict=False)))
        elif self._section == "job_summary" and len(ints) == 3 and self._table in _JOB_TABLES:
            if self._table == "totals":
                self._job.gpus = ints[-1]
            self._emit(line, message=line.text.strip(), state=None, ranks=[],
                       **dict(zip(_JOB_TABLES[self._table], ints, strict=False)))
        else:
            self.unparsed(line)

    def _emit(self, line: Line, **data: Any) -> Event:
        fields: dict[str, Any] = {"section": self._section, "message": None, "ranks": [], "state": self._issue.get("state"),
                  "comm_hash": self._issue.get("comm_hash")}
        fields.update(data)
        return self.emit("ras", line, **fields)

    def finish(self) -> None:
        self._counts.close()
        self.busy = False


_IMPLIES = {"dead": "dropped_rank", "silent": "missing_rank"}


def _fault(implies: str, ranks: list[int] | None = None) -> dict[str, Any]:
    return {"meaning": "failure", "implies": implies, "ranks_at_fault": ranks or []}


class _JobFacts:
    """What one report said so far about the job: its size, its communicators' sizes, its dead and silent processes
    (the DEAD and INCOMPLETE sections come before the communicators' issues, client_support.cc)."""

    def __init__(self) -> None:
        self.gpus: int | None = None
        self.comm_sizes: dict[int, int] = {}
        self.dead: set[tuple[int, str]] = set()
        self.silent: set[tuple[int, str]] = set()
        self.counts = {"dead": 0, "silent": 0}

    def count(self, what: str, n: int) -> None:
        self.counts[what] = n

    def process(self, state: str | None, pid: int, node: str) -> str | None:
        """A `Process P on node H` line under DEAD (died) or the job's INCOMPLETE (alive, not responding)."""
        if state == "DEAD":
            self.dead.add((pid, node))
            return "dropped_rank"
        if state == "INCOMPLETE":
            self.silent.add((pid, node))
            return "missing_rank"
        return None

    def job_wide(self, group: str | None) -> bool:
        """Is the communicator of `#g-c` (group g) as large as the job, so its ranks are the job's? Group 0 holds the
        largest communicators; a report without its tables (a pasted part) is taken at its word for group 0."""
        if group is None or not group.startswith("0-"):
            return False
        size = self.comm_sizes.get(0)
        return size is None or self.gpus is None or size == self.gpus

    def fault_of(self, pid: int | None, node: str | None) -> str:
        """A missing rank's process died (dropped_rank) or is alive and silent (missing_rank)."""
        if (pid, node) in self.dead:
            return "dropped_rank"
        if (pid, node) in self.silent:
            return "missing_rank"
        unlisted_dead = pid is None or len(self.dead) < self.counts["dead"]
        return "dropped_rank" if self.counts["dead"] and not self.counts["silent"] and unlisted_dead else "missing_rank"


_LAUNCHED = re.compile(r"has (?:launched up to operation (\d+)|not launched any operations)")


class _OpCounts:
    """A MISMATCH of operation counts, function by function: the client samples each rank's counts while the job runs,
    so one report's differences are no failure. NCCL's RAS guide: when the output does not change across subsequent
    queries, the communicator may be stuck. So when a later report of the same paste prints the same counts for the
    same communicator and function, and the ranks behind are a few, all of them listed, those ranks are at fault
    (not responding: `missing_rank`)."""

    def __init__(self) -> None:
        self.seen: dict[tuple, tuple] = {}
        self.key: tuple | None = None
        self.in_job = False                   # the communicator's ranks are the job's
        self.runs: list[list] = []            # [opcount, how many ranks, their ranks, the events that name them]

    def take(self, issue: dict[str, Any], ev: Event, data: dict[str, Any], job: _JobFacts) -> None:
        claim = data.get("claim") or ""
        launched = _LAUNCHED.match(claim)
        if ev.data["message"].startswith("Communicator ranks have different"):
            self.close()
            self.key, self.in_job, self.runs = (issue.get("comm_hash"), ev.data["message"]), job.job_wide(issue.get("group")), []
        elif "opcount" in data:
            self.runs.append([data["opcount"], data["rank_count"], [], [ev]])
        elif launched:
            self.runs.append([int(launched[1] or 0), 1, list(data["ranks"]), [ev]])
        elif data["ranks"] and not claim and self.runs:
            self.runs[-1][2].extend(data["ranks"])
            self.runs[-1][3].append(ev)

    def close(self) -> None:
        if self.key is None:
            return
        counts = tuple((op, n, tuple(ranks)) for op, n, ranks, _ in self.runs)
        unchanged = self.seen.get(self.key) == counts
        self.seen[self.key] = counts
        if unchanged and len(self.runs) > 1:
            behind = min(self.runs, key=lambda run: run[0])
            op, n, ranks, events = behind
            if 2 * n < sum(run[1] for run in self.runs) and len(ranks) == n:
                for ev in events:
                    ev.data.update(_fault("missing_rank", ranks if self.in_job else []), stuck_at=op)
        self.key, self.runs = None, []
