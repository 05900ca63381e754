"""NCCL/RCCL debug lines → Events: the Lark transformer (grammars/nccl.lark) and the `NcclParser`.

The INFO prefix carries `host:pid:tid [cudaDev]`, never the rank. `RankBook` learns ranks from comm init
lines ((host, pid, cudaDev) → rank, (host, pid, comm pointer) → rank and commId) and from the ranks printed
inside topology lines, and back-fills events seen before the line that names their rank.
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from lark import Token, Transformer
from lark.exceptions import LarkError

from ..model import Event, Line
from . import catalogue
from .base import LineParser
from .catalogue.nccl import INFO_LEVEL
from .grammars import lalr
from .nccl_fast import (
    P2P_OPS,
    PREFIX_RE,
    REDUCING,
    ROOTED,
    Parsed,
    coll_data,
    decode_dtype,
    decode_redop,
    fast_parse,  # noqa: F401 - re-exported: the tests read it from here
    fast_parse_prefixed,
    parse_timestamp,
    split_version,
    transport_data,
    tree_item,
    version_tuple,
    warn_category,
)
from .nccl_ranks import RankBook

NCCL_LEVEL_RE = re.compile(r"NCCL (?:INFO|WARN|TRACE|CALL)(?: |$)")
LENIENT_PREFIX_RE = re.compile(r"(?:\[[^\]]*\] +)?([^\s:\[\]]+):(\d+):(\d+) +(?:\[(-?\d+)\] +)?")
BANNER_HEADS = ("NCCL version ", "RCCL version")
RCCL_BLOCK_HEADS = ("HIP version", "ROCm version", "Hostname", "Librccl path")
# An NCCL line's head anywhere in a text line: behind a prefix nobody stripped (CloudWatch `| ts |`, an app's own
# logger, `> `), or a second process's line glued onto a torn one. An optional log stamp before it belongs to it.
HEAD_ANYWHERE_RE = re.compile(
    r"(?:\d{4}-\d\d-\d\d[T ][\d:.,]+(?:Z|[+-]\d\d:?\d\d)?(?: - [A-Z]+ -)? +)?"
    r"(?P<head>(?:\[\d{4}-\d\d-\d\d[ T][^\]\n]*\] )?"
    r"(?:[^\s:\[\]|>]+:\d+:\d+ (?:\[-?\d+\] )?|[^\s:\[\]|>]+ \[-?\d+\] )"
    r"(?:[^\s():]+:\d+ (?:\([^)\n]*\) )?)?NCCL (?:INFO|WARN|TRACE|CALL)(?: |$))")
ORPHAN_RE = re.compile(r"(?:Ring|Channel) \d+(?:/\d+)? : \d+\[[0-9a-fA-F]+\] -> \d+\[[0-9a-fA-F]+\] .*via ")


def _s(tok: Any) -> str:
    return str(tok).strip()


def _snake(text: str) -> str:
    return re.sub(r"[^a-z]+", "_", text.lower()).strip("_") or "other"


class NcclTransformer(Transformer):
    """Tree → Parsed ((ts, host, pid, tid, device), kind, data). No state, no I/O."""

    def start(self, ch):
        return ch[0]

    def prefixed_line(self, ch):
        result = ch[-1]
        if len(result) == 3:  # a torn line: the inner line is the real one
            return result
        ts = next((_s(t) for t in ch if isinstance(t, Token) and t.type == "TIMESTAMP"), None)
        dev = next((int(_s(t)[1:-1]) for t in ch if isinstance(t, Token) and t.type == "DEVICE"), None)
        hpt = next(_s(t) for t in ch if isinstance(t, Token) and t.type == "HOST_PID_TID")
        host, pid, tid = hpt.rsplit(":", 2)
        return (ts, host, int(pid), int(tid), dev), result[0], result[1]

    def hostdev_line(self, ch):
        ts = next((_s(t) for t in ch if isinstance(t, Token) and t.type == "TIMESTAMP"), None)
        host, _, dev = next(_s(t) for t in ch if isinstance(t, Token) and t.type == "HOST_DEV").partition(" ")
        result = ch[-1]
        return (ts, host, None, None, int(dev[1:-1])), result[0], result[1]

    def torn(self, ch):
        return self.prefixed_line(ch)

    def bare_line(self, ch):
        return (None, None, None, None, None), ch[0][0], ch[0][1]

    def rccl_block(self, ch):
        key, rest = _s(ch[0]), (_s(ch[1]) if len(ch) > 1 else "")
        return (None, None, None, None, None), "nccl_info", {"topic": _snake(key), "message": rest}

    def info_line(self, ch):
        return ch[0] if ch else ("nccl_info", {"topic": "empty", "message": ""})

    def warn_line(self, ch):
        loc = next((_s(t) for t in ch if t.type == "SRC_LOC"), None)
        func = next((_s(t)[1:-1] for t in ch if t.type == "PAREN"), None)
        msg = next((_s(t) for t in ch if t.type == "REST"), "")
        src_file, src_line = _split_loc(loc)
        return "warn", {"message": msg, "src_file": src_file, "src_line": src_line, "function": func,
                        "category": warn_category(src_file, msg)}

    def trace_line(self, ch):
        func, line = _split_loc(_s(ch[1]))
        return "nccl_trace", {"ms": float(ch[0]), "function": func, "src_line": line,
                              "message": _s(ch[2]) if len(ch) > 2 else ""}

    def call_line(self, ch):
        return "nccl_call", {"message": _s(ch[0]) if ch else ""}

    # ---- version / setup ----
    def nccl_version(self, ch):
        version, suffix, cuda, _ = split_version(_s(ch[0]))
        rest = _s(ch[1]) if len(ch) > 1 else ""
        m = re.search(r"compiled with CUDA (\S+)", rest)
        return "nccl_version", {"version": version, "suffix": suffix, "cuda": cuda or (m.group(1) if m else None),
                                "rccl": False, "rccl_version": None, "hip": None}

    def rccl_version(self, ch):
        version, suffix, _, hip = split_version(_s(ch[0]))
        rest = _s(ch[1]) if len(ch) > 1 else ""
        return "nccl_version", {"version": version, "suffix": suffix, "cuda": None, "rccl": True,
                                "rccl_version": suffix.lstrip("-") or rest or None, "hip": hip}

    def git_version(self, ch):
        return "nccl_info", {"topic": "git_version", "message": _s(ch[0])}

    def cuda_driver(self, ch):
        return "cuda_driver", {"driver_version": int(ch[0])}

    def env_set(self, ch):
        name = _s(ch[0]).split(" set ", 1)[0]
        value = _s(ch[1]) if len(ch) > 1 else ""
        if value.endswith(".") and re.fullmatch(r"-?\d+\.", value):
            value = value[:-1]
        return "env", {"name": name, "value": value}

    def env_config(self, ch):
        return "env", {"name": f"config.{_s(ch[0])}", "value": _s(ch[1]) if len(ch) > 1 else ""}

    def iface(self, ch):
        return _iface(_s(ch[0]))

    def bootstrap(self, ch):
        return "bootstrap", {"interfaces": [c for c in ch if isinstance(c, dict)]}

    def bootstrap_v23(self, ch):
        return "bootstrap", {"interfaces": [ch[-1]]}

    def net_plugin(self, ch):
        msg = _s(ch[-1])
        m = re.search(r"Loaded (?:net|coll) plugin (\S+)", msg)
        return "net_plugin", {"message": msg, "plugin": m.group(1) if m else None}

    def net_plugin_initialized(self, ch):
        return "net_plugin", {"message": f"Initialized NET plugin {_s(ch[0])}", "plugin": _s(ch[0])}

    def net_plugin_nondevice(self, ch):
        return "net_plugin", {"message": f"Using non-device net plugin version {ch[0]}", "plugin": None}

    def ib_dev(self, ch):
        return _ib_dev(_s(ch[0]))

    def net_ib_using(self, ch):
        oob = ch[-1]
        return "net_ib", {"devices": [c for c in ch[:-1] if isinstance(c, dict)], "oob_if": oob["name"],
                          "oob_addr": oob["addr"], "relaxed_ordering": any(getattr(c, "type", "") == "IB_RO" for c in ch)}

    def net_ib_none(self, ch):
        return "net_ib", {"devices": [], "oob_if": None, "oob_addr": None, "relaxed_ordering": False}

    def net_ib_sideband(self, ch):
        return "net_ib", {"devices": [], "oob_if": _s(ch[-1]), "oob_addr": None, "relaxed_ordering": False}

    def net_ib_misc(self, ch):
        return "nccl_info", {"topic": "net_ib", "message": f"NET/IB : {_s(ch[-1])}"}

    def socket_dev(self, ch):
        d = _iface(_s(ch[0]))
        return {"index": d["index"], "name": d["name"], "addr": d["addr"]}

    def net_socket_using(self, ch):
        return "net_socket", {"devices": [c for c in ch if isinstance(c, dict)], "count": None}

    def net_socket_count(self, ch):
        return "net_socket", {"devices": [], "count": int(ch[-1])}

    def net_socket_threads(self, ch):
        return "nccl_info", {"topic": "net_socket", "message": f"NET/Socket: Using {ch[1]} threads and {ch[2]} sockets per thread"}

    def net_socket_misc(self, ch):
        return "nccl_info", {"topic": "net_socket", "message": f"NET/Socket : {_s(ch[-1])}"}

    def net_using(self, ch):
        return "net_using", {"network": _s(ch[0]), "collnet": None}

    def net_using_v23(self, ch):
        return "net_using", {"network": _s(ch[1]), "collnet": None}

    # ---- communicators ----
    def f_rank(self, ch): return ("rank", int(ch[0]))
    def f_nranks(self, ch): return ("nranks", int(ch[1]))
    def f_cuda_dev(self, ch): return ("cuda_dev", int(ch[0]))
    def f_nvml_dev(self, ch): return ("nvml_dev", int(ch[0]))
    def f_bus_id(self, ch): return ("bus_id", _s(ch[0]))
    def f_comm_id(self, ch): return ("comm_id", _s(ch[0]))
    def f_parent(self, ch): return ("parent", _s(ch[0]))
    def f_nnodes(self, ch): return ("nnodes", int(ch[0]))
    def f_local_ranks(self, ch): return ("local_ranks", int(ch[0]))
    def f_local_rank(self, ch): return ("local_rank", int(ch[0]))
    def f_ignored(self, ch): return None

    def comm_tail(self, ch):
        words = {t.type: _s(t) for t in ch}
        return ("tail", (words.get("COMM_WHAT"), words["COMM_STATE"]))

    def comm(self, ch):
        fields = dict(c for c in ch if isinstance(c, tuple))
        func = next((_s(t) for t in ch if isinstance(t, Token) and t.type == "INIT_FUNC"), None)
        ptr = next(_s(t) for t in ch if isinstance(t, Token) and t.type == "PTR")
        what, state = fields.pop("tail", (None, None))
        data = {"comm_ptr": ptr, "rank": fields.get("rank"), "nranks": fields.get("nranks"),
                "cuda_dev": fields.get("cuda_dev"), "bus_id": fields.get("bus_id")}
        if what in ("Abort", "Destroy", "Revoke"):
            data["phase"] = state.lower()
            if what == "Abort":
                # ncclCommAbort is also how PyTorch 2.2 - 2.5 ends a process group on a normal exit
                # (ProcessGroupNCCL::shutdown calls abort()): the abort itself says nothing of a failure
                data["meaning"] = "benign"
            return f"comm_{what.lower()}", data
        phase = state.lower() if state else ("info" if "nnodes" in fields else "start")
        data.update(phase=phase, nvml_dev=fields.get("nvml_dev"), comm_id=fields.get("comm_id"),
                    nnodes=fields.get("nnodes"), local_ranks=fields.get("local_ranks"),
                    local_rank=fields.get("local_rank"), function=func, parent=fields.get("parent"))
        return "comm_init", data

    # ---- topology ----
    def channel(self, ch):
        first, _, second = _s(ch[0]).partition("/")
        return int(first), (int(second) if second else None)

    def rccl_suffix(self, ch):
        return {"comm_ptr": _s(ch[0])}

    def ring(self, ch):
        chan, nchan = ch[1]
        order = [int(t) for t in ch[2:] if isinstance(t, Token) and t.type == "INT"]
        suffix = next((c for c in ch if isinstance(c, dict)), {})
        return "ring", {"channel": chan, "nchannels": nchan, "order": order,
                        "truncated": any(getattr(t, "type", "") == "ELLIPSIS" for t in ch),
                        "comm_ptr": suffix.get("comm_ptr")}

    def ring_graph(self, ch):
        return "graph_ring", {"channel": ch[1][0], "prev": int(ch[2]), "rank": int(ch[3]), "next": int(ch[4])}

    def tree_graph(self, ch):
        return "graph_tree", {"channel": int(ch[0]), "parent": int(ch[1]), "rank": int(ch[2]),
                              "children": [int(x) for x in _s(ch[3]).split("/")]}

    def transport(self, ch):
        (chan, conn), a, b = ch[1], _s(ch[2]), _s(ch[3])
        direction = next((_s(t)[1:-1] for t in ch if getattr(t, "type", "") == "DIRECTION"), None)
        via = next(_s(t) for t in ch if getattr(t, "type", "") == "VIA_TEXT")
        suffix = next((c for c in ch if isinstance(c, dict)), {})
        fr, fb = a[:-1].split("[")
        tr, tb = b[:-1].split("[")
        return "transport", transport_data(_s(ch[0]), str(chan), None if conn is None else str(conn), int(fr), fb,
                                           int(tr), tb, direction, via, suffix.get("comm_ptr"))

    def transport_plain(self, ch):
        direction = next((_s(t)[1:-1] for t in ch if getattr(t, "type", "") == "DIRECTION"), None)
        (chan, conn), via = ch[1], _s(ch[-1])
        data = transport_data(_s(ch[0]), str(chan), None if conn is None else str(conn), int(ch[2]), None,
                              int(ch[3]), None, direction, via, None)
        return "transport", data

    def collnet(self, ch):
        (chan, conn), rank, direction, via = ch[1], int(ch[2]), _s(ch[3])[1:-1], _s(ch[4])
        data = transport_data(_s(ch[0]), str(chan), None if conn is None else str(conn), rank, None, rank, None,
                              direction, via, None)
        return "transport", data

    def tree_item(self, ch):
        return tree_item(_s(ch[0]))

    def trees(self, ch):
        suffix = next((c for c in ch if isinstance(c, dict) and "comm_ptr" in c), {})
        return "tree", {"trees": [c for c in ch if isinstance(c, dict) and "channel" in c],
                        "truncated": any(getattr(t, "type", "") == "TREE_TRUNCATED" for t in ch),
                        "comm_ptr": suffix.get("comm_ptr")}

    def connected(self, ch):
        what = {"Connected NVLS tree": "NVLS", "Connected collnet + chain": "CollNet"}.get(
            _s(ch[0]), _s(ch[0])[len("Connected "):])
        nums = [int(t) for t in ch if getattr(t, "type", "") == "INT"]
        return "connected", {"what": what, "pxn": nums[0] if nums else None, "gdr": nums[1] if nums else None}

    def connected_collnet(self, ch):
        return "connected", {"what": "CollNet", "pxn": None, "gdr": None}

    def collnet_channels(self, ch): return ("collnet_channels", int(ch[0]))
    def nvls_channels(self, ch): return ("nvls_channels", int(ch[0]))

    def channels_summary(self, ch):
        extra = dict(c for c in ch if isinstance(c, tuple))
        nums = [int(t) for t in ch if isinstance(t, Token)]
        return "channels_summary", {"message": None, "coll_channels": nums[0], "collnet_channels": extra.get("collnet_channels"),
                                    "nvls_channels": extra.get("nvls_channels"), "p2p_channels": nums[1],
                                    "p2p_per_peer": nums[2]}

    def coll(self, ch):
        op_raw = _s(ch[0])[: -len(": opCount")]
        vals = [_s(t) for t in ch[1:]]
        task, grank = (vals[10], vals[11]) if len(vals) > 10 else (None, None)
        return "coll", coll_data((op_raw, *vals[:10], task, grank))

    # ---- failures ----
    def function(self, ch): return ("function", _s(ch[0])[1:-1])
    def errno_text(self, ch): return ("errno", _s(ch[0])[1:-1])

    def error_trace(self, ch):
        parts = dict(c for c in ch if isinstance(c, tuple))
        src_file, src_line = _split_loc(_s(ch[0]))
        code = next(int(t) for t in ch if getattr(t, "type", "") == "INT")
        thread = next((_s(t)[1:-1] for t in ch if getattr(t, "type", "") == "THREAD_TAG"), None)
        call = next((_s(t) for t in ch if getattr(t, "type", "") == "REST"), None)
        return "error_trace", {"src_file": src_file, "src_line": src_line, "function": parts.get("function"),
                               "code": code, "errno": parts.get("errno"), "thread": thread, "message": call}

    def cuda_failure_trace(self, ch):
        src_file, src_line = _split_loc(_s(ch[0]))
        parts = dict(c for c in ch if isinstance(c, tuple))
        return "error_trace", {"src_file": src_file, "src_line": src_line, "function": parts.get("function"),
                               "code": None, "errno": None, "thread": None, "message": f"Cuda failure {_s(ch[-1])}"}

    def ras(self, ch):
        return "ras", _info_meaning({"section": None, "message": _s(ch[0]), "ranks": [], "state": None, "comm_hash": None})

    def old_rank(self, ch):
        return "comm_init", {"phase": "info", "comm_ptr": None, "rank": int(ch[0]), "nranks": int(ch[2]),
                             "cuda_dev": None, "nvml_dev": None, "bus_id": None, "comm_id": None, "nnodes": None,
                             "local_ranks": None, "local_rank": None, "function": None, "parent": None}

    # ---- §4.5 the GRAPH topology dump ----
    def topo_node(self, ch):
        return "topo_dump", _topo("node", node=_s(ch[0]), detail=_paren(ch[1:]))

    def topo_link(self, ch):
        link, _, bw = _s(ch[0]).partition("[")
        return "topo_dump", _topo("link", node=_s(ch[1]), link=link, bw=float(bw[:-1]), detail=_paren(ch[2:]))

    def topo_rule(self, ch):
        return "topo_dump", _topo("rule")

    def topo_cpu(self, ch):
        return "topo_dump", _topo("cpu", node=f"{_s(ch[0])} CPU", detail=_paren(ch[1:]))

    def topo_path(self, ch):
        return "topo_dump", _topo("path", node=_s(ch[0]), detail=_s(ch[1]))

    def graph_channel(self, ch):
        return "topo_dump", _topo("channel", channel=int(ch[0]), nodes=[_s(t) for t in ch[1:]])

    def info_misc(self, ch):
        head = _s(ch[0])
        return "nccl_info", _info_meaning({"topic": _snake(head), "message": " ".join(_s(t) for t in ch)})


def _info_meaning(data: dict[str, Any]) -> dict[str, Any]:
    """An INFO message's fields, with the meaning of the catalogue entry it is (catalogue.nccl.INFO_LEVEL: a connect
    NCCL retries because no one answers) where it is one."""
    for hit in catalogue.match(data["message"]):
        if hit.message.id in INFO_LEVEL:
            return {**data, **hit.fields, **catalogue.annotation(hit)}
    return data


def _topo(element: str, **fields) -> dict[str, Any]:
    base = {"element": element, "node": None, "link": None, "bw": None, "detail": None, "channel": None,
            "nodes": None}
    base.update(fields)
    return base


def _paren(rest) -> str | None:
    return _s(rest[0])[1:-1] if rest and rest[0] is not None else None


def _banner_start(text: str) -> int:
    """Where `NCCL version 2.x` / `RCCL version` starts inside a line (-1: nowhere). Not torch's error text
    (`..., unhandled system error, NCCL version 2.18.5`, c10d's ncclGetErrorWithVersion, every torch with
    ProcessGroupNCCL): any rank prints that one, while the banner is rank 0's (before NCCL 2.22)."""
    for head in BANNER_HEADS:
        at = text.find(head)
        if at > 0 and text[max(at - 2, 0):at] != ", " \
                and (head == "RCCL version" or text[at + len(head):at + len(head) + 1].isdigit()):
            return at
    return -1


