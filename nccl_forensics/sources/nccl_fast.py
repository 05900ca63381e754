"""The regex fast path for the high-volume NCCL lines (prefix, COLL, transport), and the decoders both paths share.

`grammars/nccl.lark` is the source of truth; `fast_parse(text)` handles only the INFO lines whose shape it is
sure of and returns None for everything else (the caller then asks the grammar).
`tests/sources/test_nccl_differential.py` checks that both give the same result on every sample line.
"""
from __future__ import annotations

import calendar
import re
from itertools import repeat
from typing import Any, Callable, Iterator, Sequence, cast

from ..errors import BadInput
from ..model import BlockLines, CollContext, CollRun, Event, Line
from .chain import catalogue_parser, dispatch_lines, finish, offer, settle
from .gc_pause import gc_paused
from .lines import GAP, MAX_LINE, TAIL_BASE, HeadDone, count_newlines, iter_blocks, make_line

# A parsed line: ((timestamp text, host, pid, tid, device), kind, data). Data holds raw enum codes; the
# parser decodes dtype/redop once it knows the NCCL version of the printing process.
Prefix = tuple[str | None, str | None, int | None, int | None, int | None]
Parsed = tuple[Prefix, str, dict[str, Any]]

# §5 ncclDataType_t and ncclRedOp_t.
DTYPES = ("int8", "uint8", "int32", "uint32", "int64", "uint64", "float16", "float32", "float64",
          "bfloat16", "float8_e4m3", "float8_e5m2")
REDOPS = ("sum", "prod", "max", "min", "avg")
REDUCING = frozenset({"allreduce", "reduce", "reducescatter"})
ROOTED = frozenset({"broadcast", "reduce", "gather", "scatter"})
P2P_OPS = frozenset({"send", "recv"})
_OP_NAMES = {
    "AllGather": "allgather", "AllReduce": "allreduce", "Broadcast": "broadcast", "Reduce": "reduce",
    "ReduceScatter": "reducescatter", "Send": "send", "Recv": "recv", "AlltoAll": "alltoall",
    "AllToAll": "alltoall", "AllToAllv": "alltoallv", "Gather": "gather", "Scatter": "scatter",
    "PutSignal": "put_signal", "Signal": "signal", "WaitSignal": "wait_signal",
}


def normalise_op(raw: str) -> str:
    name = _OP_NAMES.get(raw)
    if name is None:
        base = raw[len("mscclpp_nccl"):] if raw.startswith("mscclpp_nccl") else raw
        name = _OP_NAMES.get(base) or re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", base).lower()
    return name


def decode_dtype(code: int, version: tuple[int, ...] | None, rccl: bool) -> str | None:
    """A `datatype %d` code → torch-style name, by NCCL version (None when the code is not valid for it)."""
    if code < 0 or code >= len(DTYPES):
        return None
    if code == 9 and version is not None and version < (2, 10):
        return None
    if code >= 10 and (rccl or (version is not None and version < (2, 24))):
        return None
    return DTYPES[code]


def decode_redop(code: int, version: tuple[int, ...] | None) -> str | None:
    if code < 4:
        return REDOPS[code] if code >= 0 else None
    if code == 4:
        return "avg" if version is None or version >= (2, 10) else None
    return "premulsum" if version is None or version >= (2, 11) else None


_VERSION_RE = re.compile(r"(\d+\.\d+\.\d+)([^+\s]*)(?:\+(cuda|hip)(\d+\.\d+)?\S*)?")


def split_version(text: str) -> tuple[str, str, str | None, str | None]:
    """'2.18.3+cuda12.1' → ('2.18.3', '', '12.1', None); '2.22.3-HEAD:271856d' → ('2.22.3', '-HEAD:271856d', None, None)."""
    m = _VERSION_RE.match(text)
    if m is None:
        return text, "", None, None
    cuda = m.group(4) if m.group(3) == "cuda" else None
    hip = m.group(4) if m.group(3) == "hip" else None
    return m.group(1), m.group(2), cuda, hip


def version_tuple(version: str | None) -> tuple[int, ...] | None:
    if not version:
        return None
    try:
        return tuple(int(x) for x in version.split(".")[:3])
    except ValueError:
        return None


_NET_RE = re.compile(r"(?P<kind>NET|COLLNET)/(?P<plugin>[^/]+)/(?P<dev>\d+)(?:\((?P<proxy>\d+)\))?(?:/(?P<detail>.*))?$")


def decode_transport(via: str) -> dict[str, Any]:
    """'NET/IB/3(6)/GDRDMA' → transport NET/IB, net_device '3', detail GDRDMA, pxn True, proxy_rank 6."""
    m = _NET_RE.match(via)
    if m is not None:
        proxy = m.group("proxy")
        return {"transport": f"{m.group('kind')}/{m.group('plugin')}", "detail": m.group("detail") or None,
                "net_device": m.group("dev"), "pxn": proxy is not None,
                "proxy_rank": int(proxy) if proxy is not None else None}
    if via == "direct shared memory":
        return _transport("SHM", via)
    head, _, rest = via.partition("/")
    if head == "P2P" and rest:
        sub, _, detail = rest.partition("/")
        return _transport(f"P2P/{sub}", detail or None)
    return _transport(head, rest or None)


def _transport(name: str, detail: str | None) -> dict[str, Any]:
    return {"transport": name, "detail": detail, "net_device": None, "pxn": False, "proxy_rank": None}


