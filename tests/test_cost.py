"""`ncclf cost`: bus-bandwidth factors, the worked examples of the issue, and the CLI contract."""
from __future__ import annotations

import json
import math

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from nccl_forensics.bandwidth import cost
from nccl_forensics.cli import cli


@pytest.mark.parametrize("n, expected", [(1, 0.0), (2, 1.0), (4, 1.5), (8, 1.75), (1024, 2 * 1023 / 1024)])
def test_allreduce_factor(n, expected):
    assert cost.bus_factor("allreduce", n) == pytest.approx(expected)


@pytest.mark.parametrize("collective", ["allgather", "reducescatter", "alltoall"])
@pytest.mark.parametrize("n, expected", [(2, 0.5), (4, 0.75), (16, 15 / 16)])
def test_gather_scatter_alltoall_factor(collective, n, expected):
    assert cost.bus_factor(collective, n) == pytest.approx(expected)


@pytest.mark.parametrize("collective", ["broadcast", "reduce", "sendrecv"])
def test_rooted_and_p2p_factor_is_one(collective):
    assert cost.bus_factor(collective, 2) == cost.bus_factor(collective, 64) == 1.0


def test_unknown_collective_is_rejected():
    with pytest.raises(ValueError, match="unknown collective"):
        cost.bus_factor("allscatter", 4)


@pytest.mark.parametrize("link, seconds", [("1GbE", 14.3), ("10GbE", 1.43), ("RoCE-400", 0.0358)])
def test_gpt2_760m_bf16_on_two_ranks(link, seconds):
    q = cost.CostQuery(params=760e6, bytes_per_elem=2, ranks=2)
    assert cost.comm_time(q, cost.LINKS[link]) == pytest.approx(seconds, rel=0.01)


def test_cli_json_gives_t_comm_within_5_percent_of_14_3_s():
    result = CliRunner().invoke(cli, ["cost", "--params", "760e6", "--dtype", "bf16", "--ranks", "2",
                                      "--link", "1GbE", "--format", "json"])
    assert result.exit_code == 0, result.output
    links = json.loads(result.output)["links"]
    assert [row["link"] for row in links] == ["1GbE"]
    assert links[0]["t_comm_s"] == pytest.approx(14.3, rel=0.05)


def test_cli_without_link_gives_one_row_per_preset():
    result = CliRunner().invoke(cli, ["cost", "--params", "1e9", "--format", "json"])
    rows = json.loads(result.output)["links"]
    assert {r["link"] for r in rows} == set(cost.LINKS)
    assert all(r["t_comm_s"] > 0 for r in rows)


def test_hierarchical_estimate_uses_both_links():
    q = cost.CostQuery(params=1e9, bytes_per_elem=2, ranks=16, gpus_per_node=8, intra_gbps=cost.LINKS["NVLink4"])
    inter_only = cost.transfer_seconds(2e9 / 8, "allreduce", 2, 400, 0.85)
    assert cost.comm_time(q, 400) == pytest.approx(
        inter_only + cost.transfer_seconds(2e9, "allreduce", 8, cost.LINKS["NVLink4"], 0.85))


def test_levers_reduce_exposed_time():
    q = cost.CostQuery(params=760e6, bytes_per_elem=4, ranks=8, compute_s=2.0, accum_steps=4)
    t = cost.comm_time(q, 10)
    lev = cost.levers(q, 10, t)
    assert lev["grad_accum_x4_per_microstep"] == pytest.approx(t / 4)
    assert lev["bf16_compress_hook"] == pytest.approx(t / 2)
    assert lev["powersgd_rank4"] < t
    assert lev["overlap_bucket_25MB"] < t


def test_bad_link_is_a_usage_error():
    result = CliRunner().invoke(cli, ["cost", "--params", "1e9", "--link", "carrier-pigeon"])
    assert result.exit_code == 2 and "unknown link" in result.output


_ODD = st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.sampled_from(["nan", "inf", "-inf", "0", "-5",
                                                                                   "1e400", "abc", ""]))


