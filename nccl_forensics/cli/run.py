"""`ncclf run -- <launcher command>`: the evidence switched on before the hang, the capture taken when it comes."""
from __future__ import annotations

import sys

import click

from ..errors import EXIT_FOUND
from .options import VERBOSITY, default_out


@click.command("run", context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False})
@click.option("--out", type=click.Path(file_okay=False), default=None,
              help="Output folder [default: ~/.local/state/ncclf/run-<time>, or under $XDG_STATE_HOME]; this node "
              "writes <out>/<host>/.")
@click.option("--host", "host", default=None, help="This node's label (the sub-folder) [default: the host name].")
@click.option("--hang-after", type=click.FloatRange(min=1), default=300.0, show_default=True,
              help="Seconds without progress (NCCL COLL lines, log output) that count as a hang.")
@click.option("--kill-on-hang", is_flag=True, help="After the capture, end the job (only what this run started).")
@click.option("--no-coll", is_flag=True, help="NCCL_DEBUG_SUBSYS=INIT,P2P,NET (no line per collective) when the "
              "job issues too many collectives for the logs.")
@click.option("--native", is_flag=True, help="py-spy dump --native in the capture.")
@click.argument("launcher", nargs=-1, required=True, type=click.UNPROCESSED)
def command(out, host, hang_after, kill_on_hang, no_coll, native, launcher):
    """Start a job with the evidence switched on; when it hangs, capture and diagnose it.

    Sets what is missing and keeps what you set: NCCL_DEBUG=INFO, NCCL_DEBUG_SUBSYS=INIT,COLL,P2P,NET,
    NCCL_DEBUG_FILE, TORCH_FR_BUFFER_SIZE, TORCH_NCCL_DUMP_ON_TIMEOUT, TORCH_FR_DUMP_TEMP_FILE, the FR dump
    pipe, and torchrun's --log-dir/--tee. When no NCCL COLL line (or, without them, no log output) comes
    for --hang-after seconds, or the job writes a flight-recorder dump, it captures the ranks (as `ncclf
    capture`) and prints the diagnosis. The job is left running unless --kill-on-hang; Ctrl-C ends it.

    Exit code: the launcher's, 1 after --kill-on-hang, 130 when interrupted.

    \b
    Examples:
      ncclf run -- torchrun --nproc-per-node 8 train.py
      ncclf run --hang-after 120 --kill-on-hang --out /shared/run -- torchrun --nnodes 2 ... train.py
      srun ncclf run --out /shared/run -- torchrun --nnodes $SLURM_NNODES ... train.py   # once per node
    """
    from ..capture.bundle import CaptureOptions
    from ..capture.supervise import (
        DEFAULT_SUBSYS,
        NO_COLL_SUBSYS,
        RunOptions,
        Supervisor,
    )
    from ..outputs.console import make_console

    options = RunOptions(out=out or default_out("run"), host=host, hang_after_s=hang_after,
                         kill_on_hang=kill_on_hang, nccl_subsys=NO_COLL_SUBSYS if no_coll else DEFAULT_SUBSYS,
                         capture=CaptureOptions(native=native))
    report = make_console(file=sys.stderr)

    def say(line: str) -> None:
        if VERBOSITY["level"] >= 0:                 # -q: only the diagnosis and the exit code
            report.print(f"ncclf run: {line}", highlight=False, soft_wrap=True, markup=False)

    supervisor = Supervisor(list(launcher), options, report=say, on_capture=lambda b: _diagnose(b, say))
    outcome = supervisor.run()
    say(f"evidence in {outcome.bundle} (`ncclf diagnose {outcome.bundle}`); launcher exit code {outcome.rc}")
    if outcome.leftovers:
        say(f"processes still alive: {outcome.leftovers}")
    if outcome.how == "killed_on_hang":
        return EXIT_FOUND
    return outcome.rc if outcome.rc is not None and outcome.rc >= 0 else 128 - (outcome.rc or 0)


def _diagnose(bundle, say) -> None:
    from ..errors import NcclfError
    from ..outputs.capture_render import render_bundle
    from ..outputs.console import make_console
    from ..outputs.diagnosis_terminal import render
    from ..pipeline.reduce import diagnose

    render_bundle(bundle, make_console(file=sys.stderr))
    try:
        result = diagnose([str(bundle.path)])
    except NcclfError as exc:
        say(f"no diagnosis: {exc}")
        result = None
    if result is not None and not _started(result):
        tail = _last_lines(bundle.path / "console.log")
        say("the job ended before any rank reached a collective or left a stack; the end of its output:"
            if tail else "the job ended before any rank reached a collective, and printed nothing")
        for line in tail:
            say(f"  {line}")
        return
    if result is not None:
        render(result)


def _started(result) -> bool:
    """Did any rank get as far as a collective, a py-spy stack, or a failure ncclf can name?"""
    return (not result.timelines.colls.empty or any(st.where for st in result.ranks.values())
            or result.verdict.cls not in ("unclassified_failure", "inconclusive"))


def _last_lines(path, count: int = 8, limit: int = 64 << 10) -> list[str]:
    """The last `count` non-empty lines of the job's console (its last `limit` bytes), printable only."""
    from ..sources.lines import unwrap
    try:
        with open(path, "rb") as fh:
            fh.seek(0, 2)
            fh.seek(max(fh.tell() - limit, 0))
            text = fh.read().decode("utf-8", "replace")
    except OSError:
        return []
    lines = [unwrap("".join(c for c in line if c.isprintable()).strip())[0] for line in text.splitlines()]
    return [line for line in lines if line][-count:]
