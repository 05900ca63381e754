"""nccl-tests / rccl-tests output (all_reduce_perf, …) read by `diagnose` (grammars/nccltests.lark, line by line).

A completed run is health evidence: `# Out of bounds values : 0 OK` and `# Avg bus bandwidth : B` make one
`nccltests_done` event per rank of its `#  Rank R Group G Pid P on HOST device D` lines (meaning "healthy", with the
bus bandwidth). That footer covers the whole run (`scope: job`): rank 0 prints it only after every thread of its
process joined and, in an MPI build, after an MPI_Allreduce of the error count over MPI_COMM_WORLD (src/common.cu,
every version since 2017; rccl-tests the same), so every rank of the run finished every size. The two footer lines
are distinctive enough to be read without the header, as a paste that starts mid-table holds them; a paste that
starts at the table's column names (`# size count type redop ...`) has its rows read from there. A run whose
table stops before the footer's first line (`# Out of bounds values`) while the console goes on (a signal notice,
mpirun's abort, the shell's next command) is a hang at the last size printed (`nccltests_incomplete`, meaning
"failure"); where the table is the console's last line, the stop is no failure by itself (a paste cut there, or a run
still going, reads the same): the event then carries no meaning, and the verdict rests on the other evidence;
wrong values (`# Out of bounds values : N FAILED`, a row's #wrong, `Avg bus bandwidth : B FAILED` below
NCCL_TESTS_MIN_BW) are a failure too.
"""
from __future__ import annotations

import re

from lark import LarkError, Tree

from ..model import Line, Source
from .base import LineParser
from .grammars import lalr

_ROW = re.compile(r"\s*\d+\s+\d+\s+\w+\s+\w+\s+-?\d+\s")
_COLUMNS = re.compile(r"#\s+size\s+count\s+type\s+redop\b")   # the table's column names (2019+: src/common.cu,
                                                                 # from 2025 src/util.cu writeResultHeader)
_ROW_CUT = re.compile(r"\s*\d+(?:\s+[\w.+-]+)*\s*$")   # a row's beginning, as a paste cut mid-row ends


class NccltestsParser(LineParser):
    source = "nccltests"

    def __init__(self, src: Source) -> None:
        super().__init__(src)
        self._started = False             # the config line was seen: rows are ours from here
        self._ranks: list[tuple[int, int, str, int]] = []
        self._last: dict | None = None    # the last result row
        self._oob: int | None = None
        self._done = False
        self._footer: Line | None = None  # the footer's first line, while no `Avg bus bandwidth` line followed it
        self._last_no = 0
        self._after_last = False          # a line that is no row came after the last row: the console went on

    def feed(self, line: Line) -> bool:
        text = line.text.strip()
        if text.startswith("# nThread ") or text.startswith("#  Rank ") or text.startswith("# Rank "):
            return self._parse(line, text)
        if text.startswith("# Out of bounds values") or text.startswith("# Avg bus bandwidth"):
            return self._parse(line, text)
        if not self._started and text.startswith("# ") and _COLUMNS.match(text):   # a paste from the table on
            self._started = True
            return True
        if self._started and _ROW.match(line.text) and self._parse(line, text):
            return True
        if line.text.strip():                  # (a blank line ends a paste as often as it goes on)
            self._after_last = self._last is not None and not _ROW_CUT.match(line.text)
        return False

    def _parse(self, line: Line, text: str) -> bool:
        try:
            tree = lalr("nccltests").parse(text)
        except LarkError:
            return False
        values = [str(c) for c in tree.children if not isinstance(c, Tree)]
        kind = tree.data
        if kind == "config_line":
            self._flush_footer()          # a run before this one that ended on its first footer line
            self._started, self._ranks, self._last, self._oob, self._done = True, [], None, None, False
            self.emit("nccltests_config", line, nthreads=int(values[0]), ngpus=int(values[1]),
                      min_bytes=int(values[2]), max_bytes=int(values[3]))
        elif kind == "rank_line":
            rank, pid, host, device = int(values[0]), int(values[2]), values[3], int(values[4])
            self._ranks.append((rank, pid, host, device))
            ev = self.emit("nccltests_rank", line, group=int(values[1]), device_index=device)
            ev.rank, ev.pid, ev.host = rank, pid, ev.host or host
        elif kind == "result_row":
            self._row(line, tree, values)
        elif kind == "oob_line":
            # the footer's first line: printed after every size ran and (MPI builds) after the error count's
            # MPI_Allreduce, so the table did not stop early even where the paste ends here (and mscclpp's test
            # forks print no `Avg bus bandwidth` line at all)
            self._oob, self._done, self._footer = int(values[0]), True, line
            ok = self._oob == 0 and values[1] == "OK"
            self.emit("nccltests_result", line, out_of_bounds=self._oob, status=values[1],
                      meaning="healthy" if ok else "failure", implies=None if ok else "data_corruption")
        elif kind == "avg_bw_line":
            self._footer = None
            self._emit_done(line, float(values[0]), failed="FAILED" in values[1:])   # below NCCL_TESTS_MIN_BW
        return True

    def _row(self, line: Line, tree: Tree, values: list[str]) -> None:
        placements = [[str(c) for c in p.children] for p in tree.children if isinstance(p, Tree)]
        wrong = [int(p[3]) for p in placements if p[3] != "N/A"]
        self._last = {"size": int(values[0]), "count": int(values[1]), "dtype": values[2], "redop": values[3],
                      "busbw": _num(placements[0][2]), "wrong": sum(wrong) if wrong else None}
        self._last_no, self._after_last = line.no, False
        ev = self.emit("nccltests_row", line, **self._last)
        if self._last["wrong"]:
            ev.data.update(meaning="failure", implies="data_corruption")

    def _emit_done(self, line: Line, avg_busbw: float | None, failed: bool = False) -> None:
        """One `nccltests_done` per rank of the run (the footer covers every rank: `scope: job`)."""
        healthy = not self._oob and not failed
        ranks: list[tuple[int | None, int | None, str | None, int | None]] = list(self._ranks) \
            or [(None, None, None, None)]
        said = f" (Avg bus bandwidth {avg_busbw:g})" if avg_busbw is not None else ""
        for on_rank, on_pid, on_host, _device in ranks:
            ev = self.emit("nccltests_done", line, avg_busbw=avg_busbw, out_of_bounds=self._oob,
                           meaning="healthy" if healthy else "failure", scope="job",
                           message=f"the nccl-tests run completed{said}")
            ev.rank, ev.pid, ev.host = on_rank, on_pid, on_host or ev.host

    def _flush_footer(self) -> None:
        """The run ended on the footer's first line (no average line followed it): it completed all the same."""
        if self._footer is not None:
            self._emit_done(self._footer, None)
            self._footer = None

    def finish(self) -> None:
        self._flush_footer()
        if self._started and self._last is not None and not self._done:
            self._emit_incomplete()

    def _emit_incomplete(self) -> None:
        """The table stopped before its footer: a hang where the console went on, else only where the log ends."""
        size, line = self._last["size"] if self._last else None, Line(self._last_no, "")
        if self._after_last:
            ev = self.emit("nccltests_incomplete", line, text="", last_size=size, meaning="failure",
                           implies="timeout_unknown",
                           message=f"the nccl-tests table stops after size {size}: a hang at the next size")
        else:
            ev = self.emit("nccltests_incomplete", line, text="", last_size=size,
                           message=f"the nccl-tests table stops after size {size} where the log ends "
                                   "(a cut paste or a run still going)")
        ev.text = ev.data["message"]


def _num(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None
