"""The regex fast path for the high-volume NCCL lines (prefix, COLL, transport), and the decoders both paths share.

`grammars/nccl.lark` is the source of truth; `fast_parse(text)` handles only the INFO lines whose shape it is
sure of and returns None for everything else (the caller then asks the grammar).
`tests/parse/test_nccl_differential.py` checks that both give the same result on every sample line.
"""
from __future__ import annotations

import calendar
import re
from typing import Any, Iterator

from ..model import Event

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
    secs = calendar.timegm((int(y), int(mo), int(d), int(h), int(mi), int(s), 0, 0, 0))
    return secs + (float(f"0.{frac}") if frac else 0.0)


# ---- the fast regexes (mirrors of grammars/nccl.lark rules prefixed_line/info_line, coll, transport) ----
PREFIX_RE = re.compile(
    r"(?:(?P<ts>\[\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[.,]\d+)?[^\]\n]*\]) +)?"
    r"(?P<host>[^\s:\[\]]+):(?P<pid>\d+):(?P<tid>\d+) +(?:\[(?P<dev>-?\d+)\] +)?NCCL INFO +(?P<msg>\S.*)")
COLL_MSG = (r"([A-Za-z_]+): opCount +([0-9a-fA-F]+) +sendbuff +(0x[0-9a-fA-F]+|\(nil\)) +recvbuff +(0x[0-9a-fA-F]+|\(nil\))"
            r" +count +(\d+) +datatype +(\d+) +op +(\d+) +root +(\d+) +comm +(0x[0-9a-fA-F]+|\(nil\))"
            r" +\[nranks= *(\d+) *\] +stream +(0x[0-9a-fA-F]+|\(nil\))(?: +task +(\d+) +globalrank +(\d+))? *")
COLL_RE = re.compile(COLL_MSG)
TRANSPORT_RE = re.compile(
    r"(Channel|Ring) +(\d+)(?:/(\d+))? +: +(\d+)\[([0-9a-fA-F]+)\] +-> +(\d+)\[([0-9a-fA-F]+)\]"
    r"(?: +\[(send|receive)\])? +via +(\S(?:.*?\S)??)(?= +comm +(?:0x[0-9a-fA-F]+|\(nil\)) +nRanks| *$)"
    r"(?: +comm +(0x[0-9a-fA-F]+|\(nil\)) +nRanks +(\d+)(?: +busId +[0-9a-fA-F]+)?)? *")


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


def fast_parse(text: str) -> Parsed | None:
    """Parse an INFO COLL or transport line with plain regexes; None = not sure, ask the grammar."""
    m = PREFIX_RE.fullmatch(text)
    if m is None:
        return None
    msg = m.group("msg")
    if msg.startswith(("Channel ", "Ring ")):
        t = TRANSPORT_RE.fullmatch(msg)
        if t is None:
            return None
        g = t.groups()
        data = transport_data(g[0], g[1], g[2], int(g[3]), g[4], int(g[5]), g[6], g[7], g[8], g[9])
        kind = "transport"
    else:
        c = COLL_RE.fullmatch(msg)
        if c is None:
            return None
        data = coll_data(c.groups())
        kind = "coll"
    dev = m.group("dev")
    prefix = (m.group("ts"), m.group("host"), int(m.group("pid")), int(m.group("tid")),
              int(dev) if dev is not None else None)
    return prefix, kind, data


# ---- whole-block scanning: COLL lines taken straight from 1 MiB blocks, everything else line by line ----
# A plain, unwrapped INFO COLL line: the same language as PREFIX_RE + COLL_RE (no CR, no ANSI, no wrapper),
# written for speed: possessive repeats (each is followed by a character its class excludes, so nothing
# changes), and the parts that repeat line after line captured as two spans that key a cache of prebuilt
# data dicts. Groups: ts, head ("host:pid:tid [dev] NCCL INFO Op"), opCount, sendbuff, recvbuff, count,
# codes ("datatype D op R root X comm C [nranks=N] stream S"), globalrank.
_PTR = r"(?:0x[0-9a-fA-F]++|\(nil\))"
COLL_LINE_RE = re.compile(
    r"^(?:(\[\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[.,]\d+)?[^\]\n]*\]) ++)?"
    r"([^\s:\[\]]++:\d++:\d++ ++(?:\[-?\d++\] ++)?NCCL INFO ++[A-Za-z_]++): opCount ++([0-9a-fA-F]++)"
    rf" ++sendbuff ++({_PTR}) ++recvbuff ++({_PTR}) ++count ++(\d++)"
    rf" ++(datatype ++\d++ ++op ++\d++ ++root ++\d++ ++comm ++{_PTR} ++\[nranks= *+\d++ *+\] ++stream ++{_PTR})"
    r"(?: ++task ++\d++ ++globalrank ++(\d++))? *+$",
    re.M)
