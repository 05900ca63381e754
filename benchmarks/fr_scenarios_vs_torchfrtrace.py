"""ncclf and PyTorch's own analyzer (`torchfrtrace`) on the same flight-recorder scenarios, side by side.

Usage:  python benchmarks/fr_scenarios_vs_torchfrtrace.py [--keep DIR]

Each scenario of tests/diagnose/test_fr_scenarios.py is written as torch 2.13 dumps; both tools read them. For
torchfrtrace, "right" means: it crashes not, and for a failure it names the expected (group, seq) as a problem
(a "has errors" / "not all ranks joining" / "mismatch" report), for a healthy job it reports none. ncclf is
right when class, culprits, group and seq are the expected ones. Where torchfrtrace is right, ncclf must name the
same group and seq (the acceptance of issue 16).
"""
from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from nccl_forensics.pipeline.reduce import diagnose  # noqa: E402
from tests.diagnose.test_fr_scenarios import SCENARIOS  # noqa: E402

_HEAD = re.compile(r"(?:Collective sequence number: (\d+) has errors|Not all ranks joining collective[,:] sequence "
                   r"number: (\d+)|Input/output mismatch in the collective sequence number: (\d+))")
_GROUP = re.compile(r"group info: (\S+?):")


def torchfrtrace(folder: Path) -> tuple[str, list[tuple[str, int]]]:
    """("ok" | "crash" | "timeout", [(group, seq) it reports])."""
    try:
        run = subprocess.run([sys.executable, "-m", "torch.distributed.flight_recorder.fr_trace",
                              "--allow-incomplete-ranks", str(folder)], capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired:
        return "timeout", []
    out = run.stdout + run.stderr
    if run.returncode != 0 or "Traceback" in out:
        return "crash", []
    found, lines = [], out.splitlines()
    for i, line in enumerate(lines):
        m = _HEAD.search(line)
        if m:
            seq = int(next(g for g in m.groups() if g))
            group = next((g.group(1) for g in map(_GROUP.search, lines[i + 1:i + 4]) if g), "?")
            found.append((group, seq))
    return "ok", found


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--keep", type=Path, help="write the scenario dumps here and keep them")
    args = ap.parse_args()
    base = args.keep or Path(tempfile.mkdtemp(prefix="fr-scenarios-"))
    rows, ncclf_right, tft_right, agree_where_tft_right, tft_right_n = [], 0, 0, 0, 0
    for name, (build, cls, culprits, group, seq, skip) in sorted(SCENARIOS.items()):
        folder = build(base / name).write(base / name / "fr", skip=skip)
        v = diagnose([str(folder)], jobs=1).verdict
        mine = (v.primary.group, v.primary.seq) if v.primary else (None, None)
        ok = (v.cls, v.culprit_ranks) == (cls, culprits) and (group is None or mine == (group, seq))
        status, reports = torchfrtrace(folder)
        if cls == "none":
            tft_ok = status == "ok" and not reports
        else:
            tft_ok = status == "ok" and (group is None and bool(reports) or (group, seq) in reports)
        ncclf_right += ok
        tft_right += tft_ok
        if tft_ok and group is not None:
            tft_right_n += 1
            agree_where_tft_right += mine == (group, seq)
        rows.append((name, "right" if ok else "WRONG", f"{v.cls} {v.culprit_ranks} {mine}",
                     f"{status} {reports[:2]}", "right" if tft_ok else "wrong"))
    width = max(len(r[0]) for r in rows)
    print(f"{'scenario':{width}}  ncclf  {'ncclf says':46}  torchfrtrace")
    for name, ok, says, tft, tft_ok in rows:
        print(f"{name:{width}}  {ok:5}  {says:46}  {tft_ok:5}  {tft}")
    print(f"\nncclf right on {ncclf_right}/{len(rows)}; torchfrtrace right on {tft_right}/{len(rows)}; where "
          f"torchfrtrace names the right (group, seq), ncclf names the same on {agree_where_tft_right}/{tft_right_n}")


if __name__ == "__main__":
    main()