_CATEGORIES = (
    ("socket", re.compile(r"socket|Connection (?:closed|reset|refused)|Connect to|[Cc]all to (?:recv|send|connect)|"
                          r"Net : |Bootstrap|NET/Socket", re.I)),
    ("ib", re.compile(r"NET/IB|ibv_|ibvwrap|net_ib|IB_|mlx5|completion", re.I)),
    ("init", re.compile(r"Duplicate GPU|ring \d+ does|Invalid rank|no transport for|NCCL_COMM_ID|mismatch in rank count|"
                        r"iommu|HSA_FORCE|find a path|version mismatch", re.I)),
    ("cuda", re.compile(r"Cuda failure|cuda|CUDA|nvml|out of memory")),
    ("proxy", re.compile(r"proxy|Service thread|Proxy Service|Rem Allocator", re.I)),
    ("init", re.compile(r"(?:^|/)init\.cc", re.I)),
)


def warn_category(src_file: str | None, message: str) -> str:
    hay = f"{src_file or ''} {message}"
    for name, pattern in _CATEGORIES:
        if pattern.search(hay):
            return name
    return "other"


_TS_RE = re.compile(r"\[?(\d{4})-(\d\d)-(\d\d)[ T](\d\d):(\d\d):(\d\d)(?:[.,](\d+))?")


def parse_timestamp(text: str | None) -> float | None:
    """'[2025-03-01 12:00:00]' → epoch seconds (the log's local time read as UTC; NCCL prints no zone)."""
    if not text:
        return None
    m = _TS_RE.match(text)
    if m is None:
        return None
    y, mo, d, h, mi, s, frac = m.groups()
    if not ("01" <= mo <= "12" and "01" <= d <= "31") or y == "0000":   # no date (timegm refuses it)
        return None
    secs = calendar.timegm((int(y), int(mo), int(d), int(h), int(mi), int(s), 0, 0, 0))
    return secs + (float(f"0.{frac}") if frac else 0.0)


# ---- the fast regexes (mirrors of grammars/nccl.lark rules prefixed_line/info_line, coll, transport) ----
# The via text is an atomic group with VIA_TEXT's own lookahead: like Lark's lexer, it never backtracks to a
# later ` comm ... nRanks` when what follows the first one does not parse.
PREFIX_RE = re.compile(
    r"(?:(?P<ts>\[\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[.,]\d+)?[^\]\n]*\]) +)?"
    r"(?P<host>[^\s:\[\]]+):(?P<pid>\d+):(?P<tid>\d+) +(?:\[(?P<dev>-?\d+)\] +)?NCCL INFO +(?P<msg>\S.*)")
COLL_MSG = (r"([A-Za-z_]+): opCount +([0-9a-fA-F]+) +sendbuff +(0x[0-9a-fA-F]+|\(nil\)) +recvbuff +(0x[0-9a-fA-F]+|\(nil\))"
            r" +count +(\d+) +datatype +(\d+) +op +(\d+) +root +(\d+) +comm +(0x[0-9a-fA-F]+|\(nil\))"
            r" +\[nranks= *(\d+) *\] +stream +(0x[0-9a-fA-F]+|\(nil\))(?: +task +(\d+) +globalrank +(\d+))? *")
COLL_RE = re.compile(COLL_MSG)
_PTR = r"(?:0x[0-9a-fA-F]++|\(nil\))"
TRANSPORT_RE = re.compile(
    r"(Channel|Ring) +(\d+)(?:/(\d+))? +: +(\d+)\[([0-9a-fA-F]+)\] +-> +(\d+)\[([0-9a-fA-F]+)\]"
    r"(?: +\[(send|receive)\])? +via +(?>(\S(?:.*?\S)??)(?=\s+comm\s+(?:0x[0-9a-fA-F]+|\(nil\))\s+nRanks|\s*$))"
    r"(?: +comm +(0x[0-9a-fA-F]+|\(nil\)) +nRanks *(\d+)(?: +busId *[0-9a-fA-F]+)?)? *")


def coll_data(g: tuple) -> dict[str, Any]:
    """COLL regex groups → raw coll data (dtype/redop still codes; see NcclParser._decode_coll)."""
    op_raw, opcount, sendbuff, recvbuff, count, dtype, redop, root, comm, nranks, stream, task, grank = g
    return {"op": normalise_op(op_raw), "op_raw": op_raw, "opcount": int(opcount, 16), "count": int(count),
            "dtype": None, "dtype_code": int(dtype), "redop": None, "redop_code": int(redop),
            "root": int(root), "peer": None, "comm_ptr": comm, "nranks": int(nranks), "stream": stream,
            "sendbuff": sendbuff, "recvbuff": recvbuff,
            "global_rank": int(grank) if grank is not None else None}


def transport_data(word: str, channel: str, conn: str | None, from_rank: int, from_bus: str, to_rank: int,
                   to_bus: str, direction: str | None, via: str, comm_ptr: str | None) -> dict[str, Any]:
    data = {"channel": int(channel), "conn_index": int(conn) if conn is not None else None,
            "from_rank": from_rank, "to_rank": to_rank, "from_bus": from_bus, "to_bus": to_bus,
            "direction": {"send": "send", "receive": "recv"}.get(direction or ""), "via": via,
            "comm_ptr": comm_ptr}
    data.update(decode_transport(via))
    return data


