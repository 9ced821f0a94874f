"""A new attribute of a class can change a lookup only on that class, its subclasses or
their instances, and a test that had none of them never depended on the class: the
receiver must be reached for the new member to matter. A test reading the name on another
class's object is not selected (structlog 0eef50d9: a new ``BoundLogger.get_effective_level``
reran 659 tests that read ``get_effective_level`` on other loggers). A test that reached
the class by a subclass, or by running one of its methods, still is. Real pytest sessions."""

from __future__ import annotations

import os
import subprocess
import sys

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


@pytest.mark.slow  # ~5 s: one selection per hash seed, each in its own interpreter
def test_two_classes_gaining_one_name_select_the_readers_of_either(
    pytester: pytest.Pytester,
) -> None:
    # One save adds ``size`` to both classes: the receiver rule must ask about each. Keyed
    # by the bare name, one of the two units stood for both, chosen by the order of a
    # hashed set: ``Other``'s (never reached) on some seeds, and ``test_size`` was skipped.
    write(pytester, "box.py", _BOXES)
    write(
        pytester,
        "test_box.py",
        "import box\n\n\ndef test_size():\n    assert box.Box().size == 1\n",
    )
    assert run(pytester) == {"test_size"}
    property_text = "    @property\n    def size(self):\n        return 2\n\n"
    edit(pytester, "box.py", "class Other:\n", "class Other:\n" + property_text)
    edit(pytester, "box.py", "class Box:\n", "class Box:\n" + property_text)
    code = "import sys; from lsp_server.cli import main; sys.exit(main(sys.argv[1:]))"
    for seed in range(8):
        listed = subprocess.run(
            [sys.executable, "-c", code, "affected", "--root", str(pytester.path)],
            cwd=pytester.path,
            capture_output=True,
            text=True,
            timeout=120,
            env={**os.environ, "PYTHONHASHSEED": str(seed)},
        )
        assert listed.returncode == 0, listed.stderr
        assert "test_box.py::test_size" in listed.stdout, (seed, listed.stdout)


_BOXES = """
class Other:
    pass


class Box:
    def __init__(self):
        self.size = 1
"""


_PRINTERS = """
class PrintLogger:
    def info(self, message):
        return message


class BytesLogger:
    def msg(self, message):
        return message.encode()
"""

_PRINTER_TESTS = """
import loggers


def test_print():
    assert loggers.PrintLogger().info("a") == "a"


def test_bytes():
    assert loggers.BytesLogger().msg("a") == b"a"
"""


def test_a_test_the_receiver_rule_skipped_is_not_rerun_at_the_next_change(
    pytester: pytest.Pytester,
) -> None:
    # The selective run that skipped ``test_print`` records ``test_bytes`` and so stores the
    # new member: its sync must not undo the receiver rule by marking ``test_print``
    # stale (it reads ``info``, on another class), or an unrelated next change reruns it.
    write(pytester, "loggers.py", _PRINTERS)
    write(pytester, "test_loggers.py", _PRINTER_TESTS)
    assert run(pytester) == {"test_print", "test_bytes"}
    edit(
        pytester,
        "loggers.py",
        "return message.encode()",
        'return message.encode("ascii")\n\n    info = msg',
    )
    assert run(pytester) == {"test_bytes"}
    edit(pytester, "loggers.py", '"ascii"', '"utf-8"')
    assert run(pytester) == {"test_bytes"}
