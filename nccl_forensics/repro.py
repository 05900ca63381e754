"""Run a reproducer scenario for real, capture its evidence bundle, and check the diagnosis.

    result = run_scenario("shape-mismatch", nproc=2, out="ncclf-repro/shape-mismatch")
    result.match        # True when diagnose() named the injected class (and the culprit rank)

The bundle (`out`) holds only what a user would have: console.log, torchrun_logs/, pyspy/, fr/,
dmesg.txt (and nccl/ on NCCL). The injected fault is described in `<out>.repro.json`, *beside* the
bundle, so the diagnosis cannot read it. This is the only module that imports torch, lazily.

`python -m nccl_forensics.repro regenerate-samples [DEST]` rebuilds sample_logs/bundles/real-*/.
"""
from __future__ import annotations

import importlib.util
import json
import os
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from .capture.tools import install_hint, require_tool
from .errors import ReproError
from .files import write_atomic
from .reproducers import harness
from .scenarios import SCENARIOS, Scenario

PG_TIMEOUT_S = 30.0          # process-group timeout of every scenario but `timeout`
TIMEOUT_PG_TIMEOUT_S = 5.0   # the scenarios that wait for the timeout: short, so the wait stays short
WAITS_FOR_PG_TIMEOUT = {"timeout", "slow-rank-timeout"}   # the harness lets these fail on their own instead of dumping a hang
SAMPLE_NPROC = 2
DEAD_HANG_AFTER_S = 20.0     # a rank killed in a large layout: gloo peers fail at once and torchrun reports the
                             # dead rank (its failure table) within seconds; the harness waits for that first


@dataclass
class ReproResult:
    scenario: str
    nproc: int
    step: int
    rank: int
    backend: str
    trainer: str
    out: Path
    repro_json: Path
    outcome: harness.JobOutcome
    expected_class: str
    expected_culprits: list[int]
    verdict_class: str | None = None
    verdict_culprits: list[int] = field(default_factory=list)
    diagnose_error: str | None = None
    elapsed_s: float = 0.0

    @property
    def match(self) -> bool | None:
        """True/False once diagnosed; None when the diagnosis did not run."""
        if self.verdict_class is None:
            return None
        if self.verdict_class != self.expected_class:
            return False
        return not self.expected_culprits or sorted(self.verdict_culprits) == self.expected_culprits


def list_scenarios() -> list[Scenario]:
    return list(SCENARIOS.values())


def cpu_scenarios() -> list[Scenario]:
    """The CPU scenarios of the small trainers (any rank count)."""
    return [s for s in SCENARIOS.values() if not s.gpu_only and not s.layout]


def large_scenarios() -> list[Scenario]:
    """The large-model layouts (8 processes each: reproducers/train_megatron.py)."""
    return [s for s in SCENARIOS.values() if s.layout]


def run_scenario(name: str, nproc: int = 2, step: int = 3, rank: int = 1, timeout: float | None = None,
                 out: str | os.PathLike | None = None, fsdp: bool = False, debug_detail: bool = False,
                 backend: str | None = None, diagnose: bool = True) -> ReproResult:
    """Run scenario `name` under torchrun, capture the bundle into `out`, optionally diagnose it."""
    layout = SCENARIOS[name].nproc if name in SCENARIOS else None
    if layout:
        nproc = layout                                # a layout has its own size
    scenario = _check_args(name, nproc, step, rank)
    backend = backend or _default_backend(nproc)
    if scenario.gpu_only and backend != "nccl":
        raise ReproError(f"{name} needs CUDA GPUs and the nccl backend")
    out = _prepare_out(Path(out or Path("ncclf-repro") / name))
    pg_timeout = timeout or (TIMEOUT_PG_TIMEOUT_S if name in WAITS_FOR_PG_TIMEOUT else PG_TIMEOUT_S)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="ncclf-repro-") as control:
        spec = _job_spec(scenario, nproc, step, rank, pg_timeout, out, fsdp, debug_detail, backend, Path(control))
        outcome = harness.run_job(spec)
    if debug_detail and not fsdp and backend == "gloo":
        outcome.notes.append("TORCH_DISTRIBUTED_DEBUG=DETAIL with DDP on gloo segfaults in DDP construction on "
                             "torch 2.13; use --fsdp for the collective fingerprint check")
    result = ReproResult(
        scenario=name, nproc=nproc, step=step, rank=rank, backend=backend, trainer=spec.script.name, out=out,
        repro_json=out.with_name(out.name + ".repro.json"), outcome=outcome,
        expected_class=scenario.expected_class, expected_culprits=[rank] if scenario.culprit else [],
    )
    _write_repro_json(result, scenario, pg_timeout)
    if diagnose:
        _diagnose(result)
    result.elapsed_s = time.monotonic() - started
    return result


def run_all(nproc: int = 2, out: str | os.PathLike = "ncclf-repro", **options) -> list[ReproResult]:
    """Every CPU scenario, one bundle each under `out/<scenario>-n<nproc>/`."""
    return [run_scenario(s.name, nproc=nproc, out=Path(out) / f"{s.name}-n{nproc}", **options)
            for s in cpu_scenarios()]


def regenerate_samples(dest: str | os.PathLike = "sample_logs/bundles") -> list[ReproResult]:
    """Rebuild the real-run sample bundles `dest/real-<scenario>/` (2 ranks, gloo, no diagnosis)."""
    return [run_scenario(s.name, nproc=SAMPLE_NPROC, out=Path(dest) / f"real-{s.name}", backend="gloo",
                         diagnose=False) for s in cpu_scenarios()]