# §3.8 the two init lines every rank prints: "ncclCommInitRank comm P rank R nranks N cudaDev D nvmlDev D busId B
# commId C - Init START|COMPLETE" and "comm P rank R nRanks N nNodes N localRanks N localRank N MNNVL N" (mirrors
# of grammar rule `comm`: INIT_FUNC is only that when one space and "comm " follow it). Numbers are bounded.
_N = r"(\d{1,18})"
COMM_RE = re.compile(
    rf"(?:(nccl[A-Za-z]+) (?=comm ))?comm +({_PTR}) +rank +{_N} +n[Rr]anks +{_N}"
    rf"(?: +cudaDev +{_N} +nvmlDev +{_N} +busId +([0-9a-fA-F]+) +commId +({_PTR}) +- +Init +(START|COMPLETE)"
    rf"| +nNodes +{_N} +localRanks +{_N} +localRank +{_N} +MNNVL +\d{{1,18}}) *")
# §4.2 "Trees [0] 1/8/-1->0->-1 [1] ..." (2.5+ order down/down/down->rank->up, and 2.4's up->rank->down): the plain
# form only (no truncation mark, no RCCL suffix); TREE_ITEM of the grammar, one space inside each item.
_TREE_BODY = (r"\[\d{1,9}\] (?:-?\d{1,9}/-?\d{1,9}/-?\d{1,9}->-?\d{1,9}->-?\d{1,9}(?:\|-?\d{1,9}->-?\d{1,9}->"
              r"-?\d{1,9}/-?\d{1,9}/-?\d{1,9})?|-?\d{1,9}->-?\d{1,9}->-?\d{1,9}/-?\d{1,9}/-?\d{1,9})(?= |$)")
TREES_RE = re.compile(rf"Trees((?: +{_TREE_BODY})*) *")
TREE_ITEM_RE = re.compile(_TREE_BODY)


def tree_item(text: str) -> dict[str, Any]:
    """'[0] 1/8/-1->0->-1' → channel 0, children [1, 8], rank 0, parent -1 (2.4 prints up->rank->down)."""
    chan, _, body = text.partition("] ")
    first = body.split("|", 1)[0]
    parts = first.split("->")
    if "/" in parts[0]:  # 2.5+: down0/down1/down2->rank->up
        children, rank, parent = parts[0], parts[1], parts[2]
    else:                # 2.4: up->rank->down0/down1/down2
        parent, rank, children = parts[0], parts[1], parts[2]
    return {"channel": int(chan[1:]), "children": [int(x) for x in children.split("/") if x != "-1"],
            "rank": int(rank), "parent": int(parent)}


def comm_data(g: tuple) -> tuple[str, dict[str, Any]]:
    """COMM_RE groups → ('comm_init', data), as NcclTransformer.comm gives."""
    func, ptr, rank, nranks, cuda_dev, nvml_dev, bus_id, comm_id, state, nnodes, local_ranks, local_rank = g
    if state is not None:
        extra = {"phase": state.lower(), "nvml_dev": int(nvml_dev), "comm_id": comm_id, "nnodes": None,
                 "local_ranks": None, "local_rank": None}
    else:
        extra = {"phase": "info", "nvml_dev": None, "comm_id": None, "nnodes": int(nnodes),
                 "local_ranks": int(local_ranks), "local_rank": int(local_rank)}
    return "comm_init", {"comm_ptr": ptr, "rank": int(rank), "nranks": int(nranks),
                         "cuda_dev": int(cuda_dev) if cuda_dev is not None else None, "bus_id": bus_id,
                         **extra, "function": func, "parent": None}


def fast_parse(text: str) -> Parsed | None:
    """Parse an INFO COLL, transport, comm init or trees line with plain regexes; None = not sure, ask the
    grammar."""
    m = PREFIX_RE.fullmatch(text)
    return None if m is None else fast_parse_prefixed(m)


def fast_parse_prefixed(m: re.Match) -> Parsed | None:
    """`fast_parse` of a line whose PREFIX_RE.fullmatch is `m`."""
    msg = m.group("msg")
    if msg.startswith(("Channel ", "Ring ")):
        t = TRANSPORT_RE.fullmatch(msg)
        if t is None:
            return None
        g = t.groups()
        data = transport_data(g[0], g[1], g[2], int(g[3]), g[4], int(g[5]), g[6], g[7], g[8], g[9])
        kind = "transport"
    elif msg.startswith(("comm ", "nccl")):
        c = COMM_RE.fullmatch(msg)
        if c is None:
            return None
        kind, data = comm_data(c.groups())
    elif msg.startswith("Trees "):
        t = TREES_RE.fullmatch(msg)
        if t is None:
            return None
        kind, data = "tree", {"trees": [tree_item(item) for item in TREE_ITEM_RE.findall(t.group(1))],
                              "truncated": False, "comm_ptr": None}
    else:
        c = COLL_RE.fullmatch(msg) if ": opCount " in msg else None   # (a text COLL_RE needs, as a quick gate)
        if c is None:
            return None
        data = coll_data(c.groups())
        kind = "coll"
    dev = m.group("dev")
    prefix = (m.group("ts"), m.group("host"), int(m.group("pid")), int(m.group("tid")),
              int(dev) if dev is not None else None)
    return prefix, kind, data


