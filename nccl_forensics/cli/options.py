"""Options shared by several commands (written once, sqlite-utils style)."""
from __future__ import annotations

import click


def paths_argument(f):
    return click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=str))(f)


def jobs_option(f):
    return click.option("-j", "--jobs", type=click.IntRange(min=0), default=0, show_default=True,
                        help="Worker processes (0 = one per CPU core).")(f)


def format_option(*choices: str, default: str | None = None):
    def deco(f):
        return click.option("--format", "fmt", type=click.Choice(choices), default=default or choices[0],
                            show_default=True, help="Output format.")(f)
    return deco
