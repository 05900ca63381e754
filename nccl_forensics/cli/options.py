"""Options shared by several commands (written once, sqlite-utils style)."""
from __future__ import annotations

import contextlib
import logging
import math
import os
import shutil
import sys
import tempfile

import click

from ..errors import BadInput
from ..files import write_atomic
from ..hygiene import strip_escapes


def paths_argument(f):
    return click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=str))(f)


def jobs_option(f):
    return click.option("-j", "--jobs", type=click.IntRange(min=0), default=0, show_default=True,
                        help="Worker processes (0 = one per CPU core).")(f)


class PositiveNumber(click.ParamType):
    """A finite number > 0 (`760e6`, `0.5`): nan, inf, zero and negatives are one-line usage errors (exit 2)."""

    name = "number"

    def __init__(self, integer: bool = False, maximum: float | None = None) -> None:
        self.integer, self.maximum = integer, maximum

    def convert(self, value, param, ctx):
        try:
            number = float(value)
        except (TypeError, ValueError):
            self.fail(f"{value!r} is not a number", param, ctx)
        if not math.isfinite(number) or number <= 0:
            self.fail(f"{value!r} must be a finite number greater than 0", param, ctx)
        if self.maximum is not None and number > self.maximum:
            self.fail(f"{value!r} must be at most {self.maximum:g}", param, ctx)
        if self.integer:
            if number != int(number):
                self.fail(f"{value!r} must be a whole number", param, ctx)
            return int(number)
        return number


POSITIVE = PositiveNumber()
POSITIVE_INT = PositiveNumber(integer=True)
FRACTION = PositiveNumber(maximum=1.0)          # an efficiency: (0, 1]


# ---- one format vocabulary across commands; the old names stay as aliases ----
FORMAT_ALIASES = {"rich": "text", "table": "text"}


class FormatChoice(click.Choice):
    """`text|json|jsonl|csv|markdown|…`; `rich` and `table` (older names) mean `text`."""

    def __init__(self, *names: str) -> None:
        super().__init__([*names, *(old for old, new in FORMAT_ALIASES.items() if new in names)])

    def convert(self, value, param, ctx):
        return FORMAT_ALIASES.get(value, super().convert(value, param, ctx))


def format_option(*names: str, help: str = "Output format."):
    def deco(f):
        return click.option("--format", "fmt", type=FormatChoice(*names), default=names[0], show_default=True,
                            help=help)(f)
    return deco


# ---- -q / -v on every command (added by the command group), and the notes they govern ----
VERBOSITY = {"level": 0}          # -1 quiet, 0 normal, 1 verbose
QUICK_EXIT = {"ok": False}        # end_without_teardown() was called


def end_without_teardown() -> None:
    """What this command started has ended and its files are closed: the program may end without the interpreter's
    teardown, which frees a large diagnosis object by object (about 0.2 s of a 4,096-rank diagnose)."""
    QUICK_EXIT["ok"] = True


def verbosity_options() -> list[click.Option]:
    def set_level(value: int):
        def callback(ctx, param, flag):
            if flag:
                VERBOSITY["level"] = value
                if value > 0:
                    logging.basicConfig(level=logging.INFO, format="ncclf: %(name)s: %(message)s")
        return callback
    return [click.Option(["-q", "--quiet"], is_flag=True, expose_value=False, is_eager=True, callback=set_level(-1),
                         help="Only the result: no notes, warnings or progress on stderr."),
            click.Option(["-v", "--verbose"], is_flag=True, expose_value=False, is_eager=True, callback=set_level(1),
                         help="More detail on stderr (what was skipped and why, internal log messages).")]


def progress(what: str):
    """A progress bar on stderr (a terminal only, never with -q): a context giving a `progress(done, total)`
    callback, or None."""
    from ..outputs.progress import progress_bar
    return progress_bar(what, enabled=VERBOSITY["level"] >= 0)


def note(message: str, detail: bool = False) -> None:
    """A line on stderr for people: not with -q; a `detail` only with -v."""
    if VERBOSITY["level"] >= (1 if detail else 0):
        click.echo(strip_escapes(message), err=True)


def write_file(path: str, text: str, what: str) -> None:
    """Write an output file the user asked for (atomically, through a new temporary file: files.atomic_output),
    and say so; an unwritable destination is bad input (exit 2)."""
    try:
        write_atomic(path, text)
    except OSError as exc:
        raise BadInput(f"cannot write the {what} to {path}: {exc.strerror or exc}") from None
    note(f"wrote the {what} to {path}")


@contextlib.contextmanager
def one_blas_thread():
    """Around the first import of numpy: OPENBLAS_NUM_THREADS=1, unless set already. numpy loads OpenBLAS, which
    starts a thread per core as it loads (63 of them on a 64-core node; on 2 cores, 40-60 ms of a diagnose's CPU)
    for linear algebra that ncclf never does. The variable goes again afterwards: a job that ncclf starts later
    (`ncclf run`, `repro`, `probe`) does not inherit it."""
    ours = "numpy" not in sys.modules and "OPENBLAS_NUM_THREADS" not in os.environ
    if ours:
        os.environ["OPENBLAS_NUM_THREADS"] = "1"
    try:
        yield
    finally:
        if ours:
            os.environ.pop("OPENBLAS_NUM_THREADS", None)


@contextlib.contextmanager
def stdin_as_file(paths):
    """`-` among the paths: what stdin holds, copied to a private temporary file for the time of the command
    (`cat *.log | ncclf diagnose -`); it is read in blocks, never held in memory."""
    paths = list(paths)
    if "-" not in paths:
        yield paths
        return
    if sys.stdin is None or sys.stdin.isatty():
        raise BadInput("`-` reads evidence from stdin, but nothing is piped in (e.g. `cat rank*.log | ncclf diagnose -`)")
    with tempfile.TemporaryDirectory(prefix="ncclf-stdin-") as tmp:
        target = os.path.join(tmp, "stdin")
        with open(target, "wb") as out:
            shutil.copyfileobj(sys.stdin.buffer, out, 1 << 20)
        yield [target if p == "-" else p for p in paths]


def complete_codes(ctx, param, incomplete: str):
    """Shell completion of detector codes and names (`ncclf explain C1<TAB>`, `--select`)."""
    from click.shell_completion import CompletionItem

    from ..detectors import REGISTRY
    last = incomplete.rsplit(",", 1)
    head, word = (last[0] + ",", last[1]) if len(last) == 2 else ("", incomplete)
    out = []
    for entry in REGISTRY:
        for value in (entry.code, entry.name):
            if value.lower().startswith(word.lower()):
                out.append(CompletionItem(head + value, help=entry.name if value == entry.code else entry.code))
    return out


def complete_scenarios(ctx, param, incomplete: str):
    """Shell completion of `ncclf repro` scenario names."""
    from click.shell_completion import CompletionItem

    from ..scenarios import SCENARIOS
    return [CompletionItem(name) for name in SCENARIOS if name.startswith(incomplete)]


def default_out(kind: str) -> str:
    """Where a command's output folder goes when --out is not given: under the user's state folder
    (`$XDG_STATE_HOME/ncclf`, else `~/.local/state/ncclf`), never the working directory (a clone, a job's
    folder), named by the command and the time; the command prints the path."""
    import time
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return os.path.join(base, "ncclf", time.strftime(f"{kind}-%Y%m%d-%H%M%S"))
