"""False all-clears: a healthy-looking bundle plus one file that shows a failure, or that ncclf cannot read, is never
`none`. Each bundle is 4 ranks' NCCL logs that end well (`Destroy COMPLETE`) and torchrun's success lines."""
from __future__ import annotations

import bz2
import gzip
import io
import lzma
import pickle
import random
import tarfile
import zipfile

import pytest

from nccl_forensics.pipeline.reduce import diagnose
from nccl_forensics.sources.formats import text_with_nuls
from nccl_forensics.sources.lines import drop_nuls, packed_as

_WORLD = 4
_TRACE = ("[rank3]: Traceback (most recent call last):\n[rank3]:   File \"train.py\", line 10, in <module>\n"
          "[rank3]:     dist.all_reduce(t)\n[rank3]: torch.distributed.DistBackendError: NCCL error in: "
          "../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, unhandled system error, NCCL version 2.21.5\n")
_SUCCESS = ("I1125 14:03:56.710000 9319 torch/distributed/elastic/agent/server/api.py:932] [default] worker group "
            "successfully finished. Waiting 300 seconds for other agents to finish.\n"
            "I1125 14:03:56.713000 9319 torch/distributed/elastic/agent/server/api.py:1000] Done waiting for other "
            "agents. Elapsed: 0.002 seconds\n")


def _rank_log(rank: int, ops: int = 8, end: bool = True, warn: bool = False) -> str:
    pre, comm = f"node-a:{1000 + rank}:{1000 + rank} [{rank}] NCCL", f"comm 0x55{rank}"
    lines = [f"{pre} INFO {comm} rank {rank} nRanks {_WORLD} nNodes 1 localRanks {_WORLD} localRank {rank} MNNVL 0"]
    lines += [f"{pre} INFO AllReduce: opCount {op:x} sendbuff 0x7f00 recvbuff 0x7f00 count 1024 datatype 7 op 0 "
              f"root 0 {comm} [nranks={_WORLD}] stream 0x56" for op in range(ops)]
    if warn:
        lines += [f"{pre} WARN NET/IB : Got completion from peer 10.0.0.2<5000> with error 12, opcode 0, len 0, "
                  "vendor err 129 (Recv)", f"{pre} INFO transport/net.cc:1386 -> 6"]
    if end:
        lines.append(f"{pre} INFO {comm} rank {rank} nranks {_WORLD} cudaDev {rank} busId 18000 - Destroy COMPLETE")
    return "\n".join(lines) + "\n"


def _healthy(tmp_path, without: int | None = None):
    for rank in range(_WORLD):
        if rank != without:
            (tmp_path / f"nccl.node-a.{1000 + rank}.log").write_text(_rank_log(rank))
    (tmp_path / "console.out").write_text(_SUCCESS)


def _verdict(tmp_path):
    return diagnose([str(tmp_path)], jobs=1).verdict


def test_the_healthy_bundle_is_none(tmp_path):
    _healthy(tmp_path)
    assert _verdict(tmp_path).cls == "none"


def _failing_rank3() -> bytes:
    return _rank_log(3, ops=4, end=False, warn=True).encode()


@pytest.mark.parametrize("form", [
    pytest.param(lambda text: text + b"\0" * 4096, id="zero-filled-tail"),        # a crash's unflushed blocks
    pytest.param(lambda text: b"\0" * 64 + text, id="zero-filled-head"),
    pytest.param(lambda text: text.decode().encode("utf-16"), id="utf-16-bom"),    # a Windows redirect
    pytest.param(lambda text: text.decode().encode("utf-16-be"), id="utf-16-be"),
    pytest.param(lambda text: gzip.compress(b"\0" * 64 + text), id="gzip-zero-filled"),
])
def test_a_rank_log_with_nul_bytes_is_read_not_skipped_as_binary(tmp_path, form):
    """Rank 3's log with NUL bytes in its head was sniffed as binary and skipped; torchrun's success then covered
    rank 3, and its NCCL WARN went unread."""
    _healthy(tmp_path, without=3)
    (tmp_path / "nccl.node-a.1003.log").write_bytes(form(_failing_rank3()))
    verdict = _verdict(tmp_path)
    assert verdict.cls not in ("none", "inconclusive"), verdict.summary
    assert verdict.culprit_ranks == [3], verdict.summary


