"""Message families missed on held-out set 13 (real console pastes from LLM training and serving stacks), each in
the forms the family arrives in:

- vLLM's shared-memory ring buffer waiting on its peers (`No available [shared memory broadcast ]block found in N
  second[s].`, 0.5 - 0.17 wordings, behind vLLM's `(EngineCore_DP0 pid=N) INFO ... [shm_broadcast.py:N]` prefix,
  repeated, hard-wrapped by a terminal): a stall, read as a timeout.
- SGLang's scheduler watchdog (`Watchdog timeout (self.watchdog_timeout=300)` on each TP rank, then the launcher's
  `Received sigquit from a child process.`): a forward batch made no progress, a timeout; the sigquit line alone is
  only a consequence.
- bash's report of a script's job that a signal ended (`script: line N: PID Killed   command`, `Segmentation fault
  (core dumped)`): a process died, a dropped rank (which rank, the line does not say).
- A line whose wrapper prefix was taken off and that a terminal wrapped: the physical line's length, not the
  stripped text's, says it may go on on the next line.
"""
from __future__ import annotations

import pytest

from nccl_forensics.sources import catalogue

from .consoles import console_verdict

SHM_WORDS = {
    "0.5": "No available block found in 60 second. ",
    "0.6": "No available shared memory broadcast block found in 60 second.",
    "0.6_reader": "No available shared memory broadcast block foundin 60 second.",
    "0.8": "No available shared memory broadcast block found in 60 seconds. This typically happens when some "
           "processes are hanging or doing some time-consuming work (e.g. compilation).",
    "0.11": "No available shared memory broadcast block found in 60 seconds. This typically happens when some "
            "processes are hanging or doing some time-consuming work (e.g. compilation, weight/kv cache "
            "quantization).",
}
SHM_PREFIX = {
    "0.5": "(VllmWorkerProcess pid=161) WARNING 08-22 06:24:42 shm_broadcast.py:386] ",
    "0.6": "DEBUG 11-02 10:00:00 shm_broadcast.py:412] ",
    "0.6_reader": "(VllmWorkerProcess pid=161) DEBUG 11-02 10:00:00 shm_broadcast.py:460] ",
    "0.8": "(EngineCore_DP0 pid=1454) INFO 05-28 14:45:27 [shm_broadcast.py:681] ",
    "0.11": "(EngineCore_DP1 pid=1455) INFO 10-22 09:43:49 [shm_broadcast.py:466] ",
}


def _wrap(text: str, width: int) -> str:
    return "\n".join(text[i:i + width] for i in range(0, len(text), width))


@pytest.mark.parametrize("version", sorted(SHM_WORDS))
@pytest.mark.parametrize("form", ["repeated", "once", "wrapped_80", "bare"])
def test_vllm_ring_buffer_waiting_on_its_peers_is_a_stall(version, form, tmp_path):
    line = SHM_PREFIX[version] + SHM_WORDS[version]
    hits = [h for h in catalogue.match(line) if h.message.id == "vllm.shm_broadcast_wait"]
    assert hits and hits[0].fields["timeout_s"] == 60
    text = {"repeated": "\n".join([line] * 4), "once": line, "wrapped_80": _wrap(line, 80),
            "bare": SHM_WORDS[version]}[form]
    verdict = console_verdict(tmp_path, text)
    assert verdict.cls in ("timeout_unknown", "stuck_rank"), verdict.summary


@pytest.mark.parametrize("timeout", ["300", "300.0", "1200"])
@pytest.mark.parametrize("with_sigquit", [True, False])
def test_sglang_scheduler_watchdog_is_a_timeout(timeout, with_sigquit, tmp_path):
    lines = [f"[2025-03-09 00:57:15 TP{tp}] Watchdog timeout (self.watchdog_timeout={timeout})" for tp in range(8)]
    if with_sigquit:
        lines += ["[2025-03-09 00:57:20] Received sigquit from a child process. It usually means the child failed.",
                  "Killed"]
    hits = [h for h in catalogue.match(lines[0]) if h.message.id == "sglang.scheduler_watchdog_timeout"]
    assert hits and hits[0].fields["timeout_s"] == int(float(timeout))
    verdict = console_verdict(tmp_path, "\n".join(lines))
    assert verdict.cls in ("timeout_unknown", "stuck_rank"), verdict.summary


@pytest.mark.parametrize("words", ["Received sigquit from a child process. It usually means the child failed.",
                                   "Received sigquit from a child proces. It usually means the child failed."])
def test_sglang_sigquit_line_is_a_consequence_that_names_no_class(words):
    hits = [h for h in catalogue.match(f"[2025-03-09 00:57:20] {words}")]
    assert [h.message.id for h in hits] == ["sglang.sigquit_from_child"]
    assert hits[0].message.meaning == "consequence" and hits[0].message.implies is None


