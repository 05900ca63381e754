"""Take a live job's evidence (`ncclf capture`) and start jobs with the evidence switched on (`ncclf run`).

    from nccl_forensics.capture.bundle import capture
    result = capture(out="cap")          # every training job on this node → cap/<host>/

Modules: find (ranks from /proc, grouped by job), pyspy (side-by-side dumps), evidence (the files the job
writes), fr_pipe and debug_server (flight-recorder dumps on demand), node (kernel, GPU, interfaces, env),
manifest, bundle (one node's capture), supervise + progress (`ncclf run`), procs and tools (shared with the
reproducers: process bookkeeping, helper programs beside the interpreter).
"""
