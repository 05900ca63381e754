"""`ncclf probe`: measure collectives the way nccl-tests does, and read nccl-tests/rccl-tests output.

Measured and parsed results share one shape (`ProbeRun` of `ProbeRow`s), so both render as the same
nccl-tests-style table: algbw = size / time; busbw = algbw × bus_factor(op, n).

The prediction beside each row is of the link the bytes crossed. nccl-tests output was measured on the job's
own link: it is predicted from the link named (`--link`) with NCCL's algorithm. A measured probe runs its ranks
on this host: the bytes cross loopback (gloo) or the GPUs' links (nccl), never the link named, so it is
predicted from a `Calibration`: the link priced from the run's own allreduce, every other collective from the
bytes its backend's algorithm moves (bandwidth/algorithms.py), its local copies at the memory times measured in
the same run (a one-way transfer priced from a send: on one host's CPUs an exchange costs more per byte).
meas/pred then checks the algorithm model; the named link is a projection beside it.
"""
from __future__ import annotations

import importlib.util
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from lark import Lark, LarkError, Tree

from ..capture.tools import local_torchrun_command
from ..errors import BadInput, ReproError
from ..sources.grammars import lalr
from ..sources.lines import iter_lines
from .algorithms import volume
from .cost import bus_factor, transfer_seconds

# nccl-tests binary name → collective
_BINARIES = {"all_reduce": "allreduce", "all_gather": "allgather", "reduce_scatter": "reducescatter",
             "broadcast": "broadcast", "reduce": "reduce", "alltoall": "alltoall", "sendrecv": "sendrecv",
             "scatter": "scatter", "gather": "gather", "hypercube": "hypercube"}
_BINARY_RE = re.compile(r"(all_reduce|all_gather|reduce_scatter|broadcast|reduce|alltoall|sendrecv|scatter|gather|hypercube)_perf")


@dataclass
class ProbeRow:
    op: str
    size: int
    count: int
    dtype: str
    redop: str
    root: int
    time_us: float | None
    wrong: int | None
    nranks: int
    in_place_time_us: float | None = None
    error: str | None = None

    @property
    def algbw(self) -> float | None:
        return self.size / (self.time_us * 1e3) if self.time_us else None   # GB/s

    @property
    def busbw(self) -> float | None:
        bw = self.algbw
        return None if bw is None else bw * bus_factor(self.op, self.nranks) if self.op in _FACTOR_OPS else bw

    def predicted_us(self, gbps: float, efficiency: float, latency_us: float = 0.0) -> float:
        """α-β: the per-message latency plus the bytes over the link's bandwidth."""
        op = self.op if self.op in _FACTOR_OPS else "sendrecv"
        return latency_us + transfer_seconds(self.size, op, max(self.nranks, 2), gbps, efficiency) * 1e6

    def to_dict(self) -> dict:
        return {"op": self.op, "size": self.size, "count": self.count, "type": self.dtype, "redop": self.redop,
                "root": self.root, "time_us": self.time_us, "algbw_gbs": self.algbw, "busbw_gbs": self.busbw,
                "wrong": self.wrong, "error": self.error}


_FACTOR_OPS = {"allreduce", "allgather", "reducescatter", "broadcast", "reduce", "alltoall", "sendrecv"}
MIN_FIT_SIZES = 3


@dataclass
class Fit:
    """t = α + bytes / β, fitted to a probe's measured sizes; past `bandwidth_from` bytes (when set) each further
    byte goes at `bw_gbps`: a host's memory bandwidth drops once a message outgrows its caches, and one straight
    line cannot follow both regimes (the model stays continuous: a hinge, not a jump)."""
    alpha_us: float
    gbps: float                       # GB/s (bytes), as algbw
    sizes: int                        # how many sizes it was fitted on
    warmup_size: int                  # the size left out as the warm-up
    bandwidth_from: int | None = None
    bw_gbps: float | None = None

    def predicted_us(self, size: int) -> float:
        t = self.alpha_us + size / (self.gbps * 1e3)
        if self.bandwidth_from is not None and self.bw_gbps and size > self.bandwidth_from:
            t += (size - self.bandwidth_from) * (1 / (self.bw_gbps * 1e3) - 1 / (self.gbps * 1e3))
        return t


