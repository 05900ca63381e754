"""Never a false all-clear: a missing, unreadable, refused or truncated rank is reported and is a suspect; a
parser or detector that raises costs only its own part of the diagnosis."""
from __future__ import annotations

import gzip
import json
import os
import pickle
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner

import nccl_forensics.detectors as detectors
import nccl_forensics.sources as sources_pkg
from nccl_forensics.cli import cli
from nccl_forensics.errors import EXIT_FOUND, EXIT_INCONCLUSIVE
from nccl_forensics.pipeline.reduce import diagnose

ROOT = Path(__file__).resolve().parents[2]
BUNDLES = ROOT / "sample_logs" / "bundles"
FR_HEALTHY = ROOT / "sample_logs" / "flight_recorder" / "gloo_healthy"


def _copy(bundle: str, tmp_path: Path) -> Path:
    out = tmp_path / bundle
    shutil.copytree(BUNDLES / bundle, out)
    (out / "expected.json").unlink(missing_ok=True)
    return out


def _rank_file(folder: Path, rank: int) -> Path:
    (path,) = folder.glob(f"*rank{rank}.*")
    return path


def _invoke(args, **kw):
    return CliRunner().invoke(cli, ["diagnose", *map(str, args), "-j", "1"], standalone_mode=False,
                              catch_exceptions=False, **kw)


def _json(args) -> tuple[int, dict]:
    result = _invoke([*args, "--format", "json"])
    return result.return_value, json.loads(result.output)


def test_a_deleted_rank_is_the_suspect_not_an_all_clear(tmp_path):
    bundle = _copy("stopped-rank-nccl", tmp_path)
    _rank_file(bundle, 6).unlink()
    code, doc = _json([bundle])
    assert code == EXIT_FOUND
    assert doc["verdict"]["class"] in ("stuck_rank", "dropped_rank") and doc["verdict"]["culprit_ranks"] == [6]
    assert [m["rank"] for m in doc["missing_ranks"]] == [6] and doc["missing_ranks"][0]["reason"] == "no evidence"
    assert doc["world"]["size"] == 8 and 6 not in doc["world"]["present"]
    assert "nranks 8" in doc["missing_ranks"][0]["detail"]


def test_a_deleted_rank_of_a_healthy_looking_job_is_still_named(tmp_path):
    bundle = _copy("healthy-nccl", tmp_path)
    _rank_file(bundle, 3).unlink()
    code, doc = _json([bundle])
    assert code != 0 and doc["verdict"]["class"] != "none"
    assert 3 in doc["verdict"]["culprit_ranks"]


