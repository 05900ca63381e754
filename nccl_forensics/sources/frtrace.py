"""The report of PyTorch's own flight-recorder analyzer (`torchfrtrace`), pasted into a log → `frtrace_report`.

One event per reported collective, at its head line, with the fields the lines under it give (grammars/frtrace.lark):
`problem` ("not_joining", "size_mismatch", "errors"), `seq`, `record_id`, `group`, `op`, `missing_ranks`,
`expected_ranks`, `world_size`, `state`, `culprits` (the ranks its "error msg" names) and `errors` (the error types).
The analyzer's findings are evidence, not a verdict: ncclf's detectors weigh them with the rest.
"""
from __future__ import annotations

import re
from typing import Any

from lark import Transformer, v_args

from ..model import Line, Source
from .base import LineParser
from .grammars import parse_with

_HEADS = ("Not all ranks joining collective", "Input/output mismatch in the collective", "Collective ")
_CULPRIT = re.compile(r"Culprit rank (\d+); Error type: (\w+)")


@v_args(inline=True)
class FrtraceTransformer(Transformer):
    def start(self, item): return item
    def not_joining(self, _sep, seq): return "head", {"problem": "not_joining", "seq": int(seq)}
    def size_mismatch(self, seq): return "head", {"problem": "size_mismatch", "seq": int(seq)}
    def has_errors(self, seq): return "head", {"problem": "errors", "seq": int(seq)}
    def errors_at_entry(self, seq, record):
        return "head", {"problem": "errors", "seq": int(seq), "record_id": int(record)}
    def record_id(self, n): return "field", {"record_id": int(n)}
    def group_info(self, v): return "field", {"group": str(v).strip()}
    def collective(self, v): return "field", {"op_raw": str(v).strip()}
    def missing_ranks(self, ranks): return "field", {"missing_ranks": ranks}
    def expected_ranks(self, ranks): return "field", {"expected_ranks": ranks}
    def expected_count(self, n): return "field", {"group_size": int(n)}
    def world_size(self, n): return "field", {"world_size": int(n)}
    def state(self, v): return "field", {"state": str(v).strip()}
    def total_numel(self, which, n): return "field", {str(which).replace(" ", "_"): int(n)}
    def sizes(self, which, v): return "field", {str(which).replace(" ", "_"): str(v).strip()}
    def stack_head(self, *_v): return "end", {}

    def error_msg(self, v):
        found = _CULPRIT.findall(str(v))
        return "field", {"culprits": sorted({int(r) for r, _ in found}), "errors": sorted({e for _, e in found})}

    def rank_set(self, *ranks): return sorted(int(r) for r in ranks if r is not None)


_TRANSFORMER = FrtraceTransformer()


class FrtraceParser(LineParser):
    source = "frtrace"

    def __init__(self, src: Source) -> None:
        super().__init__(src)
        self._head: Line | None = None
        self._data: dict[str, Any] = {}

    def feed(self, line: Line) -> bool:
        text = line.text.strip()
        if not self.busy and not text.startswith(_HEADS):
            return False
        parsed = parse_with("frtrace", _TRANSFORMER, text)
        if parsed is None:
            self._close()
            return False
        what, data = parsed
        if what == "head":
            self._close()
            self._head, self._data, self.busy = line, dict(data), True
        elif what == "field":
            self._data.update(data)
        else:
            self._close()
        return True

    def finish(self) -> None:
        self._close()

    def _close(self) -> None:
        if self._head is not None:
            fields: dict[str, Any] = {
                "problem": None, "seq": None, "record_id": None, "group": None, "op_raw": None, "op": None,
                "missing_ranks": [], "expected_ranks": [], "world_size": None, "state": None, "culprits": [],
                "errors": []}
            fields.update(self._data)
            raw = fields.get("op_raw") or ""
            fields["op"] = raw.split(":", 1)[-1].replace("_", "") or None
            self.emit("frtrace_report", self._head, **fields)
        self._head, self._data, self.busy = None, {}, False
