#!/usr/bin/env python3
"""Regenerate every NCCL/RCCL sample under sample_logs/{nccl,bundles/*-nccl,topo}/ (stdlib only).

Every line shape is copied from NCCL's src/debug.cc and the sources each line is printed from for the version the file claims; the section
numbers in comments point there. Output is deterministic: running this twice gives identical bytes.

    python sample_logs/tools/make_nccl_samples.py
"""
from __future__ import annotations

import datetime as dt
import gzip
import io
import json
import random
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]          # sample_logs/
T0 = dt.datetime(2026, 3, 14, 9, 12, 30)


# ----------------------------------------------------------------------------------------------------------
# Processes, jobs and the line prefix (§1)
# ----------------------------------------------------------------------------------------------------------

@dataclass
class Proc:
    """One process driving one rank of the job."""
    rank: int
    host: str
    pid: int
    dev: int                     # local CUDA device = [d] in the prefix (§1.1)
    busid: str                   # %lx
    ip: str
    comm: str                    # comm %p, differs per process
    stream: str
    buf: int                     # base of this process's device buffers
    proxy_tid: int = 0
    uds_tid: int = 0

    @property
    def tid(self) -> int:        # main thread (torch calls NCCL from it)
        return self.pid


@dataclass
class Job:
    version: tuple                # (2, 21, 5)
    cuda: str = "12.4"
    procs: list = field(default_factory=list)
    comm_id: str = "0x0"
    nch: int = 2                  # ring channels (§4.1 denominator)
    net: str = "IB"               # "IB" | "Socket"
    gdr: bool = True
    iface: str = "eth0"           # bootstrap / OOB interface
    ib_devs: tuple = ()           # ("mlx5_0", ...) listed by NET/IB ; () -> "No device found."
    subsys: str = "INIT"          # NCCL_DEBUG_SUBSYS as set ("INIT" = default mask of the version)
    rccl: bool = False
    func: str = "ncclCommInitRank"
    nodes_override: int = 0       # nNodes as NCCL detected it (0 = number of hosts)
    rings: list = field(default_factory=list)   # per channel: ring order starting at rank 0
    driver: int = 12040
    nvls: bool = False
    stdout: bool = False          # captured stdout (version printf'd bare) instead of NCCL_DEBUG_FILE

    def v(self, *ver) -> bool:
        return self.version >= ver

    @property
    def vstr(self) -> str:
        return ".".join(map(str, self.version))

    @property
    def nranks(self) -> int:
        return len(self.procs)

    def hosts(self) -> list:
        return sorted({p.host for p in self.procs}, key=lambda h: min(q.rank for q in self.procs if q.host == h))

    def local(self, p: Proc) -> list:
        return [q for q in self.procs if q.host == p.host]

    def shows(self, flag: str) -> bool:
        """Would an INFO(flag) line print? ENV/BOOTSTRAP follow the default mask of the version (§0)."""
        if self.subsys != "INIT":
            return flag in self.subsys.split(",")
        if flag == "INIT":
            return True
        if flag == "ENV":
            return self.v(2, 18)
        if flag == "BOOTSTRAP":
            return self.v(2, 23)
        return False


class Log:
    """The lines one output stream receives. Timestamps follow §1.2 (2.26+)."""

    def __init__(self, job: Job, ts_levels=("WARN",), ts_fmt="[%F %T] ", start=T0):
        self.job, self.lines = job, []
        self.ts_levels = ts_levels if job.v(2, 26) else ()
        self.ts_fmt, self.clock = ts_fmt, start

    def tick(self, ms: float) -> None:
        self.clock += dt.timedelta(milliseconds=ms)

    def _ts(self, level: str) -> str:
        if level not in self.ts_levels and "ALL" not in self.ts_levels:
            return ""
        text = self.ts_fmt.replace("%F", self.clock.strftime("%Y-%m-%d")).replace("%T", self.clock.strftime("%H:%M:%S"))
        if "%6f" in text:
            text = text.replace("%6f", f"{self.clock.microsecond:06d}")
        self.tick(0.013)
        return text

    def info(self, p: Proc, msg: str, tid: int = 0) -> None:
        self.lines.append(f"{self._ts('INFO')}{p.host}:{p.pid}:{tid or p.tid} [{p.dev}] NCCL INFO {msg}")
        self.tick(0.4)

    def warn(self, p: Proc, loc: str, msg: str, tid: int = 0, func: str = "") -> None:
        """§1.1: WARNs start with an empty line; 2.30.7+ adds (function)."""
        fn = f" ({func})" if func and self.job.v(2, 30, 7) else ""
        self.lines.append(f"\n{self._ts('WARN')}{p.host}:{p.pid}:{tid or p.tid} [{p.dev}] {loc}{fn} NCCL WARN {msg}")

    def trace(self, p: Proc, loc: str, res: int, tid: int = 0, func: str = "", suffix: str = "") -> None:
        """§7.2 error back-trace `file:line -> N`; 2.30.7+ `file:line (func) -> N`."""
        fn = f" ({func})" if func and self.job.v(2, 30, 7) else ""
        self.info(p, f"{loc}{fn} -> {res}{suffix}", tid)

    def bare(self, text: str) -> None:
        self.lines.append(text)
        self.tick(0.2)

    def text(self, eol: str = "\n") -> str:
        return ("\n".join(self.lines) + "\n").replace("\n", eol)


# ----------------------------------------------------------------------------------------------------------
# Builders
# ----------------------------------------------------------------------------------------------------------

def make_job(version, hosts, per_host, *, pid0, busids, ips, seed, cuda="12.4", one_dev=False, **kw) -> Job:
    rnd = random.Random(seed)
    job = Job(version=version, cuda=cuda, **kw)
    job.comm_id = "0x%016x" % rnd.getrandbits(64)
    rank = 0
    for h, host in enumerate(hosts):
        for local in range(per_host):
            pid = pid0 + h * 7919 + local * 13 + rnd.randint(0, 5)
            job.procs.append(Proc(
                rank=rank, host=host, pid=pid, dev=0 if one_dev else local, busid=busids[local % len(busids)],
                ip=ips[h], comm="0x%x" % (0x55d000000000 + rnd.getrandbits(36) * 16),
                stream="0x%x" % (0x55d000000000 + rnd.getrandbits(36) * 16),
                buf=0x7f0000000000 + rnd.getrandbits(12) * 0x10000000,
                proxy_tid=pid + 187 + local, uds_tid=pid + 191 + local))
            rank += 1
    if not job.rings:
        job.rings = default_rings(job)
    return job