def _least_squares(points: list[tuple[float, float]], hinge: float | None) -> tuple[np.ndarray, float] | None:
    """(α us, us per byte, [extra us per byte past `hinge`]) and the squared error of t = α + b·s [+ c·(s - hinge)
    past it], by least squares on log(t / fit): the same error for a time twice and half the fit (Gauss-Newton
    steps from the least squares on the relative error). Every parameter is held at 0 or above; None without
    a positive bandwidth."""
    size, t = np.array([p[0] for p in points]), np.array([p[1] for p in points])
    x = np.column_stack([np.ones_like(size), size] + ([np.maximum(size - hinge, 0.0)] if hinge is not None else []))
    params = np.maximum(np.linalg.lstsq(x / t[:, None], np.ones_like(t), rcond=None)[0], 0.0)
    for _ in range(12):
        fitted = x @ params
        if (fitted <= 0).any():
            return None
        free = params > 0
        free[1:] = True                                   # α held at 0 once the fit drives it below
        step = np.zeros_like(params)
        step[free] = np.linalg.lstsq((x / fitted[:, None])[:, free], np.log(t / fitted), rcond=None)[0]
        params = np.maximum(params + step, 0.0)
    fitted = x @ params
    if params[1] <= 0 or (fitted <= 0).any():
        return None
    return params, float((np.log(t / fitted) ** 2).sum())


SPLIT_GAIN = 2.0      # a bandwidth regime of its own only where it cuts the squared error this many times


@dataclass
class ProbeRun:
    source: str                       # "measured (gloo, 2 ranks)" or the nccl-tests file
    nranks: int
    rows: list[ProbeRow] = field(default_factory=list)
    avg_busbw: float | None = None    # as printed by nccl-tests
    out_of_bounds: int | None = None
    devices: list[dict] = field(default_factory=list)
    backend: str = "nccl"             # whose algorithms ran: nccl-tests is NCCL's (RCCL's are the same rings)
    measured_here: bool = False       # run by `probe` on this host (the ranks are local), not parsed
    local: list[ProbeRow] = field(default_factory=list)   # this host's memcpy / new-buffer times (LOCAL_OPS)

    @property
    def total_wrong(self) -> int:
        return sum(r.wrong or 0 for r in self.rows + self.local)

    def latency_us(self, op: str) -> float:
        """α for `op`: the fitted latency (see `fit`), 0 unknown."""
        fitted = self.fit(op)
        return fitted.alpha_us if fitted else 0.0

    def fit(self, op: str) -> Fit | None:
        """The α-β model t = α + bytes/β of `op`, by least squares on log(time/fit) over its sizes (so the
        latency regime counts as much as the bandwidth regime), the smallest size left out: it is the first one
        measured, a warm-up that pays for connection set-up and first-touch memory. Where one line cannot
        follow both regimes (SPLIT_GAIN), the bytes past one of the measured sizes (the best fitting) go at a
        bandwidth of their own. None with fewer than MIN_FIT_SIZES sizes or a fit without a positive bandwidth."""
        return fit_rows([r for r in self.rows + self.local if r.op == op])

    def calibration(self) -> Calibration | None:
        """The link this measured run crossed, priced from its own allreduce (and, one way, from its send);
        None for parsed output or without an allreduce fit."""
        fit = self.fit("allreduce") if self.measured_here else None
        if fit is None:
            return None
        local = {op: {r.size: r.time_us for r in self.local if r.op == op and r.time_us} for op in LOCAL_OPS}
        allreduce = {r.size: r.time_us for r in self.rows if r.op == "allreduce" and r.time_us and not r.error}
        send = {r.size: r.time_us for r in self.local if r.op == "send" and r.time_us and not r.error}
        return Calibration(self.backend, self.nranks, fit, allreduce, local, {op: f for op in dict.fromkeys(
            r.op for r in self.rows) if (f := self.fit(op)) is not None}, send, self.fit("send") if send else None)


