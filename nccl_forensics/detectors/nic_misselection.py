"""N402 nic-misselection: NCCL bootstrapped or ran NET/Socket over a loopback/virtual interface, or the nodes
chose different interfaces or subnets.

What it detects:
    In a job spanning more than one host: ``Bootstrap : Using lo:127.0.0.1<0>`` or ``NET/Socket : Using
    [0]docker0:172.17.0.1<0>`` (lo, docker*, veth*, virbr*, tun*/tap*, br-*, cni*, flannel*), or hosts whose
    bootstrap interfaces have different names or sit in different /16 subnets. Without the init lines: an NCCL
    socket connect that failed to a peer address no other host reaches: loopback (NCCL advertises ``lo`` only
    when no other interface is up or NCCL_SOCKET_IFNAME names it: src/misc/socket.cc ncclFindInterfaces tries
    ib*, then all but docker/lo, then docker, then lo) or IPv6 link-local (``Connect to fe80::…%enP7906s1<51577>
    failed``: an interface with no routable address; IPv4's 169.254.0.0/16 alike, RFC 3927); and torch's Gloo
    device falling back to loopback (``Using the loopback address as fallback``) in a job whose Gloo mesh then
    failed to connect, or Gloo's connect to a peer's loopback or link-local address failed (``connect
    [127.0.1.1]:3210: Connection refused``: the peer's hostname resolves to loopback, the Debian /etc/hosts
    convention, and torch's Gloo device binds and publishes that address). And Open MPI's TCP
    BTL reaching another process than the expected one at a peer's address (``received unexpected process
    identifier``): an address several hosts carry, such as docker0's 172.17.0.1 or virbr0's 192.168.122.1.

Why it hangs or dies:
    Ranks on other hosts cannot reach a loopback or container-bridge address: init hangs in bootstrap,
    or connections time out/are refused mid-job. Different subnets route traffic through a slow or
    firewalled path.

Evidence it needs:
    NCCL INFO init lines (``NCCL_DEBUG=INFO``): Bootstrap / NET/Socket, plus host names from the prefix.

Example:
    ``ncclf diagnose logs/`` →
    ``nic_misselection: host node2 (ranks 4-7) bootstraps over docker0 (172.17.0.1) in a 2-host job``.

Known limits:
    A single-host job may legitimately use ``lo``; it is not reported. Hosts are told apart by the
    NCCL line prefix, so logs with that prefix stripped look single-host.

Suggested fix:
    Set ``NCCL_SOCKET_IFNAME`` (e.g. ``NCCL_SOCKET_IFNAME=eth0`` or ``=^docker,lo``) and, for the
    PyTorch store/gloo, ``GLOO_SOCKET_IFNAME`` to the interface that connects the nodes.
"""
from __future__ import annotations

import re

from ..model import Confidence, ranks_text
from .base import BaseDetector, Context

_VIA_SOCKET = re.compile(r"NET/Socket/(\d+)")
_LOOPBACK = re.compile(r"^(?:127\.\d+\.\d+\.\d+|::1|\[::1\]|localhost)(?:<\d+>|:\d+)?$")
# the peer of a connect that failed (socketStartConnect / socketConnect `Connect to P failed`, socketPollConnect
# `connect to P returned`, socketProgressOpt `Call to connect to P failed`): the catalogue's nccl.socket_* entries
_CONNECT_TO = re.compile(r"[Cc]onnect to (\S+?<\d+>|\S+)")
_VIRTUAL = re.compile(r"^(?:lo|docker\d*|veth\w*|virbr\d*|tun\d*|tap\d*|br-\w+|cni\d*|flannel[\w.]*)$")
# IPv6 link-local (fe80::/10): an address whose scope is one link, that a peer's socket address carries with the
# *sender's* interface index (NCCL's ncclSocketAddress is the raw sockaddr_in6, sin6_scope_id included)
_LINK_LOCAL = re.compile(r"^\[?fe[89ab][0-9a-f]?:", re.I)
# IPv4 link-local (169.254.0.0/16, RFC 3927: no router forwards it): an interface with no routable address, such as
# Kubernetes' NodeLocal DNSCache dummy (169.254.20.10) or a NIC that got no DHCP lease
_LINK_LOCAL_V4 = re.compile(r"^169\.254\.\d+\.\d+(?:<\d+>|:\d+)?$")
_SHARED = "shared_address"   # the catalogue's category for an address that reached another process than the peer


