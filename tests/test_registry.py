"""The one registry of codes (detectors and topology checks) and the evidence-format registry: unique stable
codes, the code pattern, every module and check registered, every registered thing resolves, doc headings."""
from __future__ import annotations

import inspect
import pkgutil

import pytest

import nccl_forensics.detectors as detectors
from nccl_forensics.codes import CODES, TOPOLOGY, documentation, lookup, of_kind, resolve
from nccl_forensics.detectors import CODE_PATTERN, REGISTRY, detector_class
from nccl_forensics.scenarios import SCENARIOS, VERDICT_CLASSES
from nccl_forensics.topo import checks_net, checks_rings
from nccl_forensics.topo.checks import CHECKS

HEADINGS = ("What it detects:", "Why it hangs or dies:", "Evidence it needs:", "Example:", "Known limits:",
            "Suggested fix:")


def test_codes_are_unique_and_match_the_pattern():
    codes = [e.code for e in CODES]
    assert len(codes) == len(set(codes))
    assert all(CODE_PATTERN.match(c) for c in codes)
    assert len({e.name for e in CODES}) == len(CODES)          # a name is as good as a code: one meaning


@pytest.mark.parametrize("code", CODES, ids=lambda c: c.code)
def test_every_code_resolves_and_is_documented(code):
    assert callable(resolve(code))
    assert lookup(code.code) == code and lookup(code.name) == code
    assert len(documentation(code).splitlines()) > 3


def test_every_detector_module_is_registered():
    modules = {m.name for m in pkgutil.iter_modules(detectors.__path__) if not m.name.startswith("_")}
    assert modules - {"base"} == {e.leaf for e in REGISTRY}


def test_every_topology_check_is_registered_and_run():
    functions = {name for mod in (checks_net, checks_rings) for name in vars(mod)
                 if name.startswith("check_") and callable(getattr(mod, name))}
    assert functions == {c.attr for c in of_kind(TOPOLOGY)}
    assert [(i, n) for i, n, _ in CHECKS] == [(c.code, c.name) for c in of_kind(TOPOLOGY)]


def test_every_registered_evidence_format_resolves():
    """Each format object names one kind, a sniffer, and either a reader or LineParser classes, no kind twice;
    every kind but UNKNOWN has a format."""
    from nccl_forensics.model import SourceKind
    from nccl_forensics.sources.base import LineParser
    from nccl_forensics.sources.formats import FORMATS
    kinds = [fmt.kind for fmt in FORMATS]
    assert len(kinds) == len(set(kinds))
    assert set(kinds) == set(SourceKind) - {SourceKind.UNKNOWN}
    for fmt in FORMATS:
        assert callable(fmt.sniff), fmt.kind
        assert not (fmt.reader and fmt.parsers), fmt.kind
        assert fmt.reader is None or callable(fmt.reader), fmt.kind
        assert all(isinstance(cls, type) and issubclass(cls, LineParser) for cls in fmt.parsers), fmt.kind
        if fmt.kind is not SourceKind.SUMMARY:          # summaries are read by the pipeline, not here
            assert fmt.reader or fmt.parsers, fmt.kind


def test_classes_agree_with_the_registry_and_the_verdict_classes():
    for entry in REGISTRY:
        cls = detector_class(entry)
        assert (cls.code, cls.name) == (entry.code, entry.name)
        assert cls.cls in VERDICT_CLASSES and cls.needs


def test_docstrings_have_every_heading_in_order():
    for entry in REGISTRY:
        doc = inspect.getmodule(detector_class(entry)).__doc__ or ""
        assert doc
        positions = [doc.find(h) for h in HEADINGS]
        assert all(p >= 0 for p in positions), entry.code
        assert positions == sorted(positions), entry.code


def test_kebab_names_match_scenarios_where_one_exists():
    shared = {e.name for e in REGISTRY} & set(SCENARIOS)
    assert shared >= {"shape-mismatch", "dtype-mismatch", "op-mismatch", "skipped-collective", "dropped-rank",
                      "stuck-rank"}
    for entry in REGISTRY:
        if entry.name in SCENARIOS:
            assert SCENARIOS[entry.name].expected_class == detector_class(entry).cls
