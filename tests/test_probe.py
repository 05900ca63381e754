"""`ncclf probe`: the nccl-tests output grammar, and a real 2-rank gloo measurement with 0 wrong results."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from nccl_forensics.bandwidth import probe
from nccl_forensics.cli import cli
from nccl_forensics.errors import BadInput

SAMPLE = Path(__file__).resolve().parents[1] / "sample_logs" / "nccl-tests" / "all_reduce_perf.8xH100.log"


def test_nccl_tests_output_is_parsed():
    run = probe.parse_nccl_tests(str(SAMPLE))
    assert run.nranks == 8 and len(run.devices) == 8
    assert run.devices[3] == {"rank": 3, "pid": 214573, "host": "dgx-h100-01", "device": 3}
    assert [r.size for r in run.rows[:3]] == [8, 16, 32] and run.rows[-1].size == 8589934592
    assert {r.op for r in run.rows} == {"allreduce"}           # from the file name
    assert run.out_of_bounds == 0 and run.total_wrong == 0
    assert run.avg_busbw == pytest.approx(sum(r.busbw for r in run.rows) / len(run.rows), rel=0.02)
    last = run.rows[-1]
    assert last.busbw == pytest.approx(last.algbw * 2 * 7 / 8)


def test_rows_with_wrong_results_and_na_are_read(tmp_path):
    f = tmp_path / "out.txt"
    f.write_text(
        "# nThread 1 nGpus 2 minBytes 1024 maxBytes 2048 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 "
        "validation: 1 graph: 0\n"
        "        1024           256     float    none       0    20.10    0.05    0.05      3    19.80    0.05"
        "    0.05    N/A\n"
        "[1,0]<stdout>: some stray program line\n"
        "        2048           512     float    none       0    20.30    0.10    0.10      0    20.00    0.10"
        "    0.10      0\n")
    run = probe.parse_nccl_tests(str(f))
    assert run.nranks == 2 and [r.op for r in run.rows] == ["broadcast", "broadcast"]
    assert run.total_wrong == 3


def test_a_file_without_rows_is_bad_input(tmp_path):
    f = tmp_path / "empty_perf.log"
    f.write_text("# nothing here\n")
    with pytest.raises(BadInput):
        probe.parse_nccl_tests(str(f))


def test_cli_renders_nccl_tests_with_the_prediction():
    result = CliRunner().invoke(cli, ["probe", "--nccl-tests", str(SAMPLE), "--link", "NVLink4", "--format", "json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["runs"][0]["nranks"] == 8 and data["runs"][0]["wrong"] == 0


@pytest.mark.repro
def test_probe_measures_two_gloo_ranks_with_no_wrong_results():
    pytest.importorskip("torch")
    run = probe.measure(nproc=2, backend="gloo", max_bytes=1 << 16, iters=2, warmup=1, timeout_s=180)
    assert run.nranks == 2
    measured = [r for r in run.rows if r.error is None]
    assert {r.op for r in measured} == {"allreduce", "allgather", "reducescatter", "broadcast"}
    assert all(r.wrong == 0 and r.time_us > 0 for r in measured)
    assert [r.size for r in measured if r.op == "allreduce"][:3] == [8, 16, 32]
    # gloo's allgather and reduce-scatter copy on the host: its memory is timed beside them, and the run
    # predicts itself on the link it crossed (loopback), from its own allreduce (its broadcast from a send)
    assert {r.op for r in run.local} == {"memcpy", "newbuf", "send"} and all(r.wrong == 0 for r in run.local)
    assert run.backend == "gloo" and run.measured_here
    # the fit of tiny sizes on a loaded host may see no bandwidth at all (the times are flat), so the wiring is
    # checked on this run's own ops and sizes with times of a known link: no wall-clock assert
    for r in run.rows + run.local:
        r.time_us = None if r.error else 50.0 + r.size / 1e3
    cal = run.calibration()
    assert cal is not None and cal.link_name == "loopback"
    assert all(cal.predicted_us(r.op, r.size) > 0 for r in measured)


def test_scaling_reads_global_tokens_per_second_after_warm_up():
    from nccl_forensics.bandwidth.scaling import tokens_per_second
    console = "\n".join(f"[default0]:step {i} | loss 2.0 | tokens/s {v} | allreduce 0.5 ms"
                        for i, v in enumerate([100, 900, 950, 1000, 1010, 990]))
    assert tokens_per_second(console) == 1000
    with pytest.raises(Exception, match="no step lines"):
        tokens_per_second("step 0 | loss 2.0 | tokens/s 5 | allreduce 1 ms")


def test_probe_without_torch_is_a_one_line_hint(monkeypatch, capsys):
    real = probe.importlib.util.find_spec
    monkeypatch.setattr(probe.importlib.util, "find_spec", lambda name, *a: None if name == "torch" else real(name, *a))
    from nccl_forensics.cli import main
    with pytest.raises(SystemExit) as ended:
        main(["probe", "--nproc", "2"])
    err = capsys.readouterr().err
    assert ended.value.code == 2 and err.startswith("Error: probe runs a torch job") and err.count("\n") == 1


def test_prediction_has_a_latency_term_from_the_fit():
    ProbeRow, ProbeRun = probe.ProbeRow, probe.ProbeRun
    sizes = (8, 64, 512, 4096, 1 << 20)
    rows = [ProbeRow("allreduce", size, size // 4, "float", "sum", -1, 40.0 + size / 2e3, 0, 2) for size in sizes]
    run = ProbeRun("measured", 2, rows)
    assert run.latency_us("allreduce") == pytest.approx(40.0)
    small = rows[0].predicted_us(10.0, 0.85, run.latency_us("allreduce"))
    assert 40.0 <= small < 40.1                     # 8 bytes: the latency, not 0.01 us
    assert rows[-1].predicted_us(10.0, 0.85, 40.0) == pytest.approx(40.0 + rows[-1].predicted_us(10.0, 0.85))
    assert ProbeRun("measured", 2, rows[:2]).latency_us("allreduce") == 0.0     # too few sizes to fit


def _run(times: dict[int, float], op: str = "allreduce") -> probe.ProbeRun:
    run = probe.ProbeRun("measured (gloo, 2 ranks)", 2)
    run.rows = [probe.ProbeRow(op, size, size // 4, "float32", "sum", -1, t, 0, 2) for size, t in times.items()]
    return run


def test_alpha_beta_is_a_least_squares_fit_without_the_warm_up():
    alpha, gbps = 120.0, 2.5
    times = {s: alpha + s / (gbps * 1e3) for s in (2 ** k for k in range(3, 29))}
    times[8] = 1700.0                                          # the cold first size
    fit = _run(times).fit("allreduce")
    assert fit.alpha_us == pytest.approx(alpha, rel=1e-6) and fit.gbps == pytest.approx(gbps, rel=1e-6)
    assert fit.warmup_size == 8 and fit.sizes == 25 and fit.bandwidth_from is None    # one line fits: no split
    noisy = {s: t * (1.3 if i % 2 else 0.8) for i, (s, t) in enumerate(times.items())}
    fit = _run(noisy).fit("allreduce")
    assert all(0.5 <= t / fit.predicted_us(s) <= 2 for s, t in list(noisy.items())[1:])


def test_the_table_shows_the_fit_and_meas_over_fit():
    import io

    from rich.console import Console

    from nccl_forensics.outputs.probe_render import render_probe
    times = {s: 100.0 + s / 3e3 for s in (2 ** k for k in range(3, 20))}
    buf = io.StringIO()
    render_probe(_run(times), Console(file=buf, width=200, color_system=None), "10GbE", 10.0, 0.85)
    out = buf.getvalue()
    assert "fit: t = α + bytes/β, α = 100.0 us, β = 3 GB/s" in out and "meas/fit" in out and "meas/pred" in out
    assert "8 B, the first, is a warm-up" in out


def test_the_bytes_past_the_caches_get_a_bandwidth_of_their_own():
    """A host's bandwidth drops once messages outgrow its caches: one line would miss the largest sizes 4x."""
    def t(s):
        return 300.0 + s / 2e3 + max(s - (8 << 20), 0) * (1 / 0.4e3 - 1 / 2e3)
    times = {s: t(s) for s in (2 ** k for k in range(3, 29))}
    fit = _run(times).fit("allreduce")
    assert fit.bandwidth_from == 8 << 20
    assert fit.alpha_us == pytest.approx(300.0, rel=1e-3) and fit.gbps == pytest.approx(2.0, rel=1e-3)
    assert fit.bw_gbps == pytest.approx(0.4, rel=1e-3)
    assert all(t / fit.predicted_us(s) == pytest.approx(1.0, rel=1e-3) for s, t in list(times.items())[1:])
    assert fit.predicted_us(8 << 20) == pytest.approx(t(8 << 20))          # continuous at the hinge


