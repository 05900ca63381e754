"""Per-rank state from events: where py-spy saw it, and how its process ended.

`where` classifies the main thread's py-spy stack:
- ``collective``: inside a torch.distributed call (``op`` says which, ``at`` the user frame that called it);
- ``data_loading`` / ``checkpointing``: a DataLoader / torch.save/load frame on the stack;
- ``busy``: active (on CPU) outside any collective, e.g. a spin loop;
- ``waiting``: idle outside any collective (time.sleep, a lock, I/O).

`end` classifies how the process ended, and whether that is a *cause* or a *consequence*:
- causes: ``oom_killed``, ``killed`` (SIGKILL not sent by torchrun), ``crashed`` (SIGSEGV/SIGBUS/…),
  ``exception`` (a non-communication exception);
- consequences: ``terminated`` (torchrun's SIGTERM fan-out), ``aborted`` (SIGABRT after a collective
  error), ``comm_error`` (a communication exception: timeout, peer closed, fingerprint mismatch).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .. import signals
from ..model import Event, Evidence, clip
from ..sources import catalogue
from ..sources.catalogue.cuda import from_amd_runtime, refused_nccl_call, rejected_call
from ..sources.lines import ray_prefix
from ..sources.traceback import OWN_PROCESS, REPORTS_OTHERS, USAGE_ERROR
from .native_stacks import communication_call

COLLECTIVE_FUNCS = {
    "all_reduce", "all_gather", "all_gather_into_tensor", "_all_gather_base", "reduce_scatter",
    "reduce_scatter_tensor", "_reduce_scatter_base", "broadcast", "reduce", "barrier", "monitored_barrier",
    "send", "recv", "isend", "irecv", "all_to_all", "all_to_all_single", "gather", "scatter",
    "all_gather_object", "broadcast_object_list", "batch_isend_irecv", "wait",
}
_TORCH_DIST = ("torch/distributed/", "torch\\distributed\\")
_DDP = "torch/nn/parallel/distributed.py"          # DistributedDataParallel: idle there = waiting on its collectives
_DATA = ("dataloader", "/data/", "dataset", "__next__", "_next_data", "load_batch", "collate")
_CKPT = ("checkpoint", "torch/serialization.py", "save", "state_dict")
_COMM_EXC = ("DistBackendError", "DistNetworkError", "DistStoreError", "ChildFailedError", "Watchdog",
             "Detected mismatch between collectives", "Connection closed", "Connection reset", "Timed out",
             "timed out", "gloo", "NCCL", "preamble", "Socket", "ProcessGroup")


@dataclass
class RankState:
    rank: int
    host: str | None = None
    pids: set = field(default_factory=set)
    where: str | None = None          # py-spy classification (see module doc), None without a dump
    op: str | None = None             # the collective it is inside, when where == "collective"
    at: str | None = None             # file:line of the innermost user frame
    exitcode: int | None = None
    signal: str | None = None
    end: str | None = None            # see module doc; None = no sign it ended
    end_detail: str = ""
    cause: bool = False               # its end is a cause (not a consequence of another rank's failure)
    shared: bool = False              # its exception is most ranks' word for word (shared_exception): the program's
    usage: bool = False               # its end is the distributed API refusing the call (catalogue usage_error)
    end_kind: str | None = None       # the event kind its end was read from
    evidence: list[Evidence] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {"rank": self.rank, "host": self.host, "pids": sorted(self.pids), "pyspy": self.where,
                "op": self.op, "at": self.at, "exitcode": self.exitcode, "signal": self.signal,
                "end": self.end, "end_detail": self.end_detail, "end_is_cause": self.cause}


def cite_frame(ev: Event, at: str | None) -> Evidence:
    """The py-spy line of the frame `at` (file:line) names, which a claim about the rank rests on; the thread
    header where the dump's frames carry no line number (a summary, py-spy's JSON)."""
    for f in ev.data.get("frames") or ():
        if f.get("dump_line") and at == f"{f.get('file')}:{f.get('line')}":
            return Evidence(ev.file, f["dump_line"], f"{f.get('function')} ({at})")
    return cite(ev)


def cite(ev: Event) -> Evidence:
    return Evidence(ev.file, ev.line, ev.text)


def classify_stack(frames: list[dict], state: str | None) -> tuple[str, str | None, str | None]:
    """(where, op, at) for one py-spy thread; frames innermost first."""
    user = next((f for f in frames if not _is_library(f.get("file") or "")), None)
    at = f"{user.get('file')}:{user.get('line')}" if user else None
    for f in frames:
        name, path = f.get("function") or "", f.get("file") or ""
        if name in COLLECTIVE_FUNCS and (any(p in path for p in _TORCH_DIST) or "distributed" in path):
            return "collective", name, at
    if state != "active" and any(f.get("function") == "_engine_run_backward" for f in frames):
        return "collective", "backward (DDP gradient all-reduce)", at   # waits for the reducer's collectives
    if state != "active" and any(_DDP in (f.get("file") or "") for f in frames):
        return "collective", "DDP (waiting for the reducer's collectives)", at   # e.g. _pre_forward's sync
    text = " ".join(f"{f.get('function')} {f.get('file')}".lower() for f in frames)
    if any(k in text for k in _DATA):
        return "data_loading", None, at
    if any(k in text for k in _CKPT):
        return "checkpointing", None, at
    return ("busy" if state == "active" else "waiting"), None, at


def _is_library(path: str) -> bool:
    return "site-packages" in path or path.startswith(("torch/", "<frozen")) or "/lib/python3" in path


def rank_states(events: list[Event], world: list[int], store_gone: set[int] | None = None) -> dict[int, RankState]:
    """One RankState per known rank, from py-spy threads and the process-end events. `store_gone`: the events'
    `store_teardown_errors` where the caller has them."""
    states = {r: RankState(r) for r in world}
    kinds = {ev.kind for ev in events}          # the scans below, only where their kinds are (4,096 rank logs: none)
    terminated_pids = {ev.data.get("pid") for ev in events if ev.kind == "sigterm_sent"} \
        if "sigterm_sent" in kinds else set()
    own_aborts = not any(map(_collective_error, events)) if kinds & _COLLECTIVE_ERROR_KINDS or "warn" in kinds else True
    tables = _failure_tables(events) if "child_failed" in kinds else {}
    nccl_failed = nccl_failures_by_pid(events) if "warn" in kinds and kinds & _EXIT_KINDS else {}
    oom_pids = {ev.data.get("victim_pid"): ev for ev in events if ev.kind == "oom_kill"} if "oom_kill" in kinds else {}
    timer_pids = timer_reaped_pids(events) if "agent_log" in kinds else {}
    after_network: set[int] = set()
    after_network_lines: set[tuple[str, int]] = set()
    machine: set[tuple[str, int]] = set()
    no_code: set[int] = set()
    refused: set[int] = set()
    setup: set[int] = set()
    raised: set[tuple[int, str]] = set()
    if kinds & _ERROR_KINDS:                                    # what the error events below are read against
        after_network = faults_after_network_failure(events)
        # the tracebacks raised by those faults are the same consequence
        after_network_lines = {(ev.file, ev.line) for ev in events if id(ev) in after_network}
        # the lines where a CUDA error names the machine (a driver older than the build, no code for this GPU, no
        # P2P path), or a catalogue message a failure no rank's death explains (a parallel layout the world size
        # does not divide, a run whose numerics diverged: `implies` unclassified_failure): the traceback raised
        # there is that error, not an exception of the rank's own
        no_code = _after_no_code_said(events)
        machine = {(ev.file, ev.line) for ev in events if ev.kind == "cuda_error" and names_the_machine(ev.data)
                   or names_no_death(ev.data) or id(ev) in no_code}
        refused = refused_nccl_calls(events)
        setup = setup_failures(events)
        raised = statuses_raised(events)
    if store_gone is None:
        store_gone = store_teardown_errors(events)    # the store went away at the job's end: they end no rank
    for ev in events:
        if ev.rank is None or store_gone and id(ev) in store_gone:
            continue
        st = states.get(ev.rank)
        if st is None:                                  # not a RankState made per event and dropped
            st = states[ev.rank] = RankState(ev.rank)
        st.host = st.host or ev.host
        if ev.pid:
            st.pids.add(ev.pid)
        if ev.kind not in _STATE_KINDS:                # most events: init and topology lines
            continue
        if ev.kind == "pyspy_thread" and _is_main(ev) and st.where is None:
            st.where, st.op, st.at = classify_stack(ev.data.get("frames") or [], ev.data.get("state"))
            st.evidence.append(cite_frame(ev, st.at))
        elif ev.kind == "native_thread" and st.where is None:
            call = communication_call(ev.data.get("frames") or [])
            if call:                                    # a gdb backtrace: a thread blocked in NCCL, c10d or gloo
                st.where, st.op = "collective", call
                st.evidence.append(cite(ev))
        elif ev.kind == "faulthandler" and ev.data.get("reason") is None and st.where is None:
            frames = _current_thread(ev)             # a live stack dump (torch's debug server, dump_traceback)
            if frames:
                st.where, st.op, st.at = classify_stack(frames, None)
                st.evidence.append(cite(ev))
        elif ev.kind in _EXIT_KINDS:
            _note_exit(st, ev, terminated_pids, tables.get(id(ev), ""), own_aborts, nccl_failed)
        elif ev.kind in _ERROR_KINDS:
            if ev.kind == "traceback" and (ev.file, ev.line) in machine:
                # the distributed API refused the call (catalogue usage_error, whatever its words: `NCCL
                # Communicator`, a DistBackendError): an exception of the program's, no communication failed;
                # _usage_left_peers weighs it
                usage = ev.data.get("category") == USAGE_ERROR
                _set_end(st, "exception" if usage else "comm_error", False,
                         clip(f"{ev.data.get('exc_type') or 'error'}: {ev.data.get('message') or ''}", 160), ev, usage)
                continue
            if id(ev) in no_code:                 # a library said it has no kernels for this GPU (V501)
                _set_end(st, "comm_error", False, clip(f"{_gpu_error_label(ev)}: {ev.data.get('message')}", 160), ev)
                continue
            if id(ev) in refused:
                _set_end(st, "comm_error", False, "ncclUnhandledCudaError: a CUDA call NCCL made was refused for its "
                         f"arguments ({ev.data.get('last_error') or 'Last error below it'}), as on every rank of its "
                         "setup", ev)
                continue
            if id(ev) in setup:
                _set_end(st, "comm_error", False, f"{ev.data.get('code') or 'NCCL error'}: the machine or the job's "
                         f"settings ({ev.data.get('last_error') or 'Last error below it'}), as on every rank of its "
                         "setup", ev)
                continue
            if ev.kind == "traceback" and (ev.rank, str(ev.data.get("message") or "").strip()) in raised:
                # the bare status a library's failure line of this rank said its work raises: that failure's
                _set_end(st, "comm_error", False, clip(f"{ev.data.get('exc_type') or 'error'}: "
                                                       f"{ev.data.get('message')} (the collective's failure)", 160), ev)
                continue
            if id(ev) in after_network or ev.kind == "traceback" and (ev.file, ev.line) in after_network_lines:
                _set_end(st, "comm_error", False, "CUDA fault after a network failure of its own process "
                         "(a consequence: NCCL aborted the communicator under its running kernels)", ev)
                continue
            _note_error(st, ev)
    _shared_exception(states, terminated_pids - {None})
    _usage_left_peers(states)
    if "child_failed" in kinds:
        _root_cause_cut(states, events, tables)
    for st in states.values():
        for pid in st.pids:
            if pid in oom_pids:
                _set_end(st, "oom_killed", True, f"killed by the OOM killer (pid {pid})", oom_pids[pid])
            elif pid in timer_pids and st.end in ("killed", "terminated", None):
                # its SIGKILL is the elastic timer's: the rank overran a timed block (stuck_rank reads why)
                st.evidence.append(cite(timer_pids[pid]))
                st.end, st.cause = "killed", False
                st.end_detail = f"killed by the elastic timer server after its expires() block overran (pid {pid})"
    return dict(sorted(states.items()))


def timer_reaped_pids(events: list[Event]) -> dict[int, Event]:
    """pid -> the elastic timer server's line reaping that worker (catalogue torchrun.timer_reaped)."""
    out: dict[int, Event] = {}
    for ev in events:
        if ev.kind != "agent_log" or ev.data.get("category") != "timer_expired":
            continue
        pid = str(ev.data.get("worker_pid") or "")
        if pid.isdigit():
            out.setdefault(int(pid), ev)
    return out


