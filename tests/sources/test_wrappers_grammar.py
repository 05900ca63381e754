"""grammars/wrappers.lark (the reference) and lines.unwrap (its fast path) strip the same wrappers and read
the same rank/host/local rank from them."""
from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lark import Transformer

from nccl_forensics.sources.grammars import lalr
from nccl_forensics.sources.lines import unwrap

NCCL = "node1:12345:12400 [3] NCCL INFO Using network IB"

# (line, body, rank, host, local_rank)
TABLE = [
    ("[1,3]<stdout>:" + NCCL, NCCL, 3, None, None),
    ("[1,3]<stderr>: " + NCCL, NCCL, 3, None, None),
    ("Fri Aug 11 12:31:45 2023[1,0]<stdout>:" + NCCL, NCCL, 0, None, None),
    # Horovod's own launcher tags `[rank]<stream>:`; neither it nor Open MPI adds a space, so indents are kept
    ("[6]<stderr>:  File \"a.py\", line 1, in f", "  File \"a.py\", line 1, in f", 6, None, None),
    ("Fri Sep 25 16:52:57 2020[1]<stderr>:Traceback (most recent call last):", "Traceback (most recent call last):",
     1, None, None),
    ("[1,0]<stderr>:    work.wait()", "    work.wait()", 0, None, None),
    ("[rank0]:" + NCCL, NCCL, 0, None, None),
    ("[rank12]: Traceback (most recent call last):", "Traceback (most recent call last):", 12, None, None),
    ("[default3]:" + NCCL, NCCL, None, None, 3),
    ("[default3]:[rank7]:" + NCCL, NCCL, 7, None, 3),
    ("[155] " + NCCL, NCCL, 155, None, None),
    ("(RayTrainWorker pid=615, ip=10.72.7.6) " + NCCL, NCCL, None, "10.72.7.6", None),
    ("(train_rft pid=2657296) 2024-05-11 14:10:52.224 " + NCCL, NCCL, None, None, None),
    ("rdma-gpu-train-worker-0: " + NCCL, NCCL, None, "rdma-gpu-train-worker-0", None),
    ("3: " + NCCL, NCCL, 3, None, None),
    ("2025-11-12 20:41:43,831 - INFO - " + NCCL, NCCL, None, None, None),
    (" 2025-02-18 12:54 " + NCCL, NCCL, None, None, None),
    ("2025-02-18T12:54:01.123Z [rank2]:" + NCCL, NCCL, 2, None, None),
    ("[RANK 1] " + NCCL, NCCL, 1, None, None),
    ("    [rank7]:[E816 01:45:40.183 x.cpp:607] y", "[E816 01:45:40.183 x.cpp:607] y", 7, None, None),
    ("  [default2]:" + NCCL, NCCL, None, None, 2),
    ("rank:  3 | " + NCCL, NCCL, 3, None, None),
    ("[trainer0|2]:" + NCCL, NCCL, None, None, 2),
    ("[trainer3]:" + NCCL, NCCL, None, None, 3),
    ("dinov2-giant-nodes.cn-d004 [stderr] [rank14]:[E909 x.cpp:1] y", "[E909 x.cpp:1] y", 14,
     "dinov2-giant-nodes.cn-d004", None),
    ("stderr: " + NCCL, NCCL, None, None, None),
    ("> " + NCCL, NCCL, None, None, None),
    ("> [rank3]: Traceback (most recent call last):", "Traceback (most recent call last):", 3, None, None),
    # a host or srun label before a C++ abort's lines (libstdc++'s terminate handler, c10::Error's backtrace)
    ("mpi-rc1ou1aw-launcher: terminate called after throwing an instance of 'c10::DistBackendError'",
     "terminate called after throwing an instance of 'c10::DistBackendError'", None, "mpi-rc1ou1aw-launcher", None),
    ("mpi-rc1ou1aw-launcher:   what():  [PG 1 Rank 5] x", "  what():  [PG 1 Rank 5] x", None, "mpi-rc1ou1aw-launcher",
     None),
    ("node7: frame #2: c10d::ProcessGroupNCCL::watchdogHandler() + 0x1a0", "frame #2: c10d::ProcessGroupNCCL::"
     "watchdogHandler() + 0x1a0", None, "node7", None),
    ("12: Exception raised from checkTimeout at x.cpp:565 (most recent call first):",
     "Exception raised from checkTimeout at x.cpp:565 (most recent call first):", 12, None, None),
    ("12: [E1010 11:50:05.315 x.cpp:632] y", "[E1010 11:50:05.315 x.cpp:632] y", 12, None, None),
    # a Ray actor whose node address is a host name; a log collector's bracketed time before it or a rank wrapper
    ("(WorkerDict pid=1230, ip=train-1316-worker-0) [rank15]:[E510 x.cpp:629] y", "[E510 x.cpp:629] y", 15,
     "train-1316-worker-0", None),
    ("[2025-05-10 00:18:21] (WorkerDict pid=1230, ip=10.0.0.9) [rank15]:" + NCCL, NCCL, 15, "10.0.0.9", None),
    ("[2025-05-10 00:18:21] [rank3]:" + NCCL, NCCL, 3, None, None),
    # not wrappers
    ("RuntimeError: boom", "RuntimeError: boom", None, None, None),
    ("node7: what is this", "node7: what is this", None, None, None),
    (NCCL, NCCL, None, None, None),
    ("[2025-03-01 12:00:00] " + NCCL, "[2025-03-01 12:00:00] " + NCCL, None, None, None),
    ("[E321 02:07:08.408271257 ProcessGroupNCCL.cpp:607] x", "[E321 02:07:08.408271257 ProcessGroupNCCL.cpp:607] x",
     None, None, None),
    ("  File \"train.py\", line 3, in <module>", "  File \"train.py\", line 3, in <module>", None, None, None),
]