def test_the_fit_is_symmetric_in_log_so_twice_and_half_weigh_the_same():
    alpha, gbps = 200.0, 1.0
    sizes = [2 ** k for k in range(3, 27)]
    times = {s: (alpha + s / (gbps * 1e3)) * (1.8 if i % 2 else 1 / 1.8) for i, s in enumerate(sizes)}
    fit = _run(times).fit("allreduce")
    ratios = [t / fit.predicted_us(s) for s, t in list(times.items())[1:]]
    assert all(1 / 1.9 <= r <= 1.9 for r in ratios), ratios
    assert fit.alpha_us == pytest.approx(alpha, rel=0.1) and fit.gbps == pytest.approx(gbps, rel=0.1)


def test_the_caption_shows_both_lines_and_how_time_was_taken():
    from nccl_forensics.outputs.probe_render import fit_note
    fit = probe.Fit(300.0, 2.0, 25, 8, 8 << 20, 0.4)
    note = fit_note(fit)
    assert "α = 300.0 us, β = 2 GB/s; the bytes past 8388608 B at β = 0.4 GB/s (a second bandwidth regime" in note
    assert "least squares on log(time/fit) over 25 sizes" in note and "the fastest of the timed runs" in note
    assert "fastest" not in fit_note(fit, measured=False)


