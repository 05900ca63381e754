"""What a flight-recorder dump's entries mean for the timeline: collectives, their coalesced members, P2P ops.

A dump lists entries in the order its rank enqueued them. Three kinds of entry do not map one-to-one onto a
(group, seq) row:

- **P2P** (`nccl:send 0->1`, `nccl:recv 1<-0`, `is_p2p`): they keep the last collective's `collective_seq_id`
  and count on their own `p2p_seq_id`. Aligning them by (group, seq) compares a send on one rank with a recv on its
  peer as if they were one collective. They go to their own table (`P2POp`), matched pair by pair later
  (divergence.unmatched_p2p).
- **Coalesced members**: a coalesced call (`_coalescing_manager`, FSDP's bucketed all-gathers, broadcast_coalesced)
  records each member, then a `coalesced` / `*_coalesced` marker, all with one `collective_seq_id`. They become one
  row whose signature lists every member, so a mismatch in any member shows, not only in the first.
- **all_to_all**: ranks legitimately send and receive different totals (MoE token dispatch); only the job's totals
  must balance. Their sizes are kept apart (`a2a_in`, `a2a_out`) instead of being compared rank against rank.

- **gather / scatter**: only the root has the gathered output (gather) or the scattered input (scatter); the
  other ranks record an empty buffer (`[[]]`, dtype ""). That side is not compared: a gather's output, a
  scatter's input (its dtype is then read from the output), as PyTorch's analyzer does.
- **dtypes** are compared per tensor: an entry's dtype is the set of its tensors' dtypes, so an
  `all_to_all` of four float32 tensors and an `all_to_all_single` of one agree on dtype (they differ in op).
- **API variants** (`_all_gather_base` / `all_gather`, `all_to_all_single` / `all_to_all`, ...) are different
  ops, as in PyTorch's analyzer (flight_recorder.OPS); `OP_FAMILY` gives the size rules a variant follows.

Output sizes are kept (`out_numel`) and checked against the collective's semantics for the group size:
all_gather out = in x world, reduce_scatter in = out x world, all_reduce/broadcast in = out. `size_note` says what a
row breaks, so a rank whose output alone is wrong is named.

Example, rank 0 of a two-rank group::

    entries  #0 broadcast [[4,4]] seq 7   #1 broadcast [[5,5]] seq 7   #2 coalesced [] seq 7   #3 send 0->1 seq 7
    rows     seq 7  op "coalesced(broadcast,broadcast)"  numel 41  shape "[[4, 4]] [[5, 5]]"
    p2p      P2POp(pg 0, p2p_seq 1, send, peer 1, numel 16)
"""
from __future__ import annotations

from dataclasses import dataclass
from math import prod
from typing import Any, Iterable, NamedTuple

from ..sources.flight_recorder import OP_FAMILY

P2P_OPS = {"send", "recv"}
ALLTOALL = {"alltoall", "alltoall_single"}
_MARKERS = {"coalesced", "allgather_coalesced", "reducescatter_coalesced", "allreduce_coalesced"}
_GATHERING = {"allgather", "allgather_coalesced"}
_SCATTERING = {"reducescatter", "reducescatter_coalesced"}
_SAME_SIZE = {"allreduce", "broadcast", "allreduce_coalesced"}


class P2POp(NamedTuple):
    """One send or recv of a rank: `peer` is the other side's global rank (None when no membership says it)."""

    pg: str
    seq: int | None              # the collective seq id the entry carries (the last collective's)
    p2p_seq: int | None
    op: str                      # "send" | "recv"
    peer: int | None
    numel: int | None
    state: str | None
    line: int
    time: float | None


@dataclass
class Entry:
    """The fields of one entry these rules read (from `read_flight_recorder_table` columns or an fr_entry event)."""

    pg: str
    seq: int | None
    op: str | None
    peer: str | None             # profiling_name's meta: "1->2" (send), "3<-0" (recv)
    is_p2p: bool | None
    in_sizes: Any
    out_sizes: Any
    dtypes: Any
    state: str | None
    line: int
    time: float | None
    t_start: float | None
    t_end: float | None
    p2p_seq: int | None = None
    frame: str | None = None
    text: str | None = None
    out_dtypes: Any = None
    in_splits: Any = None        # all_to_all split sizes in elements per peer (schema 2.11), else None
    out_splits: Any = None


def dtype_key(dtypes: Any) -> str:
    """An entry's dtypes as compared: each distinct dtype once, in order ("" for none)."""
    return ",".join(dict.fromkeys(d for d in dtypes or () if d))


def _splits(e: Entry) -> tuple | None:
    """(input splits, output splits) in elements per group rank, where the dump records them (schema 2.11)."""
    ins, outs = e.in_splits, e.out_splits
    if isinstance(ins, (list, tuple)) and isinstance(outs, (list, tuple)) and ins and outs:
        try:
            return tuple(int(v) for v in ins), tuple(int(v) for v in outs)
        except (TypeError, ValueError):
            return None
    return None