# the events that may end a rank with an error of its own (rank_states)
_ERROR_KINDS = frozenset({"traceback", "gloo_error", "oom", "faulthandler", "fingerprint_mismatch", "watchdog_timeout",
                          "dist_backend_error", "cuda_error", "nccl_error"})
# the kinds rank_states reads past a rank's host and pids
_STATE_KINDS = _ERROR_KINDS | {"pyspy_thread", "native_thread", "child_failed", "worker_failed", "error_json",
                               "slurm_exit"}


def faults_after_network_failure(events: list[Event]) -> set[int]:
    """The CUDA faults (by event id) that one process printed after it had itself reported a failure of the network
    (the message catalogue's `implies` network_error): when NCCL's proxy thread gets an error completion (NET/IB
    error 12, a socket reset), the communicator is aborted and its buffers freed under kernels still running, which
    then fault (illegal memory access, unspecified launch failure, NCCL's `Cuda failure` and unhandled cuda error). The
    network failure is the cause. A kernel that printed the wait it gave up on and then trapped (the catalogue's
    `device_trap`: DeepEP, TransformerEngine's userbuffers) faults the same way: its timeout is the cause. Same
    process: the same host and pid, else the same rank; earlier: by time where both carry one, else by line in the
    same file. A fault printed before any network failure stays a cause."""
    return _after_own_network_failure(events, _is_cuda_fault)


