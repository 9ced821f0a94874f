"""``obj.__dict__.update(state)`` writes names and reads none (``rts.namespace_updates``):
the code's other lookups by string stay recorded as they run. toolz's ``_restore_curry``
fills a new object's namespace so, next to ``import_module(modname)`` and
``getattr(obj, attr)``: read conservatively, it could have fetched any module, so every
test unpickling a curried function read the session listing and reran on any change
anywhere (six tests on every commit). Real pytest sessions."""

from __future__ import annotations

import pytest

from .helpers import edit, ran_and_failed, run, write

pytest_plugins = ["pytester"]

_RESTORE = """
from importlib import import_module


class Box:
    pass


def restore(spec, state):
    modname, attr = spec.split(":")
    value = getattr(import_module(modname), attr)
    box = Box()
    box.__dict__.update(state)
    return value, box


def restore_copying(spec, state):
    modname, attr = spec.split(":")
    value = getattr(import_module(modname), attr)
    box = Box()
    box.__dict__.update(state)
    return value, box, sorted(box.__dict__)
"""

# ``pkg.values`` is imported by another test file only: fetched by name, no import runs.
_TESTS = """
from pkg.restore import restore, restore_copying


def test_restore():
    value, box = restore("pkg.values:ANSWER", {"size": 3})
    assert (value, box.size) == (42, 3)


def test_restore_copying():
    value, box, names = restore_copying("pkg.values:ANSWER", {"size": 3})
    assert (value, box.size, names) == (42, 3, ["size"])
"""


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(pytester, "pkg/__init__.py", "")
    write(pytester, "pkg/restore.py", _RESTORE)
    write(pytester, "pkg/values.py", "ANSWER = 42\n")
    write(pytester, "pkg/other.py", "LIMIT = 1\n")
    write(
        pytester,
        "test_a_values.py",
        "from pkg import values\n\n\ndef test_values():\n    assert values.ANSWER\n",
    )
    write(
        pytester,
        "test_other.py",
        "from pkg.other import LIMIT\n\n\ndef test_other():\n    assert LIMIT == 1\n",
    )
    write(pytester, "test_restore.py", _TESTS)
    assert run(pytester, "-p", "no:randomly") == {
        "test_values",
        "test_other",
        "test_restore",
        "test_restore_copying",
    }
    return pytester


def test_a_namespace_updated_reads_no_name_nor_every_module(project: pytest.Pytester) -> None:
    edit(project, "pkg/other.py", "LIMIT = 1\n", "LIMIT = 1\nSPARE = 2\n")
    ran, failed = ran_and_failed(project, "-p", "no:randomly")
    # Guard: ``sorted(box.__dict__)`` hands the namespace on, read whole: the code stays
    # conservative and may have fetched any module (the session listing).
    assert ran == {"test_restore_copying"}
    assert failed == set()


def test_the_module_fetched_next_to_an_update_is_a_dependency(project: pytest.Pytester) -> None:
    # Guard: the fetch is told as it runs; the module it found (imported by another test
    # file, no import ran in the test) is a dependency.
    edit(project, "pkg/values.py", "ANSWER = 42", "ANSWER = 41")
    ran, failed = ran_and_failed(project, "-p", "no:randomly")
    assert ran == {"test_values", "test_restore", "test_restore_copying"}
    assert failed == {"test_restore", "test_restore_copying"}