def default_rings(job: Job) -> list:
    """Channel c: each node's GPUs rotated by c//2 (reversed on odd channels), nodes in order;
    printed starting at rank 0 (§4.1)."""
    rings = []
    for c in range(job.nch):
        order = []
        for host in job.hosts():
            loc = [p.rank for p in job.procs if p.host == host]
            if c % 2:
                loc = loc[:1] + loc[1:][::-1]
            k = (c // 2) % len(loc)
            order += loc[k:] + loc[:k]
        i = order.index(0)
        rings.append(order[i:] + order[:i])
    return rings


def ring_line(job: Job, c: int, order: list) -> str:
    if job.version < (2, 4):
        return f"Ring {c:02d} : " + "".join(f" {r:3d}" for r in order[:20])
    if job.v(2, 23) and not job.rccl:
        w = len(str(job.nranks - 1))
        return f"Channel {c:02d}/{job.nch:02d} :" + "".join(f" {r:{w}d}" for r in order)
    return f"Channel {c:02d}/{job.nch:02d} : " + "".join(f" {r:3d}" for r in order[:20])


def trees(job: Job, p: Proc) -> list:
    """Per channel (down0, down1, down2, up): intra-node chain, node heads form a 2-level tree whose
    root node alternates with the channel (§4.2)."""
    out = []
    hosts = job.hosts()
    if job.nodes_override:                                # every rank its own "node": binary trees
        n = job.nranks
        for c in range(job.nch):
            r = p.rank if c % 2 == 0 else n - 1 - p.rank
            back = (lambda x: x) if c % 2 == 0 else (lambda x: n - 1 - x)
            downs = [back(d) for d in (2 * r + 1, 2 * r + 2) if d < n]
            up = back((r - 1) // 2) if r else -1
            out.append(((downs + [-1, -1, -1])[:3], up))
        return out
    for c in range(job.nch):
        root_host = hosts[c % len(hosts)]
        chain = [q.rank for q in job.procs if q.host == p.host]
        i = chain.index(p.rank)
        downs = [chain[i + 1]] if i + 1 < len(chain) else []
        up = chain[i - 1] if i > 0 else -1
        if i == 0:
            heads = {h: min(q.rank for q in job.procs if q.host == h) for h in hosts}
            if p.host == root_host:
                downs += [heads[h] for h in hosts if h != root_host]
            else:
                up = heads[root_host]
        downs = (downs + [-1, -1, -1])[:3]
        out.append((downs, up))
    return out


def trees_line(job: Job, p: Proc) -> str:
    body = "".join(f" [{c}] {d[0]}/{d[1]}/{d[2]}->{p.rank}->{u}" for c, (d, u) in enumerate(trees(job, p)))
    if job.rccl:
        return f"Trees{body} comm {p.comm} nRanks {job.nranks:02d} busId {p.busid}"
    return f"Trees{body}"


def peer(job: Job, r: int) -> Proc:
    return job.procs[r]


def p2p_line(job: Job, c: int, a: Proc, b: Proc) -> str:
    """§4.4 P2P transport line for the version."""
    if job.version < (2, 4):
        return f"Ring {c:02d} : {a.rank}[{a.dev}] -> {b.rank}[{b.dev}] via P2P/IPC"
    if job.rccl:
        return f"Channel {c:02d}/0 : {a.rank}[{a.busid}] -> {b.rank}[{b.busid}] via P2P/IPC comm {a.comm} nRanks {job.nranks:02d}"
    return f"Channel {c:02d}/0 : {a.rank}[{a.dev}] -> {b.rank}[{b.dev}] via P2P/CUMEM/read"


def shm_line(job: Job, c: int, a: Proc, b: Proc) -> str:
    tail = "SHM/direct" if job.v(2, 30, 7) else "SHM/direct/direct"
    return f"Channel {c:02d} : {a.rank}[{a.dev}] -> {b.rank}[{b.dev}] via {tail}"


def net_line(job: Job, c: int, a: Proc, b: Proc, side: str, nic: int) -> str:
    gdr = "/GDRDMA" if job.gdr and job.net != "Socket" else ""
    if job.version < (2, 4):
        return f"Ring {c:02d} : {a.rank} -> {b.rank} via NET/{job.net}/{nic}{gdr}"
    return f"Channel {c:02d}/0 : {a.rank}[{a.dev}] -> {b.rank}[{b.dev}] [{side}] via NET/{job.net}/{nic}{gdr}"


def transport_lines(job: Job, p: Proc, part: str = "ring", intra: str = "p2p") -> list:
    """Ring edges (P2P printed by the sender; NET by both sides) or inter-node tree edges (§4.4)."""
    out = []
    n_nic = max(1, len(job.ib_devs)) if job.net != "Socket" else 1
    nic = p.dev % n_nic
    if part == "tree":
        if job.version < (2, 8) or len(job.hosts()) < 2 or job.nodes_override:
            return out
        for c, (downs, up) in enumerate(trees(job, p)):
            for q in [d for d in downs if d >= 0] + ([up] if up >= 0 else []):
                other = peer(job, q)
                if other.host != p.host:
                    out.append(net_line(job, c, other, p, "receive", nic))
                    out.append(net_line(job, c, p, other, "send", nic))
        return out
    for c, order in enumerate(job.rings):
        if p.rank not in order:
            continue
        i = order.index(p.rank)
        nxt, prv = peer(job, order[(i + 1) % len(order)]), peer(job, order[i - 1])
        cross_next = nxt.host != p.host or bool(job.nodes_override)
        cross_prev = prv.host != p.host or bool(job.nodes_override)
        if cross_prev and job.version >= (2, 4):
            out.append(net_line(job, c, prv, p, "receive", nic))
        elif cross_prev:
            out.append(net_line(job, c, prv, p, "", nic))
        if not cross_next:
            out.append(shm_line(job, c, p, nxt) if intra == "shm" else p2p_line(job, c, p, nxt))
        elif job.version >= (2, 4):
            out.append(net_line(job, c, p, nxt, "send", nic))
    return out


# ----------------------------------------------------------------------------------------------------------
# Init (§2, §3, §4) — one process's lines, in the order real logs show them
# ----------------------------------------------------------------------------------------------------------

RCCL_INIT_CPP = "/long_pathname_so_that_rpms_can_package_the_debug_info/src/rccl/src/init.cpp:1688"
AFFINITY = ("ffffffff,00000000,ffffffff", "ffffffff,00000000,ffffffff,00000000")
NO_PLUGIN = "libnccl-net.so: cannot open shared object file: No such file or directory"


def version_string(job: Job) -> str:
    return f"NCCL version {job.vstr}+cuda{job.cuda}"


def plugin_lines(job: Job) -> list:
    """§3.4, internal plugin used (no libnccl-net.so)."""
    lib = "librccl-net.so" if job.rccl else "libnccl-net.so"
    err = NO_PLUGIN.replace("libnccl-net.so", lib)
    if job.v(2, 25) and not job.rccl:
        return [f"Initialized NET plugin {job.net}"]
    if job.v(2, 23) and job.version < (2, 24):
        return [f"NET/Plugin: Could not find: {lib}. Using internal network plugin."]
    if job.v(2, 21):
        return [f"NET/Plugin: Plugin load returned 2 : {err} : when loading {lib}", "NET/Plugin: Using internal network plugin."]
    if job.v(2, 17) and job.version < (2, 19):
        return [f"NET/Plugin : Plugin load ({lib}) returned 2 : {err}", "NET/Plugin : No plugin found, using internal implementation"]
    return []


def net_device_lines(job: Job, p: Proc, ib_disabled: bool) -> list:
    out = []
    if not ib_disabled:
        if job.ib_devs:
            devs = "".join(f" [{i}]{d}:1/IB" for i, d in enumerate(job.ib_devs))
            out.append(f"NET/IB : Using{devs} [RO]; OOB {job.iface}:{p.ip}<0>")
        else:
            out.append("NET/IB : No device found.")
    if job.net == "Socket":
        out.append(f"NET/Socket : Using [0]{job.iface}:{p.ip}<0>")
    return out


def init_start_line(job: Job, p: Proc, end: str) -> str:
    core = (f"comm {p.comm} rank {p.rank} nranks {job.nranks} cudaDev {p.dev} nvmlDev {p.dev} busId {p.busid} "
            f"commId {job.comm_id}")
    if job.rccl and end == "COMPLETE":
        return f"ncclCommInitRank {core} localSize 264 used 536871392 bytes on core {8 + p.dev} - Init COMPLETE"
    if job.v(2, 23) and not job.rccl:
        line = f"{job.func} {core} - Init {end}"
        return f"[Rank {p.rank}] {line}" if job.v(2, 29) and end == "START" else line
    if job.v(2, 21) or job.rccl:
        return f"ncclCommInitRank {core} - Init {end}"
    return f"{core} - Init {end}"


def channel_summary(job: Job) -> str:
    nvls = job.nch if job.nvls else 0
    if job.v(2, 20):
        return f"{job.nch} coll channels, 0 collnet channels, {nvls} nvls channels, {job.nch} p2p channels, 2 p2p channels per peer"
    if job.v(2, 17):
        return f"{job.nch} coll channels, {nvls} nvls channels, {job.nch} p2p channels, 2 p2p channels per peer"
    return f"{job.nch} coll channels, {job.nch} p2p channels, 2 p2p channels per peer"


def init_lines(log: Log, job: Job, p: Proc, *, env=(), ib_disabled=False, intra="p2p", stop=None, extra=None) -> None:
    """A whole communicator init for process p; `stop` names the step after which the process goes quiet."""
    steps = [("bootstrap", lambda: process_lines(log, job, p, env)),
             ("start", lambda: net_lines(log, job, p, ib_disabled)),
             ("topo", lambda: topology_lines(log, job, p, extra)),
             ("connect", lambda: connect_lines(log, job, p, intra)),
             ("", lambda: complete_lines(log, job, p))]
    for name, step in steps:
        step()
        if stop == name:
            return


def process_lines(log: Log, job: Job, p: Proc, env) -> None:
    """Version (2.22+), environment echo and bootstrap interface (§2, §3.2, §3.3)."""
    if job.v(2, 22) and not job.rccl:
        log.info(p, version_string(job))
    for e in env if job.shows("ENV") else ():
        log.info(p, e)
    if job.shows("BOOTSTRAP") or not job.v(2, 23):
        log.info(p, f"Bootstrap{':' if job.v(2, 24) else ' :'} Using {job.iface}:{p.ip}<0>")


def net_lines(log: Log, job: Job, p: Proc, ib_disabled: bool) -> None:
    """Net plugin, driver, version (<= 2.21: rank 0 only), net devices, Init START (§3.1-3.8)."""
    for line in plugin_lines(job):
        log.info(p, line)
    if job.v(2, 13) and not job.rccl:
        log.info(p, f"cudaDriverVersion {job.driver}")
    if p.rank == 0 and job.rccl:
        log.bare(f"RCCL version : {job.vstr}-HEAD:271856d\nHIP version  : 6.4.43482-0f2d60242\n"
                 f"ROCm version : 6.4.0.0-47-73dae9c\nHostname     : {p.host}\nLibrccl path : /opt/rocm/lib/librccl.so.1")
    elif p.rank == 0 and not job.v(2, 22) and job.stdout:
        log.bare(version_string(job))        # printf'd by rank 0 only (§2)
    elif p.rank == 0 and not job.v(2, 22):
        log.info(p, version_string(job))     # INFO copy of the printf'd version, NCCL_DEBUG_FILE only (§1.3)
    for line in net_device_lines(job, p, ib_disabled):
        log.info(p, line)
    log.info(p, f"Using network {job.net}")
    if job.v(2, 24) and p is job.local(p)[0]:
        log.info(p, "RAS client listening socket at ::1<28028>")
    if job.v(2, 18, 3):
        log.info(p, init_start_line(job, p, "START"))


def topology_lines(log: Log, job: Job, p: Proc, extra) -> None:
    """Affinity, node layout, rings (rank 0), trees (§3.8, §4.1-4.3)."""
    local = job.local(p)
    log.info(p, f"Setting affinity for GPU {p.dev} to {AFFINITY[p.dev * 2 // max(2, len(local))]}")
    if job.rccl:
        for line in ("Kernel version: 5.15.0-119-generic", "ROCr version 1.14", "Dmabuf feature disabled without NCCL_DMABUF_ENABLE=1"):
            log.info(p, line)
        log.warn(p, RCCL_INIT_CPP, 'Missing "iommu=pt" from kernel command line which can lead to system instablity or hang!')
    elif job.v(2, 22):
        log.info(p, "CC Off, Multi-GPU CC Off, workFifoBytes 1048576" if job.version < (2, 24) else "CC Off, workFifoBytes 1048576")
    if job.v(2, 20):
        nodes = job.nodes_override or len(job.hosts())
        lr, lrank = (1, 0) if job.nodes_override else (len(local), local.index(p))
        log.info(p, f"comm {p.comm} rank {p.rank} nRanks {job.nranks} nNodes {nodes} localRanks {lr} localRank {lrank} MNNVL 0")
    if job.nvls:
        log.info(p, f"NVLS multicast support is available on dev {p.dev}")
    for c, order in enumerate(job.rings if p.rank == 0 else ()):
        log.info(p, ring_line(job, c, order))
    log.info(p, trees_line(job, p))
    for line in (extra(job, p) if extra else ()):
        log.info(p, line)
    log.info(p, f"P2P Chunksize set to {131072 if len(job.hosts()) > 1 else 524288}")


def connect_lines(log: Log, job: Job, p: Proc, intra: str) -> None:
    """Transport lines for rings then trees, NVLS, thresholds, channel summary (§4.4)."""
    for line in transport_lines(job, p, "ring", intra):
        log.info(p, line)
    if job.rccl:
        log.info(p, f"Connected all rings comm {p.comm} nRanks {job.nranks:02d} busId {p.busid}")
    elif job.v(2, 24):
        log.info(p, f"Connected all rings, use ring PXN 0 GDR {1 if job.gdr and job.net != 'Socket' else 0}")
    else:
        log.info(p, "Connected all rings")
    for line in transport_lines(job, p, "tree"):
        log.info(p, line)
    log.info(p, "Connected all trees")
    if job.nvls:
        local = job.local(p)
        log.info(p, f"NVLS comm {p.comm} headRank {local.index(p)} nHeads {len(local)} buffSize 1048576 memSize 2097152 "
                    f"nvlsPerRankSize 201326592 nvlsTotalSize 1610612736")
        log.info(p, "Connected NVLS tree")
    log.info(p, "threadThresholds 8/8/64 | 128/8/64 | 512 | 512" if job.v(2, 18) else "threadThresholds 8/8/64 | 128/8/64 | 8/8/512")
    log.info(p, channel_summary(job))


def complete_lines(log: Log, job: Job, p: Proc) -> None:
    """Proxy threads (own tids), Init COMPLETE, init timings (§3.8)."""
    if job.v(2, 21) and not job.rccl:
        log.info(p, f"[Proxy Service] Device {p.dev} CPU core {12 + 3 * p.dev}", p.proxy_tid)
        if job.v(2, 23):
            log.info(p, f"[Proxy Service UDS] Device {p.dev} CPU core {13 + 3 * p.dev}", p.uds_tid)
    log.info(p, init_start_line(job, p, "COMPLETE"))
    if job.v(2, 23) and not job.rccl:
        log.info(p, f"Init timings - {job.func}: rank {p.rank} nranks {job.nranks} total 1.84 (kernels 0.21, alloc 0.09, "
                    f"bootstrap 0.35, allgathers 0.04, topo 0.41, graphs 0.03, connections 0.62, rest 0.09)")
    elif job.v(2, 22) and not job.rccl:
        log.info(p, f"Init timings: rank {p.rank} nranks {job.nranks} total 1.84 (kernels 0.21, bootstrap 0.35, "
                    f"allgathers 0.04, topo 0.41, graphs 0.03, connections 0.62, rest 0.18)")


def destroy_line(job: Job, p: Proc, what: str = "Destroy") -> str:
    return f"comm {p.comm} rank {p.rank} nranks {job.nranks} cudaDev {p.dev} busId {p.busid} - {what} COMPLETE"


# ----------------------------------------------------------------------------------------------------------
# COLL lines (§5)
# ----------------------------------------------------------------------------------------------------------

ELSIZE = {0: 1, 1: 1, 2: 4, 3: 4, 4: 8, 5: 8, 6: 2, 7: 4, 8: 8, 9: 2}


def workload(n: int, seed: int, dtype: int = 9) -> list:
    """A training-like op sequence: parameter broadcasts, then FSDP-style AllGather/ReduceScatter and a
    small loss AllReduce per step. Each op: [name, count, datatype, op, root]."""
    rnd = random.Random(seed)
    sizes = [rnd.choice((4194304, 6553600, 13107200, 2359296, 9437184)) for _ in range(4)]
    ops = [["Broadcast", rnd.choice((1024, 4096, 65536, 262144)), 7, 0, 0] for _ in range(4)]
    step = 0
    while len(ops) < n:
        for s in sizes:
            ops.append(["AllGather", s, dtype, 0, 0])
        for s in reversed(sizes):
            ops.append(["ReduceScatter", s, dtype, 0, 0])
        ops.append(["AllReduce", 1, 7, 0, 0])
        if step % 5 == 4:
            ops.append(["AllReduce", 2048, 7, 2, 0])          # grad-norm style max reduction
        step += 1
    return ops[:n]


def coll_line(job: Job, p: Proc, opcount: int, op: list) -> str:
    name, count, dtype, red, root = op
    es = ELSIZE.get(dtype, 2)
    base = p.buf + (opcount % 7) * 0x4000000
    send = recv = base
    if name == "AllGather":
        send = base + p.rank * count * es
    elif name == "ReduceScatter":
        recv = base + p.rank * count * es
    line = (f"{name}: opCount {opcount:x} sendbuff 0x{send:x} recvbuff 0x{recv:x} count {count} datatype {dtype} "
            f"op {red} root {root} comm {p.comm} [nranks={job.nranks}] stream {p.stream}")
    if job.rccl:
        line += f" task 0 globalrank {p.rank}"
    return line


def coll_lines(log: Log, job: Job, p: Proc, ops: list, first: int = 0, ms: float = 1.7) -> None:
    for k, op in enumerate(ops):
        log.info(p, coll_line(job, p, first + k, op))
        log.tick(ms)


# ----------------------------------------------------------------------------------------------------------
# Writing
# ----------------------------------------------------------------------------------------------------------

WRITTEN: dict = {}                     # rel path -> note for the README


def write(rel: str, text: str, note: str = "") -> None:
    path = ROOT / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode())
    WRITTEN[rel] = note


def debug_file(p: Proc, by_rank: bool = False) -> str:
    """NCCL_DEBUG_FILE=nccl.%h.%p.log (optionally with the rank put in by the launch script)."""
    return f"nccl.rank{p.rank}.{p.host}.{p.pid}.log" if by_rank else f"nccl.{p.host}.{p.pid}.log"


# Every rank passes these lines together (bootstrap barriers); 2.3's init start is "comm %p rank %d nranks %d".
PHASE_END = re.compile(r"Init START$|Init COMPLETE$| - COMPLETE$|NCCL INFO comm \S+ rank \d+ nranks \d+$")


def phases(lines: list) -> list:
    """Split one stream at the init barriers."""
    out, cur = [], []
    for ln in lines:
        cur.append(ln)
        if PHASE_END.search(ln):
            out.append(cur)
            cur = []
    return out + [cur]


def merge(logs: list, seed: int, prefix=lambda i: "") -> str:
    """Interleave several streams line by line (unsynchronised writers to one terminal); ranks reach the
    init barriers together, so each init phase is interleaved separately."""
    rnd = random.Random(seed)
    per_log = [phases(lg.lines) for lg in logs]
    out = []
    for ph in range(max(len(x) for x in per_log)):
        queues = [x[ph][:] if ph < len(x) else [] for x in per_log]
        while any(queues):
            i = rnd.choice([k for k, q in enumerate(queues) if q])
            for _ in range(rnd.randint(1, 3)):
                if queues[i]:
                    out += [prefix(i) + part for part in queues[i].pop(0).split("\n")]
    return "\n".join(out) + "\n"


# ----------------------------------------------------------------------------------------------------------
# Hardware used by the samples
# ----------------------------------------------------------------------------------------------------------

H100_BUS = ("18000", "2a000", "3a000", "5d000", "9a000", "ab000", "ba000", "db000")
A100_BUS = ("7000", "f000", "47000", "4e000", "87000", "90000", "b7000", "bd000")
MI300_BUS = ("c000", "22000", "38000", "5c000", "9f000", "af000", "bf000", "df000")
L40_BUS = ("1000", "25000", "41000", "61000", "81000", "a1000", "c1000", "e1000")
DGX_H100_HCAS = ("mlx5_0", "mlx5_3", "mlx5_4", "mlx5_5", "mlx5_6", "mlx5_9", "mlx5_10", "mlx5_11")
DGX_A100_HCAS = ("mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3", "mlx5_6", "mlx5_7", "mlx5_8", "mlx5_9")


def per_process(job: Job, rel: str, ops=(), *, env=(), by_rank=False, destroy=False, **kw) -> dict:
    """One NCCL_DEBUG_FILE per process: init, optional COLL lines, optional destroy. Returns the logs."""
    logs = {}
    for p in job.procs:
        log = Log(job, start=T0 + dt.timedelta(milliseconds=37 * p.rank))
        init_lines(log, job, p, env=env, **kw)
        coll_lines(log, job, p, list(ops))
        if destroy:
            log.info(p, destroy_line(job, p))
        logs[p.rank] = log
        if rel:
            write(f"{rel}/{debug_file(p, by_rank)}", log.text(), f"rank {p.rank} on {p.host}")
    return logs


# ----------------------------------------------------------------------------------------------------------
# The required samples
# ----------------------------------------------------------------------------------------------------------

def nvlink_8rank_218() -> None:
    job = make_job((2, 18, 3), ["dgx-h100-017"], 8, pid0=48211, busids=H100_BUS, ips=["10.20.7.17"], seed=218,
                   cuda="12.2", driver=12020, nch=16, ib_devs=DGX_H100_HCAS, iface="eth0", nvls=True)
    per_process(job, "nccl/nvlink-8rank-2.18", env=("NCCL_SOCKET_IFNAME set by environment to eth0",))


def ib_16rank_221() -> None:
    job = make_job((2, 21, 5), ["a100-node-03", "a100-node-04"], 8, pid0=301442, busids=A100_BUS,
                   ips=["10.42.1.13", "10.42.1.14"], seed=221, nch=8, ib_devs=DGX_A100_HCAS, iface="bond0",
                   subsys="INIT,COLL")
    per_process(job, "nccl/ib-16rank-2node-2.21", workload(300, 221), destroy=True)


def timestamps_226() -> None:
    """2 nodes x 4; the process of rank 5 dies after opCount 0x2c: its IB peers WARN (timestamped, §1.2)."""
    job = make_job((2, 26, 2), ["gpu-b-06", "gpu-b-07"], 4, pid0=118204, busids=H100_BUS[::2],
                   ips=["10.30.4.16", "10.30.4.17"], seed=226, cuda="12.8", driver=12080, nch=4,
                   ib_devs=DGX_H100_HCAS[:4], iface="ens8np0", subsys="INIT,COLL")
    ops = workload(60, 226)
    dead = job.procs[5]
    for p in job.procs:
        log = Log(job, start=T0 + dt.timedelta(milliseconds=41 * p.rank))
        init_lines(log, job, p)
        coll_lines(log, job, p, ops[:45 if p is dead else 48])
        if p is not dead:
            log.tick(8500)
            if net_peers(job, p, dead):
                prog = p.proxy_tid + 2
                log.warn(p, "transport/net_ib.cc:1696",
                         f"NET/IB: Got completion from peer {dead.ip}<47213> with status=12 opcode=0 len=0 vendor err 129 "
                         f"(Send) localGid ::ffff:{p.ip} remoteGid ::ffff:{dead.ip} hca {job.ib_devs[p.dev]}", prog)
                log.trace(p, "transport/net_ib.cc:1879", 6, prog)
                log.trace(p, "transport/net.cc:1368", 6, prog)
                log.trace(p, "proxy.cc:901", 6, prog, suffix=" [Progress Thread]")
            elif p.host == dead.host:
                log.info(p, f"[Service thread] Connection closed by localRank {job.local(dead).index(dead)}", p.proxy_tid)
        write(f"nccl/timestamps-2.26/{debug_file(p)}", log.text(), f"rank {p.rank} on {p.host}")


def net_peers(job: Job, p: Proc, other: Proc) -> bool:
    """Does p have a NET connection with `other` (ring or tree)?"""
    lines = transport_lines(job, p, "ring") + transport_lines(job, p, "tree")
    return any(f" {other.rank}[" in ln and "NET/" in ln for ln in lines)


def timestamps_all_levels() -> None:
    """One process drives 4 GPUs (ncclCommInitAll): init threads differ per device; every level timestamped."""
    job = make_job((2, 26, 2), ["ws-l40s-02"], 4, pid0=20931, busids=L40_BUS, ips=["192.168.10.42"], seed=2262,
                   cuda="12.8", driver=12080, nch=2, iface="enp5s0", net="Socket", func="ncclCommInitAll")
    pid = job.procs[0].pid
    lines = []
    for p in job.procs:
        p.pid = pid
        p.proxy_tid, p.uds_tid = pid + 40 + p.rank, pid + 50 + p.rank
    for p in job.procs:
        log = Log(job, ts_levels=("ALL",), ts_fmt="[%F %T.%6f] ", start=T0 + dt.timedelta(milliseconds=3 * p.rank))
        init_lines(log, job, p, intra="shm")
        if p.rank:                     # process-wide init (version, bootstrap, net) is printed once per process
            log.lines = log.lines[next(i for i, ln in enumerate(log.lines) if "Init START" in ln):]
        # the init of each device runs in its own thread: main-thread lines carry that thread's tid
        lines += [ln.replace(f":{pid}:{pid} ", f":{pid}:{pid + 11 + p.rank} ") for ln in log.lines]
    lines.sort(key=lambda ln: ln[:28])                    # one process, one writer: time order
    write(f"nccl/timestamps-2.26/all-levels/nccl.{job.procs[0].host}.{pid}.log", "\n".join(lines) + "\n",
          "4 ranks (devices 0-3) in one process")


def rccl_8rank() -> None:
    job = make_job((2, 22, 3), ["mi300x-node-11"], 8, pid0=73120, busids=MI300_BUS, ips=["10.60.2.11"], seed=622,
                   cuda="", nch=8, net="Socket", iface="ens50f0np0", subsys="INIT,COLL", rccl=True, stdout=True)
    ops = workload(40, 622)
    for p in job.procs:
        log = Log(job, start=T0)
        init_lines(log, job, p)
        coll_lines(log, job, p, ops)
        write(f"nccl/rccl/torchrun-logs/r7c3a/attempt_0/{p.rank}/stdout.log", log.text(),
              f"stdout of local rank {p.rank}" + (" (with the version block)" if p.rank == 0 else ""))


def socket_fallback() -> None:
    # (a) no libibverbs in the container: IB never initialises, 2 nodes run over NET/Socket (§3.6, §7.1)
    job = make_job((2, 19, 3), ["hpc-gpu-021", "hpc-gpu-022"], 4, pid0=55410, busids=A100_BUS[::2],
                   ips=["172.24.8.21", "172.24.8.22"], seed=219, cuda="12.3", driver=12030, nch=2, net="Socket",
                   iface="ens1f0")
    for p in job.procs:
        log = Log(job, start=T0)
        init_lines(log, job, p, env=("NCCL_SOCKET_IFNAME set by environment to ens1f0",), ib_disabled=True)
        log.lines.insert(next(i for i, ln in enumerate(log.lines) if "NET/Socket : Using" in ln),
                         f"{p.host}:{p.pid}:{p.tid} [{p.dev}] NCCL INFO Failed to open libibverbs.so[.1]")
        write(f"nccl/socket-fallback/no-ibverbs/{debug_file(p)}", log.text(), f"rank {p.rank} on {p.host}")
    # (b) NCCL_SOCKET_IFNAME=docker0 on a 2-node job: every node has docker0 = 172.17.0.1
    docker_bootstrap("nccl/socket-fallback/docker0-multinode", "docker0", "172.17.0.1", seed=2205)


def docker_bootstrap(rel: str, iface: str, ip: str, seed: int) -> None:
    """Bootstrap root listens on a node-local address: the other node's ranks are refused and give up;
    the first node's ranks wait in bootstrap forever."""
    job = make_job((2, 20, 5), ["trn-node-a", "trn-node-b"], 2, pid0=90113, busids=A100_BUS[::4],
                   ips=[ip, ip], seed=seed, cuda="12.2", driver=12040, nch=2, net="Socket", iface=iface)
    for p in job.procs:
        log = Log(job, start=T0)
        init_lines(log, job, p, env=(f"NCCL_SOCKET_IFNAME set by environment to {iface}",), stop="start")
        if p.host == "trn-node-b":
            for _ in range(20):
                log.info(p, "Call to connect returned Connection refused, retrying")
            log.warn(p, "misc/socket.cc:484", "socketStartConnect: exceeded retries (20000)")
            for loc in ("misc/socket.cc:564", "misc/socket.cc:668", "bootstrap.cc:281", "init.cc:1378", "init.cc:1633"):
                log.trace(p, loc, 6)
        write(f"{rel}/{debug_file(p)}", log.text(), f"rank {p.rank} on {p.host}")


def interleaved_4rank() -> None:
    job = make_job((2, 19, 3), ["gpu-ws-04"], 4, pid0=8815, busids=L40_BUS, ips=["10.1.0.4"], seed=194,
                   cuda="12.3", driver=12030, nch=2, iface="eno1", ib_devs=("mlx5_0",), subsys="INIT,COLL",
                   stdout=True)
    ops = workload(48, 194)
    logs = []
    for p in job.procs:
        log = Log(job, start=T0)
        init_lines(log, job, p)
        coll_lines(log, job, p, ops)
        log.info(p, destroy_line(job, p))
        logs.append(log)
    write("nccl/interleaved-4rank/torchrun-console.log", merge(logs, 1904, lambda i: f"[rank{i}]:"),
          "ranks 0-3 in one console capture")


# ----------------------------------------------------------------------------------------------------------
# Variants: 2.30.7 (function in WARN), 2.3 era, truncated line, gzip, CRLF, ANSI
# ----------------------------------------------------------------------------------------------------------

def v2307_function_names() -> None:
    """2 nodes x 2 over NET/Socket; the process of rank 3 dies; its socket peers WARN with (function)."""
    job = make_job((2, 30, 7), ["node-a1", "node-a2"], 2, pid0=61022, busids=H100_BUS[:2],
                   ips=["10.8.0.11", "10.8.0.12"], seed=2307, cuda="13.0", driver=13000, nch=2, net="Socket",
                   iface="eth0", subsys="INIT,COLL,DESTROY")
    ops = workload(24, 2307)
    dead = job.procs[3]
    for p in job.procs:
        log = Log(job, start=T0 + dt.timedelta(milliseconds=29 * p.rank))
        init_lines(log, job, p, intra="shm")
        log.lines.insert(1, f"{p.host}:{p.pid}:{p.tid} [{p.dev}] NCCL INFO NCCL git version master v2.30.7-1")
        coll_lines(log, job, p, ops[:18 if p is dead else 20])
        if p is not dead:
            log.tick(4200)
            if net_peers(job, p, dead):
                prog = p.proxy_tid + 2
                log.warn(p, "misc/socket.cc:58", f"socketProgress: Connection closed by remote peer {dead.ip}<39411>",
                         prog, func="socketProgress")
                log.trace(p, "misc/socket.cc:812", 6, prog, func="socketWait")
                log.trace(p, "transport/net_socket.cc:639", 6, prog, func="ncclNetSocketTest")
                log.trace(p, "proxy.cc:951", 6, prog, func="progressOps", suffix=" [Progress Thread]")
            log.tick(1000)
            log.info(p, f"comm {p.comm} rank {p.rank} nRanks {job.nranks} cudaDev {p.dev} busId {p.busid} - Abort START")
            log.info(p, destroy_line(job, p, "Abort"))
        write(f"nccl/v2.30.7-function-names/{debug_file(p)}", log.text(), f"rank {p.rank} on {p.host}")


def v23_old() -> None:
    """NCCL 2.3.7, one node, 4 MPI processes sharing stdout: old 'Ring' lines and one torn line (§1.1)."""
    job = make_job((2, 3, 7), ["k80-box"], 4, pid0=4410, busids=L40_BUS, ips=["10.0.0.5"], seed=23, cuda="9.2",
                   nch=2, net="Socket", iface="eth0", subsys="INIT,COLL", stdout=True)
    ops = workload(12, 23, dtype=7)
    logs = []
    for p in job.procs:
        log = Log(job)
        if p.rank == 0:
            log.bare(version_string(job))
        log.info(p, f"NET : Using interface eth0:{p.ip}")
        log.info(p, "NET/Socket : 1 interfaces found")
        log.info(p, "Using internal Network Socket")
        log.info(p, f"comm {p.comm} rank {p.rank} nranks {job.nranks}")
        if p.rank == 0:
            for c, order in enumerate(job.rings):
                log.info(p, ring_line(job, c, order))
        for line in transport_lines(job, p, "ring"):
            log.info(p, line)
        log.info(p, f"comm {p.comm} rank {p.rank} nranks {job.nranks} - COMPLETE")
        coll_lines(log, job, p, ops)
        logs.append(log)
    text = merge(logs, 2303).rstrip("\n").split("\n")
    # two writes per line in 2.3: process 3's prefix lands in front of process 2's line, its message later
    torn = lambda r: next(k for k, ln in enumerate(text)                                    # noqa: E731
                          if ln.startswith(f"k80-box:{job.procs[r].pid}:") and "Ring 01 :" in ln and " via " in ln)
    i, j = torn(2), torn(3)
    head, _, msg = text[j].partition("NCCL INFO ")
    text[i] = head + "NCCL INFO " + text[i]
    del text[j]
    text.insert(i + 5, msg)                               # the orphan message shows up a few lines later
    write("nccl/v2.3-old/mpirun-stdout.log", "\n".join(text) + "\n", "ranks 0-3 sharing one stdout")


def truncated_socket_list() -> None:
    """hostNetwork pods on a cilium node: NET/Socket lists 16 interfaces and the line is cut at 1023 chars."""
    job = make_job((2, 19, 3), ["k8s-gpu-pool-7x2c", "k8s-gpu-pool-9m4q"], 1, pid0=1, busids=H100_BUS,
                   ips=["10.244.3.17", "10.244.5.9"], seed=1902, cuda="12.3", driver=12030, nch=2, net="Socket",
                   iface="eth0")
    rnd = random.Random(1903)
    for p in job.procs:
        p.pid, p.proxy_tid = 57 + 4 * p.rank, 143 + 4 * p.rank
        log = Log(job)
        init_lines(log, job, p)
        ifs = [f"[0]eth0:{p.ip}<0>"]
        for k in range(1, 16):
            name = "lxc" + "%012x" % rnd.getrandbits(48)
            a, b, c2 = (rnd.getrandbits(16) for _ in range(3))
            ifs.append(f"[{k}]{name}:fe80::{a:x}:{b:x}ff:fe{c2 % 256:02x}:{rnd.getrandbits(16):x}%{name}<0>")
        k = next(i for i, ln in enumerate(log.lines) if "NET/Socket : Using" in ln)
        full = log.lines[k].split("NET/Socket : Using")[0] + "NET/Socket : Using " + " ".join(ifs)
        assert len(full) > 1023
        log.lines[k] = full[:1023]
        write(f"nccl/truncated-line/{debug_file(p)}", log.text(), f"rank {p.rank} on {p.host}")


def ansi_ray(ops_n: int = 20) -> None:
    """Ray Train console: each worker line is prefixed by a cyan `(RayTrainWorker pid=…, ip=…)`."""
    job = make_job((2, 21, 5), ["ray-worker-0", "ray-worker-1"], 1, pid0=615, busids=A100_BUS,
                   ips=["10.72.7.6", "10.72.7.9"], seed=2105, nch=2, ib_devs=("mlx5_0", "mlx5_1"), iface="eth0",
                   subsys="INIT,COLL", stdout=True)
    ops = workload(ops_n, 2105)
    logs = []
    for p in job.procs:
        log = Log(job)
        init_lines(log, job, p)
        coll_lines(log, job, p, ops)
        logs.append(log)
    prefix = lambda i: f"\x1b[36m(RayTrainWorker pid={job.procs[i].pid}, ip={job.procs[i].ip})\x1b[0m "  # noqa: E731
    write("nccl/ansi-colour/ray-driver-console.log", merge(logs, 2106, prefix), "ranks 0-1, Ray worker prefixes in ANSI cyan")


def copies() -> None:
    first = sorted((ROOT / "nccl/ib-16rank-2node-2.21").iterdir())[0]
    buf = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buf, mtime=0, compresslevel=9) as gz:
        gz.write(first.read_bytes())
    (ROOT / "nccl/gzipped").mkdir(parents=True, exist_ok=True)
    (ROOT / "nccl/gzipped" / (first.name + ".gz")).write_bytes(buf.getvalue())
    WRITTEN[f"nccl/gzipped/{first.name}.gz"] = f"gzip of ib-16rank-2node-2.21/{first.name}"
    nv = sorted((ROOT / "nccl/nvlink-8rank-2.18").iterdir())[0]
    write(f"nccl/crlf/{nv.name}", nv.read_text().replace("\n", "\r\n"), f"CRLF copy of nvlink-8rank-2.18/{nv.name}")


