"""One pasted console's verdict: the helper every verdict test built from a real paste or a source-mined message uses.

A console that shows progress before the failure is what a user pastes; `progress=""` leaves it out.
"""
from __future__ import annotations

from nccl_forensics.pipeline.reduce import diagnose

PROGRESS = "Epoch 1: loss 0.53\nstep 100/1000 loss 0.41\n"


def console_verdict(tmp_path, text: str, progress: str = PROGRESS):
    """Diagnose `text` as the one console of a job, behind `progress`."""
    (tmp_path / "console.log").write_text(progress + text + "\n", encoding="utf-8")
    return diagnose([str(tmp_path)], jobs=1).verdict


def check_case(tmp_path, case: tuple) -> None:
    """A set's case `(text, accepted classes, culprit ranks or None)`: the console's verdict is one of the classes,
    and names those culprits where the case gives them."""
    text, accept, culprits = case
    verdict = console_verdict(tmp_path, text)
    assert verdict.cls in accept, verdict.summary
    if culprits is not None:
        assert verdict.culprit_ranks == culprits, verdict.summary
