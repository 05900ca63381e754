"""Node context: only the kernel lines that concern the job, and an environment snapshot without secrets."""
from __future__ import annotations

from nccl_forensics.capture import node

# A cgroup-v1 OOM kill as dmesg printed it on this machine, once for our pid and once for another job's.
OURS = [
    "[22163.588201] python3.11 invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0, oom_score_adj=0",
    ("[22163.588445] oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,mems_allowed=0,"
     "oom_memcg=/ncclf-1-2,task_memcg=/ncclf-1-2,task=python3.11,pid=4242,uid=0"),
    ("[22163.588510] Memory cgroup out of memory: Killed process 4242 (python3.11) total-vm:1072044kB, "
     "anon-rss:320800kB, file-rss:101832kB, shmem-rss:0kB, UID:0 pgtables:1208kB oom_score_adj:0"),
]
THEIRS = [line.replace("4242", "5151").replace("22163.", "22170.") for line in OURS]
XID = "[22171.000001] NVRM: Xid (PCI:0000:07:00): 79, pid=0, GPU has fallen off the bus."
SEGV = "[22172.000001] python3.11[4243]: segfault at 0 ip 00007f error 4 in libc.so.6"
OTHER = "[22173.000001] eth0: renamed from veth1234"
OLD = "[100.000000] NVRM: Xid (PCI:0000:07:00): 13, old news"


def test_only_the_jobs_own_kernel_lines_are_kept():
    lines = [OLD] + OURS + THEIRS + [XID, SEGV, OTHER]
    kept = node.job_kernel_lines(lines, since_s=22000.0, pids={4242, 4243})
    assert kept == OURS + [XID, SEGV]


def test_an_oom_report_in_our_cgroup_is_kept_whatever_the_pid():
    assert node.job_kernel_lines(THEIRS, 22000.0, set(), cgroup="ncclf-1-2") == THEIRS
    assert node.job_kernel_lines(THEIRS, 22000.0, set(), cgroup="ncclf-9-9") == []


def test_the_mark_survives_a_full_ring_buffer(monkeypatch):
    """A time, not a line count: once the buffer is full, old lines drop out as new ones come in."""
    before = [f"[{22000 + i}.000000] eth0: link up" for i in range(50)]
    monkeypatch.setattr(node, "kernel_log", lambda: (before, "dmesg"))
    mark = node.kernel_log_mark()
    assert mark == 22049.0
    full = before[len(OURS):] + [line.replace("22163.", "22200.") for line in OURS]
    assert len(node.job_kernel_lines(full, mark, {4242})) == len(OURS)


def test_journal_lines_read_like_dmesg():
    line = "[22163.588510] vm kernel: Memory cgroup out of memory: Killed process 4242 (python3.11) x"
    assert node._monotonic_to_dmesg(line) == "[22163.588510] Memory cgroup out of memory: Killed process 4242 (python3.11) x"


def test_the_environment_snapshot_keeps_the_collective_variables_and_drops_secrets():
    env = {"NCCL_DEBUG": "INFO", "NCCL_IB_HCA": "mlx5", "TORCH_FR_BUFFER_SIZE": "2000", "GLOO_SOCKET_IFNAME": "eth0",
           "MASTER_ADDR": "10.0.0.1", "MASTER_PORT": "29500", "RANK": "3", "CUDA_VISIBLE_DEVICES": "0,1",
           "HF_TOKEN": "hf_x", "WANDB_API_KEY": "k", "NCCL_SECRET_THING": "s", "TORCH_PASSWORD": "p",
           "AWS_SECRET_ACCESS_KEY": "a", "HOME": "/root", "PATH": "/bin"}
    snap = node.env_snapshot(env)
    assert set(snap) == {"NCCL_DEBUG", "NCCL_IB_HCA", "TORCH_FR_BUFFER_SIZE", "GLOO_SOCKET_IFNAME", "MASTER_ADDR",
                         "MASTER_PORT", "RANK", "CUDA_VISIBLE_DEVICES"}


def test_host_labels_are_folder_names():
    assert node.host_label("gpu-node-1.cluster.local") == "gpu-node-1.cluster.local"
    assert node.host_label("a b/c") == "a_b_c"
    assert node.host_label(None)


def test_secret_looking_options_are_redacted_from_command_lines():
    argv = ["python", "train.py", "--hf-token", "hf_x", "--api_key=abc", "--lr", "1e-3", "--password"]
    assert node.redact_argv(argv) == ["python", "train.py", "--hf-token", "<redacted>", "--api_key=<redacted>",
                                      "--lr", "1e-3", "--password"]
