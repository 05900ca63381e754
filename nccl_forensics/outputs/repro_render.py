"""Text for `ncclf repro`: the scenario list, one run's evidence and verdict, and the confusion table."""
from __future__ import annotations

from collections import Counter

from rich import box
from rich.console import Console
from rich.table import Table

from ..scenarios import Scenario


def render_scenarios(scenarios: list[Scenario], console: Console) -> None:
    width = max(len(s.name) for s in scenarios)
    for s in scenarios:
        gpu = "  [GPU only]" if s.gpu_only and "GPU only" not in s.summary else ""
        console.print(f"{s.name:<{width}}  {s.summary}{gpu}", highlight=False, soft_wrap=True)


def match_text(match: bool | None) -> str:
    return {True: "[green]match[/]", False: "[red]MISMATCH[/]", None: "[yellow]not diagnosed[/]"}[match]


def render_result(result, console: Console) -> None:
    """One run: the fault injected, what the harness saw and captured, the verdict next to it."""
    o = result.outcome
    culprit = f" rank {result.rank}" if result.expected_culprits else f" (rank {result.rank}, culprit not judged)"
    console.print(f"injected : {result.scenario} at step {result.step} on{culprit}, {result.nproc} ranks, "
                  f"{result.backend}, {result.trainer}", highlight=False, soft_wrap=True)
    console.print(f"job      : {_how(o)}; torchrun exit code {o.torchrun_rc}; last step printed {o.last_step}",
                  highlight=False, soft_wrap=True)
    console.print(f"evidence : {evidence_summary(result)}", highlight=False, soft_wrap=True)
    for note in o.notes:
        console.print(f"note     : {note}", highlight=False, soft_wrap=True)
    if o.leftovers:
        console.print(f"[red]left    : processes still alive: {o.leftovers}[/]")
    console.print(f"bundle   : {result.out}   (fault described in {result.repro_json.name}, beside it)",
                  highlight=False, soft_wrap=True)
    if result.diagnose_error:
        console.print(f"verdict  : [yellow]{result.diagnose_error}[/]", highlight=False, soft_wrap=True)
    elif result.verdict_class is not None:
        console.print(f"verdict  : {result.verdict_class} culprit {result.verdict_culprits or '-'}   expected "
                      f"{result.expected_class} culprit {result.expected_culprits or '-'}   "
                      f"{match_text(result.match)}", highlight=False, soft_wrap=True)


def evidence_summary(result) -> str:
    o, out = result.outcome, result.out
    parts = ["console.log"]
    logs = sorted(p.name for p in (out / "torchrun_logs").rglob("*") if p.is_file() and p.stat().st_size)
    parts.append(f"torchrun_logs ({', '.join(f'{n} {c}' for n, c in sorted(Counter(logs).items()))})")
    parts.append(f"{len(o.pyspy)} py-spy dump(s)")
    parts.append(f"{len(o.fr)} flight-recorder dump(s)" + (f" (ranks {_ranks(o.fr)})" if o.fr else ""))
    if o.oom_lines:
        parts.append(f"dmesg.txt ({o.oom_lines} kernel lines)")
    nccl = list((out / "nccl").glob("*")) if (out / "nccl").exists() else []
    if nccl:
        parts.append(f"{len(nccl)} NCCL debug file(s)")
    return ", ".join(parts)


def render_confusion(results: list, console: Console) -> None:
    """One row per run, then expected class × diagnosed class counts."""
    if console.width < TABLE_WIDTH:                      # a narrow page or a CI log: one plain line per run
        console.print("reproducer check", highlight=False)
        for r in results:
            console.print(f"  {r.scenario} ({r.nproc} ranks, {_how(r.outcome)}): expected {r.expected_class} "
                          f"[{_list(r.expected_culprits)}], diagnosed {r.verdict_class or (r.diagnose_error or '-')} "
                          f"[{_list(r.verdict_culprits)}]: {match_text(r.match)}, {r.elapsed_s:.0f} s",
                          highlight=False, soft_wrap=True)
    else:
        _run_table(results, console)
    _matrix(results, console)


TABLE_WIDTH = 130       # the run table needs about this much; below it each run is one plain line


def _run_table(results: list, console: Console) -> None:
    table = Table(title="reproducer check", title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)
    longest = max((len(r.scenario) for r in results), default=8)
    for col in ("scenario", "ranks", "job", "expected", "culprit", "diagnosed", "culprit ", "result", "s"):
        table.add_column(col, no_wrap=col in ("scenario", "ranks", "s"), overflow="fold",
                         min_width=longest if col == "scenario" else None,
                         justify="right" if col in ("ranks", "s") else "left")
    for r in results:
        table.add_row(r.scenario, str(r.nproc), _how(r.outcome), r.expected_class, _list(r.expected_culprits),
                      r.verdict_class or (r.diagnose_error or "-")[:40], _list(r.verdict_culprits),
                      match_text(r.match), f"{r.elapsed_s:.0f}")
    console.print(table)


def _matrix(results: list, console: Console) -> None:
    classes = sorted({r.expected_class for r in results} | {r.verdict_class or "?" for r in results})
    matrix = Table(title="expected class (rows) × diagnosed class (columns, numbered as the rows)",
                   title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)
    matrix.add_column("", no_wrap=True)                 # class names once, as row labels; columns by number,
    for i, _ in enumerate(classes, 1):                  # so that no width cuts a name to `col…`
        matrix.add_column(str(i), justify="right", no_wrap=True)
    counts = Counter((r.expected_class, r.verdict_class or "?") for r in results)
    expected = {r.expected_class for r in results}
    for i, row in enumerate(classes, 1):
        label = f"{i} {row}" + ("" if row in expected else " (never injected)")
        matrix.add_row(label, *[_count(counts[(row, col)], row == col) for col in classes])
    console.print(matrix)
    bad = sum(1 for r in results if r.match is not True)
    console.print(f"{len(results) - bad}/{len(results)} runs diagnosed as injected" +
                  ("" if not bad else f"; [red]{bad} mismatch(es) or undiagnosed[/]"))


def _how(outcome) -> str:
    return {"exited": "exited by itself", "hung": "hung (dumped, then stopped)",
            "deadline": "ran past the deadline (dumped, then stopped)"}.get(outcome.how, outcome.how)


def _ranks(paths) -> str:
    return ",".join(p.name.rsplit("_", 1)[-1] for p in paths)


def _list(ranks: list[int]) -> str:
    return ",".join(map(str, ranks)) or "-"


def _count(n: int, diagonal: bool) -> str:
    if not n:
        return "."
    return f"[green]{n}[/]" if diagonal else f"[red]{n}[/]"
