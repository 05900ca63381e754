"""`ncclf cost`: predict communication time per step from first principles."""
from __future__ import annotations

import json

import click

from ..bandwidth import cost as costmod
from ..outputs.console import make_console
from ..outputs.cost_render import render_cost
from .options import FRACTION, POSITIVE, POSITIVE_INT, format_option


def _parse_ranks(value: str) -> tuple[int, int | None]:
    """'16' → (16, None); '2x8' → (16, 8). Every count is a whole number ≥ 1."""
    parts = value.lower().split("x", 1)
    try:
        counts = [int(p) for p in parts]
    except ValueError:
        raise ValueError(f"--ranks {value!r}: give a count (16) or NODESxGPUS (2x8)") from None
    if min(counts) < 1:
        raise ValueError(f"--ranks {value!r}: counts must be at least 1")
    return (counts[0] * counts[1], counts[1]) if len(counts) == 2 else (counts[0], None)


@click.command("cost")
@click.option("--params", required=True, type=POSITIVE, help="Parameter count, e.g. 760e6.")
@click.option("--dtype", default="bf16", show_default=True, help="Gradient dtype: fp32, bf16, fp16, fp8.")
@click.option("--bytes-per-elem", type=POSITIVE_INT, help="Bytes per gradient element (overrides --dtype).")
@click.option("--ranks", default="2", show_default=True, help="Ranks, or NODESxGPUS (e.g. 2x8).")
@click.option("--link", "link", help="Link preset (1GbE, 10GbE, 100GbE, RoCE-400, IB-NDR, PCIe-gen5, NVLink4, "
                                     "xGMI, ...). Default: a table of every preset.")
@click.option("--link-gbps", type=POSITIVE, help="Custom link bandwidth in Gbit/s per direction.")
@click.option("--intra-link", help="With NODESxGPUS: the intra-node link preset (e.g. NVLink4).")
@click.option("--efficiency", type=FRACTION, default=0.85, show_default=True)
@click.option("--collective", type=click.Choice(costmod.COLLECTIVES), default="allreduce", show_default=True)
@click.option("--compute-s", type=POSITIVE, help="Compute time per step in seconds (gives T_comm/T_compute).")
@click.option("--accum", "accum_steps", type=click.IntRange(min=1), default=8, show_default=True,
              help="Gradient-accumulation micro-steps for the lever estimate.")
@click.option("--bucket-mb", type=POSITIVE, default=25.0, show_default=True, help="DDP bucket size for overlap.")
@click.option("--powersgd-rank", type=click.IntRange(min=1), default=4, show_default=True)
@format_option("text", "json")
def command(params, dtype, bytes_per_elem, ranks, link, link_gbps, intra_link, efficiency, collective,
            compute_s, accum_steps, bucket_mb, powersgd_rank, fmt):
    """Predict T_comm for one step's gradient collective, and what the standard levers do to it.

    \b
    Example:
      ncclf cost --params 760e6 --dtype bf16 --ranks 2 --link 1GbE
      ncclf cost --params 7e9 --ranks 4x8 --link IB-NDR --intra-link NVLink4 --compute-s 1.2
      ncclf cost --params 760e6 --ranks 8 --format json
    """
    try:
        nranks, per_node = _parse_ranks(ranks)
        width = bytes_per_elem or costmod.dtype_bytes(dtype)
        links = _links(link, link_gbps)
        intra = costmod.LINKS[costmod.resolve_link(intra_link)] if intra_link else None
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None
    query = costmod.CostQuery(params, width, nranks, collective, efficiency, per_node, intra, compute_s,
                              accum_steps, bucket_mb, powersgd_rank)
    rows = costmod.estimate(query, links)
    if fmt == "json":
        click.echo(json.dumps({"schema_version": 1, "query": {**query.__dict__, "payload_bytes": query.payload_bytes},
                               "links": [r.to_dict() for r in rows]}, indent=2))
    else:
        render_cost(query, rows, make_console())
    return 0


def _links(link: str | None, gbps: float | None) -> dict[str, float]:
    if gbps is not None:
        return {link or f"{gbps:g}Gbps": gbps}
    if link:
        name = costmod.resolve_link(link)
        return {name: costmod.LINKS[name]}
    return dict(costmod.LINKS)
