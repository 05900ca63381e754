"""The message catalogue: every line the stack prints when a job fails (or, for some, when it is healthy),
as data, one module per source family (pytorch.py, nccl.py, gloo.py, launchers.py, kernel.py, cuda.py, and
stack.py for the libraries and MPI transports around torch and NCCL).

Each `Message` says: the words as printed (`pattern`, a regex whose named groups are the fields it carries),
the versions that print them, what they mean (`meaning`, one of model.MEANINGS, and `implies`, the verdict
class they point to), the event kind ncclf makes of them and the source file they come from. `example` is one
line as printed (the generated tests read every entry in every arrival form from it); `decisive` is the
shortest prefix of the example that already decides the meaning (a line cut after it still matches).

`match(text)` finds every catalogue message inside one line of text, wherever it stands (behind any prefix,
several glued on one line). It is called for lines that look like messages only (`might_match`), so it costs
nothing on the bulk of a log.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Callable, Iterator, NamedTuple

from ... import signals

FAMILIES = ("pytorch", "nccl", "gloo", "launchers", "kernel", "cuda", "stack")
# Fields that are numbers; every other field is kept as printed.
_INTS = frozenset({"rank", "local_rank", "pid", "exitcode", "signum", "seq", "numel_in", "numel_out", "timeout_ms",
                   "elapsed_ms", "requested_bytes", "other_rank", "src_line", "code", "xid", "task", "count",
                   "group_rank", "nranks", "vendor_err", "status", "last_enqueued", "last_completed", "gpu", "cause_xid",
                   "last_local_rank", "timeout_s", "line_no", "first_rank", "other_count", "sxid",
                   "error_from_rank", "wait_ms", "short_rank"})
# Fields that are sizes: printed as a number of bytes or as format_size prints them ("20.00 MiB").
_SIZES = frozenset({"requested_bytes", "total_bytes", "free_bytes", "allocated_bytes", "reserved_bytes",
                    "unallocated_bytes", "expected_bytes", "received_bytes"})
_UNITS = {"bytes": 1, "B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40, "PiB": 1 << 50}


@dataclass(frozen=True)
class Message:
    id: str                   # family.name, stable
    pattern: str | tuple[str, ...]   # regex; named groups are the fields (a trailing digit tells alternatives apart).
                                     # A tuple: the decisive words' regex, then optional pieces, each only after the
                                     # one before it (a line cut anywhere after the decisive words still matches)
    kind: str                 # the event kind it becomes (docs/events.md)
    meaning: str              # "failure", "consequence", "benign" or "healthy" (model.MEANINGS)
    implies: str | None       # the verdict class it points to, None when it names no class by itself
    versions: str             # which versions print it, as read in the sources
    source: str               # repository:path[:function] it is printed from
    example: str              # one line as printed
    decisive: str             # the example's shortest prefix that decides the meaning
    data: dict[str, Any] = field(default_factory=dict)   # fixed fields (category, oom_kind, signal, ...)
    anchor: str = ""          # literal words every printing contains, `|` between alternatives (default: the
                              # pattern's longest literal)
    flags: int = 0
    refine: Callable[[dict[str, Any]], dict[str, Any]] | None = None   # fields -> the fields they settle beyond the
                                                                        # entry's own (a class a printed value names)

    @property
    def family(self) -> str:
        return self.id.split(".", 1)[0]


# Entries that only frame a message ("an exception was raised", "NCCL warns"): they yield to any specific entry
# found inside them, and lend it their fields.
GENERIC = frozenset({"python.bare_exception", "nccl.warn_pre25", "kernel.nvidia_xid", "xla.coord_task_error",
                     "xla.coord_agent_error", "xla.coord_agent_deadline"})


class Hit(NamedTuple):
    message: Message
    start: int
    end: int
    fields: dict[str, Any]


def _first_literal(pattern: str, decisive: str) -> str:
    """The longest run of plain characters in a pattern that the decisive words hold (the anchor when none is
    given): a line cut after the decisive words still holds it."""
    best = ""
    for found in re.finditer(r"(?:\\[^dswbDSWB\d]|[^\\()\[\]{}?*+|.^$])+", pattern):
        run = found.group(0)
        if pattern[found.end():found.end() + 1] in ("?", "*", "{"):   # the last character is optional
            run = run[:-2] if run.endswith("\\", 0, len(run) - 1) and len(run) > 1 else run[:-1]
        text = re.sub(r"\\(.)", r"\1", run)
        while text and text not in decisive:
            text = text[:-1]
        if len(text) > len(best):
            best = text
    return best


def anchors(msg: Message) -> list[str]:
    """The literal words one of which every printing of the entry holds (what `might_match` looks for)."""
    head = msg.pattern if isinstance(msg.pattern, str) else msg.pattern[0]
    return (msg.anchor or _first_literal(head, msg.decisive)).split("|")


@lru_cache(maxsize=1)
def messages() -> tuple[Message, ...]:
    """Every catalogue entry, family by family."""
    from . import cuda, gloo, kernel, launchers, nccl, pytorch, stack
    out: list[Message] = []
    for module in (pytorch, nccl, gloo, launchers, kernel, cuda, stack):
        out.extend(module.MESSAGES)
    return tuple(out)


class _Compiled(NamedTuple):
    quick: re.Pattern[str]                              # any anchor
    rare: re.Pattern[str]                               # finds something where `quick` does (_rare_first)
    by_anchor: dict[str, list[Message]]
    inside: dict[str, tuple[str, ...]]                  # an anchor -> the shorter anchors it holds (the quick scan
                                                        # reports only the longest match at a position)


@lru_cache(maxsize=1)
def _compiled() -> _Compiled:
    by_anchor: dict[str, list[Message]] = {}
    for msg in messages():
        for anchor in anchors(msg):
            by_anchor.setdefault(anchor, []).append(msg)
    words = sorted(by_anchor, key=len, reverse=True)
    inside = {a: tuple(b for b in words if b != a and b in a) for a in words}
    return _Compiled(re.compile(_trie(words)), re.compile(_rare_first(words)), by_anchor,
                     {a: held for a, held in inside.items() if held})


def build() -> None:
    """Build the catalogue's scans now (its families imported, ~730 anchors of ~570 entries compiled into two regexes:
    about a sixth of a second), not at the first line that needs them."""
    _compiled()


def _trie(words) -> str:
    """One regex for a set of literal words, as a trie (`(?:a(?:b|c))`): at each position it finds the longest word
    that starts there, as the plain alternation of the words sorted longest first does, but without trying every
    word at every position of a line (4x faster on an NCCL INFO line)."""
    root: dict = {}
    for word in words:
        node = root
        for ch in word:
            node = node.setdefault(ch, {})
        node[""] = {}

    def build(node: dict) -> str:
        alts = [re.escape(ch) + build(child) for ch, child in sorted(node.items()) if ch]
        if not alts:
            return ""
        body = alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"
        return f"(?:{body})?" if "" in node else body
    return build(root)


# Characters of log text, the most frequent first (counted over sample_logs/ and the corpus' lines): what
# `_rare_first` avoids starting a word's search at. Any character not listed counts as rarer than all of them.
_COMMON = " 0eotarn1hcdfsu36p:5742lbi98m-C]xN_[/.(kgIy\"vLOF=K,Rq)A>wS^XGP}ETM<D"


def _rare_first(words) -> str:
    """One regex that finds a match in a text exactly where `_trie(words)` does (some word occurs in it), but is
    tried only at the characters that begin the search for a word: each word is looked for at its rarest character
    (by _COMMON), then checked by a lookbehind (the part before it) and a lookahead (the part after it). `_trie`'s
    words begin with about 50 distinct characters (the letters of an INFO line among them), so it is tried at
    almost every character of a line; this one's are mostly rare in log text, and it is about 1.5-2x faster on the
    lines that hold no word; it compiles in about 25 ms (tests/sources/test_catalogue_prefilter.py)."""
    if "" in words:
        return ""                                   # the empty word is in every text

    def rarity(ch: str) -> int:
        at = _COMMON.find(ch)
        return len(_COMMON) if at < 0 else at
    by_char: dict[str, set[str]] = {}
    for word in words:
        at = max(range(len(word)), key=lambda i: (rarity(word[i]), -i))
        before = f"(?<={re.escape(word[:at + 1])})" if at else ""
        after = f"(?={re.escape(word[at + 1:])})" if at + 1 < len(word) else ""
        by_char.setdefault(word[at], set()).add(before + after)
    alts = []
    for ch, checks in sorted(by_char.items()):
        rest = "" if "" in checks else "(?:" + "|".join(sorted(checks)) + ")"   # the one-character word: no check
        alts.append(re.escape(ch) + rest)
    return "|".join(alts)


def full_pattern(msg: Message) -> str:
    """The decisive pattern, then the tail pieces nested optionally: a line cut anywhere in the tail still matches
    and keeps the fields before the cut."""
    if isinstance(msg.pattern, str):
        return msg.pattern
    head, *pieces = msg.pattern
    tail = ""
    for piece in reversed(pieces):
        tail = f"(?:{piece}{tail})?"
    return head + tail


_PATTERNS: dict[str, re.Pattern[str]] = {}


def pattern_of(msg: Message) -> re.Pattern[str]:
    """The entry's compiled `full_pattern`, compiled when a line first holds its anchor: compiling all ~400 costs
    each process about 0.15 s, and most runs meet a handful."""
    rx = _PATTERNS.get(msg.id)
    if rx is None:
        rx = _PATTERNS[msg.id] = re.compile(full_pattern(msg), msg.flags)
    return rx


def might_match(text: str) -> bool:
    return _compiled().rare.search(text) is not None


def _anchors_in(quick: re.Pattern[str], text: str) -> set[str]:
    """The longest anchor starting at each position of the text, overlapping ones included: an anchor may begin
    inside another that does not hold it (`Failed to ` and `ailed to recv, got 0 bytes`), and a scan that resumed
    after each match would skip it."""
    found: set[str] = set()
    at = quick.search(text)
    while at is not None:
        found.add(at.group(0))
        at = quick.search(text, at.start() + 1)
    return found


def annotation(hit: Hit) -> dict[str, Any]:
    """What a hit says of its line: the entry, its meaning and the class it implies (its fields may settle both)."""
    msg = hit.message
    out: dict[str, Any] = {"message_id": msg.id, "meaning": hit.fields.get("meaning") or msg.meaning}
    implies = hit.fields.get("implies") or msg.implies
    if implies:
        out["implies"] = implies
    return out


def match(text: str) -> list[Hit]:
    """Every catalogue message in one line, left to right; where two overlap, the longer (more specific) wins."""
    comp = _compiled()
    if comp.rare.search(text) is None:       # no anchor in the line (most lines): the quick scan would find none
        return []
    found = _anchors_in(comp.quick, text)
    if not found:
        return []
    for anchor in [a for a in found if a in comp.inside]:
        found.update(comp.inside[anchor])
    hits: list[Hit] = []
    tried = set()
    for anchor in found:
        for msg in comp.by_anchor[anchor]:
            if msg.id in tried:
                continue
            tried.add(msg.id)
            for m in pattern_of(msg).finditer(text):
                hits.append(Hit(msg, m.start(), m.end(), fields_of(msg, m)))
    hits.sort(key=lambda h: (h.start, -(h.end - h.start)))
    specific = [h for h in hits if h.message.id not in GENERIC]
    kept_generic = []
    for g in (h for h in hits if h.message.id in GENERIC):
        inside = [k for k in specific if g.start <= k.start and k.end <= g.end]
        for k in inside:                 # a frame of the same kind (a WARN's file:line) lends its fields
            if k.message.kind == g.message.kind:
                for key, value in g.fields.items():
                    k.fields.setdefault(key, value)
        if not inside:
            kept_generic.append(g)
    hits = specific + kept_generic
    kept: list[Hit] = []
    for h in hits:
        if any(k.start <= h.start and h.end <= k.end and k.message.kind == h.message.kind for k in kept):
            continue
        kept.append(h)
    return kept


def size_bytes(text: str | None) -> int | None:
    """'20.00 MiB' -> 20971520, '4096' -> 4096 (format_size prints two decimals, so this is exact to ~1%); None for
    what is no size."""
    if not text:
        return None
    number, _, unit = text.strip().partition(" ")
    try:
        return int(number) if not unit else int(round(float(number) * _UNITS[unit]))
    except (KeyError, ValueError):
        return None


def fields_of(msg: Message, m: re.Match[str]) -> dict[str, Any]:
    data: dict[str, Any] = dict(msg.data)
    for name, value in m.groupdict().items():
        if value is None:
            continue
        key = name.rstrip("0123456789")
        if key in _SIZES:
            size = size_bytes(value)
            if size is not None:
                data[key] = size
        elif key in _INTS:
            try:
                data[key] = int(value)
            except ValueError:              # a named code (`ncclSystemError`) where others print a number
                data[key] = value.strip()
        else:
            data[key] = value.strip()
    if msg.kind == "nccl_error" and "code" not in data and data.get("reason"):
        # ncclGetErrorString's text names its result code
        from .nccl import result_code
        code = result_code(data["reason"])
        if code:
            data["code"] = code
    if msg.refine is not None:
        data.update(msg.refine(data))
    if data.get("reason"):             # a CUDA error text may name a class of its own (a driver too old, no P2P)
        from .cuda import reason_class
        data.update(reason_class(data["reason"], msg.id))
    if isinstance(data.get("oom_kind"), str):
        data["oom_kind"] = data["oom_kind"].lower()
    if "unallocated_bytes" in data and isinstance(data.get("allocated_bytes"), int):   # 2.1+ prints the two parts
        data["reserved_bytes"] = data["allocated_bytes"] + data.pop("unallocated_bytes")
    if data.pop("last_local_rank", None) == 0:
        # DeepSpeed's launcher prints the command line of the *last* local rank it spawned, whichever failed
        # (launch.py: `cmd` outlives its spawn loop): only with one process on the node is that the failed one.
        data["local_rank"] = 0
    if data.get("port") is not None and data.get("peer") is None:                     # gloo's `[host]:port`
        data["peer"] = f"{data.get('host')}:{data['port']}"
    if "signal" not in data and "signum" in data:
        data["signal"] = signals.NAMES.get(abs(data["signum"]))
    if isinstance(data.get("signal"), str) and not data["signal"].startswith("SIG"):
        data["signal"] = signals.WORDS.get(data["signal"], "SIG" + data["signal"].upper())
    if "exitcode" in data and data.get("signal") is None and isinstance(data["exitcode"], int) and data["exitcode"] < 0:
        data["signal"] = signals.of_exit_code(data["exitcode"])
    return data


def by_id(message_id: str) -> Message | None:
    return next((m for m in messages() if m.id == message_id), None)


def iter_table() -> Iterator[tuple[str, str, str, str, str]]:
    """(id, example, versions, meaning, implies) for every entry: what `ncclf explain --messages` lists."""
    for m in messages():
        yield m.id, m.example, m.versions, m.meaning, m.implies or "-"


# Words that make a line look like an error: a line with one that matches no entry is a wording to add.
LOOKS_LIKE_ERROR = re.compile(r"\berror\b|\bfail(?:ed|ure|s)?\b|\bWARN\b|\babort(?:ed|ing)?\b|\bkilled\b|\bsignal\b",
                              re.I)
# Lines that hold such a word but are no message of their own: a C++ backtrace frame (c10's `frame #0:
# c10::Error::Error(...)`, c10/util/Backtrace.cpp), torch's `Last error:` header with the cause on the next line
# (NCCLUtils getNcclErrorDetailStr), Python echoing the source line of a `warnings.warn(` call.
NOT_A_MESSAGE = re.compile(r"\bframe #\d+: |\bLast error:\s*$|\bwarnings\.warn\(\s*$")
