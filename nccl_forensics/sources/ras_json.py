"""NCCL RAS client reports in JSON (`ncclras -f json`, NCCL 2.28.7+; monitor events `ncclras -m -f json`, 2.29+)
→ `ras` events, as the text reports give them (sources/ras.py).

NCCL writes the document itself, one key per line (src/ras/client_support.cc: jsonWriteHeader, jsonStartCommunicator,
jsonWriteRankData, jsonWriteMissingRank, jsonWriteFooter; rasClientsNotifyEvent for monitor events), so it is read
line by line, inside a console or as a file of its own. A report opens at its `"nccl_version"` key; a monitor event
at its `"group": "LIFECYCLE"|"TRACE"` key; either ends where its braces close.

What it means for the job (the text report's reading): a communicator's `missing_ranks` entry is a rank whose process
did not report that communicator. `considered_dead` (its process is dead to the RAS network, peers.cc) makes it
`dropped_rank`, otherwise it is alive and silent (`missing_rank`). A rank whose `async_error` is set (an
`ncclResult_t`) failed with no named class, unless the error is ncclRemoteError (6: a peer failed first, a
consequence) or ncclInProgress (7). The ranks are the job's only in the largest communicator of the report (a
communicator's own ranks are no job ranks). A monitor event PEER_DEAD says a process died (its rank is not printed).
"""
from __future__ import annotations

import re
from typing import Any

from ..model import Event, Line, Source
from .base import LineParser

_KEY = re.compile(r'\s*"(\w+)":\s*(?:"([^"]*)"|(-?\d+(?:\.\d+)?)|(true|false))?')
_REPORT_START = re.compile(r'\s*"nccl_version":\s*"')
_EVENT_START = re.compile(r'\s*"group":\s*"(?:LIFECYCLE|TRACE)"')
_OPENING_KEYS = ('"n', '"g')                          # the first characters of those keys
_REMOTE_ERROR, _IN_PROGRESS = 6, 7
_JSON_STARTS = frozenset('"{}[]-0123456789tfn')      # how a line inside the document can start
# ncclResult_t as the text report names it (client_support.cc ncclErrorToString)
_ERRORS = {1: "Unhandled CUDA error", 2: "System error", 3: "Internal error", 4: "Invalid argument",
           5: "Invalid usage", 6: "Remote process error"}


