"""Diagnose reads no topology: the block scanner skips the topology lines of processes of known rank
(`iter_records(topology=False)`, nccl_fast.BlockScanner._unread_topology). Differential checks against the full path:

- events: the same events in the same order, less only transport/tree/connected events whose (rank, host, pid)
  another event of the same file carries; the same COLL runs; `stats["skipped_line"]` their last line;
- verdicts: `diagnose` gives the same JSON with and without the skip, on every sample log folder, every corpus
  file and a job of per-rank logs shaped like the benchmark's (`bench_log_shapes.py small`).
"""
from __future__ import annotations

import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nccl_forensics.model import CollRun, SourceKind
from nccl_forensics.outputs.diagnosis_json import render
from nccl_forensics.pipeline import map as map_step
from nccl_forensics.pipeline.reduce import diagnose
from nccl_forensics.sources import iter_records, line_parsers, nccl_fast
from nccl_forensics.sources.discover import discover, sniff
from tests.corpus.corpus import CORPUS, corpus_files, stripped

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_logs"
SKIPPED_KINDS = {"transport", "tree", "connected"}
sys.path.insert(0, str(ROOT / "benchmarks"))
from bench_log_shapes import write_rank_log  # noqa: E402


def sample_folders() -> list[Path]:
    return sorted(p for group in ("bundles", "nccl", "nccl-tests", "topo", "evidence") if (SAMPLES / group).is_dir()
                  for p in (SAMPLES / group).iterdir() if p.is_dir())


def corpus_copies(tmp: Path) -> list[Path]:
    return [stripped(path, tmp / sub / str(i)) for sub in ("nccl", "console", "console2", "evidence")
            for i, path in enumerate(corpus_files(sub))]