# ----------------------------------------------------------------------------------------------------------
# Synthetic diagnose bundles (issue 4): only NCCL INIT+COLL logs, nothing else
# ----------------------------------------------------------------------------------------------------------

def expected(rel: str, data: dict) -> None:
    write(f"{rel}/expected.json", json.dumps(data, indent=2) + "\n")


def coll_bundle(name: str, hosts: list, per_host: int, seed: int, *, culprit=-1, want="", change=None, stop=False):
    """All ranks run the same op sequence. At opCount K (the first `want` op from 0x50 on) the culprit logs a
    changed op (NCCL checks nothing: every rank logs it at enqueue and 2 more ops, then the job hangs), or,
    with stop=True, the culprit logs nothing from K on while the others log K..K+2 and hang.
    Without a culprit (healthy) every rank logs K ops and destroys its communicator."""
    multi = len(hosts) > 1
    job = make_job((2, 21, 5), hosts, per_host, pid0=seed * 37, busids=A100_BUS if per_host == 8 else H100_BUS[::2],
                   ips=[f"10.{seed % 200}.0.{11 + h}" for h in range(len(hosts))], seed=seed, nch=4,
                   ib_devs=DGX_A100_HCAS[:per_host] if multi else ("mlx5_0",), iface="ib0" if multi else "eth0",
                   subsys="INIT,COLL")
    ops = workload(400, seed)
    k = next(i for i in range(0x50, len(ops)) if ops[i][0] == want and ops[i][3] == 0) if want else 0x90
    for p in job.procs:
        log = Log(job)
        init_lines(log, job, p)
        mine = [list(op) for op in ops[:k + 3]] if culprit >= 0 else [list(op) for op in ops[:k]]
        if p.rank == culprit and change:
            change(mine[k])
        if stop and p.rank == culprit:
            mine = mine[:k]
        coll_lines(log, job, p, mine)
        if culprit < 0:
            log.info(p, destroy_line(job, p))
        write(f"bundles/{name}/{debug_file(p, by_rank=True)}", log.text())
    return k


