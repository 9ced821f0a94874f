"""``sys.modules["__main__"]`` is the script pytest runs under, never a module of the
project's imported by its name: reading it (click's ``utils._detect_program_name``) fills
no namespace of the module that reads it, whose global reads stay its own. Before, the
spelling opened the module, and binding ``os`` in another module selected every test that
ran its code reading ``os`` (click e1fd5946). ``sys.modules`` by another key, which may be
the module itself, still opens it. Real pytest sessions."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]

_PROGRAM = """
import os
import sys


def program():
    main = sys.modules["__main__"]
    return getattr(main, "__package__", None), os.sep
"""

_TESTS = """
import program
import shells


def test_program():
    assert program.program()[1] == "/"
    assert shells.count() == 1
"""


def _selected_after_binding_os_elsewhere(pytester: pytest.Pytester, module: str) -> set[str]:
    write(pytester, "program.py", module)
    write(pytester, "shells.py", "def count():\n    return 1\n")
    write(pytester, "test_program.py", _TESTS)
    assert run(pytester) == {"test_program"}
    assert run(pytester) == set()  # it passed
    edit(pytester, "shells.py", "def count", "import os\n\n\ndef count")
    return run(pytester)


def test_reading_the_main_module_keeps_the_namespace_closed(pytester: pytest.Pytester) -> None:
    assert _selected_after_binding_os_elsewhere(pytester, _PROGRAM) == set()


def test_another_key_opens_the_namespace(pytester: pytest.Pytester) -> None:
    module = _PROGRAM.replace('sys.modules["__main__"]', "sys.modules[__name__]")
    assert _selected_after_binding_os_elsewhere(pytester, module) == {"test_program"}
