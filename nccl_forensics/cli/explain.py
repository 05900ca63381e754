"""`ncclf explain CODE`: print the documentation of a detector or a topology check (ruff's `ruff rule B006`)."""
from __future__ import annotations

import click

from ..errors import BadInput
from .options import complete_codes


@click.command(short_help="Print the documentation of a detector or topology check (`ncclf explain C102`).")
@click.argument("code", required=False, shell_complete=complete_codes)
@click.option("--list", "list_all", is_flag=True,
              help="List every code: detectors (code, name, verdict class, status), then topology checks.")
@click.option("--messages", "list_messages", is_flag=True,
              help="List the message catalogue: every message ncclf reads, the versions that print it, its meaning.")
def command(code, list_all, list_messages):
    """Print what a detector or topology check finds, why that hangs or slows a job, the evidence it needs
    and the fix.

    CODE is a detector code (C102), a topology check code (G001) or either's name (dtype-mismatch).

    \b
    Example:
      ncclf explain C102
      ncclf explain stuck-rank
      ncclf explain G001
      ncclf explain --list
      ncclf explain --messages
    """
    from ..codes import CODES, DETECTOR, documentation, lookup, resolve

    if list_messages:
        from ..sources.catalogue import iter_table
        for message_id, example, versions, meaning, implies in iter_table():
            click.echo(f"{message_id}  [{meaning}{'' if implies == '-' else ' -> ' + implies}]  ({versions})")
            click.echo(f"    {example}")
        return 0

    if list_all or not code:
        for entry in CODES:
            what = resolve(entry).cls if entry.kind == DETECTOR else "topology check"
            click.echo(f"{entry.code}  {entry.name:<25} {what:<20} {entry.status}")
        return 0
    entry = lookup(code)
    if entry is None:
        raise BadInput(f"unknown code {code!r} (see `ncclf explain --list`)")
    click.echo(f"{entry.code} {entry.name} ({entry.status})\n")
    click.echo(with_real_example(documentation(entry), entry.code))
    return 0


def with_real_example(doc: str, code: str) -> str:
    """The docstring with its `Example:` paragraph replaced by what a real run on a shipped sample said
    (explain_examples.py, pasted by cog); a docstring example that names a command no sample backs is dropped."""
    from .explain_examples import example

    paragraphs = doc.split("\n\n")
    at = next((i for i, p in enumerate(paragraphs) if p.startswith("Example")), None)
    real = example(code)
    if at is None:
        return doc + (f"\n\n{real}" if real else "")
    if real:
        paragraphs[at] = real
    elif "ncclf " in paragraphs[at] or "sample_logs/" in paragraphs[at]:
        del paragraphs[at]
    else:
        first, _, rest = paragraphs[at].partition("\n")
        said = first[len("Example"):].strip(",: ")
        head = "Example: an illustration, not a run" + (f" ({said})" if said else "") + ":"
        paragraphs[at] = head + ("\n" + rest if rest else "")
    return "\n\n".join(paragraphs)
