"""`ncclf diagnose`: options → diagnose() → one renderer (plus optional report/trace files)."""
from __future__ import annotations

import shlex
import sys
from contextlib import contextmanager

import click

from ..errors import EXIT_FOUND, EXIT_INCONCLUSIVE, EXIT_OK
from .options import (
    POSITIVE,
    complete_codes,
    end_without_teardown,
    format_option,
    jobs_option,
    note,
    one_blas_thread,
    paths_argument,
    progress,
    stdin_as_file,
    write_file,
)


def _render(result, fmt: str, context: dict) -> None:
    if fmt == "json":
        from ..outputs.diagnosis_json import write as write_json
        write_json(result, sys.stdout)
    elif fmt == "markdown":
        from ..outputs.markdown_report import render as render_md
        sys.stdout.write(render_md(result, context))
    else:
        from ..outputs.diagnosis_terminal import render as render_rich
        render_rich(result)


def _codes(values) -> list[str]:
    return [c.strip() for v in values for c in v.split(",") if c.strip()]


def report_context(paths: list[str]) -> dict:
    """What a postmortem records about its own making: when, which ncclf, the command line, the inputs."""
    import datetime
    from importlib.metadata import PackageNotFoundError, version
    try:
        own = version("nccl-forensics")
    except PackageNotFoundError:
        own = "unknown"
    return {"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "version": own, "command": shlex.join(["ncclf", *sys.argv[1:]]),
            "inputs": paths}


@contextmanager
def _importing():
    """Around the command's heavy imports: they make only long-lived objects, so the collector's passes over them free
    nothing (it is off), and numpy's OpenBLAS starts one thread (options.one_blas_thread)."""
    from ..sources.gc_pause import gc_paused
    with gc_paused(), one_blas_thread():
        yield


@contextmanager
def _reduce_loaded(shared, fmt: str, select: list[str], ignore: list[str]):
    """`reduce.diagnose`, imported while `shared`'s workers start and warm up (pandas and the detectors are only the
    parent's: a 4,096-file job's workers no longer wait for them), and the pool, stopped on leaving. The detectors
    that will run and the renderer of `fmt` are loaded then too: after the read, the parent alone works, and their
    modules cost a tenth of a second to load (most of it compiling them, where no bytecode is cached)."""
    with shared:
        with _importing():
            from ..pipeline.reduce import diagnose
            _load_detectors(select, ignore)
            _load_renderer(fmt)
        yield diagnose, shared


def _load_detectors(select: list[str], ignore: list[str]) -> None:
    from ..detectors import detector_class, selected
    from ..errors import BadInput
    try:
        for entry in selected(select, ignore):
            detector_class(entry)
    except BadInput:                    # an unknown code: said by the diagnosis itself
        pass


def _load_renderer(fmt: str) -> None:
    if fmt == "json":
        from ..outputs import diagnosis_json  # noqa: F401
    elif fmt == "markdown":
        from ..outputs import markdown_report  # noqa: F401
    else:
        from ..outputs import diagnosis_terminal  # noqa: F401


@click.command(short_help="Find the rank(s) that broke a hung or crashed job, and why.")
@paths_argument
@format_option("text", "json", "markdown", help="Output format on stdout (markdown: the postmortem).")
@click.option("--report", "report", type=click.Path(dir_okay=False, writable=True), metavar="FILE",
              help="Also write the Markdown postmortem (or health report) to FILE (e.g. postmortem.md).")
@click.option("--trace", "trace", type=click.Path(dir_okay=False, writable=True), metavar="FILE",
              help="Also write a Chrome/Perfetto trace (one track per rank) to FILE (e.g. trace.json).")
@jobs_option
@click.option("--select", multiple=True, metavar="CODES", shell_complete=complete_codes,
              help="Run only these detectors (codes, prefixes or names; "
              "comma-separated or repeated).")
@click.option("--ignore", multiple=True, metavar="CODES", shell_complete=complete_codes, help="Skip these detectors.")
@click.option("--full", is_flag=True, help="Read every line of every file (default: a large text file is read at "
              "its head and its last --window MB, where a hang or crash is).")
@click.option("--window", "window_mb", type=POSITIVE, default=2.0, show_default=True, metavar="MB",
              help="The tail of a large text file that is read.")