def is_p2p(e: Entry) -> bool:
    return bool(e.is_p2p) or e.op in P2P_OPS


def rows_and_p2p(entries: Iterable[Entry], members: dict[str, list[int]], rank: int | None) -> tuple[list, list]:
    """(timeline rows as dicts, P2P ops) of one dump's entries, in entry order. `members` maps a PG name to its
    global ranks in group-rank order (pg_config), for group sizes and P2P peers."""
    rows: list[dict[str, Any]] = []
    p2p: list = []
    pending: list[Entry] = []
    for e in entries:
        if is_p2p(e):
            if e.op in P2P_OPS:
                p2p.append(P2POp(e.pg, e.seq, e.p2p_seq, e.op, _peer(e, members.get(e.pg), rank),
                                 _numel(e.in_sizes), e.state, e.line, e.time))
            continue                                         # a P2P batch's own `coalesced` marker too
        if pending and (pending[0].pg, pending[0].seq) != (e.pg, e.seq):
            rows.append(_row(pending, members))
            pending = []
        pending.append(e)
        if e.op in _MARKERS and len(pending) > 1:            # the marker closes its group of members
            rows.append(_row(pending, members))
            pending = []
    if pending:
        rows.append(_row(pending, members))
    return rows, p2p


def _row(group: list[Entry], members: dict[str, list[int]]) -> dict:
    first = group[0]
    real = [e for e in group if e.op not in _MARKERS or len(group) == 1]
    ops = [e.op for e in real]
    op = ops[0] if len(real) == 1 else f"coalesced({','.join(o or '?' for o in ops)})"
    numel = _total(_numel(e.in_sizes) for e in real)
    out = _total(_numel(e.out_sizes) for e in real)
    shapes = " ".join(str(_plain(e.in_sizes)) for e in real) if len(real) > 1 else None   # members' sizes
    dtypes = ";".join(dtype_key(e.dtypes) for e in real) or None
    last = group[-1]
    row: dict[str, Any] = {
        "group": first.pg, "seq": first.seq, "op": op, "numel": numel, "out_numel": out, "shape": shapes,
        "dtype": dtypes or None, "state": last.state, "line": first.line, "time": first.time,
        "t_start": first.t_start, "t_end": last.t_end, "frame": first.frame, "text": first.text,
        "size_note": None}
    if len(real) == 1 and op in ALLTOALL:
        row["numel"], row["out_numel"] = None, None             # compared by the job's totals, not rank by rank
        row["a2a_in"], row["a2a_out"] = numel, out
        row["a2a_splits"] = _splits(first)
    elif len(real) == 1 and op == "gather":
        row["out_numel"] = None                                 # only the root gathers
    elif len(real) == 1 and op == "scatter":
        row["numel"] = None                                     # only the root scatters
        row["dtype"] = dtype_key(first.out_dtypes) or None
    elif len(real) == 1:
        row["size_note"] = size_note(op, numel, out, len(members.get(first.pg) or ()))
    return row


def size_note(op: str | None, numel: int | None, out: int | None, world: int) -> str | None:
    """What a collective's output size breaks, for a group of `world` ranks (None when it is consistent or unknown).
    A gather/scatter's root asymmetry and a broadcast's non-root buffers are not checked here."""
    op = OP_FAMILY.get(op, op) if op is not None else None
    if numel is None or out is None or not world or out == 0 and op not in _SAME_SIZE:
        return None
    if op in _GATHERING and out != numel * world:
        return f"output {out} elements is not input {numel} x {world} ranks"
    if op in _SCATTERING and numel != out * world:
        return f"input {numel} elements is not output {out} x {world} ranks"
    if op in _SAME_SIZE and numel != out:
        return f"output {out} elements differs from input {numel}"
    return None


def _peer(e: Entry, group: list[int] | None, rank: int | None) -> int | None:
    """The other side of a send/recv as a global rank: `send 1->2` names group ranks (self -> peer)."""
    _, sep, other = (e.peer or "").partition("->" if e.op == "send" else "<-")
    if not sep:
        return None
    try:
        local = int(other)
    except ValueError:
        return None
    if group and 0 <= local < len(group):
        return group[local]
    return local if not group else None


def _numel(sizes: Any) -> int | None:
    if not isinstance(sizes, (list, tuple)):
        return None
    try:
        return sum(prod(s) for s in sizes)
    except TypeError:
        return None


def _total(values: Iterable[int | None]) -> int | None:
    values = list(values)
    known = [v for v in values if v is not None]
    return None if not known or len(known) < len(values) else sum(known)


def _plain(sizes: Any) -> Any:
    return [list(s) for s in sizes] if isinstance(sizes, (list, tuple)) else sizes


class Unmatched(NamedTuple):
    """A send or recv whose other side the peer never posted (as far as the peer's dump shows)."""

    pg: str
    culprit: int                 # the rank that did not post its side
    waiting: int                 # the rank whose op waits for it
    op: P2POp                    # the waiting rank's op
    file: str


class Pair(NamedTuple):
    """A send and the recv it was matched with."""

    pg: str
    send: P2POp
    recv: P2POp
    src: int
    dst: int
    send_file: str
    recv_file: str