def _split_loc(loc: str | None) -> tuple[str | None, int | None]:
    if not loc:
        return None, None
    name, _, line = loc.rpartition(":")
    return name, int(line)


def _iface(text: str) -> dict[str, Any]:
    m = re.match(r"(?:\[(\d+)\])?([^:]*)(?::(.*))?$", text)
    if m is None:                       # a newline inside the text
        return {"index": None, "name": text, "addr": None}
    return {"index": int(m.group(1)) if m.group(1) else None, "name": m.group(2), "addr": m.group(3)}


def _ib_dev(text: str) -> dict[str, Any]:
    m = _IB_DEV_FIELDS.match(text)
    assert m is not None                # an IB_DEV token always starts with `[digits]` (its name may be empty)
    return {"index": int(m.group(1)), "name": m.group(2),
            "port": int(m.group(3)) if m.group(3) else None, "link_layer": m.group(4) or None}


_IB_DEV_FIELDS = re.compile(r"\[(\d+)\]([^:/\s]*)(?::(\d+))?[^/\s]*(?:/(\S*))?")

# Two init lines that carry a node's own addresses, so that each node's pair is new to the grammar's cache
# (`message_parse`): in their plain shape (single spaces, every word one token of the grammar's terminal) they are
# read here as the grammar reads them (tests/sources/test_nccl_differential.py checks both, hypothesis-mixed).
_BOOTSTRAP_FAST = re.compile(r"Bootstrap ?: Using((?: [^\s;]+)+)")
_NET_IB_FAST = re.compile(r"NET/IB : Using((?: [^\s;]+)*?)( \[RO\])? ?; OOB ([^\s;]+)")
IFACE_TOKEN = re.compile(r"(?:\[\d+\])?[^\s:;\[\]]+(?::[^\s;]*)?")         # grammars/nccl.lark's IFACE
IB_DEV_TOKEN = re.compile(r"\[\d+\][^\s:;]+(?::\d+)*(?:\/[^\s;]*)?")          # and IB_DEV


