"""An annotation given to a top-level assignment that may raise, in a module whose
annotations are lazy (``from __future__ import annotations``): it is kept as a string and
never evaluated, so it cannot make the import fail, and only the readers of the binding
see it. Without lazy annotations it is evaluated at import. Real pytest sessions on
temporary projects.

typeguard 3b3c1f8 annotated ``origin_type_checkers: dict[Any, Callable[..., None]] = {...}``
(a table whose keys read other modules' attributes): its ``<raises>`` unit held the
annotation, and every test importing typeguard reran (500 of 500; testmon 369)."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]

CHECKS = """
def check_int(value):
    return isinstance(value, int)


def check_str(value):
    return isinstance(value, str)
"""

LIB = """
from __future__ import annotations

import checks
from memo import Memo

TABLE = {int: checks.check_int, str: checks.check_str}


def lookup(kind):
    return TABLE[kind]


def other():
    return Memo
"""

TESTS = """
import lib


def test_lookup():
    assert lib.lookup(int)(1)


def test_other():
    assert lib.other()
"""

TABLE = "TABLE = {"


def project(pytester: pytest.Pytester, lazy: bool, table: str = TABLE) -> pytest.Pytester:
    write(pytester, "checks.py", CHECKS)
    write(pytester, "memo.py", "class Memo:\n    pass\n")
    lib = LIB if lazy else LIB.replace("from __future__ import annotations\n\n", "")
    write(pytester, "lib.py", lib.replace(TABLE, table))
    write(pytester, "test_lib.py", TESTS)
    assert run(pytester) == {"test_lookup", "test_other"}
    return pytester


def test_a_lazy_annotation_given_to_a_raising_assignment_selects_its_readers(
    pytester: pytest.Pytester,
) -> None:
    # Precision: ``Memo[int]`` would raise if evaluated; it never is.
    project(pytester, lazy=True)
    edit(pytester, "lib.py", TABLE, "TABLE: Memo[int] = {")
    assert run(pytester) == {"test_lookup"}


def test_an_evaluated_annotation_given_to_an_assignment_selects_every_importer(
    pytester: pytest.Pytester,
) -> None:
    # Guard: without lazy annotations ``Memo[int]`` raises at import.
    project(pytester, lazy=False)
    edit(pytester, "lib.py", TABLE, "TABLE: Memo[int] = {")
    failed = pytester.inline_run("--reks").getfailedcollections()
    assert [r.nodeid for r in failed] == ["test_lib.py"]


def test_a_raising_value_beside_a_lazy_annotation_selects_every_importer(
    pytester: pytest.Pytester,
) -> None:
    # Guard: the value of the annotated assignment still runs at import.
    project(pytester, lazy=True, table="TABLE: Memo[int] = {")
    edit(pytester, "lib.py", "checks.check_str}", "checks.check_bytes}")
    failed = pytester.inline_run("--reks").getfailedcollections()
    assert [r.nodeid for r in failed] == ["test_lib.py"]
