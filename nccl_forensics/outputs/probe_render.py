"""nccl-tests-style table for `ncclf probe` (measured or parsed), with cost's prediction side by side."""
from __future__ import annotations

from rich import box
from rich.console import Console
from rich.measure import Measurement
from rich.table import Table

from ..bandwidth.algorithms import describe, volume
from ..bandwidth.probe import LINK_OPS, LOCAL_OPS, Calibration, Fit, ProbeRun
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
    calibration = run.calibration()
    if run.measured_here:
        console.print(_measured_note(run, calibration, link, efficiency))
    for op in list(dict.fromkeys(r.op for r in run.rows)):
        print_whole(_op_table(run, op, calibration, link, gbps, efficiency), console)
    if run.local:
        print_whole(_memory_table(run), console)
    wrong = run.total_wrong
    console.print(f"# wrong results: {wrong}" + ("" if wrong == 0 else "  [red]FAILED validation[/]"))
    if run.avg_busbw is not None:
        console.print(f"# Avg bus bandwidth (as printed): {run.avg_busbw:g} GB/s")


def _measured_note(run: ProbeRun, calibration: Calibration | None, link: str | None, efficiency: float) -> str:
    where = "loopback (TCP between local processes)" if run.backend == "gloo" else "this host's GPU links"
    note = f"The {run.nranks} ranks ran on this host: their bytes crossed {where}"
    note += f", not {link}." if link else "."
    if calibration is None:
        return note + " No allreduce was fitted, so nothing calibrates that link: no prediction."
    note += (f" pred is of that link, priced at each size from this run's allreduce of that size and the sizes "
             f"beside it (the median time per byte of the three; {link_price(calibration)})")
    if calibration.loopback and calibration.send_us:
        note += (", and one way (a transfer no rank answers at once, as a broadcast's) from its send, the same way "
                 f"({one_way_price(calibration)})")
    note += f", each collective by the bytes {run.backend}'s algorithm moves (under each table)"
    if link:
        note += (f"; the {link} column projects the same algorithm onto {link} × efficiency {efficiency:g} (one rank "
                 "per host, each direction on its own), with this host's α and memory: a model, not measured, no ratio")
    return note + "."


def link_price(calibration: Calibration) -> str:
    """The calibrated link's GB/s: the allreduce fit's, and the range the allreduce measured from 1 MB on."""
    way = "sent + received" if calibration.loopback else "each way"
    price = f"{calibration.link_gbps():.3g} GB/s of bytes {way} per rank by the allreduce fit"
    large = sorted(s for s in calibration.allreduce_us if s >= 1 << 20)
    if large:
        rates = [calibration.link_gbps(s) for s in large]
        price += f", {min(rates):.3g}-{max(rates):.3g} GB/s at each size from 1 MB"
    return price


def one_way_price(calibration: Calibration) -> str:
    """The one-way link's GB/s at each size from 1 MB, as the send measured it."""
    large = sorted(s for s in calibration.send_us if s >= 1 << 20)
    rates = [gbps for s in large if (gbps := calibration.one_way_gbps(s))]
    return f"{min(rates):.3g}-{max(rates):.3g} GB/s sent at each size from 1 MB" if rates else "rank 0 to rank 1"