def _one_token(pattern: re.Pattern, word: str) -> bool:
    """Does the lexer read `word` as one token of `pattern` (its match from the word's start, all of it)?"""
    m = pattern.match(word)
    return m is not None and m.end() == len(word)


def network_message(msg: str) -> tuple[str, dict[str, Any]] | None:
    """(kind, data) of a plain `Bootstrap : Using <iface>...` or `NET/IB : Using <dev>... [RO]; OOB <iface>` INFO
    message, as the grammar gives them; None for any other message (the grammar reads it)."""
    m = _BOOTSTRAP_FAST.fullmatch(msg)
    if m is not None:
        words = m.group(1)[1:].split(" ")
        if not all(_one_token(IFACE_TOKEN, word) for word in words):
            return None
        return "bootstrap", {"interfaces": [_iface(word) for word in words]}
    m = _NET_IB_FAST.fullmatch(msg)
    if m is None:
        return None
    devs, oob = m.group(1)[1:].split(" ") if m.group(1) else [], m.group(3)
    if not (all(_one_token(IB_DEV_TOKEN, dev) for dev in devs) and _one_token(IFACE_TOKEN, oob)):
        return None
    iface = _iface(oob)
    return "net_ib", {"devices": [_ib_dev(dev) for dev in devs], "oob_if": iface["name"], "oob_addr": iface["addr"],
                      "relaxed_ordering": m.group(2) is not None}


