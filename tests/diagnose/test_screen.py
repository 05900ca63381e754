"""What a user reads fits a screen and survives a pipe (issues 26 item 4, 29 item 3)."""
from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

from rich.console import Console

from nccl_forensics.outputs import diagnosis_json, diagnosis_terminal, markdown_report
from nccl_forensics.outputs.display import message
from nccl_forensics.pipeline.reduce import diagnose

from .fr_jobs import Job
from .fr_large import Fault, MegatronJob

ROOT = Path(__file__).resolve().parents[2]


def _big_job(folder: Path, world: int = 1024, groups: int = 99, culprit: int = 5) -> Path:
    """A default group and `groups` data-parallel groups (rank r in group r % groups + 1); `culprit` never
    enqueues the last all-reduce of its group."""
    layout = {str(k + 1): (f"DATA_PARALLEL_GROUP_{k}", [r for r in range(world) if r % groups == k])
              for k in range(groups)}
    job = Job(world, layout)
    for r in job.ranks:
        r.coll("all_reduce", [[1024]])
        pg = str(r.rank % groups + 1)
        r.coll("all_reduce", [[64]], pg=(pg, layout[pg][0]))
        if r.rank != culprit:
            r.coll("all_reduce", [[64]], pg=(pg, layout[pg][0]), state="scheduled")
    return job.write(folder)


def _text(d, width=120) -> str:
    buf = io.StringIO()
    diagnosis_terminal.render(d, Console(file=buf, width=width, color_system=None, force_terminal=False))
    return buf.getvalue()


def test_a_1024_rank_100_group_verdict_fits_a_screen_and_the_json_keeps_everything(tmp_path):
    d = diagnose([str(_big_job(tmp_path / "dumps"))], jobs=1)
    text = _text(d)
    assert d.verdict.culprit_ranks == [5]
    assert len(text.splitlines()) <= 40, text
    assert "group 6 (DATA_PARALLEL_GROUP_5, 11 ranks)" in text     # the group that explains it, by its pg_desc
    assert "99 other groups: every member at the same point" in text
    assert "1023 more ranks not shown (--format json lists every rank)" in text.splitlines(), text   # one line
    doc = json.loads(diagnosis_json.render(d))
    assert len(doc["groups"]) == 100 and len(doc["ranks"]) == 1024
    assert [g["name"] for g in doc["groups"]][:12] == [str(i) for i in range(12)]     # numeric, not 0, 1, 10
    md = markdown_report.render(d)
    assert len(md.splitlines()) <= 80, md
    walk = md.split("## Diagnostic walk")[1].split("## ")[0]
    assert "| 6 (DATA_PARALLEL_GROUP_5) | 11 (" in walk and "99 other groups: every member at the same point." in walk


def test_groups_sort_numerically_and_p2p_only_groups_are_not_missing(tmp_path):
    layout = {"2": ("PIPELINE", [0, 1]), "10": ("TENSOR", [0, 1])}
    job = Job(2, layout)
    for r in job.ranks:
        r.coll("all_reduce", [[8]])
        r.coll("all_reduce", [[8]], pg=("10", "TENSOR"))
    job.rank(0).p2p("send", 1, [4], pg=("2", "PIPELINE"))
    job.rank(1).p2p("recv", 0, [4], pg=("2", "PIPELINE"))
    d = diagnose([str(job.write(tmp_path / "d"))], jobs=1)
    assert [g["name"] for g in diagnosis_json.groups_of(d)] == ["0", "2", "10"]
    text = _text(d)
    assert ":missing" not in text and "group 2 (PIPELINE, 2 ranks): no collective recorded" in text, text
    assert "at in all 2 groups" in text
    md = markdown_report.render(d)
    table = md.split("## Diagnostic walk")[1].split("## ")[0]
    assert "| 2 (PIPELINE) | 2 (0-1) | none (no collective recorded) | - | - | - |" in table, table


def test_a_megatron_verdict_names_groups_by_their_desc_and_counts_the_quiet_ones_truly(tmp_path):
    """64 ranks (TP 4 x PP 4 x DP 4, EP 2), rank 21 stuck, dumps of active entries only: the groups are named as
    Megatron names them (text, Markdown, JSON), the groups left with no collective are not said to be "at the same
    point", and each finding's evidence says whose it is."""
    job = MegatronJob(tp=4, pp=4, dp=4, ep=2).run(2, {21: Fault("stuck", step=1, at=3)})
    d = diagnose([str(job.write(tmp_path / "fr", only_active=True))], jobs=1)
    assert d.verdict.culprit_ranks == [21]
    text = _text(d)
    lines = [line for line in text.splitlines() if "last common collective" in line]
    assert "group 6 (TENSOR_MODEL_PARALLEL_GROUP, 4 ranks): seq 8" in lines[0], text     # the verdict's group first
    assert any("(EXPERT_MODEL_PARALLEL_GROUP, 2 ranks)" in line for line in lines), text
    assert "with no collective recorded" in text and "every member at the same point" not in text, text
    assert "R203 missing-rank: rank 21\n" in text, text
    assert text.count("py-spy dumps") == 1, text          # the confidence line names what is missing, once
    md = markdown_report.render(d)
    assert md.split("## Summary")[1].split("## ")[0].count("group 6") == 1      # its place said once
    table = md.split("## Diagnostic walk")[1].split("## ")[0]
    assert table.index("| 6 (TENSOR_MODEL_PARALLEL_GROUP) |") < table.index("| 5 (TENSOR_MODEL_PARALLEL_GROUP) |")
    groups = {g["name"]: g for g in json.loads(diagnosis_json.render(d))["groups"]}
    assert (groups["0"]["desc"], groups["0"]["size"]) == ("default_pg", 64)
    assert (groups["6"]["desc"], groups["6"]["size"]) == ("TENSOR_MODEL_PARALLEL_GROUP", None)