# ---- whole-block scanning: COLL lines taken straight from 256 KiB blocks, everything else line by line ----
# A plain, unwrapped INFO COLL line: the language of PREFIX_RE + COLL_RE (no CR, no ANSI, no wrapper), split
# for speed. The parts that repeat line after line, the head ("host:pid:tid [dev] NCCL INFO Op") and the tail
# ("datatype D op R root X comm C [nranks=N] stream S [task T globalrank G]"), are matched loosely here and
# checked exactly by HEAD_RE/TAIL_RE once per distinct text, when `coll_context` meets it first; the per-line
# fields are matched exactly. Repeats are possessive (each is followed by a character its class excludes) and
# numbers that int() converts are bounded (a 5,000-digit count is left to the grammar, which refuses it).
# Groups: timestamp, head, opCount, sendbuff, recvbuff, count, tail. The tail's `.*+` is `[^\n]*+` (no DOTALL),
# which the regex engine runs faster than a character class.
_COLL_LINE = (r"^(?:(\[\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[.,]\d+)?[^\]\n]*\]) ++)?"
              r"([^\n:]*+:\d++:\d++ [^\n:]*+): opCount ++([0-9a-fA-F]{1,16}+)"
              rf" ++sendbuff ++({_PTR}) ++recvbuff ++({_PTR}) ++count ++(\d{{1,20}}+) ++(.*+)$")
COLL_LINE_RE = re.compile(_COLL_LINE, re.M)
HEAD_RE = re.compile(r"([^\s:\[\]]+):(\d{1,10}):(\d{1,10}) +(?:\[(-?\d{1,10})\] +)?NCCL INFO +([A-Za-z_]+)")
TAIL_RE = re.compile(rf"datatype +(\d{{1,10}}) +op +(\d{{1,10}}) +root +(\d{{1,10}}) +comm +({_PTR}) +"
                     r"\[nranks= *(\d{1,10}) *\] +stream +(" + _PTR + r")(?: +task +\d+ +globalrank +(\d{1,10}))? *")
# A line that is not COLL-shaped (what `_mixed_block` sends to the parser chain), matched with the newline before
# it (searched in "\n" + block: a pattern that starts with a literal is only tried where that character is).
OTHER_LINE_RE = re.compile(r"\n(?!" + COLL_LINE_RE.pattern[1:] + r")[^\n]*+", re.M)
# torchrun's `[{role}{local_rank}]:` (lines.WRAPPER_RE's `role` form; `[rankN]:` is its rank form, tried first
# there). `make_line` strips it from a line; no other wrapper follows it on a COLL line. The block path reads
# a wrapped COLL line whole, prefix and all (tests/sources/test_block_scanner.py).
_ROLE = r"\[(?!rank\d)[A-Za-z_][A-Za-z_-]*\d+\]: ?"
ROLE_RE = re.compile(_ROLE)
WRAPPED_COLL_LINE_RE = re.compile("^" + _ROLE + COLL_LINE_RE.pattern[1:], re.M)
WRAPPED_OTHER_LINE_RE = re.compile(r"\n(?!" + _ROLE + COLL_LINE_RE.pattern[1:] + r")[^\n]*+", re.M)
# The same languages without the buffer groups (groups: timestamp, head, opCount, count, tail), for a consumer that
# reads no buffer (`buffers=False`: diagnose): two strings fewer a line. `BlockBuffers` reads them when asked.
_NO_BUFFERS = _COLL_LINE.replace(f"({_PTR})", _PTR)
COLL_NUMBERS_RE = re.compile(_NO_BUFFERS, re.M)
WRAPPED_COLL_NUMBERS_RE = re.compile("^" + _ROLE + _NO_BUFFERS[1:], re.M)
# A topology line that diagnose does not read (`ncclf topo` does), behind a plain `host:pid:tid [dev] NCCL INFO `
# prefix (PREFIX_RE's): a transport line in a part of TRANSPORT_RE's language (numbers bounded so that fast_parse
# takes it; its via text one word, so that no ` comm ... nRanks` part follows) and not over NET/Socket (N402
# reads which interface those use), a Trees line (TREES_RE) or "Connected all rings|trees". Groups: host, pid, dev.
_TOPOLOGY_MSG = (r"(?:(?:Channel|Ring) +\d{1,18}(?:/\d{1,18})? +: +\d{1,18}\[[0-9a-fA-F]+\] +-> +\d{1,18}\[[0-9a-fA-F]+\]"
                 r"(?: +\[(?:send|receive)\])? +via +(?!NET/Socket)\S++ *+|" + TREES_RE.pattern
                 + "|Connected all (?:rings|trees))")
TOPOLOGY_LINE_RE = re.compile(r"([\w.-]++):(\d{1,18}):\d{1,18} \[(\d{1,9})\] NCCL INFO " + _TOPOLOGY_MSG)
# A run of consecutive TOPOLOGY_LINE_RE lines of one process (the same host, pid and dev texts: backreferences),
# matched from a line's start; each line ends at a newline or the text's end, so each is a line's fullmatch (no
# part of a line's pattern matches a newline; re.M: the `$` of a Trees item's lookahead is its line's end). Groups
# 1-3: host, pid, dev (`_unread_topology_run`).
TOPOLOGY_RUN_RE = re.compile(
    TOPOLOGY_LINE_RE.pattern + r"(?=\n|\Z)(?:\n\1:\2:\d{1,18} \[\3\] NCCL INFO " + _TOPOLOGY_MSG + r"(?=\n|\Z))*+",
    re.M)
# The head of a line that `make_line` leaves as it is when the line is printable ASCII no longer than MAX_LINE: a
# host name and `:digits:digits [digits] NCCL INFO ` (no wrapper, host, label or timestamp prefix has that shape;
# tests/sources/test_held_info_lines.py checks it on every sample line).
PLAIN_INFO_HEAD_RE = re.compile(r"[\w.-]++:\d++:\d++ \[\d++\] NCCL INFO ")
RUN_MIN = 32              # COLL lines in a row worth a CollRun of their own inside a mixed block
INVALID = object()   # a cached head/tail that HEAD_RE/TAIL_RE refuse: the line goes through the parser chain


