"""A module fetched by its name when it is imported already (``importlib.import_module``,
``__import__`` with a fromlist, ``sys.modules[...]``, ``pytest.importorskip``): no import
runs, so nothing records the module's file as read, yet the test reads the names of the
module object it got. The test depends on the names it reads of it (found by sel28c: a
test reading ``import_module('pkg.old').PATTERN`` was not selected when ``PATTERN``
changed, and failed). Real pytest sessions."""

from __future__ import annotations

import sys

import pytest

from .helpers import edit, ran_and_failed, run, write

pytest_plugins = ["pytester"]

_OLD = """
import re

PATTERN = 'a+'


def old_check(value):
    return bool(re.fullmatch(PATTERN, value))
"""

_FETCHES = {
    "test_import_module": "importlib.import_module('pkg.old').PATTERN",
    "test_dunder_import": "__import__('pkg.old', fromlist=['x']).PATTERN",
    "test_sys_modules": "sys.modules['pkg.old'].PATTERN",
    "test_importorskip": "pytest.importorskip('pkg.old').PATTERN",
    # Guard: the rewritten assert's local holding ``import_module`` is handed to ``map``,
    # not called: any module (``rts.assert_callees``).
    "test_mapped": "list(map(importlib.import_module, ['pkg.old']))[0].PATTERN",
}


_OLD_TEST = """
from pkg import old_check, other


def test_old():
    assert old_check('aa') and other.LIMIT
"""

# Outside an assert the call site tells the name as it runs (``rts.runtime_lookups``; before
# 3.12 only a callee spelled by its global name).
_TOLD = """
from importlib import import_module


def test_told():
    module = import_module("pkg.old")
    pattern = module.PATTERN
    assert pattern == "a+"
"""


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(pytester, "pkg/__init__.py", "from .old import old_check\n")
    write(pytester, "pkg/old.py", _OLD)
    write(pytester, "pkg/other.py", "LIMIT = 1\n")
    write(pytester, "test_old.py", _OLD_TEST)
    tests = "".join(
        f"\n\ndef {name}():\n    assert {fetch} == 'a+'\n" for name, fetch in _FETCHES.items()
    )
    write(pytester, "test_other.py", "import importlib\nimport sys\n\nimport pytest\n" + tests)
    write(pytester, "test_told.py", _TOLD)
    assert run(pytester, "-p", "no:randomly") == {"test_old", "test_told", *_FETCHES}
    return pytester


def test_a_module_fetched_by_name_when_imported_already_is_a_dependency(
    project: pytest.Pytester,
) -> None:
    edit(project, "pkg/old.py", "PATTERN = 'a+'", "PATTERN = 'b+'")
    ran, failed = ran_and_failed(project, "-p", "no:randomly")
    assert failed == {"test_old", "test_told", *_FETCHES}
    assert ran == {"test_old", "test_told", *_FETCHES}


def test_a_module_fetched_by_a_told_name_is_the_only_module_fetched(
    project: pytest.Pytester,
) -> None:
    edit(project, "pkg/other.py", "LIMIT = 1", "LIMIT = 2")
    # ``sys.modules['pkg.old']`` names its module (``rts.named_reads``), so does a call
    # of ``import_module`` in a rewritten assert on 3.12 (``rts.assert_callees``); a
    # keyword argument of ``__import__`` and ``importorskip`` may fetch any module.
    told = {"test_sys_modules", "test_import_module" if sys.version_info >= (3, 12) else ""}
    assert run(project, "-p", "no:randomly") == {"test_old", *set(_FETCHES) - told}
