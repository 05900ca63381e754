"""`ncclf topo`: options → topology_from_paths + check_topology → one renderer."""
from __future__ import annotations

import click

from .options import format_option, paths_argument, write_file


@click.command("topo")
@paths_argument
@format_option("text", "json", "dot", "mermaid", "svg")
@click.option("--channel", type=click.IntRange(min=0), default=None, help="Show only this channel's ring and tree.")
@click.option("--all", "all_channels", is_flag=True, help="Show every channel (default: the first one).")
@click.option("--highlight", type=click.IntRange(min=0), default=None, metavar="RANK",
              help="Mark RANK and its ring hops (the stuck edge).")
@click.option("-o", "--output", type=click.Path(dir_okay=False, writable=True), default=None,
              help="Write to this file instead of stdout.")
def command(paths, fmt, channel, all_channels, highlight, output):
    """Render the rings, trees and transports NCCL built, and check them. Exits 1 when a check warns (as a
    linter does on findings), 0 when every check passes.

    PATHS are NCCL_DEBUG=INFO logs: one file (often rank 0's, which alone
    prints the ring order), several files, or directories.

    \b
    Checks (warnings, with file:line evidence): G001 ring-not-closed,
    G002 ring-differs-across-ranks, G003 rank-missing-from-ring,
    G004 extra-inter-node-hops, G005 socket-despite-ib, G006 virtual-interface,
    G007 version-mismatch, G008 net-plugin-mismatch, G009 gdr-disabled,
    G010 single-channel.

    \b
    Examples:
      ncclf topo sample_logs/nccl/ib-16rank-2node-2.21/
      ncclf topo rank0.log --all
      ncclf topo logs/ --channel 3 --highlight 5
      ncclf topo logs/ --format json > topo.json
      ncclf topo logs/ --format svg -o topo.svg --highlight 5
      ncclf topo logs/ --format dot | dot -Tpng -o topo.png
    """
    if channel is not None and all_channels:
        raise click.UsageError("--channel and --all cannot be used together")
    from ..outputs.topo_render import render
    from ..outputs.topo_terminal import terminal_renderables
    from ..topo import check_topology, topology_from_paths

    comms = topology_from_paths(paths)
    warnings = check_topology(comms)
    options = {"channel": channel, "all_channels": all_channels, "highlight": highlight}
    if fmt == "text" and output is None:
        from ..outputs.console import make_console

        console = make_console(highlight=False, emoji=False)
        for item in terminal_renderables(comms, warnings, **options):
            console.print(item)
        return 1 if warnings else 0
    text = render("rich" if fmt == "text" else fmt, comms, warnings, **options)
    if output is None:
        click.echo(text, nl=False)
    else:
        write_file(output, text, f"topology ({fmt})")
    return 1 if warnings else 0
