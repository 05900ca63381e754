"""PyTorch: c10d (ProcessGroupNCCL watchdog and heartbeat monitor, NCCLUtils, ProcessGroupWrapper's DETAIL
fingerprints, monitoredBarrier, TCPStore, the DDP reducer) and the CUDA/HIP/CPU allocators' OOM messages.

Read in pytorch/pytorch: torch/csrc/distributed/c10d/{ProcessGroupNCCL.cpp, NCCLUtils.hpp, ProcessGroupWrapper.cpp,
ProcessGroupGloo.cpp, TCPStore.cpp, TCPStoreLibUvBackend.cpp, socket.cpp, reducer.cpp}, c10/cuda/CUDACachingAllocator.cpp,
c10/core/CPUAllocator.cpp, torch/distributed/distributed_c10d.py; git history for the 1.x wordings. The distributed
API's usage and setup errors from torch/distributed/{distributed_c10d.py, rendezvous.py, device_mesh.py,
tensor/_api.py, fsdp/, pipelining/_utils.py, checkpoint/api.py}, torch/nn/parallel/distributed.py and
torch/csrc/distributed/rpc/tensorpipe_agent.cpp.
"""
from __future__ import annotations

from . import Message as M

# the store's own words for a wait that timed out (TCPStore.cpp doWait, then the 2.x `wait timeout after`; 1.x's
# `Timeout waiting for key`)
_STORE_TIMEOUT = r"Timeout waiting for key|wait timeout after|Wait timeout|Socket Timeout"
_PG = "pytorch:torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp"
_C10D = "pytorch:torch/distributed/distributed_c10d.py"
_USAGE = {"category": "usage_error"}   # the program or its launch is wrong the same way on every rank
_OP = r"(?P<op>_?[A-Z][A-Z_]*)"
_SIZE = r"[\d.]+ (?:bytes|KiB|MiB|GiB|TiB|PiB)"