def bundles() -> None:
    k = coll_bundle("healthy-nccl", ["h100-a-01", "h100-a-02"], 4, 101)
    expected("bundles/healthy-nccl", {"class": "none", "culprit_ranks": [],
                                       "note": f"{k} collectives (opCount 0..{k - 1:x}, hex) on every rank, then Destroy COMPLETE"})
    k = coll_bundle("shape-mismatch-nccl", ["dgx-a100-12"], 8, 102, culprit=5, want="AllGather",
                    change=lambda op: op.__setitem__(1, op[1] + 1024))
    expected("bundles/shape-mismatch-nccl", {"class": "shape_mismatch", "culprit_ranks": [5],
                                              "note": f"rank 5 logs a different count at opCount {k:x} (hex); all ranks "
                                                      f"enqueue 2 more ops, then the job hangs"})
    k = coll_bundle("dtype-mismatch-nccl", ["gpu-c-03"], 4, 103, culprit=2, want="ReduceScatter",
                    change=lambda op: op.__setitem__(2, 7))
    expected("bundles/dtype-mismatch-nccl", {"class": "dtype_mismatch", "culprit_ranks": [2],
                                              "note": f"rank 2 logs datatype 7 (float32) where the others log 9 (bfloat16) "
                                                      f"at opCount {k:x} (hex); then the job hangs"})
    k = coll_bundle("op-mismatch-nccl", ["gpu-c-05"], 4, 104, culprit=1, want="AllReduce",
                    change=lambda op: op.__setitem__(3, 2))
    expected("bundles/op-mismatch-nccl", {"class": "op_mismatch", "culprit_ranks": [1],
                                           "note": f"rank 1 logs op 2 (max) where the others log op 0 (sum) at opCount "
                                                   f"{k:x} (hex); then the job hangs"})
    k = coll_bundle("stopped-rank-nccl", ["h100-b-07", "h100-b-08"], 4, 105, culprit=6, stop=True)
    expected("bundles/stopped-rank-nccl", {"class": "stuck_rank", "culprit_ranks": [6],
                                            "note": f"rank stopped issuing collectives; NCCL logs alone cannot tell dead "
                                                    f"from stuck (rank 6's last opCount is {k - 1:x}, the others reach {k + 2:x})"})


