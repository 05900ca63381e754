"""Diagnosis → the rich terminal report: a verdict panel, a per-rank table, the evidence."""
from __future__ import annotations

from rich.console import Console, Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from ..model import SourceKind, rank_span
from ..pipeline.reduce import Diagnosis
from . import PipeConsole
from .diagnosis_json import divergence_of

CELL_CHARS = 100            # a rank-table cell: at most two or three lines at 80 columns (the JSON has it all)
_STYLE = {"high": "bold red", "medium": "yellow", "low": "dim yellow"}
MAX_RANK_ROWS = 32            # big jobs: culprits, cascades and a sample of the rest


def verdict_panel(d: Diagnosis) -> Panel:
    v = d.verdict
    body = Text()
    body.append(v.summary + "\n", style="bold")
    if v.culprit_ranks:
        body.append("culprit rank(s): " if not d.inconclusive else "ranks to look at: ", style="dim")
        body.append(", ".join(map(str, v.culprit_ranks)) + "\n", style="bold red")
    for line in missing_rank_lines(d):
        body.append("missing: ", style="dim")
        body.append(line + "\n", style="yellow")
    body.append("confidence: ", style="dim")
    body.append(v.reason + "\n", style=_STYLE.get(v.confidence.value, ""))
    for name, seq in sorted(d.timelines.last_common.items()):
        body.append("last common collective: ", style="dim")
        body.append(f"group {name} seq {seq if seq is not None else '-'}\n")
    if v.cascade_ranks:
        body.append("cascade (consequences): ", style="dim")
        body.append(rank_span(v.cascade_ranks) + "\n")
    if v.fix:
        body.append("fix: ", style="dim")
        body.append(v.fix, style="green")
    style = "green" if v.cls == "none" else "yellow" if d.inconclusive else "red"
    return Panel(body, title=f"[bold]ncclf diagnose: {v.cls}[/]", border_style=style, expand=True)


def missing_rank_lines(d: Diagnosis, limit: int = 6) -> list[str]:
    """One line per expected rank without (full) evidence: why, and which file."""
    w = d.world
    if w is None:
        return []
    gaps = sorted({**w.gaps, **w.partial}.items())
    out = []
    for rank, gap in gaps[:limit]:
        where = f" ({gap.files[0]}{' …' if len(gap.files) > 1 else ''})" if gap.files else ""
        what = gap.detail if gap.files else (gap.reason + (f" ({gap.detail})" if gap.detail else ""))
        partial = ", read in part" if rank in w.partial or rank in w.present else ""
        out.append(f"rank {rank}{partial}: {what}{where if gap.files and gap.files[0] not in what else ''}")
    if len(gaps) > limit:
        out.append(f"… and {len(gaps) - limit} more ranks (--format json lists them all)")
    out += [f"file of unknown rank: {e}" for e in w.unattributed[:3]]
    return out


def rank_table(d: Diagnosis) -> Table:
    t = Table(title="Ranks", show_lines=False, expand=False)
    for col in ("rank", "position", "py-spy", "ended", "first divergence"):
        t.add_column(col, overflow="fold", min_width=len(col) if col != "first divergence" else 9)
    div = divergence_of(d)
    pos = d.timelines.positions
    where = {}
    if not pos.empty:
        for g, r, p in zip(pos["group"], pos["rank"], pos["position"], strict=True):
            where.setdefault(int(r), []).append(f"{p}" if len(d.timelines.members) == 1 else f"{g}:{p}")
    shown = _ranks_to_show(d)
    for rank in shown:
        st = d.ranks[rank]
        spy = st.where or "-"
        if st.where == "collective":
            spy = f"in {st.op}"
        if st.at:
            spy += f" @ {st.at}"
        end = (st.end_detail + ("" if st.cause else " (consequence)")) if st.end else "-"
        dv = div.get(rank)
        dtext = f"{dv['group']} seq {dv['seq']}: {dv['field']} {dv['value']} (others {dv['modal']})" if dv else "-"
        style = "bold red" if rank in d.verdict.culprit_ranks else None
        cells = (str(rank), ", ".join(where.get(rank, ["-"])), spy, end, dtext)
        t.add_row(*(Text(_cut(" ".join(c.split()), CELL_CHARS)) for c in cells), style=style)
    hidden = len(d.ranks) - len(shown)
    if hidden > 0:
        t.caption = f"{hidden} more ranks not shown (use --format json for all)"
    return t


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _ranks_to_show(d: Diagnosis) -> list[int]:
    ranks = sorted(d.ranks)
    if len(ranks) <= MAX_RANK_ROWS:
        return ranks
    keep = set(d.verdict.culprit_ranks) | {r for r, st in d.ranks.items() if st.end and st.cause}
    for r in ranks:
        if len(keep) >= MAX_RANK_ROWS:
            break
        keep.add(r)
    return sorted(keep)


def evidence_lines(d: Diagnosis) -> list[tuple[Text, bool]]:
    """Each finding's citations as (text, keep whole): `file:line` is never wrapped or cut (it stays copyable and
    clickable), the cited line is cut to the width with an ellipsis."""
    primary = d.verdict.primary
    ordered = sorted(d.findings, key=lambda f: (f is not primary, not f.cause, f.id))
    fr_files = {s.path for s in d.sources if s.kind is SourceKind.FLIGHT_RECORDER}
    lines = [(Text("Evidence", style="italic"), False)]
    for f in ordered:
        lines.append((Text(f"{f.id} {f.name}" + ("" if f.cause else " (consequence)"), style="bold"), False))
        for e in f.evidence[:4]:
            lines.append((Text(f"  {citation(e, fr_files)}"), True))
            lines.append((Text(f"    {' '.join(e.text.split())[:300]}", no_wrap=True, overflow="ellipsis",
                               style="dim"), False))
    return lines


def citation(e, fr_files: set[str]) -> str:
    """`file:line`; a flight-recorder dump has entries, not lines: `file entry N`."""
    return f"{e.file} entry {e.line}" if e.file in fr_files else f"{e.file}:{e.line}"



def render(d: Diagnosis, console: Console | None = None) -> None:
    console = console or PipeConsole()
    parts = [verdict_panel(d)]
    if d.ranks:
        parts.append(rank_table(d))
    notes = []
    if d.missing:
        notes.append("missing evidence: " + "; ".join(d.missing))
    notes += [f"read error: {e}" for e in d.errors[:5]]
    notes += [f"warning: {w}" for w in d.warnings[:5]]
    console.print(Group(*parts))
    for text, whole in evidence_lines(d) if d.findings else ():
        console.print(text, soft_wrap=whole, no_wrap=not whole, overflow="ignore" if whole else "ellipsis")
    if notes:
        console.print(Text("\n".join(notes), style="dim"))