_HEAD_PARTS = re.compile(r"([^\s:\[\]]+):(\d+):(\d+) +(?:\[(-?\d+)\] +)?NCCL INFO +(\S+)")
_CODE_PARTS = re.compile(r"datatype +(\d+) +op +(\d+) +root +(\d+) +comm +(\S+) +\[nranks= *(\d+) *\] +stream +(\S+)")


def dispatch_blocks(path: str, parsers: list, stats: dict) -> Iterator[Any]:
    """Events of one text file, in file order: what parse/__init__._dispatch yields, with fewer per-line steps.

    `parsers[0]` is the NcclParser; plain COLL lines are turned into events right here (`coll_cache` holds,
    per prefix/op/codes/comm, a prebuilt data dict and what the parser knows about the process and comm),
    every other line goes through `make_line` and the parser chain exactly as the line-by-line dispatcher
    does. tests/parse/test_nccl_differential.py checks both give the same events.
    """
    from . import dispatch_lines, offer
    from .lines import iter_blocks, make_line
    if not parsers or not hasattr(parsers[0], "coll_context"):   # NCCL lines are not offered to NcclParser first
        yield from dispatch_lines(path, parsers, stats)
        return
    nccl = parsers[0]
    out, cache, file, held, place = nccl.out, nccl.coll_cache, nccl.file, nccl.held, nccl.place
    append = out.append
    no, busy = 0, False
    for block in iter_blocks(path):
        pos = 0
        for m in COLL_LINE_RE.finditer(block):
            start, end = m.span()
            if start > pos or busy:
                no = yield from _offer_text(block[pos:start], no, parsers)
                busy = any(p.busy for p in parsers)
            no += 1
            pos = end + 1
            if busy:   # a multi-line block is open: its parser sees the COLL line first, as in _dispatch
                yield from offer(make_line(no, m.group()), parsers)
                busy = any(p.busy for p in parsers)
                continue
            ts, head, opc, sb, rb, cnt, codes, gr = m.groups()
            ctx = cache.get((head, codes)) or coll_template(nccl, head, codes)
            template, rank, host, pid, tid, dev, comm, owner = ctx
            data = template.copy()
            data["opcount"] = int(opc, 16)
            data["count"] = int(cnt)
            data["sendbuff"] = sb
            data["recvbuff"] = rb
            if gr is not None:
                data["global_rank"] = int(gr)
            ev = Event("coll", "nccl", file, no, rank, host, pid, tid, dev, comm,
                       ts and parse_timestamp(ts), m.group(), data)
            if rank is None or held:
                place(ev, owner)
            else:
                append(ev)
        if out:
            yield from out
            out.clear()
        if pos < len(block):
            no = yield from _offer_text(block[pos:], no, parsers)
            busy = any(p.busy for p in parsers)
        stats["lines"] = no
    for p in parsers:
        p.finish()
        yield from p.out
        p.out.clear()


def _offer_text(text: str, no: int, parsers: list):
    """The lines of `text` (after the COLL events already made) through the parser chain, as the
    line-by-line dispatcher does; forgets the cached COLL contexts. Returns the last line number."""
    from . import offer
    from .lines import make_line, split_block
    nccl = parsers[0]
    if nccl.out:
        yield from nccl.out
        nccl.out.clear()
    for raw in split_block(text) if text else ():
        no += 1
        yield from offer(make_line(no, raw), parsers)
    nccl.coll_cache.clear()
    return no


def coll_template(nccl, head: str, codes: str) -> tuple:
    """(data dict with the per-line fields still placeholders, rank, host, pid, tid, device, commId,
    (host, pid, device)) for COLL lines with this head and codes; cached in `nccl.coll_cache` until the
    next line that is not a plain COLL line (the parser's rank knowledge may change there)."""
    host, pid, tid, dev, op_raw = _HEAD_PARTS.match(head).groups()
    dtype, redop, root, comm_ptr, nranks, stream = _CODE_PARTS.match(codes).groups()
    dtype, redop, root = int(dtype), int(redop), int(root)
    pid_i, dev_i = int(pid), (int(dev) if dev is not None else None)
    rank, comm, version, rccl = nccl.coll_context(host, pid_i, dev_i, comm_ptr)
    op = normalise_op(op_raw)
    data = {"op": op, "op_raw": op_raw, "opcount": 0, "count": 0, "dtype": decode_dtype(dtype, version, rccl),
            "dtype_code": dtype, "redop": decode_redop(redop, version) if op in REDUCING else None,
            "redop_code": redop, "root": root if op in ROOTED else None,
            "peer": root if op in P2P_OPS else None, "comm_ptr": comm_ptr, "nranks": int(nranks),
            "stream": stream, "sendbuff": "", "recvbuff": "", "global_rank": None}
    ctx = (data, rank, host, pid_i, pid_i if tid == pid else int(tid), dev_i, comm, (host, pid_i, dev_i))
    nccl.coll_cache[(head, codes)] = ctx
    return ctx