@click.option("--ray", "ray_address", metavar="ADDRESS", help="Read PATHS on every node of this running Ray "
              "cluster (one task per node; '{node_id}' or '{host}' in a path is filled per node) and reduce here. "
              "Needs the ray extra.")
def command(paths, fmt, report, trace, jobs, select, ignore, full, window_mb, ray_address):
    """Align the ranks' timelines, find the last common collective, classify the failure and cite the evidence.

    PATHS are files or directories (searched recursively): NCCL logs, flight-recorder dumps, py-spy dumps,
    torchrun output and --log-dir folders, error.json, dmesg, Slurm logs.

    Exit codes: 0 no failure found and the evidence covers every rank, 1 a hang or failure was diagnosed,
    2 bad input, 4 inconclusive (nothing found, but ranks are missing or unreadable: never a false all-clear).

    \b
    Example:
      ncclf diagnose sample_logs/bundles/dtype-mismatch-nccl
      ncclf diagnose logs/ --format json --report postmortem.md --trace hang.json
      ncclf diagnose traces/ --select C1,R2 -j 8
      cat rank*.log | ncclf diagnose -
      ncclf diagnose --ray 10.0.0.1:6379 /local/logs      # logs on each node's own disk
    """
    from ..sources.gc_pause import gc_paused
    # the collector off to the end: what the command makes (the digests, the diagnosis, its report) lives to the end
    # and holds no cycle to free; its passes over them cost hundredths of a second at 4,096 ranks
    with gc_paused():
        return _diagnose_and_report(paths, fmt, report, trace, jobs, select, ignore, full, window_mb, ray_address)


def _diagnose_and_report(paths, fmt, report, trace, jobs, select, ignore, full, window_mb, ray_address) -> int:
    with _importing():
        from ..pipeline.map import fr_tail_entries
        from ..pipeline.read import pool_for

    paths = list(paths)
    options = {"jobs": jobs, "select": _codes(select), "ignore": _codes(ignore),
               "window_mb": None if full else window_mb}
    if ray_address:
        from ..pipeline.on_ray import diagnose_on_ray
        result = diagnose_on_ray(ray_address, paths, **options)
        with_evidence = sum(1 for node in result.ray_nodes if node.sent_evidence)
        note(f"read on {len(result.ray_nodes)} Ray node{'s' if len(result.ray_nodes) > 1 else ''}, "
             f"{with_evidence} with evidence")
    else:
        with stdin_as_file(paths) as readable, \
                _reduce_loaded(pool_for(readable, jobs, options["window_mb"]), fmt, options["select"],
                               options["ignore"]) as (diagnose, shared), \
                progress("reading evidence") as on_file:
            result = diagnose(readable, progress=on_file, shared=shared, **options)
            from ..outputs.display import relabel
            for copy in set(readable) - set(paths):          # stdin's private copy: shown as <stdin>
                relabel(result, copy)
    used_mb = result.window_mb or window_mb                  # wider than asked when a divergence sat at its start
    if result.windowed:
        note(f"read the head and the last {used_mb:g} MB of {len(result.windowed)} large file"
             f"{'s' if len(result.windowed) > 1 else ''} (--full reads everything)")
    if result.read_whole:
        first = next(iter(result.read_whole.values()))
        note(f"read {len(result.read_whole)} large file{'s' if len(result.read_whole) > 1 else ''} whole: a line in "
             f"the middle may show a failure ({first.file}:{first.line})")
    if result.windowed_dumps:
        note(f"decoded the last {fr_tail_entries(used_mb)} entries of {len(result.windowed_dumps)} "
             f"flight-recorder dump{'s' if len(result.windowed_dumps) > 1 else ''}, where a hang shows "
             "(--full reads everything)")
    # only a postmortem records it (importlib.metadata alone, with the email package it imports, is a tenth of a
    # flight-recorder diagnose's fixed cost)
    context = report_context(paths) if report or fmt == "markdown" else {}
    if report:
        from ..outputs.markdown_report import render as render_md
        write_file(report, render_md(result, context), "postmortem")
    if trace:
        from ..outputs.perfetto import render as render_trace
        write_file(trace, render_trace(result), "Perfetto trace")
    for code, why in result.skipped:
        note(f"{code} skipped: {why}", detail=True)
    _render(result, fmt, context)
    end_without_teardown()
    return EXIT_FOUND if result.failed else EXIT_INCONCLUSIVE if result.inconclusive else EXIT_OK
