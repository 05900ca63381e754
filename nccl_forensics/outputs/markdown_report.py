"""Diagnosis → a one-page Markdown postmortem an engineer pastes as it is: a summary sentence (who, what, where,
the collective), the diagnostic walk (what each evidence source showed, per rank), root cause, consequences, fix,
prevention, and each missing piece of evidence once, with the command that collects it. A run with no failure
gets a health report instead. Every claim cites the line it rests on, in one format per kind of line."""
from __future__ import annotations

import re

from ..diagnosis.verdict import consequence_of
from ..hygiene import markdown_code, markdown_text
from ..model import SourceKind, ranks_text
from ..pipeline.reduce import Diagnosis
from .diagnosis_json import divergence_of, groups_of
from .diagnosis_terminal import MAX_GROUP_LINES, cite, group_lines, missing_rank_lines, telling_groups
from .display import evidence_text, prose, seq_text


def _span(ranks) -> str:
    """Ranks as runs (`0-7, 16-23`), capped as model.ranks_text caps them: a postmortem of 100,000 ranks stays short."""
    return ranks_text(ranks, runs=True)

# What would have caught each class earlier (env vars and checks), by verdict class.
PREVENTION = {
    "shape_mismatch": [("`TORCH_DISTRIBUTED_DEBUG=DETAIL` in a short CI run: every collective's shape is checked "
                        "across ranks before it runs"), "`drop_last=True` (or padding) for uneven data"],
    "dtype_mismatch": ["`TORCH_DISTRIBUTED_DEBUG=DETAIL` in CI: dtypes are checked across ranks",
                       "create tensors with an explicit `dtype=`; avoid mixing `.double()` paths per rank"],
    "op_mismatch": ["`TORCH_DISTRIBUTED_DEBUG=DETAIL` in CI: op types are checked across ranks",
                    "no rank-dependent branches around collectives"],
    "collective_skipped": ["`TORCH_DISTRIBUTED_DEBUG=DETAIL` (sequence numbers are compared)",
                           "`torch.distributed.algorithms.Join` for uneven inputs"],
    "dropped_rank": ["torchrun `--log-dir` (per-rank exit codes and error.json)", "`dmesg` collection on failure"],
    "stuck_rank": ["`TORCH_FR_BUFFER_SIZE=2000` + `TORCH_NCCL_DUMP_ON_TIMEOUT=1` (flight recorder dump on timeout)",
                   "a shorter process-group timeout (`init_process_group(timeout=...)`) so a stuck rank fails fast",
                   "an assert that every rank's data loader yields the same number of batches"],
    "oom": ["memory monitoring per rank (`torch.cuda.max_memory_allocated`, RSS)", "`dmesg` collection on failure"],
    "network_error": ["`NCCL_DEBUG=WARN` at least, `NCCL_IB_TIMEOUT`/`NCCL_IB_RETRY_CNT` tuned for the fabric",
                      "a pre-flight `ncclf probe` / nccl-tests run on new nodes"],
    "nic_misselection": ["`NCCL_SOCKET_IFNAME` / `GLOO_SOCKET_IFNAME` set in the job template",
                         "`NCCL_DEBUG=INFO` for the first step (Bootstrap / NET lines)"],
    "version_mismatch": ["one container image for every node; log `NCCL version` at start (`NCCL_DEBUG=VERSION`)"],
    "straggler": ["per-rank step times in the training log (a rank that falls behind shows before it times out)",
                  "`TORCH_FR_BUFFER_SIZE=2000` (the flight recorder's enqueue times show who arrives late)"],
    "inconclusive": ["write each rank's logs to shared storage (`NCCL_DEBUG_FILE`, torchrun `--log-dir`)",
                     "`ncclf run` (or `ncclf capture` on every node while the job hangs)"],
    "timeout_unknown": ["`TORCH_FR_BUFFER_SIZE=2000` + `TORCH_NCCL_DUMP_ON_TIMEOUT=1`",
                        "`NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,COLL`"],
}

_FR_SETTING = "TORCH_FR_BUFFER_SIZE"      # a prevention line that turns the flight recorder on

