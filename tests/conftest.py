"""Suite-wide rules: what counts as slow (deselected by the README's test command, run by CI as a second step),
and a loud line in the summary when the real-world corpus (`../shared`) is absent.

Slow: every real torch job (`repro` marker: tests/repro/, the live capture and run tests), a Ray cluster,
and the few tests listed in SLOW below that take more than ~5 s on 2 cores. `pytest -m slow` runs them.
"""
from __future__ import annotations

import os
import shutil
import signal
import tempfile
from pathlib import Path

import pytest
from hypothesis import settings

SHARED = Path(__file__).resolve().parents[1].parent / "shared"

# CI (.ci/run) runs the property tests on a fixed draw of examples: a failure there is one anybody reproduces, not
# the luck of a draw; run elsewhere, they draw new examples each time (the way the two found in the block path were).
# The profiles the test modules register inherit it.
if os.environ.get("NCCLF_HYPOTHESIS_DERANDOMIZE"):
    settings.register_profile("derandomized", derandomize=True)
    settings.load_profile("derandomized")

# A suite started in the background by a shell without job control inherits SIGINT ignored, and so would every
# process its tests start: a test that sends SIGINT to ncclf (which keeps an ignored SIGINT ignored, as it should) would
# see nothing happen. The suite's own handler (Python's) makes its children's SIGINT the default again at their exec.
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

# node-id prefixes of tests that take more than ~5 s on a 2-core host (measured with --durations)
SLOW = (
    "tests/repro/",
    "tests/capture/test_live_",
    "tests/engines/test_ray_cluster.py",
    "tests/engines/test_interrupts.py",
    "tests/test_docs.py::test_pasted_output_is_current",
    "tests/test_collect_stream.py::test_a_file_that_spooled_a_rankless_event_before_its_turn_keeps_spooling",
    "tests/test_collect_stream.py::test_jsonl_workers_take_over_the_output_on_their_turn",
    "tests/test_collect_stream.py::test_a_parallel_run_into_a_real_file_writes_what_a_serial_run_writes",
    "tests/test_collect_stream.py::test_no_file_takes_over_after_an_event_only_a_re_scan_can_rank",
    "tests/test_probe.py::test_probe_measures_two_gloo_ranks",
    "tests/test_packaging.py::test_a_non_editable_wheel",
    "tests/capture/test_debug_server.py",
    "tests/diagnose/test_missing_evidence.py::test_a_file_another_user_cannot_read",
    "tests/sources/test_grammars_build.py",
    "tests/sources/test_fr_tail.py::test_a_collective_skipped_before_the_window_widens_it",
    "tests/topo/test_cli_topo.py::test_topo_exits_1_when_a_check_warns_like_a_linter",
    "tests/topo/test_svg_chromium.py",
    "tests/security/test_bounded_inputs.py",         # gigabyte inputs under memory caps
    "tests/security/test_run_and_probe.py",          # real launchers and stores
    "tests/security/test_capture_attacks.py",        # real jobs of another user
    "tests/sources/test_block_scanner.py::test_block_scanner_equals_line_dispatch",       # hypothesis, ~20 s
    "tests/diagnose/test_cli.py::test_written_files_are_announced_and_an_unwritable_one_is_exit_2",
    "tests/diagnose/test_cli.py::test_markdown_format_and_old_format_names_still_work",
    "tests/test_docs.py::test_explain_examples_are_current",                               # cog: every example
    "tests/test_docs.py::test_quick_start_lines_run_as_written_from_a_clone",
    "tests/diagnose/test_tail_window.py",
    "tests/detectors/test_straggler.py::test_no_straggler_in_any_other_sample_bundle_or_corpus_file",
    "tests/diagnose/test_summaries.py::test_a_large_job_summarized_per_node_diagnoses_without_its_dumps",
    "tests/test_cli_parse.py::test_gzip_is_read_transparently",
    "tests/test_cli_parse.py::test_five_megabyte_single_line_does_not_break",
)


def pytest_collection_modifyitems(config, items):
    slow = pytest.mark.slow
    for item in items:
        if item.nodeid.startswith(SLOW) or item.get_closest_marker("repro"):
            item.add_marker(slow)


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    if not SHARED.is_dir():
        terminalreporter.write_sep("!", f"the real-world corpus is absent ({SHARED}): the corpus tests were "
                                        "skipped; this run checked no real log", red=True, bold=True)


@pytest.fixture
def shared_tmp():
    """A folder every user can reach (pytest's tmp folders are private to root): for tests run as nobody."""
    path = Path(tempfile.mkdtemp(prefix="ncclf-shared-"))
    path.chmod(0o755)
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)
