"""The benchmarks' own arithmetic (never their timings: speed goals live in the benchmarks, not in tests)."""
from __future__ import annotations

import importlib.util
from pathlib import Path

BENCH = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_parse.py"


def load_bench():
    spec = importlib.util.spec_from_file_location("bench_parse", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_speed_up_is_the_median_of_back_to_back_pairs_not_best_against_best():
    bench = load_bench()
    ones = [(2.0, 2.0, 0), (3.0, 3.0, 0), (3.2, 3.2, 0), (1.5, 1.5, 0)]     # one lucky 1-core run (1.5 s)
    twos = [(1.0, 2.0, 0), (1.5, 3.0, 0), (2.0, 4.0, 0), (1.0, 2.0, 0)]     # pairs: 2.0, 2.0, 1.6, 1.5
    text = bench.speed_up(ones, twos)
    assert text.startswith("speed-up 1.80x (median of 4 back-to-back pairs, 1.50-2.00x")
    assert text.endswith("best against best 1.50x)")
    assert bench.speed_up(ones[:1], twos[:1]) == "speed-up 2.00x"
