"""One pasted console's verdict: the helper every verdict test built from a real paste or a source-mined message uses.

A console that shows progress before the failure is what a user pastes; `progress=""` leaves it out.
"""
from __future__ import annotations

import signal

from nccl_forensics.pipeline.reduce import diagnose

PROGRESS = "Epoch 1: loss 0.53\nstep 100/1000 loss 0.41\n"


def console_verdict(tmp_path, text: str, progress: str = PROGRESS):
    """Diagnose `text` as the one console of a job, behind `progress`."""
    (tmp_path / "console.log").write_text(progress + text + "\n", encoding="utf-8")
    return diagnose([str(tmp_path)], jobs=1).verdict


def check_case(tmp_path, case: tuple, progress: str = PROGRESS) -> None:
    """A set's case `(text, accepted classes, culprit ranks or None)`: the console's verdict is one of the classes,
    and names those culprits where the case gives them."""
    text, accept, culprits = case
    verdict = console_verdict(tmp_path, text, progress)
    assert verdict.cls in accept, verdict.summary
    if culprits is not None:
        assert verdict.culprit_ranks == culprits, verdict.summary


# the table's traceback of a worker that exited with an error code and wrote no error file (no @record)
NO_TRACEBACK = "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html"


def failure_table(script: str, time: str, host: str, rank: int, local_rank: int, exitcode: int, pid: int,
                  traceback: str | None = None, width: int = 60, end: str = "") -> str:
    """torchrun's ChildFailedError report of one failed worker, as the launcher prints it (2.0+); `traceback` is by
    default the line of a worker a signal killed."""
    if traceback is None:
        traceback = f"Signal {-exitcode} ({signal.Signals(-exitcode).name}) received by PID {pid}"
    rule, line = "=" * width, "-" * width
    return (f"torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n{rule}\n{script} FAILED\n{line}\n"
            f"Failures:\n  <NO_OTHER_FAILURES>\n{line}\nRoot Cause (first observed failure):\n[0]:\n"
            f"  time      : {time}\n  host      : {host}\n  rank      : {rank} (local_rank: {local_rank})\n"
            f"  exitcode  : {exitcode} (pid: {pid})\n  error_file: <N/A>\n  traceback : {traceback}\n{rule}{end}")


def per_rank(text: str, ranks: list[int], sep: str = " ") -> str:
    """`text` as each of `ranks` in turn writes it behind torchrun's `[rankN]:` prefix (with `sep` after the colon);
    the whole ends in a newline where `text` does."""
    lines = [f"[rank{rank}]:{sep}{line}" for rank in ranks for line in text.splitlines()]
    return "\n".join(lines) + ("\n" if text.endswith("\n") else "")


def checkpoint_exception(traceback: str, ranks: list[int]) -> str:
    """DCP's CheckpointException of `ranks` that each failed with `traceback`, as every rank re-raises it."""
    failures = "".join(f"Traceback (most recent call last): (RANK {rank})\n{traceback}" for rank in ranks)
    return (f"torch.distributed.checkpoint.api.CheckpointException: CheckpointException ranks:dict_keys({ranks})\n"
            f"{failures}")


def torchrun_traceback(site: str = "/opt/conda/lib/python3.11/site-packages", bin_dir: str = "/opt/conda/bin") -> str:
    """The launcher's own traceback up to the ChildFailedError that `failure_table` reports (2.0+)."""
    return (f'Traceback (most recent call last):\n  File "{bin_dir}/torchrun", line 8, in <module>\n'
            f'    sys.exit(main())\n'
            f'  File "{site}/torch/distributed/elastic/multiprocessing/errors/__init__.py", line 355, in wrapper\n'
            f'    return f(*args, **kwargs)\n'
            f'  File "{site}/torch/distributed/launcher/api.py", line 263, in launch_agent\n'
            f'    raise ChildFailedError(\n')