MESSAGES = [
    # ---- the NCCL watchdog (1.8+; `[Rank N] ` / `[PG 0 Rank N] ` / `[PG ID 0 PG GUID 0(default_pg) Rank N] ` before it)
    M("pytorch.watchdog_timeout",
      # 1.x also printed "Caught collective operation timeout: WorkNCCL(OpType=..." (no "Watchdog", no SeqNum); the
      # first release of each form is not checked against torch's history here (too large to mirror)
      # a pasted record may have fields the page or user elided before OpType (`WorkNCCL(..., OpType=`)
      r"(?:Watchdog c|C)aught collective operation timeout: WorkNCCL\((?:SeqNum=(?P<seq>\d+), )?(?:[^()]*?, )?OpType="
      + _OP +
      r"(?:, (?:NumelIn|TensorShape)=(?P<numel_in>\d+|\[[\d, ]*\]))?(?:, NumelOut=(?P<numel_out>\d+))?"
      r"(?:, Timeout\(ms\)=(?P<timeout_ms>\d+))?\)?(?: ran for (?P<elapsed_ms>\d+) milliseconds)?",
      "watchdog_timeout", "failure", "timeout_unknown", "1.8 - 2.13",
      _PG + ":WorkNCCL::checkTimeout",
      "[Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=880, OpType=BROADCAST, NumelIn=1, "
      "NumelOut=1, Timeout(ms)=1800000) ran for 1800875 milliseconds before timing out.",
      "[Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=880, OpType=BROADCAST",
      anchor="aught collective operation timeout"),
    # The same record without its head: checkTimeout prints the work (`WorkNCCL(...)`, operator<<) and then
    # ` ran for N milliseconds before timing out.` in every version, so the record with that tail is the watchdog's
    # timeout even where a paste lost or garbled the words before it (another process's output spliced into the
    # line, a wrap). It ends where watchdog_timeout ends, so on a whole line that entry's hit holds this one.
    M("pytorch.watchdog_timeout_record",
      r"WorkNCCL\((?:SeqNum=(?P<seq>\d+), )?(?:[^()]*?, )?OpType=" + _OP +
      r"(?:, (?:NumelIn|TensorShape)=(?P<numel_in>\d+|\[[\d, ]*\]))?(?:, NumelOut=(?P<numel_out>\d+))?"
      r"(?:, Timeout\(ms\)=(?P<timeout_ms>\d+))?\) ran for (?P<elapsed_ms>\d+) milliseconds(?= before timing out)",
      "watchdog_timeout", "failure", "timeout_unknown", "1.8 - 2.13", _PG + ":WorkNCCL::checkTimeout",
      "WorkNCCL(SeqNum=27732, OpType=_REDUCE_SCATTER_BASE, NumelIn=215585536, NumelOut=26948192, "
      "Timeout(ms)=1800000) ran for 1800003 milliseconds before timing out.",
      "WorkNCCL(SeqNum=27732, OpType=_REDUCE_SCATTER_BASE, NumelIn=215585536, NumelOut=26948192, "
      "Timeout(ms)=1800000) ran for 1800003 milliseconds before timing out",
      anchor="milliseconds before timing out"),
    # TORCH_NCCL_BLOCKING_WAIT=1 (NCCL_BLOCKING_WAIT before 2.2): the timeout is caught by the caller's wait()
    # (WorkNCCL::synchronizeInternal), not by the watchdog, and raised with logPrefix() (`[Rank N] `, 2.2+
    # `[PG 0 Rank N] `) before `Work WorkNCCL(...)`; the env var in parentheses changed with its name and is gone
    # in the newest (`timed out in blocking wait.`). 1.x aborted the communicators with `timed out in call to
    # wait()` as the reason (quoted later by `NCCL communicator was aborted`). The same record as watchdog_timeout.
    M("pytorch.blocking_wait_timeout",
      r"Work WorkNCCL\((?:SeqNum=(?P<seq>\d+), )?(?:[^()]*?, )?OpType=" + _OP +
      r"(?:, (?:NumelIn|TensorShape)=(?P<numel_in>\d+|\[[\d, ]*\]))?(?:, NumelOut=(?P<numel_out>\d+))?"
      r"(?:, Timeout\(ms\)=(?P<timeout_ms>\d+))?\)? timed out in (?:blocking wait|call to wait\(\))",
      "watchdog_timeout", "failure", "timeout_unknown", "1.8 - 2.13 (first release of each wording not checked)",
      _PG + ":WorkNCCL::synchronizeInternal",
      "[PG 0 Rank 2] Work WorkNCCL(SeqNum=57, OpType=ALLREDUCE, NumelIn=4096, NumelOut=4096, Timeout(ms)=300000) "
      "timed out in blocking wait (TORCH_NCCL_BLOCKING_WAIT=1).",
      "[PG 0 Rank 2] Work WorkNCCL(SeqNum=57, OpType=ALLREDUCE, NumelIn=4096, NumelOut=4096, Timeout(ms)=300000) "
      "timed out in blocking wait",
      data={"context": "blocking_wait"}, anchor="timed out in blocking wait|timed out in call to wait()"),
    # a communicator created nonblocking (TORCH_NCCL_USE_COMM_NONBLOCKING, or eager init with a device_id) that did
    # not finish initialising (or aborting) within TORCH_NCCL_NONBLOCKING_TIMEOUT: NCCLUtils' C10D_NCCL_CHECK_TIMEOUT
    # family and NCCLComm::waitUntilInitialized raise `NCCL timeout in: <file>:<line>` (the macros with a result add
    # `, <ncclGetErrorWithVersion>` and the detail string); raised as DistBackendError, NCCLFaultToleranceError in the
    # newest. The ranks' bootstrap waits for every rank, so a rank that never joined (or a setup that hangs) is it.
    M("pytorch.nccl_nonblocking_timeout",
      # (the releases whose waitUntilInitialized raised its own words say `NCCL timeout in communicator
      # initialization.`: read in the NCCLUtils.cpp that also holds the flight recorder's dump handlers, 2.4 - 2.5)
      (r"NCCL timeout in(?:: (?P<src_file>[^\s:,]+):(?P<src_line>\d+)| communicator initialization\b)",
       r", (?P<reason>[^\n]+)"),
      "watchdog_timeout", "failure", "timeout_unknown", "2.0 - 2.13 (first release of each macro not checked; "
      "`NCCL timeout in communicator initialization.` in the 2.4 - 2.5 NCCLUtils.cpp)",
      "pytorch:torch/csrc/distributed/c10d/NCCLUtils.hpp:C10D_NCCL_CHECK_TIMEOUT; NCCLUtils.cpp:"
      "NCCLComm::waitUntilInitialized",
      "torch.distributed.DistBackendError: NCCL timeout in: /pytorch/torch/csrc/distributed/c10d/NCCLUtils.cpp:125",
      "NCCL timeout in: /pytorch/torch/csrc/distributed/c10d/NCCLUtils.cpp:125", data={"context": "comm_init"},
      anchor="NCCL timeout in: |NCCL timeout in communicator initialization"),
    M("pytorch.async_error_teardown",
      r"Some NCCL operations have failed or timed out\. Due to the asynchronous nature of CUDA kernels",
      "comm_abort", "consequence", None, "1.10 - 2.13", _PG + ":WorkNCCL::handleException",
      "[E ProcessGroupNCCL.cpp:455] Some NCCL operations have failed or timed out. Due to the asynchronous nature of "
      "CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.",
      "Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels",
      data={"context": "teardown"}),
    M("pytorch.taking_process_down",
      r"To avoid data inconsistency, we are taking the entire process down",
      "comm_abort", "consequence", None, "1.10 - 2.13", _PG + ":WorkNCCL::handleException",
      "[E ProcessGroupNCCL.cpp:460] To avoid data inconsistency, we are taking the entire process down.",
      "To avoid data inconsistency, we are taking the entire process down", data={"context": "teardown"}),
    M("pytorch.watchdog_terminated",
       (r"(?:Process group|NCCL) watchdog thread terminated with exception:", r" (?P<reason>.+)"),
      "comm_abort", "failure", None, "2.0 - 2.13", _PG + ":ProcessGroupNCCL::ncclCommWatchdog",
      "[PG 0 Rank 7] Process group watchdog thread terminated with exception: CUDA error: an illegal memory access "
      "was encountered",
      "[PG 0 Rank 7] Process group watchdog thread terminated with exception:", data={"context": "watchdog"}),
    M("pytorch.watchdog_terminated_timeout_cut",
      # the exception the watchdog ends with, cut right after its first word: the message is logPrefix() (`[Rank N] `,
      # 2.2+ `[PG ID 0 PG GUID 0 Rank N] `) then the words; of the watchdog's exceptions only checkTimeout's begins
      # with `Watchdog` (NCCL and CUDA errors begin `NCCL error` / `CUDA error`). The uncut line is watchdog_timeout.
      r"(?:Process group|NCCL) watchdog thread terminated with exception: \[(?:PG [^\]]*?)?Rank (?P<rank>\d+)\] "
      r"Watchdog(?! caught collective operation timeout)",
      "watchdog_timeout", "failure", "timeout_unknown", "2.0 - 2.13", _PG + ":WorkNCCL::checkTimeout",
      "[PG ID 1 PG GUID 1 Rank 4] Process group watchdog thread terminated with exception: [Rank 4] Watchdog",
      "[PG ID 1 PG GUID 1 Rank 4] Process group watchdog thread terminated with exception: [Rank 4] Watchdog",
      anchor=" watchdog thread terminated with exception: ["),
    # the backtrace of the watchdog's own terminating exception: from 2.2 ncclCommWatchdog's catch rethrows the
    # `... watchdog thread terminated with exception: <why>` message as C10_BUILD_ERROR(DistBackendError), so its
    # c10::Error backtrace heads with the catching function (ProcessGroupNCCL.cpp:1186 in 2.2 to :1905 in 2.7; 2.8+
    # moved the loop into Watchdog::run). The watchdog ended the process for an error or a timeout it does not say
    # where the message above it was cut away (a launcher's capture that kept only the backtrace)
    M("pytorch.watchdog_terminated_raised_from",
      r"Exception raised from ncclCommWatchdog at \S*ProcessGroupNCCL\.cpp:\d+",
      "comm_abort", "failure", None, "2.2 - 2.7", _PG + ":ProcessGroupNCCL::ncclCommWatchdog (c10::Error)",
      "Exception raised from ncclCommWatchdog at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1521 (most recent "
      "call first):", "Exception raised from ncclCommWatchdog at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1521",
      data={"context": "backtrace"}, anchor="Exception raised from ncclCommWatchdog"),
    # c10::Error's own backtrace of that exception: `Exception raised from <function> at <file>:<line>` heads it, and
    # its frames start with the error's constructor (#0) then the function that built it (#1). WorkNCCL::checkTimeout
    # builds one error only, the watchdog timeout (C10_BUILD_ERROR(DistBackendError, ...); a std::runtime_error with
    # no backtrace before): either line says the watchdog timed out where the message itself was cut off above it.
    M("pytorch.watchdog_timeout_raised_from",
      r"Exception raised from checkTimeout at \S*ProcessGroupNCCL\.cpp:\d+",
      "watchdog_timeout", "failure", "timeout_unknown", "2.1 - 2.13", _PG + ":WorkNCCL::checkTimeout (c10::Error)",
      "Exception raised from checkTimeout at /pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:632 (most "
      "recent call first):", "Exception raised from checkTimeout at /pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:632",
      data={"context": "backtrace"}, anchor="Exception raised from checkTimeout"),
    M("pytorch.watchdog_timeout_frame",
      r"frame #1: c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout\(",
      "watchdog_timeout", "failure", "timeout_unknown", "2.1 - 2.13", _PG + ":WorkNCCL::checkTimeout (c10::Error)",
      "frame #1: c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long, "
      "std::ratio<1l, 1000l> > >) + 0x1d2 (0x7fc41835c897 in /usr/lib/python3.10/site-packages/torch/lib/libtorch_cuda.so)",
      "frame #1: c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(", data={"context": "backtrace"},
      anchor="frame #1: c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout("),
    # the heartbeat monitor polls the store for a peer's dump signal; when the store's server is gone (its host, rank
    # 0's process or node 0's torchrun agent, has exited: at a job's end as often as in a crash) each poll warns
    # this, after c10d's own `sendBytes/recvValue failed on SocketImpl(...)` warning, and the rank goes on: the
    # store's end, not the network's, and no failure of the rank's own (network_error.py reads it so)
    # a communicator made without a device_id (init_process_group's, or a barrier's before any collective): the rank
    # takes the GPU its global rank modulo the GPUs per host names (guessDeviceId) and says so; the run goes on, and
    # the hang it warns of shows only where ranks map to GPUs unevenly (its own words mention a hang: no failure)
    M("pytorch.guessing_device_id",
      r"Guessing device ID based on global rank", "c10d_log", "benign", None, "2.4 - 2.9 (first release not checked)",
      _PG + ":ProcessGroupNCCL::guessDeviceId",
      "[rank1]:[W1127 02:40:11.124017330 ProcessGroupNCCL.cpp:5138] Guessing device ID based on global rank. This can "
      "cause a hang if rank to GPU mapping is heterogeneous. You can specify device_id in init_process_group()",
      "Guessing device ID based on global rank"),
    M("pytorch.should_dump_check_failed",
      (r"Failed to check the \"should dump\" flag on TCPStore", r", \(maybe TCPStore server has shut down too early\)",
       r", with error: (?P<reason>[^\n]+)"),
      "c10d_log", "benign", None, "2.3 - 2.13 (first release not checked)",
      _PG + ":HeartbeatMonitor::runLoop",
      "[rank2]:[W1126 10:17:38.040221001 ProcessGroupNCCL.cpp:1771] [PG ID 0 PG GUID 0 Rank 2] Failed to check the "
      "\"should dump\" flag on TCPStore, (maybe TCPStore server has shut down too early), with error: Broken pipe",
      "Failed to check the \"should dump\" flag on TCPStore", data={"context": "store_gone"}),
    M("pytorch.heartbeat_timeout",
       (r"Heartbeat monitor timed out!", r" Process will be terminated after dumping debug info"),
      "heartbeat", "failure", "stuck_rank", "2.3 - 2.13", _PG + ":HeartbeatMonitor::runLoop",
      "[PG 0 Rank 2] Heartbeat monitor timed out! Process will be terminated after dumping debug info. "
      "workMetaList_.size()=2",
      "Heartbeat monitor timed out!"),
    M("pytorch.watchdog_stuck",
      # torch's forks for other devices (ProcessGroupHCCL, ProcessGroupXCCL, ...) print the same words
      r"ProcessGroup[A-Z]+'s watchdog got stuck for (?P<timeout_s>\d+) seconds without making progress",
      "heartbeat", "failure", "stuck_rank", "2.3 - 2.13", _PG + ":HeartbeatMonitor::runLoop",
      "ProcessGroupNCCL's watchdog got stuck for 480 seconds without making progress in monitoring enqueued "
      "collectives.",
      "ProcessGroupNCCL's watchdog got stuck for 480 seconds without making progress"),
    M("pytorch.failure_detected_by_watchdog",
      r"Exception \(either an error or timeout\) detected by watchdog at work: (?P<seq>\d+)"
      r"(?:, last enqueued NCCL work: (?P<last_enqueued>-?\d+))?(?:, last completed NCCL work: (?P<last_completed>-?\d+))?",
      "work_status", "failure", None, "2.2 - 2.13", _PG + ":ProcessGroupNCCL::watchdogHandler",
      "[PG 0 Rank 6] Exception (either an error or timeout) detected by watchdog at work: 3, last enqueued NCCL "
      "work: 3, last completed NCCL work: 2.",
      "Exception (either an error or timeout) detected by watchdog at work: 3",
      data={"trigger": "failure_detected"}),
    M("pytorch.timeout_at_work",
      r"Timeout at NCCL work: (?P<seq>\d+)(?:, last enqueued NCCL work: (?P<last_enqueued>-?\d+))?"
      r"(?:, last completed NCCL work: (?P<last_completed>-?\d+))?",
      "work_status", "failure", None, "2.2 - 2.13", _PG + ":ProcessGroupNCCL::watchdogHandler",
      "[PG 3 Rank 1] Timeout at NCCL work: 12, last enqueued NCCL work: 12, last completed NCCL work: 11.",
      "Timeout at NCCL work: 12", data={"trigger": "timeout"}),
    # main between the 2.5 and 2.6 releases (the 2.6.0.dev nightlies of late 2024; no release prints them: 2.5 has
    # the `Exception (either ...)`/`Timeout at NCCL work` pair, 2.6 `failure detected by watchdog`) split the watchdog's
    # line by cause: checkTimeout's timeout, or an NCCL error checkAndSetException found (its text is the watchdog's
    # exception, logged after it; this line says only that one happened)
    M("pytorch.work_timeout_detected",
      r"Work timeout is detected by watchdog at work: (?P<seq>\d+)(?:, last enqueued NCCL work: (?P<last_enqueued>-?\d+))?"
      r"(?:, last completed NCCL work: (?P<last_completed>-?\d+))?",
      "work_status", "failure", None, "2.6.0.dev nightlies (main, late 2024)", _PG + ":ProcessGroupNCCL::watchdogHandler",
      "[PG ID 0 PG GUID 0(default_pg) Rank 3] Work timeout is detected by watchdog at work: 41, last enqueued NCCL "
      "work: 41, last completed NCCL work: 40.",
      "Work timeout is detected by watchdog at work: 41", data={"trigger": "timeout"}),
    M("pytorch.nccl_error_detected",
      r"NCCL error is detected by watchdog at work: (?P<seq>\d+)(?:, last enqueued NCCL work: (?P<last_enqueued>-?\d+))?"
      r"(?:, last completed NCCL work: (?P<last_completed>-?\d+))?",
      "work_status", "failure", None, "2.6.0.dev nightlies (main, late 2024)", _PG + ":ProcessGroupNCCL::watchdogHandler",
      "[PG ID 0 PG GUID 0(default_pg) Rank 2] NCCL error is detected by watchdog at work: 1203, last enqueued NCCL "
      "work: 1204, last completed NCCL work: 1202.",
      "NCCL error is detected by watchdog at work: 1203", data={"trigger": "nccl_error"}),
    M("pytorch.dump_signal",
       (r"Received a dump signal",
        r" (?:due to a collective timeout )?from\s+(?:this local rank|rank (?P<signal_from_rank>\d+))"),
      "work_status", "consequence", None, "2.4 - 2.13", _PG + ":ProcessGroupNCCL::watchdogHandler",
      "[PG 0 Rank 3] Received a dump signal due to a collective timeout from  rank 6 and we will try our best to "
      "dump the debug info.", "Received a dump signal",
      data={"trigger": "dump_signal"}, anchor="Received a dump signal"),
    # TORCH_NCCL_PROPAGATE_ERROR=1: a rank whose watchdog found its work failed (an NCCL error or its timeout) writes
    # its rank under the group's `remote_error:<pg uid>` key; the other ranks' watchdogs read it (checkAndSetRemoteError)
    # and log the rank, before their own collectives fail or time out. The first rank of that group to fail, named from
    # the others' logs (its own may be missing)
    M("pytorch.remote_error_detected",
      r"remote error detected from rank: (?P<error_from_rank>\d+)",
      "c10d_log", "consequence", None, "2.7 - 2.13 (TORCH_NCCL_PROPAGATE_ERROR; first release not checked)",
      _PG + ":ProcessGroupNCCL::Watchdog::checkAndSetRemoteError",
      "[PG ID 0 PG GUID 0(default_pg) Rank 1]  remote error detected from rank: 5",
      "remote error detected from rank: 5"),
    # ---- NCCLUtils: NCCL result codes as torch raises them (1.x "NCCL error in: file:line, <text>")
    M("pytorch.nccl_error_in",
      r"NCCL error in: (?P<where>[^,]+), (?P<reason>[^,]+?)(?:, NCCL version (?P<version>[\d.]+))?"
      r"(?:\s+(?P<code>nccl[A-Z]\w+))?(?:.*?Last error:\s*(?P<last_error>.+))?",
      "nccl_error", "failure", None, "1.6 - 2.13", "pytorch:torch/csrc/distributed/c10d/NCCLUtils.hpp:C10D_NCCL_CHECK",
      "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:317, unhandled "
      "system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.20.5",
      "NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:317, unhandled system error",
      anchor="NCCL error in:"),
    # ncclGetErrorString's text after `NCCL error: `: torch's watchdog (ProcessGroupNCCL checkForNCCLErrors, then
    # `, NCCL version x.y.z`) and the ctypes wrappers of vLLM (0.4.1+) and SGLang (pynccl_wrapper.py NCCL_CHECK:
    # `RuntimeError: NCCL error: {ncclGetErrorString(result)}`, no version, no `Last error:`). ncclRemoteError's text
    # (NCCL 2.13+) says what nccl.remote_error says: a peer's connection failed, its process gone or the network.
    M("pytorch.nccl_error_remote",
      r"NCCL error: (?P<reason>remote process exited or there was a network error)",
      "nccl_error", "failure", "network_error", "torch 1.13 - 2.13 (watchdog), vLLM 0.4.1+, SGLang (pynccl); NCCL "
      "2.13 - 2.30 texts", "pytorch:torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:checkForNCCLErrorsInternal; "
      "vllm:vllm/distributed/device_communicators/pynccl_wrapper.py:NCCL_CHECK",
      "RuntimeError: NCCL error: remote process exited or there was a network error",
      "NCCL error: remote process exited or there was a network error", anchor="NCCL error: "),
    M("pytorch.nccl_error_text",
      r"NCCL error: (?P<reason>unhandled system error|unhandled cuda error|internal error|invalid usage|"
      r"invalid argument)",
      "nccl_error", "failure", None, "torch 1.10 - 2.13 (watchdog), vLLM 0.4.1+, SGLang (pynccl)",
      "pytorch:torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:checkForNCCLErrorsInternal; "
      "vllm:vllm/distributed/device_communicators/pynccl_wrapper.py:NCCL_CHECK",
      "what(): NCCL error: unhandled system error, NCCL version 2.14.3", "NCCL error: unhandled system error",
      anchor="NCCL error: "),
    # torch.cuda.nccl's own check (torch/csrc/cuda/nccl.cpp throw_nccl_error, 0.4 - 2.x: `NCCL Error <number>:
    # <ncclGetErrorString text>`, a runtime_error, from 2.x TORCH_CHECK): nn.DataParallel's broadcast_coalesced and
    # reduce_add, and the C++ extensions that copy the check, print it where c10d's `NCCL error:` would stand
    M("pytorch.cuda_nccl_error",
      r"NCCL Error (?P<result>\d+): (?P<reason>unhandled system error|unhandled cuda error|internal error|"
      r"invalid usage|invalid argument|remote process exited or there was a network error)",
      "nccl_error", "failure", None, "torch 0.4 - 2.13 (torch.cuda.nccl); NCCL 2.x texts",
      "pytorch:torch/csrc/cuda/nccl.cpp:throw_nccl_error",
      "RuntimeError: NCCL Error 1: unhandled cuda error (run with NCCL_DEBUG=INFO for details)",
      "NCCL Error 1: unhandled cuda error", anchor="NCCL Error "),
    M("pytorch.nccl_comm_aborted",
      r"NCCL communicator was aborted on rank (?P<rank>\d+)",
      "comm_abort", "consequence", None, "1.9 - 2.13", _PG + ":WorkNCCL::checkAndSetException",
      "RuntimeError: NCCL communicator was aborted on rank 3.  Original reason for failure was: [Rank 3] Watchdog "
      "caught collective operation timeout", "NCCL communicator was aborted on rank 3"),
    M("pytorch.nccl_comm_aborted_timeout",
      # the abort quotes commFailureReason_ (NCCLUtils getNcclComm): the watchdog's text, a timeout or an NCCL error.
      # A reason in other words than the watchdog record (that one is watchdog_timeout) that says it timed out
      # still proves a timeout on this rank's communicator. An NCCL or CUDA error quoted as the reason is read by its
      # own entries (`Connection timed out` under an NCCL error is the network's, `the launch timed out` the GPU's).
      r"NCCL communicator was aborted on rank (?P<rank>\d+)\.\s+Original reason for failure was: "
      r"(?![^\n]*(?:aught collective operation timeout|NCCL error|CUDA error|[Ll]ast error))"
      r"[^\n]*?\b(?:[Tt]ime(?:d ?|-)?out|TIMEOUT)",
      "watchdog_timeout", "failure", "timeout_unknown", "1.9 - 2.13", _PG + ":NCCLComm::getNcclComm",
      "RuntimeError: NCCL communicator was aborted on rank 2. Original reason for failure was: Timeout at NCCL "
      "work: 12, last enqueued NCCL work: 12, last completed NCCL work: 11.",
      "NCCL communicator was aborted on rank 2. Original reason for failure was: Timeout",
      data={"context": "abort_reason"}, anchor="NCCL communicator was aborted on rank"),
    # ProcessGroupNCCL::abort (destroy_process_group, _abort_process_group, the destructor of a group never destroyed)
    # aborts its communicators on a side thread and waits for it up to the group's timeout (waitForFutureOrTimeout);
    # ncclCommAbort that does not return (a peer gone, a wedged NVLink or GPU) ends the wait with this, logged and, from
    # abort(), raised as DistBackendError. A teardown that hung after the job failed: a consequence, not a cause
    M("pytorch.abort_future_timeout",
      r"Future for ProcessGroup abort timed out after (?P<wait_ms>\d+) ms",
      "comm_abort", "consequence", None, "2.3 - 2.13 (first release not checked; read in a 2.9-era "
      "ProcessGroupNCCL.cpp)", _PG + ":ProcessGroupNCCL::waitForFutureOrTimeout (from abort())",
      "[rank3]:[E813 12:26:00.651268916 ProcessGroupNCCL.cpp:1321] [PG ID 1 PG GUID 1 Rank 3] Future for ProcessGroup "
      "abort timed out after 600000 ms", "Future for ProcessGroup abort timed out after 600000 ms",
      data={"context": "abort_hang"}),
    # ---- ProcessGroupWrapper (TORCH_DISTRIBUTED_DEBUG=DETAIL)
    M("pytorch.detail_mismatch",
       (r"Detected mismatch between collectives on ranks\.",
        r" Rank (?P<rank>\d+) is running collective: CollectiveFingerPrint\(",
        r"(?:SequenceNumber=(?P<seq>\d+),? ?)?",
            r"OpType=(?P<op>_?[A-Z][A-Z_]*)", r", TensorShape=\[(?P<shape>[\d, ]*)\]",
             r".*?, but Rank (?P<other_rank>\d+) "
            r"is running collective: CollectiveFingerPrint\(", r"(?:SequenceNumber=(?P<other_seq>\d+),? ?)?",
            r"OpType=(?P<other_op>_?[A-Z][A-Z_]*)", r", TensorShape=\[(?P<other_shape>[\d, ]*)\]"),
      "fingerprint_mismatch", "failure", "collective_mismatch", "1.10 - 2.13",
      "pytorch:torch/csrc/distributed/c10d/ProcessGroupWrapper.cpp:ProcessGroupWrapper::runCollectiveChecks",
      "RuntimeError: Detected mismatch between collectives on ranks. Rank 1 is running collective: "
      "CollectiveFingerPrint(SequenceNumber=0, OpType=_ALLGATHER_BASE, TensorShape=[359, 1, 1435, 16], "
      "TensorDtypes=BFloat16, TensorDeviceTypes=TensorOptions(dtype=float (default), device=cuda)), but Rank 2 is "
      "running collective: CollectiveFingerPrint(SequenceNumber=0, OpType=_ALLGATHER_BASE, TensorShape=[359, 1, "
      "1436, 16], TensorDtypes=BFloat16, TensorDeviceTypes=TensorOptions(dtype=float (default), device=cuda)).",
      "Detected mismatch between collectives on ranks."),
    M("pytorch.monitored_barrier_failed",
       (r"Ranks? (?P<ranks>\d+(?:, ?\d+)*) failed to pass monitoredBarrier", r" in (?P<timeout_ms>\d+) ms"),
      "monitored_barrier", "failure", "missing_rank", "1.10 - 2.13",
      "pytorch:torch/csrc/distributed/c10d/ProcessGroupGloo.cpp:ProcessGroupGloo::monitoredBarrier",
      "RuntimeError: Rank 6 failed to pass monitoredBarrier in 1800000 ms", "Rank 6 failed to pass monitoredBarrier",
      # only rank 0 waits for the others (every other rank sends to it and waits for its answer), so rank 0 is the
      # one that reports, in every version, with or without the `[Rank 0]: ` the message carries since 2.0
      data={"state": "failed", "reporter_rank": 0}),
    # a non-zero rank's side of the same barrier: its send/recv with rank 0 failed (rank 0 raised or died); the
    # message names rank 0 as the faulty one
    M("pytorch.monitored_barrier_peer_error",
       (r"Rank (?P<rank>\d+) successfully reached monitoredBarrier, but received errors while waiting for send/recv "
        r"from rank (?P<ranks>\d+)", r"\. Please check rank \d+ logs for faulty rank"),
      "monitored_barrier", "failure", "missing_rank", "1.10 - 2.13",
      "pytorch:torch/csrc/distributed/c10d/ProcessGroupGloo.cpp:ProcessGroupGloo::monitoredBarrier",
      "RuntimeError: Rank 1 successfully reached monitoredBarrier, but received errors while waiting for send/recv from "
      "rank 0. Please check rank 0 logs for faulty rank.",
      "Rank 1 successfully reached monitoredBarrier, but received errors while waiting for send/recv from rank 0",
      data={"state": "peer_error"}, anchor="successfully reached monitoredBarrier"),
    # ---- TCPStore / rendezvous
    # 1.9 - 1.10 joined `store based` and `barrier` with no space (`store basedbarrier`); 2.1+ raises DistStoreError
    # with `on rank N` and `num_workers_joined`
    M("pytorch.store_barrier_timeout",
       (r"Timed out initializing process group in store based ?barrier on rank:? (?P<rank>\d+)",
        r", for key: \S+ \(world_size=(?P<nranks>\d+), (?:worker_count|num_workers_joined)=(?P<count>\d+)"),
      "dist_backend_error", "failure", "missing_rank", "1.9 - 2.0", "pytorch:torch/distributed/distributed_c10d.py:"
      "_store_based_barrier",
      "RuntimeError: Timed out initializing process group in store based barrier on rank: 3, for key: "
      "store_based_barrier_key:1 (world_size=8, worker_count=7, timeout=0:30:00)",
      "Timed out initializing process group in store based barrier on rank: 3",
      anchor="Timed out initializing process group in store based"),
    M("pytorch.store_clients_timeout",
      # `workers` in the wording pytorch#111805 printed for the TCPStore server's wait; the count alone (a paste that
      # keeps only `N/M clients joined`) decides it as well
      r"Timed out after (?P<seconds>\d+) seconds waiting for (?:clients|workers)\.(?: (?P<count>\d+)/(?P<nranks>\d+) "
      r"(?:clients|workers) joined)?|(?P<count2>\d+)/(?P<nranks2>\d+) (?:clients|workers) joined",
      "dist_backend_error", "failure", "missing_rank", "2.0 - 2.13", "pytorch:torch/distributed/elastic/utils/store.py; "
      "torch/csrc/distributed/c10d/TCPStore.cpp (server waiting for workers, pytorch#111805)",
      "torch.distributed.DistStoreError: Timed out after 901 seconds waiting for clients. 7/8 clients joined.",
      "Timed out after 901 seconds waiting for clients.",
      anchor="waiting for clients|waiting for workers|clients joined|workers joined"),
    # SocketConnectOp::throwTimeoutError formats the connect timeout with fmt's chrono (`900s` where it is
    # std::chrono::seconds, `600000ms` where milliseconds); C10D_ERROR logs it before the exception carries it, and a
    # paste that redacts the address keeps the words before it
    M("pytorch.store_connect_timeout",
       (r"The client socket has timed out after (?P<timeout>\d+(?:ms|s)?) while trying to connect",
        r" to", r" \((?P<peer>[^)]*)\)"),
      "dist_backend_error", "failure", "network_error", "2.0 - 2.13", "pytorch:torch/csrc/distributed/c10d/socket.cpp:"
      "SocketConnectOp::throwTimeoutError",
      "torch.distributed.DistNetworkError: The client socket has timed out after 900s while trying to connect to "
      "(10.0.0.1, 29500).", "The client socket has timed out after 900s while trying to connect"),
    # the store's address did not resolve: tcputil::connect (torch/lib/c10d/Utils.cpp 1.0 - 1.7,
    # torch/csrc/distributed/c10d/Utils.cpp 1.8 - 1.10) throws std::invalid_argument("host not found: " +
    # gai_strerror(err)), which Python sees as ValueError; socket.cpp (pytorch#68226) replaced it in 1.11, where the
    # same cause ends in `failed to connect to any network address` (pytorch.client_connect_failed)
    # the same tcputil::connect when its deadline passes before the store answered (poll timed out, or every retry
    # of a refused/reset connect used up the timeout): std::runtime_error(kConnectTimeoutMsg), 1.0 - 1.10
    M("pytorch.store_connect_timeout_1x",
      r"(?<![\w.])connect\(\) timed out\.",
      "dist_backend_error", "failure", "network_error", "1.0 - 1.10",
      "pytorch:torch/csrc/distributed/c10d/Utils.cpp:tcputil::connect (torch/lib/c10d/Utils.cpp before 1.8)",
      "RuntimeError: connect() timed out.", "connect() timed out.", data={"category": "store_connect"},
      anchor="connect() timed out."),
    M("pytorch.store_host_not_found",
      r"host not found: (?P<reason>Name or service not known|Temporary failure in name resolution|"
      r"No address associated with hostname|Servname not supported for ai_socktype|"
      r"Address family for hostname not supported|Name has no usable address|Unknown error)",
      "dist_backend_error", "failure", "network_error", "1.0 - 1.10",
      "pytorch:torch/csrc/distributed/c10d/Utils.cpp:tcputil::connect (torch/lib/c10d/Utils.cpp before 1.8)",
      "ValueError: host not found: Name or service not known", "host not found: Name or service not known",
      data={"category": "store_resolve"}, anchor="host not found: "),
    # The libuv store server (LibUVStoreDaemon::onConnect, the default server from 2.4) could not accept a client's
    # connection (uv_accept's error: EMFILE when the store's host is out of file descriptors): that client never
    # joins, and the ranks' store waits then time out as if a rank never arrived
    M("pytorch.store_accept_failed",
      (r"Failed to accept client due to Failed to accept socket\.", r" code: (?P<code>-?\d+), name: (?P<errno>\w+)"),
      "dist_backend_error", "failure", None, "2.4 - 2.10 (libuv TCPStore server)",
      "pytorch:torch/csrc/distributed/c10d/TCPStoreLibUvBackend.cpp:LibUVStoreDaemon::onConnect",
      "[W1127 01:02:11.004118220 TCPStoreLibUvBackend.cpp:1143] [c10d] Failed to accept client due to Failed to accept "
      "socket. code: -24, name: EMFILE, message: too many open files",
      "Failed to accept client due to Failed to accept socket.", data={"category": "store_refused"},
      anchor="Failed to accept client due to"),
    # the store's server could not take its port: socket.cpp's SocketListenOp (`failed to listen on any local network
    # address`, then each address's `failed to bind to ADDR (errno: ...)`), and the libuv server (UvTcpServer,
    # TCPStoreLibUvBackend.cpp: `failed to bind. [port: N, ]useIpv6: ..., code: ..., name: EADDRINUSE, ...`, tried for
    # IPv6, then IPv4; `failed to listen on provided socket` for an inherited fd)
    M("pytorch.store_addr_in_use",
      r"The server socket has failed to (?:listen on any local network address|bind to|bind\. (?:port|useIpv6): |"
      r"listen on provided socket)",
      "dist_backend_error", "failure", None, "2.0 - 2.13 (socket.cpp); libuv server 2.2 - 2.13 (default from 2.4; "
      "`port: N, ` in the newer ones; first of each not checked)", "pytorch:torch/csrc/distributed/c10d/socket.cpp:SocketListenOp; "
      "TCPStoreLibUvBackend.cpp:UvTcpServer::makeWithPort",
      "torch.distributed.DistNetworkError: The server socket has failed to listen on any local network address. "
      "port: 29500, useIpv6: 0, code: -98, name: EADDRINUSE, message: address already in use",
      "The server socket has failed to listen on any local network address", data={"category": "store_listen"}),
    # LibUVStoreDaemon::init tries IPv6 first and logs its failure (INFO) before it binds IPv4: a host without IPv6
    # prints it on every healthy start; only the IPv4 bind's failure (raised) is one
    M("pytorch.store_ipv6_fallback",
      r"Failed to bind to ipv6 address, trying ipv4\. Error: [^\n]*",
      "dist_backend_error", "benign", None, "2.4 - 2.13 (libuv server; first release not checked)",
      "pytorch:torch/csrc/distributed/c10d/TCPStoreLibUvBackend.cpp:LibUVStoreDaemon::init",
      "[I1127 09:12:01.530218311 TCPStoreLibUvBackend.cpp:1177] [c10d] Failed to bind to ipv6 address, trying ipv4. "
      "Error: The server socket has failed to bind. port: 29500, useIpv6: 1, code: -97, name: EAFNOSUPPORT, message: "
      "address family not supported", "Failed to bind to ipv6 address, trying ipv4. Error: "),
    M("pytorch.store_connection_reset",
      # the client's call that failed (TCPStore.cpp 2.4+ logs it, then rethrows); one that read the end of the stream
      # is store_peer_closed's
      r"(?:recvValue|recvBytes|sendBytes|recvVector|recvValueWithTimeout) failed on SocketImpl\(fd=\d+, "
      r"addr=(?P<peer>[^)]*)\)(?!: [Ff]ailed to recv, got 0 bytes)|"
      r"Connection reset by peer \(this error originated at tensorpipe",
      "dist_backend_error", "consequence", "network_error", "2.2 - 2.13",
      "pytorch:torch/csrc/distributed/c10d/Utils.hpp:tcputil; TCPStore.cpp:TCPClient",
      "[W1126 10:20:41.464204351 TCPStore.cpp:125] [c10d] recvValue failed on SocketImpl(fd=68, addr=[localhost]:49590, "
      "remote=[localhost]:29500): Broken pipe", "recvValue failed on SocketImpl(fd=68, addr=[localhost]:49590, "
      "remote=[localhost]:29500)", anchor="failed on SocketImpl|originated at tensorpipe"),
    # recv() returned 0 on the store's socket: the end of the stream, which the other end sends when its process
    # closes the socket or ends (the store's host finished or died); a network that failed resets or times out
    # instead (store_connection_reset, socket_system_error). Who ended is not said: no class of its own.
    M("pytorch.store_peer_closed",
      (r"[Ff]ailed to recv, got 0 bytes", r"\. Connection was likely closed\. Did the remote server shutdown or crash\?"),
      "dist_backend_error", "consequence", None, "2.2 - 2.13 (`failed to recv, got 0 bytes` 2.2 - 2.3; capitalised, "
      "with `Connection was likely closed. Did the remote server shutdown or crash?`, 2.4+)",
      "pytorch:torch/csrc/distributed/c10d/Utils.hpp:tcputil::recvBytes",
      "torch.distributed.DistNetworkError: Failed to recv, got 0 bytes. Connection was likely closed. Did the remote "
      "server shutdown or crash?", "Failed to recv, got 0 bytes", anchor="ailed to recv, got 0 bytes"),
    # c10d's socket helpers (SYSCHECK in torch/lib/c10d/Utils.hpp 1.0 - 1.7, torch/csrc/distributed/c10d/Utils.hpp
    # 1.8+) throw std::system_error: Python sees only strerror's text after the exception's name; when one escapes
    # a C++ thread (the TCPStore daemon, a store client in a background thread) std::terminate prints the same text
    # on its `what():` line under `terminate called after throwing an instance of 'std::system_error'`
    M("pytorch.socket_system_error",
      r"(?:RuntimeError|DistNetworkError|DistStoreError): (?P<reason>Connection reset by peer|Connection refused|"
      r"Broken pipe|Connection timed out|No route to host)(?! \(this error originated)|"
      # terminate's line holds what() alone: strerror's text and nothing after it
      r"what\(\): +(?P<reason2>Connection reset by peer|Connection refused|Broken pipe|Connection timed out|"
      r"No route to host)\s*$",
      "dist_backend_error", "consequence", "network_error", "1.0 - 2.13", "pytorch:torch/csrc/distributed/c10d/Utils.hpp:"
      "SYSCHECK (torch/lib/c10d/Utils.hpp before 1.8)", "RuntimeError: Connection reset by peer",
      "RuntimeError: Connection reset by peer", data={"category": "socket"},
      anchor="Connection reset by peer|Connection refused|Broken pipe|Connection timed out|No route to host"),
    # one address of the store's host refused or failed (SocketConnectOp::tryConnect's recordError, a warning): the
    # op goes on to the next address and retries until its deadline; only `failed to connect to any network address`
    # (client_connect_failed) or `has timed out` (store_connect_timeout) ends it. formatSockAddr prints an IPv6
    # address in brackets and an IPv4 one (a name from getnameinfo, or the dotted address) without
    M("pytorch.client_connect_retry",
      r"The client socket has failed to connect to (?:\[(?P<host>[^\]]*)\]|(?P<host2>[\w.-]+)):(?P<store_port>\d+)"
      r"(?: \((?:errno|system error): (?P<errno>\d+) - (?P<reason>[^)]*)\))?",
      "dist_backend_error", "benign", None, "1.13 - 2.13", "pytorch:torch/csrc/distributed/c10d/socket.cpp:SocketConnectOp",
      "[W socket.cpp:601] [c10d] The client socket has failed to connect to [node-1]:29500 (errno: 111 - Connection "
      "refused).", "The client socket has failed to connect to [node-1]:29500",
      anchor="The client socket has failed to connect to"),
    # getaddrinfo failed for the store's host (SocketConnectOp::tryConnect; the family is `IPv6 `/`IPv4 ` or none
    # with AF_UNSPEC). With AI_V4MAPPED|AI_ALL an IPv6 lookup of an IPv4-only name still succeeds, so any printing
    # says the name does not resolve now. The connect loop retries until its deadline, then raises `The client
    # socket has timed out` (store_connect_timeout, the failure); a job whose DNS record appears late (a Kubernetes
    # headless service) prints it and then runs: a retry, not a failure by itself.
    M("pytorch.store_resolve_retry",
      r"The (?:(?P<family>IPv4|IPv6) )?network addresses of \((?P<peer>[^)]*)\) cannot be retrieved"
      r"(?: \(gai error: (?P<errno>-?\d+) - (?P<reason>[^)]*)\))?",
      "dist_backend_error", "benign", None, "1.11 - 2.13", "pytorch:torch/csrc/distributed/c10d/socket.cpp:"
      "SocketConnectOp::tryConnect",
      "[W socket.cpp:601] [c10d] The IPv6 network addresses of (master-0, 29500) cannot be retrieved (gai error: -2 - "
      "Name or service not known).", "The IPv6 network addresses of (master-0, 29500) cannot be retrieved",
      data={"category": "store_resolve"}, anchor="network addresses of ("),
    M("pytorch.client_connect_failed",
      r"The client socket has failed to connect to any network address of \((?P<peer>[^)]*)\)",
      "dist_backend_error", "failure", "network_error", "1.13 - 2.13", "pytorch:torch/csrc/distributed/c10d/socket.cpp:SocketConnectOp::run",
      "torch.distributed.DistNetworkError: The client socket has failed to connect to any network address of "
      "(node-1, 29500).", "The client socket has failed to connect to any network address of (node-1, 29500)",
      anchor="failed to connect to any network address"),
    M("pytorch.tcpstore_connect_timed_out",
      r"TCP client failed to connect/validate to host (?P<peer>\S+?) - timed out",
      "dist_backend_error", "failure", "network_error", "2.3 - 2.13", "pytorch:torch/csrc/distributed/c10d/TCPStore.cpp:"
      "TCPClient::connect (C10D_ERROR once its deadline passed)",
      "[E1206 19:45:43.892069000 TCPStore.cpp:347] [c10d] TCP client failed to connect/validate to host "
      "10.0.0.1:29500 - timed out (try=0, timeout=1800000ms): The client socket has timed out after 1800000ms while "
      "trying to connect to (10.0.0.1, 29500).",
      "TCP client failed to connect/validate to host 10.0.0.1:29500 - timed out", anchor="TCP client failed to connect"),
    M("pytorch.tcpstore_connect_retrying",
      r"TCP client failed to connect/validate to host (?P<peer>\S+?) - retrying",
      "dist_backend_error", "benign", None, "2.3 - 2.13", "pytorch:torch/csrc/distributed/c10d/TCPStore.cpp:"
      "TCPClient::connect (C10D_WARNING before each retry)",
      "[W1206 19:45:43.892069000 TCPStore.cpp:347] [c10d] TCP client failed to connect/validate to host "
      "10.0.0.1:29500 - retrying (try=0, timeout=1800000ms, delay=487ms): Connection reset by peer",
      "TCP client failed to connect/validate to host 10.0.0.1:29500 - retrying", anchor="TCP client failed to connect"),
    M("pytorch.unique_id_store_get",
      # older releases spelled it `retreiving` (the same message; which release corrected it is not verified)
      (r"(?:\[(?P<rank>\d+)\] )?is setting up NCCL communicator and retr(?:ie|ei)ving ncclUniqueId from "
       r"\[(?P<other_rank>\d+)\]",
       r" via c10d key-value store by key '[^']*'",
       r", but store->get\('[^']*'\) got error: (?P<reason>(?!" + _STORE_TIMEOUT + r").+)"),
      "dist_backend_error", "consequence", "network_error", "1.10 - 2.13 (`retreiving` in the older ones)",
      _PG + ":ProcessGroupNCCL::broadcastUniqueNCCLID",
      "torch.distributed.DistBackendError: [3] is setting up NCCL communicator and retrieving ncclUniqueId from [0] via "
      "c10d key-value store by key '0', but store->get('0') got error: Connection reset by peer",
      "[3] is setting up NCCL communicator and retrieving ncclUniqueId from [0]",
      anchor="retrieving ncclUniqueId from|retreiving ncclUniqueId from"),
    # broadcastUniqueNCCLID appends this sentence to the store's exception text (e.what()): where that text carries
    # its C++ backtrace (`Failed to recv ... Exception raised from recvBytes ... frame #N`, 2.4+), the sentence ends
    # the message on a line of its own, after the frames. Read alone it still says what the whole does: this rank
    # could not fetch the id rank 0 publishes (the XCCL/HCCL ports print the same sentence)
    M("pytorch.unique_id_store_error_tail",
      (r"(?<![^\s:\]])\. This may indicate a possible application crash on rank (?P<other_rank>\d+)",
       r" or a network set up issue"),
      "dist_backend_error", "consequence", "network_error", "2.0 - 2.13", _PG + ":ProcessGroupNCCL::broadcastUniqueNCCLID",
      "[rank2]: . This may indicate a possible application crash on rank 0 or a network set up issue.",
      ". This may indicate a possible application crash on rank 0",
      anchor="This may indicate a possible application crash on rank"),
    # the same, when the store says it timed out waiting: rank 0 never published the id (never got to create the
    # communicator: stuck, slow or gone), which a rank that never arrived is
    M("pytorch.unique_id_store_timeout",
      r"(?:\[(?P<rank>\d+)\] )?is setting up NCCL communicator and retr(?:ie|ei)ving ncclUniqueId from "
      r"\[(?P<other_rank>\d+)\] via c10d key-value store by key '[^']*', but store->get\('[^']*'\) got error: "
      r"(?P<reason>(?:" + _STORE_TIMEOUT + r")[^\n]*)",
      "dist_backend_error", "failure", "missing_rank", "1.10 - 2.13 (`retreiving` in the older ones)",
      _PG + ":ProcessGroupNCCL::broadcastUniqueNCCLID; TCPStore.cpp:doWait",
      "RuntimeError: [1] is setting up NCCL communicator and retreiving ncclUniqueId from [0] via c10d key-value store "
      "by key '0', but store->get('0') got error: Timeout waiting for key: default_pg/0/0 after 1800000 ms",
      "[1] is setting up NCCL communicator and retreiving ncclUniqueId from [0] via c10d key-value store by key '0', "
      "but store->get('0') got error: Timeout waiting for key",
      anchor="retrieving ncclUniqueId from|retreiving ncclUniqueId from"),
    # the scalable init (a group larger than TORCH_NCCL_RANKS_PER_ROOT, NCCL 2.23+'s ncclCommInitRankScalable): every
    # rank multiGets the ids its roots (one rank of each block) set in the store (allgatherUniqueNCCLIDs). Another store
    # error says no more than the store's own words in it (a reset is store_connection_reset's, an end of stream
    # store_peer_closed's); a store wait that ran out is a root that never set its id (stuck, slow or gone before it
    # reached the group's setup)
    M("pytorch.unique_ids_roots_store_get",
      (r"(?:\[(?P<rank>\d+)\] )?is setting up NCCL communicators and retrieving ncclUniqueId from roots via TCPStore",
       r" by key '[^']*', but got error: (?P<reason>(?!" + _STORE_TIMEOUT + r").+)"),
      "dist_backend_error", "consequence", None, "2.6 - 2.13 (first release not checked)",
      _PG + ":ProcessGroupNCCL::allgatherUniqueNCCLIDs",
      "torch.distributed.DistBackendError: [40] is setting up NCCL communicators and retrieving ncclUniqueId from roots "
      "via TCPStore by key '[\"UniqueNCCLID:0\",\"UniqueNCCLID:1\"]', but got error: Connection reset by peer",
      "[40] is setting up NCCL communicators and retrieving ncclUniqueId from roots via TCPStore",
      anchor="retrieving ncclUniqueId from roots"),
    M("pytorch.unique_ids_roots_store_timeout",
      r"(?:\[(?P<rank>\d+)\] )?is setting up NCCL communicators and retrieving ncclUniqueId from roots via TCPStore by "
      r"key '[^']*', but got error: (?P<reason>(?:" + _STORE_TIMEOUT + r")[^\n]*)",
      "dist_backend_error", "failure", "missing_rank", "2.6 - 2.13 (first release not checked)",
      _PG + ":ProcessGroupNCCL::allgatherUniqueNCCLIDs; TCPStore.cpp:doWait",
      "torch.distributed.DistBackendError: [17] is setting up NCCL communicators and retrieving ncclUniqueId from roots "
      "via TCPStore by key '[\"UniqueNCCLID:0\",\"UniqueNCCLID:1\"]', but got error: wait timeout after 600000ms, "
      "keys: /default_pg//0//cuda//0/UniqueNCCLID:1",
      "[17] is setting up NCCL communicators and retrieving ncclUniqueId from roots via TCPStore by key "
      "'[\"UniqueNCCLID:0\",\"UniqueNCCLID:1\"]', but got error: wait timeout after",
      anchor="retrieving ncclUniqueId from roots"),
    M("pytorch.store_timeout",
      r"(?:Wait timeout|Socket Timeout|wait timeout after (?P<timeout_ms>\d+)ms(?:, keys: (?P<keys>.*))?)",
      "dist_backend_error", "failure", "missing_rank", "1.0 - 2.13", "pytorch:torch/csrc/distributed/c10d/TCPStore.cpp:doWait",
      "torch.distributed.DistStoreError: wait timeout after 1800000ms, keys: /default_pg/0//cuda//0",
      "wait timeout after 1800000ms", anchor="Wait timeout|Socket Timeout|wait timeout after"),
    # the same store wait, in the words of the socket under it: TCPStore::doWait reads the answer with
    # TCPClient::receiveValueWithTimeout -> SocketImpl::waitForInput, which warns `poll ... returned 0, likely a
    # timeout` when poll() ran out (it polls for the whole timeout) and `socket ... timed out after Nms` when the
    # deadline passed; doWait then throws `wait timeout after` (store_timeout). A paste often keeps only these two
    # C10D_WARNING lines, with the rank's Python traceback and no DistStoreError. First release with waitForInput's
    # warnings not checked against torch's history here (2.5 prints them at socket.cpp:462/487).
    M("pytorch.store_socket_wait_timeout",
      r"waitForInput: (?:poll for )?socket\b(?:[^\n]*?remote=(?P<peer>\[[^\]\n]*\]:\d+))?[^\n]*? ?"
      r"(?:returned 0, likely a timeout|timed out after(?: (?P<timeout_ms>\d+)ms)?)",
      "dist_backend_error", "failure", "missing_rank", "2.4 - 2.13",
      "pytorch:torch/csrc/distributed/c10d/socket.cpp:SocketImpl::waitForInput (from TCPStore.cpp:doWait)",
      "[rank2]:[W303 08:23:41.025328690 socket.cpp:487] [c10d] waitForInput: socket SocketImpl(fd=71, "
      "addr=[localhost]:43246, remote=[localhost]:29500) timed out after 600000ms",
      "waitForInput: socket SocketImpl(fd=71, addr=[localhost]:43246, remote=[localhost]:29500) timed out after",
      anchor="waitForInput: "),
    # the same wait in the older socket.cpp (SocketImpl::waitForInput before the wording above): a poll that ran out
    # returned 0 without setting errno, and the catch-all branch printed that as `poolFD failed with (errno: 0 -
    # Success)`, then returned false to doWait. Only errno 0 is the timeout; another errno is the socket's own
    # failure. Releases not checked against torch's history here (2.2 and 2.3 pastes print it at socket.cpp:432)
    M("pytorch.store_socket_wait_timeout_old",
      r"While waitForInput, poolFD failed with \(errno: 0 - Success\)",
      "dist_backend_error", "failure", "missing_rank", "2.x before 2.4 (not checked in torch's history)",
      "pytorch:torch/csrc/distributed/c10d/socket.cpp:SocketImpl::waitForInput (from TCPStore.cpp:doWait)",
      "[rank1]:[W socket.cpp:432] [c10d] While waitForInput, poolFD failed with (errno: 0 - Success).",
      "While waitForInput, poolFD failed with (errno: 0 - Success)", anchor="poolFD failed with"),
    # the rendezvous backend could not reach its store: the c10d TCPStore, or etcd (etcd_rendezvous_backend.py, the
    # `etcd-v2` backend: _create_etcd_client and every state read/write wrap etcd's and urllib3's errors in it)
    M("pytorch.store_connection_failed",
      r"The connection to (?:the C10d store|etcd) has failed",
      "dist_backend_error", "consequence", "network_error", "1.10 - 2.13 (etcd: 1.9 - 2.13)",
      "pytorch:torch/distributed/elastic/rendezvous/c10d_rendezvous_backend.py, etcd_rendezvous_backend.py",
      "torch.distributed.elastic.rendezvous.api.RendezvousConnectionError: The connection to the C10d store has failed. "
      "See inner exception for details.", "The connection to the C10d store has failed",
      anchor="The connection to the C10d store has failed|The connection to etcd has failed"),
    M("pytorch.terminating_after_dump",
      (r"Terminating the process after attempting to dump debug info", r", due to (?P<reason>[^.]+)"),
      "heartbeat", "consequence", None, "2.3 - 2.13", _PG + ":HeartbeatMonitor::getNCCLWatchdogTimeoutExitMsg",
      "[PG ID 0 PG GUID 0(default_pg) Rank 2] Terminating the process after attempting to dump debug info, due to "
      "ProcessGroupNCCL watchdog hang.", "Terminating the process after attempting to dump debug info",
      data={"trigger": "terminate"}),
    M("pytorch.global_timeout_dump",
      r"Received a global timeout from another rank and will start to dump the debug info"
      r"|Observed flight recorder dump signal from another rank via TCPStore",
      "work_status", "consequence", None, "2.3 - 2.13", _PG + ":HeartbeatMonitor::runLoop",
      "[PG ID 0 PG GUID 0(default_pg) Rank 5] Observed flight recorder dump signal from another rank via TCPStore.",
      "Observed flight recorder dump signal from another rank via TCPStore", data={"trigger": "dump_signal"},
      anchor="Received a global timeout from another rank|Observed flight recorder dump signal"),
    M("pytorch.monitor_would_terminate",
      r"ProcessGroupNCCL monitor thread is disabled, but would have terminated the process",
      "heartbeat", "consequence", None, "2.3 - 2.13", _PG + ":HeartbeatMonitor::runLoop (TORCH_NCCL_ENABLE_MONITORING=0)",
      "[PG ID 0 PG GUID 0(default_pg) Rank 2] ProcessGroupNCCL monitor thread is disabled, but would have terminated the "
      "process after attempting to dump debug info, due to ProcessGroupNCCL watchdog hang.",
      "ProcessGroupNCCL monitor thread is disabled, but would have terminated the process", data={"trigger": "terminate"}),
    M("pytorch.gil_hang",
      r"Could not acquire GIL within (?P<wait_ms>\d+) ms on exit, possible GIL induced hang",
      "heartbeat", "consequence", None, "2.3 - 2.13", _PG + ":HeartbeatMonitor::runLoop",
      "[PG ID 0 PG GUID 0(default_pg) Rank 2] Could not acquire GIL within 300 ms on exit, possible GIL induced hang",
      "Could not acquire GIL within 300 ms on exit, possible GIL induced hang", anchor="possible GIL induced hang"),
    # ---- the distributed API's usage and setup errors: raised by the Python front end (distributed_c10d.py,
    # rendezvous.py, DeviceMesh, DTensor, FSDP, DDP's constructor) or by a backend's argument checks before any
    # collective runs. The program or its launch is wrong the same way on every rank, so the rank that raised one is
    # no dropped rank: the failure is the setup's (category usage_error, read by rank_state and X901).
    M("pytorch.default_pg_not_initialized",
      r"Default process group has not been initialized, please make sure to call init_process_group",
      "traceback", "failure", "unclassified_failure", "1.0 - 2.13 (RuntimeError in 1.x, ValueError in 2.x)",
      _C10D + ":_get_default_group",
      "ValueError: Default process group has not been initialized, please make sure to call init_process_group.",
      "Default process group has not been initialized, please make sure to call init_process_group",
      data=_USAGE, anchor="Default process group has not been initialized"),
    # _check_single_tensor / _check_tensor_list: 1.x `... to be of type torch.Tensor.`, 2.x `... of type torch.Tensor`
    # then (on a second line) `but got <class ...> instead.`; lists: `of type List[torch.Tensor]`
    M("pytorch.invalid_function_argument",
      r"Invalid function argument\. Expected parameter `(?P<param>[^`]+)` (?:to be )?of type (?P<expected>[\w.\[\]]+)",
      "traceback", "failure", "unclassified_failure", "1.0 - 2.13", _C10D + ":_check_single_tensor, _check_tensor_list",
      "TypeError: Invalid function argument. Expected parameter `tensor` of type torch.Tensor",
      "Invalid function argument. Expected parameter `tensor` of type torch.Tensor", data=_USAGE,
      anchor="Invalid function argument. Expected parameter"),
    # new_group's rank check: `within the the world_size` (RuntimeError) to 1.13, `within the world_size` (ValueError)
    M("pytorch.new_group_rank_out_of_range",
      r"The new group's rank should be within (?:the )?the world_size",
      "traceback", "failure", "unclassified_failure", "1.0 - 2.13 (`the the` to 1.13)",
      _C10D + ":new_group / _new_group_with_tag",
      "ValueError: The new group's rank should be within the world_size set by init_process_group",
      "The new group's rank should be within the world_size", data=_USAGE,
      anchor="The new group's rank should be within"),
    # a tensor on a device the group has no backend for (a CPU tensor on an NCCL-only group)
    M("pytorch.no_backend_for_device",
      r"No backend type associated with device type (?P<device>\w+)",
      "traceback", "failure", "unclassified_failure", "2.0 - 2.13",
      "pytorch:torch/csrc/distributed/c10d/ProcessGroup.hpp:ProcessGroup::getBackend",
      "RuntimeError: No backend type associated with device type cpu",
      "No backend type associated with device type cpu", data=_USAGE),
    # ProcessGroupNCCL's tensor checks (std::runtime_error in 1.x, ValueError in 2.x)
    M("pytorch.nccl_tensor_check",
      r"Tensors must be (?P<requirement>CUDA and dense|contiguous)\b",
      "traceback", "failure", "unclassified_failure", "1.0 - 2.13", _PG + ":check_gpu_single_tensor",
      "ValueError: Tensors must be CUDA and dense", "Tensors must be CUDA and dense", data=_USAGE,
      anchor="Tensors must be "),
    # getNCCLComm's checks of the devices a call names (both say "NCCL Communicator" and are raised as
    # DistBackendError, yet no communication ran): a call that names no device (an empty tensor list; 1.x
    # runtime_error, then TORCH_CHECK, 2.2+ DistBackendError), and, once init_process_group(device_id=...) bound the
    # group to one device (2.3+), a tensor on another device (the LOG line, then the exception)
    M("pytorch.nccl_devices_not_known",
      (r"Not able to create/get the NCCL Communicator since the GPU devices", r" are not known"),
      "traceback", "failure", "unclassified_failure", "1.x - 2.9", _PG + ":ProcessGroupNCCL::getNCCLComm",
      "torch.distributed.DistBackendError: Not able to create/get the NCCL Communicator since the GPU devices are not "
      "known", "Not able to create/get the NCCL Communicator since the GPU devices", data=_USAGE),
    M("pytorch.nccl_bound_device_log",
      r"Tensor found on device (?P<device>[\w:]+) but backend constrained to (?P<bound_device>[\w:]+)",
      "c10d_log", "failure", "unclassified_failure", "2.3 - 2.9 (first release not checked)",
      _PG + ":ProcessGroupNCCL::getNCCLComm (bound_device_id_)",
      "[PG ID 0 PG GUID 0(default_pg) Rank 1] Tensor found on device cuda:0 but backend constrained to cuda:1",
      "Tensor found on device cuda:0 but backend constrained to cuda:1", data=_USAGE,
      anchor="but backend constrained to"),
    M("pytorch.nccl_bound_device_mismatch",
      (r"Attempt to perform collective on tensor not on device passed", r" to init_process_group"),
      "traceback", "failure", "unclassified_failure", "2.3 - 2.9 (first release not checked)",
      _PG + ":ProcessGroupNCCL::getNCCLComm (bound_device_id_)",
      "torch.distributed.DistBackendError: Attempt to perform collective on tensor not on device passed to "
      "init_process_group", "Attempt to perform collective on tensor not on device passed", data=_USAGE),
    # the registry of group names the functional collectives and DTensor resolve (GroupRegistry.cpp resolve_group):
    # a name this process never registered, or a group the program destroyed and then used again
    M("pytorch.group_name_unresolved",
      r"Could not resolve the process group registered under the name (?P<group>\S+)"
      r"|Process group registered under the name (?P<group1>\S+) has already been destroyed",
      "traceback", "failure", "unclassified_failure", "2.2 - 2.9 (first release not checked)",
      "pytorch:torch/csrc/distributed/c10d/GroupRegistry.cpp:GroupRegistry::resolve_group",
      "RuntimeError: Process group registered under the name 3 has already been destroyed.",
      "Process group registered under the name 3 has already been destroyed", data=_USAGE,
      anchor="Could not resolve the process group registered under the name|has already been destroyed"),
    M("pytorch.init_pg_twice",
      r"trying to initialize the default process group twice",
      "traceback", "failure", "unclassified_failure", "1.0 - 2.13 (RuntimeError in 1.x, ValueError in 2.x)",
      _C10D + ":init_process_group", "ValueError: trying to initialize the default process group twice!",
      "trying to initialize the default process group twice", data=_USAGE),
    M("pytorch.backend_not_built",
      r"Distributed package doesn't have (?P<backend>NCCL|MPI|UCC) built in",
      "traceback", "failure", "unclassified_failure", "1.0 - 2.13", _C10D + ":_new_process_group_helper",
      "RuntimeError: Distributed package doesn't have NCCL built in",
      "Distributed package doesn't have NCCL built in", data=_USAGE, anchor="Distributed package doesn't have "),
    M("pytorch.nccl_no_gpus",
      r"ProcessGroupNCCL is only supported with GPUs, no GPUs found",
      "traceback", "failure", "unclassified_failure", "1.0 - 2.13 (ValueError from 2.0)", _PG + ":ProcessGroupNCCL",
      "ValueError: ProcessGroupNCCL is only supported with GPUs, no GPUs found!",
      "ProcessGroupNCCL is only supported with GPUs, no GPUs found", data=_USAGE),
    M("pytorch.barrier_device_ids_unsupported",
      (r"Function argument device_ids not supported for the selected backend", r" (?P<backend>\w+)"),
      "traceback", "failure", "unclassified_failure", "1.8 - 2.13", _C10D + ":barrier",
      "RuntimeError: Function argument device_ids not supported for the selected backend gloo",
      "Function argument device_ids not supported for the selected backend", data=_USAGE),
    M("pytorch.init_method_and_store",
      r"Cannot specify both init_method and store",
      "traceback", "failure", "unclassified_failure", "1.8 - 2.13", _C10D + ":init_process_group",
      "AssertionError: Cannot specify both init_method and store.", "Cannot specify both init_method and store",
      data=_USAGE),
    # TCPStore asked for its libuv backend (the default from 2.4) in a build without it (Windows, macOS wheels):
    # `build` in the first releases, `built` later (DistStoreError)
    M("pytorch.store_libuv_unavailable",
      r"use_libuv was requested but PyTorch was buil[dt] without libuv support",
      "traceback", "failure", "unclassified_failure", "2.4 - 2.13",
      "pytorch:torch/csrc/distributed/c10d/TCPStore.cpp:TCPStore::TCPStore",
      "torch.distributed.DistStoreError: use_libuv was requested but PyTorch was built without libuv support, run "
      "with USE_LIBUV=0 to disable it.", "use_libuv was requested but PyTorch was built without libuv support",
      data=_USAGE, anchor="use_libuv was requested"),
    # rendezvous.py's handlers: `environment variable X expected, but not set` (env://), `port number missing`,
    # `rank parameter missing`, `size parameter missing` (tcp://, file://)
    M("pytorch.rendezvous_setup_error",
      (r"Error initializing torch\.distributed using (?P<scheme>\w+):// rendezvous: ", r"(?P<reason>\S[^\n]*)"),
      "traceback", "failure", "unclassified_failure", "1.0 - 2.13", "pytorch:torch/distributed/rendezvous.py:_error, "
      "_env_error", "ValueError: Error initializing torch.distributed using env:// rendezvous: environment variable "
      "MASTER_ADDR expected, but not set", "Error initializing torch.distributed using env:// rendezvous: ",
      data=_USAGE, anchor="Error initializing torch.distributed using "),
    # DeviceMesh: a mesh larger than the world (`default world size N` from 2.4), a world that is no multiple of the
    # GPUs per host (2.2+)
    M("pytorch.device_mesh_bigger_than_world",
      (r"Mesh should not be bigger than default world size",
       r"(?: (?P<nranks>\d+))?, but found (?P<count>\d+) ranks"),
      "traceback", "failure", "unclassified_failure", "2.2 - 2.13",
      "pytorch:torch/distributed/device_mesh.py:DeviceMesh._get_or_create_default_group",
      "RuntimeError: Mesh should not be bigger than default world size 4, but found 8 ranks!",
      "Mesh should not be bigger than default world size", data=_USAGE),
    M("pytorch.device_mesh_heterogeneous",
      (r"DeviceMesh only support homogeneous hardware", r", but found (?P<nranks>\d+) ranks and (?P<count>\d+)"),
      "traceback", "failure", "unclassified_failure", "2.2 - 2.13",
      "pytorch:torch/distributed/device_mesh.py:DeviceMesh._get_or_create_default_group",
      "RuntimeError: DeviceMesh only support homogeneous hardware, but found 6 ranks and 4 cuda devices!",
      "DeviceMesh only support homogeneous hardware", data=_USAGE),
    M("pytorch.dtensor_placements_length",
      r"`placements` must have the same length as `device_mesh\.ndim`",
      "traceback", "failure", "unclassified_failure", "2.2 - 2.13",
      "pytorch:torch/distributed/tensor/_api.py:distribute_tensor (torch/distributed/_tensor/api.py before 2.5)",
      "ValueError: `placements` must have the same length as `device_mesh.ndim`! Found placements length: 2, and "
      "device_mesh.ndim: 1.", "`placements` must have the same length as `device_mesh.ndim`", data=_USAGE),
    # FSDP (1.x API) asserts its handle's training state in the post-backward hook (_p_assert prints the words, then
    # raises them): several forwards through one FSDP unit before backward
    M("pytorch.fsdp_training_state",
      (r"Expects BACKWARD_PRE or BACKWARD_POST state", r" but got (?P<state>[\w.]+)"),
      "traceback", "failure", "unclassified_failure", "2.0 - 2.13 (first release not checked)",
      "pytorch:torch/distributed/fsdp/_runtime_utils.py:_post_backward_hook",
      "AssertionError: Expects BACKWARD_PRE or BACKWARD_POST state but got HandleTrainingState.FORWARD",
      "Expects BACKWARD_PRE or BACKWARD_POST state", data=_USAGE),
    M("pytorch.fsdp_inconsistent_device",
      r"Inconsistent compute device and `device_id` on rank (?P<rank>\d+)(?:: (?P<device>\S+) vs (?P<device_id>\S+))?",
      "traceback", "failure", "unclassified_failure", "2.0 - 2.13 (first release not checked)",
      "pytorch:torch/distributed/fsdp/_init_utils.py:_get_compute_device",
      "ValueError: Inconsistent compute device and `device_id` on rank 1: cuda:0 vs cuda:1",
      "Inconsistent compute device and `device_id` on rank 1", data=_USAGE,
      anchor="Inconsistent compute device and `device_id`"),
    M("pytorch.fsdp2_container",
      r"fully_shard does not support containers that do not implement forward",
      "traceback", "failure", "unclassified_failure", "2.6 - 2.13 (first release not checked)",
      "pytorch:torch/distributed/fsdp/_fully_shard/_fully_shard.py:fully_shard",
      "ValueError: fully_shard does not support containers that do not implement forward: ModuleList(...)",
      "fully_shard does not support containers that do not implement forward", data=_USAGE),
    # init_device_mesh's argument checks (2.2+; RuntimeError raised with two arguments, so printed as a tuple):
    # dim names of another length than the shape, a repeated name (`uqique` in 2.2), a device type with an index
    # (`with GPU index` in the first releases, `with index` later)
    M("pytorch.device_mesh_arguments",
      r"mesh_shape and mesh_dim_names should have same length|Each mesh_dim_name must be u[nq]ique|"
      r"Device type with (?:GPU )?index is not supported",
      "traceback", "failure", "unclassified_failure", "2.2 - 2.9 (`uqique` in 2.2)",
      "pytorch:torch/distributed/device_mesh.py:init_device_mesh",
      "RuntimeError: ('mesh_shape and mesh_dim_names should have same length!', 'Found len(mesh_dim_names): 2 and "
      "len(mesh_shape):1.')", "mesh_shape and mesh_dim_names should have same length", data=_USAGE,
      anchor="mesh_shape and mesh_dim_names should have same length|Each mesh_dim_name must be u|"
             "is not supported but got"),
    # slicing a mesh that is itself a slice (_MeshEnv._get_slice_mesh_dims, 2.4 - 2.6), and 2.1 - 2.4's check that
    # every rank passed the same mesh (_validate_mesh all-gathers them: `rank N has mesh ... while rank M has mesh`)
    M("pytorch.device_mesh_submesh_of_submesh",
      r"Cannot create a submesh from a submesh", "traceback", "failure", "unclassified_failure",
      "2.4 - 2.6 (first and last release not checked)",
      "pytorch:torch/distributed/device_mesh.py:_MeshEnv._get_slice_mesh_dims",
      "RuntimeError: Cannot create a submesh from a submesh.", "Cannot create a submesh from a submesh", data=_USAGE),
    M("pytorch.device_mesh_different_mesh",
      (r"DeviceMesh initialization does not allow different mesh arguments?:",
       r" ?rank (?P<rank>\d+) has mesh"),
      "traceback", "failure", "unclassified_failure", "2.1 - 2.4 (first and last release not checked)",
      "pytorch:torch/distributed/device_mesh.py:DeviceMesh._validate_mesh (torch/distributed/_tensor/device_mesh.py "
      "in 2.1)", "RuntimeError: DeviceMesh initialization does not allow different mesh argument:rank 1 has mesh "
      "tensor([0, 1]) while rank 0has mesh tensor([0, 1, 2, 3])!",
      "DeviceMesh initialization does not allow different mesh argument:", data=_USAGE),
    # DTensor's dispatcher: a plain tensor among DTensor arguments (unwrap_to_op_info), an operator with no sharding
    # rule (sharding propagation; NotImplementedError). The program's, on every rank that runs the op.
    M("pytorch.dtensor_mixed_tensor",
      r"got mixed torch\.Tensor and DTensor", "traceback", "failure", "unclassified_failure", "2.2 - 2.9",
      "pytorch:torch/distributed/tensor/_dispatch.py:OpDispatcher.unwrap_to_op_info (_tensor/dispatch.py before 2.5)",
      "RuntimeError: aten.add.Tensor: got mixed torch.Tensor and DTensor, need to convert all torch.Tensor to DTensor "
      "before calling distributed operators!", "got mixed torch.Tensor and DTensor", data=_USAGE),
    M("pytorch.dtensor_no_sharding_strategy",
      (r"(?:Operator )?(?P<op>aten\.[\w.]+) does not have a sharding strategy registered",),
      "traceback", "failure", "unclassified_failure", "2.1 - 2.9",
      "pytorch:torch/distributed/tensor/_sharding_prop.py:ShardingPropagator.propagate_op_sharding_non_cached",
      "NotImplementedError: Operator aten.roll.default does not have a sharding strategy registered.",
      "Operator aten.roll.default does not have a sharding strategy registered",
      data=_USAGE, anchor="does not have a sharding strategy registered"),
    # FSDP2's lazy init: parameters left on the meta device (`HSDP parameters` in forks); FSDP1's FlatParamHandle
    # refuses to flatten parameters of mixed or integer dtypes (a LoRA adapter in fp32 in a bf16 model)
    M("pytorch.fsdp_meta_params",
      (r"FSDP parameters should be materialized from meta device", r" before training"),
      "traceback", "failure", "unclassified_failure", "2.4 - 2.9",
      "pytorch:torch/distributed/fsdp/_fully_shard/_fsdp_param_group.py:FSDPParamGroup._validate_no_meta_params "
      "(_composable/fsdp before 2.6)",
      "RuntimeError: FSDP parameters should be materialized from meta device before training, but the following were "
      "still on meta device: ['0.weight']", "FSDP parameters should be materialized from meta device", data=_USAGE),
    M("pytorch.fsdp_flatten_dtype",
      r"Must flatten tensors with uniform dtype but got (?P<dtype>\S+) and (?P<other_dtype>\S+)|"
      r"Cannot flatten integer dtype tensors",
      "traceback", "failure", "unclassified_failure", "2.0 - 2.9 (first release not checked)",
      "pytorch:torch/distributed/fsdp/_flat_param.py:FlatParamHandle._validate_tensors_to_flatten",
      "ValueError: Must flatten tensors with uniform dtype but got torch.bfloat16 and torch.float32",
      "Must flatten tensors with uniform dtype but got torch.bfloat16 and torch.float32", data=_USAGE,
      anchor="Must flatten tensors with uniform dtype|Cannot flatten integer dtype tensors"),
    # a pipeline schedule's step() given another number of microbatches than it was built for
    M("pytorch.pipelining_microbatch_count",
      r"Expecting (?P<count>\d+) arg_mbs but got (?P<other_count>\d+)",
      "traceback", "failure", "unclassified_failure", "2.4 - 2.9",
      "pytorch:torch/distributed/pipelining/schedules.py:_PipelineSchedule._check_inputs",
      "ValueError: Expecting 4 arg_mbs but got 1", "Expecting 4 arg_mbs but got 1", data=_USAGE,
      anchor=" arg_mbs but got "),
    # DCP's default load planner: the checkpoint lacks a key the state dict asks for (strict), or holds it in
    # another size. The program and the checkpoint disagree; DCP re-raises it on every rank (CheckpointException).
    M("pytorch.dcp_load_plan_mismatch",
      r"Missing key in checkpoint state_dict: (?P<key>\S*[^\s.])|"
      r"Size mismatch between saved (?P<saved>.+?) and current: (?P<current>.+?) for (?P<key2>\S+)",
      "traceback", "failure", "unclassified_failure", "2.2 - 2.9 (first release of each not checked)",
      "pytorch:torch/distributed/checkpoint/default_planner.py:create_default_local_load_plan",
      "RuntimeError: Missing key in checkpoint state_dict: model.layers.0.attention.wq.weight.",
      "Missing key in checkpoint state_dict: model.layers.0.attention.wq.weight", data=_USAGE,
      anchor="Missing key in checkpoint state_dict: |Size mismatch between saved "),
    # fully_shard given a mesh of another dimensionality than FSDP (1D) or HSDP (2D)
    M("pytorch.fsdp2_mesh_ndim",
      r"fully_shard expects a 1D or 2D DeviceMesh but got", "traceback", "failure", "unclassified_failure",
      "2.4 - 2.9", "pytorch:torch/distributed/fsdp/_fully_shard/_fully_shard.py:fully_shard (_composable/fsdp "
      "before 2.6)", "ValueError: fully_shard expects a 1D or 2D DeviceMesh but got DeviceMesh('cuda', [[[0, 1]]])",
      "fully_shard expects a 1D or 2D DeviceMesh but got", data=_USAGE),
    # DCP's save planner: the coordinator checks every rank's write items together (no overlap, inside the tensor's
    # bounds); its ValueError is re-raised on every rank as a CheckpointException naming the coordinator only, though
    # the plans of all ranks are what it refused (2.7+ appends the problems after `: `)
    M("pytorch.dcp_global_plan_invalid",
      (r"Failed to validate global plan", r": (?P<reason>[^\n]+)"),
      "traceback", "failure", "unclassified_failure", "2.0 - 2.9 (the reasons appended in the newest)",
      "pytorch:torch/distributed/checkpoint/default_planner.py:DefaultSavePlanner.create_global_plan",
      "ValueError: Failed to validate global plan", "Failed to validate global plan", data=_USAGE),
    M("pytorch.ddp_nothing_to_reduce",
      (r"DistributedDataParallel is not needed when a module doesn't have any parameter", r" that requires a gradient"),
      "traceback", "failure", "unclassified_failure", "1.0 - 2.13",
      "pytorch:torch/nn/parallel/distributed.py:DistributedDataParallel.__init__",
      "RuntimeError: DistributedDataParallel is not needed when a module doesn't have any parameter that requires a "
      "gradient.", "DistributedDataParallel is not needed when a module doesn't have any parameter", data=_USAGE,
      anchor="DistributedDataParallel is not needed"),
    # the reducer saw one parameter's gradient hook fire twice in one backward (a parameter reused across reentrant
    # checkpointed passes or concurrent forwards): DDP's use is wrong the same way on every rank
    M("pytorch.ddp_ready_twice",
      r"Expected to mark a variable ready only once",
      "traceback", "failure", "unclassified_failure", "1.4 - 2.13",
      "pytorch:torch/csrc/distributed/c10d/reducer.cpp:Reducer::mark_variable_ready",
      "RuntimeError: Expected to mark a variable ready only once. This error is caused by one of the following "
      "reasons:", "Expected to mark a variable ready only once", data=_USAGE),
    # the reducer's bucket rebuild after the first iteration found fewer used parameters than the model has: torch
    # 1.7 moved the rebuild (pytorch#44798) and wrappers that still called it themselves around a forward that
    # built no graph (mmcv's MMDistributedDataParallel in an eval hook, pytorch#47050) trip it on every rank alike.
    # 1.7 prints `size.N versus M`, later builds `size.Original model param size is: N versus rebuilt params ...`
    M("pytorch.ddp_rebuilt_indices_assert",
      r"rebuilt parameter indices size is not same as original model parameters size",
      "traceback", "failure", "unclassified_failure", "1.7 - 2.13",
      "pytorch:torch/csrc/distributed/c10d/reducer.cpp:Reducer::rebuild_buckets",
      "RuntimeError: replicas_[0].size() == rebuilt_param_indices_.size() INTERNAL ASSERT FAILED at "
      "\"reducer.cpp\":1326, please report a bug to PyTorch. rebuilt parameter indices size is not same as original "
      "model parameters size.177 versus 169389",
      "rebuilt parameter indices size is not same as original model parameters size",
      data=_USAGE),
    # ---- DDP reducer
    M("pytorch.ddp_unfinished_reduction",
      r"Expected to have finished reduction in the prior iteration",
      "traceback", "failure", "collective_skipped", "1.4 - 2.13", "pytorch:torch/csrc/distributed/c10d/reducer.cpp:"
      "Reducer::ensure_prior_reduction_finished",
      "RuntimeError: Expected to have finished reduction in the prior iteration before starting a new one. This "
      "error indicates that your module has parameters that were not used in producing loss.",
      "Expected to have finished reduction in the prior iteration",
      data={"exc_type": "RuntimeError", "category": "ddp_unused_parameters"}),
    M("pytorch.ddp_params_without_grad",
      r"Parameter(?:s| indices) which did not receive grad for rank (?P<rank>\d+):\s*(?P<params>.*)",
      "traceback", "failure", "collective_skipped", "1.9 - 2.13", "pytorch:torch/csrc/distributed/c10d/reducer.cpp",
      "Parameter indices which did not receive grad for rank 1: 4 5",
      "Parameter indices which did not receive grad for rank 1:",
      data={"exc_type": "RuntimeError", "category": "ddp_unused_parameters"}, anchor="which did not receive grad"),
    M("pytorch.ddp_shape_mismatch",
       (r"DDP expects same model across all ranks, but Rank (?P<rank>\d+) has (?P<count>\d+) params",
        r", while rank (?P<other_rank>\d+) has inconsistent (?P<other_count>\d+) params"),
      "traceback", "failure", "shape_mismatch", "1.11 - 2.13", "pytorch:torch/csrc/distributed/c10d/reducer.cpp:"
      "verify_params_across_processes",
      "RuntimeError: DDP expects same model across all ranks, but Rank 0 has 120 params, while rank 1 has "
      "inconsistent 118 params.", "DDP expects same model across all ranks, but Rank 0 has 120 params",
      data={"exc_type": "RuntimeError", "category": "ddp_model_mismatch"}),
    # the parameter shapes' check that follows the count (same function; before 1.10 in comm.cpp / reducer.cpp as
    # `replicas[0][p] in this process with sizes ...`), sizes then strides
    M("pytorch.ddp_param_shape_mismatch",
       (r"(?:\[(?P<rank>\d+)\]: )?(?:params|replicas\[0\])\[(?P<index>\d+)\] in this process with (?P<what>sizes|strides) "
        r"(?P<shape>\[[\d, ]*\]) appears not to match", r" (?:sizes|strides) of the same param in process 0"),
      "traceback", "failure", "shape_mismatch", "1.1 - 2.13 (`replicas[0][p]` to 1.9, `[rank]: params[p]` 1.10+)",
      "pytorch:torch/csrc/distributed/c10d/reducer.cpp:verify_params_across_processes (<= 1.9: comm.cpp)",
      "RuntimeError: [1]: params[0] in this process with sizes [96, 32] appears not to match sizes of the same param in "
      "process 0.", "[1]: params[0] in this process with sizes [96, 32] appears not to match",
      data={"exc_type": "RuntimeError", "category": "ddp_model_mismatch"}, anchor="appears not to match"),
    # static_graph=True: after the first iteration the reducer expects the same parameters to get gradients; one
    # that got none then (or now) breaks its bucket schedule, so the ranks' gradient all-reduces no longer pair up
    M("pytorch.ddp_static_graph_changed",
      r"Your training graph has changed in this iteration",
      "traceback", "failure", "collective_skipped", "1.10 - 2.13 (first release not checked)",
      "pytorch:torch/csrc/distributed/c10d/reducer.cpp:Reducer::autograd_hook",
      "RuntimeError: Your training graph has changed in this iteration, e.g., one parameter is unused in first "
      "iteration, but then got used in the second iteration. this is not compatible with static_graph set to True.",
      "Your training graph has changed in this iteration",
      data={"exc_type": "RuntimeError", "category": "ddp_unused_parameters", "said": "static_graph"}),
    # ---- torch.distributed.pipelining (2.4+): a stage checks what it received against the shapes it was built for
    # (validate_tensor_metadata); the sending stage produced another shape/dtype than the receiving one expects
    M("pytorch.pipelining_shape_mismatch",
      (r"has a (?P<what>shape|stride) mismatch: expected ", r"(?P<expected>\S.*?) actual (?P<actual>\S.*)"),
      "traceback", "failure", "shape_mismatch", "2.4 - 2.13", "pytorch:torch/distributed/pipelining/_utils.py:"
      "validate_tensor_metadata", "torch.distributed.pipelining._utils.PipeliningShapeError: Stage 1 forward inputs "
      "has a shape mismatch: expected torch.Size([4, 512]) actual torch.Size([2, 512])",
      "Stage 1 forward inputs has a shape mismatch: expected ",
      anchor="has a shape mismatch: expected |has a stride mismatch: expected "),
    M("pytorch.pipelining_dtype_mismatch",
      (r"has a dtype mismatch: expected ", r"(?P<expected>\S+) actual (?P<actual>\S+)"),
      "traceback", "failure", "dtype_mismatch", "2.4 - 2.13", "pytorch:torch/distributed/pipelining/_utils.py:"
      "validate_tensor_metadata", "torch.distributed.pipelining._utils.PipeliningShapeError: Stage 1 forward inputs "
      "has a dtype mismatch: expected torch.bfloat16 actual torch.float32",
      "Stage 1 forward inputs has a dtype mismatch: expected ", anchor=" has a dtype mismatch: expected "),
    # ---- torch.distributed.rpc: the agent's timeout of one RPC (TensorPipeAgent::pollTimeoutRpcs; the ProcessGroup
    # agent printed it without the milliseconds): the callee never answered in time
    M("pytorch.rpc_timeout",
      (r"RPC ran for more than set timeout",
       r"(?: \((?P<timeout_ms>\d+) ms\))? and will now be marked with an error"),
      "watchdog_timeout", "failure", "timeout_unknown", "1.6 - 2.13 (first release of each wording not checked)",
      "pytorch:torch/csrc/distributed/rpc/tensorpipe_agent.cpp:TensorPipeAgent::pollTimeoutRpcs",
      "RuntimeError: RPC ran for more than set timeout (60000 ms) and will now be marked with an error",
      "RPC ran for more than set timeout", data={"context": "rpc"}),
    # ---- torch.distributed.checkpoint: the coordinator gathers every rank's exception and re-raises them all on
    # every rank as one CheckpointException, each failed rank's traceback under `Traceback ... (RANK N)` (api.py
    # __str__); the raising rank reports the ranks it names, the named rank's own exception is the failure
    M("pytorch.dcp_checkpoint_exception",
      r"CheckpointException ranks:dict_keys\(\[(?P<ranks>[\d, ]*)\]\)",
      "traceback", "failure", None, "2.0 - 2.13 (first release not checked)",
      "pytorch:torch/distributed/checkpoint/api.py:CheckpointException.__str__",
      "torch.distributed.checkpoint.api.CheckpointException: CheckpointException ranks:dict_keys([3])",
      "CheckpointException ranks:dict_keys([3])", data={"reports_others": True}, anchor="CheckpointException ranks:"),
    # ---- FSDP (1.x FullyShardedDataParallel): the exec-order check of the first iteration all-gathers every rank's
    # count, then indices, of the FlatParameters it is about to all-gather (TORCH_DISTRIBUTED_DEBUG INFO/DETAIL) and
    # raises on the first pair of ranks that differ. Every rank raises it: the raiser reports the others.
    M("pytorch.fsdp_forward_order",
      (r"Forward order differs across ranks: rank (?P<first_rank>\d+) is all-gathering",
       r" (?:(?P<count>\d+) parameters while rank (?P<other_rank>\d+) is all-gathering (?P<other_count>\d+) parameters"
       r"|parameters for (?P<params>\[[^\]]*\]) while rank (?P<other_rank2>\d+) is all-gathering parameters for "
       r"(?P<other_params>\[[^\]]*\]))"),
      "traceback", "failure", "collective_mismatch", "1.13 - 2.13 (first release not checked)",
      "pytorch:torch/distributed/fsdp/_exec_order_utils.py:_ExecOrderData._check_order",
      "RuntimeError: Forward order differs across ranks: rank 0 is all-gathering 43 parameters while rank 1228 is "
      "all-gathering 1 parameters", "Forward order differs across ranks: rank 0 is all-gathering",
      data={"exc_type": "RuntimeError", "category": "fsdp_forward_order"}),
    # ---- allocators
    M("pytorch.cuda_oom",
      # the words that decide are "CUDA out of memory." (every torch since 1.0 begins the allocator's message so);
      # what follows may be cut or garbled (an OCR'd screenshot: "Tried t allocate")
      (r"(?P<oom_kind>CUDA|HIP|XPU) out of memory\.(?: Tried to allocate (?P<requested_bytes>" + _SIZE + "))?",
       # <= 2.0: "(GPU 0; 11.17 GiB total capacity; 10.90 GiB already allocated; 576.00 KiB free; 30.96 MiB cached)";
       # 2.1+: ". GPU 0 has a total capac(i)ty of 23.65 GiB of which 11.06 MiB is free."
       r"(?: \(GPU (?P<gpu>\d+); (?P<total_bytes>" + _SIZE + r") total capacity; (?P<allocated_bytes>" + _SIZE +
       r") already allocated; (?P<free_bytes>" + _SIZE + r") free;(?: (?P<reserved_bytes>" + _SIZE +
       r") (?:reserved in total by PyTorch|cached))?|\. GPU (?P<gpu2>\d+) has a total capac(?:i)?ty of (?P<total_bytes2>"
       + _SIZE + r") of which (?P<free_bytes2>" + _SIZE + r") is free)",
       r".*?Of the allocated memory (?P<allocated_bytes2>" + _SIZE + r") is allocated by PyTorch, (?:with " + _SIZE +
       r" allocated in private pools \([^)]*\), )?and (?P<unallocated_bytes>" + _SIZE +
       r") is reserved by PyTorch but unallocated"),
      "oom", "failure", "oom", "1.0 - 2.13", "pytorch:c10/cuda/CUDACachingAllocator.cpp:malloc",
      "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 32.00 MiB. GPU 2 has a total capacity of "
      "79.10 GiB of which 98.00 MiB is free.", "CUDA out of memory."),
    M("pytorch.cpu_alloc_oom",
      r"DefaultCPUAllocator: (?:can't allocate memory|not enough memory): you tried to allocate (?P<requested_bytes>\d+) bytes",
      "oom", "failure", "oom", "1.0 - 2.13", "pytorch:c10/core/impl/alloc_cpu.cpp",
      "RuntimeError: [enforce fail at alloc_cpu.cpp:114] data. DefaultCPUAllocator: can't allocate memory: you "
      "tried to allocate 34359738368 bytes. Error code 12 (Cannot allocate memory)",
      "DefaultCPUAllocator: can't allocate memory: you tried to allocate 34359738368 bytes",
      data={"oom_kind": "cpu_allocator"}, anchor="DefaultCPUAllocator: "),
    # ---- C++ runtime (std::terminate) and bare exception lines
    M("pytorch.cpp_terminate",
      r"terminate called after throwing an instance of '(?P<exc_type>[^']+)'",
      "cpp_terminate", "failure", None, "libstdc++ (every torch)", "gcc:libstdc++-v3/libsupc++/vterminate.cc",
      "terminate called after throwing an instance of 'c10::DistBackendError'",
      "terminate called after throwing an instance of 'c10::DistBackendError'"),
    M("pytorch.cpp_terminate_bare",
      r"terminate called (?:without an active exception|recursively)",
      "cpp_terminate", "failure", None, "libstdc++ (every torch)", "gcc:libstdc++-v3/libsupc++/vterminate.cc",
      "terminate called without an active exception", "terminate called without an active exception",
      anchor="terminate called "),
    M("pytorch.cpp_what",
      r"^\s*what\(\):\s+(?P<reason>\S.*)",
      "cpp_terminate", "failure", None, "libstdc++ (every torch)", "gcc:libstdc++-v3/libsupc++/vterminate.cc",
      "  what():  [PG 0 Rank 1] Process group watchdog thread terminated with exception: NCCL error",
      "  what():  [PG 0 Rank 1]", anchor="what():"),
]