def fit_rows(rows: list[ProbeRow]) -> Fit | None:
    """`ProbeRun.fit` of the rows of one op (a collective's, or a host row's: the send's α)."""
    timed = sorted((r for r in rows if r.time_us and not r.error), key=lambda r: r.size)
    points = [(float(r.size), float(r.time_us or 0)) for r in timed[1:]]
    if len(points) < MIN_FIT_SIZES:
        return None
    line = _least_squares(points, None)
    if line is None:
        return None
    (alpha, per_byte), error = line[0], line[1]
    fit = Fit(float(alpha), 1e-3 / float(per_byte), len(points), int(timed[0].size))
    hinges = [(found[1], size, found[0]) for size, _ in points[MIN_FIT_SIZES - 1:1 - MIN_FIT_SIZES]
              if (found := _least_squares(points, size)) is not None]
    if hinges:
        best_error, size, (alpha, per_byte, extra) = min(hinges, key=lambda h: h[0])
        if best_error * SPLIT_GAIN < error and extra > 0:
            fit = Fit(float(alpha), 1e-3 / float(per_byte), len(points), int(timed[0].size), int(size),
                      1e-3 / float(per_byte + extra))
    return fit


LOCAL_OPS = ("memcpy", "newbuf")
LINK_OPS = ("send",)        # one message from rank 0 to rank 1: the link one way (probe_worker.LINK_OPS)