# ----------------------------------------------------------------------------------------------------------
# Topology check samples (issue 6): topo/<check>/{bad,good}/
# ----------------------------------------------------------------------------------------------------------

def topo_job(version=(2, 21, 5), hosts=("tp-node-1", "tp-node-2"), per_host=2, seed=600, **kw) -> Job:
    kw.setdefault("ib_devs", DGX_A100_HCAS[:per_host])
    kw.setdefault("iface", "eth0")
    return make_job(version, list(hosts), per_host, pid0=seed * 29, busids=A100_BUS,
                    ips=[f"10.{seed % 250}.1.{21 + h}" for h in range(len(hosts))], seed=seed, **kw)


def topo_write(check: str, which: str, job: Job, readme: str, **kw) -> None:
    rel = f"topo/{check}/{which}"
    per_process(job, rel, **kw)
    write(f"{rel}/README.md", readme + "\n")


def graph_ring_lines(job: Job, p: Proc) -> list:
    """§4.3 GRAPH per-rank neighbours; `job.views` lets some ranks see a different ring for channel 01."""
    out = []
    for c, order in enumerate(job.rings):
        if c == 1 and p.rank in getattr(job, "views", {}):
            order = job.views[p.rank]
        i = order.index(p.rank)
        out.append(f"Ring {c:02d} : {order[i - 1]} -> {p.rank} -> {order[(i + 1) % len(order)]}")
    return out