# An exception line with no `Traceback` header above it (a launcher printed only the last line, or the header was
# cut): its type and message. Inside a traceback block the traceback parser reads it instead.
MESSAGES.append(M(
    "python.bare_exception",
    # `^` then a paste's quoting: markdown's backtick or bold, a quote (`"CalledProcessError: Command '[...`)
    r"(?:^(?:[`\"']|\*\*)?|(?<=\]:)|(?<=\] )|(?<=: ))(?P<exc_type>(?:[a-z_]\w*\.)*(?:[A-Z]\w*Error|ChildFailedError|"
    r"OutOfMemoryError)): (?P<message>\S.*)",
    "traceback", "failure", None, "Python 3 (every torch)", "cpython:Python/pythonrun.c:print_exception",
    "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!",
    "RuntimeError: E", anchor="Error: "))

# TensorFlow's op error (Horovod's TensorFlow jobs print it): the exception's message ends with the stack where the
# failing op was built, under this line; the paste often keeps only this part. It is printed only in an error.
MESSAGES.append(M(
    "python.tf_op_defined_at",
    (r"Caused by op '", r"(?P<op_name>[^']+)', defined at:"),
    "traceback", "failure", None, "TensorFlow 1.x (the op error's text; contrib autograph's TfRuntimeError, 1.9+)",
    "tensorflow:tensorflow/contrib/autograph/core/errors.py:TfRuntimeError.__str__",
    "Caused by op 'DistributedAdamOptimizer_Allreduce/HorovodAllreduce_gradients_AddN_0', defined at:",
    "Caused by op '"))