_NETWORK_HEADS = ("Bootstrap", "NET/IB")


@lru_cache(maxsize=8192)
def _network_message_once(msg: str) -> tuple[str, dict[str, Any]] | None:
    """`network_message`, once per distinct message (the ranks of a node repeat it): a copy of its data each use."""
    return network_message(msg)


_TRANSFORMER = NcclTransformer()


def grammar_parse(text: str) -> Parsed | None:
    """Parse one cleaned line with the Lark grammar; None when no rule matches. A process repeats its INFO lines
    (the same transport or channel line thousands of times): a repeated line is parsed once (a fresh copy of
    its result each time, so that no caller shares another's data)."""
    parsed = _grammar_parse_once(text)
    return None if parsed is None else (parsed[0], parsed[1], _fresh(parsed[2]))


@lru_cache(maxsize=8192)
def _grammar_parse_once(text: str) -> Parsed | None:
    try:
        return _TRANSFORMER.transform(lalr("nccl").parse(text))
    except LarkError:   # no rule matches, or a value the transformer refuses (a 5,000-digit number)
        return None


def _fresh(value):
    """A copy of the dicts and lists of a parse result (the rest is immutable and shared)."""
    if type(value) is dict:
        return {k: _fresh(v) if type(v) in _CONTAINERS else v for k, v in value.items()}
    if type(value) is list:
        return [_fresh(v) if type(v) in _CONTAINERS else v for v in value]
    return value


