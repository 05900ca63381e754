"""`ncclf parse`'s coverage probe (issue 25 point 6): a line that looks like an error and matches no catalogue entry
is an `unknown_message`; lines that only frame a message elsewhere are not, and the NCCL WARNs the probe found on
the project's own logs are catalogue entries now."""
from nccl_forensics.model import Source, SourceKind
from nccl_forensics.sources import parse_source


def _events(tmp_path, text):
    path = tmp_path / "console.log"
    path.write_text(text, encoding="utf-8")
    return parse_source(Source(str(path), SourceKind.CONSOLE)).events


def test_an_unknown_error_line_is_reported(tmp_path):
    evs = _events(tmp_path, "something odd happened\nfrobnicator failed to frobnicate the widget\n")
    assert [ev.kind for ev in evs] == ["unknown_message"]


def test_frame_lines_last_error_header_and_warning_echo_are_not_messages(tmp_path):
    text = ("frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x96 (0x7f in /x/libc10.so)\n"
            "[rank0]: frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x96 (0x7f in /x/libc10.so)\n"
            "Last error:\n"
            "[trainer0|0]:Last error:\n"
            "  warnings.warn(\n")
    assert not [ev for ev in _events(tmp_path, text) if ev.kind == "unknown_message"]


def test_nccl_warns_found_by_the_probe_are_catalogued(tmp_path):
    text = ("rm-b-1:18041:18041 [0] graph/rings.cc:49 NCCL WARN Error : ring 1 does not contain rank 4\n"
            "trn-node-b:98037:98037 [0] misc/socket.cc:484 NCCL WARN socketStartConnect: exceeded retries (20000)\n"
            "tomte401:1850301:1881358 [0] proxy.cc:1495 NCCL WARN [Service thread] Could not receive type from "
            "localRank 0, res=3, closed=0\n"
            "dc:255756:255756 [3] enqueue.cc:1182 NCCL WARN Error : no algorithm/protocol available\n")
    ids = [ev.data.get("message_id") for ev in _events(tmp_path, text) if ev.kind == "warn"]
    assert ids == ["nccl.ring_missing_rank", "nccl.socket_connect_retries", "nccl.proxy_service_peer_closed",
                   "nccl.no_algorithm_error_prefix"]


def test_an_nccl_info_line_its_parser_reads_is_not_unknown_while_held(tmp_path):
    """NCCL holds a line until its process's rank is known; `comm … - Abort COMPLETE` says `Abort` but is read
    (comm_abort), and stays read whether or not a rank has been seen yet."""
    text = "".join(f"h:4471{r}:4471{r} [{r}] NCCL INFO comm 0x785e95{r} rank {r} nranks 4 cudaDev {r} busId d{r}000 "
                   "- Abort COMPLETE\n" for r in range(4))
    evs = _events(tmp_path, text)
    assert [ev.kind for ev in evs] == ["comm_abort"] * 4
