"""Message families missed on held-out set 14 (real console pastes of vision, speech, science and infrastructure
jobs), each in the forms the family arrives in:

- The AWS libfabric net plugin (aws-ofi-nccl, `NET/OFI ` on every line it logs): a completion the provider failed,
  a completion queue it could not read, or a libfabric object (fabric, domain, endpoint, CQ, address vector) it
  could not build, in every wording from 0.9 to 1.21: a network error. Its INFO lines carry the same words and stay
  benign.
- NCCL's argument check (misc/argcheck.cc, 2.3.5 - 2.30): a root outside the communicator, an unknown type or
  reduction, a NULL or foreign buffer: a failure of the calling rank (ncclInvalidArgument), named as such.
- Two WARNs on adjacent lines while a parser holds its line: each keeps its own meaning (the earlier one took the
  later one's before).
"""
from __future__ import annotations

import pytest

from nccl_forensics.model import Source, SourceKind, shows_failure
from nccl_forensics.sources import catalogue, parse_source

from .consoles import console_verdict

HEAD = "ip-172-31-4-17:8716:9558 [2] "

# the plugin's words as its sources print them (the function:line before NCCL WARN is __PRETTY_FUNCTION__)
OFI_COMPLETION = [
    "NET/OFI Request completed with error. RC: 21. Error: unknown error. Completed length: 0",          # 1.7 - 1.11
    "NET/OFI Request 0x7f2a4c01d2a0 completed with error. RC: 5. Error: Input/output error. Completed length: 0, "
    "Request: { dev: 0, size: 8192 }",                                                                  # 1.3 - 1.9
    "NET/OFI Request 0x7f2a4c01d2a0 completed with error. RC: 5. Error: 113 (No route to host). Completed length: "
    "0, Request: { dev: 0 }",                                                                           # 1.10+
    "NET/OFI Request 0x7f2a4c01d2a0 seq 12 completed with error. RC: 5. Error: 4 (Input/output error). Completed "
    "length: 0, Request: { dev: 0 }",                                                                   # 1.17 - 1.20
    "NET/OFI Request 0x7f2a4c01d2a0 (SEND) completed with error: err: 5, flags: 0, prov_errno: 4, strerror: "
    "Input/output error, len: 0",                                                                       # 1.21+
    "NET/OFI Remote write completed with error. RC: 5. Flags: 0. Error: 4 (Input/output error). Completed length: "
    "0",                                                                                                # 1.15+
    "NET/OFI Fatal: rx buffer recv completed with error",                                               # 1.14+
    "NET/OFI Unable to retrieve completion queue entries. RC: -5, ERROR: Input/output error",           # 0.9+
    "NET/OFI Unable to read from fi_cq_readerr. RC: -11. Error: Resource temporarily unavailable",      # 0.9+
]
OFI_SETUP = [
    "NET/OFI Couldn't open AV. RC: -22, ERROR: Invalid argument",
    "NET/OFI Couldn't open CQ. RC: -12, ERROR: Cannot allocate memory",
    "NET/OFI Couldn't open a fabric provider. RC: -61, ERROR: No data available",
    "NET/OFI Couldn't open a fabric access domain. RC: -19, ERROR: No such device",
    "NET/OFI Couldn't allocate endpoint. RC: -22, ERROR: Invalid argument",
    "NET/OFI Couldn't bind EP-CQ. RC: -22, ERROR: Invalid argument",
    "NET/OFI Couldn't enable endpoint. RC: -22, ERROR: Invalid argument",
    "NET/OFI Couldn't create domain. RC: -12, ERROR: Cannot allocate memory",
    "NET/OFI Creating new endpoint for domain 0x7ef453a99380 failed: Invalid argument",
    "NET/OFI Unable to insert remote address into address vector for device 0. RC: -22",
]
FORMS = {
    "as_printed": lambda m: f"{HEAD}nccl_ofi_rdma.cpp:1463 NCCL WARN {m}",
    "function_line": lambda m: f"{HEAD}create_nccl_ofi_component:459 NCCL WARN {m}",
    "ompi_tag": lambda m: f"[1,23]<stdout>:{HEAD}create_nccl_ofi_component:459 NCCL WARN {m}",
    "cloudwatch": lambda m: f"  | 2025-05-16T16:39:55.216-07:00 | {HEAD}nccl_net_ofi_domain_get_ep:969 NCCL WARN {m}",
}


def _events(tmp_path, text: str):
    path = tmp_path / "console.log"
    path.write_text(text + "\n", encoding="utf-8")
    return parse_source(Source(str(path), SourceKind.CONSOLE)).events