class RasJsonParser(LineParser):
    source = "ras"

    def __init__(self, src: Source):
        super().__init__(src)
        self._depth = 0
        self._kind = ""                       # "report" or "monitor"
        self._section: str | None = None      # "ranks" or "missing_ranks" of the current communicator
        self._comm: dict[str, Any] = {}
        self._largest = 0                     # the largest communicator of the report so far
        self._item: dict[str, Any] = {}       # the rank (or the monitor event) being read
        self._item_line: Line | None = None

    def feed(self, line: Line) -> bool:
        text = line.text
        if not self.busy:
            if text.lstrip()[:2] not in _OPENING_KEYS:   # the bulk of a console, at the cost of one slice
                return False
            if _REPORT_START.match(text):
                self._open("report", depth=1)
            elif _EVENT_START.match(text):
                self._open("monitor", depth=1)
            else:
                return False
        stripped = text.strip()
        if not stripped or stripped[0] not in _JSON_STARTS:
            self.finish()                     # not JSON: the document was cut
            return False
        self._depth += stripped.count("{") + stripped.count("[") - stripped.count("}") - stripped.count("]")
        key = _KEY.match(stripped)
        if key:
            self._take(line, key[1], _value(key))
        if self._depth <= 0:
            self.finish()
        return True

    def _open(self, kind: str, depth: int) -> None:
        self.busy, self._kind, self._depth = True, kind, depth    # inside the object the line before opened
        self._section, self._comm, self._largest, self._item, self._item_line = None, {}, 0, {}, None

    def _take(self, line: Line, key: str, value: Any) -> None:
        if self._kind == "monitor":
            self._monitor(line, key, value)
        elif key == "nccl_version":
            self._emit(line, section="version", nccl_version=value)
        elif key == "hash":
            self._comm, self._section = {"comm_hash": str(value).lower().removeprefix("0x")}, None
        elif key == "size":
            self._comm["size"] = value
            self._largest = max(self._largest, value or 0)
        elif key in ("ranks", "missing_ranks"):
            self._section = key
        elif key == "rank":
            self._item, self._item_line = {"rank": value}, line
        elif key in ("host", "pid", "async_error", "unresponsive"):
            self._item[key] = value
        elif key == "abort_flag" and self._section == "ranks":
            self._rank_done()
        elif key == "considered_dead" and self._section == "missing_ranks":
            self._item["dead"] = value
            self._missing_done()

    def _job_ranks(self, rank: int) -> list[int]:
        """The rank as a job rank: only a communicator as large as the largest of the report holds the job's ranks."""
        return [rank] if self._comm.get("size", 0) >= self._largest else []

    def _rank_done(self) -> None:
        error = self._item.get("async_error") or 0
        if not error or error == _IN_PROGRESS or self._item_line is None:
            return
        meaning = "consequence" if error == _REMOTE_ERROR else "failure"
        said = f"has async error {error} ({_ERRORS.get(error, 'Unexpected error')})"
        self._rank_event("ERROR", said, meaning=meaning, async_error=error,
                         ranks_at_fault=self._job_ranks(self._item["rank"]) if meaning == "failure" else [])

    def _missing_done(self) -> None:
        if self._item_line is None:
            return
        dead = bool(self._item.get("dead"))
        said = "is missing" + (", its process considered dead" if dead else
                               ", its process not responding" if self._item.get("unresponsive") else "")
        self._rank_event("DEAD" if dead else "INCOMPLETE", said, meaning="failure",
                         implies="dropped_rank" if dead else "missing_rank",
                         ranks_at_fault=self._job_ranks(self._item["rank"]),
                         unresponsive=self._item.get("unresponsive"))

    def _rank_event(self, state: str, said: str, **data: Any) -> None:
        """One rank's event, said as a sentence (NCCL's JSON line holds only its first key)."""
        assert self._item_line is not None
        rank, item = self._item["rank"], self._item
        located = item.get("host") not in (None, "unknown")
        where = f" (process {item.get('pid')} on {item.get('host')})" if located else ""
        sentence = f"NCCL RAS: rank {rank}{where} of communicator {self._comm.get('comm_hash')} {said}"
        ev = self._emit(self._item_line, text=sentence, section=self._section, state=state, ranks=[rank],
                        **{**data, "message": sentence})
        if self._job_ranks(rank):
            ev.rank = rank
        ev.pid = self._item.get("pid") if (self._item.get("pid") or -1) > 0 else None
        ev.host = self._item.get("host") if self._item.get("host") not in (None, "unknown") else ev.host
        self._item_line = None

    def _monitor(self, line: Line, key: str, value: Any) -> None:
        """One monitor event: PEER_DEAD says a process died; its peer's host and pid follow the event key."""
        if key == "event":
            self._item, self._item_line = {"event": value}, line
        elif key in ("host", "pid"):
            self._item[key] = value
        elif key == "details" and self._item_line is not None:
            item = self._item
            sentence = f"NCCL RAS monitor: {item.get('event')} process {item.get('pid')} on {item.get('host')}"
            dead = {"meaning": "failure", "implies": "dropped_rank", "ranks_at_fault": []}
            ev = self._emit(self._item_line, text=sentence, section="monitor", state=item.get("event"),
                            message=sentence, **(dead if item.get("event") == "PEER_DEAD" else {}))
            ev.pid, ev.host = item.get("pid"), item.get("host") or ev.host
            self._item_line = None

    def _emit(self, line: Line, text: str | None = None, **data: Any) -> Event:
        fields: dict[str, Any] = {"section": None, "message": line.text.strip(), "ranks": [], "state": None,
                                  "comm_hash": self._comm.get("comm_hash")}
        fields.update(data)
        return self.emit("ras", line, text=text, **fields)

    def finish(self) -> None:
        self.busy, self._depth, self._item_line = False, 0, None


def _value(key: re.Match[str]) -> Any:
    if key[2] is not None:
        return key[2]
    if key[3] is not None:
        return float(key[3]) if "." in key[3] else int(key[3])
    return None if key[4] is None else key[4] == "true"