def statuses_raised(events: list[Event]) -> set[tuple[int, str]]:
    """(rank, text) of the exceptions a library's failure line says that rank's work raises with the status text it
    printed alone (catalogue data `raises_reason`: torch's ProcessGroupUCC logs `Failed to progress communication`
    and the status, then raises `RuntimeError: <status>`): such a traceback is that failure, not one of the rank's."""
    return {(ev.rank, str(ev.data["reason"]).strip()) for ev in events
            if ev.data.get("raises_reason") and ev.rank is not None and ev.data.get("reason")}


def deaths_after_own_network_failure(events: list[Event]) -> set[int]:
    """The reports of a process's end (by event id: a signal handler's `Caught signal 6`, a launcher's line naming the
    rank that exited or left without finalizing) that follow a failure of the network the same process had itself
    reported: a transport that gives up on a peer or a link aborts its process (UCX's unhandled endpoint error and
    its ucs_fatal, MPI_ERRORS_ARE_FATAL after the PML's error), so the network failure, not the death, is the cause.
    Same process and order as faults_after_network_failure."""
    return _after_own_network_failure(events, _reports_an_end)


def _reports_an_end(ev: Event) -> bool:
    """A line that reports a process's end as a failure: a crash report, or a launcher's report of a rank's exit."""
    return ev.data.get("meaning") == "failure" and (ev.kind in _CRASH_REPORTS or ev.kind == "worker_failed")


def _after_own_network_failure(events: list[Event], follows) -> set[int]:
    """The events (by id) that `follows` picks and that one process printed after its own first network failure."""
    by_proc: dict = {}        # (host, pid) -> the earliest network failure: (time, {file: line})
    by_rank: dict = {}        # rank -> the same, of the lines that name no host and pid
    by_rank_any: dict = {}    # rank -> the same, of every line with a rank
    for ev in events:
        if ev.data.get("meaning") == "failure" and (ev.data.get("implies") == "network_error"
                                                    and ev.data.get("category") != "p2p"
                                                    or ev.data.get("category") == "device_trap"):
            # a kernel's printf has no logger prefix: the rank it prints is the only one it names
            rank = ev.rank if ev.rank is not None or ev.data.get("category") != "device_trap" else ev.data.get("rank")
            if ev.host and ev.pid is not None:
                _note_first(by_proc, (ev.host, ev.pid), ev)
            elif rank is not None:
                _note_first(by_rank, rank, ev)
            if rank is not None:
                _note_first(by_rank_any, rank, ev)
    if not by_rank_any and not by_proc:
        return set()
    out = set()
    for ev in events:
        if not follows(ev):
            continue
        if ev.host and ev.pid is not None:
            firsts = [by_proc.get((ev.host, ev.pid)), by_rank.get(ev.rank)]
        else:
            firsts = [by_rank_any.get(ev.rank)]
        if any(first is not None and _before(first, ev) for first in firsts):
            out.add(id(ev))
    return out


_EXIT_KINDS = frozenset({"child_failed", "worker_failed", "error_json", "slurm_exit"})


def nccl_failures_by_pid(events: list[Event]) -> dict:
    """pid -> {short host or None: the first NCCL failure WARN that process printed (the catalogue's `failure`
    meaning)}. NCCL's prefix `host:pid:tid` names the process; a process prints nothing after it exits, so any such
    WARN came before its exit."""
    out: dict = {}
    for ev in events:
        if ev.kind == "warn" and ev.source == "nccl" and ev.pid is not None and ev.data.get("meaning") == "failure":
            out.setdefault(ev.pid, {}).setdefault(short_host(ev.host), ev)
    return out


def _own_nccl_failure(ev: Event, nccl_failed: dict | None) -> str:
    """The words of the NCCL failure the exiting process (`ev`'s pid, on its host where the exit line names one)
    printed itself, or an empty string."""
    by_host = (nccl_failed or {}).get(ev.data.get("pid"))
    if not by_host:
        return ""
    host = short_host(ev.host or ev.data.get("host"))
    if host is None and len(by_host) > 1:
        return ""                                  # that pid on several hosts, and the exit line names none
    found = by_host.get(host) if host is not None else next(iter(by_host.values()))
    return (found.data.get("message") or found.text.strip()) if found is not None else ""