_CONTAINERS = (dict, list)


def parse_message(text: str, use_fast: bool = True) -> Parsed | None:
    try:
        m = PREFIX_RE.fullmatch(text) if use_fast else None     # both fast readers start with the prefix
        fast = (fast_parse_prefixed(m) or message_parse(text, m)) if m is not None else None
    except ValueError:   # a number too long for int(): the grammar decides (and refuses it too)
        fast = None
    return fast or grammar_parse(text)


# An INFO line's message is parsed the same way whatever prefix comes before it (the parser is in the same
# state after "NCCL INFO"): each distinct message is parsed once, behind this prefix, and the line's own prefix
# (PREFIX_RE, as fast_parse reads it) put in its place. A process's init lines repeat across the ranks of a
# job (only the prefix differs), so 4,096 rank logs cost the grammar a few dozen messages, not 4,096 x 40 lines.
_CANON = "h:1:1 NCCL INFO "
_CANON_PREFIX = (None, "h", 1, 1, None)


def message_parse(text: str, m: re.Match | None = None) -> Parsed | None:
    """`grammar_parse(text)` for a prefixed INFO line, the message parsed once per distinct text; None when the
    line is not of that shape (or holds a second NCCL line: a torn one keeps its inner prefix). `m`: the line's
    PREFIX_RE.fullmatch when the caller has it."""
    m = m or PREFIX_RE.fullmatch(text)
    if m is None:
        return None
    msg = m.group("msg")
    if "NCCL " in msg and NCCL_LEVEL_RE.search(msg) is not None:   # (the search only where it may find one)
        return None
    known = _network_message_once(msg) if msg.startswith(_NETWORK_HEADS) else None
    if known is not None:
        kind, data = known[0], _fresh(known[1])
    else:
        parsed = _grammar_parse_once(_CANON + msg)
        if parsed is None or parsed[0] != _CANON_PREFIX:
            return None
        kind, data = parsed[1], _fresh(parsed[2])
    dev = m.group("dev")
    return ((m.group("ts"), m.group("host"), int(m.group("pid")), int(m.group("tid")),
             int(dev) if dev is not None else None), kind, data)


