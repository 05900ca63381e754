"""Diagnosis → a one-page Markdown postmortem: summary, impact, timeline, root cause, consequences, fix, prevention."""
from __future__ import annotations

from ..model import SourceKind
from ..pipeline.reduce import Diagnosis
from .diagnosis_json import divergence_of, groups_of
from .diagnosis_terminal import citation, missing_rank_lines

# What would have caught each class earlier (env vars and checks), by verdict class.
PREVENTION = {
    "shape_mismatch": ["`TORCH_DISTRIBUTED_DEBUG=DETAIL` in a short CI run: every collective's shape is checked "
                       "across ranks before it runs", "`drop_last=True` (or padding) for uneven data"],
    "dtype_mismatch": ["`TORCH_DISTRIBUTED_DEBUG=DETAIL` in CI: dtypes are checked across ranks",
                       "create tensors with an explicit `dtype=`; avoid mixing `.double()` paths per rank"],
    "op_mismatch": ["`TORCH_DISTRIBUTED_DEBUG=DETAIL` in CI: op types are checked across ranks",
                    "no rank-dependent branches around collectives"],
    "collective_skipped": ["`TORCH_DISTRIBUTED_DEBUG=DETAIL` (sequence numbers are compared)",
                           "`torch.distributed.algorithms.Join` for uneven inputs"],
    "dropped_rank": ["torchrun `--log-dir` (per-rank exit codes and error.json)", "`dmesg` collection on failure"],
    "stuck_rank": ["`TORCH_FR_BUFFER_SIZE=2000` + `TORCH_NCCL_DUMP_ON_TIMEOUT=1` (flight recorder dump on timeout)",
                   "a py-spy dump of every rank on hang (`py-spy dump --pid`)", "a shorter process-group timeout"],
    "oom": ["memory monitoring per rank (`torch.cuda.max_memory_allocated`, RSS)", "`dmesg` collection on failure"],
    "network_error": ["`NCCL_DEBUG=WARN` at least, `NCCL_IB_TIMEOUT`/`NCCL_IB_RETRY_CNT` tuned for the fabric",
                      "a pre-flight `ncclf probe` / nccl-tests run on new nodes"],
    "nic_misselection": ["`NCCL_SOCKET_IFNAME` / `GLOO_SOCKET_IFNAME` set in the job template",
                         "`NCCL_DEBUG=INFO` for the first step (Bootstrap / NET lines)"],
    "version_mismatch": ["one container image for every node; log `NCCL version` at start (`NCCL_DEBUG=VERSION`)"],
    "inconclusive": ["write each rank's logs to shared storage (`NCCL_DEBUG_FILE`, torchrun `--log-dir`)",
                     "`ncclf capture` on every node while the job hangs"],
    "timeout_unknown": ["`TORCH_FR_BUFFER_SIZE=2000` + `TORCH_NCCL_DUMP_ON_TIMEOUT=1`",
                        "`NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,COLL`", "py-spy dumps of every rank on hang"],
}


def _cell(text) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def render(d: Diagnosis, context: dict | None = None) -> str:
    """The postmortem, in an incident document's order: summary, impact, timeline, root cause (its evidence
    first), consequences, fix, prevention; headed by when and how it was made."""
    v = d.verdict
    context = context or {}
    fr_files = {s.path for s in d.sources if s.kind is SourceKind.FLIGHT_RECORDER}
    out = [f"# Postmortem: {v.cls.replace('_', ' ')}", ""]
    out += [f"- **{label}:** {_cell(context[key]) if key != 'inputs' else ', '.join(f'`{p}`' for p in context[key])}"
            for key, label in (("date", "Date"), ("version", "ncclf version"), ("command", "Command"),
                               ("inputs", "Inputs")) if context.get(key)]
    out += ([""] if out[-1] else []) + ["## Summary", "", _summary(v), "", "## Impact", ""] + _impact(d)
    out += ["", "## Timeline", ""] + _timeline(d, fr_files)
    out += ["", "## Root cause", ""]
    if v.primary:
        said = v.summary.split(": ", 1)[1] if v.summary.startswith(f"{v.cls}: ") else v.primary.message
        out += [f"**{v.primary.id} {v.primary.name}**: {said}", ""]
        out += _citations(v.primary, fr_files)
        for f in v.supporting:
            out += ["", f"Corroborated by **{f.id} {f.name}**: {f.message}", ""] + _citations(f, fr_files)
    else:
        out.append("No failure was found in the evidence read." if v.cls == "none" else v.summary)
    later = [f for f in d.findings if f is not v.primary and f not in v.supporting]
    out += ["", "## Consequences", ""]
    if later or v.cascade_ranks:
        if v.cascade_ranks:
            out += [f"{_ranks(v.cascade_ranks).capitalize()} failed after the culprit, because of it.", ""]
        for f in later:
            out += [f"**{f.id} {f.name}**: {f.message}", ""] + _citations(f, fr_files) + [""]
        out.pop()
    else:
        out.append("None recorded.")
    out += ["", "## Fix", "", v.fix or "Nothing to fix.", "", "## Prevention", ""]
    out += [f"- {p}" for p in PREVENTION.get(v.cls, ["keep collecting the same evidence"])]
    if d.missing:
        out += ["", f"Evidence missing from this bundle: {'; '.join(d.missing)}."]
    if d.errors or d.warnings:
        out += ["", "Read errors and warnings:", ""] + [f"- {_cell(e)}" for e in [*d.errors, *d.warnings]]
    return "\n".join(out).rstrip("\n") + "\n"