class WrapperFields(Transformer):
    """Tree → (body, rank, host, local_rank), with unwrap's precedence: the first rank/host seen is kept,
    except that a rank wrapper overrides an earlier srun label."""

    def start(self, children):
        rank = host = local = None
        body = ""
        for child in children:
            if isinstance(child, tuple):
                kind, value = child
                if kind in ("rank", "label") and (rank is None or kind == "rank"):
                    rank = value if kind == "rank" or rank is None else rank
                elif kind == "local":
                    local = value
                elif kind == "host" and host is None:
                    host = value
            else:
                body = str(child)
        return body, rank, host, local

    def ompi_tag(self, c): return ("rank", int(re.search(r"\[(?:\d+,)?(\d+)\]", c[0]).group(1)))
    def torch_rank(self, c): return ("rank", int(re.search(r"\d+", c[0]).group()))
    def torch_local(self, c): return ("local", int(re.search(r"(\d+)\]", c[0]).group(1)))
    def launcher_rank(self, c): return ("rank", int(c[0].strip()[1:-1]))
    def host_prefix(self, c): return ("host", str(c[0])[:-2])
    def srun_label(self, c): return ("label", int(str(c[0])[:-2]))
    def leading_ts(self, c): return ("ts", None)

    def app_rank(self, c): return ("rank", int(re.search(r"\d+", c[0]).group()))
    def bar_rank(self, c): return ("rank", int(re.search(r"\d+", c[0]).group()))
    def role_bar_local(self, c): return ("local", int(re.search(r"\|(\d+)\]", c[0]).group(1)))
    def stream_host(self, c): return ("host", str(c[0]).split(" ")[0])
    def stream_word(self, c): return ("ts", None)
    def indent(self, c): return ("ts", None)

    def ray_actor(self, c):
        m = re.search(r"ip=([\w.:-]+)", c[0])
        return ("host", m.group(1)) if m else ("ray", None)


def by_grammar(text):
    return WrapperFields().transform(lalr("wrappers").parse(text))


@pytest.mark.parametrize("line,body,rank,host,local", TABLE)
def test_table(line, body, rank, host, local):
    assert unwrap(line) == (body, rank, host, local)
    assert by_grammar(line) == (body, rank, host, local)


WRAPPERS = ["[1,3]<stdout>:", "[5]<stderr>:", "[rank5]:", "[default2]:", "[17] ", "(RayTrainWorker pid=8, ip=10.0.0.9) ",
            "node-4: ", "2: ", "2025-11-12 20:41:43,831 - INFO - ", "[0] ", "[RANK 2] ", "rank: 4 | ",
            "[trainer1|3]:", "cn-d004 [stderr] ", "stderr: ", "> "]
BODIES = [NCCL, "Traceback (most recent call last):", "RuntimeError: boom", "[E321 x.cpp:1] y", "plain text", "",
          "[2025-03-01 12:00:00] " + NCCL]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(WRAPPERS), max_size=4), st.sampled_from(BODIES))
def test_unwrap_agrees_with_the_grammar_on_stacked_wrappers(wrappers, body):
    line = "".join(wrappers) + body
    if not line:
        return
    assert unwrap(line)[0] == by_grammar(line)[0]