def topo_ring_differs() -> None:
    check = "ring-not-closed-or-differs"
    good = topo_job(hosts=("ring-g-1",), per_host=8, seed=611, nch=2, subsys="INIT,GRAPH")
    topo_write(check, "good", good, "8 ranks, 1 node, NCCL_DEBUG_SUBSYS=INIT,GRAPH: each rank's `Ring NN : prev -> me -> next` "
               "agrees with the ring rank 0 prints (`Channel NN/02 : ...`); every ring closes.", extra=graph_ring_lines)
    bad = topo_job(hosts=("ring-b-1",), per_host=8, seed=612, nch=2, subsys="INIT,GRAPH")
    bad.views = {4: [0, 7, 6, 4, 5, 3, 2, 1], 5: [0, 7, 6, 4, 5, 3, 2, 1]}     # ranks 4, 5 built channel 01 differently
    topo_write(check, "bad", bad, "8 ranks, 1 node: ranks 4 and 5 report channel 01 neighbours (`Ring 01 : 6 -> 4 -> 5`, "
               "`Ring 01 : 4 -> 5 -> 3`) that differ from rank 0's `Channel 01/02 :    0   7   6   5   4   3   2   1`; "
               "following the per-rank next pointers does not close the ring.", extra=graph_ring_lines)


