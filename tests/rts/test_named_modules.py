"""A module found in ``sys.modules`` by a constant name (``sys.modules.get("json")``,
``sys.modules["json"]``) is that one module, as ``import_module("json")`` would find it: a
library module holds no project name, so the lookup reads none (the attributes the code
then reads are names read, as any attribute's). It made every test that ran such code read
every name of every module it depends on (structlog's process name:
``sys.modules.get("multiprocessing")``). A project module so named is a dependency of the
test, as if imported; a store into ``sys.modules`` still reads any name. Real pytest
sessions."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]

_FINDER = """
import json
import sys


def by_get():
    found = sys.modules.get("json")
    if found is None:
        return "n/a"
    return found.dumps([1])


def by_subscript():
    found = sys.modules["json"]
    return found.dumps([2])


def from_project():
    found = sys.modules.get("settings")
    return "n/a" if found is None else found.LEVEL


def install():
    sys.modules["fake_json"] = json
    return 3
"""


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(pytester, "finder.py", _FINDER)
    write(pytester, "other.py", "def helper():\n    return 1\n")
    write(pytester, "settings.py", "LEVEL = 1\n")
    # Imported by an earlier test file only: the finder reaches it through ``sys.modules``.
    write(pytester, "test_a.py", "import settings\n\n\ndef test_level():\n    assert settings\n")
    write(
        pytester,
        "test_finder.py",
        """
        import finder
        import other


        def test_get():
            assert other.helper() == 1 and finder.by_get() == "[1]"


        def test_subscript():
            assert other.helper() == 1 and finder.by_subscript() == "[2]"


        def test_project():
            assert finder.from_project() == 1


        def test_install():
            assert other.helper() == 1 and finder.install() == 3
        """,
    )
    ran = run(pytester, "-p", "no:randomly")
    assert ran == {"test_level", "test_get", "test_subscript", "test_project", "test_install"}
    return pytester


def test_a_library_module_found_by_a_constant_name_reads_no_project_name(
    project: pytest.Pytester,
) -> None:
    edit(project, "other.py", "def helper", "def extra():\n    return 2\n\n\ndef helper")
    # ``test_install`` stores into ``sys.modules``: any name, the new one too. ``.get`` asks
    # whether the module is there, which another file's imports decide: a listing of the
    # session's state, selected by any change (``rts.module_presence``; ``test_subscript``
    # is not: a subscript finds the module or raises).
    assert run(project, "-p", "no:randomly") == {"test_install", "test_get", "test_project"}


def test_a_project_module_found_by_a_constant_name_is_a_dependency(
    project: pytest.Pytester,
) -> None:
    edit(project, "settings.py", "LEVEL = 1", "LEVEL = 2")
    assert "test_project" in run(project, "-p", "no:randomly")
