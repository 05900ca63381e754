"""Verdicts on the AMD stack's words mined from its sources in catalogue round srcmined29, each as the lines of
a pasted console: HIP's own device-side assert (clr hip_assert.h), the HIP runtime's log of a device allocation that
did not fit (clr hip_memory.cpp, AMD_LOG_LEVEL >= 1), and amdgpu's MES that stopped answering (mes_v11_0.c,
mes_v12_0.c), amdkfd's poison consumption that resets the GPU, and a reset that lost the GPU's memory.
"""
from __future__ import annotations

import pytest

from .consoles import check_case

# name -> (console lines, accepted classes, culprit ranks or None)
CASES: dict[str, tuple[str, set[str], list[int] | None]] = {
    'hip_device_assert': (
        '[default0]:2026-11-27 10:02:11,201 - INFO - step 1200 loss 2.4711\n'
        '[default1]:2026-11-27 10:02:11,203 - INFO - step 1200 loss 2.4690\n'
        "[default1]:/pytorch/aten/src/ATen/native/hip/Loss.hip:250: nll_loss_forward_reduce_cuda_kernel_2d: Device-side assertion `t >= 0 && t < n_classes' failed.\n"
        "[default1]:/pytorch/aten/src/ATen/native/hip/Loss.hip:250: nll_loss_forward_reduce_cuda_kernel_2d: Device-side assertion `t >= 0 && t < n_classes' failed.\n"
        'W1127 10:02:14.554000 140211 torch/distributed/elastic/multiprocessing/api.py:897] Sending process 8812 closing signal SIGTERM',
        {'dropped_rank'}, [1]),
    'hip_alloc_failed': (
        '[1,2]<stderr>::1:rocdevice.cpp            :2134: 9616777853 us: [pid:4278  tid:0x7f7fc7dff6c0] Invalid argument, pool_handle: 0x0 , max_alloc: 42\n'
        '[1,2]<stderr>::1:hip_memory.cpp           :303 : 9616777863 us: [pid:4278  tid:0x7f7fc7dff6c0] Allocation failed : Device memory : required :68719476736 | free :2314338304 | total :68702699520\n'
        '[1,2]<stderr>::1:memory.cpp               :347 : 9616777891 us: [pid:4278  tid:0x7f7fc7dff6c0] Video memory allocation failed!\n'
        '--------------------------------------------------------------------------\n'
        'Primary job  terminated normally, but 1 process returned\n'
        'a non-zero exit code. Per user-direction, the job has been aborted.\n'
        '--------------------------------------------------------------------------',
        {'oom'}, [2]),
    'amdgpu_mes_remove_queue': (
        '[Thu Nov 27 11:40:02 2026] amdgpu 0000:c3:00.0: amdgpu: MES failed to respond to msg=REMOVE_QUEUE\n'
        '[Thu Nov 27 11:40:02 2026] [drm:amdgpu_mes_unmap_legacy_queue [amdgpu]] *ERROR* failed to unmap legacy queue\n'
        '[Thu Nov 27 11:40:03 2026] amdgpu 0000:c3:00.0: amdgpu: GPU reset begin!\n'
        '[Thu Nov 27 11:40:04 2026] amdgpu 0000:c3:00.0: amdgpu: MODE1 reset\n'
        '[Thu Nov 27 11:40:05 2026] amdgpu 0000:c3:00.0: amdgpu: GPU reset succeeded, trying to resume',
        {'dropped_rank'}, None),
    'amdgpu_mes_pipe': (
        '[ 7311.402011] amdgpu 0000:83:00.0: amdgpu: MES(0) failed to respond to msg=MISC (WAIT_REG_MEM)\n'
        '[ 7311.402090] amdgpu 0000:83:00.0: amdgpu: failed to reg_write_reg_wait\n'
        '[ 7313.118842] amdgpu 0000:83:00.0: amdgpu: GPU reset begin!',
        {'dropped_rank'}, None),
    'amdgpu_poison_consumed': (
        '[Thu Nov 27 12:01:44 2026] amdgpu 0000:0c:00.0: amdgpu: {3}poison is consumed by client 12, kick off gpu reset flow\n'
        '[Thu Nov 27 12:01:44 2026] amdgpu 0000:0c:00.0: amdgpu: GPU reset begin!',
        {'dropped_rank'}, None),
    'amdgpu_vram_lost': (
        '[ 9021.110201] [drm:amdgpu_job_timedout [amdgpu]] *ERROR* ring sdma0 timeout, but soft recovered\n'
        '[ 9033.551003] amdgpu 0000:03:00.0: amdgpu: GPU reset begin!\n'
        '[ 9034.201871] amdgpu 0000:03:00.0: amdgpu: BACO reset\n'
        '[ 9035.002141] amdgpu 0000:03:00.0: amdgpu: GPU reset succeeded, trying to resume\n'
        '[ 9035.014420] [drm] VRAM is lost due to GPU reset!',
        {'dropped_rank'}, None),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_srcmined29_verdicts(tmp_path, name):
    check_case(tmp_path, CASES[name])