def topo_rank_missing() -> None:
    check = "rank-missing-from-ring"
    good = topo_job(hosts=("rm-g-1",), per_host=8, seed=621, nch=2)
    topo_write(check, "good", good, "8 ranks, 1 node: both rings printed by rank 0 contain all ranks 0-7.")
    bad = topo_job(hosts=("rm-b-1",), per_host=8, seed=622, nch=2)
    bad.rings[1] = [r for r in bad.rings[1] if r != 4]
    rel = f"topo/{check}/bad"
    for p in bad.procs:
        log = Log(bad)
        init_lines(log, bad, p, stop="start")
        if p.rank == 0:
            for c, order in enumerate(bad.rings):
                log.info(p, ring_line(bad, c, order))
        log.warn(p, "graph/rings.cc:49", "Error : ring 1 does not contain rank 4")
        for loc in ("graph/rings.cc:58", "init.cc:1129", "init.cc:1480"):
            log.trace(p, loc, 3)
        write(f"{rel}/{debug_file(p)}", log.text())
    write(f"{rel}/README.md", "8 ranks, 1 node: rank 0 prints channel 01 without rank 4 and every rank WARNs "
          "`Error : ring 1 does not contain rank 4` (init fails with internal error 3).\n")


def topo_hops() -> None:
    check = "excess-inter-node-hops"
    for which, override, seed in (("good", 0, 631), ("bad", 8, 632)):
        job = topo_job(hosts=("hop-a", "hop-b"), per_host=4, seed=seed, nch=2)
        for p in job.procs:                                      # mpirun --map-by node: ranks alternate hosts
            p.rank = job.local(p).index(p) * 2 + (0 if p.host == "hop-a" else 1)
        job.procs.sort(key=lambda q: q.rank)
        job.nodes_override = override
        job.rings = default_rings(job) if not override else [list(range(8)), [0] + list(range(7, 0, -1))]
        text = ("2 hosts x 4 GPUs, ranks alternate hosts (--map-by node); NCCL sees nNodes 2 and orders the ring "
                "`0 2 4 6 1 3 5 7`: 2 inter-node hops per ring." if not override else
                "2 hosts x 4 GPUs, ranks alternate hosts; NCCL sees nNodes 8 (one host hash per process), rings "
                "`0 1 2 ... 7` cross hosts at every hop (8 inter-node hops instead of 2) and every edge is NET/IB.")
        topo_write(check, which, job, text)


def topo_socket_despite_ib() -> None:
    check = "socket-despite-ib"
    good = topo_job(seed=641, nch=2)
    topo_write(check, "good", good, "2 nodes x 2 GPUs with mlx5 HCAs: `Using network IB`, NET/IB/x/GDRDMA transports.")
    bad = topo_job(seed=642, nch=2, net="Socket")
    topo_write(check, "bad", bad, "2 nodes x 2 GPUs with IB: `NCCL_IB_DISABLE set by environment to 1.` so NET/IB is "
               "never initialised; `Using network Socket` and NET/Socket transports across nodes.",
               env=("NCCL_IB_DISABLE set by environment to 1.",), ib_disabled=True)


