"""gloo (the CPU backend torch ships, and what torch's Gloo process groups raise).

Read in pytorch/gloo: gloo/transport/tcp/pair.cc (Pair::read/write/waitUntilConnected, handleReadWrite),
gloo/transport/tcp/unbound_buffer.cc (waitRecv/waitSend), gloo/common/linux.cc; torch's ProcessGroupGloo.cpp.
"""
from __future__ import annotations

from . import Message as M

_PEER = r"(?: \[(?P<host>[^\]]*)\]:(?P<port>\d+))?"

MESSAGES = [
    M("gloo.connection_closed",
      r"(?:\[[^\]]*gloo[^\]]*\] )?Connection closed by peer" + _PEER,
      "gloo_error", "consequence", "network_error", "gloo (torch 1.0 - 2.13)", "gloo:gloo/transport/tcp/pair.cc:Pair::read",
      "RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:534] Connection closed by peer [10.0.0.2]:36241",
      "Connection closed by peer", data={"category": "connection_closed"}, anchor="Connection closed by peer"),
    M("gloo.read_reset",
      r"Read error" + _PEER + r":? (?:.*?)Connection reset by peer",
      "gloo_error", "consequence", "network_error", "gloo (torch 1.0 - 2.13)", "gloo:gloo/transport/tcp/pair.cc:Pair::read",
      "RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:589] Read error [10.0.0.2]:5312: Connection reset by "
      "peer", "Read error [10.0.0.2]:5312: Connection reset by peer", data={"category": "connection_reset"},
      anchor="Read error"),
    M("gloo.timeout",
      (r"Timed out waiting (?P<timeout_ms>\d+)ms for (?P<op>recv|send) operation", r" to complete"),
      "gloo_error", "failure", "timeout_unknown", "gloo (torch 1.0 - 2.13)",
      "gloo:gloo/transport/tcp/unbound_buffer.cc:UnboundBuffer::waitRecv",
      "RuntimeError: [../third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:81] Timed out waiting 1800000ms for recv "
      "operation to complete", "Timed out waiting 1800000ms for recv operation", data={"category": "timeout"},
      anchor="Timed out waiting"),
    M("gloo.size_mismatch",
      (r"op\.preamble\.length <= op\.nbytes\. (?P<received_bytes>\d+) vs (?P<expected_bytes>\d+)",
       r"\.? Received data size doesn't match expected size"),
      "gloo_error", "failure", "shape_mismatch", "gloo (torch 1.0 - 2.13)", "gloo:gloo/transport/tcp/pair.cc:Pair::prepareRead",
      "RuntimeError: [enforce fail at ../third_party/gloo/gloo/transport/tcp/pair.cc:446] op.preamble.length <= "
      "op.nbytes. 8 vs 4", "op.preamble.length <= op.nbytes. 8 vs 4", data={"category": "size_mismatch"},
      anchor="op.preamble.length"),
    M("gloo.size_mismatch_text",
      r"Received data size doesn't match expected size",
      "gloo_error", "failure", "shape_mismatch", "gloo (torch 1.0 - 2.13)", "gloo:gloo/transport/tcp/pair.cc:Pair::prepareRead",
      "RuntimeError: Received data size doesn't match expected size", "Received data size doesn't match expected size",
      data={"category": "size_mismatch"}),
    M("gloo.connect_full_mesh",
      (r"Gloo connectFullMesh failed with", r" (?P<reason>.+)"),
      "gloo_error", "failure", "network_error", "torch 1.9 - 2.13", "pytorch:torch/csrc/distributed/c10d/ProcessGroupGloo.cpp",
      "RuntimeError: Gloo connectFullMesh failed with [../third_party/gloo/gloo/transport/tcp/pair.cc:144] no error",
      "Gloo connectFullMesh failed with", data={"category": "connect"}),
]