class NicMisselection(BaseDetector):
    code, name, cls = "N402", "nic-misselection", "nic_misselection"
    needs = ("nccl_init", "errors")

    def check(self, ctx: Context):
        yield from self._no_interface(ctx)
        yield from self._shared_address(ctx)
        yield from self._gloo_loopback(ctx)
        picked = list(self._picked(ctx))
        yield from picked or self._channels_over_virtual(ctx)
        if not picked:
            yield from self._unreachable_peer(ctx)

    def _channels_over_virtual(self, ctx: Context):
        """A channel that runs `via NET/Socket/<i>` uses the i-th interface of its process's `NET/Socket : Using`
        list (net_socket.cc indexes its devices in the order it lists them): a virtual one there carries the job's
        traffic, whether or not the other host's log is at hand."""
        lists = {(ev.host, ev.pid): ev.data.get("devices") or [] for ev in ctx.of("net_socket")}
        over: dict[tuple, list] = {}                   # (host, iface, index) -> [ranks, first event]
        for ev in ctx.of("transport"):
            m = _VIA_SOCKET.match(str(ev.data.get("via") or ""))
            if not m:
                continue
            idx = int(m.group(1))
            dev = next((d for d in lists.get((ev.host, ev.pid), []) if d.get("index") == idx), None)
            if dev is None or not _VIRTUAL.match(str(dev.get("name"))):
                continue
            entry = over.setdefault((ev.host, dev.get("name"), idx), [set(), ev])
            if ev.rank is not None:
                entry[0].add(ev.rank)
        for (host, iface, idx), (ranks, ev) in sorted(over.items(), key=lambda kv: str(kv[0])):
            msg = f"host {host}{_ranks(ranks)} runs NCCL channels over {iface} (NET/Socket/{idx}), a virtual interface"
            yield self.finding(sorted(ranks), msg, Confidence.HIGH, [ev], _fix(ctx, "net_socket"))

    def _no_interface(self, ctx: Context):
        hits = [ev for ev in ctx.of("warn", "nccl_error", "dist_backend_error", "traceback", "gloo_error")
                if ev.data.get("implies") == "nic_misselection" and ev.data.get("category") != _SHARED]
        if not hits:
            return
        named = sorted({str(ev.data.get("value")) for ev in ctx.of("env")
                        if ev.data.get("name") in ("NCCL_SOCKET_IFNAME", "GLOO_SOCKET_IFNAME")})
        ranks = sorted({ev.rank for ev in hits if ev.rank is not None})
        who = "gloo" if hits[0].kind == "gloo_error" else "NCCL"
        msg = f"{who} found no network interface it may use: " + (hits[0].data.get("message") or hits[0].text.strip())
        if named:
            msg += f" (NCCL_SOCKET_IFNAME is set to {', '.join(named)}: no such interface is up on that host?)"
        fix = ("set NCCL_SOCKET_IFNAME (and GLOO_SOCKET_IFNAME) to an interface that exists and connects the nodes on "
               "every host (`ip -br addr`), or unset it to let NCCL choose; a prefix like `eth` matches eth0, eth1…")
        yield self.finding(ranks, msg, Confidence.HIGH, hits[:3] + ctx.of("env")[:1], fix)

    def _shared_address(self, ctx: Context):
        """Open MPI's TCP BTL connected to a peer's advertised address and met another process there: the address is
        not that peer's alone (a bridge address every host carries), so MPI's traffic took the wrong interface."""
        hits = [ev for ev in ctx.of("warn") if ev.data.get("category") == _SHARED]
        if not hits:
            return
        ranks = sorted({ev.rank for ev in hits if ev.rank is not None})
        got = hits[0].data.get("got")
        refused = [ev for ev in ctx.of("warn") if ev.data.get("message_id") == "ompi.btl_tcp_connect_errno"]
        msg = ("Open MPI's TCP transport met another process" + (f" ({got})" if got else "") + " than the expected "
               "peer at that peer's address" + (f", and its connect() to {refused[0].data.get('peer')} failed "
               f"({refused[0].data.get('reason')})" if refused else "") + ": an address several hosts carry, as a "
               "docker0 or virbr0 bridge does, not the peer's own")
        fix = ("exclude the bridges from MPI's TCP transport (`--mca btl_tcp_if_exclude lo,docker0,virbr0` or "
               "`--mca btl_tcp_if_include <the nodes' interface>`, and the same for oob_tcp), and set "
               "NCCL_SOCKET_IFNAME to that interface")
        yield self.finding(ranks, msg, Confidence.HIGH, hits[:2] + refused[:1], fix)

    def _unreachable_peer(self, ctx: Context):
        """An NCCL connect that failed to a peer address other hosts cannot reach: loopback (the peer bootstrapped
        over lo: on one host NCCL picks a real interface first, and a loopback connect to a live peer does not fail)
        or IPv6 link-local (the peer advertised an interface whose only address is link-local, a container veth or a
        cloud VF such as Azure's `enP…`, reachable only on its own link). Gloo's connect alike: the address is the
        one its peer's device bound (its hostname's, 127.0.1.1 where /etc/hosts maps the hostname there)."""
        # (a Gloo device that fell back to loopback is `_gloo_loopback`'s finding already)
        fell_back = any(ev.data.get("category") == "loopback_fallback" for ev in ctx.of("gloo_device"))
        kinds = ("warn", "nccl_error", "dist_backend_error", "traceback", "gloo_error")
        found = [(ev, peer, kind) for ev in ctx.of(*kinds)
                 if (str(ev.data.get("message_id") or "").startswith("nccl.") or _gloo_connect(ev) and not fell_back)
                 and ev.data.get("implies") == "network_error"
                 for peer in [_connect_peer(ev)] for kind in [_unreachable(peer)] if kind]
        if not found:
            return
        hits, (first, peer, kind) = [ev for ev, _, _ in found], found[0]
        ranks = sorted({ev.rank for ev in hits if ev.rank is not None})
        if kind == "loopback" and _gloo_connect(first):
            msg = (f"gloo failed to connect to a peer at the loopback address {peer}: that peer's hostname resolves to "
                   "a loopback address (as a `127.0.1.1 <hostname>` line in /etc/hosts makes it), which gloo published "
                   "as its own, so ranks on other hosts cannot reach it")
            yield self.finding(ranks, msg, Confidence.MEDIUM, hits[:3], _GLOO_FIX)
            return
        if kind == "loopback":
            msg = (f"NCCL failed to connect to a peer at the loopback address {peer}: that peer bootstrapped over lo "
                   "(no other interface chosen), so ranks on other hosts cannot reach it")
            yield self.finding(ranks, msg, Confidence.MEDIUM, hits[:3], _fix(ctx, "bootstrap"))
            return
        scope = peer.partition("%")[2].partition("<")[0]
        family = "IPv4" if _LINK_LOCAL_V4.match(peer) else "IPv6"
        who = "gloo" if _gloo_connect(first) else "NCCL"
        msg = (f"{who} failed to connect to {peer}, an {family} link-local address" + (f" (scope {scope})" if scope
                                                                                        else "")
               + ": the peer advertised an interface with no routable address, which other hosts cannot reach")
        yield self.finding(ranks, msg, Confidence.MEDIUM, hits[:3], "set NCCL_SOCKET_IFNAME (and GLOO_SOCKET_IFNAME) "
                           "to the interface that carries the nodes' routable addresses on every host (`ip -br addr`), "
                           "or NCCL_SOCKET_FAMILY=AF_INET to leave IPv6 link-local addresses out")

    def _gloo_loopback(self, ctx: Context):
        """torch's Gloo device bound loopback (the hostname resolves to no local address) and the Gloo mesh then
        failed to connect: peers on other hosts were given 127.0.0.1."""
        fallbacks = [ev for ev in ctx.of("gloo_device") if ev.data.get("category") == "loopback_fallback"]
        failed = [ev for ev in ctx.of("gloo_error") if ev.data.get("category") == "connect"]
        if fallbacks and failed:
            ranks = sorted({ev.rank for ev in fallbacks if ev.rank is not None})
            msg = (f"Gloo bound the loopback address{_ranks(ranks)}, the hostname resolving to no local address, and "
                   "its mesh then failed to connect: " + (failed[0].data.get("reason") or failed[0].text.strip()))
            yield self.finding(ranks, msg, Confidence.MEDIUM, fallbacks[:1] + failed[:2], _GLOO_FIX)

    def _picked(self, ctx: Context):
        picks: dict[tuple[str, str], list] = {}      # (host, event kind) -> [iface, addr, event, ranks]
        for ev in ctx.of("bootstrap", "net_socket"):
            devs = ev.data.get("interfaces") or ev.data.get("devices") or []
            if not devs or not ev.host:
                continue
            # NET/Socket uses every interface it lists ([0]bond0 [1]br-… [2]veth…): a virtual one anywhere counts
            dev = next((d for d in devs if _VIRTUAL.match(str(d.get("name")))), devs[0]) \
                if ev.kind == "net_socket" else devs[0]
            entry = picks.setdefault((ev.host, ev.kind), [dev.get("name"), dev.get("addr"), ev, set()])
            if ev.rank is not None:
                entry[3].add(ev.rank)
        hosts = sorted({h for h, _ in picks} | {ev.host for kind in ("comm_init", "bootstrap", "net_socket")
                                                 for ev in ctx.by_kind.get(kind, ()) if ev.host})   # a set: unsorted
        nodes = max([len(hosts)] + [ev.data.get("nnodes") or 0 for ev in ctx.of("comm_init")])
        if nodes < 2:
            return
        for (host, kind), (iface, addr, ev, ranks) in sorted(picks.items()):
            if iface and _VIRTUAL.match(iface):
                what = "bootstraps" if kind == "bootstrap" else "runs NET/Socket"
                msg = f"host {host}{_ranks(ranks)} {what} over {iface} ({addr}) in a {nodes}-host job"
                yield self.finding(sorted(ranks), msg, Confidence.HIGH, [ev], _fix(ctx, kind))
        boot = {h: v for (h, k), v in picks.items() if k == "bootstrap" and not _VIRTUAL.match(v[0] or "")}
        names = {v[0] for v in boot.values()}
        nets = {".".join(str(v[1]).split(".")[:2]) for v in boot.values() if v[1]}
        if len(names) > 1 or len(nets) > 1:
            groups = sorted(boot.items())
            odd = _minority(groups)
            msg = "hosts chose different interfaces/subnets: " + ", ".join(f"{h} {v[0]} {v[1]}" for h, v in groups)
            ranks = sorted(r for h, v in groups if h in odd for r in v[3])
            yield self.finding(ranks, msg, Confidence.MEDIUM, [v[2] for _, v in groups], _fix(ctx, "bootstrap"))


