"""A class or module body that annotates its names stores each annotation into its own
``__annotations__`` (``LOAD_NAME __annotations__`` then ``STORE_SUBSCR``): it reads no
class's attributes. Such a body running at import (structlog's ``@dataclass class Stack``,
imported by every test) made every test depend on every class of its modules, so a new
``__slots__`` entry of one class reran the whole suite. A body that really reads its
annotations still counts as a reader of any attribute. Real pytest sessions."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]

_LOGGERS = """
from dataclasses import dataclass, field


@dataclass
class Config:
    name: str = "x"
    names: list[str] = field(default_factory=list)


class Logger:
    __slots__ = ("file",)

    def __init__(self):
        self.file = "out"


def version():
    return 1
"""


def _project(pytester: pytest.Pytester, logger_module: str) -> None:
    write(pytester, "loggers.py", logger_module)
    write(
        pytester,
        "test_loggers.py",
        """
        import loggers


        def test_version():
            assert loggers.version() == 1


        def test_logger():
            assert loggers.Logger().file == "out"
        """,
    )
    assert run(pytester) == {"test_version", "test_logger"}


def test_a_changed_class_selects_only_its_users_beside_an_annotated_class(
    pytester: pytest.Pytester,
) -> None:
    _project(pytester, _LOGGERS)
    edit(pytester, "loggers.py", '__slots__ = ("file",)', '__slots__ = ("file", "name")')
    assert run(pytester) == {"test_logger"}


def test_a_module_body_storing_annotations_reads_no_class(pytester: pytest.Pytester) -> None:
    module = _LOGGERS.replace("@dataclass\n", "").replace(" = field(default_factory=list)", "")
    _project(pytester, module + "\n\nLEVELS: list[int] = list(range(3))\n")
    edit(pytester, "loggers.py", '__slots__ = ("file",)', '__slots__ = ("file", "name")')
    assert run(pytester) == {"test_logger"}


def test_a_class_body_reading_its_annotations_still_reads_any_attribute(
    pytester: pytest.Pytester,
) -> None:
    reading = _LOGGERS.replace("@dataclass\n", "").replace(
        "default_factory=list)\n", "default_factory=list)\n    KEYS = list(__annotations__)\n"
    )
    _project(pytester, reading)
    edit(pytester, "loggers.py", '__slots__ = ("file",)', '__slots__ = ("file", "name")')
    assert run(pytester) == {"test_version", "test_logger"}