def dispatch_blocks(path: str, parsers: list, stats: dict, bulk: bool = False,
                    window: tuple[int, int] | None = None, topology: bool = True, buffers: bool = True,
                    middle: Callable[[], list] | None = None) -> Iterator[Any]:
    """Events of one text file, in file order: what parse.dispatch_lines yields, with fewer per-line steps.

    Plain COLL lines whose rank is known become `CollRun`s (columns; see model.py); with `bulk` they are
    yielded as such, else expanded to Events. Every other line goes through `make_line` and the parser
    chain exactly as the line-by-line dispatcher does (tests/sources/test_nccl_differential.py). Without
    `topology`, the topology lines of processes of known rank give no event (BlockScanner._unread_topology).
    Without `buffers`, a whole block's run reads its sendbuff/recvbuff columns only when asked (`BlockBuffers`).
    With `middle`, `parsers` holds only the chain's two ends and `middle()` builds the parsers between them when
    a line first reaches them (a rank log's lines are all the NCCL parser's: the other ten are never built).
    """
    if not parsers or not hasattr(parsers[0], "coll_context"):   # NCCL lines are not offered to NcclParser first
        yield from dispatch_lines(path, parsers if middle is None else [parsers[0], *middle(), parsers[-1]],
                                  stats, window)
        return
    for item in BlockScanner(path, parsers, stats, window, topology, buffers, middle).items():
        if bulk or type(item) is Event:
            yield item
        else:
            yield from item.events()