_GLOO_FIX = ("set GLOO_SOCKET_IFNAME (and NCCL_SOCKET_IFNAME) to the interface that connects the nodes, or make the "
             "hostname resolve to that interface's address (/etc/hosts)")


def _gloo_connect(ev) -> bool:
    """Gloo's connect to a peer's published address failed (tcp pair.cc `connect [addr]:port: ...`, the uv
    transport's `Error connecting to [addr]:port`): the address is the one that peer's device bound, from its hostname
    or GLOO_SOCKET_IFNAME (torch's GlooDeviceFactory)."""
    return ev.kind == "gloo_error" and ev.data.get("category") == "connect"


def _unreachable(peer: str) -> str | None:
    if _LOOPBACK.match(peer):
        return "loopback"
    return "link-local" if _LINK_LOCAL.match(peer) or _LINK_LOCAL_V4.match(peer) else None


def _connect_peer(ev) -> str:
    """The address a failed connect went to: the `connect to ADDR<PORT>` of the text, else the catalogue's `peer` of a
    connect entry (the peer of a send, a recv or a closed connection is no connect's)."""
    m = _CONNECT_TO.search(str(ev.data.get("message") or ev.text))
    if m:
        return m.group(1)
    peer = ev.data.get("peer") if "connect" in str(ev.data.get("message_id") or "") else None
    return str(peer or "")


def _ranks(ranks) -> str:
    return f" (ranks {ranks_text(ranks)})" if ranks else ""


def _minority(groups) -> set:
    by_iface: dict[str, set[str]] = {}
    for host, v in groups:
        by_iface.setdefault(v[0], set()).add(host)
    smallest = min(by_iface.values(), key=lambda s: (len(s), sorted(s)))
    return smallest if len(by_iface) > 1 else set()


def _fix(ctx: Context, kind: str) -> str:
    good = sorted({(ev.data.get("interfaces") or ev.data.get("devices") or [{}])[0].get("name")
                   for ev in ctx.of("bootstrap", "net_socket")} - {None})
    good = [g for g in good if not _VIRTUAL.match(g)]
    iface = good[0] if good else "<the inter-node interface>"
    return (f"set NCCL_SOCKET_IFNAME={iface} (and GLOO_SOCKET_IFNAME={iface}) on every node so NCCL "
            "bootstraps and runs sockets over the interface that connects the nodes.")
