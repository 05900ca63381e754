"""The launchers' lines about their workers: torchrun / torch.distributed.elastic, torch.distributed.launch,
DeepSpeed (and pdsh, its multi-node runner), composer, accelerate, Open MPI, MPICH/Hydra, Slurm srun/slurmstepd (and
its PMIx plugin), Horovod, Ray, submitit, text-generation-inference, Kubeflow's training-operator, the kubelet and
kube-scheduler, PBS (OpenPBS/PBS Pro, Torque), IBM LSF, SkyPilot and torchx.

Read in pytorch/pytorch torch/distributed/elastic/{agent/server/api.py, multiprocessing/api.py,
multiprocessing/errors/__init__.py} (1.9 - 2.13), deepspeedai/DeepSpeed deepspeed/launcher/launch.py
(sigkill_handler), mosaicml/composer composer/cli/launcher.py, huggingface/accelerate
src/accelerate/commands/launch.py, open-mpi/ompi orte/orted help-errmgr-base.txt / prte help files,
opal/util/stacktrace.c, ompi/mca/bml/r2 and opal/mca/btl/tcp help files, pmodels/mpich src/pm/hydra (pmiserv_cb.c)
and src/mpid/ch4/netmod/ofi (ofi_events.c, errnames.txt), Intel MPI's i_hydra as it prints (i_mpiexec.c),
SchedMD/slurm src/srun and src/slurmd/slurmstepd,
horovod/horovod horovod/common/operations.cc and runner/, ray-project/ray python/ray/exceptions.py,
src/ray/gcs/gcs_server (gcs_node_manager.cc, gcs_actor_manager.cc), src/ray/core_worker/task_manager.cc,
python/ray/util/collective and python/ray/train/v2, facebookincubator/submitit
submitit/core/job_environment.py, kubeflow/training-operator pkg/controller.v1, kubernetes pkg/kubelet/eviction,
nodeshutdown and kuberuntime, pkg/scheduler/framework/preemption, pkg/controller/job; openpbs/openpbs src/resmom/mom_main.c; LSF's
termination reasons (lsbatch.h, as its job report prints them); skypilot-org/skypilot cloud_vm_ray_backend.py and
skylet/log_lib.py; pytorch/torchx torchx/cli/cmd_run.py; chaos/pdsh src/common/pipecmd.c, src/modules/sshcmd.c and
src/pdsh/dsh.c (2.0 - 2.35); open-mpi/ompi v4.1 orterun help and openpmix/prrte
help-prun.txt / help-errmgr-base.txt; the serving
stacks' own stall lines (vllm-project/vllm shm_broadcast.py, sgl-project/sglang managers/scheduler.py,
entrypoints/engine.py and model_executor/model_runner.py), text-generation-inference's launcher
(huggingface/text-generation-inference launcher/src/main.rs) and bash's job report (jobs.c).
"""
from __future__ import annotations

from ... import signals
from . import Message as M

_ELASTIC = "pytorch:torch/distributed/elastic/multiprocessing/api.py"
_SIG = r"(?P<signal>SIG[A-Z]+)"
# torch.distributed.launch <= 1.8 passes each worker `--local_rank=K` (unless --use_env), but the command line its
# CalledProcessError prints is `cmd`, the variable of its spawn loop: the *last* worker's, whichever failed (1.0 - 1.6
# `raise CalledProcessError(returncode=process.returncode, cmd=cmd)` after waiting each process; 1.7 - 1.8 and
# DeepSpeed 0.3.11 - 0.5.7 the same from `sigkill_handler`). It names the failed worker only with one process per
# node (K = 0; fields_of turns `last_local_rank` 0 into the local rank). accelerate's command lines hold none.
# Horovod's stall check runs in its coordinator only (`if (is_coordinator)`: operations.cc 0.9 - 0.18, controller.cc
# 0.19+), and the coordinator is rank 0: its report is rank 0's wherever no wrapper names the rank
_HOROVOD_STALL = {"state": "failed", "reporter_rank": 0}
_LOCAL_RANK_ARG = r"(?:[^\]]*?'--local[_-]rank=(?P<last_local_rank>\d+)')?"


def _killed_by(fields: dict) -> dict:
    """A signal printed by its number: the exit code Python's subprocess would report for it (-N), and its name."""
    num = fields.get("signum")
    return {"exitcode": -num, "signal": signals.NAMES.get(num)} if isinstance(num, int) else {}