def short_host(host) -> str | None:
    """A host name up to its first dot (NCCL's `host:pid:tid` prefix cuts it there, as Slurm names nodes); an IP
    address whole; None for none."""
    if not host:
        return None
    name = str(host)
    return name if name.replace(".", "").isdigit() else name.split(".", 1)[0]


def crashes_after_own_nccl_failure(events: list[Event]) -> set[int]:
    """The crash-signal reports (by event id: a signal handler's `Caught signal 11`, faulthandler) that one process
    printed after NCCL had itself reported a failure in that process (a failure or consequence WARN, an error return
    `file.cc:N -> C`). NCCL's error path runs under a communicator it is tearing down, and a crash there follows the
    failure it reports: that failure, not the crash, is the process's first. Same host and pid only (the two say
    which process printed them); earlier by time where both carry one, else by line in the same file."""
    first: dict = {}
    for ev in events:
        if ev.host and ev.pid is not None and ev.source == "nccl" and (
                ev.kind == "warn" and ev.data.get("meaning") in ("failure", "consequence")
                or ev.kind == "error_trace" and ev.data.get("code")):
            _note_first(first, (ev.host, ev.pid), ev)
    if not first:
        return set()
    out = set()
    for ev in events:
        key = (ev.host or ev.data.get("host"), ev.pid)      # a catalogue line keeps the host it names in its data
        if ev.kind in _CRASH_REPORTS and key in first and _before(first[key], ev):
            out.add(id(ev))
    return out


def deaths_after_own_watchdog(events: list[Event]) -> set[int]:
    """Ray's reports of a dead worker (by event id) whose process, by the ip and pid the report names (`Worker IP
    address: A ... Worker PID: N`) and the ones Ray's log prefix gives that worker's lines (`(Actor pid=N, ip=A)`), had
    itself printed its ProcessGroupNCCL watchdog's timeout or its `taking the entire process down`: the watchdog ends
    the process after that (abort), so the death follows that failure and is none of its own. A prefix without an ip
    (a worker on the driver's node) stands for the report's ip only where no line of the paste names one. Ray's
    driver prints the report as it sees the exit, and the worker's own lines it forwards later: no order is asked."""
    reports = [ev for ev in events if ev.kind == "worker_failed" and str(ev.data.get("worker_pid") or "").isdigit()]
    if not reports:                                 # (most jobs: no prefix is looked for in their lines)
        return set()
    prefixes = [(ev, found) for ev in events if (found := ray_prefix(ev.text)) is not None]
    if not prefixes:
        return set()
    one_node = all(ip is None for _, (_, ip) in prefixes)
    aborting = {found for ev, found in prefixes if _watchdog_ends_process(ev)}
    out = set()
    for ev in reports:
        pid, ip = int(ev.data["worker_pid"]), ev.data.get("worker_ip")
        if (pid, ip) in aborting or one_node and (pid, None) in aborting:
            out.add(id(ev))
    return out


_RAY_SNIPPET = "ray.train_rank_error"


def snippets_of_barrier_waits(events: list[Event]) -> set[int]:
    """Ray Train v2's error-snippet headers (`[Rank 0,1,3 Error Snippet]:`, by event id) whose error beneath, before
    the next header of the file, is a failed barrier's report (its report barrier's timeout naming the ranks that
    never came): the ranks of the header waited in that barrier and raised its timeout; none of them died."""
    heads = sorted((ev for ev in events if ev.data.get("message_id") == _RAY_SNIPPET),
                   key=lambda ev: (ev.file, ev.line))
    if not heads:
        return set()
    waits = [ev for ev in events if ev.kind == "monitored_barrier" and ev.data.get("state") == "failed"]
    out = set()
    for head, after in zip(heads, [*heads[1:], None], strict=True):
        end = after.line if after is not None and after.file == head.file else float("inf")
        if any(ev.file == head.file and head.line < ev.line < end for ev in waits):
            out.add(id(head))
    return out


def _watchdog_ends_process(ev: Event) -> bool:
    return ev.kind == "watchdog_timeout" or (ev.kind == "comm_abort" and ev.data.get("context") == "teardown")


def recovered_error_traces(events: list[Event]) -> set[int]:
    """NCCL's error traces (`file.cc:N -> C`, by event id) that its process followed, within a few lines of the same
    file, with a benign WARN: a fallback NCCL took on that error (CollNet/SHARP that would not start, `using
    point-to-point network instead`), so the error path ended there and is no failure of the job. Also the traces
    right after a message whose error return NCCL's caller tolerates (_TOLERATED_RETURN: a NIC without a PCI path,
    then `include/net.h:19 -> 2`, and NCCL goes on)."""
    fallbacks: dict = {}      # (host, pid, file) -> the lines of its benign NCCL WARNs
    tolerated: dict = {}      # (host, pid, file) -> the lines of its benign lines whose error return is tolerated
    for ev in events:
        if ev.source == "nccl" and ev.data.get("meaning") == "benign" and ev.pid is not None:
            key = (ev.host, ev.pid, ev.file)
            if ev.kind == "warn":
                fallbacks.setdefault(key, []).append(ev.line)
            if ev.data.get("message_id") in _TOLERATED_RETURN:
                tolerated.setdefault(key, []).append(ev.line)
    return {id(ev) for ev in events if ev.kind == "error_trace" and ev.pid is not None and (any(
        0 < line - ev.line <= _LAST_ERROR_SPAN for line in fallbacks.get((ev.host, ev.pid, ev.file), ())) or any(
        0 < ev.line - line <= _TOLERATED_SPAN for line in tolerated.get((ev.host, ev.pid, ev.file), ())))}


_TOLERATED_SPAN = 2     # the trace line NCCLCHECK prints right after the message (a blank line may sit between)
# catalogue entries whose function returns an error its caller takes as an answer (2.4 - 2.6 getNetDistance: no
# PCI path, the farthest distance)
_TOLERATED_RETURN = frozenset({"nccl.nic_pci_path_missing"})