# CPython's own line when the script it was told to run cannot be opened (a launcher started every worker with a
# path missing on that node): the interpreter prints it and exits 2 before any traceback exists. 3.x writes the path
# with %R (quoted), 2.x with '%s'; `is a directory, cannot continue` is the same function's other refusal.
MESSAGES.append(M(
    "python.cannot_open_file",
    (r"(?:(?P<program>\S+): )?can't open file (?P<path>'[^']*'|\"[^\"]*\"|\S+)",
     r": \[Errno (?P<errno>\d+)\] (?P<message>\S.*)"),
    "traceback", "failure", None, "Python 2.x - 3.14", "cpython:Modules/main.c:pymain_run_file_obj",
    "/usr/bin/python3: can't open file '/opt/train.py': [Errno 2] No such file or directory",
    "/usr/bin/python3: can't open file '", data={"exc_type": "OSError"}, anchor="can't open file "))
MESSAGES.append(M(
    "python.script_is_directory",
    r"(?P<program>\S+): (?P<path>'[^']*'|\"[^\"]*\") is a directory, cannot continue",
    "traceback", "failure", None, "Python 3.x", "cpython:Modules/main.c:pymain_run_file_obj",
    "/usr/bin/python3: '/opt/train' is a directory, cannot continue",
    "/usr/bin/python3: '/opt/train' is a directory, cannot continue", data={"exc_type": "OSError"},
    anchor="is a directory, cannot continue"))