def test_sglang_scheduler_exception_still_says_what_failed(tmp_path):
    # the child's own error before the sigquit line decides, not the sigquit line
    text = ("[2025-03-09 00:57:19 TP0] Scheduler hit an exception: Traceback (most recent call last):\n"
            "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
            "79.10 GiB of which 1.02 GiB is free.\n"
            "[2025-03-09 00:57:20] Received sigquit from a child process. It usually means the child failed.")
    assert console_verdict(tmp_path, text).cls == "oom"


@pytest.mark.parametrize("signal_words,signal", [("Killed", "SIGKILL"), ("Segmentation fault", "SIGSEGV"),
                                                 ("Bus error", "SIGBUS"), ("Aborted", "SIGABRT")])
@pytest.mark.parametrize("core", ["", "      (core dumped)"])
@pytest.mark.parametrize("prefix", ["/nemo_run/scripts/pretrain.sh", "/var/spool/slurmd/job00191/slurm_script",
                                    "train.sh"])
def test_bash_job_report_of_a_signal_is_a_dropped_process(signal_words, signal, core, prefix, tmp_path):
    if core and signal == "SIGKILL":
        pytest.skip("SIGKILL leaves no core")
    line = (f"{prefix}: line 7: 3297567 {signal_words:<24}{core.strip() + ' ' if core else ''}"
            f"bash -c 'numactl --cpunodebind=0 python pretrain.py'")
    hits = [h for h in catalogue.match(line) if h.message.id == "bash.job_killed_by_signal"]
    assert hits and hits[0].fields["pid"] == 3297567 and hits[0].fields["signal"] == signal
    assert hits[0].fields["command"].startswith("bash -c")
    verdict = console_verdict(tmp_path, line)
    # SIGABRT is how a process ends itself after an error elsewhere (the watchdog's abort): read as the others are
    allowed = ("dropped_rank", "unclassified_failure") if signal == "SIGABRT" else ("dropped_rank", "oom")
    assert verdict.cls in allowed, verdict.summary


@pytest.mark.parametrize("text", [
    'File "train.py", line 7, in main',                               # a traceback frame
    "train.sh: line 7: syntax error near unexpected token `fi'",       # bash's own error, no job
    "config.yaml: line 12: 4 spaces expected",                         # another program's line numbers
])
def test_other_line_numbered_messages_are_no_bash_job_report(text):
    assert not [h for h in catalogue.match(text) if h.message.id == "bash.job_killed_by_signal"]


def test_a_wrapped_line_behind_a_stripped_prefix_is_joined(tmp_path):
    # a rank prefix the wrappers take off makes the first physical line's text shorter than the terminal's width
    msg = ("Watchdog caught collective operation timeout: WorkNCCL(SeqNum=42, OpType=ALLREDUCE, NumelIn=1, "
           "NumelOut=1, Timeout(ms)=600000) ran for 600012 milliseconds before timing out.")
    line = "[rank3]:[E1125 10:00:00.000000000 ProcessGroupNCCL.cpp:616] [Rank 3] " + msg
    verdict = console_verdict(tmp_path, _wrap(SHM_PREFIX["0.11"] + SHM_WORDS["0.11"], 80) + "\n" + _wrap(line, 80))
    assert verdict.cls in ("timeout_unknown", "stuck_rank"), verdict.summary


@pytest.mark.parametrize("sigval,signal", [("1", "SIGHUP"), ("15", "SIGTERM"), ("2", "SIGINT"),
                                           ("Signals.SIGHUP", "SIGHUP"), ("Signals.SIGTERM", "SIGTERM")])
@pytest.mark.parametrize("prefix", ["WARNING:torch.distributed.elastic.agent.server.api:",
                                    "W1229 16:43:25.650000 190834 torch/distributed/elastic/agent/server/api.py:723] ",
                                    "[16:21:34] WARNING  "])
def test_the_agent_told_to_stop_from_outside_names_its_signal_as_a_name_or_a_number(sigval, signal, prefix,
                                                                                  tmp_path):
    # torch formats the signal.Signals with an f-string (to 2.1) or `%s` (2.2+): a name before Python 3.11's str(),
    # a number with format() or 3.11+; the same event either way, and no rank is blamed for it
    line = f"{prefix}Received {sigval} death signal, shutting down workers"
    hits = [h for h in catalogue.match(line) if h.message.id == "torchrun.death_signal"]
    assert hits and hits[0].fields["signal"] == signal
    exc = f"torch.distributed.elastic.multiprocessing.api.SignalException: Process 2920830 got signal: {sigval}"
    hits = [h for h in catalogue.match(exc) if h.message.id == "torchrun.signal_exception"]
    assert hits and hits[0].fields["signal"] == signal and hits[0].fields["pid"] == 2920830
    verdict = console_verdict(tmp_path, line + "\n" + exc)
    assert verdict.cls in ("unclassified_failure", "inconclusive") and not verdict.culprit_ranks, verdict.summary