def topo_bad_interface() -> None:
    check = "bad-interface-multinode"
    good = topo_job((2, 20, 5), hosts=("trn-node-a", "trn-node-b"), seed=651, nch=2, net="Socket", ib_devs=())
    topo_write(check, "good", good, "2 nodes x 2 GPUs, bootstrap and NET/Socket on eth0 with routable 10.x addresses.",
               env=("NCCL_SOCKET_IFNAME set by environment to eth0",))
    docker_bootstrap(f"topo/{check}/bad", "lo", "127.0.0.1", seed=652)
    write(f"topo/{check}/bad/README.md", "2 nodes x 2 GPUs with NCCL_SOCKET_IFNAME=lo: `Bootstrap : Using lo:127.0.0.1<0>` "
          "on both nodes; node b is refused (`socketStartConnect: exceeded retries`), node a waits in bootstrap.\n")


def topo_version_differs() -> None:
    check = "version-or-plugin-differs"
    good = topo_job((2, 23, 4), seed=661, nch=2)
    topo_write(check, "good", good, "2 nodes x 2 GPUs, every process prints `NCCL version 2.23.4+cuda12.4` and uses the internal IB plugin.")
    bad = topo_job((2, 22, 3), seed=662, nch=2)
    newer = Job(**{**bad.__dict__, "version": (2, 23, 4)})
    rel = f"topo/{check}/bad"
    for p in bad.procs:
        job = bad if p.host == "tp-node-1" else newer
        log = Log(job)
        init_lines(log, job, p)
        write(f"{rel}/{debug_file(p)}", log.text())
    write(f"{rel}/README.md", "2 nodes x 2 GPUs: node 1 runs NCCL 2.22.3 and node 2 runs NCCL 2.23.4 "
          "(different `NCCL version` lines and plugin messages in one communicator).\n")


def topo_gdr() -> None:
    check = "gdr-disabled"
    good = topo_job(seed=671, nch=2)
    topo_write(check, "good", good, "2 nodes x 2 GPUs: inter-node transports `via NET/IB/x/GDRDMA`.")
    bad = topo_job(seed=672, nch=2, gdr=False)
    rel = f"topo/{check}/bad"
    logs = per_process(bad, "")
    for p in bad.procs:
        lines = logs[p.rank].lines
        k = next(i for i, ln in enumerate(lines) if "NET/IB : Using" in ln)
        for d, hca in enumerate(bad.ib_devs):
            lines.insert(k + 1 + d, f"{p.host}:{p.pid}:{p.tid} [{p.dev}] NCCL INFO NET/IB : GPU Direct RDMA Disabled "
                                    f"for HCA {d} '{hca}' (no module)")
        write(f"{rel}/{debug_file(p)}", logs[p.rank].text())
    write(f"{rel}/README.md", "2 nodes x 2 GPUs without nvidia-peermem: `GPU Direct RDMA Disabled for HCA 0 'mlx5_0' "
          "(no module)` and inter-node transports `via NET/IB/x` without /GDRDMA.\n")


def topo_single_channel() -> None:
    check = "single-channel-multi-gpu"
    good = topo_job((2, 20, 5), hosts=("sc-g-1",), per_host=8, seed=681, nch=8)
    topo_write(check, "good", good, "8 GPUs, 1 node: rank 0 prints 8 rings (`Channel 00/08` ... `Channel 07/08`).")
    bad = topo_job((2, 20, 5), hosts=("sc-b-1",), per_host=8, seed=682, nch=1)
    topo_write(check, "bad", bad, "8 GPUs, 1 node, `NCCL_MAX_NCHANNELS set by environment to 1.`: one ring "
               "(`Channel 00/01`), `1 coll channels` - all traffic on a single channel.",
               env=("NCCL_MAX_NCHANNELS set by environment to 1.",))


# ----------------------------------------------------------------------------------------------------------

DIR_NOTES = {
    "nvlink-8rank-2.18": "NCCL 2.18.3, 8 ranks on one DGX H100, NVLS + P2P/CUMEM, default subsys (INIT,ENV), INIT output only",
    "ib-16rank-2node-2.21": "NCCL 2.21.5, 16 ranks on 2 DGX A100 nodes, NET/IB/GDRDMA, INIT,COLL, 300 healthy collectives per rank",
    "timestamps-2.26": "NCCL 2.26.2, 2 nodes x 4, INIT,COLL; rank 5 dies after opCount 2c, its IB peers WARN with the default [%F %T] timestamp",
    "timestamps-2.26/all-levels": "NCCL 2.26.2, ncclCommInitAll, NCCL_DEBUG_TIMESTAMP_LEVELS=ALL, format \"[%F %T.%6f] \"",
    "rccl/torchrun-logs/r7c3a/attempt_0/0": "RCCL 2.22.3 (ROCm 6.4), 8 MI300X ranks, torchrun --log-dir, INIT,COLL",
    "socket-fallback/no-ibverbs": "NCCL 2.19.3, 2 nodes x 4: libibverbs missing, NET/Socket over ens1f0",
    "socket-fallback/docker0-multinode": "NCCL 2.20.5, 2 nodes x 2, NCCL_SOCKET_IFNAME=docker0: node b refused, node a stuck in bootstrap",
    "interleaved-4rank": "NCCL 2.19.3, stdout of 4 ranks interleaved with torchrun [rankN]: prefixes, INIT,COLL",
    "v2.30.7-function-names": "NCCL 2.30.7, 2 nodes x 2 over NET/Socket, rank 3 dies: WARN/trace lines with (function), Abort START/COMPLETE",
    "v2.3-old": "NCCL 2.3.7, 4 processes sharing stdout: Ring lines, old init lines, one torn line and its orphan message",
    "truncated-line": "NCCL 2.19.3, hostNetwork pods: NET/Socket list of 16 interfaces cut at 1023 chars",
    "ansi-colour": "NCCL 2.21.5, Ray Train console with ANSI-coloured (RayTrainWorker pid=..., ip=...) prefixes, INIT,COLL",
}


def readme() -> None:
    lines = ["# NCCL/RCCL sample logs", "",
             "Generated by `python sample_logs/tools/make_nccl_samples.py` (do not edit by hand). Every line follows",
             "NCCL's src/debug.cc and the sources each line is printed from for the version the file claims. One line per file:", ""]
    for rel in sorted(r for r in WRITTEN if r.startswith("nccl/")):
        d = str(Path(rel).parent)[len("nccl/"):]
        note = DIR_NOTES.get(d, DIR_NOTES.get("rccl/torchrun-logs/r7c3a/attempt_0/0") if d.startswith("rccl/") else "")
        extra = WRITTEN[rel]
        lines.append(f"- `{rel[len('nccl/'):]}`: {'; '.join(x for x in (note, extra) if x)}")
    (ROOT / "nccl/README.md").write_text("\n".join(lines) + "\n")


def main() -> None:
    for d in ["nccl", "topo"] + [f"bundles/{b.name}" for b in (ROOT / "bundles").glob("*-nccl")]:
        if (ROOT / d).exists():
            shutil.rmtree(ROOT / d)
    for make in (nvlink_8rank_218, ib_16rank_221, timestamps_226, timestamps_all_levels, rccl_8rank, socket_fallback,
                 interleaved_4rank, v2307_function_names, v23_old, truncated_socket_list, ansi_ray, copies, bundles,
                 topo_ring_differs, topo_rank_missing, topo_hops, topo_socket_despite_ib, topo_bad_interface,
                 topo_version_differs, topo_gdr, topo_single_channel):
        make()
    readme()


if __name__ == "__main__":
    main()