@pytest.fixture(scope="module")
def rank_logs(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("ranks")
    for rank in range(16):
        write_rank_log(folder / f"nccl.rank{rank}.log", rank, 16, 20_000, 3 if rank == 15 else 0)
    return folder


def records(src, topology: bool) -> tuple[list, dict]:
    stats: dict = {}
    out = []
    for item in iter_records(src, stats, topology=topology):
        out.extend(("run", ev.kind, ev.line, ev.rank, ev.text, ev.data) for ev in item.events()) \
            if type(item) is CollRun else out.append(item)
    return out, stats


def key(ev):
    if type(ev) is tuple:
        return ev
    return (ev.kind, ev.source, ev.file, ev.line, ev.rank, ev.host, ev.pid, ev.tid, ev.device, ev.comm, ev.time,
            ev.text, ev.data, ev.local_rank)


def text_sources(paths: list[Path]):
    return [s for s in discover([str(p) for p in paths]) if line_parsers(s)]


def check_events(src) -> int:
    full, _ = records(src, True)
    fast, stats = records(src, False)
    dropped: list = []
    kept_keys = iter([key(ev) for ev in fast])      # `fast` is `full` less some events, in the same order
    want = next(kept_keys, None)
    for ev in full:
        if want is not None and key(ev) == want:
            want = next(kept_keys, None)
        else:
            dropped.append(ev)
    assert want is None, f"{src.path}: an event of the skipping path is not in the full path's order: {want}"
    facts = {(ev.rank, ev.host, ev.pid) for ev in fast if type(ev) is not tuple}
    for ev in dropped:
        assert ev.kind in SKIPPED_KINDS, f"{src.path}:{ev.line}: {ev.kind} skipped"
        assert ev.rank is not None and (ev.rank, ev.host, ev.pid) in facts, f"{src.path}:{ev.line}"
    assert stats.get("skipped_line", 0) == max((ev.line for ev in dropped), default=0)
    return len(dropped)


@pytest.mark.slow                                   # > 5 s on 2 cores
def test_sample_logs_lose_only_topology_events():
    sources = text_sources(sample_folders())
    assert sources
    assert sum(check_events(src) for src in sources) > 0      # the samples do have skipped lines


@pytest.mark.skipif(not CORPUS.is_dir(), reason="no ../shared/corpus")
def test_corpus_loses_only_topology_events(tmp_path):
    for copy in corpus_copies(tmp_path):
        src = sniff(str(copy))
        if line_parsers(src):
            check_events(src)


def test_rank_logs_lose_only_topology_events(rank_logs):
    sources = text_sources([rank_logs])
    assert sum(check_events(src) for src in sources) >= 16 * 20


def verdict_json(path: Path, topology: bool, monkeypatch) -> str:
    if topology:
        full = map_step.parse_pkg.iter_records
        monkeypatch.setattr(map_step.parse_pkg, "iter_records",
                            lambda source, stats=None, topology=True, **kw: full(source, stats, True, **kw))
    try:
        return render(diagnose([str(path)], jobs=1))
    except Exception as exc:                    # noqa: BLE001 - the same error both ways is the same answer
        return f"{type(exc).__name__}: {exc}"
    finally:
        monkeypatch.undo()


@pytest.mark.slow                                   # > 5 s on 2 cores
def test_sample_verdicts_equal(monkeypatch):
    for folder in sample_folders():
        assert verdict_json(folder, False, monkeypatch) == verdict_json(folder, True, monkeypatch), folder


@pytest.mark.skipif(not CORPUS.is_dir(), reason="no ../shared/corpus")
@pytest.mark.slow                                   # > 5 s on 2 cores
def test_corpus_verdicts_equal(tmp_path, monkeypatch):
    for copy in corpus_copies(tmp_path):
        if sniff(str(copy)).kind is not SourceKind.UNKNOWN:
            assert verdict_json(copy, False, monkeypatch) == verdict_json(copy, True, monkeypatch), copy


def test_rank_log_verdicts_equal(rank_logs, monkeypatch):
    assert verdict_json(rank_logs, False, monkeypatch) == verdict_json(rank_logs, True, monkeypatch)


SHAPES = [
    "node0000:30001:30001 [1] NCCL INFO Channel 00/0 : 1[1] -> 2[2] via P2P/CUMEM/read",
    "gpu-7.cluster:9:12 [0] NCCL INFO Channel 03/1 : 4[3000] -> 0[7000] [send] via NET/IB/1(4)/GDRDMA   ",
    "h:1:1 [0] NCCL INFO Ring 00 : 7[7] -> 0[1] [receive] via NET/IB/0",
    "h:1:1 [0] NCCL INFO Trees [0] 1/8/-1->0->-1 [1] -1/-1/-1->0->8",
    "h:1:1 [0] NCCL INFO Connected all rings",
    "h:1:1 [0] NCCL INFO Connected all trees",
    "2024-01-01T10:30:45 [0] NCCL INFO Connected all rings",
    "rank:1:2 [0] NCCL INFO Connected all rings",
    "stdout:1:2 [0] NCCL INFO Connected all rings",
]
NOT_SHAPES = [
    "h:1:1 [0] NCCL INFO Channel 00/0 : 1[1] -> 2[2] via direct shared memory",          # a via text of words
    "h:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC comm 0x1234 nRanks 02",  # the comm part
    "h:1:1 [0] NCCL INFO Channel 00/16 :    0   1   2   3",                                # a ring line
    ">h:1:1 [0] NCCL INFO Connected all rings",                                          # a wrapper's `>`
    "[rank0]:h:1:1 [0] NCCL INFO Connected all rings",
    "h:1:1 [0] NCCL INFO Connected all rings comm 0x5 nRanks 8",
    "h:1:1 [0] NCCL INFO Ring 00 : 7[7] -> 0[0] [receive] via NET/Socket/0",              # N402 reads its interface
    "h:1:1 [0] NCCL INFO Channel 00/0 : " + "1" * 40 + "[1] -> 2[2] via P2P/IPC",         # int() would refuse
]


@pytest.mark.parametrize("text", SHAPES)
def test_topology_shapes_are_lines_the_parser_reads_as_topology(text):
    from nccl_forensics.sources.lines import make_line
    from nccl_forensics.sources.nccl import parse_message
    from nccl_forensics.sources.nccl_fast import TOPOLOGY_LINE_RE
    assert TOPOLOGY_LINE_RE.fullmatch(text)
    assert make_line(1, text) == (1, text, None, None, None, None)
    assert parse_message(text)[1] in SKIPPED_KINDS


@pytest.mark.parametrize("text", NOT_SHAPES)
def test_other_lines_are_not_topology_shapes(text):
    from nccl_forensics.sources.nccl_fast import TOPOLOGY_LINE_RE
    assert TOPOLOGY_LINE_RE.fullmatch(text) is None


def test_every_sample_topology_shape_is_read_as_topology():
    from nccl_forensics.sources.lines import iter_lines, make_line
    from nccl_forensics.sources.nccl import parse_message
    from nccl_forensics.sources.nccl_fast import TOPOLOGY_LINE_RE
    seen = 0
    for src in text_sources(sample_folders()):
        for line in iter_lines(src.path, strip_wrappers=False):
            if TOPOLOGY_LINE_RE.fullmatch(line.text):
                seen += 1
                assert make_line(line.no, line.text).raw is None
                assert parse_message(line.text)[1] in SKIPPED_KINDS, (src.path, line.no)
    assert seen


def test_a_process_topology_lines_are_skipped_once_its_rank_is_known(tmp_path):
    """Before its init line a process's topology line is read (its rank unknown: held, then filled); after it,
    each run of them is skipped, whatever other lines come between; another process's lines are read."""
    head, other = "h:1:1 [0] NCCL INFO ", "g:2:2 [0] NCCL INFO "
    channel = head + "Channel {:02}/0 : 1[0] -> 2[1] via P2P/CUMEM/read"
    lines = [channel.format(0), head + "ncclCommInitRank comm 0x55d4a0 rank 1 nranks 4 cudaDev 0 nvmlDev 0 busId "
             "1d000 commId 0x7c2a1f0e5b3d9e41 - Init START", *(channel.format(n) for n in range(1, 4)),
             head + "P2P Chunksize set to 131072", head + "Trees [0] 2/-1/-1->1->0", other + channel[20:].format(5),
             head + "Connected all rings", "RuntimeError: x", head + "Connected all trees"]
    path = tmp_path / "nccl.h.1.log"
    path.write_text("\n".join(lines) + "\n")
    src = text_sources([path])[0]
    assert check_events(src) == 6
    assert [ev.line for ev in records(src, False)[0] if ev.kind in SKIPPED_KINDS] == [1, 8]


# ---- a run of topology lines skipped at once (`_unread_topology_run`) equals them skipped one by one ----
_PROCS = ("h:1:1 [0] NCCL INFO ", "g:2:2 [1] NCCL INFO ", "h:01:1 [0] NCCL INFO ", "hé:3:3 [0] NCCL INFO ")
_TOPOLOGY = ("Channel {n:02}/0 : 1[0] -> 2[1] via P2P/CUMEM/read", "Channel {n:02}/1 : 4[3000] -> 0[7000] [send] via "
             "NET/IB/1(4)/GDRDMA   ", "Ring {n:02} : 7[7] -> 0[0] [receive] via NET/Socket/0", "Trees [0] 1/8/-1->0->-1 "
             "[1] -1/-1/-1->0->8", "Connected all rings", "Connected all trees", "Channel {n:02}/0 : 1[0] -> 2[1] via "
             "P2P/\x7fIPC", "Trees [0] 1/8/-1->0->-1 ")
_OTHERS = ("ncclCommInitRank comm 0x55d4a{p} rank {p} nranks 4 cudaDev 0 nvmlDev 0 busId 1d000 commId 0x7c2a1f0e5b3d9e41 "
           "- Init START", "P2P Chunksize set to 131072", "AllReduce: opCount {n:x} sendbuff 0x7f0 recvbuff 0x7f1 count 8 "
           "datatype 7 op 0 root 0 comm 0x55d4a{p} [nranks=4] stream 0x5", "NCCL WARN Cuda failure 'out of memory'")


@st.composite
def topology_logs(draw) -> list[str]:
    lines = []
    for n in range(draw(st.integers(1, 60))):
        p = draw(st.integers(0, len(_PROCS) - 1))
        kind = draw(st.integers(0, 9))
        if kind < 7:
            lines.append(_PROCS[p] + draw(st.sampled_from(_TOPOLOGY)).format(n=n))
        elif kind < 9:
            lines.append(_PROCS[p] + draw(st.sampled_from(_OTHERS)).format(n=n, p=p))
        else:
            lines.append(draw(st.sampled_from(["", "RuntimeError: x", "  File \"t.py\", line 1, in <module>"])))
    return lines


def runs_skipped_as_lines(path: Path, lines: list[str], newline: bool, monkeypatch) -> tuple[list, dict]:
    path.write_text("\n".join(lines) + ("\n" if newline else ""), encoding="utf-8")
    src = sniff(str(path))
    if not line_parsers(src):
        return [], {}
    runs = records(src, False)
    with monkeypatch.context() as patch:            # the reference: every run's lines tried one by one
        patch.setattr(nccl_fast.BlockScanner, "_unread_topology_run", lambda self, run: False)
        assert records(src, False) == runs
    return runs


@settings(deadline=None, max_examples=150, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=topology_logs(), newline=st.booleans())
def test_a_topology_run_is_skipped_as_its_lines_one_by_one(tmp_path, monkeypatch, lines, newline):
    runs_skipped_as_lines(tmp_path / "nccl.h.1.log", lines, newline, monkeypatch)


def test_a_run_with_a_line_over_max_line_is_read_line_by_line(tmp_path, monkeypatch):
    from nccl_forensics.sources.lines import MAX_LINE
    head = _PROCS[0]
    lines = [head + _OTHERS[0].format(p=0), *(head + _TOPOLOGY[0].format(n=n) for n in range(3)),
             head + "Channel 04/0 : 1[0] -> 2[1] via P2P/IPC/" + "x" * MAX_LINE, head + _TOPOLOGY[4],
             *(head + _TOPOLOGY[0].format(n=n) for n in range(5, 5 + MAX_LINE // 50))]   # a run longer than MAX_LINE
    events, stats = runs_skipped_as_lines(tmp_path / "nccl.h.1.log", lines, True, monkeypatch)
    assert [ev.line for ev in events if ev.kind in SKIPPED_KINDS] == [5]
    assert stats["skipped_line"] == len(lines)
