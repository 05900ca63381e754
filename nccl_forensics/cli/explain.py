"""`ncclf explain CODE`: print a detector's documentation (ruff's `ruff rule B006`)."""
from __future__ import annotations

import inspect

import click

from ..errors import BadInput


@click.command(short_help="Print the documentation of a detector (e.g. `ncclf explain C102`).")
@click.argument("code", required=False)
@click.option("--list", "list_all", is_flag=True, help="List every detector: code, name, verdict class, status.")
@click.option("--messages", "list_messages", is_flag=True,
              help="List the message catalogue: every message ncclf reads, the versions that print it, its meaning.")
def command(code, list_all, list_messages):
    """Print what a detector finds, why that hangs or kills a job, the evidence it needs and the fix.

    CODE is a detector code (C102) or its name (dtype-mismatch).

    \b
    Example:
      ncclf explain C102
      ncclf explain stuck-rank
      ncclf explain --list
      ncclf explain --messages
    """
    from ..detectors import REGISTRY, detector_class, lookup

    if list_messages:
        from ..sources.catalogue import iter_table
        for message_id, example, versions, meaning, implies in iter_table():
            click.echo(f"{message_id}  [{meaning}{'' if implies == '-' else ' -> ' + implies}]  ({versions})")
            click.echo(f"    {example}")
        return 0

    if list_all or not code:
        for entry in REGISTRY:
            cls = detector_class(entry)
            click.echo(f"{entry.code}  {entry.name:<20} {cls.cls:<20} {entry.status}")
        return 0
    entry = lookup(code)
    if entry is None:
        raise BadInput(f"unknown detector {code!r} (see `ncclf explain --list`)")
    module = inspect.getmodule(detector_class(entry))
    click.echo(f"{entry.code} {entry.name} ({entry.status})\n")
    click.echo(inspect.cleandoc(module.__doc__ or ""))
    return 0
