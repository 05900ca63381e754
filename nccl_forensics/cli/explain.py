"""`ncclf explain CODE`: print the documentation of a detector or a topology check (ruff's `ruff rule B006`)."""
from __future__ import annotations

import click

from ..errors import BadInput


@click.command(short_help="Print the documentation of a detector or topology check (`ncclf explain C102`).")
@click.argument("code", required=False)
@click.option("--list", "list_all", is_flag=True,
              help="List every code: detectors (code, name, verdict class, status), then topology checks.")
def command(code, list_all):
    """Print what a detector or topology check finds, why that hangs or slows a job, the evidence it needs
    and the fix.

    CODE is a detector code (C102), a topology check code (G001) or either's name (dtype-mismatch).

    \b
    Example:
      ncclf explain C102
      ncclf explain stuck-rank
      ncclf explain G001
      ncclf explain --list
    """
    from ..codes import CODES, DETECTOR, documentation, lookup, resolve

    if list_all or not code:
        for entry in CODES:
            what = resolve(entry).cls if entry.kind == DETECTOR else "topology check"
            click.echo(f"{entry.code}  {entry.name:<25} {what:<20} {entry.status}")
        return 0
    entry = lookup(code)
    if entry is None:
        raise BadInput(f"unknown code {code!r} (see `ncclf explain --list`)")
    click.echo(f"{entry.code} {entry.name} ({entry.status})\n")
    click.echo(documentation(entry))
    return 0
