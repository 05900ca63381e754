"""The one table of signals and the exit codes that carry them."""
import pytest

from nccl_forensics import signals


@pytest.mark.parametrize("code, name", [(-9, "SIGKILL"), (-11, "SIGSEGV"), (-15, "SIGTERM"), (137, "SIGKILL"),
                                        (139, "SIGSEGV"), (134, "SIGABRT"), (143, "SIGTERM"), (-7, "SIGBUS")])
def test_a_signal_death_reads_in_both_conventions(code, name):
    assert signals.of_exit_code(code) == name


@pytest.mark.parametrize("code", [0, 1, 2, 127, 128, None, "9", True, -99])
def test_other_exits_carry_no_signal(code):
    assert signals.of_exit_code(code) is None


def test_the_groups_are_disjoint_and_named():
    assert not signals.CRASH & signals.TEARDOWN
    assert signals.FAULT < signals.CRASH and "SIGKILL" not in signals.FAULT
    assert set(signals.WORDS.values()) <= set(signals.NAMES.values())
    assert signals.NAMES[11] == "SIGSEGV" and signals.NAMES[31] == "SIGSYS"


def test_strsignal_words_are_linux_glibcs_whatever_the_host():
    assert signals.WORDS["Segmentation fault"] == "SIGSEGV" and signals.WORDS["User defined signal 1"] == "SIGUSR1"
    assert signals.WORDS["Bad system call"] == "SIGSYS" and len(signals.WORDS) == 31