# argparse's usage error (CPython Lib/argparse.py ArgumentParser.error: `%(prog)s: error: %(message)s`, then exit 2):
# the script or launcher refused its command line, e.g. torch >= 2.0's launch passing `--local-rank` to a script that
# parses `--local_rank`. Only argparse's own messages are decisive, never a bare `: error: `.
MESSAGES.append(M(
    "python.argparse_error",
    r"(?P<prog>[\w.\-/]+): error: (?P<message>(?:unrecognized arguments: |the following arguments are required: |"
    r"argument [^:]+: (?:invalid |expected |not allowed with |ignored explicit argument )|ambiguous option: )\S.*)",
    "traceback", "failure", None, "Python 2.7, 3.x", "cpython:Lib/argparse.py:ArgumentParser.error",
    "train.py: error: unrecognized arguments: --local-rank=0", "train.py: error: unrecognized arguments: -",
    data={"exc_type": "SystemExit"}, anchor=": error: "))

# ---- torch.utils.data's DataLoader: the rank's own input pipeline failed (category data_loader). The rank raises
# them itself, from its own loader workers, pin-memory thread or the shared memory they pass batches through: no
# other rank is involved, whatever their words (`timed out`) sound like.
_LOADER = {"category": "data_loader", "exc_type": "RuntimeError"}
_LOADER_SRC = "pytorch:torch/utils/data/dataloader.py:_MultiProcessingDataLoaderIter"
MESSAGES += [
    # torch/csrc/DataLoader.cpp errorIfAnyWorkerFails (SIGCHLD handler, signal_handling.py): a worker ended by a
    # signal (strsignal's text: `Killed`, `Bus error`, `Segmentation fault`; SIGBUS adds the shared-memory hint)
    M("pytorch.dataloader_worker_killed",
      r"DataLoader worker \(pid (?P<pid>\d+)\) is killed by signal: (?P<signal_text>[^.]+)\.",
      "traceback", "failure", None, "torch 0.4 - 2.13 (the shm hint on SIGBUS 1.2+)",
      "pytorch:torch/csrc/DataLoader.cpp:THPModule_errorIfAnyWorkerFails",
      "RuntimeError: DataLoader worker (pid 48211) is killed by signal: Killed. ",
      "DataLoader worker (pid 48211) is killed by signal: Killed.", data=_LOADER, anchor="is killed by signal: "),
    # the same check for a worker that exited non-zero, and the iterator's own check after a failed get
    # (`pid(s) a, b` 1.4+, `pid(s) a` lists every dead worker)
    M("pytorch.dataloader_worker_exited",
      (r"DataLoader worker \(pid(?:\(s\))? (?P<pids>\d+(?:, \d+)*)\) exited unexpectedly",
       r" with exit code (?P<exitcode>\d+)"),
      "traceback", "failure", None, "torch 0.4 - 2.13 (`pid(s)` 1.4+)",
      "pytorch:torch/csrc/DataLoader.cpp:THPModule_errorIfAnyWorkerFails; torch/utils/data/dataloader.py:_try_get_data",
      "RuntimeError: DataLoader worker (pid(s) 3311, 3312) exited unexpectedly",
      "DataLoader worker (pid(s) 3311, 3312) exited unexpectedly", data=_LOADER, anchor=") exited unexpectedly"),
    M("pytorch.dataloader_pin_memory_exited",
      r"Pin memory thread exited unexpectedly",
      "traceback", "failure", None, "torch 1.0 - 2.13", _LOADER_SRC + "._get_data",
      "RuntimeError: Pin memory thread exited unexpectedly", "Pin memory thread exited unexpectedly", data=_LOADER),
    # the loader's own `timeout` (DataLoader(timeout=N)) ran out waiting for a batch from its workers
    M("pytorch.dataloader_timeout",
      r"DataLoader timed out after (?P<timeout_s>\d+) seconds",
      "traceback", "failure", None, "torch 0.4 - 2.13", _LOADER_SRC + "._get_data",
      "RuntimeError: DataLoader timed out after 600 seconds", "DataLoader timed out after 600 seconds", data=_LOADER),
    # file-descriptor sharing ran out of descriptors (ulimit -n): the main process cannot receive batches
    M("pytorch.dataloader_too_many_open_files",
      r"Too many open files\. Communication with the workers is no longer possible",
      "traceback", "failure", None, "torch 0.4 - 2.13", _LOADER_SRC + "._try_get_data",
      "RuntimeError: Too many open files. Communication with the workers is no longer possible. Please increase the "
      "limit using `ulimit -n` in the shell or change the sharing strategy by calling "
      "`torch.multiprocessing.set_sharing_strategy('file_system')` at the beginning of your code",
      "Too many open files. Communication with the workers is no longer possible", data=_LOADER,
      anchor="Communication with the workers is no longer possible"),
    # CPython's fd passing (Lib/multiprocessing/reduction.py recvfds) under torch's file_descriptor sharing
    M("pytorch.dataloader_ancdata",
      r"received (?P<count>\d+) items of ancdata",
      "traceback", "failure", None, "Python 3.x (torch's file_descriptor sharing strategy)",
      "cpython:Lib/multiprocessing/reduction.py:recvfds", "RuntimeError: received 0 items of ancdata",
      "received 0 items of ancdata", data=_LOADER, anchor="items of ancdata"),
    # ATen's shared-memory allocator (MapAllocator, shm_open failed): /dev/shm full or out of descriptors; the
    # strerror text and errno follow since 1.13
    M("pytorch.shm_open_failed",
      (r"unable to open shared memory object <(?P<path>[^>]*)> in read-write mode", r": (?P<reason>[^(]+?) \((?P<errno>\d+)\)"),
      "traceback", "failure", None, "torch 0.4 - 2.13 (`: strerror (errno)` 1.13+)",
      "pytorch:aten/src/ATen/MapAllocator.cpp:MapAllocator::MapAllocator",
      "RuntimeError: unable to open shared memory object </torch_5521_2093384011_2> in read-write mode: Too many open "
      "files (24)", "unable to open shared memory object </torch_5521_2093384011_2> in read-write mode", data=_LOADER,
      anchor="unable to open shared memory object <"),
    # the worker's own handler (torch/csrc/DataLoader.cpp SIGNAL_HANDLER, written to stderr before it re-raises the
    # signal; 0.4 - 1.x `... in DataLoader worker`): the rank then raises `is killed by signal`
    M("pytorch.dataloader_worker_signal",
      r"ERROR: Unexpected (?P<signal_text>bus error|BUS error|segmentation fault|floating-point exception) encountered "
      r"in (?:DataLoader )?worker",
      "signal_report", "failure", None, "torch 0.4 - 2.13", "pytorch:torch/csrc/DataLoader.cpp:SIGNAL_HANDLER",
      "ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm).",
      "ERROR: Unexpected bus error encountered in worker", data={"category": "data_loader"},
      anchor="encountered in worker|encountered in DataLoader worker"),
    # CPython's resource tracker at interpreter exit (Lib/multiprocessing/resource_tracker.py main): semaphores or
    # shared memory a (killed or unclosed) child left behind, cleaned up now. Harmless by itself, printed at the end
    # of healthy runs too
    M("python.resource_tracker_leaked",
      r"resource_tracker: There appear to be (?P<count>\d+) leaked (?P<resource>[\w ]+?) objects? to clean up at shutdown",
      "warn", "benign", None, "Python 3.8 - 3.14", "cpython:Lib/multiprocessing/resource_tracker.py:main",
      "UserWarning: resource_tracker: There appear to be 1 leaked semaphore objects to clean up at shutdown",
      "resource_tracker: There appear to be 1 leaked semaphore objects to clean up at shutdown",
      anchor="resource_tracker: There appear to be"),
]