# Each kind of missing evidence (pipeline/reduce.py's names, matched by their first words) → how to collect it.
COLLECT = {
    "per-collective records": "set `TORCH_FR_BUFFER_SIZE=2000 TORCH_NCCL_DUMP_ON_TIMEOUT=1` (flight-recorder "
                              "dumps on a timeout) or `NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=COLL`",
    "py-spy dumps": "`py-spy dump --pid PID` of every rank while the job hangs (`ncclf capture` on each node "
                    "does it)",
    "process exit information": "torchrun `--log-dir DIR --tee 3` (each rank's exit code and error.json)",
}
_MISSING_CLAUSES = (re.compile(r"\s*\(missing: .*\)$"), re.compile(r";\s*missing: .*$"), re.compile(r"^missing: .*$"))
_COLLECT_FIX = "next time collect:"


def render(d: Diagnosis, context: dict | None = None) -> str:
    """The postmortem (or, with no failure, the health report): its making, summary, diagnostic walk, root
    cause, consequences, fix, prevention, missing evidence, read errors."""
    v = d.verdict
    fr_files = {s.path for s in d.sources if s.kind is SourceKind.FLIGHT_RECORDER}
    healthy = v.cls == "none"
    title = ("Health report: no hang or failure found" if healthy
             else f"Postmortem: {_words(v.cls)}" + (f" (rank{'s' if len(v.culprit_ranks) > 1 else ''} "
                                                     f"{_span(v.culprit_ranks)})" if v.culprit_ranks else ""))
    out = [f"# {title}", ""] + _making(context or {})
    out += ["## Summary", "", _summary(d), ""]
    out += ["## Diagnostic walk", ""] + _walk(d, fr_files)
    if not healthy:
        out += ["## Root cause", ""] + _root_cause(d, fr_files)
        out += ["## Consequences", ""] + _consequences(d, fr_files)
        out += ["## Fix", "", _fix(v), ""]
        prevention = [p for p in PREVENTION.get(v.cls, []) if not _names_missing(p, d.missing)
                      and not (fr_files and _FR_SETTING in p)]      # the job ran with the flight recorder on
        if prevention:
            out += ["## Prevention", ""] + [f"- {p}" for p in prevention] + [""]
    if d.missing:
        out += ["## Missing evidence", ""] + [f"- **{m}**: {_collect(m)}" for m in d.missing] + [""]
    if d.errors or d.warnings:
        out += ["## Read errors and warnings", ""] + [f"- {_cell(e)}" for e in [*d.errors, *d.warnings]] + [""]
    return "\n".join(out).rstrip("\n") + "\n"


def _making(context: dict) -> list[str]:
    rows = [f"- **{label}:** {_cell(context[key]) if key != 'inputs' else _code_list(context[key])}"
            for key, label in (("date", "Date"), ("version", "ncclf version"), ("command", "Command"),
                               ("inputs", "Inputs")) if context.get(key)]
    return rows + [""] if rows else []


def _summary(d: Diagnosis) -> str:
    """One paragraph: who, what, where, the collective; then how sure, and why."""
    v = d.verdict
    reason = _unmissing(v.reason)
    if v.cls == "none":
        ranks = sorted(d.ranks)
        return (f"No hang or failure was found in the evidence of {len(ranks)} rank{'s' if len(ranks) != 1 else ''}"
                f"{' (' + _span(ranks) + ')' if ranks else ''}: {reason}.")
    what = _unmissing(v.primary.message if v.primary else v.summary.split(": ", 1)[-1])
    who = f"rank{'s' if len(v.culprit_ranks) > 1 else ''} {_span(v.culprit_ranks)}" if v.culprit_ranks \
        else "no single rank"
    where = _collective(d)
    head = f"**{_words(v.cls).capitalize()}, {who}:** {what}"
    if where and where not in what and not _names_its_place(v.primary, what):
        head += f" ({where})"
    return f"{head.rstrip('.')}. Confidence {reason}."