def pair_p2p(ops: Iterable[tuple], dumped: set[int]) -> tuple[list[Pair], list[Unmatched]]:
    """Pair sends with recvs, per (group, sender, receiver) in P2P order: the k-th send from a to b is the k-th
    recv at b from a; a send left over is then matched with b's recvs from any source (`recv 3<-?`, gloo's
    recvAnysource) in their order. What is left over, and not completed (a completed send was received), waits
    for a peer that never posted its side. Only pairs whose both ranks left a dump are judged.
    `ops`: (rank, file, *P2POp). Returns (matched pairs, unmatched)."""
    matched, out = _paired(ops, dumped)
    make = P2POp._make
    return [Pair(pg, make(a[2:]), make(b[2:]), src, dst, a[1], b[1])
            for pg, src, dst, sends, recvs in matched for a, b in zip(sends, recvs, strict=False)], list(out)


def _paired(ops: Iterable[tuple], dumped: set[int]) -> tuple[list[tuple], list[Unmatched]]:
    """`_pair_p2p`, remembered for the last list of ops (several detectors ask about the same ops); not to be
    changed by the caller."""
    key = (len(ops), frozenset(dumped)) if type(ops) is list else None
    if key is not None and _PAIRED and _PAIRED[0] is ops and _PAIRED[1] == key:
        return _PAIRED[2], _PAIRED[3]
    matched, out = _pair_p2p(ops, dumped)
    if key is not None:
        _PAIRED[:] = [ops, key, matched, out]
    return matched, out


_PAIRED: list = []      # the last _paired call on a list: (ops, (len, dumped), matched, unmatched)
_NUMEL, _STATE = 7, 8   # of an op (rank, file, *P2POp)


def _pair_p2p(ops: Iterable[tuple], dumped: set[int]) -> tuple[list[tuple], list[Unmatched]]:
    """(matched: per (group, sender, receiver) `(pg, src, dst, sends, recvs)`, the k-th of `sends` paired with
    the k-th of `recvs`, as the ops came (rank, file, *P2POp): a P2POp is made only for what is reported;
    unmatched)."""
    groups: dict[tuple, list] = {}   # (pg, src, dst, is_send) -> ops; (pg, None, dst, False): dst's recvs from any
    for item in ops:                 # (rank, file, pg, seq, p2p_seq, op, peer, ...)
        rank, kind, peer = item[0], item[5], item[6]
        if rank is None or peer is None and kind != "recv":
            continue
        key = (item[2], rank, peer, True) if kind == "send" else (item[2], peer, rank, False)
        group = groups.get(key)
        if group is None:
            groups[key] = [item]
        else:
            group.append(item)
    matched, out = [], []
    for pg, src, dst in sorted({key[:3] for key in groups if key[1] is not None}, key=str):
        if src not in dumped or dst not in dumped:
            continue
        s, r = groups.get((pg, src, dst, True), []), groups.get((pg, src, dst, False), [])
        spare = groups.get((pg, None, dst, False))
        if spare and len(s) > len(r):
            r = list(r)
            while len(s) > len(r) and spare:
                r.append(spare.pop(0))
        matched.append((pg, src, dst, s, r))
        # extras past the shorter side are unmatched: C106 reports them
        extra, culprit = (s[len(r):], dst) if len(s) > len(r) else (r[len(s):], src)
        for item in extra:
            if item[_STATE] != "completed":
                out.append(Unmatched(pg, culprit, item[0], P2POp._make(item[2:]), item[1]))
                break                                        # the first one is what everything after waits for
    return matched, out


def unmatched_p2p(ops: Iterable[tuple], dumped: set[int]) -> list[Unmatched]:
    """The sends and recvs whose other side the peer never posted (see pair_p2p)."""
    return list(_paired(ops, dumped)[1])


def p2p_size_mismatches(ops: Iterable[tuple], dumped: set[int]) -> list[tuple[Pair, list[int]]]:
    """Matched send/recv pairs whose sizes differ (the send's input against the recv's buffer), the first per group,
    each with its suspects: the side that changed against the earlier pairs of the same sender and receiver (the
    sender, when earlier sends had the size this recv expects; the receiver, when earlier recvs had the size this
    send carries), else both."""
    seen, out = set(), []
    for pg, src, dst, s, r in _paired(ops, dumped)[0]:
        if pg in seen:
            continue
        for k, (a, b) in enumerate(zip(s, r, strict=False)):
            x, y = a[_NUMEL], b[_NUMEL]
            if x is None or y is None or x == y:
                continue
            seen.add(pg)
            sends, recvs = {p[_NUMEL] for p in s[:k]}, {p[_NUMEL] for p in r[:k]}
            suspects = [src] if y in sends and x not in sends else [dst] if x in recvs and y not in recvs \
                else sorted({src, dst})
            out.append((Pair(pg, P2POp._make(a[2:]), P2POp._make(b[2:]), src, dst, a[1], b[1]), suspects))
            break
    return out
