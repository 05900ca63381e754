"""Message families missed on held-out set 10 (real console pastes), each in the forms the family arrives in:

- NCCL lines pasted run-on (their newlines lost, several `host:pid:tid [dev] ... NCCL INFO|WARN ...` records on one
  text line, behind a quote or prompt): every record is read as its own line, and a WARN among INFO records keeps
  its catalogue meaning (the NCCL parser may hold its event until the process's rank is known).
- The CUDA caching allocator's OOM: the words that decide are `CUDA out of memory.`; what follows (`Tried to
  allocate N`, the GPU's figures) may be cut, garbled by OCR or glued to the launcher's next lines.
"""
from __future__ import annotations

import pytest

from nccl_forensics.model import Source, SourceKind
from nccl_forensics.sources import catalogue, parse_source

from .consoles import console_verdict

WARNS = ["init.cc:573 NCCL WARN Duplicate GPU detected : rank 1 and rank 0 both on CUDA device 1000",
         "transport/net_ib.cc:1295 NCCL WARN NET/IB : Got completion from peer 10.0.0.2<52310> with error 12, opcode 0, "
         "len 0, vendor err 129 (Recv)",
         "misc/ibvwrap.cc:284 NCCL WARN Call to ibv_modify_qp failed with error No such device"]
INFOS = ["NCCL INFO Bootstrap : Using [0]enp4s0:10.214.24.190<0>", "NCCL INFO Using network Socket",
         "NCCL INFO init.cc:840 -> 5", "NCCL INFO group.cc:73 -> 5 [Async thread]"]


def _expected(warn: str) -> set[str]:
    [hit] = [h for h in catalogue.match(warn) if h.message.meaning == "failure"][:1] or [None]
    assert hit is not None, warn
    implies = hit.fields.get("implies") or hit.message.implies
    return {implies} if implies else {"unclassified_failure"}


@pytest.mark.parametrize("warn", WARNS)
@pytest.mark.parametrize("where", ["first", "middle", "last"])
@pytest.mark.parametrize("lead", ["", "> ", "$ sh train.sh "])
def test_a_warn_pasted_run_on_among_info_records_keeps_its_meaning(warn, where, lead, tmp_path):
    head = "ubun:2375341:2375387 [0] "
    records = [head + info for info in INFOS]
    at = {"first": 0, "middle": 2, "last": len(records)}[where]
    records.insert(at, head + warn)
    verdict = console_verdict(tmp_path, lead + " ".join(records))
    assert verdict.cls in _expected(warn), verdict.summary


def test_run_on_records_are_each_read(tmp_path):
    head = "ubun:2375341:2375387 [0] "
    line = " ".join([head + INFOS[1], head + WARNS[0], head + INFOS[2], head + INFOS[3]])
    (tmp_path / "console.log").write_text(line + "\n", encoding="utf-8")
    events = parse_source(Source(str(tmp_path / "console.log"), SourceKind.CONSOLE)).events
    warns = [ev for ev in events if ev.kind == "warn"]
    assert [ev.data.get("message_id") for ev in warns] == ["nccl.duplicate_gpu"]
    assert warns[0].data.get("message", "").endswith("CUDA device 1000")      # the next record is not in it
    assert sum(ev.kind == "error_trace" for ev in events) == 2


@pytest.mark.parametrize("text", [
    "torch.cuda.OutOfMemoryError: CUDA out of memory.",
    "RuntimeError: CUDA out of memory. Tried to allocate 388.00 MiB (GPU 0; 39.43 GiB total capacity; 37.42 GiB "
    "already allocated; 126.25 MiB free; 37.64 GiB reserved in total by PyTorch)",
    # an OCR'd screenshot: the exception's name and the words after the decisive ones garbled, the launcher's lines glued
    "JutofMemoryError: CUDA out of memory. Tried t allocate 388.00 MiB (GPV 0; 39.43 GiB total capacity) If reserved "
    "memory is >> allocated memory try setting max split size mb to avoid framentationSee documentation for Memory "
    "Management and PYTORCH CUDA ALLOC CONFwandb: Waiting for W&B process to finish...(failed 1). Press Control-C to "
    "abort syncing.WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 22093 closing signal "
    "SIGTERMERROR:torch.distributed.elastic.multiprocessing.api:failed exitcode: 1) local rank: 1 pid: 22094) of "
    "binary: /usr/bin/python3",
    "[rank3]: torch.OutOfMemoryError: HIP out of memory. Tried to allocate 2.00 GiB. GPU 3 has a total capacity of "
    "63.98 GiB of which 1.2",
])
def test_the_allocators_oom_decided_by_its_first_words(text, tmp_path):
    verdict = console_verdict(tmp_path, text)
    assert verdict.cls == "oom", verdict.summary


@pytest.mark.parametrize("text", [
    "UserWarning: `device_train_microbatch_size='auto'` may potentially fail with unexpected CUDA errors. Auto "
    "microbatching attempts to catch CUDA Out of Memory errors and adjust the batch size",
    "INFO: CUDA out of memory detected. Train microbatch size will be decreased from 8 -> 4.",
])
def test_words_about_oom_are_no_oom(text, tmp_path):
    verdict = console_verdict(tmp_path, text)
    assert verdict.cls != "oom", verdict.summary