def _names_its_place(f, what: str) -> bool:
    """The finding's message already says its group and seq (`at group 0 (default_pg) seq 6`): not said twice."""
    return (f is not None and f.group is not None and f.seq is not None
            and f"group {f.group}" in what and f"seq {f.seq}" in what)


def _collective(d: Diagnosis) -> str:
    """Where the culprit's timeline left the others': its first divergent entry, or the collective the others
    reached and it did not."""
    div = divergence_of(d)
    for rank in d.verdict.culprit_ranks:
        if rank in div:
            e = div[rank]
            return (f"group {e['group']} {seq_text(e['seq'])}: {e['field']} {e['value']} "
                    f"where the others had {e['modal']}")
    culprits = set(d.verdict.culprit_ranks)
    for g in groups_of(d):
        behind = [r for r, p in g["positions"].items() if p == "at" and int(r) in culprits]
        ahead = [r for r, p in g["positions"].items() if p == "ahead"]
        if behind and ahead and g["last_common_seq"] is not None:
            op = _op_at(d, g["name"], g["last_common_seq"] + 1, int(ahead[0]))
            return (f"group {g['name']}: the others reached seq {g['last_common_seq'] + 1}"
                    f"{' (' + op + ')' if op else ''}; {_ranks(map(int, behind))} stopped at seq "
                    f"{g['last_common_seq']}")
    f = d.verdict.primary
    if f is not None and f.group is not None and f.seq is not None:
        op = _op_at(d, f.group, f.seq, f.ranks[0]) if f.ranks else ""
        return f"group {f.group} {seq_text(f.seq)}{' (' + op + ')' if op else ''}"
    for g in groups_of(d):
        if culprits & set(g["ranks"]) and g["last_common_seq"] is not None:
            return f"after group {g['name']} seq {g['last_common_seq']}, the last collective every member reached"
    recorded = [g for g in groups_of(d) if g["last_common_seq"] is not None]
    if recorded:
        g = max(recorded, key=lambda g: len(g["ranks"]))
        return f"the last collective recorded: group {g['name']} seq {g['last_common_seq']}"
    return ""


def _op_at(d: Diagnosis, group: str, seq: int, rank: int) -> str:
    c = d.timelines.colls
    if c is None or c.empty:
        return ""
    rows = c[(c["group"] == group) & (c["seq"] == seq) & (c["rank"] == rank)]
    return str(rows["op"].iloc[0]) if len(rows) else ""


def _walk(d: Diagnosis, fr_files: set[str]) -> list[str]:
    """What each evidence source showed, per rank: the py-spy frame, the collective where the timelines
    diverged, the variables that were set, then how each process ended."""
    out: list[str] = []
    spied = [st for _, st in sorted(d.ranks.items()) if st.where]
    if spied:
        stacks = {s.path for s in d.sources if s.kind in (SourceKind.PYSPY, SourceKind.PYSPY_JSON)}
        out += ["**py-spy** (each rank's main thread):", ""]
        for st in _few(spied, d):
            doing = f"inside `{st.op}`" if st.where == "collective" else _words(st.where)
            at = f" at `{st.at}`" if st.at else ""
            frame = next((e for e in st.evidence if e.file in stacks), st.evidence[0])
            out.append(f"- rank {st.rank}: {doing}{at} — `{_cite(frame, fr_files)}`")
        out += _more(spied, d) + [""]
    groups = groups_of(d)
    if groups:
        out += ["**Collective timelines** (flight recorder, NCCL COLL lines):", ""] + _timeline(d, groups, fr_files)
    out += _environment(d, fr_files)
    ended = [st for _, st in sorted(d.ranks.items()) if st.end]
    if ended:
        out += ["**How each process ended** (launcher, tracebacks, error.json, kernel):", ""]
        for st in _few(ended, d):
            ev = st.evidence[-1] if st.evidence else None
            role = "a cause" if st.cause else "a consequence"
            out.append(f"- rank {st.rank}: {_cell(evidence_text(st.end_detail, False))} ({role})"
                       + (f" — `{_cite(ev, fr_files)}`" if ev else ""))
        out += _more(ended, d) + [""]
    gaps = missing_rank_lines(d, limit=20)
    if gaps:
        out += ["**Ranks without (full) evidence:**", ""] + [f"- {_cell(line)}" for line in gaps] + [""]
    if not out:
        out = ["No per-rank evidence (collective records, py-spy dumps, process ends) was read.", ""]
    return out