_CONNECT_RETRY = "nccl.socket_connect_retry"


def passed_connect_retries(events: list[Event], timelines) -> set[int]:
    """NCCL's INFO lines of a connect it retries (catalogue nccl.socket_connect_retry, by event id) that their process
    got past: it later completed a communicator's init (`Init COMPLETE`) or logged a collective (a row of
    `timelines` further down its file). The peer was only late to listen; the retry went through."""
    retries = [ev for ev in events if ev.kind == "nccl_info" and ev.data.get("message_id") == _CONNECT_RETRY]
    if not retries:
        return set()
    last_rows = timelines.last_rows({ev.file for ev in retries})    # (file, rank) -> the line of its last row
    inits: dict[tuple, int] = {}        # (file, pid) -> the line of its last completed init
    for ev in events:
        if ev.kind == "comm_init" and ev.data.get("phase") == "complete":
            key = (ev.file, ev.pid)
            inits[key] = max(inits.get(key, 0), ev.line)
    return {id(ev) for ev in retries
            if inits.get((ev.file, ev.pid), 0) > ev.line or last_rows.get((ev.file, ev.rank), 0) > ev.line}


# c10d's store-socket errors: a TCPStore client call that found the store's socket closed
_STORE_SOCKET = frozenset({"pytorch.store_connection_reset", "pytorch.store_peer_closed",
                           "pytorch.socket_system_error"})
# ... and torch elastic's rendezvous errors of an agent's teardown: the rendezvous it could not close (shutdown, as the
# agent exits), the rendezvous exception and the store connection under it (c10d_rendezvous_backend)
_RENDEZVOUS_TEARDOWN = frozenset({"torchrun.rendezvous_shutdown_failed", "torchrun.rendezvous_error",
                                  "pytorch.store_connection_failed"})
_AGENT_SUCCEEDED = "torchrun.worker_group_succeeded"


def store_teardown_errors(events: list[Event]) -> set[int]:
    """The store and rendezvous errors (by event id) that say a job's store went away at its end, no failure:

    - a rank's store-socket error where its heartbeat monitor said, in the same file, that it could not reach the
      store (catalogue pytorch.should_dump_check_failed: `maybe TCPStore server has shut down too early`). TCPStore's
      client logs the failed call (`recvValue failed on SocketImpl(...)`, 2.4+) and rethrows it to that monitor: the
      store's host ended, which closed the socket;
    - an agent's store or rendezvous error after its own workers SUCCEEDED (elastic agent/server/api.py: it then only
      waits at the exit barrier and closes the rendezvous, dynamic_rendezvous.py shutdown): the agent hosting the store
      finished first and took it along."""
    gone = {(ev.file, ev.rank) for ev in events
            if ev.kind == "c10d_log" and ev.data.get("message_id") == "pytorch.should_dump_check_failed"}
    done = _agent_successes(events)
    if not (gone or done):              # the usual case: nothing says the store went away
        return set()
    out: set[int] = set()
    for ev in events:
        said = ev.data.get("message_id")
        if said in _STORE_SOCKET and (ev.file, ev.rank) in gone:
            out.add(id(ev))
        elif said in _STORE_SOCKET | _RENDEZVOUS_TEARDOWN and _agent_succeeded(done, ev, above=True):
            out.add(id(ev))
    return out


def restarts_then_succeeded(events: list[Event]) -> set[int]:
    """An elastic agent's `Worker group FAILED. n/N attempts left; will restart worker group` lines (by event id)
    that the same agent followed with its workers' success (agent/server/api.py _invoke_run: it restarted the group,
    and the next attempt SUCCEEDED): the job got past that attempt."""
    done = _agent_successes(events)
    if not done:
        return set()
    return {id(ev) for ev in events
            if ev.data.get("message_id") == _AGENT_RESTART and _agent_succeeded(done, ev, above=False)}


_AGENT_RESTART = "torchrun.worker_group_failed"


def _agent_successes(events: list[Event]) -> dict[tuple, tuple[int, int]]:
    """(file, agent pid) -> the first and last line that agent logged its workers' success on."""
    done: dict[tuple, tuple[int, int]] = {}
    for ev in events:
        if ev.data.get("message_id") == _AGENT_SUCCEEDED:
            first, last = done.get((ev.file, ev.pid), (ev.line, ev.line))
            done[(ev.file, ev.pid)] = (min(first, ev.line), max(last, ev.line))
    return done


def _agent_succeeded(done: dict, ev: Event, *, above: bool) -> bool:
    """Did the agent that logged `ev` (its pid where both lines name one) log its workers' success above it (or, with
    above=False, below it)?"""
    return any(file == ev.file and (pid is None or ev.pid is None or pid == ev.pid)
               and (first < ev.line if above else last > ev.line)
               for (file, pid), (first, last) in done.items())


# what reports a process's own crash signal from inside it
_CRASH_REPORTS = frozenset({"signal_report", "faulthandler"})


def refused_nccl_calls(events: list[Event]) -> set[int]:
    """The ncclUnhandledCudaError events (by id) whose cause is a CUDA call NCCL made that the runtime refused for its
    arguments (catalogue/cuda.py CALL_REJECTED: `invalid argument`, ...), not a fault of the process's device work.
    torch prints the code, then `Last error:`, then NCCL's last WARN (NCCLUtils getNcclErrorDetailStr): the refused
    call's text is on the code's own line (glued) or on the lines right under it, in the same file (same rank where
    both name one)."""
    refused = [ev for ev in events if refused_nccl_call(ev.data)
               or ev.kind == "nccl_error" and not ev.data.get("code") and _refused(ev.data.get("last_error"))]
    return _codes_quoting(events, lambda d: d.get("code") == "ncclUnhandledCudaError", _refused, refused)


