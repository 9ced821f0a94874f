"""A new attribute of a class can change a lookup only on that class, its subclasses or
their instances, and a test that had none of them never depended on the class: the
receiver must be reached for the new member to matter. A test reading the name on another
class's object is not selected (structlog 0eef50d9: a new ``BoundLogger.get_effective_level``
reran 659 tests that read ``get_effective_level`` on other loggers). A test that reached
the class by a subclass, or by running one of its methods, still is. Real pytest sessions."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]

_LOGGERS = """
class PrintLogger:
    def info(self, message):
        return message


class BytesLogger:
    def msg(self, message):
        return message.encode()
"""

_TESTS = """
import loggers


class Quiet(loggers.BytesLogger):
    pass


def test_print():
    assert loggers.PrintLogger().info("a") == "a"


def test_bytes():
    assert getattr(loggers.BytesLogger(), "info", None) is None


def test_subclass():
    assert not hasattr(Quiet(), "info")


def make():
    return loggers.BytesLogger()
"""


def test_a_new_member_selects_only_tests_that_reached_its_class(
    pytester: pytest.Pytester,
) -> None:
    write(pytester, "loggers.py", _LOGGERS)
    write(pytester, "test_loggers.py", _TESTS)
    assert run(pytester) == {"test_print", "test_bytes", "test_subclass"}
    edit(
        pytester,
        "loggers.py",
        "return message.encode()",
        "return message.encode()\n\n    info = msg",
    )
    assert run(pytester) == {"test_bytes", "test_subclass"}
