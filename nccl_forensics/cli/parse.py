"""`ncclf parse`: evidence files → structured events (table, jsonl, csv) or a per-file inventory."""
from __future__ import annotations

import json
import sys

import click

from ..outputs.console import make_console
from ..outputs.events import writer_for
from ..outputs.parse_table import inventory_rows, render_events_table, render_inventory
from ..pipeline import collect
from .options import end_without_teardown, format_option, jobs_option, note, paths_argument, progress, stdin_as_file


@click.command("parse")
@paths_argument
@format_option("text", "jsonl", "csv", "json", help="text: events + summary (alias: table); jsonl/csv: one record "
              "per event; json: the --inventory rows.")
@click.option("--inventory", is_flag=True, help="One row per file: kind, rank(s), host, pid(s), lines, events, "
                                                "unparsed. Files that are not evidence are listed as skipped.")
@click.option("--limit", type=int, default=200, show_default=True,
              help="Rows of the events table to show (0 = all).")
@jobs_option
def command(paths, fmt, inventory, limit, jobs):
    """Parse NCCL/RCCL logs, py-spy dumps, flight-recorder dumps, torch/torchrun output, tracebacks,
    gdb backtraces, kernel and Slurm logs into events. PATHS may be files or directories (read recursively, .gz too).

    \b
    Examples:
      ncclf parse sample_logs/nccl/
      ncclf parse rank3.log --format jsonl | jq 'select(.kind=="coll")'
      ncclf parse --inventory logs/
      ncclf parse --inventory logs/ --format json
      cat rank3.log | ncclf parse - --format jsonl
    """
    with stdin_as_file(paths) as readable:
        rc = _parse(readable, fmt, inventory, limit, jobs)
    end_without_teardown()
    return rc


def _parse(paths: list[str], fmt: str, inventory: bool, limit: int, jobs: int) -> int:
    console = make_console()
    if inventory:
        with progress("reading files") as on_file:
            rows = inventory_rows(collect.inventory(paths, jobs, on_file))
        if fmt == "json":
            click.echo(json.dumps({"schema_version": 1, "files": rows}, indent=2))
        elif fmt == "text":
            render_inventory(rows, console)
        else:
            raise click.UsageError("--inventory takes --format text or json")
        return 0
    if fmt in ("jsonl", "csv"):
        with progress("parsing") as on_file:
            summaries = collect.spool_events(paths, fmt, writer_for, sys.stdout, jobs, on_file)
        sys.stdout.flush()
        for s in summaries:         # stdout holds only records: a cut or unreadable file is reported here
            if s.error:
                note(f"warning: {s.error}")
        return 0
    if fmt == "json":
        raise click.UsageError("--format json goes with --inventory; use jsonl for events")
    with progress("parsing") as on_file:
        preview = collect.preview_events(paths, jobs, limit or None, on_file)
    render_events_table(preview, console)
    return 0
