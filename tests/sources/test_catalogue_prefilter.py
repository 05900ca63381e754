"""The catalogue's prefilter (`_rare_first`: each anchor searched from its rarest character) finds something in a
text exactly where the anchor trie (`quick`) does: on every line of the sample logs and the corpus, on every
entry's example in each arrival form, on each anchor cut and glued into other text, and on random text."""
from __future__ import annotations

import re
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from nccl_forensics.sources import catalogue
from nccl_forensics.sources.catalogue import _compiled, _rare_first, _trie, messages

ROOT = Path(__file__).resolve().parents[2]
TEXT_DIRS = (ROOT / "sample_logs", ROOT.parent / "shared" / "corpus")


def _agree(text: str) -> bool:
    comp = _compiled()
    return (comp.rare.search(text) is None) == (comp.quick.search(text) is None)


def _lines():
    for folder in TEXT_DIRS:
        if not folder.is_dir():
            continue
        for path in sorted(folder.rglob("*")):
            if path.is_file() and path.stat().st_size < 4 << 20:
                try:
                    yield from path.read_text(errors="replace").splitlines()
                except OSError:
                    continue


def test_agrees_with_the_trie_on_every_sample_and_corpus_line():
    lines = list(_lines())
    assert len(lines) > 1000
    assert [t for t in lines if not _agree(t)] == []
    assert any(_compiled().quick.search(t) for t in lines)


def test_agrees_on_every_example_and_anchor_in_context():
    words = list(_compiled().by_anchor)
    texts = [msg.example for msg in messages()]
    for word in words:
        texts += [word, "x" + word + "y", word[1:], word[:-1], f"host:1:2 [0] NCCL INFO {word} more",
                  word + word, word[:len(word) // 2] + " " + word[len(word) // 2:]]
    assert [t for t in texts if not _agree(t)] == []
    assert all(_compiled().rare.search(w) for w in words)


def test_empty_word_matches_everywhere_as_the_trie_does():
    assert re.search(_rare_first(["", "ab"]), "zz") is not None
    assert re.search(_trie(["", "ab"]), "zz") is not None


def test_a_line_without_anchor_has_no_hits():
    assert catalogue.match("node0:1:1 [0] NCCL INFO cudaDriverVersion 12040") == []


_ALPHABET = "".join(sorted(set("".join(_compiled().by_anchor)))) + " \n\t0123456789"


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(sorted(_compiled().by_anchor)), max_size=3),
       st.text(alphabet=_ALPHABET, max_size=60), st.integers(0, 40))
def test_agrees_on_random_text_with_cut_anchors(words, noise, cut):
    text = noise
    for word in words:
        at = cut % (len(text) + 1)
        text = text[:at] + word[cut % len(word):] + text[at:] + word[: cut % (len(word) + 1)]
    assert _agree(text)
