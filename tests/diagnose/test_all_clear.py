"""An all-clear is a claim (issue 30): `none` needs positive evidence of health; every path that once gave a false
"no failure" on a visibly failed job gives the failure or `inconclusive`."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from nccl_forensics.pipeline.reduce import diagnose

ROOT = Path(__file__).resolve().parents[2]
BUNDLES = ROOT / "sample_logs" / "bundles"
needs_bundles = pytest.mark.skipif(not (BUNDLES / "real-stuck-rank").exists(), reason="no sample bundles")


def _verdict(*paths):
    return diagnose([str(p) for p in paths], jobs=1).verdict


@needs_bundles
def test_pyspy_alone_names_the_stuck_rank():
    v = _verdict(BUNDLES / "real-stuck-rank" / "pyspy")
    assert (v.cls, v.culprit_ranks) == ("stuck_rank", [1])


@needs_bundles
def test_a_rank_that_entered_after_the_timeout_is_its_cause():
    v = _verdict(BUNDLES / "real-timeout")
    assert (v.cls, v.culprit_ranks) == ("stuck_rank", [1])
    assert 1 not in v.cascade_ranks and "later than the 5 s timeout" in v.summary


@needs_bundles
@pytest.mark.parametrize("bundle", ["healthy-nccl", "real-healthy"])
def test_healthy_bundles_show_their_health(bundle):
    v = _verdict(BUNDLES / bundle)
    assert v.cls == "none" and "H001" in v.reason and "shows health" in v.summary


@needs_bundles
def test_a_fragment_of_a_healthy_job_is_inconclusive(tmp_path):
    """Rank 6's log deleted from a healthy 8-rank job: nothing shows rank 6 was healthy."""
    shutil.copytree(BUNDLES / "healthy-nccl", tmp_path / "b")
    next((tmp_path / "b").glob("nccl.rank6.*")).unlink()
    v = _verdict(tmp_path / "b")
    assert v.cls == "inconclusive" and "why not none: no usable evidence from rank 6 (no evidence)" in v.summary


def test_a_communicators_end_lines_state_its_size(tmp_path):
    """A log cut to its `Destroy COMPLETE` lines: their `nranks` states the world as an init line's does, so every
    rank of it shows health, and one rank's end alone does not cover it."""
    line = "node:{pid}:{pid} [{rank}] NCCL INFO comm 0x55c1ef4a{rank}400 rank {rank} nranks 2 cudaDev {rank} busId " \
           "3c000 - Destroy COMPLETE\n"
    (tmp_path / "console.log").write_text(line.format(pid=100, rank=0) + line.format(pid=101, rank=1))
    assert _verdict(tmp_path).cls == "none"
    (tmp_path / "console.log").write_text(line.format(pid=100, rank=0))
    v = _verdict(tmp_path)
    assert v.cls == "inconclusive" and "rank 1" in v.summary


@needs_bundles
def test_an_unreadable_file_removes_only_its_own_evidence(tmp_path):
    """Rank 1's py-spy dump unreadable: the verdict is what the other files give (as if the file were absent),
    with the read error beside it."""
    shutil.copytree(BUNDLES / "real-stuck-rank", tmp_path / "b")
    dump = next((tmp_path / "b" / "pyspy").glob("rank1*"))
    gone = _verdict(*(p for p in (tmp_path / "b").iterdir() if p.name != "pyspy"), tmp_path / "b" / "pyspy" /
                    next((tmp_path / "b" / "pyspy").glob("rank0*")).name)
    dump.write_bytes(os.urandom(300))
    corrupt = diagnose([str(tmp_path / "b")], jobs=1)
    assert (corrupt.verdict.cls, corrupt.verdict.culprit_ranks) == (gone.cls, gone.culprit_ranks) == ("stuck_rank", [1])