def _tar_gz(data: bytes) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as tar:
        info = tarfile.TarInfo("stderr.log")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    return out.getvalue()


def _zip(data: bytes) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("stderr.log", data)
    return out.getvalue()


@pytest.mark.parametrize("name, pack, shown", [
    ("stderr.log.bz2", bz2.compress, "bzip2-compressed"),
    ("stderr.log.xz", lzma.compress, "xz-compressed"),
    ("stderr.log.zst", lambda data: b"\x28\xb5\x2f\xfd\x04\x58" + data, "zstd-compressed"),
    ("logs.zip", _zip, "a zip archive"),
    ("logs.tgz", _tar_gz, "a tar archive"),
])
def test_a_file_packed_in_a_form_ncclf_cannot_open_is_a_gap(tmp_path, name, pack, shown):
    """It may hold any rank's failure: `inconclusive`, naming the file and what packs it, never `none`."""
    _healthy(tmp_path)
    (tmp_path / name).write_bytes(pack(_TRACE.encode()))
    verdict = _verdict(tmp_path)
    assert verdict.cls == "inconclusive", verdict.summary
    assert name in verdict.summary and shown in verdict.summary and "unpack" in verdict.summary


def test_checkpoints_and_binary_data_beside_the_logs_are_no_gap(tmp_path):
    """A torch checkpoint (a zip) is no evidence by its name; random binary data is no text, so no log."""
    _healthy(tmp_path)
    (tmp_path / "model.pth").write_bytes(_zip(b"\x80\x02}q\x00."))
    rnd = random.Random(7)
    (tmp_path / "blob.dat").write_bytes(bytes(rnd.randrange(256) for _ in range(8192)))
    assert _verdict(tmp_path).cls == "none"


def test_text_with_nuls_is_text_and_binary_is_not():
    assert text_with_nuls(b"line one\n\0\0\0\0line two\n") == b"line one\nline two\n"
    assert text_with_nuls("step 1 | loss 0.5\n".encode("utf-16")) == b"step 1 | loss 0.5\n"
    assert text_with_nuls(pickle.dumps({"entries": list(range(300))})) is None
    assert text_with_nuls(b"\0" * 100) is None
    assert drop_nuls(b"no nul here") == b"no nul here"


def test_packed_as_reads_magic_not_names():
    assert packed_as(bz2.compress(b"x")) == "bzip2-compressed"
    assert packed_as(b"BZh is how this log line starts\n") is None
    assert packed_as(b"PK is a prefix\n") is None
    assert packed_as(b"plain text\n" * 40) is None


_PODS = "NAME                READY   STATUS      RESTARTS   AGE\ntrain-worker-0      0/1     Completed   0          5m\n"


@pytest.mark.parametrize("status", ["Error", "ExitCode:3", "Signal:9", "Init:Error", "ContainerCannotRun"])
def test_a_pod_that_exited_with_an_error_in_kubectl_get_pods_is_a_failure(tmp_path, status):
    """kubectl's STATUS column (printers.go printPod): `Error` is the runtime's reason for a non-zero exit,
    `ExitCode:N`/`Signal:N` where it gave none."""
    _healthy(tmp_path)
    (tmp_path / "pods.txt").write_text(_PODS + f"train-worker-1      0/1     {status:<11} 0          5m\n")
    verdict = _verdict(tmp_path)
    assert verdict.cls not in ("none", "inconclusive"), verdict.summary


def test_completed_pods_are_no_failure(tmp_path):
    _healthy(tmp_path)
    (tmp_path / "pods.txt").write_text(_PODS + "train-worker-1      0/1     Completed   0          5m\n")
    assert _verdict(tmp_path).cls == "none"