# ---- c10d's pieces beside ProcessGroupNCCL (catalogue round srcmined7). Read in pytorch/pytorch:
# torch/csrc/distributed/c10d/{FileStore.cpp, ProcessGroupMPI.cpp, ProcessGroupGloo.cpp}, c10d/symm_mem/
# {CUDASymmetricMemory.cu, NVSHMEMSymmetricMemory.cu}, torch/distributed/rpc/api.py, rpc/tensorpipe_agent.cpp,
# torch/distributed/algorithms/join.py, torch/nn/parallel/distributed.py. First releases are not checked against
# torch's history here (too large to mirror); the ranges are the files' lives as read.
_MPI = "pytorch:torch/csrc/distributed/c10d/ProcessGroupMPI.cpp"
_SYMM = "pytorch:torch/csrc/distributed/c10d/symm_mem/"
MESSAGES += [
    # FileStore::get polls the shared file until its timeout: the rank that should have written the key never did
    M("pytorch.filestore_key_timeout",
      (r"Timeout waiting for key: (?P<keys>\S+) after (?P<timeout_ms>\d+) ms",),
      "dist_backend_error", "failure", "missing_rank", "1.10 - 2.13",
      "pytorch:torch/csrc/distributed/c10d/FileStore.cpp:FileStore::get",
      "RuntimeError: Timeout waiting for key: /default_pg/0//cuda//0 after 1800000 ms",
      "Timeout waiting for key: /default_pg/0//cuda//0 after 1800000 ms", anchor="Timeout waiting for key: "),
    # FileStore locks its file with flock(2) and opens it with open(2); both throw std::system_error with the call's
    # name before strerror (SYSASSERT): a shared file system without flock (some NFS/Lustre mounts), a missing path
    M("pytorch.filestore_syscall",
      r"(?P<call>flock|open\((?P<path>/[^)\s]*)\)): (?P<reason>Function not implemented|No such file or directory|"
      r"Permission denied|Input/output error|No locks available|Operation not supported|Read-only file system)",
      "traceback", "failure", "unclassified_failure", "1.0 - 2.13",
      "pytorch:torch/csrc/distributed/c10d/FileStore.cpp:Lock::flock / File::File (SYSASSERT)",
      "RuntimeError: flock: Function not implemented", "flock: Function not implemented",
      data={"category": "store_file"}, anchor="flock: |open(/"),
    # ---- ProcessGroupMPI: its own refusals are the same on every rank (the MPI library or the build)
    M("pytorch.mpi_not_cuda_aware",
      r"CUDA tensor detected and the MPI used doesn't have CUDA-aware MPI support",
      "traceback", "failure", "unclassified_failure", "1.0 - 2.13", _MPI + ":checkSingleTensorHelper",
      "RuntimeError: CUDA tensor detected and the MPI used doesn't have CUDA-aware MPI support",
      "CUDA tensor detected and the MPI used doesn't have CUDA-aware MPI support", data=_USAGE),
    M("pytorch.mpi_thread_level",
      r"Used MPI implementation doesn't have the minimum level of threading support",
      "traceback", "failure", "unclassified_failure", "1.0 - 2.13", _MPI + ":ProcessGroupMPI::initMPIOnce",
      "RuntimeError: Used MPI implementation doesn't have the minimum level of threading support: "
      "MPI_THREAD_SERIALIZED. This is required by c10d package",
      "Used MPI implementation doesn't have the minimum level of threading support", data=_USAGE),
    # an async work's failed request: AsyncWork::populateException raises MPI_Error_string's text. MPI_ERR_TRUNCATE
    # (Open MPI, MPICH): the receive buffer was smaller than the message sent, sizes that differ across ranks
    M("pytorch.mpi_truncate",
      r"MPI_ERR_TRUNCATE: message truncated|Message truncated, error stack",
      "traceback", "failure", "shape_mismatch", "1.0 - 2.13 (Open MPI / MPICH wording)",
      _MPI + ":AsyncWork::populateException", "RuntimeError: MPI_ERR_TRUNCATE: message truncated",
      "MPI_ERR_TRUNCATE: message truncated", data={"category": "size_mismatch"},
      anchor="MPI_ERR_TRUNCATE: message truncated|Message truncated, error stack"),
    # ---- monitoredBarrier: rank 0 ran out of its whole timeout before it had heard every rank (checkRemainingTime);
    # the ranks it names are the ones that answered, so the missing ones are the rest
    M("pytorch.monitored_barrier_out_of_time",
      (r"Rank (?P<rank>\d+) timed out in monitoredBarrier after (?P<timeout_ms>\d+) ms\.",
       r" (?:Successfully processed ranks: (?P<processed>\d+(?:, \d+)*)|No ranks successfully processed)"),
      "monitored_barrier", "failure", "missing_rank", "1.10 - 2.13",
      "pytorch:torch/csrc/distributed/c10d/ProcessGroupGloo.cpp:checkRemainingTime",
      "RuntimeError: Rank 0 timed out in monitoredBarrier after 60000 ms. Successfully processed ranks: 1, 2",
      "Rank 0 timed out in monitoredBarrier after 60000 ms.", data={"state": "out_of_time"},
      anchor="timed out in monitoredBarrier after"),
    # ---- DDP / Join with throw_on_early_termination: one rank ran out of data (uneven inputs) and every rank raises;
    # the rank that ran out says so (join.py), the others that one did (distributed.py, join.py)
    M("pytorch.join_rank_exhausted",
      r"Rank (?P<rank>\d+) exhausted all inputs\.",
      "traceback", "failure", "collective_skipped", "1.9 - 2.13", "pytorch:torch/distributed/algorithms/join.py:"
      "Join.__exit__ (1.9: nn/parallel/distributed.py)", "RuntimeError: Rank 0 exhausted all inputs.",
      "Rank 0 exhausted all inputs.", data={"category": "uneven_inputs"}, anchor="exhausted all inputs."),
    M("pytorch.join_peer_exhausted",
      r"Detected at least one rank that exhausted inputs\. Throwing across all ranks",
      "traceback", "consequence", "collective_skipped", "1.9 - 2.13",
      "pytorch:torch/nn/parallel/distributed.py:_check_global_requires_backward_grad_sync; "
      "torch/distributed/algorithms/join.py:Join.notify_join_context",
      "RuntimeError: Detected at least one rank that exhausted inputs. Throwing across all ranks.",
      "Detected at least one rank that exhausted inputs. Throwing across all ranks", data={"category": "uneven_inputs"}),
    # ---- TensorPipe RPC: the pipe to a peer closed under a pending read or call (tensorpipe's PipeClosedError, or
    # EOF from the uv transport: the peer's process went away); tensorpipe appends where it was raised
    M("pytorch.tensorpipe_pipe_closed",
      r"(?:pipe closed|EOF: end of file) \(this error originated at tensorpipe/",
      "dist_backend_error", "consequence", "network_error", "1.6 - 2.13",
      "pytorch:torch/csrc/distributed/rpc/tensorpipe_agent.cpp (tensorpipe core/pipe_impl.cc, transport/uv)",
      "RuntimeError: pipe closed (this error originated at tensorpipe/core/pipe_impl.cc:356)",
      "pipe closed (this error originated at tensorpipe/", anchor="(this error originated at tensorpipe/"),
    # ---- symmetric memory (2.5+ CUDA backend, 2.8+ NVSHMEM backend): set-up refusals, the same on every rank (the
    # CUDA allocator's rendezvous also refuses ranks that report one device: each masked to its own GPU, or no
    # set_device, so every rank is on device 0)
    M("pytorch.symm_mem_rendezvous_refused",
      r"(?P<backend>CUDA|NVSHMEM|NCCL)SymmetricMemory(?:Allocator)?::(?P<function>rendezvous|get_buffer|get_signal_pad|"
      r"alloc): (?P<reason>`group_name` is neither specified|ranks have mismatched NVLink clique_ids|"
      r"the requested size \(\d+ bytes\) exceeds the allocated size|must not be called with a group_name|"
      r"detected allocations from overlapping devices from different ranks)",
      "traceback", "failure", "unclassified_failure", "2.5 - 2.13", _SYMM + "CUDASymmetricMemory.cu, "
      "NVSHMEMSymmetricMemory.cu", "RuntimeError: CUDASymmetricMemory::rendezvous: `group_name` is neither "
      "specified during allocation nor passed to rendezvous().", "CUDASymmetricMemory::rendezvous: `group_name` is neither specified",
      data={"category": "symm_mem_setup"}, anchor="SymmetricMemory::|SymmetricMemoryAllocator::"),
    # NVSHMEM_CHECK in the NVSHMEM backend: `<file>:<line> <call> failed. Error code: N` (its bootstrap or init)
    M("pytorch.nvshmem_check",
      r"NVSHMEMSymmetricMemory\.cu:\d+ (?P<call>nvshmemx?_\w+) failed\. Error code: (?P<code>-?\d+)",
      "traceback", "failure", "unclassified_failure", "2.8 - 2.13", _SYMM + "NVSHMEMSymmetricMemory.cu:"
      "initialize_nvshmem_with_store (NVSHMEM_CHECK)",
      "RuntimeError: /pytorch/torch/csrc/distributed/c10d/symm_mem/NVSHMEMSymmetricMemory.cu:286 nvshmemx_init_attr "
      "failed. Error code: 7", "NVSHMEMSymmetricMemory.cu:286 nvshmemx_init_attr failed. Error code: 7",
      data={"category": "nvshmem_init"}, anchor="NVSHMEMSymmetricMemory.cu:"),
]

