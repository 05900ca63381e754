"""Rich rendering of `ncclf cost`."""
from __future__ import annotations

from rich.console import Console
from rich.table import Table

from ..bandwidth.cost import CostQuery, LinkCost


def fmt_seconds(s: float) -> str:
    if s >= 1:
        return f"{s:.2f} s"
    if s >= 1e-3:
        return f"{s * 1e3:.1f} ms"
    return f"{s * 1e6:.0f} µs"


def render_cost(q: CostQuery, rows: list[LinkCost], console: Console) -> None:
    gb = q.payload_bytes / 1e9
    layout = f"{q.ranks} ranks" + (f" ({q.ranks // q.gpus_per_node}×{q.gpus_per_node})" if q.gpus_per_node else "")
    console.print(f"[bold]{q.collective}[/] of {q.params:.3g} params × {q.bytes_per_elem} B = {gb:.3g} GB "
                  f"over {layout}, efficiency {q.efficiency:.0%}")
    table = Table()
    table.add_column("link")
    table.add_column("Gbit/s", justify="right")
    table.add_column("T_comm", justify="right")
    if q.compute_s:
        table.add_column("T_comm/T_compute", justify="right")
    lever_names = list(rows[0].levers)[1:] if rows else []
    for name in lever_names:
        table.add_column(_label(name), justify="right")
    for r in rows:
        cells = [r.link, f"{r.gbps:g}", fmt_seconds(r.t_comm_s)]
        if q.compute_s:
            cells.append(f"{r.ratio:.2f}")
        cells += [fmt_seconds(r.levers[n]) for n in lever_names]
        table.add_row(*cells)
    console.print(table)


def _label(lever: str) -> str:
    """Short column titles for the lever keys kept stable in --format json."""
    for prefix, label in (("grad_accum_x", "accum ×{}"), ("overlap_bucket_", "overlap {}"),
                          ("powersgd_rank", "PowerSGD r{}")):
        if lever.startswith(prefix):
            rest = lever[len(prefix):].split("_")[0]
            return label.format(rest)
    return {"bf16_compress_hook": "bf16 hook", "fsdp_allgather_plus_reducescatter": "FSDP AG+RS"}.get(lever, lever)
