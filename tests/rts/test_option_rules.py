"""A changed pytest option reruns only the tests it can affect (``rts.option_rules``), on
real pytest sessions: ``xfail_strict`` the tests that had an ``xfail`` mark, reporting
options none, any option without a rule every test, named in the message."""

from __future__ import annotations

import pytest

from .helpers import ERROR_FILTERS_INI, ran_and_failed, run, run_result, write

pytest_plugins = ["pytester"]

TESTS = """
import pytest


@pytest.mark.xfail(reason="fixed since")
def test_marked():
    assert True


def test_marked_while_running(request):
    request.applymarker(pytest.mark.xfail(reason="found out while running"))
    assert False


def test_plain():
    assert True


def test_reads_ini(request):  # code reading ini values sees any option change
    assert isinstance(request.config.getini("markers"), list)
"""


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(pytester, "pytest.ini", "[pytest]\n")
    write(pytester, "test_a.py", TESTS)
    assert run(pytester) == {
        "test_marked",
        "test_marked_while_running",
        "test_plain",
        "test_reads_ini",
    }
    return pytester


def test_xfail_strict_reruns_the_tests_with_an_xfail_mark(project: pytest.Pytester) -> None:
    write(project, "pytest.ini", "[pytest]\nxfail_strict = true\n")
    result = run_result(project, "--reks-dry-run")
    result.stdout.fnmatch_lines(["*::test_marked  (ini.*xfail* changed: the test has an xfail*"])
    result = run_result(project, "--reks")
    result.assert_outcomes(passed=1, failed=1, xfailed=1)  # strict: the XPASS fails
    assert run(project) == {"test_marked"}  # it failed


def test_reporting_options_rerun_nothing(project: pytest.Pytester) -> None:
    write(project, "pytest.ini", "[pytest]\njunit_family = xunit1\ntruncation_limit_lines = 3\n")
    result = run_result(project, "--reks")
    assert "environment changed" not in result.stdout.str()
    result.assert_outcomes(passed=1)  # test_reads_ini
    assert run(project) == set()


def test_an_option_without_a_rule_reruns_everything_and_is_named(
    project: pytest.Pytester,
) -> None:
    write(project, "pytest.ini", "[pytest]\nxfail_strict = true\nlog_level = INFO\n")
    result = run_result(project, "--reks")
    result.stdout.fnmatch_lines(
        ["reks: the environment changed (option ini.log_level: None -> 'INFO'): every test runs"]
    )
    result.assert_outcomes(passed=2, failed=1, xfailed=1)


WARNING_TESTS = """
import warnings


def test_warns():
    warnings.warn("going away", DeprecationWarning)


def test_quiet():
    assert True
"""


def test_filterwarnings_error_reruns_only_the_tests_that_warned(
    pytester: pytest.Pytester,
) -> None:
    write(pytester, "pytest.ini", "[pytest]\n")
    write(pytester, "test_w.py", WARNING_TESTS)
    assert run(pytester) == {"test_warns", "test_quiet"}
    write(pytester, "pytest.ini", ERROR_FILTERS_INI)
    ran, failed = ran_and_failed(pytester)
    assert failed == {"test_warns"}  # the guard: the test that warned runs, and fails
    assert ran == {"test_warns"}
