"""Network and process checks (G005–G009); see checks.py for the table."""
from __future__ import annotations

from typing import Callable

from ..diagnosis.versions import by_version
from .checks_base import (
    _each,
    _env,
    _label,
    _processes,
    _rank_process,
    _ranks,
    _ranks_of,
    _warn,
)
from .model import NET_IB, NET_SOCKET, Communicator, TopoWarning

VIRTUAL_IF_PREFIXES = ("lo", "docker", "veth", "virbr", "tun")


def check_socket_despite_ib(comms: list[Communicator]) -> list[TopoWarning]:
    """G005 socket-despite-ib: NET/Socket is in use although InfiniBand is there.

    What it finds: NET/Socket in use although IB devices were listed (`NET/IB : Using [0]mlx5_0…`) or
    NCCL_IB_DISABLE=1 was set. Verdict class in diagnose: nic_misselection.
    Why it matters: sockets over TCP are many times slower than IB; jobs slow down or time out.
    Evidence: the NET/IB and NET/Socket init lines (`NCCL_DEBUG=INFO`).
    Fix: unset NCCL_IB_DISABLE, check NCCL_IB_HCA and the IB driver (ibv_devinfo).
    """
    return _each(comms, _socket_despite_ib)


def _socket_despite_ib(comms: list[Communicator]) -> list[TopoWarning]:
    evidence, ranks, hosts = [], [], set()
    for proc in _processes(comms):
        if not proc.ib_devices and _env(proc, "NCCL_IB_DISABLE") != "1":
            continue
        socket_edges = [e for c in comms for e in c.edges.values()
                        if e.cls == NET_SOCKET and _rank_process(c, e.src) is proc]
        uses_socket = (proc.network or "").lower().startswith("socket")
        if uses_socket or socket_edges:
            evidence += [proc.ib_ev or proc.env["NCCL_IB_DISABLE"][1], proc.network_ev if uses_socket else None]
            evidence += [e.evidence[0] for e in socket_edges[:1] if e.evidence]
            ranks += _ranks_of(proc, comms)
            hosts.add(proc.host or "?")
    if not evidence:
        return []
    return [_warn("G005 socket-despite-ib",
                  f"NET/Socket is in use on {', '.join(sorted(hosts))} although IB devices were listed or "
                  f"IB was disabled by NCCL_IB_DISABLE=1 (check NCCL_IB_DISABLE, NCCL_IB_HCA and the IB driver)",
                  evidence, comms, ranks,
                  "nic_misselection", per_host=True)]


def check_virtual_interface(comms: list[Communicator]) -> list[TopoWarning]:
    """G006 virtual-interface: a multi-node job talks over a virtual interface.

    What it finds: a multi-node job that bootstraps or runs sockets over lo/docker*/veth*/virbr*/tun* or a
    127.x address. Verdict class in diagnose: nic_misselection.
    Why it matters: peers on other nodes cannot reach that address: init hangs or fails.
    Evidence: the bootstrap and NET/Socket interface lines (`NCCL_DEBUG=INFO`).
    Fix: set NCCL_SOCKET_IFNAME to the real NIC.
    """
    return _each(comms, _virtual_interface)


def _virtual_interface(comms: list[Communicator]) -> list[TopoWarning]:
    procs = _processes(comms)
    hosts = {p.host for p in procs if p.host} | {r.host for c in comms for r in c.ranks.values() if r.host}
    if max([len(hosts)] + [c.nnodes or 0 for c in comms]) < 2:
        return []
    found: set[str] = set()
    evidence: list = []
    ranks: list[int] = []
    for proc in procs:
        for what, ifs, ev in (("bootstrap", proc.bootstrap_ifs, proc.bootstrap_ev),
                              ("NET/Socket", proc.socket_ifs, proc.socket_ev)):
            bad = [name for name, addr in ifs if _is_virtual(name, addr)]
            if bad:
                found.update(f"{what} {name}" for name in bad)
                evidence.append(ev)
                ranks += _ranks_of(proc, comms)
    if not found:
        return []
    return [_warn("G006 virtual-interface",
                  f"a multi-node job uses {', '.join(sorted(found))}: peers on other nodes cannot reach it "
                  f"(set NCCL_SOCKET_IFNAME to the real NIC)", evidence, comms, ranks, "nic_misselection",
                  per_host=True)]


def _is_virtual(name: str, addr: str) -> bool:
    return name.startswith(VIRTUAL_IF_PREFIXES) or addr.startswith("127.") or addr.startswith("::1<")