def _environment(d: Diagnosis, fr_files: set[str], limit: int = 24) -> list[str]:
    """The variables the evidence says were set: one line per variable and value, with the ranks that had it
    and the line that says so; or, once, that none was recorded and what records them."""
    if not d.environment:
        return ["**Environment:** no variable recorded in this evidence (`NCCL_DEBUG=INFO` logs each NCCL_ "
                "variable NCCL read as `… set by environment to …`; `ncclf capture` keeps each rank's NCCL_, "
                "TORCH_ and launcher variables).", ""]
    ranks = sorted(d.ranks)
    out = ["**Environment** (variables set, as NCCL's INFO lines or the capture's per-rank record show them):", ""]
    for s in d.environment[:limit]:
        who = "every rank" if ranks and list(s.ranks) == ranks else _ranks(s.ranks) if s.ranks else "rank unknown"
        out.append(f"- `{markdown_code(s.name)}={markdown_code(s.value)}`: {who} — `{_cite(s.evidence, fr_files)}`")
    hidden = len(d.environment) - limit
    if hidden > 0:
        out.append(f"- … and {hidden} more (`--format json` lists them all)")
    return out + [""]


def _timeline(d: Diagnosis, groups: list[dict], fr_files: set[str]) -> list[str]:
    """The groups that explain the verdict as a table (members, the last seq every member reached, which ranks
    are past it, at it, or without a record), one line for the rest, then the first divergent entries."""
    by_name = {g["name"]: g for g in groups}
    out = ["| group | members | last seq every member reached | ranks past it | ranks at it | ranks without a record |",
           "|---|---|---|---|---|---|"]
    for g in (by_name[name] for name in telling_groups(d)[0]):
        by = {p: [int(r) for r, q in g["positions"].items() if q == p] for p in ("ahead", "at", "missing")}
        empty = g["last_common_seq"] is None and not by["ahead"] and not by["at"]
        seq = g["last_common_seq"] if g["last_common_seq"] is not None else "none (no collective recorded)"
        name = g["name"] + (f" ({g['desc']})" if g["desc"] else "")
        out.append(f"| {_cell(name)} | {len(g['ranks'])} ({_span(g['ranks'])}) | {seq} | "
                   f"{_span(by['ahead']) or '-'} | {_span(by['at']) or '-'} | "
                   f"{'-' if empty else _span(by['missing']) or '-'} |")
    rest = [line for line in group_lines(d) if not line.startswith("group ")]
    if rest and len(groups) > MAX_GROUP_LINES:
        out += ["", rest[0] + "."]
    div = divergence_of(d)
    if div:
        out += ["", "First divergent entries:", ""]
        for rank, e in sorted(div.items())[:10]:
            where = markdown_code(cite(e["file"], e["line"], e["file"] in fr_files))
            quoted = _cell(evidence_text(e["text"] or "", e["file"] in fr_files))
            out.append(f"- rank {rank}: group {e['group']} {seq_text(e['seq'])}: {e['field']} "
                       f"`{markdown_code(e['value'])}` (others `{markdown_code(e['modal'])}`) — `{where}`"
                       + (f": {quoted}" if quoted else ""))
    return out + [""]


def _root_cause(d: Diagnosis, fr_files: set[str]) -> list[str]:
    v = d.verdict
    if not v.primary:
        return [_unmissing(v.summary.split(": ", 1)[-1]).rstrip(".") + ": the cause could not be determined from "
                "this evidence (see Missing evidence).", ""]
    out = []
    if not v.culprit_ranks and v.cls in ("timeout_unknown", "inconclusive"):
        out.append("Not determined from this evidence (see Missing evidence); what it shows:")
        out.append("")
    out += _finding(v.primary, fr_files)
    for f in _corroborating(d):
        out += _finding(f, fr_files, "Corroborated by ")
    return out


