"""The distributed-training stack around torch and NCCL: the libraries a job's ranks run on top of them (DeepEP and
NVSHMEM, Megatron-core and NVIDIA's resiliency extension, the DeepSpeed runtime, TransformerEngine's userbuffers,
vLLM's executors and parallel config, TensorRT-LLM's CUDA checks, Ray's control plane) and the MPI transports under them (Open MPI's TCP BTL/OOB and its UCX PML,
UCX's own memory registration and endpoint errors, rdma-core's mlx5 provider's error completions,
Ascend HCCL's socket timeout as torch_npu reports it).
UCX's own memory registration, endpoint, transport and wireup errors, UCC's tl/ucp completions).

Read in deepseek-ai/DeepEP csrc/kernels/{internode,intranode,internode_ll}.cu and csrc/deep_ep.cpp (every release
since the first, 2025-02; `legacy/` for the masked low-latency kernels), NVIDIA/nvshmem src/host/transport and
src/host/init (NVSHMEMI_ERROR_PRINT: `<file>:<line>: non-zero status: <n> <words>`), NVIDIA/Megatron-LM
megatron/core/{parallel_state.py, distributed/param_and_grad_buffer.py, rerun_state_machine.py},
NVIDIA/nvidia-resiliency-ext straggler/, deepspeedai/DeepSpeed deepspeed/runtime/fp16/loss_scaler.py,
deepspeed/runtime/zero/utils.py and deepspeed/runtime/engine.py (edaa72212),
NVIDIA/TransformerEngine transformer_engine/common/comm_gemm_overlap/userbuffers/userbuffers.cu (UB_PRINT),
vllm-project/vllm vllm/v1/executor/{multiproc_executor.py, ray_executor_v2.py}, vllm/config/parallel.py and
csrc/cumem_allocator.cpp, NVIDIA/TensorRT-LLM cpp/include/tensorrt_llm/common/cudaUtils.h and
cpp/tensorrt_llm/common/tllmException.cpp, ray-project/ray
src/ray/gcs/gcs_server/gcs_node_manager.cc and src/ray/util/logging.cc, abseil/abseil-cpp
absl/debugging/failure_signal_handler.cc, open-mpi/ompi opal/mca/btl/tcp/btl_tcp_frag.c,
orte/mca/oob/tcp/oob_tcp_msg.c, ompi/mca/pml/ucx/pml_ucx.c, openucx/ucx src/uct/ib/base/ib_md.c and
src/ucp/core/ucp_ep.c, linux-rdma/rdma-core providers/mlx5/cq.c, Ascend/pytorch
torch_npu/csrc/core/npu/NPUException.cpp and HCCL's hccl_common.h (hicann/hccl docs), openxla/xla xla/service/rendezvous.cc (JAX's and TensorFlow's XLA) and its coordination service
orte/mca/oob/tcp/oob_tcp_msg.c, ompi/mca/pml/ucx/pml_ucx.c, openucx/ucx src/uct/ib/base/ib_md.c,
src/ucp/core/ucp_ep.c, src/uct/ib/ud/base/ud_ep.c, src/uct/ib/rc/verbs/rc_verbs_iface.c, src/ucs/sys/sock.c,
src/uct/tcp/tcp_ep.c and src/ucp/wireup/select.c (1.x to 1.22), openucx/ucc
src/components/tl/ucp/tl_ucp_sendrecv.c, openxla/xla xla/service/rendezvous.cc (JAX's and TensorFlow's XLA) and its coordination service
(xla/tsl/distributed_runtime/coordination/, xla/pjrt/distributed/client.{cc,h}; tensorflow/ before 2024), apache/tvm-ffi
src/ffi/traceback.cc.
"""
from __future__ import annotations

from . import Message as M