def check_version_mismatch(comms: list[Communicator]) -> list[TopoWarning]:
    """G007 nccl-version-mismatch: processes print different NCCL versions.

    What it finds: the processes of a communicator print different `NCCL version` lines. The rule (the majority
    version is the intended one, the others are odd) is V501's (`diagnosis/versions.py`); `ncclf explain V501`
    says why mixed versions hang. Verdict class in diagnose: version_mismatch.
    Evidence: the `NCCL version` line of each process.
    Fix: one container image / environment on every node.
    """
    return _each(comms, _version_mismatch)


def _version_mismatch(comms: list[Communicator]) -> list[TopoWarning]:
    return _mismatch(comms, "G007 nccl-version-mismatch", "NCCL versions differ across processes",
                     lambda p: (p.version, p.version_ev))


def check_net_plugin_mismatch(comms: list[Communicator]) -> list[TopoWarning]:
    """G008 net-plugin-mismatch: processes use different networks or net plugins.

    What it finds: processes that print different `Using network X` lines or load different net plugins (the
    rule of V501/G007: the majority is the intended one). Verdict class in diagnose: version_mismatch.
    Why it matters: ranks that speak different transports cannot connect: init hangs or fails.
    Evidence: the `Using network` and plugin lines of each process.
    Fix: the same NCCL_NET / NCCL_NET_PLUGIN and the same plugin library on every node.
    """
    return _each(comms, _net_plugin_mismatch)


def _net_plugin_mismatch(comms: list[Communicator]) -> list[TopoWarning]:
    out = _mismatch(comms, "G008 net-plugin-mismatch", "processes use different networks",
                    lambda p: (p.network, p.network_ev))
    return out or _mismatch(comms, "G008 net-plugin-mismatch", "processes load different net plugins",
                            lambda p: (p.plugin, p.plugin_ev))


def _mismatch(comms, id_name: str, what: str, value_of: Callable) -> list[TopoWarning]:
    """The version-mismatch rule of V501 (diagnosis/versions.py) over the processes of `comms`."""
    groups = by_version((value_of(proc)[0], proc) for proc in _processes(comms))
    if len(groups) < 2:
        return []
    parts, evidence, ranks = [], [], []
    for value, procs in sorted(groups, key=lambda kv: str(kv[0])):
        rks = [r for p in procs for r in _ranks_of(p, comms)]
        where = f"ranks {_ranks(rks)}" if rks else ", ".join(sorted({p.host or p.file for p in procs}))
        parts.append(f"{value} on {where}")
        evidence.append(value_of(procs[0])[1])
        ranks += rks
    culprits = [r for _, procs in groups[1:] for p in procs for r in _ranks_of(p, comms)] or ranks
    return [_warn(id_name, f"{what}: " + "; ".join(parts), evidence, comms, culprits, "version_mismatch",
                  per_host=True)]


def check_gdr_disabled(comms: list[Communicator]) -> list[TopoWarning]:
    """G009 gdr-disabled: NET/IB connections without GPU Direct RDMA.

    What it finds: NET/IB connections without GDRDMA while others use it, or NCCL printed
    `GPU Direct RDMA Disabled for HCA … (no module)`, or NCCL_NET_GDR_LEVEL=LOC.
    Why it matters: data goes through host memory: lower bandwidth, not a hang.
    Evidence: the NET/IB connection lines (`NCCL_DEBUG=INFO`).
    Fix: load nvidia-peermem (or the dma-buf path) and unset NCCL_NET_GDR_LEVEL=LOC.
    """
    out = []
    for comm in comms:
        ib = [e for e in comm.edges.values() if e.cls == NET_IB]
        without = [e for e in ib if not e.gdr]
        if not without:
            continue
        with_gdr = [e for e in ib if e.gdr]
        ranks = sorted({e.src for e in without})
        off = [p.gdr_off_ev for p in comm.processes if p.gdr_off_ev is not None]   # the "GDR off" lines
        forced = [p for p in comm.processes if (_env(p, "NCCL_NET_GDR_LEVEL") or "").upper() in ("LOC", "0")]
        if with_gdr:
            why, evidence = "others use it (nvidia-peermem loaded there?)", [with_gdr[0].evidence[0]]
        elif off:
            why, evidence = "the HCAs are there but the GPU Direct RDMA module is not loaded", [off[0]]
        elif forced:
            why = f"NCCL_NET_GDR_LEVEL={_env(forced[0], 'NCCL_NET_GDR_LEVEL')} turns it off"
            evidence = [forced[0].env["NCCL_NET_GDR_LEVEL"][1]]
        else:
            continue
        out.append(_warn("G009 gdr-disabled",
                         f"{_label(comm)}: NET/IB connections of ranks {_ranks(ranks)} run without GPU Direct "
                         f"RDMA: {why}", [without[0].evidence[0]] + evidence + off,
                         [comm], ranks))
    return out