def _consequences(d: Diagnosis, fr_files: set[str]) -> list[str]:
    v = d.verdict
    backers = _corroborating(d)
    later = [f for f in d.findings if f is not v.primary and f not in backers]
    if not later and not v.cascade_ranks:
        return ["None recorded.", ""]
    out = []
    if v.cascade_ranks:
        after = "the culprit" if v.culprit_ranks else "the first failure"
        out += [f"{_ranks(v.cascade_ranks).capitalize()} failed after {after}, because of it.", ""]
    also = [f for f in later if v.primary is not None and not consequence_of(f, v.primary)]
    for f in [f for f in later if f not in also]:
        out += _finding(f, fr_files)
    if also:                        # failures of their own, which the root cause does not explain
        out += ["Also found, not a consequence of the root cause:", ""]
    for f in also:
        out += _finding(f, fr_files)
    return out


def _finding(f, fr_files: set[str], lead: str = "") -> list[str]:
    """A finding's code, name and message, then the lines it rests on."""
    return [f"{lead}**{f.id} {f.name}**: {_unmissing(f.message)}", ""] + _citations(f, fr_files)


def _corroborating(d: Diagnosis) -> list:
    """The findings that back the primary one: the others of its class (the confidence names them), then the
    supporting ones of other classes."""
    v = d.verdict
    same = [f for f in d.findings if f is not v.primary and v.primary is not None and f.cls == v.primary.cls]
    return same + [f for f in v.supporting if f not in same]


def _fix(v) -> str:
    if not v.fix or v.fix.lower().startswith(_COLLECT_FIX):
        return "Collect the evidence listed under Missing evidence, reproduce, and run ncclf on it again."
    return v.fix


def _citations(f, fr_files: set[str]) -> list[str]:
    """Each line a finding rests on: `file:line` (`file entry N` for a dump), then the line as shown."""
    out = [f"- `{_cite(e, fr_files)}`: {_cell(evidence_text(e.text, e.file in fr_files))[:240]}"
           for e in f.evidence[:4]]
    return out + [""] if out else []


def _cite(e, fr_files: set[str]) -> str:
    return markdown_code(cite(e.file, e.line, e.file in fr_files))


def _few(states: list, d: Diagnosis, limit: int = 8) -> list:
    """All ranks of a small job; of a big one, the culprits and causes first, then others up to `limit`."""
    if len(states) <= limit:
        return states
    culprits = set(d.verdict.culprit_ranks)
    first = [st for st in states if st.rank in culprits or st.cause]
    return (first + [st for st in states if st not in first])[:limit]


def _more(states: list, d: Diagnosis, limit: int = 8) -> list[str]:
    hidden = len(states) - min(len(states), limit)
    return [f"- … and {hidden} more ranks (`--format json` lists them all)"] if hidden > 0 else []


def _collect(missing: str) -> str:
    for start, how in COLLECT.items():
        if missing.startswith(start):
            return how
    return "collect it on every node (`ncclf capture`)"


def _names_missing(text: str, missing: list[str]) -> bool:
    """A prevention line that only asks for evidence the Missing evidence section asks for already."""
    low = text.lower()
    return any(m.split(" (")[0].lower().rstrip("s") in low for m in missing)


def _unmissing(text: str) -> str:
    """A detector's sentence without its "missing: ..." clause: the missing evidence is listed once, below."""
    out = prose(text or "")
    for clause in _MISSING_CLAUSES:
        out = clause.sub("", out)
    return markdown_text(out.strip().rstrip(";,").strip(), code_spans=True)


def _words(cls: str) -> str:
    return cls.replace("_", " ")


def _ranks(ranks) -> str:
    ranks = list(ranks)
    return f"rank{'s' if len(ranks) != 1 else ''} {_span(ranks)}"


def _code_list(items) -> str:
    return ", ".join(f"`{markdown_code(p)}`" for p in items)


def _cell(text) -> str:
    """Evidence text in a paragraph or a table cell: no escape sequence, no markup Markdown would render."""
    return markdown_text(text)
