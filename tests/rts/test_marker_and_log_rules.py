"""``--strict-markers`` reruns the tests with a mark not registered, ``log_cli_level`` the
tests that read the root logger's level (``rts.option_rules``, ``rts.read_watch``); each
guard is such a test that then fails."""

from __future__ import annotations

import pytest

from lsp_server.rts.file_units import Unit
from lsp_server.rts.option_rules import WARNED
from lsp_server.rts.store import DependencyStore
from lsp_server.rts.unit_names import NAMES

from .helpers import ran_and_failed, run, run_result, write

pytest_plugins = ["pytester"]

MARKED = """
import pytest


@pytest.mark.slow
def test_registered():
    assert True


def test_marked_while_running(request):
    request.applymarker(pytest.mark.wip)  # not registered: fails under strict markers


def test_quiet():
    assert True
"""


def test_strict_markers_reruns_the_tests_with_a_mark_not_registered(
    pytester: pytest.Pytester,
) -> None:
    write(pytester, "pytest.ini", "[pytest]\nmarkers =\n    slow: slow tests\n")
    write(pytester, "test_m.py", MARKED)
    assert run(pytester) == {"test_registered", "test_marked_while_running", "test_quiet"}
    write(
        pytester,
        "pytest.ini",
        "[pytest]\naddopts = --strict-markers\nmarkers =\n    slow: slow tests\n",
    )
    ran, failed = ran_and_failed(pytester)
    assert failed == {"test_marked_while_running"}
    assert ran == failed


def test_a_mark_not_registered_at_import_counts_for_every_test(
    pytester: pytest.Pytester,
) -> None:
    """The mark is spelled as the module is imported: under strict markers the import
    fails, for every test of the module (and of any module importing it), so every test
    recorded after is noted; the collection error itself leaves nothing to run."""
    write(pytester, "pytest.ini", "[pytest]\n")
    # A name of its own: pytest keeps the names registered in one in-process run for the
    # next ones (``MarkGenerator._markers``), and the other test registers ``slow``.
    write(pytester, "test_m.py", MARKED.replace("mark.slow", "mark.nightly"))
    assert run(pytester) == {"test_registered", "test_marked_while_running", "test_quiet"}
    store = DependencyStore(pytester.path, create=False, read_only=True)
    noted = {nodeid.partition("::")[2] for nodeid in store.tests_depending_on(Unit(NAMES, WARNED))}
    assert noted == {"test_registered", "test_marked_while_running", "test_quiet"}
    write(pytester, "pytest.ini", "[pytest]\naddopts = --strict-markers\n")
    result = run_result(pytester, "--reks")
    result.stdout.fnmatch_lines(["*'nightly' not found in `markers` configuration option*"])


LOGGING = """
import logging

import pytest

log = logging.getLogger("project")
own = logging.getLogger("own")
own.setLevel(logging.INFO)  # its own level: the root's does not matter to it


def test_logs(caplog):
    log.info("started")
    assert not caplog.records


def test_logs_again(caplog):  # the logger's cached answer must not hide the read
    log.info("started")
    assert not caplog.records


def test_reads_the_level():
    assert logging.getLogger().getEffectiveLevel() == logging.WARNING


def test_own_level(caplog):
    own.info("started")
    assert len(caplog.records) == 1


def test_quiet():
    assert True
"""


def test_log_cli_level_reruns_the_tests_that_read_the_root_level(
    pytester: pytest.Pytester,
) -> None:
    write(pytester, "pytest.ini", "[pytest]\n")
    write(pytester, "test_l.py", LOGGING)
    assert len(run(pytester)) == 5
    write(pytester, "pytest.ini", "[pytest]\nlog_cli_level = info\n")
    ran, failed = ran_and_failed(pytester)
    assert failed == {"test_logs", "test_logs_again", "test_reads_the_level"}
    assert ran == failed
