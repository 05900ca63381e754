"""Discovery sniffs a file's kind from its content and takes rank/pid hints from names and layout."""
from __future__ import annotations

import gzip
import os
import pickle
from pathlib import Path

import pytest

from nccl_forensics.errors import BadInput, NoEvidence
from nccl_forensics.model import SourceKind
from nccl_forensics.sources.discover import discover, iter_files, list_files, sniff

NCCL = "node1:12345:12345 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\n" * 20
PYSPY = ('Process 4242: python train.py\nPython v3.11.7 (/usr/bin/python3.11)\n\n'
         'Thread 4242 (idle): "MainThread"\n    all_reduce (torch/distributed/distributed_c10d.py:3252)\n')


@pytest.mark.parametrize("name, content, kind", [
    ("whatever.txt", NCCL, SourceKind.NCCL),
    ("stack.txt", PYSPY, SourceKind.PYSPY),
    ("out.log", "[rank1]: Traceback (most recent call last):\n[rank1]:   File \"t.py\", line 1, in <module>\n",
     SourceKind.CONSOLE),
    ("dmesg.txt", "[ 1234.567890] Memory cgroup out of memory: Killed process 14023 (python3) total-vm:1kB\n",
     SourceKind.KERNEL),
    ("notes.md", "# notes\n", SourceKind.UNKNOWN),
    ("data.bin", "\x00\x01\x02binary", SourceKind.UNKNOWN),
])
def test_kind_is_sniffed_from_content(tmp_path, name, content, kind):
    path = tmp_path / name
    path.write_text(content)
    assert sniff(str(path)).kind is kind


def test_flight_recorder_pickle_and_gzip(tmp_path):
    fr = tmp_path / "nccl_trace_rank_3"
    fr.write_bytes(pickle.dumps({"version": "2.10", "entries": []}))
    src = sniff(str(fr))
    assert (src.kind, src.rank) == (SourceKind.FLIGHT_RECORDER, 3)
    gz = tmp_path / "log.gz"
    gz.write_bytes(gzip.compress(NCCL.encode()))
    assert sniff(str(gz)).kind is SourceKind.NCCL


@pytest.mark.parametrize("path, rank, local_rank, pid, host", [
    ("logs/rank3.log", 3, None, None, None),
    ("logs/nccl_trace_rank_12", 12, None, None, None),
    ("logs/job_rank-7_out.txt", 7, None, None, None),
    ("run/none_ab12/attempt_0/2/stderr.log", None, 2, None, None),
    ("dumps/stack_31337.txt", None, None, 31337, None),
    ("dumps/py-spy-node7-4242.dump", None, None, 4242, "node7"),
    ("nccl.node3.9876.log", None, None, 9876, "node3"),
])
def test_hints_from_names(tmp_path, path, rank, local_rank, pid, host):
    f = tmp_path / path
    f.parent.mkdir(parents=True, exist_ok=True)
    f.write_text(NCCL)
    src = sniff(str(f))
    assert (src.rank, src.local_rank, src.pid, src.host) == (rank, local_rank, pid, host)


def test_missing_and_empty_inputs(tmp_path):
    with pytest.raises(BadInput):
        discover([str(tmp_path / "missing")])
    with pytest.raises(NoEvidence):
        discover([str(tmp_path)])


def test_list_files_is_iter_files_with_its_errors(tmp_path):
    """One walk: list_files gives what iter_files yields (sorted, hidden skipped, a link cycle once), and says which
    path is missing where iter_files passes over it, before any walk."""
    for name in ("b/rank1.log", "a/rank0.log", ".hidden/rank9.log", "a/.x.log", "one.log"):
        p = tmp_path / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(NCCL)
    (tmp_path / "b" / "up").symlink_to(tmp_path, target_is_directory=True)
    paths = [str(tmp_path / "one.log"), str(tmp_path)]
    assert list_files(paths) == list(iter_files(paths))
    assert [p.split(str(tmp_path))[1] for p in list_files(paths)] == ["/one.log", "/one.log", "/a/rank0.log",
                                                                      "/b/rank1.log"]
    gone = str(tmp_path / "gone")
    assert list(iter_files([*paths, gone])) == list_files(paths)
    with pytest.raises(BadInput, match="gone: no such file"):
        list_files([*paths, gone])


def test_directories_are_walked_in_sorted_order_and_hidden_files_skipped(tmp_path):
    for name in ("b/rank1.log", "a/rank0.log", ".hidden/rank9.log", "a/.x.log"):
        p = tmp_path / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(NCCL)
    paths = [s.path for s in discover([str(tmp_path)])]
    assert [p.split(str(tmp_path))[1] for p in paths] == ["/a/rank0.log", "/b/rank1.log"]


def test_symlinked_node_folders_are_followed_and_diagnosed(tmp_path):
    """logs/node0 -> elsewhere/node0: the usual way to gather nodes' logs in one place."""
    import shutil

    from nccl_forensics.pipeline.reduce import diagnose

    bundle = Path(__file__).resolve().parents[1] / "sample_logs" / "bundles" / "stopped-rank-nccl"
    for node, ranks in (("node0", range(4)), ("node1", range(4, 8))):
        (tmp_path / "elsewhere" / node).mkdir(parents=True)
        for r in ranks:
            (log,) = bundle.glob(f"*rank{r}.*")
            shutil.copy(log, tmp_path / "elsewhere" / node)
    (tmp_path / "logs").mkdir()
    for node in ("node0", "node1"):
        (tmp_path / "logs" / node).symlink_to(tmp_path / "elsewhere" / node, target_is_directory=True)
    (tmp_path / "logs" / "node0" / "loop").symlink_to(tmp_path / "logs", target_is_directory=True)   # a cycle
    found = discover([str(tmp_path / "logs")])
    assert len(found) == 8 and all(s.kind is SourceKind.NCCL for s in found)
    d = diagnose([str(tmp_path / "logs")], jobs=1)
    assert d.verdict.cls == "stuck_rank" and d.verdict.culprit_ranks == [6]


def test_a_fifo_is_not_a_regular_file_and_is_never_opened(tmp_path):
    fifo = tmp_path / "rank0.log"
    os.mkfifo(fifo)                      # opening it for reading would block until a writer comes
    (src,) = discover([str(tmp_path)])
    assert src.kind is SourceKind.UNKNOWN and src.reason == "not a regular file" and src.error is None


def test_an_unreadable_file_keeps_its_error(tmp_path, monkeypatch):
    from nccl_forensics.errors import BadInput
    from nccl_forensics.sources import discover as discover_mod

    log = tmp_path / "nccl.rank3.log"
    log.write_text("h:1:1 [0] NCCL INFO comm 0x1 rank 3 nranks 4 cudaDev 0 busId 1000 - Init COMPLETE\n")

    def refuse(path, size=8192):
        raise BadInput(f"{path}: cannot read (Permission denied)")

    monkeypatch.setattr(discover_mod, "read_head_gzip", refuse)
    (src,) = discover([str(tmp_path)])
    assert src.kind is SourceKind.UNKNOWN and src.rank == 3 and "Permission denied" in src.error
