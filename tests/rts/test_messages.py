"""What reks says at the end of a session: why every test runs when the environment
changed."""

from __future__ import annotations

import pytest

from lsp_server.rts import fingerprint

from .helpers import write

pytest_plugins = ["pytester"]


def test_an_environment_change_says_what_changed(pytester: pytest.Pytester) -> None:
    write(pytester, "test_a.py", "def test_a():\n    assert True\n")
    pytester.runpytest_inprocess("--reks").assert_outcomes(passed=1)
    result = pytester.runpytest_inprocess("--reks", "-p", "no:warnings")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(
        ["reks: the environment changed (option plugins: [] -> ['no:warnings']): every test runs"]
    )
    again = pytester.runpytest_inprocess("--reks", "-p", "no:warnings")
    assert "environment changed" not in again.stdout.str()


def test_only_what_pytest_reads_from_pyproject_is_environment(pytester: pytest.Pytester) -> None:
    """Sections no test run reads (``[tool.ruff]``, project metadata) change nothing; an ini
    option that can change outcomes without a rule of its own (``log_level``: any test's
    ``caplog`` may see other records) reruns every test, and the message names it."""
    pyproject = '[project]\nname = "demo"\nversion = "1.0"\n\n[tool.ruff]\nline-length = 88\n'
    write(pytester, "pyproject.toml", pyproject)
    write(pytester, "test_a.py", "def test_a():\n    assert True\n")
    pytester.runpytest_inprocess("--reks").assert_outcomes(passed=1)
    edited = pyproject.replace("88", "100").replace('"1.0"', '"1.1"')
    write(pytester, "pyproject.toml", edited)
    pytester.runpytest_inprocess("--reks").assert_outcomes()
    ini = '\n[tool.pytest.ini_options]\nlog_level = "INFO"\n'
    write(pytester, "pyproject.toml", edited + ini)
    result = pytester.runpytest_inprocess("--reks")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["reks: the environment changed (option ini.log_level: *"])


def test_tests_no_longer_collected_do_not_make_every_test_run(pytester: pytest.Pytester) -> None:
    """toolz af7f85a set ``testpaths``: the benchmark tests, recorded before its options, were
    never collected again, and every later session said the environment changed and every
    test runs while one test ran."""
    write(pytester, "test_a.py", "def test_a():\n    assert True\n")
    write(pytester, "test_b.py", "def test_b():\n    assert True\n")
    pytester.runpytest_inprocess("--reks").assert_outcomes(passed=2)
    changed = pytester.runpytest_inprocess("--reks", "-p", "no:warnings", "test_a.py")
    changed.assert_outcomes(passed=1)
    changed.stdout.fnmatch_lines(["reks: the environment changed (*): every test runs"])
    again = pytester.runpytest_inprocess("--reks", "-p", "no:warnings", "test_a.py")
    again.assert_outcomes()
    assert "environment changed" not in again.stdout.str()
    write(pytester, "test_a.py", "def test_a():\n    assert True\n\n\ndef test_c():\n    pass\n")
    both = pytester.runpytest_inprocess("--reks", "-p", "no:warnings", "test_a.py", "test_b.py")
    both.assert_outcomes(passed=2)
    both.stdout.fnmatch_lines(["reks: the environment changed (*): 1 test recorded before it runs"])


def test_a_store_recorded_by_other_recording_code_reruns_every_test(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Newer recording code records units older code did not (a listing of the session's
    state, where a file first imports a module): a store another version of reks's rules
    filled lacks them, so it is no evidence that a test is unaffected. Every test runs once,
    and the message says why."""
    write(pytester, "test_a.py", "def test_a():\n    assert True\n")
    with monkeypatch.context() as patched:  # pytester's own changes stay
        patched.setattr(fingerprint, "analysis_code_digest", lambda: "other rules")
        pytester.runpytest_inprocess("--reks").assert_outcomes(passed=1)
    result = pytester.runpytest_inprocess("--reks")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(
        ["reks: the environment changed (reks's recording code changed): every test runs"]
    )
    again = pytester.runpytest_inprocess("--reks")
    again.assert_outcomes()
    assert "environment changed" not in again.stdout.str()
