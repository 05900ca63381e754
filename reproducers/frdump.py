"""Flight-recorder dumps on demand, for backends (gloo) that have no automatic dump path.

`install()` must run before torch starts any thread: it blocks SIGUSR1 and SIGTERM in every thread and
starts one thread that waits for them with `sigwait`. That thread can run while the main thread is
blocked inside a collective. On SIGUSR1 it writes `torch._C._distributed_c10d._dump_fr_trace()` to
`${TORCH_FR_DUMP_TEMP_FILE}<rank>` (torch's own naming) and carries on; on SIGTERM it dumps, then lets
the default action end the process (exit by SIGTERM, as before). The trainer also calls `dump()` when
a collective raises.
"""
from __future__ import annotations

import os
import signal
import sys
import threading

DUMP_SIGNALS = {signal.SIGUSR1, signal.SIGTERM}
_lock = threading.Lock()


def install() -> None:
    if not os.environ.get("TORCH_FR_DUMP_TEMP_FILE"):
        return
    signal.pthread_sigmask(signal.SIG_BLOCK, DUMP_SIGNALS)
    threading.Thread(target=_wait_for_signals, name="fr-dump", daemon=True).start()


def dump() -> str | None:
    """Write this rank's flight-recorder buffer; returns the path, or None when there is nothing to dump."""
    prefix = os.environ.get("TORCH_FR_DUMP_TEMP_FILE")
    rank = os.environ.get("RANK")
    if not prefix or rank is None:
        return None
    dist = sys.modules.get("torch.distributed")    # imported by the trainer; never imported here first
    if dist is None or not dist.is_initialized():
        return None
    with _lock:
        data = sys.modules["torch"]._C._distributed_c10d._dump_fr_trace()
        path = f"{prefix}{rank}"
        with open(path + ".tmp", "wb") as fh:
            fh.write(data)
        os.replace(path + ".tmp", path)
    return path


def _wait_for_signals() -> None:
    while True:
        sig = signal.sigwait(DUMP_SIGNALS)
        try:
            dump()
        except Exception:  # noqa: BLE001 - a dump must never keep a rank alive or kill it differently
            pass
        if sig == signal.SIGTERM:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})
            signal.pthread_kill(threading.get_ident(), signal.SIGTERM)
