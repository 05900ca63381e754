"""The example `ncclf explain CODE` prints: what `ncclf diagnose` said on a shipped sample, pasted by cog from a
real run (`cog -r nccl_forensics/cli/explain_examples.py`); tests/test_docs.py fails when it is stale.

SAMPLES are tried in order; a code's example is the first sample where its finding is the verdict's, else the
first where it is found at all. A code no sample shows has no example (its docstring says what it looks for)."""
from __future__ import annotations

import textwrap

SAMPLES = ["sample_logs/bundles/real-stuck-rank", "sample_logs/bundles/real-dropped-rank",
           "sample_logs/bundles/real-shape-mismatch", "sample_logs/bundles/real-dtype-mismatch",
           "sample_logs/bundles/real-op-mismatch", "sample_logs/bundles/real-skipped-collective",
           "sample_logs/bundles/real-cgroup-oom", "sample_logs/bundles/real-timeout",
           "sample_logs/bundles/real-slow-rank", "sample_logs/evidence/torch", "sample_logs/evidence/prefixed-nccl",
           "sample_logs/nccl/socket-fallback", "sample_logs/evidence/ras"]

# [[[cog
# import textwrap
# from nccl_forensics.cli.explain_examples import SAMPLES
# from nccl_forensics.pipeline.reduce import diagnose
# from nccl_forensics.model import rank_span
# from nccl_forensics.outputs.display import prose
# found = {}
# for sample in SAMPLES:
#     d = diagnose([sample], jobs=1)
#     for f in d.findings:
#         primary = f is d.verdict.primary
#         if f.id not in found or (primary and not found[f.id][2]):
#             verdict = f"{d.verdict.cls} [{rank_span(d.verdict.culprit_ranks)}]" if d.verdict.culprit_ranks else d.verdict.cls  # noqa: E501
#             found[f.id] = (sample, verdict, primary, f"{f.id} {f.name}: {prose(f.message)}")
# cog.outl("EXAMPLES = {")
# for code, (sample, verdict, primary, said) in sorted(found.items()):
#     cog.outl(f"    {code!r}: ({sample!r}, {verdict!r}, {primary!r},")
#     pieces = textwrap.wrap(said, 100, drop_whitespace=False)
#     for i, piece in enumerate(pieces):
#         start = "(" if i == 0 else " "
#         end = ")),"  if i == len(pieces) - 1 else ""
#         cog.outl(f"             {start}{piece!r}{end}")
# cog.outl("}")
# ]]]
EXAMPLES = {
    'C101': ('sample_logs/bundles/real-shape-mismatch', 'shape_mismatch [1]', True,
             ("C101 shape-mismatch: rank 1's allreduce at group 0 (default_pg) seq 11 used element count 5 where "
              'the same point of its 2 earlier steps used 4 (no other rank recorded that collective)')),
    'C102': ('sample_logs/bundles/real-dtype-mismatch', 'dtype_mismatch [1]', True,
             ("C102 dtype-mismatch: rank 1's allreduce at group 0 (default_pg) seq 11 used dtype float64 where the "
              'same point of its 2 earlier steps used float32 (no other rank recorded that collective)')),
    'C103': ('sample_logs/bundles/real-op-mismatch', 'op_mismatch [1]', True,
             ('C103 op-mismatch: rank 1 used collective allgather at group 0 (default_pg) seq 11, where 1 of 2 '
              'ranks used allreduce; rank 1 also broke its own step pattern there, the other rank did not')),
    'C104': ('sample_logs/bundles/real-skipped-collective', 'collective_skipped [1]', True,
             ('C104 skipped-collective: rank 1 skipped a collective at group 0 (default_pg) seq 11: in every '
              'earlier step the collective after its previous one had 4 elements, this time it was the one that '
              'comes after that')),
    'C105': ('sample_logs/evidence/torch', 'op_mismatch [3]', False,
             ('C105 analyzer-report: the desync report (TORCH_NCCL_DESYNC_DEBUG) names ranks 2, 3: finished '
              'collective #4 but never joined #5')),
    'M301': ('sample_logs/bundles/real-cgroup-oom', 'oom [1]', True,
             ('M301 oom: rank 1 (pid 28216) was killed by the kernel OOM killer (cgroup /ncclf-23297-706752, anon-'
              'rss 313.6 MiB)')),
    'N401': ('sample_logs/evidence/prefixed-nccl', 'network_error [0]', True,
             ('N401 network-error: rank 0 first reported a network error (peer trn-node-08:41234): socketProgress: '
              'Connection closed by remote peer trn-node-08<41234>')),
    'N402': ('sample_logs/nccl/socket-fallback', 'nic_misselection [0-3]', True,
             ('N402 nic-misselection: host trn-node-a (ranks 0, 1) bootstraps over docker0 (172.17.0.1<0>) in a '
              '4-host job')),
    'R201': ('sample_logs/bundles/real-dropped-rank', 'dropped_rank [1]', True,
             ('R201 dropped-rank: rank 1 was killed by SIGKILL (exit code -9); rank 0 failed after it '
              '(consequences)')),
    'R202': ('sample_logs/bundles/real-stuck-rank', 'stuck_rank [1]', True,
             ('R202 stuck-rank: rank 1 is loading data at reproducers/data.py:41 while rank 0 waits in backward '
              '(DDP gradient all-reduce)')),
    'R203': ('sample_logs/bundles/real-stuck-rank', 'stuck_rank [1]', False,
             ('R203 missing-rank: rank 1 never joined allreduce seq 10 of group 0 (default_pg), where rank 0 waits '
              'for it; it is missing from the front of 1 of 1 stalled group it belongs to and waits in none; its '
              'own dump shows no collective waiting for anyone: it is alive (the watchdog dumped) and stuck outside'
              ' collectives (py-spy: loading data at reproducers/data.py:41)')),
    'S701': ('sample_logs/bundles/real-slow-rank', 'straggler [1]', True,
             ('S701 straggler: rank 1 arrived last at 4 of 16 collectives, a median 324 ms after the others (p95 '
              '373 ms); the others waited 1.34 s for it, 94% of all the waiting; it enqueued its collectives late: '
              'the time goes before the collective (compute, data loading, the host), not into the network')),
    'T601': ('sample_logs/bundles/real-timeout', 'stuck_rank [1]', False,
             ('T601 timeout-unknown: rank 0 timed out; missing: py-spy dumps of every rank while it hangs (py-spy '
              'dump --pid PID); NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,COLL logs')),
    'V501': ('sample_logs/nccl/socket-fallback', 'nic_misselection [0-3]', False,
             ('V501 version-mismatch: NCCL versions differ across ranks: 1 run 2.19.3, 1 run 2.20.5 (odd ones: rank'
              ' 0)')),
}
# [[[end]]]


def example(code: str) -> str | None:
    """The example paragraph for `code`, or None when no shipped sample shows it."""
    if code not in EXAMPLES:
        return None
    sample, verdict, primary, said = EXAMPLES[code]
    how = "its verdict" if primary else "a finding beside its verdict"
    said = textwrap.fill(said, width=108, initial_indent="    ", subsequent_indent="      ", break_long_words=False,
                         break_on_hyphens=False)          # as wide as the docstring's paragraphs
    return (f"Example: a real run on a shipped sample ({how}):\n    $ ncclf diagnose {sample}\n    verdict: {verdict}\n"
            + said)
