"""Values computed at import from what the interpreter and platform are
(``rts.stdlib_queries``): ``IS_PYPY = platform.python_implementation() == "PyPy"`` is a
binding its readers alone see, not an import side effect every importer depends on, on
real pytest sessions. funcy f9e341726e added that line to ``funcy/_inspect.py``: reks
selected 202 tests, testmon 12."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(
        pytester,
        "util.py",
        """
        import platform
        import sys

        WINDOWS = sys.platform.startswith("win")


        def helper():
            return 1


        def windows():
            return WINDOWS
        """,
    )
    write(
        pytester,
        "test_util.py",
        """
        def test_helper():
            import util

            assert util.helper() == 1


        def test_windows():
            import util

            assert util.windows() in (True, False)
        """,
    )
    assert run(pytester) == {"test_helper", "test_windows"}
    return pytester


@pytest.mark.parametrize(
    "query",
    [
        'platform.python_implementation() == "PyPy"',
        "sys.version_info >= (3, 8) and not sys.flags.optimize",
        'sys.platform.lower().startswith(("linux", "darwin"))',
        'hasattr(sys, "pypy_version_info")',
        "platform.system() in ('Windows', 'Java')",
    ],
)
def test_a_new_query_of_the_platform_selects_nothing(project: pytest.Pytester, query: str) -> None:
    edit(project, "util.py", "def helper", f"IS_X = {query}\n\n\ndef helper")
    assert run(project) == set()


def test_a_changed_query_selects_its_readers(project: pytest.Pytester) -> None:
    edit(project, "util.py", 'startswith("win")', 'startswith("cygwin")')
    assert run(project) == {"test_windows"}


@pytest.mark.parametrize(
    "effect",
    [
        'sys.path.append("x")',  # a method of a mutable value: it changes it
        "helper()",  # project code
        'platform.python_implementation(1) == "PyPy"',  # raises: every import fails
        "sys.setrecursionlimit(5000)",  # changes the interpreter
        "sys.platform.startswith(NAME)",  # a name of the module: not known here
    ],
)
def test_a_call_with_effects_or_that_may_raise_selects_every_importer(
    project: pytest.Pytester, effect: str
) -> None:
    edit(project, "util.py", "\n\ndef windows", f"\nNAME = 'x'\nIS_X = {effect}\n\n\ndef windows")
    assert run(project) == {"test_helper", "test_windows"}
