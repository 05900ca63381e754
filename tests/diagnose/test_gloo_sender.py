"""_gloo.sender_change: with two ranks on gloo the aborting receiver leaves no dump; the sender's own history
(and the byte ratio of gloo's "R vs E") tells whether the sender changed. Sequences as in real 2-rank DDP runs."""
from __future__ import annotations

import pandas as pd

from nccl_forensics.detectors._gloo import sender_change

GRAD, METRICS = ("allreduce", "float32", 106240), ("allreduce", "float32", 4)
START = [("allgather", "int64", 1), ("broadcast", "int64", 80), ("broadcast", "float32", 106240),
         GRAD, METRICS, ("broadcast", "int32", 30), ("broadcast", "int32", 1), GRAD]


def _colls(entries) -> pd.DataFrame:
    return pd.DataFrame([{"rank": 1, "seq": i + 1, "op": op, "dtype": dt, "numel": n}
                         for i, (op, dt, n) in enumerate(entries)])


def _abort(received, expected) -> dict:
    return {"received_bytes": received, "expected_bytes": expected}


def test_more_elements_at_the_metrics_call_is_a_size_change():
    change = sender_change(_colls(START + [("allreduce", "float32", 5)]), 1, _abort(8, 4))
    assert change is not None and change.kind == "size" and "seq 9" in change.why


def test_float64_at_the_metrics_call_is_a_dtype_change():
    change = sender_change(_colls(START + [("allreduce", "float64", 4)]), 1, _abort(8, 4))
    assert change is not None and change.kind == "dtype"


def test_the_next_steps_gradient_where_metrics_came_is_a_skip():
    change = sender_change(_colls(START + [GRAD]), 1, _abort(106240, 4))
    assert change is not None and change.kind == "skipped"


def test_a_sender_that_did_what_it_always_does_is_not_blamed():
    assert sender_change(_colls(START + [METRICS]), 1, _abort(8, 4)) is None


def test_a_receiver_still_in_the_previous_collective_is_not_the_senders_fault():
    # extra collective on the receiver: the sender went on to the next gradient all-reduce (E/R fits P/L)
    entries = START + [METRICS, GRAD]
    assert sender_change(_colls(entries), 1, _abort(106240, 4)) is None


def test_a_byte_ratio_that_does_not_fit_the_change_leaves_the_sender_alone():
    assert sender_change(_colls(START + [("allreduce", "float32", 5)]), 1, _abort(106240, 4)) is None


def test_no_byte_counts_no_verdict():
    assert sender_change(_colls(START + [("allreduce", "float32", 5)]), 1, {}) is None
