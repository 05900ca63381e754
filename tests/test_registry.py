"""The detector registry: unique stable codes, the code pattern, every module registered, doc headings."""
from __future__ import annotations

import inspect
import pkgutil

import nccl_forensics.detectors as detectors
from nccl_forensics.detectors import CODE_PATTERN, REGISTRY, detector_class
from nccl_forensics.scenarios import SCENARIOS, VERDICT_CLASSES

HEADINGS = ("What it detects:", "Why it hangs or dies:", "Evidence it needs:", "Example:", "Known limits:",
            "Suggested fix:")


def test_codes_are_unique_and_match_the_pattern():
    codes = [e.code for e in REGISTRY]
    assert len(codes) == len(set(codes))
    assert all(CODE_PATTERN.match(c) for c in codes)
    assert len({e.name for e in REGISTRY}) == len(REGISTRY)


def test_every_detector_module_is_registered():
    modules = {m.name for m in pkgutil.iter_modules(detectors.__path__) if not m.name.startswith("_")}
    assert modules - {"base"} == {e.module for e in REGISTRY}


def test_classes_agree_with_the_registry_and_the_verdict_classes():
    for entry in REGISTRY:
        cls = detector_class(entry)
        assert (cls.code, cls.name) == (entry.code, entry.name)
        assert cls.cls in VERDICT_CLASSES and cls.needs


def test_docstrings_have_every_heading_in_order():
    for entry in REGISTRY:
        doc = inspect.getmodule(detector_class(entry)).__doc__ or ""
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