# ---- torch.compile in a multi-rank job and the newest process-group calls (catalogue round srcmined16). Read in
# pytorch/pytorch: torch/_dynamo/convert_frame.py (the recompile limit: `cache_size_limit` to 2.5, `recompile_limit`
# from 2.6; FailOnRecompileLimitHit from 2.5), torch/_dynamo/backends/distributed.py (DDPOptimizer),
# torch/csrc/distributed/c10d/Utils.hpp (getCvar*: the pre-TORCH_ names), ProcessGroupNCCL.cpp (its constructor's
# notes; shrink and checkNoPendingWork, 2.9+), torch/distributed/distributed_c10d.py (split_group). Dynamo's and
# Inductor's own exceptions name no class by themselves: the same program fails alike on every rank (rank_state's
# shared_exception), a rank-dependent shape fails on one rank only, and an OOM inside them is M301's.
_DYNAMO = "pytorch:torch/_dynamo/"
_COMPILE = {"category": "torch_compile"}
MESSAGES += [
    # the frame has been recompiled as often as the limit allows: Dynamo warns once and runs it eagerly from then on
    M("pytorch.dynamo_recompile_limit",
      r"torch\._dynamo hit config\.(?P<limit>(?:accumulated_)?(?:recompile_limit|cache_size_limit)) \((?P<count>\d+)\)",
      "warn", "benign", None, "2.2 - 2.9 (`cache_size_limit` to 2.5, `recompile_limit` from 2.6)",
      _DYNAMO + "convert_frame.py:_compile (log.warning)",
      "[rank0]:W1127 03:11:40.200000 5000 torch/_dynamo/convert_frame.py:964] [0/8] torch._dynamo hit "
      "config.recompile_limit (8)", "torch._dynamo hit config.recompile_limit (8)",
      data=_COMPILE, anchor="torch._dynamo hit config."),
    # ... unless config.fail_on_recompile_limit_hit or fullgraph=True make it a hard error (raised on the rank whose
    # shapes ran out of recompiles: all of them when the program does, one when its data does)
    M("pytorch.dynamo_fail_on_recompile_limit",
      r"(?:(?P<limit>(?:accumulated_)?(?:recompile_limit|cache_size_limit)) reached(?:, because "
      r"fail_on_recompile_limit_hit = True this is a HARD failure| with (?:one_graph|fullgraph)=True)|"
      r"Hard failure due to (?:fail_on_recompile_limit_hit|fullgraph=True))",
      "traceback", "failure", None, "2.5 - 2.9 (`one_graph=True`, then `fullgraph=True`, then `Hard failure due to ...`; releases not "
      "checked)",
      _DYNAMO + "convert_frame.py:_compile (FailOnRecompileLimitHit)",
      "torch._dynamo.exc.FailOnRecompileLimitHit: recompile_limit reached with fullgraph=True. Excessive "
      "recompilations can degrade performance", "recompile_limit reached with fullgraph=True",
      data=_COMPILE, anchor=" reached|Hard failure due to "),
    # compiled autograd refused: DDP's C++ reducer cannot be traced (reducer.cpp's compiled-args hook, a TORCH_CHECK
    # from 2.5; its first form was an assert that never fired), and it cannot be switched on while a backward runs
    # (autograd engine.cpp set_compiled_autograd). Alike on every rank
    M("pytorch.compiled_autograd_ddp_reducer",
      r"Compiled autograd is not compatible with C\+\+ DDP Reducer",
      "traceback", "failure", "unclassified_failure", "2.5 - 2.9 (first release not checked)",
      "pytorch:torch/csrc/distributed/c10d/reducer.cpp:Reducer::initialize_buckets (compiled args hook)",
      'RuntimeError: Compiled autograd is not compatible with C++ DDP Reducer, please use '
      'torch._dynamo.config.optimize_ddp="python_reducer".', "Compiled autograd is not compatible with C++ DDP Reducer",
      data=_USAGE),
    M("pytorch.compiled_autograd_threads",
      r"compiled_autograd\.enable\(\) requires no threads in backwards\(\)",
      "traceback", "failure", "unclassified_failure", "2.2 - 2.9 (first release not checked)",
      "pytorch:torch/csrc/autograd/engine.cpp:set_compiled_autograd",
      "RuntimeError: compiled_autograd.enable() requires no threads in backwards()",
      "compiled_autograd.enable() requires no threads in backwards()", data=_COMPILE),
    # DDPOptimizer splits the compiled graph at DDP's bucket boundaries: notes of how, printed at the first compile
    M("pytorch.ddp_optimizer_buckets",
      r"DDPOptimizer used bucket cap (?P<bucket_bytes>\d+) and (?:created (?P<count>\d+) buckets|produced the "
      r"following buckets|split graphs into)", "warn", "benign", None, "2.0 - 2.9 (three wordings; the release of each not checked)",
      _DYNAMO + "backends/distributed.py:pretty_print_buckets, DDPOptimizer.compile_fn",
      "I1127 03:11:02.500000 5000 torch/_dynamo/backends/distributed.py:91] [0/0] DDPOptimizer used bucket cap "
      "26214400 and created 7 buckets. Enable debug logs for detailed bucket info.",
      "DDPOptimizer used bucket cap 26214400 and created 7 buckets", data=_COMPILE, anchor="DDPOptimizer used bucket cap "),
    M("pytorch.ddp_optimizer_extended_buckets",
      r"Some buckets were extended beyond their requested parameter capacities", "warn", "benign", None, "2.1 - 2.9",
      _DYNAMO + "backends/distributed.py:pretty_print_buckets",
      "W1127 03:11:02.500000 5000 torch/_dynamo/backends/distributed.py:100] [0/0] Some buckets were extended beyond "
      "their requested parameter capacities in order to ensure each subgraph has an output node",
      "Some buckets were extended beyond their requested parameter capacities", data=_COMPILE),
    # the pre-2.2 names of c10d's settings still work; getCvar* says which name replaced them (once per name)
    M("pytorch.deprecated_nccl_env",
      r"Environment variable (?P<old>\w+) is deprecated; use (?P<new>\w+) instead",
      "warn", "benign", None, "2.2 - 2.9", "pytorch:torch/csrc/distributed/c10d/Utils.hpp:getCvarString/Int/Bool",
      "[W Utils.hpp:133] Warning: Environment variable NCCL_ASYNC_ERROR_HANDLING is deprecated; use "
      "TORCH_NCCL_ASYNC_ERROR_HANDLING instead (function getCvarInt)",
      "Environment variable NCCL_ASYNC_ERROR_HANDLING is deprecated; use TORCH_NCCL_ASYNC_ERROR_HANDLING instead",
      anchor="is deprecated; use "),
    M("pytorch.avoid_record_streams_default",
      (r"TORCH_NCCL_AVOID_RECORD_STREAMS is the default now", r", this environment variable is thus deprecated"),
      "warn", "benign", None, "2.7 - 2.9 (first release not checked)", _PG + ":ProcessGroupNCCL (TORCH_WARN_ONCE)",
      "[W1127 03:10:09.771034112 ProcessGroupNCCL.cpp:981] Warning: TORCH_NCCL_AVOID_RECORD_STREAMS is the default "
      "now, this environment variable is thus deprecated. (function operator())",
      "TORCH_NCCL_AVOID_RECORD_STREAMS is the default now"),
    # split_group needs the default (parent) group bound to a device (init_process_group(device_id=...))
    M("pytorch.split_group_no_device",
      (r"No device associated with the (?P<group>default|parent) pg, not safe to split", r" any process groups"),
      "traceback", "failure", "unclassified_failure", "2.5 - 2.9 (`parent pg` in its first form; not checked)",
      _C10D + ":split_group",
      "RuntimeError: No device associated with the default pg, not safe to split any process groups",
      "No device associated with the default pg, not safe to split", data=_USAGE,
      anchor="pg, not safe to split"),
    # shrink_group -> ProcessGroupNCCL::shrink's checks (ncclCommShrink needs NCCL 2.27): refused before any
    # communicator changes, alike on every remaining rank
    M("pytorch.nccl_shrink_refused",
      r"(?P<reason>nccl2 shrink requires NCCL 2\.27 or later|ranks_to_exclude cannot be empty|Cannot exclude all ranks "
      r"from an NCCL communicator|NCCL communicator membership cannot change while work is pending)",
      "traceback", "failure", "unclassified_failure", "2.9 (first release not checked)",
      _PG + ":ProcessGroupNCCL::shrink, checkNoPendingWork",
      "RuntimeError: nccl2 shrink requires NCCL 2.27 or later", "nccl2 shrink requires NCCL 2.27 or later",
      data=_USAGE, anchor="nccl2 shrink requires|ranks_to_exclude cannot be empty|Cannot exclude all ranks from|"
      "membership cannot change while work is pending"),
    # a torch built against an NCCL older than 2.7 (no ncclSend/ncclRecv: ENABLE_NCCL_P2P_SUPPORT unset) compiles
    # alltoall, send and recv as stubs that raise this, whatever NCCL the job loads at run time: the build's NCCL
    # is too old for the call (std::runtime_error 1.6 - 1.10, TORCH_CHECK later): the build and the library differ
    M("pytorch.p2p_needs_nccl_2_7",
      r"ProcessGroupNCCL only supports (?P<op>alltoall\*|send|recv) for NCCL lib version >= 2\.7\.0",
      "traceback", "failure", "version_mismatch", "1.6 - 2.x (builds against NCCL < 2.7; last release not checked)",
      _PG + ":alltoall_base, alltoall, send, recv (#else of ENABLE_NCCL_P2P_SUPPORT)",
      "RuntimeError: ProcessGroupNCCL only supports alltoall* for NCCL lib version >= 2.7.0",
      "ProcessGroupNCCL only supports alltoall* for NCCL lib version >= 2.7.0",
      data={"category": "nccl_caller_build", "setup": True}, anchor="for NCCL lib version >= 2.7.0"),
    # ---- ProcessGroupUCC (torch's UCC backend, 1.13+): its progress thread logs a collective UCC completed with an
    # error (`[Rank N][ProcessGroupUCC-<pg>][COLL_PROGRESS][ERROR] Failed to progress communication` and the status
    # text with no space), and the work then raises that status text alone (`RuntimeError: Timeout expired`): the
    # traceback is this line's failure (`raises_reason`), no exception of the rank's own. UCC_ERR_TIMED_OUT is the
    # process group's timeout (set_timeout on every collective); any other status is a transport's failure UCC turned
    # into UCC_ERR_NO_MESSAGE (`Unhandled error`): the transport's own line (UCX, UCC's tl/ucp) names its class
    M("pytorch.ucc_progress_timeout",
      r"\[Rank (?P<rank>\d+)\]\[ProcessGroupUCC-(?P<pg>\d+)\]\[COLL_PROGRESS\]\[ERROR\] Failed to progress "
      r"communication ?(?P<reason>Timeout expired)",
      "watchdog_timeout", "failure", "timeout_unknown", "1.13 - 2.9 (first release of the wording not checked)",
      "pytorch:torch/csrc/distributed/c10d/ProcessGroupUCC.cpp:Comm::progress_loop (ucc_status_string)",
      "E1127 11:10:12.801000 7740 ProcessGroupUCC.cpp:671] [Rank 1][ProcessGroupUCC-0][COLL_PROGRESS][ERROR] Failed "
      "to progress communicationTimeout expired",
      "[Rank 1][ProcessGroupUCC-0][COLL_PROGRESS][ERROR] Failed to progress communicationTimeout expired",
      data={"raises_reason": True}, anchor="[COLL_PROGRESS][ERROR] Failed to progress communication"),
    M("pytorch.ucc_progress_failed",
      r"\[Rank (?P<rank>\d+)\]\[ProcessGroupUCC-(?P<pg>\d+)\]\[COLL_PROGRESS\]\[ERROR\] Failed to progress "
      r"communication ?(?P<reason>(?!Timeout expired)[A-Z][\w /-]*)",
      "dist_backend_error", "failure", None, "1.13 - 2.9 (first release of the wording not checked)",
      "pytorch:torch/csrc/distributed/c10d/ProcessGroupUCC.cpp:Comm::progress_loop (ucc_status_string)",
      "E1127 10:31:38.771300 90140 ProcessGroupUCC.cpp:671] [Rank 0][ProcessGroupUCC-0][COLL_PROGRESS][ERROR] Failed "
      "to progress communicationUnhandled error",
      "[Rank 0][ProcessGroupUCC-0][COLL_PROGRESS][ERROR] Failed to progress communicationU",
      data={"raises_reason": True}, anchor="[COLL_PROGRESS][ERROR] Failed to progress communication"),
]
