"""Is the job still advancing? Read from the files it writes into the `ncclf run` folder.

Progress is a new NCCL COLL line (`opCount`) in any NCCL debug file; until the job has printed one (gloo,
or NCCL without COLL), any growth of its console or log files counts instead. Once COLL lines flow, only
they count: a watchdog warning repeated every minute is no progress. Under torchrun, the launcher's own log
lines (rendezvous, worker starts) are no sign that a rank runs: its console counts only for the lines torchrun
echoes from the ranks (`--tee`: `[default0]:...`, `elastic/multiprocessing/tail_log.py`). A new flight-recorder
dump is not progress either: torch writes one when a collective fails or times out, so it is reported as such.
Only the newest MiB a file grew by is read per poll, so a fast-growing log costs little.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

TAIL_BYTES = 1 << 20
_COLL = b" opCount "
_RANK_ECHO = re.compile(rb"(?m)^\[[^\]\s]{1,64}\]:")     # torchrun's tee prefix, `[{role}{local_rank}]:`


@dataclass
class Poll:
    progressed: bool = False
    new_fr_dumps: list[Path] = field(default_factory=list)


@dataclass
class ProgressWatch:
    root: Path
    console: Path | None = None          # the launcher's console, when only its rank echoes count (torchrun)
    sizes: dict[Path, int] = field(default_factory=dict)
    coll_seen: bool = False
    fr_seen: dict[Path, float] = field(default_factory=dict)

    def poll(self) -> Poll:
        result = Poll()
        grew_coll = grew_other = False
        for path, size in self._files():
            before = self.sizes.get(path, 0)
            if size == before:
                continue
            self.sizes[path] = size
            if path.parent.name == "fr":
                self._fr_dump(path, result)
            elif size > before and self._has(path, before, size, _COLL):
                grew_coll = True
            elif size > before and (path != self.console or self._has(path, before, size, _RANK_ECHO)):
                grew_other = True
        self.coll_seen = self.coll_seen or grew_coll
        result.progressed = grew_coll or (grew_other and not self.coll_seen)
        return result

    def _files(self):
        for folder, dirs, files in os.walk(self.root):
            dirs[:] = [d for d in dirs if not d.startswith(".") and d not in ("pyspy", "stacks", "node")]
            for name in files:
                path = Path(folder) / name
                try:
                    yield path, path.stat().st_size
                except OSError:
                    continue

    def _fr_dump(self, path: Path, result: Poll) -> None:
        try:
            mtime = path.stat().st_mtime
        except OSError:
            return
        if self.fr_seen.get(path) != mtime and not path.name.endswith(".tmp"):
            self.fr_seen[path] = mtime
            result.new_fr_dumps.append(path)

    @staticmethod
    def _has(path: Path, before: int, size: int, what: bytes | re.Pattern[bytes]) -> bool:
        """Whether the bytes `path` grew by (its newest MiB at most) hold `what`."""
        start = max(before, size - TAIL_BYTES)
        try:
            with open(path, "rb") as fh:
                fh.seek(start)
                new = fh.read(size - start)
        except OSError:
            return False
        return what in new if isinstance(what, bytes) else what.search(new) is not None
