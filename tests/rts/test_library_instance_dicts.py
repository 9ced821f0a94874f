"""The ``__dict__`` of an instance whose class, and every class of its MRO, is defined
outside the project holds no name of the project: keying or listing it (structlog's
``ProcessorFormatter.format``: ``logging.makeLogRecord(record.__dict__)`` on a
``logging.LogRecord``) reads none, where the owner is told as the line runs (3.12+: a plain
local, rebound nowhere on the line before the load). An instance of a project class (a
library class subclassed in the project), a module, a class, or a library object whose
attributes project code sets at import still reads as before. Real pytest sessions."""

from __future__ import annotations

import sys

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]

LINES_SEEN = sys.version_info >= (3, 12)

_COPIER = """
import logging
import types

LIMIT = 3

config = types.SimpleNamespace(a=1)


class Record(logging.LogRecord):
    pass


def copy(record):
    record = logging.makeLogRecord(record.__dict__)
    return record.msg


def listing(owner):
    return sorted(owner.__dict__)
"""


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(pytester, "copier.py", _COPIER)
    write(pytester, "other.py", "def helper():\n    return 1\n")
    write(
        pytester,
        "test_copier.py",
        """
        import logging

        import copier
        import other


        def _record(kind):
            return kind("n", logging.INFO, "p", 1, "hello", None, None)


        def test_library():
            assert other.helper() == 1
            assert copier.copy(_record(logging.LogRecord)) == "hello"


        def test_subclass():
            assert other.helper() == 1
            assert copier.copy(_record(copier.Record)) == "hello"


        def test_module():
            assert "helper" in copier.listing(other)


        def test_configured():
            assert copier.listing(copier.config) == ["a"]
        """,
    )
    every = {"test_library", "test_subclass", "test_module", "test_configured"}
    assert run(pytester, flag="--reks-all") == every
    return pytester


def test_a_library_instance_dict_reads_no_project_name(project: pytest.Pytester) -> None:
    edit(project, "other.py", "def helper", "def extra():\n    return 2\n\n\ndef helper")
    ran = run(project)
    assert "test_library" not in ran if LINES_SEEN else "test_library" in ran
    # A project class's instance, a module: any name, the new one too.
    assert {"test_subclass", "test_module"} <= ran


def test_an_attribute_set_at_import_on_a_library_instance_selects_its_listers(
    project: pytest.Pytester,
) -> None:
    edit(
        project,
        "copier.py",
        "config = types.SimpleNamespace(a=1)\n",
        "config = types.SimpleNamespace(a=1)\nconfig.b = 2\n",
    )
    assert "test_configured" in run(project)
