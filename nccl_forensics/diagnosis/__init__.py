"""Analysis: the evidence of many files, lined up and compared. Imports no detector and no pipeline.

- `timeline.py`: per-communicator collective timelines (`Timelines`), `divergence.py`: where ranks part,
  `arrivals.py`: who came late and by how much, `world.py`: the expected ranks, `groups.py`: communicator
  memberships, `fr_semantics.py`: flight-recorder entries, `rank_state.py`: what each rank was last seen
  doing, `verdict.py`: findings -> one `Verdict`.

`diagnose(paths)` (map, reduce, detectors) lives in `pipeline/reduce.py`; `nccl_forensics.diagnose` is the
public name.
"""
