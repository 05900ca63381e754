"""`ncclf diagnose` reads capture bundles with no extra flags: the manifest names what files cannot (the node,
and which global rank a local rank or pid was)."""
from __future__ import annotations

import json

from nccl_forensics.model import SourceKind
from nccl_forensics.sources.capture_manifest import MARK, read_bundle_facts
from nccl_forensics.sources.discover import discover


def write_bundle(root, host: str, ranks: list[tuple[int, int, int]]) -> None:
    """A node's bundle: torchrun --log-dir files named by local rank only, a py-spy-like file without a rank."""
    (root / host).mkdir(parents=True)
    doc = {MARK: 1, "host": host, "ranks": [{"rank": r, "local_rank": lr, "pid": pid} for r, lr, pid in ranks],
           "context": ["node/interfaces.txt"]}
    (root / host / "manifest.json").write_text(json.dumps(doc))
    for _, local, pid in ranks:
        logs = root / host / "torchrun_logs" / "none_abc" / "attempt_0" / str(local)
        logs.mkdir(parents=True)
        (logs / "stderr.log").write_text("[rank0]: Traceback (most recent call last):\n")
    (root / host / "node").mkdir()
    (root / host / "node" / "interfaces.txt").write_text("1: lo    inet 127.0.0.1/8 scope host lo\n")
    (root / host / "dmesg.txt").write_text("[1.000000] NVRM: Xid (PCI:0000:07:00): 79, pid=0\n")


def test_two_nodes_bundles_give_each_file_its_global_rank_and_host(tmp_path):
    write_bundle(tmp_path, "node-a", [(0, 0, 100), (1, 1, 101)])
    write_bundle(tmp_path, "node-b", [(2, 0, 100), (3, 1, 101)])
    sources = {s.path.replace(str(tmp_path) + "/", ""): s for s in discover([str(tmp_path)])}
    logs = {p: (s.rank, s.host) for p, s in sources.items() if p.endswith("stderr.log")}
    assert logs == {
        "node-a/torchrun_logs/none_abc/attempt_0/0/stderr.log": (0, "node-a"),
        "node-a/torchrun_logs/none_abc/attempt_0/1/stderr.log": (1, "node-a"),
        "node-b/torchrun_logs/none_abc/attempt_0/0/stderr.log": (2, "node-b"),
        "node-b/torchrun_logs/none_abc/attempt_0/1/stderr.log": (3, "node-b"),
    }
    assert sources["node-b/dmesg.txt"].host == "node-b"
    assert sources["node-a/manifest.json"].kind is SourceKind.UNKNOWN
    assert sources["node-a/node/interfaces.txt"].kind is SourceKind.UNKNOWN


def test_any_other_json_named_manifest_is_left_alone(tmp_path):
    (tmp_path / "manifest.json").write_text(json.dumps({"ranks": [{"rank": 1, "pid": 55}]}))
    (tmp_path / "py-spy-55.txt").write_text("Process 55: python x.py\nPython v3.11.7\n\nThread 55 (idle): \"MainThread\"\n")
    assert read_bundle_facts(str(tmp_path / "manifest.json")) is None
    pyspy = next(s for s in discover([str(tmp_path)]) if s.path.endswith(".txt"))
    assert (pyspy.rank, pyspy.pid) == (None, 55)


def test_a_pid_in_the_manifest_names_the_rank_of_a_file_that_only_has_a_pid(tmp_path):
    write_bundle(tmp_path, "n1", [(7, 3, 4242)])
    (tmp_path / "n1" / "py-spy-4242.txt").write_text("Process 4242: python x.py\nPython v3.11.7\n\n"
                                                      "Thread 4242 (idle): \"MainThread\"\n")
    pyspy = next(s for s in discover([str(tmp_path / "n1")]) if s.path.endswith("py-spy-4242.txt"))
    assert (pyspy.rank, pyspy.host) == (7, "n1")


def test_an_unreadable_or_odd_manifest_changes_nothing(tmp_path):
    (tmp_path / "manifest.json").write_text("{not json")
    (tmp_path / "x.log").write_text("hello\n")
    assert {s.path.rsplit("/", 1)[1]: s.host for s in discover([str(tmp_path)])} == {"manifest.json": None, "x.log": None}
    (tmp_path / "manifest.json").write_text(json.dumps({MARK: 1, "ranks": [{"rank": "x", "pid": True}, 5]}))
    facts = read_bundle_facts(str(tmp_path / "manifest.json"))
    assert facts.rank_by_pid == {} and facts.host is None
