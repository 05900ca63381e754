"""M301 on NCCL's /dev/shm failures (src/misc/shmutils.cc, os/linux.cc from 2.30): a segment it could not create or
map is most often a /dev/shm too small (a container's 64 MB); the reason NCCL prints, where it prints one, decides."""
import pytest

from nccl_forensics.model import Confidence

_INIT = "gpu1:9621:9621 [3] NCCL INFO comm 0x55d0 rank 3 nranks 8 cudaDev 3 busId 3d000 - Init START\n"
_TRACE = "gpu1:9621:9688 [3] NCCL INFO transport/shm.cc:114 -> 2\n"


@pytest.mark.parametrize("lines, confidence", [
    # 2.12 - 2.29: the fallocate line without its errno, then the generic one
    ("gpu1:9621:9688 [3] misc/shmutils.cc:71 NCCL WARN Error: failed to extend /dev/shm/nccl-fjwOOB to 5967876 bytes\n"
     "gpu1:9621:9688 [3] misc/shmutils.cc:112 NCCL WARN Error while creating shared memory segment /dev/shm/nccl-fjwOOB "
     "(size 5967872)\n", Confidence.MEDIUM),
    # 2.30: the generic line carries the errno
    ("gpu1:9621:9688 [3] os/linux.cc:842 NCCL WARN Error while creating shared memory segment /dev/shm/nccl-Qk3mTp "
     "(size 9637888), error: No space left on device (28)\n", Confidence.HIGH),
    # another reason, no refusal of access: not surely a full /dev/shm
    ("gpu1:9621:9688 [3] misc/shmutils.cc:60 NCCL WARN Error: failed to create shared memory file "
     "/dev/shm/nccl-XXXXXX, error Invalid argument (22)\n", Confidence.LOW),
])
def test_a_shm_segment_nccl_could_not_create(diagnose_text, lines, confidence):
    d = diagnose_text(_INIT + lines + _TRACE)
    assert (d.verdict.cls, d.verdict.culprit_ranks) == ("oom", [3]), d.verdict.summary
    [finding] = [f for f in d.findings if f.id == "M301"]
    assert "/dev/shm" in finding.message and finding.confidence == confidence
    assert "--shm-size" in finding.fix


@pytest.mark.parametrize("lines", [
    # 2.22+: mkstemp in a /dev/shm this user may not write
    "gpu1:9621:9688 [3] misc/shmutils.cc:60 NCCL WARN Error: failed to create shared memory file /dev/shm/nccl-XXXXXX, "
    "error Permission denied (13)\n",
    # 2.3 - 2.11: SYSCHECKVAL's words for shm_open (include/shm.h), then the segment line without a reason
    "gpu1:9621:9688 [3] include/shm.h:27 NCCL WARN Call to shm_open failed : Permission denied\n"
    "gpu1:9621:9688 [3] include/shm.h:48 NCCL WARN Error while creating shared memory segment "
    "nccl-shm-recv-b7948f403864987a-0-3-0 (size 4460544)\n",
])
def test_a_shm_call_refused_for_access_is_no_memory(diagnose_text, lines):
    d = diagnose_text(_INIT + lines + _TRACE)
    assert d.verdict.cls == "unclassified_failure", d.verdict.summary
    assert not [f for f in d.findings if f.id == "M301"]
    assert "1777" in d.verdict.fix and "Permission denied" in d.verdict.summary


def test_a_device_allocation_failure_is_still_gpu_memory(diagnose_text):
    d = diagnose_text(_INIT + "gpu1:9621:9688 [3] include/alloc.h:178 NCCL WARN Failed to CUDA calloc 6291456 bytes\n")
    assert d.verdict.cls == "oom" and "GPU memory" in d.verdict.summary


_REGISTER_REFUSED = "gpu1:9621:9688 [3] misc/shmutils.cc:103 NCCL WARN Cuda failure 'invalid argument'\n"
_SEGMENT = ("gpu1:9621:9688 [3] misc/shmutils.cc:114 NCCL WARN Error while creating shared memory segment "
            "/dev/shm/nccl-NzwJ7O (size 9637888)\n")


def test_a_segment_cuda_refused_to_register_is_no_memory(diagnose_text):
    # shmutils.cc 2.12 - 2.29: cudaHostRegister's CUDACHECKGOTO prints its failure, then the segment's line
    d = diagnose_text(_INIT + _REGISTER_REFUSED + _SEGMENT + _TRACE)
    assert d.verdict.cls == "unclassified_failure", d.verdict.summary
    assert not [f for f in d.findings if f.id == "M301"]


def test_a_segment_with_no_room_stays_oom_beside_a_cuda_failure(diagnose_text):
    extend = ("gpu1:9621:9688 [3] misc/shmutils.cc:71 NCCL WARN Error: failed to extend /dev/shm/nccl-NzwJ7O to "
              "9637892 bytes\n")
    d = diagnose_text(_INIT + _REGISTER_REFUSED + extend + _SEGMENT + _TRACE)
    assert (d.verdict.cls, d.verdict.culprit_ranks) == ("oom", [3]), d.verdict.summary


def test_another_process_cuda_failure_leaves_the_segment_oom(diagnose_text):
    other = "gpu1:9622:9690 [4] misc/shmutils.cc:103 NCCL WARN Cuda failure 'invalid argument'\n"
    d = diagnose_text(_INIT + other + _SEGMENT + _TRACE)
    assert [f for f in d.findings if f.id == "M301"], d.verdict.summary
