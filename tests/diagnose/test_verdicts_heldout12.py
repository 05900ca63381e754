"""Message families missed on held-out set 12 (real console pastes), each in the forms the family arrives in:

- The c10d store's address that does not resolve: torch 1.0 - 1.10's tcputil::connect raises
  `ValueError: host not found: <gai_strerror text>` (every getaddrinfo failure text), from a `tcp://` or `env://`
  rendezvous, in a spawn traceback or behind a rank prefix: a network error (the rendezvous cannot reach the store).
- gloo's pair between two ranks whose addresses are of different families (`ss1.ss_family == ss2.ss_family. 2 vs
  10`, IPv4 vs IPv6), from the tcp or the uv transport, each rank printing its side: a network error.
"""
from __future__ import annotations

import pytest

from nccl_forensics.sources import catalogue

from .consoles import console_verdict

GAI = ["Name or service not known", "Temporary failure in name resolution", "No address associated with hostname"]
SPAWN = ("-- Process 0 terminated with the following error:\nTraceback (most recent call last):\n"
         '  File "/usr/lib/python3/dist-packages/torch/distributed/rendezvous.py", line 126, in _tcp_rendezvous_handler\n'
         "    store = TCPStore(result.hostname, result.port, world_size, start_daemon, timeout)\n")


@pytest.mark.parametrize("reason", GAI)
@pytest.mark.parametrize("form", ["spawn", "rank_prefix", "bare", "cut"])
def test_a_store_host_that_does_not_resolve_is_a_network_error(reason, form, tmp_path):
    line = f"ValueError: host not found: {reason}"
    text = {"spawn": SPAWN + line, "rank_prefix": f"[rank1]: {line}", "bare": line,
            "cut": "ValueError: host not found: " + reason[:9]}[form]
    if form == "cut":                           # the decisive words are the whole gai text: a cut one is no entry
        assert not [h for h in catalogue.match(text) if h.message.id == "pytorch.store_host_not_found"]
        return
    assert [h.message.id for h in catalogue.match(line)] == ["pytorch.store_host_not_found"]
    verdict = console_verdict(tmp_path, text)
    assert verdict.cls == "network_error", verdict.summary


def test_host_not_found_of_other_software_is_no_entry():
    # the same two words in another program's message (a Java client, a web router) carry no resolver text after
    assert not catalogue.match("Host not found: www.example.com")


@pytest.mark.parametrize("transport", ["tcp", "uv"])
@pytest.mark.parametrize("sides", [("2", "10"), ("10", "2")])
@pytest.mark.parametrize("prefix", ["", "[rank0]: ", "0: "])
def test_a_pair_of_mixed_address_families_is_a_network_error(transport, sides, prefix, tmp_path):
    a, b = sides
    text = "\n".join(f"{prefix}RuntimeError: [enforce fail at ../third_party/gloo/gloo/transport/{transport}/"
                     f"device.cc:276] ss1.ss_family == ss2.ss_family. {x} vs {y}" for x, y in ((a, b), (b, a)))
    hits = [h for h in catalogue.match(text.splitlines()[0]) if h.message.id == "gloo.address_family_mismatch"]
    assert hits and hits[0].fields["family"] == a and hits[0].fields["peer_family"] == b
    verdict = console_verdict(tmp_path, text)
    assert verdict.cls == "network_error", verdict.summary


def test_the_gloo_size_check_stays_a_shape_mismatch():
    # the other `enforce fail` of the same transport (pair.cc) keeps its own entry
    [hit] = catalogue.match("RuntimeError: [enforce fail at ../third_party/gloo/gloo/transport/tcp/pair.cc:446] "
                            "op.preamble.length <= op.nbytes. 8 vs 4")
    assert hit.message.id == "gloo.size_mismatch"
