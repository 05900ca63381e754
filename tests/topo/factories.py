"""Event factories for topo tests: each helper returns the real NCCL line (docs: NCCL's src/debug.cc and the sources each line is printed from
§3–4, 2.19-style) and the Event the NCCL parser emits for it (docs/events.md, source = nccl).

`job_logs(...)` builds a whole multi-rank job: {file name: [(line text, Event)]}, so a test can check the
model from events alone, or write the lines to files and run the real parser on them.
"""
from __future__ import annotations

from nccl_forensics.model import Event


class RankLog:
    """The lines of one rank's NCCL_DEBUG_FILE (one process, one GPU)."""

    def __init__(self, file: str, host: str, pid: int, device: int, rank: int | None = None):
        self.file, self.host, self.pid, self.device, self.rank = file, host, pid, device, rank
        self.items: list[tuple[str, Event]] = []

    def add(self, kind: str, msg: str, **data) -> Event:
        text = f"{self.host}:{self.pid}:{self.pid} [{self.device}] NCCL INFO {msg}"
        ev = Event(kind, "nccl", self.file, len(self.items) + 1, self.rank, self.host, self.pid, self.pid,
                   self.device, text=text, data=data)
        self.items.append((text, ev))
        return ev

    @property
    def events(self) -> list[Event]:
        return [ev for _, ev in self.items]

    @property
    def lines(self) -> list[str]:
        return [text for text, _ in self.items]

    # ---- one method per line shape ------------------------------------------------------------
    def version(self, version="2.19.3", cuda="12.3"):
        return self.add("nccl_version", f"NCCL version {version}+cuda{cuda}", version=version, suffix="",
                        cuda=cuda, rccl=False, rccl_version=None)

    def bootstrap(self, name="eth0", addr="10.0.0.1"):
        return self.add("bootstrap", f"Bootstrap : Using {name}:{addr}<0>",
                        interfaces=[{"name": name, "addr": f"{addr}<0>"}])

    def net_ib(self, devices=("mlx5_0", "mlx5_1"), oob="eth0", addr="10.0.0.1"):
        listed = "".join(f" [{i}]{d}:1/IB" for i, d in enumerate(devices))
        return self.add("net_ib", f"NET/IB : Using{listed} ; OOB {oob}:{addr}<0>",
                        devices=[{"index": i, "name": d, "port": 1, "link_layer": "IB"}
                                 for i, d in enumerate(devices)], oob_if=oob, oob_addr=f"{addr}<0>")

    def net_socket(self, ifs=(("eth0", "10.0.0.1"),)):
        listed = "".join(f" [{i}]{n}:{a}<0>" for i, (n, a) in enumerate(ifs))
        return self.add("net_socket", f"NET/Socket : Using{listed}",
                        devices=[{"index": i, "name": n, "addr": f"{a}<0>"} for i, (n, a) in enumerate(ifs)])

    def using(self, network="IB"):
        return self.add("net_using", f"Using network {network}", network=network, collnet=False)

    def env(self, name, value):
        return self.add("env", f"{name} set by environment to {value}", name=name, value=value)

    def init(self, phase, rank, nranks, comm_id, comm_ptr="0x55d0c0a0b0c0", bus_id=None):
        bus = bus_id or f"{0x1a + self.device:x}000"
        word = "START" if phase == "start" else "COMPLETE"
        cid = f" commId {comm_id}" if comm_id else ""
        nvml = f" nvmlDev {self.device}" if comm_id else ""
        return self.add("comm_init",
                        f"comm {comm_ptr} rank {rank} nranks {nranks} cudaDev {self.device}{nvml} busId {bus}"
                        f"{cid} - Init {word}", phase=phase, comm_ptr=comm_ptr, rank=rank, nranks=nranks,
                        cuda_dev=self.device, nvml_dev=self.device if comm_id else None, bus_id=bus,
                        comm_id=comm_id, nnodes=None, local_ranks=None, local_rank=None)

    def nodes_info(self, rank, nranks, nnodes, local_ranks, local_rank, comm_ptr="0x55d0c0a0b0c0"):
        return self.add("comm_init",
                        f"comm {comm_ptr} rank {rank} nRanks {nranks} nNodes {nnodes} localRanks {local_ranks} "
                        f"localRank {local_rank} MNNVL 0", phase="info", comm_ptr=comm_ptr, rank=rank,
                        nranks=nranks, cuda_dev=None, nvml_dev=None, bus_id=None, comm_id=None, nnodes=nnodes,
                        local_ranks=local_ranks, local_rank=local_rank)

    def ring(self, channel, nchannels, order, dots=False):
        listed = "".join(f" {r:3d}" for r in order) + (" ..." if dots else "")
        return self.add("ring", f"Channel {channel:02d}/{nchannels:02d} :{listed}", channel=channel,
                        nchannels=nchannels, order=list(order))

    def trees(self, entries):
        """entries: [(channel, children, rank, parent)]"""
        parts = "".join(f" [{c}] {'/'.join(str(x) for x in (list(kids) + [-1, -1, -1])[:3])}->{r}->{p}"
                        for c, kids, r, p in entries)
        return self.add("tree", f"Trees{parts}", trees=[{"channel": c, "children": list(kids), "rank": r,
                                                         "parent": p} for c, kids, r, p in entries])

    def graph_ring(self, channel, prev, rank, nxt):
        return self.add("graph_ring", f"Ring {channel:02d} : {prev} -> {rank} -> {nxt}", channel=channel,
                        prev=prev, next=nxt, rank=rank)

    def transport(self, channel, src, dst, transport, detail=None, direction=None, device=None, pxn_rank=None,
                  src_dev=0, dst_dev=0, conn=0):
        if transport.startswith("NET/"):
            proxy = f"({pxn_rank})" if pxn_rank is not None else ""
            via = f"{transport}/{device}{proxy}" + (f"/{detail}" if detail else "")
            word = "[send]" if direction == "send" else "[receive]"
            msg = f"Channel {channel:02d}/{conn} : {src}[{src_dev}] -> {dst}[{dst_dev}] {word} via {via}"
        elif transport == "SHM":
            msg = f"Channel {channel:02d} : {src}[{src_dev}] -> {dst}[{dst_dev}] via SHM/{detail or 'direct/direct'}"
        else:
            msg = (f"Channel {channel:02d}/{conn} : {src}[{src_dev}] -> {dst}[{dst_dev}] via {transport}"
                   + (f"/{detail}" if detail else ""))
        return self.add("transport", msg, channel=channel, from_rank=src, to_rank=dst, from_bus=str(src_dev),
                        to_bus=str(dst_dev), transport=transport,
                        detail=detail if transport != "SHM" else (detail or "direct/direct"),
                        device=device, pxn=pxn_rank is not None, direction=direction)

    def connected(self, what="all rings"):
        return self.add("connected", f"Connected {what}", what=what)

    def summary(self, coll, nvls=0, p2p=32, per_peer=2):
        return self.add("channels_summary", f"{coll} coll channels, {nvls} nvls channels, {p2p} p2p channels, "
                        f"{per_peer} p2p channels per peer", message="channels", coll_channels=coll,
                        nvls_channels=nvls, p2p_channels=p2p, p2p_per_peer=per_peer)