MESSAGES = [
    # ---- DeepEP: its kernels spin on their peers' counters and, past NUM_TIMEOUT_CYCLES, printf the wait they gave
    # up on and trap() (the host then sees `unspecified launch failure`); the masked low-latency kernels (legacy/,
    # 2025-09+) print `Warning: ...` and mask the peer instead. The host side throws after NUM_CPU_TIMEOUT_SECS
    # waiting for the receive counts. A peer that never sent (stuck, dead, or its RDMA path broken): a timeout
    M("deepep.kernel_timeout",
      (r"DeepEP timeout for (?P<op>dispatch|combine|barrier)(?: (?P<side>receivers|senders|sender gate|receive|send))?"
       r", rank (?P<rank>\d+)",
       r"(?:, responsible_channel = (?P<channel>\d+)|, local_expert_idx \d+, src_rank (?P<other_rank>\d+)"
       r"|, dst_rank (?P<other_rank1>\d+))?"),
      "watchdog_timeout", "failure", "timeout_unknown",
      "DeepEP 2025-02+ (`Warning: ... receive, ... src_rank` and `barrier, ... dst_rank` from 2025-09, masked mode)",
      "deepep:csrc/kernels/internode.cu / intranode.cu / internode_ll.cu (printf then trap)",
      "DeepEP timeout for dispatch receivers, rank 5, responsible_channel = 3, tokens remained: 112",
      "DeepEP timeout for dispatch receivers, rank 5", data={"category": "device_trap"}, anchor="DeepEP timeout for "),
    M("deepep.cpu_timeout",
      r"DeepEP error: (?:timeout \((?P<op>dispatch|combine) CPU\)|CPU recv timeout)",
      "watchdog_timeout", "failure", "timeout_unknown", "DeepEP 2025-02+ (`CPU recv timeout` in legacy/buffer.hpp)",
      "deepep:csrc/deep_ep.cpp:Buffer::internode_dispatch / intranode_dispatch",
      "RuntimeError: DeepEP error: timeout (dispatch CPU)", "DeepEP error: timeout (dispatch CPU)",
      data={"category": "timeout"}, anchor="DeepEP error: timeout|DeepEP error: CPU recv timeout"),
    # ---- NVSHMEM (DeepEP's and TransformerEngine's transport): NVSHMEMI_ERROR_PRINT names the file of the failing
    # step; a failure inside its transports (IB RC, IBGDA, libfabric, UCX) is the RDMA network's. The summary line
    # after it names no cause of its own.
    M("nvshmem.transport_error",
      r"/src/(?:host|modules)/transport/[\w/.-]+\.(?:cpp|cu|c):\d+: non-zero status: (?P<status>-?\d+) (?P<reason>\S.*)",
      "warn", "failure", "network_error", "NVSHMEM 3.x as built for CUDA 12.8 (seen); other releases not checked",
      "nvshmem:src/host/transport/transport.cpp, src/modules/transport/ibgda/ibgda.cpp (NVSHMEMI_ERROR_PRINT)",
      "/dvs/p4/build/sw/rel/gpgpu/toolkit/r12.8/main_nvshmem/src/host/transport/transport.cpp:420: non-zero status: 7 "
      "connect EPS failed", "/src/host/transport/transport.cpp:420: non-zero status: 7 c",
      data={"category": "ib"}, anchor="non-zero status: "),
    M("nvshmem.init_failed",
      (r"nvshmem initialization failed", r", exiting"),
      "worker_failed", "failure", None, "NVSHMEM 2.x - 3.x (first release not checked)",
      "nvshmem:src/host/init/init.cu:nvshmemi_check_state_and_init (NVSHMEMI_ERROR_EXIT)",
      "nvshmem initialization failed, exiting", "nvshmem initialization failed", anchor="nvshmem initialization failed"),
    # ---- numerical failures the frameworks check for: the run diverged (fp16 overflow at every step, NaN gradients);
    # no rank died of its own fault and no communication failed, so no class of ncclf's
    # The rank that checked names itself: `Rank N: ` before the assert's words; through the rerun state machine with
    # reruns disabled (core 0.11+, 2025-02) `Rank N, node H, device D, iteration I: Unexpected result R (message='...')`,
    # Inf checked beside NaN
    M("megatron.nan_grad_norm",
      r"(?:Rank (?P<rank>\d+)(?:: |, node \S+, device \d+, iteration \d+: Unexpected result \S+ \(message='))?"
      r"found (?P<value>NaN|Inf) in local grad norm (?:for bucket #\d+ )?in backward pass before data-parallel "
      r"communication",
      "traceback", "failure", "unclassified_failure",
      "Megatron-core (an assert in the releases before its rerun state machine, `for bucket #N` and the `Unexpected "
      "result` wrapper through it after, 2025-02 - 2026-08; first release not checked)",
      "megatron:megatron/core/distributed/param_and_grad_buffer.py:start_grad_sync / check_grads, "
      "megatron/core/rerun_state_machine.py:RerunStateMachine.validate_result",
      "RuntimeError: Rank 6, node gpu-node-03, device 6, iteration 813: Unexpected result inf (message='found Inf in "
      "local grad norm for bucket #0 in backward pass before data-parallel communication collective')",
      "RuntimeError: Rank 6, node gpu-node-03, device 6, iteration 813: Unexpected result inf (message='found Inf in "
      "local grad norm for bucket #0 in backward pass before data-parallel communication",
      data={"category": "numerics", "scope": "rank", "rank_is_own": True},
      anchor="in local grad norm"),
    M("deepspeed.loss_scale_at_minimum",
      (r"Current loss scale already at minimum", r" - cannot decrease scale anymore"),
      "traceback", "failure", "unclassified_failure", "DeepSpeed (every release read; first not checked)",
      "deepspeed:deepspeed/runtime/fp16/loss_scaler.py:DynamicLossScaler.update_scale",
      "Exception: Current loss scale already at minimum - cannot decrease scale anymore. Exiting run.",
      "Current loss scale already at minimum", data={"category": "numerics"},
      anchor="Current loss scale already at minimum"),
    # ---- DeepSpeed ZeRO-3's cross-rank sanity checks (safe_mode all-gathers, the prefetch trace, the reduce buckets):
    # rank 0 broadcasts its list of parameter or submodule ids (or sizes) and every rank that holds another raises,
    # naming itself; the ranks are about to all-gather or reduce different parameters
    M("deepspeed.zero_rank_disagreement",
      r"Detected a disagreement on list (?P<what>length|contents) between rank0 and rank(?P<rank>\d+)",
      "traceback", "failure", "collective_mismatch", "DeepSpeed 0.5 - 0.18 (read at edaa72212, 2026-08; first "
      "release not checked)",
      "deepspeed:deepspeed/runtime/zero/utils.py:assert_lst_len_same_as_other_ranks / assert_ints_same_as_other_ranks",
      "RuntimeError: Detected a disagreement on list length between rank0 and rank5: ",
      "Detected a disagreement on list length between rank0 and rank5",
      data={"category": "zero_rank_disagreement", "rank_is_own": True}, anchor="Detected a disagreement on list "),
    # resuming ZeRO optimizer state saved under another data-parallel size: every rank raises at load (a setting)
    M("deepspeed.zero_checkpoint_dp_world_size",
      (r"The checkpoint being loaded used a DP world size of (?P<saved>\d+) but the current world size is "
       r"(?P<world_size>\d+)", r"\. Automatic adjustment of ZeRO's optimizer state partitioning"),
      "traceback", "failure", "unclassified_failure", "DeepSpeed 0.3 - 0.18 (read at edaa72212, 2026-08; first "
      "release not checked)", "deepspeed:deepspeed/runtime/engine.py:DeepSpeedEngine._load_zero_checkpoint",
      "deepspeed.runtime.zero.utils.ZeRORuntimeException: The checkpoint being loaded used a DP world size of 4 but "
      "the current world size is 8. Automatic adjustment of ZeRO's optimizer state partitioning with a new world "
      "size is not currently supported.", "The checkpoint being loaded used a DP world size of 4 but the current "
      "world size is 8", data={"category": "setup"}, anchor="The checkpoint being loaded used a DP world size of "),
    # ---- a parallel layout the world size does not divide: every rank raises it at start (a launch setting)
    M("megatron.world_size_not_divisible",
      r"world_size \((?P<world_size>\d+)\) is not divisible by tensor_model_parallel_size",
      "traceback", "failure", "unclassified_failure", "Megatron-LM and Megatron-core (every release read; `x context_parallel_size` in the later ones)",
      "megatron:megatron/core/parallel_state.py:initialize_model_parallel (megatron/mpu/initialize.py before core)",
      "RuntimeError: world_size (12) is not divisible by tensor_model_parallel_size (8) x "
      "pipeline_model_parallel_size (1) x context_parallel_size (1)",
      "world_size (12) is not divisible by tensor_model_parallel_size", data={"category": "setup"},
      anchor="is not divisible by tensor_model_parallel_size"),
    # ---- NVIDIA resiliency extension's straggler detector (Megatron and NeMo callbacks): the ranks whose GPU scores
    # fell below the threshold, relative to the others or to their own best
    M("nvrx.straggler_warning",
      (r"STRAGGLER DETECTION WARNING: Some GPUs (?:have worse relative performance|performance dropped)\.",
       r" Affected ranks: (?P<ranks>[\[{(][\d, ]*[\]})])"),
      "straggler_report", "failure", "straggler", "nvidia-resiliency-ext (first release not checked)",
      "nvrx:src/nvidia_resiliency_ext/ptl_resiliency/straggler_det_callback.py:_print_stragglers (Megatron "
      "megatron/training/training.py the same)",
      "STRAGGLER DETECTION WARNING: Some GPUs have worse relative performance. Affected ranks: [5]",
      "STRAGGLER DETECTION WARNING: Some GPUs have worse relative performance.",
      anchor="STRAGGLER DETECTION WARNING"),
    # ---- its fault-tolerance rank monitor (ft_launcher starts one process per rank): the rank's heartbeats or its
    # sections stopped for longer than their timeout, so the monitor kills the rank and the launcher restarts the
    # group. Its logger's name holds the monitored rank (`[RankMonitorServer:<rank>]` 0.1 - 0.2, `[RankMonServer<pid>@
    # <host>:<rank>]` 0.3+; `[Cycle N] ` before the words from 2026). The rank stopped making progress: a stuck rank
    M("nvrx.rank_monitor_timeout",
      (r"\[(?:RankMonServer\d+@[^\s:\]]+|RankMonitorServer):(?P<rank>\d+)\] (?:\[Cycle \d+\] )?(?P<reason>Did not get (?:initial|subsequent) "
       r"heartbeat|Section '[^']*' has been open for|Was out of section for)",
       r".*?(?:Waited|Timeout is) (?P<timeout_s>\d+)"),
      "heartbeat", "failure", "stuck_rank",
      "nvidia-resiliency-ext 0.1 - 0.7 (heartbeats 0.1+, sections 0.3+; `[Cycle N] ` from 2026)",
      "nvrx:src/nvidia_resiliency_ext/fault_tolerance/rank_monitor_server.py:_is_hb_timeout_elapsed / "
      "_is_section_timeout_elapsed",
      "[2026-11-20 04:12:51,330] [WARNING] [RankMonServer81234@node-07:12] [Cycle 0] Did not get subsequent heartbeat. "
      "Waited 1800.00 seconds.", "[RankMonServer81234@node-07:12] [Cycle 0] Did not get subsequent heartbeat",
      data={"category": "rank_monitor"},
      anchor="Did not get initial heartbeat|Did not get subsequent heartbeat|has been open for|Was out of section for"),
    # ---- TransformerEngine userbuffers (comm-GEMM overlap): a kernel waiting for a peer's flag past ub_timeout
    # (NVTE_UB_TIMEOUT) prints `[file:function:line] [rank] <op>: SM s [t]: expecting N got M` and gives up
    M("te.userbuffers_timeout",
      r"\] \[(?P<rank>\d+)\] (?P<op>[A-Za-z][\w -]*?): SM \d+ \[\d+\]: expecting (?P<expected>-?\d+) got (?P<got>-?\d+)",
      "watchdog_timeout", "failure", "timeout_unknown", "TransformerEngine (the comm-GEMM overlap releases; first not checked)",
      "transformer_engine:transformer_engine/common/comm_gemm_overlap/userbuffers/userbuffers.cu (UB_PRINT)",
      "[userbuffers.cu:userbuffers_fp16_sum_inplace_gpu_rw:212] [2] Allreduce reduce-scatter: SM 0 [0]: expecting "
      "4217 got 4216", "] [2] Allreduce reduce-scatter: SM 0 [0]: expecting 4217 got 4216",
      data={"category": "device_trap"}, anchor=": expecting "),
    # ---- vLLM's executors: a worker process (or its Ray actor) vanished without an error of its own
    M("vllm.worker_died",
      (r"(?:Worker proc (?P<proc>\S+)|RayWorkerProc rank=\[(?P<rank>\d+)\]) died unexpectedly",
       r", shutting down executor"),
      "worker_failed", "failure", "dropped_rank",
      "vLLM V1 executors (0.8.5 seen; RayWorkerProc in ray_executor_v2; first release not checked)",
      "vllm:vllm/v1/executor/multiproc_executor.py:start_worker_monitor, ray_executor_v2.py",
      "ERROR 11-26 16:54:45 [multiproc_executor.py:123] Worker proc VllmWorker-1 died unexpectedly, shutting down "
      "executor.", "Worker proc VllmWorker-1 died unexpectedly", anchor="died unexpectedly"),
    # ---- vLLM's sleep-mode allocator (csrc/cumem_allocator.cpp CUDA_CHECK): a cuMem* call failed; it prints
    # `CUDA Error: <cuGetErrorString> at <file>:<line>` to stderr and python_create_and_map / python_unmap_and_release
    # raise it as RuntimeError (wake_up, sleep). ROCm builds print the same through the hip compat header
    M("vllm.cumem_out_of_memory",
      (r"CUDA Error: out of memory", r" at (?P<src_file>\S+):(?P<src_line>\d+)"),
      "oom", "failure", "oom", "vLLM 0.7+ (sleep mode)", "vllm:csrc/cumem_allocator.cpp:CUDA_CHECK",
      "RuntimeError: CUDA Error: out of memory at /workspace/csrc/cumem_allocator.cpp:62",
      "CUDA Error: out of memory", data={"oom_kind": "cuda"}, anchor="CUDA Error: out of memory"),
    M("vllm.cumem_cuda_error",
      r"CUDA Error: (?!out of memory)(?P<reason>[a-z][^\n]*?) at (?P<src_file>\S*cumem_allocator\.cpp):(?P<src_line>\d+)",
      "cuda_error", "failure", None, "vLLM 0.7+ (sleep mode)", "vllm:csrc/cumem_allocator.cpp:CUDA_CHECK",
      "RuntimeError: CUDA Error: invalid argument at /workspace/csrc/cumem_allocator.cpp:118",
      "CUDA Error: invalid argument at /workspace/csrc/cumem_allocator.cpp:118", anchor="cumem_allocator.cpp:"),
    # ---- vLLM's parallel config: more ranks asked for (TP x PP) than this node's GPUs, with no other node's to
    # draw on (the Ray cluster never took the second node in, or multiprocessing without --nnodes); raised at start
    # by pydantic's validator (`Value error, ...`), before any worker exists: a launch setting
    M("vllm.world_larger_than_gpus",
      (r"(?:Tensor parallel size|World size) \((?P<requested>\d+)\) (?:cannot be larger|is larger) than the number "
       r"of available GPUs", r" \((?P<gpus>\d+)\)"),
      "traceback", "failure", "unclassified_failure",
      "vLLM 0.11 - 0.12 (`Tensor parallel size (N) cannot be larger ...`, seen in reports), `World size (N) is larger "
      "... in this node` after (read at HEAD)",
      "vllm:vllm/config/parallel.py:ParallelConfig.__post_init__",
      "Value error, Tensor parallel size (16) cannot be larger than the number of available GPUs (8)",
      "Tensor parallel size (16) cannot be larger than the number of available GPUs", data={"category": "setup"},
      anchor="than the number of available GPUs"),
    # ---- TensorRT-LLM's CUDA check (cpp/include/tensorrt_llm/common/cudaUtils.h `check`, TLLM_CUDA_CHECK): the
    # runtime's error text after the call that failed, and TllmException appends ` (<file>:<line>)`; the error text
    # decides the class as torch's `CUDA error:` does (catalogue/cuda.py reason_class: `invalid device ordinal` is a
    # launch that gave a rank no GPU), out of memory its own
    M("trtllm.cuda_out_of_memory",
      (r"\[TensorRT-LLM\]\[ERROR\] CUDA runtime error in (?P<call>\S.*?\)): out of memory",
       r" \((?P<src_file>[^\s:()]+):(?P<src_line>\d+)\)"),
      "oom", "failure", "oom", "TensorRT-LLM 0.5 - 1.x (every release read)",
      "tensorrt_llm:cpp/include/tensorrt_llm/common/cudaUtils.h:check, cpp/tensorrt_llm/common/tllmException.cpp",
      "[TensorRT-LLM][ERROR] CUDA runtime error in ::cudaMalloc(ptr, n): out of memory (tllmBuffers.h:125)",
      "[TensorRT-LLM][ERROR] CUDA runtime error in ::cudaMalloc(ptr, n): out of memory", data={"oom_kind": "cuda"},
      anchor="[TensorRT-LLM][ERROR] CUDA runtime error in "),
    M("trtllm.cuda_runtime_error",
      # the words before the call decide (a call failed); the call's name can be long enough to wrap the line
      (r"\[TensorRT-LLM\]\[ERROR\] CUDA runtime error in (?![^\n]*\): out of memory)",
       r"(?P<call>\S.*?\)): (?P<reason>[a-z][^()\n]*?)(?= \(\S+:\d+\)|\s*$)",
       r" \((?P<src_file>[^\s:()]+):(?P<src_line>\d+)\)"),
      "cuda_error", "failure", "dropped_rank", "TensorRT-LLM 0.5 - 1.x (every release read)",
      "tensorrt_llm:cpp/include/tensorrt_llm/common/cudaUtils.h:check, cpp/tensorrt_llm/common/tllmException.cpp",
      "[TensorRT-LLM][ERROR] CUDA runtime error in cudaStreamIsCapturing(stream, &status): an illegal memory access "
      "was encountered (../include/tensorrt_llm/common/cudaUtils.h:157)",
      "[TensorRT-LLM][ERROR] CUDA runtime error in ", anchor="[TensorRT-LLM][ERROR] CUDA runtime error in "),
    # (Ray's node marked dead is launchers.py's ray.node_marked_dead)
    # ---- Abseil's failure signal handler (Ray's workers install it: vLLM/SGLang Ray workers, RLHF actors; also any
    # gRPC/absl binary): its first line names the signal the process received, then `PC: @ ...` and the frames. Ray
    # passes absl a writer, so each line comes again through its logger (`[time E pid tid] logging.cc:N: *** ...`).
    # A fault signal is the process's own crash; SIGABRT (an abort: the watchdog's after a timeout elsewhere, an
    # assert) names no class by itself; SIGTERM was sent from outside (the launcher's teardown)
    M("absl.failure_signal",
      (r"\*\*\* (?P<signal>SIG(?:SEGV|BUS|ILL|FPE|TRAP|ABRT)) received at time=\d+", r" on cpu (?P<cpu>\d+)"),
      "signal_report", "failure", None, "Abseil LTS 2018-06 - 2025 (` on cpu N` from LTS 2021-03-24)",
      "abseil:absl/debugging/failure_signal_handler.cc:WriteSignalMessage",
      "*** SIGSEGV received at time=1746566409 on cpu 131 ***", "*** SIGSEGV received at time=1746566409",
      anchor=" received at time="),
    M("absl.failure_signal_term",
      (r"\*\*\* (?P<signal>SIGTERM) received at time=\d+", r" on cpu (?P<cpu>\d+)"),
      "signal_report", "consequence", None, "Abseil LTS 2018-06 - 2025 (` on cpu N` from LTS 2021-03-24)",
      "abseil:absl/debugging/failure_signal_handler.cc:WriteSignalMessage",
      "*** SIGTERM received at time=1759954468 on cpu 5 ***", "*** SIGTERM received at time=1759954468",
      anchor=" received at time="),
    # ---- XLA's rendezvous (JAX, TensorFlow): the threads of one process, one per local device, meet before a
    # collective or a clique's NCCL init; one that waited past the warning time logs which rendezvous and how many
    # threads it expected. `not all of them arrived`: a participant never reached it (a device's thread, or a
    # process that never issued the collective, held up elsewhere): a missing participant. `All N threads joined`:
    # the leader's callback (the NCCL init or collective itself) hangs: a hang of unknown cause. 2022 - 2024 print
    # no `[id=N] ` and exit(42) after the termination timeout; 2025+ prefix `[id=N] ` and LOG(FATAL) it
    M("xla.rendezvous_not_arrived",
      r"Expected (?P<threads>\d+) threads to join the rendezvous, but not all",
      "wait_timeout", "failure", "missing_rank", "XLA 2022 - 2026 (`[id=N] ` and LOG(FATAL) from 2025; jaxlib, TF)",
      "xla:xla/service/rendezvous.cc:AwaitAndLogIfStuck",
      "E0729 17:14:59.920189 rendezvous.cc:38] This thread has been waiting for `initialize clique for rank 6; "
      "clique=devices=[0,1]; stream=0; run_id=7` for 10 seconds and may be stuck. Expected 8 threads to join the "
      "rendezvous, but not all of them arrived on time.",
      "Expected 8 threads to join the rendezvous, but not all", data={"category": "rendezvous"},
      anchor="threads to join the rendezvous, but not all"),
    M("xla.rendezvous_leader_stuck",
      r"All (?P<threads>\d+) threads joined the rendezvous, however the leader",
      "wait_timeout", "failure", "timeout_unknown", "XLA 2025 - 2026", "xla:xla/service/rendezvous.cc:AwaitAndLogIfStuck",
      "E0218 03:50:19.000000 rendezvous.cc:100] [id=1] This thread has been waiting for `acquire clique for rank 3; "
      "clique=devices=[4,5,6,7]; is_p2p=0; run_id=-155` for 10 seconds and may be stuck. All 4 threads joined the "
      "rendezvous, however the leader has not marked the rendezvous as completed.",
      "All 4 threads joined the rendezvous, however the leader", data={"category": "rendezvous"},
      anchor="threads joined the rendezvous, however the leader"),
    # the wait above ended after all: the thread that warned logs it before going on (2022 - 2024 `Thread is unstuck!
    # Warning above was a false-positive`; 2025+ `[id=N] This thread is unstuck waiting for `KEY` after Ns`). The
    # catalogue parser drops the same thread's warnings before it (messages.py): a slow rendezvous, no hang
    M("xla.rendezvous_unstuck",
      r"(?:Thread is unstuck!|This thread is unstuck waiting for)",
      "warn", "benign", None, "XLA 2019 - 2026 (the 2025+ form names the rendezvous and the wait)",
      "xla:xla/service/rendezvous.cc:AwaitAndLogIfStuck",
      "E0729 17:15:02.118200 rendezvous.cc:43] Thread is unstuck! Warning above was a false-positive. Perhaps the "
      "timeout is too short.", "E0729 17:15:02.118200 rendezvous.cc:43] Thread is unstuck!",
      data={"category": "rendezvous"}, anchor="Thread is unstuck!|This thread is unstuck waiting for"),
    # ---- XLA's coordination service (JAX's `jax.distributed`, TensorFlow's multi-worker runtime): one task (process)
    # hosts the service, every task's agent registers with it, heartbeats, meets it at barriers and exchanges keys
    # (an NCCL clique's id, the local topologies). Read in tensorflow/tensorflow tensorflow/core/distributed_runtime/
    # coordination/ (TF 2.8 - 2.12, 2022), tensorflow/tsl/distributed_runtime/coordination/ (2023) and openxla/xla
    # xla/tsl/distributed_runtime/coordination/{coordination_service.cc, coordination_service_agent.cc} (2024 - 2026),
    # with xla/pjrt/distributed/client.{cc,h}. A task whose heartbeats stopped is one that died, was preempted or
    # crashed (the service's own words); the service logs it as set to ERROR, and every other task's agent learns it
    M("xla.coord_heartbeat_timeout",
      r"Task (?P<task>/job:[\w-]+/replica:\d+/task:(?P<task_id>\d+)) heartbeat timeout",
      "worker_failed", "failure", "dropped_rank", "TF 2.8 - 2.13, XLA 2023 - 2026 (jaxlib 0.3.x - 0.7)",
      "xla:xla/tsl/distributed_runtime/coordination/coordination_service.cc:CheckHeartbeatTimeout (earlier tensorflow/"
      "core/ and tensorflow/tsl/ distributed_runtime/coordination/coordination_service.cc)",
      "E1115 16:03:15.140058 coordination_service.cc:954] /job:jax_worker/replica:0/task:37 has been set to ERROR in "
      "coordination service: UNAVAILABLE: Task /job:jax_worker/replica:0/task:37 heartbeat timeout. This indicates "
      "that the remote task has failed, got preempted, or crashed unexpectedly.",
      "Task /job:jax_worker/replica:0/task:37 heartbeat timeout", data={"category": "coordination"},
      anchor=" heartbeat timeout"),
    # the 2025+ wording: the service lists the tasks that stopped heartbeating, one a line, after this head
    M("xla.coord_tasks_unhealthy",
      # (one task may follow on the same line, where a paste or a log collector joined the list to its head)
      r"The following tasks are unhealthy \(stopped sending heartbeats\):?"
      r"(?:\s*(?P<task>/job:[\w-]+/replica:\d+/task:(?P<task_id>\d+))\b)?",
      "worker_failed", "failure", "dropped_rank", "XLA 2025 - 2026 (jaxlib 0.5+)",
      "xla:xla/tsl/distributed_runtime/coordination/coordination_service.cc",
      "absl::Status: UNAVAILABLE: The following tasks are unhealthy (stopped sending heartbeats):",
      "The following tasks are unhealthy (stopped sending heartbeats)", data={"category": "coordination"},
      anchor="tasks are unhealthy (stopped sending heartbeats)"),
    # the frame of every task error the service records (a task's own reported error, a missed heartbeat): the
    # entry found inside it is the more specific
    M("xla.coord_task_error",
      r"(?P<task>/job:[\w-]+/replica:\d+/task:(?P<task_id>\d+)) has been set to ERROR in coordination service"
      r"(?:: (?P<status>[A-Z][A-Z_]+)\b.*)?",
      "worker_failed", "failure", "dropped_rank", "TF 2.8 - 2.13, XLA 2023 - 2026",
      "xla:xla/tsl/distributed_runtime/coordination/coordination_service.cc:SetTaskError",
      "/job:jax_worker/replica:0/task:3 has been set to ERROR in coordination service: INTERNAL: Task reported error",
      "/job:jax_worker/replica:0/task:3 has been set to ERROR in coordination service",
      data={"category": "coordination"}, anchor=" has been set to ERROR in coordination service"),
    # a task's process ends itself on an error the service sent it (most often another task's death)
    M("xla.coord_terminating",
      r"Terminating process because the (?:coordinator detected missing heartbeats|JAX distributed service detected "
      r"fatal errors)",
      "worker_failed", "consequence", "dropped_rank", "XLA 2022 - 2026 (`detected fatal errors` from 2024)",
      "xla:xla/pjrt/distributed/client.h:DistributedRuntimeClient::Options::missed_heartbeat_callback",
      "F0926 17:26:32.075587  157988 client.h:77] Terminating process because the JAX distributed service detected "
      "fatal errors. This most likely indicates that another task died; see the other task logs for more details.",
      "Terminating process because the JAX distributed service detected fatal errors",
      data={"category": "coordination"}, anchor="Terminating process because the "),
    # tasks that never registered (crashed before connecting, never scheduled, late): the service stops
    M("xla.coord_registration_failed",
      r"(?:Stopping coordination service as cluster registration failed|Cluster registration failed with error)",
      "worker_failed", "failure", "dropped_rank", "XLA 2024 - 2026", "xla:xla/tsl/distributed_runtime/coordination/"
      "coordination_service.cc:PassBarrier (the cluster-register barrier)",
      "Stopping coordination service as cluster registration failed. This may be due to 1) some tasks crashed earlier "
      "before connecting, 2) some tasks were never scheduled, or 3) scheduling delays.",
      "Stopping coordination service as cluster registration failed", data={"category": "coordination"},
      anchor="luster registration failed"),
    # a barrier some tasks never reached (a missing participant; the registration barrier: a task that never joined);
    # the task names it lists below the error (sources/messages.py) are the ranks that did not arrive
    M("xla.coord_barrier_timeout",
      (r"Barrier timed out\. (?:Barrier_id|Id): (?P<barrier>\S+?)\.?(?=\s|$)",
       r".*?# of tasks that reached the barrier: (?P<arrived>\d+)/(?P<expected>\d+)"),
      "wait_timeout", "failure", "missing_rank", "TF 2.8 - 2.13, XLA 2023 - 2026 (`Id: ... # of tasks` from 2024)",
      "xla:xla/tsl/distributed_runtime/coordination/coordination_service.cc:CheckBarrierTimeout",
      "DEADLINE_EXCEEDED: Barrier timed out. Id: 0_async_write_complete.0.1. This usually happens because a task "
      "triggered the barrier too early or too slowly. Please look at the task logs (both timed out and first task) to "
      "debug further.", "Barrier timed out. Id: 0_async_write_complete.0.1.", data={"category": "coordination"},
      anchor="Barrier timed out. ", refine=lambda f: {"implies": "dropped_rank"}
      if str(f.get("barrier", "")).startswith("[Init]Wait_for_all_tasks_to_register") else {}),
    # a key another task was to publish never came (an NCCL clique's id, a local topology): that task did not arrive
    M("xla.coord_get_key_timeout",
      (r"GetKeyValue\(\) timed out with key: (?P<key>.+?)(?= and duration: |$)", r" and duration: (?P<duration>\S+)"),
      "wait_timeout", "failure", "missing_rank", "TF 2.8 - 2.13, XLA 2023 - 2026",
      "xla:xla/tsl/distributed_runtime/coordination/coordination_service_agent.cc:GetKeyValue",
      "E0000 00:00:1743713172.513857  698835 pjrt_stream_executor_client.cc:3072] Execution of replica 0 failed: "
      "DEADLINE_EXCEEDED: GetKeyValue() timed out with key: cuda:local_topology/cuda/1 and duration: 2m",
      "GetKeyValue() timed out with key: c", data={"category": "coordination"}, anchor="GetKeyValue() timed out"),
    # the agent's own error (the frame of the entries above where one is inside); alone, its status is what is known:
    # a deadline (registration, a barrier, a key) that passed with no task named is a wait that ran out
    M("xla.coord_agent_deadline",
      r"Coordination service agent in error status: DEADLINE_EXCEEDED\b.*",
      "wait_timeout", "failure", "timeout_unknown", "XLA 2022 - 2024 (jaxlib 0.3.x - 0.4.x)",
      "xla:xla/pjrt/distributed/client.cc:DistributedRuntimeCoordinationServiceClient (error_fn)",
      "Coordination service agent in error status: DEADLINE_EXCEEDED: Deadline Exceeded",
      "Coordination service agent in error status: DEADLINE_EXCEEDED",
      data={"category": "coordination"}, anchor="Coordination service agent in error status: "),
    M("xla.coord_agent_error",
      r"Coordination service agent in error status: (?P<status>(?!DEADLINE_EXCEEDED\b)[A-Z][A-Z_]+)\b.*",
      "dist_backend_error", "failure", None, "XLA 2022 - 2024 (jaxlib 0.3.x - 0.4.x)",
      "xla:xla/pjrt/distributed/client.cc:DistributedRuntimeCoordinationServiceClient (error_fn)",
      "Coordination service agent in error status: INTERNAL: Barrier failed because a task is in error.",
      "Coordination service agent in error status: INT",
      data={"category": "coordination"}, anchor="Coordination service agent in error status: "),
    # ---- XLA's NCCL status (JAX, TensorFlow): a failed NCCL call becomes an INTERNAL status that quotes the call's
    # source expression, arguments and all (`ncclCommInitRank(&comm, nranks, id, rank)`), then ncclGetErrorString's
    # text; from 2023 also NCCL's last WARN. Read in tensorflow/compiler/xla/service/gpu/nccl_all_reduce_thunk.cc
    # (TranslateStatus, TF 1.13 - 2.4), xla/service/gpu/nccl_utils.cc (ToStatus, 2021 - 2024: `file:line: ` first,
    # the last warning from 2024) and xla/backends/gpu/collectives/nccl_errors.h (XLA_NCCL_STATUS, 2024 - 2026: no
    # file:line). The result code the text names is the cause; the last warning is NCCL's own words for it
    M("xla.nccl_operation_failed",
      (r"NCCL operation (?P<call>nccl[A-Z]\w*)\(.*?\) failed: (?P<reason>unhandled system error|unhandled cuda error|"
       r"internal error|invalid usage|invalid argument|remote process exited or there was a network error)",
       r".*?Last NCCL warning\(error\) log entry \(may be unrelated\) '(?P<last_error>[^']*)"),
      "nccl_error", "failure", None, "TF 1.13 - 2.4, XLA 2021 - 2026 (jaxlib 0.1.x - 0.8; last warning from 2024)",
      "xla:xla/backends/gpu/collectives/nccl_errors.h:XLA_NCCL_STATUS (earlier xla/service/gpu/nccl_utils.cc:ToStatus)",
      "INTERNAL: external/xla/xla/service/gpu/nccl_utils.cc:275: NCCL operation ncclCommInitRank(&comm, nranks, id, "
      "rank) failed: unhandled cuda error",
      "NCCL operation ncclCommInitRank(&comm, nranks, id, rank) failed: unhandled cuda error",
      anchor="NCCL operation "),
    # ---- TVM FFI's SIGSEGV handler (apache/tvm-ffi, on by default: TVM_FFI_BACKTRACE_ON_SEGFAULT), installed by a
    # library constructor wherever FlashInfer or xgrammar is loaded (vLLM, SGLang): it prints this banner and the
    # native frames, then re-raises the signal with the default action. The process's own crash
    M("tvm_ffi.segfault",
      r"!!!!!!! Segfault encountered !!!!!!!",
      "signal_report", "failure", None, "apache/tvm-ffi 2025+ (src/ffi/backtrace.cc, later traceback.cc)",
      "tvm_ffi:src/ffi/traceback.cc:TVMFFISegFaultHandler", "!!!!!!! Segfault encountered !!!!!!!",
      "!!!!!!! Segfault encountered !!!!!!!", data={"signal": "SIGSEGV"}, anchor="Segfault encountered"),
    # ---- Open MPI's TCP transports: the peer's socket reset under a read (the peer process or its node is gone,
    # or the link failed): BTL (MPI traffic, Horovod's) and OOB (the daemons' control channel)
    M("ompi.tcp_readv_failed",
      r"mca_(?P<layer>btl_tcp_frag|oob_tcp_msg)_recv: readv failed: (?P<reason>[A-Z][\w ]+?) \((?P<errno>\d+)\)",
      "warn", "failure", "network_error", "Open MPI 1.x - 4.x (OOB tcp: ORTE; first release not checked)",
      "ompi:opal/mca/btl/tcp/btl_tcp_frag.c:mca_btl_tcp_frag_recv; orte/mca/oob/tcp/oob_tcp_msg.c",
      "[node05][[58522,1],11][btl_tcp_frag.c:237:mca_btl_tcp_frag_recv] mca_btl_tcp_frag_recv: readv failed: "
      "Connection reset by peer (104)", "mca_btl_tcp_frag_recv: readv failed: Connection reset by peer (104)",
      data={"category": "socket"}, anchor="_recv: readv failed: "),
    # ---- Open MPI's UCX PML: no UCX endpoint to a peer (its worker address unreachable: a docker bridge or an
    # interface the peer cannot reach)
    M("ompi.pml_ucx_endpoint",
      r"pml_ucx\.c:\d+ +Error: (?:Failed to resolve UCX endpoint for rank (?P<other_rank>\d+)"
      r"|ucp_ep_create\(proc=(?P<other_rank1>\d+)\) failed: (?P<reason>[A-Z][\w ]+))",
      "warn", "failure", "network_error", "Open MPI with the UCX PML (first release not checked)",
      "ompi:ompi/mca/pml/ucx/pml_ucx.c:mca_pml_ucx_add_proc_common",
      "[gpu1:1581048] pml_ucx.c:472 Error: Failed to resolve UCX endpoint for rank 9",
      "pml_ucx.c:472 Error: Failed to resolve UCX endpoint for rank 9", data={"category": "socket"},
      anchor="Failed to resolve UCX endpoint|Error: ucp_ep_create("),
    # ---- UCX: the HCA refused to pin a buffer (the locked-memory limit, no peer memory for a GPU buffer): RDMA
    # cannot run from this process
    M("ucx.reg_mr_failed",
      r"ibv_reg_mr\(address=0x[0-9a-f]+, length=(?P<requested_bytes>\d+)[^)]*\) failed: (?P<reason>[A-Z][\w ]*)",
      "warn", "failure", "network_error", "UCX 1.x (`access=` in later releases, `flags=` in early ones)",
      "ucx:src/uct/ib/base/ib_md.c:uct_ib_reg_mr",
      "[1764151128.440695] [gpu-node-12:11838:0] ib_md.c:325  UCX  ERROR ibv_reg_mr(address=0xabcf12c0, "
      "length=26400, access=0xf) failed: Cannot allocate memory", "ibv_reg_mr(address=0xabcf12c0, length=26400, "
      "access=0xf) failed: C", data={"category": "ib"}, anchor="ibv_reg_mr(address="),
    # an endpoint's transport failed and no one handles it (Open MPI's pml ucx, NCCL's UCX plugin install none): the
    # peer is gone or the link failed
    M("ucx.ep_error_unhandled",
      (r"error '(?P<reason>[^']+)' (?:on (?P<device>\S+) )?will not be handled", r" since no error callback is installed"),
      "warn", "failure", "network_error", "UCX 1.x (logged at ERROR, DIAG in later releases; first release not checked)",
      "ucx:src/ucp/core/ucp_ep.c:ucp_ep_set_failed",
      "ucp_ep.c:1508 UCX  ERROR ep 0x7f1eac0b5108: error 'Connection reset by remote peer' on rc_mlx5/mlx5_0:1 will "
      "not be handled since no error callback is installed",
      "error 'Connection reset by remote peer' on rc_mlx5/mlx5_0:1 will not be handled",
      data={"category": "ib"}, anchor="will not be handled"),
    # ---- Ascend's HCCL (the NPU's collective library) under torch_npu: a failed HCCL op raises `OPS function error:
    # Hccl<Op>, error code is N` with torch_npu's `[ERROR] ... ERR01100 OPS call acl api failed` and CANN's error
    # messages below it. EI0006 is HCCL's socket timeout (HCCL_CONNECT_TIMEOUT, 120 s by default): the peer never
    # connected, or never sent on an established link. The rank that prints it waited for another: that one is
    # missing (stuck, started late or gone), as the reason says
    M("cann.hccl_socket_timeout",
      (r"EI0006: (?:\[PID: ?(?P<pid>\d+)\] \S+ )?Getting socket times out\.", r" Reason: (?P<reason>.+)"),
      "wait_timeout", "failure", "missing_rank", "CANN 7.x - 8.x HCCL (EI0006); torch_npu 2.1+ appends it to the op's "
      "error", "hccl:hccl_common.h GET_SOCKET_TIMEOUT_REASON / BLOCK_RECV_TIMEOUT_REASON (hicann/hccl "
      "docs/zh/user_guide/fault_diagnosis/param_link_stage.md: EI0006); Ascend/pytorch "
      "torch_npu/csrc/core/npu/NPUException.cpp",
      "EI0006: [PID: 1292363] 2025-04-08-18:07:20.444.436 Getting socket times out. Reason: Remote Rank did not send "
      "the data in time. Please check the reason for the rank being stuck",
      "EI0006: [PID: 1292363] 2025-04-08-18:07:20.444.436 Getting socket times out.",
      data={"category": "coordination"}, anchor="Getting socket times out."),
    # ---- rdma-core's mlx5 verbs provider (libmlx5, under NCCL's IB transport and UCX): polling a completion queue
    # found an error CQE whose syndrome is neither a flush nor a transport retry timeout (a remote access or invalid
    # request, an RNR retry timeout, a remote abort, a local protection fault), and says so with the host's name
    # before dumping the CQE's 64 bytes, four words a line. The work request on this queue pair failed: the peer is
    # gone or the fabric dropped it, as NCCL's `NET/IB : Got completion ... with error` then says
    M("rdma_core.mlx5_error_cqe",
      r"mlx5: (?P<host>[^\s:]+): got completion with error:",
      "warn", "failure", "network_error", "rdma-core v12 - v64 (fprintf to the debug file; mlx5_err from v33, which "
      "prints when MLX5_DEBUG_FILE is set or the provider is built with MLX5_DEBUG), libmlx5 before it",
      "rdma-core:providers/mlx5/cq.c:mlx5_parse_cqe (PFX, providers/mlx5/mlx5.h)",
      "mlx5: gpu-node-12: got completion with error:", "mlx5: gpu-node-12: got completion with error:",
      data={"category": "ib"}, anchor="got completion with error:"),
    # UCX's UD transport: no acknowledgement from the peer within UCX_UD_TIMEOUT, and no one handles the endpoint's
    # failure (ucs_fatal: the process aborts). 1.9+ names the peer (`<no debug data>` in release builds)
    M("ucx.ud_endpoint_timeout",
      r"UD endpoint 0x[0-9a-f]+(?: to (?:<no debug data>|(?P<peer>\S+)))?: unhandled timeout error",
      "warn", "failure", "network_error", "UCX 1.9 - 1.22",
      "ucx:src/uct/ib/ud/base/ud_ep.c:uct_ud_ep_deferred_timeout_handler",
      "[gpu-n07:48211:0:48230]     ud_ep.c:278  Fatal: UD endpoint 0x55e7c3a1f300 to <no debug data>: unhandled "
      "timeout error", "UD endpoint 0x55e7c3a1f300 to <no debug data>: unhandled timeout error",
      data={"category": "ib"}, anchor="unhandled timeout error"),
    # UCX's RC transport over plain verbs (rc_verbs: NICs or setups without the mlx5 accelerated path): a send's work
    # completion came back with an error. Only the statuses of a peer or link that never answered are network errors
    # here (ibv_wc_status_str's words; 1.8+ add `[qpn .. wrid .. vendor_err ..]`)
    M("ucx.rc_verbs_completion_error",
      (r"send completion with error: (?P<reason>transport retry counter exceeded|RNR retry counter exceeded|remote "
       r"aborted error)", r" \[?qpn 0x(?P<qp>[0-9a-f]+)"),
      "warn", "failure", "network_error", "UCX 1.6 - 1.22 (rc_verbs)",
      "ucx:src/uct/ib/rc/verbs/rc_verbs_iface.c:uct_rc_verbs_handle_failure (ibv_wc_status_str)",
      "[1732702211.418822] [node-b03:23114:0]  rc_verbs_iface.c:124  UCX  ERROR send completion with error: transport "
      "retry counter exceeded [qpn 0x1d0a wrid 0x3f vendor_err 0x81]",
      "send completion with error: transport retry counter exceeded", data={"category": "ib"},
      anchor="send completion with error: "),
    # UCX's socket layer (the tcp transport, the sockaddr connection managers): connect() to a peer's address failed
    # (ucs_socket_connect returns UCS_ERR_UNREACHABLE): no route, refused, or the address is one the peer cannot be
    # reached on
    M("ucx.socket_connect_failed",
      (r"connect\(fd=\d+, dest_addr=(?P<peer>[^)\s]+)\) failed: ", r"(?P<reason>[A-Z][\w ]+)"),
      "warn", "failure", "network_error", "UCX 1.6 - 1.22", "ucx:src/ucs/sys/sock.c:ucs_socket_connect",
      "[1716890021.110032] [worker-3:7711 :0]          sock.c:355  UCX  ERROR connect(fd=61, "
      "dest_addr=172.17.0.1:40713) failed: No route to host", "connect(fd=61, dest_addr=172.17.0.1:40713) failed: ",
      data={"category": "socket"}, anchor=", dest_addr="),
    # UCX's tcp transport: a send or recv on a connected endpoint failed (ucs_status_string of the socket error)
    M("ucx.tcp_ep_io_failed",
      r"tcp_ep 0x[0-9a-f]+ \(state=(?P<state>[A-Z_]+)\): (?P<op>recv|send|sendv)\(\d+\) failed: (?P<reason>Connection "
      r"reset by remote peer|Endpoint timeout|Destination is unreachable|Input/output error)",
      "warn", "failure", "network_error", "UCX 1.9 - 1.22", "ucx:src/uct/tcp/tcp_ep.c:uct_tcp_ep_handle_io_err",
      "[1716891100.201144] [host-a1:30188:0]        tcp_ep.c:1260 UCX  ERROR tcp_ep 0x1f3e9c0 (state=CONNECTED): "
      "recv(37) failed: Connection reset by remote peer",
      "tcp_ep 0x1f3e9c0 (state=CONNECTED): recv(37) failed: Connection reset by remote peer",
      data={"category": "socket"}, anchor="tcp_ep 0x"),
    # UCP's wireup found no transport of this process that reaches the peer's address (the two sides offer devices or
    # transports that do not meet: UCX_NET_DEVICES/UCX_TLS set apart, an interface the peer cannot reach)
    M("ucx.no_transport_to_peer",
      r"no (?P<what>active messages|auxiliary|high-bw active messages) transport to (?:<no debug data>|(?P<peer>\S+)): ",
      "warn", "failure", "network_error", "UCX 1.4 - 1.22", "ucx:src/ucp/wireup/select.c:ucp_wireup_select_transport",
      "[1716893312.552310] [gpu-n12:51920:0]       select.c:629  UCX  ERROR   no active messages transport to "
      "<no debug data>: self/memory - Destination is unreachable, tcp/ib0 - Destination is unreachable",
      "no active messages transport to <no debug data>: ", data={"category": "socket", "setup": True},
      anchor="active messages transport to |no auxiliary transport to "),
    # UCC's UCP transport layer (torch's UCC backend, Open MPI's coll/ucc): a point-to-point completion of a
    # collective came back with UCX's failure of the peer or the link (ucs_status_string), which UCC turns into
    # UCC_ERR_NO_MESSAGE (`Unhandled error` in torch's ProcessGroupUCC)
    M("ucc.tl_ucp_completion_failure",
      r"failure in (?:[\w ]+ )?completion (?P<reason>Endpoint timeout|Connection reset by remote peer|Input/output "
      r"error|Destination is unreachable)",
      "warn", "failure", "network_error", "UCC 1.0 - 1.5", "ucc:src/components/tl/ucp/tl_ucp_sendrecv.c "
      "(ucc_tl_ucp_send_completion_cb, ucc_tl_ucp_recv_completion_cb)",
      "[1732702298.771201] [trn-a04:90112:1]   tl_ucp_sendrecv.c:91   TL_UCP ERROR failure in recv completion Endpoint "
      "timeout", "failure in recv completion Endpoint timeout", data={"category": "ib"},
      anchor="completion Endpoint timeout|completion Connection reset by remote peer|completion Input/output error|"
             "completion Destination is unreachable"),
]
