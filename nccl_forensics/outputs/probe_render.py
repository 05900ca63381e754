"""nccl-tests-style table for `ncclf probe` (measured or parsed), with cost's prediction side by side."""
from __future__ import annotations

from rich import box
from rich.console import Console
from rich.measure import Measurement
from rich.table import Table

from ..bandwidth.probe import Fit, ProbeRun
from ..bandwidth.scaling import ScalingRow


def _f(value, fmt: str) -> str:
    return "N/A" if value is None else format(value, fmt)


def print_whole(table: Table, console: Console) -> None:
    """Print a table of numbers at the width its cells need when the console is narrower: a number is never
    cut to `410.…` (a terminal wraps the long lines; a pipe keeps them)."""
    needed = Measurement.get(console, console.options.update_width(1 << 16), table).maximum
    width = console.width
    console.width = max(width, needed)
    try:
        console.print(table)
    finally:
        console.width = width


def fit_note(fit: Fit, measured: bool = True) -> str:
    """The fitted model as the table's caption: α and β (and the bandwidth of the bytes past the hinge, where
    there is one), how it was fitted, and on what."""
    line = f"α = {fit.alpha_us:.1f} us, β = {fit.gbps:.3g} GB/s"
    if fit.bandwidth_from is not None and fit.bw_gbps:
        line += (f"; the bytes past {fit.bandwidth_from} B at β = {fit.bw_gbps:.3g} GB/s (a second bandwidth "
                 "regime: caches outgrown, another protocol)")
    return (f"fit: t = α + bytes/β, {line} (least squares on log(time/fit) over {fit.sizes} sizes; "
            f"{fit.warmup_size} B, the first, is a warm-up and not fitted"
            + ("; time: the fastest of the timed runs after the warm-up runs)" if measured else ")"))


def render_probe(run: ProbeRun, console: Console, link: str | None, gbps: float | None, efficiency: float) -> None:
    ops = list(dict.fromkeys(r.op for r in run.rows))
    for op in ops:
        table = Table(title=f"{op} — {run.source}", title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)
        for col in ("size B", "count", "type", "redop", "root", "time us", "algbw GB/s", "busbw GB/s", "#wrong"):
            table.add_column(col, justify="right", no_wrap=True)
        fit = run.fit(op)
        if fit:
            table.add_column("fit us", justify="right", no_wrap=True)
            table.add_column("meas/fit", justify="right", no_wrap=True)
        if gbps:
            table.add_column(f"pred us {link}", justify="right", no_wrap=True)
            table.add_column("meas/pred", justify="right", no_wrap=True)
        alpha = fit.alpha_us if fit else 0.0
        notes = []
        if fit:
            notes.append(fit_note(fit, run.source.startswith("measured")))
        if gbps:
            notes.append(f"pred = α + bytes over {link} × efficiency {efficiency:g}")
        table.caption = "\n".join(notes) or None
        for r in (row for row in run.rows if row.op == op):
            if r.error:
                table.add_row(str(r.size), "-", "-", "-", "-", "[yellow]unsupported[/]", "", "", "",
                              *([""] * ((2 if gbps else 0) + (2 if fit else 0))))
                continue
            cells = [str(r.size), str(r.count), r.dtype, r.redop, str(r.root), _f(r.time_us, ".2f"),
                     _f(r.algbw, ".3f"), _f(r.busbw, ".3f"),
                     "N/A" if r.wrong is None else (f"[red]{r.wrong}[/]" if r.wrong else "0")]
            if fit:
                modelled = fit.predicted_us(r.size)
                cells += [f"{modelled:.2f}", _f(r.time_us / modelled if r.time_us else None, ".2f")]
            if gbps:
                pred = r.predicted_us(gbps, efficiency, alpha)
                cells += [f"{pred:.2f}", _f(r.time_us / pred if r.time_us and pred else None, ".2f")]
            table.add_row(*cells)
        print_whole(table, console)
    wrong = run.total_wrong
    console.print(f"# wrong results: {wrong}" + ("" if wrong == 0 else "  [red]FAILED validation[/]"))
    if run.avg_busbw is not None:
        console.print(f"# Avg bus bandwidth (as printed): {run.avg_busbw:g} GB/s")


def render_scaling(rows: list[ScalingRow], console: Console) -> None:
    table = Table(title="DDP reproducer trainer (TinyGPT, gloo): weak scaling", title_justify="left")
    for col in ("processes", "tokens/s", "per process", "scaling efficiency"):
        table.add_column(col, justify="right")
    for r in rows:
        table.add_row(str(r.nproc), f"{r.tokens_per_s:,.0f}", f"{r.tokens_per_s / r.nproc:,.0f}", f"{r.efficiency:.0%}")
    console.print(table)