@settings(max_examples=60, deadline=None)
@given(option=st.sampled_from(["--params", "--link-gbps", "--efficiency", "--compute-s", "--bucket-mb"]), value=_ODD)
def test_cost_rejects_impossible_values_with_exit_2_and_no_traceback(option, value):
    args = ["cost", "--params", "760e6", "--link", "1GbE", option, str(value)]
    result = CliRunner().invoke(cli, args)
    number = _as_float(value)
    valid = number is not None and math.isfinite(number) and number > 0 and (option != "--efficiency" or number <= 1)
    assert result.exit_code == (0 if valid else 2), result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize("ranks", ["0", "-2", "2x0", "0x8", "x", "2.5"])
def test_cost_rejects_impossible_rank_counts(ranks):
    result = CliRunner().invoke(cli, ["cost", "--params", "1e6", "--ranks", ranks])
    assert result.exit_code == 2 and "--ranks" in result.output


def _as_float(value):
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


# --- per-backend algorithms (bandwidth/algorithms.py): what a measured probe run is predicted from ---------

from nccl_forensics.bandwidth import algorithms  # noqa: E402


@pytest.mark.parametrize("op", ["allreduce", "allgather", "reducescatter", "broadcast", "alltoall"])
@pytest.mark.parametrize("n", [2, 8])
def test_nccl_volume_is_the_bus_factor_each_way(op, n):
    vol = algorithms.volume("nccl", op, 1e6, n)
    assert vol.sent == vol.received == pytest.approx(cost.bus_factor(op, n) * 1e6)
    assert vol.copied == vol.fresh == 0
    assert vol.wire_bytes(one_host=False) == pytest.approx(cost.bus_factor(op, n) * 1e6)


def test_gloo_reduce_scatter_is_an_allreduce_of_a_clone():
    """ProcessGroupGloo's reduce_scatter_tensor clones the input and allreduces it: the allreduce's wire bytes
    (twice NCCL's reduce-scatter), a new S-byte buffer, S + S/n copied."""
    s, n = 64e6, 4
    rs, ar = algorithms.volume("gloo", "reducescatter", s, n), algorithms.volume("gloo", "allreduce", s, n)
    assert (rs.sent, rs.received) == (ar.sent, ar.received) == (2 * 3 / 4 * s, 2 * 3 / 4 * s)
    assert rs.sent == 2 * algorithms.volume("nccl", "reducescatter", s, n).sent
    assert rs.fresh == s and rs.copied == pytest.approx(s + s / 4)


def test_gloo_allgather_is_a_ring_into_a_new_buffer_then_a_copy():
    vol = algorithms.volume("gloo", "allgather", 8e6, 2)
    assert vol.sent == vol.received == 4e6 and vol.fresh == 8e6 and vol.copied == pytest.approx(4e6 + 8e6)


@pytest.mark.parametrize("n, rounds", [(2, 1), (3, 2), (4, 2), (8, 3), (9, 4)])
def test_gloo_broadcast_is_a_binomial_tree(n, rounds):
    vol = algorithms.volume("gloo", "broadcast", 1e6, n)
    assert vol.sent == rounds * 1e6 and vol.received == 0 and vol.copied == 0


def test_one_host_pays_both_directions_a_network_link_the_larger():
    vol = algorithms.Volume(sent=3.0, received=2.0)
    assert vol.wire_bytes(one_host=True) == 5.0 and vol.wire_bytes(one_host=False) == 3.0
    assert algorithms.volume("gloo", "allreduce", 1e6, 1) == algorithms.Volume(0.0, 0.0)


def test_each_algorithm_has_a_caption():
    assert "binomial" in algorithms.describe("gloo", "broadcast")
    assert "allreduce of a clone" in algorithms.describe("gloo", "reducescatter")
    assert algorithms.describe("nccl", "allgather").startswith("NCCL's ring: (n-1)/n·S")
