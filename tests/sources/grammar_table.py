"""The shared body of the table-driven grammar tests: a valid line gives its kind and fields, an invalid one
gives None. Each test module keeps its own VALID/INVALID tables of real-format lines."""
from __future__ import annotations


def assert_valid(classify, text: str, kind: str, fields: dict) -> None:
    parsed = classify(text)
    assert parsed is not None and parsed[0] == kind, (text, parsed)
    for key, value in fields.items():
        assert parsed[1][key] == value, key


def assert_invalid(classify, text: str) -> None:
    assert classify(text) is None, text
