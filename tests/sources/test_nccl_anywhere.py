"""NCCL lines behind any prefix nobody stripped, and several lines glued onto one (a torn write): each NCCL line
inside a text line is found and parsed, with the same event it gives on its own."""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from nccl_forensics.model import Line, Source, SourceKind
from nccl_forensics.sources.nccl import NcclParser, parse_message

LINES = [   # real lines (../shared/corpus/nccl) without their prefixes
    "ip-10-36-29-253:84:2553 [0] NCCL INFO NET/Socket : Using [0]eth0:10.36.29.253<0>",
    "ip-10-36-29-253:84:2553 [0] nccl_net_ofi_init:155 NCCL WARN NET/OFI Initializing plugin failed",
    "testpc115159:2736635:2736635 [2] NCCL INFO cudaDriverVersion 12040",
    "axa:3048391:3048566 [0] NCCL INFO + PCI[5000.0] - NIC/0",
    "gpu-server320 [5] NCCL INFO bootstrap.cc:868 -> 6 ncclSocketConnect()",
    "node1:12345:12400 [3] misc/socket.cc:50 NCCL WARN socketProgress: Connection closed by remote peer node2<45678>",
    "g340:4181:4857 [0] NCCL INFO Tree 14 : -1 -> 0 -> 1/-1/-1",
]
PREFIXES = [   # what real logs put in front (corpus: CloudWatch, an app's error text, Markdown, k8s, logging)
    "  | 2025-05-16T16:39:55.216-07:00 | ", "error info : ", "> ", "2025-11-24T03:20:21.001125857Z ",
    "2025-11-12 20:41:43,831 - INFO - ", "[RANK 1] 2024-05-01 12:00:00 [ERROR] worker says: ", "stderr: ",
]


def _feed(text: str) -> list:
    parser = NcclParser(Source("x.log", SourceKind.CONSOLE))
    assert parser.feed(Line(1, text))
    parser.finish()
    return list(parser.out) + list(parser.held)


def _alone(text: str):
    return parse_message(text)[1:]


def test_each_prefix_in_front_of_each_line_gives_the_line_s_event():
    for line in LINES:
        for prefix in PREFIXES:
            (ev,) = _feed(prefix + line)
            assert (ev.kind, ev.data) == _alone(line), prefix + line


def test_a_torn_line_with_a_second_line_glued_on_gives_both():
    """easydistill#4: a Trees line cut short, and the next process's line (with its logging stamp) on the same line."""
    first = "g340:4452:4854 [7] NCCL INFO Trees [0] -1/-1/-1->7->6 [1] -1/-1/-1->7->6 [10] -1/-1/-"
    second = "g340:4181:4857 [0] NCCL INFO Tree 14 : -1 -> 0 -> 1/-1/-1"
    events = _feed("2025-11-12 20:41:43,831 - INFO - " + first + "2025-11-12 20:41:43,831 - INFO - " + second)
    assert [e.kind for e in events] == ["tree", "graph_tree"]
    assert events[0].data["truncated"] and [t["channel"] for t in events[0].data["trees"]] == [0, 1]
    assert (events[1].kind, events[1].data) == _alone(second)


def test_a_line_whose_only_nccl_text_is_inside_prose_stays_unparsed():
    (ev,) = _feed("he said NCCL INFO is too verbose")
    assert ev.kind == "unparsed"


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(PREFIXES) | st.text(alphabet=st.characters(blacklist_categories=("Cs",),
                                                                         blacklist_characters="\n\r"), max_size=30),
                max_size=3),
       st.sampled_from(LINES))
def test_arbitrary_stacked_prefixes_never_crash_and_keep_the_event(prefixes, line):
    text = "".join(prefixes) + " " + line
    events = _feed(text)
    assert events
    if all(p in PREFIXES for p in prefixes):
        assert (events[-1].kind, events[-1].data) == _alone(line)