def test_a_truncated_gzip_is_an_evidence_gap_not_a_stopped_rank(tmp_path):
    bundle = _copy("healthy-nccl", tmp_path)
    log = _rank_file(bundle, 2)
    data = gzip.compress(log.read_bytes())
    log.unlink()
    (bundle / (log.name + ".gz")).write_bytes(data[: len(data) // 3])
    code, doc = _json([bundle])
    assert code == EXIT_INCONCLUSIVE and doc["verdict"]["class"] == "inconclusive"
    assert not any(f["class"] == "stuck_rank" and f["ranks"] == [2] for f in doc["findings"])
    (gap,) = doc["missing_ranks"]
    assert gap["rank"] == 2 and gap["reason"] == "truncated" and gap["files"][0].endswith(".gz")


def _evil_dump(path: Path) -> None:
    class Evil:
        def __reduce__(self):
            return (os.system, ("echo pwned",))
    path.write_bytes(pickle.dumps({"version": "2.10", "entries": [Evil()]}, protocol=4))


def test_a_refused_dump_is_shown_and_its_rank_is_a_suspect(tmp_path):
    folder = tmp_path / "fr"
    shutil.copytree(FR_HEALTHY, folder)
    _evil_dump(folder / "comm_lib_trace_rank_1")
    code, doc = _json([folder])
    assert code != 0 and doc["verdict"]["class"] not in ("none",)
    assert 1 in doc["verdict"]["culprit_ranks"]
    (gap,) = doc["missing_ranks"]
    assert gap["rank"] == 1 and gap["reason"] == "refused" and "refused to unpickle" in gap["detail"]


def test_an_unreadable_file_is_a_gap_of_its_rank(tmp_path, monkeypatch):
    """As root every file is readable: the read error is injected where the file is opened."""
    bundle = _copy("healthy-nccl", tmp_path)
    locked = _rank_file(bundle, 5)
    real = sources_pkg.discover.read_head_gzip

    def read_head(path, size=8192):
        if Path(path) == locked:
            from nccl_forensics.errors import BadInput
            raise BadInput(f"{path}: cannot read (Permission denied)")
        return real(path, size)

    monkeypatch.setattr(sources_pkg.discover, "read_head_gzip", read_head)
    d = diagnose([str(bundle)], jobs=1)
    assert d.verdict.cls != "none" and 5 in d.verdict.culprit_ranks
    assert d.world.gaps[5].reason == "unreadable" and str(locked) in d.world.gaps[5].files


NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]


def _as_nobody(argv: list[str], view: Path) -> list[str]:
    """`argv` run as uid 65534. Where the interpreter lives under a folder only root may enter (pyenv in /root),
    a private mount namespace shows that one folder's child through a world-searchable view: nothing else of
    root's becomes visible, and nothing changes outside the command."""
    prefix = Path(os.path.realpath(sys.base_prefix))
    private = next((p for p in [*reversed(prefix.parents), prefix] if p != Path("/") and not os.stat(p).st_mode & 0o001),
                   None)
    if private is None:
        return [*NOBODY, *argv]
    child = prefix.relative_to(private).parts[0]
    (view / child).mkdir(parents=True, exist_ok=True)
    os.chmod(view, 0o755)
    script = (f'mount --bind "{private / child}" "{view / child}" && mount --rbind "{view}" "{private}" && '
              'exec "$@"')
    return ["unshare", "-m", "--propagation", "private", "sh", "-c", script, "sh", *NOBODY, *argv]


def _nobody_cannot_test(tmp: Path) -> str | None:
    if os.geteuid() != 0 or not (shutil.which("setpriv") and shutil.which("unshare")):
        return "needs root, setpriv and unshare to run a command as another user"
    probe = subprocess.run(_as_nobody([sys.executable, "-c", "import nccl_forensics.cli, pandas, lark"], tmp),
                           capture_output=True, text=True)
    return None if probe.returncode == 0 else f"uid 65534 cannot run this interpreter: {probe.stderr.strip()[-200:]}"


@pytest.fixture
def shared_tmp():
    """A temporary folder another user can enter (pytest's own lives under a folder only root may enter)."""
    with tempfile.TemporaryDirectory(prefix="ncclf-nobody-") as path:
        os.chmod(path, 0o755)
        yield Path(path)


def test_a_file_another_user_cannot_read_is_reported_for_that_user(shared_tmp):
    why = _nobody_cannot_test(shared_tmp / "probe-view")
    if why:
        pytest.skip(why)
    bundle = _copy("healthy-nccl", shared_tmp)
    for p in [bundle, *bundle.iterdir()]:
        os.chmod(p, 0o755 if p.is_dir() else 0o644)
    os.chmod(_rank_file(bundle, 5), 0)
    argv = [sys.executable, "-m", "nccl_forensics", "diagnose", str(bundle), "--format", "json", "-j", "1"]
    run = subprocess.run(_as_nobody(argv, shared_tmp / "view"), capture_output=True, text=True)
    doc = json.loads(run.stdout)
    assert run.returncode != 0 and doc["verdict"]["class"] != "none"
    assert [m["rank"] for m in doc["missing_ranks"]] == [5] and doc["missing_ranks"][0]["reason"] == "unreadable"


def test_a_raising_detector_becomes_a_warning_and_the_verdict_stands(monkeypatch):
    real = detectors.detector_class

    class Broken:
        needs = ()

        def check(self, ctx):
            raise AttributeError("'NoneType' object has no attribute 'evidence'")

    monkeypatch.setattr(detectors, "detector_class", lambda e: Broken if e.code == "T601" else real(e))
    d = diagnose([str(BUNDLES / "dtype-mismatch-nccl")], jobs=1)
    assert d.verdict.cls == "dtype_mismatch" and d.verdict.culprit_ranks == [2]
    assert d.warnings == ["internal error in detector T601 timeout-unknown (AttributeError: 'NoneType' object has no "
                          "attribute 'evidence'), please report"]


def test_a_raising_parser_costs_its_file_only(monkeypatch, tmp_path):
    bundle = _copy("stopped-rank-nccl", tmp_path)
    broken = _rank_file(bundle, 3)
    real = sources_pkg.iter_records

    def iter_records(source, stats=None, **options):
        if Path(source.path) == broken:
            raise KeyError("boom")
        return real(source, stats, **options)

    monkeypatch.setattr(sources_pkg, "iter_records", iter_records)
    d = diagnose([str(bundle)], jobs=1)
    assert d.verdict.cls == "stuck_rank" and 6 in d.verdict.culprit_ranks
    assert len(d.warnings) == 1 and "internal error while parsing" in d.warnings[0] and "KeyError" in d.warnings[0]
    assert 3 in d.world.gaps


def test_a_raising_detector_keeps_the_cli_exit_code_of_the_verdict(monkeypatch):
    real = detectors.detector_class

    class Broken:
        needs = ()

        def check(self, ctx):
            raise RuntimeError("bug")

    monkeypatch.setattr(detectors, "detector_class", lambda e: Broken if e.code == "V501" else real(e))
    code, doc = _json([BUNDLES / "dtype-mismatch-nccl"])
    assert code == EXIT_FOUND and doc["verdict"]["class"] == "dtype_mismatch"
    assert doc["warnings"] and "V501" in doc["warnings"][0]


def test_the_terminal_report_names_the_missing_rank(tmp_path):
    bundle = _copy("stopped-rank-nccl", tmp_path)
    _rank_file(bundle, 6).unlink()
    result = _invoke([bundle], env={"COLUMNS": "200"})
    assert "missing: rank 6: no evidence" in result.output


def test_the_terminal_report_of_an_inconclusive_run_says_so(tmp_path):
    bundle = _copy("healthy-nccl", tmp_path)
    log = _rank_file(bundle, 2)
    data = gzip.compress(log.read_bytes())
    log.unlink()
    (bundle / (log.name + ".gz")).write_bytes(data[: len(data) // 3])
    result = _invoke([bundle], env={"COLUMNS": "200"})
    assert result.return_value == EXIT_INCONCLUSIVE
    assert "ncclf diagnose: inconclusive" in result.output and "no hang or failure found" not in result.output
