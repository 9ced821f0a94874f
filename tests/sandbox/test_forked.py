"""Forked runs: every way a child can end comes back as an Outcome; the parent goes on."""

from __future__ import annotations

import ctypes
import faulthandler
import os
import subprocess
import sys
import time

import pytest

from lsp_server.sandbox import CRASHED, EXITED, OK, RAISED, TIMEOUT, Forker

# Under xdist the test process has threads of its own; these children only run the small
# functions below, which take no lock those threads could hold.
pytestmark = pytest.mark.filterwarnings("ignore:This process .* is multi-threaded")


def test_value_comes_back() -> None:
    forker = Forker()
    outcome = forker.run(lambda: {"sum": 1 + 2, "items": [1, "a", None]}, timeout=10)
    assert (outcome.status, outcome.value) == (OK, {"sum": 3, "items": [1, "a", None]})


def test_big_payload() -> None:
    payload = "x" * 20_000_000  # far more than a pipe holds: the parent reads while waiting
    outcome = Forker().run(lambda: [payload, payload[:10]], timeout=30)
    assert outcome.ok and outcome.value[0] == payload and outcome.value[1] == "x" * 10


def test_exception_in_child() -> None:
    def work() -> None:
        raise KeyError("missing")

    outcome = Forker().run(work, timeout=10)
    assert outcome.status == RAISED
    assert outcome.detail == "KeyError: 'missing'"
    assert "Traceback" in outcome.value


def test_exit_and_sys_exit() -> None:
    forker = Forker()
    outcome = forker.run(lambda: os._exit(3), timeout=10)
    assert (outcome.status, outcome.detail) == (EXITED, "exit status 3")
    outcome = forker.run(lambda: sys.exit(4), timeout=10)
    assert (outcome.status, outcome.detail) == (EXITED, "exit status 4")


def test_segfault_is_a_crash() -> None:
    def read_address_one() -> bytes:
        faulthandler.disable()  # pytest's handler would print the child's stack
        return ctypes.string_at(1)

    outcome = Forker().run(read_address_one, timeout=10)
    assert (outcome.status, outcome.detail) == (CRASHED, "killed by SIGSEGV")


def test_hang_is_a_timeout_and_the_child_is_killed() -> None:
    started = time.monotonic()
    outcome = Forker().run(lambda: time.sleep(60), timeout=0.3)
    assert outcome.status == TIMEOUT and "0.30 s" in outcome.detail
    assert time.monotonic() - started < 5


def test_result_not_json_is_raised() -> None:
    outcome = Forker().run(lambda: object(), timeout=10)
    assert outcome.status == RAISED and "not JSON serializable" in outcome.detail


LEFT_BEHIND = """
import os, time
from lsp_server.sandbox import Forker

fds = len(os.listdir("/proc/self/fd"))
forker = Forker()
for work in (lambda: 1, lambda: os._exit(1), lambda: 1 / 0, lambda: time.sleep(9)):
    forker.run(work, timeout=0.5)
forker.wait_all()
assert len(os.listdir("/proc/self/fd")) == fds, "descriptors left open"
assert not forker.exiting and forker.running is None
try:
    os.waitpid(-1, os.WNOHANG)
    raise AssertionError("a child was left behind")
except ChildProcessError:
    pass
print("clean")
"""


def test_no_descriptor_or_child_is_left_behind() -> None:
    # In a fresh process: the test process may have children of its own (xdist, servers).
    done = subprocess.run(
        [sys.executable, "-c", LEFT_BEHIND], capture_output=True, text=True, timeout=60
    )
    assert done.stdout.strip() == "clean", done.stderr