@needs_bundles
@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("setpriv"), reason="needs root and setpriv")
def test_a_file_another_user_cannot_read_is_a_gap_not_a_weaker_verdict():
    import tempfile
    top = Path(tempfile.mkdtemp(prefix="ncclf-gap-"))
    work = top / "b"
    shutil.copytree(BUNDLES / "real-stuck-rank", work)
    for path in [top, *work.rglob("*"), work]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    next((work / "pyspy").glob("rank1*")).chmod(0o600)
    import resource

    def capped():
        resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))

    proc = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", sys.executable, "-m",
                           "nccl_forensics", "diagnose", str(work), "-j", "1", "--format", "json"],
                          capture_output=True, text=True, timeout=300, preexec_fn=capped,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    import json
    shutil.rmtree(top)
    out = json.loads(proc.stdout)
    assert proc.returncode == 1 and out["verdict"]["class"] == "stuck_rank" and out["verdict"]["culprit_ranks"] == [1]
    assert any("Permission denied" in e for e in out["errors"])


def test_a_cpp_terminate_and_a_signal_block_are_a_failure(tmp_path):
    (tmp_path / "console.log").write_text(
        "step 10 loss 2.31\n"
        "terminate called after throwing an instance of 'std::runtime_error'\n"
        "  what():  NCCL failure: unhandled cuda error\n"
        "[node1:12345] *** Process received signal ***\n"
        "[node1:12345] Signal: Aborted (6)\n"
        "[node1:12345] *** End of error message ***\n")
    v = _verdict(tmp_path)
    assert v.cls not in ("none", "inconclusive")


@needs_bundles
def test_one_unlabelled_dump_does_not_cover_a_larger_world(tmp_path):
    shutil.copy(next((BUNDLES / "real-stuck-rank" / "pyspy").glob("rank1*")), tmp_path / "dump.txt")
    (tmp_path / "nccl.log").write_text(
        "h:1:1 [0] NCCL INFO comm 0x55 rank 0 nranks 32 cudaDev 0 busId 1000 - Init COMPLETE\n")
    v = _verdict(tmp_path)
    assert v.cls == "inconclusive" and "ranks 1-31 (no evidence)" in v.summary


def test_a_broken_detector_is_never_an_all_clear(monkeypatch):
    from nccl_forensics.detectors.dtype_mismatch import DtypeMismatch
    from nccl_forensics.pipeline.reduce import diagnose_events

    from . import factories as F

    def broken(self, ctx):
        raise RuntimeError("boom")

    monkeypatch.setattr(DtypeMismatch, "check", broken)
    d = diagnose_events(F.nccl_job(nranks=4))
    assert d.verdict.cls == "inconclusive" and "internal error" in d.verdict.summary


def _failing_bundles():
    import json
    out = []
    for path in sorted(BUNDLES.glob("*.repro.json")) + sorted(BUNDLES.glob("*/expected.json")):
        want = json.loads(path.read_text())
        cls = want.get("expected_class") or want.get("class")
        bundle = path.with_name(path.name[: -len(".repro.json")]) if path.name.endswith(".repro.json") else path.parent
        if cls not in (None, "none", "inconclusive") and bundle.is_dir():
            out.append(bundle)
    return out


@needs_bundles
@pytest.mark.slow
@pytest.mark.parametrize("bundle", _failing_bundles(), ids=lambda p: p.name)
def test_no_single_file_removed_or_garbled_gives_an_all_clear(bundle, tmp_path):
    """For every failing sample bundle: removing any one file, or replacing it with garbage, never yields `none`,
    and garbage never weakens a failure found without the file to `inconclusive` (a gap stays a gap; which rank a
    damaged bundle blames may differ, as the evidence left differs: a corrupt file still says its rank exists)."""
    files = sorted(p.relative_to(bundle) for p in bundle.rglob("*") if p.is_file() and p.name != "expected.json")
    for rel in files:
        work = tmp_path / rel.as_posix().replace("/", "__")
        shutil.copytree(bundle, work)
        (work / rel).unlink()
        removed = diagnose([str(work)], jobs=1).verdict
        assert removed.cls != "none", f"{bundle.name} without {rel}: none"
        (work / rel).write_bytes(os.urandom(512))
        garbled = diagnose([str(work)], jobs=1).verdict
        assert garbled.cls != "none", f"{bundle.name} with {rel} garbled: none"
        if removed.cls != "inconclusive":
            assert garbled.cls != "inconclusive", \
                f"{bundle.name} with {rel} garbled: inconclusive, where without it: {removed.cls}"
        shutil.rmtree(work)
