"""Diagnosis → a one-page Markdown postmortem: what happened, timeline, evidence, root cause, fix, prevention."""
from __future__ import annotations

from ..diagnosis.reduce import Diagnosis
from .diagnosis_json import divergence_of, groups_of
from .diagnosis_terminal import missing_rank_lines

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


def render(d: Diagnosis) -> str:
    v = d.verdict
    culprits = ", ".join(map(str, v.culprit_ranks)) or "none named"
    out = [f"# Postmortem: {v.cls.replace('_', ' ')}", "",
           "## What happened", "", v.summary, "",
           f"- **Culprit rank(s):** {culprits}",
           f"- **Confidence:** {v.reason}"]
    if v.cascade_ranks:
        out.append(f"- **Failed as a consequence:** ranks {', '.join(map(str, v.cascade_ranks))}")
    gaps = missing_rank_lines(d, limit=20)
    if gaps:
        out.append("- **Ranks without (full) evidence:**")
        out += [f"  - {_cell(line)}" for line in gaps]
    out += ["", "## Timeline", ""]
    groups = groups_of(d)
    if groups:
        out += ["| group | ranks | last common seq | ranks ahead | ranks at it | missing |", "|---|---|---|---|---|---|"]
        for g in groups:
            by = {p: [r for r, q in g["positions"].items() if q == p] for p in ("ahead", "at", "missing")}
            out.append(f"| {_cell(g['name'])} | {len(g['ranks'])} | {g['last_common_seq']} | "
                       + " | ".join(_short(by[p]) for p in ("ahead", "at", "missing")) + " |")
    else:
        out.append("No per-collective records (flight recorder, NCCL COLL lines) were found.")
    div = divergence_of(d)
    if div:
        out += ["", "First divergent entries:", ""]
        for rank, e in sorted(div.items())[:10]:
            out.append(f"- rank {rank}: group {e['group']} seq {e['seq']}: {e['field']} `{e['value']}` "
                       f"(others `{e['modal']}`) — `{e['file']}:{e['line']}`")
    out += ["", "## Evidence", ""]
    for f in d.findings:
        tag = "" if f.cause else " *(consequence)*"
        out.append(f"**{f.id} {f.name}**{tag}: {f.message}")
        out.append("")
        out += [f"    {e.file}:{e.line}: {e.text.strip()[:240]}" for e in f.evidence[:4]]
        out.append("")
    if not d.findings:
        out += ["No detector fired.", ""]
    out += ["## Root cause", "", v.primary.message if v.primary else "No failure found.", "",
            "## Fix", "", v.fix or "Nothing to fix.", "",
            "## Prevention", ""]
    out += [f"- {p}" for p in PREVENTION.get(v.cls, ["keep collecting the same evidence"])]
    if d.missing:
        out += ["", f"Evidence missing from this bundle: {'; '.join(d.missing)}."]
    if d.errors or d.warnings:
        out += ["", "Read errors and warnings:", ""] + [f"- {_cell(e)}" for e in [*d.errors, *d.warnings]]
    return "\n".join(out) + "\n"


def _short(ranks: list[str]) -> str:
    if not ranks:
        return "-"
    return ", ".join(ranks[:8]) + (f" … (+{len(ranks) - 8})" if len(ranks) > 8 else "")
