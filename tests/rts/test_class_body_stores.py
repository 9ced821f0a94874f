"""A class-body statement that only stores a name (``__slots__ = (...)``, ``info = msg``)
reads nothing by that name: it binds it in its own class. Counted as a read of the name
anywhere, every class a test used led to the same-named attribute of every other class
of its modules, and from there to those classes (structlog 3763c623: one logger's new
``__slots__`` entry reran all 901 tests, testmon 312). A statement that also reads the
name (``x += 1``, ``x = x + 1``) still reads it. Real pytest sessions."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]

_LOGGERS = """
class PrintLogger:
    __slots__ = ("file",)

    def __init__(self):
        self.file = "print"

    def msg(self, message):
        return message

    info = debug = msg


class BytesLogger:
    __slots__ = ("file",)

    def __init__(self):
        self.file = "bytes"

    def msg(self, message):
        return message.encode()

    info = debug = msg
"""

_TESTS = """
import loggers


def test_print():
    assert loggers.PrintLogger().file == "print"


def test_bytes():
    assert loggers.BytesLogger().file == "bytes"
"""


def _project(pytester: pytest.Pytester, module: str = _LOGGERS) -> None:
    write(pytester, "loggers.py", module)
    write(pytester, "test_loggers.py", _TESTS)
    assert run(pytester) == {"test_print", "test_bytes"}


def test_a_new_slot_selects_only_the_users_of_its_class(pytester: pytest.Pytester) -> None:
    _project(pytester)
    edit(
        pytester,
        "loggers.py",
        '"file",)\n\n    def __init__(self):\n        self.file = "bytes"',
        '"file", "name")\n\n    def __init__(self):\n        self.file = "bytes"',
    )
    assert run(pytester) == {"test_bytes"}


def test_a_removed_alias_selects_no_test_reading_neither_it_nor_its_class(
    pytester: pytest.Pytester,
) -> None:
    # Neither test reads ``debug``; test_print used a class whose body also stores it.
    _project(pytester)
    edit(pytester, "loggers.py", "encode()\n\n    info = debug = msg", "encode()\n\n    info = msg")
    assert run(pytester) == set()


def test_a_statement_reading_the_name_it_stores_still_reads_it(
    pytester: pytest.Pytester,
) -> None:
    # ``LEVEL = LEVEL + 1`` in PrintLogger reads BytesLogger's LEVEL? No: its own module's
    # global LEVEL, which the class body shadows after; a changed global selects its users.
    module = "LEVEL = 1\n" + _LOGGERS.replace(
        '__slots__ = ("file",)\n\n    def __init__(self):\n        self.file = "print"',
        '__slots__ = ("file",)\n    LEVEL = LEVEL + 1\n\n    def __init__(self):\n'
        '        self.file = "print" * self.LEVEL',
    )
    _project(pytester, module)
    edit(pytester, "loggers.py", "LEVEL = 1\n", "LEVEL = 0\n")
    assert run(pytester) == {"test_print"}