def setup_failures(events: list[Event]) -> set[int]:
    """The NCCL result codes (by event id) whose `Last error:` is a catalogue message of the machine or the job's
    settings (its data `setup`: NVLS multicast that cannot bind, a /sys without the PCI tree, NCCL_NET naming no
    network): every rank of that setup fails the same way, so the code is neither the rank's own crash nor a failure
    of the network. The text is on the code's own line or on the lines right under it, in the same file."""
    named = [ev for ev in events if ev.kind == "nccl_error" and not ev.data.get("code")
             and _names_setup(ev.data.get("last_error"))]
    return _codes_quoting(events, lambda d: d.get("meaning") != "benign", _names_setup, named)


def _codes_quoting(events: list[Event], is_code, says, quotes: list[Event]) -> set[int]:
    """The NCCL result codes (by event id; `is_code` of their data) whose `Last error:` text `says` so: on the code's
    own line (glued), or in one of `quotes` (the events that carry that text) on the lines right under it, in the
    same file (same rank where both name one)."""
    out = set()
    for ev in events:
        if ev.kind == "nccl_error" and is_code(ev.data) and (says(ev.data.get("last_error")) or any(
                r.file == ev.file and ev.line <= r.line <= ev.line + _LAST_ERROR_SPAN
                and (r.rank is None or ev.rank is None or r.rank == ev.rank) for r in quotes)):
            out.add(id(ev))
    return out


def _names_setup(last_error: str | None) -> bool:
    """Is an NCCL `Last error:` text a catalogue message of the machine or the job's settings: one marked `setup`, or
    NCCL's CUDACHECK (RCCL's `HIP failure`) quoting a runtime text that says the process got no GPU to work on
    (cuda.NO_USABLE_GPU: `invalid device ordinal` for more local ranks than visible GPUs, devices busy in
    exclusive-process mode, none detected), or that the driver and the build do not fit (a driver older than the
    build, its stub library, no code for this GPU: `the provided PTX was compiled with an unsupported toolchain`)?"""
    if not last_error:
        return False
    return any(h.message.data.get("setup") or h.fields.get("category") in _MACHINE_CUDA_CATEGORIES
               for h in catalogue.match(last_error))


# the categories cuda.reason_class gives a runtime text that names the machine every rank of it shares (V501 reads
# the last three)
_MACHINE_CUDA_CATEGORIES = frozenset({"cuda_setup", "cuda_driver", "cuda_stub", "cuda_arch"})


def _refused(last_error: str | None) -> bool:
    """Is an NCCL `Last error:` text NCCL's CUDACHECK (`Cuda failure [N] '<text>'`, RCCL `HIP failure`) quoting a call
    the runtime refused for its arguments?"""
    text = last_error or ""
    return ("Cuda failure" in text or "HIP failure" in text) and rejected_call(text)


# the lines from an NCCL result code to the text of its `Last error:` (the code, `Last error:`, the text; one more for
# a line a terminal wrapped)
_LAST_ERROR_SPAN = 3


def _note_first(index: dict, key, ev: Event) -> None:
    time, lines = index.setdefault(key, [None, {}])
    if ev.time is not None and (time is None or ev.time < time):
        index[key][0] = ev.time
    lines[ev.file] = min(lines.get(ev.file, ev.line), ev.line)


def _gpu_error_label(ev: Event) -> str:
    """`HIP error` for the errors of AMD's runtime (torch's hipified `HIP error: ...`, ROCR's and ROCclr's faults,
    clr's code-object errors), `CUDA error` for the rest."""
    return "HIP error" if from_amd_runtime(ev.data.get("message_id"), ev.text) else "CUDA error"


def names_the_machine(data: dict) -> bool:
    """Whether a CUDA error's text names the machine or the setup every rank shares, not the process's own work (a
    driver older than the build, no code for this GPU, no P2P path, a CUDA call NCCL made that the runtime refused for
    its arguments: sources/catalogue/cuda.py reason_class gives it another class)."""
    return data.get("implies") not in (None, "dropped_rank")


def names_no_death(data: dict) -> bool:
    """Whether a line is a catalogue message of a failure that is no process's own death: the job's settings or its
    numerics, on every rank alike (`implies` unclassified_failure)."""
    return data.get("implies") == "unclassified_failure" and data.get("meaning") == "failure"


def _after_no_code_said(events: list[Event]) -> set[int]:
    """The GPU errors (by event id) of a rank whose process's library said it has no kernels for this GPU (hipBLASLt's
    benign `Cannot read` of its Tensile library, `implies` version_mismatch): the install's, every rank alike (V501),
    not the rank's own crash. A hint without a rank stands for every rank of its file."""
    said = {(ev.file, ev.rank) for ev in events
            if ev.data.get("meaning") == "benign" and ev.data.get("implies") == "version_mismatch"}
    if not said:
        return set()
    return {id(ev) for ev in events if ev.kind == "cuda_error" and ev.data.get("meaning") == "failure"
            and ((ev.file, ev.rank) in said or (ev.file, None) in said)}


def _is_cuda_fault(ev: Event) -> bool:
    d = ev.data
    if d.get("meaning") != "failure" or names_the_machine(d):
        return False
    if ev.kind == "cuda_error" or ev.kind == "warn" and d.get("category") == "cuda":
        return True
    return ev.kind == "nccl_error" and d.get("code") == "ncclUnhandledCudaError"


def _before(first, ev: Event) -> bool:
    """Did a process's first network failure come before `ev`: by time where both carry one, else by line in the
    same file (lines of different files without times have no order)."""
    time, lines = first
    if time is not None and ev.time is not None:
        return time < ev.time
    return lines.get(ev.file, ev.line) < ev.line


def _current_thread(ev: Event) -> list[dict]:
    threads = ev.data.get("threads") or []
    current = next((t for t in threads if t.get("current")), threads[-1] if threads else None)
    return (current or {}).get("frames") or []


def _is_main(ev: Event) -> bool:
    return ev.data.get("thread_name") in (None, "MainThread") or ev.tid == ev.pid


# torchrun's shutdown (elastic/multiprocessing/api.py, `_close`): SIGTERM to every worker, then SIGKILL to those
# still alive 30 s later. Since torch 2.4 the failure table is taken after that shutdown, so it lists the
# workers torchrun ended (-15, or -9 about 30 s after the first failure) beside the one that failed.
_FORCED_KILL_AFTER_S = 25.0