@pytest.mark.parametrize("form", sorted(FORMS))
@pytest.mark.parametrize("words", OFI_COMPLETION + OFI_SETUP)
def test_the_libfabric_plugin_failing_is_a_network_error(words, form, tmp_path):
    want = "nccl.ofi_completion_error" if words in OFI_COMPLETION else "nccl.ofi_setup_failed"
    assert [h.message.id for h in catalogue.match(words)] == [want]
    verdict = console_verdict(tmp_path, FORMS[form](words))
    assert verdict.cls == "network_error", verdict.summary
    assert "NET/OFI" in verdict.summary


@pytest.mark.parametrize("line", [
    f"{HEAD}NCCL INFO NET/OFI Using CUDA driver version 12040",
    f"{HEAD}NCCL INFO NET/OFI Selected provider is efa, fabric is efa (found 4 nics)",
    f"{HEAD}NCCL INFO NET/OFI No NIC info for dev 0. Supplying default values for NIC properties.",
    f"{HEAD}NCCL INFO NET/OFI Setting FI_EFA_FORK_SAFE environment variable to 1",
])
def test_the_plugins_info_lines_show_no_failure(line, tmp_path):
    assert not any(shows_failure(ev) for ev in _events(tmp_path, line))


def test_a_failed_completion_names_the_rank_that_saw_it(tmp_path):
    text = "\n".join([
        f"[1,7]<stdout>:{HEAD}NCCL INFO Ring 00 : 7 -> 8 [send] via NET/AWS Libfabric/0",
        f"[1,23]<stdout>:{HEAD}create_nccl_ofi_component:459 NCCL WARN {OFI_SETUP[0]}",
    ])
    verdict = console_verdict(tmp_path, text)
    assert (verdict.cls, verdict.culprit_ranks) == ("network_error", [23]), verdict.summary


ARGCHECK = [
    ("AllReduce : invalid root 0 (root should be in the 0..-1 range)", {"op": "AllReduce", "root": "0"}),
    ("Broadcast : invalid root 8 (root should be in the 0..7 range)", {"op": "Broadcast", "last_rank": "7"}),
    ("AllReduce : invalid type 12", {"datatype": "12"}),
    ("ReduceScatter : invalid reduction operation 9", {"redop": "9"}),
    ("AllReduce : reduction operation 7 unknown to this communicator", {"redop": "7"}),
    ("Broadcast : recvbuff 0x7f3a00000000 is not a valid pointer", {"buffer": "recvbuff"}),
    ("AllGather : sendbuff argument is NULL", {"buffer": "sendbuff"}),
    ("ReduceScatter : recvbuff allocated on device 1 mismatchs with NCCL device 0",
     {"buffer_device": "1", "nccl_device": "0"}),
]


@pytest.mark.parametrize("words,fields", ARGCHECK)
@pytest.mark.parametrize("prefix", ["", "[1,0]<stdout>:", "[rank0]:"])
def test_an_argument_nccl_refuses_is_the_failure_named(words, fields, prefix, tmp_path):
    [hit] = [h for h in catalogue.match(f"NCCL WARN {words}") if h.message.id == "nccl.invalid_argument"]
    assert {k: hit.fields.get(k) for k in fields} == fields
    text = "\n".join([f"{prefix}{HEAD}misc/argcheck.cc:39 NCCL WARN {words}",
                      f"{prefix}{HEAD}NCCL INFO enqueue.cc:1452 -> 4"])
    verdict = console_verdict(tmp_path, text)
    assert verdict.cls == "unclassified_failure", verdict.summary
    assert words.split(" : ")[1][:12] in verdict.summary


def test_other_softwares_invalid_type_is_no_entry():
    assert not [h for h in catalogue.match("TypeError: invalid type 3 for tensor") if h.message.id ==
                "nccl.invalid_argument"]


def test_adjacent_warns_keep_their_own_meaning(tmp_path):
    # a CloudWatch-prefixed plugin init: an advisory WARN, then the endpoint failure; the failure is the one named
    pre = "  | 2025-05-16T16:39:55.216-07:00 | ip-10-36-29-253:84:2553 [0] "
    text = "\n".join([
        f"{pre}platform_config_endpoint:626 NCCL WARN NET/OFI GDR disabled on GDR-supported instance type p4d.24xlarge",
        f"{pre}nccl_net_ofi_domain_get_ep:969 NCCL WARN {OFI_SETUP[8]}",
        f"{pre}NCCL INFO NET/Socket : Using [0]eth0:10.36.29.253<0>",
    ])
    events = [ev for ev in _events(tmp_path, text) if ev.kind == "warn"]
    by_line = {ev.line: ev.data.get("message_id") for ev in events}
    assert by_line == {1: None, 2: "nccl.ofi_setup_failed"}
    verdict = console_verdict(tmp_path, text)
    assert verdict.cls == "network_error" and "Creating new endpoint" in verdict.summary, verdict.summary
