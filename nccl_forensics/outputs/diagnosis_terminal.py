"""Diagnosis → the rich terminal report: a verdict panel, a per-rank table, the evidence."""
from __future__ import annotations

from rich.console import Console, Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from ..model import SourceKind, ranks_phrase, ranks_text
from ..pipeline.reduce import Diagnosis
from .console import make_console
from .diagnosis_json import divergence_of, group_order
from .display import evidence_text, message, seq_text

CELL_CHARS = 160            # a rank-table cell on a terminal: two or three lines (piped: whole; the JSON has it all)
_STYLE = {"high": "bold red", "medium": "yellow", "low": "dim yellow"}
MAX_RANK_ROWS = 32            # up to this many ranks, every rank has a row
BIG_JOB_ROWS = 8              # above it: culprits and the ranks whose end is a cause, at most this many rows
MAX_GROUP_LINES = 4           # the groups that explain the verdict; one line for the rest


def verdict_panel(d: Diagnosis) -> Panel:
    v = d.verdict
    body = Text()
    body.append(said_once(v.summary, v.fix) + "\n", style="bold")
    if v.culprit_ranks:
        body.append("culprit rank(s): " if not d.inconclusive else "ranks to look at: ", style="dim")
        body.append(ranks_text(v.culprit_ranks, runs=True) + "\n", style="bold red")
    for line in missing_rank_lines(d):
        body.append("missing: ", style="dim")
        body.append(line + "\n", style="yellow")
    body.append("confidence: ", style="dim")
    body.append(v.reason + "\n", style=_STYLE.get(v.confidence.value, ""))
    for line in group_lines(d):
        body.append("last common collective: " if line.startswith("group ") else "", style="dim")
        body.append(line + "\n")
    if v.cascade_ranks:
        body.append("cascade (consequences): ", style="dim")
        body.append(ranks_phrase(v.cascade_ranks) + "\n")
    if v.fix:
        body.append("fix: ", style="dim")
        body.append(v.fix, style="green")
    style = "green" if v.cls == "none" else "yellow" if d.inconclusive else "red"
    return Panel(body, title=f"[bold]ncclf diagnose: {v.cls}[/]", border_style=style, expand=True)


def said_once(summary: str, fix: str) -> str:
    """The summary without its "; missing: a; b" items that the fix repeats word for word (T601 names what to
    collect in its message and in its fix): the panel says it once, in the fix."""
    head, sep, rest = summary.partition("; missing: ")
    items = rest.split("; ")
    said = 0
    while sep and fix and said < len(items) and items[said] in fix:
        said += 1
    if not said:
        return summary
    return "; ".join([head, *items[said:]])


def group_lines(d: Diagnosis, limit: int = MAX_GROUP_LINES) -> list[str]:
    """The groups that explain the verdict (those holding a culprit, or whose members stand at different points),
    then one line for the rest: a job with a hundred communicators still fits a screen."""
    tl = d.timelines
    state = _group_state(d)
    shown, rest = telling_groups(d, limit)
    out = []
    for g in shown:
        seq = tl.last_common.get(g)
        what = seq_text(seq) if seq is not None else "no collective recorded (point-to-point only, or none)"
        seen, size = len(tl.members[g]), d.group_sizes.get(g, 0)
        count = f"{seen} of {size} ranks seen" if size > seen else f"{seen} rank{'s' if seen != 1 else ''}"
        out.append(f"group {g} ({group_desc(d, g)}{count}): {what}"
                   + {"even": "", "uneven": ", members at different points", "empty": ""}[state[g]])
    if rest:
        out.append(f"{len(rest)} other group{'s' if len(rest) > 1 else ''}: {_rest_states(rest, state)}")
    return out


def _rest_states(rest: list[str], state: dict[str, str]) -> str:
    """`every member at the same point`, or how many groups stand how: `3 with members at different points, 120
    with every member at the same point, 5 with no collective recorded`."""
    counts = {k: sum(1 for g in rest if state[g] == k) for k in ("uneven", "even", "empty")}
    if counts["even"] == len(rest):
        return "every member at the same point"
    if counts["empty"] == len(rest):
        return "no collective recorded (point-to-point only, or none)"
    words = {"uneven": "with members at different points (--format json lists them)",
             "empty": "with no collective recorded", "even": "with every member at the same point"}
    return ", ".join(f"{n} {words[k]}" for k, n in counts.items() if n)