def _failure_tables(events: list[Event]) -> dict[int, str]:
    """What torchrun's failure tables say of each entry (by event id): "forced" for a SIGKILL that came at least
    25 s after the table's first failure (torchrun's own kill after its SIGTERM grace), "first" for an entry that
    failed at the table's first second while the table shows torchrun ending the others."""
    by_file: dict[str, list[Event]] = {}
    for ev in events:
        if ev.kind == "child_failed" and ev.time is not None:
            by_file.setdefault(ev.file, []).append(ev)
    roles: dict[int, str] = {}
    for table in by_file.values():
        first = min(ev.time for ev in table if ev.time is not None)
        forced = {id(ev) for ev in table
                  if _signal_of(ev) == "SIGKILL" and (ev.time or 0) - first >= _FORCED_KILL_AFTER_S}
        shutdown = bool(forced) or any(_signal_of(ev) == "SIGTERM" for ev in table)
        for ev in table:
            if id(ev) in forced:
                roles[id(ev)] = "forced"
            elif shutdown and (ev.time or 0) - first < 1 and _signal_of(ev) is None:
                roles[id(ev)] = "first"
    return roles


def _signal_of(ev: Event) -> str | None:
    code = ev.data.get("exitcode")
    return ev.data.get("signal") or signals.of_exit_code(code)


def shared_exception(states: dict[int, RankState], processes: int = 0) -> list[RankState]:
    """The ranks that raised one exception word for word, where two or more did, at least half the processes known
    (the ranks, or `processes`: those a launcher's SIGTERMs name, which may reach a rank before it raises), and no
    rank ended in another way (no crash, no kill, no peer left waiting in a collective): a program or setup error
    alike on every rank that got there (torch.compile's tracing and compile errors, a refused set-up call), not one
    rank's own death that the others followed. A few ranks of many raising it (a bad shard of data) stay those ranks'
    own. Empty otherwise."""
    ended = [st for st in states.values() if st.end]
    raised = [st for st in ended if st.end == "exception"]
    if len(raised) < 2 or 2 * len(raised) < max(len(states), processes) or len({st.end_detail for st in raised}) != 1:
        return []
    if any(st.end not in ("exception", "terminated", "exited") or st.end == "exited" and st.cause for st in ended):
        return []
    return raised


def _shared_exception(states: dict[int, RankState], terminated_pids: set) -> None:
    for st in shared_exception(states, len(terminated_pids) + 1 if terminated_pids else 0):
        st.cause, st.shared = False, True


# the ends of a rank that waited in a collective until its timeout
_WAITED = frozenset({"watchdog_timeout", "work_status", "heartbeat", "wait_timeout", "monitored_barrier"})


def _usage_left_peers(states: dict[int, RankState]) -> None:
    """A usage error that some ranks raised while every other rank that ended timed out waiting in a collective:
    the peers never got to the refused call, so the ranks that did left the collective they waited in, its cause."""
    usage = [st for st in states.values() if st.usage and st.end == "exception" and not st.shared]
    ended = [st for st in states.values() if st.end and not st.usage]
    if not usage or not ended or any(st.cause for st in states.values()):
        return
    if all(st.end_kind in _WAITED or st.end in ("terminated", "aborted") for st in ended) \
            and any(st.end_kind in _WAITED for st in ended):
        for st in usage:
            st.cause = True


def _root_cause_cut(states: dict[int, RankState], events: list[Event], tables: dict[int, str]) -> None:
    """torchrun's Root Cause entry cut before its exit code: the rank it names failed first, unless another rank
    shows a cause of its own (its Root Cause is the first to *exit*, which can be a peer of a killed rank)."""
    if any(st.cause and st.end != "exited" for st in states.values()):
        return
    for ev in events:
        if (ev.kind == "child_failed" and ev.data.get("root_cause") and ev.rank in states
                and ev.data.get("exitcode") is None and states[ev.rank].end is None
                and (tables.get(id(ev)) == "first" or not tables)):
            _set_end(states[ev.rank], "exited", True, "failed first (torchrun's Root Cause; its exit code was cut)", ev)


# the events of a communication library's error or timeout (c10d's watchdog, NCCL, gloo, Horovod, a desync report):
# a process that aborted where one of them is in the evidence may be that library taking it down
_COLLECTIVE_ERROR_KINDS = frozenset({"watchdog_timeout", "dist_backend_error", "nccl_error", "gloo_error", "comm_abort",
                                     "cpp_terminate", "fingerprint_mismatch", "monitored_barrier", "heartbeat",
                                     "desync_report", "wait_timeout"})


def _collective_error(ev: Event) -> bool:
    kind = ev.kind
    return kind in _COLLECTIVE_ERROR_KINDS or kind == "warn" and ev.data.get("meaning") in ("failure", "consequence")