def _summary(v) -> str:
    """One sentence that the root cause does not repeat: the class, who, how sure."""
    who = f"rank{'s' if len(v.culprit_ranks) > 1 else ''} {', '.join(map(str, v.culprit_ranks))}" \
        if v.culprit_ranks else "no single rank"
    if v.cls in ("none", "inconclusive"):
        return v.summary
    return f"{v.cls.replace('_', ' ').capitalize()}: {who} (confidence {v.confidence.value})."


def _impact(d: Diagnosis) -> list[str]:
    v = d.verdict
    out = [f"- **Culprit rank(s):** {', '.join(map(str, v.culprit_ranks)) or 'none named'}",
           f"- **Confidence:** {v.reason}"]
    if v.cascade_ranks:
        out.append(f"- **Failed as a consequence:** {_ranks(v.cascade_ranks)}")
    for g in groups_of(d)[:4]:
        out.append(f"- **Group {g['name']}** ({_ranks(g['ranks'])}): last collective every rank reached: seq "
                   f"{g['last_common_seq']}")
    gaps = missing_rank_lines(d, limit=20)
    if gaps:
        out.append("- **Ranks without (full) evidence:**")
        out += [f"  - {_cell(line)}" for line in gaps]
    return out


def _timeline(d: Diagnosis, fr_files: set[str]) -> list[str]:
    groups = groups_of(d)
    if not groups:
        return ["No per-collective records (flight recorder, NCCL COLL lines) were found."]
    expected = {str(r) for r in (d.world.expected if d.world else ())}
    widest = max(groups, key=lambda g: len(g["ranks"]))["name"]
    out = ["| group | ranks | last common seq | ranks ahead | ranks at it | missing |", "|---|---|---|---|---|---|"]
    for g in groups:
        by = {p: [r for r, q in g["positions"].items() if q == p] for p in ("ahead", "at", "missing")}
        absent = set(by["missing"]) | (expected - set(map(str, g["ranks"])) if g["name"] == widest else set())
        absent = sorted(absent, key=lambda r: int(r) if str(r).isdigit() else 1 << 30)
        out.append(f"| {_cell(g['name'])} | {len(g['ranks'])} | {g['last_common_seq']} | "
                   f"{_short(by['ahead'])} | {_short(by['at'])} | {_short(absent)} |")
    div = divergence_of(d)
    if div:
        out += ["", "First divergent entries:", ""]
        for rank, e in sorted(div.items())[:10]:
            where = f"{e['file']} entry {e['line']}" if e["file"] in fr_files else f"{e['file']}:{e['line']}"
            out.append(f"- rank {rank}: group {e['group']} seq {e['seq']}: {e['field']} `{e['value']}` "
                       f"(others `{e['modal']}`) — `{where}`")
    return out


def _ranks(ranks) -> str:
    ranks = list(ranks)
    return f"rank{'s' if len(ranks) != 1 else ''} {', '.join(map(str, ranks))}"


def _citations(f, fr_files: set[str]) -> list[str]:
    return [f"    {citation(e, fr_files)}: {' '.join(e.text.split())[:240]}" for e in f.evidence[:4]]


def _short(ranks: list[str]) -> str:
    if not ranks:
        return "-"
    return ", ".join(ranks[:8]) + (f" … (+{len(ranks) - 8})" if len(ranks) > 8 else "")