def _op_table(run: ProbeRun, op: str, calibration: Calibration | None, link: str | None, gbps: float | None,
              efficiency: float) -> Table:
    table = Table(title=f"{op} — {run.source}", title_justify="left", caption_justify="left", box=box.SIMPLE_HEAD,
                  pad_edge=False)
    for col in ("size B", "count", "type", "redop", "root", "time us", "algbw GB/s", "busbw GB/s", "#wrong"):
        table.add_column(col, justify="right", no_wrap=True)
    fit = run.fit(op)
    predicts = calibration is not None or (gbps is not None and not run.measured_here)
    projects = calibration is not None and gbps is not None
    extra = []
    if fit:
        extra += ["fit us", "meas/fit"]
    if predicts:
        extra += ["pred us" if calibration else f"pred us {link}", "meas/pred"]
    if projects:
        extra.append(f"{link} us")
    for col in extra:
        table.add_column(col, justify="right", no_wrap=True)
    notes = [fit_note(fit, run.measured_here)] if fit else []
    if calibration:
        notes.append(pred_note(calibration, op))
    elif predicts:
        notes.append(f"pred = α + {describe('nccl', op)}, over {link} × efficiency {efficiency:g}")
    table.caption = "\n".join(notes) or None
    for r in (row for row in run.rows if row.op == op):
        if r.error:
            table.add_row(str(r.size), "-", "-", "-", "-", "[yellow]unsupported[/]", "", "", "", *([""] * len(extra)))
            continue
        cells = [str(r.size), str(r.count), r.dtype, r.redop, str(r.root), _f(r.time_us, ".2f"),
                 _f(r.algbw, ".3f"), _f(r.busbw, ".3f"),
                 "N/A" if r.wrong is None else (f"[red]{r.wrong}[/]" if r.wrong else "0")]
        if fit:
            cells += _with_ratio(r.time_us, fit.predicted_us(r.size))
        if calibration:
            cells += _with_ratio(r.time_us, calibration.predicted_us(op, r.size))
        elif predicts and gbps:
            cells += _with_ratio(r.time_us, r.predicted_us(gbps, efficiency, fit.alpha_us if fit else 0.0))
        if projects and calibration and gbps:
            cells.append(f"{calibration.projected_us(op, r.size, gbps, efficiency):.2f}")
        table.add_row(*cells)
    return table


def _with_ratio(measured: float | None, modelled: float) -> list[str]:
    return [f"{modelled:.2f}", _f(measured / modelled if measured and modelled else None, ".2f")]


def pred_note(calibration: Calibration, op: str) -> str:
    """How a measured row's prediction was made: the algorithm's bytes (the link's price is in the header)."""
    if op == "allreduce":
        return "pred: this allreduce calibrates the link, so its pred is its fit"
    vol = volume(calibration.backend, op, 1 << 20, calibration.nranks)
    local = " (host table)" if vol.copied else ""
    if calibration.priced_one_way(op):
        local += ", priced one way from the run's send (host table)"
    return f"pred = α + {describe(calibration.backend, op)}{local}"


def _memory_table(run: ProbeRun) -> Table:
    ops = [op for op in LOCAL_OPS + LINK_OPS if any(r.op == op for r in run.local)]
    sends = "send" in ops
    table = Table(title=f"host — {run.source}: prices the copies and the new buffers of gloo's allgather and "
                  "reduce-scatter" + (", and its broadcast's one-way transfers" if sends else ""),
                  title_justify="left", caption_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)
    names = {"memcpy": "memcpy", "newbuf": "new buffer", "send": "send"}
    table.add_column("size B", justify="right", no_wrap=True)
    for op in ops:
        table.add_column(f"{names[op]} us", justify="right", no_wrap=True)
        table.add_column(f"{names[op]} GB/s", justify="right", no_wrap=True)
    times = {(r.op, r.size): r for r in run.local}
    for size in sorted({r.size for r in run.local}):
        cells = [str(size)]
        for op in ops:
            r = times.get((op, size))
            cells += [_f(r.time_us if r else None, ".2f"), _f(r.algbw if r else None, ".3f")]
        table.add_row(*cells)
    table.caption = ("memcpy: a copy into a buffer already written; new buffer: one allocated and written once "
                     "(its pages faulted in), each on every rank at once"
                     + ("; send: the buffer from rank 0 to rank 1 in one message, the other ranks idle" if sends
                        else "") + "; each the fastest of its runs")
    return table


def render_scaling(rows: list[ScalingRow], console: Console) -> None:
    table = Table(title="DDP reproducer trainer (TinyGPT, gloo): weak scaling", title_justify="left")
    for col in ("processes", "tokens/s", "per process", "scaling efficiency"):
        table.add_column(col, justify="right")
    for r in rows:
        table.add_row(str(r.nproc), f"{r.tokens_per_s:,.0f}", f"{r.tokens_per_s / r.nproc:,.0f}", f"{r.efficiency:.0%}")
    console.print(table)
