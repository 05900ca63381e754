"""Every sample bundle with an expected.json gets the right class and culprit; missing evidence degrades
gracefully (a verdict still comes out when any one kind of source is removed)."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from nccl_forensics.model import Confidence
from nccl_forensics.pipeline.reduce import diagnose, diagnose_events

from . import factories as F

ROOT = Path(__file__).resolve().parents[2] / "sample_logs" / "bundles"


def _expectations() -> list[tuple[str, str, list[int] | None]]:
    """(bundle dir, class, culprits or None) from `<bundle>/expected.json` and `<bundle>.repro.json`."""
    out = []
    if not ROOT.exists():
        return out
    for path in sorted(ROOT.glob("**/expected.json")):
        want = json.loads(path.read_text())
        out.append((str(path.parent), want["class"], want.get("culprit_ranks")))
    for path in sorted(ROOT.glob("*.repro.json")):
        want = json.loads(path.read_text())
        bundle = path.with_name(path.name[: -len(".repro.json")])
        if bundle.is_dir() and "expected_class" in want:
            culprits = want.get("culprit_ranks") if want.get("culprit_ranks") else None
            out.append((str(bundle), want["expected_class"], culprits))
    return out


EXPECTED = _expectations()
_RANK = {Confidence.HIGH: 0, Confidence.MEDIUM: 1, Confidence.LOW: 2}


@pytest.mark.skipif(not EXPECTED, reason="no sample bundles yet")
@pytest.mark.parametrize("bundle,cls,culprits", EXPECTED, ids=[Path(e[0]).name for e in EXPECTED])
def test_sample_bundle(bundle, cls, culprits):
    d = diagnose([bundle], jobs=1)
    assert d.verdict.cls == cls
    if culprits is not None and cls not in ("timeout_unknown", "none"):
        assert d.verdict.culprit_ranks == sorted(culprits)


def _full_dropped_rank_bundle():
    """gloo job, rank 2 SIGKILLed: FR dumps, torchrun summary, tracebacks, py-spy of survivors, dmesg-free."""
    return (F.fr_job(nranks=4, entries=20, diverge_rank=2, stop_at=15, backend="gloo")
            + [F.child_failed(2, -9, "SIGKILL")] + [F.child_failed(r, 1, root_cause=r == 0) for r in (0, 1, 3)]
            + [F.gloo_error(r, "connection_closed", peer="127.0.0.1:29500") for r in (0, 1, 3)]
            + [F.pyspy_thread(r, F.IN_ALLREDUCE) for r in (0, 1, 3)])


def _full_stuck_bundle():
    return (F.fr_job(nranks=4, entries=20, diverge_rank=3, stop_at=19)
            + [F.pyspy_thread(r, F.IN_ALLREDUCE) for r in range(3)]
            + [F.pyspy_thread(3, F.BUSY_LOADING, state="active")]
            + [F.gloo_error(r, "timeout", timeout_ms=30000, op="recv") for r in range(3)]
            + [F.child_failed(r, 1) for r in range(3)] + [F.child_failed(3, -15, "SIGTERM")])


def _full_dtype_bundle():
    return (F.fr_job(nranks=4, diverge_rank=1, field="dtype", value="float64", backend="gloo")
            + [F.gloo_error(0, "size_mismatch", expected=4096, received=8192), F.child_failed(0, -6, "SIGABRT")]
            + [F.gloo_error(r, "connection_closed", peer="127.0.0.1:29500") for r in (1, 2, 3)]
            + [F.child_failed(r, 1) for r in (1, 2, 3)])


BUNDLES = {"dropped": (_full_dropped_rank_bundle, "dropped_rank", [2]),
           "stuck": (_full_stuck_bundle, "stuck_rank", [3]),
           "dtype": (_full_dtype_bundle, "dtype_mismatch", [1])}


@pytest.mark.parametrize("name", sorted(BUNDLES))
def test_removing_any_one_source_still_gives_a_verdict(name):
    make, cls, culprits = BUNDLES[name]
    full = diagnose_events(make())
    assert full.verdict.cls == cls and full.verdict.culprit_ranks == culprits
    for source in sorted({e.source for e in make()}):
        d = diagnose_events([e for e in make() if e.source != source])
        assert d.verdict.cls != "none", f"without {source}"
        assert _RANK[d.verdict.confidence] >= _RANK[full.verdict.confidence], f"without {source}"
        if d.verdict.cls == cls:
            assert d.verdict.culprit_ranks == culprits, f"without {source}"


def test_flight_recorder_dumps_alone_on_disk(tmp_path):
    fr_synth = pytest.importorskip("benchmarks.fr_synth")
    fr_synth.make_dumps(tmp_path / "gloo", ranks=4, entries=50, diverge_rank=2, backend="gloo", mode="dtype")
    d = diagnose([str(tmp_path / "gloo")], jobs=1)
    assert d.verdict.cls == "dtype_mismatch" and d.verdict.culprit_ranks == [2]


def test_subset_of_dumps_and_wrapped_buffers(tmp_path):
    fr_synth = pytest.importorskip("benchmarks.fr_synth")
    fr_synth.make_dumps(tmp_path, ranks=6, entries=40, diverge_rank=4, mode="op", start_record_id=3000)
    for rank in (0, 1):
        (tmp_path / f"{fr_synth.PREFIX}{rank}").unlink()
    d = diagnose([str(tmp_path)], jobs=1)
    assert d.verdict.cls == "op_mismatch" and d.verdict.culprit_ranks == [4]


@pytest.mark.skipif(not (ROOT / "healthy-nccl").exists(), reason="no healthy bundle yet")
def test_healthy_bundle_is_none(tmp_path):
    shutil.copytree(ROOT / "healthy-nccl", tmp_path / "b")
    d = diagnose([str(tmp_path / "b")], jobs=1)
    assert d.verdict.cls == "none" and not d.failed