class BlockScanner:
    """One file's blocks → Events and CollRuns. A block made only of plain COLL lines of ranked processes is
    decoded column-wise (one regex pass, C-level maps); other blocks line by line."""

    def __init__(self, path: str, parsers: list, stats: dict, window: tuple[int, int] | None = None,
                 topology: bool = True, buffers: bool = True, middle: Callable[[], list] | None = None):
        self.path, self.parsers, self.stats, self.window = path, parsers, stats, window
        self.middle = middle          # builds the parsers between the chain's ends, on first need (`_chain`)
        self.topology = topology      # False: skip the topology lines nothing downstream reads (_unread_topology)
        self.buffers = buffers        # False: a whole block's buffer columns are read when asked (BlockBuffers)
        self.nccl = parsers[0]
        self.no = 0                   # the last line number handed out
        self.busy = False             # a parser is inside a multi-line block
        self.run: CollRun | None = None
        self.ranked: set[tuple] = set()   # the (host, pid, dev) texts of topology lines whose rank is known

    def items(self) -> Iterator[Any]:
        try:
            head = HeadDone()
            for block in iter_blocks(self.path, self.window, head):
                if block is GAP:                     # a windowed file: the tail's lines are numbered apart
                    yield from self._drain()
                    self.stats["head_lines"] = self.no  # the unread middle starts after them
                    self.no = TAIL_BASE
                    continue
                wrapped = block[:1] == "[" and ROLE_RE.match(block) is not None   # torchrun's [defaultN]:
                coll = WRAPPED_COLL_LINE_RE if wrapped else COLL_LINE_RE
                # a whole block of COLL lines begins with one (a rank log's first block begins with its init lines)
                run = None if self.busy or coll.match(block) is None else self._whole_block(block, wrapped)
                if run is not None:
                    head.done = True                 # the init lines are over: on to the tail
                    yield from self._drain()
                    yield run
                    self.no += len(run)
                    self.stats["lines"] = self.no
                    continue
                yield from self._mixed_block(block, wrapped)
                self.stats["lines"] = self.no
        except BadInput:             # a cut gzip: what the parsers hold from the lines before it still counts
            yield from self._finish()
            raise
        yield from self._finish()

    def _finish(self) -> Iterator[Any]:
        yield from self._drain()
        yield from finish(self.parsers)

    def _whole_block(self, block: str, wrapped: bool = False, newlines: int | None = None) -> CollRun | None:
        """A block made only of COLL-shaped lines as one CollRun; None when it holds other lines or a line
        needs the parser (unknown rank, refused head/tail, held events). `wrapped`: every line must carry a
        torchrun prefix (ROLE_RE; the events' text is the line as read, prefix and all)."""
        if self.nccl.held:
            return None
        with gc_paused():                   # thousands of match tuples, all freed before it ends
            rows = _FIELDS[wrapped, self.buffers].findall(block)
            if newlines is None:
                newlines = count_newlines(block)
            whole = rows and len(rows) == newlines + (block[-1] != "\n")
            run = self._columns(rows, block, wrapped) if whole else None
            del rows                        # freed here: left for after the `with`, they would count as new
            if run is not None:             # objects and set off a collection when it re-enables the GC
                self.nccl.skip_info_line()  # the parser as the run's INFO lines leave it (an RCCL version block ends)
            return run

    def _columns(self, rows: list[tuple], block: str, wrapped: bool) -> CollRun | None:
        if self.buffers:
            stamps, heads, opcs, sends, recvs, counts, tails = zip(*rows, strict=True)
        else:
            stamps, heads, opcs, counts, tails = zip(*rows, strict=True)
        cache = self.nccl.coll_cache                # (empty at a file's first run: no lookup that would miss)
        keys = list(zip(heads, tails, strict=True))
        contexts = list(map(cache.get, keys)) if cache else []
        if not contexts or None in contexts:       # each distinct new (head, tail) once, then every row again
            for head, tail in [key for key in dict.fromkeys(keys) if key not in cache]:
                coll_context(self.nccl, head, tail)
            contexts = list(map(cache.__getitem__, keys))
        distinct = set(contexts)
        if INVALID in distinct or any(ctx.rank is None for ctx in distinct):
            return None
        n = len(rows)
        if any(stamps) and not _plain_stamps(set(stamps)):
            return None
        times: list[float | None] = list(map(parse_timestamp, stamps)) if any(stamps) else [None] * n
        if self.buffers:
            sendbuffs = list(sends)
            recvbuffs = [s if s == r else r for s, r in zip(sends, recvs, strict=True)]   # in-place ops: one string
        else:
            sendbuffs = cast(list[str], BlockBuffers(block, wrapped, 3))
            recvbuffs = cast(list[str], BlockBuffers(block, wrapped, 4))
        return CollRun(self.nccl.file, range(self.no + 1, self.no + n + 1), contexts, times,
                       list(map(int, opcs, repeat(16))), list(map(int, counts)), sendbuffs, recvbuffs,
                       BlockLines(block))

    def _mixed_block(self, block: str, wrapped: bool = False) -> Iterator[Any]:
        """A block of COLL and other lines: the other lines go through the parser chain; a stretch of RUN_MIN or
        more COLL lines between them is taken as a whole block (one CollRun) where `_whole_block` can, the
        rest line by line (`_coll_lines`). A per-rank log's init block and its first COLL lines share a block.
        `wrapped`: the COLL lines are those with a torchrun prefix (the rest go through the chain as they are)."""
        first = first_coll_line(block, wrapped)
        if first is None:                          # no COLL line: the block goes through the chain
            yield from self._offer_text(block)
            return
        if first.start():                          # other lines first (a rank log's init block): as the loop
            yield from self._offer_text(block[:first.start()])   # below would offer them, then the rest
            block = block[first.start():]
            newlines = count_newlines(block)
            if not self.busy and newlines >= RUN_MIN:              # COLL lines to the end: `_coll_stretch`'s run,
                run = self._whole_block(block, wrapped, newlines)  # without the scan for other lines
                if run is not None:
                    yield from self._drain()
                    yield run
                    self.no += len(run)
                    return
        pos, other, size = 0, None, len(block)    # other: where the pending non-COLL lines start
        for m in (WRAPPED_OTHER_LINE_RE if wrapped else OTHER_LINE_RE).finditer("\n" + block):
            start, end = m.start(), min(m.end(), size)   # the line and its newline, in block offsets
            if start >= size:                      # the empty line after the block's last newline
                continue
            if start > pos:
                if other is not None:
                    yield from self._offer_text(block[other:pos])
                    other = None
                yield from self._coll_stretch(block[pos:start], wrapped)
            if other is None:
                other = start
            pos = end
        if other is not None:
            yield from self._offer_text(block[other:pos])
        if pos < size:
            yield from self._coll_stretch(block[pos:], wrapped)
        if self.run is not None:
            yield from self._drain()

    def _coll_stretch(self, text: str, wrapped: bool = False) -> Iterator[Any]:
        """Consecutive COLL-shaped lines: one CollRun when `_whole_block` takes them, else line by line (through
        the parser chain when they are wrapped)."""
        newlines = 0 if self.busy else count_newlines(text)
        run = None if newlines < RUN_MIN else self._whole_block(text, wrapped, newlines)
        if run is None:
            yield from self._offer_text(text) if wrapped else self._coll_lines(text)
            return
        yield from self._drain()
        yield run
        self.no += len(run)

    def _coll_lines(self, block: str) -> Iterator[Any]:
        """COLL lines matched one by one; the text between them goes through the parser chain."""
        nccl, pos = self.nccl, 0
        for m in COLL_LINE_RE.finditer(block):
            start, end = m.span()
            if start > pos:
                yield from self._offer_text(block[pos:start])
            pos, text = end + 1, m.group()
            if self.busy:   # a multi-line block is open: its parser sees the COLL line first, as in _dispatch
                yield from self._offer_text(text)
                continue
            ts, head, opc, sb, rb, cnt, tail = m.groups()
            ctx = nccl.coll_cache.get((head, tail)) or coll_context(nccl, head, tail)
            if ctx is INVALID or ts and not _as_read(ts):
                yield from self._offer_text(text)
                continue
            self.no += 1
            nccl.skip_info_line()           # as feeding the line would leave the parser (an RCCL version block ends)
            tm = parse_timestamp(ts) if ts else None
            if ctx.rank is None or nccl.held:   # as `_offer_text` would take it: the NCCL parser, then the catalogue
                yield from self._drain()
                ev = next(CollRun(nccl.file, [self.no], [ctx], [tm], [int(opc, 16)], [int(cnt)], [sb], [rb],
                                  [text]).events())
                nccl.place(ev, (ctx.host, ctx.pid, ctx.device))
                yield from self._classify(self._line(text))
                continue
            if nccl.out:
                yield from self._drain()
            run = self.run or self._new_run()
            lines, texts = cast(list[int], run.lines), cast(list[str], run.texts)   # an open run's: lists
            lines.append(self.no)
            run.contexts.append(ctx)
            run.times.append(tm)
            run.opcounts.append(int(opc, 16))
            run.counts.append(int(cnt))
            run.sendbuffs.append(sb)
            run.recvbuffs.append(rb)
            texts.append(text)
        if pos < len(block):
            yield from self._offer_text(block[pos:])

    def _new_run(self) -> CollRun:
        self.run = CollRun(self.nccl.file, [], [], [], [], [], [], [], [])
        return self.run

    def _drain(self) -> Iterator[Any]:
        """What is ready, in file order: the open run, then the events the NCCL parser emitted after it."""
        if self.run is not None:
            yield self.run
            self.run = None
        out = self.nccl.out
        if out:
            yield from settle(self.parsers, list(out))   # the message catalogue sees them as `offer`'s
            out.clear()

    def _offer_text(self, text: str) -> Iterator[Any]:
        """The lines of `text` through the parser chain, as the line-by-line dispatcher does. Forgets the
        cached COLL contexts: the parser's rank knowledge may change on these lines."""
        yield from self._drain()
        parsers, nccl, rest = self.parsers, self.nccl, None
        messages = catalogue_parser(parsers)
        busy = any(p.busy for p in parsers)
        skip = not self.topology and nccl.use_fast
        may_skip = skip and self._may_skip(messages)
        skipped = 0                                 # the last of the lines just skipped (0: none)
        pos, size, tried = 0, len(text), 0          # tried: a topology run that failed its checks ends there
        while pos < size:
            end = text.find("\n", pos)
            if may_skip and not busy and pos >= tried and _topology_head(text, pos, end):
                run = TOPOLOGY_RUN_RE.match(text, pos)   # a run of topology lines: skipped at once, or one by one
                if run is not None:
                    if self._unread_topology_run(run):
                        self.no += run.group().count("\n") + 1
                        skipped, pos = self.no, run.end() + 1
                        continue
                    tried = run.end()
            start = pos
            raw = text[pos:end] if end >= 0 else text[pos:]
            pos = end + 1 if end >= 0 else size
            self.no += 1
            if may_skip and not busy and start < tried and self._unread_topology(raw):
                skipped = self.no
                continue
            if skipped:
                self._skipped(skipped, messages)
                skipped = 0
            line = self._line(raw)
            if busy or not line.text:
                parsers = self._chain()
                yield from offer(line, parsers)
                busy = any(p.busy for p in parsers)
            elif nccl.feed(line):
                # what `offer` does for a line the NCCL parser (first in the chain, none busy) claims: only it
                # emitted anything, so its events go straight to the catalogue (an INFO line's return at once)
                busy = nccl.busy
                yield from self._classify(line)
            else:                                   # not an NCCL line: the rest of the chain, as `offer` would
                rest = rest or self._chain()[1:]
                yield from offer(line, rest)
                busy = any(p.busy for p in rest)
            may_skip = skip and self._may_skip(messages)    # only a line the parsers read changes it
        if skipped:
            self._skipped(skipped, messages)
        self.busy = busy
        self.nccl.coll_cache.clear()

    def _chain(self) -> list:
        """The whole parser chain, its middle built the first time a line reaches it. Until then the chain holds
        only its ends: a parser never offered a line is not busy, holds nothing and emits nothing at `finish`
        (tests/sources/test_block_scanner.py), so leaving it out changes no event."""
        if self.middle is not None:
            self.parsers = [self.parsers[0], *self.middle(), self.parsers[-1]]
            self.middle = None
        return self.parsers

    def _line(self, raw: str) -> Line:
        """`make_line(self.no, raw)`; a plain INFO line (PLAIN_INFO_HEAD_RE, printable ASCII) as it is."""
        if PLAIN_INFO_HEAD_RE.match(raw) is not None and raw.isascii() and raw.isprintable() and len(raw) <= MAX_LINE:
            return Line(self.no, raw)
        return make_line(self.no, raw)

    def _classify(self, line: Line) -> Iterator[Event]:
        """What `offer` does after the NCCL parser (first in the chain, none busy) claimed a line: only it emitted
        anything, so its events go straight to the catalogue (an INFO line's return at once; a line whose events it
        holds, at once too where `skip_held_info_line` may leave the catalogue's scan out)."""
        nccl, messages = self.nccl, self.parsers[-1]
        produced = nccl.out[:]
        nccl.out.clear()
        if messages.source != "catalogue":
            yield from produced
        elif produced or nccl.busy or not messages.skip_held_info_line(line, nccl.holds_unparsed):
            yield from messages.classify(line, produced, nccl.busy, True)

    def _may_skip(self, messages) -> bool:
        """May `_unread_topology` skip a line now: no events held, and the catalogue passing INFO lines by. Skipping
        a line changes neither; only a line the parsers read does."""
        return not self.nccl.held and (messages is None or messages.passes_info_lines())

    def _unread_topology_run(self, run: re.Match) -> bool:
        """`_unread_topology` of every line of a TOPOLOGY_RUN_RE match at once: the lines share their process (its
        rank looked up once), and printable ASCII text, in lines no longer than MAX_LINE, is that of every line."""
        text = run.group()
        if not text.isascii() or not text.replace("\n", "").isprintable():
            return False
        if len(text) > MAX_LINE and max(map(len, text.split("\n"))) > MAX_LINE:
            return False
        return self._ranked(run.group(1, 2, 3))

    def _unread_topology(self, raw: str) -> bool:
        """Is this a topology line (TOPOLOGY_LINE_RE) of a process whose rank the NCCL parser knows, to skip when the
        consumer reads no topology (`topology=False`: diagnose) and `_may_skip`? Its event would repeat the rank,
        host and pid of the process's init event, and no detector reads its kind; `_skipped` leaves the parsers as
        that line would (the NCCL parser's RCCL-block flag off, the catalogue passing an INFO line by).
        The line is one `make_line` leaves as it is: printable ASCII (nothing to clean) that starts with a host
        name and `:digits:` (no wrapper, host, label or timestamp prefix has that shape)."""
        m = TOPOLOGY_LINE_RE.fullmatch(raw)
        if m is None or not (raw.isascii() and raw.isprintable()) or len(raw) > MAX_LINE:
            return False
        return self._ranked(m.group(1, 2, 3))

    def _ranked(self, proc: tuple) -> bool:
        """Does the NCCL parser know the rank of this (host, pid, dev) of a topology line?"""
        if proc not in self.ranked:                     # a rank once known stays known (RankBook.by_dev)
            if self.nccl.book.rank_of((proc[0], int(proc[1]), int(proc[2]))) is None:
                return False
            self.ranked.add(proc)
        return True

    def _skipped(self, last: int, messages) -> None:
        """What skipped topology lines leave, once for a run of them (the same for one line as for many): the
        parsers as an INFO line that passes leaves them, `stats["skipped_line"]` the last one's number."""
        self.nccl.skip_info_line()
        if messages is not None:
            messages.skip_info_line()
        self.stats["skipped_line"] = last               # the lines come in order


