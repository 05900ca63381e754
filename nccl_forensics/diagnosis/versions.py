"""The version-mismatch rule, shared by detector V501 and topology check G007 (and G008's networks/plugins).

Processes that print different values of something that must agree (NCCL version, flight-recorder schema,
network, net plugin) are grouped by value; the largest group is taken as the intended one (ties: the smaller
value first) and every other group is odd.
"""
from __future__ import annotations

from typing import Hashable, Iterable, TypeVar

from ..model import Event

T = TypeVar("T")


def by_version(pairs: Iterable[tuple[Hashable | None, T]]) -> list[tuple[Hashable, list[T]]]:
    """(value, items) groups, the majority first; values that are None or empty are left out. More than one
    group means a mismatch, and the groups after the first are the odd ones."""
    groups: dict[Hashable, list[T]] = {}
    for value, item in pairs:
        if value:
            groups.setdefault(value, []).append(item)
    return sorted(groups.items(), key=lambda kv: (-len(kv[1]), str(kv[0])))


# NCCL's words for a process that loaded no external net plugin (src/net.cc, src/plugin/ from 2.26): `NET/Plugin :
# No plugin found (libnccl-net.so), using internal implementation` (2.4 - 2.20), `NET/Plugin: Could not find:
# libnccl-net.so. Using internal network plugin.` (2.21 - 2.25), `... Using internal net plugin.` (2.26+); an
# external one names itself (`Loaded net plugin X`, `Initialized NET plugin X`) or, from HPC-X's plugin, its library
# (`Plugin Path : /opt/hpcx/nccl_rdma_sharp_plugin/lib/libnccl-net.so`)
_INTERNAL = ("using internal implementation", "using internal network plugin", "using internal net plugin")
_BUILT_IN = {"IB", "Socket"}   # 2.26+'s `Initialized NET plugin IB` names NCCL's own transport, no external one


def net_plugins(events: Iterable[Event]) -> list[tuple[str, Event]]:
    """(plugin, first event) for each process (host, pid) that said which net plugin it runs: the external one it
    loaded, else `internal` where it said it fell back to NCCL's own."""
    external: dict[tuple, tuple[str, Event]] = {}
    internal: dict[tuple, tuple[str, Event]] = {}
    for ev in events:
        key, d = (ev.host, ev.pid), ev.data
        if ev.kind == "net_plugin" and str(d.get("plugin")) in _BUILT_IN:
            internal.setdefault(key, ("internal", ev))
        elif ev.kind == "net_plugin" and d.get("plugin"):
            external.setdefault(key, (str(d["plugin"]), ev))
        elif ev.kind == "nccl_info" and d.get("topic") == "plugin_path":
            external.setdefault(key, (str(d.get("message") or "").partition(":")[2].strip() or "external", ev))
        elif ev.kind == "net_plugin" and str(d.get("message") or "").lower().rstrip(".").endswith(_INTERNAL):
            internal.setdefault(key, ("internal", ev))
    return [external.get(key) or internal[key] for key in {**internal, **external}]


def networks(events: Iterable[Event]) -> list[tuple[str, Event]]:
    """(network, first event) for each process that printed `Using network X` (IB, Socket, a plugin's name)."""
    first: dict[tuple, tuple[str, Event]] = {}
    for ev in events:
        if ev.kind == "net_using" and ev.data.get("network"):
            first.setdefault((ev.host, ev.pid), (str(ev.data["network"]), ev))
    return list(first.values())
