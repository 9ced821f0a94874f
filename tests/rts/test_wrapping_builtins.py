"""A statement that stays in the module unit and calls what the module does not define
hands what it reads to library code, which may read the signatures, annotations, bodies
and docstrings of those functions and classes untraced (``rts.seen_bodies``). The
decorators ``property``, ``staticmethod``, ``classmethod`` and ``abc.abstractmethod`` only
keep the function they are handed (and copy its docstring, which a test sees only by reading
``__doc__`` itself): tenacity's ``BaseRetrying``, a class in the module unit (a call in a
default value) with ``@property`` and ``@abstractmethod`` methods, read ``retry_base`` in an
annotation, so every test importing tenacity saw the annotations of ``retry_base``'s
dunders; a02b51a changed them and 137 tests ran against testmon's 127. Real pytest sessions.

Guard: the same statement calling a library function that reads annotations
(``typing.get_type_hints``) still selects the test that reads what it returned, which
fails at the child."""

from __future__ import annotations

import pytest

from .helpers import edit, ran_and_failed, write

pytest_plugins = ["pytester"]

LIB = """
import abc
from abc import abstractmethod


def make():
    return 1


class Base:
    def __and__(self, other: "Base") -> "Base":
        return self


class Retrying(abc.ABC):
    def __init__(self, value=make(), kind: Base | None = None):
        self.value = value

    @property
    def doubled(self):
        return self.value * 2

    @staticmethod
    def name():
        return "retrying"

    @classmethod
    def build(cls):
        return cls()

    @abstractmethod
    def run(self):
        pass


class Plain(Retrying):
    def run(self):
        return self.doubled
"""

TESTS = """
import lib


def test_doubled():
    assert lib.Plain.build().run() == 2
    assert lib.Plain.name() == "retrying"


def test_and():
    assert isinstance(lib.Base() & lib.Base(), lib.Base)
"""


def _project(pytester: pytest.Pytester, lib: str, tests: str) -> pytest.Pytester:
    write(pytester, "lib.py", lib)
    write(pytester, "test_lib.py", tests)
    ran, failed = ran_and_failed(pytester)
    assert "test_doubled" in ran
    assert failed == set()
    return pytester


def test_wrapping_decorators_hand_no_annotations_to_library_code(
    pytester: pytest.Pytester,
) -> None:
    project = _project(pytester, LIB, TESTS)
    edit(project, "lib.py", 'other: "Base"', 'other: "Base | None"')
    assert ran_and_failed(project) == ({"test_and"}, set())


HINTS = LIB.replace(
    "    @property\n",
    "    HINTS = typing.get_type_hints(Base.__and__)\n\n    @property\n",
).replace("import abc\n", "import abc\nimport typing\n")

HINT_TEST = """

def test_hints():
    assert lib.Retrying.HINTS["other"] is lib.Base
"""


def test_a_library_call_reading_annotations_in_the_statement_still_hands_them(
    pytester: pytest.Pytester,
) -> None:
    project = _project(pytester, HINTS, TESTS + HINT_TEST)
    edit(project, "lib.py", 'other: "Base"', 'other: "Base | None"')
    ran, failed = ran_and_failed(project)
    assert {"test_and", "test_hints"} <= ran
    assert failed == {"test_hints"}
