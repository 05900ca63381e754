"""`ncclf repro`: run a reproducer trainer that causes a failure for real, then diagnose the bundle."""
from __future__ import annotations

import os

import click

from .. import repro
from ..errors import EXIT_FOUND, ReproError
from ..outputs.console import make_console
from ..outputs.repro_render import render_confusion, render_result, render_scenarios
from .options import complete_scenarios, default_out


@click.command("repro")
@click.argument("scenario", required=False, shell_complete=complete_scenarios)
@click.option("--list", "list_only", is_flag=True, help="List the scenarios and exit.")
@click.option("--all", "run_every", is_flag=True, help="Run every CPU scenario (one bundle each under --out).")
@click.option("--check", is_flag=True, help="Exit 1 unless every diagnosis matches the injected fault.")
@click.option("--nproc", type=click.IntRange(min=2), default=2, show_default=True, help="Ranks (processes).")
@click.option("--step", type=click.IntRange(min=1), default=3, show_default=True, help="Step the fault fires at.")
@click.option("--rank", type=click.IntRange(min=0), default=1, show_default=True, help="Rank that misbehaves.")
@click.option("--timeout", type=click.FloatRange(min=1), default=None,
              help="Process-group timeout in seconds [default: 30; 5 for the timeout scenario].")
@click.option("--out", type=click.Path(file_okay=False), default=None,
              help="Bundle directory [default: ~/.local/state/ncclf/repro-<time>/<scenario>]; <out>.repro.json "
              "goes beside it.")
@click.option("--fsdp", is_flag=True, help="Use the Llama/FSDP2 trainer instead of GPT/DDP.")
@click.option("--debug-detail", is_flag=True,
              help="Set TORCH_DISTRIBUTED_DEBUG=DETAIL in the job (use with --fsdp: DDP segfaults with it on gloo).")
@click.option("--no-diagnose", is_flag=True, help="Only capture the bundle.")
@click.option("--backend", type=click.Choice(["gloo", "nccl"]), default=None,
              help="[default: nccl with enough CUDA GPUs, else gloo]")
def command(scenario, list_only, run_every, check, nproc, step, rank, timeout, out, fsdp, debug_detail,
            no_diagnose, backend):
    """Run a reproducer trainer that causes a failure for real, then diagnose it.

    The job runs under torchrun (gloo on CPU); the harness captures the console, torchrun's logs, py-spy
    and flight-recorder dumps of hung ranks and kernel OOM lines, ends the job, checks that nothing it
    started is left, and prints the diagnosis next to the injected fault.

    \b
    Examples:
      ncclf repro --list
      ncclf repro shape-mismatch --nproc 4 --rank 2
      ncclf repro --all --check --out /tmp/repro
    """
    console = make_console(highlight=False)
    if list_only:
        render_scenarios(repro.list_scenarios(), console)
        return 0
    if bool(scenario) == run_every:
        raise click.UsageError("give one SCENARIO, or --all (see --list)")
    options = dict(nproc=nproc, step=step, rank=rank, timeout=timeout, fsdp=fsdp, debug_detail=debug_detail,
                   backend=backend, diagnose=not no_diagnose)
    if run_every:
        results = repro.run_all(out=out or default_out("repro"), **options)
        render_confusion(results, console)
    else:
        results = [repro.run_scenario(scenario, out=out or os.path.join(default_out("repro"), scenario), **options)]
        render_result(results[0], console)
    if any(r.outcome.leftovers for r in results):
        raise ReproError("processes started by the harness are still alive (see above)")
    if check and any(r.match is not True for r in results):
        return EXIT_FOUND
    return 0