MESSAGES = [
    # ---- torch elastic (torchrun, torch.distributed.launch >= 1.9)
    M("torchrun.worker_failed",
      (r"failed \(exitcode: (?P<exitcode>-?\d+)\) local_rank: (?P<local_rank>\d+)", r" \(pid: (?P<pid>\d+)\)",
       r" of (?:binary|fn): (?P<entrypoint>\S+)"),
      "worker_failed", "failure", None, "1.9 - 2.13", _ELASTIC + ":PContext.wait",
      "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -11) local_rank: 0 (pid: 1932) of binary: "
      "/usr/bin/python3", "failed (exitcode: -11) local_rank: 0", anchor="failed (exitcode:"),
    M("torchrun.worker_failed_located",
      r"failed \(exitcode: (?P<exitcode>-?\d+)\) for (?:binary|fn) located at (?P<entrypoint>\S+) with local_rank: "
      r"(?P<local_rank>\d+)(?: \((?:process ID|pid): (?P<pid>\d+)\))?",
      "worker_failed", "failure", None, "2.6 - 2.13", _ELASTIC + ":PContext.wait",
      "failed (exitcode: -9) for binary located at /usr/bin/python with local_rank: 3 (process ID: 812917)",
      "failed (exitcode: -9) for binary located at /usr/bin/python with local_rank: 3", anchor="failed (exitcode:"),
    M("torchrun.worker_failed_cut",
      # the agent's line cut after its exit code (a quote that keeps only `...multiprocessing.api:failed (exitcode:
      # -9)`): the logger's name says it is torchrun's report of a worker that failed; the full line is the entries
      # above (the lookahead leaves it to them)
      r"elastic\.multiprocessing\.api: ?(?:\[\w+\] )?failed \(exitcode: (?P<exitcode>-?\d+)\)(?! local_rank| for (?:binary|fn))",
      "worker_failed", "failure", None, "1.9 - 2.13", _ELASTIC + ":PContext.wait",
      "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -9)",
      "elastic.multiprocessing.api:failed (exitcode: -9)", anchor="multiprocessing.api"),
    M("torchrun.closing_signal",
      # the signal's name is the tail: a paste cut inside it (`closing signal SIG`) still says the agent tears down
      (r"Sending process (?P<pid>\d+) (?:the )?closing signal", " " + _SIG),
      "sigterm_sent", "consequence", None, "1.9 - 2.13", _ELASTIC + ":PContext._close",
      "WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 812914 closing signal SIGTERM",
      "Sending process 812914 closing signal SIGTERM", anchor="Sending process"),
    # torch.distributed.elastic.timer: a worker that overran its `expires(after=...)` scope is reaped (SIGKILL by
    # default) by the timer server's watchdog, which logs the worker's pid and the scopes first (LocalTimerServer:
    # `worker_id`, FileTimerServer: `worker_pid`). The worker did not finish that block in time: it was stuck there.
    M("torchrun.timer_reaped",
      (r"Reaping worker_(?:id|pid)=\[(?P<worker_pid>[^\]]*)\]\.", r" Expired timers?: (?P<scopes>.*)"),
      "agent_log", "failure", "stuck_rank", "1.9 - 2.9 (FileTimerServer 2.0+)",
      "pytorch:torch/distributed/elastic/timer/api.py:TimerServer._run_watchdog, "
      "timer/file_based_local_timer.py:FileTimerServer._run_watchdog",
      "INFO:torch.distributed.elastic.timer.api:Reaping worker_id=[48213]. Expired timers: ['train.py#212']",
      "Reaping worker_id=[48213].", data={"category": "timer_expired"}, anchor="Reaping worker_"),
    M("torchrun.forced_kill",
      (r"Unable to shutdown process (?P<pid>\d+) via (?:Signals\.)?(?P<signal>SIG[A-Z]+|(?P<signum>\d+))",
       r" ?, forcefully exiting via"),
      "sigterm_sent", "consequence", None, "1.9 - 2.13", _ELASTIC + ":PContext._close",
      "Unable to shutdown process 812914 via Signals.SIGTERM, forcefully exiting via Signals.SIGKILL",
      "Unable to shutdown process 812914 via Signals.SIGTERM", anchor="Unable to shutdown process"),
    M("torchrun.rc_time",
      # an entry's first row (format_msg's template: time, host, rank, exitcode, error_file, traceback), in the
      # ProcessFailure's own timestamp format (`%Y-%m-%d_%H:%M:%S`): the time torchrun saw that process fail
      r"^\s*time\s*: ?(?P<time>\d{4}-\d\d-\d\d_\d\d:\d\d:\d\d)\s*$",
      "child_failed", "failure", None, "1.9 - 2.13", "pytorch:torch/distributed/elastic/multiprocessing/errors/"
      "__init__.py:ChildFailedError.format_msg", "  time      : 2024-03-05_07:01:51", "  time      : 2024-03-05_07:01:51",
      data={"root_cause": None}, anchor="time      :"),
    M("torchrun.rc_rank",
      # the table's cells pasted glued (`rank2 (local rank: 2)exitcode: -9 (pid: N)`), as a copy of its rendering
      r"^\s*rank\s*:? ?(?P<rank>\d+) ?\(local[_ ]rank: ?(?P<local_rank>\d+)\)",
      "child_failed", "failure", None, "1.9 - 2.13", "pytorch:torch/distributed/elastic/multiprocessing/errors/"
      "__init__.py:ChildFailedError.format_msg", "  rank      : 0 (local_rank: 0)", "  rank      : 0 (local_rank: 0)",
      data={"root_cause": None}, anchor="(local_rank:|(local rank:"),
    M("torchrun.rc_exitcode",
      r"(?:^\s*|\(local[_ ]rank: ?\d+\))exitcode\s*: ?(?P<exitcode>-?\d+) \(pid: (?P<pid>\d+)\)"
      r"(?:\s+\((?P<signal>SIG[A-Z]+)\))?",
      "child_failed", "failure", None, "1.9 - 2.13", "pytorch:torch/distributed/elastic/multiprocessing/errors/"
      "__init__.py:ChildFailedError.format_msg", "  exitcode  : -11 (pid: 6421)", "  exitcode  : -11 (pid: 6421)",
      anchor="(pid: "),
    M("torchrun.signal_received",
      r"[Ss]ignal (?P<signum>\d+) \((?P<signal>SIG[A-Z]+)\) received by PID (?P<pid>\d+)",
      "child_failed", "failure", None, "1.9 - 2.13", "pytorch:torch/distributed/elastic/multiprocessing/api.py:"
      "_wrap / errors.ProcessFailure", "  traceback : Signal 11 (SIGSEGV) received by PID 6421",
      "Signal 11 (SIGSEGV) received by PID 6421", anchor="received by PID"),
    M("torchrun.worker_group_failed",
      (r"Worker group FAILED\.", r" (?P<count>\d+)/(?P<max>\d+) attempts left"),
      "agent_log", "consequence", None, "1.9 - 2.13", "pytorch:torch/distributed/elastic/agent/server/api.py:_invoke_run",
      "[default] Worker group FAILED. 3/3 attempts left; will restart worker group", "Worker group FAILED.",
      anchor="Worker group FAILED"),
    # the agent building a failed worker's ProcessFailure reads its error file (errors/__init__.py __post_init__) and
    # raises when it cannot parse it (a rank still writing it, or a file cut short): torchrun dies without its failure
    # table, after a worker had failed
    M("torchrun.reply_file_unparsable",
      r"Failed to parse reply file: (?P<error_file>\S+)",
      "agent_log", "consequence", None, "1.9 - 2.13",
      "pytorch:torch/distributed/elastic/multiprocessing/errors/__init__.py:ProcessFailure.__post_init__",
      "ERROR:torch.distributed.elastic.multiprocessing.errors:Failed to parse reply file: "
      "/tmp/torchelastic_x/none_y/attempt_0/0/error.json", "Failed to parse reply file: /tmp/torchelastic_x/none_y",
      anchor="Failed to parse reply file"),
    M("torchrun.worker_group_succeeded",
      r"(?:Local worker group finished \((?:WorkerState\.)?SUCCEEDED\)|worker group successfully finished)",
      "agent_log", "healthy", None, "1.9 - 2.13", "pytorch:torch/distributed/elastic/agent/server/api.py:_invoke_run",
      "INFO:torch.distributed.elastic.agent.server.api:[default] worker group successfully finished. Waiting 300 "
      "seconds for other agents to finish.", "worker group successfully finished",
      anchor="Local worker group finished|worker group successfully finished"),
    # ... and when every agent of the job reached that exit barrier (each one does only after its own workers
    # SUCCEEDED: a node whose workers failed never comes, and the others' wait ends in the error below), it logs this:
    # every node's workers succeeded
    M("torchrun.exit_barrier_passed",
      r"Done waiting for other agents\. Elapsed: [\d.e-]+ seconds",
      "agent_log", "healthy", None, "1.9 - 2.13", "pytorch:torch/distributed/elastic/agent/server/api.py:_exit_barrier",
      "INFO:torch.distributed.elastic.agent.server.api:Done waiting for other agents. Elapsed: 0.0013 seconds",
      "Done waiting for other agents. Elapsed: 0.0013 seconds", data={"scope": "job"},
      anchor="Done waiting for other agents"),
    # After its own workers SUCCEEDED the agent waits for every other agent at the exit barrier (store_util.barrier
    # under `_exit_barrier`, TORCHELASTIC exit_barrier_timeout, 300 s); when that wait ends in an error it logs this
    # with the store's error below it (log.exception: the traceback, then `DistStoreError: Socket Timeout`) and
    # returns its success all the same: another node's agent was slower by more than the timeout, or never finished
    # (its workers failed: a failed agent skips the barrier). Nothing failed on this node; the store wait under it is
    # the barrier's (sources/messages.py).
    M("torchrun.exit_barrier_error",
      (r"Error waiting on exit barrier\.", r" Elapsed: (?P<seconds>[\d.]+) seconds"),
      "agent_log", "benign", None, "1.9 - 2.13 (f-string to 2.1, `%s` after)",
      "pytorch:torch/distributed/elastic/agent/server/api.py:_exit_barrier",
      "E1126 13:45:35.118955 139795 torch/distributed/elastic/agent/server/api.py:951] Error waiting on exit barrier. "
      "Elapsed: 300.10335206985474 seconds", "Error waiting on exit barrier.", anchor="Error waiting on exit barrier"),
    # the same barrier's traceback, as CPython prints its frame in the agent's `_exit_barrier`: a paste that kept the
    # traceback without the log line above it still shows whose wait the store error below it was (sources/messages.py)
    M("torchrun.exit_barrier_frame",
      r"torch/distributed/elastic/agent/server/api\.py\", line \d+, in _exit_barrier\b",
      "agent_log", "benign", None, "1.9 - 2.13", "pytorch:torch/distributed/elastic/agent/server/api.py:_exit_barrier",
      "  File \"/usr/lib/python3/dist-packages/torch/distributed/elastic/agent/server/api.py\", line 904, in _exit_barrier",
      "  File \"/usr/lib/python3/dist-packages/torch/distributed/elastic/agent/server/api.py\", line 904, in _exit_barrier",
      anchor="in _exit_barrier"),
    # The agent's `Received {sigval} death signal` (f-string to 2.1, `%s` from 2.2) formats a signal.Signals: its
    # name (`Signals.SIGTERM`) where str() of the IntEnum gives it (`%s` before Python 3.11), its number (`15`) where
    # format() or Python 3.11+ str() gives that. Either way the agent itself was told to stop from outside.
    M("torchrun.death_signal",
      (r"Received (?:(?:Signals\.)?(?P<signal>SIG[A-Z]+)|(?P<signum>\d+)) death signal", r", shutting down workers"),
      "sigterm_sent", "consequence", None, "1.9 - 2.13", "pytorch:torch/distributed/elastic/agent/server/api.py:"
      "SimpleElasticAgent.run",
      "Received Signals.SIGTERM death signal, shutting down workers", "Received Signals.SIGTERM death signal",
      anchor="death signal"),
    # what the agent's signal handler raises (multiprocessing/api.py _terminate_process_handler), printed as the
    # launcher's last exception: `got signal: 15` (the f-string gives the number)
    M("torchrun.signal_exception",
      r"SignalException: Process (?P<pid>\d+) got signal: (?:(?:Signals\.)?(?P<signal>SIG[A-Z]+)|(?P<signum>\d+))",
      "sigterm_sent", "consequence", None, "1.9 - 2.13", _ELASTIC + ":_terminate_process_handler",
      "torch.distributed.elastic.multiprocessing.api.SignalException: Process 2920830 got signal: 1",
      "SignalException: Process 2920830 got signal: 1", anchor="SignalException: Process"),
    M("torchrun.closing_process",
      r"Closing process (?P<pid>\d+) via signal " + _SIG,
      "sigterm_sent", "consequence", None, "1.9 - 2.13", _ELASTIC + ":MultiprocessContext._close",
      "W0101 12:00:00.000000 4242 torch/distributed/elastic/multiprocessing/api.py:869] Closing process 4243 via signal "
      "SIGTERM", "Closing process 4243 via signal SIGTERM", anchor="Closing process"),
    M("torchrun.worker_failed_fn",
      (r"failed \(exitcode: (?P<exitcode>-?\d+)\) local_rank: (?P<local_rank>\d+) \(pid: (?P<pid>\d+)\) of fn: "
       r"(?P<entrypoint>\S+)", r" \(start_method: (?P<start_method>\w+)\)"),
      "worker_failed", "failure", None, "1.9 - 2.13", _ELASTIC + ":MultiprocessContext._poll",
      "failed (exitcode: 1) local_rank: 2 (pid: 5120) of fn: main (start_method: spawn)",
      "failed (exitcode: 1) local_rank: 2 (pid: 5120) of fn: main", anchor="failed (exitcode:"),
    M("torchrun.child_failed_error",
      r"(?:torch\.distributed\.elastic\.multiprocessing\.errors\.)?ChildFailedError:",
      # torchrun reporting its workers' failures (the table below it names them): their consequence, not a failure
      "traceback", "consequence", None, "1.9 - 2.13", "pytorch:torch/distributed/elastic/multiprocessing/errors/__init__.py:"
      "ChildFailedError", "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
      "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:",
      data={"exc_type": "ChildFailedError", "launcher": True},
      anchor="ChildFailedError:"),
    M("torchrun.rendezvous_error",
      r"(?:torch\.distributed\.elastic\.rendezvous\.api\.|torchelastic\.rendezvous\.(?:api\.)?)?"
      r"(?P<exc_type>Rendezvous(?:Closed|Connection|State)?Error|RendezvousClosedException)\b",
      "dist_backend_error", "failure", None, "1.9 - 2.13", "pytorch:torch/distributed/elastic/rendezvous/api.py",
      "torch.distributed.elastic.rendezvous.api.RendezvousClosedError", "RendezvousClosedError",
      anchor="RendezvousClosedError|RendezvousConnectionError|RendezvousStateError|RendezvousError|"
             "RendezvousClosedException"),
    M("torchrun.rendezvous_graceful_exit",
      # dynamic_rendezvous's join op on a node of the redundancy list (a spare beyond max_nodes) that finds the
      # rendezvous closed raises RendezvousGracefulExitError (`The rendezvous '%s' is closed, terminating pending
      # rendezvous.`); the agent's run() catches it and logs `Rendezvous gracefully exited: %s`. api.py's docstring:
      # "a mechanism to exit the stack, however does not mean a failure"
      r"Rendezvous gracefully exited: |(?:torch\.distributed\.elastic\.rendezvous\.api\.)?RendezvousGracefulExitError\b",
      "agent_log", "benign", None, "torch 2.4 - 2.13",
      "pytorch:torch/distributed/elastic/rendezvous/dynamic_rendezvous.py:_RendezvousJoinOp; agent/server/api.py:run",
      "Rendezvous gracefully exited: The rendezvous 'job7' is closed, terminating pending rendezvous.",
      "Rendezvous gracefully exited: ", anchor="Rendezvous gracefully exited|RendezvousGracefulExitError"),
    M("torchrun.rendezvous_dead_nodes_removed",
      # _BackendRendezvousStateHolder.sync (DEBUG): the state's sanitizer dropped participants whose last keep-alive
      # is older than keep_alive_interval x keep_alive_max_attempt: their agents stopped heart-beating (node or agent
      # died, or it lost the store)
      (r"the node\(s\) (?P<nodes>'[^']+'(?:, '[^']+')*) have been removed from the rendezvous '(?P<run_id>[^']+)'",
       r" since they had no heartbeat"),
      "worker_failed", "failure", "dropped_rank", "torch 1.9 - 2.13",
      "pytorch:torch/distributed/elastic/rendezvous/dynamic_rendezvous.py:_BackendRendezvousStateHolder.sync",
      "As part of the sync operation the node(s) 'gpu-2_28672_0' have been removed from the rendezvous 'job11' since "
      "they had no heartbeat.", "the node(s) 'gpu-2_28672_0' have been removed from the rendezvous 'job11'",
      anchor="have been removed from the rendezvous"),
    M("torchrun.rendezvous_timeout",
      # torchelastic 0.1 - 0.2 (pytorch/elastic, before it moved into torch 1.9) named it RendezvousTimeoutException;
      # its etcd handler logged `Rendezvous timeout occured in EtcdRendezvousHandler` (sic) before re-raising
      r"(?:torch\.distributed\.elastic\.rendezvous\.api\.|torchelastic\.rendezvous\.(?:api\.)?)?"
      r"(?P<exc_type>RendezvousTimeout(?:Error|Exception))\b|Rendezvous timeout occured in EtcdRendezvousHandler",
      "dist_backend_error", "failure", "missing_rank", "torchelastic 0.1 - 0.2, torch 1.9 - 2.13",
      "pytorch:torch/distributed/elastic/rendezvous/api.py; elastic:torchelastic/rendezvous/etcd_rendezvous.py",
      "torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError", "RendezvousTimeoutError",
      anchor="RendezvousTimeoutError|RendezvousTimeoutException|Rendezvous timeout occured"),
    M("torchrun.rendezvous_keep_alive_failed",
      # dynamic_rendezvous._keep_alive: the node could not reach the rendezvous backend (its store or etcd) for a
      # heartbeat; the error type says why (a RendezvousConnectionError: the store's host is unreachable or gone)
      (r"The node '(?P<node>[^']+)' has failed to send a keep-alive heartbeat to the rendezvous '(?P<run_id>[^']+)'",
       r" due to an error of type (?P<exc_type>\w+)"),
      "dist_backend_error", "failure", "network_error", "torch 1.9 - 2.13",
      "pytorch:torch/distributed/elastic/rendezvous/dynamic_rendezvous.py:_keep_alive",
      "The node 'node-3_7121_0' has failed to send a keep-alive heartbeat to the rendezvous 'a1b2c3' due to an error "
      "of type RendezvousConnectionError.", "The node 'node-3_7121_0' has failed to send a keep-alive heartbeat to the "
      "rendezvous 'a1b2c3'", anchor="has failed to send a keep-alive heartbeat"),
    M("torchrun.rendezvous_shutdown_failed",
      # DynamicRendezvousHandler.shutdown, which the agent calls as it exits (run's finally; 2.0+ also on a signal):
      # closing the rendezvous failed with a RendezvousError. A consequence of the agent's end; the error type says
      # why it could not close it (a RendezvousConnectionError: the store's host is unreachable or already gone)
      (r"The node '(?P<node>[^']+)' has failed to shutdown the rendezvous '(?P<run_id>[^']+)'",
       r" due to an error of type (?P<exc_type>\w+)"),
      "dist_backend_error", "consequence", "network_error", "torch 1.9 - 2.13",
      "pytorch:torch/distributed/elastic/rendezvous/dynamic_rendezvous.py:DynamicRendezvousHandler.shutdown",
      "The node 'worker-1_17_0' has failed to shutdown the rendezvous 'none' due to an error of type "
      "RendezvousConnectionError.", "The node 'worker-1_17_0' has failed to shutdown the rendezvous 'none'",
      anchor="has failed to shutdown the rendezvous"),
    # ---- torch.multiprocessing.spawn (mp.spawn / start_processes): the process index is the local rank
    M("mpspawn.terminated_signal",
      r"process (?P<local_rank>\d+) terminated with signal (?P<signal>SIG[A-Z]+|<Unknown signal \d+>)",
      "worker_failed", "failure", None, "1.0 - 2.13", "pytorch:torch/multiprocessing/spawn.py:ProcessContext.join",
      "torch.multiprocessing.spawn.ProcessExitedException: process 1 terminated with signal SIGKILL",
      "process 1 terminated with signal SIGKILL", anchor="terminated with signal"),
    M("mpspawn.terminated_exit_code",
      r"process (?P<local_rank>\d+) terminated with exit code (?P<exitcode>-?\d+)",
      "worker_failed", "failure", None, "1.0 - 2.13", "pytorch:torch/multiprocessing/spawn.py:ProcessContext.join",
      "torch.multiprocessing.spawn.ProcessExitedException: process 3 terminated with exit code 1",
      "process 3 terminated with exit code 1", anchor="terminated with exit code"),
    M("mpspawn.raised",
      r"-- Process (?P<local_rank>\d+) terminated with the following error:",
      "worker_failed", "failure", None, "1.0 - 2.13", "pytorch:torch/multiprocessing/spawn.py:ProcessContext.join",
      "-- Process 2 terminated with the following error:", "-- Process 2 terminated with the following error:",
      data={"exitcode": 1}, anchor="terminated with the following error"),
    M("mpspawn.terminating",
      r"Terminating process (?P<pid>\d+) via signal " + _SIG,
      "sigterm_sent", "consequence", None, "2.2 - 2.13", "pytorch:torch/multiprocessing/spawn.py:ProcessContext.join",
      "Terminating process 4821 via signal SIGTERM", "Terminating process 4821 via signal SIGTERM",
      anchor="Terminating process"),
    M("deepspeed.main_received_signal",
      r"Main process received (?P<signal>SIG[A-Z]+), exiting",
      "sigterm_sent", "consequence", None, "DeepSpeed 0.3.11 - 0.16", "deepspeed:deepspeed/launcher/launch.py:sigkill_handler",
      "[INFO] [launch.py:328:sigkill_handler] Main process received SIGTERM, exiting",
      "Main process received SIGTERM, exiting", anchor="Main process received"),
    # ---- torch.distributed.launch before elastic (<= 1.8)
    M("launch.subprocess_error",
      r"subprocess\.CalledProcessError: Command '(?P<cmd>" + _LOCAL_RANK_ARG + r".*?)' died with <Signals\.(?P<signal>SIG[A-Z]+): (?P<signum>\d+)>",
      "worker_failed", "failure", None, "1.0 - 1.8", "pytorch:torch/distributed/launch.py:main",
      "subprocess.CalledProcessError: Command '['/usr/bin/python', '-u', 'train.py', '--local_rank=3']' died with "
      "<Signals.SIGKILL: 9>.", "subprocess.CalledProcessError: Command '['/usr/bin/python', '-u', 'train.py', "
      "'--local_rank=3']' died with <Signals.SIGKILL: 9>", anchor="subprocess.CalledProcessError"),
    # ---- DeepSpeed's launcher
    M("deepspeed.exit_code",
      r"(?:sigkill_handler\] )?\[.*?'--local_rank=(?P<last_local_rank>\d+)'.*?\] exits with return code = (?P<exitcode>-?\d+)",
      "worker_failed", "failure", None, "DeepSpeed 0.5.8 - 0.16", "deepspeed:deepspeed/launcher/launch.py:sigkill_handler",
      "[ERROR] [launch.py:321:sigkill_handler] ['/usr/bin/python', '-u', 'main.py', '--local_rank=7', '--deepspeed'] "
      "exits with return code = -9", "[ERROR] [launch.py:321:sigkill_handler] ['/usr/bin/python', '-u', 'main.py', "
      "'--local_rank=7', '--deepspeed'] exits with return code = -9", anchor="exits with return code"),
    M("deepspeed.exit_code_bare",
      r"(?:sigkill_handler\] )?exits with return code = (?P<exitcode>-?\d+)",
      "worker_failed", "failure", None, "DeepSpeed 0.5.8 - 0.16", "deepspeed:deepspeed/launcher/launch.py:sigkill_handler",
      "[launch.py:184:sigkill_handler] exits with return code = 247", "exits with return code = 247",
      anchor="exits with return code"),
    # the launcher states the world it starts (every node's launcher the whole world: `dist_world_size=N`), and logs
    # each of its processes that exits 0 by pid; torch's rank of that pid is the NCCL init line's. A line per process,
    # so no job's health by itself: Context.launcher_success counts them against the world
    M("deepspeed.world_size",
      r"\bdist_world_size=(?P<nranks>\d+)",
      "launcher_world", "benign", None, "DeepSpeed 0.1 - 0.19", "deepspeed:deepspeed/launcher/launch.py:main",
      "[INFO] [launch.py:163:main] dist_world_size=8", "dist_world_size=8", anchor="dist_world_size="),
    M("deepspeed.process_exited_ok",
      r"Process (?P<pid>\d+) exits successfully\.",
      "worker_exit", "healthy", None, "DeepSpeed 0.5.7 - 0.19", "deepspeed:deepspeed/launcher/launch.py:main",
      "[INFO] [launch.py:351:main] Process 24905 exits successfully.", "Process 24905 exits successfully.",
      data={"scope": "process"}, anchor="exits successfully"),
    # each worker it starts, with its command line: the pid's local rank (its `--local_rank=K`), which a kernel line
    # naming only the pid (the OOM killer's) needs
    M("deepspeed.spawned",
      r"process (?P<pid>\d+) spawned with command: \[[^\]]*?'--local[_-]rank=(?P<local_rank>\d+)'",
      "worker_spawned", "benign", None, "DeepSpeed 0.3.11 - 0.19", "deepspeed:deepspeed/launcher/launch.py:main",
      "[INFO] [launch.py:256:main] process 5120 spawned with command: ['/usr/bin/python3', '-u', 'train.py', "
      "'--local_rank=0', '--deepspeed']", "[INFO] [launch.py:256:main] process 5120 spawned with command: "
      "['/usr/bin/python3', '-u', 'train.py', '--local_rank=0'", anchor="spawned with command"),
    M("deepspeed.killing_subprocess",
      r"Killing subprocess (?P<pid>\d+)",
      "sigterm_sent", "consequence", None, "DeepSpeed 0.3.11 - 0.16", "deepspeed:deepspeed/launcher/launch.py:sigkill_handler",
      "[INFO] [launch.py:315:sigkill_handler] Killing subprocess 24905", "Killing subprocess 24905",
      data={"signal": "SIGKILL"}, anchor="Killing subprocess"),
    # ---- ssh, as the multi-node launchers run it to start each node's workers (DeepSpeed's pdsh runner, mpirun's
    # rsh launcher, colossalai run, horovodrun): the node was unreachable, so nothing started there
    M("ssh.connect_failed",
      # OpenSSH sshconnect.c ssh_connect_direct: strerror's words (`Connection refused`, `Connection timed out`,
      # `No route to host`, `Network is unreachable`; `failure` for errno 0); ssh then exits 255
      r"ssh: connect to host (?P<host>\S+) port (?P<port>\d+): (?P<error>[A-Za-z][\w ]*)",
      "worker_failed", "failure", "network_error", "OpenSSH 3.x - 10.x",
      "openssh-portable:sshconnect.c:ssh_connect_direct",
      "ssh: connect to host worker-2 port 22: Connection refused", "ssh: connect to host worker-2 port 22: C",
      anchor="ssh: connect to host"),
    # pdsh (DeepSpeed's default multi-node runner: `pdsh -S -f 1024 -w hosts ...`) reaps each node's remote command
    # and reports a non-zero wait status as `pdsh@<local host>: <node>: <rcmd> exited with exit code N` (the ssh
    # module 2.5 - 2.14, pipecmd_wait 2.15+; `killed by signal N` 2.34+), and a remote process its rcmd module saw
    # die of a signal as `process on host <node> killed by signal N` (dsh.c _die_if_signalled, 2.0+). That node's
    # launcher (and so its workers) failed; the code is the remote command's, or ssh's own 255 when ssh failed
    M("pdsh.remote_exit",
      r"pdsh@\S+: (?:(?P<host>[^\s:]+): (?P<rcmd>\S+) (?:exited with exit code (?P<exitcode>\d+)|killed by signal "
      r"(?P<signum>\d+))|process on host (?P<host1>\S+) killed by signal (?P<signum1>\d+))",
      "worker_failed", "failure", None, "pdsh 2.0 - 2.35",
      "pdsh:src/common/pipecmd.c:pipecmd_wait, src/modules/sshcmd.c, src/pdsh/dsh.c:_die_if_signalled",
      "pdsh@gpu-01: gpu-02: ssh exited with exit code 1", "pdsh@gpu-01: gpu-02: ssh exited with exit code 1",
      anchor="pdsh@"),
    # ---- composer
    M("composer.rank_crashed",
      r"Rank (?P<rank>\d+) crashed with exit code (?P<exitcode>-?\d+)",
      "worker_failed", "failure", None, "composer 0.8 - 0.30", "composer:composer/cli/launcher.py:_monitor_processes",
      "Rank 3 crashed with exit code -9.", "Rank 3 crashed with exit code -9", anchor="crashed with exit code"),
    M("composer.killing_ranks",
      # 0.6+: `Killing global rank %s (PID %s) with SIGTERM`, for each rank still running after one crashed
      (r"Killing (?:remaining )?(?:local |global )?ranks? (?P<ranks>\d+(?:, ?\d+)*)",
       r" \(PID (?P<pid>\d+)\)", r" with (?P<signal>SIG[A-Z]+)"),
      "sigterm_sent", "consequence", None, "composer 0.6 - 0.32", "composer:composer/cli/launcher.py:_cleanup_processes",
      "Killing global rank 1 (PID 4414) with SIGTERM", "Killing global rank 1", anchor="Killing"),
    M("composer.failed_to_kill",
      (r"Failed to kill global rank (?P<rank>\d+) \(PID (?P<pid>\d+)\) with SIGTERM", r"; terminating with SIGKILL"),
      "sigterm_sent", "consequence", None, "composer 0.7 - 0.32", "composer:composer/cli/launcher.py:_cleanup_processes",
      "Failed to kill global rank 3 (PID 7004) with SIGTERM; terminating with SIGKILL instead",
      "Failed to kill global rank 3 (PID 7004) with SIGTERM", data={"signal": "SIGKILL"},
      anchor="Failed to kill global rank"),
    M("composer.global_rank_exited",
      # _print_process_exit_status (the crashed ranks, not those it killed) and _aggregate_process_returncode (the
      # first rank in rank order with a non-zero code: one it killed is printed with -15/-9, its fields say so)
      r"Global rank (?P<rank>\d+) \(PID (?P<pid>\d+)\) exited with code (?P<exitcode>-?\d+)",
      "worker_failed", "failure", None, "composer 0.4 - 0.32", "composer:composer/cli/launcher.py:"
      "_print_process_exit_status, _aggregate_process_returncode",
      "Global rank 0 (PID 4413) exited with code -11", "Global rank 0 (PID 4413) exited with code -11",
      anchor="exited with code"),
    # ---- accelerate
    M("launch.subprocess_nonzero",
      r"subprocess\.CalledProcessError: Command '(?P<cmd>" + _LOCAL_RANK_ARG + r".*?)' returned non-zero exit status (?P<exitcode>\d+)",
      "worker_failed", "consequence", None, "torch.distributed.launch 1.0 - 1.8, accelerate 0.x - 1.x",
      "pytorch:torch/distributed/launch.py:main; accelerate:src/accelerate/commands/launch.py",
      "subprocess.CalledProcessError: Command '['/usr/bin/python', '-m', 'accelerate.commands.launch', 'train.py']' "
      "returned non-zero exit status 1.", "subprocess.CalledProcessError: Command '['/usr/bin/python', '-m', "
      "'accelerate.commands.launch', 'train.py']' returned non-zero exit status 1", anchor="subprocess.CalledProcessError"),
    # ---- Open MPI
    M("ompi.noticed_signal",
      # `on node %s`: an empty node name (no hostname resolved) leaves `on node exited`
      # `PID %s`: pastes often redact the pid and host (`PID xxxxxx on node xxxxxxxx`); they stay as printed
      r"noticed that process rank (?P<rank>\d+) with PID (?P<pid>\S+) on node (?:(?P<node>\S+) )?exited on signal "
      r"(?P<signum>\d+)(?: \((?P<signal>[\w ]+)\))?",
      "worker_failed", "failure", None, "Open MPI 1.x - 5.x", "ompi:orte/mca/errmgr/base/help-errmgr-base.txt",
      "mpirun noticed that process rank 3 with PID 4021 on node gpu-07 exited on signal 11 (Segmentation fault).",
      "mpirun noticed that process rank 3 with PID 4021 on node gpu-07 exited on signal 11",
      anchor="noticed that process rank"),
    M("ompi.nonzero_status",
      # help-errmgr-base.txt breaks the line after `returned`: the first line alone decides
      r"(?:Primary job\s+)?terminated normally, but (?P<count>\d+) process(?:es)? returned(?:\s*(?:a )?non-zero exit codes?)?"
      r"|(?P<count2>\d+) process(?:es)? returned\s*(?:a )?non-zero exit codes?"
      r"|non-zero exit code\. Per user-direction, the job has been aborted",
      "worker_failed", "consequence", None, "Open MPI 1.x - 5.x", "ompi:orte/mca/errmgr/base/help-errmgr-base.txt",
      "Primary job  terminated normally, but 1 process returned a non-zero exit code.",
      "1 process returned a non-zero exit code",
      anchor="returned a non-zero exit code|returned non-zero exit code|terminated normally, but|Per user-direction"),
    M("ompi.first_nonzero",
      r"(?:mpirun|mpiexec|orterun|prterun|prte|shmemrun|oshrun) detected that one or more processes exited with "
      r"non-zero status",
      "worker_failed", "consequence", None, "Open MPI 1.x - 5.x", "ompi:orte/tools/orterun/help-orterun.txt:orterun:non-zero-exit",
      "mpirun detected that one or more processes exited with non-zero status, thus causing",
      "mpirun detected that one or more processes exited with non-zero status", anchor="exited with non-zero status"),
    M("ompi.first_nonzero_process",
      # the block's next lines: `Process name: %s` (ORTE `[[jobfam,job],vpid]`, PRRTE `[nspace,rank]`) and `Exit code:`;
      # the first process to exit non-zero, named by its rank
      r"Process name: \[(?:\[\d+,\d+\]|[^\s,\]]+),(?P<rank>\d+)\]",
      "worker_failed", "failure", "dropped_rank", "Open MPI 1.x - 5.x",
      "ompi:orte/tools/orterun/help-orterun.txt:orterun:non-zero-exit; prrte:src/mca/schizo/prte/help-prun.txt",
      "  Process name: [[12345,1],3]", "  Process name: [[12345,1],3]", anchor="Process name: ["),
    M("ompi.exited_improperly",
      (r"has exited due to process rank (?P<rank>\d+) with PID (?P<pid>\d+) on", r"\s+node (?P<node>\S+) exiting improperly"),
      # the first process to leave the job without MPI_Finalize: its own end, whatever its exit code
      "worker_failed", "failure", "dropped_rank", "Open MPI 1.x - 4.x (orterun), 5.x (prterun)",
      "ompi:orte/tools/orterun/help-orterun.txt:orterun:proc-exit-no-sync",
      "mpirun has exited due to process rank 3 with PID 4242 on node gpu-07 exiting improperly. There are three reasons "
      "this could occur:", "mpirun has exited due to process rank 3 with PID 4242 on", anchor="has exited due to process rank"),
    M("ompi.mpi_abort",
      (r"MPI_ABORT was invoked on rank (?P<rank>\d+) in communicator (?P<comm>\S+)", r"\s+with errorcode (?P<exitcode>-?\d+)"),
      # the rank that called MPI_Abort ended the job itself (the errorcode is on the next line)
      "worker_failed", "failure", "dropped_rank", "Open MPI 1.x - 5.x", "ompi:ompi/mpi/help-mpi-api.txt:mpi-abort",
      "MPI_ABORT was invoked on rank 3 in communicator MPI_COMM_WORLD with errorcode 1.",
      "MPI_ABORT was invoked on rank 3 in communicator MPI_COMM_WORLD", anchor="MPI_ABORT was invoked on rank"),
    M("ompi.daemon_lost",
      # PRRTE's copy of [failed-daemon] keeps the article: `An PRTE daemon has unexpectedly failed after launch`
      r"ORTE has lost communication with a remote daemon|An (?:ORTE|PRTE) daemon has unexpectedly failed after launch"
      r"|PRTE has lost communication with a remote daemon",
      "worker_failed", "failure", "network_error", "Open MPI 1.x - 4.x (ORTE), 5.x (PRRTE)",
      "ompi:orte/mca/errmgr/base/help-errmgr-base.txt:node-died, failed-daemon; "
      "prrte:src/mca/errmgr/base/help-errmgr-base.txt",
      "ORTE has lost communication with a remote daemon.", "ORTE has lost communication with a remote daemon",
      anchor="has lost communication with a remote daemon|daemon has unexpectedly failed after launch"),
    # orterun's / prun's help blocks that name their process on the lines below the head (`Process name: [[j,1],r]`
    # ORTE, `[nspace@1,r]` PRRTE; messages.py puts that rank on the head): the sensor framework's memory limit
    # (orterun:proc-mem-exceeded, Open MPI 1.7 - 4.1; prun:proc-mem-exceeded, PRRTE), and the launcher's own
    # `--timeout` / MPIEXEC_TIMEOUT (orterun:timeout 1.7 - 4.1; PRRTE prints the same words from
    # plm_base_launch_support.c job_timeout_cb)
    M("ompi.proc_mem_exceeded",
      r"A process exceeded memory limits:",
      "slurm_oom", "failure", "oom", "Open MPI 1.7 - 4.1 (ORTE), 5.x (PRRTE)",
      "ompi:orte/tools/orterun/help-orterun.txt:orterun:proc-mem-exceeded; prrte:src/mca/schizo/prte/help-prun.txt",
      "A process exceeded memory limits:", "A process exceeded memory limits:",
      data={"message": "A process exceeded memory limits"}),
    M("ompi.job_timeout",
      r"The user-provided time limit for job execution has been reached",
      "slurm_cancelled", "failure", None, "Open MPI 1.7 - 4.1 (ORTE), 5.x (PRRTE)",
      "ompi:orte/tools/orterun/help-orterun.txt:orterun:timeout; prrte:src/mca/plm/base/plm_base_launch_support.c:"
      "job_timeout_cb", "The user-provided time limit for job execution has been reached:",
      "The user-provided time limit for job execution has been reached", data={"reason": "TIME LIMIT"}),
    M("ompi.signal_block",
      r"\*\*\* Process received signal \*\*\*",
      "signal_report", "failure", None, "Open MPI 1.x - 5.x (opal), also UCX", "ompi:opal/util/stacktrace.c:show_stackframe",
      "[gpu-07:04021] *** Process received signal ***", "*** Process received signal ***",
      anchor="*** Process received signal ***"),
    M("ompi.signal_line",
      r"\] Signal: (?P<signal>[A-Z][\w ]+) \((?P<signum>\d+)\)",
      "signal_report", "failure", None, "Open MPI 1.x - 5.x (opal)", "ompi:opal/util/stacktrace.c:show_stackframe",
      "[gpu-07:04021] Signal: Segmentation fault (11)", "[gpu-07:04021] Signal: Segmentation fault (11)",
      anchor="] Signal: "),
    # the frames that follow (opal/mca/backtrace/execinfo opal_backtrace_print: the same `[host:pid] ` prefix, then
    # `[%2d] ` and backtrace_symbols_fd's `object(symbol+offset)[address]`): printed by the fatal-signal handler (and
    # by MPI_Abort when opal_abort_print_stack is set), so frames alone, their header cut off, still end the process
    M("ompi.signal_frame",
      r"\[(?P<host>[^\s:\]]+):(?P<pid>\d{5,})\] \[ ?\d{1,2}\] (?:\[\d+,\d+\]<std(?:err|out)>:)?\S*[(\[]",
      "signal_report", "failure", None, "Open MPI 1.x - 5.x (opal)",
      "ompi:opal/mca/backtrace/execinfo/backtrace_execinfo.c:opal_backtrace_print",
      "[gpu-07:04021] [ 1] /usr/lib/x86_64-linux-gnu/libc.so.6(+0x42520)[0x7f1d2a842520]",
      "[gpu-07:04021] [ 1] /usr/lib/x86_64-linux-gnu/libc.so.6(", anchor="] [ "),
    # ---- UCX (under Open MPI, MPICH, NCCL's UCX plugin): its signal handler's fatal line, `[host:pid   :thread:tid] `
    # (`%-5d` pads the pid); SIGINT/SIGTERM reach it only when UCX_ERROR_SIGNALS names them, so only crash signals here
    M("ucx.caught_signal",
      r"\[(?P<host>[^\s:\]]+):(?P<pid>\d+) *:[^\]\s]*\] Caught signal (?P<signum>4|6|7|8|11) \((?P<signal>[A-Z][a-z][a-z ]*)",
      "signal_report", "failure", "dropped_rank", "UCX 1.x (`(Name: cause ...)` from 1.9)",
      "ucx:src/ucs/debug/debug.c:ucs_error_signal_handler; src/ucs/debug/log.c:ucs_log_fatal_error",
      "[gpu-07:4021 :0:4100] Caught signal 11 (Segmentation fault: address not mapped to object at address 0x10)",
      "[gpu-07:4021 :0:4100] Caught signal 11 (Segmentation fault", anchor="] Caught signal"),
    # UCX's IB transports (Open MPI's pml ucx, MPICH ch4:ucx, NCCL's UCX plugin) on a work completion with an error.
    # Only the syndromes UCX itself turns into UCS_ERR_ENDPOINT_TIMEOUT (the remote side never acknowledged: the
    # link, the fabric or the peer failed) are network errors here; the others (local/remote protection, access,
    # flush) name a program or memory-registration fault. mlx5 (uct_ib_mlx5_completion_with_err): 1.6+ print
    # `<syndrome> on <dev>:<port>/<IB|RoCE> (synd .. vend .. hw_synd ../..)`, 1.3 - 1.5 `Error on QP 0x.. wqe[N]:
    # <syndrome> (synd .. vend ..) opcode ..`; the verbs DC transport prints ibv_wc_status_str's words instead
    M("ucx.ib_completion_timeout",
      (r"(?:Error on QP 0x[0-9a-f]+ wqe\[\d+\]: )?(?P<reason>Transport retry count exceeded|Receive-no-ready retry count "
       r"exceeded|Remote side aborted)(?: on (?P<device>[\w.-]+:\d+)/(?P<link>IB|RoCE)| \(synd 0x)",
       r"(?: \(synd 0x(?P<syndrome>[0-9a-f]+) vend 0x(?P<vendor_err>[0-9a-f]+))?"),
      "warn", "failure", "network_error", "UCX 1.3 - 1.19 (mlx5 accelerated transports; `<dev>:<port>/IB` from 1.6)",
      "ucx:src/uct/ib/mlx5/ib_mlx5_log.c:uct_ib_mlx5_completion_with_err",
      "[gpu-07:4021:0:4021] ib_mlx5_log.c:143  Transport retry count exceeded on mlx5_0:1/IB (synd 0x15 vend 0x81 "
      "hw_synd 0/0)", "Transport retry count exceeded on mlx5_0:1/IB", data={"category": "ib"},
      anchor="Transport retry count exceeded|Receive-no-ready retry count exceeded|Remote side aborted"),
    M("ucx.verbs_send_completion_error",
      (r"Send completion with error on qp 0x(?P<qp>[0-9a-f]+): (?P<reason>transport retry counter exceeded|RNR retry "
       r"counter exceeded|remote aborted error)", r" syndrome 0x(?P<vendor_err>[0-9a-f]+)"),
      "warn", "failure", "network_error", "UCX 1.2 - 1.19 (dc_verbs; DC over plain verbs)",
      "ucx:src/uct/ib/dc/verbs/dc_verbs.c:uct_dc_verbs_handle_failure (ibv_wc_status_str)",
      "[1506866470.744682] [gpu-07:1411 :0]       dc_verbs.c:633  UCX  ERROR Send completion with error on qp 0x10e55: "
      "transport retry counter exceeded syndrome 0x81",
      "Send completion with error on qp 0x10e55: transport retry counter exceeded", data={"category": "ib"},
      anchor="Send completion with error on qp"),
    # ---- MPICH / Hydra (and Intel MPI)
    M("mpich.mpi_abort",
      # MPID_Abort: `Abort(code) on node <world rank> (rank <r> in comm <context id>): ` (ch4, MPICH 3.3+), before the
      # text MPI_Abort builds, whose `process %d` is the rank in that communicator (the world rank for MPI_COMM_WORLD)
      r"(?:Abort\((?P<exitcode>-?\d+)\) on node (?P<rank>\d+)(?: \(rank \d+ in comm \d+\))?: )?application called "
      r"MPI_Abort\((?:MPI_COMM_WORLD, (?P<exitcode2>-?\d+)\) - process (?P<rank2>\d+)|[^,()]+, (?P<exitcode3>-?\d+)\))",
      "worker_failed", "failure", "dropped_rank", "MPICH 1.1 - 4.x, Intel MPI (the `Abort(N) on node` prefix: ch4)",
      "mpich:src/mpi/init/init_impl.c:MPIR_Abort_impl; src/mpid/ch4/src/ch4_globals.c:MPID_Abort",
      "Abort(1) on node 3 (rank 3 in comm 0): application called MPI_Abort(MPI_COMM_WORLD, 1) - process 3",
      "application called MPI_Abort(MPI_COMM_WORLD, 1)", anchor="application called MPI_Abort("),
    M("mpich.fatal_error",
      # an MPI call failed under MPI_ERRORS_ARE_FATAL (handleFatalError / MPIR_Handle_fatal_error: `Fatal error in
      # <call>: <class text>`, then `, error stack:` and the stack one frame a line), MPID_Abort's prefix before it
      # (ch4). In MPI_Init (PMI, the fabric) it is the launch's setup, the same on every process it started
      (r"(?:Abort\((?P<code>-?\d+)\) on node (?P<rank>\d+)(?: \(rank \d+ in comm \d+\))?: )?"
       r"Fatal error in (?P<call>P?MPI_\w+): (?P<reason>[^,\n]+)", r", error stack:"),
      "warn", "failure", None, "MPICH 1.0 - 4.x, Intel MPI, MVAPICH2 (the `Abort(N) on node` prefix: ch4, "
      "MPICH 3.3+)", "mpich:src/mpi/errhan/errutil.c:handleFatalError / MPIR_Handle_fatal_error; "
      "src/mpid/ch4/src/ch4_globals.c:MPID_Abort",
      "Abort(3712399) on node 0 (rank 0 in comm 0): Fatal error in PMPI_Init: Other MPI error, error stack:",
      "Fatal error in PMPI_Init: Other MPI error", data={"category": "mpi", "setup": True}, anchor="Fatal error in "),
    M("hydra.bad_termination",
      r"BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES",
      "worker_failed", "failure", None, "MPICH 3 - 4, Intel MPI", "mpich:src/pm/hydra/pm/pmiserv/pmiserv_cb.c",
      "=   BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES", "BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES"),
    M("hydra.killed_by_signal",
      r"KILLED BY SIGNAL: (?P<signum>\d+) \((?P<signal>[\w ]+)\)",
      "worker_failed", "failure", None, "MPICH 3 - 4, Intel MPI", "mpich:src/pm/hydra/pm/pmiserv/pmiserv_cb.c",
      "=   KILLED BY SIGNAL: 9 (Killed)", "KILLED BY SIGNAL: 9 (Killed)", anchor="KILLED BY SIGNAL:"),
    M("hydra.exit_code",
      r"=\s+EXIT CODE: (?P<exitcode>\d+)",
      "worker_failed", "failure", None, "MPICH 3 - 4, Intel MPI", "mpich:src/pm/hydra/pm/pmiserv/pmiserv_cb.c",
      "=   EXIT CODE: 139", "=   EXIT CODE: 139", anchor="EXIT CODE: "),
    # ---- Slurm
    M("slurm.task_exit",
      r"srun: error: (?P<node>\S+): tasks? (?P<task>\d+[-,\d\[\]]*): (?:Exited with exit code (?P<exitcode>\d+)|"
      r"(?P<signal>Killed|Segmentation fault|Aborted|Bus error|Terminated))",
      "slurm_exit", "failure", None, "Slurm 17 - 24", "slurm:src/srun/srun_job.c / launch.c:_task_finish",
      "srun: error: gpu-07: task 3: Exited with exit code 1", "srun: error: gpu-07: task 3: Exited with exit code 1",
      anchor="srun: error:"),
    M("slurm.step_cancelled",
      # Slurm < 17 put the node last: `*** JOB 42 CANCELLED AT <time> DUE TO TIME LIMIT on node ***`. NODE FAILURE
      # and PREEMPTION are the entry below's
      r"\*\*\* (?:STEP|JOB) (?P<job_id>[\d.]+)(?: ON (?P<node>\S+))? CANCELLED AT \S+"
      r"(?! DUE TO (?:NODE FAILURE|PREEMPTION|NODE \S+ FAILURE))(?: DUE TO (?P<reason>[A-Z]+(?: [A-Z]+)*))?",
      "slurm_cancelled", "failure", None, "Slurm 17 - 24", "slurm:src/slurmd/slurmstepd/req.c",
      "slurmstepd: error: *** STEP 4242.0 ON gpu-07 CANCELLED AT 2024-01-01T00:00:00 DUE TO TIME LIMIT ***",
      "*** STEP 4242.0 ON gpu-07 CANCELLED AT 2024-01-01T00:00:00", anchor="CANCELLED AT"),
    M("slurm.step_node_lost",
      # _handle_signal_container: SIG_NODE_FAIL (`DUE TO NODE FAILURE, SEE SLURMCTLD LOG FOR DETAILS`) and
      # SIG_PREEMPTED (`DUE TO PREEMPTION`): the controller took a node of the job away (it stopped answering, or
      # a job of higher priority got it); the ranks on it are gone, the others cannot go on (a worker_failed beside
      # the Slurm parser's slurm_cancelled, as slurm.step_task_failed)
      # Slurm 14.03.8 - 14.11.9 named the node inside the reason: `*** JOB 42 CANCELLED AT <time> DUE TO NODE gpu-07
      # FAILURE ***` (req.c, commit ad52ed0; `ON <node>` first from e6812a7, 14.11.10 / 15.08)
      r"\*\*\* (?:STEP|JOB) (?P<job_id>[\d.]+)(?: ON (?P<node>\S+))? CANCELLED AT \S+ DUE TO "
      r"(?:(?P<reason>NODE FAILURE|PREEMPTION)|NODE (?P<node2>\S+) FAILURE)",
      "worker_failed", "failure", "dropped_rank", "Slurm 14 - 25 (`DUE TO NODE <node> FAILURE` 14.03.8 - 14.11.9)",
      "slurm:src/slurmd/slurmstepd/req.c:_handle_signal_container",
      "slurmstepd: error: *** STEP 1943824.0 ON gpu-17 CANCELLED AT 2023-03-06T03:17:51 DUE TO NODE FAILURE, SEE "
      "SLURMCTLD LOG FOR DETAILS ***", "*** STEP 1943824.0 ON gpu-17 CANCELLED AT 2023-03-06T03:17:51 DUE TO NODE FAILURE",
      anchor="DUE TO NODE |DUE TO PREEMPTION"),
    M("slurm.stepd_terminated",
      # _kill_proctrack / step_terminate_monitor: the step's processes outlived SIGKILL for UnkillableStepTimeout
      # (stuck in the kernel: a driver or file-system wait, D state); slurmstepd gives up and drains the node
      (r"\*\*\* (?:STEP|JOB) (?P<job_id>[\d.]+) STEPD TERMINATED ON (?P<node>\S+) AT \S+ DUE TO JOB NOT",
       r" (?P<reason>ENDING WITH SIGNALS|RUNNING)"),
      "hung_task", "failure", None, "Slurm 14 - 25", "slurm:src/slurmd/slurmstepd/step_terminate_monitor.c / mgr.c",
      "slurmstepd: error: *** JOB 1209813 STEPD TERMINATED ON gpu-031 AT 2024-05-02T11:20:09 DUE TO JOB NOT ENDING "
      "WITH SIGNALS ***", "*** JOB 1209813 STEPD TERMINATED ON gpu-031 AT 2024-05-02T11:20:09 DUE TO JOB NOT",
      anchor="STEPD TERMINATED ON"),
    M("slurm.pmix_collective_timeout",
      # Slurm's PMIx plugin (mpi/pmix_v2..v5): a fence (PMIx_Fence at MPI_Init / the runtime's start) did not get
      # every node's contribution within PMIXP_TIMEOUT; PMIXP_ERROR prefixes plugin, function, host [nodeid], file:line
      r"pmixp_coll_(?:ring|tree)_reset_if_to: .*collective timeout seq=(?P<seq>\d+)",
      "wait_timeout", "failure", None, "Slurm 17.11 - 25 (ring collectives 18.08+)",
      "slurm:src/plugins/mpi/pmix/pmixp_coll_ring.c / pmixp_coll_tree.c:pmixp_coll_*_reset_if_to",
      "slurmstepd: error:  mpi/pmix_v3: pmixp_coll_ring_reset_if_to: gpu-07 [0]: pmixp_coll_ring.c:742: "
      "0x1523e4008f90: collective timeout seq=0", "pmixp_coll_ring_reset_if_to: gpu-07 [0]: pmixp_coll_ring.c:742: "
      "0x1523e4008f90: collective timeout seq=0", anchor="collective timeout seq="),
    M("slurm.step_task_failed",
      # slurmstepd's line when srun ends a step because a task failed (--kill-on-bad-exit, SIG_TERM_KILL: `DUE TO
      # TASK FAILURE`, 25.05+) or the step failed (SIG_FAILURE, 14.11+): a task's own end, which task it does not say
      # (14.03.8 - 14.11.9 put the node last: `*** STEP 42.0 FAILED (non-zero exit code or other failure mode) on gpu-07 ***`)
      r"\*\*\* (?:STEP|JOB) (?P<job_id>[\d.]+) (?:ON (?P<node>\S+) (?:CANCELLED AT \S+ DUE TO TASK FAILURE|"
      r"FAILED \(non-zero exit code or other failure mode\))|FAILED \(non-zero exit code or other failure mode\) on "
      r"(?P<node2>[^\s*]+))",
      "worker_failed", "failure", "dropped_rank", "Slurm 14.03.8 - 25 (TASK FAILURE from 25.05; node last to 14.11.9)",
      "slurm:src/slurmd/slurmstepd/req.c:_handle_signal_container",
      "slurmstepd: error: *** STEP 5512.0 ON node-a17 CANCELLED AT 2025-02-11T06:40:03 DUE TO TASK FAILURE ***",
      "*** STEP 5512.0 ON node-a17 CANCELLED AT 2025-02-11T06:40:03 DUE TO TASK FAILURE",
      anchor="DUE TO TASK FAILURE|FAILED (non-zero exit code"),
    M("slurm.oom_kill",
      # the task/cgroup plugin: `oom-kill event(s) in StepId=J.S[ cgroup].`, `... in step J.S cgroup` in older releases
      r"Detected (?P<count>\d+) oom[-_]kill event(?:s|\(s\))? in (?:StepId=|step )?(?P<job_id>\S+)",
      "slurm_oom", "failure", "oom", "Slurm 17 - 24", "slurm:src/plugins/jobacct_gather/cgroup / task/cgroup",
      "slurmstepd: error: Detected 1 oom_kill event in StepId=4242.0. Some of the step tasks have been OOM Killed.",
      "Detected 1 oom_kill event in StepId=4242.0", anchor="oom-kill event|oom_kill event"),
    M("slurm.oom_event_monitor",
      # task/cgroup's OOM monitor thread counts the cgroup's oom-kill events (task_cgroup_memory.c 17.11.3 - 21.02
      # `%s: %s: oom-kill event count: %lu` at info; cgroup/v1's copy logs it at debug2 from 21.08): a task was
      # OOM-killed in the step's cgroup
      r"_oom_event_monitor: oom-kill event count: (?P<count>[1-9]\d*)",
      "slurm_oom", "failure", "oom", "Slurm 17.11.3 - 21.02 (info; debug2 in cgroup/v1 from 21.08)",
      "slurm:src/plugins/task/cgroup/task_cgroup_memory.c:_oom_event_monitor (src/plugins/cgroup/v1/cgroup_v1.c 21.08+)",
      "slurmstepd: task/cgroup: _oom_event_monitor: oom-kill event count: 1",
      "_oom_event_monitor: oom-kill event count: 1", anchor="oom-kill event count: "),
    M("slurm.task_oom",
      r"srun: error: (?P<node>\S+): tasks? (?P<task>\d+)(?:[-,\d\[\]]*)?: Out Of Memory",
      "slurm_oom", "failure", "oom", "Slurm 17 - 24", "slurm:src/srun/srun_job.c / step_launch.c (task exit report)",
      "srun: error: gpu-07: task 3: Out Of Memory", "srun: error: gpu-07: task 3: Out Of Memory",
      anchor=": Out Of Memory"),
    # ---- Horovod
    M("horovod.shut_down",
      # 0.11 - 0.15 (horovod/{tensorflow,torch}/mpi_ops.cc SHUT_DOWN_ERROR): `This has been caused by an exception on
      # one of the rank or an attempt to ...`; 0.16+: `This was caused by an exception on one of the ranks`. Every
      # rank's background loop raises it once the job's coordination stopped (a rank's exception, or a rank that
      # finished early): the rank that raises it reports another's end (reports_others), as a torch DistBackendError does
      (r"Horovod has been shut down\.", r" This (?:was|has been) caused by an exception on one of the ranks?"),
      "dist_backend_error", "consequence", None, "Horovod 0.11 - 0.28",
      "horovod:horovod/common/operations.cc (0.16+), horovod/tensorflow/mpi_ops.cc, horovod/torch/mpi_ops.cc (0.11 - 0.15)",
      "HorovodInternalError: Horovod has been shut down. This was caused by an exception on one of the ranks or an "
      "attempt to allreduce, allgather or broadcast a tensor after one of the ranks finished execution.",
      "Horovod has been shut down.", data={"reports_others": True}),
    # The stall inspector (coordinator, every HOROVOD_STALL_CHECK_TIME_SECONDS): tensors some ranks submitted and
    # others did not for that long; the ranks that did not are the missing ones, as in a failed monitored barrier.
    # 0.13.6 - 0.16 list each tensor `name [missing ranks: 1, 2]` (0.9 - 0.13.5 its ready ranks: stall_ready_ranks);
    # 0.16 - 0.19 `Stalled ranks:`, 0.20+ `Missing ranks:`,
    # then one line per rank `R: [tensor, ...]` (`R!` where it passed the shutdown time): MessageParser reads those
    M("horovod.stall",
      (r"One or more tensors were submitted to be reduced, gathered or broadcasted",
       r" by subset of ranks and are waiting for remainder of ranks for more than (?P<stall_seconds>\d+) seconds"),
      "monitored_barrier", "failure", "stuck_rank", "Horovod 0.9 - 0.28",
      "horovod:horovod/common/stall_inspector.cc:CheckForStalledTensors (operations.cc 0.13 - 0.18, "
      "tensorflow/mpi_ops.cc before)",
      "[2021-03-04 10:11:12.345678: W horovod/common/stall_inspector.cc:107] One or more tensors were submitted to be "
      "reduced, gathered or broadcasted by subset of ranks and are waiting for remainder of ranks for more than 60 "
      "seconds.", "One or more tensors were submitted to be reduced, gathered or broadcasted",
      data=_HOROVOD_STALL, anchor="tensors were submitted to be reduced, gathered or broadcasted"),
    M("horovod.stall_missing_ranks",
      r"\[missing ranks: (?P<ranks>\d+(?:, ?\d+)*)",
      "monitored_barrier", "failure", "stuck_rank", "Horovod 0.13.6 - 0.16",
      "horovod:horovod/common/operations.cc:CheckForStalledTensors",
      "DistributedAdamOptimizer_Allreduce/HorovodAllreduce_gradients_0 [missing ranks: 1, 3]",
      "DistributedAdamOptimizer_Allreduce/HorovodAllreduce_gradients_0 [missing ranks: 1", data=_HOROVOD_STALL,
      anchor="[missing ranks: "),
    M("horovod.stall_ready_ranks",
      # before 0.13.6 the report listed each stalled tensor's *ready* ranks (`Stalled ops: name [ready ranks: 0, 2]`,
      # horovod/tensorflow/mpi_ops.cc 0.9 - 0.12, common/operations.cc 0.13): the missing ones are the rest of the
      # world, which the line does not state; the ranks below the highest ready one that are not listed certainly
      # are (_fill_common)
      r"\[ready ranks: (?P<ready_ranks>\d+(?:, ?\d+)*)",
      "monitored_barrier", "failure", "stuck_rank", "Horovod 0.9 - 0.13.5",
      "horovod:horovod/tensorflow/mpi_ops.cc (0.9 - 0.12), horovod/common/operations.cc (0.13):CheckForStalledTensors",
      "Stalled ops: DistributedSGD_Allreduce/HorovodAllreduce_gradients_AddN_0 [ready ranks: 0, 2, 3]",
      "DistributedSGD_Allreduce/HorovodAllreduce_gradients_AddN_0 [ready ranks: 0", data=_HOROVOD_STALL,
      anchor="[ready ranks: "),
    M("horovod.process_failed",
      r"Process (?P<rank>\d+) exit with status code (?P<exitcode>-?\d+)",
      "worker_failed", "failure", None, "Horovod 0.20 - 0.28", "horovod:horovod/runner/gloo_run.py",
      "Process 3 exit with status code 137.", "Process 3 exit with status code 137", anchor="exit with status code"),
    # ---- Ray
    M("ray.actor_died",
      r"(?:RayActorError: )?The actor died unexpectedly before finishing this task",
      "worker_failed", "failure", "dropped_rank", "Ray 1.x - 2.x", "ray:python/ray/exceptions.py:ActorDiedError",
      "ray.exceptions.RayActorError: The actor died unexpectedly before finishing this task.",
      "The actor died unexpectedly before finishing this task"),
    M("ray.train_rank_error",
      # Ray Train v2's WorkerGroupError (`Training failed due to worker errors:`) lists each distinct error under the
      # ranks that raised it, `[Rank 0,3 Error Snippet]:` then the error's text (WorkerGroupPollStatus.get_error_string)
      r"\[Rank (?:(?P<rank>\d+)|(?P<ranks>\d+(?:,\d+)+)) Error Snippet\]:",
      "worker_failed", "failure", "dropped_rank", "Ray 2.4x - 2.x (Train v2)",
      "ray:python/ray/train/v2/_internal/execution/worker_group/poll.py:WorkerGroupPollStatus.get_error_string",
      "[Rank 1 Error Snippet]:", "[Rank 1 Error Snippet]:", anchor="Error Snippet]:"),
    M("ray.oom_killed",
      r"Workers? \(tasks / actors\) killed due to memory pressure \(OOM\)|Task was killed due to the node running low "
      r"on memory",
      "slurm_oom", "failure", "oom", "Ray 2.2 - 2.x", "ray:src/ray/raylet/worker_killing_policy.cc",
      "(raylet) node_id=abc Workers (tasks / actors) killed due to memory pressure (OOM)",
      "Workers (tasks / actors) killed due to memory pressure (OOM)",
      anchor="killed due to memory pressure|running low on memory"),
    M("slurm.step_killed_signal",
      r"\*\*\* (?:STEP|JOB) (?P<job_id>[\d.]+)(?: ON (?P<node>\S+))? KILLED AT \S+ WITH SIGNAL (?P<signum>\d+)",
      "slurm_cancelled", "failure", None, "Slurm 14 - 24", "slurm:src/slurmd/slurmstepd/req.c (signal request)",
      "slurmstepd: error: *** STEP 657040.1 ON gpu-07 KILLED AT 2024-01-01T00:00:00 WITH SIGNAL 9 ***",
      "*** STEP 657040.1 ON gpu-07 KILLED AT 2024-01-01T00:00:00 WITH SIGNAL 9", anchor="KILLED AT"),
    M("slurm.memory_limit",
      # jobacct_gather's own enforcement (_acct_kill_step): 1.3 - 13.11 `Job %u exceeded %u KB memory limit, being
      # killed` (`Step %u.%u ...` from 2.1), 13.12 - 20.02 `Job|Step ... exceeded memory limit (%u > %u), being
      # killed`, 20.11+ `%ps` (`StepId=J.S exceeded memory limit (...)`); `virtual memory` for the vsize limit
      r"Exceeded (?:step|job) memory limit|(?:(?:Step|Job) |StepId=|JobId=)(?P<job_id>[\w.]+) exceeded (?:virtual )?"
      r"(?:memory limit \((?P<used_kb>\d+) > (?P<limit_kb>\d+)\)|(?P<limit_kb2>\d+) KB (?:virtual )?memory limit), being "
      r"killed|Some of your processes may have been killed by the cgroup out-of-memory handler",
      "slurm_oom", "failure", "oom", "Slurm 1.3 - 25 (`N KB memory limit` to 13.11, `(used > limit)` 13.12+, `StepId=` "
      "20.11+; the cgroup wording from 17)",
      "slurm:src/plugins/task/cgroup/task_cgroup_memory.c; src/common/slurm_jobacct_gather.c:_acct_kill_step "
      "(src/interfaces/jobacct_gather.c in 23.11+; memory limit enforcement)",
      "slurmstepd: error: Step 1594750.0 exceeded memory limit (6776728 > 6291456), being killed",
      "Step 1594750.0 exceeded memory limit (6776728 > 6291456), being killed",
      anchor="xceeded step memory limit|xceeded job memory limit|exceeded memory limit|exceeded virtual memory limit|"
             "KB memory limit, being killed|KB virtual memory limit|cgroup out-of-memory handler"),
    M("slurm.node_failure",
      # the controller's SRUN_NODE_FAIL message, logged by whichever client holds the allocation under its own
      # name: srun (libslurm api/step_launch.c _node_fail_handler, srun's allocate.c) and salloc (salloc.c
      # _node_fail_handler, an interactive allocation whose steps ran on the lost node)
      r"(?:srun|salloc): error: Node failure on (?P<node>\S+)",
      "slurm_exit", "failure", "dropped_rank", "Slurm 1.2 - 25 (salloc and srun)",
      "slurm:src/api/step_launch.c, src/srun/allocate.c, src/salloc/salloc.c (_node_fail_handler)",
      "srun: error: Node failure on gpu-07", "srun: error: Node failure on gpu-07", anchor="Node failure on"),
    M("slurm.step_aborted",
      r"srun: (?:Job step aborted: Waiting up to \d+ seconds|forcing job termination|"
      r"Terminating (?:job step|StepId=)\s*\S+)",
      "slurm_exit", "consequence", None, "Slurm 14 - 24", "slurm:src/srun/srun.c / launch/slurm (step teardown)",
      "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.",
      "srun: Job step aborted: Waiting up to 32 seconds", anchor="Job step aborted|forcing job termination|srun: Terminating"),
    # srun could not start the step's tasks on a node (src/api/step_launch.c `Task launch for %u.%u failed on node %s:
    # %m` 2.0 - 20.02, `%ps` 20.11+; src/srun/launch.c `Application launch failed: %m`): only the errno texts of a
    # connection that failed or timed out (slurm_errno.c, libc) are the network's; a credential or configuration
    # error is not
    M("slurm.task_launch_network",
      r"(?:Task launch for (?:StepId=)?(?P<job_id>[\d.]+) failed on node (?P<node>[^\s:]+)|Application launch failed): "
      r"(?P<reason>Socket timed out on send/recv operation|Zero Bytes were transmitted or received|Communication "
      r"(?:connection|send|receive|shutdown) failure|Connection refused|Connection reset by peer|Connection timed out|"
      r"No route to host|Network is unreachable)",
      "slurm_exit", "failure", "network_error", "Slurm 2.0 - 25 (`StepId=` 20.11+)",
      "slurm:src/api/step_launch.c:_launch_handler; src/srun/launch.c:launch_g_step_launch",
      "srun: error: Task launch for StepId=4242.0 failed on node gpu-07: Socket timed out on send/recv operation",
      "Task launch for StepId=4242.0 failed on node gpu-07: Socket timed out on send/recv operation",
      anchor="Task launch for|Application launch failed: "),
    # srun could not create the job step (src/srun/srun_job.c / libsrun create_job_step: `Unable to create step for
    # job %u: %m`): the step asks what the allocation cannot give (memory, CPUs, nodes), or the job is ending; no task
    # of the step ever started
    M("slurm.step_create_failed",
      (r"Unable to create step for job (?P<job_id>\d+)", r": (?P<reason>[^\n]+?)\s*$"),
      "slurm_exit", "failure", "unclassified_failure", "Slurm 2.x - 25",
      "slurm:src/srun/srun_job.c (libsrun/launch.c before 21.08):create_job_step",
      "srun: error: Unable to create step for job 48213: Memory required by task is not available",
      "Unable to create step for job 48213", data={"category": "launch", "setup": True},
      anchor="Unable to create step for job"),
    # ---- Horovod's coordinator compares every rank's request for a tensor (horovod/common/controller.cc
    # ConstructResponse, 0.19+; common/operations.cc 0.12 - 0.18, tensorflow/mpi_ops.cc 0.9 - 0.11) and fails the op on
    # every rank with its own diagnosis: the ranks submitted different shapes, dtypes or collectives under one name.
    # It names no rank (`One rank ..., but another rank ...`)
    M("horovod.mismatched_shapes",
      # the op's name is the request type's (`ALLREDUCE`; `allreduce` and `reduced`/`gathered` in 0.9 - 0.15)
      r"Mismatched (?P<op>\w+) tensor (?:shapes|ranks): One rank (?:sent|reduced|gathered) a tensor (?:of shape|of "
      r"rank|with dimension)",
      "traceback", "failure", "shape_mismatch", "Horovod 0.9 - 0.28",
      "horovod:horovod/common/controller.cc:Controller::ConstructResponse (common/operations.cc before 0.19)",
      "horovod.common.exceptions.HorovodInternalError: Mismatched ALLREDUCE tensor shapes: One rank sent a tensor of "
      "shape [10, 2], but another rank sent a tensor of shape [10, 3].",
      "Mismatched ALLREDUCE tensor shapes: One rank sent a tensor of shape", anchor=" tensor shapes: | tensor ranks: "),
    M("horovod.mismatched_dtypes",
      r"Mismatched data types: One rank had type (?P<dtype>\w+), but another rank had type (?P<other_dtype>\w+)",
      "traceback", "failure", "dtype_mismatch", "Horovod 0.9 - 0.28",
      "horovod:horovod/common/controller.cc:Controller::ConstructResponse (common/operations.cc before 0.19)",
      "horovod.common.exceptions.HorovodInternalError: Mismatched data types: One rank had type HOROVOD_FLOAT32, but "
      "another rank had type HOROVOD_FLOAT16.",
      "Mismatched data types: One rank had type HOROVOD_FLOAT32, but another rank had type HOROVOD_FLOAT16",
      anchor="Mismatched data types: One rank had type"),
    M("horovod.mismatched_ops",
      # `Mismatched MPI operations` to 0.17; `Mismatched operations` 0.18+ (Gloo controller); the reduce op (Sum,
      # Average, Adasum) 0.21+
      r"Mismatched (?:MPI )?operations: One rank did an? (?P<op>\w+), but another rank did an? (?P<other_op>\w+)"
      r"|Mismatched reduction operation: One rank sent reduction op (?P<op2>\w+), but another rank sent reduction op "
      r"(?P<other_op2>\w+)",
      "traceback", "failure", "op_mismatch", "Horovod 0.9 - 0.28 (reduction op 0.21+)",
      "horovod:horovod/common/controller.cc:Controller::ConstructResponse (common/operations.cc before 0.19)",
      "horovod.common.exceptions.HorovodInternalError: Mismatched operations: One rank did an ALLREDUCE, but another "
      "rank did an ALLGATHER.", "Mismatched operations: One rank did an ALLREDUCE, but another rank did an ALLGATHER",
      anchor="operations: One rank did an|Mismatched reduction operation: "),
    # ---- Lightning
    # lightning.fabric's _ChildProcessObserver (launchers/subprocess_script.py, 2.1+): a child the launcher started
    # (local rank i+1; rank_prefixed_message's `[rank: i+1] `) ended with a non-zero code, and the observer kills the
    # main process and every other child
    M("lightning.child_terminated",
      (r"Child process with PID (?P<pid>\d+) terminated with code (?P<exitcode>-?\d+)",
       r"\. Forcefully terminating all other processes"),
      "worker_failed", "failure", None, "Lightning 2.1 - 2.5",
      "lightning:src/lightning/fabric/strategies/launchers/subprocess_script.py:_ChildProcessObserver._run",
      "[rank: 1] Child process with PID 9487 terminated with code -9. Forcefully terminating all other processes to "
      "avoid zombies 🧟", "Child process with PID 9487 terminated with code -9",
      anchor="Child process with PID"),
    # every process says its rank and the world just before its init_process_group (one line each, at INFO):
    # `initializing ddp: GLOBAL_RANK: R, MEMBER: R+1/W` (PyTorch Lightning's DDP backends and accelerators, 0.7 - 1.4;
    # `initializing ddp (SLURM):` in the SLURM backend), `Initializing distributed: ...` from 1.5 (the DDP strategies,
    # then lightning.fabric's _init_dist_connection, 2.x): the world's size, and the rank of the process that printed
    M("lightning.init_distributed",
      r"[Ii]nitializing (?:ddp(?: \(SLURM\))?|distributed): GLOBAL_RANK: (?P<rank>\d+), MEMBER: \d+/(?P<nranks>\d+)",
      "launcher_world", "benign", None, "PyTorch Lightning 0.7 - 1.4 (`initializing ddp`), 1.5+ and Lightning 2.x",
      "lightning:src/lightning/fabric/utilities/distributed.py:_init_dist_connection; "
      "pytorch_lightning/accelerators/ddp_backend.py (older)",
      "Initializing distributed: GLOBAL_RANK: 1, MEMBER: 2/8", "Initializing distributed: GLOBAL_RANK: 1, MEMBER: 2/8",
      anchor="GLOBAL_RANK: "),
    # PyTorch Lightning's process reconciliation (PL_RECONCILE_PROCESS=1, strategies/ddp.py reconciliate_processes,
    # 1.4 - 1.9): the rank that raised kills the other ranks' processes and raises this with its own traceback
    M("lightning.deadlock_detected",
      r"DeadlockDetectedException: (?P<message>DeadLock detected from rank: (?P<rank>\d+))",
      "worker_failed", "failure", None, "PyTorch Lightning 1.4 - 1.9",
      "lightning:src/pytorch_lightning/strategies/ddp.py:DDPStrategy.reconciliate_processes",
      "pytorch_lightning.utilities.exceptions.DeadlockDetectedException: DeadLock detected from rank: 1 ",
      "DeadlockDetectedException: DeadLock detected from rank: 1", anchor="DeadLock detected from rank"),
    # ---- accelerate's debug mode (ACCELERATE_DEBUG_MODE, utils/operations.py verify_operation, 0.22+): before a
    # gather/broadcast/reduce/pad it gathers every process's tensor shapes and raises when they differ, listing each
    # process's shape on the lines below (`  - Process N: [..]`, read by MessageParser)
    M("accelerate.shape_mismatch",
      r"Cannot apply desired operation due to shape mismatches",
      "traceback", "failure", "shape_mismatch", "accelerate 0.22 - 1.x",
      "accelerate:src/accelerate/utils/operations.py:verify_operation",
      "accelerate.utils.operations.DistributedOperationException: Cannot apply desired operation due to shape "
      "mismatches. All shapes across devices must be valid.", "Cannot apply desired operation due to shape mismatches"),
    # ---- Open MPI: its runtime's (ORTE 1.8 - 4.x, PRRTE 5.x) out-of-band TCP connection to another daemon failed
    M("ompi.oob_tcp_connect_failed",
      r"A process or daemon was unable to complete a TCP connection",
      "worker_failed", "failure", "network_error", "Open MPI 1.8 - 4.x (ORTE), 5.x (PRRTE)",
      "ompi:orte/mca/oob/tcp/oob_tcp_connection.c:mca_oob_tcp_peer_try_connect (prrte:src/mca/oob/tcp)",
      "A process or daemon was unable to complete a TCP connection", "A process or daemon was unable to complete a TCP "
      "connection"),
    # the openib BTL (1.x - 4.x; gone in 5.0): a work completion with IBV_WC_RETRY_EXC_ERR (the peer never acked:
    # link, fabric or peer down), as the help text (help-mpi-btl-openib.txt `pp retry exceeded`) and as the
    # completion handler's line (btl_openib_component.c handle_wc: `error polling LP CQ with status RETRY EXCEEDED
    # ERROR status number 12 ...`)
    M("ompi.openib_retry_exceeded",
      r"The InfiniBand retry count between two MPI processes has been|error polling [HL]P CQ with status RETRY EXCEEDED "
      r"ERROR status number (?P<status>\d+)",
      "warn", "failure", "network_error", "Open MPI 1.2 - 4.1 (openib BTL)",
      "ompi:opal/mca/btl/openib/help-mpi-btl-openib.txt:pp retry exceeded; btl_openib_component.c:handle_wc",
      "The InfiniBand retry count between two MPI processes has been",
      "The InfiniBand retry count between two MPI processes has been", data={"category": "ib"},
      anchor="InfiniBand retry count between two MPI processes|with status RETRY EXCEEDED ERROR"),
    # ---- MPICH / Hydra: the bad-termination block names the process (`=   PID %d RUNNING AT %s` to 3.2, `=   RANK %d
    # PID %d RUNNING AT %s` 3.3+ and Intel MPI) on the line before its EXIT CODE / KILLED BY SIGNAL line
    M("hydra.rank_running_at",
      r"=\s+(?:RANK (?P<rank>\d+) )?PID (?P<pid>\d+) RUNNING AT (?P<node>\S+)",
      "worker_failed", "failure", None, "MPICH 3 - 4 (RANK from 3.3), Intel MPI",
      "mpich:src/pm/hydra/mpiexec/pmiserv_cb.c (pm/pmiserv/pmiserv_cb.c before 4.0)",
      "=   RANK 3 PID 12345 RUNNING AT gpu-02", "=   RANK 3 PID 12345 RUNNING AT gpu-02", anchor=" RUNNING AT "),
    # mpiexec's bootstrap saw a proxy (and so a process under it) exit non-zero (tools/bootstrap/utils/bscu_wait.c)
    M("hydra.terminated_badly",
      r"one of the processes terminated badly",
      "worker_failed", "failure", "dropped_rank", "MPICH 1.3 - 4.x, Intel MPI",
      "mpich:src/pm/hydra/tools/bootstrap/utils/bscu_wait.c:HYDT_bscu_wait_for_completion",
      "[mpiexec@gpu-01] HYDT_bscu_wait_for_completion (tools/bootstrap/utils/bscu_wait.c:76): one of the processes "
      "terminated badly; aborting", "one of the processes terminated badly"),
    # a Hydra proxy whose control connection to mpiexec closed (pm/pmiserv/pmip_cb.c; proxy/pmip_cb.c 4.0+): mpiexec
    # went away or the link to its node broke; the proxy then tears its processes down
    M("hydra.proxy_upstream_closed",
      r"HYD_pmcd_pmip_control_cmd_cb \([^)]*\): assert \(!closed\) failed",
      "worker_failed", "consequence", None, "MPICH 1.3 - 4.x, Intel MPI",
      "mpich:src/pm/hydra/pm/pmiserv/pmip_cb.c:HYD_pmcd_pmip_control_cmd_cb",
      "[proxy:0:1@gpu-02] HYD_pmcd_pmip_control_cmd_cb (pm/pmiserv/pmip_cb.c:887): assert (!closed) failed",
      "HYD_pmcd_pmip_control_cmd_cb (pm/pmiserv/pmip_cb.c:887): assert (!closed) failed",
      anchor="HYD_pmcd_pmip_control_cmd_cb"),
    # MPICH's ch3 (sock, nemesis tcp) in an MPI error stack: the connection to that peer rank failed or closed
    M("mpich.communication_error",
      r"Communication error with rank (?P<other_rank>\d+)",
      "warn", "failure", "network_error", "MPICH 1.1 - 3.x (ch3), MVAPICH2, Intel MPI <= 2018",
      "mpich:src/mpid/ch3/channels/nemesis/netmod/tcp/socksm.c; src/mpid/ch3/src/ch3u_recvq.c",
      "MPIDI_CH3U_Recvq_FDU_or_AEP(629): Communication error with rank 3", "Communication error with rank 3",
      data={"category": "socket"}),
    # MPICH ch4's OFI netmod (Intel MPI 2019+ is built on it): a completion queue entry with an error from the
    # libfabric provider (MPIDI_OFI_handle_cq_error, `**ofid_poll`: `file:line:function:fi_strerror`; MPICH 4.1+
    # names the NIC, `default nic=<name>: <fi_strerror>`): the fabric failed a transfer of this process
    M("mpich.ofi_poll_failed",
      (r"OFI poll failed", r" \((?P<reason>[^)\n]+)\)"),
      "warn", "failure", "network_error", "MPICH 3.3 - 4.x (ch4:ofi), Intel MPI 2019 - 2021",
      "mpich:src/mpid/ch4/netmod/ofi/ofi_events.c:MPIDI_OFI_handle_cq_error (errnames.txt **ofid_poll)",
      "MPIDI_OFI_handle_cq_error(1062): OFI poll failed (ofi_events.c:1064:MPIDI_OFI_handle_cq_error:Input/output error)",
      "OFI poll failed", data={"category": "fabric"}),
    # Intel MPI's own Hydra (i_hydra, 2019+): mpiexec waiting for its proxies reports one that ended badly; a proxy
    # killed by a signal took every process of its node with it
    M("hydra.downstream_killed",
      r"downstream from host (?P<node>[^\s:]+) was killed by signal (?P<signum>\d+)(?: \((?P<signal>[^)]+)\))?",
      "worker_failed", "failure", "dropped_rank", "Intel MPI 2019 - 2021",
      "intel-mpi:src/pm/i_hydra/mpiexec/intel/i_mpiexec.c:wait_proxies_to_terminate",
      "[mpiexec@node01] wait_proxies_to_terminate (../../../../../src/pm/i_hydra/mpiexec/intel/i_mpiexec.c:557): "
      "downstream from host node02 was killed by signal 9 (Killed)", "downstream from host node02 was killed by signal 9",
      anchor="downstream from host"),
    M("hydra.downstream_exited",
      r"downstream from host (?P<node>[^\s:]+) exited with status (?P<exitcode>\d+)",
      "worker_failed", "failure", None, "Intel MPI 2019 - 2021",
      "intel-mpi:src/pm/i_hydra/mpiexec/intel/i_mpiexec.c:wait_proxies_to_terminate",
      "[mpiexec@b1373] wait_proxies_to_terminate (../../../../../src/pm/i_hydra/mpiexec/intel/i_mpiexec.c:527): "
      "downstream from host b1373 exited with status 141", "downstream from host b1373 exited with status 141",
      anchor="downstream from host"),
    # ---- MPICH / Hydra: the exit string line
    M("hydra.exit_string",
      # `YOUR ` from MPICH 3; the text is strsignal()'s (`Segmentation fault: 11` on macOS)
      r"APPLICATION TERMINATED WITH THE EXIT STRING: (?P<signal_text>[A-Z][\w ]+?)(?:: \d+)? \(signal (?P<signum>\d+)\)",
      "worker_failed", "failure", None, "MPICH 1.x - 4, Intel MPI", "mpich:src/pm/hydra/ui/mpich/mpiexec.c:main",
      "YOUR APPLICATION TERMINATED WITH THE EXIT STRING: Segmentation fault (signal 11)",
      "YOUR APPLICATION TERMINATED WITH THE EXIT STRING: Segmentation fault (signal 11)",
      anchor="TERMINATED WITH THE EXIT STRING"),
    # ---- Ray: a worker or actor process that died
    M("ray.actor_died_error",
      r"(?:ray\.exceptions\.)?(?P<exc_type>ActorDiedError|ActorUnavailableError|WorkerCrashedError)\b",
      "worker_failed", "failure", "dropped_rank", "Ray 2.x (ActorDiedError from 2.9; RayActorError before)",
      "ray:python/ray/exceptions.py", "ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this task.",
      "ActorDiedError", anchor="ActorDiedError|ActorUnavailableError|WorkerCrashedError"),
    M("ray.worker_died",
      (r"(?:The actor is dead because its worker process has died(?!\.\s*Worker exit type: INTENDED_USER_EXIT)|A worker died or was killed while executing "
       # Ray 0.x - 1.x (src/ray/raylet/node_manager.cc, error type `worker_died`): `... executing task <id>.`
       r"(?:a task by an unexpected system error|task [0-9a-f]+)|The worker died unexpectedly while executing this task)",
       # the raylet's report goes on with the dead process's ids (node_manager.cc, Ray 2.x): `... Worker IP address:
       # A Worker port: N Worker PID: N Worker exit type: ...`: the ip and pid Ray's log prefix `(Actor pid=N, ip=A)`
       # gives that worker's lines
       r".*? Worker IP address: (?P<worker_ip>[\w.:-]+)", r" Worker port: \d+ Worker PID: (?P<worker_pid>\d+)"),
      "worker_failed", "failure", "dropped_rank", "Ray 0.7 - 2.x", "ray:python/ray/exceptions.py; src/ray/core_worker; "
      "src/ray/raylet/node_manager.cc (0.x - 1.x; 2.x: the `Worker PID:` report)",
      "The actor is dead because its worker process has died. Worker exit type: SYSTEM_ERROR",
      "The actor is dead because its worker process has died",
      anchor="worker process has died|A worker died or was killed|worker died unexpectedly"),
    # Ray's driver logs a remote task's or actor method's exception nobody fetched with ray.get (worker.py's
    # _unhandled_error_handler); the task's traceback and its exception follow under it. The quotes around the
    # variable came in Ray 1.x.
    M("ray.unhandled_error",
      (r"Unhandled error \(suppress with '?RAY_IGNORE_UNHANDLED_ERRORS=1'?\): ", r"(?P<task>ray::[\w.<>]+\(\))",
       r" \(pid=(?P<pid>\d+)", r", ip=(?P<ip>[\d.]*)"),
      "traceback", "failure", None, "Ray 1.0 - 2.x", "ray:python/ray/_private/worker.py:_unhandled_error_handler "
      "(python/ray/worker.py before 1.11)",
      "Unhandled error (suppress with 'RAY_IGNORE_UNHANDLED_ERRORS=1'): ray::WorkerDict.init_model() (pid=1477, "
      "ip=10.140.51.37, actor_id=a772570b97ba2115e835168103000000)",
      "Unhandled error (suppress with 'RAY_IGNORE_UNHANDLED_ERRORS=1'): ", data={"exc_type": "RayTaskError"},
      anchor="Unhandled error (suppress with"),
    # the BML's reachability check at MPI_Init (opal/mca/bml/r2/help-mca-bml-r2.txt `unreachable proc`): no BTL can
    # carry traffic between two processes (the interfaces or fabrics they offer do not meet); MPI_Init aborts
    M("ompi.unreachable_peers",
      r"At least one pair of MPI processes are unable to reach each other for",
      "worker_failed", "failure", "network_error", "Open MPI 1.x - 5.x", "ompi:ompi/mca/bml/r2/help-mca-bml-r2.txt:unreachable proc",
      "At least one pair of MPI processes are unable to reach each other for",
      "At least one pair of MPI processes are unable to reach each other for", anchor="unable to reach each other for"),
    # the TCP BTL's connect() to a peer's advertised address failed (help-mpi-btl-tcp.txt `client connect fail`, 3.x+):
    # the address is unreachable from here (a docker/virtual bridge picked, a firewall)
    M("ompi.btl_tcp_connect_failed",
      r"WARNING: Open MPI failed to TCP connect to a peer MPI process",
      "warn", "failure", "network_error", "Open MPI 3.0 - 5.x", "ompi:opal/mca/btl/tcp/help-mpi-btl-tcp.txt:client connect fail",
      "WARNING: Open MPI failed to TCP connect to a peer MPI process.  This",
      "WARNING: Open MPI failed to TCP connect to a peer MPI process", anchor="failed to TCP connect to a peer"),
    # the TCP BTL's own error lines (BTL_ERROR: `[host][[jobid,vpid],rank][btl_tcp_endpoint.c:line:function] `):
    # before 3.0 a failed connect() printed its errno (3.0+ print the help text above); and a connection whose
    # handshake names another process than the one expected at that address (1.2 - 4.x; 5.x adds `: got X expected
    # Y`): the address is not the peer's alone, one that several hosts carry (docker0's 172.17.0.1, virbr0's
    # 192.168.122.1), so the job's traffic was routed by an interface the hosts do not share
    M("ompi.btl_tcp_connect_errno",
      (r"btl_tcp_endpoint\.c:\d+:\w+\] connect\(\) to (?P<peer>\S+) failed", r": (?P<reason>[A-Za-z][\w ]*\w)",
       r" \((?P<errno>\d+)\)"),
      "warn", "failure", "network_error", "Open MPI 1.3 - 2.x", "ompi:opal/mca/btl/tcp/btl_tcp_endpoint.c:"
      "mca_btl_tcp_endpoint_complete_connect (ompi/mca/btl/tcp before 2.0)",
      "[node-1][[38971,1],2][btl_tcp_endpoint.c:796:mca_btl_tcp_endpoint_complete_connect] connect() to 172.17.0.1 "
      "failed: Connection refused (111)", "btl_tcp_endpoint.c:796:mca_btl_tcp_endpoint_complete_connect] connect() "
      "to 172.17.0.1 failed", data={"category": "socket"}, anchor="btl_tcp_endpoint.c:"),
    M("ompi.btl_tcp_unexpected_peer",
      (r"received unexpected process identifier", r":? (?:got )?(?P<got>\[\[?\d+,\d+\],\d+\]|\S+)"),
      "warn", "failure", "nic_misselection", "Open MPI 1.2 - 5.x (`: got %s expected %s` 5.x)",
      "ompi:opal/mca/btl/tcp/btl_tcp_endpoint.c:mca_btl_tcp_endpoint_recv_connect_ack (ompi/mca/btl/tcp before 2.0)",
      "[node-1][[39817,1],2][btl_tcp_endpoint.c:638:mca_btl_tcp_endpoint_recv_connect_ack] received unexpected "
      "process identifier [[39817,1],3]", "received unexpected process identifier",
      data={"category": "shared_address"}, anchor="unexpected process identifier"),
    # mpirun could not start its daemons on the other hosts (ORTE's launch help text, as pasted from 1.6 to 4.x; the
    # help file itself not read here, and PRRTE's renamed `PRTE was ...` is the same text's assumed form): the remote
    # launch (ssh, the daemon's path or libraries, a firewall) failed before any rank ran
    M("ompi.daemons_not_started",
      r"(?:ORTE|PRTE) was unable to reliably start one or more daemons",
      "worker_failed", "failure", None, "Open MPI 1.6 - 4.x (ORTE; as pasted)",
      "ompi:orte/mca/plm (daemon launch failure help text, as users paste it)",
      "ORTE was unable to reliably start one or more daemons.", "ORTE was unable to reliably start one or more daemons",
      anchor="was unable to reliably start one or more daemons"),
    M("ompi.peer_hung_up",
      r"An MPI communication peer process has unexpectedly disconnected",
      "worker_failed", "failure", "dropped_rank", "Open MPI 1.x - 5.x",
      "ompi:opal/mca/btl/tcp/help-mpi-btl-tcp.txt:peer hung up",
      "An MPI communication peer process has unexpectedly disconnected.  This",
      "An MPI communication peer process has unexpectedly disconnected", anchor="peer process has unexpectedly"),
    # ---- PaddlePaddle's launcher (`python -m paddle.distributed.launch`, launch/controllers/controller.py watch):
    # `Container failed !!!`, then its first failed container (job/container.py Container.__str__, status
    # job/status.py FAILED). A container's rank is its index in the node's pod (job/pod.py add_container), which
    # controllers/collective.py gives the worker as PADDLE_LOCAL_RANK (log file workerlog.<index>): a local rank
    M("paddle.container_failed",
      (r"Container rank (?P<local_rank>\d+) status failed cmd ", r".*? code (?P<exitcode>-?\d+)",
       r" log (?P<log>\S+)"),
      "worker_failed", "failure", None, "Paddle 2.3+ (launch module; read at a 2024 develop snapshot)",
      "paddle:python/paddle/distributed/launch/job/container.py:Container.__str__",
      "Container rank 6 status failed cmd ['/usr/bin/python', '-u', 'train.py'] code 1 log log/workerlog.6",
      "Container rank 6 status failed cmd ", anchor="status failed cmd"),
    # ---- ColossalAI's `colossalai run` (cli/launcher/multinode_runner.py:run_on_host): the torchrun it ran on a
    # host exited non-zero (fabric's UnexpectedExit: `Encountered a bad command exit code!`); the workers' own lines
    # say why
    M("colossalai.run_failed",
      (r"Error: failed to run (?P<cmd>\S.*?) on (?P<node>[^\s,]+)", r", is localhost: (?:True|False)",
       r", exception: (?P<reason>.+)"),
      "worker_failed", "consequence", None, "ColossalAI 0.1.11 - 0.4 (`is localhost`, `exception` from 0.2.x)",
      "colossalai:colossalai/cli/launcher/multinode_runner.py:run_on_host",
      "Error: failed to run torchrun --nproc_per_node=4 train.py on 127.0.0.1, is localhost: True, exception: "
      "Encountered a bad command exit code!", "Error: failed to run torchrun --nproc_per_node=4 train.py on 127.0.0.1",
      anchor="Error: failed to run"),
    # ---- vLLM's multiprocessing executor: a worker's exception is logged at ERROR by the worker-process module
    # (0.4 - 0.6 multiproc_worker_utils.py `Exception in worker %s while processing method %s` / `Worker failed`,
    # `Worker %s pid %s died, exit code: %s`; 0.8+ v1/executor/multiproc_executor.py `WorkerProc hit an exception.`),
    # and vLLM's NewLineFormatter repeats the record's prefix on every line of its traceback: each such line, even
    # cut out of the traceback, is a worker that raised
    M("vllm.worker_error",
      r"(?:\((?:VllmWorkerProcess|VllmWorker|Worker)[\w ]*? pid=(?P<pid>\d+)\)\s*)?ERROR \d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)? "
      r"\[?(?:[\w/]+/)?(?:multiproc_worker_utils|multiproc_executor)\.py:\d+\]",
      "worker_failed", "failure", None, "vLLM 0.4 - 0.11", "vllm:vllm/executor/multiproc_worker_utils.py:"
      "_run_worker_process, WorkerMonitor.run; vllm:vllm/v1/executor/multiproc_executor.py:worker_busy_loop",
      "(VllmWorkerProcess pid=759) ERROR 07-24 08:26:01 multiproc_worker_utils.py:226]   File \"/usr/lib/python3.10/"
      "vllm/worker/worker.py\", line 132, in init_device",
      "(VllmWorkerProcess pid=759) ERROR 07-24 08:26:01 multiproc_worker_utils.py:226]",
      anchor="multiproc_worker_utils.py:|multiproc_executor.py:"),
    # ---- the ring buffer vLLM's engine broadcasts each step's work through to its workers
    # (vllm/distributed/device_communicators/shm_broadcast.py MessageQueue.acquire_write / acquire_read): a side that
    # waited VLLM_RINGBUFFER_WARNING_INTERVAL (60 s) for the other logs this once per interval. 0.5.1 - 0.6.3 `No
    # available block found in %s second. ` (WARNING); 0.6.4 - 0.7 `No available shared memory broadcast block found
    # in %s second.` (DEBUG; the reader's copy lacks the space before `in`); 0.8+ `... in %s seconds. This typically
    # happens when some processes are hanging or doing some time-consuming work (e.g. compilation[, weight/kv cache
    # quantization]).` (INFO). SGLang's copy of the file prints the 0.5 words. A wait, not a fault of its own: the
    # engine or a worker has not moved for that long (a hang, or compilation at start-up)
    M("vllm.shm_broadcast_wait",
      (r"No available (?:shared memory broadcast )?block found ?in (?P<timeout_s>\d+) seconds?\.",
       r" This typically happens when some processes are hanging"),
      "heartbeat", "consequence", None,
      "vLLM 0.5.1 - 0.17 (0.5.1 - 0.6.3 `No available block`, 0.8+ adds the hanging hint); SGLang's copy",
      "vllm:vllm/distributed/device_communicators/shm_broadcast.py:MessageQueue.acquire_write/acquire_read",
      "(EngineCore_DP0 pid=1454) INFO 05-28 14:45:27 [shm_broadcast.py:681] No available shared memory broadcast "
      "block found in 60 seconds. This typically happens when some processes are hanging or doing some "
      "time-consuming work (e.g. compilation, weight/kv cache quantization).",
      "No available shared memory broadcast block found in 60 seconds.",
      anchor="No available shared memory broadcast block found|No available block found in"),
    # ---- SGLang's scheduler: its watchdog thread (managers/scheduler.py:watchdog_thread, 0.3.5+) ends the server when
    # a forward batch has made no progress for --watchdog-timeout seconds (default 300): it logs this, then sends
    # SIGQUIT to the launcher, whose handler logs the sigquit line below and kills the process tree
    M("sglang.scheduler_watchdog_timeout",
      r"Watchdog timeout \(self\.watchdog_timeout=(?P<timeout_s>\d+)(?:\.\d+)?\)",
      "heartbeat", "failure", "stuck_rank", "SGLang 0.3.5 - 0.5",
      "sglang:python/sglang/srt/managers/scheduler.py:Scheduler.watchdog_thread",
      "[2025-03-09 00:57:15 TP4] Watchdog timeout (self.watchdog_timeout=300)",
      "Watchdog timeout (self.watchdog_timeout=300)", anchor="Watchdog timeout (self.watchdog_timeout="),
    # its successor, the ProcessWatchdog class shared by the scheduler and the tokenizer manager: it logs the
    # process's debug info and a py-spy dump of the schedulers, then this line with its debug name and its soft flag,
    # then SIGQUIT to the launcher. Soft (`self.soft=True`) only reports and the server runs on: not matched
    M("sglang.process_watchdog_timeout",
      r"Scheduler watchdog timeout \(self\.watchdog_timeout=(?P<timeout_s>\d+)(?:\.\d+)?, self\.soft=False\)",
      "heartbeat", "failure", "stuck_rank", "SGLang late 2025+ (srt/utils/watchdog.py; first release not checked)",
      "sglang:python/sglang/srt/utils/watchdog.py:ProcessWatchdog._watchdog_once",
      "[2026-01-29 13:12:37 PP1 TP1] Scheduler watchdog timeout (self.watchdog_timeout=300, self.soft=False)",
      "Scheduler watchdog timeout (self.watchdog_timeout=300, self.soft=False)",
      anchor="Scheduler watchdog timeout (self.watchdog_timeout="),
    # its model runner's barrier after loading the weights (srt/model_executor/model_runner.py load_model, later
    # model_executor/load_model_utils.py dist_barrier_after_load): a gloo monitored_barrier over the TP group's CPU
    # group (wait_all_ranks) past UNBALANCED_MODEL_LOADING_TIMEOUT_S, re-raised `from None`, so the ranks that never
    # came (dead, out of memory, or slow) go unnamed: the TP rank that raises it is the one that loaded
    M("sglang.other_ranks_did_not_load",
      (r"TP rank (?P<tp_rank>\d+) could finish the model loading, but there are other ranks that didn't finish loading",
       r"\. It is likely due to unexpected failures"),
      "monitored_barrier", "failure", "missing_rank", "SGLang 0.4 - 0.5 (first release not checked)",
      "sglang:python/sglang/srt/model_executor/model_runner.py:ModelRunner.load_model",
      "ValueError: TP rank 1 could finish the model loading, but there are other ranks that didn't finish loading. It is "
      "likely due to unexpected failures (e.g., OOM) or a slow node.",
      "TP rank 1 could finish the model loading, but there are other ranks that didn't finish loading",
      data={"state": "failed", "reports_others": True}, anchor="could finish the model loading, but there are other ranks"),
    # the launcher's SIGQUIT handler (srt/entrypoints/engine.py, earlier server.py `sigquit_handler`, later
    # `launch_phase_sigquit_handler`; `proces.` in some 0.4 releases): a child (scheduler, detokenizer) failed and
    # asked it to end everything; the child's own lines say why
    M("sglang.sigquit_from_child",
      (r"Received sigquit from a child process?\.", r" It usually means the child failed"),
      "worker_failed", "consequence", None, "SGLang 0.3 - 0.5",
      "sglang:python/sglang/srt/entrypoints/engine.py:_set_envs_and_config.sigquit_handler",
      "[2025-03-09 00:57:20] Received sigquit from a child process. It usually means the child failed.",
      "Received sigquit from a child process.", anchor="Received sigquit from a child proces"),
    # ---- text-generation-inference's launcher (huggingface/text-generation-inference launcher/src/main.rs): each
    # shard is one tensor-parallel rank (the launcher gives it RANK), a child process that its shard_manager polls
    # inside a `shard-manager` span whose field tracing appends to the line (` rank=N`). A shard that a signal ended
    # is logged by its number (`Shard process was signaled to shutdown with signal N`, every release from 0.x to 3.x,
    # the subprocess crate's ExitStatus::Signaled then std's ExitStatusExt::signal); the main loop then logs `Shard N
    # crashed` (after start-up) or `Shard N failed to start` and shuts the other shards down
    M("tgi.shard_signaled",
      r"Shard process was signaled to shutdown with signal (?P<signum>\d+)(?: rank=(?P<rank>\d+))?",
      "worker_failed", "failure", None, "TGI 0.x - 3.x",
      "text-generation-inference:launcher/src/main.rs:shard_manager",
      "2024-10-01T07:43:22.342900Z ERROR shard-manager: text_generation_launcher: Shard process was signaled to "
      "shutdown with signal 6 rank=0",
      "Shard process was signaled to shutdown with signal 6", anchor="Shard process was signaled to shutdown",
      refine=_killed_by),
    M("tgi.shard_failed",
      r"ERROR text_generation_launcher: Shard (?P<rank>\d+) (?:crashed|failed to start)",
      "worker_failed", "failure", None, "TGI 0.x - 3.x", "text-generation-inference:launcher/src/main.rs:main",
      "2024-10-01T07:43:22.392453Z ERROR text_generation_launcher: Shard 0 crashed",
      "ERROR text_generation_launcher: Shard 0 crashed", anchor="text_generation_launcher: Shard "),
    # ---- bash's report of a foreground job that a signal ended, in a script (non-interactive: jobs.c
    # notify_of_job_status prints `%s: line %d: ` then pretty_print_job(JLIST_NONINTERACTIVE): the pid, the signal's
    # strsignal words padded to a column, ` (core dumped)` when it dumped, and the command). Bash 2 - 5. Which
    # process the command is (the launcher, one worker's wrapper) only the command says
    M("bash.job_killed_by_signal",
      (r": line (?P<line_no>\d+): +(?P<pid>\d+) (?P<signal>Killed|Segmentation fault|Aborted|Bus error|Terminated|"
       r"Illegal instruction|Floating point exception|Hangup|Quit|User defined signal [12])(?: +\(core dumped\))?",
       r" +(?P<command>\S.*)"),
      "worker_failed", "failure", None, "bash 2 - 5", "bash:jobs.c:notify_of_job_status/pretty_print_job",
      "/nemo_run/scripts/pretrain.sh: line 7: 3297567 Killed                  bash -c 'python pretrain.py'",
      "/nemo_run/scripts/pretrain.sh: line 7: 3297567 Killed", anchor=": line "),
    # ---- Ray core: a node or its raylet lost, ray.get's own timeout, the memory monitor's kill report
    M("ray.node_marked_dead",
      # the GCS's node_removed error, pushed to every driver: 0.8 `The node with node id X has been marked dead ...`,
      # 1.0 - 1.12 `... node id: X and ip: A ...`, 1.13+ `... node id: X and address: A and node name: N ...`, each
      # followed by its guess at why (a raylet crash: OOM, a preempted node; lagging heartbeats)
      # (the node's description is optional: a terminal wraps the 56-digit id away from the decisive words)
      (r"(?:The node with node id:? (?P<node_id>[0-9a-f]+)(?: and (?:ip|address): (?P<ip>[\w.:-]+))?"
       r"(?: and node name: (?P<node>\S+))? )?has been marked dead because the detector",
       r" has missed too many heartbeats from it"),
      "worker_failed", "failure", "dropped_rank", "Ray 0.8 - 2.x (`and ip:` 1.0 - 1.12, `and address: ... and node "
      "name:` 1.13+)", "ray:src/ray/gcs/gcs_server/gcs_node_manager.cc (node_removed error; monitor.py in 0.8)",
      "The node with node id: 9426f44574cce4866be798cfed308f2d3e21ba69487d422872cdd6e3 and address: 10.130.0.113 and "
      "node name: 10.130.0.113 has been marked dead because the detector has missed too many heartbeats from it.",
      "The node with node id: 9426f44574cce4866be798cfed308f2d3e21ba69487d422872cdd6e3 and address: 10.130.0.113 and "
      "node name: 10.130.0.113 has been marked dead because the detector",
      anchor="has been marked dead because the detector"),
    M("ray.actor_node_died",
      # gcs_actor_manager's death cause NODE_DIED, then why the node ended (`terminated unexpectedly: health check
      # failed due to missing too many heartbeats`, `was preempted: ...`, `terminated expectedly: received SIGTERM`)
      r"The actor died because its node has died\.(?: Node Id: (?P<node_id>[0-9a-f]+))?",
      "worker_failed", "failure", "dropped_rank", "Ray 2.9 - 2.x", "ray:src/ray/gcs/gcs_server/gcs_actor_manager.cc",
      "The actor died because its node has died. Node Id: 0b6abfec3ad8acdb94e5c2968c71a4c4582b2f43f3d72a9a74a04f85",
      "The actor died because its node has died.", anchor="The actor died because its node has died"),
    M("ray.raylet_terminated",
      # the node's raylet died (its dashboard agent and core workers see it go; the driver relays `(raylet) ...`):
      # every worker on that node went with it
      r"Raylet is terminated\. Termination is unexpected",
      "worker_failed", "failure", "dropped_rank", "Ray 2.x", "ray:python/ray/dashboard/agent.py / _private/worker.py "
      "(raylet death check)", "(raylet) Raylet is terminated. Termination is unexpected. Possible reasons include: (1) "
      "SIGKILL by the user or system OOM killer, (2) Invalid memory access from Raylet causing SIGSEGV or SIGBUS, (3) "
      "Other termination signals.", "Raylet is terminated. Termination is unexpected", anchor="Raylet is terminated"),
    M("ray.memory_monitor_kill",
      # the body of OutOfMemoryError / the raylet's kill report: node memory over the monitor's threshold
      # (RAY_memory_usage_threshold), and the worker it chose to kill
      (r"which exceeds the memory usage threshold of (?P<threshold>[\d.]+)\.", r" Ray killed this worker"),
      "slurm_oom", "failure", "oom", "Ray 2.2 - 2.x", "ray:src/ray/raylet/node_manager.cc (CreateOomKillMessageDetails)",
      "Memory on the node (IP: 10.0.3.21, ID: 0b6a) where the task (actor ID: 7ea5, name=TrainWorker.__init__, pid=4021, "
      "memory used=61.20GB) was running was 118.30GB / 124.00GB (0.954032), which exceeds the memory usage threshold "
      "of 0.95. Ray killed this worker (ID: 12a6) because it was the most recently scheduled task",
      "which exceeds the memory usage threshold of 0.95.", anchor="exceeds the memory usage threshold"),
    M("ray.get_timeout",
      # ray.get(..., timeout=T) ran out before every object was ready: the tasks or actors it waited on are stuck,
      # slow or lost (the lines before it may say which)
      r"(?:ray\.exceptions\.)?GetTimeoutError: Get timed out: some object\(s\) not ready",
      "wait_timeout", "failure", None, "Ray 1.0 - 2.x", "ray:python/ray/_private/worker.py:get (worker.py in 1.x)",
      "ray.exceptions.GetTimeoutError: Get timed out: some object(s) not ready.",
      "GetTimeoutError: Get timed out: some object(s) not ready", anchor="Get timed out: some object"),
    M("ray.node_died_task",
      # the owner's NODE_DIED error for a task whose node went away (NodeDiedError): core_worker task_manager.cc
      # `Task failed due to the node dying.` then `The node (IP: A, node ID: N) where this task was running crashed
      # unexpectedly` (earlier 2.x), later `Task failed due to the node (where this task was running)  was dead or
      # unavailable.` (two spaces) then `The node IP: A, node ID: N`: every rank on that node went with it
      r"Task failed due to the node (?:dying\.|\(where this task was running\))",
      "worker_failed", "failure", "dropped_rank", "Ray 2.x (`node dying` earlier 2.x, `dead or unavailable` later)",
      "ray:src/ray/core_worker/task_manager.cc (NODE_DIED error_info); python/ray/exceptions.py:NodeDiedError",
      "ray.exceptions.NodeDiedError: Task failed due to the node (where this task was running)  was dead or "
      "unavailable.", "Task failed due to the node (where this task was running)", anchor="Task failed due to the node"),
    M("ray.collective_rendezvous",
      # ray.util.collective's NCCL group: rank 0 creates the group's unique-id store actor, every other rank waits
      # for it (Rendezvous.meet, then get_nccl_id, 180 s each); one that gives up raises this: the process that was to
      # create the store (or to publish the id) never came, as a TCPStore waiting for its clients
      r"Unable to meet other processes at the rendezvous store|Unable to get the NCCLUniqueID from the store",
      "dist_backend_error", "failure", "missing_rank", "Ray 1.2 - 2.x",
      "ray:python/ray/util/collective/collective_group/nccl_collective_group.py:Rendezvous.meet / get_nccl_id",
      "RuntimeError: Unable to meet other processes at the rendezvous store. If you are using P2P communication, "
      "please check if tensors are put in the correct GPU.", "Unable to meet other processes at the rendezvous store",
      anchor="at the rendezvous store|Unable to get the NCCLUniqueID"),
    M("ray.train_report_barrier",
      # Ray Train v2's report barrier (SynchronizationActor.broadcast_from_rank_zero): every rank's
      # ray.train.report waits there for all the others; past RAY_TRAIN_REPORT_BARRIER_TIMEOUT_S the ranks that came
      # raise BroadcastCollectiveTimeoutError naming those that never did (`The following ranks have not called it:
      # [2]`), and while they wait the actor warns each interval with the same list (`... for the following ranks` /
      # `to join the report call: [2].`, the word in backquotes): those ranks never came. Ray Train's controller
      # polls each worker's health apart from the barrier and reports a dead one within seconds, long before the
      # barrier's timeout, so the ranks named were alive (missing_alive): stuck or late before it
      r"(?:The following ranks have not called it|to join the `report` call): \[(?P<ranks>\d+(?:, ?\d+)*)",
      "monitored_barrier", "failure", "stuck_rank", "Ray 2.4x - 2.x (Train v2)",
      "ray:python/ray/train/v2/_internal/exceptions.py:BroadcastCollectiveTimeoutError; "
      "train/v2/_internal/execution/checkpoint/sync_actor.py (BROADCAST_PERIODIC_WARNING)",
      "The following ranks have not called it: [2]", "The following ranks have not called it: [2",
      data={"state": "failed", "missing_alive": True}, anchor="ranks have not called it: [|to join the `report` call: ["),
    # ---- submitit (facebookincubator/submitit core/job_environment.py SignalHandler): Slurm's warning signal
    # (USR2 by default) before the time limit or at preemption; it tells them apart by the run time against the
    # requested one (80% of it, or 10 minutes short of it, counts as timed out)
    M("submitit.timed_out",
      r"Job has timed out\. Ran (?P<ran_min>\d+) minutes out of requested (?P<limit_min>\d+) minutes|"
      r"Caught signal (?P<signal>SIG\w+) on (?P<node>\S+): this job is timed-out|"
      r"Job not requeued because: (?P<why>timed-out and not checkpointable|timed-out too many times)",
      "slurm_cancelled", "failure", None, "submitit 1.0 - 1.5",
      "submitit:submitit/core/job_environment.py:SignalHandler.has_timed_out / checkpoint_and_try_requeue",
      "submitit INFO (2024-03-05 07:01:51,311) - Job has timed out. Ran 239 minutes out of requested 240 minutes.",
      "Job has timed out. Ran 239 minutes out of requested 240 minutes", data={"reason": "TIME LIMIT"},
      anchor="Job has timed out|this job is timed-out|Job not requeued because: timed-out"),
    M("submitit.preempted",
      r"Caught signal (?P<signal>SIG\w+) on (?P<node>\S+): this job is preempted",
      "worker_failed", "failure", "dropped_rank", "submitit 1.0 - 1.5",
      "submitit:submitit/core/job_environment.py:SignalHandler.checkpoint_and_try_requeue",
      "submitit WARNING (2024-03-05 07:01:51,311) - Caught signal SIGUSR2 on gpu-031: this job is preempted.",
      "Caught signal SIGUSR2 on gpu-031: this job is preempted", data={"reason": "PREEMPTION"},
      anchor="this job is preempted"),
    # ---- Kubernetes: Kubeflow's training-operator job conditions, the kubelet's eviction
    M("kubeflow.replica_failed",
      # the operator's JobFailed condition/event once a replica failed past its restart policy (`%s %s is failed
      # because %d %s replica(s) failed.`; a per-kind wording in the older per-framework operators)
      r"(?P<job_kind>PyTorchJob|TFJob|MPIJob|XGBoostJob|PaddleJob|JAXJob|MXJob|mxjob) (?P<job>\S+) is failed because "
      r"(?P<count>\d+) (?P<replica_type>\w+) replica\(s\) failed",
      "worker_failed", "failure", "dropped_rank", "training-operator 1.0 - 1.9 (pytorch-operator 0.x)",
      "kubeflow:training-operator pkg/controller.v1/common/job.go / pytorch/pytorchjob_controller.go",
      "PyTorchJob default/bert-ddp is failed because 1 Worker replica(s) failed.",
      "PyTorchJob default/bert-ddp is failed because 1 Worker replica(s) failed", anchor="replica(s) failed"),
    M("kubeflow.replica_restarting",
      # the same count under a restart policy that restarts the job (JobRestarting: `%s %s is restarting because %d %s
      # replica(s) failed.`; TFJob without the count; ReconcilePods' `job %s is restarting because %s replica(s)
      # failed.`), and restartPolicy ExitCode's non-retryable exit (`job %q is failing because %q replica(s) failed.`,
      # 1.8+): a replica's pod failed, its ranks with it
      r"(?:(?P<job_kind>PyTorchJob|TFJob|MPIJob|XGBoostJob|PaddleJob|JAXJob|MXJob|mxjob|job) (?P<job>\S+) is restarting "
      r"because (?:(?P<count>\d+) )?(?P<replica_type>\w+)|job \"(?P<job1>[^\"]+)\" is failing because \"(?P<replica_type1>\w+)\")"
      r" replica\(s\) failed",
      "worker_failed", "failure", "dropped_rank", "training-operator 1.0 - 1.9 (`job %q is failing` 1.8+; ReconcilePods "
      "in kubeflow/common before 1.7)", "kubeflow:training-operator pkg/controller.v1/common/pod.go:ReconcilePods, "
      "pytorch/pytorchjob_controller.go:UpdateJobStatus", "PyTorchJob llama-ft is restarting because 1 Worker replica(s) "
      "failed.", "PyTorchJob llama-ft is restarting because 1 Worker replica(s) failed", anchor="replica(s) failed"),
    M("kubeflow.pod_exited",
      # ReconcilePods' ExitedWithCode event for each replica pod whose main container terminated (`Pod: %v.%v exited
      # with code %v`, namespace.name): a non-zero code is that pod's failure (137: SIGKILL, 139: SIGSEGV); 0 is not
      # matched
      r"Pod: (?P<namespace>[a-z0-9][a-z0-9-]*)\.(?P<pod>[a-z0-9][\w.-]*) exited with code (?P<exitcode>[1-9]\d*)",
      "worker_failed", "failure", None, "training-operator 1.0 - 1.9 (tf-operator's, then ReconcilePods')",
      "kubeflow:training-operator pkg/controller.v1/common/pod.go:ReconcilePods (tensorflow/tfjob_controller.go "
      "before 1.7)", "Pod: research.llama-ft-worker-1 exited with code 137",
      "Pod: research.llama-ft-worker-1 exited with code 1", anchor="exited with code"),
    M("k8s.evicted_resource",
      # the same eviction for a resource other than memory (ephemeral-storage, pids; nodefs/imagefs in early
      # releases): the pod was removed from its node, its ranks with it
      r"The node was low on resource: (?P<resource>(?!memory\b)[\w.-]+)\.",
      "worker_failed", "failure", "dropped_rank", "Kubernetes 1.x", "kubernetes:pkg/kubelet/eviction/helpers.go:evictionMessage",
      "Message: The node was low on resource: ephemeral-storage. Threshold quantity: 10Gi, available: 8123Ki.",
      "The node was low on resource: ephemeral-storage.", anchor="The node was low on resource: "),
    M("k8s.evicted_local_storage",
      # the kubelet's local-storage limits (eviction_manager localStorageEviction; helpers.go emptyDirMessageFmt,
      # podEphemeralStorageMessageFmt, containerEphemeralStorageMessageFmt): an emptyDir over its sizeLimit (a
      # memory-backed /dev/shm one too), or a pod or container over its ephemeral-storage limit; the pod is evicted,
      # its ranks with it. Also a pod refused at admission under a node condition (`The node had condition: [...]`)
      r"Usage of EmptyDir volume \"?(?P<volume>[^\"\s]+)\"? exceeds the limit|Pod ephemeral local storage usage exceeds "
      r"the total limit of containers|Container (?P<container>\S+) exceeded its local ephemeral storage limit"
      r"|The node had condition: \[(?P<condition>[\w ]+)\]",
      "worker_failed", "failure", "dropped_rank", "Kubernetes 1.8 - 1.3x (local ephemeral storage limits; GA 1.25)",
      "kubernetes:pkg/kubelet/eviction/helpers.go (message formats), eviction_manager.go:localStorageEviction / Admit",
      "Message:          Usage of EmptyDir volume \"dshm\" exceeds the limit \"16Gi\". ",
      "Usage of EmptyDir volume \"dshm\" exceeds the limit", data={"reason": "EVICTED"},
      anchor="exceeds the limit|local storage usage exceeds|exceeded its local ephemeral storage|The node had condition: ["),
    # the Job controller's terminal conditions (a torchrun job run as an Indexed Job, a JobSet's child Jobs):
    # activeDeadlineSeconds ran out (the job's time limit, as Slurm's TIME LIMIT), or more pods failed than
    # backoffLimit allows (a worker kept failing; why is in its own lines)
    M("k8s.job_deadline_exceeded",
      r"Job was active longer than specified deadline",
      "slurm_cancelled", "failure", None, "Kubernetes 1.x", "kubernetes:pkg/controller/job/job_controller.go:syncJob",
      "  Warning  DeadlineExceeded  58s    job-controller  Job was active longer than specified deadline",
      "Job was active longer than specified deadline", data={"reason": "TIME LIMIT"}),
    M("k8s.job_backoff_limit",
      r"Job has reached the specified backoff limit",
      "worker_failed", "consequence", None, "Kubernetes 1.8 - 1.x", "kubernetes:pkg/controller/job/job_controller.go:syncJob",
      "  Warning  BackoffLimitExceeded  2m  job-controller  Job has reached the specified backoff limit",
      "Job has reached the specified backoff limit"),
    M("k8s.evicted_memory",
      # the kubelet's eviction manager under node memory pressure (eviction/helpers.go: `The node was low on
      # resource: %v. `, then each container's use against its request)
      r"The node was low on resource: memory\.",
      "slurm_oom", "failure", "oom", "Kubernetes 1.x", "kubernetes:pkg/kubelet/eviction/helpers.go:evictionMessage",
      "Message: The node was low on resource: memory. Container pytorch was using 61Gi, which exceeds its request of 32Gi.",
      "The node was low on resource: memory.", anchor="The node was low on resource: memory"),
    # the scheduler took the pod's node or slot away: kube-scheduler's preemption of a lower-priority pod (event
    # reason Preempted: `Preempted by <ns>/<name> on node <n>` 1.11 - 1.25, `Preempted by pod <uid> on node <n>`
    # 1.26+), the kubelet's graceful node shutdown (nodeshutdown_manager: reason Terminated, 1.20+)
    M("k8s.preempted",
      r"Preempted by (?:pod (?P<preemptor_uid>[0-9a-f-]+)|(?P<preemptor>[\w.-]+/[\w.-]+)) on node (?P<node>\S+)",
      "worker_failed", "failure", "dropped_rank", "Kubernetes 1.11 - 1.x (`pod <uid>` 1.26+)",
      "kubernetes:pkg/scheduler/framework/preemption/preemption.go (core/generic_scheduler.go before 1.19)",
      "  Normal   Preempted  2m    default-scheduler  Preempted by pod 5d8f7a1e-2b0c-4d11-9a3e-71c0e4b2f9aa on node "
      "gke-a-3f2c", "Preempted by pod 5d8f7a1e-2b0c-4d11-9a3e-71c0e4b2f9aa on node gke-a-3f2c",
      data={"reason": "PREEMPTION"}, anchor="Preempted by "),
    M("k8s.node_shutdown",
      r"Pod was terminated in response to imminent node shutdown",
      "worker_failed", "failure", "dropped_rank", "Kubernetes 1.20 - 1.x",
      "kubernetes:pkg/kubelet/nodeshutdown/nodeshutdown_manager_linux.go (nodeShutdownMessage)",
      "Message:          Pod was terminated in response to imminent node shutdown.",
      "Pod was terminated in response to imminent node shutdown"),
    # the kubelet's back-off before restarting a container that exited (event BackOff; `... container <c> in pod
    # <p>` 1.26+; the waiting reason CrashLoopBackOff): a worker keeps failing, why is in its own lines or exit code
    M("k8s.crash_loop_backoff",
      r"Back-off restarting failed container|\bCrashLoopBackOff\b",
      "worker_failed", "failure", None, "Kubernetes 1.x", "kubernetes:pkg/kubelet/kuberuntime/kuberuntime_manager.go",
      "  Warning  BackOff  12s (x40 over 11m)  kubelet  Back-off restarting failed container pytorch in pod w-1",
      "Back-off restarting failed container", anchor="Back-off restarting failed container|CrashLoopBackOff"),
    # `kubectl get pods`' STATUS column holds the container's terminated reason: a row `NAME READY OOMKilled
    # RESTARTS AGE` is a container the kernel's memory cgroup killed (kubectl printers.go printPod)
    M("k8s.pods_row_oomkilled",
      r"(?P<pod>[a-z0-9][\w.-]*)\s+\d+/\d+\s+OOMKilled\s+\d+",
      "k8s_oomkilled", "failure", "oom", "Kubernetes 1.x (kubectl get pods)",
      "kubernetes:pkg/printers/internalversion/printers.go:printPod",
      "llama-ft-worker-1   0/1     OOMKilled   2 (31s ago)   47m", "llama-ft-worker-1   0/1     OOMKilled   2",
      data={"message": "kubectl get pods: OOMKilled"}, anchor="OOMKilled"),
    # the same column for a container that exited non-zero: the runtime's terminated reason `Error` (`Completed` for
    # exit 0), or, where none was given, `ExitCode:N` / `Signal:N`; an init container's with `Init:` before it; a
    # container that never started: `ContainerCannotRun`, `StartError` (kubectl printers.go printPod)
    M("k8s.pods_row_failed",
      r"(?P<pod>[a-z0-9][\w.-]*)\s+\d+/\d+\s+(?P<status>(?:Init:)?(?:Error|ExitCode:[1-9]\d*|Signal:\d+)"
      r"|ContainerCannotRun|StartError)\s+\d+",
      "worker_failed", "failure", None, "Kubernetes 1.x (kubectl get pods)",
      "kubernetes:pkg/printers/internalversion/printers.go:printPod",
      "llama-ft-worker-1   0/1     Error       0          47m", "llama-ft-worker-1   0/1     Error       0",
      data={"message": "kubectl get pods: a container exited with an error"},
      anchor="Error|ExitCode:|Signal:|ContainerCannotRun|StartError"),
    # ---- PBS (OpenPBS / PBS Pro, Torque): the MoM's over-limit kill, written to the job's stderr
    # (resmom/mom_main.c: `=>> PBS: job killed: %s` with job_over_limit's reason: `walltime %lu exceeded limit %lu`,
    # `mem %lukb exceeded limit %lukb`, `vmem ...`, `cput ...`, `ncpus ...`)
    M("pbs.walltime_exceeded",
      (r"PBS: job killed: walltime (?P<used_s>\d+)", r" exceeded limit (?P<limit_s>\d+)"),
      "slurm_cancelled", "failure", None, "OpenPBS / PBS Pro 5 - 23, Torque 2 - 6",
      "openpbs:src/resmom/mom_main.c:job_over_limit / mom_over_limit message",
      "=>> PBS: job killed: walltime 86417 exceeded limit 86400", "PBS: job killed: walltime 86417",
      data={"reason": "TIME LIMIT"}, anchor="PBS: job killed: walltime"),
    M("pbs.mem_exceeded",
      (r"PBS: job killed: (?P<resource>p?v?mem) (?P<used_kb>\d+)kb", r" exceeded limit (?P<limit_kb>\d+)kb"),
      "slurm_oom", "failure", "oom", "OpenPBS / PBS Pro 5 - 23, Torque 2 - 6",
      "openpbs:src/resmom/mom_main.c:job_over_limit",
      "=>> PBS: job killed: mem 263409152kb exceeded limit 251658240kb", "PBS: job killed: mem 263409152kb",
      anchor="PBS: job killed: "),
    # ---- IBM Spectrum LSF: the job report appended to the job's output (`TERM_<REASON>: job killed after ...`,
    # lsbatch.h's termination reasons as bacct/bhist and the report print them), then `Exited with exit code N.`
    M("lsf.term_runlimit",
      (r"TERM_RUNLIMIT: job killed", r" after reaching LSF run time limit"),
      "slurm_cancelled", "failure", None, "LSF 6 - 10.1", "lsf:lsbatch.h TERM_RUNLIMIT (the job report)",
      "TERM_RUNLIMIT: job killed after reaching LSF run time limit.", "TERM_RUNLIMIT: job killed",
      data={"reason": "TIME LIMIT"}, anchor="TERM_RUNLIMIT"),
    M("lsf.term_memlimit",
      (r"TERM_(?P<limit>MEMLIMIT|SWAP): job killed", r" after reaching LSF (?:memory|swap) usage limit"),
      "slurm_oom", "failure", "oom", "LSF 6 - 10.1", "lsf:lsbatch.h TERM_MEMLIMIT, TERM_SWAP (the job report)",
      "TERM_MEMLIMIT: job killed after reaching LSF memory usage limit.", "TERM_MEMLIMIT: job killed",
      anchor="TERM_MEMLIMIT|TERM_SWAP"),
    M("lsf.term_preempt",
      (r"TERM_PREEMPT: job killed", r" after preemption"),
      "worker_failed", "failure", "dropped_rank", "LSF 6 - 10.1", "lsf:lsbatch.h TERM_PREEMPT (the job report)",
      "TERM_PREEMPT: job killed after preemption.", "TERM_PREEMPT: job killed", data={"reason": "PREEMPTION"},
      anchor="TERM_PREEMPT"),
    M("lsf.successfully_completed",
      # the report's verdict on a job whose script exited 0 (`Exited with exit code N.` otherwise)
      r"^\s*Successfully completed\.\s*$",
      "agent_log", "healthy", None, "LSF 6 - 10.1", "lsf:the job report (a job that exited 0)",
      "Successfully completed.", "Successfully completed.", data={"message": "LSF job SUCCEEDED", "scope": "job"},
      anchor="Successfully completed."),
    # ---- SkyPilot's job driver (sky/backends/cloud_vm_ray_backend.py, the generated program): a node's run
    # command exited non-zero; its reason names the first non-137 code when the others are SkyPilot's own cleanup
    # (137), or a segfault (139); then the log tail's `Job finished (status: S).` (`SKY INFO: ` early, `INFO: `,
    # then a check mark: sky/skylet/log_lib.py)
    M("skypilot.return_code_list",
      (r"Job (?P<job_id>\d+) failed with return code list:\s*(?:\x1b\[[\d;]*m)?\s*\[(?P<codes>[-\d, ]+)\]",
       r" \((?P<reason>likely due to Segmentation Fault|A Worker failed with return code (?P<exitcode>\d+))"),
      "worker_failed", "failure", None, "SkyPilot 0.2 - 0.10",
      "skypilot:sky/backends/cloud_vm_ray_backend.py (RayCodeGen.add_epilogue)",
      "ERROR: Job 4 failed with return code list: [137, 1] (A Worker failed with return code 1, SkyPilot cleaned up "
      "the processes on other nodes with return code 137)", "Job 4 failed with return code list: [137, 1]",
      anchor="failed with return code list"),
    M("skypilot.job_succeeded",
      r"Job finished \(status: SUCCEEDED\)",
      "agent_log", "healthy", None, "SkyPilot 0.2 - 0.10", "skypilot:sky/skylet/log_lib.py:_follow_job_logs",
      "SKY INFO: Job finished (status: SUCCEEDED).", "Job finished (status: SUCCEEDED)",
      data={"message": "SkyPilot job SUCCEEDED", "scope": "job"}),
    # ---- torchx's `torchx run` (cli/cmd_run.py _wait_and_exit): the app's terminal state, then the AppStatus
    M("torchx.job_succeeded",
      r"Job finished: SUCCEEDED\b",
      "agent_log", "healthy", None, "torchx 0.1 - 0.8", "torchx:torchx/cli/cmd_run.py:_wait_and_exit",
      "torchx 2024-05-10 10:05:40 INFO     Job finished: SUCCEEDED", "Job finished: SUCCEEDED",
      data={"message": "torchx job SUCCEEDED", "scope": "job"}),
    M("torchx.job_failed",
      r"Job finished: (?P<state>FAILED|CANCELLED)\b",
      "worker_failed", "consequence", None, "torchx 0.1 - 0.8", "torchx:torchx/cli/cmd_run.py:_wait_and_exit",
      "torchx 2024-05-10 11:14:20 INFO     Job finished: FAILED", "Job finished: FAILED"),
]
