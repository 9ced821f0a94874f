"""Test kinds (parametrized, unittest, doctest), xdist workers, a killed run, the CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from lsp_server.rts.store import DependencyStore

from .helpers import edit, run, write

pytest_plugins = ["pytester"]


@pytest.fixture
def kinds(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    write(
        pytester,
        "calc.py",
        '''
        def add(a, b):
            """Add two numbers.

            >>> add(1, 2)
            3
            """
            return a + b


        def neg(a):
            return -a


        def base():
            return 10
        ''',
    )
    write(
        pytester,
        "test_kinds.py",
        """
        import unittest

        import pytest

        import calc


        @pytest.mark.parametrize("a, b, c", [(1, 2, 3), (2, 2, 4)])
        def test_add(a, b, c):
            assert calc.add(a, b) == c


        def test_neg():
            assert calc.neg(1) == -1


        class TestBase(unittest.TestCase):
            @classmethod
            def setUpClass(cls):
                cls.base = calc.base()

            def test_a(self):
                self.assertEqual(self.base, 10)

            def test_b(self):
                self.assertTrue(self.base)
        """,
    )
    return pytester


KINDS = {"test_add[1-2-3]", "test_add[2-2-4]", "test_neg", "TestBase::test_a", "TestBase::test_b"}


def test_parametrized_unittest_and_doctest(kinds: pytest.Pytester) -> None:
    assert run(kinds, "--doctest-modules") == {*KINDS, "calc.add"}
    edit(kinds, "calc.py", "return 10", "return 5 + 5")
    assert run(kinds, "--doctest-modules") == {"TestBase::test_a", "TestBase::test_b"}
    edit(kinds, "calc.py", ">>> add(1, 2)\n    3", ">>> add(2, 2)\n    4")
    # The docstring is add's docstring unit: the doctest runs, add's callers never read it.
    assert run(kinds, "--doctest-modules") == {"calc.add"}
    edit(kinds, "calc.py", "return -a", "return 0 - a")
    assert run(kinds, "--doctest-modules") == {"test_neg"}


def test_xdist_workers_record_and_controller_selects(kinds: pytest.Pytester) -> None:
    result = kinds.runpytest("--reks", "-n", "2", "-v")
    result.assert_outcomes(passed=5)
    edit(kinds, "calc.py", "return -a", "return 0 - a")
    result = kinds.runpytest("--reks", "-n", "2", "-v")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*PASSED test_kinds.py::test_neg*", "*reks: 1 selected, 4*"])
    # What the workers wrote is what a plain session reads.
    assert run(kinds, every_plugin=True) == set()
    with DependencyStore(kinds.path) as store:
        assert store.check_integrity() == "ok"
        assert len(store.test_records()) == 5


def test_killed_run_then_correct_next_run(pytester: pytest.Pytester) -> None:
    write(
        pytester,
        "lib.py",
        """
        def f():
            return 1
        """,
    )
    write(
        pytester,
        "test_kill.py",
        """
        import os
        import signal
        import time

        import lib


        def test_1():
            # Results are written in batches of up to one second; make sure test_1's
            # batch is committed before test_2 kills the process.
            time.sleep(1.1)
            assert lib.f() == 1


        def test_2():
            if os.environ.get("REKS_KILL"):
                os.kill(os.getpid(), signal.SIGKILL)
            assert lib.f() == 1


        def test_3():
            assert lib.f() == 1
        """,
    )
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}

    def session(*extra_env: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "pytest", "--reks", "-v", "-p", "no:cacheprovider"],
            cwd=pytester.path,
            env={**env, **dict.fromkeys(extra_env, "1")},
            capture_output=True,
            text=True,
            timeout=120,
        )

    assert session().returncode == 0
    edit(pytester, "lib.py", "return 1", "return 2 - 1")
    killed = session("REKS_KILL")
    assert killed.returncode == -9
    assert "test_kill.py::test_1 PASSED" in killed.stdout
    after = session()
    assert after.returncode == 0, after.stdout
    ran = {line.split()[0] for line in after.stdout.splitlines() if " PASSED" in line}
    # test_1 was recorded before the kill; test_2 and test_3 never ran against the edit.
    assert ran == {"test_kill.py::test_2", "test_kill.py::test_3"}
    with DependencyStore(pytester.path) as store:
        assert store.check_integrity() == "ok"


def test_subprocess_children_are_not_traced(pytester: pytest.Pytester) -> None:
    """Documented limit: code run and files read by a child process are not recorded; only
    what the test's own process runs and opens counts."""
    write(pytester, "child.py", "print('child')\n")
    write(
        pytester,
        "test_spawn.py",
        """
        import subprocess
        import sys


        def test_spawn():
            out = subprocess.run([sys.executable, "child.py"], capture_output=True, text=True)
            assert out.stdout == "child\\n"
        """,
    )
    assert run(pytester) == {"test_spawn"}
    edit(pytester, "child.py", "'child'", "'kid'")
    assert run(pytester) == set()


def test_cli_affected_and_store_info(kinds: pytest.Pytester) -> None:
    run(kinds)
    edit(kinds, "calc.py", "return -a", "return 0 - a")

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [
                sys.executable,
                "-c",
                "import sys; from lsp_server.cli import main; sys.exit(main())",
                *args,
            ],
            cwd=kinds.path,
            capture_output=True,
            text=True,
            timeout=60,
        )

    out = cli("affected")
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "test_kinds.py::test_neg  (calc.py::neg changed)"
    out = cli("affected", "--json")
    data = json.loads(out.stdout)
    assert [s["nodeid"] for s in data["selected"]] == ["test_kinds.py::test_neg"]
    # The edit adds tokens: the file's layout and the place of ``neg`` (``rts.layout_unit``)
    # changed too, with and without comments' text (a column moved).
    layouts = {
        f"calc.py::{name}": "changed"
        for name in ("<layout>", "neg.<lines>", "<places>", "neg.<places>")
    }
    # And the file's bytes, what a test reading it by name sees (``rts.source_file_reads``).
    assert data["changed_units"] == {"calc.py::neg": "changed", "calc.py": "changed", **layouts}
    out = cli("store", "--info")
    assert out.returncode == 0
    assert "tests:        5" in out.stdout
    out = cli("store", "--rebuild")
    assert out.returncode == 0
    out = cli("affected")
    assert "0 affected, 0 unaffected" in out.stderr
