"""R201 from torchrun's agent lines: a local rank killed or exiting first, mapped to its rank on one node."""
from __future__ import annotations

KILLED = ("W0101 10:00:00.000 1 torch/distributed/elastic/multiprocessing/api.py:897] Sending process 4102 closing "
          "signal SIGTERM\n"
          "E0101 10:00:01.000 1 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: -9) "
          "local_rank: 0 (pid: 4101) of binary: /usr/bin/python\n")


def test_a_sigkilled_local_rank_on_one_node_is_the_dropped_rank(diagnose_text):
    d = diagnose_text(KILLED)
    assert d.verdict.cls == "dropped_rank" and d.verdict.culprit_ranks == [0]
    assert "SIGKILL" in d.verdict.summary


def test_a_rank_that_exits_while_torchrun_ends_the_others_failed_first(diagnose_text):
    text = ("[rank4]: For debugging consider passing CUDA_LAUNCH_BLOCKING=1\n"
            + "".join(f"W0101 10:00:00.000 1 torch/distributed/elastic/multiprocessing/api.py:897] Sending process "
                      f"{pid} closing signal SIGTERM\n" for pid in (11, 12, 13))
            + "E0101 10:00:09.000 1 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) "
              "local_rank: 4 (pid: 15) of binary: /usr/bin/python\n")
    d = diagnose_text(text)
    assert d.verdict.cls == "dropped_rank" and d.verdict.culprit_ranks == [4]


def test_local_ranks_stay_local_when_the_evidence_shows_two_nodes(diagnose_text):
    table = ("Failures:\n[1]:\n  time      : 2026-01-01_10:00:00\n  host      : node2\n  rank      : 9 (local_rank: 1)\n"
             "  exitcode  : -15 (pid: 77)\n  error_file: <N/A>\n  traceback : Signal 15 (SIGTERM) received by PID 77\n")
    d = diagnose_text(KILLED + table)
    assert 0 not in d.verdict.culprit_ranks          # local rank 0 of an unknown node is not global rank 0


def test_a_traceback_cut_before_its_exception_is_no_exception(diagnose_text):
    text = ('[rank7]: Traceback (most recent call last):\n[rank7]:   File "train.py", line 225, in <module>\n'
            "[rank7]:     trainer.train()\n")
    d = diagnose_text(text)
    assert d.verdict.cls != "dropped_rank"


def _entry(index: int, time: str, rank: int, exitcode: int | None, pid: int) -> str:
    text = f"[{index}]:\n  time      : 2026-09-07_{time}\n  host      : node0\n  rank      : {rank} (local_rank: {rank})\n"
    return text if exitcode is None else text + f"  exitcode  : {exitcode} (pid: {pid})\n  error_file: <N/A>\n"


def _table(failures: str, root: str) -> str:
    rule = "-" * 60 + "\n"
    return ("=" * 60 + "\ntrain.py FAILED\n" + rule + "Failures:\n" + failures + rule
            + "Root Cause (first observed failure):\n" + root)


def test_a_sigkill_30_s_after_the_first_failure_is_torchruns_own_shutdown(diagnose_text):
    # torch >= 2.4 takes the table after its shutdown (SIGTERM, then SIGKILL after a 30 s grace): the -9 is not
    # the cause; the ranks that failed at the table's first second are.
    failures = (_entry(1, "13:02:58", 3, 1, 14692) + _entry(2, "13:03:29", 0, -9, 14689)
                + _entry(3, "13:03:29", 2, -15, 14691))
    d = diagnose_text(_table(failures, _entry(0, "13:02:58", 1, 1, 14690) + "=" * 60 + "\n"))
    assert d.verdict.cls == "dropped_rank" and d.verdict.culprit_ranks == [1, 3]
    cut = diagnose_text(_table(failures, _entry(0, "13:02:58", 1, None, 0)))        # the paste ends mid-entry
    assert cut.verdict.cls == "dropped_rank" and cut.verdict.culprit_ranks == [1, 3]


def test_a_sigkill_in_the_tables_first_second_is_still_the_cause(diagnose_text):
    failures = _entry(1, "13:02:58", 2, -15, 11) + _entry(2, "13:02:59", 3, -15, 12)
    d = diagnose_text(_table(failures, _entry(0, "13:02:58", 0, -9, 10) + "=" * 60 + "\n"))
    assert d.verdict.cls == "dropped_rank" and d.verdict.culprit_ranks == [0]


def test_deepspeeds_exit_line_names_no_rank_on_a_node_of_several(diagnose_text):
    # launch.py prints the command line of the last local rank it spawned, whichever process failed
    text = ("[2023-07-10 04:26:05,876] [INFO] [launch.py:318:sigkill_handler] Killing subprocess 94984\n"
            "[2023-07-10 04:26:05,876] [INFO] [launch.py:318:sigkill_handler] Killing subprocess 94985\n"
            "[2023-07-10 04:26:35,999] [ERROR] [launch.py:324:sigkill_handler] ['/usr/bin/python', '-u', 'train.py', "
            "'--local_rank=1', '--deepspeed'] exits with return code = -11\n")
    d = diagnose_text(text)
    assert d.verdict.cls == "dropped_rank" and d.verdict.culprit_ranks == []
    assert "SIGSEGV" in d.verdict.summary and "which rank" in d.verdict.summary