def test_a_mismatch_cites_the_culprits_own_dtype_and_count(tmp_path):
    """C101-C103 cite the culprit's entry with what it recorded (the dumps are read without text): `dtype=float64`
    beside the others' `dtype=float32`, not `seq 2 allreduce` alone."""
    job = Job(4, {})
    for r in job.ranks:
        r.coll("all_reduce", [[8]])
        r.coll("all_reduce", [[1024]], dtype="Double" if r.rank == 2 else "Float")
    d = diagnose([str(job.write(tmp_path / "d"))], jobs=1)
    assert d.verdict.culprit_ranks == [2]
    mine, theirs = d.verdict.primary.evidence[:2]
    assert "numel=1024 dtype=float64" in mine.text and "dtype=float32" in theirs.text, (mine, theirs)
    [first] = [line for line in markdown_report.render(d).splitlines() if line.startswith("- rank 2: group 0")]
    assert first.endswith("entry 2`"), first                  # the entry has no text to quote: no dangling ': '


def test_a_stuck_rank_message_says_how_far_the_others_went_only_when_further(tmp_path):
    """The others wait in the seq the stuck rank never joined: `(they went on to 28)` after `never joined seq 28`
    says nothing; it is said only where they got further."""
    job = Job(4, {})
    for r in job.ranks:
        for _ in range(3):
            r.coll("all_reduce", [[64]])
        if r.rank != 1:
            r.coll("all_reduce", [[64]], state="started")
    d = diagnose([str(job.write(tmp_path / "d"))], jobs=1)
    [stuck] = [f for f in d.findings if f.id == "R202"]
    assert "never joined seq" in stuck.message and "went on to" not in stuck.message, stuck.message


def test_a_cell_keeps_the_message_and_drops_prefix_and_long_path():
    line = ("[default1]:[rank1]: RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] "
            "Connection closed by peer [127.0.0.1]:50089")
    assert message(line) == "RuntimeError: […/gloo/transport/tcp/pair.cc:553] Connection closed by peer [127.0.0.1]:50089"


def _ncclf(*args, env=None):
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"} | (env or {})
    return subprocess.run([sys.executable, "-m", "nccl_forensics", *args], cwd=ROOT, capture_output=True, check=False,
                          text=True, env=env, timeout=300)


def test_piped_diagnose_shows_the_gloo_message_whole():
    out = _ncclf("diagnose", "sample_logs/bundles/real-timeout").stdout
    assert "Timed out waiting 5000ms for recv operation to complete" in out
    assert "[…/gloo/transport/tcp/unbound_buffer.cc:78]" in out
    assert "[default0]:" not in out and "/__w/pytorch" not in out.replace("sample_logs", "")


def test_piped_output_uses_columns_when_set():
    out = _ncclf("diagnose", "sample_logs/bundles/real-timeout", env={"COLUMNS": "72"}).stdout
    panel = [line for line in out.splitlines() if line.startswith(("╭", "│", "╰"))]
    assert panel and max(len(line) for line in panel) == 72
    assert "5000ms" in out


def _results():
    from types import SimpleNamespace as N
    runs = [("shape-mismatch", "shape_mismatch", "shape_mismatch"),
            ("collective-dropped", "collective_skipped", "collective_skipped"),
            ("dtype-mismatch", "dtype_mismatch", "timeout_unknown")]
    return [N(scenario=s, nproc=2, outcome=N(how="exited", leftovers=[]), expected_class=c, expected_culprits=[1],
              verdict_class=v, diagnose_error=None, verdict_culprits=[1], match=c == v, elapsed_s=12.0)
            for s, c, v in runs]


def test_repro_check_reads_whole_in_a_ci_log_at_any_width():
    from nccl_forensics.outputs.repro_render import render_confusion
    for width in (60, 80, 160):
        buf = io.StringIO()
        render_confusion(_results(), Console(file=buf, width=width, color_system=None))
        out = buf.getvalue()
        for word in ("shape-mismatch", "collective-dropped", "collective_skipped", "timeout_unknown", "MISMATCH"):
            assert word in out, (width, out)
        assert "…" not in out


def test_a_piped_console_is_wide_unless_columns_says_otherwise(monkeypatch):
    from nccl_forensics.outputs.console import PIPE_WIDTH, make_console
    monkeypatch.delenv("COLUMNS", raising=False)
    assert make_console(file=io.StringIO()).width == PIPE_WIDTH
    monkeypatch.setenv("COLUMNS", "90")
    assert make_console(file=io.StringIO()).width == 90
