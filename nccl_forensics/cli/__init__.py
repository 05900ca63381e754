"""The `ncclf` command: a thin click layer. Each command = options → one library call → one renderer.

Commands live in their own modules (cli/<name>.py, each exporting `command`) and are imported lazily,
so `ncclf --help` stays fast and a broken optional dependency only affects its own command.
"""
from __future__ import annotations

import importlib
import os
import sys

import click

from ..errors import EXIT_INTERNAL, NcclfError, OutputClosed
from ..hygiene import strip_escapes
from .options import QUICK_EXIT, verbosity_options

CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"], "max_content_width": 100}

COMMANDS = {
    "parse": "Parse evidence files into structured events (or list them with --inventory).",
    "diagnose": "Find the rank(s) that broke a hung or crashed job, and why.",
    "summarize": "Digest this node's evidence into one small file for `ncclf diagnose` (one file per node).",
    "topo": "Render the rings, trees and transports NCCL built, and check them.",
    "capture": "Take a live (hung) job's evidence on this node: py-spy, flight recorder, logs, kernel, context.",
    "run": "Start a job with the evidence switched on; on a hang, capture and diagnose it.",
    "repro": "Run a reproducer trainer that causes a failure for real, then diagnose it.",
    "explain": "Print the documentation of a detector (e.g. `ncclf explain C102`).",
    "cost": "Predict communication time per step from first principles.",
    "probe": "Measure collective bandwidth and correctness, nccl-tests style.",
}


class LazyGroup(click.Group):
    def list_commands(self, ctx):
        return list(COMMANDS)

    def get_command(self, ctx, name):
        if name not in COMMANDS:
            return None
        try:
            module = importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"{__name__}.{name}":
                return None
            raise
        command = module.command
        if not any(p.name == "quiet" for p in command.params):
            command.params.extend(verbosity_options())
        return command

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except BrokenPipeError:     # raised here, click would exit 1: the code for "a failure was diagnosed"
            raise OutputClosed("output closed") from None


@click.group(cls=LazyGroup, context_settings=CONTEXT_SETTINGS)
@click.version_option(package_name="nccl-forensics", prog_name="ncclf")
def cli():
    """ncclf: forensics for hung or crashed multi-GPU PyTorch/NCCL jobs.

    \b
    Exit codes: 0 nothing wrong found / success, 1 a failure was diagnosed
    (or a reproducer check mismatched), 2 bad input or usage, 3 internal error,
    4 diagnose was inconclusive (ranks missing or unreadable, nothing found),
    130 interrupted, 141 the output pipe closed early (`| head`).

    \b
    Examples:
      ncclf parse sample_logs/nccl/ --format table
      ncclf diagnose logs/
      ncclf capture --out /tmp/cap && ncclf diagnose /tmp/cap
      ncclf topo rank0.log
      ncclf repro shape-mismatch
    """


def main(argv=None) -> None:
    try:
        rc = cli.main(args=argv, prog_name="ncclf", standalone_mode=False)
        sys.stdout.flush()          # a closed pipe shows here, not in the interpreter's exit
    except (OutputClosed, BrokenPipeError):
        _detach_stdout()
        sys.exit(OutputClosed.exit_code)
    except click.exceptions.Abort:
        click.echo("Aborted.", err=True)
        sys.exit(130)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except NcclfError as exc:
        click.echo(f"Error: {strip_escapes(str(exc))}", err=True)
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        click.echo("Interrupted.", err=True)
        sys.exit(130)
    except Exception as exc:  # a bug in ncclf, not the user's fault: still one line, unless asked for more
        if os.environ.get("NCCLF_DEBUG"):
            raise
        click.echo(f"Error: internal error ({type(exc).__name__}: {strip_escapes(str(exc))}); "
                   "rerun with NCCLF_DEBUG=1 for the traceback and please report it", err=True)
        sys.exit(EXIT_INTERNAL)
    code = rc if isinstance(rc, int) else 0
    if argv is None and QUICK_EXIT["ok"]:          # the program's own run (tests pass their argv), stdout flushed
        sys.stderr.flush()
        os._exit(code)
    sys.exit(code)


def _detach_stdout() -> None:
    """Point stdout at /dev/null, so that the interpreter's own flush at exit finds no closed pipe."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):   # stdout replaced by something without a descriptor
        pass