def _topology_head(text: str, pos: int, end: int) -> bool:
    """May TOPOLOGY_LINE_RE match the line at `pos` (ending at `end`, -1: the text's end)? Its message follows the
    line's first ` NCCL INFO ` (no space in the host before it) and starts with one of _TOPOLOGY_HEADS: the test
    spares the regex most init lines."""
    at = text.find(" NCCL INFO ", pos, end if end >= 0 else len(text))
    return at >= 0 and text.startswith(_TOPOLOGY_HEADS, at + 11)


_TOPOLOGY_HEADS = ("Channel", "Ring", "Trees", "Connected all")   # _TOPOLOGY_MSG's first words
_FIELDS = {(False, True): COLL_LINE_RE, (True, True): WRAPPED_COLL_LINE_RE,       # (wrapped, buffers) -> regex
           (False, False): COLL_NUMBERS_RE, (True, False): WRAPPED_COLL_NUMBERS_RE}


class BlockBuffers(Sequence[str]):
    """The sendbuff (group 3) or recvbuff (group 4) column of a whole block's run read without its buffers: the
    block's COLL lines matched again (`_FIELDS`' full regex) the first time the column is read."""

    __slots__ = ("block", "wrapped", "group", "values")

    def __init__(self, block: str, wrapped: bool, group: int):
        self.block, self.wrapped, self.group = block, wrapped, group
        self.values: list[str] | None = None

    def _read(self) -> list[str]:
        if self.values is None:
            self.values = [row[self.group] for row in _FIELDS[self.wrapped, True].findall(self.block)]
        return self.values

    def __len__(self) -> int:
        return len(self._read())

    def __getitem__(self, index):
        return self._read()[index]

    def __iter__(self) -> Iterator[str]:
        return iter(self._read())


