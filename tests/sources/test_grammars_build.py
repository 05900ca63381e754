"""Every grammar builds as LALR, and (with interegular installed) in strict mode: no shift/reduce
conflicts and no colliding terminals. One table, one row per grammar and its start symbols."""
from __future__ import annotations

from pathlib import Path

import pytest
from lark import Lark

from nccl_forensics.sources.grammars import grammar_dir, grammar_path

START = {
    "ras": ["ras_line"], "slurm": ["slurm_line", "k8s_line"], "torch": ["start", "c10d_line"],
    "torchrun": ["agent_line", "summary_line"],
}
# nccl.lark and wrappers.lark resolve LALR conflicts by terminal priority, which strict mode forbids.
NOT_STRICT = {"nccl", "wrappers", "nccltests"}
NAMES = sorted(p.stem for p in Path(grammar_dir()).glob("*.lark"))


def build(name: str, **options) -> Lark:
    path = grammar_path(name)
    return Lark(path.read_text(), parser="lalr", start=START.get(name, ["start"]), import_paths=[str(path.parent)],
                **options)


@pytest.mark.parametrize("name", NAMES)
def test_grammar_builds(name):
    assert build(name).parser is not None


@pytest.mark.parametrize("name", sorted(set(NAMES) - NOT_STRICT))
def test_grammar_is_strict_without_terminal_collisions(name):
    pytest.importorskip("interegular")
    build(name, strict=True)
