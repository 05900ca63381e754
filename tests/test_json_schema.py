"""The JSON that `diagnose` and `topo` print validates against the schemas in docs/schema/ (documented in
docs/json.md), on every sample bundle and topology sample."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

jsonschema = pytest.importorskip("jsonschema")

ROOT = Path(__file__).resolve().parents[1]
SCHEMAS = ROOT / "docs" / "schema"
BUNDLES = sorted(p for sub in ("bundles", "flight_recorder") for p in (ROOT / "sample_logs" / sub).glob("*") if p.is_dir())
TOPOLOGIES = sorted(p for p in (ROOT / "sample_logs" / "nccl").glob("*") if p.is_dir())


def validator(name: str):
    schema = json.loads((SCHEMAS / f"{name}.schema.json").read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


@pytest.mark.parametrize("bundle", BUNDLES, ids=lambda p: p.name)
def test_diagnose_json_follows_its_schema(bundle):
    from nccl_forensics.outputs.diagnosis_json import render
    from nccl_forensics.pipeline.reduce import diagnose
    doc = json.loads(render(diagnose([str(bundle)], jobs=1)))
    errors = sorted(validator("diagnose").iter_errors(doc), key=str)
    assert not errors, [f"{list(e.path)}: {e.message}" for e in errors[:5]]


@pytest.mark.parametrize("folder", TOPOLOGIES, ids=lambda p: p.name)
def test_topo_json_follows_its_schema(folder):
    from nccl_forensics.outputs.topo_render import render
    from nccl_forensics.topo import check_topology, topology_from_paths
    comms = topology_from_paths([str(folder)])
    doc = json.loads(render("json", comms, check_topology(comms)))
    errors = sorted(validator("topo").iter_errors(doc), key=str)
    assert not errors, [f"{list(e.path)}: {e.message}" for e in errors[:5]]


def test_every_documented_top_level_key_is_in_the_schema():
    text = (ROOT / "docs" / "json.md").read_text()
    for name in ("diagnose", "topo"):
        for key in json.loads((SCHEMAS / f"{name}.schema.json").read_text())["required"]:
            assert f"`{key}`" in text, f"docs/json.md does not describe {name}'s `{key}`"
