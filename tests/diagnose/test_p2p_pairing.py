"""fr_semantics._pair_p2p (one dict of groups) against the three-dict pairing it replaced: the same pairs, in the
same order, and the same unmatched ops, on random ops and on a Megatron pipeline's dumps (fr_synth_pp)."""
from __future__ import annotations

import importlib.util
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from nccl_forensics.diagnosis import fr_semantics
from nccl_forensics.diagnosis.fr_semantics import P2POp, Unmatched
from nccl_forensics.pipeline.reduce import diagnose

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("fr_synth_pp", ROOT / "benchmarks" / "fr_synth_pp.py")
fr_synth_pp = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fr_synth_pp)


def _reference(ops, dumped):
    """The pairing as it was: sends, recvs and recvs from any source in three dicts."""
    sends: dict[tuple, list] = {}
    recvs: dict[tuple, list] = {}
    anysource: dict[tuple, list] = {}
    for item in ops:
        rank, pg, kind, peer = item[0], item[2], item[5], item[6]
        if rank is None:
            continue
        if peer is None:
            if kind == "recv":
                anysource.setdefault((pg, rank), []).append(item)
        elif kind == "send":
            sends.setdefault((pg, rank, peer), []).append(item)
        else:
            recvs.setdefault((pg, peer, rank), []).append(item)
    matched, out = [], []
    for key in sorted(set(sends) | set(recvs), key=str):
        pg, src, dst = key
        if src not in dumped or dst not in dumped:
            continue
        s, r = sends.get(key, []), recvs.get(key, [])
        spare = anysource.get((pg, dst))
        if spare and len(s) > len(r):
            r = list(r)
            while len(s) > len(r) and spare:
                r.append(spare.pop(0))
        matched.append((pg, src, dst, s, r))
        extra, culprit = (s[len(r):], dst) if len(s) > len(r) else (r[len(s):], src)
        for item in extra:
            if item[8] != "completed":
                out.append(Unmatched(pg, culprit, item[0], P2POp._make(item[2:]), item[1]))
                break
    return matched, out


def _op(rank, pg, kind, peer, state, numel=4):
    return (rank, f"nccl_trace_rank_{rank}", pg, 0, 0, kind, peer, numel, state, 1, 0.0)


_RANK = st.one_of(st.none(), st.integers(0, 3))
_OPS = st.lists(st.builds(_op, _RANK, st.sampled_from(["0", "1"]), st.sampled_from(["send", "recv", "barrier"]),
                          _RANK, st.sampled_from(["completed", "scheduled", "started"]),
                          st.sampled_from([4, 8])), max_size=60)


@settings(max_examples=300, deadline=None)
@given(ops=_OPS, dumped=st.sets(st.integers(0, 3)))
def test_random_ops_pair_as_before(ops, dumped):
    assert fr_semantics._pair_p2p(ops, dumped) == _reference(ops, dumped)


def test_a_megatron_pipeline_pairs_as_before(tmp_path, monkeypatch):
    seen = []

    def checked(ops, dumped):
        got = fr_semantics_pair(ops, dumped)
        seen.append(len(ops))
        assert got == _reference(list(ops), set(dumped))
        return got

    fr_semantics_pair = fr_semantics._pair_p2p
    monkeypatch.setattr(fr_semantics, "_pair_p2p", checked)
    paths = fr_synth_pp.make_dumps(tmp_path, entries=150, tp=2, pp=4, dp=2, micro=4, culprit=9)
    diagnose([str(p) for p in paths])
    assert seen and max(seen) > 100