def first_coll_line(block: str, wrapped: bool = False) -> re.Match | None:
    """`(WRAPPED_)COLL_LINE_RE.search(block)`, tried only at the starts of lines that hold ": opCount " (every
    match does, inside its line): a regex search tries each position of a rank log's init block."""
    pattern, at = WRAPPED_COLL_LINE_RE if wrapped else COLL_LINE_RE, block.find(": opCount ")
    while at >= 0:
        m = pattern.match(block, block.rfind("\n", 0, at) + 1)
        if m is not None:
            return m
        end = block.find("\n", at)
        at = block.find(": opCount ", end) if end >= 0 else -1
    return None


def _as_read(text: str) -> bool:
    """Is this part of a COLL line what the line dispatcher reads too (make_line, lines.clean: it drops control
    characters and escape sequences, and cuts a line at MAX_LINE)? Else the line goes through the parser chain."""
    return text.isprintable() and len(text) < MAX_LINE // 2


def _plain_stamps(stamps: set[str]) -> bool:
    """`_as_read` of every distinct timestamp of a block (a stamp is a few dozen characters)."""
    return "".join(stamps).isprintable() and max(map(len, stamps)) < 256


def coll_context(nccl, head: str, tail: str):
    """The CollContext of COLL lines with this head and tail (INVALID when HEAD_RE/TAIL_RE refuse them);
    cached in `nccl.coll_cache` until the next line that is not a plain COLL line."""
    h, t = HEAD_RE.fullmatch(head), TAIL_RE.fullmatch(tail)
    if h is None or t is None or not _as_read(head + tail):
        nccl.coll_cache[(head, tail)] = INVALID
        return INVALID
    host, pid, tid, dev, op_raw = h.groups()
    dtype, redop, root, comm_ptr, nranks, stream, grank = t.groups()
    dtype, redop, root = int(dtype), int(redop), int(root)
    pid_i, dev_i = int(pid), (int(dev) if dev is not None else None)
    rank, comm, version, rccl = nccl.coll_context(host, pid_i, dev_i, comm_ptr)
    op = normalise_op(op_raw)
    data = {"op": op, "op_raw": op_raw, "opcount": 0, "count": 0, "dtype": decode_dtype(dtype, version, rccl),
            "dtype_code": dtype, "redop": decode_redop(redop, version) if op in REDUCING else None,
            "redop_code": redop, "root": root if op in ROOTED else None,
            "peer": root if op in P2P_OPS else None, "comm_ptr": comm_ptr, "nranks": int(nranks),
            "stream": stream, "sendbuff": "", "recvbuff": "",
            "global_rank": int(grank) if grank is not None else None}
    ctx = CollContext(data, rank, host, pid_i, pid_i if tid == pid else int(tid), dev_i, comm)
    nccl.coll_cache[(head, tail)] = ctx
    return ctx
