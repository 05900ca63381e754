"""How an evidence line is shown in a cell or a sentence: the launcher's prefixes dropped, a long source path
shortened to its last parts (`[…/gloo/transport/tcp/pair.cc:553]`), the message kept. The citation beside it
(`file:line`) keeps the line as it was; JSON keeps it whole."""
from __future__ import annotations

import re

from ..diagnosis.rows import NO_SEQ
from ..sources.lines import unwrap

# An absolute source path of more than PATH_PARTS parts, as C++ exceptions print their origin
# (`[/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553]`, `/opt/conda/.../nccl.py:12`).
PATH_PARTS = 4
_LONG_PATH_RE = re.compile(r"(?<![\w.])/(?:[\w.+-]+/)+(?P<tail>(?:[\w.+-]+/){" + str(PATH_PARTS - 1) + r"}[\w.+-]+)")


def seq_text(seq) -> str:
    """`seq N`, or what a DETAIL fingerprint of torch 1.10 - 2.0 without a sequence number stands for (rows.NO_SEQ)."""
    return "(no seq)" if seq == NO_SEQ else f"seq {seq}"


def short_path(text: str) -> str:
    """Every absolute path deeper than PATH_PARTS parts, cut to its last PATH_PARTS parts after `…/`."""
    return _LONG_PATH_RE.sub(lambda m: "…/" + m.group("tail"), text)


_EMBEDDED_PREFIX_RE = re.compile(r"\[(?:default|rank)\d+\]:\s?")


def prose(text: str) -> str:
    """A detector's sentence that quotes a log line: the quoted line's launcher prefixes dropped, paths short."""
    return short_path(_EMBEDDED_PREFIX_RE.sub("", " ".join(str(text).split())))


def message(text: str) -> str:
    """An evidence line as a reader wants it in a cell: one line, no launcher prefix, short paths."""
    return prose(unwrap(" ".join(str(text).split()))[0])


# A flight-recorder entry is quoted by the parser as `record R pg P(desc) seq S backend:op in=SIZES DTYPES ...
# state=X` and by the timeline fast path as `flight_recorder seq S op numel=N dtype=D state=X`: shown one way.
_FR_FULL_RE = re.compile(r"record \d+ pg (?P<pg>\S+?)(?:\([^)]*\))? seq (?P<seq>-?\d+) (?P<op>\S+) "
                         r"in=(?P<sizes>.*?) (?P<dtypes>[\[(].*?[\])]) .*?state=(?P<state>\w+)")
_FR_ROW_RE = re.compile(r"flight_recorder seq (?P<seq>-?\d+) (?P<op>\S+) numel=(?P<numel>\S+) "
                        r"dtype=(?P<dtype>\S+) state=(?P<state>\S+)(?: at (?P<site>.+))?")
_FIRST_RE = re.compile(r"[\w.]+")


def fr_entry(text: str) -> str:
    """One flight-recorder entry as `seq S op numel=N dtype=D state=X` (the numel of its first input; the group
    is said beside it)."""
    m = _FR_ROW_RE.search(text)
    if m:
        site = f" at {short_path(m['site'])}" if m["site"] else ""
        return _entry(m["seq"], m["op"], m["numel"], m["dtype"], m["state"]) + site
    m = _FR_FULL_RE.search(text)
    if not m:
        return text
    dims = re.match(r"[\[(]*([\d, ]*)", m["sizes"])
    numbers = [int(x) for x in re.findall(r"\d+", dims.group(1))] if dims else []
    numel = 1
    for n in numbers:
        numel *= n
    dtype = _FIRST_RE.search(m["dtypes"].replace("'", " "))
    return _entry(m["seq"], m["op"], str(numel) if numbers else None, dtype.group(0).lower() if dtype else None,
                  m["state"])


def _entry(seq: str, op: str, numel: str | None, dtype: str | None, state: str | None) -> str:
    """`seq S op numel=N dtype=D state=X`, each field said only where the entry records it (no `numel=?`)."""
    fields = {"numel": numel, "dtype": dtype, "state": state}
    said = " ".join(f"{name}={value}" for name, value in fields.items() if value not in (None, "", "?", "None"))
    return f"seq {seq} {_op(op)}" + (f" {said}" if said else "")


def _op(raw: str) -> str:
    return raw.rsplit(":", 1)[-1].replace("_", "")


def evidence_text(text: str, is_dump: bool) -> str:
    """A cited line as every renderer shows it."""
    return fr_entry(text) if is_dump else message(text)


STDIN_LABEL = "<stdin>"


def relabel(d, path: str, label: str = STDIN_LABEL) -> None:
    """Show evidence read from a private temporary copy (stdin) under `label` in every renderer: the copy's path
    means nothing to the user and is gone when the command ends."""
    import dataclasses

    def fix(text):
        return text.replace(path, label) if isinstance(text, str) else text

    def evidence(items):
        return [e._replace(file=fix(e.file)) for e in items]

    for s in d.sources:
        s.path = fix(s.path)
    for f in d.findings:
        f.evidence = evidence(f.evidence)
    for st in d.ranks.values():
        st.evidence = evidence(st.evidence)
    for frame in (d.divergence, d.timelines.colls, d.timelines.positions):
        if frame is not None and "file" in getattr(frame, "columns", ()):
            frame["file"] = [fix(v) for v in frame["file"]]
    d.errors = [fix(e) for e in d.errors]
    d.warnings = [fix(w) for w in d.warnings]
    d.read_whole = {fix(p): ev._replace(file=fix(ev.file)) for p, ev in d.read_whole.items()}
    d.verdict.summary, d.verdict.reason, d.verdict.fix = map(fix, (d.verdict.summary, d.verdict.reason,
                                                                  d.verdict.fix))
    w = d.world
    if w is not None:
        for table in (w.gaps, w.partial):
            for rank, gap in table.items():
                table[rank] = dataclasses.replace(gap, files=tuple(fix(p) for p in gap.files))
        w.unattributed = [fix(e) for e in w.unattributed]
        w.claims = [dataclasses.replace(c, evidence=c.evidence._replace(file=fix(c.evidence.file)))
                    for c in w.claims]
