"""``globals()[name]`` looks a name up among its own module's globals only: a function
whose only lookup by string is that reads its module whole, not every module a test
depends on. click's ``parser.__getattr__`` (``globals()[f"_{name}"]`` for deprecated
names) runs at import, and every test depended on every binding of every click module
(7df2f823: a new ``_available_shells`` entry reran all 1,927 tests, testmon 63). Any
other lookup by string beside it keeps the old reading. Real pytest sessions."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]

_OLD = """
def _Parser():
    return "parser"


def __getattr__(name):
    if name == "Parser":
        return globals()[f"_{name}"]
    raise AttributeError(name)
"""

_SHELLS = """
SHELLS = {"bash": 1}


def count():
    return 1
"""

_TESTS = """
import old
import shells


def test_old():
    assert old.Parser() == "parser"
    assert shells.count() == 1
"""


def _project(pytester: pytest.Pytester, old_module: str = _OLD) -> None:
    write(pytester, "old.py", old_module)
    write(pytester, "shells.py", _SHELLS)
    write(pytester, "test_old.py", _TESTS)
    assert run(pytester) == {"test_old"}


def test_a_lookup_among_its_own_globals_reads_only_its_module(
    pytester: pytest.Pytester,
) -> None:
    _project(pytester)
    edit(pytester, "shells.py", '{"bash": 1}', '{"bash": 1, "pwsh": 2}')
    assert run(pytester) == set()
    edit(pytester, "old.py", 'return "parser"', 'return "parser!"')
    assert run(pytester) == {"test_old"}


def test_its_module_is_still_read_whole(pytester: pytest.Pytester) -> None:
    _project(pytester, _OLD + "\n\nLIMIT = 1\n")
    edit(pytester, "old.py", "LIMIT = 1", "LIMIT = 2")
    assert run(pytester) == {"test_old"}


def test_another_lookup_beside_it_reads_any_name(pytester: pytest.Pytester) -> None:
    _project(pytester, _OLD.replace("raise AttributeError(name)", "return getattr(None, name)"))
    edit(pytester, "shells.py", '{"bash": 1}', '{"bash": 1, "pwsh": 2}')
    assert run(pytester) == {"test_old"}