def per_byte_at(times: dict[int, float], size: int, alpha_us: float) -> float:
    """Time per byte past α at `size`: the median of the measured size nearest `size` and the measured sizes
    on either side of it. One size's time is the fastest of a few runs on a shared host, and a burst of load
    over all of them leaves it an outlier; the median of three drops one outlier, and where the time per byte
    rises or falls with size (a cache outgrown) it is the middle one's own, so a regime's edge is kept."""
    measured = sorted(times)
    at = min(range(len(measured)), key=lambda i: abs(measured[i] - size))
    near = measured[max(at - 1, 0):at + 2] if 0 < at < len(measured) - 1 else [measured[at]]
    prices = sorted(max(times[s] - alpha_us, 0.0) / s for s in near)
    return prices[len(prices) // 2]


@dataclass
class Calibration:
    """A measured run's prediction of `op` at S bytes: t = α(op) + its wire bytes × the link's time per byte +
    its copied bytes × the host's memcpy time per byte + its new-buffer bytes × the new-buffer time per byte
    (the byte counts from the backend's algorithm, `algorithms.volume`). The link's time per byte at S is the
    allreduce's (its runs taking turns with the others': the same load), past its fitted α, over the
    allreduce's own wire bytes, at S and the sizes beside it (`per_byte_at`). On loopback an op whose
    transfers go one way (gloo's broadcast: no rank sends and receives at once) is priced the same way from
    the run's send, rank 0 to rank 1: a ring's exchange keeps twice the copying threads busy, and where the
    host has fewer free cores than that it costs more per byte (2-3x on a loaded 2-core host). The memory
    times are those measured at S. An allreduce row is the calibration itself: its prediction is its fit."""
    backend: str
    nranks: int
    allreduce: Fit
    allreduce_us: dict[int, float]           # size → measured us
    local: dict[str, dict[int, float]]      # LOCAL_OPS → size → us
    fits: dict[str, Fit]
    send_us: dict[int, float] = field(default_factory=dict)   # size → measured us of the one-way send
    send: Fit | None = None

    @property
    def loopback(self) -> bool:
        """gloo between local ranks goes through TCP on loopback: every byte sent and received is copied by
        the host's CPUs (nccl between local GPUs goes over their links, each direction on its own)."""
        return self.backend == "gloo"

    @property
    def link_name(self) -> str:
        return "loopback" if self.loopback else "this host's GPU links"

    def link_us_per_byte(self, size: int) -> float:
        """The link's time per wire byte at `size` (as `algorithms.Volume.wire_bytes` counts them), from the
        allreduce measured there and at the sizes beside it (`per_byte_at`)."""
        wire = volume(self.backend, "allreduce", 1.0, self.nranks).wire_bytes(self.loopback)
        if not self.allreduce_us:
            return max(self.allreduce.predicted_us(size) - self.allreduce.alpha_us, 0.0) / (wire * size)
        return per_byte_at(self.allreduce_us, size, self.allreduce.alpha_us) / wire if wire else 0.0

    def one_way_us_per_byte(self, size: int) -> float:
        """The link's time per byte sent one way at `size`: from the send measured there and at the sizes
        beside it (`per_byte_at`); the exchange's price where no send was measured."""
        if not self.send_us or self.send is None:
            return self.link_us_per_byte(size)
        return per_byte_at(self.send_us, size, self.send.alpha_us)

    def priced_one_way(self, op: str) -> bool:
        """Whether `op` is priced from the run's one-way send: on loopback, an op whose transfers go one way,
        where a send was measured."""
        return self.loopback and bool(self.send_us) and not volume(self.backend, op, 1, self.nranks).duplex

    def one_way_gbps(self, size: int) -> float | None:
        """The link's GB/s sent one way at `size` (None where nothing was priced there)."""
        per_byte = self.one_way_us_per_byte(size)
        return 1e-3 / per_byte if per_byte else None

    def link_gbps(self, size: int | None = None) -> float:
        """The link's GB/s of wire bytes at `size`; without one, as the allreduce fit has it (its β)."""
        if size is None:
            return volume(self.backend, "allreduce", 1.0, self.nranks).wire_bytes(self.loopback) * self.allreduce.gbps
        per_byte = self.link_us_per_byte(size)
        return 1e-3 / per_byte if per_byte else float("inf")

    def alpha_us(self, op: str) -> float:
        return (self.fits.get(op) or self.allreduce).alpha_us

    def predicted_us(self, op: str, size: int) -> float:
        if op == "allreduce":
            return self.allreduce.predicted_us(size)
        vol = volume(self.backend, op, size, self.nranks)
        per_byte = self.one_way_us_per_byte(size) if self.priced_one_way(op) else self.link_us_per_byte(size)
        return self.alpha_us(op) + vol.wire_bytes(self.loopback) * per_byte + self.local_us(vol.copied, vol.fresh, size)

    def local_us(self, copied: float, fresh: float, size: int) -> float:
        """The local copies' time, at the memory times measured at the nearest size (0 where none were)."""
        total = 0.0
        for op, nbytes in (("memcpy", copied), ("newbuf", fresh)):
            times = self.local.get(op) or {}
            if nbytes and times:
                nearest = min(times, key=lambda s: abs(s - size))
                total += nbytes * times[nearest] / nearest
        return total

    def projected_us(self, op: str, size: int, gbps: float, efficiency: float) -> float:
        """`op` with its bytes on a network link of `gbps` Gbit/s instead (one rank per host, each direction on
        its own): the same algorithm, this host's α and memory."""
        vol = volume(self.backend, op, size, self.nranks)
        return (self.alpha_us(op) + vol.wire_bytes(False) * 8 / (gbps * 1e9 * efficiency) * 1e6
                + self.local_us(vol.copied, vol.fresh, size))


# --- nccl-tests output ---------------------------------------------------------------------------------

def parse_nccl_tests(path: str, op: str | None = None) -> ProbeRun:
    """Read one nccl-tests/rccl-tests output file (grammars/nccltests.lark, line by line)."""
    parser: Lark = lalr("nccltests")
    op = op or _op_from_name(path)
    run = ProbeRun(source=path, nranks=0)
    n_gpus = n_threads = 1
    for line in iter_lines(path):
        text = line.text.strip()
        if not text:
            continue
        if op is None and (m := _BINARY_RE.search(text)):
            op = _BINARIES[m.group(1)]
        try:
            tree = parser.parse(text)
        except LarkError:
            continue                  # stray program output between the table lines
        kind = tree.data
        values = [str(c) for c in tree.children if not isinstance(c, Tree)]
        if kind == "config_line":
            n_threads, n_gpus = int(values[0]), int(values[1])
        elif kind == "rank_line":
            run.devices.append({"rank": int(values[0]), "pid": int(values[2]), "host": values[3],
                                "device": int(values[4])})
        elif kind == "result_row":
            run.rows.append(_row(tree, values, op))
        elif kind == "oob_line":
            run.out_of_bounds = int(values[0])
        elif kind == "avg_bw_line":
            run.avg_busbw = float(values[0])
    if not run.rows:
        raise BadInput(f"{path}: no nccl-tests result rows found")
    run.nranks = len(run.devices) or n_threads * n_gpus
    for row in run.rows:
        row.nranks = run.nranks
    return run


def _op_from_name(path: str) -> str | None:
    m = _BINARY_RE.search(os.path.basename(path))
    return _BINARIES[m.group(1)] if m else None


def _row(tree: Tree, values: list[str], op: str | None) -> ProbeRow:
    placements = [[str(c) for c in p.children] for p in tree.children if isinstance(p, Tree)]
    size, count, dtype, redop, root = int(values[0]), int(values[1]), values[2], values[3], int(values[4])
    guessed = op or ("allreduce" if redop != "none" else "broadcast" if root >= 0 else "allgather")
    out_time, _, _, wrong = placements[0]
    in_time = placements[1][0] if len(placements) > 1 else None
    return ProbeRow(guessed, size, count, dtype, redop, root, _num(out_time), None if wrong == "N/A" else int(wrong),
                    0, _num(in_time) if in_time else None)


def _num(text: str) -> float | None:
    return None if text == "N/A" else float(text)


# --- measuring with torchrun ---------------------------------------------------------------------------

def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def measure(nproc: int = 2, backend: str = "gloo", min_bytes: int = 8, max_bytes: int = 256 << 20,
            warmup: int = 2, iters: int = 5, ops: tuple[str, ...] = ("allreduce", "allgather", "reducescatter",
                                                                      "broadcast"),
            timeout_s: float = 600) -> ProbeRun:
    """Launch `nproc` local ranks under torchrun (127.0.0.1 only) and measure; the job's process group is
    killed on timeout or Ctrl-C, so nothing is left running."""
    if importlib.util.find_spec("torch") is None:
        from ..capture.tools import install_hint
        raise ReproError(f"probe runs a torch job, and torch is not importable by {sys.executable}; install it "
                         f"with {install_hint('torch')}, or read nccl-tests output with --nccl-tests FILE")
    with tempfile.TemporaryDirectory(prefix="ncclf-probe-") as tmp:
        out = Path(tmp) / "rows.json"
        cmd = [*local_torchrun_command(), "--nproc_per_node", str(nproc),
               "--master_addr", "127.0.0.1", "--master_port", str(free_port()),
               "-m", "nccl_forensics.bandwidth.probe_worker", "--out", str(out), "--backend", backend,
               "--min-bytes", str(min_bytes), "--max-bytes", str(max_bytes), "--warmup", str(warmup),
               "--iters", str(iters), "--ops", ",".join(dict.fromkeys(ops + memory_ops(backend, ops, nproc)))]
        run_job(cmd, timeout_s, Path(tmp) / "console.log")
        if not out.exists():
            raise ReproError(f"the probe job wrote no results (see its output: {out.parent / 'console.log'})")
        data = json.loads(out.read_text())
    run = ProbeRun(source=f"measured ({backend}, {data['world_size']} ranks)", nranks=data["world_size"],
                   backend=backend, measured_here=True)
    for r in data["rows"]:
        rows = run.local if r["op"] in LOCAL_OPS + LINK_OPS else run.rows
        if "error" in r:
            rows.append(ProbeRow(r["op"], r["size"], 0, "float32", "-", -1, None, None, run.nranks,
                                 error=r["error"]))
        else:
            rows.append(ProbeRow(r["op"], r["size"], r["count"], r["dtype"], r["redop"], r["root"],
                                 r["time_us"], r["wrong"], run.nranks))
    return run


def memory_ops(backend: str, ops: tuple[str, ...], nproc: int = 2) -> tuple[str, ...]:
    """The host timings a measured run needs for its prediction: gloo's allgather and reduce-scatter copy and
    allocate on the host (algorithms.py), and its broadcast sends one way over loopback (priced by a send);
    nccl's collectives and gloo's others need neither."""
    if backend != "gloo" or nproc < 2:
        return ()
    volumes = [volume("gloo", op, 1 << 20, nproc) for op in ops if op in _FACTOR_OPS]
    return (LOCAL_OPS if any(v.copied for v in volumes) else ()) + (
        LINK_OPS if any(not v.duplex for v in volumes) else ())


def run_job(cmd: list[str], timeout_s: float, log_path: Path) -> None:
    """Run a local torchrun job in its own session; on timeout or Ctrl-C its whole process group is killed."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "OMP_NUM_THREADS": "1"}
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, start_new_session=True, env=env)
        try:
            rc = proc.wait(timeout=timeout_s)
        except BaseException:
            _kill_group(proc)
            raise
    if rc != 0:
        tail = log_path.read_text(errors="replace").strip().splitlines()[-1:] or ["(no output)"]
        raise ReproError(f"the job failed (exit {rc}): {tail[0][:200]}")


def _kill_group(proc: subprocess.Popen) -> None:
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=5)
            return
        except subprocess.TimeoutExpired:
            continue
