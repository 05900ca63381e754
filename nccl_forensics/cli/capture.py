"""`ncclf capture`: take a live (hung) job's evidence on this node into one bundle per job."""
from __future__ import annotations

import os

import click

from ..errors import CaptureError
from .options import default_out


@click.command("capture")
@click.option("--pid", "pids", type=click.IntRange(min=1), multiple=True,
              help="Capture only the process trees under this PID (a torchrun agent, an srun step, a rank); repeat it.")
@click.option("--out", type=click.Path(file_okay=False), default=None,
              help="Output folder [default: ~/.local/state/ncclf/capture-<time>, or under $XDG_STATE_HOME]; this "
              "node writes <out>/<host>/.")
@click.option("--host", "host", default=None, help="This node's label (the sub-folder) [default: the host name].")
@click.option("--native", is_flag=True, help="py-spy dump --native (C/C++ frames too; slower).")
@click.option("--timeout", type=click.FloatRange(min=1), default=10.0, show_default=True,
              help="Seconds each py-spy dump may take (the dumps run side by side).")
@click.option("--no-debug-server", is_flag=True, help="Do not look for torch's debug server in the job's store.")
@click.option("--env", "match", metavar="NAME=VALUE", envvar="NCCLF_CAPTURE_ENV", default=None,
              help="Only processes whose environment holds NAME=VALUE (your job on a shared node: "
                   "SLURM_JOB_ID=1234) [env: NCCLF_CAPTURE_ENV].")
@click.option("--user", "users", metavar="USER", multiple=True,
              help="Also capture this user's jobs (a name or a uid; repeat it). By default only your own processes "
                   "are captured; root lists the other users' jobs it saw and leaves them alone.")
def command(pids, out, host, native, timeout, no_debug_server, match, users):
    """Capture a live (hung) job's evidence on this node, read-only towards it.

    Finds the training processes (torch's RANK/WORLD_SIZE in /proc/PID/environ, grouped by job), takes a
    py-spy dump of every rank side by side, flight-recorder dumps where torch offers a trigger (its dump
    pipe, its debug server), copies the files the job writes (NCCL_DEBUG_FILE, torchrun --log-dir, FR
    dumps, console files) and this node's context (kernel lines about the job, nvidia-smi, interfaces,
    an allow-listed environment), with a manifest.json. It never signals or stops the job.

    Multi-node: run it once per node through the launcher with the same --out on a shared folder; each
    node writes <out>/<host>/, and `ncclf diagnose <out>` reads them all.

    \b
    Examples:
      ncclf capture                              # every job on this node
      ncclf capture --pid 4242 --out /tmp/cap    # the job under torchrun pid 4242
      srun --overlap --jobid 1234 --ntasks-per-node=1 ncclf capture --out /shared/cap
    """
    from ..capture.bundle import CaptureOptions, capture
    from ..capture.node import host_label
    from ..outputs.capture_render import render_capture
    from ..outputs.console import make_console

    if match is not None and "=" not in match:
        raise click.BadParameter("expected NAME=VALUE", param_hint="--env")
    out = out or default_out("capture")
    options = CaptureOptions(native=native, timeout_s=timeout, debug_server=not no_debug_server)
    result = capture(pids=list(pids) or None, out=out, host=host, options=options,
                     match=tuple(match.split("=", 1)) if match else None,
                     users={_uid(u) for u in users} | {os.geteuid()} if users else None)
    console = make_console(highlight=False)
    render_capture(result, host_label(host), console)
    manifest = result.bundles[0].path / "manifest.json"
    if not result.ranks_found:
        raise CaptureError(f"no training process found{' under the given PIDs' if pids else ' on this node'}; "
                           f"partial bundle (node context, the reasons) in {manifest}")
    if not result.stacks_taken:
        raise CaptureError(f"no stack of any rank could be taken (see the failures above); partial bundle in "
                           f"{manifest}")
    console.print(f"next: ncclf diagnose {out}", highlight=False, soft_wrap=True)
    return 0


def _uid(user: str) -> int:
    if user.isdigit():
        return int(user)
    import pwd
    try:
        return pwd.getpwnam(user).pw_uid
    except KeyError:
        raise click.BadParameter(f"no such user: {user}", param_hint="--user") from None