def test_open_mpis_first_process_to_exit_names_its_rank(diagnose_text):
    # ORTE's help-orterun.txt `non-zero-exit`: the process name's last number is its rank (vpid)
    text = ("Primary job  terminated normally, but 1 process returned\n"
            "a non-zero exit code. Per user-direction, the job has been aborted.\n"
            "--------------------------------------------------------------------------\n"
            "mpirun detected that one or more processes exited with non-zero status, thus causing\n"
            "the job to be terminated. The first process to do so was:\n\n"
            "  Process name: [[29973,1],5]\n  Exit code:    1\n"
            "--------------------------------------------------------------------------\n")
    d = diagnose_text(text)
    assert d.verdict.cls == "dropped_rank" and d.verdict.culprit_ranks == [5]


def test_the_one_worker_torchrun_did_not_terminate_ended_first(diagnose_text):
    # torchrun's shutdown signals only the workers still running; its failure table is missing (since 2.4 it reads
    # the error files after the shutdown and can crash on one cut short), and the killed rank wrote nothing
    agent = "I0101 10:00:00.000000 100 torch/distributed/elastic/agent/server/api.py:553]"
    text = (f"{agent} [default] Rendezvous complete for workers. Result:\n{agent}   restart_count=0\n"
            f"{agent}   global_ranks=[0, 1, 2, 3]\n{agent}   global_world_sizes=[4, 4, 4, 4]\n"
            + "".join(f"W0101 10:00:09.000000 100 torch/distributed/elastic/multiprocessing/api.py:1028] Sending "
                      f"process {pid} closing signal SIGTERM\n" for pid in (201, 202, 204)))
    logs = {f"nccl_rank{r}.log": f"node1:{201 + r}:{201 + r} [{r}] NCCL INFO comm 0x55d0 rank {r} nranks 4 cudaDev {r} "
            f"nvmlDev {r} busId {r}000 commId 0x7a1b2c3d4e5f6071 - Init COMPLETE\n" for r in (0, 1, 3)}
    d = diagnose_text(text, **logs)
    assert d.verdict.cls == "dropped_rank" and d.verdict.culprit_ranks == [2]
    alive = diagnose_text(text.replace("Sending process 204 closing", "Sending process 203 closing") + text.splitlines()[-1]
                          .replace("204", "205") + "\n", **logs)     # four signalled: none had ended
    assert alive.verdict.culprit_ranks != [2]


# torchrun's own traceback after a worker's failure (torch elastic's launch_agent raising ChildFailedError), pasted
# cut before its exception line: it reports that failure again, it is not one of its own
_AGENT_TRACEBACK = ("Traceback (most recent call last):\n"
                    '  File "/opt/conda/bin/torchrun", line 8, in <module>\n    sys.exit(main())\n'
                    '  File "/opt/conda/lib/python3.10/site-packages/torch/distributed/elastic/multiprocessing/errors/'
                    '__init__.py", line 346, in wrapper\n    return f(*args, **kwargs)\n'
                    '  File "/opt/conda/lib/python3.10/site-packages/torch/distributed/run.py", line 794, in main\n'
                    "    run(args)\n")


def test_torchruns_own_traceback_is_no_failure_of_its_own(diagnose_text):
    text = ("ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 0 (pid: 4101) of "
            "binary: /usr/bin/python\n" + _AGENT_TRACEBACK)
    d = diagnose_text(text)
    assert d.verdict.cls == "dropped_rank" and d.verdict.culprit_ranks == [0]


def test_an_application_traceback_is_still_the_failure(diagnose_text):
    text = ("ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 0 (pid: 4101) of "
            'binary: /usr/bin/python\nTraceback (most recent call last):\n  File "train.py", line 12, in <module>\n'
            "    main()\nValueError: bad config\n")
    d = diagnose_text(text)
    assert "no other line shows a failure" not in d.verdict.summary     # the ValueError is a failure of its own


def _root_cause(head: str, time: str, rank: int, pid: int) -> str:
    return (f"{head}\n[0]:\n  time      : {time}\n  host      : gpu187\n  rank      : {rank} (local_rank: {rank % 4})\n"
            f"  exitcode  : 1 (pid: {pid})\n  error_file: <N/A>\n"
            "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html\n")


def test_several_exits_name_the_earliest_by_torchruns_time(diagnose_text):
    text = (_root_cause("Root Cause (first observed failure):", "2023-06-03_22:45:52", 0, 19414)
            + "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:\n"
            + _root_cause("Root Cause (first observed failure):", "2023-06-03_22:45:01", 4, 19401))
    d = diagnose_text(text)
    assert d.verdict.cls == "dropped_rank" and d.verdict.culprit_ranks == [4]


def test_several_exits_at_the_same_time_name_none(diagnose_text):
    # torchrun saw both fail in the same second and nothing else failed: neither ended ahead of the other, so no rank
    # dropped out of a job the rest kept running (R201's own definition); the job's failure is X901's floor
    text = (_root_cause("Root Cause (first observed failure):", "2023-06-03_22:45:01", 0, 19414)
            + _root_cause("Root Cause (first observed failure):", "2023-06-03_22:45:01", 4, 19401))
    d = diagnose_text(text)
    assert d.verdict.cls == "unclassified_failure" and d.verdict.culprit_ranks == []


_KILLS = "".join(f"[2021-11-21 08:32:07,148] [INFO] [launch.py:131:sigkill_handler] Killing subprocess {pid}\n"
                 for pid in (250621, 250622))


def test_deepspeeds_kills_without_a_signal_line_are_a_workers_failure(diagnose_text):
    d = diagnose_text(_KILLS)
    assert d.verdict.cls == "dropped_rank" and d.verdict.culprit_ranks == []


def test_deepspeeds_kills_after_it_was_signalled_are_no_workers_failure(diagnose_text):
    d = diagnose_text(_KILLS + "[2021-11-21 08:32:07,149] [INFO] [launch.py:134:sigkill_handler] Main process "
                               "received SIGTERM, exiting\n")
    assert d.verdict.cls != "dropped_rank"
