"""A conftest.py created where the tests had none selects the tests below it: its
fixtures and hooks apply to them although nothing they ran has changed."""

from __future__ import annotations

import pytest

from .helpers import run, write

pytest_plugins = ["pytester"]


def test_new_conftest_selects_the_tests_below_it(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(pytester, "top/test_top.py", "def test_top():\n    pass\n")
    write(pytester, "top/sub/test_sub.py", "def test_sub():\n    pass\n")
    write(pytester, "other/test_other.py", "def test_other():\n    pass\n")
    assert run(pytester) == {"test_top", "test_sub", "test_other"}
    write(
        pytester,
        "top/conftest.py",
        """
        import pytest


        @pytest.fixture(autouse=True)
        def refuse():
            raise RuntimeError("not here")
        """,
    )
    assert run(pytester) == {"test_top", "test_sub"}  # both error in setup
    (pytester.path / "top/conftest.py").unlink()
    assert run(pytester) == {"test_top", "test_sub"}  # they errored last time
    assert run(pytester) == set()
    write(pytester, "top/conftest.py", "")
    assert run(pytester) == {"test_top", "test_sub"}
    assert run(pytester) == set()
