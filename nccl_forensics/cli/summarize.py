"""`ncclf summarize`: the map step where the logs are (one node), for `ncclf diagnose` to reduce elsewhere."""
from __future__ import annotations

import click

from .options import POSITIVE, end_without_teardown, jobs_option, note, one_blas_thread, paths_argument, progress


@click.command("summarize")
@paths_argument
@click.option("-o", "--out", "out", required=True, type=click.Path(dir_okay=False),
              help="The summary file to write (name it NODE.ncclf; `%h` is replaced by this host's name).")
@jobs_option
@click.option("--full", is_flag=True, help="Read every line of every file (default: head and tail of large ones).")
@click.option("--window", "window_mb", type=POSITIVE, default=2.0, show_default=True, metavar="MB",
              help="The tail of a large text file that is read.")
def command(paths, out, jobs, full, window_mb):
    """Digest the evidence under PATHS on this node into one small file that `ncclf diagnose` reads like
    logs: each node summarizes its own local logs, one machine diagnoses every summary together.

    \b
    Examples:
      ncclf summarize /local/logs -o /shared/sum/$(hostname).ncclf
      srun --ntasks-per-node=1 ncclf summarize /local/logs -o /shared/sum/%h.ncclf
      ncclf diagnose /shared/sum/
    """
    import os
    import socket

    from ..errors import BadInput
    with one_blas_thread():
        from ..pipeline.read import summarize

    target = out.replace("%h", socket.gethostname())
    folder = os.path.dirname(target)
    if folder:
        try:
            os.makedirs(folder, exist_ok=True)         # as capture and run create theirs
        except OSError as exc:
            raise BadInput(f"cannot create {folder} for the summary: {exc.strerror or exc}") from None
    with progress("digesting evidence") as on_file:
        digests = summarize(paths, target, jobs=jobs, window_mb=None if full else window_mb, progress=on_file)
    note(f"wrote the summary of {len(digests)} evidence file{'s' if len(digests) != 1 else ''} to {target}")
    end_without_teardown()
    return 0