@pytest.mark.repro
def test_the_worker_keeps_the_fastest_run_of_runs_spread_over_sweeps(tmp_path):
    """One rank (gloo) is enough to check the bookkeeping: every size gets its runs in every sweep, and the row
    keeps the fastest (never above the median)."""
    import json
    import os
    import subprocess
    import sys
    pytest.importorskip("torch")
    from nccl_forensics.bandwidth import probe_worker as w
    out = tmp_path / "rows.json"
    env = {**os.environ, "RANK": "0", "WORLD_SIZE": "1", "LOCAL_RANK": "0", "MASTER_ADDR": "127.0.0.1",
           "MASTER_PORT": str(probe.free_port()), "PYTHONUNBUFFERED": "1", "OMP_NUM_THREADS": "1"}
    subprocess.run([sys.executable, "-m", "nccl_forensics.bandwidth.probe_worker", "--out", str(out),
                    "--max-bytes", str(2 << 20), "--iters", "2", "--ops", "allreduce,broadcast"],
                   env=env, timeout=180, check=True, capture_output=True)
    rows = json.loads(out.read_text())["rows"]
    assert [r["size"] for r in rows if r["op"] == "broadcast"] == [8 << k for k in range(19)]
    for r in rows:
        per_sweep = -(-(2 * (w.SMALL_MORE if r["size"] < w.SMALL_BYTES else w.MID_MORE)) // w.PASSES)
        assert r["runs"] == per_sweep * w.PASSES and 0 < r["time_us"] <= r["median_us"] and r["wrong"] == 0


def test_a_narrow_console_gets_the_numbers_whole():
    """At 80 columns (a pipe with COLUMNS=80, a small terminal) the table is printed at the width it needs."""
    import io

    from rich.console import Console

    from nccl_forensics.outputs.probe_render import render_probe
    times = {s: 100.0 + s / 3e3 for s in (2 ** k for k in range(3, 29))}
    buf = io.StringIO()
    render_probe(_run(times), Console(file=buf, width=80, color_system=None), "10GbE", 10.0, 0.85)
    out = buf.getvalue()
    assert "…" not in out and "meas/pred" in out and "268435456" in out and "float32" in out


# --- a measured run is predicted on the link it crossed, from its own allreduce ---------------------------

ALPHA = {"allreduce": 450.0, "allgather": 380.0, "reducescatter": 650.0, "broadcast": 240.0}
LOOP_GBPS = 2.0                        # GB/s of bytes sent + received per rank on this host's loopback


def _memcpy_us(s):
    return s / 3e3                       # 3 GB/s


def _newbuf_us(s):
    return s / 4e3 if s <= 32 << 20 else s / 0.5e3      # page faults once past the allocator's reuse


ONE_WAY_GBPS = 3.0                     # GB/s sent one way (a send, a broadcast): no exchange on the same cores
SEND_ALPHA = 200.0


def _send_us(s):
    return SEND_ALPHA + s / (ONE_WAY_GBPS * 1e3)


def _gloo_host_run(scale: dict[str, float] | None = None, send: bool = True) -> probe.ProbeRun:
    """A 2-rank gloo run on one host whose every collective costs what gloo's algorithm moves over a loopback
    of 2 GB/s exchanged (sent + received) and 3 GB/s one way, plus its copies at the host's memory times
    (`scale` makes an op slower than its model; `send`: the run measured a one-way send)."""
    from nccl_forensics.bandwidth.algorithms import volume
    run = probe.ProbeRun("measured (gloo, 2 ranks)", 2, backend="gloo", measured_here=True)
    sizes = [2 ** k for k in range(3, 29)]
    for op, alpha in ALPHA.items():
        for s in sizes:
            vol = volume("gloo", op, s, 2)
            gbps = LOOP_GBPS if vol.duplex else ONE_WAY_GBPS
            t = (alpha + vol.wire_bytes(True) / (gbps * 1e3) + vol.copied * _memcpy_us(s) / s
                 + vol.fresh * _newbuf_us(s) / s) * (scale or {}).get(op, 1.0)
            run.rows.append(probe.ProbeRow(op, s, s // 4, "float32", "sum", -1, t, 0, 2))
    for s in sizes:
        run.local += [probe.ProbeRow("memcpy", s, s // 4, "float32", "none", -1, _memcpy_us(s), 0, 2),
                      probe.ProbeRow("newbuf", s, s // 4, "float32", "none", -1, _newbuf_us(s), 0, 2)]
        if send:
            run.local.append(probe.ProbeRow("send", s, s // 4, "float32", "none", -1, _send_us(s), 0, 2))
    return run


def test_a_measured_run_is_predicted_from_its_own_allreduce_and_gloos_algorithms():
    run = _gloo_host_run()
    cal = run.calibration()
    assert cal is not None and cal.loopback and cal.link_name == "loopback"
    assert cal.link_gbps(1 << 20) == pytest.approx(LOOP_GBPS, rel=1e-3) == cal.link_gbps()
    for r in run.rows:
        assert r.time_us / cal.predicted_us(r.op, r.size) == pytest.approx(1.0, rel=0.02), (r.op, r.size)


def test_the_check_catches_an_algorithm_that_moves_other_bytes():
    """Were gloo's reduce-scatter NCCL's (half the wire bytes, no clone), the model would miss it 2x and more:
    meas/pred checks the algorithm, not the link's name."""
    from nccl_forensics.bandwidth.algorithms import volume
    run = _gloo_host_run()
    cal = run.calibration()
    large = [r for r in run.rows if r.op == "reducescatter" and r.size >= 64 << 20]
    for r in large:
        nccl_like = (cal.alpha_us("reducescatter")
                     + volume("nccl", "reducescatter", r.size, 2).wire_bytes(True) / (LOOP_GBPS * 1e3))
        assert r.time_us / nccl_like > 2
        assert r.time_us / cal.predicted_us("reducescatter", r.size) == pytest.approx(1.0, rel=0.02)


def test_parsed_output_and_a_run_without_allreduce_have_no_calibration():
    assert probe.parse_nccl_tests(str(SAMPLE)).calibration() is None
    run = _gloo_host_run()
    run.rows = [r for r in run.rows if r.op != "allreduce"]
    assert run.calibration() is None


def test_the_projection_puts_the_bytes_on_the_named_link_each_way():
    cal = _gloo_host_run().calibration()
    s = 64 << 20
    projected = cal.projected_us("broadcast", s, 10.0, 0.85)          # a network link: each way the same
    assert projected == pytest.approx(ALPHA["broadcast"] + s * 8 / (10e9 * 0.85) * 1e6, rel=1e-3)


def test_the_measured_table_says_which_link_it_predicts():
    import io

    from rich.console import Console

    from nccl_forensics.outputs.probe_render import render_probe
    buf = io.StringIO()
    render_probe(_gloo_host_run(), Console(file=buf, width=200, color_system=None), "10GbE", 10.0, 0.85)
    out = buf.getvalue()
    text = " ".join(out.split())
    assert "their bytes crossed loopback (TCP between local processes), not 10GbE" in text
    assert ("priced at each size from this run's allreduce of that size and the sizes beside it (the median time "
            "per byte of the three; 2 GB/s of bytes sent + received per rank "
            "by the allreduce fit, 2-2 GB/s at each size from 1 MB)") in text
    assert "the 10GbE column projects the same algorithm onto 10GbE × efficiency 0.85" in text
    assert "pred us 10GbE" not in out and " pred us " in out and "10GbE us" in out
    assert "pred: this allreduce calibrates the link, so its pred is its fit" in text
    assert "gloo's reduce-scatter is an allreduce of a clone" in text and "host — " in text
    ratios = [float(line.split()[12]) for line in out.splitlines()
              if line.strip()[:1].isdigit() and len(line.split()) == 14]
    assert len(ratios) == 4 * 26 and all(0.98 <= r <= 1.02 for r in ratios)


def test_parsed_nccl_tests_are_predicted_on_the_named_link():
    import io

    from rich.console import Console

    from nccl_forensics.outputs.probe_render import render_probe
    buf = io.StringIO()
    render_probe(probe.parse_nccl_tests(str(SAMPLE)), Console(file=buf, width=220, color_system=None), "NVLink4",
                 3600.0, 0.85)
    out = buf.getvalue()
    assert "pred us NVLink4" in out and "NCCL's ring: 2(n-1)/n·S each way per rank, over NVLink4" in out
    assert "ran on this host" not in out


def test_json_of_a_measured_run_has_the_prediction_and_the_memory_rows(monkeypatch):
    monkeypatch.setattr(probe, "measure", lambda *a, **k: _gloo_host_run())
    result = CliRunner().invoke(cli, ["probe", "--nproc", "2", "--format", "json"])
    assert result.exit_code == 0, result.output
    run = json.loads(result.output)["runs"][0]
    assert run["backend"] == "gloo" and run["measured_here"] is True
    assert run["calibration"]["link"] == "loopback" and run["calibration"]["wire"] == "sent + received"
    assert run["calibration"]["link_gbps"] == pytest.approx(LOOP_GBPS)
    assert {r["op"] for r in run["memory_rows"]} == {"memcpy", "newbuf", "send"}
    assert run["calibration"]["one_way_gbps_by_size"][str(256 << 20)] == pytest.approx(ONE_WAY_GBPS, rel=1e-3)
    assert all(0.98 <= r["time_us"] / r["pred_us"] <= 1.02 for r in run["rows"])


def test_each_size_is_priced_from_the_allreduce_measured_beside_it_and_its_neighbours():
    """The link's price at a size is the median of the allreduce's time per byte there and at the sizes on
    either side: runs unlucky for the allreduce alone at one size (the others' runs, taken turn by turn with
    its own, were not) do not move the others' prediction, where pricing from that size alone would miss them
    by the same factor; a step in the price with size (a cache outgrown) is kept where it is."""
    run = _gloo_host_run()
    unlucky = 64 << 20
    for r in run.rows:
        if r.op == "allreduce" and r.size == unlucky:
            r.time_us *= 3
    cal = run.calibration()
    for op in ("allgather", "reducescatter"):
        row = next(r for r in run.rows if r.op == op and r.size == unlucky)
        assert row.time_us / cal.predicted_us(op, unlucky) == pytest.approx(1.0, rel=0.02), op
    step = {s: 100.0 + s / (2e3 if s < 16 << 20 else 0.5e3) for s in (2 ** k for k in range(3, 29))}
    for s in step:
        assert probe.per_byte_at(step, s, 100.0) == pytest.approx((step[s] - 100.0) / s)


def test_a_broadcast_is_priced_one_way_from_the_send():
    """gloo's broadcast sends one way (no rank sends and receives at once), and on one host's CPUs a byte one
    way costs less than a byte of a ring's exchange: priced from the exchange (the allreduce), a 2-rank
    broadcast's large sizes would be predicted 1.5x too slow; from the run's send they are right, and a run
    without a send falls back to the exchange's price."""
    run = _gloo_host_run()
    cal = run.calibration()
    assert cal.send is not None and cal.send.alpha_us == pytest.approx(SEND_ALPHA, rel=1e-3)
    for r in (r for r in run.rows if r.op == "broadcast"):
        assert r.time_us / cal.predicted_us("broadcast", r.size) == pytest.approx(1.0, rel=0.02), r.size
    no_send = _gloo_host_run(send=False)
    fallback = no_send.calibration()
    assert fallback.send is None and not fallback.send_us
    big = next(r for r in no_send.rows if r.op == "broadcast" and r.size == 256 << 20)
    assert big.time_us / fallback.predicted_us("broadcast", big.size) == pytest.approx(LOOP_GBPS / ONE_WAY_GBPS,
                                                                                      rel=0.02)
    # the ring collectives stay on the exchange's price
    for r in (r for r in run.rows if r.op in ("allgather", "reducescatter")):
        assert r.time_us / cal.predicted_us(r.op, r.size) == pytest.approx(1.0, rel=0.02), (r.op, r.size)


def test_a_measured_gloo_run_asks_for_a_send_only_where_an_op_sends_one_way():
    assert probe.memory_ops("gloo", ("allreduce", "broadcast"), 2) == ("send",)
    assert probe.memory_ops("gloo", ("allgather", "broadcast"), 4) == ("memcpy", "newbuf", "send")
    assert probe.memory_ops("gloo", ("allreduce",), 2) == ()
    assert probe.memory_ops("gloo", ("broadcast",), 1) == () and probe.memory_ops("nccl", ("broadcast",), 2) == ()


def test_the_host_table_shows_the_send_and_the_header_its_one_way_price():
    import io

    from rich.console import Console

    from nccl_forensics.outputs.probe_render import render_probe
    buf = io.StringIO()
    render_probe(_gloo_host_run(), Console(file=buf, width=250, color_system=None), None, None, 0.85)
    text = " ".join(buf.getvalue().split())
    assert "and one way (a transfer no rank answers at once, as a broadcast's) from its send, the same way" in text
    assert "GB/s sent at each size from 1 MB" in text and "send us" in text and "send GB/s" in text
    assert "priced one way from the run's send (host table)" in text


def test_the_worker_shares_one_buffer_per_role_across_sizes():
    """The sizes' buffers are views of one buffer per role, grown to the largest size asked (faulted in once,
    not per size and sweep), each set to the value its op starts from."""
    torch = pytest.importorskip("torch")
    from nccl_forensics.bandwidth import probe_worker as w
    w._POOL.clear()
    cpu = torch.device("cpu")
    big = w._pooled("in", 1 << 12, 2.0, cpu)
    small = w._pooled("in", 16, 3.0, cpu)
    assert small.data_ptr() == big.data_ptr() and small.numel() == 16 and bool((small == 3.0).all())
    grown = w._pooled("in", 1 << 13, 1.0, cpu)
    assert grown.numel() == 1 << 13 and w._pooled("out", 8, 0.0, cpu).data_ptr() != grown.data_ptr()
    assert w._warmups(w.LARGE_BYTES, 2, 0) == 1 and w._warmups(1024, 2, 0) == 2 and w._warmups(w.LARGE_BYTES, 2, 1) == 0
    w._POOL.clear()


def test_an_op_the_backend_lacks_is_caught_without_a_warm_up(monkeypatch):
    """With --warmup 0 the first timed run is an op's first use: an op the backend lacks gets its error row, and
    the other ops keep their times (the ops take turns run by run)."""
    torch = pytest.importorskip("torch")
    import torch.distributed as dist

    from nccl_forensics.bandwidth import probe_worker as w
    real = w._run_once

    def lacking(op, inp, out):
        if op == "broadcast":
            raise RuntimeError("broadcast is not supported here\nmore")
        real(op, inp, out)

    monkeypatch.setattr(w, "_run_once", lacking)
    dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
    try:
        failed: dict = {}
        times = w.timed_runs(["allreduce", "broadcast"], 1024, 0, 3, torch.device("cpu"), failed)
    finally:
        dist.destroy_process_group()
        w._POOL.clear()
    assert list(times) == ["allreduce"] and len(times["allreduce"]) == 3
    assert failed == {"broadcast": (1024, "broadcast is not supported here")}