def _note_exit(st: RankState, ev: Event, terminated_pids: set, table_role: str = "", own_aborts: bool = False,
               nccl_failed: dict | None = None) -> None:
    code = ev.data.get("exitcode")
    if isinstance(code, int):
        st.exitcode = code
    sig = _signal_of(ev)
    if sig:
        st.signal = sig
    pid = ev.data.get("pid")
    if table_role == "forced":
        _set_end(st, "terminated", False, "killed by torchrun (SIGKILL) when it did not stop within the SIGTERM "
                 "grace after another rank failed", ev)
    elif sig == "SIGTERM" or pid in terminated_pids and sig in (None, "SIGTERM", "SIGKILL"):
        _set_end(st, "terminated", False, "terminated by torchrun after another rank failed", ev)
    elif sig == "SIGKILL":
        _set_end(st, "killed", True, "killed by SIGKILL (exit code -9)", ev)
    elif sig in signals.FAULT:
        _set_end(st, "crashed", True, f"crashed with {sig}", ev)
    elif sig == "SIGABRT" and own_aborts and ev.data.get("message_id") == "ompi.noticed_signal":
        # Open MPI names the first process whose end aborted the job; no collective error anywhere that would have
        # taken it down: abort() of its own (an assertion, a fatal log, an uncaught C++ exception)
        _set_end(st, "crashed", True, "aborted (SIGABRT) first, with no collective error in the evidence", ev)
    elif sig == "SIGABRT":
        _set_end(st, "aborted", False, "aborted (SIGABRT) after a collective error", ev)
    elif ev.kind == "error_json" and ev.data.get("message"):
        _note_error(st, ev)
    elif ev.kind == "worker_failed" and ev.data.get("message") and code is None:
        # a launcher's report that this rank raised an exception (Lightning's reconciliation): its own end
        _set_end(st, "exception", True, clip(f"an exception ({ev.data['message']})", 160), ev)
    elif isinstance(code, int) and code != 0 and st.end is None and (said := _own_nccl_failure(ev, nccl_failed)):
        # the process had itself printed an NCCL failure (its WARN by host:pid): the exit is that failure's end
        _set_end(st, "comm_error", False, clip(f"exited with code {code} after NCCL reported in that process: {said}",
                                               160), ev)
    elif isinstance(code, int) and code != 0 and st.end is None:
        # exiting on its own while torchrun terminated the others (its pid not among them): the first to fail. A
        # line that names no pid (the legacy launcher's CalledProcessError) cannot show it was not among them
        first = table_role == "first" or bool(terminated_pids) and pid is not None and pid not in terminated_pids
        _set_end(st, "exited", first, f"exited with code {code}" + (" before torchrun ended the others" if first
                                                                     else ""), ev)


def _note_error(st: RankState, ev: Event) -> None:
    d = ev.data
    if ev.kind == "oom":
        _set_end(st, "oom", True, f"{d.get('oom_kind')} out of memory", ev)
        return
    if ev.kind == "faulthandler":
        reason = d.get("reason")
        if reason is None:           # a thread block without its "Fatal Python error" header: no end by itself
            st.evidence.append(cite(ev))
            return
        if "Aborted" in reason:      # abort() after a C++ exception: gloo/NCCL collective errors end this way
            _set_end(st, "aborted", False, f"aborted ({reason})", ev)
        elif "Timeout" not in reason:
            _set_end(st, "crashed", True, reason, ev)
        return
    if ev.kind == "cuda_error":              # a device fault on this rank: it crashed, the others then wait
        what = d.get("message") or d.get("reason") or "its message was cut; the CUDA_LAUNCH_BLOCKING hint remains"
        if d.get("tail_only") and ("CUDA error:" in st.end_detail or "HIP error:" in st.end_detail):
            st.evidence.append(cite(ev))     # torch's hint under a CUDA error already read (or its traceback): its tail
            return
        label = _gpu_error_label(ev)
        if names_the_machine(d):             # its detector (V501, N401) names that cause
            _set_end(st, "comm_error", False, clip(f"{label}: {what}", 160), ev)
            return
        _set_end(st, "crashed", True, clip(f"{label}: {what}", 160), ev)
        return
    if ev.kind == "nccl_error":
        code, last = d.get("code"), d.get("last_error")
        cause = code == "ncclUnhandledCudaError"
        _set_end(st, "crashed" if cause else "comm_error", cause,
                 f"{code or 'NCCL error'}" + (f": {last}" if last else ""), ev)
        return
    if ev.kind == "gloo_error":
        peer = f" ({d.get('peer')})" if d.get("peer") else ""
        _set_end(st, "comm_error", False, f"gloo {str(d.get('category')).replace('_', ' ')}{peer}", ev)
        return
    if ev.kind in ("watchdog_timeout", "fingerprint_mismatch"):
        what = "watchdog timeout" if ev.kind == "watchdog_timeout" else "DETAIL fingerprint mismatch"
        at = f" at seq {d['seq']}" if d.get("seq") is not None else ""   # torch < 1.10 prints no SeqNum
        _set_end(st, "comm_error", False, what + at, ev)
        return
    if ev.kind == "traceback" and not d.get("exc_type") and not d.get("message"):
        st.evidence.append(cite(ev))       # cut before its exception line: it says where, not what or why
        return
    message = _exception_said(d.get("exc_type"), d.get("message"), ev.text)
    # it reports other ranks (a barrier naming who never came, DDP's parameter check across ranks), in a traceback or
    # as a bare exception line the catalogue read
    own = d.get("category") in OWN_PROCESS       # its own process's failure (its DataLoader), whatever the words
    comm = ev.kind != "traceback" and ev.kind != "error_json" or not own and any(k in message for k in _COMM_EXC) \
        or bool(d.get("reports_others")) or d.get("implies") in REPORTS_OTHERS
    if comm:
        _set_end(st, "comm_error", False, clip(message.strip(": "), 160), ev)
    elif d.get("category") == USAGE_ERROR:
        # the distributed API refused the program or its launch (catalogue category usage_error): every rank that
        # gets there raises it, so the rank that did is no cause of its own
        _set_end(st, "exception", False, clip(message.strip(": "), 160), ev)
    else:
        _set_end(st, "exception", True, clip(message.strip(": "), 160), ev)


def _exception_said(exc_type: str | None, message: str | None, text: str) -> str:
    """`Type: message`; an exception with no message is its type alone (`EOFError`, not `EOFError: [rank2]: EOFError`:
    the line's text repeats the type behind its wrapper); with neither, the line's text."""
    if message:
        return f"{exc_type or ''}: {message}"
    return exc_type or text


_END_RANK = {"oom_killed": 0, "oom": 1, "killed": 2, "crashed": 3, "exception": 4, "comm_error": 5,
             "aborted": 6, "terminated": 7, "exited": 8}


def _set_end(st: RankState, end: str, cause: bool, detail: str, ev: Event, usage: bool = False) -> None:
    """Keep the most telling end: a cause beats a consequence; the first of equal rank wins."""
    st.evidence.append(cite(ev))
    if st.end is None or _END_RANK[end] < _END_RANK[st.end]:
        st.end, st.cause, st.end_detail, st.end_kind, st.usage = end, cause, detail, ev.kind, usage