def telling_groups(d: Diagnosis, limit: int = MAX_GROUP_LINES) -> tuple[list[str], list[str]]:
    """(the groups to show, the rest): the group the verdict names first, then those holding a culprit, then
    those whose members stand at different points; a culprit's group with no collective at all (P2P only, or
    only completed entries dumped) only when nothing else tells."""
    tl = d.timelines
    names = sorted(tl.members, key=group_order)
    if len(names) <= limit:
        return names, []
    state = _group_state(d)
    culprits = set(d.verdict.culprit_ranks)
    named = d.verdict.primary.group if d.verdict.primary else None
    telling = [g for g in names if state[g] == "uneven"] or [g for g in names if culprits & set(tl.members[g])]
    telling = [g for g in telling if state[g] != "empty"] or telling
    telling.sort(key=lambda g: (g != named, not culprits & set(tl.members[g]), group_order(g)))
    return telling[:limit], [g for g in names if g not in telling[:limit]]


def group_desc(d: Diagnosis, group: str) -> str:
    """`TENSOR_MODEL_PARALLEL_GROUP, ` where a flight recorder describes the group, else nothing."""
    desc = d.group_descs.get(group)
    return f"{desc}, " if desc else ""


def _group_state(d: Diagnosis) -> dict[str, str]:
    """Per group: "even" (every member at the last common collective), "uneven", or "empty" (no collective)."""
    pos = d.timelines.positions
    seen: dict[str, set] = {}
    if not pos.empty:
        for g, p in zip(pos["group"], pos["position"], strict=True):
            seen.setdefault(g, set()).add(p)
    out = {}
    for g in d.timelines.members:
        points = seen.get(g, set())
        out[g] = ("empty" if d.timelines.last_common.get(g) is None and points <= {"missing"}
                  else "even" if points <= {"at"} else "uneven")
    return out


def missing_rank_lines(d: Diagnosis, limit: int = 6) -> list[str]:
    """One line per reason an expected rank has no (full) evidence: which ranks (as runs), why, and which file; the
    ranks that share a reason share a line, so a 64-rank world told once is not 63 copies of one sentence."""
    w = d.world
    if w is None:
        return []
    same: dict[str, list[int]] = {}
    for rank, gap in sorted({**w.gaps, **w.partial}.items()):
        where = f" ({gap.files[0]}{' …' if len(gap.files) > 1 else ''})" if gap.files else ""
        what = gap.detail if gap.files else (gap.reason + (f" ({gap.detail})" if gap.detail else ""))
        partial = ", read in part" if rank in w.partial or rank in w.present else ""
        same.setdefault(f"{partial}: {what}{where if gap.files and gap.files[0] not in what else ''}", []).append(rank)
    lines = list(same.items())
    out = [f"{ranks_phrase(ranks)}{why}" for why, ranks in lines[:limit]]
    if len(lines) > limit:
        rest = sum(len(ranks) for _, ranks in lines[limit:])
        out.append(f"… and {rest} more rank{'s' if rest > 1 else ''} (--format json lists them all)")
    out += [f"file of unknown rank: {e}" for e in w.unattributed[:3]]
    if w.unlisted:
        out.append(f"{w.unlisted:,} more ranks of the stated size {w.size:,} left no evidence (counted, not listed)")
    return out


def rank_table(d: Diagnosis, cut: bool = True) -> Table:
    """One row per rank (a big job: the culprits and the ranks whose end was a cause); `cut` shortens long cells
    (a terminal), otherwise they wrap whole (a pipe)."""
    t = Table(title="Ranks", show_lines=False, expand=False)
    for col in ("rank", "position", "py-spy", "ended", "first divergence"):
        t.add_column(col, overflow="fold", min_width=len(col) if col != "first divergence" else 9)
    div = divergence_of(d)
    pos = d.timelines.positions
    where: dict[int, list] = {}
    if not pos.empty:
        for g, r, p in zip(pos["group"], pos["rank"], pos["position"], strict=True):
            where.setdefault(int(r), []).append((g, p))
    state = _group_state(d)
    shown = _ranks_to_show(d)
    for rank in shown:
        st = d.ranks[rank]
        spy = st.where or "-"
        if st.where == "collective":
            spy = f"in {st.op}"
        if st.at:
            spy += f" @ {st.at}"
        end = (message(st.end_detail) + ("" if st.cause else " (consequence)")) if st.end else "-"
        dv = div.get(rank)
        dtext = (f"group {dv['group']} {seq_text(dv['seq'])}: {dv['field']} {dv['value']} (others {dv['modal']})"
                 if dv else "-")
        style = "bold red" if rank in d.verdict.culprit_ranks else None
        cells = (str(rank), _positions(where.get(rank, []), state, len(d.timelines.members)), spy, end, dtext)
        t.add_row(*(Text(_cut(" ".join(c.split()), CELL_CHARS) if cut else " ".join(c.split())) for c in cells),
                  style=style)
    hidden = len(d.ranks) - len(shown)
    if hidden > 0:
        t.caption = f"{hidden} more ranks not shown (--format json lists every rank)"
    return t