def _check_args(name: str, nproc: int, step: int, rank: int) -> Scenario:
    if name not in SCENARIOS:
        raise ReproError(f"unknown scenario {name!r} (see `ncclf repro --list`)")
    if nproc < 2:
        raise ReproError("--nproc must be at least 2: a collective needs two ranks")
    if not 0 <= rank < nproc:
        raise ReproError(f"--rank {rank} is not a rank of a {nproc}-rank job")
    if step < 1:
        raise ReproError("--step counts from 1")
    for module in ("torch", "nccl_forensics.reproducers"):
        if importlib.util.find_spec(module) is None:
            raise ReproError(f"{module} is not importable by {sys.executable}; install it with "
                             f"{install_hint('torch')}")
    require_tool("py-spy", "to dump the stacks of a hung job's ranks")
    return SCENARIOS[name]


def _default_backend(nproc: int) -> str:
    import torch  # the only torch import of ncclf, and only here

    return "nccl" if torch.cuda.is_available() and torch.cuda.device_count() >= nproc else "gloo"


def _prepare_out(out: Path) -> Path:
    """An empty bundle directory; an old bundle is replaced only if a repro.json marks it as ours."""
    out = out.resolve()
    marker = out.with_name(out.name + ".repro.json")
    if out.exists() and any(out.iterdir()):
        if not marker.exists():
            raise ReproError(f"{out} is not empty and is not a previous reproducer bundle; pick another --out")
        shutil.rmtree(out)
    marker.unlink(missing_ok=True)
    (out / "fr").mkdir(parents=True, exist_ok=True)
    return out


def _job_spec(scenario: Scenario, nproc, step, rank, pg_timeout, out: Path, fsdp, debug_detail, backend,
              control: Path):
    from .reproducers.plan import CONTROL_ENV, PLAN_ENV, FaultPlan

    trainer = "train_megatron.py" if scenario.layout else "train_llama_fsdp2.py" if fsdp else "train_gpt_ddp.py"
    steps = max(6, step + 3)
    # PYTHONUNBUFFERED: the harness reads the ranks' --tee output as it comes, whatever the caller's shell set;
    # LOGLEVEL=INFO: torchrun prints its rendezvous result (the world size) and how its workers ended.
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "LOGLEVEL": "INFO", "OMP_NUM_THREADS": "1", "TORCH_FR_BUFFER_SIZE": "2000",
           "TORCH_FR_DUMP_TEMP_FILE": str(out / "fr" / "nccl_trace_rank_"), CONTROL_ENV: str(control)}
    if scenario.layout:                               # the trainer knows its faults as mp-<kind>
        env[PLAN_ENV] = FaultPlan("mp-" + scenario.name.split("-", 1)[1], step, rank).to_env()
    elif scenario.name != "healthy":
        env[PLAN_ENV] = FaultPlan(scenario.name, step, rank).to_env()
    if debug_detail:
        env["TORCH_DISTRIBUTED_DEBUG"] = "DETAIL"
    if backend == "nccl":
        (out / "nccl").mkdir(exist_ok=True)
        env.update(NCCL_DEBUG="INFO", NCCL_DEBUG_SUBSYS="INIT,COLL",
                   NCCL_DEBUG_FILE=str(out / "nccl" / "nccl.%h.%p.log"))
    waits = scenario.name in WAITS_FOR_PG_TIMEOUT
    return harness.JobSpec(
        script=_reproducer_path(trainer), nproc=nproc, out=out, env=env, control=control,
        args=["--steps", str(steps), "--pg-timeout", str(pg_timeout), "--backend", backend]
        + (["--layout", scenario.layout] if scenario.layout else []),
        steps=steps, hang_after_s=pg_timeout + 20 if waits else DEAD_HANG_AFTER_S if scenario.name.endswith("-dead")
        else harness.HANG_AFTER_S, deadline_s=pg_timeout + 120,
        oom_handshake=scenario.name == "cgroup-oom",
    )


def _reproducer_path(name: str) -> Path:
    from importlib import resources

    return Path(str(resources.files("nccl_forensics.reproducers") / name))


def _write_repro_json(result: ReproResult, scenario: Scenario, pg_timeout: float) -> None:
    outcome = result.outcome
    doc = {
        "schema_version": 1, "bundle": result.out.name, "scenario": scenario.name, "summary": scenario.summary,
        "expected_class": scenario.expected_class, "culprit_ranks": result.expected_culprits,
        "fault_step": result.step, "fault_rank": result.rank, "nproc": result.nproc, "backend": result.backend,
        "trainer": result.trainer, "pg_timeout_s": pg_timeout, "harness_saw": outcome.how,
        "torchrun_exit_code": outcome.torchrun_rc, "last_step_printed": outcome.last_step,
        "oom_mode": outcome.oom_mode, "notes": outcome.notes,
    }
    write_atomic(result.repro_json, json.dumps(doc, indent=2) + "\n")


def _diagnose(result: ReproResult) -> None:
    try:
        from .pipeline.reduce import diagnose
    except ImportError as exc:
        result.diagnose_error = f"diagnosis unavailable: {exc}"
        return
    try:
        verdict = diagnose([str(result.out)]).verdict
    except Exception as exc:  # noqa: BLE001 - the check reports a broken diagnosis instead of dying
        result.diagnose_error = f"diagnose failed: {type(exc).__name__}: {exc}"
        return
    result.verdict_class = str(getattr(verdict.cls, "value", verdict.cls))
    result.verdict_culprits = sorted(int(r) for r in (verdict.culprit_ranks or []))


def main(argv: list[str] | None = None) -> int:
    """`python -m nccl_forensics.repro regenerate-samples [DEST]`."""
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] != "regenerate-samples":
        print("usage: python -m nccl_forensics.repro regenerate-samples [DEST]", file=sys.stderr)
        return 2
    for result in regenerate_samples(*argv[1:2]):
        print(f"{result.scenario:20} {result.outcome.how:8} -> {result.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
