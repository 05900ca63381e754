"""NCCL RAS client reports (`ncclras` text output) → `ras` events (grammars/ras.lark).

A report starts at its `NCCL version … compiled with CUDA …`, `CUDA runtime version …` or `Job summary`
line; the parser is `busy` until a line that cannot belong to a report (an unindented line the grammar does
not know). Each table row, issue head and issue detail becomes one `ras` event carrying the section, the
communicator hash of the issue it belongs to, its state and the ranks it names.
"""
from __future__ import annotations

import re
from typing import Any

from lark import Transformer, v_args

from ..model import Event, Line, Source
from .base import LineParser
from .grammars import parse_with

_REPORT_STARTS = ("CUDA runtime version ", "Job summary")
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
        ints = [i for i in items if isinstance(i, int)]
        words = [str(i) for i in items if not isinstance(i, int)]
        return "row", {"ints": ints, "words": words}

    def issue_head(self, group_comm, comm_hash, state):
        return "issue", {"group": str(group_comm), "comm_hash": str(comm_hash).lower(), "state": str(state)}

    def issue_state_head(self, state): return "issue", {"group": None, "comm_hash": None, "state": str(state)}

    def rank_location(self, rank, gpu, pid, node):
        return "detail", {"ranks": [rank], "gpu": str(gpu), "pid": pid, "node": str(node)}

    def ops_launched(self, count, _noun, _have, opcount):
        return "detail", {"ranks": [], "rank_count": count, "opcount": opcount}

    def missing_ranks(self, _words, text): return "detail", {"ranks": rank_list(str(text))}
    def detail(self, _text): return "detail", {"ranks": []}


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

    def feed(self, line: Line) -> bool:
        text = line.text
        if not self.busy:
            if not (text.startswith(_REPORT_STARTS) or
                    (text.startswith("NCCL version ") and " compiled with CUDA " in text)):
                return False
            self.busy = True
            self._section, self._issue = "version", {}
        parsed = parse_ras_line(text.strip())
        indented = text[:1] in (" ", "\t")
        if parsed is None or (parsed[0] == "detail" and not indented and not parsed[1]["ranks"]):
            if indented:
                self.unparsed(line)
                return True
            self.busy = False           # the report is over; this line belongs to someone else
            return False
        self._take(line, *parsed)
        return True

    def _take(self, line: Line, what: str, data: dict[str, Any]) -> None:
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
        elif what == "detail":
            ev = self._emit(line, message=line.text.strip(), ranks=data["ranks"])
            if "opcount" in data:
                ev.data.update(rank_count=data["rank_count"], opcount=data["opcount"])
            if "pid" in data:
                ev.pid, ev.host, ev.data["gpu"] = data["pid"], data["node"], data["gpu"]
                if len(data["ranks"]) == 1:
                    ev.rank = data["ranks"][0]

    def _row(self, line: Line, data: dict[str, Any]) -> None:
        ints, words = data["ints"], data["words"]
        if self._section == "communicators" and len(ints) == len(_COMM_COLUMNS):
            extra = dict(zip(_COMM_COLUMNS, ints, strict=False))   # a short row: the columns it has
            self._emit(line, message=" ".join(words) or None, state=words[0] if words else None,
                       errors=words[1] if len(words) > 1 else None, ranks=[], **extra)
        elif self._section == "job_summary" and len(ints) == len(_JOB_COLUMNS):
            self._emit(line, message=line.text.strip(), state=None, ranks=[], **dict(zip(_JOB_COLUMNS, ints, strict=False)))
        elif self._section == "job_summary" and len(ints) == 3 and self._table in _JOB_TABLES:
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
        self.busy = False
