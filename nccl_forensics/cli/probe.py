"""`ncclf probe`: measure collective bandwidth and correctness, or read nccl-tests output."""
from __future__ import annotations

import json

import click

from ..bandwidth import cost as costmod
from ..bandwidth import probe as probemod
from ..outputs.console import make_console
from ..outputs.probe_render import render_probe
from .options import FRACTION, POSITIVE, POSITIVE_INT, format_option


@click.command("probe")
@click.option("--nproc", type=click.IntRange(min=1), default=2, show_default=True, help="Local ranks to launch.")
@click.option("--backend", type=click.Choice(["gloo", "nccl"]), default="gloo", show_default=True)
@click.option("--min-bytes", type=POSITIVE_INT, default=8, show_default=True)
@click.option("--max-bytes", type=POSITIVE_INT, default=256 << 20, show_default=True)
@click.option("--iters", type=click.IntRange(min=1), default=5, show_default=True,
              help="Timed runs per size (6x below 1 MB, 4x below 16 MB, about half from 16 MB on), spread "
                   "over 3 sweeps, the ops taking turns; the fastest is reported.")
@click.option("--warmup", type=click.IntRange(min=0), default=2, show_default=True,
              help="Untimed runs per size before its timed runs.")
@click.option("--ops", default="allreduce,allgather,reducescatter,broadcast", show_default=True)
@click.option("--nccl-tests", "nccl_tests", multiple=True, type=click.Path(exists=True, dir_okay=False),
              help="Parse nccl-tests/rccl-tests output instead of measuring (repeatable).")
@click.option("--link", help="Link preset (see `ncclf cost`): the prediction of nccl-tests output; beside a "
                             "measured run, a projection onto that link.")
@click.option("--link-gbps", type=POSITIVE, help="Custom link bandwidth in Gbit/s for the prediction.")
@click.option("--efficiency", type=FRACTION, default=0.85, show_default=True)
@click.option("--scaling", is_flag=True, help="Run the DDP reproducer trainer with 1, 2 and 4 processes and "
                                              "print tokens/s and scaling efficiency.")
@format_option("text", "json")
def command(nproc, backend, min_bytes, max_bytes, iters, warmup, ops, nccl_tests, link, link_gbps, efficiency,
            scaling, fmt):
    """Measure allreduce, allgather, reducescatter and broadcast from 8 B to 256 MB (doubling), validate every
    result on every rank, and print an nccl-tests-style table next to a prediction.

    The ranks run on this host, so their bytes cross loopback (gloo) or the GPUs' own links (nccl): the
    prediction is of that link, priced from the run's allreduce, each collective by the bytes its backend's
    algorithm moves. --link adds a column projecting the same algorithm onto a network link. nccl-tests output
    (measured on the job's link) is predicted from --link with NCCL's algorithm.

    \b
    Example:
      ncclf probe --nproc 2 --link 10GbE
      ncclf probe --nccl-tests all_reduce_perf.log --link IB-NDR
      ncclf probe --scaling
    """
    gbps = link_gbps
    if link and gbps is None:
        try:
            gbps = costmod.LINKS[costmod.resolve_link(link)]
        except ValueError as exc:
            raise click.BadParameter(str(exc)) from None
    console = make_console()
    if scaling:
        from ..bandwidth.scaling import measure_scaling
        from ..outputs.probe_render import render_scaling
        render_scaling(measure_scaling(), console)
        return 0
    if nccl_tests:
        runs = [probemod.parse_nccl_tests(path) for path in nccl_tests]
    else:
        runs = [probemod.measure(nproc, backend, min_bytes, max_bytes, warmup, iters, tuple(ops.split(",")))]
    if fmt == "json":
        click.echo(json.dumps({"schema_version": 1, "runs": [_run_json(r) for r in runs]}, indent=2))
    else:
        for r in runs:
            render_probe(r, console, link or (f"{gbps:g}Gbps" if gbps else None), gbps, efficiency)
    return 1 if any(r.total_wrong for r in runs) else 0


def _run_json(run: probemod.ProbeRun) -> dict:
    """One run for --format json: its rows (with the calibrated prediction of a measured run), fits, and the
    host rows (memory, the one-way send) and link calibration a measured run's prediction used."""
    calibration = run.calibration()
    rows = []
    for row in run.rows:
        data = row.to_dict()
        if calibration is not None and row.time_us:
            data["pred_us"] = calibration.predicted_us(row.op, row.size)
        rows.append(data)
    out = {"source": run.source, "nranks": run.nranks, "backend": run.backend, "measured_here": run.measured_here,
           "wrong": run.total_wrong, "avg_busbw": run.avg_busbw,
           "fits": {op: vars(fit) for op in dict.fromkeys(row.op for row in run.rows) if (fit := run.fit(op))},
           "rows": rows}
    if run.measured_here:
        out["memory_rows"] = [row.to_dict() for row in run.local]
        out["calibration"] = None if calibration is None else {
            "link": calibration.link_name, "from": "allreduce", "wire": "sent + received" if calibration.loopback
            else "each way", "link_gbps": calibration.link_gbps(),
            "link_gbps_by_size": {str(s): calibration.link_gbps(s) for s in sorted(calibration.allreduce_us)},
            "one_way_gbps_by_size": {str(s): gbps for s in sorted(calibration.send_us)
                                     if (gbps := calibration.one_way_gbps(s))}}
    return out