def lines_inside(text: str, use_fast: bool = True) -> list[Parsed]:
    """The NCCL lines inside a text line that is not one NCCL line from its start: the text before the first head
    is a prefix nobody stripped; a later head starts a line glued onto a torn one. [] when there is none."""
    heads = list(HEAD_ANYWHERE_RE.finditer(text))
    if not heads or (len(heads) == 1 and heads[0].start("head") == 0):
        return []
    found = []
    for m, end in zip(heads, [*(h.start() for h in heads[1:]), len(text)], strict=False):   # no head: none
        parsed = parse_message(text[m.start("head"):end].strip(), use_fast)
        if parsed is not None:
            found.append(parsed)
    return found


class NcclParser(LineParser):
    """Claims every NCCL/RCCL line (prefixed lines, the bare version banner, RCCL's version block, the orphan
    half of a torn line). A line with an `NCCL INFO|WARN|TRACE|CALL` tag that no rule matches is `unparsed`.

    Events whose rank is not known yet (lines before their process's init line) are held, with everything
    after them to keep file order, until the rank is learnt, HOLD_MAX events pile up, or `finish()`.
    """

    source = "nccl"
    HOLD_MAX = 20_000

    def __init__(self, src, use_fast: bool = True):
        super().__init__(src)
        self.use_fast = use_fast
        self.book = RankBook()
        self.versions: dict[tuple, tuple[tuple[int, ...] | None, bool]] = {}   # (host, pid) → (version, rccl)
        self.file_version: tuple[tuple[int, ...] | None, bool] = (None, False)
        self.held: list[Event] = []
        self.holds_unparsed = False     # an `unparsed` event is among `held` (MessageParser.skip_held_info_line)
        self.coll_cache: dict[tuple, tuple] = {}
        self._banner_rank: int | None = None
        self._in_rccl_block = False

    def feed(self, line: Line) -> bool:
        text = line.text
        if "NCCL " not in text or NCCL_LEVEL_RE.search(text) is None:
            banner = _banner_start(text)
            if banner > 0:                     # the version banner behind a prefix nobody stripped
                text = text[banner:]
            if text.startswith(BANNER_HEADS):
                self._in_rccl_block = text.startswith("RCCL")
            elif ORPHAN_RE.match(text):
                self._in_rccl_block = False
            elif not (self._in_rccl_block and text.startswith(RCCL_BLOCK_HEADS)):
                self._in_rccl_block = False
                return False
        else:
            self._in_rccl_block = False
            if text.count("NCCL ") > 1 and len(NCCL_LEVEL_RE.findall(text)) > 1 and self._salvage(line, text):
                return True                    # NCCL lines pasted run-on (their newlines lost): each one its own
        parsed = parse_message(text, self.use_fast)
        if parsed is not None:
            self.add(line, parsed)
        elif not self._salvage(line, text):
            self._unparsed(line)
        return True

    def skip_info_line(self) -> None:
        """What `feed` leaves of an INFO line whose events are not wanted (nccl_fast.BlockScanner._unread_topology)."""
        self._in_rccl_block = False

    def _salvage(self, line: Line, text: str) -> bool:
        found = lines_inside(text, self.use_fast)
        for parsed in found:
            self.add(line, parsed)
        return bool(found)

    def coll_context(self, host: str, pid: int, dev: int | None, comm_ptr: str) -> tuple:
        """What the block scanner needs for a COLL line of this process/comm: (rank, commId, NCCL version,
        rccl). Valid until the next line that is not a plain COLL line."""
        ptr_rank, comm = self.book.comm_of(host, pid, comm_ptr)
        rank = self.book.rank_of((host, pid, dev))
        version, rccl = self.versions.get((host, pid), self.file_version)
        return rank if rank is not None else ptr_rank, comm, version, rccl

    def _unparsed(self, line: Line) -> None:
        ev = Event("unparsed", "nccl", self.file, line.no, line.rank, line.host, text=line.raw or line.text)
        m = LENIENT_PREFIX_RE.search(line.text)
        if m is not None:
            ev.host, ev.pid, ev.tid = m.group(1), int(m.group(2)), int(m.group(3))
            ev.device = int(m.group(4)) if m.group(4) is not None else None
        self.place(ev, (ev.host, ev.pid, ev.device))

    def add(self, line: Line, parsed: Parsed) -> Event:
        (ts, host, pid, tid, dev), kind, data = parsed
        ev = Event(kind, "nccl", self.file, line.no, line.rank, host or line.host, pid, tid, dev, None,
                   parse_timestamp(ts), line.raw or line.text, data)
        key = (host, pid, dev)
        handler = _HANDLERS.get(kind)
        if handler is not None:
            handler(self, ev, key, data)
        if host is None and ev.rank is None:   # un-prefixed lines: the banner's rank, never held
            ev.rank = self._banner_rank
            self._emit(ev)
        else:
            self.place(ev, key)
        return ev

    def place(self, ev: Event, key) -> None:
        if ev.rank is None:
            ev.rank = self.book.rank_of(key)
            if ev.rank is None and self.book.defer(key, ev):
                self.held.append(ev)
                self.holds_unparsed = self.holds_unparsed or ev.kind == "unparsed"
                return
        self._emit(ev)

    def _emit(self, ev: Event) -> None:
        if self.held:
            self.held.append(ev)
            self.holds_unparsed = self.holds_unparsed or ev.kind == "unparsed"
            self._release()
        else:
            self.out.append(ev)

    def _release(self) -> None:
        if self.book.npending == 0 or len(self.held) >= self.HOLD_MAX:
            self.out.extend(self.held)
            self.held.clear()
            self.holds_unparsed = False
            if self.book.npending:
                self.book.drop_pending()

    def _on_version(self, ev, key, data) -> None:
        ver = (version_tuple(data["version"]), bool(data["rccl"]))
        if key[0] is not None:
            self.versions[(key[0], key[1])] = ver
        elif ver[1] or (ver[0] or (0,)) < (2, 22):
            self._banner_rank = 0   # ≤2.21 and RCCL: printed only by the process that owns rank 0
        if self.file_version[0] is None:
            self.file_version = ver

    def _on_comm(self, ev, key, data) -> None:
        if data["comm_ptr"] is None:                  # 2.3's "rank 0 nranks 8": a rank hint, no communicator
            self._on_hint(ev, key, data)
            return
        dev = data.get("cuda_dev")
        dkey = (key[0], key[1], dev if dev is not None else key[2])
        self.book.learn_comm(dkey, data["comm_ptr"], data["rank"], data["nranks"], data.get("comm_id"))
        best = self.book.rank_of(dkey)
        if ev.rank is None:
            ev.rank = best if best is not None else data["rank"]
        ev.comm = data.get("comm_id") or self.book.comm_of(key[0], key[1], data["comm_ptr"])[1]
        if self.held:
            self._release()

    def _on_coll(self, ev, key, data) -> None:
        version, rccl = self.versions.get((key[0], key[1]), self.file_version)
        op = data["op"]
        data["dtype"] = decode_dtype(data["dtype_code"], version, rccl)
        data["redop"] = decode_redop(data["redop_code"], version) if op in REDUCING else None
        if op in P2P_OPS:
            data["peer"], data["root"] = data["root"], None
        elif op not in ROOTED:
            data["root"] = None
        rank, ev.comm = self.book.comm_of(key[0], key[1], data["comm_ptr"])
        if ev.rank is None:
            ev.rank = self.book.rank_of(key)
            if ev.rank is None:
                ev.rank = rank

    def _on_hint(self, ev, key, data) -> None:
        kind = ev.kind
        if kind == "transport":
            rank = data["to_rank"] if data["direction"] == "recv" else data["from_rank"]
        elif kind == "tree":
            rank = data["trees"][0]["rank"] if data["trees"] else None
        elif kind == "ring":
            rank = 0                    # printed by rank 0 only
        else:
            rank = data["rank"]
        if data.get("comm_ptr"):
            ev.comm = self.book.comm_of(key[0], key[1], data["comm_ptr"])[1]
        if rank is None:
            return
        if kind != "ring" and key[0] is not None:
            self.book.learn_hint(key, rank)
            if self.held:
                self._release()
        if ev.rank is None:
            known = self.book.rank_of(key)
            ev.rank = known if known is not None else rank

    def finish(self) -> None:
        self.book.finish()
        self.out.extend(self.held)
        self.held.clear()
        self.holds_unparsed = False


_HANDLERS = {
    "nccl_version": NcclParser._on_version, "comm_init": NcclParser._on_comm, "comm_abort": NcclParser._on_comm,
    "comm_destroy": NcclParser._on_comm, "comm_revoke": NcclParser._on_comm, "coll": NcclParser._on_coll,
    "transport": NcclParser._on_hint, "tree": NcclParser._on_hint, "ring": NcclParser._on_hint,
    "graph_ring": NcclParser._on_hint, "graph_tree": NcclParser._on_hint,
}