COMM_ID = "0x7f3e2a1b4c5d6e7f"


def job_logs(hosts=("nodeA", "nodeB"), gpus=4, nchannels=2, order=None, network="IB", version="2.19.3",
             versions=None, gdr=True, no_gdr_ranks=(), bootstrap_if="eth0", ib=True, graph=False,
             graph_override=None, comm_id=COMM_ID) -> dict[str, RankLog]:
    """A healthy job: `len(hosts)` nodes × `gpus` GPUs, one file per rank, ring 0..n-1 on every channel,
    P2P inside a node, NET between nodes (device 0, GDRDMA unless disabled)."""
    nranks = len(hosts) * gpus
    order = list(order or range(nranks))
    logs: dict[str, RankLog] = {}
    for rank in range(nranks):
        host, dev = hosts[rank // gpus], rank % gpus
        log = RankLog(f"nccl.{host}.{1000 + rank}.log", host, 1000 + rank, dev)
        addr = f"10.0.{rank // gpus}.1"
        log.version((versions or {}).get(rank, version))
        log.bootstrap(bootstrap_if, "172.17.0.1" if bootstrap_if.startswith("docker") else addr)
        if ib:
            log.net_ib(addr=addr)
        if network == "Socket":
            log.net_socket(((bootstrap_if, addr),))
        log.using(network)
        log.init("start", rank, nranks, comm_id)
        log.nodes_info(rank, nranks, len(hosts), gpus, dev)
        if rank == 0:
            for c in range(nchannels):
                log.ring(c, nchannels, order)
        i = order.index(rank)
        prev, nxt = order[i - 1], order[(i + 1) % nranks]
        log.trees([(c, [rank + 1] if rank + 1 < nranks else [], rank, rank - 1) for c in range(nchannels)])
        if graph:
            for c in range(nchannels):
                p, n = (graph_override or {}).get((c, rank), (prev, nxt))
                log.graph_ring(c, p, rank, n)
        for c in range(nchannels):
            for src, dst, direction in ((rank, nxt, "send"), (prev, rank, "receive")):
                same = src // gpus == dst // gpus
                if same and direction == "send":
                    log.transport(c, src, dst, "P2P/IPC", "read", src_dev=src % gpus, dst_dev=dst % gpus)
                elif not same:
                    use_gdr = gdr and rank not in no_gdr_ranks
                    log.transport(c, src, dst, f"NET/{network}", "GDRDMA" if use_gdr and network == "IB" else None,
                                  direction, device=0, src_dev=src % gpus, dst_dev=dst % gpus)
        log.connected("all rings")
        log.connected("all trees")
        log.summary(nchannels)
        log.init("complete", rank, nranks, comm_id)
        logs[log.file] = log
    return logs


def all_events(logs: dict[str, RankLog]) -> list[Event]:
    return [ev for name in sorted(logs) for ev in logs[name].events]


def reprint_ring(logs: dict[str, RankLog], channel: int, order: list[int], file: str | None = None) -> None:
    """Make rank 0 print another order for `channel` (what a broken or truncated line says)."""
    log = logs[file or sorted(logs)[0]]
    for i, (text, ev) in enumerate(log.items):
        if ev.kind == "ring" and ev.data["channel"] == channel:
            head = text.split(" : ")[0]
            ev.data["order"] = list(order)
            ev.text = head + " :" + "".join(f" {r:3d}" for r in order)
            log.items[i] = (ev.text, ev)