def _positions(where: list[tuple[str, str]], state: dict[str, str], groups: int) -> str:
    """A rank's position per group: one word for one group; for many, the groups where it is not `at` the
    common point and a count of the rest. A group with no collective at all (P2P only) is not "missing"."""
    if not where:
        return "-"
    where = [(g, "-" if state.get(g) == "empty" else p) for g, p in where]
    if groups == 1:
        return where[0][1]
    odd = sorted(((g, p) for g, p in where if p not in ("at", "-") or state.get(g) == "uneven"),
                 key=lambda gp: group_order(gp[0]))
    parts = [f"{g}:{p}" for g, p in odd[:3]] + ([f"+{len(odd) - 3} more"] if len(odd) > 3 else [])
    level = sum(1 for _, p in where if p == "at") - sum(1 for _, p in odd if p == "at")
    if level:
        parts.append((f"at in {level} other group{'s' if level > 1 else ''}" if odd
                      else "at" if level == 1 else f"at in all {level} groups") if len(where) > 3 or not odd
                     else ", ".join(f"{g}:{p}" for g, p in where if (g, p) not in odd and p == "at"))
    return ", ".join(parts)


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _ranks_to_show(d: Diagnosis) -> list[int]:
    ranks = sorted(d.ranks)
    if len(ranks) <= MAX_RANK_ROWS:
        return ranks
    keep = list(dict.fromkeys([*sorted(d.verdict.culprit_ranks),
                                *sorted(r for r, st in d.ranks.items() if st.end and st.cause)]))
    return sorted(keep[:BIG_JOB_ROWS]) or ranks[:BIG_JOB_ROWS]


def evidence_lines(d: Diagnosis, cut: bool = True) -> list[tuple[Text, bool]]:
    """Each finding's citations as (text, keep whole): `file:line` is never wrapped or cut (it stays copyable and
    clickable); the cited line, without launcher prefixes and with short paths, is cut to the width with an
    ellipsis on a terminal and wraps whole in a pipe."""
    primary = d.verdict.primary
    ordered = sorted(d.findings, key=lambda f: (f is not primary, not f.cause, f.id))
    fr_files = {s.path for s in d.sources if s.kind is SourceKind.FLIGHT_RECORDER}
    lines = [(Text("Evidence", style="italic"), False)]
    for f in ordered:
        about = f": {ranks_phrase(f.ranks)}" if f.ranks else ""
        lines.append((Text(f"{f.id} {f.name}{about}" + ("" if f.cause else " (consequence)"), style="bold"), False))
        for e in f.evidence[:4]:
            lines.append((Text(f"  {citation(e, fr_files)}"), True))
            said = evidence_text(e.text, e.file in fr_files)
            lines.append((Text(f"    {said[:300] if cut else said}", no_wrap=cut, overflow="ellipsis",
                               style="dim"), False))
    return lines


def citation(e, fr_files: set[str]) -> str:
    """`file:line`; a flight-recorder dump has entries, not lines: `file entry N`."""
    return cite(e.file, e.line, e.file in fr_files)


def cite(file: str, line, is_dump: bool) -> str:
    """The one citation format of every renderer: `file:line`, or `file entry N` for a flight-recorder dump."""
    return f"{file} entry {line}" if is_dump else f"{file}:{line}"



def render(d: Diagnosis, console: Console | None = None) -> None:
    console = console or make_console()
    cut = console.is_terminal
    parts: list[Panel | Table | Text] = [verdict_panel(d)]
    if d.ranks:
        table = rank_table(d, cut)
        hidden, table.caption = table.caption, None       # one line under the table, not wrapped to its width
        parts += [table, *([Text(str(hidden), style="dim")] if hidden else [])]
    notes = []
    if d.missing and not all(m in d.verdict.reason for m in d.missing):     # the confidence line said them
        notes.append("missing evidence: " + "; ".join(d.missing))
    notes += [f"read error: {e}" for e in d.errors[:5]]
    notes += [f"warning: {w}" for w in d.warnings[:5]]
    console.print(Group(*parts))
    for text, whole in evidence_lines(d, cut) if d.findings else ():
        console.print(text, soft_wrap=whole, no_wrap=cut and not whole,
                      overflow="ignore" if whole else "ellipsis" if cut else "fold")
    if notes:
        console.print(Text("\n".join(notes), style="dim"))
